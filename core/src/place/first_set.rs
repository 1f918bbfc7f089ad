//! Step 1 of the sweep around a first set: the first set (the long-lived or the hot buffers)
//! placed among themselves and the pinned ones, by first fit in the set's order, through
//! whichever of the two exact placers the cost model finds cheaper for the set's counted
//! interfering pairs.
//! Uses: class_index, cost_model, placed_list, scan, seed, liveness, workspace; used by:
//! sweep_long ([`crate::place::sweep_long::sweep_first`]).
//!
//! The lifetime-class index ([`crate::place::class_index`]) costs O(E log d) for the set's E
//! interfering pairs: each buffer's placed neighbours are listed and sorted. Where the set
//! is nearly a clique (the hot set of a compiler graph: the buffers live where the load is
//! highest, most of them live together) E is about `n_first² / 2`, and sorting each buffer's
//! thousands of neighbours dominated: on `iopddl` `Y_1` (62,185 buffers, up to 9,332 live at
//! once) the hot set of 7,773 buffers took most of the sweep around the hot's 1.2 s, 60 % of
//! it in the incremental sort and the sorts of the neighbour lists (`perf`, 2026-12-07). The
//! address-ordered scan ([`crate::place::scan`]) walks the placed entries in address order to
//! the first gap that holds the buffer, with no sort: at most `n_first · (pinned + n_first /
//! 2)` entries read in all, dead ones (not live with the buffer) included. Both give first
//! fit among the same placed buffers, so the plan is the same whichever runs (the unit test
//! `both_placers_give_the_same_plan`). The scan runs where its bound, at
//! [`FIRST_SCAN_UNITS_PER_ENTRY`] units an entry, is below the class index's estimate
//! ([`class_pass`], the greedy members' formula) for the pairs counted here. On `Y_1` the
//! sweep around the hot went from 1.23 s to 0.44 s (its hot set by the scan: 49 ms); on
//! spread sets (most of the generated shapes' long and hot sets) the index stays.
//!
//! Complexity: the count O(n + n_first log n_first), then the cheaper pass. Storage: the
//! caller's `occupied` holds the first set's intervals while they are counted (before either
//! placer uses it); the scan's list is the caller's `placed`.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::class_index::{class_of, place_listed, ClassIndex, CLASSES};
use crate::place::clock::Clock;
use crate::place::cost_model::{class_pass, FIRST_SCAN_UNITS_PER_ENTRY};
use crate::place::placed_list::PlacedList;
use crate::place::scan::{interval_of, place_scanned};
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::Regions;
use crate::workspace::Placed;

/// Which placer step 1 runs, and what decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Interfering pairs among the first set's buffers (each counted once).
    pub pairs: u64,
    /// The scan's bound in entries read, `n_first · (pinned + n_first / 2)`, priced at
    /// [`FIRST_SCAN_UNITS_PER_ENTRY`] units an entry.
    pub scan: u64,
    /// The class index's estimate ([`class_pass`]) for those pairs.
    pub classes: u64,
    /// Non-empty lifetime classes among the set and the pinned candidates: the class index's
    /// table needs one entry per candidate and one per such class, whichever placer runs
    /// (the storage asked of the caller does not depend on the choice).
    pub held_classes: usize,
}

impl Choice {
    /// Whether the scan runs: its bound below the class index's estimate (a tie keeps the
    /// class index, as the greedy members' rule does).
    pub fn scans(&self) -> bool {
        self.scan < self.classes
    }
}

/// Counts the interfering pairs of the first set (`first(lo, hi, candidate)` over the
/// `lo`-sorted `nodes`), its lifetime classes and the pinned candidates, and prices both
/// placers; `spans` (at least one per node) is scratch. O(n + n_first log n_first).
pub fn choose(
    nodes: &[crate::liveness::interval_tree::Node],
    infos: &[Info],
    first: &dyn Fn(u32, u32, u32) -> bool,
    spans: &mut [Span],
) -> Choice {
    let (mut nf, mut pinned) = (0usize, 0u64);
    let (mut seen, mut held) = ([false; CLASSES], [false; CLASSES]);
    for nd in nodes {
        if infos[nd.payload as usize].is_pinned() {
            pinned += 1;
            held[class_of(nd.lo, nd.hi)] = true;
        } else if first(nd.lo, nd.hi, nd.payload) {
            // in `lo` order, as the nodes are
            spans[nf] = Span { lo: u64::from(nd.lo), hi: u64::from(nd.hi) };
            seen[class_of(nd.lo, nd.hi)] = true;
            held[class_of(nd.lo, nd.hi)] = true;
            nf += 1;
        }
    }
    let spans = &spans[..nf];
    let pairs: u64 =
        spans.iter().enumerate().map(|(i, s)| spans[i + 1..].partition_point(|t| t.lo <= s.hi) as u64).sum();
    let classes = seen.iter().filter(|&&c| c).count() as u64;
    let nf = nf as u64;
    Choice {
        pairs,
        scan: nf.saturating_mul(pinned.saturating_add(nf / 2)).saturating_mul(FIRST_SCAN_UNITS_PER_ENTRY),
        classes: class_pass(pairs, nf, classes),
        held_classes: held.iter().filter(|&&c| c).count(),
    }
}

/// Places the first set, `order` (its candidates in the order they go), by first fit among
/// themselves and the pinned candidates, through the placer [`choose`] prices lower; the
/// pinned ones stay where they are. `first(lo, hi, candidate)` tells the first set's
/// unpinned candidates. `Ok(false)` where the storage is short (nothing placed: `placed`,
/// `occupied` and `at` one entry per candidate, `table` one per candidate and class), or
/// where a candidate has more than one interval. A clock that says stop (or a ceiling
/// reached) leaves the rest of the set unplaced (the caller checks [`Clock::halted`]).
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer that fits in no gap of the window.
#[allow(clippy::too_many_arguments)]
pub fn place_first_set(
    graph: &Graph<'_>,
    infos: &mut [Info],
    first: &dyn Fn(u32, u32, u32) -> bool,
    order: &[u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    table: &mut [u32],
    at: &mut [u32],
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    let nodes = graph.tree().nodes();
    // (one interval each: then the nodes are the candidates, one each)
    if placed.len() < n || occupied.len() < n || at.len() < n || infos.iter().any(|i| i.interval_count != 1) {
        return Ok(false);
    }
    let choice = choose(nodes, infos, first, occupied);
    // (the class index's storage, asked for either way: the caller's later steps rely on it)
    if table.len() < n + choice.held_classes {
        return Ok(false);
    }
    place_with(choice.scans(), graph, infos, first, order, placed, occupied, table, at, regions, clock)
}

/// [`place_first_set`] through the scan (`scans`) or the class index, the storage checked.
#[allow(clippy::too_many_arguments)]
fn place_with(
    scans: bool,
    graph: &Graph<'_>,
    infos: &mut [Info],
    first: &dyn Fn(u32, u32, u32) -> bool,
    order: &[u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    table: &mut [u32],
    at: &mut [u32],
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    if scans {
        let mut list = PlacedList::new(placed);
        for info in infos.iter().filter(|i| i.is_pinned()) {
            let (lo, hi) = interval_of(graph, info);
            list.insert(Placed { lo, hi, addr: info.address, end: info.end() });
        }
        place_scanned(&mut list, graph, infos, order, occupied, regions, Fit::First, clock)?;
        return Ok(true);
    }
    let kept = |lo: u32, hi: u32, v: u32| infos[v as usize].is_pinned() || first(lo, hi, v);
    let Some(mut index) = ClassIndex::holding(graph, infos, kept, placed, table, at) else {
        return Ok(false);
    };
    // the pinned ones are obstacles to the first set
    for (v, info) in infos.iter().enumerate().filter(|(_, i)| i.is_pinned()) {
        index.place(v, info.address, info.end());
    }
    place_listed(&mut index, graph, infos, order, occupied, regions, Fit::First, clock)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_problem::with_graph;
    use crate::test_rng::XorShift;

    const N: usize = 64;

    const WIDE: Regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 1 };

    /// The addresses (`u64::MAX` where unplaced) after placing the first set of `iv` (the
    /// candidates whose lifetime is at least `min_life`, in size-descending order) through the
    /// scan (`scans`) or the class index, and what `place_with` returned.
    fn placed_by(
        scans: bool,
        iv: &[(u32, u32, u64)],
        pinned: &[(usize, u64)],
        min_life: u32,
        regions: Regions,
    ) -> (Result<bool, PlanError>, [u64; N]) {
        with_graph::<N, _>(iv, pinned, |graph, infos| {
            let first = |lo: u32, hi: u32, _: u32| hi - lo >= min_life;
            let mut order = [0u32; N];
            let mut k = 0;
            for (v, &(lo, hi, _)) in iv.iter().enumerate() {
                if !infos[v].is_pinned() && first(lo, hi, v as u32) {
                    order[k] = v as u32;
                    k += 1;
                }
            }
            order[..k].sort_by_key(|&v| (core::cmp::Reverse(iv[v as usize].2), v));
            let (mut placed, mut occupied) = ([Placed::default(); N], [Span::default(); N]);
            let (mut table, mut at) = ([0u32; N + CLASSES], [0u32; N]);
            let r = place_with(
                scans,
                graph,
                infos,
                &first,
                &order[..k],
                &mut placed,
                &mut occupied,
                &mut table,
                &mut at,
                regions,
                &mut Clock::none(),
            );
            let mut addr = [u64::MAX; N];
            for (a, i) in addr.iter_mut().zip(infos.iter()) {
                if i.is_allocated() {
                    *a = i.address;
                }
            }
            (r, addr)
        })
    }

    /// The two placers give the first set the same addresses, and leave the same candidates
    /// unplaced, on 3,000 random problems: lifetimes short and long, sizes of many magnitudes,
    /// pinned obstacles, alignments 1 and 64, and windows small enough that some sets do not
    /// fit (the same error then).
    #[test]
    fn both_placers_give_the_same_plan() {
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let mut scanned_somewhere = [false; 2];
        for case in 0..3000u64 {
            let n = 1 + rng.below(N as u64) as usize;
            let mut iv = [(0u32, 0u32, 0u64); N];
            for x in iv.iter_mut().take(n) {
                let lo = rng.below(200) as u32;
                let life = if rng.below(3) == 0 { rng.below(200) } else { rng.below(8) } as u32;
                let magnitude = rng.below(20);
                *x = (lo, lo + life, 1 + rng.below(1 << magnitude));
            }
            let mut pinned = [(0usize, 0u64); 4];
            let np = (rng.below(4) as usize).min(n);
            for (k, p) in pinned.iter_mut().take(np).enumerate() {
                // distinct candidates of 4 KiB, pinned 64 KiB apart so they never clash
                *p = (k * n / np.max(1), (k as u64) << 16);
                iv[p.0].2 = 4096;
            }
            let align = [1, 64][case as usize % 2];
            let window = [1 << 30, 1 << 20][(case as usize / 2) % 2];
            let regions = Regions { start: 0, general_ceiling: window, window, align };
            let min_life = rng.below(64) as u32;
            let a = placed_by(true, &iv[..n], &pinned[..np], min_life, regions);
            let b = placed_by(false, &iv[..n], &pinned[..np], min_life, regions);
            assert_eq!(a, b, "case {case}");
            scanned_somewhere[usize::from(a.0.is_ok())] = true;
        }
        // both outcomes were seen: plans, and sets that fit in no gap of the window
        assert_eq!(scanned_somewhere, [true, true]);
    }

    /// The storage asked of the caller is the class index's whichever placer runs, to the
    /// entry: a table of one entry per candidate and one per lifetime class held (the set's
    /// and the pinned ones') places the set; one entry less declines, nothing placed.
    #[test]
    fn the_table_is_asked_for_to_the_entry() {
        // a clique of 6 (the scan runs) beside a pinned buffer of another lifetime class
        let iv = [(0, 3, 64), (0, 3, 64), (1, 3, 32), (1, 2, 32), (0, 2, 16), (2, 3, 16), (0, 40, 8)];
        for scan in [true, false] {
            for cut in [0, 1] {
                let (r, placed) = with_graph::<N, _>(&iv, &[(6, 1 << 20)], |graph, infos| {
                    let first = |_: u32, _: u32, _: u32| scan;
                    let c = choose(graph.tree().nodes(), infos, &first, &mut [Span::default(); N]);
                    assert_eq!((c.scans(), c.held_classes), (scan, if scan { 3 } else { 1 }));
                    let order = [0u32, 1, 2, 3, 4, 5];
                    let k = if scan { 6 } else { 0 };
                    let (mut placed, mut occupied) = ([Placed::default(); 7], [Span::default(); 7]);
                    let (mut table, mut at) = ([0u32; 7 + CLASSES], [0u32; 7]);
                    let r = place_first_set(
                        graph,
                        infos,
                        &first,
                        &order[..k],
                        &mut placed,
                        &mut occupied,
                        &mut table[..7 + c.held_classes - cut],
                        &mut at,
                        WIDE,
                        &mut Clock::none(),
                    );
                    (r, infos.iter().filter(|i| i.is_allocated() && !i.is_pinned()).count())
                });
                let want = if cut == 0 { (Ok(true), if scan { 6 } else { 0 }) } else { (Ok(false), 0) };
                assert_eq!((r, placed), want, "scan {scan} cut {cut}");
            }
        }
    }

    /// The choice prices a clique for the scan and spread buffers for the class index, with
    /// the pairs counted exactly; a pinned candidate is not of the set but lengthens the
    /// scan's walks.
    #[test]
    fn a_clique_scans_and_spread_buffers_are_indexed() {
        // 40 buffers all live over [0, 9]: 780 pairs, one lifetime class
        let clique = [(0u32, 9u32, 64u64); 40];
        let c = with_graph::<N, _>(&clique, &[], |g, infos| {
            choose(g.tree().nodes(), infos, &|_, _, _| true, &mut [Span::default(); N])
        });
        assert_eq!(
            c,
            Choice { pairs: 780, scan: 3 * 40 * 20, classes: class_pass(780, 40, 1), held_classes: 1 }
        );
        assert!(c.scans());
        // 40 buffers one after another: no pair, a walk of the whole list each
        let mut spread = [(0u32, 0u32, 64u64); 40];
        for (k, x) in spread.iter_mut().enumerate() {
            *x = (2 * k as u32, 2 * k as u32 + 1, 64);
        }
        // the pinned one long-lived: a lifetime class of its own for the index's table
        spread[0].1 = 100;
        let c = with_graph::<N, _>(&spread, &[(0, 1 << 20)], |g, infos| {
            choose(g.tree().nodes(), infos, &|_, _, _| true, &mut [Span::default(); N])
        });
        assert_eq!(
            c,
            Choice { pairs: 0, scan: 3 * 39 * (1 + 19), classes: class_pass(0, 39, 1), held_classes: 2 }
        );
        assert!(!c.scans());
        // a chain [k, k + 1]: closed intervals, so each buffer is live with the next at k + 1
        let mut chain = [(0u32, 0u32, 64u64); 10];
        for (k, x) in chain.iter_mut().enumerate() {
            *x = (k as u32, k as u32 + 1, 64);
        }
        let c = with_graph::<N, _>(&chain, &[], |g, infos| {
            choose(g.tree().nodes(), infos, &|_, _, _| true, &mut [Span::default(); N])
        });
        assert_eq!(c, Choice { pairs: 9, scan: 3 * 10 * 5, classes: class_pass(9, 10, 1), held_classes: 1 });
    }
}
