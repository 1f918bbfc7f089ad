//! `dramalloc verify`: checks a solution independently of the planner (sweep line).
//! Uses: args, input, verify; used by: mod.rs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::read_problem;
use super::{err, MAX_TENSORS};
use crate::input;

/// `dramalloc verify`: checks `solution` against the problem `input`.
pub(super) fn cmd_verify(input: PathBuf, solution: PathBuf, align: u64, capacity: Option<u64>) -> ExitCode {
    let problem = match read_problem(&input, &[]) {
        Ok(p) => p,
        Err(e) => return err(e, 2),
    };
    let sol = match input::read_solution(&solution, MAX_TENSORS) {
        Ok(s) => s,
        Err(e) => return err(e, 2),
    };
    if align == 0 {
        return err("--align must be at least 1", 2);
    }
    match crate::verify::verify(&problem, &sol, align, capacity) {
        Ok(r) => {
            say!("OK: {} buffers, peak {} bytes", r.buffers, r.peak);
            ExitCode::SUCCESS
        }
        Err(e) => err(format!("{} against {}: {e}", solution.display(), input.display()), 1),
    }
}
