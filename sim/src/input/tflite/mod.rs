//! TFLite reader: a .tflite file becomes a model graph.
//! Uses: import (graph, size, error), codes, dramalloc-model-formats (tflite), planus; used by: import.
//!
//! TFLite reader: a `.tflite` file (flatbuffer `Model`, read with planus through the tables
//! of `dramalloc_model_formats::tflite`) becomes a [`ModelGraph`].
//!
//! - Only subgraph 0, the main graph, is read.
//! - **Shapes and types come from the file** (`Tensor.shape`, `Tensor.type`); a scalar
//!   (empty shape) is one element; a negative dimension is [`ImportError::BadSize`] of that
//!   tensor. `--input-shape` may only restate an input's shape, since every intermediate
//!   shape is the file's.
//! - **A weight is a tensor with a data buffer** (`Tensor.buffer` naming a buffer with data,
//!   inside the flatbuffer or, for files over 2 GiB, after it) or a variable tensor (state the
//!   runtime allocates before the first op).
//! - **Ops run in the subgraph's order.** An op is its builtin name (`CONV_2D`) or, for
//!   `CUSTOM`, its custom code; the op name is the lower-cased op and its operator index
//!   (`conv_2d_2`). Optional inputs (`-1`) are left out; a first input left out is refused.
//!   Every op folds when all its inputs are constants (`DEQUANTIZE` of fp16 weights, `DENSIFY`
//!   of sparse ones).
//!
//! Every access is checked by planus; a truncated or corrupt file, or an index beyond its
//! table, is an error naming the table and position. O(file size) to read.

pub mod codes;

use std::collections::HashSet;

use dramalloc_model_formats::tflite::{ModelRef, SubGraphRef};
use planus::ReadAsRoot;

use crate::input::import::{
    byte_size, GraphNode, GraphTensor, ImportError, ModelGraph, ModelSource, NodeRole, SizeProblem,
};
use crate::input::Op;

/// Reads a TFLite model (see the module docs); `input_shapes` may restate input shapes.
///
/// # Errors
/// [`ImportError::Malformed`] for a file that does not read as a TFLite flatbuffer,
/// [`ImportError::NoGraph`] without subgraphs, [`ImportError::BadIndex`] for a tensor,
/// buffer or operator-code index beyond its table, [`ImportError::BadInputShape`] for an
/// `--input-shape` that names no input or changes one.
pub fn read_tflite(source: &ModelSource) -> Result<ModelGraph, ImportError> {
    let ModelSource { bytes, file, name, input_shapes } = *source;
    let malformed = |e: planus::Error| ImportError::Malformed {
        file: file.to_owned(),
        format: "TFLite",
        detail: e.to_string(),
    };
    if bytes.len() < 8 {
        return Err(ImportError::Malformed {
            file: file.to_owned(),
            format: "TFLite",
            detail: format!("{} bytes is too short for a flatbuffer", bytes.len()),
        });
    }
    // the file identifier TFLite's own reader checks (`ModelBufferHasIdentifier`): a file
    // without it is not read as a model (a trial's `XXXX` there imported normally)
    if &bytes[4..8] != b"TFL3" {
        return Err(ImportError::Malformed {
            file: file.to_owned(),
            format: "TFLite",
            detail: format!(
                "bytes 4-7 are {:?}, not the file identifier \"TFL3\"",
                String::from_utf8_lossy(&bytes[4..8])
            ),
        });
    }
    let model = ModelRef::read_as_root(bytes).map_err(malformed)?;
    let no_graph = || ImportError::NoGraph { file: file.to_owned() };
    let sg: SubGraphRef = model
        .subgraphs()
        .map_err(malformed)?
        .and_then(|v| v.get(0))
        .ok_or_else(no_graph)?
        .map_err(malformed)?;
    let buffers = model.buffers().map_err(malformed)?;
    let codes = model.operator_codes().map_err(malformed)?;
    let bad_index = |place: String, index: i64, len: usize| ImportError::BadIndex {
        file: file.to_owned(),
        place,
        index,
        len,
    };

    let tvec = sg.tensors().map_err(malformed)?;
    let count = tvec.map_or(0, |v| v.len());
    let mut tensors = Vec::with_capacity(count);
    let mut shapes: Vec<Vec<i32>> = Vec::with_capacity(count);
    let mut used = HashSet::with_capacity(count);
    for i in 0..count {
        let t = tvec
            .and_then(|v| v.get(i))
            .ok_or_else(|| bad_index("tensors".into(), i as i64, count))?
            .map_err(malformed)?;
        let mut tname = t
            .name()
            .map_err(malformed)?
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("tensor_{i}"), str::to_owned);
        if !used.insert(tname.clone()) {
            tname = format!("{tname}#{i}");
            used.insert(tname.clone());
        }
        let shape: Vec<i32> = t.shape().map_err(malformed)?.map_or_else(Vec::new, |s| s.iter().collect());
        let b = t.buffer().map_err(malformed)?;
        let nbuf = buffers.map_or(0, |v| v.len());
        // the bytes its buffer holds (inside the flatbuffer, or `size` after it), 0 for none
        let held = if b == 0 {
            0
        } else {
            let buf = buffers
                .and_then(|v| v.get(b as usize))
                .ok_or_else(|| bad_index(format!("tensor `{tname}` buffer"), i64::from(b), nbuf))?
                .map_err(malformed)?;
            let inline = buf.data().map_err(malformed)?.map_or(0, |d| d.len() as u64);
            inline.max(buf.size().map_err(malformed)?)
        };
        let has_data = held > 0;
        let constant = has_data || t.is_variable().map_err(malformed)?;
        let code = t.type_().map_err(malformed)?;
        let bytes = match codes::tensor_type(code) {
            None => Err(SizeProblem::UnknownType(i64::from(code))),
            Some((dtype, None)) => Err(SizeProblem::UnsizedType(dtype)),
            Some((_, Some(bits))) => {
                byte_size(&shape.iter().map(|&d| i64::from(d)).collect::<Vec<_>>(), bits)
            }
        };
        // dense data must fill the shape, as an ONNX initializer must (a sparse tensor's
        // holds fewer bytes: its size comes from the shape; sub-byte types are not checked,
        // as converters have stored them packed and unpacked)
        let whole_bytes = codes::tensor_type(code).is_some_and(|(_, bits)| bits.is_some_and(|b| b >= 8));
        if let (Ok(size), true) = (&bytes, has_data && whole_bytes) {
            if held != *size && t.sparsity().map_err(malformed)?.is_none() {
                return Err(ImportError::BadSize {
                    file: file.to_owned(),
                    tensor: tname,
                    detail: format!("its shape {shape:?} is {size} bytes, its buffer {b} holds {held}"),
                });
            }
        }
        check_signature(file, &tname, &shape, t.shape_signature().map_err(malformed)?)?;
        tensors.push(GraphTensor { name: tname, bytes, constant });
        shapes.push(shape);
    }
    let index = |place: &dyn Fn() -> String, raw: i32| -> Result<u32, ImportError> {
        usize::try_from(raw)
            .ok()
            .filter(|&i| i < count)
            .map(|i| i as u32)
            .ok_or_else(|| bad_index(place(), i64::from(raw), count))
    };

    let ncodes = codes.map_or(0, |v| v.len());
    let ops = sg.operators().map_err(malformed)?;
    let mut nodes = Vec::with_capacity(ops.map_or(0, |v| v.len()));
    for k in 0..ops.map_or(0, |v| v.len()) {
        let op = ops
            .and_then(|v| v.get(k))
            .ok_or_else(|| bad_index("operators".into(), k as i64, k))?
            .map_err(malformed)?;
        let ci = op.opcode_index().map_err(malformed)?;
        let oc = codes
            .and_then(|v| v.get(ci as usize))
            .ok_or_else(|| bad_index(format!("operator {k} opcode_index"), i64::from(ci), ncodes))?
            .map_err(malformed)?;
        let code = i32::from(oc.deprecated_builtin_code().map_err(malformed)?)
            .max(oc.builtin_code().map_err(malformed)?);
        let op_name = if code == codes::CUSTOM {
            oc.custom_code().map_err(malformed)?.filter(|s| !s.is_empty()).unwrap_or("CUSTOM").to_owned()
        } else {
            codes::builtin_name(code)
        };
        let list = |which: &str, v: Option<planus::Vector<'_, i32>>| -> Result<Vec<u32>, ImportError> {
            v.map_or_else(Vec::new, |v| v.iter().enumerate().collect::<Vec<_>>())
                .into_iter()
                // -1: an optional input left out; any other negative index is refused below
                .filter(|&(_, t)| t != -1)
                .map(|(j, t)| index(&|| format!("operator {k} ({op_name}) {which} {j}"), t))
                .collect()
        };
        // an op's first input is never optional (a convolution's bias, a later one, may be):
        // left out, the op would fold as if it read constants only (a trial's first CONV_2D
        // with input 0 = -1 folded the whole network into one weight, and `run` said OK)
        let op_inputs = op.inputs().map_err(malformed)?;
        if op_inputs.and_then(|v| v.iter().next()) == Some(-1) {
            return Err(ImportError::Shape {
                file: file.to_owned(),
                node: format!("{}_{k}", op_name.to_lowercase()),
                op: op_name,
                detail: "input 0 is left out (-1), and an op's first input is never optional".into(),
            });
        }
        let inputs = list("input", op_inputs)?;
        let outputs = list("output", op.outputs().map_err(malformed)?)?;
        let node = Op {
            name: format!("{}_{k}", op_name.to_lowercase()),
            op: op_name,
            inputs,
            outputs,
            collective: false,
        };
        nodes.push(GraphNode { node, role: NodeRole::Compute });
    }
    let io = |which: &str, v: Option<planus::Vector<'_, i32>>| -> Result<Vec<u32>, ImportError> {
        v.map_or_else(Vec::new, |v| v.iter().collect::<Vec<_>>())
            .into_iter()
            .enumerate()
            .map(|(j, t)| index(&|| format!("subgraph 0 {which} {j}"), t))
            .collect()
    };
    let inputs = io("input", sg.inputs().map_err(malformed)?)?;
    if let Some((_, &i)) = inputs.iter().enumerate().find(|&(j, i)| inputs[..j].contains(i)) {
        return Err(ImportError::DuplicateInput {
            file: file.to_owned(),
            input: tensors[i as usize].name.clone(),
        });
    }
    let outputs = io("output", sg.outputs().map_err(malformed)?)?;
    for &i in &inputs {
        check_input(file, &tensors[i as usize].name, &shapes[i as usize], input_shapes)?;
    }
    for (given, _) in input_shapes {
        if !inputs.iter().any(|&i| &tensors[i as usize].name == given) {
            let names: Vec<&str> = inputs.iter().map(|&i| tensors[i as usize].name.as_str()).collect();
            return Err(ImportError::BadInputShape {
                file: file.to_owned(),
                name: given.clone(),
                detail: format!("the model has no such input (inputs: {})", names.join(", ")),
            });
        }
    }
    let input_shapes = input_shapes.to_vec();
    Ok(ModelGraph { name: name.to_owned(), tensors, nodes, inputs, outputs, input_shapes })
}

/// A tensor's `shape_signature` (`-1` marks a dynamic dimension) must have its shape's rank and
/// no other negative value, and agree with the shape where it is fixed (a trial's `[-1, -1, 16]`
/// for `[4, 16]`, and a `-7`, were accepted).
fn check_signature(
    file: &str,
    name: &str,
    shape: &[i32],
    signature: Option<planus::Vector<'_, i32>>,
) -> Result<(), ImportError> {
    let Some(sig) = signature else { return Ok(()) };
    let sig: Vec<i32> = sig.iter().collect();
    let fits = sig.len() == shape.len() && sig.iter().zip(shape).all(|(&s, &d)| s == -1 || s == d);
    if sig.is_empty() || fits {
        return Ok(());
    }
    Err(ImportError::BadSize {
        file: file.to_owned(),
        tensor: name.to_owned(),
        detail: format!(
            "its shape signature {sig:?} does not fit its shape {shape:?} (-1 marks a dynamic dimension)"
        ),
    })
}

/// An `--input-shape` for a TFLite input must restate the file's shape (a negative dimension
/// is reported as a bad size of that tensor when it is listed).
fn check_input(
    file: &str,
    name: &str,
    shape: &[i32],
    given: &[(String, Vec<u64>)],
) -> Result<(), ImportError> {
    let restated = given.iter().find(|(n, _)| n == name);
    if let Some((_, g)) = restated {
        let same = g.len() == shape.len()
            && g.iter().zip(shape).all(|(&a, &b)| i64::try_from(a).ok() == Some(i64::from(b)));
        if !same {
            return Err(ImportError::BadInputShape {
                file: file.to_owned(),
                name: name.to_owned(),
                detail: format!(
                    "a TFLite file fixes every shape; this input is {shape:?} in the file, {g:?} given"
                ),
            });
        }
    }
    Ok(())
}
