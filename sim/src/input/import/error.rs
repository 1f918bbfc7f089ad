//! The importers' one error type, naming the file and the node or tensor.
//! Uses: error (InputError); used by: every file of import, onnx and tflite, cli.
//!
//! The one error type of the model importers ([`ImportError`]).
//!
//! Every variant names the model file and the culprit (node, tensor, input, dimension) so that
//! the one-line message tells the user what to fix; the command line prints it and exits 2.

use std::io;

use super::super::InputError;

/// A model file that cannot become a program: why, and which node or tensor.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The file.
        file: String,
        /// The operating-system error.
        #[source]
        source: io::Error,
    },
    /// Neither an ONNX nor a TFLite model (by extension and content).
    #[error("{file}: not an ONNX (.onnx) or TFLite (.tflite) model: {detail}")]
    UnknownFormat {
        /// The file.
        file: String,
        /// What was found instead.
        detail: String,
    },
    /// The file does not decode as its format (truncated, corrupt, or another kind of file).
    #[error("{file}: malformed {format} file: {detail}")]
    Malformed {
        /// The file.
        file: String,
        /// `ONNX` or `TFLite`.
        format: &'static str,
        /// The decoder's description, with the field or table where it stopped.
        detail: String,
    },
    /// The model holds no graph (ONNX `graph` absent, TFLite without subgraphs).
    #[error("{file}: the model has no graph")]
    NoGraph {
        /// The file.
        file: String,
    },
    /// A tensor whose element type code this importer does not know.
    #[error("{file}: tensor `{tensor}`: unknown data type {code}")]
    UnknownDataType {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The type code as stored in the file.
        code: i64,
    },
    /// A tensor of a type without a fixed element size (strings, resources, variants).
    #[error("{file}: tensor `{tensor}`: data type {dtype} has no fixed element size")]
    UnsizedDataType {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The type's name.
        dtype: &'static str,
    },
    /// A graph input whose shape the file leaves open in a way `--input-shape` must settle
    /// (no shape at all, or a dimension that is neither a number nor a name).
    #[error("{file}: input `{input}`: {detail}; give --input-shape {input}=DIMS (e.g. 1x3x224x224)")]
    DynamicInput {
        /// The file.
        file: String,
        /// The graph input.
        input: String,
        /// What is open.
        detail: String,
    },
    /// A graph input whose type is not a tensor (optional, sequence, map, sparse tensor,
    /// opaque): it has no byte size the planner could place.
    #[error("{file}: input `{input}`: {kind}-typed graph inputs are not supported (only tensor inputs are)")]
    UnsupportedInputType {
        /// The file.
        file: String,
        /// The graph input.
        input: String,
        /// Its type's kind, e.g. `optional`.
        kind: &'static str,
    },
    /// An `--input-shape` that does not fit the model.
    #[error("{file}: --input-shape {name}: {detail}")]
    BadInputShape {
        /// The file.
        file: String,
        /// The input named by the option.
        name: String,
        /// Why it does not fit (unknown input, wrong rank, a fixed dimension contradicted).
        detail: String,
    },
    /// The same input named by two `--input-shape`s (even with the same dimensions).
    #[error("{file}: --input-shape {name} is given twice: {first:?} and {second:?}")]
    RepeatedInputShape {
        /// The file.
        file: String,
        /// The input named twice.
        name: String,
        /// The first dimensions given.
        first: Vec<u64>,
        /// The second.
        second: Vec<u64>,
    },
    /// Two `--input-shape`s (or two dimensions of one) give one symbolic dimension name
    /// (`dim_param`) two values: in ONNX one name is one size in the whole model.
    #[error("{file}: symbolic dimension `{symbol}` is {first_value} in --input-shape {first_input} but {second_value} in --input-shape {second_input} (one name is one size in the whole model)")]
    ConflictingDimension {
        /// The file.
        file: String,
        /// The dimension's name.
        symbol: String,
        /// The input whose `--input-shape` bound it first.
        first_input: String,
        /// The value it gave.
        first_value: u64,
        /// The input whose `--input-shape` gives another value.
        second_input: String,
        /// That value.
        second_value: u64,
    },
    /// Two graph inputs with the same name: names in a graph are unique (ONNX's static single
    /// assignment), so the second would be a second definition of one value.
    #[error("{file}: graph input `{input}` is listed twice (a name defines one value in a graph)")]
    DuplicateInput {
        /// The file.
        file: String,
        /// The input's name.
        input: String,
    },
    /// Two initializers (dense or sparse) with the same name: a name defines one value, and
    /// the two may differ (a trial's `w` as [1, 4] and [8, 8] was imported as 256 bytes while
    /// shape inference sized its consumer from the other; onnxruntime refuses the file).
    #[error("{file}: initializer `{name}` is given twice (a name defines one value in a graph)")]
    DuplicateInitializer {
        /// The file.
        file: String,
        /// The initializer's name.
        name: String,
    },
    /// Two declarations of one value (`value_info` or graph outputs) that differ in element
    /// type or shape: which one holds is not told (the last silently won before).
    #[error("{file}: value `{name}` is declared twice, differently: {detail}")]
    ConflictingDeclarations {
        /// The file.
        file: String,
        /// The value's name.
        name: String,
        /// The two declarations.
        detail: String,
    },
    /// Shape inference failed at a node (bad attribute, incompatible shapes, a shape that
    /// depends on runtime data).
    #[error("{file}: node `{node}` ({op}): {detail}")]
    Shape {
        /// The file.
        file: String,
        /// The node's name (or `#index` when it has none).
        node: String,
        /// Its op type.
        op: String,
        /// What went wrong, naming the input, output or attribute.
        detail: String,
    },
    /// A node reads a tensor that no node writes and that is neither a graph input nor a constant.
    #[error("{file}: node `{node}` reads tensor `{tensor}`, which nothing defines")]
    UndefinedTensor {
        /// The file.
        file: String,
        /// The reading node.
        node: String,
        /// The tensor.
        tensor: String,
    },
    /// A graph output that no node writes and that is neither a graph input nor a constant.
    #[error("{file}: graph output `{tensor}` is never written")]
    UndefinedOutput {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
    },
    /// A node reads a tensor that a later node writes, in an acyclic graph listed out of order.
    #[error("{file}: node `{node}` reads tensor `{tensor}` before node `{producer}` writes it (nodes are not in topological order)")]
    NotTopological {
        /// The file.
        file: String,
        /// The reading node.
        node: String,
        /// The tensor.
        tensor: String,
        /// The later node that writes it.
        producer: String,
    },
    /// The graph has a cycle: `node` reads `tensor`, whose producer depends on `node`.
    #[error("{file}: the graph has a cycle: node `{node}` reads tensor `{tensor}`, written by node `{producer}`, which depends on `{node}`")]
    Cycle {
        /// The file.
        file: String,
        /// A node on the cycle.
        node: String,
        /// The tensor it reads.
        tensor: String,
        /// The node on the cycle that writes `tensor`.
        producer: String,
    },
    /// Two nodes write the same tensor (or a node writes a graph input or a constant).
    #[error("{file}: tensor `{tensor}` is written by node `{second}` but already defined by {first}")]
    Redefined {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The first definition (`node `X``, `the graph inputs`, `the constants`).
        first: String,
        /// The second writer.
        second: String,
    },
    /// An index in the file (tensor, buffer, operator code) beyond its table.
    #[error("{file}: {place}: index {index} is out of range (the table has {len} entries)")]
    BadIndex {
        /// The file.
        file: String,
        /// Where the index is stored, e.g. `operator 12 input 1`.
        place: String,
        /// The index as stored.
        index: i64,
        /// The table's length.
        len: usize,
    },
    /// A tensor whose byte size overflows `u64`, whose shape has a negative dimension, or that
    /// an op writes and that holds no byte.
    #[error("{file}: tensor `{tensor}`: {detail}")]
    BadSize {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The shape and what is wrong with it.
        detail: String,
    },
    /// The converted program breaks a program rule (see [`crate::input::program_json`]).
    #[error("{0}")]
    Program(#[from] InputError),
    /// A program read from `file` breaks a rule that names the program (its pre-placement:
    /// the error's own file is the program's `name`).
    #[error("{file}: {source}")]
    InFile {
        /// The file the program was read from.
        file: String,
        /// The program's error (boxed: it is large).
        #[source]
        source: Box<InputError>,
    },
}
