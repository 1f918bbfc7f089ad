//! What a solve returns: the plan, its metrics and what each step of `auto`'s and `exact`'s
//! front end did (the padded plan settled, both alignments, the strategies alone, first fit
//! and the branch and bound with each buffer's own alignment, the helper threads).
//! Uses: input, quality (settle, common_alignment, aligned_fit, aligned_exact, helpers);
//! used by: problem.rs (re-exported there), cli.

use std::time::Duration;

use dramalloc_core::{Metrics, Strategy};

use crate::input::Problem;
use crate::quality::aligned_exact::AlignedSearch;
use crate::quality::aligned_fit::AlignedOrder;
use crate::quality::common_alignment::BothWays;
use crate::quality::helpers::Helped;

/// A solved problem.
#[derive(Debug, Clone)]
pub struct Solved {
    /// The offset of every buffer, bytes, in problem order.
    pub offsets: Vec<u64>,
    /// The planner's metrics (`hwm` = peak, `lower_bound` = max load).
    pub metrics: Metrics,
    /// Wall time of the plan.
    pub time: Duration,
    /// What the `auto` / `exact` portfolio ran and skipped (empty for a single strategy), in
    /// the plan kept.
    pub members: dramalloc_core::place::report::Members,
    /// With per-buffer alignments, the plan's peak both ways when it was planned both ways
    /// ([`crate::quality::common_alignment`]); `None` otherwise.
    pub both_ways: Option<BothWays>,
    /// True when `auto` did not meet the capacity and went on as `exact`, which made the plan
    /// (its branch and bound on the clock).
    pub as_exact: bool,
    /// True when some buffer's own alignment asks for more than the plan's, so the members
    /// placed it padded (`dramalloc_core::liveness::buffers`).
    pub padded: bool,
    /// The padded plan settled down ([`crate::quality::settle`]): its peaks before and after;
    /// `None` where it was at its bound, not padded, or had too many pairs to settle.
    pub settled: Option<crate::quality::settle::Settled>,
    /// With padding, the padded plan (above its bound) had more than
    /// [`SETTLE_MAX_PAIRS`](crate::quality::problem::SETTLE_MAX_PAIRS) pairs of buffers live
    /// together: it was not settled, and no first fit with each buffer's own alignment ran.
    pub over_pairs: bool,
    /// With padding, `auto`'s and `exact`'s members run again alone (empty otherwise).
    pub alone: Vec<Alone>,
    /// With padding, `auto`'s and `exact`'s first fit with each buffer's own alignment
    /// ([`crate::quality::aligned_fit`]): its best order and peak; `None` where it did not run.
    pub aligned: Option<Aligned>,
    /// With padding, `auto`'s and `exact`'s branch and bound with each buffer's own alignment
    /// ([`crate::quality::aligned_exact`]), from the plan before it: its peak (that plan's
    /// where it found none lower), nodes and proof (`exact`: `auto`'s search and its own on
    /// from `auto`'s plan, [`crate::quality::aligned_exact::search_on`], nodes added); `None`
    /// where it did not run.
    pub searched: Option<AlignedSearch>,
    /// What `auto`'s and `exact`'s helper threads planned ([`crate::quality::helpers`]; empty
    /// with none).
    pub helped: Vec<Helped>,
    /// Where `auto` planned the problem as time sections, one per thread
    /// ([`crate::quality::time_split`]): the cuts and each section's plan; `None` otherwise.
    pub split: Option<Box<crate::quality::time_split::Split>>,
    /// Where `auto` would have planned the problem as time sections (past the size helper
    /// threads fit) but did not, why; `None` otherwise.
    pub not_split: Option<crate::quality::time_split::NotSplit>,
}

/// A single strategy `auto` or `exact` ran again alone because with padding its members
/// place padded sizes ([`crate::quality::problem::solve_limited`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alone {
    /// The strategy.
    pub strategy: Strategy,
    /// Its plan's peak, bytes (padded, settled, or at the common alignment, as it kept);
    /// `None` when its members' work, as time, no longer fitted before the limit, or it failed.
    pub hwm: Option<u64>,
    /// True when its plan is the one kept.
    pub kept: bool,
}

/// What first fit with each buffer's own alignment gave `auto` or `exact` ([`crate::quality::problem::solve_limited`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aligned {
    /// Its lowest order.
    pub order: AlignedOrder,
    /// How many of its orders were planned before the clock stopped it
    /// ([`crate::quality::aligned_fit::ORDERS`]).
    pub orders: usize,
    /// How many were dropped: some buffer had no offset below 2^64 in them.
    pub dropped: usize,
    /// That order's peak, settled, bytes.
    pub hwm: u64,
    /// True when its plan is the one kept.
    pub kept: bool,
}

impl Solved {
    /// The solution of `problem` (the one solved): every buffer fixed at its offset.
    pub fn solution(&self, problem: &Problem) -> Problem {
        problem.with_offsets(&self.offsets)
    }
}
