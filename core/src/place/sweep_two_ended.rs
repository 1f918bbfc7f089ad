//! The two-ended sweep (`auto`'s `sweep-two-ended` member): the time sweep, each buffer at the
//! bottom of the lowest gap that holds it or at the top of the highest gap below a ceiling,
//! against whichever side lives longer.
//! Uses: error, liveness, min_heap, portfolio (peak, Storage), settle (settle_all), scan, seed
//! (place_in_gap, place_one), sweep (def_order, expire), workspace; used by: portfolio.
//!
//! Every other placer of the crate puts a buffer as low as it can. On a chain of buffers each
//! live with its two neighbours only (op `i` writes the tensor op `i + 1` reads: a plain
//! linear network) that stacks each buffer on its predecessor wherever it is larger than the
//! one before that, so the peak is about three buffers where two suffice: every member of
//! `auto` ended 1.49 × the lower bound on 10,000 such buffers (a fresh-user trial,
//! 2026-12-05), and the branch and bound, whose canonical search must fix the parity of the
//! whole chain, did not find the bound on 500 in 37 million nodes. A plan at the bound puts
//! every other buffer at the bottom and the rest against a ceiling at the bound.
//!
//! This member sweeps in def order as [`crate::place::sweep`] does, with the bound as a
//! ceiling `c`. A buffer has two places: the bottom of the lowest gap that holds it (first
//! fit, as the sweep) and the top of the highest gap that holds it below `c`. Each rests on
//! a *support*: the live buffer just below it (just above it, for the top), or the floor
//! (the ceiling), which never go away. It goes where its support lives longer (ties: the
//! bottom), so the space it leaves free stays in one piece for longer; where nothing holds it
//! below `c`, at the bottom. On the chain the buffers alternate between the floor and the
//! ceiling: the bound. Elsewhere it is one more member: `auto` keeps it only where its plan
//! is the lowest.
//!
//! The seed's page rule holds at both ends: a buffer of at most `align` bytes does not
//! straddle a page boundary ([`place_in_gap`], [`place_high_in_gap`]).
//!
//! Complexity O(n log n + n · d) for at most d buffers live at once (both walks read the live
//! list), no heap allocation; storage as the sweep's list path. Applies to one-interval
//! candidates with none pinned (`Ok(None)` otherwise).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::min_heap;
use crate::place::portfolio::{peak, Storage};
use crate::place::scan::insert_sorted;
use crate::place::seed::search::{place_in_gap, Fit, Span};
use crate::place::seed::select::{place_one, Regions};
use crate::place::settle::settle_all;
use crate::place::sweep::{def_order, expire};
use crate::workspace::Placed;

/// The support of the floor and of the ceiling: longer than any buffer's.
const FOREVER: u64 = u64::MAX;

/// The highest address in `[lo, hi)` for `size` bytes under the seed's page rule (a buffer
/// of at most `align` bytes within one page of `align` bytes), or `None` where it does not
/// fit. The mirror of [`place_in_gap`].
///
/// ```
/// use dramalloc_core::place::sweep_two_ended::place_high_in_gap;
/// assert_eq!(place_high_in_gap(0, 100, 30, 1), Some(70));
/// // 70..100 would straddle the page boundary at 96: it ends there instead
/// assert_eq!(place_high_in_gap(0, 100, 30, 32), Some(66));
/// assert_eq!(place_high_in_gap(80, 100, 30, 1), None);
/// assert_eq!(place_high_in_gap(0, 100, 64, 32), Some(36)); // larger than a page: anywhere
/// ```
pub const fn place_high_in_gap(lo: u64, hi: u64, size: u64, align: u64) -> Option<u64> {
    if hi < lo || hi - lo < size || size == 0 || align == 0 {
        return None;
    }
    let a = hi - size;
    if size > align || a / align == (hi - 1) / align {
        return Some(a);
    }
    // end at the page boundary below `hi`
    let boundary = (hi - 1) / align * align;
    if boundary >= lo + size {
        Some(boundary - size)
    } else {
        None
    }
}

/// A place for a buffer: (address, its support's last use: [`FOREVER`] for the floor or the
/// ceiling).
type End = Option<(u64, u64)>;

/// Where buffer `size` goes among `live` (the live buffers, sorted by address and disjoint):
/// (bottom of the lowest gap that holds it, its support's last use) and (top of the highest
/// gap that holds it below `ceiling`, its support's last use), each `None` where no gap holds
/// it (the first below the general ceiling).
fn ends(live: &[Placed], size: u64, regions: Regions, ceiling: u64) -> (End, End) {
    let general = regions.general_ceiling;
    let (mut low, mut prev, mut below) = (None, regions.start, FOREVER);
    for p in live {
        if p.addr > prev && prev < general {
            if let Some(a) = place_in_gap(prev, p.addr.min(general), size, regions.align) {
                low = Some((a, below));
                break;
            }
        }
        if p.end > prev {
            (prev, below) = (p.end, p.hi as u64);
        }
    }
    if low.is_none() && prev < general {
        low = place_in_gap(prev, general, size, regions.align).map(|a| (a, below));
    }
    let cap = ceiling.min(general);
    let mut high = None;
    for k in (0..=live.len()).rev() {
        let lo = if k == 0 { regions.start } else { live[k - 1].end.max(regions.start) };
        let hi = if k == live.len() { general } else { live[k].addr };
        if lo >= cap {
            continue;
        }
        // against the ceiling where the gap reaches past it, else against the buffer above
        let (top, above) = if hi > cap || k == live.len() { (cap, FOREVER) } else { (hi, live[k].hi as u64) };
        if let Some(a) = place_high_in_gap(lo, top, size, regions.align) {
            high = Some((a, above));
            break;
        }
    }
    (low, high)
}

/// Places every candidate by the two-ended sweep with the ceiling `ceiling` (bytes: the
/// lower bound), in `order`, `heap`, `placed` and `occupied` (`infos.len()` entries each).
/// Returns the peak (the highest end, bytes), `Ok(None)` where it does not apply (a candidate
/// of several intervals or pinned, or a slice short: nothing changed), or `Ok(Some(0))` with
/// the later buffers unallocated where `clock` said stop (counted once a buffer; the caller
/// checks [`Clock::stopped`]).
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer no gap of the window holds (the sweep's
/// first fit, the CC region included, as [`place_one`]).
#[allow(clippy::too_many_arguments)]
pub fn sweep_two_ended(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &mut [u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    regions: Regions,
    ceiling: u64,
    clock: &mut Clock<'_>,
) -> Result<Option<u64>, PlanError> {
    let n = infos.len();
    if infos.iter().any(|i| i.interval_count != 1 || i.is_pinned())
        || placed.len() < n
        || occupied.len() < n
        || heap.len() < n
        || order.len() < n
    {
        return Ok(None);
    }
    let nodes = graph.tree().nodes();
    def_order(nodes, infos, &mut order[..n]);
    for info in infos.iter_mut() {
        info.allocated = 0;
    }
    let by_hi = |a: u32, b: u32| nodes[a as usize].hi < nodes[b as usize].hi;
    let (mut live, mut hlen, mut top) = (0usize, 0usize, 0u64);
    for &ni in &order[..n] {
        if !clock.tick() {
            return Ok(Some(0));
        }
        let node = nodes[ni as usize];
        expire(nodes, heap, &mut hlen, placed, &mut live, node.lo);
        let v = node.payload as usize;
        let address = match ends(&placed[..live], infos[v].aligned, regions, ceiling) {
            (Some((a, below)), Some((b, above))) => {
                if above > below {
                    b
                } else {
                    a
                }
            }
            (Some((a, _)), None) => a,
            (None, _) => {
                // nothing holds it below the general ceiling: the sweep's answer (the CC
                // region, or the error naming it)
                for (o, p) in occupied.iter_mut().zip(&placed[..live]) {
                    *o = Span { lo: p.addr, hi: p.end };
                }
                place_one(&mut occupied[..live], &infos[v], regions, Fit::First)?
            }
        };
        let info = &mut infos[v];
        info.address = address;
        info.allocated = 1;
        top = top.max(info.end());
        insert_sorted(placed, &mut live, Placed { lo: node.lo, hi: node.hi, addr: address, end: info.end() });
        min_heap::push(heap, &mut hlen, ni, by_hi);
    }
    Ok(Some(top))
}

/// The portfolio's row: [`sweep_two_ended`] in the portfolio's storage with the lower bound
/// `lb` as the ceiling, then, where it made a whole plan, that plan settled down
/// ([`settle_all`]: its buffers rest against the ceiling too, and settled every address is the
/// floor, a neighbour's end or a page boundary, as the seed's); returns its peak as
/// [`sweep_two_ended`] does.
///
/// # Errors
/// As [`sweep_two_ended`], and the settle's tree-query errors.
pub(crate) fn run_two_ended(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    lb: u64,
    clock: &mut Clock<'_>,
) -> Result<Option<u64>, PlanError> {
    let (order, heap) = (&mut **st.order, &mut **st.heap);
    let (placed, occupied) = (&mut **st.placed, &mut **st.occupied);
    match sweep_two_ended(graph, infos, order, heap, placed, occupied, regions, lb, clock)? {
        Some(_) if !clock.stopped() => {
            settle_all(graph, infos, st, regions, clock)?;
            Ok(Some(peak(infos)))
        }
        r => Ok(r),
    }
}

#[cfg(test)]
mod tests {
    use super::{place_high_in_gap, run_two_ended};
    use crate::liveness::info::Info;
    use crate::liveness::interference::Graph;
    use crate::liveness::interval_tree::Node;
    use crate::place::clock::Clock;
    use crate::place::lent_storage::Lent;
    use crate::place::seed::search::place_in_gap;
    use crate::place::seed::select::Regions;

    const N: usize = 300;

    /// The row on a chain of `N` buffers (`[i, i + 1]`, 8–40 bytes) under `clock`; whether
    /// the clock stopped, and whether the plan it left is valid (no two buffers live together
    /// share a byte).
    fn chain(keep_going: &mut dyn FnMut() -> bool) -> (bool, bool) {
        let mut nodes: [Node; N] = core::array::from_fn(|i| Node::new(i as u32, i as u32 + 1, i as u32));
        let mut infos: [Info; N] = core::array::from_fn(|i| Info {
            aligned: 8 + 8 * (i as u64 * 7 % 5),
            interval_count: 1,
            location: i as u32,
            ..Info::default()
        });
        let lb = (0..N - 1).map(|i| infos[i].aligned + infos[i + 1].aligned).max().unwrap_or(0);
        let mut ids = [0u32; 2 * N];
        let mut graph = Graph::build(&mut nodes, &mut ids, &mut infos);
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
        let mut clock = Clock::new(keep_going);
        let done = Lent::<N>::new()
            .with(|st| run_two_ended(&mut graph, &mut infos, st, regions, lb, &mut clock))
            .unwrap();
        assert!(done.is_some());
        let overlap = |a: &Info, b: &Info| a.address < b.end() && b.address < a.end();
        let valid = (0..N - 1).all(|i| infos[i].allocated == 1 && !overlap(&infos[i], &infos[i + 1]));
        (clock.stopped(), valid)
    }

    /// The settle after a whole plan asks the row's clock: where it says stop (here at its
    /// second question: the sweep asks once, at its 256th buffer, the settle at its 256th),
    /// the row stops with the plan valid, the buffers not reached where the sweep put them.
    /// Without the clock it ran on: a 10^6-row plan with `--time-limit 5` took 6.3 s.
    #[test]
    fn the_settle_stops_when_the_clock_says_so() {
        let mut asked = 0u32;
        let mut second_stops = || {
            asked += 1;
            asked < 2
        };
        assert_eq!(chain(&mut second_stops), (true, true));
        assert_eq!(asked, 2);
        assert_eq!(chain(&mut || true), (false, true));
    }

    /// The top placement is the bottom one mirrored: over every gap of a 64-byte space, size
    /// and page of 1–17 bytes, the address it gives is the highest one `place_in_gap`'s rule
    /// accepts (no straddle for a buffer within a page), and none where that rule finds none.
    #[test]
    fn the_top_placement_mirrors_the_page_rule() {
        let (mut some, mut none) = (0, 0);
        for align in 1..=17u64 {
            for size in 1..=17u64 {
                for lo in 0..40u64 {
                    for hi in lo..64u64 {
                        let ok = |a: u64| {
                            a >= lo && a + size <= hi && (size > align || a / align == (a + size - 1) / align)
                        };
                        let want = (lo..=hi.saturating_sub(size)).rev().find(|&a| ok(a));
                        assert_eq!(place_high_in_gap(lo, hi, size, align), want, "{lo} {hi} {size} {align}");
                        assert_eq!(place_in_gap(lo, hi, size, align).is_some(), want.is_some());
                        if want.is_some() {
                            some += 1;
                        } else {
                            none += 1;
                        }
                    }
                }
            }
        }
        assert!(some > 100_000 && none > 100_000, "{some} {none}");
    }
}
