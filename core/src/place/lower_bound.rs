//! The max-load lower bound: the largest sum of aligned sizes live at one instruction.
//! Uses: error, gather, liveness, min_heap, workspace; used by: planner.
//!
//! Every valid plan's peak is at least this (and, above a floor, at least floor + the live
//! non-pinned sum). The load can only peak where an interval starts. When every candidate has
//! one interval, a sweep over the `lo`-sorted tree nodes with a min-heap of ends (keys
//! `(last use << 32) | node` in the caller's `keys` slice) computes it in O(n log n);
//! otherwise one point query per distinct interval start (de-duplicating a candidate's
//! several intervals). No heap allocation.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::gather::{gather, GATHER};
use crate::place::min_heap::{self, end_key, key_hi, SORT_ABOVE};
use crate::workspace::Scratch;

/// Peak load over instructions, bytes: `(all candidates, non-pinned candidates only)`.
/// `keys` (at least one entry per interval for the O(n log n) sweep; shorter falls back to
/// point queries) is scratch.
///
/// # Errors
/// Only a tree-query stack overflow, impossible for a tree built here.
pub fn max_load(
    graph: &mut Graph<'_>,
    infos: &[Info],
    scratch: &mut [Scratch],
    keys: &mut [u64],
) -> Result<(u64, u64), PlanError> {
    let tree_nodes = graph.tree().nodes();
    if keys.len() >= tree_nodes.len() && infos.iter().all(|i| i.interval_count == 1) {
        let (all, free, pairs) = sweep_load(tree_nodes, infos, keys);
        graph.set_swept_pairs(pairs);
        return Ok((all, free));
    }
    let (mut best_all, mut best_free) = (0u64, 0u64);
    let mut prev: Option<u32> = None;
    for node in tree_nodes {
        let t = node.lo;
        if prev == Some(t) {
            continue;
        }
        prev = Some(t);
        let epoch = graph.next_epoch(scratch);
        let (mut all, mut free) = (0u64, 0u64);
        graph.tree().for_each_overlap(t, t, |n| {
            let u = n.payload as usize;
            if scratch[u].stamp != epoch {
                scratch[u].stamp = epoch;
                all = all.saturating_add(infos[u].aligned);
                if !infos[u].is_pinned() {
                    free = free.saturating_add(infos[u].aligned);
                }
            }
        })?;
        best_all = best_all.max(all);
        best_free = best_free.max(free);
    }
    Ok((best_all, best_free))
}

/// The sweep of [`max_load`] over the `lo`-sorted `nodes`, with a min-heap of the live ends
/// in `heap`: `(all, non-pinned, interfering pairs)`. At each node the heap holds the earlier
/// nodes that end at or after its start, exactly those it overlaps, so their count summed
/// over the nodes is the number of overlapping pairs (each counted once, at the later node).
/// Once more than [`SORT_ABOVE`] ends wait, the heap's steps miss the cache: the sweep starts
/// again with every end sorted once ([`sorted_load`], the same values).
fn sweep_load(
    nodes: &[crate::liveness::interval_tree::Node],
    infos: &[Info],
    heap: &mut [u64],
) -> (u64, u64, u64) {
    let by_key = |a: u64, b: u64| a < b;
    let (mut load, mut len, mut pairs) = (Load::default(), 0usize, 0u64);
    for (c, chunk) in nodes.chunks(GATHER).enumerate() {
        let sizes = gather(chunk.iter().map(|n| n.payload), infos);
        for (k, (node, &(size, _, pinned))) in chunk.iter().zip(&sizes).enumerate() {
            while len > 0 && key_hi(heap[0]) < node.lo {
                let info = &infos[nodes[heap[0] as u32 as usize].payload as usize];
                load.remove(info.aligned, info.is_pinned());
                min_heap::pop(heap, &mut len, by_key);
            }
            if len > SORT_ABOVE {
                return sorted_load(nodes, infos, heap);
            }
            load.add(size, pinned);
            pairs += len as u64;
            min_heap::push(heap, &mut len, end_key(node.hi, (c * GATHER + k) as u32), by_key);
        }
    }
    (load.best_all, load.best_free, pairs)
}

/// [`sweep_load`]'s values with every node's end key sorted once in `ends` (one entry per
/// node) instead of a heap: at node `i` the ends below its start are exactly the expired
/// earlier nodes (a later node ends at or after its own start), so `i` less their count are
/// live. O(n log n) with sequential reads.
fn sorted_load(
    nodes: &[crate::liveness::interval_tree::Node],
    infos: &[Info],
    ends: &mut [u64],
) -> (u64, u64, u64) {
    let ends = &mut ends[..nodes.len()];
    for (i, (e, node)) in ends.iter_mut().zip(nodes).enumerate() {
        *e = end_key(node.hi, i as u32);
    }
    ends.sort_unstable();
    let (mut load, mut gone, mut pairs) = (Load::default(), 0usize, 0u64);
    // the sizes of the ends `ends[from..from + GATHER]`, read ahead
    let (mut leaving, mut from) = ([(0u64, 0u32, false); GATHER], usize::MAX);
    for (c, chunk) in nodes.chunks(GATHER).enumerate() {
        let sizes = gather(chunk.iter().map(|n| n.payload), infos);
        for (k, (node, &(size, _, pinned))) in chunk.iter().zip(&sizes).enumerate() {
            while key_hi(ends[gone]) < node.lo {
                if !(from..from.saturating_add(GATHER)).contains(&gone) {
                    let next = ends[gone..].iter().take(GATHER);
                    leaving = gather(next.map(|&e| nodes[e as u32 as usize].payload), infos);
                    from = gone;
                }
                let (size, _, pinned) = leaving[gone - from];
                load.remove(size, pinned);
                gone += 1;
            }
            load.add(size, pinned);
            pairs += (c * GATHER + k - gone) as u64;
        }
    }
    (load.best_all, load.best_free, pairs)
}

/// The bytes live during a sweep, of all candidates and of the unpinned ones, and the most
/// of each so far.
#[derive(Default)]
struct Load {
    all: u64,
    free: u64,
    best_all: u64,
    best_free: u64,
}

impl Load {
    /// A candidate of `aligned` bytes, `pinned` or not, becomes live: its size joins the sums
    /// (saturating).
    fn add(&mut self, aligned: u64, pinned: bool) {
        self.all = self.all.saturating_add(aligned);
        if !pinned {
            self.free = self.free.saturating_add(aligned);
        }
        self.best_all = self.best_all.max(self.all);
        self.best_free = self.best_free.max(self.free);
    }

    /// A live candidate of `aligned` bytes, `pinned` or not, expires.
    fn remove(&mut self, aligned: u64, pinned: bool) {
        self.all -= aligned;
        if !pinned {
            self.free -= aligned;
        }
    }
}
