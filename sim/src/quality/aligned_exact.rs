//! The branch and bound with each buffer's own alignment, unpadded: what padding, settling and
//! first fit still miss on small inputs.
//! Uses: input, common_alignment, dramalloc_core's exact search; used by: problem.rs
//! (`solve_limited`).
//!
//! The core's members plan a buffer with its own alignment padded (`liveness::buffers`), and
//! [`crate::quality::aligned_fit`] places it unpadded by first fit in four orders. Neither is
//! a search: three buffers live together (50 bytes aligned to 4, 40 aligned to 8, 10 aligned
//! to 10) have a plan at 100 bytes (40, 50, 10 stacked in that order) where `auto`'s padded
//! strategies, settled, end at 102 at best and first fit in its four orders at 106. [`aligned_search`] runs the core's branch and bound with
//! [`Rules`]: each free buffer at a multiple of `lcm(align, its own alignment)`, footprints
//! unpadded, fixed buffers as obstacles, from the plan so far as the incumbent; its canonical
//! search is complete under those rules (`dramalloc_core::place::exact`, `rules.rs`), so with
//! nodes enough it finds the optimum and proves it.
//!
//! Cost: as the core's search, O(n) a node and the undo records of [`raise_records`]; at
//! most [`EXACT_MAX_BUFFERS`] buffers.

use std::cell::Cell;
use std::time::Instant;

use dramalloc_core::place::exact::{branch_and_bound_with, Budget, Rules, Schedule, EXACT_MAX_BUFFERS};
use dramalloc_core::place::portfolio::{AUTO_EXACT_NODES, AUTO_EXACT_WORK};
use dramalloc_core::place::sections::prepare_loads;
use dramalloc_core::workspace::{Raise, Section, Slot};
use dramalloc_core::Info;

use crate::input::Problem;
use crate::quality::common_alignment::offset_alignment;
use crate::quality::solved::Solved;

/// What [`aligned_search`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedSearch {
    /// Each buffer's offset, bytes, in problem order: the incumbent's where nothing lower was
    /// found.
    pub offsets: Vec<u64>,
    /// Their peak: the largest `offset + align_up(size, align)`, bytes.
    pub hwm: u64,
    /// Search nodes expanded.
    pub nodes: u64,
    /// True when `hwm` is proven the lowest peak under these rules.
    pub optimal: bool,
    /// True when it found a plan below the incumbent (`offsets` is that plan).
    pub improved: bool,
    /// True when the clock or the node limit ended the search.
    pub stopped: bool,
}

/// Undo records for `n` buffers: `n² / 2 + n`, at most 2^22 (as `plan` lends the core).
pub fn raise_records(n: usize) -> usize {
    (n * n / 2 + n).min(1 << 22)
}

/// The node limit and schedule: `auto`'s (no node limit, its work cap
/// [`AUTO_EXACT_WORK`], [`Schedule::auto`]), or `exact`'s (`max_nodes`, at least
/// [`AUTO_EXACT_NODES`], on [`Schedule::planner`] from there).
pub fn limits(exact: bool, max_nodes: u64) -> (u64, Schedule) {
    if exact {
        (max_nodes.max(AUTO_EXACT_NODES), Schedule::planner(AUTO_EXACT_NODES))
    } else {
        (u64::MAX, Schedule::auto(AUTO_EXACT_WORK))
    }
}

/// Searches for a plan of `problem` below `incumbent` (the peak of `offsets`, a valid plan at
/// alignment `align` honouring every buffer's own alignment and fixed offset): each free
/// buffer at a multiple of `lcm(align, its alignment)` with the footprint `align_up(size,
/// align)`, the fixed ones where they are; capacities on multiples of `align`; at most
/// `max_nodes` nodes, stopping once `until` has passed (asked every
/// [`dramalloc_core::place::exact::CHECK_EVERY`] nodes). `None` where it does not apply:
/// more than [`EXACT_MAX_BUFFERS`] buffers, none, the sum of the footprints past `u64`, a
/// lifetime past `u32` (a buffer whose `lcm(align, alignment)` is past `u64` can only go at
/// offset 0).
///
/// ```
/// use std::time::{Duration, Instant};
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_core::place::exact::Schedule;
/// use dramalloc_sim::quality::aligned_exact::aligned_search;
/// let mut p = Problem::default();
/// for (id, size, al) in [("a", 50, 4), ("b", 40, 8), ("c", 10, 10)] {
///     p.push(id, Row { lower: 0, upper: 5, size });
///     p.set_alignment(p.len() - 1, al);
/// }
/// // a first fit's plan: a at 0, c at 50, b at 64 (peak 104)
/// let until = Instant::now() + Duration::from_secs(9);
/// let s = aligned_search(&p, 1, &[0, 64, 50], (1_000, Schedule::DEFAULT), until).unwrap();
/// assert_eq!((s.offsets, s.hwm, s.optimal), (vec![40, 0, 90], 100, true));
/// ```
pub fn aligned_search(
    problem: &Problem,
    align: u64,
    offsets: &[u64],
    (max_nodes, schedule): (u64, Schedule),
    until: Instant,
) -> Option<AlignedSearch> {
    let n = problem.len();
    let align = align.max(1);
    if n == 0 || n > EXACT_MAX_BUFFERS || offsets.len() != n {
        return None;
    }
    let rows = problem.rows();
    let mut infos = Vec::with_capacity(n);
    let mut own = Vec::with_capacity(n);
    let mut total = 0u64;
    for (k, r) in rows.iter().enumerate() {
        let foot = r.size.checked_next_multiple_of(align)?;
        total = total.checked_add(foot)?;
        u32::try_from(r.upper).ok()?;
        own.push(offset_alignment(align, problem.alignment(k)));
        let fixed = problem.fixed(k);
        infos.push(Info {
            aligned: foot,
            bytes: r.size,
            address: fixed.unwrap_or(0),
            location: k as u32,
            pinned: fixed.is_some() as u8,
            ..Info::default()
        });
    }
    let incumbent = (0..n).map(|k| offsets[k].saturating_add(infos[k].aligned)).max()?;
    let mut slots = vec![Slot::default(); n];
    let mut sections = vec![Section::default(); n];
    let (mut by_lo, mut by_hi) = (vec![0u32; n], vec![0u32; n]);
    let live = |i: &Info| {
        let r = &rows[i.location as usize];
        (r.lower as u32, (r.upper - 1) as u32)
    };
    let count = prepare_loads(&infos, live, 0, &mut slots, &mut sections, &mut by_lo, &mut by_hi)?;
    let lower_bound = sections[..count].iter().map(|s| s.remaining).max().unwrap_or(0);
    for (s, &o) in slots.iter_mut().zip(offsets) {
        s.best = o;
    }
    let mut pinned: Vec<u32> = (0..n as u32).filter(|&k| infos[k as usize].pinned != 0).collect();
    pinned.sort_unstable_by_key(|&k| (slots[k as usize].best, k));
    let mut memo = vec![[0u64; 2]; n];
    let memo = Cell::from_mut(&mut memo[..]).as_slice_of_cells();
    let rules = Rules { align: &own, pinned: &pinned, memo };
    let mut raises = vec![Raise::default(); raise_records(n)];
    let mut go = || Instant::now() < until;
    let mut budget = Budget::new(max_nodes, 0, &mut go);
    let out = branch_and_bound_with(
        &mut slots,
        &mut sections[..count],
        &by_lo,
        &mut by_hi,
        &mut raises,
        (0, lower_bound, incumbent, align),
        rules,
        schedule,
        &mut budget,
    );
    Some(AlignedSearch {
        offsets: slots.iter().map(|s| s.best).collect(),
        hwm: out.peak,
        nodes: out.nodes,
        optimal: out.optimal,
        improved: out.improved,
        stopped: out.stopped,
    })
}

/// `exact` with per-buffer alignments, after `auto`'s whole front end made `sol` on `auto`'s
/// share of the clock: the branch and bound with each buffer's own alignment with `exact`'s
/// limits ([`limits`]`(true, max_nodes)`) from `sol`'s plan, until `until`, where that plan is
/// above its bound and not proven optimal. A lower plan replaces `sol`'s; `sol.searched`
/// then covers both searches (`auto`'s nodes added, improved where either lowered the plan).
pub fn search_on(problem: &Problem, align: u64, sol: &mut Solved, max_nodes: u64, until: Instant) {
    let proven = sol.searched.as_ref().is_some_and(|s| s.optimal);
    if sol.metrics.hwm <= sol.metrics.lower_bound || proven || Instant::now() >= until {
        return;
    }
    let Some(s) = aligned_search(problem, align, &sol.offsets, limits(true, max_nodes), until) else {
        return;
    };
    if s.improved {
        (sol.offsets, sol.metrics.hwm) = (s.offsets.clone(), s.hwm);
    }
    sol.searched = Some(match sol.searched.take() {
        Some(first) => AlignedSearch {
            nodes: first.nodes.saturating_add(s.nodes),
            improved: first.improved || s.improved,
            ..s
        },
        None => s,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;
    use crate::quality::problem::solve;
    use dramalloc_core::Strategy;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// Three buffers live together (50 bytes aligned to 4, 40 to 8, 10 to 10) and a fourth
    /// fixed at 100 below which all three must fit: `auto` ends at the bound, 110 bytes, where
    /// every padded member, the settle and first fit in its four orders stop above it.
    #[test]
    fn auto_reaches_the_optimum_padding_and_first_fit_miss() {
        let mut p = Problem::default();
        for (id, size, al) in [("a", 50, 4), ("b", 40, 8), ("c", 10, 10)] {
            p.push(id, Row { lower: 0, upper: 5, size });
            p.set_alignment(p.len() - 1, al);
        }
        p.push("f", Row { lower: 2, upper: 3, size: 10 });
        p.set_fixed(3, Some(100));
        let s = solve(&p, 1, None, Strategy::Auto).unwrap();
        let searched = s.searched.clone().unwrap();
        assert!(s.aligned.is_some_and(|a| a.hwm > 110), "{:?}", s.aligned);
        assert_eq!((searched.improved, searched.optimal), (true, true));
        assert_eq!((s.offsets, s.metrics.hwm, s.metrics.lower_bound), (vec![40, 0, 90, 100], 110, 110));
    }

    /// A fixed buffer in the way: the search goes around it, never moves it, and keeps the
    /// incumbent where nothing is lower (here the incumbent is optimal: proven so).
    #[test]
    fn fixed_buffers_stay_and_an_optimal_incumbent_is_proven() {
        let mut p = Problem::default();
        p.push("f", Row { lower: 0, upper: 4, size: 10 });
        p.set_fixed(0, Some(4));
        p.push("a", Row { lower: 0, upper: 2, size: 4 });
        p.push("b", Row { lower: 1, upper: 3, size: 6 });
        p.set_alignment(2, 2);
        // a at 0 under f, b above f at 14 (f ends there): peak 20, the bound is 20
        let s = aligned_search(&p, 1, &[4, 0, 14], (1_000, Schedule::DEFAULT), later()).unwrap();
        assert_eq!((s.offsets, s.hwm, s.improved), (vec![4, 0, 14], 20, false));
        // from a worse plan (b at 30) the search finds 14 again, under a lower peak
        let s = aligned_search(&p, 1, &[4, 0, 30], (1_000, Schedule::DEFAULT), later()).unwrap();
        assert_eq!((s.offsets, s.hwm, s.improved, s.optimal), (vec![4, 0, 14], 20, true, true));
        assert_eq!(s.nodes, 5);
    }

    /// A row that can only go at offset 0 (its alignment's lcm with 4,096 past `u64`) live with
    /// one aligned to 3: `auto` plans it at 0 and the other at 12,288 (a fresh-user trial's
    /// file: the search took a branch where the first fits nowhere for a whole plan, and wrote
    /// both at 0 with a peak of 4,096 below the bound).
    #[test]
    fn a_row_only_at_zero_stays_alone_there() {
        let mut p = Problem::default();
        p.push("b0", Row { lower: 1, upper: 2, size: 1 });
        p.set_alignment(0, 3);
        p.push("b1", Row { lower: 0, upper: 5, size: 100 });
        p.set_alignment(1, (1 << 61) - 1);
        let s = solve(&p, 4096, None, Strategy::Auto).unwrap();
        assert_eq!((s.offsets, s.metrics.hwm, s.metrics.lower_bound), (vec![12_288, 0], 16_384, 8192));
        assert_eq!(s.searched.map(|x| (x.hwm, x.optimal, x.improved)), Some((16_384, true, false)));
    }

    /// Where it does not apply: no buffer, offsets of another length, more than
    /// EXACT_MAX_BUFFERS buffers, a lifetime past `u32`; an alignment whose multiple with
    /// `align` overflows `u64` is not one of them (offset 0 only).
    #[test]
    fn declines_what_it_cannot_search() {
        let p = Problem::default();
        assert_eq!(aligned_search(&p, 1, &[], (100, Schedule::DEFAULT), later()), None);
        let mut p = Problem::default();
        p.push("a", Row { lower: 0, upper: 2, size: 4 });
        assert_eq!(aligned_search(&p, 1, &[0, 0], (100, Schedule::DEFAULT), later()), None);
        let mut big = Problem::default();
        for k in 0..=EXACT_MAX_BUFFERS {
            big.push(&k.to_string(), Row { lower: 0, upper: 1, size: 1 });
        }
        assert_eq!(
            aligned_search(&big, 1, &vec![0; EXACT_MAX_BUFFERS + 1], (100, Schedule::DEFAULT), later()),
            None
        );
        let mut q = Problem::default();
        q.push("a", Row { lower: 0, upper: 2, size: 4 });
        q.set_alignment(0, (1 << 63) + 1);
        // lcm(4, 2^63 + 1) is past u64: offset 0 only, which the plan has
        let only_zero = aligned_search(&q, 4, &[0], (100, Schedule::DEFAULT), later())
            .map(|s| (s.offsets, s.hwm, s.optimal));
        assert_eq!(only_zero, Some((vec![0], 4, true)));
        let mut r = Problem::default();
        r.push("a", Row { lower: 0, upper: 1 << 33, size: 4 });
        assert_eq!(aligned_search(&r, 1, &[0], (100, Schedule::DEFAULT), later()), None);
    }

    /// The limits: `auto`'s no node limit and its work cap, `exact`'s at least 20,000 nodes
    /// and the planner's schedule from there.
    #[test]
    fn search_limits() {
        let auto = Schedule { max_work: AUTO_EXACT_WORK, ..Schedule::DEFAULT };
        assert_eq!(limits(false, 5), (u64::MAX, auto));
        assert_eq!(limits(true, 5), (20_000, Schedule::planner(20_000)));
        assert_eq!(limits(true, 1 << 30).0, 1 << 30);
    }
}
