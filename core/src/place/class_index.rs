//! Lifetime-class placement: `select`'s plans for one-interval candidates, the placed
//! neighbours found in one sorted run per lifetime class instead of by tree queries.
//! Uses: error, liveness, scan, seed, workspace; used by: portfolio.
//!
//! A greedy member (first or best fit in a size order) needs, for each buffer, the byte
//! ranges of the *placed* buffers live with it. [`crate::place::seed::select::select`] finds
//! them by an interval-tree query, whose max-pruning fails where long lifetimes are mixed
//! with short ones: every subtree holding one long interval that starts before the query
//! must be entered. On a million short-lived buffers with 0.5 % long-lived ones
//! (`dramalloc generate --shape short`) two thirds of a 21 s `greedy-size` run was that walk.
//!
//! Here the candidates are binned by *lifetime class*: class `k` holds the intervals whose
//! length `hi - lo` (instructions) has bit length `k`, so it is below `2^k`; each class is
//! one run of [`Placed`] records sorted by `lo` (the tree's node order, so no sort). A class-`k`
//! interval overlapping `[lo, hi]` starts in `[lo - 2^k + 1, hi]`: one contiguous stretch of
//! its run, found through a per-class table of chunk starts (chunks of `2^shift`
//! instructions, about one record each, so the table is at most one entry per candidate
//! plus one per class). The stretch is scanned in address-free order; records not yet
//! placed or ending before `lo` are skipped. Every class is scanned the same way, so the
//! cost of a buffer is its placed neighbours plus at most as many near misses per class
//! (records of class `k` that start in the window but end before `lo`; their lifetimes are
//! within a factor two of the window's length) plus one table read per non-empty class.
//! This is the binning of the UCSC genome browser's interval index (Kent et al., "The
//! human genome browser at UCSC", 2002) with one bin level per length class.
//!
//! The neighbours' ranges then go to [`crate::place::seed::select::place_one`] (which sorts
//! them), so the plan is the same as `select`'s and the address-ordered
//! [`crate::place::scan`]'s for the same order and fit: only the cost differs. Complexity
//! O(n · c + E log d) for c non-empty classes (at most 33), E interfering pairs and at most
//! d placed neighbours of one buffer; storage one [`Placed`] and two `u32`s per candidate
//! plus one `u32` per class, no heap.

use crate::error::{PlanError, Store};
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{place_one, Regions};
use crate::workspace::Placed;

/// Number of lifetime classes: interval lengths `0 ..= u32::MAX` have bit lengths 0 to 32.
pub const CLASSES: usize = 33;

/// `addr` of a record whose candidate is not placed yet.
const UNPLACED: u64 = u64::MAX;

/// The lifetime class of a closed interval `[lo, hi]`: the bit length of `hi - lo`.
#[inline]
pub fn class_of(lo: u32, hi: u32) -> usize {
    (32 - hi.saturating_sub(lo).leading_zeros()) as usize
}

/// One class's run of records and its chunk table.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    /// First record (index into the records).
    first: u32,
    /// One past the last record.
    end: u32,
    /// Smallest and largest `lo` of the run.
    min_lo: u32,
    max_lo: u32,
    /// Chunk width, log2 instructions.
    shift: u32,
    /// First entry of the run's chunk table.
    table: u32,
}

/// The placed buffers of one greedy pass, indexed by lifetime class (see the module docs).
pub struct ClassIndex<'a> {
    records: &'a mut [Placed],
    table: &'a mut [u32],
    at: &'a mut [u32],
    runs: [Run; CLASSES],
    classes: [u8; CLASSES],
    used: usize,
}

impl<'a> ClassIndex<'a> {
    /// Bins the candidates of `graph` (one interval each: `None` otherwise) whose lifetime
    /// class is at least `min_class` (0: all) or which are pinned, none placed, into `records` (one per
    /// candidate), `table` (one per candidate plus one per non-empty class) and `at` (one per candidate;
    /// `u32::MAX` for the candidates left out). `None` also when a slice is too short. O(n).
    pub fn new(
        graph: &Graph<'_>,
        infos: &[Info],
        min_class: usize,
        records: &'a mut [Placed],
        table: &'a mut [u32],
        at: &'a mut [u32],
    ) -> Option<Self> {
        let kept = |lo: u32, hi: u32, v: u32| class_of(lo, hi) >= min_class || infos[v as usize].is_pinned();
        ClassIndex::holding(graph, infos, kept, records, table, at)
    }

    /// As [`ClassIndex::new`], binning the candidates for which `kept(lo, hi, candidate)` holds
    /// (the pinned ones among them where the caller wants them as obstacles).
    pub fn holding(
        graph: &Graph<'_>,
        infos: &[Info],
        kept: impl Fn(u32, u32, u32) -> bool,
        records: &'a mut [Placed],
        table: &'a mut [u32],
        at: &'a mut [u32],
    ) -> Option<Self> {
        let n = infos.len();
        let nodes = graph.tree().nodes();
        if records.len() < n || at.len() < n || nodes.len() != n {
            return None;
        }
        if infos.iter().any(|i| i.interval_count != 1) {
            return None;
        }
        let mut count = [0u32; CLASSES];
        for nd in nodes.iter().filter(|nd| kept(nd.lo, nd.hi, nd.payload)) {
            count[class_of(nd.lo, nd.hi)] += 1;
        }
        let mut runs = [Run::default(); CLASSES];
        let (mut classes, mut used, mut next) = ([0u8; CLASSES], 0usize, 0u32);
        for (k, &c) in count.iter().enumerate() {
            runs[k] = Run { first: next, end: next, ..Run::default() };
            next += c;
            if c > 0 {
                classes[used] = k as u8;
                used += 1;
            }
        }
        // one table entry per record and one more per class at most
        if table.len() < n + used {
            return None;
        }
        // the nodes come sorted by `lo`, so each run fills in `lo` order
        for nd in nodes {
            let k = class_of(nd.lo, nd.hi);
            if !kept(nd.lo, nd.hi, nd.payload) {
                at[nd.payload as usize] = u32::MAX;
                continue;
            }
            let run = &mut runs[k];
            records[run.end as usize] = Placed { lo: nd.lo, hi: nd.hi, addr: UNPLACED, end: 0 };
            at[nd.payload as usize] = run.end;
            run.end += 1;
        }
        let mut table_next = 0u32;
        for &k in &classes[..used] {
            let run = &mut runs[k as usize];
            let (first, end) = (run.first as usize, run.end as usize);
            run.min_lo = records[first].lo;
            run.max_lo = records[end - 1].lo;
            let span = run.max_lo - run.min_lo;
            let len = (end - first) as u32;
            // the narrowest power-of-two chunks with no more chunks than records
            run.shift = (0..32).find(|&s| (span >> s) < len).unwrap_or(32);
            run.table = table_next;
            let chunks = (span >> run.shift) as usize + 1;
            let mut i = 0usize;
            for c in 0..=chunks {
                while first + i < end && (((records[first + i].lo - run.min_lo) >> run.shift) as usize) < c {
                    i += 1;
                }
                table[table_next as usize + c] = i as u32;
            }
            table_next += chunks as u32 + 1;
        }
        Some(ClassIndex { records, table, at, runs, classes, used })
    }

    /// Marks candidate `v` (one of the binned) placed at `[addr, end)`.
    #[inline]
    pub fn place(&mut self, v: usize, addr: u64, end: u64) {
        let r = &mut self.records[self.at[v] as usize];
        r.addr = addr;
        r.end = end;
    }

    /// Where the scan of class `k`'s run for a query `[lo, hi]` starts: the first record of
    /// the chunk holding `lo - (2^k - 1)` (no class-`k` interval starting earlier reaches
    /// `lo`), `None` when no record of the run can overlap (all start after `hi` or too early
    /// to reach `lo`).
    fn first_record(&self, k: usize, lo: u32, hi: u32) -> Option<usize> {
        let run = self.runs[k];
        // lengths of class k are at most 2^k - 1
        let reach = if k == 0 { 0 } else { (1u64 << k) - 1 };
        let from = (lo as u64).saturating_sub(reach).max(run.min_lo as u64) as u32;
        // (`from` is at least the run's first start, so a query ending before that has
        // `from > hi` too)
        if from > run.max_lo || from > hi {
            return None;
        }
        let chunk = ((from - run.min_lo) >> run.shift) as usize;
        Some((run.first + self.table[run.table as usize + chunk]) as usize)
    }

    /// Writes the byte ranges of the placed candidates whose interval overlaps `[lo, hi]`
    /// into `out` (in class order, unsorted); returns how many. `out` needs room for every
    /// candidate (a caller's occupied list of n entries always has it).
    pub fn overlapping(&self, lo: u32, hi: u32, out: &mut [Span]) -> usize {
        let mut m = 0usize;
        for &k in &self.classes[..self.used] {
            let Some(mut i) = self.first_record(k as usize, lo, hi) else { continue };
            let end = self.runs[k as usize].end as usize;
            while i < end {
                let r = &self.records[i];
                if r.lo > hi {
                    break;
                }
                if r.addr != UNPLACED && r.hi >= lo {
                    out[m] = Span { lo: r.addr, hi: r.end };
                    m += 1;
                }
                i += 1;
            }
        }
        m
    }
}

/// Places every candidate of `order` (first element first) as
/// [`crate::place::seed::select::select`] would, for candidates with one interval each,
/// finding the placed neighbours through a [`ClassIndex`]. Pinned candidates are obstacles.
/// `records`, `at` and `occupied` need one entry per candidate, `table` one per candidate
/// plus one per non-empty class (at most [`CLASSES`]). Returns `Ok(false)` (nothing changed) when a candidate has several
/// intervals or a slice is too short. `clock` is counted once per buffer placed; when it says
/// stop the placement returns `Ok(true)` at once with the later buffers unallocated (no plan:
/// the caller checks [`Clock::stopped`]).
///
/// ```
/// use dramalloc_core::Info;
/// use dramalloc_core::liveness::interference::{build_csr, Graph};
/// use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
/// use dramalloc_core::place::class_index::{place_by_class, CLASSES};
/// use dramalloc_core::place::clock::Clock;
/// use dramalloc_core::place::seed::search::{Fit, Span};
/// use dramalloc_core::place::seed::select::Regions;
/// use dramalloc_core::workspace::Placed;
/// // a long-lived 4 KiB buffer over [0, 9] and two 8 KiB ones at [3, 5] and [6, 8]
/// let mut nodes = [(0, 9), (3, 5), (6, 8)].map(|(lo, hi)| Node { lo, hi, ..Node::default() });
/// (0..3).for_each(|v| nodes[v].payload = v as u32);
/// let mut infos = [4096, 8192, 8192].map(|aligned| Info { aligned, interval_count: 1, ..Info::default() });
/// let tree = IntervalTree::build(&mut nodes);
/// let mut ids = [0u32; 3];
/// build_csr(tree.nodes(), &mut ids, &mut infos);
/// let graph = Graph::new(tree, &ids);
/// let (mut records, mut table, mut at) = ([Placed::default(); 3], [0u32; 3 + CLASSES], [0u32; 3]);
/// let mut occupied = [Span::default(); 3];
/// let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 4096 };
/// // size-descending order: the two 8 KiB buffers share address 0, the long one goes above
/// let done = place_by_class(&graph, &mut infos, &[1, 2, 0], &mut records, &mut table, &mut at,
///                           &mut occupied, regions, Fit::First, &mut Clock::none())?;
/// assert!(done);
/// assert_eq!(infos.map(|i| i.address), [8192, 0, 0]);
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// As `select`: [`PlanError::DoesNotFit`]; [`PlanError::Unallocated`] when `order` misses a
/// non-pinned candidate; [`PlanError::Capacity`] when `occupied` is too short.
#[allow(clippy::too_many_arguments)]
pub fn place_by_class(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    records: &mut [Placed],
    table: &mut [u32],
    at: &mut [u32],
    occupied: &mut [Span],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    let Some(mut index) = ClassIndex::new(graph, infos, 0, records, table, at) else {
        return Ok(false);
    };
    if occupied.len() < n {
        return Err(PlanError::Capacity { store: Store::Occupied, needed: n, capacity: occupied.len() });
    }
    for (v, info) in infos.iter_mut().enumerate() {
        if info.is_pinned() {
            index.place(v, info.address, info.end());
        } else {
            info.allocated = 0;
        }
    }
    place_listed(&mut index, graph, infos, order, occupied, regions, fit, clock)?;
    if clock.halted() {
        return Ok(true);
    }
    if let Some(i) = infos.iter().find(|i| !i.is_allocated()) {
        return Err(PlanError::Unallocated { location: i.location });
    }
    Ok(true)
}

/// Places `order` (first element first, binned candidates of `index`, one interval each)
/// by `fit` among the placed records of `index`, marking each placed. `occupied` needs one
/// entry per record. `clock` is counted once per buffer; when it says stop the rest of
/// `order` stays unplaced.
///
/// # Errors
/// [`PlanError::DoesNotFit`] from [`place_one`].
#[allow(clippy::too_many_arguments)]
pub fn place_listed(
    index: &mut ClassIndex<'_>,
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    occupied: &mut [Span],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<(), PlanError> {
    let nodes = graph.tree().nodes();
    for &v in order {
        if !clock.tick() {
            return Ok(());
        }
        let info = &infos[v as usize];
        let nd = &nodes[graph.intervals_of(info)[0] as usize];
        let m = index.overlapping(nd.lo, nd.hi, occupied);
        let address = place_one(&mut occupied[..m], info, regions, fit)?;
        let info = &mut infos[v as usize];
        info.address = address;
        info.allocated = 1;
        index.place(v as usize, address, info.end());
        clock.placed(info.end());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::interference::build_csr;
    use crate::liveness::interval_tree::{IntervalTree, Node};
    use crate::place::scan::scan;
    use crate::place::seed::select::{select, SelectBuffers};
    use crate::workspace::Scratch;

    const N: usize = 48;

    /// A clock with a ceiling stops the placement at the first buffer that ends at or above
    /// it: `Ok(true)` with the later buffers unallocated (not the error for a candidate the
    /// order missed), the top and the count in the clock. The doctest's three buffers in
    /// size-descending order: the first 8 KiB one ends at 8192, the ceiling.
    #[test]
    fn a_ceiling_stops_the_placement_with_the_rest_unallocated() {
        let mut nodes = [(0, 9), (3, 5), (6, 8)].map(|(lo, hi)| Node { lo, hi, ..Node::default() });
        (0..3).for_each(|v| nodes[v].payload = v as u32);
        let mut infos =
            [4096, 8192, 8192].map(|aligned| Info { aligned, interval_count: 1, ..Info::default() });
        let tree = IntervalTree::build(&mut nodes);
        let mut ids = [0u32; 3];
        build_csr(tree.nodes(), &mut ids, &mut infos);
        let graph = Graph::new(tree, &ids);
        let (mut records, mut table, mut at) = ([Placed::default(); 3], [0u32; 3 + CLASSES], [0u32; 3]);
        let mut occupied = [Span::default(); 3];
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 4096 };
        let mut clock = Clock::none().with_ceiling(8192);
        let done = place_by_class(
            &graph,
            &mut infos,
            &[1, 2, 0],
            &mut records,
            &mut table,
            &mut at,
            &mut occupied,
            regions,
            Fit::First,
            &mut clock,
        );
        assert_eq!(done, Ok(true));
        assert_eq!(infos.map(|i| i.allocated), [0, 1, 0]);
        assert_eq!(
            (clock.above(), clock.placed_count(), clock.stopped(), clock.halted()),
            (Some(8192), 1, false, true)
        );
    }

    #[test]
    fn classes_are_bit_lengths_of_the_length() {
        assert_eq!(
            [class_of(5, 5), class_of(5, 6), class_of(5, 7), class_of(5, 8), class_of(0, u32::MAX)],
            [0, 1, 2, 2, 32]
        );
        // every length of class k is below 2^k
        assert!((0..5000u32).all(|len| (len as u64) < (1u64 << class_of(0, len))));
    }

    /// Random one-interval problems (lifetimes of every scale, some pinned obstacles): the
    /// class index gives `select`'s and the scan's addresses, first and best fit.
    #[test]
    fn same_plans_as_select_and_the_scan() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 1 };
        for case in 0..400 {
            let n = 1 + next(N as u64) as usize;
            let mut nodes = [Node::default(); N];
            let mut infos = [Info::default(); N];
            for v in 0..n {
                let lo = next(200) as u32;
                // lengths from 0 to ~2^(case % 12): short, long and mixed lifetimes
                let scale = 1 + next(1 + (case % 12) as u64);
                let len = next(1 << scale) as u32;
                nodes[v] = Node { lo, hi: lo + len, payload: v as u32, ..Node::default() };
                infos[v] =
                    Info { aligned: 1 + next(64), location: v as u32, interval_count: 1, ..Info::default() };
                if next(8) == 0 {
                    infos[v].pinned = 1;
                    infos[v].allocated = 1;
                    infos[v].address = next(256);
                }
            }
            let mut order = [0u32; N];
            let k = (0..n as u32).filter(|&v| !infos[v as usize].is_pinned()).fold(0, |k, v| {
                order[k] = v;
                k + 1
            });
            order[..k].sort_unstable_by_key(|&v| (u64::MAX - infos[v as usize].aligned, v));
            let tree = IntervalTree::build(&mut nodes[..n]);
            let mut ids = [0u32; N];
            build_csr(tree.nodes(), &mut ids[..n], &mut infos[..n]);
            let mut graph = Graph::new(tree, &ids[..n]);
            for fit in [Fit::First, Fit::Best] {
                let mut by_class = infos;
                let (mut records, mut table, mut at) =
                    ([Placed::default(); N], [0u32; N + CLASSES], [0u32; N]);
                let mut occ = [Span::default(); N];
                let done = place_by_class(
                    &graph,
                    &mut by_class[..n],
                    &order[..k],
                    &mut records,
                    &mut table,
                    &mut at,
                    &mut occ,
                    regions,
                    fit,
                    &mut Clock::none(),
                );
                assert_eq!(done, Ok(true), "case {case}");
                let mut by_scan = infos;
                let mut placed = [Placed::default(); N];
                scan(
                    &graph,
                    &mut by_scan[..n],
                    &order[..k],
                    &mut placed,
                    &mut occ,
                    regions,
                    fit,
                    &mut Clock::none(),
                )
                .unwrap();
                let mut by_tree = infos;
                let (mut scratch, mut nb) = ([Scratch::default(); N], [0u32; N]);
                let mut buf =
                    SelectBuffers { scratch: &mut scratch[..n], neighbours: &mut nb, occupied: &mut occ };
                select(
                    &mut graph,
                    &mut by_tree[..n],
                    &order[..k],
                    &mut buf,
                    regions,
                    fit,
                    &mut Clock::none(),
                )
                .unwrap();
                for v in 0..n {
                    assert_eq!(by_class[v].address, by_tree[v].address, "case {case} {fit:?} v {v}");
                    assert_eq!(by_class[v].address, by_scan[v].address, "case {case} {fit:?} v {v}");
                }
            }
        }
    }

    #[test]
    fn a_query_scans_from_the_first_record_that_can_reach_it() {
        // class 2 (lengths 2, 3): starts 0, 10, 20, 30; class 5 (lengths 16..31): starts 5, 40
        let mut nodes = [(0, 2), (10, 13), (20, 22), (30, 33), (5, 25), (40, 60)].map(|(lo, hi)| Node {
            lo,
            hi,
            ..Node::default()
        });
        (0..6).for_each(|v| nodes[v].payload = v as u32);
        let mut infos = [Info { aligned: 1, interval_count: 1, ..Info::default() }; 6];
        let tree = IntervalTree::build(&mut nodes);
        let mut ids = [0u32; 6];
        build_csr(tree.nodes(), &mut ids, &mut infos);
        let graph = Graph::new(tree, &ids);
        let (mut records, mut table, mut at) = ([Placed::default(); 6], [0u32; 6 + CLASSES], [0u32; 6]);
        let index = ClassIndex::new(&graph, &infos, 0, &mut records, &mut table, &mut at).unwrap();
        // class 2's run is records 0..4 (4 starts over a span of 30: chunks of 8), class 5's
        // records 4..6 (span 35: chunks of 32)
        assert_eq!((index.runs[2].first, index.runs[2].end, index.runs[2].shift), (0, 4, 3));
        assert_eq!((index.runs[5].first, index.runs[5].end, index.runs[5].shift), (4, 6, 5));
        // [13, 13]: a class-2 interval reaching 13 starts at 10 or later (chunk 1, record 1)
        assert_eq!(index.first_record(2, 13, 13), Some(1));
        // [12, 12]: from 9, still chunk 1 (starts 8..15): record 1
        assert_eq!(index.first_record(2, 12, 12), Some(1));
        // [11, 11]: from 8, the first start of chunk 1
        assert_eq!(index.first_record(2, 11, 11), Some(1));
        // [10, 10]: from 7, chunk 0: record 0
        assert_eq!(index.first_record(2, 10, 10), Some(0));
        // [34, 50]: from 31 > the last start 30: nothing in class 2 reaches 34
        assert_eq!(index.first_record(2, 34, 50), None);
        // [0, 0] in class 5: from 0 < min 5, but 0 < 5 = the first start: nothing yet
        assert_eq!(index.first_record(5, 0, 0), None);
        // [36, 36] in class 5: from 5 (36 - 31): the run's first record
        assert_eq!(index.first_record(5, 36, 36), Some(4));
        // [70, 70]: from 39, chunk 1 (starts 37..68): record 5
        assert_eq!(index.first_record(5, 70, 70), Some(5));
        // [3, 3] in class 2: from 0 (3 - 3), chunk 0
        assert_eq!(index.first_record(2, 3, 3), Some(0));
    }

    #[test]
    fn short_storage_and_several_intervals_are_declined() {
        let mut nodes = [Node { lo: 0, hi: 3, ..Node::default() }, Node { lo: 5, hi: 9, ..Node::default() }];
        let mut infos = [Info { aligned: 8, interval_count: 2, ..Info::default() }];
        let tree = IntervalTree::build(&mut nodes);
        let mut ids = [0u32; 2];
        build_csr(tree.nodes(), &mut ids, &mut infos);
        let graph = Graph::new(tree, &ids);
        let (mut records, mut table, mut at) = ([Placed::default(); 2], [0u32; 2 + CLASSES], [0u32; 2]);
        // two intervals for one candidate: not this placer's problem
        assert!(ClassIndex::new(&graph, &infos, 0, &mut records, &mut table, &mut at).is_none());
        let mut one = [Node { lo: 0, hi: 3, ..Node::default() }];
        let mut infos = [Info { aligned: 8, interval_count: 1, ..Info::default() }];
        let tree = IntervalTree::build(&mut one);
        let mut ids = [0u32; 1];
        build_csr(tree.nodes(), &mut ids, &mut infos);
        let graph = Graph::new(tree, &ids);
        // one record in one class needs a table of two entries
        assert!(ClassIndex::new(&graph, &infos, 0, &mut records, &mut table[..1], &mut at).is_none());
        assert!(ClassIndex::new(&graph, &infos, 0, &mut records, &mut table[..2], &mut at).is_some());
    }
}
