//! `dramalloc plan`: plans a minimalloc CSV, a program JSON or a model file and writes the
//! solution CSV or the binary plan file.
//! Uses: args, atomic_write, input, quality, report (plan_bin), dramalloc-core (error, strategy); used by: mod.rs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_core::Strategy;

use super::args::{read_problem, seconds};
use super::err;
use crate::input;
use crate::report::plan_bin::PlanBlob;

/// What `dramalloc plan` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanFormat {
    /// The minimalloc solution CSV `id,lower,upper,size,offset`.
    Csv,
    /// The binary plan file (`dramalloc_core::plan_file`), one core.
    Bin,
}

impl PlanFormat {
    /// The format an output name asks for: `.bin` is [`PlanFormat::Bin`], anything else CSV.
    pub fn of(path: &Path) -> PlanFormat {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("bin")) {
            PlanFormat::Bin
        } else {
            PlanFormat::Csv
        }
    }
}

/// The options of `dramalloc plan`.
#[derive(Debug, Clone)]
pub(super) struct PlanArgs {
    pub input: PathBuf,
    pub strategy: Strategy,
    pub align: u64,
    pub capacity: Option<u64>,
    pub output: PathBuf,
    pub format: PlanFormat,
    pub json: bool,
    pub time_limit: f64,
    pub input_shape: Vec<(String, Vec<u64>)>,
}

/// `dramalloc plan`: plans `input` with `strategy` and writes the solution to `output`.
pub(super) fn cmd_plan(a: &PlanArgs) -> ExitCode {
    if a.align == 0 {
        return err("--align must be at least 1", 2);
    }
    let Some(limit) = seconds(a.time_limit) else {
        return err("--time-limit must be a non-negative number of seconds", 2);
    };
    let problem = match read_problem(&a.input, &a.input_shape) {
        Ok(p) => p,
        Err(e) => return err(e, 2),
    };
    match crate::quality::problem::solve_within(&problem, a.align, a.capacity, a.strategy, limit) {
        Ok(sol) => {
            let bytes = match a.format {
                PlanFormat::Csv => input::write_solution(&sol.rows).into_bytes(),
                PlanFormat::Bin => {
                    match PlanBlob::from_solution(&sol.rows, a.align, a.capacity).and_then(|b| b.encode()) {
                        Ok(b) => b,
                        Err(e) => return err(format!("{}: {e}", a.output.display()), 2),
                    }
                }
            };
            if let Err(e) = crate::atomic_write::write_atomic(&a.output, &bytes) {
                return err(format!("{}: {e}", a.output.display()), 1);
            }
            let m = sol.metrics;
            let member = Strategy::ALL[m.strategy as usize];
            let ratio = crate::quality::peak_ratio(m.hwm, m.lower_bound);
            let ms = sol.time.as_secs_f64() * 1e3;
            if a.json {
                let v = serde_json::json!({
                    "input": a.input.display().to_string(),
                    "buffers": problem.len(),
                    "strategy": a.strategy.name(),
                    "member": member.name(),
                    "hwm": m.hwm,
                    "lower_bound": m.lower_bound,
                    "ratio": ratio,
                    "time_ms": ms,
                    "output": a.output.display().to_string(),
                    "format": a.format,
                    "members": crate::quality::problem::member_lines(&sol.members, m.lower_bound),
                });
                say!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                return ExitCode::SUCCESS;
            }
            say!(
                "{}: {} buffers, strategy {}{}, HWM {} bytes, lower bound {} bytes, ratio {:.4}, time {:.2} ms",
                a.input.display(),
                problem.len(),
                a.strategy.name(),
                if member == a.strategy { String::new() } else { format!(" (plan from its {} member)", member.name()) },
                m.hwm,
                m.lower_bound,
                ratio,
                ms
            );
            for line in crate::quality::problem::member_lines(&sol.members, m.lower_bound) {
                say!("  {line}");
            }
            ExitCode::SUCCESS
        }
        Err(
            e @ crate::quality::problem::SolveError::Plan {
                error: dramalloc_core::PlanError::DoesNotFit { .. },
                ..
            },
        ) => err(e, 1),
        Err(e) => err(e, 2),
    }
}
