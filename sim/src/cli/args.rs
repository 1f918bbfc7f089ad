//! The option value parsers and what several subcommands share (strategy, fault, seconds, problem).
//! Uses: exec, input, quality, dramalloc-core (strategy); used by: mod.rs, plan, quality, run, verify.

use std::path::Path;

use dramalloc_core::Strategy;

use super::MAX_TENSORS;
use crate::exec::faults::Fault;
use crate::input::{self, InputError};

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

/// Reads a program or a minimalloc problem, by extension.
///
/// A JSON program is validated as `run` validates it (pre-placement included) before it
/// becomes a problem.
pub(super) fn read_problem(path: &Path) -> Result<Vec<input::Buffer>, InputError> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
        let program = input::read_program(path, MAX_TENSORS)?;
        input::pack_preplaced(&program, input::PAGE)?;
        Ok(crate::quality::problem::problem_from_program(&program))
    } else {
        input::read_buffers(path, MAX_TENSORS)
    }
}

pub(super) fn seconds(s: f64) -> Option<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(s).ok()
}
