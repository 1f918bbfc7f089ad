//! Verification: the independent geometric checker of a placement (its own sweep line, no planner code).
//! Uses: input, model, planning; used by: cli, run.
//!
//! This file is the checker; [`plan_check`] runs it over every core's plan of a model,
//! [`run_plan`] over `run`'s plan.csv read back from disk, and [`plan_file`] over a binary
//! plan file (`check-plan`).
//!
//! A solution is valid when
//! 1. every problem buffer appears exactly once, with the same `id`, `lower`, `upper` and
//!    `size`, and no other rows appear;
//! 2. every offset is a multiple of `align` and of the buffer's own alignment (the problem's
//!    `alignment` column), and every buffer the problem fixes (its `offset` column) is at that
//!    offset;
//! 3. no two buffers that are live at the same instant (half-open lifetimes `[lower, upper)`
//!    intersect) overlap in address, where a buffer occupies the RAW byte range
//!    `[offset, offset + size)` — padding up to `align` is not counted, matching minimalloc;
//! 4. the peak `max(offset + size)` (raw sizes again; 0 for no buffers) is at most
//!    `capacity`, when a capacity is given.
//!
//! The checks run in that order and the first failure is returned.
//!
//! # Complexity
//! O(n log n) time, O(n) memory: the buffers' start and end events are sorted by time (ends
//! before starts at equal times, because lifetimes are half-open), and the sweep keeps the
//! live buffers in a `BTreeMap` keyed by offset. Live buffers are pairwise disjoint until
//! the first collision, so a new buffer collides with some live one iff it collides with its
//! address predecessor or successor. 10^6 buffers take well under a second.

pub mod plan_check;
pub mod plan_csv_header;
pub mod plan_file;
pub mod run_plan;
pub mod run_plan_error;

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::fmt;

use crate::input::error::shorten;
use crate::input::{IdIndex, Problem};

/// What a successful check measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyReport {
    /// Number of buffers checked.
    pub buffers: usize,
    /// Highest byte used plus one: `max(offset + size)` over all buffers (raw sizes), 0 when
    /// there are none.
    pub peak: u64,
}

/// One placed buffer, as named in a [`VerifyError::Collision`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Placed {
    /// The buffer's id.
    pub id: String,
    /// First live instant.
    pub lower: u64,
    /// One past the last live instant.
    pub upper: u64,
    /// First byte.
    pub offset: u64,
    /// Size in bytes; the buffer occupies `[offset, offset + size)`.
    pub size: u64,
}

impl fmt::Display for Placed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` (live [{}, {}), bytes [{}, {}))",
            self.id,
            self.lower,
            self.upper,
            self.offset,
            // Ends were checked for overflow before the sweep.
            self.offset.saturating_add(self.size)
        )
    }
}

/// Why a solution is invalid. Row numbers are 0-based indices into the solution slice (the
/// CSV line is `row + 2`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The alignment is zero.
    #[error("alignment must be at least 1 byte, got 0")]
    ZeroAlign,
    /// The problem itself repeats an id, so rows cannot be matched.
    #[error("problem lists id `{id}` twice")]
    DuplicateProblemId {
        /// The repeated id.
        id: String,
    },
    /// A solution row whose id is not in the problem.
    #[error("solution line {}: id `{id}` is not in the problem", row + 2)]
    UnknownRow {
        /// Index of the row.
        row: usize,
        /// Its id.
        id: String,
    },
    /// A buffer placed twice.
    #[error("solution line {}: id `{id}` appears again (first at line {})", row + 2, first_row + 2)]
    DuplicateRow {
        /// Index of the second occurrence.
        row: usize,
        /// Index of the first occurrence.
        first_row: usize,
        /// The id.
        id: String,
    },
    /// A solution row whose lifetime or size differs from the problem's.
    #[error("solution line {}: `{id}` has lower,upper,size = {found:?} but the problem says {expected:?}", row + 2)]
    Mismatch {
        /// Index of the row.
        row: usize,
        /// The id.
        id: String,
        /// `(lower, upper, size)` in the problem.
        expected: (u64, u64, u64),
        /// `(lower, upper, size)` in the solution.
        found: (u64, u64, u64),
    },
    /// A solution row whose own alignment (its `alignment` column) differs from the problem's.
    #[error("solution line {}: `{id}` has alignment {found} but the problem says {expected}", row + 2)]
    AlignmentMismatch {
        /// Index of the row.
        row: usize,
        /// The id.
        id: String,
        /// The problem's alignment, bytes.
        expected: u64,
        /// The solution's, bytes.
        found: u64,
    },
    /// A problem buffer with no solution row (the first one in problem order).
    #[error("buffer `{id}` has no row in the solution")]
    MissingRow {
        /// The id.
        id: String,
    },
    /// A solution row without an offset.
    #[error("solution line {}: `{id}` has no offset", row + 2)]
    NoOffset {
        /// Index of the row.
        row: usize,
        /// The id.
        id: String,
    },
    /// A buffer the problem fixes at an offset placed elsewhere.
    #[error("buffer `{id}` is fixed at offset {fixed} by the problem but placed at {offset}")]
    MovedFixed {
        /// The id.
        id: String,
        /// Its offset in the solution, bytes.
        offset: u64,
        /// The problem's fixed offset, bytes.
        fixed: u64,
    },
    /// An offset that is not a multiple of the alignment.
    #[error("buffer `{id}`: offset {offset} is not a multiple of {align}")]
    Misaligned {
        /// The id.
        id: String,
        /// Its offset in bytes.
        offset: u64,
        /// The alignment in bytes.
        align: u64,
    },
    /// A nonzero offset of a buffer whose own alignment has no common multiple with the
    /// plan's alignment below 2^64 but 0.
    #[error(
        "buffer `{id}`: offset {offset} is not a multiple of both the alignment {align} and its own \
         alignment {own}, which have no common multiple below 2^64 but 0"
    )]
    OnlyAtZero {
        /// The id.
        id: String,
        /// Its offset in bytes.
        offset: u64,
        /// The plan's alignment in bytes.
        align: u64,
        /// The buffer's own alignment in bytes.
        own: u64,
    },
    /// `offset + size` does not fit in `u64`.
    #[error("buffer `{id}`: offset {offset} + size {size} overflows u64")]
    EndOverflow {
        /// The id.
        id: String,
        /// Its offset in bytes.
        offset: u64,
        /// Its size in bytes.
        size: u64,
    },
    /// Two buffers live at the same time share bytes. `first` was already live when
    /// `second` started (the earliest such start in time order, ties by solution order).
    #[error("collision: {first} overlaps {second}")]
    Collision {
        /// The buffer already live.
        first: Placed,
        /// The buffer whose start collides.
        second: Placed,
    },
    /// The peak exceeds the capacity; `id` is the first row reaching the peak.
    #[error("buffer `{id}` ends at byte {end}, beyond the capacity of {capacity} bytes")]
    OverCapacity {
        /// The id.
        id: String,
        /// `offset + size` in bytes (the peak).
        end: u64,
        /// The capacity in bytes.
        capacity: u64,
    },
}

/// Checks `solution` against `problem`; see the module docs for the rules.
///
/// `align` is in bytes (any value >= 1; the command line's default is 4096, or the `align` a
/// solution file records); a buffer's own alignment combines with it (the offset must be a
/// multiple of both). `capacity` is in bytes. Buffers with `size == 0` or `upper <= lower`
/// occupy nothing and never collide.
///
/// # Errors
/// The first [`VerifyError`] found, in the order of the module docs.
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem, SolutionRow};
/// use dramalloc_sim::verify::{verify, VerifyReport};
/// let problem: Problem = vec![Buffer { id: "a".into(), lower: 0, upper: 2, size: 10 }].into_iter().collect();
/// let solution: Problem =
///     vec![SolutionRow { id: "a".into(), lower: 0, upper: 2, size: 10, offset: 4096 }].into_iter().collect();
/// assert_eq!(verify(&problem, &solution, 4096, None)?, VerifyReport { buffers: 1, peak: 4106 });
/// # Ok::<(), dramalloc_sim::verify::VerifyError>(())
/// ```
pub fn verify(
    problem: &Problem,
    solution: &Problem,
    align: u64,
    capacity: Option<u64>,
) -> Result<VerifyReport, VerifyError> {
    if align == 0 {
        return Err(VerifyError::ZeroAlign);
    }
    let placed_by = match_rows(problem, solution)?;

    let mut offsets = Vec::with_capacity(solution.len());
    let mut peak = 0u64;
    let mut peak_row = None;
    for (i, (id, r)) in solution.iter().enumerate() {
        let offset = solution.fixed(i).ok_or_else(|| VerifyError::NoOffset { row: i, id: shorten(id) })?;
        let p = placed_by[i];
        if let Some(fixed) = problem.fixed(p).filter(|&f| f != offset) {
            return Err(VerifyError::MovedFixed { id: shorten(id), offset, fixed });
        }
        let own = problem.alignment(p);
        match (align / gcd(align, own)).checked_mul(own) {
            // no common multiple below 2^64 but 0
            None if offset != 0 => {
                return Err(VerifyError::OnlyAtZero { id: shorten(id), offset, align, own });
            }
            Some(need) if offset % need != 0 => {
                return Err(VerifyError::Misaligned { id: shorten(id), offset, align: need });
            }
            _ => {}
        }
        let end = offset.checked_add(r.size).ok_or(VerifyError::EndOverflow {
            id: shorten(id),
            offset,
            size: r.size,
        })?;
        if end > peak {
            peak = end;
            peak_row = Some(i);
        }
        offsets.push(offset);
    }

    sweep(solution, &offsets)?;

    if let (Some(capacity), Some(i)) = (capacity, peak_row) {
        if peak > capacity {
            return Err(VerifyError::OverCapacity { id: shorten(solution.id(i)), end: peak, capacity });
        }
    }
    Ok(VerifyReport { buffers: solution.len(), peak })
}

/// Greatest common divisor (`gcd(a, 0) = a`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Rule 1: the solution rows are exactly the problem rows; returns the problem row of every
/// solution row.
fn match_rows(problem: &Problem, solution: &Problem) -> Result<Vec<usize>, VerifyError> {
    let mut index = IdIndex::with_capacity(problem.len());
    for i in 0..problem.len() {
        if index.insert(problem, i).is_some() {
            return Err(VerifyError::DuplicateProblemId { id: shorten(problem.id(i)) });
        }
    }
    // For each problem row, the solution row that placed it.
    let mut placed_by: Vec<Option<usize>> = vec![None; problem.len()];
    let mut of_row = Vec::with_capacity(solution.len());
    for (row, (id, r)) in solution.iter().enumerate() {
        let Some(p) = index.get(problem, id) else {
            return Err(VerifyError::UnknownRow { row, id: shorten(id) });
        };
        if let Some(first_row) = placed_by[p] {
            return Err(VerifyError::DuplicateRow { row, first_row, id: shorten(id) });
        }
        let b = problem.row(p);
        let expected = (b.lower, b.upper, b.size);
        let found = (r.lower, r.upper, r.size);
        if expected != found {
            return Err(VerifyError::Mismatch { row, id: shorten(id), expected, found });
        }
        // a solution that carries own alignments (some row above 1) must carry the problem's
        // (a trial's row said 4 where the problem said 8 and passed, its offset a multiple of
        // 8); one whose column says 1 everywhere cannot be told from one without the column
        let (want, said) = (problem.alignment(p), solution.alignment(row));
        if solution.has_alignments() && want != said {
            return Err(VerifyError::AlignmentMismatch { row, id: shorten(id), expected: want, found: said });
        }
        placed_by[p] = Some(row);
        of_row.push(p);
    }
    if let Some(p) = placed_by.iter().position(Option::is_none) {
        return Err(VerifyError::MissingRow { id: shorten(problem.id(p)) });
    }
    Ok(of_row)
}

/// Rule 3: sweep over time with the live buffers ordered by offset.
///
/// Requires `offset + size` not to overflow (checked by the caller).
fn sweep(solution: &Problem, offsets: &[u64]) -> Result<(), VerifyError> {
    /// Event kinds; ends sort before starts at the same instant (half-open lifetimes).
    const END: u8 = 0;
    const START: u8 = 1;
    let rows = solution.rows();
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(2 * rows.len());
    for (i, r) in rows.iter().enumerate() {
        if r.size > 0 && r.upper > r.lower {
            events.push((r.lower, START, i));
            events.push((r.upper, END, i));
        }
    }
    events.sort_unstable();
    // offset -> (end, row) of the live buffer starting there.
    let mut live: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    let placed = |i: usize| {
        let r = rows[i];
        Placed {
            id: shorten(solution.id(i)),
            lower: r.lower,
            upper: r.upper,
            offset: offsets[i],
            size: r.size,
        }
    };
    for (_, kind, i) in events {
        if kind == END {
            live.remove(&offsets[i]);
            continue;
        }
        let (start, end) = (offsets[i], offsets[i] + rows[i].size);
        let below = live.range(..=start).next_back();
        let above = live.range(start..).next();
        let hit = match (below, above) {
            (Some((_, &(b_end, b))), _) if b_end > start => Some(b),
            (_, Some((&a_start, &(_, a)))) if a_start < end => Some(a),
            _ => None,
        };
        if let Some(other) = hit {
            return Err(VerifyError::Collision { first: placed(other), second: placed(i) });
        }
        match live.entry(start) {
            Entry::Vacant(slot) => {
                slot.insert((end, i));
            }
            // Unreachable: an equal live offset is caught above as `below`.
            Entry::Occupied(slot) => {
                return Err(VerifyError::Collision { first: placed(slot.get().1), second: placed(i) })
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(spec: &[(u64, u64, u64, u64)]) -> (Problem, Problem) {
        let (p, s): (Vec<_>, Vec<_>) = spec
            .iter()
            .enumerate()
            .map(|(i, &(lower, upper, size, offset))| {
                let id = format!("b{i}");
                (
                    crate::input::Buffer { id: id.clone(), lower, upper, size },
                    crate::input::SolutionRow { id, lower, upper, size, offset },
                )
            })
            .unzip();
        (p.into_iter().collect(), s.into_iter().collect())
    }

    #[test]
    fn own_alignments_and_fixed_offsets_are_checked() {
        let (mut p, s) = rows(&[(0, 5, 10, 96), (0, 5, 10, 0)]);
        assert_eq!(verify(&p, &s, 32, None).map(|r| r.peak), Ok(106));
        p.set_alignment(0, 64);
        assert_eq!(
            verify(&p, &s, 32, None),
            Err(VerifyError::Misaligned { id: "b0".into(), offset: 96, align: 64 })
        );
        p.set_alignment(0, 1);
        p.set_fixed(1, Some(32));
        assert_eq!(
            verify(&p, &s, 32, None),
            Err(VerifyError::MovedFixed { id: "b1".into(), offset: 0, fixed: 32 })
        );
        // an own alignment with no common multiple with the plan's below 2^64 but 0: only
        // offset 0 passes, and the error names both alignments (not a saturated product)
        p.set_fixed(1, None);
        p.set_alignment(0, (1 << 63) - 1);
        assert_eq!(
            verify(&p, &s, 32, None),
            Err(VerifyError::OnlyAtZero { id: "b0".into(), offset: 96, align: 32, own: (1 << 63) - 1 })
        );
        p.set_alignment(0, 1);
        p.set_alignment(1, (1 << 63) - 1);
        assert_eq!(verify(&p, &s, 32, None).map(|r| r.peak), Ok(106));
    }

    #[test]
    fn touching_lifetimes_and_touching_ranges_are_fine() {
        // b0 ends at 5 where b1 starts (same bytes); b2 sits right above b0.
        let (p, s) = rows(&[(0, 5, 10, 0), (5, 9, 10, 0), (0, 9, 6, 10)]);
        assert_eq!(verify(&p, &s, 1, None), Ok(VerifyReport { buffers: 3, peak: 16 }));
    }

    #[test]
    fn collision_with_the_successor_is_found() {
        let (p, s) = rows(&[(0, 5, 10, 8), (1, 3, 10, 0)]);
        let Err(VerifyError::Collision { first, second }) = verify(&p, &s, 1, None) else {
            panic!("expected a collision");
        };
        assert_eq!((first.id.as_str(), second.id.as_str()), ("b0", "b1"));
    }

    #[test]
    fn zero_size_and_empty_lifetime_never_collide() {
        let (p, s) = rows(&[(0, 5, 0, 0), (0, 5, 10, 0), (3, 3, 10, 0)]);
        assert_eq!(verify(&p, &s, 1, Some(10)).map(|r| r.peak), Ok(10));
    }

    #[test]
    fn sweep_handles_many_buffers() {
        // 200k buffers in 4 staggered lanes; no collisions.
        let spec: Vec<_> = (0..200_000u64).map(|i| (i, i + 4, 4096, (i % 4) * 4096)).collect();
        let (p, s) = rows(&spec);
        assert_eq!(verify(&p, &s, 4096, None).map(|r| r.peak), Ok(16384));
    }
}
