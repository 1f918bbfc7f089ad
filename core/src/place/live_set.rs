//! The live set of the time sweep: the buffers live at one instant, ordered by address, with
//! the lowest fitting gap found in O(log d).
//! Uses: seed::search (the in-gap rule), workspace; used by: sweep.
//!
//! A treap keyed by address over the live buffers (they are pairwise disjoint in address,
//! since they are live together in a valid plan). Each buffer owns the gap just below it
//! (from the end of the buffer before it in address order, or from address 0 for the
//! lowest) and each node carries the largest gap of its subtree, so a first-fit search skips
//! every subtree that holds no gap of the size asked for; the gap above the highest buffer
//! is the set's own (its end is kept beside the root). Priorities are a hash of the
//! candidate index, so the tree has expected depth O(log d) for d live buffers and every
//! run is deterministic.
//!
//! Storage is lent by the caller: one 32-byte record per candidate (indexed by candidate,
//! four `u64`s, one [`Section`](crate::workspace::Section) each when the sweep lends its
//! sections): address, own gap, largest gap of the subtree, and both child links, so a step
//! of a walk reads one record; and one `u32` per candidate for its parent. Inserting a buffer
//! splits the gap it lands in between itself and the buffer above it; removing one joins its
//! gap to that buffer's. A removal starts at the buffer's own record and goes up by the
//! parent links only as far as the aggregates change (often a few nodes): a search from the
//! root would miss the cache at every level of a large set, as the buffers leave in
//! last-use order, unrelated to the last walk (with 333,000 live buffers, that search was a
//! third of the sweep's time). Insertion paths are kept on a fixed stack of [`MAX_DEPTH`]
//! nodes; a tree deeper than that (probability far below 2^-40 for a million buffers) makes an
//! insertion return `false`, and the sweep then falls back to its linear live list, so nothing
//! panics and every plan stays valid.
//!
//! Complexity: insert O(depth); remove O(rotations to a leaf + the ancestors refreshed),
//! O(depth) at worst; [`LiveSet::first_fit`] O(depth) per gap it rejects, plus O(depth) for
//! the gap it takes.

use bytemuck::{Pod, Zeroable};

use crate::place::seed::search::place_in_gap;

/// No node (the root's parent; an empty link).
const NIL: u32 = u32::MAX;

/// The parent entry of a candidate that is not in the set.
const OUT: u32 = u32::MAX - 1;

/// Longest root-to-node path an operation keeps; deeper trees make the operation fail.
pub const MAX_DEPTH: usize = 96;

/// Treap priority of candidate `v` (a SplitMix64 finaliser: fixed, well spread).
fn prio(v: u32) -> u64 {
    let mut z = (v as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One live buffer's record (32 bytes, one cache-line half).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
struct Rec {
    /// First byte of the buffer.
    addr: u64,
    /// Bytes free just below it: from the end of the buffer before it (or from 0) to `addr`.
    gap: u64,
    /// The largest `gap` in its subtree (itself included).
    max_gap: u64,
    /// Left child (low half) and right child (high half), [`NIL`] for none.
    links: u64,
}

impl Rec {
    fn left(&self) -> u32 {
        self.links as u32
    }

    fn right(&self) -> u32 {
        (self.links >> 32) as u32
    }

    fn set_left(&mut self, v: u32) {
        self.links = (self.links & !0xFFFF_FFFF) | u64::from(v);
    }

    fn set_right(&mut self, v: u32) {
        self.links = (self.links & 0xFFFF_FFFF) | u64::from(v) << 32;
    }

    /// The end of the buffer below this one (0 for the lowest).
    fn below_end(&self) -> u64 {
        self.addr - self.gap
    }
}

/// Both links [`NIL`].
const LEAF: u64 = u64::MAX;

/// The live buffers of one sweep, over caller storage (see the module docs).
pub struct LiveSet<'a> {
    rec: &'a mut [Rec],
    /// Each candidate's parent ([`NIL`] for the root, [`OUT`] when not in the set).
    up: &'a mut [u32],
    root: u32,
    /// End of the highest live buffer (0 when the set is empty): the gap above it starts here.
    top: u64,
}

impl<'a> LiveSet<'a> {
    /// An empty set over `words` (four `u64`s per candidate) and `up` (one `u32` per
    /// candidate); `None` when either is shorter than `n` candidates. O(n) (clears `up`).
    pub fn new(words: &'a mut [u64], up: &'a mut [u32], n: usize) -> Option<Self> {
        let words = words.get_mut(..n.checked_mul(4)?)?;
        let rec = bytemuck::try_cast_slice_mut(words).ok()?;
        let up = up.get_mut(..n)?;
        up.fill(OUT);
        Some(LiveSet { rec, up, root: NIL, top: 0 })
    }

    fn r(&self, v: u32) -> &Rec {
        &self.rec[v as usize]
    }

    fn m(&mut self, v: u32) -> &mut Rec {
        &mut self.rec[v as usize]
    }

    /// The largest gap of `v`'s subtree (0 for [`NIL`]).
    fn max_gap(&self, v: u32) -> u64 {
        self.rec.get(v as usize).map_or(0, |r| r.max_gap)
    }

    /// Recomputes `v`'s largest gap from its own and its children's; `true` when it changed
    /// (when it did not, no ancestor's can have changed through `v`).
    fn pull(&mut self, v: u32) -> bool {
        let me = *self.r(v);
        let m = me.gap.max(self.max_gap(me.left())).max(self.max_gap(me.right()));
        let changed = m != me.max_gap;
        self.m(v).max_gap = m;
        changed
    }

    /// Refreshes the ancestors `path` (root first) of a subtree that changed, bottom up:
    /// every one up to `path[force]` (whose own gap changed), then on up to the first that
    /// stays the same (every aggregate depends only on the node's own gap and its children's
    /// aggregates).
    fn pull_path(&mut self, path: &[u32], force: Option<usize>) {
        for (k, &a) in path.iter().enumerate().rev() {
            if !self.pull(a) && force.is_none_or(|f| k < f) {
                break;
            }
        }
    }

    /// Points the link of `parent` (the root when `NIL`) that held `old` at `new`.
    fn relink(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NIL {
            self.root = new;
        } else if self.r(parent).left() == old {
            self.m(parent).set_left(new);
        } else {
            self.m(parent).set_right(new);
        }
    }

    /// Rotates child `c` above its parent `p` (whose parent is `g`).
    fn rotate_up(&mut self, g: u32, p: u32, c: u32) {
        let inner = if self.r(p).left() == c {
            let inner = self.r(c).right();
            self.m(p).set_left(inner);
            self.m(c).set_right(p);
            inner
        } else {
            let inner = self.r(c).left();
            self.m(p).set_right(inner);
            self.m(c).set_left(p);
            inner
        };
        if let Some(i) = self.up.get_mut(inner as usize) {
            *i = p;
        }
        self.up[p as usize] = c;
        self.up[c as usize] = g;
        self.relink(g, p, c);
        self.pull(p);
        self.pull(c);
    }

    /// Adds candidate `v` occupying `[addr, end)` (disjoint from every live buffer);
    /// `false` (set unchanged) when the path would be deeper than [`MAX_DEPTH`].
    pub fn insert(&mut self, v: u32, addr: u64, end: u64) -> bool {
        let mut path = [NIL; MAX_DEPTH];
        let mut len = 0usize;
        // the buffer above v: the last node the descent left by its left link
        let (mut above, mut above_at) = (NIL, 0usize);
        let mut t = self.root;
        while t != NIL {
            if len == MAX_DEPTH {
                return false;
            }
            path[len] = t;
            len += 1;
            let r = self.r(t);
            if addr < r.addr {
                (above, above_at) = (t, len - 1);
                t = r.left();
            } else {
                t = r.right();
            }
        }
        if len == MAX_DEPTH {
            return false;
        }
        // v takes the lower part of the gap it lands in, the buffer above keeps the rest
        let below_end = if above == NIL { self.top } else { self.r(above).below_end() };
        let gap = addr.saturating_sub(below_end);
        self.rec[v as usize] = Rec { addr, gap, max_gap: gap, links: LEAF };
        if above == NIL {
            self.top = end;
        } else {
            let a = self.m(above);
            a.gap = a.addr.saturating_sub(end);
        }
        let parent = if len > 0 { path[len - 1] } else { NIL };
        if parent == NIL {
            self.root = v;
        } else if addr < self.r(parent).addr {
            self.m(parent).set_left(v);
        } else {
            self.m(parent).set_right(v);
        }
        self.up[v as usize] = parent;
        // rotate up while the parent's priority is lower (a rotation refreshes both nodes:
        // the buffer above, if rotated, is then inside v's subtree), then refresh the path
        let pv = prio(v);
        while len > 0 && prio(path[len - 1]) < pv {
            let p = path[len - 1];
            let g = if len > 1 { path[len - 2] } else { NIL };
            self.rotate_up(g, p, v);
            len -= 1;
        }
        let force = (above != NIL && above_at < len).then_some(above_at);
        self.pull_path(&path[..len], force);
        true
    }

    /// Removes live candidate `v`; `false` (set unchanged) when it is not in the set.
    pub fn remove(&mut self, v: u32) -> bool {
        if self.up.get(v as usize).is_none_or(|&p| p == OUT) {
            return false;
        }
        // rotate v down below its higher-priority child until it is a leaf
        loop {
            let (l, r) = (self.r(v).left(), self.r(v).right());
            if l == NIL && r == NIL {
                break;
            }
            let c = if r == NIL || (l != NIL && prio(l) > prio(r)) { l } else { r };
            self.rotate_up(self.up[v as usize], v, c);
        }
        // a leaf's buffer above is its nearest ancestor holding it on the left: that
        // buffer's gap now reaches down to the end of the buffer below v
        let parent = self.up[v as usize];
        let (mut child, mut a, mut above) = (v, parent, NIL);
        while a != NIL {
            if self.r(a).left() == child {
                above = a;
                break;
            }
            (child, a) = (a, self.up[a as usize]);
        }
        let below_end = self.r(v).below_end();
        if above == NIL {
            self.top = below_end;
        } else {
            let a = self.m(above);
            a.gap = a.addr.saturating_sub(below_end);
        }
        self.relink(parent, v, NIL);
        self.up[v as usize] = OUT;
        // refresh the ancestors: every one up to `above` (whose own gap changed), then on
        // up to the first that stays the same
        let (mut a, mut forced) = (parent, above != NIL);
        while a != NIL {
            let changed = self.pull(a);
            forced &= a != above;
            if !changed && !forced {
                break;
            }
            a = self.up[a as usize];
        }
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
        if let Some(a) = self.fits(size, start, ceiling, align)? {
            return Ok((Some(a), 0));
        }
        // nothing fits: one unpruned walk for the largest gap
        let mut largest = 0u64;
        let a = self.walk_gaps(start, ceiling, 0, |lo, hi| {
            largest = largest.max(hi - lo);
            place_in_gap(lo, hi, size, align)
        })?;
        Ok(match a {
            Some(a) => (Some(a), 0),
            None => (None, largest),
        })
    }

    /// [`LiveSet::first_fit`]'s address alone (no second walk for the largest gap when
    /// nothing fits). `Err(())` when a path is deeper than [`MAX_DEPTH`].
    #[allow(clippy::result_unit_err)]
    pub fn fits(&self, size: u64, start: u64, ceiling: u64, align: u64) -> Result<Option<u64>, ()> {
        self.walk_gaps(start, ceiling, size, |lo, hi| place_in_gap(lo, hi, size, align))
    }

    /// Walks the gaps between the live buffers in address order, clipped to `[start,
    /// ceiling)` and non-empty, skipping subtrees whose gaps are all below `prune` bytes and
    /// the parts of the tree below `start`; returns the first answer of `in_gap(lo, hi)`
    /// (e.g. [`place_in_gap`]'s, or a first fit among further obstacles inside the gap),
    /// `None` when no gap gave one. `Err(())` when a path is deeper than [`MAX_DEPTH`].
    #[allow(clippy::result_unit_err)]
    pub fn walk_gaps(
        &self,
        start: u64,
        ceiling: u64,
        prune: u64,
        mut in_gap: impl FnMut(u64, u64) -> Option<u64>,
    ) -> Result<Option<u64>, ()> {
        let mut gap = |lo: u64, hi: u64| -> Option<u64> {
            let (lo, hi) = (lo.max(start), hi.min(ceiling));
            if hi <= lo {
                return None;
            }
            in_gap(lo, hi)
        };
        // in-order walk: a stack of the nodes whose left subtree is being walked
        let mut stack = [NIL; MAX_DEPTH];
        let mut len = 0usize;
        let mut t = self.root;
        loop {
            // down the left side of t's subtree, as far as a gap may fit
            while let Some(r) = self.rec.get(t as usize) {
                if r.max_gap < prune {
                    break; // no gap here fits: the whole subtree is passed
                }
                if r.addr <= start {
                    t = r.right(); // its gap and its left subtree end at or below start
                    continue;
                }
                if len == MAX_DEPTH {
                    return Err(());
                }
                stack[len] = t;
                len += 1;
                t = r.left();
            }
            if len == 0 {
                break;
            }
            len -= 1;
            let r = self.r(stack[len]);
            let lo = r.below_end();
            if lo >= ceiling {
                return Ok(None); // this gap and every later one start too high
            }
            if let Some(a) = gap(lo, r.addr) {
                return Ok(Some(a));
            }
            t = r.right();
        }
        Ok(gap(self.top, ceiling))
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
            let (mut words, mut up) = ([0u64; 4 * 64], [0u32; 64]);
            let mut set = LiveSet::new(&mut words, &mut up, n).unwrap();
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
                assert_eq!(check(&set, &live), live.iter().flatten().count());
            }
        }
    }

    /// Walks the subtree of `t` in order, checking the heap order and each largest gap;
    /// appends `(candidate, address, gap)` to `out` and returns the subtree's largest gap.
    fn recount(set: &LiveSet<'_>, t: u32, parent: u32, out: &mut [(u32, u64, u64)], n: &mut usize) -> u64 {
        let me = *set.r(t);
        assert!(parent == NIL || prio(t) <= prio(parent), "heap order broken at {t}");
        assert_eq!(set.up[t as usize], parent, "parent link of {t}");
        let mut m = me.gap;
        if me.left() != NIL {
            m = m.max(recount(set, me.left(), t, out, n));
        }
        out[*n] = (t, me.addr, me.gap);
        *n += 1;
        if me.right() != NIL {
            m = m.max(recount(set, me.right(), t, out, n));
        }
        assert_eq!(me.max_gap, m, "largest gap of {t}");
        m
    }

    /// The number of buffers in the set, after checking every node's order and aggregates
    /// against `live` (candidate `v` at `[lo, hi)` where `live[v]` is some): the in-order
    /// walk lists them by address, each with the gap from the end of the one before (from 0
    /// for the first), and the set's top is the last one's end.
    fn check(set: &LiveSet<'_>, live: &[Option<(u64, u64)>]) -> usize {
        let mut out = [(0u32, 0u64, 0u64); 4096];
        let mut n = 0;
        if set.root != NIL {
            recount(set, set.root, NIL, &mut out, &mut n);
        }
        let mut want = [(0u32, 0u64, 0u64); 4096];
        let mut k = 0;
        for (v, r) in live.iter().enumerate() {
            if let Some((lo, hi)) = *r {
                want[k] = (v as u32, lo, hi);
                k += 1;
            } else {
                assert_eq!(set.up[v], OUT, "{v} is out of the set");
            }
        }
        want[..k].sort_unstable_by_key(|w| w.1);
        assert_eq!(n, k, "buffers in the set");
        let mut end = 0;
        for (got, w) in out[..n].iter().zip(&want[..k]) {
            assert_eq!(*got, (w.0, w.1, w.1 - end), "in-order record");
            end = w.2;
        }
        assert_eq!(set.top, end, "top of the set");
        n
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
            let (mut words, mut up) = ([0u64; 16], [0u32; 4]);
            let mut set = LiveSet::new(&mut words, &mut up, 4).unwrap();
            let mut live = [None; 4];
            for v in order {
                assert!(set.insert(v as u32, bufs[v].0, bufs[v].1));
                live[v] = Some(bufs[v]);
                check(&set, &live);
            }
            assert_eq!(check(&set, &live), 4);
            assert_eq!(set.first_fit(10, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert_eq!(set.first_fit(15, 0, 1000, 1), Ok((Some(30), 0)), "order {order:?}");
            assert_eq!(set.first_fit(12, 0, 1000, 1), Ok((Some(30), 0)), "order {order:?}");
            assert_eq!(set.first_fit(13, 31, 1000, 1), Ok((Some(31), 0)), "order {order:?}");
            assert_eq!(set.first_fit(12, 40, 1000, 1), Ok((Some(50), 0)), "order {order:?}");
            assert_eq!(set.first_fit(16, 0, 70, 1), Ok((None, 15)), "order {order:?}");
            assert_eq!(set.first_fit(16, 0, 1000, 1), Ok((Some(70), 0)), "order {order:?}");
            // remove the middle buffers one by one: the gaps join
            assert!(set.remove(1));
            live[1] = None;
            assert_eq!(check(&set, &live), 3);
            assert_eq!(set.first_fit(35, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert!(set.remove(2));
            live[2] = None;
            assert_eq!(check(&set, &live), 2);
            assert_eq!(set.first_fit(52, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
            assert_eq!(set.first_fit(53, 0, 62, 1), Ok((None, 52)), "order {order:?}");
            assert!(!set.remove(2), "a removed buffer is not found again");
            // the highest buffer removed: the gap above the set starts at the one below it
            assert!(set.remove(3));
            live[3] = None;
            assert_eq!(check(&set, &live), 1);
            assert_eq!(set.first_fit(990, 0, 1000, 1), Ok((Some(10), 0)), "order {order:?}");
        }
    }

    /// Buffers inserted in address order stay within the path bound: the hash spreads the
    /// priorities, so 4,096 ascending inserts never make a path deeper than [`MAX_DEPTH`].
    #[test]
    fn ascending_inserts_keep_the_tree_shallow() {
        let n = if cfg!(miri) { 128 } else { 4096 };
        let (mut words, mut up) = ([0u64; 4 * 4096], [0u32; 4096]);
        let mut set = LiveSet::new(&mut words, &mut up, n).unwrap();
        let mut live = [None; 4096];
        for v in 0..n as u32 {
            let lo = 2 * u64::from(v);
            assert!(set.insert(v, lo, lo + 1), "insert {v}");
            live[v as usize] = Some((lo, lo + 1));
        }
        assert_eq!(check(&set, &live[..n]), n);
        assert_eq!(set.first_fit(1, 0, u64::MAX, 1), Ok((Some(1), 0)));
        for v in (0..n as u32).step_by(2) {
            assert!(set.remove(v), "remove {v}");
            live[v as usize] = None;
        }
        assert_eq!(check(&set, &live[..n]), n / 2);
        // left: [2, 3), [6, 7), ...: gaps of 2 bytes at 0, then of 3 bytes from 3 on
        assert_eq!(set.first_fit(2, 0, u64::MAX, 1), Ok((Some(0), 0)));
        assert_eq!(set.first_fit(3, 0, u64::MAX, 1), Ok((Some(3), 0)));
        assert_eq!(set.first_fit(4, 0, 2 * n as u64 - 2, 1), Ok((None, 3)));
        // a query starting above most of the set skips the gaps below its start
        assert_eq!(set.first_fit(3, 2 * n as u64 - 9, u64::MAX, 1), Ok((Some(2 * n as u64 - 9), 0)));
    }

    /// Removing the only buffer empties the set: the whole range is one gap again.
    #[test]
    fn the_last_buffer_removed_leaves_an_empty_set() {
        let (mut words, mut up) = ([0u64; 8], [0u32; 2]);
        let mut set = LiveSet::new(&mut words, &mut up, 2).unwrap();
        assert!(set.insert(1, 100, 200));
        assert_eq!(set.first_fit(150, 0, 1000, 1), Ok((Some(200), 0)));
        assert!(set.remove(1));
        assert_eq!((check(&set, &[None, None]), set.root, set.top), (0, NIL, 0));
        assert_eq!(set.first_fit(150, 0, 1000, 1), Ok((Some(0), 0)));
        assert_eq!(set.first_fit(1001, 0, 1000, 1), Ok((None, 1000)));
    }

    /// Records or parent links one candidate short, or a count whose records overflow: `None`.
    #[test]
    fn too_short_storage_is_refused() {
        let (mut words, mut up) = ([0u64; 8], [0u32; 2]);
        assert!(LiveSet::new(&mut words[..7], &mut up, 2).is_none());
        assert!(LiveSet::new(&mut words, &mut up[..1], 2).is_none());
        assert!(LiveSet::new(&mut words, &mut up, usize::MAX).is_none());
        assert!(LiveSet::new(&mut words, &mut up, 2).is_some());
    }
}
