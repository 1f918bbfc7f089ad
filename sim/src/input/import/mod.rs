//! Model files in: an ONNX or TFLite file becomes a program (the format of
//! `../shared/traces/models/*.json`) by the conventions of the public traces.
//!
//! The readers ([`crate::input::onnx`], [`crate::input::tflite`]) produce a format-neutral
//! [`ModelGraph`] with byte sizes; [`to_program`] folds constants, removes renames and lists
//! the tensors; the result is written as program JSON ([`program_text`]) and read back by the
//! program reader, so that an imported model passes every check a program file passes.
//! [`compare`] is the equivalence used to check imports against the public traces.

mod equivalence;
mod error;
mod graph;
mod order;
mod program_text;
mod size;
mod to_program;

pub use equivalence::{compare, Equivalence};
pub use error::ImportError;
pub use graph::{GraphNode, GraphTensor, ModelGraph, NodeRole, SizeProblem};
pub use order::check_order;
pub use program_text::{program_text, Provenance};
pub use size::byte_size;
pub use to_program::to_program;
