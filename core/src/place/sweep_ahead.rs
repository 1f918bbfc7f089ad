//! The sweep's look-ahead: the pinned buffers defined during a free buffer's life, which it
//! must avoid though they are not live yet, found by sorting them, by the index of
//! `place/pinned_index.rs`, or passed by placing the buffer above every pinned one.
//! Uses: error, liveness, live_set, pinned_index, seed; used by: sweep.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;
use crate::place::live_set::LiveSet;
use crate::place::pinned_index::{full_levels, PinnedIndex};
use crate::place::seed::search::{place_in_gap, Fit, Span};
use crate::place::seed::select::{first_fit_sorted, place_one, Regions};
use crate::workspace::Placed;

/// Up to this many pinned buffers defined during a free buffer's life are sorted with the live
/// ones (the seed's gap walk). Past it the sweep asks the index of the pinned buffers, where a
/// probe of it searches at most this many runs and the sweep has index visits left
/// ([`LOOKAHEAD_BUDGET_PER_BUFFER`] a buffer, spent where needed); where it cannot, the buffer is placed above every pinned
/// one, where it fits there, instead of among them. So the look-ahead costs at most about
/// this many visits a buffer sorted and the budget's in the index (the sweep's own work is one
/// live-list entry or treap level a buffer and step, tens to hundreds a buffer). Sorting every buffer's look-ahead instead,
/// 10^6 layered rows with every 100th fixed cost 1.2 × 10^9 visits, with half of them fixed
/// 2.8 × 10^10; going above the pinned ones at 100 fixed doubled the peak (2.0065 × the
/// lower bound, against 1.0010 with the index). A cost-model constant, not fitted to an
/// input.
pub const LOOKAHEAD_PER_BUFFER: usize = 64;

/// Words of [`crate::Workspace::lookahead`] that give the sweep's index of `p` pinned
/// buffers all its levels: `2 p (ceil(log2 p) + 1)`; 0 for at most [`LOOKAHEAD_PER_BUFFER`]
/// pinned buffers (the sweep sorts those and never asks the index). Saturating.
///
/// ```
/// use dramalloc_core::place::sweep::pinned_index_words;
/// assert_eq!(pinned_index_words(64), 0);
/// assert_eq!(pinned_index_words(65), 2 * 65 * 8); // 7 levels above level 0
/// assert_eq!(pinned_index_words(50_000), 2 * 50_000 * 17);
/// ```
pub fn pinned_index_words(p: usize) -> usize {
    if p <= LOOKAHEAD_PER_BUFFER {
        return 0;
    }
    p.saturating_mul(2).saturating_mul(full_levels(p) as usize)
}

/// How many of the leading nodes of `pinned` (in def order) are defined at or before
/// instruction `hi`. O(log p).
#[inline]
pub(crate) fn defined_by(nodes: &[Node], pinned: &[u32], hi: u32) -> usize {
    pinned.partition_point(|&q| nodes[q as usize].lo <= hi)
}

/// The address of candidate `v` (of `size` bytes, its aligned size as the caller read it)
/// among the live list `live` and the pinned nodes `later` (defined during its life) by
/// `fit` in `regions`: the fast first fit over the list where nothing is ahead, or over the
/// list's gaps cut by `indexed` (the index of the pinned buffers, and `later`'s range in
/// it), else [`place_one`] over both (in `occupied`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn list_fit(
    live: &[Placed],
    occupied: &mut [Span],
    later: &[u32],
    indexed: Option<(&PinnedIndex<'_>, usize, usize)>,
    infos: &[Info],
    nodes: &[Node],
    (v, size): (usize, u64),
    regions: Regions,
    fit: Fit,
) -> Result<u64, PlanError> {
    let spans = live.iter().map(|p| (p.addr, p.end));
    if fit == Fit::First && later.is_empty() {
        if let Some(a) = first_fit_sorted(spans, size, regions) {
            return Ok(a);
        }
    } else if let (Fit::First, Some((ix, i, j))) = (fit, indexed) {
        let align = regions.align;
        let piece = |lo, hi| ix.fit_in(i, j, lo, hi, |a, b| place_in_gap(a, b, size, align));
        if let Some(a) = sorted_gaps(spans, regions.start, regions.general_ceiling, piece) {
            return Ok(a);
        }
    }
    for (o, p) in occupied.iter_mut().zip(live) {
        *o = Span { lo: p.addr, hi: p.end };
    }
    for (o, &q) in occupied[live.len()..].iter_mut().zip(later) {
        let q = &infos[nodes[q as usize].payload as usize];
        *o = Span { lo: q.address, hi: q.end() };
    }
    place_one(&mut occupied[..live.len() + later.len()], &infos[v], regions, fit)
}

/// The first answer of `in_gap(lo, hi)` over the gaps between `spans` (byte ranges in
/// ascending `(lo, hi)` order) clipped to `[start, ceiling)`, in address order, as
/// [`first_fit_sorted`] walks them.
pub(crate) fn sorted_gaps(
    spans: impl Iterator<Item = (u64, u64)>,
    start: u64,
    ceiling: u64,
    mut in_gap: impl FnMut(u64, u64) -> Option<u64>,
) -> Option<u64> {
    let mut prev = start;
    for (lo, hi) in spans {
        if lo > prev && prev < ceiling {
            if let Some(a) = in_gap(prev, lo.min(ceiling)) {
                return Some(a);
            }
        }
        prev = prev.max(hi);
    }
    if prev < ceiling {
        in_gap(prev, ceiling)
    } else {
        None
    }
}

/// The index of the pinned nodes `pinned` (def order) by their byte ranges, in `words`,
/// with the budget of a sweep over `infos` ([`lookahead_budget`]); `None` where it has no
/// room, or nothing is pinned.
pub(crate) fn index_pinned<'w>(
    words: &'w mut [u64],
    nodes: &[Node],
    infos: &[Info],
    pinned: &[u32],
) -> Option<PinnedIndex<'w>> {
    PinnedIndex::build(words, pinned.len(), lookahead_budget(infos.len()), |i| {
        let q = &infos[nodes[pinned[i] as usize].payload as usize];
        (q.address, q.end())
    })
}

/// The index's run visits one sweep may spend, a buffer (spent where they are needed: a few
/// buffers with many pinned ones ahead of them may use the share of many with none). A visit
/// is a binary search in a run, tens of nanoseconds: an input built to spend it all adds about
/// 1–2 µs a buffer to the sweep, which is not on the clock when it makes `auto`'s first plan.
/// Measured use: 0.4–0.7 million visits of 10^5 layered rows with 1–10 % fixed, 6.7 and 7.0
/// million of 10^6 layered or mixed rows with 1 or 10 % fixed. 16 was tried: the sweep's plan
/// of 2 × 10^4 layered rows with 1 % fixed went from 1.0106 to 1.8198 × the lower bound (the
/// budget ran out and the rest went above the fixed ones).
pub const LOOKAHEAD_BUDGET_PER_BUFFER: u64 = 64;

/// The index's visits one sweep over `n` buffers may spend: [`LOOKAHEAD_BUDGET_PER_BUFFER`]
/// a buffer.
fn lookahead_budget(n: usize) -> u64 {
    (n as u64).saturating_mul(LOOKAHEAD_BUDGET_PER_BUFFER)
}

/// Whether a free buffer with the `k` pinned buffers from `first` on (in def order) ahead
/// of it asks `index`, and the runs a probe searches: only past [`LOOKAHEAD_PER_BUFFER`] of
/// them (fewer are sorted, the seed's gap walk, at no more cost), where a probe searches at
/// most that many runs and the index's budget of visits is not spent. Elsewhere a buffer with
/// more than the bound ahead goes above every pinned one.
pub(crate) fn ask_index<'i, 'w>(
    index: Option<&'i PinnedIndex<'w>>,
    first: usize,
    k: usize,
) -> Option<&'i PinnedIndex<'w>> {
    let index = index.filter(|ix| k > LOOKAHEAD_PER_BUFFER && ix.has_budget())?;
    (index.visits(first, first + k, LOOKAHEAD_PER_BUFFER) <= LOOKAHEAD_PER_BUFFER).then_some(index)
}

/// The pinned buffers the treap sweep has not reached yet, room to sort a buffer's
/// obstacles among them by address, and their index where it had room.
pub(crate) struct Ahead<'p> {
    pub(crate) pinned: &'p [u32],
    /// Room for the byte ranges of a buffer's pinned obstacles, one per pinned buffer.
    pub(crate) spans: &'p mut [Span],
    pub(crate) index: Option<PinnedIndex<'p>>,
    /// The regions above every pinned buffer, if they exist.
    pub(crate) above: Option<Regions>,
}

/// The first fit of `fit`'s gaps (a live set's first fit in `[from, to)`) in
/// `[start, ceiling)` with the byte ranges of `obstacles` (sorted by address) taken out: the
/// first fit among the live buffers and the obstacles together. Also the largest gap seen
/// where `fit` reports one. `Err(())` from `fit`.
pub(crate) fn fit_around(
    obstacles: &[Span],
    start: u64,
    ceiling: u64,
    mut fit: impl FnMut(u64, u64) -> Result<(Option<u64>, u64), ()>,
) -> Result<(Option<u64>, u64), ()> {
    let (mut from, mut largest) = (start, 0u64);
    for o in obstacles {
        if from >= ceiling {
            return Ok((None, largest));
        }
        if o.lo > from {
            let (a, gap) = fit(from, o.lo.min(ceiling))?;
            if a.is_some() {
                return Ok((a, 0));
            }
            largest = largest.max(gap);
        }
        from = from.max(o.hi);
    }
    if from >= ceiling {
        return Ok((None, largest));
    }
    let (a, gap) = fit(from, ceiling)?;
    Ok(if a.is_some() { (a, 0) } else { (None, largest.max(gap)) })
}

/// The first-fit address of a buffer of `size` bytes (its aligned size) among the live set
/// and the pinned buffers `[i, j)` of `index` in the general region of `regions`:
/// [`tree_fit`]'s first answer over them sorted, or `None` where the general region has none
/// (the caller then asks [`tree_fit`] over them sorted, which retries in the CC region or
/// names the error, as the list path asks `place_one`). `Err(())` when a walk of the set is
/// deeper than its path stack.
pub(crate) fn indexed_tree_fit(
    live: &LiveSet<'_>,
    index: &PinnedIndex<'_>,
    i: usize,
    j: usize,
    size: u64,
    regions: Regions,
) -> Result<Option<u64>, ()> {
    let align = regions.align;
    let piece = |lo, hi| index.fit_in(i, j, lo, hi, |a, b| place_in_gap(a, b, size, align));
    live.walk_gaps(regions.start, regions.general_ceiling, size, piece)
}

/// The first-fit address of candidate `location`'s buffer of `size` bytes (its aligned size)
/// among the live set and `obstacles` (sorted by address) in `regions`: the general region,
/// then the CC region; else the error naming it, with the largest gap below the ceiling and
/// the end an unbounded fit needs. `Err(())` when a walk of the set is deeper than its path
/// stack.
pub(crate) fn tree_fit(
    live: &LiveSet<'_>,
    obstacles: &[Span],
    (size, location): (u64, u32),
    regions: Regions,
) -> Result<Result<u64, PlanError>, ()> {
    let align = regions.align;
    let first = |from, to| live.fits(size, from, to, align).map(|a| (a, 0));
    let (mut found, _) = fit_around(obstacles, regions.start, regions.general_ceiling, first)?;
    if found.is_none() && regions.window > regions.general_ceiling {
        found = fit_around(obstacles, regions.general_ceiling, regions.window, first)?.0;
    }
    if let Some(a) = found {
        return Ok(Ok(a));
    }
    let full = |from, to| live.first_fit(size, from, to, align);
    let (_, largest) = fit_around(obstacles, regions.start, regions.general_ceiling, full)?;
    let (unbounded, _) = fit_around(obstacles, regions.start, u64::MAX, first)?;
    Ok(Err(PlanError::DoesNotFit {
        location,
        size,
        needed: unbounded.map_or(u64::MAX, |a| a.saturating_add(size)),
        available: regions.general_ceiling,
        largest_gap: largest,
    }))
}
