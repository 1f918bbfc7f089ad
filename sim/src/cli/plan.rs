//! `dramalloc plan`: plans a minimalloc CSV, a program JSON or a model file and writes the solution CSV.
//! Uses: args, atomic_write, input, quality, dramalloc-core (error, strategy); used by: mod.rs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use dramalloc_core::Strategy;

use super::args::{read_problem, seconds};
use super::err;
use crate::input;

/// `dramalloc plan`: plans `input` with `strategy` and writes the solution to `output`.
pub(super) fn cmd_plan(
    input: PathBuf,
    strategy: Strategy,
    align: u64,
    capacity: Option<u64>,
    output: PathBuf,
    time_limit: f64,
    input_shapes: &[(String, Vec<u64>)],
) -> ExitCode {
    if align == 0 {
        return err("--align must be at least 1", 2);
    }
    let Some(limit) = seconds(time_limit) else {
        return err("--time-limit must be a non-negative number of seconds", 2);
    };
    let problem = match read_problem(&input, input_shapes) {
        Ok(p) => p,
        Err(e) => return err(e, 2),
    };
    match crate::quality::problem::solve_within(&problem, align, capacity, strategy, limit) {
        Ok(sol) => {
            let text = input::write_solution(&sol.rows);
            if let Err(e) = crate::atomic_write::write_atomic(&output, text.as_bytes()) {
                return err(format!("{}: {e}", output.display()), 1);
            }
            let m = sol.metrics;
            say!(
                "{}: {} buffers, strategy {}{}, HWM {} bytes, lower bound {} bytes, ratio {:.4}, time {:.2} ms",
                input.display(),
                problem.len(),
                strategy.name(),
                match Strategy::ALL[m.strategy as usize] {
                    s if s == strategy => String::new(),
                    s => format!(" (plan from its {} member)", s.name()),
                },
                m.hwm,
                m.lower_bound,
                crate::quality::peak_ratio(m.hwm, m.lower_bound),
                sol.time.as_secs_f64() * 1e3
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
