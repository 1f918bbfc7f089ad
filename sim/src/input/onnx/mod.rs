//! ONNX reader: a .onnx file becomes a model graph with static shapes.
//! Uses: import (graph, order, size, error), dramalloc-model-formats (onnx), prost, its files; used by: import.
//!
//! ONNX reader: a `.onnx` file (protobuf `ModelProto`, decoded with prost from ONNX's
//! `onnx.proto`) becomes a [`ModelGraph`] with static shapes.
//!
//! - **Tensors.** Initializers (dense and sparse) are constants, also when they are listed as
//!   graph inputs too (IR < 4). Graph inputs take their declared shapes, symbolic dimensions
//!   fixed by `--input-shape` (a name one input is given sizes every input) or set to 1
//!   ([`declared::fix_input`]).
//! - **Shapes.** Every node, in file order, gets its output types and shapes from its
//!   inputs by the op's rule ([`infer`]), which also evaluates small constant tensors so that
//!   `Shape -> Gather -> Concat -> Reshape` chains give static shapes. A shape the file
//!   declares for an output is not trusted where a rule applies (exporters write stale
//!   ones); for ops without a rule (other domains, `If`/`Loop`/`Scan`, sequences) the declared
//!   static shape is taken, and the op stays opaque with its tensors. The outer tensors its
//!   subgraphs read become inputs too ([`captures`]), so they stay live until it runs.
//! - **Roles.** `Constant` folds, `Shape`/`Size` fold, `Identity` and `Dropout` are renames
//!   ([`NodeRole`]); every other op folds when all its inputs are constants.
//!
//! Costs: decoding is linear in the file size (weights are copied once); inference is
//! O(nodes) plus the evaluated constants, each at most [`value::MAX_VALUE_ELEMENTS`] elements.

pub mod captures;
pub mod declared;
pub mod dtype;
pub mod infer;
pub mod value;

use std::collections::HashMap;

use dramalloc_model_formats::onnx::{GraphProto, ModelProto, NodeProto};
use prost::Message;

use self::declared::{declared, fix_input, non_tensor_kind, static_shape, Declared, FixedInput, Symbols};
use self::infer::{Info, Node};
use crate::input::import::{
    byte_size, check_order, GraphNode, GraphTensor, ImportError, ModelGraph, ModelSource, NodeRole,
};
use crate::input::Op;

/// Reads an ONNX model (see the module docs); the `input_shapes` fix graph inputs.
///
/// # Errors
/// [`ImportError::Malformed`] when the bytes are not a `ModelProto`,
/// [`ImportError::NoGraph`], [`ImportError::DuplicateInput`], [`ImportError::BadInputShape`],
/// [`ImportError::ConflictingDimension`], [`ImportError::UnsupportedInputType`] (an input that
/// is not a tensor),
/// [`ImportError::DynamicInput`], [`ImportError::BadSize`] (a negative dimension),
/// the definition-order errors of [`check_order`], and [`ImportError::Shape`] naming the
/// node whose output shape cannot be inferred.
pub fn read_onnx(source: &ModelSource) -> Result<ModelGraph, ImportError> {
    let ModelSource { bytes, file, name, input_shapes } = *source;
    // (an empty file decodes as a model with nothing in it: say what it is)
    if bytes.is_empty() {
        return Err(ImportError::Malformed {
            file: file.to_owned(),
            format: "ONNX",
            detail: "the file is empty".into(),
        });
    }
    let model = ModelProto::decode(bytes).map_err(|e| ImportError::Malformed {
        file: file.to_owned(),
        format: "ONNX",
        detail: e.to_string(),
    })?;
    let graph = model.graph.as_ref().ok_or_else(|| ImportError::NoGraph { file: file.to_owned() })?;
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("" | "ai.onnx")))
        .and_then(|o| o.version)
        .unwrap_or(1);
    Reader { file, graph, opset, index: HashMap::new(), tensors: Vec::new(), infos: Vec::new() }
        .read(name, input_shapes)
}

/// How a declared output's dimensions that no input has end their message: no `--input-shape`
/// can size them (so the hint to give one is not added).
const UNSIZED: &str = "no input has (no --input-shape can size it)";

/// The dimensions of declaration `d` that nothing sizes, as text (`` `M` ``, `?` for one
/// without a name, comma-separated); `None` where it has no rank or every dimension is sized.
fn unsized_dims(d: &Declared, symbols: &Symbols) -> Option<String> {
    let dims: Vec<String> = d
        .dims
        .as_ref()?
        .iter()
        .filter_map(|dim| match dim {
            declared::Dim::Symbolic(Some(s)) if symbols.get(s).is_none() => Some(format!("`{s}`")),
            declared::Dim::Symbolic(None) => Some("?".to_owned()),
            _ => None,
        })
        .collect();
    (!dims.is_empty()).then(|| dims.join(", "))
}

/// Builds the graph and runs inference.
struct Reader<'a> {
    file: &'a str,
    graph: &'a GraphProto,
    opset: i64,
    index: HashMap<&'a str, u32>,
    tensors: Vec<GraphTensor>,
    infos: Vec<Option<Info>>,
}

impl<'a> Reader<'a> {
    /// The index of tensor `name`, created on first sight.
    fn tensor(&mut self, name: &'a str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.tensors.len() as u32;
        self.index.insert(name, i);
        self.tensors.push(GraphTensor { name: name.to_owned(), bytes: Ok(0), constant: false });
        self.infos.push(None);
        i
    }

    fn shape_error(&self, node: &str, op: &str, detail: String) -> ImportError {
        ImportError::Shape { file: self.file.to_owned(), node: node.to_owned(), op: op.to_owned(), detail }
    }

    fn read(mut self, name: &str, input_shapes: &[(String, Vec<u64>)]) -> Result<ModelGraph, ImportError> {
        let g = self.graph;
        let file = self.file;
        let mut given = std::collections::HashSet::new();
        let sparse =
            g.sparse_initializer.iter().filter_map(|s| s.values.as_ref().and_then(|v| v.name.as_deref()));
        let mut names = g.initializer.iter().filter_map(|t| t.name.as_deref()).chain(sparse);
        if let Some(n) = names.find(|n| !given.insert(*n)) {
            return Err(ImportError::DuplicateInitializer { file: file.to_owned(), name: n.to_owned() });
        }
        for t in &g.initializer {
            let i = self.tensor(t.name.as_deref().unwrap_or(""));
            let shape = dims(file, t.name.as_deref().unwrap_or(""), &t.dims)?;
            if let Some(detail) = value::stored_mismatch(t, &shape) {
                return Err(ImportError::BadSize {
                    file: file.to_owned(),
                    tensor: t.name.clone().unwrap_or_default(),
                    detail,
                });
            }
            let v = value::from_proto(t, &shape);
            self.tensors[i as usize].constant = true;
            self.infos[i as usize] = Some(Info { dtype: t.data_type.unwrap_or(0), shape, value: v });
        }
        for s in &g.sparse_initializer {
            let vname = s.values.as_ref().and_then(|v| v.name.as_deref()).unwrap_or("");
            let i = self.tensor(vname);
            let shape = dims(file, vname, &s.dims)?;
            let dt = s.values.as_ref().and_then(|v| v.data_type).unwrap_or(0);
            self.tensors[i as usize].constant = true;
            self.infos[i as usize] = Some(Info::new(dt, shape));
        }
        // A graph input that is also an initializer must declare what the initializer holds.
        for v in &g.input {
            let vname = v.name.as_deref().unwrap_or("");
            let Some(&i) = self.index.get(vname) else { continue };
            let (Some(d), Some(info)) = (declared(v), &self.infos[i as usize]) else { continue };
            if let Some(detail) = declared::initializer_conflict(&d, info.dtype, &info.shape) {
                return Err(ImportError::BadSize {
                    file: file.to_owned(),
                    tensor: vname.to_owned(),
                    detail: format!("graph input and initializer: {detail}"),
                });
            }
        }
        // Graph inputs that are not initializers, with their fixed shapes.
        let input_names: Vec<&str> = g
            .input
            .iter()
            .filter_map(|v| v.name.as_deref())
            .filter(|n| self.index.get(n).is_none_or(|&i| !self.tensors[i as usize].constant))
            .collect();
        for (given, _) in input_shapes {
            if !input_names.contains(&given.as_str()) {
                return Err(ImportError::BadInputShape {
                    file: file.to_owned(),
                    name: given.clone(),
                    detail: format!("the model has no such input (inputs: {})", input_names.join(", ")),
                });
            }
        }
        let mut listed = std::collections::HashSet::new();
        if let Some(v) = g.input.iter().find(|v| !listed.insert(v.name.as_deref().unwrap_or(""))) {
            return Err(ImportError::DuplicateInput {
                file: file.to_owned(),
                input: v.name.clone().unwrap_or_default(),
            });
        }
        let typed = g.input.iter().filter(|v| input_names.contains(&v.name.as_deref().unwrap_or("")));
        for v in typed {
            if let Some(kind) = non_tensor_kind(v) {
                return Err(ImportError::UnsupportedInputType {
                    file: file.to_owned(),
                    input: v.name.clone().unwrap_or_default(),
                    kind,
                });
            }
        }
        // (name, declared type, --input-shape) of each input that is not a constant.
        let ins: Vec<_> = g
            .input
            .iter()
            .filter_map(|v| {
                let vname = v.name.as_deref().unwrap_or("");
                let given = input_shapes.iter().find(|(n, _)| n == vname).map(|(_, s)| s.as_slice());
                input_names.contains(&vname).then(|| (vname, declared(v), given))
            })
            .collect();
        // The inputs given by --input-shape first: the dimension names they bind size the rest.
        let mut symbols = Symbols::default();
        let mut shapes: Vec<Option<FixedInput>> = ins.iter().map(|_| None).collect();
        for given_pass in [true, false] {
            for ((vname, d, given), shape) in ins.iter().zip(&mut shapes) {
                if given.is_some() == given_pass {
                    *shape = Some(fix_input(file, vname, d.as_ref(), *given, &mut symbols)?);
                }
            }
        }
        let mut inputs = Vec::new();
        let mut fixed = Vec::new();
        // the inputs whose symbolic dimensions took 1 for want of `--input-shape`: a shape rule
        // that then fails says so (a trial: "window 2 is larger than padded input 1" of a
        // model imported without the input's shape)
        let mut defaulted = Vec::new();
        for ((vname, d, _), f) in ins.into_iter().zip(shapes.into_iter().flatten()) {
            if f.defaulted {
                defaulted.push(vname);
            }
            if f.recorded {
                fixed.push((vname.to_owned(), f.shape.clone()));
            }
            let i = self.tensor(vname);
            inputs.push(i);
            self.infos[i as usize] = Some(Info::new(d.map_or(0, |d| d.dtype), f.shape));
        }
        let nodes = self.nodes();
        let outputs: Vec<u32> =
            g.output.iter().map(|v| self.tensor(v.name.as_deref().unwrap_or(""))).collect();
        let mut mg = ModelGraph {
            name: name.to_owned(),
            tensors: std::mem::take(&mut self.tensors),
            nodes,
            inputs,
            outputs,
            input_shapes: fixed,
        };
        check_order(&mg, file)?;
        // one declaration a value: the same one twice (an output also in `value_info`) is
        // fine, two that differ are refused (the last silently won before)
        let mut decl: HashMap<&str, Declared> = HashMap::new();
        for (vname, d) in
            g.value_info.iter().chain(&g.output).filter_map(|v| Some((v.name.as_deref()?, declared(v)?)))
        {
            if let Some(first) = decl.get(vname).filter(|&first| *first != d) {
                return Err(ImportError::ConflictingDeclarations {
                    file: file.to_owned(),
                    name: vname.to_owned(),
                    detail: format!("{first} and {d}"),
                });
            }
            decl.insert(vname, d);
        }
        for (k, node) in g.node.iter().enumerate() {
            self.infer_node(k, node, &mg, &decl, &symbols, !defaulted.is_empty()).map_err(|e| match e {
                ImportError::Shape { file, node, op, detail }
                    if !defaulted.is_empty() && !detail.ends_with(UNSIZED) =>
                {
                    let names: Vec<String> = defaulted.iter().map(|n| format!("`{n}`")).collect();
                    let detail = format!(
                        "{detail} (the symbolic dimensions of input {} were taken as 1: give --input-shape)",
                        names.join(", ")
                    );
                    ImportError::Shape { file, node, op, detail }
                }
                e => e,
            })?;
        }
        for (t, info) in mg.tensors.iter_mut().zip(&self.infos) {
            t.bytes = match info {
                Some(i) => dtype::bits(i.dtype).and_then(|b| byte_size_u(&i.shape, b)),
                None => {
                    Err(crate::input::import::SizeProblem::BadShape("no shape (nothing defines it)".into()))
                }
            };
        }
        Ok(mg)
    }

    /// The graph's nodes with their roles; creates the tensors they name. A node with
    /// subgraphs (`If`, `Loop`, `Scan`) also reads the outer tensors they read
    /// ([`captures::captured`]), after its own inputs.
    fn nodes(&mut self) -> Vec<GraphNode> {
        let g = self.graph;
        let mut nodes = Vec::with_capacity(g.node.len());
        for (k, n) in g.node.iter().enumerate() {
            let op = n.op_type.as_deref().unwrap_or("");
            let default_domain = matches!(n.domain.as_deref(), None | Some("" | "ai.onnx"));
            let role = match op {
                "Constant" if default_domain => NodeRole::Source,
                "Shape" | "Size" if default_domain => NodeRole::ShapeOf,
                "Identity" | "Dropout" if default_domain => NodeRole::Rename,
                _ => NodeRole::Compute,
            };
            let name = match n.name.as_deref() {
                Some(s) if !s.is_empty() => s.to_owned(),
                _ => format!("{op}_{k}"),
            };
            let mut inputs: Vec<u32> =
                n.input.iter().filter(|s| !s.is_empty()).map(|s| self.tensor(s)).collect();
            inputs.extend(captures::captured(n).into_iter().map(|s| self.tensor(s)));
            let outputs = n.output.iter().filter(|s| !s.is_empty()).map(|s| self.tensor(s)).collect();
            let node = Op { name, op: op.to_owned(), inputs, outputs, collective: false };
            nodes.push(GraphNode { node, role });
        }
        nodes
    }

    /// The first input of `node` whose byte size [`overflows`], with its name.
    fn overflowing_input(&self, node: &'a NodeProto) -> Option<(&'a str, &Info)> {
        node.input.iter().find_map(|s| {
            let info = self.infos[*self.index.get(s.as_str())? as usize].as_ref()?;
            overflows(info).then_some((s.as_str(), info))
        })
    }

    /// Infers the outputs of node `k`; an output whose byte size overflows `u64` is an
    /// error naming the node, the first place the overflow shows.
    fn infer_node(
        &mut self,
        k: usize,
        node: &'a NodeProto,
        mg: &ModelGraph,
        decl: &HashMap<&str, Declared>,
        symbols: &Symbols,
        defaulted: bool,
    ) -> Result<(), ImportError> {
        let gn = &mg.nodes[k];
        let default_domain = matches!(node.domain.as_deref(), None | Some("" | "ai.onnx"));
        let result = {
            let inputs: Vec<Option<&Info>> = node
                .input
                .iter()
                .map(|s| {
                    if s.is_empty() {
                        None
                    } else {
                        self.index.get(s.as_str()).and_then(|&i| self.infos[i as usize].as_ref())
                    }
                })
                .collect();
            let n = Node { proto: node, inputs, opset: self.opset };
            match node.domain.as_deref() {
                _ if default_domain => infer::infer(&gn.node.op, &n),
                Some("com.microsoft") => infer::infer_contrib(&gn.node.op, &n),
                _ => None,
            }
        };
        let outs: Vec<Info> = match result {
            Some(Ok(outs)) => outs,
            // A rule that applies and fails on inputs whose shapes and values are all known:
            // the node contradicts its op (inner dimensions that differ, an axis out of
            // range, ...), and a shape the file declares for its output does not make it
            // valid (a trial's MatMul of [2, 8] and [5, 16], declared [2, 16], was imported
            // with that shape, exit 0). The declared shape still stands in where the rule
            // needs a value known only at run time, or where symbolic dimensions took 1.
            Some(Err(why))
                if !defaulted
                    && !infer::needs_runtime_data(&why)
                    && self.overflowing_input(node).is_none() =>
            {
                return Err(self.shape_error(&gn.node.name, &gn.node.op, why));
            }
            failed => {
                let why = match failed {
                    Some(Err(e)) => e,
                    _ => format!(
                        "no shape rule for op `{}`{}",
                        gn.node.op,
                        node.domain
                            .as_deref()
                            .filter(|d| !d.is_empty())
                            .map_or(String::new(), |d| format!(" of domain `{d}`"))
                    ),
                };
                // A rule that failed on an input too large to count: say that, not that the
                // file declares no shape (no declared shape can help).
                if let Some((t, info)) = self.overflowing_input(node) {
                    return Err(self.shape_error(
                        &gn.node.name,
                        &gn.node.op,
                        format!("{why}; input `{t}` {}", overflow_text(info)),
                    ));
                }
                let mut outs = Vec::with_capacity(node.output.len());
                for o in &node.output {
                    if o.is_empty() {
                        outs.push(Info::new(0, vec![]));
                        continue;
                    }
                    match decl
                        .get(o.as_str())
                        .and_then(|d| static_shape(d, symbols).map(|s| Info::new(d.dtype, s)))
                    {
                        Some(info) => outs.push(info),
                        None => {
                            let detail = match decl.get(o.as_str()).and_then(|d| unsized_dims(d, symbols)) {
                                // declared, with dimensions nothing sizes: name them (a trial
                                // was told to give --input-shape, which cannot size them)
                                Some(dims) => format!(
                                    "{why}, and output `{o}` is declared {}, whose dimension {dims} {UNSIZED}",
                                    decl[o.as_str()]
                                ),
                                None => format!("{why}, and the file declares no static shape for output `{o}`"),
                            };
                            return Err(self.shape_error(&gn.node.name, &gn.node.op, detail));
                        }
                    }
                }
                outs
            }
        };
        if let Some((o, info)) = node.output.iter().zip(&outs).find(|(o, i)| !o.is_empty() && overflows(i)) {
            return Err(self.shape_error(
                &gn.node.name,
                &gn.node.op,
                format!("output `{o}` {}", overflow_text(info)),
            ));
        }
        for (o, info) in node.output.iter().zip(outs) {
            if !o.is_empty() {
                if let Some(&i) = self.index.get(o.as_str()) {
                    self.infos[i as usize] = Some(info);
                }
            }
        }
        Ok(())
    }
}

/// Whether a tensor of `info` holds more bytes than `u64` counts (of a type without a known
/// size: more elements).
fn overflows(info: &Info) -> bool {
    match dtype::bits(info.dtype) {
        Ok(bits) => byte_size_u(&info.shape, bits).is_err(),
        Err(_) => value::elements(&info.shape).is_none(),
    }
}

/// `has shape [..] of TYPE: its byte size overflows u64`, for a tensor that [`overflows`].
fn overflow_text(info: &Info) -> String {
    let ty = dtype::describe(info.dtype).map_or("an unknown type", |(ty, _)| ty);
    format!("has shape {:?} of {ty}: its byte size overflows u64", info.shape)
}

/// A file's dimensions as `u64`.
fn dims(file: &str, tensor: &str, d: &[i64]) -> Result<Vec<u64>, ImportError> {
    d.iter()
        .enumerate()
        .map(|(i, &v)| {
            u64::try_from(v).map_err(|_| ImportError::BadSize {
                file: file.to_owned(),
                tensor: tensor.to_owned(),
                detail: format!("dimension {i} is {v} in the file; a dimension cannot be negative"),
            })
        })
        .collect()
}

/// [`byte_size`] of an unsigned shape.
fn byte_size_u(shape: &[u64], bits: u32) -> Result<u64, crate::input::import::SizeProblem> {
    let signed: Vec<i64> = shape.iter().map(|&d| i64::try_from(d).unwrap_or(i64::MAX)).collect();
    byte_size(&signed, bits)
}
