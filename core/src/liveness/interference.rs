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
    /// The CSR of [`build_adjacency`] (offsets, then neighbours); empty: tree queries.
    adj: &'w [u32],
    /// Interfering pairs counted by the lower bound's sweep, when it ran.
    swept_pairs: Option<u64>,
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
        Graph { tree, ids, epoch: 0, adj: &[], swept_pairs: None }
    }

    /// Builds the tree over `nodes` (sorting them by `lo`), groups their indices by
    /// candidate into `ids` ([`build_csr`], which sets every Info's interval list) and wraps
    /// both: the four steps every direct user of the placers takes.
    ///
    /// ```
    /// use dramalloc_core::liveness::info::Info;
    /// use dramalloc_core::liveness::interference::Graph;
    /// use dramalloc_core::liveness::interval_tree::Node;
    /// let mut nodes = [Node::new(0, 4, 0), Node::new(2, 6, 1), Node::new(8, 9, 0)];
    /// let mut infos = [Info { interval_count: 2, ..Info::default() }, Info { interval_count: 1, ..Info::default() }];
    /// let mut ids = [0u32; 3];
    /// let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    /// assert_eq!(graph.intervals_of(&infos[0]).len(), 2);
    /// assert_eq!(graph.tree().nodes()[2].lo, 8);
    /// ```
    ///
    /// # Panics
    /// When `ids` is shorter than `nodes`, or a node's payload is not an index of `infos`
    /// (as [`build_csr`]).
    pub fn build(nodes: &'w mut [Node], ids: &'w mut [u32], infos: &mut [Info]) -> Graph<'w> {
        let tree = IntervalTree::build(nodes);
        let ids = &mut ids[..tree.nodes().len()];
        build_csr(tree.nodes(), ids, infos);
        Graph::new(tree, ids)
    }

    /// The same graph answering neighbour queries from `adj`, a CSR filled by
    /// [`build_adjacency`] for this graph's candidates.
    pub fn with_adjacency(self, adj: &'w [u32]) -> Graph<'w> {
        Graph { adj, ..self }
    }

    /// Interfering pairs (each counted once) when the graph reads a CSR, else `None`. The
    /// CSR's first offset is `n + 1` (its lists start after the n + 1 offsets), so this holds
    /// for candidates with several intervals too (it used to take the interval count for n,
    /// and read past the offsets there).
    pub fn pairs(&self) -> Option<u64> {
        let n = (*self.adj.first()? as usize).checked_sub(1)?;
        let end = *self.adj.get(n)? as u64;
        Some(end.checked_sub(n as u64 + 1)? / 2)
    }

    /// Interfering pairs of the tree's nodes (each pair once: two closed intervals that share
    /// an instruction) as counted by the lower bound's sweep
    /// ([`crate::place::lower_bound::max_load`], which counts them for free: each node meets
    /// the earlier ones still live at its def), so the portfolio's cost model need not count
    /// them again; `None` before that sweep ran, or where it could not (a candidate with
    /// several intervals, too little scratch). With one interval per candidate, the
    /// candidates' interfering pairs.
    ///
    /// ```
    /// use dramalloc_core::liveness::{info::Info, interference::Graph, interval_tree::Node};
    /// use dramalloc_core::place::lower_bound::max_load;
    /// use dramalloc_core::workspace::Scratch;
    /// // [0, 2] and [1, 3] overlap; [5, 6] overlaps neither
    /// let mut nodes = [Node::new(0, 2, 0), Node::new(1, 3, 1), Node::new(5, 6, 2)];
    /// let mut infos = [Info { aligned: 8, ..Info::default() }; 3];
    /// let mut ids = [0u32; 3];
    /// let mut graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    /// assert_eq!(graph.swept_pairs(), None);
    /// let (all, _) = max_load(&mut graph, &infos, &mut [Scratch::default(); 3], &mut [0u64; 3]).unwrap();
    /// assert_eq!((all, graph.swept_pairs()), (16, Some(1)));
    /// ```
    pub fn swept_pairs(&self) -> Option<u64> {
        self.swept_pairs
    }

    /// Records the pair count of the lower bound's sweep.
    pub(crate) fn set_swept_pairs(&mut self, pairs: u64) {
        self.swept_pairs = Some(pairs);
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
        if !self.adj.is_empty() {
            let (a, b) = (self.adj[v as usize] as usize, self.adj[v as usize + 1] as usize);
            for &u in &self.adj[a..b] {
                visit(u, scratch);
            }
            return Ok(());
        }
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
    /// [`PlanError::Capacity`] naming `v`'s neighbour count and `out.len()` if `out` is
    /// shorter (cannot happen when `out.len() >= infos.len()`).
    pub fn collect_neighbours(
        &mut self,
        v: u32,
        infos: &[Info],
        scratch: &mut [Scratch],
        out: &mut [u32],
    ) -> Result<usize, PlanError> {
        let mut k = 0usize;
        self.for_each_neighbour(v, infos, scratch, |u, _| {
            if let Some(slot) = out.get_mut(k) {
                *slot = u;
            }
            k += 1;
        })?;
        if k > out.len() {
            return Err(PlanError::Capacity {
                store: crate::error::Store::Order,
                needed: k,
                capacity: out.len(),
            });
        }
        Ok(k)
    }
}

/// Fills `out` with the interference graph of `infos` as a CSR: `out[..=n]` the offsets
/// (into `out` itself) and then each candidate's distinct neighbours. Returns the entries
/// used (`n + 1 + 2E`), or `None` (contents unspecified) when `out` is too short or an offset
/// would pass `u32::MAX`: the caller then keeps the tree queries.
///
/// When every candidate has one interval, one sweep over the `lo`-sorted tree nodes with the
/// live list in `active` (and write cursors in `cursor`, both at least n long) finds each
/// pair once: O(n + E), in address order of the node array. Otherwise one tree query per
/// interval: O(n log n + E). Neighbour order differs between the two; every user of the
/// graph (first fit sorts the occupied ranges, simplify sums) is independent of it.
///
/// # Errors
/// Only a tree-query stack overflow, impossible for a tree built here.
pub fn build_adjacency(
    graph: &mut Graph<'_>,
    infos: &[Info],
    scratch: &mut [Scratch],
    out: &mut [u32],
    active: &mut [u32],
    cursor: &mut [u32],
) -> Result<Option<usize>, PlanError> {
    let n = infos.len();
    if out.len() < n + 1 || out.len() > u32::MAX as usize {
        return Ok(None);
    }
    if infos.iter().all(|i| i.interval_count == 1) && active.len() >= n && cursor.len() >= n {
        return Ok(sweep_adjacency(graph.tree().nodes(), out, active, cursor, n));
    }
    let mut len = n + 1;
    let mut full = false;
    for v in 0..n {
        out[v] = len as u32;
        if full {
            continue;
        }
        graph.for_each_neighbour(v as u32, infos, scratch, |u, _| {
            if len < out.len() {
                out[len] = u;
                len += 1;
            } else {
                full = true;
            }
        })?;
    }
    if full {
        return Ok(None);
    }
    out[n] = len as u32;
    Ok(Some(len))
}

/// The one-interval case of [`build_adjacency`]: `nodes` sorted by `lo`, one per candidate.
fn sweep_adjacency(
    nodes: &[Node],
    out: &mut [u32],
    active: &mut [u32],
    cursor: &mut [u32],
    n: usize,
) -> Option<usize> {
    // pass 1: degrees; pass 2: the lists. `active` holds the node indices still live.
    let mut visit_pairs = |out: &mut [u32], cursor: &mut [u32], fill: bool| {
        let mut live = 0usize;
        for (i, x) in nodes.iter().enumerate() {
            let mut keep = 0usize;
            for k in 0..live {
                let j = active[k];
                let y = &nodes[j as usize];
                if y.hi >= x.lo {
                    active[keep] = j;
                    keep += 1;
                    let (a, b) = (x.payload as usize, y.payload as usize);
                    if fill {
                        out[cursor[a] as usize] = b as u32;
                        cursor[a] += 1;
                        out[cursor[b] as usize] = a as u32;
                        cursor[b] += 1;
                    } else {
                        out[a] += 1;
                        out[b] += 1;
                    }
                }
            }
            active[keep] = i as u32;
            live = keep + 1;
        }
    };
    out[..=n].fill(0);
    visit_pairs(out, cursor, false);
    let mut at = n as u64 + 1;
    for o in out[..=n].iter_mut() {
        let d = *o as u64;
        *o = at.min(u32::MAX as u64) as u32;
        at += d;
    }
    if at > out.len() as u64 || at > u32::MAX as u64 {
        return None;
    }
    cursor[..n].copy_from_slice(&out[..n]);
    visit_pairs(out, cursor, true);
    Some(at as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stamps count up from 1; when the counter wraps every stamp is cleared and the count
    /// starts again at 1 (so a stale stamp can never equal a fresh one).
    #[test]
    fn epochs_count_up_and_clear_the_stamps_when_they_wrap() {
        let mut nodes = [Node { lo: 0, hi: 1, payload: 0, ..Node::default() }];
        let tree = IntervalTree::build(&mut nodes);
        let ids = [0u32];
        let mut graph = Graph::new(tree, &ids);
        let mut scratch = [Scratch { stamp: 9, ..Scratch::default() }; 3];
        assert_eq!((graph.next_epoch(&mut scratch), graph.next_epoch(&mut scratch)), (1, 2));
        assert!(scratch.iter().all(|s| s.stamp == 9), "no reset before the wrap");
        graph.epoch = u32::MAX - 1;
        assert_eq!(graph.next_epoch(&mut scratch), u32::MAX);
        assert!(scratch.iter().all(|s| s.stamp == 9));
        assert_eq!(graph.next_epoch(&mut scratch), 1);
        assert!(scratch.iter().all(|s| s.stamp == 0), "every stamp cleared at the wrap");
    }
}
