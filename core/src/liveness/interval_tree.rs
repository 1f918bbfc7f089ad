//! The static, perfectly balanced, max-augmented interval tree kept in one array.
//! Uses: error; used by: buffers, interference, intervals, place, planner, workspace, sim.
//!
//! Follows the seed section "The IntervalTree": a node array of 24-byte records
//! `{hi, lo, max, payload, left, right}`; [`make_tree`] builds a perfectly balanced BST by
//! array index (`mid = (lo + hi) / 2`), never rebalanced; [`make_max`] is the CLRS post-order
//! subtree-max augmentation; overlap queries are an iterative DFS over a fixed-capacity
//! explicit stack that prunes a subtree when `q.lo > subtree max`.
//!
//! **Deviation, stated:** [`IntervalTree::build`] first sorts the nodes by `lo` (then `hi`,
//! then `payload`), so that the index order is also `lo` order and a query can prune the right
//! subtree of any node whose `lo > q.hi`. The answers (the set of overlapping nodes) are
//! identical to the unsorted seed tree (tested against a brute-force scan); only the cost
//! changes, from O(n) worst case to O(log n + k). [`IntervalTree::from_unsorted`] keeps the
//! seed's exact shape for comparison.
//!
//! Complexity: build O(n log n) (sort) + O(n); query O(log n + k) on a sorted tree.
//! Stack: recursion depth of [`make_tree`]/[`make_max`] is `ceil(log2(n + 1)) <= 32`; the query
//! stack holds at most `depth + 1 <= 33` entries ([`QUERY_STACK`]).

use arrayvec::ArrayVec;
use bytemuck::{Pod, Zeroable};

use crate::error::PlanError;

/// Capacity of a query's explicit DFS stack. A perfectly balanced tree over at most
/// `u32::MAX` nodes is at most 32 levels deep; the DFS keeps at most one pending right child
/// per level plus the current node.
pub const QUERY_STACK: usize = 64;

/// "No child" in [`Node::left`] / [`Node::right`].
pub const NIL: i32 = -1;

/// One liveness interval as a tree node: 24 bytes, `#[repr(C)]`, Pod.
///
/// Field order is the binary's (seed, "CORRECTION (#827 audit)"): `hi` (use flat index) at
/// +0, `lo` (def flat index) at +4, `max` (subtree max of `hi`) at +8, `payload` (Info index)
/// at +12, `left`/`right` child array indices at +16/+20 ([`NIL`] = none). The interval is
/// closed: `[lo, hi]`, instruction indices.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Node {
    /// Last instruction (use flat index), inclusive.
    pub hi: u32,
    /// First instruction (def flat index), inclusive.
    pub lo: u32,
    /// Largest `hi` in this node's subtree (set by [`make_max`]).
    pub max: u32,
    /// Payload: the Info (candidate) index this interval belongs to.
    pub payload: u32,
    /// Left child index or [`NIL`].
    pub left: i32,
    /// Right child index or [`NIL`].
    pub right: i32,
}

const _: () = assert!(core::mem::size_of::<Node>() == 24);

impl Node {
    /// A leaf node for the closed interval `[lo, hi]` carrying `payload`, as the seed's build
    /// emits it: `{hi, lo, lo, payload, -1, -1}` (`max` is seeded with `lo`, then fixed by
    /// [`make_max`]).
    pub const fn new(lo: u32, hi: u32, payload: u32) -> Node {
        Node { hi, lo, max: lo, payload, left: NIL, right: NIL }
    }

    /// True when this node's interval and the closed interval `[lo, hi]` share an instruction.
    #[inline]
    pub const fn overlaps(&self, lo: u32, hi: u32) -> bool {
        self.lo <= hi && lo <= self.hi
    }
}

/// Builds a perfectly balanced tree over `nodes[lo..hi]` (half-open) by array index and
/// returns its root index, or [`NIL`] when the range is empty. Seed: `makeTree(lo, hi)`,
/// `mid = (lo + hi) / 2`, children `makeTree(lo, mid)` and `makeTree(mid + 1, hi)`.
///
/// # Panics
/// Never for `lo <= hi <= nodes.len()`; an inverted or out-of-range pair returns [`NIL`]
/// (debug builds assert). Recursion depth is `ceil(log2(hi - lo + 1))`.
pub fn make_tree(nodes: &mut [Node], lo: usize, hi: usize) -> i32 {
    debug_assert!(lo <= hi && hi <= nodes.len());
    if lo >= hi || hi > nodes.len() {
        return NIL;
    }
    let mid = lo + (hi - lo) / 2;
    let left = make_tree(nodes, lo, mid);
    let right = make_tree(nodes, mid + 1, hi);
    nodes[mid].left = left;
    nodes[mid].right = right;
    mid as i32
}

/// Post-order subtree-max augmentation (seed `makeMax`): sets every node's `max` to the
/// largest `hi` in its subtree and returns the root's `max` (0 for [`NIL`]).
pub fn make_max(nodes: &mut [Node], root: i32) -> u32 {
    if root < 0 {
        return 0;
    }
    let i = root as usize;
    let (l, r) = (nodes[i].left, nodes[i].right);
    let mut m = nodes[i].hi;
    if l >= 0 {
        m = m.max(make_max(nodes, l));
    }
    if r >= 0 {
        m = m.max(make_max(nodes, r));
    }
    nodes[i].max = m;
    m
}

/// A built interval tree over a node array.
///
/// # Example
/// ```
/// use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
/// let mut nodes = [Node::new(0, 9, 0), Node::new(3, 5, 1), Node::new(6, 8, 2)];
/// let tree = IntervalTree::build(&mut nodes);
/// let mut hits = [0u32; 3];
/// let mut n = 0;
/// tree.for_each_overlap(5, 5, |node| { hits[n] = node.payload; n += 1; })?;
/// hits[..n].sort();
/// assert_eq!(&hits[..n], &[0, 1]); // [0,9] and [3,5] contain instruction 5; [6,8] does not
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
#[derive(Debug)]
pub struct IntervalTree<'a> {
    nodes: &'a [Node],
    root: i32,
    sorted: bool,
}

impl<'a> IntervalTree<'a> {
    /// Sorts `nodes` by `(lo, hi, payload)`, builds the balanced tree and the max augmentation.
    /// O(n log n). Node indices change (payloads do not).
    pub fn build(nodes: &'a mut [Node]) -> IntervalTree<'a> {
        nodes.sort_unstable_by_key(|n| (n.lo, n.hi, n.payload));
        let root = make_tree(nodes, 0, nodes.len());
        make_max(nodes, root);
        IntervalTree { nodes, root, sorted: true }
    }

    /// The seed's exact shape: builds over `nodes` in their given order (no sort), so a query
    /// can prune only on `q.lo > subtree max`. Same answers as [`IntervalTree::build`].
    pub fn from_unsorted(nodes: &'a mut [Node]) -> IntervalTree<'a> {
        let root = make_tree(nodes, 0, nodes.len());
        make_max(nodes, root);
        IntervalTree { nodes, root, sorted: false }
    }

    /// Re-wraps a node array that [`IntervalTree::build`] already built (sorted by `lo`, links
    /// and `max` set), without rebuilding: the root of a perfectly balanced tree over `n`
    /// nodes is `n / 2`. Debug builds check the invariants; release builds trust the caller:
    /// an array that was not built gives wrong answers, and a child link out of range makes a
    /// query return [`PlanError::NodeIndex`] — never a panic.
    pub fn from_built(nodes: &'a [Node]) -> IntervalTree<'a> {
        let root = if nodes.is_empty() { NIL } else { (nodes.len() / 2) as i32 };
        let t = IntervalTree { nodes, root, sorted: true };
        debug_assert!(t.check_invariants());
        t
    }

    /// The node array, in tree (array) order.
    pub fn nodes(&self) -> &'a [Node] {
        self.nodes
    }

    /// Root index, or [`NIL`] for an empty tree.
    pub fn root(&self) -> i32 {
        self.root
    }

    /// Number of intervals.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree holds no interval.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Calls `visit` for every node whose closed interval overlaps `[lo, hi]` (seed
    /// `getAllOverlapsWithInterval`). No heap: the DFS stack is a fixed [`QUERY_STACK`] array.
    ///
    /// # Errors
    /// [`PlanError::Capacity`] (store `Order`) only if the stack overflows, which a tree built
    /// here cannot do (depth <= 32); [`PlanError::NodeIndex`] for a child link out of range
    /// (only possible through [`IntervalTree::from_built`] on an array that was not built).
    #[inline]
    pub fn for_each_overlap(&self, lo: u32, hi: u32, mut visit: impl FnMut(&Node)) -> Result<(), PlanError> {
        if self.root < 0 {
            return Ok(());
        }
        let nodes = self.nodes;
        let mut stack: ArrayVec<i32, QUERY_STACK> = ArrayVec::new_const();
        stack.push(self.root);
        while let Some(i) = stack.pop() {
            let n = nodes
                .get(i as usize)
                .ok_or(PlanError::NodeIndex { index: i as u32, len: nodes.len() as u32 })?;
            if lo > n.max {
                continue; // nothing in this subtree ends at or after q.lo
            }
            if n.overlaps(lo, hi) {
                visit(n);
            }
            if n.right >= 0 && (!self.sorted || n.lo <= hi) {
                stack.try_push(n.right).map_err(|_| overflow())?;
            }
            if n.left >= 0 {
                stack.try_push(n.left).map_err(|_| overflow())?;
            }
        }
        Ok(())
    }

    /// Calls `visit` for every node overlapping node `index` (including itself), as the
    /// seed's `getAllOverlaps(qIdx)`.
    ///
    /// # Errors
    /// [`PlanError::NodeIndex`] when `index` is out of range (assertion
    /// `interval_tree.cpp:63`).
    pub fn for_each_overlap_of(&self, index: u32, visit: impl FnMut(&Node)) -> Result<(), PlanError> {
        let q = self
            .nodes
            .get(index as usize)
            .ok_or(PlanError::NodeIndex { index, len: self.nodes.len() as u32 })?;
        self.for_each_overlap(q.lo, q.hi, visit)
    }

    /// Checks the structural invariants: every node reachable once from the root, child
    /// indices in range, `max` equal to the subtree maximum of `hi`, and (for a sorted tree)
    /// in-order `lo` non-decreasing. Returns false on the first violation. O(n); a cyclic link
    /// stops the walk at `n + 1` visits (recursion depth at most `n + 1`).
    pub fn check_invariants(&self) -> bool {
        fn walk(nodes: &[Node], i: i32, seen: &mut usize) -> Option<u32> {
            if i < 0 {
                return Some(0);
            }
            let n = nodes.get(i as usize)?;
            *seen += 1;
            if *seen > nodes.len() {
                return None; // a node reached twice: a cycle would recurse forever
            }
            let l = walk(nodes, n.left, seen)?;
            let r = walk(nodes, n.right, seen)?;
            let m = n.hi.max(l).max(r);
            (m == n.max).then_some(m)
        }
        let mut seen = 0;
        if walk(self.nodes, self.root, &mut seen).is_none() || seen != self.nodes.len() {
            return false;
        }
        !self.sorted || self.nodes.windows(2).all(|w| w[0].lo <= w[1].lo)
    }
}

fn overflow() -> PlanError {
    PlanError::Capacity { store: crate::error::Store::Order, needed: QUERY_STACK + 1, capacity: QUERY_STACK }
}

/// Depth (levels) of the perfectly balanced tree over `n` nodes: `ceil(log2(n + 1))`.
pub const fn depth_for(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(nodes: &[Node], i: i32) -> u32 {
        if i < 0 {
            0
        } else {
            let n = nodes[i as usize];
            1 + depth(nodes, n.left).max(depth(nodes, n.right))
        }
    }

    fn size(nodes: &[Node], i: i32) -> usize {
        if i < 0 {
            0
        } else {
            let n = nodes[i as usize];
            1 + size(nodes, n.left) + size(nodes, n.right)
        }
    }

    #[test]
    fn balanced_shape_for_1_to_64() {
        for n in 1..=64usize {
            let mut nodes = [Node::default(); 64];
            let nodes = &mut nodes[..n];
            let root = make_tree(nodes, 0, n);
            assert_eq!(root as usize, n / 2, "root of n={n}");
            assert_eq!(depth(nodes, root), depth_for(n), "depth of n={n}");
            // perfect balance: at every node the subtree sizes differ by at most one
            for i in 0..n {
                let (l, r) = (size(nodes, nodes[i].left), size(nodes, nodes[i].right));
                assert!(l == r || l == r + 1, "n={n} node {i}: {l} vs {r}");
            }
            assert_eq!(size(nodes, root), n);
        }
    }

    #[test]
    fn make_max_is_subtree_max() {
        let mut nodes = [Node::new(0, 3, 0), Node::new(1, 9, 1), Node::new(2, 2, 2), Node::new(5, 6, 3)];
        let t = IntervalTree::from_unsorted(&mut nodes);
        assert!(t.check_invariants());
        assert_eq!(t.nodes()[t.root() as usize].max, 9);
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }
    }

    #[test]
    fn overlaps_equal_brute_force() {
        let mut rng = Lcg(7);
        // Miri: 6 rounds (the full 40 take minutes there).
        let rounds = if cfg!(miri) { 6 } else { 40 };
        for round in 0..rounds {
            let n = 1 + (rng.next() % 300) as usize;
            let mut base = [Node::default(); 300];
            for (k, node) in base[..n].iter_mut().enumerate() {
                let lo = rng.next() % 200;
                let len = if round % 2 == 0 { rng.next() % 8 } else { rng.next() % 120 };
                *node = Node::new(lo, lo + len, k as u32);
            }
            let mut sorted = base;
            let mut unsorted = base;
            let ts = IntervalTree::build(&mut sorted[..n]);
            let tu = IntervalTree::from_unsorted(&mut unsorted[..n]);
            assert!(ts.check_invariants() && tu.check_invariants());
            for _ in 0..50 {
                let lo = rng.next() % 220;
                let hi = lo + rng.next() % 30;
                let mut want = [false; 300];
                for node in &base[..n] {
                    if node.overlaps(lo, hi) {
                        want[node.payload as usize] = true;
                    }
                }
                for t in [&ts, &tu] {
                    let mut got = [false; 300];
                    let mut hits = 0;
                    t.for_each_overlap(lo, hi, |node| {
                        assert!(!got[node.payload as usize], "reported twice");
                        got[node.payload as usize] = true;
                        hits += 1;
                    })
                    .unwrap();
                    assert_eq!(got, want, "query [{lo},{hi}]");
                }
            }
        }
    }

    #[test]
    fn touching_intervals_overlap() {
        let mut nodes = [Node::new(3, 5, 0), Node::new(5, 8, 1), Node::new(6, 8, 2)];
        let t = IntervalTree::build(&mut nodes);
        let mut count = 0;
        t.for_each_overlap(3, 5, |_| count += 1).unwrap();
        assert_eq!(count, 2); // [3,5] and [5,8] share instruction 5
    }

    #[test]
    fn node_index_out_of_range_is_an_error() {
        let mut nodes = [Node::new(0, 1, 0)];
        let t = IntervalTree::build(&mut nodes);
        assert_eq!(t.for_each_overlap_of(1, |_| {}), Err(PlanError::NodeIndex { index: 1, len: 1 }));
    }

    #[test]
    fn empty_tree_answers_nothing() {
        let mut nodes: [Node; 0] = [];
        let t = IntervalTree::build(&mut nodes);
        assert_eq!(t.root(), NIL);
        t.for_each_overlap(0, u32::MAX, |_| panic!("no nodes")).unwrap();
    }
}

#[cfg(test)]
#[path = "interval_tree_invariants.rs"]
mod invariant_tests;
