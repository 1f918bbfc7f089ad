//! `dramalloc import`: reads an ONNX or TFLite model and writes its program JSON.
//! Uses: args, atomic_write, input (import); used by: mod.rs.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::args::import;
use super::err;
use crate::input::import::ModelFormat;
use crate::input::TensorKind;

/// `dramalloc import`: imports `model` (shapes of symbolic inputs from `input_shapes`) and
/// writes the program JSON to `output`, whole or not at all. Exit 0; 1 when the file cannot
/// be written; 2 for a bad model.
pub(super) fn cmd_import(model: &Path, input_shapes: &[(String, Vec<u64>)], output: &Path) -> ExitCode {
    let imported = match import(model, input_shapes) {
        Ok(i) => i,
        Err(e) => return err(e, 2),
    };
    if let Err(e) = crate::atomic_write::write_atomic(output, imported.json.as_bytes()) {
        return err(format!("{}: {e}", output.display()), 1);
    }
    let p = &imported.program;
    let count = |k: TensorKind| p.tensors.iter().filter(|t| t.kind == k).count();
    let weight_bytes: u64 = p.tensors.iter().filter(|t| t.kind == TensorKind::Weight).map(|t| t.bytes).sum();
    say!(
        "{}: {} model, {} ops, {} tensors ({} inputs, {} outputs, {} weights of {} bytes, {} intermediates) -> {}",
        model.display(),
        match imported.format {
            ModelFormat::Onnx => "ONNX",
            ModelFormat::Tflite => "TFLite",
        },
        p.ops.len(),
        p.tensors.len(),
        count(TensorKind::Input),
        count(TensorKind::Output),
        count(TensorKind::Weight),
        weight_bytes,
        count(TensorKind::Intermediate),
        output.display()
    );
    ExitCode::SUCCESS
}
