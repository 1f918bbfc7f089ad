//! `dramalloc import`: reads an ONNX or TFLite model and writes its program JSON.
//! Uses: args, atomic_write, console, input (import); used by: mod.rs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{import, is_stdout, overwrites_input, parse_input_shape};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use crate::input::TensorKind;

/// `import --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 imported and written; 1 the program JSON cannot be written; 2 a bad model, a
bad --input-shape or a bad flag.";

/// Options of `dramalloc import`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER)]
pub struct ImportArgs {
    /// The model: `.onnx` or `.tflite` (another name: by content).
    pub model: PathBuf,
    /// Shape of an input with symbolic dimensions, NAME=DIMS (e.g. x=1x3x224x224); repeatable.
    /// Other symbolic dimensions are 1.
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
    /// The program JSON to write; `-`: standard output.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// `dramalloc import`: imports the model (shapes of symbolic inputs from `--input-shape`) and
/// writes the program JSON to `--output`, whole or not at all. Exit 0; 1 when the file cannot
/// be written; 2 for a bad model. With `-o -` the JSON goes to standard output and the
/// summary line to standard error.
pub(super) fn cmd_import(a: &ImportArgs, con: &mut Console<'_>) -> ExitCode {
    if let Some(e) = overwrites_input("-o", &a.output, &a.model) {
        return fail(con, e, EXIT_BAD_INPUT);
    }
    let imported = match import(&a.model, &a.input_shape, con) {
        Ok(i) => i,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    if is_stdout(&a.output) {
        if let Err(e) = con.write_out(|o| o.write_all(imported.json.as_bytes())) {
            return stdout_failed(con, &e);
        }
    } else if let Err(e) = crate::atomic_write::write_atomic(&a.output, imported.json.as_bytes()) {
        return fail(con, format!("{}: {e}", a.output.display()), EXIT_FAILED);
    }
    let p = &imported.program;
    let count = |k: TensorKind| p.tensors.iter().filter(|t| t.kind == k).count();
    let weight_bytes: u64 = p.tensors.iter().filter(|t| t.kind == TensorKind::Weight).map(|t| t.bytes).sum();
    let sink: &mut dyn Write = if is_stdout(&a.output) { con.stderr } else { con.stdout };
    let _ = writeln!(
        sink,
        "{}: {} model, {} ops, {} tensors ({} inputs, {} outputs, {} weights of {} bytes, {} intermediates) -> {}",
        super::args::display(&a.model),
        imported.format.name(),
        p.ops.len(),
        p.tensors.len(),
        count(TensorKind::Input),
        count(TensorKind::Output),
        count(TensorKind::Weight),
        weight_bytes,
        count(TensorKind::Intermediate),
        a.output.display()
    );
    ExitCode::from(EXIT_OK)
}
