//! Time-sweep placement (the `sweep` strategy): buffers placed in def order among the live ones.
//! Uses: error, gather, liveness, live_set, min_heap, scan, seed, sweep_ahead, workspace; used by: portfolio.
//!
//! Time-sweep placement (the `sweep` strategy): buffers are placed in the order they become
//! live, like a run-time allocator replaying the program, each into a gap among the buffers
//! live at that instant; a buffer leaves the live list after its last use.
//!
//! Only the live list matters: a buffer placed at its def avoids every earlier-placed buffer
//! still live, and every later one avoids it, so the plan is valid with no interference
//! queries. The live list is kept sorted by address ([`Placed`]); ends wait in a binary
//! min-heap keyed by last use. Within one instruction, larger buffers go first.
//!
//! With more than [`LIST_MAX_LIVE`] buffers live at once (and `sections` one
//! per candidate), the live buffers are kept in the [`LiveSet`] treap instead of the list:
//! the same plan in O(n log d) (a 20,000-buffer clique in milliseconds).
//!
//! Complexity O(n log n + n · d) for at most d buffers live at once, no heap allocation:
//! the strategy for millions of short-lived buffers, where the O(E) and O(n²) placers are
//! too slow. Quality is that of an online allocator (often well above the lower bound on
//! adversarial sets), so `auto` uses it only when the others do not fit the work budget.
//! Pinned candidates (an address from the input) are obstacles: each joins the live list at
//! its def like the others, at its own address, and a buffer placed earlier that is still
//! live then avoided it when placed (the pinned ones defined within its lifetime are added to
//! its gaps' obstacles), so the plan is the same first fit over the same neighbours. Up to
//! [`LOOKAHEAD_PER_BUFFER`] of those are sorted by address with the live ones; past that they
//! are asked of the index in `place/pinned_index.rs`, a merge-sort tree over the pinned buffers in
//! def order lent in storage the sweep leaves unused (the sections on the list path, `placed`
//! past one entry per pinned buffer on the treap path), while the sweep's budget of its visits
//! lasts; elsewhere such a buffer goes above every pinned one.
//! Applies to one-interval candidates (returns `Ok(false)` otherwise).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::liveness::interval_tree::Node;
use crate::place::clock::Clock;
use crate::place::gather::{gather, GATHER};
use crate::place::live_set::LiveSet;
use crate::place::min_heap::{self, end_key, key_hi, SORT_ABOVE};
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::Regions;
use crate::place::sweep_ahead::{
    ask_index, defined_by, index_pinned, indexed_tree_fit, list_fit, tree_fit, Ahead,
};
pub use crate::place::sweep_ahead::{pinned_index_words, LOOKAHEAD_BUDGET_PER_BUFFER, LOOKAHEAD_PER_BUFFER};
use crate::workspace::{Placed, Section};
use core::cmp::Reverse;

/// Places every unpinned candidate by the time sweep, around the pinned ones. `order`,
/// `heap`, `placed`, `occupied` need `infos.len()` entries, `pinned` one per pinned
/// candidate. Returns `Ok(false)` (nothing changed) when a candidate has several intervals
/// or a slice is short. `clock` is counted once per buffer; when it says stop the sweep
/// returns `Ok(true)` at once with the later buffers unallocated (no plan: the caller checks
/// [`Clock::stopped`]).
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer that fits in no gap of the window.
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &mut [u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    pinned: &mut [u32],
    lookahead: &mut [u64],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    if infos.iter().any(|i| i.interval_count != 1)
        || placed.len() < n
        || occupied.len() < n
        || heap.len() < n
        || order.len() < n
        || pinned.len() < infos.iter().filter(|i| i.is_pinned()).count()
    {
        return Ok(false);
    }
    def_order(graph.tree().nodes(), infos, &mut order[..n]);
    let lent = (pinned, lookahead);
    sweep_ahead_of(graph, infos, order, heap, placed, occupied, sections, lent, regions, fit, false, clock)
}

/// [`sweep`] over `order` already in def order ([`def_order`]), its slices as long as
/// [`sweep`] asks (the caller checked them); with `exact_ahead` every free buffer avoids every
/// pinned one defined during its lifetime, found by the index or by sorting them, however
/// many there are (never placed above every pinned one instead): the sweep around a first
/// set ([`crate::place::sweep_long::sweep_first`]), whose look-ahead is exact on its list
/// path and whose order is sorted already.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep_ahead_of(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    (pinned, lookahead): (&mut [u32], &mut [u64]),
    regions: Regions,
    fit: Fit,
    exact_ahead: bool,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    let nodes = graph.tree().nodes();
    let p = pinned_in_def_order(nodes, infos, &order[..n], pinned);
    let pinned = &pinned[..p];
    // a free buffer with too many pinned ones to look ahead of goes above every pinned one
    // (nothing pinned is up there), where it fits; not where every look-ahead is exact
    let top = infos.iter().filter(|i| i.is_pinned()).map(Info::end).max().unwrap_or(0);
    let above = (top <= regions.general_ceiling && !exact_ahead)
        .then_some(Regions { start: regions.start.max(top), ..regions });
    sweep_in(
        nodes,
        infos,
        &order[..n],
        heap,
        placed,
        occupied,
        sections,
        pinned,
        lookahead,
        above,
        regions,
        fit,
        clock,
    )
}

/// The sweep of [`sweep`] over `order` (def order) with `pinned` (the pinned nodes in def
/// order) looked ahead of; `above`: the regions above every pinned buffer, if they exist.
#[allow(clippy::too_many_arguments)]
fn sweep_in(
    nodes: &[Node],
    infos: &mut [Info],
    order: &[u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    sections: &mut [Section],
    pinned: &[u32],
    lookahead: &mut [u64],
    above: Option<Regions>,
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    let n = infos.len();
    unallocate(infos);
    // the ends wait as `(last use << 32) | node` keys in `occupied` (unused by the tree loop)
    let keys: &mut [u64] = bytemuck::cast_slice_mut(&mut occupied[..n]);
    if fit == Fit::First && max_live(nodes, order, keys, LIST_MAX_LIVE) > LIST_MAX_LIVE {
        let words: &mut [u64] = bytemuck::cast_slice_mut(sections);
        if let Some(mut live) = LiveSet::new(words, heap, n) {
            // room to sort a buffer's pinned obstacles (as byte ranges, 16 bytes to an entry's
            // 24: at least one each), and the index of them past it
            let (scratch, rest) = placed.split_at_mut(pinned.len().min(placed.len()));
            let index = index_pinned(longer(bytemuck::cast_slice_mut(rest), lookahead), nodes, infos, pinned);
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(scratch);
            let whole = bytes.len() / size_of::<Span>() * size_of::<Span>();
            let ahead = Ahead { pinned, spans: bytemuck::cast_slice_mut(&mut bytes[..whole]), index, above };
            if let Some(done) = sweep_tree(nodes, infos, order, keys, &mut live, ahead, regions, clock)? {
                return Ok(done);
            }
        }
        unallocate(infos);
    }
    // the list loop's index lives in the sections (the treap's words above), or the words
    // lent for it where they are more
    let index = match fit {
        Fit::First => {
            index_pinned(longer(bytemuck::cast_slice_mut(sections), lookahead), nodes, infos, pinned)
        }
        Fit::Best => None,
    };
    let by_hi = |a: u32, b: u32| nodes[a as usize].hi < nodes[b as usize].hi;
    let (mut live, mut hlen, mut next_pinned) = (0usize, 0usize, 0usize);
    for chunk in order.chunks(GATHER) {
        let gathered = gather(chunk.iter().map(|&ni| nodes[ni as usize].payload), infos);
        for (&ni, &(size, _, is_pinned)) in chunk.iter().zip(&gathered) {
            if !clock.tick() {
                return Ok(true);
            }
            let node = nodes[ni as usize];
            expire(nodes, heap, &mut hlen, placed, &mut live, node.lo);
            let v = node.payload as usize;
            if is_pinned {
                // an obstacle from now on; every live buffer avoided it when placed
                next_pinned += 1;
                let at = Placed { lo: node.lo, hi: node.hi, addr: infos[v].address, end: infos[v].end() };
                crate::place::scan::insert_sorted(placed, &mut live, at);
                min_heap::push(heap, &mut hlen, ni, by_hi);
                continue;
            }
            // the pinned buffers defined later in v's lifetime (not live yet)
            let later = &pinned[next_pinned..];
            let k = defined_by(nodes, later, node.hi);
            let indexed = ask_index(index.as_ref(), next_pinned, k);
            let high = match above {
                Some(high) if k > LOOKAHEAD_PER_BUFFER && indexed.is_none() => {
                    list_fit(&placed[..live], occupied, &[], None, infos, nodes, (v, size), high, fit).ok()
                }
                _ => None,
            };
            let address = match high {
                Some(a) => a,
                None => {
                    let asked = indexed.map(|ix| (ix, next_pinned, next_pinned + k));
                    let later = &later[..k];
                    list_fit(&placed[..live], occupied, later, asked, infos, nodes, (v, size), regions, fit)?
                }
            };
            // (written, not read: the store does not wait for the record's cache line)
            let info = &mut infos[v];
            info.address = address;
            info.allocated = 1;
            let end = address.saturating_add(size);
            clock.placed(end);
            crate::place::scan::insert_sorted(
                placed,
                &mut live,
                Placed { lo: node.lo, hi: node.hi, addr: address, end },
            );
            min_heap::push(heap, &mut hlen, ni, by_hi);
        }
    }
    Ok(true)
}

/// Marks every unpinned candidate unallocated (the pinned ones stay where they are).
fn unallocate(infos: &mut [Info]) {
    for info in infos.iter_mut().filter(|i| !i.is_pinned()) {
        info.allocated = 0;
    }
}

/// Writes the nodes of the pinned candidates into `pinned`, in the order they come in
/// `order` (def order); returns their count. `pinned` holds at least that many.
fn pinned_in_def_order(nodes: &[Node], infos: &[Info], order: &[u32], pinned: &mut [u32]) -> usize {
    // (read in candidate order first: with none pinned, no read in def order)
    if !infos.iter().any(Info::is_pinned) {
        return 0;
    }
    let mut p = 0usize;
    for &ni in order {
        if infos[nodes[ni as usize].payload as usize].is_pinned() {
            pinned[p] = ni;
            p += 1;
        }
    }
    p
}

/// Writes the node indices `0..order.len()` into `order` in (def, size descending, index)
/// order: the sweep's placement order (the nodes are sorted by `lo` already). O(n + Σ r log r)
/// for runs of r nodes with one `lo`.
pub(crate) fn def_order(nodes: &[Node], infos: &[Info], order: &mut [u32]) {
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u32;
    }
    // the node indices are in `lo` order already: only each run of equal `lo` is sorted (by
    // size, descending, then index). The sizes are read a block of positions at a time in one
    // short loop, so where the candidates are not numbered in def order (each read a cache
    // miss) the misses overlap; a run longer than a block is sorted by reading its sizes
    // in the comparisons.
    let n = order.len().min(nodes.len());
    let size = |i: usize| infos[nodes[i].payload as usize].aligned;
    let mut a = 0usize;
    while a < n {
        let end = (a + GATHER).min(n);
        let sizes = gather((a..end).map(|p| nodes[p].payload), infos);
        // the runs that end inside the block (the last one may go on past it)
        let mut r = a;
        while r < end {
            let lo = nodes[r].lo;
            let stop = r + nodes[r..end].iter().take_while(|x| x.lo == lo).count();
            if stop == end && end < n {
                break;
            }
            let mut keyed = [(Reverse(0u64), 0u32); GATHER];
            for (kv, p) in keyed.iter_mut().zip(r..stop) {
                *kv = (Reverse(sizes[p - a].0), p as u32);
            }
            keyed[..stop - r].sort_unstable();
            for (o, &(_, i)) in order[r..stop].iter_mut().zip(&keyed) {
                *o = i;
            }
            r = stop;
        }
        if r > a {
            a = r;
            continue;
        }
        // one run fills the block and goes on past it
        let lo = nodes[a].lo;
        let run = nodes[a..n].iter().take_while(|x| x.lo == lo).count();
        order[a..a + run].sort_unstable_by(|&x, &y| size(y as usize).cmp(&size(x as usize)).then(x.cmp(&y)));
        a += run;
    }
}

/// Removes from the address-sorted live list `placed[..*live]` every buffer whose last use
/// is before instruction `now`, popping their nodes from the end heap `heap[..*hlen]`. A
/// popped node's entry is found by its interval, not its address: entries with the same
/// interval all leave in the same call, so removing any of them leaves the same list, and
/// the candidate's record (a cache miss where candidates are not numbered in def order) is
/// not read.
pub(crate) fn expire(
    nodes: &[Node],
    heap: &mut [u32],
    hlen: &mut usize,
    placed: &mut [Placed],
    live: &mut usize,
    now: u32,
) {
    let by_hi = |a: u32, b: u32| nodes[a as usize].hi < nodes[b as usize].hi;
    while *hlen > 0 && nodes[heap[0] as usize].hi < now {
        let gone = nodes[heap[0] as usize];
        min_heap::pop(heap, hlen, by_hi);
        // (always found: every popped node's entry is in the list)
        if let Some(at) = placed[..*live].iter().position(|q| q.lo == gone.lo && q.hi == gone.hi) {
            placed.copy_within(at + 1..*live, at);
            *live -= 1;
        }
    }
}

/// The longer of the storage the sweep leaves unused and the words lent for the index of the
/// pinned buffers (`unused` on ties).
fn longer<'w>(unused: &'w mut [u64], lent: &'w mut [u64]) -> &'w mut [u64] {
    if lent.len() > unused.len() {
        lent
    } else {
        unused
    }
}

/// Up to this many buffers live at once the sorted live list is faster than the treap (its
/// walks and block moves stay in a few cache lines); above it the sweep uses [`LiveSet`].
pub const LIST_MAX_LIVE: usize = 256;

/// The largest number of candidates live at one instruction, visiting `order` (by def) with
/// the ends in a min-heap of [`end_key`]s in `heap` (one entry per candidate), or `cap + 1`
/// as soon as more than `cap` are live (the sweep only asks whether the list would hold more
/// than [`LIST_MAX_LIVE`]: where many are live that is known early, and the heap never grows
/// past `cap + 1`). O(n log min(d, cap)).
pub(crate) fn max_live(nodes: &[Node], order: &[u32], heap: &mut [u64], cap: usize) -> usize {
    let by_key = |a: u64, b: u64| a < b;
    let (mut hlen, mut most) = (0usize, 0usize);
    for &ni in order {
        while hlen > 0 && key_hi(heap[0]) < nodes[ni as usize].lo {
            min_heap::pop(heap, &mut hlen, by_key);
        }
        min_heap::push(heap, &mut hlen, end_key(nodes[ni as usize].hi, ni), by_key);
        most = most.max(hlen);
        if most > cap {
            break;
        }
    }
    most
}

/// Puts node `ni`'s end among the waiting ones of the treap sweep: onto the min-heap
/// `heap[..*hlen]` of [`end_key`]s; past [`SORT_ABOVE`] of them, every node's end key in
/// `heap` (one entry per node) sorted once instead, `sorted` then the index of the first end
/// not yet passed (the ends before node `ni`'s def, all of earlier nodes, were passed).
fn wait_end(nodes: &[Node], heap: &mut [u64], hlen: &mut usize, sorted: &mut Option<usize>, ni: u32) {
    if sorted.is_some() {
        return;
    }
    min_heap::push(heap, hlen, end_key(nodes[ni as usize].hi, ni), |a: u64, b: u64| a < b);
    if *hlen > SORT_ABOVE {
        let heap = &mut heap[..nodes.len()];
        for (i, (k, node)) in heap.iter_mut().zip(nodes).enumerate() {
            *k = end_key(node.hi, i as u32);
        }
        heap.sort_unstable();
        let now = nodes[ni as usize].lo;
        *sorted = Some(heap.partition_point(|&k| key_hi(k) < now));
    }
}

/// The first-fit sweep over the [`LiveSet`] treap: the same plan as the live-list loop of
/// [`sweep`], in O(n log d). `Ok(None)` when the treap grew deeper than its path stack (the
/// caller then runs the list loop); `Ok(Some(true))` at once when `clock` says stop.
#[allow(clippy::too_many_arguments)]
fn sweep_tree(
    nodes: &[Node],
    infos: &mut [Info],
    order: &[u32],
    heap: &mut [u64],
    live: &mut LiveSet<'_>,
    ahead: Ahead<'_>,
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<Option<bool>, PlanError> {
    let by_key = |a: u64, b: u64| a < b;
    let (mut hlen, mut next_pinned) = (0usize, 0usize);
    // once more than `SORT_ABOVE` ends wait, every end is sorted once and `heap[gone..]` are
    // the ends not yet passed (the heap's steps would miss the cache)
    let mut sorted: Option<usize> = None;
    for chunk in order.chunks(GATHER) {
        let gathered = gather(chunk.iter().map(|&ni| nodes[ni as usize].payload), infos);
        for (&ni, &(size, location, pinned)) in chunk.iter().zip(&gathered) {
            if !clock.tick() {
                return Ok(Some(true));
            }
            let node = nodes[ni as usize];
            loop {
                let key = match sorted {
                    None if hlen > 0 && key_hi(heap[0]) < node.lo => {
                        let key = heap[0];
                        min_heap::pop(heap, &mut hlen, by_key);
                        key
                    }
                    Some(ref mut gone) if key_hi(heap[*gone]) < node.lo => {
                        *gone += 1;
                        heap[*gone - 1]
                    }
                    _ => break,
                };
                // (the set's records are by node, in def order: the live ones lie near each other)
                if !live.remove(key as u32) {
                    return Ok(None);
                }
            }
            let v = node.payload as usize;
            if pinned {
                next_pinned += 1;
                if !live.insert(ni, infos[v].address, infos[v].end()) {
                    return Ok(None);
                }
                wait_end(nodes, heap, &mut hlen, &mut sorted, ni);
                continue;
            }
            // the pinned buffers defined later in v's lifetime
            let later = &ahead.pinned[next_pinned..];
            let k = defined_by(nodes, later, node.hi);
            let indexed = ask_index(ahead.index.as_ref(), next_pinned, k);
            let found = match indexed
                .map(|ix| indexed_tree_fit(live, ix, next_pinned, next_pinned + k, size, regions))
            {
                Some(Err(())) => return Ok(None),
                Some(Ok(found)) => found,
                None => None,
            };
            let high = match ahead.above {
                Some(high) if indexed.is_none() && k > LOOKAHEAD_PER_BUFFER => {
                    match tree_fit(live, &[], (size, location), high) {
                        Err(()) => return Ok(None),
                        Ok(found) => found.ok(),
                    }
                }
                _ => None,
            };
            let address = match found.or(high) {
                Some(a) => a,
                None => {
                    let obstacles = &mut ahead.spans[..k];
                    for (o, &q) in obstacles.iter_mut().zip(later) {
                        let q = &infos[nodes[q as usize].payload as usize];
                        *o = Span { lo: q.address, hi: q.end() };
                    }
                    // (by first byte alone: equal ones cut the same gaps in either order)
                    obstacles.sort_unstable_by_key(|o| o.lo);
                    match tree_fit(live, obstacles, (size, location), regions) {
                        Err(()) => return Ok(None),
                        Ok(found) => found?,
                    }
                }
            };
            // (written, not read: the store does not wait for the record's cache line)
            let info = &mut infos[v];
            info.address = address;
            info.allocated = 1;
            let end = address.saturating_add(size);
            clock.placed(end);
            if !live.insert(ni, address, end) {
                return Ok(None);
            }
            wait_end(nodes, heap, &mut hlen, &mut sorted, ni);
        }
    }
    Ok(Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peak count of live candidates, `nodes` given as (def, last use) in def order.
    fn live_peak(iv: &[(u32, u32)]) -> usize {
        let nodes: [Node; 3] = core::array::from_fn(|k| Node::new(iv[k].0, iv[k].1, k as u32));
        let mut heap = [0u64; 3];
        let most = max_live(&nodes, &[0, 1, 2], &mut heap, usize::MAX);
        // counting stops past a cap, at cap + 1
        assert_eq!(max_live(&nodes, &[0, 1, 2], &mut heap, 1), most.min(2));
        most
    }

    /// `max_live` (which picks the treap over the list) counts the candidates live at one
    /// instruction exactly: an end pushed after a later one must still expire first (a
    /// min-heap by last use), and a buffer whose last use is another's def is live with it.
    #[test]
    fn max_live_counts_the_buffers_live_together() {
        // A [0, 10], B [0, 1], C [2, 3]: B has gone at 2, so at most A and one other
        assert_eq!(live_peak(&[(0, 10), (0, 1), (2, 3)]), 2);
        // A [0, 5], B [0, 5], C [5, 6]: all three live at 5 (ends are inclusive)
        assert_eq!(live_peak(&[(0, 5), (0, 5), (5, 6)]), 3);
        // nothing overlaps: one at a time
        assert_eq!(live_peak(&[(0, 1), (2, 3), (4, 5)]), 1);
    }

    /// `def_order` (runs of one `lo` sorted a block at a time) gives the order of one whole
    /// sort by (def, size descending, node index), on runs of 1 to 3 · `GATHER` nodes, many of
    /// equal sizes, with candidates numbered out of def order.
    #[test]
    fn def_order_is_the_whole_sort() {
        const N: usize = 2000;
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        let mut nodes = [Node::default(); N];
        let mut infos = [Info::default(); N];
        let (mut lo, mut left) = (0u32, 0u64);
        for (k, node) in nodes.iter_mut().enumerate() {
            if left == 0 {
                // the next run: mostly short, some longer than a block
                lo += 1 + rng.below(3) as u32;
                left = if rng.below(8) == 0 { 1 + rng.below(3 * GATHER as u64) } else { 1 + rng.below(6) };
            }
            left -= 1;
            // candidate numbers scattered over the nodes (7 is coprime to N)
            *node = Node::new(lo, lo + rng.below(50) as u32, ((k * 7) % N) as u32);
            infos[node.payload as usize].aligned = 64 * (1 + rng.below(4));
        }
        let mut want: [u32; N] = core::array::from_fn(|i| i as u32);
        want.sort_unstable_by_key(|&i| {
            let n = &nodes[i as usize];
            (n.lo, u64::MAX - infos[n.payload as usize].aligned, i)
        });
        let mut got = [0u32; N];
        def_order(&nodes, &infos, &mut got);
        assert_eq!(got, want);
        // a run longer than a block was drawn
        assert!(nodes.chunk_by(|a, b| a.lo == b.lo).any(|r| r.len() > GATHER), "no run past a block");
    }
}
