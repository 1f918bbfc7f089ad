//! A model graph becomes a program: folding, renames, listing, kinds.
//! Uses: graph, order, error, program_json (Program); used by: mod.rs.
//!
//! A [`ModelGraph`] becomes a program by the conventions of the public traces
//! (`../shared/traces/models/README.md`, "How the graphs were read"):
//!
//! - **Folding.** A node whose inputs are all constants (and that has at least one) is dropped
//!   and its outputs become weights; so are [`NodeRole::Source`] nodes (ONNX `Constant`) and
//!   [`NodeRole::ShapeOf`] nodes (ONNX `Shape`/`Size`: shapes are static once the inputs are
//!   fixed). Folding cascades: a node reading only folded outputs folds too.
//! - **Renames.** A [`NodeRole::Rename`] node (ONNX `Identity`, inference `Dropout`) that does
//!   not fold is removed and its readers read its input instead, unless its first output is a
//!   graph output or one of its other outputs (the `Dropout` mask) is read or is a graph output.
//! - **Listing.** Graph inputs first, then every tensor a kept op reads or writes in the order
//!   ops first name it (inputs before outputs), then the graph outputs not yet listed. A tensor
//!   is `input` (a graph input), `output` (a graph output written by a kept op), `weight` (a
//!   constant, also a graph output that folding made constant: no op writes it) or
//!   `intermediate`.
//! - **Ops** keep the file's order, name and op type; their inputs and outputs name tensors,
//!   optional ones left out, repeats kept.
//!
//! O(T + N + E) after [`check_order`].

use super::error::ImportError;
use super::graph::{ModelGraph, NodeRole, SizeProblem};
use super::order::check_order;
use crate::input::{Op, Program, Tensor, TensorKind};

/// Converts `g` to a program named `g.name` (see the module docs); `file` names the model in
/// errors.
///
/// # Errors
/// The definition-order errors of [`check_order`]; for a listed tensor whose size is not
/// known, [`ImportError::UnknownDataType`], [`ImportError::UnsizedDataType`] or
/// [`ImportError::BadSize`] naming it.
pub fn to_program(g: &ModelGraph, file: &str) -> Result<Program, ImportError> {
    check_order(g, file)?;
    let n = g.tensors.len();
    let mut constant: Vec<bool> = g.tensors.iter().map(|t| t.constant).collect();
    let mut is_output = vec![false; n];
    for &o in &g.outputs {
        is_output[o as usize] = true;
    }
    let mut readers = vec![0u32; n];
    for node in &g.nodes {
        for &i in &node.node.inputs {
            readers[i as usize] += 1;
        }
    }
    // alias[t] = the tensor that readers of t read instead (t itself unless renamed).
    let mut alias: Vec<u32> = (0..n as u32).collect();
    let mut kept: Vec<(usize, Vec<u32>)> = Vec::new();
    for (k, node) in g.nodes.iter().enumerate() {
        let ins: Vec<u32> = node.node.inputs.iter().map(|&i| alias[i as usize]).collect();
        let all_constant = !ins.is_empty() && ins.iter().all(|&i| constant[i as usize]);
        let fold = match node.role {
            NodeRole::Source | NodeRole::ShapeOf => true,
            NodeRole::Compute | NodeRole::Rename => all_constant,
        };
        if fold {
            for &o in &node.node.outputs {
                constant[o as usize] = true;
            }
            continue;
        }
        if node.role == NodeRole::Rename
            && removable_rename(node.node.outputs.as_slice(), &readers, &is_output)
        {
            if let (Some(&first_in), Some(&first_out)) = (ins.first(), node.node.outputs.first()) {
                alias[first_out as usize] = first_in;
                continue;
            }
        }
        kept.push((k, ins));
    }

    let mut index: Vec<Option<u32>> = vec![None; n];
    let mut tensors: Vec<Tensor> = Vec::new();
    let mut is_input = vec![false; n];
    for &i in &g.inputs {
        is_input[i as usize] = true;
    }
    let mut list = |t: u32, tensors: &mut Vec<Tensor>| -> Result<u32, ImportError> {
        if let Some(i) = index[t as usize] {
            return Ok(i);
        }
        let gt = &g.tensors[t as usize];
        let kind = if is_input[t as usize] {
            TensorKind::Input
        } else if constant[t as usize] {
            TensorKind::Weight
        } else if is_output[t as usize] {
            TensorKind::Output
        } else {
            TensorKind::Intermediate
        };
        let bytes = gt.bytes.clone().map_err(|p| size_error(file, &gt.name, p))?;
        tensors.push(Tensor { name: gt.name.clone(), bytes, kind, address: None, shared: false });
        let i = (tensors.len() - 1) as u32;
        index[t as usize] = Some(i);
        Ok(i)
    };
    for &i in &g.inputs {
        list(i, &mut tensors)?;
    }
    let mut ops = Vec::with_capacity(kept.len());
    for (k, ins) in kept {
        let node = &g.nodes[k];
        let inputs = ins.iter().map(|&t| list(t, &mut tensors)).collect::<Result<Vec<_>, _>>()?;
        let outputs =
            node.node.outputs.iter().map(|&t| list(t, &mut tensors)).collect::<Result<Vec<_>, _>>()?;
        ops.push(Op { inputs, outputs, ..node.node.clone() });
    }
    for &o in &g.outputs {
        list(alias[o as usize], &mut tensors)?;
    }
    Ok(Program { name: g.name.clone(), tensors, ops })
}

/// Whether a non-folding rename node can go: its first output is not a graph output and its
/// other outputs are neither read nor graph outputs.
fn removable_rename(outputs: &[u32], readers: &[u32], is_output: &[bool]) -> bool {
    match outputs.split_first() {
        None => false,
        Some((&first, rest)) => {
            !is_output[first as usize]
                && rest.iter().all(|&o| readers[o as usize] == 0 && !is_output[o as usize])
        }
    }
}

/// The error for a listed tensor whose size is not known.
fn size_error(file: &str, tensor: &str, p: SizeProblem) -> ImportError {
    let (file, tensor) = (file.to_owned(), tensor.to_owned());
    match p {
        SizeProblem::UnknownType(code) => ImportError::UnknownDataType { file, tensor, code },
        SizeProblem::UnsizedType(dtype) => ImportError::UnsizedDataType { file, tensor, dtype },
        SizeProblem::BadShape(detail) => ImportError::BadSize { file, tensor, detail },
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::{GraphNode, GraphTensor};
    use super::*;

    fn t(name: &str, bytes: u64, constant: bool) -> GraphTensor {
        GraphTensor { name: name.into(), bytes: Ok(bytes), constant }
    }

    fn node(name: &str, op: &str, inputs: &[u32], outputs: &[u32], role: NodeRole) -> GraphNode {
        let node = Op {
            name: name.into(),
            op: op.into(),
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            collective: false,
        };
        GraphNode { node, role }
    }

    fn listing(p: &Program) -> Vec<(String, u64, &'static str)> {
        p.tensors.iter().map(|t| (t.name.clone(), t.bytes, t.kind.as_str())).collect()
    }

    #[test]
    fn folds_cascades_renames_and_lists_in_first_use_order() {
        use NodeRole::*;
        // x -> Identity -> a; c0 = Constant; s = Shape(a); r = Reshape(a, s); y = Relu(r)
        // Dropout(y) -> (y2, mask unread) is a rename; z = Add(y2, w) is the graph output.
        let g = ModelGraph {
            name: "m".into(),
            // Indices 0..=11; w (8) and unused (10) are constants.
            tensors: ["x", "a", "c0", "s", "r", "y", "y2", "mask", "w", "z", "unused", "f"]
                .iter()
                .zip([16, 16, 8, 16, 16, 16, 16, 4, 16, 16, 2, 2])
                .enumerate()
                .map(|(i, (name, bytes))| t(name, bytes, i == 8 || i == 10))
                .collect(),
            nodes: vec![
                node("id", "Identity", &[0], &[1], Rename),
                node("c", "Constant", &[], &[2], Source),
                node("shape", "Shape", &[1], &[3], ShapeOf),
                node("reshape", "Reshape", &[1, 3], &[4], Compute),
                node("relu", "Relu", &[4], &[5], Compute),
                node("drop", "Dropout", &[5], &[6, 7], Rename),
                node("add", "Add", &[6, 8], &[9], Compute),
                node("folded", "Mul", &[2, 10], &[11], Compute),
            ],
            inputs: vec![0],
            outputs: vec![9],
            input_shapes: vec![],
        };
        let p = to_program(&g, "m.onnx").unwrap();
        assert_eq!(
            listing(&p),
            vec![
                ("x".to_owned(), 16, "input"),
                ("s".to_owned(), 16, "weight"),
                ("r".to_owned(), 16, "intermediate"),
                ("y".to_owned(), 16, "intermediate"),
                ("w".to_owned(), 16, "weight"),
                ("z".to_owned(), 16, "output"),
            ]
        );
        let ops: Vec<(&str, &[u32], &[u32])> =
            p.ops.iter().map(|o| (o.op.as_str(), o.inputs.as_slice(), o.outputs.as_slice())).collect();
        assert_eq!(
            ops,
            vec![("Reshape", &[0u32, 1][..], &[2u32][..]), ("Relu", &[2], &[3]), ("Add", &[3, 4], &[5])]
        );
    }

    #[test]
    fn keeps_a_rename_whose_output_matters() {
        use NodeRole::*;
        let g = ModelGraph {
            name: "m".into(),
            tensors: vec![t("x", 4, false), t("y", 4, false), t("mask", 1, false), t("z", 4, false)],
            nodes: vec![
                node("drop", "Dropout", &[0], &[1, 2], Rename),
                node("use_mask", "Cast", &[2], &[3], Compute),
            ],
            inputs: vec![0],
            outputs: vec![1, 3],
            input_shapes: vec![],
        };
        let p = to_program(&g, "m").unwrap();
        assert_eq!(p.ops.len(), 2);
        assert_eq!(p.ops[0].outputs, vec![1, 2]);
        assert_eq!(p.tensors[1].kind, TensorKind::Output);
    }

    #[test]
    fn a_constant_graph_output_is_a_weight_and_unknown_sizes_name_the_tensor() {
        use NodeRole::*;
        let mut g = ModelGraph {
            name: "m".into(),
            tensors: vec![t("x", 4, false), t("k", 4, false), t("y", 4, false)],
            nodes: vec![node("c", "Constant", &[], &[1], Source), node("add", "Add", &[0, 1], &[2], Compute)],
            inputs: vec![0],
            outputs: vec![2, 1],
            input_shapes: vec![],
        };
        let p = to_program(&g, "m").unwrap();
        assert_eq!(listing(&p)[1..], [("k".to_owned(), 4, "weight"), ("y".to_owned(), 4, "output")]);
        g.tensors[2].bytes = Err(SizeProblem::UnsizedType("STRING"));
        let e = to_program(&g, "m").unwrap_err();
        assert_eq!(e.to_string(), "m: tensor `y`: data type STRING has no fixed element size");
    }
}
