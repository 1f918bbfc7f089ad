//! `select`: assigns addresses in the elimination order (seed section "select and select_impl").
//! Uses: error, liveness, search, workspace; used by: planner, portfolio, scan, sweep.
//!
//! Resets `allocated` on every non-pinned candidate; then, for each candidate in placement
//! order, collects the `[address, address + aligned)` ranges of its already-allocated
//! interfering neighbours (one tree query per interval), calls [`crate::place::seed::search::search`] in
//! the general region `[start, general_ceiling)` and, when nothing fits there, in the CC
//! region `[cc_base, window)` (the seed's second `search`), and writes the address back.
//! Non-interfering candidates may share addresses: that reuse is the point.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::seed::search::{place_in_gap, search, Fit, Span};
use crate::workspace::Scratch;

/// The address regions of one placement, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Regions {
    /// Allocation floor (`find_start_addr`: pre-placed HWM + 1, or 0).
    pub start: u64,
    /// Ceiling of the general region: window minus the CC region.
    pub general_ceiling: u64,
    /// Window size: the CC region is `[general_ceiling, window)`.
    pub window: u64,
    /// Alignment (page) for the page-straddle rule.
    pub align: u64,
}

/// The slices `select` works in.
#[derive(Debug)]
pub struct SelectBuffers<'a> {
    /// Per-candidate scratch (stamps).
    pub scratch: &'a mut [Scratch],
    /// Neighbour list buffer, at least as long as the candidate count.
    pub neighbours: &'a mut [u32],
    /// Occupied-range buffer, at least as long as the candidate count.
    pub occupied: &'a mut [Span],
}

/// Chooses the address of `info` among the gaps left by `occ` (its placed interfering
/// neighbours' byte ranges): first the general region `[start, general_ceiling)`, then the CC
/// region `[general_ceiling, window)` (the seed's second `search`). Sorts `occ`.
///
/// # Errors
/// [`PlanError::DoesNotFit`] with the end address first-fit would need, the general ceiling
/// and the largest gap seen.
pub fn place_one(occ: &mut [Span], info: &Info, regions: Regions, fit: Fit) -> Result<u64, PlanError> {
    let size = info.aligned;
    let general = search(occ, size, regions.start, regions.general_ceiling, regions.align, fit);
    if let Some(a) = general.address {
        return Ok(a);
    }
    let cc = if regions.window > regions.general_ceiling {
        search(occ, size, regions.general_ceiling, regions.window, regions.align, fit).address
    } else {
        None
    };
    match cc {
        Some(a) => Ok(a),
        None => {
            let unbounded = search(occ, size, regions.start, u64::MAX, regions.align, Fit::First);
            let needed = unbounded.address.map_or(u64::MAX, |a| a.saturating_add(size));
            Err(PlanError::DoesNotFit {
                location: info.location,
                size,
                needed,
                available: regions.general_ceiling,
                largest_gap: general.largest_gap,
            })
        }
    }
}

/// The first-fit address of `size` bytes below the general ceiling among `spans` (byte
/// ranges `[lo, hi)` in ascending `(lo, hi)` order, e.g. placed buffers sorted by address),
/// or `None` when no gap there holds it. The same answer as [`place_one`]'s first search
/// ([`search`] with [`Fit::First`]) over the same spans, but it stops at the first gap that
/// fits and neither copies nor sorts them; callers fall back to [`place_one`] on `None` for
/// the CC region retry and the error. O(spans walked).
///
/// ```
/// use dramalloc_core::place::seed::select::{first_fit_sorted, Regions};
/// let r = Regions { start: 0, general_ceiling: 100, window: 100, align: 1 };
/// assert_eq!(first_fit_sorted([(0, 10), (20, 30)].into_iter(), 10, r), Some(10));
/// assert_eq!(first_fit_sorted([(0, 10), (15, 30)].into_iter(), 10, r), Some(30));
/// assert_eq!(first_fit_sorted([(0, 95)].into_iter(), 10, r), None);
/// ```
pub fn first_fit_sorted(spans: impl Iterator<Item = (u64, u64)>, size: u64, regions: Regions) -> Option<u64> {
    let mut walk = FirstFit::new(size, regions);
    for (lo, hi) in spans {
        if let Some(a) = walk.span(lo, hi) {
            return Some(a);
        }
    }
    walk.finish()
}

/// The walk of [`first_fit_sorted`] one span at a time, for callers whose spans come in
/// pieces (the scan's [`crate::place::placed_list::PlacedList::segments`]): feed the spans
/// in ascending start order to [`FirstFit::span`] until it returns an address, then ask
/// [`FirstFit::finish`]. Once the spans reach the general ceiling no gap can hold the
/// buffer; the walk does not stop early for that (one test less a span), it answers `None`.
///
/// ```
/// use dramalloc_core::place::seed::select::{FirstFit, Regions};
/// let r = Regions { start: 0, general_ceiling: 100, window: 100, align: 1 };
/// let mut walk = FirstFit::new(10, r);
/// assert_eq!((walk.span(0, 10), walk.span(15, 30)), (None, None));
/// assert_eq!(walk.finish(), Some(30));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FirstFit {
    prev_end: u64,
    size: u64,
    regions: Regions,
}

impl FirstFit {
    /// A walk for `size` bytes from `regions.start`.
    #[inline]
    pub const fn new(size: u64, regions: Regions) -> FirstFit {
        FirstFit { prev_end: regions.start, size, regions }
    }

    /// The next span `[lo, hi)` (bytes); the address when the gap below it holds the buffer.
    #[inline]
    pub fn span(&mut self, lo: u64, hi: u64) -> Option<u64> {
        if lo > self.prev_end && self.prev_end < self.regions.general_ceiling {
            let top = lo.min(self.regions.general_ceiling);
            if let Some(a) = place_in_gap(self.prev_end, top, self.size, self.regions.align) {
                return Some(a);
            }
        }
        self.prev_end = self.prev_end.max(hi);
        None
    }

    /// The answer after the last span: the gap above every span, below the general ceiling.
    #[inline]
    pub fn finish(self) -> Option<u64> {
        let ceiling = self.regions.general_ceiling;
        if self.prev_end < ceiling {
            place_in_gap(self.prev_end, ceiling, self.size, self.regions.align)
        } else {
            None
        }
    }
}

/// Places candidate `v` by [`place_one`] among its allocated interfering neighbours (one
/// tree or adjacency query) and marks it allocated.
///
/// # Errors
/// [`PlanError::DoesNotFit`] from [`place_one`]; the errors of the neighbour query.
pub fn place_among_neighbours(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    v: u32,
    buf: &mut SelectBuffers<'_>,
    regions: Regions,
    fit: Fit,
) -> Result<(), PlanError> {
    let k = graph.collect_neighbours(v, infos, buf.scratch, buf.neighbours)?;
    let mut m = 0usize;
    for &u in &buf.neighbours[..k] {
        let nb = &infos[u as usize];
        if nb.is_allocated() {
            buf.occupied[m] = Span { lo: nb.address, hi: nb.end() };
            m += 1;
        }
    }
    let address = place_one(&mut buf.occupied[..m], &infos[v as usize], regions, fit)?;
    let info = &mut infos[v as usize];
    info.address = address;
    info.allocated = 1;
    Ok(())
}

/// Places every candidate of `order` (first element placed first). `clock` is counted once
/// per candidate; when it says stop `select` returns `Ok(())` at once with the later
/// candidates unallocated (no plan: the caller checks [`Clock::stopped`]).
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first candidate that fits neither region, with the
/// end address first-fit would need and the general ceiling; [`PlanError::Unallocated`] if a
/// non-pinned candidate was left out of `order` (assertion `dram_select.cpp:70`).
pub fn select(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    buf: &mut SelectBuffers<'_>,
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<(), PlanError> {
    for info in infos.iter_mut().filter(|i| !i.is_pinned()) {
        info.allocated = 0;
    }
    for &v in order {
        if !clock.tick() {
            return Ok(());
        }
        place_among_neighbours(graph, infos, v, buf, regions, fit)?;
        clock.placed(infos[v as usize].end());
    }
    if let Some(i) = infos.iter().find(|i| !i.is_allocated()) {
        return Err(PlanError::Unallocated { location: i.location });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// `first_fit_sorted` gives `search`'s first-fit answer below the ceiling on random sorted
    /// span lists (overlapping and touching spans, alignments, floors and ceilings that cut
    /// spans), and `None` exactly where `search` finds nothing.
    #[test]
    fn first_fit_sorted_agrees_with_search() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut next = |m: u64| rng.below(m);
        let (mut found, mut none) = (0, 0);
        for _ in 0..20_000 {
            let k = next(12) as usize;
            let mut spans = [Span::default(); 12];
            for s in spans.iter_mut().take(k) {
                let lo = next(200);
                *s = Span { lo, hi: lo + 1 + next(40) };
            }
            let spans = &mut spans[..k];
            spans.sort_unstable();
            let align = [1, 4, 16, 64][next(4) as usize];
            let start = next(3) * align;
            let ceiling = start + next(260);
            let size = 1 + next(48);
            let regions = Regions { start, general_ceiling: ceiling, window: ceiling, align };
            let fast = first_fit_sorted(spans.iter().map(|s| (s.lo, s.hi)), size, regions);
            let slow = search(spans, size, start, ceiling, align, Fit::First).address;
            assert_eq!(fast, slow, "{spans:?} size {size} start {start} ceiling {ceiling} align {align}");
            if fast.is_some() {
                found += 1;
            } else {
                none += 1;
            }
        }
        assert!(found > 1000 && none > 1000, "{found} {none}");
    }
}
