//! The address tree: a treap of the free blocks by address, augmented with the largest free size.
//! Uses: block_table; used by: mod.rs, failures, free_index, invariants.

use super::block_table::{priority, Block, NONE};
use super::FreeList;

/// The address tree: a treap of the free blocks by address, augmented with `max_free`.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    pub(super) fn max_of(&self, slot: u32) -> u64 {
        if slot == NONE {
            0
        } else {
            self.b(slot).max_free
        }
    }

    /// Recomputes `max_free` of `slot` from its size and children; returns the new value.
    pub(super) fn pull(&mut self, slot: u32) -> u64 {
        let b = *self.b(slot);
        let m = b.size.max(self.max_of(b.left)).max(self.max_of(b.right));
        self.m(slot).max_free = m;
        m
    }

    /// Recomputes `max_free` from `slot` up to the root, stopping once a value is unchanged.
    pub(super) fn refresh_up(&mut self, mut slot: u32) {
        while slot != NONE {
            let old = self.b(slot).max_free;
            if self.pull(slot) == old {
                return;
            }
            slot = self.b(slot).parent;
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
            // x ends up in this subtree.
            c.max_free = c.max_free.max(size);
            parent = cur;
            go_left = addr < c.addr;
            cur = if go_left { c.left } else { c.right };
        }
        let n = self.m(x);
        n.left = NONE;
        n.right = NONE;
        n.max_free = size;
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
                return;
            }
            let up = if priority(left) > priority(right) { left } else { right };
            self.rotate_up(up);
        }
    }

    /// The lowest-address free block of at least `s` bytes.
    pub(super) fn lowest_fit(&self, s: u64) -> Option<u32> {
        let mut n = self.root;
        if self.max_of(n) < s {
            return None;
        }
        while n != NONE {
            let b = self.b(n);
            if self.max_of(b.left) >= s {
                n = b.left;
            } else if b.size >= s {
                return Some(n);
            } else {
                n = b.right;
            }
        }
        None
    }

    /// The highest-address free block of at least `s` bytes.
    pub(super) fn highest_fit(&self, s: u64) -> Option<u32> {
        let mut n = self.root;
        if self.max_of(n) < s {
            return None;
        }
        while n != NONE {
            let b = self.b(n);
            if self.max_of(b.right) >= s {
                n = b.right;
            } else if b.size >= s {
                return Some(n);
            } else {
                n = b.left;
            }
        }
        None
    }

    /// The free block with the highest address `<= rel`.
    pub(super) fn free_at_or_below(&self, rel: u64) -> Option<u32> {
        let mut n = self.root;
        let mut found = None;
        while n != NONE {
            let b = self.b(n);
            if b.addr <= rel {
                found = Some(n);
                n = b.right;
            } else {
                n = b.left;
            }
        }
        found
    }
}
