//! The interference oracle: which candidates' liveness intervals overlap, by tree queries.
//! Uses: error, info, interval_tree, workspace; used by: place, planner.
//!
//! The interference oracle: two candidates interfere iff any of their closed liveness
//! intervals overlap (seed "The Interval-Tree Liveness Model"), answered by tree queries, one
//! per interval, de-duplicated with per-candidate visit stamps. No adjacency is stored.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interval_tree::{IntervalTree, Node};
use crate::workspace::Scratch;

/// The built tree plus each Info's interval list (CSR over node indices).
#[derive(Debug)]
pub struct Graph<'w> {
    tree: IntervalTree<'w>,
    ids: &'w [u32],
    epoch: u32,
}

/// Groups node indices by payload into `ids` (counting sort) and sets every Info's
/// `first_interval` / `interval_count`. `ids.len()` must equal `nodes.len()`.
pub fn build_csr(nodes: &[Node], ids: &mut [u32], infos: &mut [Info]) {
    let mut next = 0u32;
    for info in infos.iter_mut() {
        info.first_interval = next;
        next += info.interval_count;
        info.interval_count = 0;
    }
    for (i, n) in nodes.iter().enumerate() {
        let info = &mut infos[n.payload as usize];
        ids[(info.first_interval + info.interval_count) as usize] = i as u32;
        info.interval_count += 1;
    }
}

impl<'w> Graph<'w> {
    /// Wraps a built tree and its CSR (see [`build_csr`]).
    pub fn new(tree: IntervalTree<'w>, ids: &'w [u32]) -> Graph<'w> {
        Graph { tree, ids, epoch: 0 }
    }

    /// The tree.
    pub fn tree(&self) -> &IntervalTree<'w> {
        &self.tree
    }

    /// The node indices of Info `v`'s intervals.
    pub fn intervals_of(&self, info: &Info) -> &'w [u32] {
        let a = info.first_interval as usize;
        &self.ids[a..a + info.interval_count as usize]
    }

    /// A fresh stamp value; resets all stamps when the counter wraps.
    pub fn next_epoch(&mut self, scratch: &mut [Scratch]) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            scratch.iter_mut().for_each(|s| s.stamp = 0);
            self.epoch = 1;
        }
        self.epoch
    }

    /// Calls `visit(u, scratch)` once for every distinct candidate `u != v` interfering with
    /// `v`. Uses `scratch[..].stamp`; `visit` may change the other scratch fields. O(sum over v's intervals of (log n + hits)).
    ///
    /// # Errors
    /// Only a tree-query stack overflow, impossible for a tree built here.
    #[inline]
    pub fn for_each_neighbour(
        &mut self,
        v: u32,
        infos: &[Info],
        scratch: &mut [Scratch],
        mut visit: impl FnMut(u32, &mut [Scratch]),
    ) -> Result<(), PlanError> {
        let epoch = self.next_epoch(scratch);
        scratch[v as usize].stamp = epoch;
        let nodes = self.tree.nodes();
        for &ni in self.intervals_of(&infos[v as usize]) {
            let q = nodes[ni as usize];
            self.tree.for_each_overlap(q.lo, q.hi, |n| {
                let u = n.payload as usize;
                if scratch[u].stamp != epoch {
                    scratch[u].stamp = epoch;
                    visit(u as u32, scratch);
                }
            })?;
        }
        Ok(())
    }

    /// Writes the distinct neighbours of `v` into `out` and returns how many.
    ///
    /// # Errors
    /// [`PlanError::Capacity`] if `out` is shorter than the neighbour count (cannot happen
    /// when `out.len() >= infos.len()`).
    pub fn collect_neighbours(
        &mut self,
        v: u32,
        infos: &[Info],
        scratch: &mut [Scratch],
        out: &mut [u32],
    ) -> Result<usize, PlanError> {
        let mut k = 0usize;
        let mut overflow = false;
        self.for_each_neighbour(v, infos, scratch, |u, _| {
            if let Some(slot) = out.get_mut(k) {
                *slot = u;
                k += 1;
            } else {
                overflow = true;
            }
        })?;
        if overflow {
            return Err(PlanError::Capacity {
                store: crate::error::Store::Order,
                needed: k + 1,
                capacity: out.len(),
            });
        }
        Ok(k)
    }
}
