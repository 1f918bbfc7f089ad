//! `dramalloc quality`: peak / lower bound of every strategy on every file or generated problem.
//! Uses: args, input, quality, dramalloc-core (strategy); used by: mod.rs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use dramalloc_core::Strategy;

use super::args::{read_problem, seconds};
use super::{err, MAX_TENSORS};
use crate::input;

/// What `dramalloc quality` evaluates: files (model files imported with `input_shapes`) or,
/// when `generated` is not empty, generated problems of those sizes from `seed`.
pub(super) struct Sources<'a> {
    pub(super) paths: &'a [PathBuf],
    pub(super) input_shapes: &'a [(String, Vec<u64>)],
    pub(super) generated: &'a [usize],
    pub(super) seed: u64,
}

/// `dramalloc quality`: peak / lower bound of every strategy on every file.
pub(super) fn cmd_quality(
    sources: &Sources,
    align: u64,
    strategies: &[Strategy],
    json: bool,
    time_limit: f64,
) -> ExitCode {
    let Some(limit) = seconds(time_limit) else {
        return err("--time-limit must be a non-negative number of seconds", 2);
    };
    if align == 0 {
        return err("--align must be at least 1", 2);
    }
    let strategies: Vec<Strategy> =
        if strategies.is_empty() { Strategy::ALL.to_vec() } else { strategies.to_vec() };
    let Sources { paths, input_shapes, generated, seed } = *sources;
    let mut problems = Vec::new();
    if !generated.is_empty() {
        for &n in generated {
            if n == 0 || n > MAX_TENSORS {
                return err(format!("--generated {n}: use 1..={MAX_TENSORS}"), 2);
            }
            problems.push((
                "generated".to_string(),
                format!("n={n}"),
                crate::quality::generate::problem(n, seed),
            ));
        }
    } else if paths.is_empty() {
        for (set, name, text) in crate::input::bundled::PROBLEMS {
            match input::parse_buffers(text, name, MAX_TENSORS) {
                Ok(b) => problems.push((set.to_string(), name.to_string(), b)),
                Err(e) => return err(e, 2),
            }
        }
    } else {
        for p in paths {
            match read_problem(p, input_shapes) {
                Ok(b) => problems.push((
                    p.parent()
                        .and_then(|d| d.file_name())
                        .map_or(String::new(), |d| d.to_string_lossy().into()),
                    p.file_stem().map_or(String::new(), |s| s.to_string_lossy().into()),
                    b,
                )),
                Err(e) => return err(e, 2),
            }
        }
    }
    let rows = crate::quality::evaluate(&problems, align, &strategies, limit);
    let totals = crate::quality::totals(&rows, &strategies);
    if json {
        let v = serde_json::json!({ "align": align, "rows": rows, "totals": totals });
        say!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        let _ = write!(std::io::stdout().lock(), "{}", crate::quality::render(&rows, &totals));
    }
    ExitCode::SUCCESS
}
