//! The static, perfectly balanced, max-augmented interval tree kept in one array.
//! Uses: error, block_index, sorted_search, window_scan; used by: buffers, interference, intervals, place, planner, workspace, sim.
//!
//! Follows the seed section "The IntervalTree": a node array of 24-byte records
//! `{hi, lo, max, payload, left, right}`; [`make_tree`] builds a perfectly balanced BST by
//! array index (`mid = (lo + hi) / 2`), never rebalanced; [`make_max`] is the CLRS post-order
//! subtree-max augmentation; overlap queries are an iterative walk over a fixed-capacity
//! explicit stack that prunes a subtree when `q.lo > subtree max`.
//!
//! **Deviation, stated:** [`IntervalTree::build`] first sorts the nodes by `lo` (then `hi`,
//! then `payload`), so that the index order is also `lo` order and a query can prune the right
//! subtree of any node whose `lo > q.hi`. The answers (the set of overlapping nodes) are
//! identical to the unsorted seed tree (tested against a brute-force scan); only the cost
//! changes, from O(n) worst case to O(log n + k). [`IntervalTree::from_unsorted`] keeps the
//! seed's exact shape for comparison.
//!
//! **Block index (optional).** A sorted tree can be lent `index_words(n)` more words of storage
//! ([`IntervalTree::with_index`], [`block_index`](super::block_index)): per block of 8 nodes
//! the first start and the largest end, with a static 16-way search tree over the starts.
//! Queries then find their first node in the index (about 1 byte a node, mostly in cache)
//! instead of the node array, and skip the blocks of a long window that hold no overlap. Same
//! answers in the same order. The planner lends it when its workspace has room
//! ([`Workspace::tree_index`](crate::Workspace::tree_index)).
//!
//! Complexity: build O(n log n) (sort) + O(n); query O(log n + w) on a sorted tree (`w`: the
//! nodes in the window before `q.lo`, at most [`LINEAR_NODES`], then the pruned walk).
//! Stack: recursion depth of [`make_tree`]/[`make_max`] is `ceil(log2(n + 1)) <= 32`; the query
//! stack holds at most `depth + 1 <= 33` entries ([`QUERY_STACK`]).

use arrayvec::ArrayVec;
use bytemuck::{Pod, Zeroable};

use super::block_index::BlockIndex;
use super::sorted_search::{lo_at, StartSamples};
use super::window_scan::scan_before;
use crate::error::PlanError;

/// Capacity of a query's explicit stack. A perfectly balanced tree over a slice is at most
/// 64 levels deep (32 for `u32` indices); the walk keeps at most one pending node per level.
pub const QUERY_STACK: usize = 64;

/// A query scans a subtree of at most this many nodes as one slice instead of descending
/// into it (after one look at its root's `max`): 64 nodes are 1,536 bytes, 24 cache lines
/// read in order, which the hardware prefetcher streams; below that, a descent's
/// unpredictable branches cost more than the nodes it skips.
pub const SCAN_NODES: usize = 64;

/// A sorted query first scans in order, from its binary-searched start, at most this many
/// nodes that start before the query (a node costs about a nanosecond there, with no branch
/// to mispredict), then hands over to the tree walk, whose `max` pruning bounds the cost when
/// a few long intervals stretch the window.
pub const LINEAR_NODES: usize = 1024;

/// Overlap positions a query collects before visiting them: the window scan holds two such
/// buffers of `u32` positions (512 bytes of stack).
pub const PICK_BUFFER: usize = 64;

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
    /// [`make_max`]). Trees expect `lo <= hi` (the planner refuses others as
    /// [`PlanError::BadInterval`]); a sorted tree may report a node with `hi < lo` for a
    /// query that holds its `lo`.
    pub const fn new(lo: u32, hi: u32, payload: u32) -> Node {
        Node { hi, lo, max: lo, payload, left: NIL, right: NIL }
    }

    /// True when this node's interval and the closed interval `[lo, hi]` share an instruction,
    /// for `lo <= hi` (for `lo > hi` it tests `self.lo <= hi && lo <= self.hi` all the same;
    /// [`IntervalTree::for_each_overlap`] answers such an inverted query with nothing).
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
    /// Longest interval, `max(hi - lo)` (instructions): a node that starts before
    /// `q.lo - max_len` cannot reach `q.lo`.
    max_len: u32,
    /// Sampled starts that find a query's first node (sorted trees; see [`StartSamples`]).
    samples: StartSamples,
    /// Per-block summaries lent by [`IntervalTree::with_index`] (sorted trees only).
    index: Option<BlockIndex<'a>>,
}

impl<'a> IntervalTree<'a> {
    /// Sorts `nodes` by `(lo, hi, payload)`, builds the balanced tree and the max augmentation.
    /// O(n log n). Node indices change (payloads do not).
    pub fn build(nodes: &'a mut [Node]) -> IntervalTree<'a> {
        nodes.sort_unstable_by_key(|n| (n.lo, n.hi, n.payload));
        let root = make_tree(nodes, 0, nodes.len());
        make_max(nodes, root);
        IntervalTree::sorted_over(nodes, root)
    }

    /// The sorted tree over `nodes` (sorted by `lo`, links and `max` set) with root `root`:
    /// its longest interval and sampled starts, no block index yet.
    fn sorted_over(nodes: &'a [Node], root: i32) -> IntervalTree<'a> {
        IntervalTree {
            nodes,
            root,
            sorted: true,
            max_len: max_len(nodes),
            samples: StartSamples::new(nodes),
            index: None,
        }
    }

    /// The seed's exact shape: builds over `nodes` in their given order (no sort), so a query
    /// can prune only on `q.lo > subtree max`. Same answers as [`IntervalTree::build`].
    pub fn from_unsorted(nodes: &'a mut [Node]) -> IntervalTree<'a> {
        let root = make_tree(nodes, 0, nodes.len());
        make_max(nodes, root);
        IntervalTree {
            nodes,
            root,
            sorted: false,
            max_len: max_len(nodes),
            samples: StartSamples::new(&[]),
            index: None,
        }
    }

    /// Re-wraps a node array that [`IntervalTree::build`] already built (sorted by `lo`, links
    /// and `max` set), without rebuilding: the root of a perfectly balanced tree over `n`
    /// nodes is `n / 2`; one O(n) pass finds the longest interval. Debug builds check the
    /// invariants; release builds trust the caller: an array that was not built gives wrong
    /// answers — never a panic.
    pub fn from_built(nodes: &'a [Node]) -> IntervalTree<'a> {
        let root = if nodes.is_empty() { NIL } else { (nodes.len() / 2) as i32 };
        let t = IntervalTree::sorted_over(nodes, root);
        debug_assert!(t.check_invariants());
        t
    }

    /// Lends `storage` to a sorted tree for its block index
    /// ([`block_index`](super::block_index): per block of 8 nodes, the first start and the
    /// largest end, and a 16-way search tree over the starts;
    /// [`index_words`](super::block_index::index_words)`(n)` words, about a byte a node).
    /// Queries then find their first node in the index instead of the node array
    /// and skip the blocks before `q.lo` that hold no overlap; their answers and order are
    /// unchanged. O(n).
    ///
    /// # Errors
    /// [`PlanError::Capacity`] (store [`Index`](crate::error::Store::Index)) when `storage`
    /// is too short; [`PlanError::UnsortedTree`] for a tree from
    /// [`IntervalTree::from_unsorted`], whose nodes are not in `lo` order.
    ///
    /// # Example
    /// ```
    /// use dramalloc_core::liveness::block_index::index_words;
    /// use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
    /// let mut nodes: Vec<Node> = (0..100).map(|i| Node::new(i, i + 2, i)).collect();
    /// let mut words = vec![0u32; index_words(nodes.len())];
    /// let tree = IntervalTree::build(&mut nodes).with_index(&mut words)?;
    /// let mut hits = Vec::new();
    /// tree.for_each_overlap(50, 50, |n| hits.push(n.payload))?;
    /// assert_eq!(hits, [48, 49, 50]); // [48,50], [49,51] and [50,52] hold instruction 50
    /// # Ok::<(), dramalloc_core::PlanError>(())
    /// ```
    pub fn with_index(mut self, storage: &'a mut [u32]) -> Result<IntervalTree<'a>, PlanError> {
        if !self.sorted {
            return Err(PlanError::UnsortedTree { len: self.nodes.len() as u32 });
        }
        self.index = Some(BlockIndex::build(self.nodes, storage)?);
        Ok(self)
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
    /// `getAllOverlapsWithInterval`), in ascending array index (for a tree from
    /// [`IntervalTree::build`]: ascending `(lo, hi, payload)`). No heap: one fixed
    /// [`QUERY_STACK`] array. An inverted query (`lo > hi`) holds no instruction and visits
    /// nothing, on every tree (the sorted tree without an index answered some nodes before).
    ///
    /// On a sorted tree both sides are pruned by `lo`: [`StartSamples::lower_bound`] (sampled
    /// starts, guarded interpolation, then a count or a branch-free binary search) finds the
    /// first node with `lo >= q.lo - max_len` (nothing before it can reach `q.lo`); the nodes
    /// from there that start before `q.lo` are scanned in order, eight at a time, their
    /// overlaps (`hi >= q.lo`) collected without a branch and visited a buffer at a time
    /// ([`scan_before`](super::window_scan)); from the first node
    /// with `lo >= q.lo` every node overlaps until the first with `lo > q.hi`, where the query
    /// stops. When more than [`LINEAR_NODES`] nodes start in the window before `q.lo` (a few
    /// long intervals make `max_len` large), the rest goes to the tree walk: in order by the
    /// tree's shape by index (the subtree over `[l, r)` has root `mid = l + (r - l) / 2`; the
    /// stored links are not read), skipping a subtree whose `max < q.lo`, scanning one of at
    /// most [`SCAN_NODES`] nodes as a slice. O(log n + w) for a window of `w <= LINEAR_NODES`
    /// nodes, O(log n + k) walk steps past it when the intervals near the query are short. On
    /// a tree from [`IntervalTree::from_unsorted`] only the walk runs (from index 0).
    ///
    /// # Errors
    /// [`PlanError::Capacity`] (store `Order`) only if the stack overflows, which cannot
    /// happen: a tree over a slice is at most 64 levels deep.
    #[inline]
    pub fn for_each_overlap(&self, lo: u32, hi: u32, mut visit: impl FnMut(&Node)) -> Result<(), PlanError> {
        let nodes = self.nodes;
        if lo > hi {
            return Ok(()); // an inverted query holds no instruction
        }
        if !self.sorted {
            return self.walk_from(0, lo, hi, &mut visit);
        }
        if let Some(index) = &self.index {
            index.for_each_overlap(nodes, self.max_len, lo, hi, &mut visit);
            return Ok(());
        }
        // Nodes before `k` start before `lo - max_len`, so they end before `lo`.
        let mut k = self.samples.lower_bound(nodes, lo.saturating_sub(self.max_len));
        // Nodes that start before `lo` (and so before `hi`) overlap iff they end at or after
        // `lo`: scanned eight at a time (`window_scan.rs`).
        let end = nodes.len().min(k.saturating_add(LINEAR_NODES));
        k += scan_before(nodes, k, end, lo, &mut visit);
        if nodes.get(k).is_some_and(|n| n.lo < lo) {
            // a long interval stretched the window: the tree walk prunes the rest by `max`
            return self.walk_from(k, lo, hi, &mut visit);
        }
        // every later node starts at or after `lo`: it overlaps iff it starts by `hi`
        visit_run(nodes, k, hi, &mut visit);
        Ok(())
    }

    /// The tree walk behind [`IntervalTree::for_each_overlap`]: visits the overlaps of
    /// `[lo, hi]` among the nodes at index `from` and after, in ascending index, pruning
    /// subtrees by `max`.
    fn walk_from(
        &self,
        from: usize,
        lo: u32,
        hi: u32,
        visit: &mut impl FnMut(&Node),
    ) -> Result<(), PlanError> {
        let nodes = self.nodes;
        let sorted = self.sorted;
        // Roots still to visit, each with the end of its subtree: the node, then its right
        // subtree `[mid + 1, end)`, in ascending index from the top of the stack.
        let mut pending: ArrayVec<(usize, usize), QUERY_STACK> = ArrayVec::new_const();
        let (mut l, mut r) = (0usize, nodes.len());
        let mut touched = 0u32;
        while l < r {
            let mid = l + (r - l) / 2;
            touched ^= lo_at(nodes, l + (mid - l) / 2) ^ lo_at(nodes, mid + 1 + (r - mid - 1) / 2);
            if mid < from {
                l = mid + 1;
            } else {
                pending.try_push((mid, r)).map_err(|_| overflow())?;
                r = mid;
            }
        }
        core::hint::black_box(touched);
        while let Some((mid, end)) = pending.pop() {
            let Some(m) = nodes.get(mid) else { break };
            if sorted && m.lo >= lo {
                // from here on every node starts at or after `lo`: it overlaps iff it starts
                // at or before `hi`
                visit_run(nodes, mid, hi, visit);
                return Ok(());
            }
            if m.overlaps(lo, hi) {
                visit(m);
            }
            (l, r) = (mid + 1, end);
            while l < r {
                let mid = l + (r - l) / 2;
                let Some(m) = nodes.get(mid) else { break };
                if m.max < lo {
                    break; // nothing in [l, r) reaches lo
                }
                if r - l <= SCAN_NODES {
                    let slice = nodes.get(l..r).unwrap_or(&[]);
                    scan(slice, lo, hi, visit);
                    if sorted && slice.last().is_some_and(|n| n.lo >= lo) {
                        if slice.last().is_some_and(|n| n.lo <= hi) {
                            visit_run(nodes, r, hi, visit);
                        }
                        return Ok(());
                    }
                    break;
                }
                pending.try_push((mid, r)).map_err(|_| overflow())?;
                r = mid;
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
    /// indices in range and equal to the balanced shape by index (which queries walk), `max`
    /// equal to the subtree maximum of `hi`, and (for a sorted tree) in-order `lo`
    /// non-decreasing. Returns false on the first violation. O(n); a cyclic link stops the
    /// walk at `n + 1` visits (recursion depth at most `n + 1`).
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
        /// The links equal the shape by index that queries walk: returns the root of `[l, r)`.
        fn shape(nodes: &[Node], l: usize, r: usize) -> Option<i32> {
            if l >= r {
                return Some(NIL);
            }
            let mid = l + (r - l) / 2;
            let (left, right) = (shape(nodes, l, mid)?, shape(nodes, mid + 1, r)?);
            let n = nodes.get(mid)?;
            (n.left == left && n.right == right).then_some(mid as i32)
        }
        let mut seen = 0;
        if walk(self.nodes, self.root, &mut seen).is_none() || seen != self.nodes.len() {
            return false;
        }
        if shape(self.nodes, 0, self.nodes.len()) != Some(self.root) {
            return false;
        }
        if self.index.as_ref().is_some_and(|index| !index.matches(self.nodes)) {
            return false;
        }
        !self.sorted || self.nodes.windows(2).all(|w| w[0].lo <= w[1].lo)
    }
}

fn overflow() -> PlanError {
    PlanError::Capacity { store: crate::error::Store::Order, needed: QUERY_STACK + 1, capacity: QUERY_STACK }
}

/// Visits `nodes[from..]` in order up to the first node that starts after `hi`: on a sorted
/// tree, once a node starts at or after the query's `lo`, these are exactly the overlaps.
#[inline(always)]
fn visit_run(nodes: &[Node], from: usize, hi: u32, visit: &mut impl FnMut(&Node)) {
    for n in nodes.get(from..).unwrap_or(&[]) {
        if n.lo > hi {
            return;
        }
        visit(n);
    }
}

/// Visits the nodes of `slice` (at most [`SCAN_NODES`]) that overlap `[lo, hi]`, in order.
/// Branch-free selection: every node's position is written, and the cursor advances only
/// past the overlapping ones, so the unpredictable test costs no misprediction.
#[inline(always)]
fn scan(slice: &[Node], lo: u32, hi: u32, visit: &mut impl FnMut(&Node)) {
    let mut picked = [0u8; SCAN_NODES];
    let mut count = 0usize;
    for (j, n) in slice.iter().take(SCAN_NODES).enumerate() {
        picked[count % SCAN_NODES] = j as u8;
        count += usize::from(n.overlaps(lo, hi));
    }
    for &j in picked.get(..count).unwrap_or(&picked) {
        if let Some(n) = slice.get(usize::from(j)) {
            visit(n);
        }
    }
}

/// The longest interval of `nodes`, `max(hi - lo)` (0 when empty).
fn max_len(nodes: &[Node]) -> u32 {
    nodes.iter().map(|n| n.hi.saturating_sub(n.lo)).max().unwrap_or(0)
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

    /// Payloads of the nodes of `t` overlapping `[lo, hi]`, in visit order, into `out`.
    fn visited(t: &IntervalTree<'_>, lo: u32, hi: u32, out: &mut [u32]) -> usize {
        let mut k = 0;
        t.for_each_overlap(lo, hi, |node| {
            out[k] = node.payload;
            k += 1;
        })
        .unwrap();
        k
    }

    /// Short, medium and program-long intervals (the walk's scans, its subtree pruning and its
    /// `max_len` cut all take part), trees larger than [`SCAN_NODES`]: every query reports
    /// exactly the brute-force hits, in ascending array index, from `build`, `from_built` and
    /// `from_unsorted` alike.
    #[test]
    fn overlaps_in_index_order_with_long_intervals() {
        const CAP: usize = 2000;
        let mut rng = Lcg(11);
        let rounds = if cfg!(miri) { 2 } else { 24 };
        for round in 0..rounds {
            let n = 1 + (rng.next() as usize % CAP);
            let span = 1 + rng.next() % 4000;
            let mut base = [Node::default(); CAP];
            for (k, node) in base[..n].iter_mut().enumerate() {
                let lo = rng.next() % span;
                let len = match rng.next() % 20 {
                    0 if round % 3 != 0 => rng.next() % (span + 1), // program-long (none every third round)
                    1..=3 => rng.next() % 200,
                    _ => rng.next() % 8,
                };
                *node = Node::new(lo, lo + len, k as u32);
            }
            let mut sorted = base;
            let mut unsorted = base;
            let ts = IntervalTree::build(&mut sorted[..n]);
            let tb = IntervalTree::from_built(ts.nodes());
            let tu = IntervalTree::from_unsorted(&mut unsorted[..n]);
            assert!(ts.check_invariants() && tu.check_invariants());
            let queries = if cfg!(miri) { 5 } else { 60 };
            for _ in 0..queries {
                let lo = rng.next() % (span + 50);
                let hi = lo + rng.next() % 40;
                for t in [&ts, &tb, &tu] {
                    let mut want = [0u32; CAP];
                    let mut w = 0;
                    for node in t.nodes().iter().filter(|node| node.overlaps(lo, hi)) {
                        want[w] = node.payload;
                        w += 1;
                    }
                    let mut got = [0u32; CAP];
                    let g = visited(t, lo, hi, &mut got);
                    assert_eq!(&got[..g], &want[..w], "round {round}, n {n}, query [{lo},{hi}]");
                }
            }
        }
    }

    #[test]
    fn visits_in_ascending_lo_order() {
        // [0,9] [1,1] [2,6] [3,5] [4,4] [7,8]: a query at 4..5 hits four of them, lowest lo first
        let mut nodes = [
            Node::new(7, 8, 5),
            Node::new(3, 5, 3),
            Node::new(0, 9, 0),
            Node::new(4, 4, 4),
            Node::new(1, 1, 1),
            Node::new(2, 6, 2),
        ];
        let t = IntervalTree::build(&mut nodes);
        let mut got = [0u32; 6];
        let k = visited(&t, 4, 5, &mut got);
        assert_eq!(&got[..k], &[0, 2, 3, 4]);
    }

    /// An inverted query (`lo > hi`) visits nothing, sorted or not, with or without an index.
    #[test]
    fn an_inverted_query_visits_nothing() {
        let base = [Node::new(0, 9, 0), Node::new(3, 5, 1), Node::new(6, 8, 2), Node::new(4, 4, 3)];
        let (mut a, mut b, mut c) = (base, base, base);
        let mut words = [0u32; 2];
        let trees = [
            IntervalTree::build(&mut a),
            IntervalTree::build(&mut b).with_index(&mut words).unwrap(),
            IntervalTree::from_unsorted(&mut c),
        ];
        for t in &trees {
            for (lo, hi) in [(5, 4), (9, 0), (6, 5)] {
                t.for_each_overlap(lo, hi, |n| panic!("[{lo},{hi}] visited {n:?}")).unwrap();
            }
            let mut count = 0;
            t.for_each_overlap(4, 4, |_| count += 1).unwrap();
            assert_eq!(count, 3); // [0,9], [3,5], [4,4]
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
