//! The address tree: a treap of the free blocks by address, augmented with the largest free size
//! on each side of a node.
//! Uses: block_table; used by: mod.rs, failures, free_index, invariants.

use super::block_table::{priority, Block, NONE};
use super::FreeList;

/// The address tree: a treap of the free blocks by address, each node augmented with the
/// largest free size in its left (`max_left`) and right (`max_right`) subtree.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    /// The largest free size in the subtree of `slot` (0 for `NONE`, whose block reads as
    /// [`Block::VOID`]: no branch).
    pub(super) fn max_of(&self, slot: u32) -> u64 {
        let b = self.b(slot);
        b.size.max(b.max_left).max(b.max_right)
    }

    /// Recomputes `max_left`/`max_right` of `slot` from its children.
    pub(super) fn pull(&mut self, slot: u32) {
        let b = *self.b(slot);
        let (l, r) = (self.max_of(b.left), self.max_of(b.right));
        let n = self.m(slot);
        n.max_left = l;
        n.max_right = r;
    }

    /// Recomputes the augmentation of `slot` and then of its ancestors, stopping once an
    /// ancestor's value is unchanged.
    pub(super) fn refresh_up(&mut self, slot: u32) {
        if slot != NONE {
            self.pull(slot);
            self.refresh_above(slot);
        }
    }

    /// Updates the ancestors of `slot` after its own size changed (its children did not),
    /// stopping once an ancestor's value is unchanged.
    pub(super) fn refresh_above(&mut self, mut slot: u32) {
        // The subtree maximum of `slot`, carried up: each step reads the parent once.
        let mut m = self.max_of(slot);
        loop {
            let parent = self.b(slot).parent;
            if parent == NONE {
                return;
            }
            let p = self.m(parent);
            let (l, r) = (p.max_left, p.max_right);
            let is_left = p.left == slot;
            if core::hint::select_unpredictable(is_left, l, r) == m {
                return;
            }
            // Both sides written, one unchanged: no branch on the side.
            let (l, r) = (
                core::hint::select_unpredictable(is_left, m, l),
                core::hint::select_unpredictable(is_left, r, m),
            );
            p.max_left = l;
            p.max_right = r;
            m = p.size.max(l).max(r);
            slot = parent;
        }
    }

    /// Makes `new` the child of `parent` (or the root) in place of `old`.
    pub(super) fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NONE {
            self.root = new;
        } else {
            let p = self.m(parent);
            if p.left == old {
                p.left = new;
            } else {
                p.right = new;
            }
        }
        if new != NONE {
            self.m(new).parent = parent;
        }
    }

    /// Rotates `x` above its parent, keeping the augmentation of both.
    pub(super) fn rotate_up(&mut self, x: u32) {
        let p = self.b(x).parent;
        let g = self.b(p).parent;
        let inner = if self.b(p).left == x {
            let inner = self.b(x).right;
            self.m(p).left = inner;
            self.m(x).right = p;
            inner
        } else {
            let inner = self.b(x).left;
            self.m(p).right = inner;
            self.m(x).left = p;
            inner
        };
        if inner != NONE {
            self.m(inner).parent = p;
        }
        self.m(p).parent = x;
        self.replace_child(g, p, x);
        self.pull(p);
        self.pull(x);
    }

    pub(super) fn tree_insert(&mut self, x: u32) {
        let Block { addr, size, .. } = *self.b(x);
        let mut parent = NONE;
        let mut cur = self.root;
        let mut go_left = false;
        while cur != NONE {
            let c = self.m(cur);
            parent = cur;
            go_left = addr < c.addr;
            // x ends up in this side's subtree (selects, not branches).
            let side = if go_left { c.max_left } else { c.max_right };
            let grown = side.max(size);
            c.max_left = if go_left { grown } else { c.max_left };
            c.max_right = if go_left { c.max_right } else { grown };
            cur = if go_left { c.left } else { c.right };
        }
        let n = self.m(x);
        n.left = NONE;
        n.right = NONE;
        n.max_left = 0;
        n.max_right = 0;
        n.parent = parent;
        if parent == NONE {
            self.root = x;
        } else if go_left {
            self.m(parent).left = x;
        } else {
            self.m(parent).right = x;
        }
        let px = priority(x);
        loop {
            let p = self.b(x).parent;
            if p == NONE || priority(p) > px {
                break;
            }
            self.rotate_up(x);
        }
    }

    pub(super) fn tree_remove(&mut self, x: u32) {
        loop {
            let Block { left, right, parent, .. } = *self.b(x);
            if left == NONE || right == NONE {
                let child = if left == NONE { right } else { left };
                self.replace_child(parent, x, child);
                self.refresh_up(parent);
                let n = self.m(x);
                n.left = NONE;
                n.right = NONE;
                n.parent = NONE;
                n.max_left = 0;
                n.max_right = 0;
                return;
            }
            let up = if priority(left) > priority(right) { left } else { right };
            self.rotate_up(up);
        }
    }

    /// The lowest-address free block of at least `s` bytes.
    pub(super) fn lowest_fit(&self, s: u64) -> Option<u32> {
        self.fit::<true>(s)
    }

    /// The highest-address free block of at least `s` bytes.
    pub(super) fn highest_fit(&self, s: u64) -> Option<u32> {
        self.fit::<false>(s)
    }

    /// The first free block of at least `s` bytes from the low end (`LOW`) or the high end:
    /// one descent that goes to the near side while its largest size fits.
    #[inline(always)]
    fn fit<const LOW: bool>(&self, s: u64) -> Option<u32> {
        let mut n = self.root;
        if self.max_of(n) < s {
            return None;
        }
        // The direction is a select, not a branch: it is a coin flip a level, and a
        // mispredicted branch costs more than waiting for the node (the free blocks' slots stay
        // in L1). The only branch is the exit, taken once a descent; `black_box` keeps the
        // compiler from rebuilding `found` as a branch on the direction. Measured on `Churn`
        // (issue 16, 2026-12-04, three A/B pairs of the bench's ratio pass): 1.96-1.98 ->
        // 1.92-1.94 x offset-allocator; cachegrind's simulated mispredicted branches 5.37 ->
        // 3.62 an operation, instructions 477 -> 506. `NONE` is past the table, so one bounds test
        // ends the walk.
        while let Some(b) = self.blocks.get(n as usize) {
            let (near_max, near, far) =
                if LOW { (b.max_left, b.left, b.right) } else { (b.max_right, b.right, b.left) };
            let go_near = near_max >= s;
            let found = u8::from(!go_near) & u8::from(b.size >= s);
            if core::hint::black_box(found) != 0 {
                return Some(n);
            }
            n = core::hint::select_unpredictable(go_near, near, far);
        }
        None
    }

    /// The free block with the highest address `<= rel`.
    pub(super) fn free_at_or_below(&self, rel: u64) -> Option<u32> {
        let mut n = self.root;
        let mut found = None;
        while n != NONE {
            let b = self.b(n);
            let at_or_below = b.addr <= rel;
            found = if at_or_below { Some(n) } else { found };
            n = if at_or_below { b.right } else { b.left };
        }
        found
    }
}
