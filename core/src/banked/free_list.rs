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
//! `n` = number of blocks (at most `BLOCKS`); every structure lives in fixed arrays indexed by
//! block-table slot, linked by `u32` slot numbers, so nothing is ever moved in bulk.
//!
//! * **Block table**: `BLOCKS` slots, doubly linked in address order; slots freed by merging
//!   go on a LIFO stack (linked through the table) and are reused first.
//! * **Address tree**: the free blocks in a treap ordered by address, each node augmented with
//!   the largest free size in its subtree. FIRST is one descent: the lowest-address fitting
//!   block (left first) bottom-up, the highest (right first) top-down. The largest free block
//!   of [`FreeList::statistics`] is the root's augmentation plus one descent.
//! * **Size tree** (BEST only): the free blocks in a second treap ordered by `(size, address)`;
//!   BEST is one or two descents.
//! * **Allocated map**: a chained hash table of `BLOCKS` buckets from address to slot, for
//!   [`FreeList::free`] and [`FreeList::allocation_size`].
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

use heapless::Vec;

use super::error::{BankedError, OutOfMemory};

/// "No block" in the block table's links.
const NONE: u32 = u32::MAX;
/// Bits of the largest supported relative address (kept from the original key layout).
const ADDRESS_BITS: u32 = 57;
/// The largest supported `offset + size`.
pub const MAX_ADDRESS: u64 = 1 << ADDRESS_BITS;
/// Fibonacci hashing multiplier (2^64 / golden ratio) of the allocated map.
const HASH_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

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

/// What a block-table slot currently holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A free block, linked into the address tree (and the size tree under BEST).
    Free,
    /// An allocated block, linked into the allocated map.
    Allocated,
    /// An unused slot on the spare stack.
    Spare,
}

/// One block-table slot (48 bytes).
#[derive(Clone, Copy, Debug)]
struct Block {
    /// Start, relative to the allocator's 0.
    addr: u64,
    size: u64,
    /// Free blocks: the largest `size` in this node's address-tree subtree.
    max_free: u64,
    /// Previous block in address order.
    prev: u32,
    /// Next block in address order; for a spare slot, the next spare slot.
    next: u32,
    /// Free: left child in the address tree. Allocated: next slot in the same hash bucket.
    left: u32,
    /// Free: right child in the address tree.
    right: u32,
    /// Free: parent in the address tree (`NONE` at the root).
    parent: u32,
    state: State,
}

impl Block {
    const VOID: Self = Self::new(0, 0, NONE, NONE, State::Spare);

    const fn new(addr: u64, size: u64, prev: u32, next: u32, state: State) -> Self {
        Self { addr, size, max_free: size, prev, next, left: NONE, right: NONE, parent: NONE, state }
    }
}

/// The size-tree links of one slot (used under BEST only), parallel to the block table.
#[derive(Clone, Copy, Debug)]
struct SizeLinks {
    left: u32,
    right: u32,
    parent: u32,
}

impl SizeLinks {
    const VOID: Self = Self { left: NONE, right: NONE, parent: NONE };
}

/// Treap priority of a slot: murmur3's 32-bit finaliser, a bijection, so no two slots tie.
const fn priority(slot: u32) -> u32 {
    let mut h = slot;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
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
/// Footprint: about 64 bytes per block.
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
    /// Parallel to `blocks`; only linked under [`Policy::Best`].
    size_links: Vec<SizeLinks, BLOCKS>,
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

/// Block table, slot stack and linked-list plumbing.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    fn b(&self, slot: u32) -> &Block {
        self.blocks.get(slot as usize).unwrap_or(&Block::VOID)
    }

    fn m(&mut self, slot: u32) -> &mut Block {
        match self.blocks.get_mut(slot as usize) {
            Some(b) => b,
            None => &mut self.scratch,
        }
    }

    fn sl(&self, slot: u32) -> &SizeLinks {
        self.size_links.get(slot as usize).unwrap_or(&SizeLinks::VOID)
    }

    fn sm(&mut self, slot: u32) -> &mut SizeLinks {
        match self.size_links.get_mut(slot as usize) {
            Some(l) => l,
            None => &mut self.scratch_links,
        }
    }

    fn is_free(&self, slot: u32) -> bool {
        slot != NONE && self.b(slot).state == State::Free
    }

    fn slots_available(&self) -> usize {
        self.spare_len as usize + (BLOCKS - self.blocks.len())
    }

    fn new_slot(&mut self, block: Block) -> Result<u32, BankedError> {
        if self.spare != NONE {
            let slot = self.spare;
            self.spare = self.b(slot).next;
            self.spare_len -= 1;
            *self.m(slot) = block;
            *self.sm(slot) = SizeLinks::VOID;
            return Ok(slot);
        }
        let slot = self.blocks.len() as u32;
        self.blocks.push(block).map_err(|_| table_full(BLOCKS))?;
        // Same length as `blocks`, so there is room.
        let _ = self.size_links.push(SizeLinks::VOID);
        Ok(slot)
    }

    /// Puts an unlinked slot on the spare stack.
    fn retire(&mut self, slot: u32) {
        let spare = self.spare;
        *self.m(slot) = Block { next: spare, ..Block::VOID };
        self.spare = slot;
        self.spare_len += 1;
    }

    /// Links the new block `a` into the address list right before `at`.
    fn link_before(&mut self, a: u32, at: u32) {
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
    fn link_after(&mut self, a: u32, at: u32) {
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
    fn unlink(&mut self, slot: u32) {
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

/// The address tree: a treap of the free blocks by address, augmented with `max_free`.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    fn max_of(&self, slot: u32) -> u64 {
        if slot == NONE {
            0
        } else {
            self.b(slot).max_free
        }
    }

    /// Recomputes `max_free` of `slot` from its size and children; returns the new value.
    fn pull(&mut self, slot: u32) -> u64 {
        let b = *self.b(slot);
        let m = b.size.max(self.max_of(b.left)).max(self.max_of(b.right));
        self.m(slot).max_free = m;
        m
    }

    /// Recomputes `max_free` from `slot` up to the root, stopping once a value is unchanged.
    fn refresh_up(&mut self, mut slot: u32) {
        while slot != NONE {
            let old = self.b(slot).max_free;
            if self.pull(slot) == old {
                return;
            }
            slot = self.b(slot).parent;
        }
    }

    /// Makes `new` the child of `parent` (or the root) in place of `old`.
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
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
    fn rotate_up(&mut self, x: u32) {
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

    fn tree_insert(&mut self, x: u32) {
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

    fn tree_remove(&mut self, x: u32) {
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
    fn lowest_fit(&self, s: u64) -> Option<u32> {
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
    fn highest_fit(&self, s: u64) -> Option<u32> {
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
    fn free_at_or_below(&self, rel: u64) -> Option<u32> {
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

/// The size tree: a treap of the free blocks by `(size, address)`, maintained under BEST only.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    fn size_key(&self, slot: u32) -> (u64, u64) {
        let b = self.b(slot);
        (b.size, b.addr)
    }

    fn size_replace_child(&mut self, parent: u32, old: u32, new: u32) {
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

    fn size_rotate_up(&mut self, x: u32) {
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

    fn size_insert(&mut self, x: u32) {
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

    fn size_remove(&mut self, x: u32) {
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
    fn best_fit(&self, s: u64, bottom_up: bool) -> Option<u32> {
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

/// The free-block indexes together, and the allocated map.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    fn best(&self) -> bool {
        self.config.policy == Policy::Best
    }

    /// Marks `slot` free and indexes it.
    fn index_free(&mut self, slot: u32) {
        self.m(slot).state = State::Free;
        self.tree_insert(slot);
        if self.best() {
            self.size_insert(slot);
        }
        self.free_count += 1;
    }

    fn unindex_free(&mut self, slot: u32) {
        self.tree_remove(slot);
        if self.best() {
            self.size_remove(slot);
        }
        self.free_count -= 1;
    }

    /// Moves the indexed free block `slot` to `[addr, addr + size)`; its neighbours in address
    /// order among the free blocks must stay the same.
    fn resize_free(&mut self, slot: u32, addr: u64, size: u64) {
        let best = self.best();
        if best {
            self.size_remove(slot);
        }
        let b = self.m(slot);
        b.addr = addr;
        b.size = size;
        self.refresh_up(slot);
        if best {
            self.size_insert(slot);
        }
    }

    fn bucket(addr: u64) -> usize {
        // Multiply-shift range reduction of the top 32 bits of a Fibonacci hash: BLOCKS <
        // 2^32, so the product fits in u64 and the result is always < BLOCKS.
        (((addr.wrapping_mul(HASH_MULTIPLIER) >> 32) * BLOCKS as u64) >> 32) as usize
    }

    fn map_insert(&mut self, slot: u32) {
        let h = Self::bucket(self.b(slot).addr);
        let first = self.buckets.get(h).copied().unwrap_or(NONE);
        self.m(slot).left = first;
        if let Some(e) = self.buckets.get_mut(h) {
            *e = slot;
        }
    }

    /// The allocated block starting at relative `rel`.
    fn map_find(&self, rel: u64) -> Option<u32> {
        let mut i = self.buckets.get(Self::bucket(rel)).copied().unwrap_or(NONE);
        while i != NONE {
            let b = self.b(i);
            if b.addr == rel {
                return Some(i);
            }
            i = b.left;
        }
        None
    }

    /// Removes the allocated block starting at relative `rel` from the map and returns it.
    fn map_take(&mut self, rel: u64) -> Option<u32> {
        let h = Self::bucket(rel);
        let mut prev = NONE;
        let mut i = self.buckets.get(h).copied().unwrap_or(NONE);
        while i != NONE {
            let b = *self.b(i);
            if b.addr == rel {
                if prev == NONE {
                    if let Some(e) = self.buckets.get_mut(h) {
                        *e = b.left;
                    }
                } else {
                    self.m(prev).left = b.left;
                }
                self.m(i).left = NONE;
                return Some(i);
            }
            prev = i;
            i = b.left;
        }
        None
    }
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
            size_links: Vec::new(),
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
        s.div_ceil(a).checked_mul(a).ok_or(BankedError::Overflow { value: size })
    }

    /// Finds the free block the policy would use for `s` bytes (already rounded).
    fn find_block(&self, s: u64, bottom_up: bool) -> Option<u32> {
        match (self.config.policy, bottom_up) {
            (Policy::First, true) => self.lowest_fit(s),
            (Policy::First, false) => self.highest_fit(s),
            (Policy::Best, _) => self.best_fit(s, bottom_up),
        }
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
    /// O(log n).
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
        let b = self.b(slot);
        let rel = if bottom_up { b.addr } else { b.addr + b.size - s };
        let abs = rel + self.config.offset;
        if abs < address_limit {
            return Err(BankedError::BelowAddressLimit { address: abs, limit: address_limit });
        }
        self.place(slot, rel, s)?;
        Ok(abs)
    }

    /// Allocates exactly `[address, address + alloc_size(size))` (absolute). No alignment check
    /// is made on `address` (as the reference's FreeListOpt). O(log n) on success.
    ///
    /// # Errors
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

    fn classify_bad_free(&self, address: u64) -> BankedError {
        let Some(rel) = address.checked_sub(self.config.offset) else {
            return BankedError::UnknownFree { address };
        };
        if rel < self.base || rel >= self.config.size {
            return BankedError::UnknownFree { address };
        }
        match self.free_at_or_below(rel) {
            Some(f) if self.b(f).addr + self.b(f).size > rel => BankedError::DoubleFree { address },
            _ => BankedError::UnknownFree { address },
        }
    }

    /// Frees everything and undoes all shrinks: one free block over the whole range. Also
    /// resets the lowest occupied address (the reference does not). O(BLOCKS).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.size_links.clear();
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
        let _ = self.blocks.push(Block::new(0, self.config.size, NONE, NONE, State::Free));
        let _ = self.size_links.push(SizeLinks::VOID);
        self.head = 0;
        self.index_free(0);
    }

    /// Removes `bytes` from the bottom of the allocatable range. Shrinks accumulate until
    /// [`Self::reset`]. O(log n).
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

    /// Checks every structural invariant: the blocks tile `[start, end)` in order with no
    /// empty block and no two adjacent free blocks; the address tree holds exactly the free
    /// blocks in address order with correct parent links, heap priorities and `max_free`; the
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
            let Some(b) = self.blocks.get(slot as usize) else {
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
        if spare_n != self.spare_len || self.blocks.len() != (free_n + alloc_n + spare_n) as usize {
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
        for (i, b) in self.blocks.iter().enumerate() {
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
            if b.max_free != b.size.max(self.max_of(b.left)).max(self.max_of(b.right)) {
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
        for (i, l) in self.size_links.iter().enumerate() {
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
        Some(BlockInfo {
            address: b.addr + self.list.config.offset,
            size: b.size,
            allocated: b.state == State::Allocated,
        })
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
