//! The sweep around the long-lived: the longest-lived buffers placed first by size-ordered
//! first fit, then every other buffer by the time sweep around them.
//! Uses: class_index, cost_model (Estimate), error, first_set, gather, liveness, min_heap,
//! portfolio (peak, Storage), scan, seed, sweep, workspace; used by: portfolio (its row,
//! `run_sweep_long`).
//!
//! The time sweep ([`crate::place::sweep`]) is the one placer cheap enough for millions of
//! buffers, but it is online: a buffer that will live for thousands of instructions goes
//! into whatever gap is lowest when it is defined, and the short-lived buffers then
//! fragment around it for its whole life. Offline planners avoid that by placing the
//! long-lived ones with knowledge of all of them (greedy by size, `greedy-size`), at a cost of
//! O(E) that is out of reach at 10^6 buffers. This member does both:
//!
//! 1. the candidates of lifetime class at least `k` (lifetime `hi - lo` of bit length ≥ `k`,
//!    [`crate::place::class_index::class_of`]; the *long* set, chosen by [`long_class`]) are
//!    placed first, among themselves only, in size order (then lifetime, then index) by
//!    first fit (`place/first_set.rs`: through the lifetime-class index holding only
//!    them, or the address-ordered scan where the set's counted pairs make that cheaper);
//! 2. then all candidates are swept in def order (size descending at one instruction): a
//!    long one enters the sorted live list at its def with its address; a short one goes by
//!    first fit among the live list *and the long ones defined during its lifetime* (found
//!    from a pointer into the long ones in def order: those not entered yet, up to its last
//!    use), so no later long buffer lands on it.
//!
//! Pinned (fixed) candidates count with the long set: the long ones avoid them in step 1 and
//! they enter the live list at their def in step 2, looked ahead of like the long ones.
//!
//! Every pair is kept apart: two long ones by step 1; a short one and an earlier one by the
//! live list; a short one and a later short one by the later one's live list; a short one and
//! a later long one by the look-ahead. Quality lies between the sweep's and the greedy
//! member's; measured on generated shapes in the README ("Planning at scale").
//!
//! **Many live at once.** Where more than [`LIST_MAX_LIVE`] buffers are live at one
//! instruction and the caller lends the storage ([`Lent`]: the portfolio's rows do), step 2
//! is the time sweep itself on its treap ([`crate::place::live_set`]), with the first set
//! standing as pinned buffers and every look-ahead exact (the sweep's index where a probe is
//! cheap, else the buffers ahead sorted; never the plain sweep's "above every pinned one"):
//! the same plan (`core/tests/sweep_first_paths.rs`). On `iopddl` `Y_1` (62,185 buffers, up
//! to 9,331 live at once) the sweep around the hot went from 11.65 to 8.32 × 10^9
//! instructions (callgrind, one thread), its step 2 from 5.9 to 2.6; at 327 live (10^5
//! generated `long-tail` rows) the rows' sweeps cost the same within 1 %.
//!
//! Complexity: step 1 as a greedy pass over the long set, O(n_long · c + E_long log d);
//! step 2 O(n log n + n · d) with the live list (d buffers live at once), O(n log d) on the
//! treap, plus the look-aheads. The cost model charges step 2 by the interfering pairs on
//! either path (an upper bound on the treap). No heap allocation; storage as the sweep's plus
//! the class index's.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::class_index::{class_of, CLASSES};
use crate::place::clock::Clock;
use crate::place::cost_model::Estimate;
use crate::place::first_set::place_first_set;
use crate::place::gather::{gather, GATHER};
use crate::place::min_heap;
use crate::place::portfolio::{peak, Storage};
use crate::place::scan::insert_sorted;
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{first_fit_sorted, place_one, Regions};
use crate::place::sweep::{def_order, expire, max_live, sweep_ahead_of, LIST_MAX_LIVE};
use crate::workspace::{Placed, Section, Slot};
use core::cmp::Reverse;

/// The lifetime classes of a problem's intervals: how many and their total length per
/// class ([`class_of`]), and the time span they cover. What [`long_class`] cuts and the
/// portfolio's cost estimate reads. O(n) to build, 404 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Lifetimes {
    /// Intervals per class.
    pub count: [u32; CLASSES],
    /// Sum of the lengths `hi - lo` per class, instructions.
    pub length: [u64; CLASSES],
    /// `max hi - min lo + 1` over all intervals, instructions (0 with none).
    pub span: u64,
}

impl Lifetimes {
    /// The classes of the tree's intervals.
    pub fn of(graph: &Graph<'_>) -> Lifetimes {
        let nodes = graph.tree().nodes();
        let (mut count, mut length) = ([0u32; CLASSES], [0u64; CLASSES]);
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        for nd in nodes {
            let k = class_of(nd.lo, nd.hi);
            count[k] += 1;
            length[k] += (nd.hi - nd.lo) as u64;
            lo = lo.min(nd.lo);
            hi = hi.max(nd.hi);
        }
        let span = if nodes.is_empty() { 0 } else { (hi - lo) as u64 + 1 };
        Lifetimes { count, length, span }
    }

    /// The class cut that makes at most `n >> share` intervals long (`share` = 3: an eighth,
    /// for n intervals): the smallest class `k ≥ 1` with at most that many intervals of class
    /// ≥ `k` ([`CLASSES`] when even the longest class alone has more: nothing is long).
    pub fn cut(&self, share: u32) -> usize {
        let n: u64 = self.count.iter().map(|&c| c as u64).sum();
        let most = n >> share;
        let mut above = 0u64;
        for k in (1..CLASSES).rev() {
            if above + self.count[k] as u64 > most {
                return k + 1;
            }
            above += self.count[k] as u64;
        }
        1
    }

    /// The long set of cut `k`: its intervals, their total length (instructions) and its
    /// non-empty classes.
    pub fn long_set(&self, k: usize) -> (u64, u64, u64) {
        let k = k.min(CLASSES);
        let n = self.count[k..].iter().map(|&c| c as u64).sum();
        let len = self.length[k..].iter().sum();
        let classes = self.count[k..].iter().filter(|&&c| c > 0).count() as u64;
        (n, len, classes)
    }
}

/// The class cut of [`Lifetimes::cut`] for `graph`'s intervals.
pub fn long_class(graph: &Graph<'_>, share: u32) -> usize {
    Lifetimes::of(graph).cut(share)
}

/// Places every candidate as described in the module docs, with long set "class ≥ `k`".
/// `order`, `heap`, `placed` and `occupied` need one entry per candidate, `sections` one per
/// candidate (its bytes hold the class index's table and the long ones' list). Pinned
/// candidates stay where they are and count with the long set: obstacles to the long ones in
/// step 1, entering the live list at their def and looked ahead of in step 2. Returns
/// `Ok(false)` (nothing placed) when a candidate has several intervals, or storage is short.
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer that fits in no gap of the window.
#[allow(clippy::too_many_arguments)]
pub fn sweep_long(
    graph: &Graph<'_>,
    infos: &mut [Info],
    k: usize,
    order: &mut [u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    sweep_first(graph, infos, First::Long(k), order, heap, placed, occupied, sections, None, regions, clock)
}

/// Which candidates a sweep around a first set places first ([`sweep_first`]), and in which
/// order.
#[derive(Clone, Copy, Debug)]
pub enum First<'a> {
    /// The candidates of lifetime class at least `k` ([`class_of`]), in size order (then
    /// lifetime, then index, larger first): the long-lived of [`sweep_long`].
    Long(usize),
    /// The candidates whose [`hot_key`] (largest load over the lifetime, `loads[v].total`;
    /// lifetime; index ascending) is at least `at_least`, larger first, in that order
    /// (`greedy-load`'s): the hot of [`crate::place::sweep_hot`]. `loads` holds one slot per
    /// candidate.
    Hot {
        /// Per candidate, its `total`: the largest load over its lifetime, bytes.
        loads: &'a [Slot],
        /// The key of the last candidate of the set.
        at_least: HotKey,
    },
}

impl First<'_> {
    /// Whether unpinned candidate `v`, live over `[lo, hi]`, is of the first set.
    #[inline]
    fn holds(&self, v: u32, lo: u32, hi: u32) -> bool {
        match *self {
            First::Long(k) => class_of(lo, hi) >= k,
            First::Hot { loads, at_least } => hot_key(loads, v) >= at_least,
        }
    }

    /// Whether candidate `v` of `infos`, live over `[lo, hi]`, is placed before the sweep:
    /// pinned, or of the first set.
    #[inline]
    fn before(&self, infos: &[Info], v: u32, lo: u32, hi: u32) -> bool {
        infos[v as usize].is_pinned() || self.holds(v, lo, hi)
    }
}

/// The rank key of [`First::Hot`] (larger first): a candidate's largest load over its
/// lifetime (bytes), its lifetime (`width`, instructions), then the lower index.
pub type HotKey = (u64, u32, Reverse<u32>);

/// Candidate `v`'s [`HotKey`] from its slot in `loads` (one per candidate; panics past them).
#[inline]
pub fn hot_key(loads: &[Slot], v: u32) -> HotKey {
    let s = &loads[v as usize];
    (s.total, s.width, Reverse(v))
}

/// Places every candidate as described in the module docs, with the first set `first`
/// ([`First::Long`]: the long-lived; [`First::Hot`]: the hot) in place of "class ≥ `k`";
/// as [`sweep_long`] otherwise. With `treap` (one `pinned` entry per pinned or first-set
/// candidate, else it is not used) step 2 runs on the sweep's treap where more than
/// [`LIST_MAX_LIVE`] candidates are live at once: the same plan, in O(n log d).
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer that fits in no gap of the window.
#[allow(clippy::too_many_arguments)]
pub fn sweep_first(
    graph: &Graph<'_>,
    infos: &mut [Info],
    first: First<'_>,
    order: &mut [u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    treap: Option<Lent<'_>>,
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    let words: &mut [u32] = bytemuck::cast_slice_mut(sections);
    // `placed`, `heap` and `words` are checked by the class index of step 1 (it needs at
    // least as much of each), before anything is written
    if infos.iter().any(|i| i.interval_count != 1) || occupied.len() < n || order.len() < n {
        return Ok(false);
    }
    let nodes = graph.tree().nodes();
    // placed first: the long free ones (the pinned ones are where the input puts them)
    let long = |v: usize| {
        let nd = &nodes[graph.intervals_of(&infos[v])[0] as usize];
        !infos[v].is_pinned() && first.holds(v as u32, nd.lo, nd.hi)
    };
    // step 1: the long ones, size order, first fit among themselves
    let mut nl = 0usize;
    for v in 0..n {
        if long(v) {
            order[nl] = v as u32;
            nl += 1;
        }
    }
    let life = |v: u32| {
        let nd = &nodes[graph.intervals_of(&infos[v as usize])[0] as usize];
        nd.hi - nd.lo
    };
    match first {
        First::Long(_) => order[..nl].sort_unstable_by(|&a, &b| {
            let (ia, ib) = (&infos[a as usize], &infos[b as usize]);
            ib.aligned.cmp(&ia.aligned).then(life(b).cmp(&life(a))).then(a.cmp(&b))
        }),
        First::Hot { loads, .. } => order[..nl].sort_unstable_by_key(|&v| Reverse(hot_key(loads, v))),
    }
    for info in infos.iter_mut().filter(|i| !i.is_pinned()) {
        info.allocated = 0;
    }
    // (the first set among itself and the pinned ones: `place/first_set.rs`)
    let of_first = |lo: u32, hi: u32, v: u32| first.holds(v, lo, hi);
    if !place_first_set(graph, infos, &of_first, &order[..nl], placed, occupied, words, heap, regions, clock)?
    {
        return Ok(false);
    }
    if clock.halted() {
        return Ok(true);
    }
    // step 2: the sweep in (def, size descending, index) order; nodes are sorted by lo
    def_order(nodes, infos, &mut order[..n]);
    let before = nl + infos.iter().filter(|i| i.is_pinned()).count();
    if let Some(lent) = treap.filter(|l| l.pinned.len() >= before) {
        let keys: &mut [u64] = bytemuck::cast_slice_mut(&mut occupied[..n]);
        if max_live(nodes, &order[..n], keys, LIST_MAX_LIVE) > LIST_MAX_LIVE {
            return sweep_around(
                graph, infos, first, order, heap, placed, occupied, sections, lent, regions, clock,
            );
        }
    }
    // the long ones' and the pinned ones' nodes in sweep order: placed before the sweep
    let longs = &mut words[..n];
    let mut nl = 0usize;
    for &ni in order[..n].iter() {
        let nd = &nodes[ni as usize];
        if first.before(infos, nd.payload, nd.lo, nd.hi) {
            longs[nl] = ni;
            nl += 1;
        }
    }
    let by_hi = |a: u32, b: u32| nodes[a as usize].hi < nodes[b as usize].hi;
    let (mut live, mut hlen, mut entered) = (0usize, 0usize, 0usize);
    for chunk in order[..n].chunks(GATHER) {
        // (sizes read ahead: `place/gather.rs`)
        let gathered = gather(chunk.iter().map(|&ni| nodes[ni as usize].payload), infos);
        for (&ni, &(size, _, _)) in chunk.iter().zip(&gathered) {
            if !clock.tick() {
                return Ok(true);
            }
            let node = nodes[ni as usize];
            expire(nodes, heap, &mut hlen, placed, &mut live, node.lo);
            let v = node.payload as usize;
            // pinned or of the first set: the next of `longs`, which lists them in this order
            if longs[..nl].get(entered) == Some(&ni) {
                // placed in step 1 or pinned: it enters the live list at its def
                entered += 1;
                let info = &mut infos[v];
                info.allocated = 1;
                let at = Placed { lo: node.lo, hi: node.hi, addr: info.address, end: info.end() };
                insert_sorted(placed, &mut live, at);
                min_heap::push(heap, &mut hlen, ni, by_hi);
                continue;
            }
            // the long ones defined during its lifetime, not in the live list yet
            let mut m = 0usize;
            for &li in &longs[entered..nl] {
                let l = &nodes[li as usize];
                if l.lo > node.hi {
                    break;
                }
                let o = &infos[l.payload as usize];
                occupied[m] = Span { lo: o.address, hi: o.end() };
                m += 1;
            }
            let fast = if m == 0 {
                first_fit_sorted(placed[..live].iter().map(|p| (p.addr, p.end)), size, regions)
            } else {
                occupied[..m].sort_unstable_by_key(|s| s.lo);
                let ahead = &occupied[..m];
                first_fit_sorted(merge(&placed[..live], ahead), size, regions)
            };
            let address = match fast {
                Some(a) => a,
                None => {
                    for (o, p) in occupied[m..].iter_mut().zip(&placed[..live]) {
                        *o = Span { lo: p.addr, hi: p.end };
                    }
                    place_one(&mut occupied[..m + live], &infos[v], regions, Fit::First)?
                }
            };
            // (written, not read: the store does not wait for the record's cache line)
            let info = &mut infos[v];
            info.address = address;
            info.allocated = 1;
            let end = address.saturating_add(size);
            clock.placed(end);
            insert_sorted(placed, &mut live, Placed { lo: node.lo, hi: node.hi, addr: address, end });
            min_heap::push(heap, &mut hlen, ni, by_hi);
        }
    }
    Ok(true)
}

/// Storage for step 2 on the time sweep's treap path ([`sweep_first`]): as the sweep's
/// `pinned` (one entry per pinned or first-set candidate) and `lookahead` words.
#[derive(Debug)]
pub struct Lent<'w> {
    /// One entry per candidate placed before the sweep (pinned or of the first set).
    pub pinned: &'w mut [u32],
    /// Words for the index of those ([`crate::Workspace::lookahead`]).
    pub lookahead: &'w mut [u64],
}

/// Marks the unpinned candidates of the first set for step 2 on the sweep's path: they
/// stand as pinned ones while it runs, and are free again after it.
const FIRST_SET: u8 = 2;

/// Step 2 of [`sweep_first`] by the time sweep ([`sweep`]) with the first set (placed by
/// step 1) standing as pinned candidates: the same first fit over the same live buffers and
/// the same look-ahead (the first-set buffers defined within a buffer's lifetime), on the
/// sweep's treap where more than [`LIST_MAX_LIVE`] buffers are live at once (O(n log d)
/// instead of the list's O(n · d)). `order` is in def order already, and the slices are as
/// long as the sweep asks (step 1 and the caller's test of `lent` checked them).
#[allow(clippy::too_many_arguments)]
fn sweep_around(
    graph: &Graph<'_>,
    infos: &mut [Info],
    first: First<'_>,
    order: &[u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    lent: Lent<'_>,
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let nodes = graph.tree().nodes();
    for (v, info) in infos.iter_mut().enumerate() {
        let nd = &nodes[graph.intervals_of(info)[0] as usize];
        if !info.is_pinned() && first.holds(v as u32, nd.lo, nd.hi) {
            info.pinned = FIRST_SET;
        }
    }
    let Lent { pinned, lookahead } = lent;
    let lent = (pinned, lookahead);
    // (`order` is in def order: sorted by the caller)
    let done = sweep_ahead_of(
        graph,
        infos,
        order,
        heap,
        placed,
        occupied,
        sections,
        lent,
        regions,
        Fit::First,
        true,
        clock,
    );
    for info in infos.iter_mut().filter(|i| i.pinned == FIRST_SET) {
        info.pinned = 0;
    }
    done
}

/// The byte ranges of `live` (sorted by address) and `ahead` (sorted by start) merged in
/// ascending start order.
fn merge<'a>(live: &'a [Placed], ahead: &'a [Span]) -> impl Iterator<Item = (u64, u64)> + 'a {
    let (mut i, mut j) = (0usize, 0usize);
    core::iter::from_fn(move || {
        let a = live.get(i).map(|p| (p.addr, p.end));
        let b = ahead.get(j).map(|s| (s.lo, s.hi));
        match (a, b) {
            (Some(x), Some(y)) if x.0 <= y.0 => {
                i += 1;
                Some(x)
            }
            (_, Some(y)) => {
                j += 1;
                Some(y)
            }
            (Some(x), None) => {
                i += 1;
                Some(x)
            }
            (None, None) => None,
        }
    })
}

/// Places by the sweep around the `n >> share` longest-lived ([`crate::place::sweep_long`]);
/// `None` where it does not apply (several intervals, short storage); an
/// incomplete plan when `clock` says stop (the caller checks [`Clock::stopped`]).
///
/// # Errors
/// [`PlanError::DoesNotFit`] from its placement.
pub(super) fn run_sweep_long(
    share: u8,
    graph: &Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    est: &Estimate,
    clock: &mut Clock<'_>,
) -> Result<Option<u64>, PlanError> {
    let k = est.lifetimes.cut(share as u32);
    let lent = Lent { pinned: st.neighbours, lookahead: st.lookahead };
    let (order, first) = (&mut **st.order, First::Long(k));
    Ok(sweep_first(
        graph,
        infos,
        first,
        order,
        st.heap,
        st.placed,
        st.occupied,
        st.sections,
        Some(lent),
        regions,
        clock,
    )?
    .then(|| peak(infos)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::interference::build_csr;
    use crate::liveness::interval_tree::{IntervalTree, Node};

    const N: usize = 64;

    struct Problem {
        nodes: [Node; N],
        infos: [Info; N],
        n: usize,
    }

    fn problem(iv: &[(u32, u32, u64)]) -> Problem {
        let mut p = Problem { nodes: [Node::default(); N], infos: [Info::default(); N], n: iv.len() };
        for (v, &(lo, hi, size)) in iv.iter().enumerate() {
            p.nodes[v] = Node { lo, hi, payload: v as u32, ..Node::default() };
            p.infos[v] = Info { aligned: size, location: v as u32, interval_count: 1, ..Info::default() };
        }
        p
    }

    /// Runs the member with cut `k` on `p`; its addresses, or the error.
    fn run(p: &mut Problem, k: usize, regions: Regions) -> Result<Option<[u64; N]>, PlanError> {
        let n = p.n;
        let tree = IntervalTree::build(&mut p.nodes[..n]);
        let mut ids = [0u32; N];
        build_csr(tree.nodes(), &mut ids[..n], &mut p.infos[..n]);
        let graph = Graph::new(tree, &ids[..n]);
        let (mut order, mut heap) = ([0u32; N], [0u32; N]);
        let (mut placed, mut occ) = ([Placed::default(); N], [Span::default(); N]);
        let mut sections = [Section::default(); N];
        let done = sweep_long(
            &graph,
            &mut p.infos[..n],
            k,
            &mut order[..n],
            &mut heap[..n],
            &mut placed[..n],
            &mut occ[..n],
            &mut sections,
            regions,
            &mut Clock::none(),
        )?;
        Ok(done.then(|| core::array::from_fn(|v| if v < n { p.infos[v].address } else { 0 })))
    }

    const WIDE: Regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 1 };

    #[test]
    fn a_long_buffer_placed_first_keeps_the_short_ones_from_fragmenting() {
        // an 8-byte short buffer at [0, 1], a 4-byte long one at [1, 20], a 16-byte short one
        // at [3, 4]; the lower bound is 20 (4 + 16 at instruction 3)
        let iv = [(0, 1, 8), (1, 20, 4), (3, 4, 16)];
        // nothing long (the plain sweep's plan): the long one lands above the first short
        // one, and the gap it leaves below (8 bytes) is too small for the 16-byte one: peak 28
        let swept = run(&mut problem(&iv), CLASSES, WIDE).unwrap().unwrap();
        assert_eq!(&swept[..3], &[0, 8, 12]);
        // class >= 4 is long (lifetime 19 has bit length 5): it goes first, at 0; the first
        // short one sees it ahead (it starts during its life) and goes above: peak 20
        let around = run(&mut problem(&iv), 4, WIDE).unwrap().unwrap();
        assert_eq!(&around[..3], &[4, 0, 4]);
    }

    #[test]
    fn every_interfering_pair_is_kept_apart() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut peaks = 0u64;
        for case in 0..500 {
            let n = 1 + next(N as u64) as usize;
            let mut iv = [(0u32, 0u32, 0u64); N];
            for e in iv[..n].iter_mut() {
                let lo = next(100) as u32;
                let scale = 1 + next(8);
                *e = (lo, lo + next(1 << scale) as u32, 1 + next(32));
            }
            let k = (case % 10) as usize;
            let at = run(&mut problem(&iv[..n]), k, WIDE).unwrap().unwrap();
            peaks += (0..n).map(|v| at[v] + iv[v].2).max().unwrap_or(0);
            for a in 0..n {
                for b in a + 1..n {
                    let (x, y) = (iv[a], iv[b]);
                    if x.0 <= y.1 && y.0 <= x.1 {
                        let disjoint = at[a] + x.2 <= at[b] || at[b] + y.2 <= at[a];
                        assert!(
                            disjoint,
                            "case {case} k {k}: {a} {x:?} at {} and {b} {y:?} at {}",
                            at[a], at[b]
                        );
                    }
                }
            }
        }
        // the plans themselves, pinned (a change to the order, the look-ahead or the expiry
        // moves this sum of the 500 peaks)
        assert_eq!(peaks, 103_403);
    }

    #[test]
    fn a_buffer_that_fits_nowhere_is_named() {
        let iv = [(0, 9, 64), (2, 3, 64)];
        let small = Regions { start: 0, general_ceiling: 100, window: 100, align: 1 };
        match run(&mut problem(&iv), 1, small) {
            Err(PlanError::DoesNotFit { location: 1, size: 64, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    /// A pinned buffer is an obstacle to both steps: long L [0, 30] (class 5, 64 bytes) goes
    /// first, above pinned P [5, 6] at [0, 32), at 32; short S [0, 3] (16) sees nothing ahead
    /// and takes 0 (it has gone when P comes); short T [4, 8] (16) sees P ahead and goes above
    /// L, at 96. P stays at 0. (Without P among the long set, L would take 0.)
    #[test]
    fn pinned_buffers_are_obstacles_to_the_long_ones_and_looked_ahead_of() {
        let iv = [(0, 30, 64), (5, 6, 32), (0, 3, 16), (4, 8, 16)];
        let mut p = problem(&iv);
        p.infos[1].pinned = 1;
        let got = run(&mut p, 5, WIDE).unwrap().unwrap();
        assert_eq!(got[..4], [32, 0, 0, 96]);
        assert_eq!(run(&mut problem(&iv), 5, WIDE).unwrap().unwrap()[..4], [0, 80, 64, 64]);
    }

    #[test]
    fn a_short_buffer_that_fits_nowhere_is_named() {
        // long L [1, 30] (class 5) goes first, at 0; A [0, 6] sees it ahead and goes at 32;
        // B (60 bytes) at 2 finds only [48, 100) free below the 100-byte ceiling
        let iv = [(1, 30, 32), (0, 6, 16), (2, 4, 60)];
        let small = Regions { start: 0, general_ceiling: 100, window: 100, align: 1 };
        match run(&mut problem(&iv), 4, small) {
            Err(PlanError::DoesNotFit {
                location: 2,
                size: 60,
                needed: 108,
                available: 100,
                largest_gap: 52,
            }) => {}
            other => panic!("{other:?}"),
        }
        // with room it fits above them
        let wide = run(&mut problem(&iv), 4, WIDE).unwrap().unwrap();
        assert_eq!(&wide[..3], &[0, 32, 48]);
    }

    #[test]
    fn short_storage_is_declined_slice_by_slice() {
        let mut p = problem(&[(0, 9, 4), (2, 3, 4), (5, 30, 8)]);
        let tree = IntervalTree::build(&mut p.nodes[..3]);
        let mut ids = [0u32; 3];
        build_csr(tree.nodes(), &mut ids, &mut p.infos[..3]);
        let graph = Graph::new(tree, &ids);
        let (mut order, mut heap) = ([0u32; 3], [0u32; 3]);
        let (mut placed, mut occ) = ([Placed::default(); 3], [Span::default(); 3]);
        let mut sections = [Section::default(); 6];
        let infos = &mut p.infos[..3];
        // each slice one entry short in turn: declined, nothing placed
        for short in 0..5 {
            let cut = |k: usize, len: usize| if k == short { len - 1 } else { len };
            let out = sweep_long(
                &graph,
                infos,
                1,
                &mut order[..cut(0, 3)],
                &mut heap[..cut(1, 3)],
                &mut placed[..cut(2, 3)],
                &mut occ[..cut(3, 3)],
                // three candidates need three u32 of the sections' bytes for the long list
                // and 3 + 2 for the class table: one section (8 u32) holds both
                &mut sections[..if short == 4 { 0 } else { 1 }],
                WIDE,
                &mut Clock::none(),
            );
            assert_eq!(out, Ok(false), "slice {short}");
            assert!(infos.iter().all(|i| i.allocated == 0), "slice {short}");
        }
        let out = sweep_long(
            &graph,
            infos,
            1,
            &mut order,
            &mut heap,
            &mut placed,
            &mut occ,
            &mut sections[..1],
            WIDE,
            &mut Clock::none(),
        );
        assert_eq!(out, Ok(true));
    }

    #[test]
    fn the_cut_takes_the_longest_classes_up_to_the_share() {
        let mut l = Lifetimes { count: [0; CLASSES], length: [0; CLASSES], span: 100 };
        // 96 intervals of class 2, 24 of class 6, 8 of class 10: n = 128
        (l.count[2], l.count[6], l.count[10]) = (96, 24, 8);
        (l.length[2], l.length[6], l.length[10]) = (288, 1200, 4000);
        // an eighth (16): class 10 alone (8) fits, class 6 too would make 32
        assert_eq!(l.cut(3), 7);
        assert_eq!(l.long_set(7), (8, 4000, 1));
        // a half (64): classes 10 and 6 (32); with class 2 128
        assert_eq!(l.cut(1), 3);
        // 1/256 of 128 is 0: nothing is long
        assert_eq!(l.cut(8), 11);
        assert_eq!(l.long_set(11), (0, 0, 0));
        // the classes above a cut add up: 8 + 8 + 8 of classes 10, 9, 8 and 104 of class 2;
        // a sixteenth (8) takes class 10 alone, a quarter (32) the three long classes (cut 3:
        // classes 3 to 7 are empty)
        let mut l = Lifetimes { count: [0; CLASSES], length: [0; CLASSES], span: 100 };
        (l.count[10], l.count[9], l.count[8], l.count[2]) = (8, 8, 8, 104);
        assert_eq!((l.cut(4), l.cut(2)), (10, 3));
    }

    #[test]
    fn lifetimes_count_and_measure_each_class() {
        // lengths 0 (class 0), 1 (class 1), 2 and 3 (class 2), 9 (class 4); span 3 ..= 20
        let mut p = problem(&[(3, 3, 1), (4, 5, 1), (6, 8, 1), (10, 13, 1), (11, 20, 1)]);
        let tree = IntervalTree::build(&mut p.nodes[..5]);
        let mut ids = [0u32; 5];
        build_csr(tree.nodes(), &mut ids, &mut p.infos[..5]);
        let graph = Graph::new(tree, &ids);
        let l = Lifetimes::of(&graph);
        assert_eq!(&l.count[..6], &[1, 1, 2, 0, 1, 0]);
        assert_eq!(&l.length[..6], &[0, 1, 5, 0, 9, 0]);
        assert_eq!(l.span, 18);
        assert_eq!(long_class(&graph, 2), 3); // at most 1 of 5 long: the class-4 one
    }
}
