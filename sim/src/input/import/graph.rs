//! The format-neutral model graph the readers produce.
//! Uses: nothing; used by: onnx, tflite, order, to_program.
//!
//! The format-neutral model graph that both readers produce ([`ModelGraph`]): tensors with
//! their byte sizes, nodes in the file's order with the role that decides folding and
//! renaming, graph inputs and outputs.
//!
//! The ONNX reader fills it after shape inference, the TFLite reader straight from the file;
//! [`super::to_program`] turns it into a program by the conventions of the public traces.

use crate::input::Op;

/// What a reader reads: the file's bytes, the name of the file in errors, the program's name,
/// and the `--input-shape`s (input name, dimensions).
#[derive(Debug, Clone, Copy)]
pub struct ModelSource<'a> {
    /// The model file's contents.
    pub bytes: &'a [u8],
    /// The file, as errors name it.
    pub file: &'a str,
    /// The program's name.
    pub name: &'a str,
    /// Shapes given for graph inputs.
    pub input_shapes: &'a [(String, Vec<u64>)],
}

/// Why a tensor's byte size is not known; becomes an [`super::ImportError`] naming the tensor
/// only if the tensor ends up in the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeProblem {
    /// An element type code the reader does not know.
    UnknownType(i64),
    /// A type without a fixed element size (strings, resources, variants).
    UnsizedType(&'static str),
    /// The byte count overflows `u64` or the shape has a negative dimension; the text shows it.
    BadShape(String),
}

/// One tensor of a [`ModelGraph`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphTensor {
    /// Its name in the file (unique within the graph).
    pub name: String,
    /// Product of the shape × element size, bytes (a scalar is one element), or why not known.
    pub bytes: Result<u64, SizeProblem>,
    /// Holds data in the file (ONNX initializer, TFLite tensor with a data buffer, TFLite
    /// variable tensor): a weight.
    pub constant: bool,
}

/// How a node is treated when the program is built (see [`super::to_program`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRole {
    /// An op: folded when every input is a constant (and it has at least one), else kept.
    Compute,
    /// An op without inputs whose output is a constant (ONNX `Constant`): always folded.
    Source,
    /// An op whose outputs a runtime computes at load time whatever its inputs are (ONNX
    /// `Shape` and `Size` of a statically shaped tensor): always folded.
    ShapeOf,
    /// An op that renames its first input (ONNX `Identity`, inference `Dropout`): folded when
    /// its input is a constant; otherwise removed, its readers pointed at its input, unless its
    /// first output is a graph output or another output is read or is a graph output.
    Rename,
}

/// One node of a [`ModelGraph`], in the file's order: the op it becomes when kept (its
/// tensors are indices into [`ModelGraph::tensors`], optional ones left out; `collective` is
/// false) and its folding rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    /// Name (the file's, or one made from the op type and position), op type (ONNX op type,
    /// TFLite builtin name or custom code), inputs and outputs.
    pub node: Op,
    /// Folding and renaming rule.
    pub role: NodeRole,
}

/// A model's main graph, format-neutral.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelGraph {
    /// The program's name.
    pub name: String,
    /// All tensors the nodes name (and the graph inputs and outputs).
    pub tensors: Vec<GraphTensor>,
    /// Nodes in the file's order.
    pub nodes: Vec<GraphNode>,
    /// Graph inputs that are not constants, in the file's order.
    pub inputs: Vec<u32>,
    /// Graph outputs, in the file's order.
    pub outputs: Vec<u32>,
    /// The shapes fixed for inputs that had symbolic dimensions (or were given
    /// `--input-shape`), in the file's input order.
    pub input_shapes: Vec<(String, Vec<u64>)>,
}

impl ModelGraph {
    /// The display name of node `i`: its name, or `#i` when it has none.
    #[must_use]
    pub fn node_label(&self, i: usize) -> String {
        match self.nodes.get(i) {
            Some(n) if !n.node.name.is_empty() => n.node.name.clone(),
            _ => format!("#{i}"),
        }
    }
}
