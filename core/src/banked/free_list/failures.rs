//! How a failed request is reported: out of memory, double free or unknown free.
//! Uses: error; used by: mod.rs.

use super::FreeList;
use crate::banked::error::{BankedError, OutOfMemory};

/// The error values of failed requests.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    /// The out-of-memory error of a request of `request` bytes (`s` after rounding).
    /// O(1): the figures [`FreeList::statistics`] gives, without its descent for the
    /// largest block's address.
    pub(super) fn oom(&self, request: u64, s: u64) -> BankedError {
        let total = self.config.size - self.base;
        let free = total - self.allocated_bytes;
        BankedError::OutOfMemory(OutOfMemory {
            buffer_type: None,
            request,
            num_banks: 1,
            per_bank: s,
            bank_size: total,
            allocated: self.allocated_bytes,
            free,
            largest_free: self.max_of(self.root),
            kind: OutOfMemory::classify(s, free),
        })
    }

    /// Why freeing `address` failed: [`BankedError::DoubleFree`] inside free memory of the
    /// range, else [`BankedError::UnknownFree`]. No range test is needed: the blocks tile
    /// `[base, size)`, so an address below a shrink has no free block at or below it, and one
    /// at or past the end lies past the end of the last free block.
    pub(super) fn classify_bad_free(&self, address: u64) -> BankedError {
        let Some(rel) = address.checked_sub(self.config.offset) else {
            return BankedError::UnknownFree { address };
        };
        match self.free_at_or_below(rel) {
            Some(f) if self.b(f).addr + self.b(f).size > rel => BankedError::DoubleFree { address },
            _ => BankedError::UnknownFree { address },
        }
    }
}
