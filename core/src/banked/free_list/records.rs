//! The allocator's public records: policy, configuration, statistics, the blocks in address order.
//! Uses: block_table; used by: bank_manager, device, free_index, sim.
//!
//! The allocator's public records: the policy, the configuration and its address limit, the
//! statistics, and the blocks as listed in address order.

use super::block_table::State;
use super::FreeList;

/// Bits of the largest supported relative address (kept from the original key layout).
const ADDRESS_BITS: u32 = 57;
/// The largest supported `offset + size`.
pub const MAX_ADDRESS: u64 = 1 << ADDRESS_BITS;

/// Placement policy (issue 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Policy {
    /// Exact global first fit: the lowest-address fitting block bottom-up, the
    /// highest-address fitting block top-down.
    #[default]
    First,
    /// The smallest fitting block. Ties (equal sizes) go to the lowest address bottom-up and
    /// to the highest address top-down.
    Best,
}

/// Construction parameters of a [`FreeList`]. Bytes throughout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FreeListConfig {
    /// Size of the managed range, bytes (> 0).
    pub size: u64,
    /// Absolute address of the range's start.
    pub offset: u64,
    /// Requests smaller than this are rounded up to it.
    pub min_allocation: u64,
    /// Request sizes are rounded up to a multiple of this (> 0; need not be a power of two).
    pub alignment: u64,
    /// Placement policy.
    pub policy: Policy,
}

impl FreeListConfig {
    /// Bundles the five parameters; `FLO(size, offset, min, align, policy)` in the cases file.
    pub const fn new(size: u64, offset: u64, min_allocation: u64, alignment: u64, policy: Policy) -> Self {
        Self { size, offset, min_allocation, alignment, policy }
    }
}

/// Allocator statistics (bytes), as the reference's `get_statistics` plus block counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Statistics {
    /// Current allocatable size (shrinks excluded).
    pub total: u64,
    /// Bytes in allocated blocks.
    pub allocated: u64,
    /// Bytes in free blocks (`total - allocated`).
    pub free: u64,
    /// Size of the largest free block (0 when everything is allocated).
    pub largest_free: u64,
    /// Absolute address of the lowest-addressed largest free block.
    pub largest_free_address: Option<u64>,
    /// Number of free blocks.
    pub free_blocks: u32,
    /// Number of allocated blocks.
    pub allocated_blocks: u32,
}

/// One block of the address space, as listed by [`FreeList::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockInfo {
    /// Absolute start address.
    pub address: u64,
    /// Size in bytes (never 0).
    pub size: u64,
    /// Allocated (`true`) or free.
    pub allocated: bool,
}

/// Iterator over the blocks of a [`FreeList`] in address order; see [`FreeList::blocks`].
#[derive(Clone, Debug)]
pub struct Blocks<'a, const BLOCKS: usize> {
    pub(super) list: &'a FreeList<BLOCKS>,
    pub(super) next: u32,
}

impl<const BLOCKS: usize> Iterator for Blocks<'_, BLOCKS> {
    type Item = BlockInfo;

    fn next(&mut self) -> Option<BlockInfo> {
        let b = self.list.table().get(self.next as usize)?;
        self.next = b.next;
        Some(BlockInfo {
            address: b.addr + self.list.config.offset,
            size: b.size,
            allocated: b.state == State::Allocated,
        })
    }
}
