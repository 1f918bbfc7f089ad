//! The max-load lower bound: the largest sum of aligned sizes live at one instruction.
//! Every valid plan's peak is at least this (and, above a floor, at least floor + the live
//! non-pinned sum). Computed from the sorted interval tree: the load can only peak where an
//! interval starts, so one point query per distinct interval start suffices; no heap.

use crate::error::PlanError;
use crate::info::Info;
use crate::interference::Graph;
use crate::workspace::Scratch;

/// Peak load over instructions, bytes: `(all candidates, non-pinned candidates only)`.
///
/// # Errors
/// Only a tree-query stack overflow, impossible for a tree built here.
pub fn max_load(
    graph: &mut Graph<'_>,
    infos: &[Info],
    scratch: &mut [Scratch],
) -> Result<(u64, u64), PlanError> {
    let tree_nodes = graph.tree().nodes();
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
                all += infos[u].aligned;
                if !infos[u].is_pinned() {
                    free += infos[u].aligned;
                }
            }
        })?;
        best_all = best_all.max(all);
        best_free = best_free.max(free);
    }
    Ok((best_all, best_free))
}
