//! Why a problem could not be planned, in words that name the buffer by id and file line.
//! Uses: input, dramalloc-core (errors); used by: problem.rs, cli.

use dramalloc_core::PlanError;

use crate::input::Problem;

/// Why a problem could not be planned; the message names the buffer and its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// A time index does not fit the planner's 32-bit instruction index. With MiniMalloc's
    /// inclusive `end` the message names that column as the file spells it and the value
    /// the file gave (`upper - 1`), and says why it is too late.
    #[error("buffer `{id}`{}: {}", at(*line), late(*upper, column.as_deref()))]
    TimeRange {
        /// Position of the buffer in the problem (0-based).
        index: usize,
        /// Buffer id.
        id: String,
        /// Its file line, when read from a file.
        line: Option<u64>,
        /// The exclusive upper (with an inclusive `end` column, the file's value + 1).
        upper: u64,
        /// The file's inclusive `end` column as it spells it; `None`: an exclusive `upper`.
        column: Option<String>,
    },
    /// `--capacity` is below the max-load lower bound (sizes rounded up to the alignment):
    /// no plan can fit, so none was searched for.
    #[error(
        "no plan can fit --capacity {capacity} bytes: the lower bound is {lower_bound} bytes (the most bytes live at \
         one instant, sizes rounded up to the alignment)"
    )]
    BelowLowerBound {
        /// The capacity asked for, bytes.
        capacity: u64,
        /// The max-load lower bound, bytes.
        lower_bound: u64,
    },
    /// The buffers live at one instant need more bytes than a `u64` address space holds
    /// (sizes rounded up to the alignment, added in `u128`): a proof that no plan exists, for
    /// every strategy and capacity.
    #[error(
        "no plan exists: at instant {instant} the buffers live need {load} bytes (sizes rounded up to the \
         alignment), more than the 18446744073709551615 bytes of a u64 address space"
    )]
    LoadOverflow {
        /// The first instant (a `lower` of the input) where the load passes `u64::MAX`.
        instant: u64,
        /// The most bytes live at one instant ([`crate::quality::max_load_wide`]).
        load: u128,
    },
    /// `auto` or `exact` found no plan within `--capacity`, though the max-load bound allows
    /// one: not a proof that none fits; `best` says how close the search came.
    #[error(
        "no plan found within --capacity {capacity} bytes: the best plan found peaks at {best} bytes (the lower \
         bound is {lower_bound} bytes, so a plan may exist)"
    )]
    AboveCapacity {
        /// The capacity asked for, bytes.
        capacity: u64,
        /// The lowest peak of the plans found, bytes.
        best: u64,
        /// The max-load lower bound, bytes.
        lower_bound: u64,
        /// True when the clock stopped the portfolio: a member or the branch and bound
        /// stopped, skipped for time, or `auto` not going on as `exact` because the time was
        /// up; false when every plan ended on its own (a longer limit would find the same).
        stopped: bool,
    },
    /// The planner failed; `id` names the buffer when the error names one.
    #[error("{message}")]
    Plan {
        /// Buffer named by the error.
        id: Option<String>,
        /// The error.
        error: PlanError,
        /// The error in words, naming buffers by id and line.
        message: String,
    },
}

impl SolveError {
    /// True when the input is at fault (a time past the planner's 32-bit index, overlapping,
    /// misaligned or out-of-window fixed buffers, ...), false for [`PlanError::DoesNotFit`]
    /// (no plan found within the capacity), [`SolveError::AboveCapacity`] (the same, by a
    /// portfolio), [`SolveError::BelowLowerBound`] and [`SolveError::LoadOverflow`] (none can
    /// be) and
    /// [`PlanError::Stopped`] (the clock stopped a single strategy). `plan` exits 2 for the
    /// first, 1 for the others.
    pub fn is_bad_input(&self) -> bool {
        !matches!(
            self,
            SolveError::Plan { error: PlanError::DoesNotFit { .. } | PlanError::Stopped, .. }
                | SolveError::BelowLowerBound { .. }
                | SolveError::LoadOverflow { .. }
                | SolveError::AboveCapacity { .. }
        )
    }
}

/// ` (line N)` when the line is known.
/// Why `upper` (exclusive) is too late, in the terms of the file's column: `column` is an
/// inclusive `end` column's name, `None` for `upper`.
fn late(upper: u64, column: Option<&str>) -> String {
    match column {
        None => format!("upper {upper} exceeds the 32-bit instruction index"),
        Some(end) => format!(
            "{end} {} is too late: `{end}` is inclusive, and the exclusive upper it implies, {upper}, is past the \
             32-bit instruction index (at most {})",
            upper - 1,
            u32::MAX
        ),
    }
}

fn at(line: Option<u64>) -> String {
    line.map_or_else(String::new, |l| format!(" (line {l})"))
}

/// The message for row `k`, whose own alignment has no common multiple with `align` below
/// 2^64 but 0, when no plan leaves it offset 0: it names the row, its alignment and `align`.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::solve_error::only_at_zero;
/// let mut p = Problem::default();
/// p.push("a", Row { lower: 0, upper: 1, size: 24 });
/// p.set_alignment(0, (1 << 61) - 1);
/// assert_eq!(
///     only_at_zero(&p, 0, 4096),
///     "buffer `a`: its alignment 2305843009213693951 and --align 4096 have no common multiple \
///      below 2^64 but 0, so it can only go at offset 0, and no plan was found with offset 0 free \
///      for every such buffer (a buffer live with it takes it)"
/// );
/// ```
pub fn only_at_zero(problem: &Problem, k: usize, align: u64) -> String {
    format!(
        "buffer `{}`{}: its alignment {} and --align {align} have no common multiple below 2^64 but 0, \
         so it can only go at offset 0, and no plan was found with offset 0 free for every such buffer \
         (a buffer live with it takes it)",
        crate::input::error::shorten(problem.id(k)),
        at(problem.line(k)),
        problem.alignment(k)
    )
}

/// The message for fixed row `k` at a nonzero offset whose own alignment has no common
/// multiple with `align` below 2^64 but 0: it names the row, its offset, its alignment and
/// `align`.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::solve_error::fixed_only_at_zero;
/// let mut p = Problem::default();
/// p.push("b1", Row { lower: 0, upper: 1, size: 4096 });
/// p.set_alignment(0, (1 << 63) - 1);
/// p.set_fixed(0, Some(4096));
/// assert_eq!(
///     fixed_only_at_zero(&p, 0, 4096),
///     "buffer `b1`: fixed offset 4096 is not a multiple of both --align 4096 and its alignment \
///      9223372036854775807, which have no common multiple below 2^64 but 0"
/// );
/// ```
pub fn fixed_only_at_zero(problem: &Problem, k: usize, align: u64) -> String {
    format!(
        "buffer `{}`{}: fixed offset {} is not a multiple of both --align {align} and its alignment {}, \
         which have no common multiple below 2^64 but 0",
        crate::input::error::shorten(problem.id(k)),
        at(problem.line(k)),
        problem.fixed(k).unwrap_or(0),
        problem.alignment(k)
    )
}

/// A planner error in words: buffers named by id and file line, not by index.
pub fn describe(problem: &Problem, error: &PlanError) -> String {
    let name = |k: u32| {
        let k = k as usize;
        if k < problem.len() {
            format!("buffer `{}`{}", crate::input::error::shorten(problem.id(k)), at(problem.line(k)))
        } else {
            format!("buffer #{k}")
        }
    };
    match *error {
        PlanError::DoesNotFit { location, size, needed, available, largest_gap } => {
            let needed = if needed == u64::MAX {
                "its end overflows u64".to_owned()
            } else {
                format!("{needed} bytes needed")
            };
            format!(
                "{} ({size} bytes aligned) does not fit: {needed}, {available} available (largest free gap {largest_gap} bytes)",
                name(location)
            )
        }
        PlanError::ZeroSize { location } => format!("{} has size 0 bytes", name(location)),
        PlanError::SizeOverflow { location, bytes } => {
            let what = match problem.fixed(location as usize) {
                Some(offset) => format!("its offset {offset} plus its size rounded up to the alignment"),
                None => "its size rounded up to the alignment".to_owned(),
            };
            crate::input::error::overflow_message(&name(location), bytes, &what)
        }
        PlanError::BadInterval { location, def, last_use } => {
            format!("{}: lifetime [{def}, {last_use}] ends before it starts", name(location))
        }
        PlanError::MisalignedFixed { location, address, align } => {
            format!(
                "{}: fixed offset {address} is not a multiple of {align} (--align, and the buffer's own alignment \
                 where it has one)",
                name(location)
            )
        }
        PlanError::PinnedOverlap { a, b } => {
            let range = |k: u32| {
                let k = k as usize;
                let start = problem.fixed(k).unwrap_or(0);
                format!("[{start}, {})", start.saturating_add(problem.row(k).size))
            };
            format!(
                "fixed {} at bytes {} and fixed {} at bytes {} are live at the same time and overlap",
                name(a),
                range(a),
                name(b),
                range(b)
            )
        }
        PlanError::OutsideWindow { location, end, window } => {
            format!("fixed {} ends at byte {end}, past the capacity of {window} bytes", name(location))
        }
        ref other => other.to_string(),
    }
}

/// The buffer a planner error names by its location, if any.
pub(crate) fn located(error: &PlanError) -> Option<usize> {
    match *error {
        PlanError::DoesNotFit { location, .. }
        | PlanError::ZeroSize { location }
        | PlanError::BadInterval { location, .. }
        | PlanError::SizeOverflow { location, .. }
        | PlanError::MisalignedFixed { location, .. }
        | PlanError::OutsideWindow { location, .. } => Some(location as usize),
        PlanError::PinnedOverlap { a, .. } => Some(a as usize),
        _ => None,
    }
}
