//! The live set of the time sweep: the buffers live at one instant, ordered by address, with
//! the lowest fitting gap found in O(log d).
//! Uses: seed::search (the in-gap rule), workspace; used by: sweep.
//!
//! A treap keyed by address over the live buffers (they are pairwise disjoint in address,
//! since they are live together in a valid plan). Each node carries the aggregates of its
//! subtree: its lowest address, its highest end and the largest gap between two consecutive
//! buffers inside it, so a first-fit search skips every subtree that holds no gap of the
//! size asked for. Priorities are a hash of the candidate index, so the tree has expected
//! depth O(log d) for d live buffers and every run is deterministic.
//!
//! Storage is lent by the caller, one record per candidate (indexed by candidate): the
//! links and byte range in a [`Placed`] (`lo` = left child, `hi` = right child) and the
//! three aggregates in four `u64`s. Paths are kept on a fixed stack of [`MAX_DEPTH`] nodes;
//! a tree deeper than that (probability far below 2^-40 for a million buffers) makes an
//! operation return `false`, and the sweep then falls back to its linear live list, so
//! nothing panics and every plan stays valid.
//!
//! Complexity: insert and remove O(depth); [`LiveSet::first_fit`] O(depth) per gap it
//! rejects, plus O(depth) for the gap it takes.

use crate::place::seed::search::place_in_gap;
use crate::workspace::Placed;

/// No node.
const NIL: u32 = u32::MAX;

/// Longest root-to-node path an operation keeps; deeper trees make the operation fail.
pub const MAX_DEPTH: usize = 96;

/// Treap priority of candidate `v` (a SplitMix64 finaliser: fixed, well spread).
fn prio(v: u32) -> u64 {
    let mut z = (v as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The live buffers of one sweep, over caller storage (see the module docs).
pub struct LiveSet<'a> {
    node: &'a mut [Placed],
    agg: &'a mut [u64],
    root: u32,
}

impl<'a> LiveSet<'a> {
    /// An empty set over `node` (one per candidate) and `agg` (four per candidate); `None`
    /// when either is shorter than `n` candidates.
    pub fn new(node: &'a mut [Placed], agg: &'a mut [u64], n: usize) -> Option<Self> {
        if node.len() < n || agg.len() < 4 * n {
            return None;
        }
        Some(LiveSet { node, agg, root: NIL })
    }

    fn left(&self, v: u32) -> u32 {
        self.node[v as usize].lo
    }

    fn right(&self, v: u32) -> u32 {
        self.node[v as usize].hi
    }

    fn min_addr(&self, v: u32) -> u64 {
        self.agg[4 * v as usize]
    }

    fn max_end(&self, v: u32) -> u64 {
        self.agg[4 * v as usize + 1]
    }

    fn max_gap(&self, v: u32) -> u64 {
        self.agg[4 * v as usize + 2]
    }

    /// Recomputes `v`'s aggregates from its own range and its children's; `true` when they
    /// changed (when they did not, no ancestor's can have changed through `v`).
    fn pull(&mut self, v: u32) -> bool {
        let (l, r) = (self.left(v), self.right(v));
        let me = self.node[v as usize];
        let (mut lo, mut hi, mut gap) = (me.addr, me.end, 0u64);
        if l != NIL {
            lo = self.min_addr(l);
            gap = gap.max(self.max_gap(l)).max(me.addr - self.max_end(l));
        }
        if r != NIL {
            hi = self.max_end(r);
            gap = gap.max(self.max_gap(r)).max(self.min_addr(r) - me.end);
        }
        let a = &mut self.agg[4 * v as usize..4 * v as usize + 3];
        if a == [lo, hi, gap] {
            return false;
        }
        a.copy_from_slice(&[lo, hi, gap]);
        true
    }

    /// Refreshes the aggregates of the ancestors `path` (root first) of a subtree that
    /// changed, bottom up, stopping at the first one that stays the same: every aggregate
    /// depends only on the node's own range and its children's aggregates.
    fn pull_path(&mut self, path: &[u32]) {
        for &a in path.iter().rev() {
            if !self.pull(a) {
                break;
            }
        }
    }

    /// Points the link of `parent` (the root when `NIL`) that held `old` at `new`.
    fn relink(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NIL {
            self.root = new;
        } else if self.left(parent) == old {
            self.node[parent as usize].lo = new;
        } else {
            self.node[parent as usize].hi = new;
        }
    }

    /// Rotates child `c` above its parent `p` (whose parent is `g`).
    fn rotate_up(&mut self, g: u32, p: u32, c: u32) {
        if self.left(p) == c {
            self.node[p as usize].lo = self.right(c);
            self.node[c as usize].hi = p;
        } else {
            self.node[p as usize].hi = self.left(c);
            self.node[c as usize].lo = p;
        }
        self.relink(g, p, c);
        self.pull(p);
        self.pull(c);
    }

    /// Adds candidate `v` occupying `[addr, end)` (disjoint from every live buffer);
    /// `false` (set unchanged) when the path would be deeper than [`MAX_DEPTH`].
    pub fn insert(&mut self, v: u32, addr: u64, end: u64) -> bool {
        let mut path = [NIL; MAX_DEPTH];
        let mut len = 0usize;
        let mut t = self.root;
        while t != NIL {
            if len == MAX_DEPTH {
                return false;
            }
            path[len] = t;
            len += 1;
            t = if addr < self.node[t as usize].addr { self.left(t) } else { self.right(t) };
        }
        if len == MAX_DEPTH {
            return false;
        }
        self.node[v as usize] = Placed { lo: NIL, hi: NIL, addr, end };
        self.agg[4 * v as usize..4 * v as usize + 3].copy_from_slice(&[addr, end, 0]);
        let parent = if len > 0 { path[len - 1] } else { NIL };
        if parent == NIL {
            self.root = v;
        } else if addr < self.node[parent as usize].addr {
            self.node[parent as usize].lo = v;
        } else {
            self.node[parent as usize].hi = v;
        }
        // rotate up while the parent's priority is lower, then refresh the rest of the path
        let pv = prio(v);
        while len > 0 && prio(path[len - 1]) < pv {
            let p = path[len - 1];
            let g = if len > 1 { path[len - 2] } else { NIL };
            self.rotate_up(g, p, v);
            len -= 1;
        }
        self.pull_path(&path[..len]);
        true
    }

    /// Removes live candidate `v` (found by its address); `false` (set unchanged) when it is
    /// not in the set or the path would be deeper than [`MAX_DEPTH`].
    pub fn remove(&mut self, v: u32) -> bool {
        let addr = self.node[v as usize].addr;
        let mut path = [NIL; MAX_DEPTH];
        let mut len = 0usize;
        let mut t = self.root;
        while t != NIL && t != v {
            if len == MAX_DEPTH {
                return false;
            }
            path[len] = t;
            len += 1;
            t = if addr < self.node[t as usize].addr { self.left(t) } else { self.right(t) };
        }
        if t == NIL {
            return false;
        }
        // rotate v down below its higher-priority child until it is a leaf
        loop {
            let (l, r) = (self.left(v), self.right(v));
            if l == NIL && r == NIL {
                break;
            }
            if len == MAX_DEPTH {
                // rotations so far kept the tree valid; refresh what they touched
                for &a in path[..len].iter().rev() {
                    self.pull(a);
                }
                return false;
            }
            let c = if r == NIL || (l != NIL && prio(l) > prio(r)) { l } else { r };
            let g = if len > 0 { path[len - 1] } else { NIL };
            self.rotate_up(g, v, c);
            path[len] = c;
            len += 1;
        }
        let parent = if len > 0 { path[len - 1] } else { NIL };
        self.relink(parent, v, NIL);
        self.pull_path(&path[..len]);
        true
    }

    /// The lowest address in `[start, ceiling)` where `size` bytes fit between the live
    /// buffers by the page-straddle rule of [`place_in_gap`] with page `align` (the gaps
    /// tried in address order, as `search` tries them), or `None` when no gap below `ceiling`
    /// takes it. `Err(())` when a path is deeper than [`MAX_DEPTH`]. Also returns the largest
    /// gap below `ceiling` when nothing fits (for the error message), else 0.
    #[allow(clippy::result_unit_err)]
    pub fn first_fit(
        &self,
        size: u64,
        start: u64,
        ceiling: u64,
        align: u64,
    ) -> Result<(Option<u64>, u64), ()> {
        match self.walk(size, start, ceiling, align, size)? {
            (Some(a), _) => Ok((Some(a), 0)),
            // nothing fits: one unpruned walk for the largest gap
            (None, _) => self.walk(size, start, ceiling, align, 0),
        }
    }

    /// The gaps in address order, skipping subtrees whose gaps are all below `prune` bytes.
    fn walk(
        &self,
        size: u64,
        start: u64,
        ceiling: u64,
        align: u64,
        prune: u64,
    ) -> Result<(Option<u64>, u64), ()> {
        // in-order walk over the subtrees that can hold a gap of `size` bytes: a stack of
        // (node, end of the buffer before its subtree, whether its left part was done)
        let mut stack = [(NIL, 0u64, false); MAX_DEPTH];
        let mut len = 0usize;
        let mut largest = 0u64;
        let mut prev_end = start; // end of the last buffer passed in address order
        let gap = |lo: u64, hi: u64, largest: &mut u64| -> Option<u64> {
            let hi = hi.min(ceiling);
            if hi <= lo {
                return None;
            }
            *largest = (*largest).max(hi - lo);
            place_in_gap(lo, hi, size, align)
        };
        if self.root != NIL {
            stack[0] = (self.root, start, false);
            len = 1;
        }
        while len > 0 {
            let (t, before, left_done) = stack[len - 1];
            if prev_end >= ceiling {
                break;
            }
            if !left_done {
                // can this subtree hold the gap? its leading gap or an inner one
                let lead = self.min_addr(t).saturating_sub(before.max(prev_end));
                if lead < prune && self.max_gap(t) < prune {
                    // nothing here fits: pass the whole subtree
                    prev_end = prev_end.max(self.max_end(t));
                    len -= 1;
                    continue;
                }
                stack[len - 1].2 = true;
                let l = self.left(t);
                if l != NIL {
                    if len == MAX_DEPTH {
                        return Err(());
                    }
                    stack[len] = (l, before, false);
                    len += 1;
                }
                continue;
            }
            // the gap just before t
            let me = self.node[t as usize];
            if me.addr > prev_end {
                if let Some(a) = gap(prev_end, me.addr, &mut largest) {
                    return Ok((Some(a), 0));
                }
            }
            prev_end = prev_end.max(me.end);
            len -= 1;
            let r = self.right(t);
            if r != NIL {
                stack[len] = (r, me.end, false);
                len += 1;
            }
        }
        if prev_end < ceiling {
            if let Some(a) = gap(prev_end, ceiling, &mut largest) {
                return Ok((Some(a), 0));
            }
        }
        Ok((None, largest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::place::seed::search::{search, Fit, Span};

    /// Random inserts, removes and first-fit queries against `search` over the same ranges.
    #[test]
    fn matches_search_over_the_same_live_ranges() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rounds = if cfg!(miri) { 40 } else { 3000 };
        for align in [1u64, 64] {
            let n = 64usize;
            let mut node = [Placed::default(); 64];
            let mut agg = [0u64; 256];
            let mut set = LiveSet::new(&mut node, &mut agg, n).unwrap();
            let mut live: [Option<(u64, u64)>; 64] = [None; 64];
            for _ in 0..rounds {
                let v = (next() % n as u64) as usize;
                let size = 1 + next() % 200;
                let (start, ceiling) = (next() % 50, 400 + next() % 4000);
                let mut occ: [Span; 64] = [Span::default(); 64];
                let mut k = 0;
                for r in live.iter().flatten() {
                    occ[k] = Span { lo: r.0, hi: r.1 };
                    k += 1;
                }
                let want = search(&mut occ[..k], size, start, ceiling, align, Fit::First);
                let got = set.first_fit(size, start, ceiling, align).unwrap();
                assert_eq!(got.0, want.address);
                if want.address.is_none() {
                    assert_eq!(got.1, want.largest_gap);
                }
                match live[v] {
                    Some(_) => {
                        assert!(set.remove(v as u32));
                        live[v] = None;
                    }
                    None => {
                        let f = set.first_fit(size, 0, u64::MAX, align).unwrap().0.unwrap();
                        assert!(set.insert(v as u32, f, f + size));
                        live[v] = Some((f, f + size));
                    }
                }
                assert_eq!(check(&set), live.iter().flatten().count());
            }
        }
    }

    /// Subtree aggregates recomputed from scratch: (lowest address, highest end, largest
    /// inner gap, buffers); panics on a broken address order or heap order.
    fn recount(set: &LiveSet<'_>, t: u32, parent_prio: u64) -> (u64, u64, u64, usize) {
        let me = set.node[t as usize];
        assert!(prio(t) <= parent_prio, "heap order broken at {t}");
        let (mut lo, mut hi, mut gap, mut n) = (me.addr, me.end, 0, 1);
        if set.left(t) != NIL {
            let (l_lo, l_hi, l_gap, l_n) = recount(set, set.left(t), prio(t));
            assert!(l_hi <= me.addr, "left subtree of {t} overlaps it");
            (lo, gap, n) = (l_lo, l_gap.max(me.addr - l_hi), n + l_n);
        }
        if set.right(t) != NIL {
            let (r_lo, r_hi, r_gap, r_n) = recount(set, set.right(t), prio(t));
            assert!(r_lo >= me.end, "right subtree of {t} overlaps it");
            (hi, gap, n) = (r_hi, gap.max(r_gap).max(r_lo - me.end), n + r_n);
        }
        assert_eq!((set.min_addr(t), set.max_end(t), set.max_gap(t)), (lo, hi, gap), "aggregates of {t}");
        (lo, hi, gap, n)
    }

    /// The number of buffers in the set, after checking every node's order and aggregates.
    fn check(set: &LiveSet<'_>) -> usize {
        if set.root == NIL {
            0
        } else {
            recount(set, set.root, u64::MAX).3
        }
    }

    /// The priority is SplitMix64's output function (the first outputs of seed 0 and 1 for
    /// candidates 0 and 1).
    #[test]
    fn priority_is_splitmix64() {
        let want = [
            (0, 0xe220_a839_7b1d_cdaf),
            (1, 0x910a_2dec_8902_5cc1),
            (2, 0x9758_35de_1c97_56ce),
            (1000, 0x3c1e_ba8b_4dcc_c148),
            (u32::MAX, 0x73b1_3ba2_aff1_81c0),
        ];
        for (v, p) in want {
            assert_eq!(prio(v), p, "candidate {v}");
        }
    }

    /// A gap of exactly the size asked for is taken wherever the tree puts its neighbours
    /// (every insertion order of four buffers), and the gaps between them are the largest
    /// gap when nothing fits.
    #[test]
    fn an_exact_gap_is_found_in_every_tree_shape() {
        // [0, 10) [20, 30) [45, 50) [62, 70): gaps of 10, 15 and 12 bytes
        let bufs = [(0u64, 10u64), (20, 30), (45, 50), (62, 70)];
        let orders = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [3, 0, 2, 1], [1, 2, 3, 0]];
        for order in orders {
            let mut node = [Placed::default(); 4];
            let mut agg = [0u64; 16];
            let mut set = LiveSet::new(&mut node, &mut agg, 4).unwrap();
            for v in order {
                assert!(set.insert(v as u32, bufs[v].0, bufs[v].1));
            }
            assert_eq!(check(&set), 4);
            assert_eq!(set.first_fit(10, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert_eq!(set.first_fit(15, 0, 1000, 1), Ok((Some(30), 0)), "order {order:?}");
            assert_eq!(set.first_fit(12, 0, 1000, 1), Ok((Some(30), 0)), "order {order:?}");
            assert_eq!(set.first_fit(13, 31, 1000, 1), Ok((Some(31), 0)), "order {order:?}");
            assert_eq!(set.first_fit(12, 40, 1000, 1), Ok((Some(50), 0)), "order {order:?}");
            assert_eq!(set.first_fit(16, 0, 70, 1), Ok((None, 15)), "order {order:?}");
            assert_eq!(set.first_fit(16, 0, 1000, 1), Ok((Some(70), 0)), "order {order:?}");
            // remove the middle buffers one by one: the gaps join
            assert!(set.remove(1));
            assert_eq!(set.first_fit(35, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert!(set.remove(2));
            assert_eq!(check(&set), 2);
            assert_eq!(set.first_fit(52, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert_eq!(set.first_fit(53, 0, 62, 1), Ok((None, 52)), "order {order:?}");
            assert!(!set.remove(2), "a removed buffer is not found again");
        }
    }

    /// Buffers inserted in address order stay within the path bound: the hash spreads the
    /// priorities, so 4,096 ascending inserts never make a path deeper than [`MAX_DEPTH`].
    #[test]
    fn ascending_inserts_keep_the_tree_shallow() {
        let n = if cfg!(miri) { 128 } else { 4096 };
        let mut node = [Placed::default(); 4096];
        let mut agg = [0u64; 4 * 4096];
        let mut set = LiveSet::new(&mut node, &mut agg, n).unwrap();
        for v in 0..n as u32 {
            assert!(set.insert(v, 2 * u64::from(v), 2 * u64::from(v) + 1), "insert {v}");
        }
        assert_eq!(check(&set), n);
        assert_eq!(set.first_fit(1, 0, u64::MAX, 1), Ok((Some(1), 0)));
        for v in (0..n as u32).step_by(2) {
            assert!(set.remove(v), "remove {v}");
        }
        assert_eq!(check(&set), n / 2);
        // left: [2, 3), [6, 7), ...: gaps of 2 bytes at 0, then of 3 bytes from 3 on
        assert_eq!(set.first_fit(2, 0, u64::MAX, 1), Ok((Some(0), 0)));
        assert_eq!(set.first_fit(3, 0, u64::MAX, 1), Ok((Some(3), 0)));
        assert_eq!(set.first_fit(4, 0, 2 * n as u64 - 2, 1), Ok((None, 3)));
    }

    /// Removing the only buffer empties the set: the whole range is one gap again.
    #[test]
    fn the_last_buffer_removed_leaves_an_empty_set() {
        let mut node = [Placed::default(); 2];
        let mut agg = [0u64; 8];
        let mut set = LiveSet::new(&mut node, &mut agg, 2).unwrap();
        assert!(set.insert(1, 100, 200));
        assert_eq!(set.first_fit(150, 0, 1000, 1), Ok((Some(200), 0)));
        assert!(set.remove(1));
        assert_eq!((check(&set), set.root), (0, NIL));
        assert_eq!(set.first_fit(150, 0, 1000, 1), Ok((Some(0), 0)));
        assert_eq!(set.first_fit(1001, 0, 1000, 1), Ok((None, 1000)));
    }

    #[test]
    fn too_short_storage_is_refused() {
        let mut node = [Placed::default(); 2];
        let mut agg = [0u64; 7];
        assert!(LiveSet::new(&mut node, &mut agg, 2).is_none());
    }
}
