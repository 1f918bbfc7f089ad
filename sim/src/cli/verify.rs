//! `dramalloc verify`: checks a solution, or `run`'s plan.csv, independently of the planner.
//! Uses: args, console, input (import too), model, run, verify; used by: mod.rs.
//!
//! A solution CSV is checked against its problem (CSV, program JSON or model file) by [`crate::verify`],
//! at `--align`, else the alignment the solution records (its `align` column), else 4096.
//! A `plan.csv` of `dramalloc run --report-dir` (header `tensor,core,address,...`) is checked
//! against its program by [`crate::verify::run_plan`]: every column of every row, every
//! core's view, shared tensors once.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{
    self, count_of, is_dash, parse_input_shape, read_problem, read_program_file, read_solution, STDIN,
};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use crate::input::{InputError, PAGE};
use crate::run::Split;
use crate::verify::run_plan::looks_like_plan_csv;

/// `verify --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 valid; 1 invalid (the first missing, extra, moved, misaligned or colliding buffer
is named; for a plan.csv also a row whose column disagrees with the program); 2 an unreadable
or malformed file or a bad flag.";

/// Options of `dramalloc verify`.
#[derive(Debug, Clone, clap::Args)]
#[command(allow_negative_numbers = true, after_help = format!("{AFTER}\n{}", super::args::SIZES))]
pub struct VerifyArgs {
    /// The problem: a minimalloc CSV, or a program JSON or model file (`.onnx`, `.tflite`;
    /// a program is required for a `run` plan.csv); `-`: standard input.
    pub input: PathBuf,
    /// The solution CSV (id,lower,upper,size,offset, optional align) or `run`'s plan.csv; `-`:
    /// standard input.
    pub solution: PathBuf,
    /// Required offset alignment (a size; default: the solution's `align` column, else 4096).
    #[arg(long, value_parser = args::align)]
    pub align: Option<u64>,
    /// Capacity (a size).
    #[arg(long, value_parser = args::size)]
    pub capacity: Option<u64>,
    /// For a plan.csv: how the program was split over its cores (default: found from the
    /// plan's tensor names).
    #[arg(long, value_enum)]
    pub split: Option<Split>,
    /// For a plan.csv of `run --mb-per-core MB`: the same MB (plan.csv does not record it); core
    /// k's addresses are then offset by k slabs, shared tensors in the slab after the last core.
    #[arg(long, value_parser = args::mib)]
    pub mb_per_core: Option<u64>,
    /// Shape of a model input with symbolic dimensions, NAME=DIMS; repeatable.
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
}

/// `dramalloc verify`.
pub(super) fn cmd_verify(a: &VerifyArgs, con: &mut Console<'_>) -> ExitCode {
    if is_dash(&a.input) && is_dash(&a.solution) {
        return fail(con, "only one of INPUT and SOLUTION can be `-` (standard input)", EXIT_BAD_INPUT);
    }
    let (mut text, sol_name) = (None, a.solution.display().to_string());
    let is_plan_csv = if is_dash(&a.solution) {
        let mut bytes = Vec::new();
        if let Err(source) = con.stdin.read_to_end(&mut bytes) {
            return fail(con, InputError::Io { file: STDIN.to_owned(), source }, EXIT_BAD_INPUT);
        }
        let plan = looks_like_plan_csv(&bytes);
        text = Some(bytes);
        plan
    } else {
        match std::fs::File::open(&a.solution) {
            Ok(f) => {
                let mut head = BufReader::new(f);
                head.fill_buf().is_ok_and(looks_like_plan_csv)
            }
            Err(source) => return fail(con, InputError::Io { file: sol_name, source }, EXIT_BAD_INPUT),
        }
    };
    if is_plan_csv {
        return verify_plan_csv(a, text, con);
    }
    // a binary plan file is check-plan's (it was read as a CSV: "not valid UTF-8 text")
    let magic = dramalloc_core::plan_file::MAGIC;
    let binary = match &text {
        Some(bytes) => bytes.starts_with(&magic),
        None => std::fs::File::open(&a.solution)
            .and_then(|mut f| {
                let mut head = [0u8; 8];
                std::io::Read::read_exact(&mut f, &mut head).map(|()| head)
            })
            .is_ok_and(|head| head == magic),
    };
    if binary {
        let e = format!("{sol_name}: a binary plan file (plan.bin), not a solution CSV: check it with `dramalloc check-plan {sol_name} [PROGRAM]`");
        return fail(con, e, EXIT_BAD_INPUT);
    }
    let problem = match read_problem(&a.input, &a.input_shape, con) {
        Ok(p) => p,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let solution = match text {
        Some(bytes) => crate::input::read_solution_from(&bytes[..], STDIN, super::MAX_TENSORS),
        None => read_solution(&a.solution, con),
    };
    let solution = match solution {
        Ok(s) => s,
        // an offset whose buffer would end past u64 is a placement no plan can make, judged
        // invalid (exit 1) as the verifier judges every other such offset; the reader refuses
        // only u64::MAX itself (its mark of a free buffer), which exited 2 where one less exited 1
        Err(e @ InputError::AddressOverflow { .. }) => return fail(con, e, EXIT_FAILED),
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let (align, from) = match (a.align, solution.declared_align()) {
        (Some(x), _) => (x, "--align"),
        (None, Some(x)) => (x, "the solution's align column"),
        (None, None) => (PAGE, "the default"),
    };
    match crate::verify::verify(&problem, &solution, align, a.capacity) {
        Ok(r) => {
            // with no buffer no offset was checked against any alignment (a fresh-user
            // trial: an empty solution with an `align` column said "4096 (the default)")
            let line = if r.buffers == 0 {
                format!("OK: 0 buffers, peak {} bytes", r.peak)
            } else {
                format!(
                    "OK: {}, peak {} bytes, offsets aligned to {align} ({from})",
                    count_of(r.buffers, "buffer"),
                    r.peak
                )
            };
            ok_line(con, &line)
        }
        Err(e) => {
            fail(con, format!("{} against {}: {e}", a.solution.display(), a.input.display()), EXIT_FAILED)
        }
    }
}

/// `verify PROGRAM.json plan.csv`.
fn verify_plan_csv(a: &VerifyArgs, text: Option<Vec<u8>>, con: &mut Console<'_>) -> ExitCode {
    let program = match read_program_file(&a.input, &a.input_shape, con) {
        Ok(p) => p,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let name = a.solution.display().to_string();
    let rows = match text {
        Some(bytes) => crate::verify::run_plan::parse_plan_csv(&bytes[..], STDIN),
        None => match std::fs::File::open(&a.solution) {
            Ok(f) => crate::verify::run_plan::parse_plan_csv(f, &name),
            Err(source) => Err(InputError::Io { file: name.clone(), source }),
        },
    };
    let rows = match rows {
        Ok(r) => r,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let align = a.align.unwrap_or(PAGE);
    if a.mb_per_core == Some(0) {
        return fail(con, "--mb-per-core 0: a slab must be 1 MiB or more", EXIT_BAD_INPUT);
    }
    // a slab past u64 bytes cannot be: refused as `run` refuses it (it saturated to a slab
    // `[u64::MAX, u64::MAX)` every tensor fell outside, exit 1)
    let slab = match a.mb_per_core.map(|mb| mb.checked_mul(1 << 20).ok_or(mb)).transpose() {
        Ok(slab) => slab,
        Err(mb) => {
            let e = format!(
                "--mb-per-core {mb}: {mb} MiB is past the u64 address space (18446744073709551615 bytes)"
            );
            return fail(con, e, EXIT_BAD_INPUT);
        }
    };
    match crate::verify::run_plan::verify_plan(&program, &rows, a.split, align, a.capacity, slab) {
        Ok(r) => {
            // on several cores a program tensor-parallel splits nothing plans the same either
            // way: say so, not `split none` for a run that asked for tensor-parallel
            let same = |s| crate::run::build_model(&program, r.cores, s).map(|m| m.cores[0].names.len());
            let split = if a.split.is_none()
                && r.split == Split::None
                && r.cores > 1
                && same(Split::None).ok() == same(Split::TensorParallel).ok()
            {
                "none or tensor-parallel (the program has no op tensor-parallel splits: the same plan)"
            } else {
                r.split.name()
            };
            let line = format!(
                "OK: {} on {}, split {split}, {} checked once, peak {} bytes",
                count_of(r.tensors, "tensor row"),
                count_of(r.cores, "core"),
                count_of(r.shared, "shared tensor"),
                r.peak
            );
            ok_line(con, &line)
        }
        Err(crate::verify::run_plan::RunPlanError::Input(e)) => fail(con, e, EXIT_BAD_INPUT),
        Err(e) => fail(con, format!("{name} against {}: {e}", a.input.display()), EXIT_FAILED),
    }
}

/// The verdict line to standard output: exit 0, or 1 when it cannot be written.
fn ok_line(con: &mut Console<'_>, line: &str) -> ExitCode {
    match con.write_out(|o| writeln!(o, "{line}")) {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(e) => stdout_failed(con, &e),
    }
}
