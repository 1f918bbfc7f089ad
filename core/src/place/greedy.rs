//! Greedy placement orders used by the `greedy-size` and `best-fit` strategies.
//! Uses: liveness, workspace; used by: portfolio.

use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::workspace::Scratch;

/// Writes the non-pinned candidates into `order` sorted by aligned size descending, then
/// lifetime (last instruction − first instruction over all intervals) descending, then index
/// ascending; returns the count. Uses `scratch[..].key` for the lifetime. O(n log n).
pub fn by_size(graph: &Graph<'_>, infos: &[Info], scratch: &mut [Scratch], order: &mut [u32]) -> usize {
    let nodes = graph.tree().nodes();
    let mut k = 0usize;
    for (v, info) in infos.iter().enumerate() {
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        for &ni in graph.intervals_of(info) {
            lo = lo.min(nodes[ni as usize].lo);
            hi = hi.max(nodes[ni as usize].hi);
        }
        scratch[v].key = hi.saturating_sub(lo) as u64;
        if !info.is_pinned() {
            order[k] = v as u32;
            k += 1;
        }
    }
    order[..k].sort_unstable_by(|&a, &b| {
        let (ia, ib) = (&infos[a as usize], &infos[b as usize]);
        ib.aligned
            .cmp(&ia.aligned)
            .then(scratch[b as usize].key.cmp(&scratch[a as usize].key))
            .then(a.cmp(&b))
    });
    k
}
