//! [`FreeList`]: one address-space allocator with a fixed-capacity block table, no heap.
//! Uses: error; used by: bank_manager, device, sim.
//!
//! [`FreeList`]: one address-space allocator over `[offset, offset + size)` with a fixed-capacity
//! block table and no heap.
//!
//! Follows the reference's FreeListOpt (`banked-allocator.md` §1.2, seed 004 §2 "Lockstep
//! Allocation": "Managing allocations and deallocations is currently done using a free list"),
//! with these deliberate differences:
//!
//! * unknown and double frees are errors ([`BankedError::UnknownFree`],
//!   [`BankedError::DoubleFree`]); the reference silently ignores them;
//! * a failed address-limit check leaves nothing allocated (the reference leaks the block);
//! * a zero-size request is an error ([`BankedError::ZeroSize`]; the reference rounds it up to
//!   the minimum, its `Buffer` refuses it), and the range's size must be on the alignment grid
//!   as its offset must ([`BankedError::MisalignedConfig`]; the reference asserts the offset);
//! * [`FreeList::clear`] also resets the lowest occupied address;
//! * BEST is a true best fit (smallest fitting block), not best-fit by size class;
//! * [`FreeList::allocated_addresses`] and [`FreeList::available_addresses`] are in address order.
//!
//! # Structure and complexity
//!
//! `n` = number of blocks (at most `BLOCKS`); every structure lives in fixed arrays indexed by
//! block-table slot, linked by `u32` slot numbers, so nothing is ever moved in bulk.
//!
//! * **Block table** (`block_table.rs`): a fixed array of `BLOCKS` slots (so a slot lookup
//!   tests against a constant, not a vector's length), doubly linked in address order; slots
//!   freed by merging go on a LIFO stack (linked through the table) and are reused first.
//! * **Address tree** (`address_tree.rs`): the free blocks in a treap ordered by address,
//!   each node augmented with the largest free size in its left and in its right subtree, so
//!   a descent decides at a node from that node alone (one dependent load per level); an
//!   update carries the changed maximum up, one parent read a level, and writes both sides
//!   with selects (no branch on the side). FIRST is one descent: the lowest-address
//!   fitting block (left first) bottom-up, the highest (right first) top-down. The largest
//!   free block of [`FreeList::statistics`] is the root's augmentation plus one descent.
//! * **Size tree** (`size_tree.rs`, BEST only): the free blocks in a second treap ordered by
//!   `(size, address)`; BEST is one or two descents.
//! * **Allocated map** (`allocated_map.rs`): a chained hash table of `BLOCKS` buckets from
//!   address to slot, for [`FreeList::free`] and [`FreeList::allocation_size`].
//!
//! `free_index.rs` keeps the two trees in step and picks a block by policy; `failures.rs`
//! builds the errors of failed requests; `records.rs` holds the public records
//! ([`Policy`], [`FreeListConfig`], [`Statistics`], [`BlockInfo`]); `invariants.rs` checks
//! the whole structure ([`FreeList::check_invariants`]); `views.rs` the read-only views (free
//! and allocated ranges, statistics, the block list). This file is the algorithm: the public
//! operations that change the allocator, each a few calls into those parts.
//!
//! Treap priorities are a fixed bijective hash of the slot number, so the trees are balanced in
//! expectation (depth `O(log n)`) and the whole structure is deterministic. Splitting a free
//! block keeps its tree node (the remainder has the same place in address order) and only
//! re-propagates the augmentation, so the common allocation path does no tree insertion at all.
//!
//! | operation | time |
//! |---|---|
//! | `allocate`, `find`, `can_allocate` | `O(log n)` expected |
//! | `allocate_at` | `O(log n)`; the [`BankedError::Overlap`] error path walks the allocated blocks between the preceding free block and `address` |
//! | `free` | `O(1)` lookup + `O(log n)` tree update |
//! | `statistics` | `O(log n)` |
//! | `lowest_occupied_address` | `O(1)` |
//! | `shrink`, `reset` | `O(log n)` |
//! | `clear` | `O(BLOCKS)` (bucket reset) |
//! | `blocks`, `available_addresses`, `allocated_addresses` | `O(n)` walk in address order |
//!
//! All sizes and addresses are bytes. Addresses passed in and returned are absolute
//! (`offset` included).

mod address_tree;
mod allocated_map;
mod block_table;
mod failures;
mod free_index;
mod invariants;
mod records;
mod size_tree;
mod views;

use super::error::BankedError;
use block_table::{table_full, Block, SizeLinks, State, NONE};
pub use records::{BlockInfo, Blocks, FreeListConfig, Policy, Statistics, MAX_ADDRESS};

/// A free-list address allocator with room for `BLOCKS` blocks (free + allocated).
///
/// Capacity exhaustion is an error ([`BankedError::CapacityExhausted`]) that leaves the
/// allocator unchanged. `BLOCKS` must be in `1..=u32::MAX - 1` (checked at compile time).
/// Footprint: 80 bytes per block (a 64-byte block-table slot, 12 bytes of size-tree links and
/// a 4-byte hash bucket) plus about 200 bytes.
///
/// ```
/// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
/// const K: u64 = 1024;
/// let mut fl = FreeList::<64>::new(FreeListConfig::new(1 << 30, 0, K, K, Policy::First))?;
/// assert_eq!(fl.allocate(1, true)?, 0);        // rounded to 1 KiB
/// assert_eq!(fl.allocate(K, false)?, (1 << 30) - K); // top-down takes the end
/// fl.free(0)?;
/// assert!(fl.free(0).is_err());                // double free is an error
/// # Ok::<(), dramalloc_core::banked::BankedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct FreeList<const BLOCKS: usize> {
    config: FreeListConfig,
    /// The block table; slots `used..` have never been handed out since the last clear.
    /// A fixed array (not a vector), so a slot lookup tests against a constant.
    blocks: [Block; BLOCKS],
    /// Parallel to `blocks`; only linked under [`Policy::Best`].
    size_links: [SizeLinks; BLOCKS],
    /// Slots handed out since the last clear (the table's high-water mark).
    used: u32,
    /// Allocated map: first slot of each hash bucket.
    buckets: [u32; BLOCKS],
    /// Top of the spare-slot stack.
    spare: u32,
    spare_len: u32,
    /// Lowest block in address order.
    head: u32,
    /// Root of the address tree.
    root: u32,
    /// Root of the size tree.
    size_root: u32,
    free_count: u32,
    allocated_count: u32,
    /// Bytes shrunk off the bottom (relative).
    base: u64,
    allocated_bytes: u64,
    /// Write sink for out-of-range slots (never happens while the invariants hold); keeps the
    /// hot path free of panics.
    scratch: Block,
    /// Likewise for `size_links`.
    scratch_links: SizeLinks,
}

impl<const BLOCKS: usize> FreeList<BLOCKS> {
    const CAPACITY_OK: () = assert!(BLOCKS >= 1 && (BLOCKS as u64) < u32::MAX as u64);

    /// Creates an allocator with one free block covering the whole range.
    ///
    /// # Errors
    /// [`BankedError::InvalidConfig`] when `size == 0` or `alignment == 0`;
    /// [`BankedError::RangeTooLarge`] when `offset + size > MAX_ADDRESS` (2^57) or overflows;
    /// [`BankedError::MisalignedConfig`] naming `offset` or `size` when it is not a multiple
    /// of `alignment`: both ends of the range are on the grid, so every address handed out
    /// (bottom-up at a block start, top-down at a block end) is `offset` plus a multiple of
    /// `alignment` (the reference asserts the offset, seed 004 §2.1).
    ///
    /// ```
    /// use dramalloc_core::banked::{BankedError, FreeList, FreeListConfig, Policy};
    /// assert!(FreeList::<4>::new(FreeListConfig::new(0, 0, 1, 1, Policy::First)).is_err());
    /// assert_eq!(
    ///     FreeList::<4>::new(FreeListConfig::new(1000, 0, 32, 32, Policy::First)).unwrap_err(),
    ///     BankedError::MisalignedConfig { what: "size", value: 1000, alignment: 32 }
    /// );
    /// ```
    pub fn new(config: FreeListConfig) -> Result<Self, BankedError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_OK;
        if config.size == 0 {
            return Err(BankedError::InvalidConfig { what: "size", value: 0 });
        }
        if config.alignment == 0 {
            return Err(BankedError::InvalidConfig { what: "alignment", value: 0 });
        }
        if config.offset.checked_add(config.size).is_none_or(|end| end > MAX_ADDRESS) {
            let (offset, size) = (config.offset, config.size);
            return Err(BankedError::RangeTooLarge { offset, size, limit: MAX_ADDRESS });
        }
        for (what, value) in [("offset", config.offset), ("size", config.size)] {
            if !value.is_multiple_of(config.alignment) {
                return Err(BankedError::MisalignedConfig { what, value, alignment: config.alignment });
            }
        }
        let mut fl = Self {
            config,
            blocks: [Block::VOID; BLOCKS],
            size_links: [SizeLinks::VOID; BLOCKS],
            used: 0,
            buckets: [NONE; BLOCKS],
            spare: NONE,
            spare_len: 0,
            head: NONE,
            root: NONE,
            size_root: NONE,
            free_count: 0,
            allocated_count: 0,
            base: 0,
            allocated_bytes: 0,
            scratch: Block::VOID,
            scratch_links: SizeLinks::VOID,
        };
        fl.clear();
        Ok(fl)
    }

    /// The configuration this allocator was built with.
    pub const fn config(&self) -> &FreeListConfig {
        &self.config
    }

    /// Absolute start of the current allocatable range (offset plus shrinks).
    pub const fn start(&self) -> u64 {
        self.config.offset + self.base
    }

    /// Absolute end of the range.
    pub const fn end(&self) -> u64 {
        self.config.offset + self.config.size
    }

    /// The rounded size of a request: `align_up(max(size, min), alignment)`, at least
    /// `alignment` (so no block is ever empty).
    ///
    /// # Errors
    /// [`BankedError::Overflow`] when the rounding overflows `u64`.
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let fl = FreeList::<4>::new(FreeListConfig::new(1 << 20, 0, 1, 1024, Policy::First))?;
    /// assert_eq!(fl.alloc_size(64)?, 1024);
    /// assert_eq!(fl.alloc_size(0)?, 1024);
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn alloc_size(&self, size: u64) -> Result<u64, BankedError> {
        let a = self.config.alignment;
        let s = size.max(self.config.min_allocation).max(1);
        let overflow = BankedError::Overflow { value: size };
        if a.is_power_of_two() {
            // The common case, without a division.
            let m = a - 1;
            return s.checked_add(m).map(|t| t & !m).ok_or(overflow);
        }
        s.div_ceil(a).checked_mul(a).ok_or(overflow)
    }

    /// Carves `[start, start + s)` (relative) out of the free block `slot`, which must
    /// contain it. Checks table capacity first, so an error changes nothing.
    ///
    /// The free block keeps its slot and tree node for the left remainder (or, without one,
    /// for the right remainder), so only a middle split inserts a tree node.
    fn place(&mut self, slot: u32, start: u64, s: u64) -> Result<(), BankedError> {
        let b = *self.b(slot);
        let end = start + s;
        let b_end = b.addr + b.size;
        let left = start > b.addr;
        let right = end < b_end;
        if self.slots_available() < usize::from(left) + usize::from(right) {
            return Err(table_full(BLOCKS));
        }
        let allocated = Block::new(start, s, NONE, NONE, State::Allocated);
        let a = match (left, right) {
            (false, false) => {
                self.unindex_free(slot);
                let m = self.m(slot);
                m.state = State::Allocated;
                m.left = NONE;
                slot
            }
            (false, true) => {
                let a = self.new_slot(allocated)?;
                self.link_before(a, slot);
                self.resize_free(slot, end, b_end - end);
                a
            }
            (true, false) => {
                let a = self.new_slot(allocated)?;
                self.link_after(a, slot);
                self.resize_free(slot, b.addr, start - b.addr);
                a
            }
            (true, true) => {
                let a = self.new_slot(allocated)?;
                self.link_after(a, slot);
                let r = self.new_slot(Block::new(end, b_end - end, NONE, NONE, State::Free))?;
                self.link_after(r, a);
                self.resize_free(slot, b.addr, start - b.addr);
                self.index_free(r);
                a
            }
        };
        self.map_insert(a);
        self.allocated_bytes += s;
        self.allocated_count += 1;
        Ok(())
    }

    /// Where an allocation of `size` bytes would go (absolute), without allocating; `None`
    /// when it would fail (`size == 0` included). O(log n).
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let fl = FreeList::<4>::new(FreeListConfig::new(8192, 0, 1024, 1024, Policy::First))?;
    /// assert_eq!(fl.find(1, false), Some(7168));
    /// assert_eq!(fl.find(9000, true), None);
    /// assert_eq!(fl.find(0, true), None);
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn find(&self, size: u64, bottom_up: bool) -> Option<u64> {
        if size == 0 {
            return None;
        }
        let s = self.alloc_size(size).ok()?;
        let slot = self.find_block(s, bottom_up)?;
        let b = self.b(slot);
        let rel = if bottom_up { b.addr } else { b.addr + b.size - s };
        Some(rel + self.config.offset)
    }

    /// Whether an allocation of `size` bytes would succeed now (largest free block, not
    /// total free, decides: field case B05).
    pub fn can_allocate(&self, size: u64) -> bool {
        self.find(size, true).is_some()
    }

    /// Allocates `size` bytes (rounded by [`Self::alloc_size`]); bottom-up places at the start
    /// of the chosen block, top-down at its end. Returns the absolute address. O(log n).
    ///
    /// # Errors
    /// [`BankedError::ZeroSize`] when `size == 0` (the reference rounds it up to the minimum;
    /// its `Buffer` refuses it); [`BankedError::OutOfMemory`] when no block fits (with
    /// full/fragmented verdict); [`BankedError::CapacityExhausted`] when the block table has no
    /// room for the split. Nothing changes on error.
    pub fn allocate(&mut self, size: u64, bottom_up: bool) -> Result<u64, BankedError> {
        self.allocate_with_limit(size, bottom_up, 0)
    }

    /// As [`Self::allocate`], but fails with [`BankedError::BelowAddressLimit`] — leaving
    /// nothing allocated — when the chosen absolute address is below `address_limit`.
    ///
    /// # Errors
    /// As [`Self::allocate`], plus [`BankedError::BelowAddressLimit`].
    pub fn allocate_with_limit(
        &mut self,
        size: u64,
        bottom_up: bool,
        address_limit: u64,
    ) -> Result<u64, BankedError> {
        if size == 0 {
            return Err(BankedError::ZeroSize { buffer_type: None });
        }
        let s = self.alloc_size(size)?;
        let slot = self.find_block(s, bottom_up).ok_or_else(|| self.oom(size, s))?;
        let b = self.b(slot);
        let rel = if bottom_up { b.addr } else { b.addr + b.size - s };
        let abs = rel + self.config.offset;
        if abs < address_limit {
            return Err(BankedError::BelowAddressLimit { address: abs, limit: address_limit });
        }
        self.place(slot, rel, s)?;
        Ok(abs)
    }

    /// Allocates exactly `[address, address + alloc_size(size))` (absolute). `address` must be
    /// on the allocator's grid (the offset plus a multiple of the alignment), as the legacy
    /// FreeList asserts; the reference's FreeListOpt does not check, and a block off the grid
    /// put every later allocation above it off the grid too. O(log n) on success.
    ///
    /// # Errors
    /// [`BankedError::ZeroSize`] when `size == 0`; [`BankedError::MisalignedConfig`]
    /// (`what: "address"`) for a free range at an address off the grid;
    /// [`BankedError::Overlap`] naming the live block in the way (the one containing
    /// `address`, else the first one after it); [`BankedError::OutOfRange`] when the range
    /// leaves the current allocatable range (e.g. below a shrink);
    /// [`BankedError::CapacityExhausted`]. Finding the block that contains `address` walks
    /// the allocated blocks between the free block below `address` and it.
    ///
    /// ```
    /// use dramalloc_core::banked::{BankedError, FreeList, FreeListConfig, Policy};
    /// let mut fl = FreeList::<8>::new(FreeListConfig::new(65536, 0, 32, 32, Policy::First))?;
    /// assert_eq!(fl.allocate_at(16384, 8192)?, 16384);
    /// assert!(matches!(fl.allocate_at(20000, 64), Err(BankedError::Overlap { conflict_address: 16384, .. })));
    /// # Ok::<(), BankedError>(())
    /// ```
    pub fn allocate_at(&mut self, address: u64, size: u64) -> Result<u64, BankedError> {
        if size == 0 {
            return Err(BankedError::ZeroSize { buffer_type: None });
        }
        let s = self.alloc_size(size)?;
        let out_of_range = BankedError::OutOfRange { address, size: s, start: self.start(), end: self.end() };
        let Some(rel) = address.checked_sub(self.config.offset) else {
            return Err(out_of_range);
        };
        match rel.checked_add(s) {
            Some(e) if rel >= self.base && e <= self.config.size => {}
            _ => return Err(out_of_range),
        }
        let overlap = |b: &Block| BankedError::Overlap {
            address,
            size: s,
            conflict_address: b.addr + self.config.offset,
            conflict_size: b.size,
        };
        let below = self.free_at_or_below(rel);
        let mut walk = self.head;
        if let Some(f) = below {
            let fb = self.b(f);
            let f_end = fb.addr + fb.size;
            if f_end >= rel + s {
                // on the grid every address is on: a block off it would put every later
                // allocation above it off it too (a fresh-user trial: `allocate_at(33, 1)` at
                // alignment 32, then `allocate` gave 65)
                let alignment = self.config.alignment;
                if !rel.is_multiple_of(alignment) {
                    return Err(BankedError::MisalignedConfig { what: "address", value: address, alignment });
                }
                self.place(f, rel, s)?;
                return Ok(address);
            }
            if f_end > rel {
                // `rel` is free but the block is too short: the next block is allocated (no
                // two free blocks touch) and starts before `rel + s`.
                return Err(overlap(self.b(fb.next)));
            }
            walk = fb.next;
        }
        // `rel` lies inside an allocated block after the free block below it (or the head).
        while walk != NONE {
            let b = self.b(walk);
            if b.addr + b.size > rel {
                return Err(overlap(b));
            }
            walk = b.next;
        }
        // Unreachable while the invariants hold: the blocks tile the range.
        Err(out_of_range)
    }

    /// Frees the allocation starting at `address` (absolute), merging it with free neighbours.
    /// Returns the freed size in bytes. O(1) lookup plus O(log n) index update.
    ///
    /// # Errors
    /// [`BankedError::DoubleFree`] when `address` lies in free memory of the range;
    /// [`BankedError::UnknownFree`] otherwise (outside the range, or inside an allocation).
    /// The state is unchanged on error. (The reference silently ignores both.)
    pub fn free(&mut self, address: u64) -> Result<u64, BankedError> {
        let found = address.checked_sub(self.config.offset).and_then(|rel| self.map_take(rel));
        let Some(slot) = found else {
            return Err(self.classify_bad_free(address));
        };
        let b = *self.b(slot);
        self.allocated_bytes -= b.size;
        self.allocated_count -= 1;
        let prev_free = self.is_free(b.prev);
        let next_free = self.is_free(b.next);
        match (prev_free, next_free) {
            (false, false) => self.index_free(slot),
            (true, false) => {
                let p = *self.b(b.prev);
                self.unlink(slot);
                self.retire(slot);
                self.resize_free(b.prev, p.addr, p.size + b.size);
            }
            (false, true) => {
                // Same place among the free blocks: nothing free lies between them.
                let n = *self.b(b.next);
                self.unlink(slot);
                self.retire(slot);
                self.resize_free(b.next, b.addr, n.size + b.size);
            }
            (true, true) => {
                let p = *self.b(b.prev);
                let n = *self.b(b.next);
                self.unindex_free(b.next);
                self.unlink(slot);
                self.unlink(b.next);
                self.retire(slot);
                self.retire(b.next);
                self.resize_free(b.prev, p.addr, p.size + b.size + n.size);
            }
        }
        Ok(b.size)
    }

    /// Frees everything and undoes all shrinks: one free block over the whole range. Also
    /// resets the lowest occupied address (the reference does not). O(BLOCKS).
    pub fn clear(&mut self) {
        self.buckets = [NONE; BLOCKS];
        self.spare = NONE;
        self.spare_len = 0;
        self.root = NONE;
        self.size_root = NONE;
        self.free_count = 0;
        self.allocated_count = 0;
        self.base = 0;
        self.allocated_bytes = 0;
        // BLOCKS >= 1 (compile-time check), so an empty table takes one block.
        self.used = 1;
        *self.m(0) = Block::new(0, self.config.size, NONE, NONE, State::Free);
        *self.sm(0) = SizeLinks::VOID;
        self.head = 0;
        self.index_free(0);
    }

    /// Removes `bytes` from the bottom of the allocatable range. Shrinks accumulate until
    /// [`Self::reset`]. O(log n).
    ///
    /// # Errors
    /// [`BankedError::MisalignedConfig`] (`what: "shrink"`) when `bytes` is not a multiple of
    /// the alignment: the new start would be off the grid every address is on (a fresh-user
    /// trial: `shrink(33)` at alignment 32 was accepted and handed out address 33);
    /// [`BankedError::ShrinkTooLarge`] when `bytes >=` the current size ("must be smaller than
    /// max size", case P10); [`BankedError::ShrinkPastAllocation`] when a live allocation starts
    /// below the new start. Nothing changes on error.
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let mut fl = FreeList::<8>::new(FreeListConfig::new(1024, 0, 32, 32, Policy::First))?;
    /// fl.shrink(64)?;
    /// assert_eq!(fl.allocate(32, true)?, 64);
    /// fl.reset()?;
    /// assert_eq!(fl.allocate(32, true)?, 0);
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn shrink(&mut self, bytes: u64) -> Result<(), BankedError> {
        if bytes == 0 {
            return Ok(());
        }
        let alignment = self.config.alignment;
        if !bytes.is_multiple_of(alignment) {
            return Err(BankedError::MisalignedConfig { what: "shrink", value: bytes, alignment });
        }
        let max_size = self.config.size - self.base;
        if bytes >= max_size {
            return Err(BankedError::ShrinkTooLarge { bytes, max_size });
        }
        let new_base = self.base + bytes;
        if let Some(lowest) = self.lowest_occupied_address() {
            if lowest - self.config.offset < new_base {
                return Err(BankedError::ShrinkPastAllocation { bytes, address: lowest });
            }
        }
        // The head block is free and reaches at least new_base.
        let head = self.head;
        let h = *self.b(head);
        if h.size == bytes {
            self.unindex_free(head);
            self.unlink(head);
            self.retire(head);
        } else {
            self.resize_free(head, new_base, h.size - bytes);
        }
        self.base = new_base;
        Ok(())
    }

    /// Undoes all shrinks. O(log n).
    ///
    /// # Errors
    /// [`BankedError::CapacityExhausted`] when the lowest block is allocated and no table slot
    /// is left for the restored free block; nothing changes then.
    pub fn reset(&mut self) -> Result<(), BankedError> {
        if self.base == 0 {
            return Ok(());
        }
        let head = self.head;
        let h = *self.b(head);
        if h.state == State::Free {
            self.resize_free(head, 0, h.size + h.addr);
        } else {
            if self.slots_available() == 0 {
                return Err(table_full(BLOCKS));
            }
            let slot = self.new_slot(Block::new(0, self.base, NONE, NONE, State::Free))?;
            self.link_before(slot, head);
            self.index_free(slot);
        }
        self.base = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1024;

    fn flo(size: u64, policy: Policy) -> FreeList<64> {
        match FreeList::new(FreeListConfig::new(size, 0, K, K, policy)) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn first_fit_top_down_takes_highest() -> Result<(), BankedError> {
        let mut fl = flo(64 * K, Policy::First);
        fl.allocate_at(32 * K, K)?;
        assert_eq!(fl.allocate(K, true)?, 0);
        assert_eq!(fl.allocate(K, false)?, 63 * K);
        fl.check_invariants().map_err(|_| BankedError::Overflow { value: 0 })?;
        Ok(())
    }

    #[test]
    fn table_full_is_an_error_and_changes_nothing() -> Result<(), BankedError> {
        let mut fl = FreeList::<3>::new(FreeListConfig::new(64 * K, 0, K, K, Policy::First))?;
        assert_eq!(fl.allocate(K, true)?, 0);
        assert_eq!(fl.allocate(K, true)?, K);
        // 3 blocks used: [0,1K) [1K,2K) [2K,64K). A middle alloc_at needs two more.
        let before = fl.statistics();
        assert!(matches!(fl.allocate_at(10 * K, K), Err(BankedError::CapacityExhausted { capacity: 3, .. })));
        assert_eq!(fl.statistics(), before);
        assert!(fl.check_invariants().is_ok());
        Ok(())
    }

    #[test]
    fn overlap_names_the_block_containing_the_address() -> Result<(), BankedError> {
        let mut fl = flo(64 * K, Policy::First);
        for _ in 0..10 {
            fl.allocate(K, true)?;
        }
        // [0, 10K) allocated in ten blocks, no free block below 7.5K.
        let e = fl.allocate_at(7 * K + 512, K);
        assert!(
            matches!(e, Err(BankedError::Overlap { conflict_address: a, conflict_size: K, .. }) if a == 7 * K)
        );
        fl.free(8 * K)?;
        // 7.5K is allocated, 8K free: still the block containing the address.
        assert!(
            matches!(fl.allocate_at(7 * K + 512, K), Err(BankedError::Overlap { conflict_address: a, .. }) if a == 7 * K)
        );
        // 8.5K is free but [8.5K, 9.5K) runs into the block at 9K.
        assert!(
            matches!(fl.allocate_at(8 * K + 512, K), Err(BankedError::Overlap { conflict_address: a, .. }) if a == 9 * K)
        );
        Ok(())
    }

    #[test]
    fn best_ties_go_low_bottom_up_and_high_top_down() -> Result<(), BankedError> {
        let mut fl = flo(64 * K, Policy::Best);
        let mut at = 0;
        for _ in 0..4 {
            fl.allocate_at(at + 2 * K, K)?; // leaves 2K holes at 0, 3K, 6K, 9K
            at += 3 * K;
        }
        // Four 2K holes at 0, 3K, 6K and 9K, then the tail [12K, 64K).
        assert_eq!(fl.find(K, true), Some(0));
        assert_eq!(fl.find(K, false), Some(10 * K));
        assert_eq!(fl.allocate(2 * K + 256, true)?, 12 * K); // rounds to 3K: only the tail fits
        fl.free(2 * K)?; // merges into the hole [0, 5K): the smallest fit for 3K, top-down = its end
        assert_eq!(fl.allocate(3 * K, false)?, 2 * K);
        assert!(fl.check_invariants().is_ok());
        Ok(())
    }

    /// The footprint the type's docs give: 80 bytes a block.
    #[test]
    fn a_block_costs_80_bytes() {
        let (small, large) = (core::mem::size_of::<FreeList<64>>(), core::mem::size_of::<FreeList<1024>>());
        assert_eq!((large - small) / (1024 - 64), 80);
        assert!(small - 64 * 80 <= 256, "fixed part {}", small - 64 * 80);
    }

    #[test]
    fn churn_keeps_every_index_consistent() -> Result<(), BankedError> {
        let mut fl = FreeList::<256>::new(FreeListConfig::new(1 << 20, 4096, 64, 64, Policy::Best))?;
        let mut live = [0u64; 256];
        let mut n = 0;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        // Miri: a 300-step prefix (the full churn takes minutes there).
        let steps = if cfg!(miri) { 300 } else { 4000 };
        for step in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if n > 0 && (x % 5 < 2 || n == live.len()) {
                let i = (x >> 8) as usize % n;
                fl.free(live[i])?;
                n -= 1;
                live[i] = live[n];
            } else if let Ok(a) = fl.allocate((x >> 20) % 8192, step % 3 != 0) {
                live[n] = a;
                n += 1;
            }
            assert_eq!(fl.check_invariants(), Ok(()));
            let st = fl.statistics();
            let largest =
                fl.blocks().filter(|b| !b.allocated).max_by_key(|b| (b.size, core::cmp::Reverse(b.address)));
            assert_eq!(st.largest_free_address, largest.map(|b| b.address));
            assert_eq!(st.allocated_blocks as usize, n);
        }
        Ok(())
    }
}
