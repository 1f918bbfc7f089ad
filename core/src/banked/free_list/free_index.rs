//! The free-block indexes together: both trees kept in step, and the policy's choice of a block.
//! Uses: block_table, records; used by: mod.rs, invariants.
//!
//! The free-block indexes together: a block freed, taken or resized goes into (out of) the
//! address tree and, under BEST, the size tree; the policy's choice of a free block.

use super::block_table::State;
use super::records::Policy;
use super::FreeList;

/// The free-block indexes together.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    pub(super) fn best(&self) -> bool {
        self.config.policy == Policy::Best
    }

    /// Marks `slot` free and indexes it.
    pub(super) fn index_free(&mut self, slot: u32) {
        self.m(slot).state = State::Free;
        self.tree_insert(slot);
        if self.best() {
            self.size_insert(slot);
        }
        self.free_count += 1;
    }

    pub(super) fn unindex_free(&mut self, slot: u32) {
        self.tree_remove(slot);
        if self.best() {
            self.size_remove(slot);
        }
        self.free_count -= 1;
    }

    /// Moves the indexed free block `slot` to `[addr, addr + size)`; its neighbours in address
    /// order among the free blocks must stay the same.
    #[inline(always)]
    pub(super) fn resize_free(&mut self, slot: u32, addr: u64, size: u64) {
        let best = self.best();
        if best {
            self.size_remove(slot);
        }
        let b = self.m(slot);
        b.addr = addr;
        b.size = size;
        self.refresh_above(slot);
        if best {
            self.size_insert(slot);
        }
    }

    /// Finds the free block the policy would use for `s` bytes (already rounded).
    pub(super) fn find_block(&self, s: u64, bottom_up: bool) -> Option<u32> {
        match (self.config.policy, bottom_up) {
            (Policy::First, true) => self.lowest_fit(s),
            (Policy::First, false) => self.highest_fit(s),
            (Policy::Best, _) => self.best_fit(s, bottom_up),
        }
    }
}
