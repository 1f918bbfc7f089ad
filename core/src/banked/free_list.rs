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
//! * [`FreeList::clear`] also resets the lowest occupied address;
//! * BEST is a true best fit (smallest fitting block), not best-fit by size class;
//! * [`FreeList::allocated_addresses`] and [`FreeList::available_addresses`] are in address order.
//!
//! # Structure and complexity
//!
//! `n` = number of blocks (at most `BLOCKS`).
//!
//! * A block table of `BLOCKS` slots, doubly linked in address order; slots freed by merging
//!   go on a LIFO stack and are reused first.
//! * The free blocks in two sorted index arrays: by `(size class, address)` with 64 power-of-two
//!   classes (class `k` holds sizes in `[2^k, 2^(k+1))`), and by `(size, address)`.
//! * The allocated blocks in one array sorted by address.
//!
//! FIRST scans only the request's own size class (every block of a higher class fits, so the
//! first entry of each non-empty higher class is its lowest-address candidate): O(64 + c) where
//! `c` is the length of that one class. BEST is one binary search: O(log n). Placement and free
//! are O(log n) searches plus an O(n) `memmove` of 16–24 byte index entries. Statistics,
//! [`FreeList::lowest_occupied_address`] and the largest free block are O(1)/O(log n).
//!
//! All sizes and addresses are bytes. Addresses passed in and returned are absolute
//! (`offset` included).

use heapless::Vec;

use super::error::{BankedError, OutOfMemory};

/// "No block" in the block table's links.
const NONE: u32 = u32::MAX;
/// Number of power-of-two size classes of the free index.
const CLASSES: u32 = 64;
/// Bits reserved for the relative address inside a class key; ranges must end below 2^57.
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

#[derive(Clone, Copy, Debug)]
struct Block {
    addr: u64,
    size: u64,
    prev: u32,
    next: u32,
    allocated: bool,
    live: bool,
}

/// Free index entry ordered by `(class, address)`; `key = class << 57 | address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ClassKey {
    key: u64,
    slot: u32,
}

/// Free index entry ordered by `(size, address)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SizeKey {
    size: u64,
    addr: u64,
    slot: u32,
}

/// Allocated index entry ordered by address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LiveKey {
    addr: u64,
    slot: u32,
}

fn class_of(size: u64) -> u32 {
    // size > 0 for every block; a 0 would land in class 0.
    63u32.saturating_sub(size.leading_zeros())
}

fn class_key(size: u64, addr: u64) -> u64 {
    (u64::from(class_of(size)) << ADDRESS_BITS) | addr
}

fn table_full(capacity: usize) -> BankedError {
    BankedError::CapacityExhausted {
        table: "block table",
        capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
    }
}

/// A free-list address allocator with room for `BLOCKS` blocks (free + allocated).
///
/// Capacity exhaustion is an error ([`BankedError::CapacityExhausted`]) that leaves the
/// allocator unchanged. `BLOCKS` must be in `1..=u32::MAX - 1` (checked at compile time).
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
    blocks: Vec<Block, BLOCKS>,
    spare: Vec<u32, BLOCKS>,
    head: u32,
    by_class: Vec<ClassKey, BLOCKS>,
    by_size: Vec<SizeKey, BLOCKS>,
    live: Vec<LiveKey, BLOCKS>,
    class_len: [u32; CLASSES as usize],
    class_mask: u64,
    /// Bytes shrunk off the bottom (relative).
    base: u64,
    allocated_bytes: u64,
}

impl<const BLOCKS: usize> FreeList<BLOCKS> {
    const CAPACITY_OK: () = assert!(BLOCKS >= 1 && (BLOCKS as u64) < u32::MAX as u64);

    /// Creates an allocator with one free block covering the whole range.
    ///
    /// # Errors
    /// [`BankedError::InvalidConfig`] when `size == 0`, `alignment == 0` or
    /// `offset + size > MAX_ADDRESS` (2^57).
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// assert!(FreeList::<4>::new(FreeListConfig::new(0, 0, 1, 1, Policy::First)).is_err());
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
        match config.offset.checked_add(config.size) {
            Some(end) if end <= MAX_ADDRESS => {}
            _ => {
                return Err(BankedError::InvalidConfig {
                    what: "offset + size",
                    value: config.offset.saturating_add(config.size),
                })
            }
        }
        let mut fl = Self {
            config,
            blocks: Vec::new(),
            spare: Vec::new(),
            head: NONE,
            by_class: Vec::new(),
            by_size: Vec::new(),
            live: Vec::new(),
            class_len: [0; CLASSES as usize],
            class_mask: 0,
            base: 0,
            allocated_bytes: 0,
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
        s.div_ceil(a).checked_mul(a).ok_or(BankedError::Overflow { value: size })
    }

    fn slots_available(&self) -> usize {
        self.spare.len() + (BLOCKS - self.blocks.len())
    }

    fn block(&self, slot: u32) -> Block {
        // Slots handed around internally are always in range.
        self.blocks.get(slot as usize).copied().unwrap_or(Block {
            addr: 0,
            size: 0,
            prev: NONE,
            next: NONE,
            allocated: false,
            live: false,
        })
    }

    fn block_mut(&mut self, slot: u32) -> Option<&mut Block> {
        self.blocks.get_mut(slot as usize)
    }

    fn set_prev(&mut self, slot: u32, prev: u32) {
        if let Some(b) = self.block_mut(slot) {
            b.prev = prev;
        }
    }

    fn set_next(&mut self, slot: u32, next: u32) {
        if let Some(b) = self.block_mut(slot) {
            b.next = next;
        }
    }

    fn new_slot(&mut self, block: Block) -> Result<u32, BankedError> {
        if let Some(slot) = self.spare.pop() {
            if let Some(b) = self.block_mut(slot) {
                *b = block;
            }
            return Ok(slot);
        }
        let slot = self.blocks.len() as u32;
        self.blocks.push(block).map_err(|_| table_full(BLOCKS))?;
        Ok(slot)
    }

    fn retire(&mut self, slot: u32) {
        if let Some(b) = self.block_mut(slot) {
            b.live = false;
            b.size = 0;
            b.prev = NONE;
            b.next = NONE;
        }
        // Cannot overflow: every retired slot was a live one.
        let _ = self.spare.push(slot);
    }

    fn index_free(&mut self, slot: u32) -> Result<(), BankedError> {
        let b = self.block(slot);
        let ck = ClassKey { key: class_key(b.size, b.addr), slot };
        let sk = SizeKey { size: b.size, addr: b.addr, slot };
        let ci = self.by_class.binary_search(&ck).unwrap_or_else(|e| e);
        let si = self.by_size.binary_search(&sk).unwrap_or_else(|e| e);
        if self.by_class.len() >= BLOCKS || self.by_size.len() >= BLOCKS {
            return Err(table_full(BLOCKS));
        }
        self.by_class.insert(ci, ck).map_err(|_| table_full(BLOCKS))?;
        self.by_size.insert(si, sk).map_err(|_| table_full(BLOCKS))?;
        let c = class_of(b.size);
        self.class_len[c as usize] += 1;
        self.class_mask |= 1 << c;
        Ok(())
    }

    fn unindex_free(&mut self, slot: u32) {
        let b = self.block(slot);
        let ck = ClassKey { key: class_key(b.size, b.addr), slot };
        let sk = SizeKey { size: b.size, addr: b.addr, slot };
        if let Ok(i) = self.by_class.binary_search(&ck) {
            self.by_class.remove(i);
            let c = class_of(b.size) as usize;
            self.class_len[c] = self.class_len[c].saturating_sub(1);
            if self.class_len[c] == 0 {
                self.class_mask &= !(1 << c);
            }
        }
        if let Ok(i) = self.by_size.binary_search(&sk) {
            self.by_size.remove(i);
        }
    }

    /// Finds the free block the policy would use for `s` bytes (already rounded).
    fn find_block(&self, s: u64, bottom_up: bool) -> Option<u32> {
        match self.config.policy {
            Policy::Best => {
                let pos = self.by_size.partition_point(|k| k.size < s);
                let first = self.by_size.get(pos)?;
                if bottom_up {
                    Some(first.slot)
                } else {
                    let z = first.size;
                    let last = self.by_size.partition_point(|k| k.size <= z);
                    self.by_size.get(last.checked_sub(1)?).map(|k| k.slot)
                }
            }
            Policy::First => {
                let c = class_of(s);
                let mut best: Option<(u64, u32)> = None;
                let mut start = 0usize;
                for k in 0..CLASSES {
                    let len = self.class_len[k as usize] as usize;
                    if len == 0 || k < c {
                        start += len;
                        continue;
                    }
                    let entries = self.by_class.get(start..start + len).unwrap_or(&[]);
                    start += len;
                    let hit = if k == c {
                        // The request's own class: scan for the first fitting block.
                        if bottom_up {
                            entries.iter().find(|e| self.block(e.slot).size >= s)
                        } else {
                            entries.iter().rev().find(|e| self.block(e.slot).size >= s)
                        }
                    } else if bottom_up {
                        entries.first()
                    } else {
                        entries.last()
                    };
                    if let Some(e) = hit {
                        let a = self.block(e.slot).addr;
                        let better = match best {
                            None => true,
                            Some((ba, _)) => {
                                if bottom_up {
                                    a < ba
                                } else {
                                    a > ba
                                }
                            }
                        };
                        if better {
                            best = Some((a, e.slot));
                        }
                    }
                }
                best.map(|(_, slot)| slot)
            }
        }
    }

    /// Carves `[start, start + s)` (relative) out of the free block `slot`, which must
    /// contain it. Checks table capacity first, so an error changes nothing.
    fn place(&mut self, slot: u32, start: u64, s: u64) -> Result<(), BankedError> {
        let b = self.block(slot);
        let end = start + s;
        let b_end = b.addr + b.size;
        let need = usize::from(start > b.addr) + usize::from(end < b_end);
        if self.slots_available() < need || self.live.len() >= BLOCKS {
            return Err(table_full(BLOCKS));
        }
        self.unindex_free(slot);
        if start > b.addr {
            let left = self.new_slot(Block {
                addr: b.addr,
                size: start - b.addr,
                prev: b.prev,
                next: slot,
                allocated: false,
                live: true,
            })?;
            if b.prev == NONE {
                self.head = left;
            } else {
                self.set_next(b.prev, left);
            }
            self.set_prev(slot, left);
            self.index_free(left)?;
        }
        if end < b_end {
            let right = self.new_slot(Block {
                addr: end,
                size: b_end - end,
                prev: slot,
                next: b.next,
                allocated: false,
                live: true,
            })?;
            if b.next != NONE {
                self.set_prev(b.next, right);
            }
            self.set_next(slot, right);
            self.index_free(right)?;
        }
        if let Some(m) = self.block_mut(slot) {
            m.addr = start;
            m.size = s;
            m.allocated = true;
        }
        let lk = LiveKey { addr: start, slot };
        let li = self.live.binary_search(&lk).unwrap_or_else(|e| e);
        self.live.insert(li, lk).map_err(|_| table_full(BLOCKS))?;
        self.allocated_bytes += s;
        Ok(())
    }

    fn oom(&self, request: u64, s: u64) -> BankedError {
        let st = self.statistics();
        BankedError::OutOfMemory(OutOfMemory {
            buffer_type: None,
            request,
            num_banks: 1,
            per_bank: s,
            bank_size: st.total,
            allocated: st.allocated,
            free: st.free,
            largest_free: st.largest_free,
            kind: OutOfMemory::classify(s, st.free),
        })
    }

    /// Where an allocation of `size` bytes would go (absolute), without allocating.
    ///
    /// ```
    /// use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
    /// let fl = FreeList::<4>::new(FreeListConfig::new(8192, 0, 1024, 1024, Policy::First))?;
    /// assert_eq!(fl.find(1, false), Some(7168));
    /// assert_eq!(fl.find(9000, true), None);
    /// # Ok::<(), dramalloc_core::banked::BankedError>(())
    /// ```
    pub fn find(&self, size: u64, bottom_up: bool) -> Option<u64> {
        let s = self.alloc_size(size).ok()?;
        let slot = self.find_block(s, bottom_up)?;
        let b = self.block(slot);
        let rel = if bottom_up { b.addr } else { b.addr + b.size - s };
        Some(rel + self.config.offset)
    }

    /// Whether an allocation of `size` bytes would succeed now (largest free block, not
    /// total free, decides: field case B05).
    pub fn can_allocate(&self, size: u64) -> bool {
        self.find(size, true).is_some()
    }

    /// Allocates `size` bytes (rounded by [`Self::alloc_size`]); bottom-up places at the start
    /// of the chosen block, top-down at its end. Returns the absolute address.
    ///
    /// # Errors
    /// [`BankedError::OutOfMemory`] when no block fits (with full/fragmented verdict);
    /// [`BankedError::CapacityExhausted`] when the block table has no room for the split.
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
        let s = self.alloc_size(size)?;
        let slot = self.find_block(s, bottom_up).ok_or_else(|| self.oom(size, s))?;
        let b = self.block(slot);
        let rel = if bottom_up { b.addr } else { b.addr + b.size - s };
        let abs = rel + self.config.offset;
        if abs < address_limit {
            return Err(BankedError::BelowAddressLimit { address: abs, limit: address_limit });
        }
        self.place(slot, rel, s)?;
        Ok(abs)
    }

    /// Allocates exactly `[address, address + alloc_size(size))` (absolute). No alignment check
    /// is made on `address` (as the reference's FreeListOpt).
    ///
    /// # Errors
    /// [`BankedError::Overlap`] naming the live block in the way; [`BankedError::OutOfRange`]
    /// when the range leaves the current allocatable range (e.g. below a shrink);
    /// [`BankedError::CapacityExhausted`].
    ///
    /// ```
    /// use dramalloc_core::banked::{BankedError, FreeList, FreeListConfig, Policy};
    /// let mut fl = FreeList::<8>::new(FreeListConfig::new(65536, 0, 32, 32, Policy::First))?;
    /// assert_eq!(fl.allocate_at(16384, 8192)?, 16384);
    /// assert!(matches!(fl.allocate_at(20000, 64), Err(BankedError::Overlap { conflict_address: 16384, .. })));
    /// # Ok::<(), BankedError>(())
    /// ```
    pub fn allocate_at(&mut self, address: u64, size: u64) -> Result<u64, BankedError> {
        let s = self.alloc_size(size)?;
        let out_of_range = BankedError::OutOfRange { address, size: s, start: self.start(), end: self.end() };
        let Some(rel) = address.checked_sub(self.config.offset) else {
            return Err(out_of_range);
        };
        match rel.checked_add(s) {
            Some(e) if rel >= self.base && e <= self.config.size => {}
            _ => return Err(out_of_range),
        }
        let pos = self.live.partition_point(|k| k.addr <= rel);
        let overlap = |k: &LiveKey, b: Block| BankedError::Overlap {
            address,
            size: s,
            conflict_address: k.addr + self.config.offset,
            conflict_size: b.size,
        };
        let mut candidate = self.head;
        if let Some(k) = pos.checked_sub(1).and_then(|p| self.live.get(p)) {
            let b = self.block(k.slot);
            if b.addr + b.size > rel {
                return Err(overlap(k, b));
            }
            candidate = b.next;
        }
        if let Some(k) = self.live.get(pos) {
            let b = self.block(k.slot);
            if b.addr < rel + s {
                return Err(overlap(k, b));
            }
        }
        let c = self.block(candidate);
        if candidate == NONE || c.allocated || c.addr > rel || c.addr + c.size < rel + s {
            // Unreachable while the invariants hold: the range is free and in range.
            return Err(out_of_range);
        }
        self.place(candidate, rel, s)?;
        Ok(address)
    }

    /// Frees the allocation starting at `address` (absolute), merging it with free neighbours.
    /// Returns the freed size in bytes.
    ///
    /// # Errors
    /// [`BankedError::DoubleFree`] when `address` lies in free memory of the range;
    /// [`BankedError::UnknownFree`] otherwise (outside the range, or inside an allocation).
    /// The state is unchanged on error. (The reference silently ignores both.)
    pub fn free(&mut self, address: u64) -> Result<u64, BankedError> {
        let rel = address.wrapping_sub(self.config.offset);
        let found = if address >= self.config.offset {
            self.live.binary_search_by_key(&rel, |k| k.addr).ok()
        } else {
            None
        };
        let Some(i) = found else {
            return Err(self.classify_bad_free(address));
        };
        let mut slot = self.live.remove(i).slot;
        let freed = self.block(slot).size;
        if let Some(b) = self.block_mut(slot) {
            b.allocated = false;
        }
        self.allocated_bytes -= freed;
        let prev = self.block(slot).prev;
        if prev != NONE && !self.block(prev).allocated {
            self.unindex_free(prev);
            let b = self.block(slot);
            if let Some(p) = self.block_mut(prev) {
                p.size += b.size;
                p.next = b.next;
            }
            if b.next != NONE {
                self.set_prev(b.next, prev);
            }
            self.retire(slot);
            slot = prev;
        }
        let next = self.block(slot).next;
        if next != NONE && !self.block(next).allocated {
            self.unindex_free(next);
            let n = self.block(next);
            if let Some(b) = self.block_mut(slot) {
                b.size += n.size;
                b.next = n.next;
            }
            if n.next != NONE {
                self.set_prev(n.next, slot);
            }
            self.retire(next);
        }
        // Room is guaranteed: the number of free blocks did not grow.
        self.index_free(slot)?;
        Ok(freed)
    }

    fn classify_bad_free(&self, address: u64) -> BankedError {
        let Some(rel) = address.checked_sub(self.config.offset) else {
            return BankedError::UnknownFree { address };
        };
        if rel < self.base || rel >= self.config.size {
            return BankedError::UnknownFree { address };
        }
        let pos = self.live.partition_point(|k| k.addr <= rel);
        if let Some(k) = pos.checked_sub(1).and_then(|p| self.live.get(p)) {
            let b = self.block(k.slot);
            if b.addr + b.size > rel {
                return BankedError::UnknownFree { address };
            }
        }
        BankedError::DoubleFree { address }
    }

    /// Frees everything and undoes all shrinks: one free block over the whole range. Also
    /// resets the lowest occupied address (the reference does not).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.spare.clear();
        self.by_class.clear();
        self.by_size.clear();
        self.live.clear();
        self.class_len = [0; CLASSES as usize];
        self.class_mask = 0;
        self.base = 0;
        self.allocated_bytes = 0;
        // BLOCKS >= 1 (compile-time check), so an empty table takes one block.
        let _ = self.blocks.push(Block {
            addr: 0,
            size: self.config.size,
            prev: NONE,
            next: NONE,
            allocated: false,
            live: true,
        });
        self.head = 0;
        let _ = self.index_free(0);
    }

    /// Removes `bytes` from the bottom of the allocatable range. Shrinks accumulate until
    /// [`Self::reset`].
    ///
    /// # Errors
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
        let max_size = self.config.size - self.base;
        if bytes >= max_size {
            return Err(BankedError::ShrinkTooLarge { bytes, max_size });
        }
        let new_base = self.base + bytes;
        if let Some(k) = self.live.first() {
            if k.addr < new_base {
                return Err(BankedError::ShrinkPastAllocation {
                    bytes,
                    address: k.addr + self.config.offset,
                });
            }
        }
        // The head block is free and reaches at least new_base.
        let head = self.head;
        self.unindex_free(head);
        let h = self.block(head);
        if h.size == bytes {
            self.head = h.next;
            self.set_prev(h.next, NONE);
            self.retire(head);
        } else {
            if let Some(b) = self.block_mut(head) {
                b.addr = new_base;
                b.size -= bytes;
            }
            self.index_free(head)?;
        }
        self.base = new_base;
        Ok(())
    }

    /// Undoes all shrinks.
    ///
    /// # Errors
    /// [`BankedError::CapacityExhausted`] when the lowest block is allocated and no table slot
    /// is left for the restored free block; nothing changes then.
    pub fn reset(&mut self) -> Result<(), BankedError> {
        if self.base == 0 {
            return Ok(());
        }
        let head = self.head;
        let h = self.block(head);
        if !h.allocated {
            self.unindex_free(head);
            if let Some(b) = self.block_mut(head) {
                b.addr = 0;
                b.size += h.addr;
            }
            self.index_free(head)?;
        } else {
            if self.slots_available() == 0 {
                return Err(table_full(BLOCKS));
            }
            let slot = self.new_slot(Block {
                addr: 0,
                size: self.base,
                prev: NONE,
                next: head,
                allocated: false,
                live: true,
            })?;
            self.set_prev(head, slot);
            self.head = slot;
            self.index_free(slot)?;
        }
        self.base = 0;
        Ok(())
    }

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

    /// The lowest allocated absolute address, if any. O(1).
    pub fn lowest_occupied_address(&self) -> Option<u64> {
        self.live.first().map(|k| k.addr + self.config.offset)
    }

    /// The allocated blocks as absolute `(start, end)`, in address order (the reference lists
    /// them in slot order; case P22).
    pub fn allocated_addresses(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.live.iter().map(move |k| {
            let b = self.block(k.slot);
            (k.addr + self.config.offset, k.addr + b.size + self.config.offset)
        })
    }

    /// Size of the allocation starting at absolute `address`, if there is one.
    pub fn allocation_size(&self, address: u64) -> Option<u64> {
        let rel = address.checked_sub(self.config.offset)?;
        let i = self.live.binary_search_by_key(&rel, |k| k.addr).ok()?;
        self.live.get(i).map(|k| self.block(k.slot).size)
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
        let (largest_free, largest_free_address) = match self.by_size.last() {
            Some(k) => {
                let first = self.by_size.partition_point(|e| e.size < k.size);
                let addr = self.by_size.get(first).map_or(k.addr, |e| e.addr);
                (k.size, Some(addr + self.config.offset))
            }
            None => (0, None),
        };
        Statistics {
            total,
            allocated: self.allocated_bytes,
            free: total - self.allocated_bytes,
            largest_free,
            largest_free_address,
            free_blocks: self.by_size.len() as u32,
            allocated_blocks: self.live.len() as u32,
        }
    }

    /// Every block of the current range in address order (absolute addresses). O(n).
    pub fn blocks(&self) -> Blocks<'_, BLOCKS> {
        Blocks { list: self, next: self.head }
    }

    /// Checks every structural invariant: the blocks tile `[start, end)` in order with no
    /// empty block and no two adjacent free blocks; the indices hold exactly the free
    /// (allocated) blocks in order; the byte counters match. O(n log n).
    ///
    /// # Errors
    /// A static description of the first violated invariant.
    pub fn check_invariants(&self) -> Result<(), &'static str> {
        let mut at = self.base;
        let mut prev = NONE;
        let mut slot = self.head;
        let (mut free_n, mut alloc_n, mut alloc_b) = (0usize, 0usize, 0u64);
        let mut prev_free = false;
        let mut steps = 0usize;
        while slot != NONE {
            steps += 1;
            if steps > BLOCKS {
                return Err("block list has a cycle");
            }
            let Some(b) = self.blocks.get(slot as usize) else {
                return Err("link to a slot beyond the table");
            };
            if !b.live {
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
            if b.allocated {
                alloc_n += 1;
                alloc_b += b.size;
                if self.live.binary_search(&LiveKey { addr: b.addr, slot }).is_err() {
                    return Err("allocated block missing from the allocated index");
                }
                prev_free = false;
            } else {
                if prev_free {
                    return Err("two adjacent free blocks");
                }
                free_n += 1;
                let ck = ClassKey { key: class_key(b.size, b.addr), slot };
                if self.by_class.binary_search(&ck).is_err() {
                    return Err("free block missing from the class index");
                }
                let sk = SizeKey { size: b.size, addr: b.addr, slot };
                if self.by_size.binary_search(&sk).is_err() {
                    return Err("free block missing from the size index");
                }
                prev_free = true;
            }
            at += b.size;
            prev = slot;
            slot = b.next;
        }
        if at != self.config.size {
            return Err("blocks do not reach the end of the range");
        }
        if free_n != self.by_class.len() || free_n != self.by_size.len() {
            return Err("stale entries in the free index");
        }
        if alloc_n != self.live.len() || alloc_b != self.allocated_bytes {
            return Err("allocated index or byte count drifted");
        }
        if self.blocks.len() != free_n + alloc_n + self.spare.len() {
            return Err("slot accounting drifted");
        }
        if self.by_class.windows(2).any(|w| w[0] >= w[1])
            || self.by_size.windows(2).any(|w| w[0] >= w[1])
            || self.live.windows(2).any(|w| w[0] >= w[1])
        {
            return Err("an index is not sorted");
        }
        let counted: u32 = self.class_len.iter().sum();
        if counted as usize != free_n {
            return Err("class counts drifted");
        }
        Ok(())
    }
}

/// Iterator over the blocks of a [`FreeList`] in address order; see [`FreeList::blocks`].
#[derive(Clone, Debug)]
pub struct Blocks<'a, const BLOCKS: usize> {
    list: &'a FreeList<BLOCKS>,
    next: u32,
}

impl<const BLOCKS: usize> Iterator for Blocks<'_, BLOCKS> {
    type Item = BlockInfo;

    fn next(&mut self) -> Option<BlockInfo> {
        let b = self.list.blocks.get(self.next as usize)?;
        self.next = b.next;
        Some(BlockInfo { address: b.addr + self.list.config.offset, size: b.size, allocated: b.allocated })
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
}
