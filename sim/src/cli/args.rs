//! The option value parsers and what several subcommands share (strategy, fault, seconds, program, problem).
//! Uses: exec, input (import too), quality, dramalloc-core (strategy); used by: mod.rs, import, plan, quality, run, verify.

use std::path::Path;

use dramalloc_core::Strategy;

use super::MAX_TENSORS;
use crate::exec::faults::Fault;
use crate::input::import::{import_model, ImportError, ImportOptions, ModelFormat};
use crate::input::{self, Program};

pub(super) fn parse_strategy(s: &str) -> Result<Strategy, String> {
    Strategy::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        format!("unknown strategy `{s}` (one of: {})", names.join(", "))
    })
}

pub(super) fn parse_fault(s: &str) -> Result<Fault, String> {
    Fault::parse(s).ok_or_else(|| {
        format!("bad fault `{s}`: use SEED, move:SEED, twin:SEED, reverse:SEED or corrupt:SEED")
    })
}

/// `--input-shape NAME=DIMS`: one input's shape for model files.
pub(super) fn parse_input_shape(s: &str) -> Result<(String, Vec<u64>), String> {
    input::import::parse_input_shape(s)
}

/// Imports a model file with `input_shapes` (see [`input::import::import_model`]).
pub(super) fn import(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
) -> Result<input::import::Imported, ImportError> {
    let options = ImportOptions { input_shapes: input_shapes.to_vec(), max_tensors: MAX_TENSORS };
    import_model(path, &options)
}

/// Reads a program: a model file (`.onnx`, `.tflite`) is imported with `input_shapes`, any
/// other file is read as program JSON (which takes no `--input-shape`).
pub(super) fn read_program_file(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
) -> Result<Program, ImportError> {
    if ModelFormat::from_path(path).is_some() {
        return Ok(import(path, input_shapes)?.program);
    }
    no_shapes_for(path, input_shapes)?;
    Ok(input::read_program(path, MAX_TENSORS)?)
}

/// Reads a program, a model file or a minimalloc problem, by extension.
///
/// A JSON program or an imported model is validated as `run` validates it (pre-placement
/// included) before it becomes a problem; anything else is read as a minimalloc CSV.
pub(super) fn read_problem(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
) -> Result<Vec<input::Buffer>, ImportError> {
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json || ModelFormat::from_path(path).is_some() {
        let program = read_program_file(path, input_shapes)?;
        input::pack_preplaced(&program, input::PAGE)?;
        Ok(crate::quality::problem::problem_from_program(&program))
    } else {
        no_shapes_for(path, input_shapes)?;
        Ok(input::read_buffers(path, MAX_TENSORS)?)
    }
}

/// `--input-shape` given for a file that is not a model.
fn no_shapes_for(path: &Path, input_shapes: &[(String, Vec<u64>)]) -> Result<(), ImportError> {
    match input_shapes.first() {
        None => Ok(()),
        Some((name, _)) => Err(ImportError::BadInputShape {
            file: path.display().to_string(),
            name: name.clone(),
            detail: "--input-shape applies to model files (.onnx, .tflite) only".into(),
        }),
    }
}

pub(super) fn seconds(s: f64) -> Option<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(s).ok()
}
