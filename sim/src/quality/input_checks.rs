//! The checks that refuse a problem no plan can exist for, before planning: times past the
//! planner's 32-bit instruction index, and a live load past a u64 address space.
//! Uses: input, solve_error, quality (max_load_wide); used by: problem (re-exported), cli.

use crate::input::Problem;
use crate::quality::solve_error::SolveError;

/// Refuses a problem whose times do not fit the planner's 32-bit instruction index (an
/// exclusive `upper` past `u32::MAX`), as every plan of it does.
///
/// # Errors
/// [`SolveError::TimeRange`] naming the first such buffer, its line and its `upper`.
pub fn check_time_range(problem: &Problem) -> Result<(), SolveError> {
    match problem.rows().iter().position(|b| b.upper > u64::from(u32::MAX)) {
        Some(index) => Err(SolveError::TimeRange {
            index,
            id: problem.id(index).to_owned(),
            line: problem.line(index),
            upper: problem.rows()[index].upper,
            column: problem.inclusive_end().map(str::to_owned),
        }),
        None => Ok(()),
    }
}

/// Refuses a problem whose buffers live at one instant need more than `u64::MAX` bytes (sizes
/// rounded up to `align`): no plan of it exists. O(n) where the sizes of all rows add up
/// below 2^64, else the max-load sweep in `u128` (O(n log n)).
///
/// # Errors
/// [`SolveError::LoadOverflow`] naming the instant and the load.
pub fn check_load(problem: &Problem, align: u64) -> Result<(), SolveError> {
    let a = u128::from(align.max(1));
    let total: u128 = problem.rows().iter().map(|r| u128::from(r.size).div_ceil(a) * a).sum();
    if total <= u128::from(u64::MAX) {
        return Ok(());
    }
    match crate::quality::max_load_wide(problem, align) {
        (load, instant) if load > u128::from(u64::MAX) => Err(SolveError::LoadOverflow { instant, load }),
        _ => Ok(()),
    }
}
