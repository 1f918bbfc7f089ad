//! The max-load lower bound: the largest sum of aligned sizes live at one instruction.
//! Uses: error, liveness, min_heap (end keys), workspace; used by: planner.
//!
//! Every valid plan's peak is at least this (and, above a floor, at least floor + the live
//! non-pinned sum). The load can only peak where an interval starts. When every candidate has
//! one interval, a sweep over the `lo`-sorted tree nodes against their ends sorted by last use
//! (keys `(last use << 32) | node`, radix-sorted in the caller's `keys` slice: four byte
//! passes, a 256-entry count table on the stack) computes it in O(n); otherwise one point
//! query per distinct interval start (de-duplicating a candidate's several intervals). No
//! heap allocation.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::min_heap::{end_key, key_hi};
use crate::workspace::Scratch;

/// Peak load over instructions, bytes: `(all candidates, non-pinned candidates only)`.
/// `keys` (at least two entries per interval for the O(n) sweep; shorter falls back to
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
    if keys.len() >= 2 * tree_nodes.len() && infos.iter().all(|i| i.interval_count == 1) {
        return Ok(sweep_load(tree_nodes, infos, keys));
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

/// The sweep of [`max_load`] over one-interval candidates: `nodes` sorted by `lo`, `keys` at
/// least `2 * nodes.len()` long.
fn sweep_load(
    nodes: &[crate::liveness::interval_tree::Node],
    infos: &[Info],
    keys: &mut [u64],
) -> (u64, u64) {
    let n = nodes.len();
    let (ends, spare) = keys[..2 * n].split_at_mut(n);
    for (i, (k, node)) in ends.iter_mut().zip(nodes).enumerate() {
        *k = end_key(node.hi, i as u32);
    }
    sort_by_last_use(ends, spare);
    let (mut all, mut free, mut best_all, mut best_free, mut gone) = (0u64, 0u64, 0u64, 0u64, 0usize);
    for node in nodes {
        // every interval ending before this start began before it (`lo <= hi`), so it was added
        while gone < n && key_hi(ends[gone]) < node.lo {
            let info = &infos[nodes[ends[gone] as u32 as usize].payload as usize];
            all -= info.aligned;
            if !info.is_pinned() {
                free -= info.aligned;
            }
            gone += 1;
        }
        let info = &infos[node.payload as usize];
        all = all.saturating_add(info.aligned);
        if !info.is_pinned() {
            free = free.saturating_add(info.aligned);
        }
        best_all = best_all.max(all);
        best_free = best_free.max(free);
    }
    (best_all, best_free)
}

/// Sorts `keys` by their high 32 bits (the last use of an [`end_key`]), stably: an LSD radix
/// sort, one byte a pass, through `spare` (as long as `keys`); the result is back in `keys`
/// after the four passes.
fn sort_by_last_use(keys: &mut [u64], spare: &mut [u64]) {
    let (mut from, mut to) = (keys, spare);
    for shift in [32u32, 40, 48, 56] {
        let mut count = [0usize; 256];
        for &k in from.iter() {
            count[(k >> shift) as usize & 0xFF] += 1;
        }
        let mut at = 0usize;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &k in from.iter() {
            let d = (k >> shift) as usize & 0xFF;
            to[count[d]] = k;
            count[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The radix sort orders by last use, ties by node (stable from the node order), on keys
    /// that differ in every byte of the last use.
    #[test]
    fn ends_sort_by_last_use_then_node() {
        let last = [0xFF00_0001u32, 7, 0x0001_0000, 7, 0, 0x00FF_FF00, 0x0100_0000, u32::MAX];
        let mut keys: [u64; 8] = core::array::from_fn(|i| end_key(last[i], i as u32));
        let mut spare = [0u64; 8];
        sort_by_last_use(&mut keys, &mut spare);
        let got = keys.map(|k| (key_hi(k), k as u32));
        assert_eq!(
            got,
            [
                (0, 4),
                (7, 1),
                (7, 3),
                (0x0001_0000, 2),
                (0x00FF_FF00, 5),
                (0x0100_0000, 6),
                (0xFF00_0001, 0),
                (u32::MAX, 7)
            ]
        );
    }
}
