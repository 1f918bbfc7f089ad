//! `dramalloc check-plan PLAN.bin [PROGRAM.json|MODEL.onnx|MODEL.tflite|PROBLEM.csv]`: decodes and validates a plan
//! file, runs the geometric verifier over it (and checks it against the program, or the
//! minimalloc problem `dramalloc plan` planned).
//! Uses: args, console, input, verify (plan_file); used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{
    display, is_dash, looks_like_json, no_shapes_for, parse_input_shape, read_bytes, read_program_file, STDIN,
};
use super::console::{stdout_failed, Console};
use super::MAX_TENSORS;
use super::{fail, EXIT_BAD_INPUT, EXIT_OK};
use std::time::{Duration, Instant};

use crate::input::import::ModelFormat;
use crate::input::{not_text, InputError, Problem};
use crate::quality::problem::{solve_limited, Limits};
use crate::quality::solve_error::SolveError;
use crate::verify::plan_file::{
    check_plan_file, check_plan_file_against_problem, CheckPlanError, CheckReport,
};
use dramalloc_core::Strategy;

/// Why no plan can be made of `problem` whatever the alignment, as `plan` says it (fixed
/// buffers that overlap or break their own alignment, an empty buffer), or `None`: the
/// sweep's input checks, run only once a plan file has disagreed with the problem. O(n log n).
fn unplannable(problem: &Problem) -> Option<SolveError> {
    let limits = Limits { work: u64::MAX, until: Instant::now() + Duration::from_secs(3600), threads: 1 };
    solve_limited(problem, 1, None, Strategy::Sweep, limits, u64::MAX).err().filter(SolveError::is_bad_input)
}

/// `check-plan --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 valid; 1 a wrong plan (the records are named by tensor and core); 2 an
unreadable or corrupt plan file, an unreadable program, a CSV no plan can be made of (as
`plan` says it), or a bad flag.";

/// Options of `dramalloc check-plan`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER)]
pub struct CheckPlanArgs {
    /// The plan file; `-`: standard input.
    pub plan: PathBuf,
    /// The program JSON it plans (cores and split come from the plan file), a model file
    /// (`.onnx`, `.tflite`) imported as `run` imports it, or the minimalloc CSV `dramalloc
    /// plan -o X.bin` planned (any text not starting with `{`); `-`: standard input.
    pub program: Option<PathBuf>,
    /// Shape of a model input with symbolic dimensions, as for `run` (model files only;
    /// repeatable).
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
}

/// `dramalloc check-plan`: exit 0 valid; 1 a wrong plan (naming the records); 2 an
/// unreadable or corrupt file, or an unreadable program.
pub(super) fn cmd_check_plan(a: &CheckPlanArgs, con: &mut Console<'_>) -> ExitCode {
    if is_dash(&a.plan) && a.program.as_deref().is_some_and(is_dash) {
        return fail(con, "only one of PLAN and PROGRAM can be `-` (standard input)", EXIT_BAD_INPUT);
    }
    let name = display(&a.plan);
    let bytes = if is_dash(&a.plan) {
        let mut bytes = Vec::new();
        con.stdin.read_to_end(&mut bytes).map(|_| bytes)
    } else {
        std::fs::read(&a.plan)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(source) => {
            let file = if is_dash(&a.plan) { STDIN.to_owned() } else { name.clone() };
            return fail(con, InputError::Io { file, source }, EXIT_BAD_INPUT);
        }
    };
    // a model file (by extension) is imported as `run` imports it; otherwise the second file
    // is a program JSON when its text starts with `{`, else a minimalloc CSV (as `plan` reads
    // its input)
    if a.program.is_none() {
        if let Err(e) = no_shapes_for(&a.plan, &a.input_shape) {
            return fail(con, e, EXIT_BAD_INPUT);
        }
    }
    if let Some(path) = a.program.as_deref() {
        if !is_dash(path) && ModelFormat::from_path(path).is_some() || !a.input_shape.is_empty() {
            return match read_program_file(path, &a.input_shape, con) {
                Ok(program) => report(con, &name, check_plan_file(&bytes, Some(&program)), false),
                Err(e) => fail(con, e, EXIT_BAD_INPUT),
            };
        }
    }
    let mut csv = false;
    let checked = match a.program.as_deref().map(|p| read_bytes(p, con).map(|r| (p, r))).transpose() {
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
        Ok(None) => check_plan_file(&bytes, None),
        Ok(Some((path, (text, file)))) if looks_like_json(&text) => {
            let program = String::from_utf8(text)
                .map_err(|e| {
                    not_text(file.clone(), e.as_bytes(), e.utf8_error().valid_up_to(), is_dash(path))
                })
                .and_then(|text| crate::input::parse_program(&text, &file, MAX_TENSORS));
            match program {
                Ok(program) => check_plan_file(&bytes, Some(&program)),
                Err(e) => return fail(con, e, EXIT_BAD_INPUT),
            }
        }
        Ok(Some((path, (text, file)))) => {
            csv = true;
            // a CSV that is not all UTF-8 is read as `plan` reads it: the error names the line
            // and column of the bad cell (a model file's bytes are named as such)
            let read = match std::str::from_utf8(&text) {
                Ok(t) => crate::input::parse_buffers(t, &file, MAX_TENSORS),
                Err(e) if ModelFormat::recognise(&text).is_some() => {
                    Err(not_text(file.clone(), &text, e.valid_up_to(), is_dash(path)))
                }
                Err(_) => crate::input::read_buffers_from(&text[..], &file, MAX_TENSORS),
            };
            // a problem no plan can be made of (a time past 32 bits) is bad input, as in `plan`
            let problem = read.map_err(|e| e.to_string()).and_then(|p| {
                crate::quality::problem::check_time_range(&p).map(|()| p).map_err(|e| format!("{file}: {e}"))
            });
            match problem {
                Ok(problem) => match check_plan_file_against_problem(&bytes, &problem) {
                    // a problem no plan can be made of is bad input (exit 2, `plan`'s message),
                    // not a wrong plan
                    Err(e @ CheckPlanError::Invalid(_)) => match unplannable(&problem) {
                        Some(bad) => return fail(con, format!("{file}: {bad}"), EXIT_BAD_INPUT),
                        None => Err(e),
                    },
                    checked => checked,
                },
                Err(e) => return fail(con, e, EXIT_BAD_INPUT),
            }
        }
    };
    report(con, &name, checked, csv)
}

/// Prints the verdict of `checked` on plan file `name` (`csv`: checked against a minimalloc
/// problem) and returns the exit code.
fn report(
    con: &mut Console<'_>,
    name: &str,
    checked: Result<CheckReport, CheckPlanError>,
    csv: bool,
) -> ExitCode {
    let against = if csv { ", matches the problem" } else { ", matches the program" };
    match checked {
        Ok(r) => {
            let written = con.write_out(|o| {
                writeln!(
                    o,
                    "OK: {name}: {} core(s), {} records, valid{}",
                    r.cores,
                    r.records,
                    if r.against_program { against } else { "" }
                )?;
                for (k, (hwm, v)) in r.per_core.iter().enumerate() {
                    writeln!(
                        o,
                        "  core {k}: HWM {hwm} bytes, verifier: {} buffers, peak {} bytes",
                        v.buffers, v.peak
                    )?;
                }
                Ok(())
            });
            match written {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => stdout_failed(con, &e),
            }
        }
        Err(e) => fail(con, format!("{name}: {e}"), e.exit_code()),
    }
}
