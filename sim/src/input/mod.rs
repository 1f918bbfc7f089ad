//! Input: the program JSON and minimalloc CSV readers, the ONNX and TFLite importers, their errors, the bundled inputs.
//! Uses: nothing else in the crate (dramalloc-model-formats for model files); used by: cli, model, quality, run, tensor_parallel, verify.
//!
//! Input formats: program JSON ([`program_json`], an object with a key twice refused:
//! [`strict_json`]) and minimalloc CSV ([`minimalloc_csv`]) read
//! into a [`Problem`] ([`problem`]), the inputs compiled into the binary ([`bundled`]), and
//! model files: ONNX ([`onnx`]) and TFLite ([`tflite`]) read into one model graph that
//! [`import`] turns into a program.
//!
//! Both readers return [`InputError`], whose message names the file, the place (JSON path
//! or CSV line and column) and the offending value; the command line maps it to exit code 2.
//! Sizes are bytes; every size must round up to a 4096-byte page ([`PAGE`]) without
//! overflowing `u64`.

pub mod bundled;
mod canonical_row;
pub mod error;
pub mod import;
mod line_count;
pub mod minimalloc_csv;
pub mod onnx;
mod plain_csv;
pub mod problem;
pub mod program_json;
pub(crate) mod quoted;
mod row_rules;
pub mod strict_json;
pub mod tflite;

use std::path::Path;

pub use error::{InputError, Location};
pub use minimalloc_csv::{
    parse_buffers, parse_solution, read_buffers, read_buffers_from, read_solution, read_solution_from,
};
pub use problem::{Buffer, IdIndex, Problem, Row, SolutionRow};
pub use program_json::{pack_preplaced, parse_program, read_program, Op, Program, Tensor, TensorKind};

/// The page size in bytes: pre-placement alignment and the round-up checked on every size.
pub const PAGE: u64 = 4096;

/// `value` rounded up to a multiple of `align` (a power of two), or `None` on overflow.
pub(crate) fn align_up(value: u64, align: u64) -> Option<u64> {
    debug_assert!(align.is_power_of_two());
    Some(value.checked_add(align - 1)? & !(align - 1))
}

/// Reads a whole file as UTF-8; returns the text and the path as a display name.
fn read_text(path: &Path) -> Result<(String, String), InputError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| InputError::Io { file: file.clone(), source })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, file)),
        Err(e) => Err(not_text(file, e.as_bytes(), e.utf8_error().valid_up_to(), false)),
    }
}

/// The error for `bytes` of `file`, read where text was expected, that are not UTF-8 from
/// `offset` on: [`InputError::ModelNotText`] when they hold a model
/// ([`import::ModelFormat::recognise`]), else [`InputError::NotUtf8`]. `on_stdin`: they came
/// from standard input.
pub fn not_text(file: String, bytes: &[u8], offset: usize, on_stdin: bool) -> InputError {
    match import::ModelFormat::recognise(bytes) {
        Some(f) => {
            InputError::ModelNotText { file, offset, format: f.name(), extension: f.extension(), on_stdin }
        }
        None => InputError::NotUtf8 { file, offset },
    }
}
