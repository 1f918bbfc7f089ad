//! The size tree (BEST only): a treap of the free blocks by `(size, address)`.
//! Uses: block_table; used by: free_index, invariants.

use super::block_table::{priority, SizeLinks, NONE};
use super::FreeList;

/// The size tree: a treap of the free blocks by `(size, address)`, maintained under BEST only.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    pub(super) fn size_key(&self, slot: u32) -> (u64, u64) {
        let b = self.b(slot);
        (b.size, b.addr)
    }

    pub(super) fn size_replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NONE {
            self.size_root = new;
        } else {
            let p = self.sm(parent);
            if p.left == old {
                p.left = new;
            } else {
                p.right = new;
            }
        }
        if new != NONE {
            self.sm(new).parent = parent;
        }
    }

    pub(super) fn size_rotate_up(&mut self, x: u32) {
        let p = self.sl(x).parent;
        let g = self.sl(p).parent;
        let inner = if self.sl(p).left == x {
            let inner = self.sl(x).right;
            self.sm(p).left = inner;
            self.sm(x).right = p;
            inner
        } else {
            let inner = self.sl(x).left;
            self.sm(p).right = inner;
            self.sm(x).left = p;
            inner
        };
        if inner != NONE {
            self.sm(inner).parent = p;
        }
        self.sm(p).parent = x;
        self.size_replace_child(g, p, x);
    }

    pub(super) fn size_insert(&mut self, x: u32) {
        let key = self.size_key(x);
        let mut parent = NONE;
        let mut cur = self.size_root;
        let mut go_left = false;
        while cur != NONE {
            parent = cur;
            go_left = key < self.size_key(cur);
            let l = self.sl(cur);
            cur = if go_left { l.left } else { l.right };
        }
        *self.sm(x) = SizeLinks { left: NONE, right: NONE, parent };
        if parent == NONE {
            self.size_root = x;
        } else if go_left {
            self.sm(parent).left = x;
        } else {
            self.sm(parent).right = x;
        }
        let px = priority(x);
        loop {
            let p = self.sl(x).parent;
            if p == NONE || priority(p) > px {
                break;
            }
            self.size_rotate_up(x);
        }
    }

    pub(super) fn size_remove(&mut self, x: u32) {
        loop {
            let SizeLinks { left, right, parent } = *self.sl(x);
            if left == NONE || right == NONE {
                let child = if left == NONE { right } else { left };
                self.size_replace_child(parent, x, child);
                *self.sm(x) = SizeLinks::VOID;
                return;
            }
            let up = if priority(left) > priority(right) { left } else { right };
            self.size_rotate_up(up);
        }
    }

    /// BEST: the smallest free block of at least `s` bytes; among equal sizes the lowest
    /// address bottom-up and the highest top-down.
    pub(super) fn best_fit(&self, s: u64, bottom_up: bool) -> Option<u32> {
        let mut n = self.size_root;
        let mut found = None;
        while n != NONE {
            let l = self.sl(n);
            if self.b(n).size >= s {
                found = Some(n);
                n = l.left;
            } else {
                n = l.right;
            }
        }
        let first = found?;
        if bottom_up {
            return Some(first);
        }
        let z = self.b(first).size;
        let mut n = self.size_root;
        let mut last = first;
        while n != NONE {
            let l = self.sl(n);
            if self.b(n).size <= z {
                last = n;
                n = l.right;
            } else {
                n = l.left;
            }
        }
        Some(last)
    }
}
