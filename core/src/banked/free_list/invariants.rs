//! The structural invariants of the allocator, checked in O(n) (tests, fuzzing, Miri).
//! Uses: block_table; used by: unit tests, tests, fuzz.

use super::block_table::{priority, State, NONE};
use super::FreeList;

impl<const BLOCKS: usize> FreeList<BLOCKS> {
    /// empty block and no two adjacent free blocks; the address tree holds exactly the free
    /// blocks in address order with correct parent links, heap priorities and the largest free size on each side; the
    /// size tree (BEST) holds them in `(size, address)` order; the allocated map finds every
    /// allocated block; the counters and the spare stack match. O(n).
    ///
    /// # Errors
    /// A static description of the first violated invariant.
    pub fn check_invariants(&self) -> Result<(), &'static str> {
        self.check_tree_nodes()?;
        let mut at = self.base;
        let mut prev = NONE;
        let mut slot = self.head;
        let (mut free_n, mut alloc_n, mut alloc_b) = (0u32, 0u32, 0u64);
        let mut prev_free = false;
        let mut steps = 0usize;
        // In-order cursor over the address tree, advanced with every free block of the list.
        let mut cursor = self.tree_first(self.root);
        while slot != NONE {
            steps += 1;
            if steps > BLOCKS {
                return Err("block list has a cycle");
            }
            let Some(b) = self.table().get(slot as usize) else {
                return Err("link to a slot beyond the table");
            };
            if b.state == State::Spare {
                return Err("dead slot linked into the list");
            }
            if b.prev != prev {
                return Err("prev link mismatch");
            }
            if b.addr != at {
                return Err("blocks do not tile the range");
            }
            if b.size == 0 {
                return Err("zero-size block");
            }
            if b.state == State::Allocated {
                alloc_n += 1;
                alloc_b += b.size;
                if self.map_find(b.addr) != Some(slot) {
                    return Err("allocated block missing from the allocated index");
                }
                prev_free = false;
            } else {
                if prev_free {
                    return Err("two adjacent free blocks");
                }
                free_n += 1;
                if cursor != slot {
                    return Err("free block missing from the address tree or out of order");
                }
                cursor = self.tree_next(cursor);
                prev_free = true;
            }
            at += b.size;
            prev = slot;
            slot = b.next;
        }
        if at != self.config.size {
            return Err("blocks do not reach the end of the range");
        }
        if cursor != NONE || free_n != self.free_count {
            return Err("stale entries in the free index");
        }
        if alloc_n != self.allocated_count || alloc_b != self.allocated_bytes {
            return Err("allocated index or byte count drifted");
        }
        let mapped: usize = (0..BLOCKS).map(|h| self.bucket_len(h)).sum();
        if mapped != alloc_n as usize {
            return Err("stale entries in the allocated index");
        }
        let (mut spare_n, mut s) = (0u32, self.spare);
        while s != NONE {
            spare_n += 1;
            if spare_n as usize > BLOCKS || self.b(s).state != State::Spare {
                return Err("spare stack is corrupt");
            }
            s = self.b(s).next;
        }
        if spare_n != self.spare_len || self.used != (free_n + alloc_n + spare_n) {
            return Err("slot accounting drifted");
        }
        self.check_size_tree(free_n)
    }

    fn bucket_len(&self, h: usize) -> usize {
        let mut n = 0;
        let mut i = self.buckets.get(h).copied().unwrap_or(NONE);
        while i != NONE && n <= BLOCKS {
            n += 1;
            i = self.b(i).left;
        }
        n
    }

    /// Local checks of every address-tree node: links both ways, strict heap order (which
    /// rules out cycles), key order against the children and the augmentation.
    fn check_tree_nodes(&self) -> Result<(), &'static str> {
        if self.root != NONE && (!self.is_free(self.root) || self.b(self.root).parent != NONE) {
            return Err("bad address-tree root");
        }
        for (i, b) in self.table().iter().enumerate() {
            let i = i as u32;
            if b.state != State::Free {
                continue;
            }
            if b.parent == NONE && i != self.root {
                return Err("free block not linked into the address tree");
            }
            for (c, left) in [(b.left, true), (b.right, false)] {
                if c == NONE {
                    continue;
                }
                let cb = self.b(c);
                if cb.state != State::Free || cb.parent != i || priority(c) >= priority(i) {
                    return Err("address-tree link or heap order broken");
                }
                if (cb.addr < b.addr) != left {
                    return Err("address tree out of order");
                }
            }
            if b.max_left != self.max_of(b.left) || b.max_right != self.max_of(b.right) {
                return Err("address-tree augmentation drifted");
            }
        }
        Ok(())
    }

    fn tree_first(&self, mut n: u32) -> u32 {
        while n != NONE && self.b(n).left != NONE {
            n = self.b(n).left;
        }
        n
    }

    /// In-order successor in the address tree.
    fn tree_next(&self, n: u32) -> u32 {
        let b = self.b(n);
        if b.right != NONE {
            return self.tree_first(b.right);
        }
        let (mut child, mut p) = (n, b.parent);
        while p != NONE && self.b(p).right == child {
            child = p;
            p = self.b(p).parent;
        }
        p
    }

    fn size_first(&self, mut n: u32) -> u32 {
        while n != NONE && self.sl(n).left != NONE {
            n = self.sl(n).left;
        }
        n
    }

    /// In-order successor in the size tree.
    fn size_next(&self, n: u32) -> u32 {
        let l = self.sl(n);
        if l.right != NONE {
            return self.size_first(l.right);
        }
        let (mut child, mut p) = (n, l.parent);
        while p != NONE && self.sl(p).right == child {
            child = p;
            p = self.sl(p).parent;
        }
        p
    }

    fn check_size_tree(&self, free_n: u32) -> Result<(), &'static str> {
        if !self.best() {
            return if self.size_root == NONE { Ok(()) } else { Err("size tree linked under FIRST") };
        }
        if self.size_root != NONE && self.sl(self.size_root).parent != NONE {
            return Err("bad size-tree root");
        }
        let mut count = 0u32;
        for (i, l) in self.links_table().iter().enumerate() {
            let i = i as u32;
            if !self.is_free(i) {
                continue;
            }
            count += 1;
            if l.parent == NONE && i != self.size_root {
                return Err("free block not linked into the size tree");
            }
            for (c, left) in [(l.left, true), (l.right, false)] {
                if c == NONE {
                    continue;
                }
                if !self.is_free(c) || self.sl(c).parent != i || priority(c) >= priority(i) {
                    return Err("size-tree link or heap order broken");
                }
                if (self.size_key(c) < self.size_key(i)) != left {
                    return Err("size tree out of order");
                }
            }
        }
        // Local order plus strict heap order gives a tree; check it is one tree of all of them
        // in strictly increasing key order.
        let (mut seen, mut last) = (0u32, None);
        let mut n = self.size_first(self.size_root);
        while n != NONE {
            let key = self.size_key(n);
            if last.is_some_and(|l| l >= key) {
                return Err("size tree out of order");
            }
            last = Some(key);
            seen += 1;
            if seen > count {
                break;
            }
            n = self.size_next(n);
        }
        if seen != count || count != free_n {
            return Err("size tree does not hold exactly the free blocks");
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "invariants_tests.rs"]
mod tests;
