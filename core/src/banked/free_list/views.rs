//! The allocator's read-only views: the free and allocated ranges, a lookup by address, the
//! statistics and the block list (a second `impl` of [`FreeList`], apart from the operations
//! that change it in `mod.rs`).
//! Uses: block_table, records; used by: bank_manager, device, sim (through `FreeList`).

use super::block_table::{State, NONE};
use super::{Blocks, FreeList, Statistics};

impl<const BLOCKS: usize> FreeList<BLOCKS> {
    /// The free blocks that hold `size` bytes (rounded), as absolute `(start, end)` in address
    /// order. O(n) walk of the block list.
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let mut fl = FreeList::<8>::new(FreeListConfig::new(8192, 0, 1024, 1024, Policy::First))?;
    /// fl.allocate(1024, true)?;
    /// let v: Vec<_> = fl.available_addresses(1).collect();
    /// assert_eq!(v, [(1024, 8192)]);
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn available_addresses(&self, size: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let s = self.alloc_size(size).unwrap_or(u64::MAX);
        self.blocks().filter(move |b| !b.allocated && b.size >= s).map(|b| (b.address, b.address + b.size))
    }

    /// The lowest allocated absolute address, if any. O(1): no two free blocks touch, so it
    /// is the first or the second block.
    pub fn lowest_occupied_address(&self) -> Option<u64> {
        let head = self.b(self.head);
        let lowest = if head.state == State::Allocated { head } else { self.b(head.next) };
        (lowest.state == State::Allocated).then(|| lowest.addr + self.config.offset)
    }

    /// The allocated blocks as absolute `(start, end)`, in address order (the reference lists
    /// them in slot order; case P22). O(n) walk of the block list.
    pub fn allocated_addresses(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks().filter(|b| b.allocated).map(|b| (b.address, b.address + b.size))
    }

    /// Size of the allocation starting at absolute `address`, if there is one. O(1) expected.
    pub fn allocation_size(&self, address: u64) -> Option<u64> {
        let rel = address.checked_sub(self.config.offset)?;
        self.map_find(rel).map(|slot| self.b(slot).size)
    }

    /// Current statistics (bytes). O(log n).
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let mut fl = FreeList::<8>::new(FreeListConfig::new(8192, 0, 1024, 1024, Policy::First))?;
    /// fl.allocate(1024, true)?;
    /// let st = fl.statistics();
    /// assert_eq!((st.total, st.allocated, st.free, st.largest_free), (8192, 1024, 7168, 7168));
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn statistics(&self) -> Statistics {
        let total = self.config.size - self.base;
        let largest_free = self.max_of(self.root);
        let largest_free_address = if self.root == NONE {
            None
        } else {
            self.lowest_fit(largest_free).map(|slot| self.b(slot).addr + self.config.offset)
        };
        Statistics {
            total,
            allocated: self.allocated_bytes,
            free: total - self.allocated_bytes,
            largest_free,
            largest_free_address,
            free_blocks: self.free_count,
            allocated_blocks: self.allocated_count,
        }
    }

    /// Every block of the current range in address order (absolute addresses). O(n).
    pub fn blocks(&self) -> Blocks<'_, BLOCKS> {
        Blocks { list: self, next: self.head }
    }
}
