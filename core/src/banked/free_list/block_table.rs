//! The block table: one slot per block, linked in address order, the spare stack, the treap priority.
//! Uses: error; used by: every other file of free_list.
//!
//! The block table: one slot per block (free, allocated or spare), doubly linked in address
//! order, the spare-slot stack, the size-tree links parallel to it and the treap priority of
//! a slot.

use super::FreeList;
use crate::banked::error::BankedError;

/// "No block" in the block table's links.
pub(super) const NONE: u32 = u32::MAX;

/// What a block-table slot currently holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// A free block, linked into the address tree (and the size tree under BEST).
    Free,
    /// An allocated block, linked into the allocated map.
    Allocated,
    /// An unused slot on the spare stack.
    Spare,
}

/// One block-table slot: 56 bytes of fields, aligned to one 64-byte cache line, so a tree
/// descent's step (`size`, `max_left`/`max_right`, `left`/`right`) loads one line, never two.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(super) struct Block {
    /// Start, relative to the allocator's 0.
    pub(super) addr: u64,
    pub(super) size: u64,
    /// Free blocks: the largest `size` in the left subtree of this node's address-tree node
    /// (0 when empty), so a first-fit descent decides at a node without loading a child.
    pub(super) max_left: u64,
    /// Free blocks: likewise for the right subtree.
    pub(super) max_right: u64,
    /// Previous block in address order.
    pub(super) prev: u32,
    /// Next block in address order; for a spare slot, the next spare slot.
    pub(super) next: u32,
    /// Free: left child in the address tree. Allocated: next slot in the same hash bucket.
    pub(super) left: u32,
    /// Free: right child in the address tree.
    pub(super) right: u32,
    /// Free: parent in the address tree (`NONE` at the root).
    pub(super) parent: u32,
    pub(super) state: State,
}

impl Block {
    pub(super) const VOID: Self = Self::new(0, 0, NONE, NONE, State::Spare);

    pub(super) const fn new(addr: u64, size: u64, prev: u32, next: u32, state: State) -> Self {
        Self {
            addr,
            size,
            max_left: 0,
            max_right: 0,
            prev,
            next,
            left: NONE,
            right: NONE,
            parent: NONE,
            state,
        }
    }
}

/// The size-tree links of one slot (used under BEST only), parallel to the block table.
#[derive(Clone, Copy, Debug)]
pub(super) struct SizeLinks {
    pub(super) left: u32,
    pub(super) right: u32,
    pub(super) parent: u32,
}

impl SizeLinks {
    pub(super) const VOID: Self = Self { left: NONE, right: NONE, parent: NONE };
}

/// Treap priority of a slot: murmur3's 32-bit finaliser, a bijection, so no two slots tie.
pub(super) const fn priority(slot: u32) -> u32 {
    let mut h = slot;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

pub(super) fn table_full(capacity: usize) -> BankedError {
    BankedError::CapacityExhausted {
        table: "block table",
        capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
    }
}

/// Block table, slot stack and linked-list plumbing.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    pub(super) fn b(&self, slot: u32) -> &Block {
        self.blocks.get(slot as usize).unwrap_or(&Block::VOID)
    }

    pub(super) fn m(&mut self, slot: u32) -> &mut Block {
        match self.blocks.get_mut(slot as usize) {
            Some(b) => b,
            None => &mut self.scratch,
        }
    }

    pub(super) fn sl(&self, slot: u32) -> &SizeLinks {
        self.size_links.get(slot as usize).unwrap_or(&SizeLinks::VOID)
    }

    pub(super) fn sm(&mut self, slot: u32) -> &mut SizeLinks {
        match self.size_links.get_mut(slot as usize) {
            Some(l) => l,
            None => &mut self.scratch_links,
        }
    }

    pub(super) fn is_free(&self, slot: u32) -> bool {
        // `NONE` reads as `Block::VOID`, a spare slot.
        self.b(slot).state == State::Free
    }

    pub(super) fn slots_available(&self) -> usize {
        self.spare_len as usize + (BLOCKS - self.used as usize)
    }

    /// The slots handed out since the last clear.
    pub(super) fn table(&self) -> &[Block] {
        self.blocks.get(..self.used as usize).unwrap_or(&[])
    }

    /// The size links of the slots handed out since the last clear.
    pub(super) fn links_table(&self) -> &[SizeLinks] {
        self.size_links.get(..self.used as usize).unwrap_or(&[])
    }

    pub(super) fn new_slot(&mut self, block: Block) -> Result<u32, BankedError> {
        if self.spare != NONE {
            let slot = self.spare;
            self.spare = self.b(slot).next;
            self.spare_len -= 1;
            *self.m(slot) = block;
            *self.sm(slot) = SizeLinks::VOID;
            return Ok(slot);
        }
        let slot = self.used;
        if slot as usize >= BLOCKS {
            return Err(table_full(BLOCKS));
        }
        self.used += 1;
        *self.m(slot) = block;
        *self.sm(slot) = SizeLinks::VOID;
        Ok(slot)
    }

    /// Puts an unlinked slot on the spare stack.
    pub(super) fn retire(&mut self, slot: u32) {
        let spare = self.spare;
        *self.m(slot) = Block { next: spare, ..Block::VOID };
        self.spare = slot;
        self.spare_len += 1;
    }

    /// Links the new block `a` into the address list right before `at`.
    pub(super) fn link_before(&mut self, a: u32, at: u32) {
        let prev = self.b(at).prev;
        let n = self.m(a);
        n.prev = prev;
        n.next = at;
        if prev == NONE {
            self.head = a;
        } else {
            self.m(prev).next = a;
        }
        self.m(at).prev = a;
    }

    /// Links the new block `a` into the address list right after `at`.
    pub(super) fn link_after(&mut self, a: u32, at: u32) {
        let next = self.b(at).next;
        let n = self.m(a);
        n.prev = at;
        n.next = next;
        if next != NONE {
            self.m(next).prev = a;
        }
        self.m(at).next = a;
    }

    /// Removes `slot` from the address list.
    pub(super) fn unlink(&mut self, slot: u32) {
        let Block { prev, next, .. } = *self.b(slot);
        if prev == NONE {
            self.head = next;
        } else {
            self.m(prev).next = next;
        }
        if next != NONE {
            self.m(next).prev = prev;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::priority;

    /// The treap priority is murmur3's 32-bit finaliser (`fmix32`): its values on fixed
    /// slots, and no two of the first 4,096 slots tie (it is a bijection).
    #[test]
    fn priority_is_murmur3_fmix32() {
        let want = [(0, 0), (1, 0x514e_28b7), (2, 0x30f4_c306), (3, 0x85f0_b427), (255, 0x6c63_d583)];
        for (slot, p) in want {
            assert_eq!(priority(slot), p, "slot {slot}");
        }
        assert_eq!((priority(65_535), priority(u32::MAX - 1)), (0xa23b_ae67, 0x7995_c304));
        let mut all = [0u32; 4096];
        for (slot, v) in all.iter_mut().enumerate() {
            *v = priority(slot as u32);
        }
        all.sort_unstable();
        assert_eq!(all.windows(2).filter(|w| w[0] == w[1]).count(), 0);
    }
}
