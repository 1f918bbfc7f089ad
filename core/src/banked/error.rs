//! The one error type of the banked allocator, [`BankedError`].
//! Uses: buffer_type, core_range; used by: bank_manager, circular_buffer, device, free_list, sim.
//!
//! Every variant carries its culprit (the address, the sizes, the core range), so a message
//! can be printed without any other context. The reference (tt-metal) throws strings; we
//! return values. See `banked-allocator.md` §1.2–§1.7 for where each condition comes from.

use core::fmt;

use super::buffer_type::BufferType;
use super::core_range::CoreRange;

/// Whether an out-of-memory condition is plain exhaustion or fragmentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OomKind {
    /// The free bytes are fewer than the request: the memory is full.
    Full,
    /// The free bytes would hold the request, but no single free block does.
    Fragmented,
}

/// The details of a failed allocation, per bank (issue 5, "out-of-memory error").
///
/// All sizes are in bytes and per bank; for a single free-list allocator `num_banks` is 1
/// and `per_bank` is the rounded request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OutOfMemory {
    /// The buffer type, when the request came through a bank manager.
    pub buffer_type: Option<BufferType>,
    /// The requested size as given by the caller (whole buffer), bytes.
    pub request: u64,
    /// The number of banks the buffer is spread over.
    pub num_banks: u32,
    /// Bytes each bank has to store, after page, alignment and minimum rounding.
    pub per_bank: u64,
    /// The allocatable size of one bank (the allocator's current total), bytes.
    pub bank_size: u64,
    /// Bytes allocated per bank at the time of the failure.
    pub allocated: u64,
    /// Bytes free per bank at the time of the failure.
    pub free: u64,
    /// The largest free block per bank, bytes.
    pub largest_free: u64,
    /// Full or fragmented.
    pub kind: OomKind,
}

impl OutOfMemory {
    /// Classifies a failure: fragmented when `free >= per_bank`, full otherwise.
    ///
    /// ```
    /// use dramalloc_core::banked::OomKind;
    /// assert_eq!(dramalloc_core::banked::OutOfMemory::classify(16, 32), OomKind::Fragmented);
    /// assert_eq!(dramalloc_core::banked::OutOfMemory::classify(64, 32), OomKind::Full);
    /// ```
    pub const fn classify(per_bank: u64, free: u64) -> OomKind {
        if free >= per_bank {
            OomKind::Fragmented
        } else {
            OomKind::Full
        }
    }
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The reference's BankManager message (PR #32150 form), plus the full/fragmented verdict.
        f.write_str("Out of Memory: Not enough space to allocate ")?;
        write!(f, "{} B ", self.request)?;
        if let Some(t) = self.buffer_type {
            write!(f, "{t} ")?;
        }
        write!(
            f,
            "buffer across {} banks, where each bank needs to store {} B, but bank size is {} B \
             (allocated: {} B, free: {} B, largest free block: {} B); ",
            self.num_banks, self.per_bank, self.bank_size, self.allocated, self.free, self.largest_free
        )?;
        match self.kind {
            OomKind::Full => f.write_str("memory is full"),
            OomKind::Fragmented => f.write_str("memory is fragmented"),
        }
    }
}

/// Everything that can go wrong in the banked allocator.
///
/// Addresses are absolute (allocator offset included) unless a field says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum BankedError {
    /// A configuration value is unusable (zero size or alignment, zero banks, a reserved
    /// region that fills the bank); the message says which and why.
    ///
    /// ```
    /// use dramalloc_core::banked::BankedError;
    /// let e = |what, value| BankedError::InvalidConfig { what, value }.to_string();
    /// assert_eq!(e("alignment", 0), "invalid configuration: alignment = 0: it must be positive");
    /// assert_eq!(
    ///     e("l1_unreserved_base", 1_499_136),
    ///     "invalid configuration: l1_unreserved_base = 1499136: at or above l1_size, it leaves no unreserved L1"
    /// );
    /// assert_eq!(
    ///     e("dram_reserved", 65_536),
    ///     "invalid configuration: dram_reserved = 65536: the reserved region fills the bank (it must be below \
    ///      dram_bank_size)"
    /// );
    /// ```
    InvalidConfig {
        /// Which parameter.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// An allocator's range `[offset, offset + size)` ends beyond the supported address
    /// limit (`MAX_ADDRESS`, 2^57), or its end does not fit in 64 bits at all.
    RangeTooLarge {
        /// The range's start.
        offset: u64,
        /// The range's size, bytes.
        size: u64,
        /// The largest supported `offset + size`.
        limit: u64,
    },
    /// A region bound off the allocator's alignment grid: an allocator offset or size, a DRAM
    /// reservation or bank size, an L1 base or size that is not a multiple of the alignment
    /// (the DRAM alignment inside a device). The reference asserts that an allocator's offset
    /// is aligned ("Offset {} should be {} B aligned", `allocator_algorithm.hpp`); an unaligned
    /// end would put top-down allocations off the grid. Seed 004 §2.1: "Allocations in DRAM and
    /// SRAM are done at DRAM_ALIGNMENT aligned addresses".
    MisalignedConfig {
        /// Which parameter (the device key, e.g. `l1_size`, or `offset` / `size`).
        what: &'static str,
        /// Its value, bytes.
        value: u64,
        /// The alignment it must be a multiple of, bytes.
        alignment: u64,
    },
    /// A zero-byte buffer or allocation. The reference's `Buffer` refuses it ("Buffer size and
    /// page size should be larger than 0 bytes!"); an allocation holds at least one byte.
    /// Nothing was allocated.
    ZeroSize {
        /// The buffer type, when the request came through a bank manager; `None` for a
        /// single free list.
        buffer_type: Option<BufferType>,
    },
    /// The fixed-capacity block table (or another table) is full. Nothing was changed.
    CapacityExhausted {
        /// Which table.
        table: &'static str,
        /// Its capacity in entries.
        capacity: u32,
    },
    /// No allocation can be placed (see [`OutOfMemory`]).
    OutOfMemory(OutOfMemory),
    /// The chosen address lies below the address limit; nothing was allocated
    /// (the reference leaks the block here, §1.2).
    BelowAddressLimit {
        /// The address the allocation would have had.
        address: u64,
        /// The limit.
        limit: u64,
    },
    /// `free` of an address that is not the start of a live allocation and does not lie in
    /// free memory of this allocator (foreign, out of range, or inside an allocation).
    UnknownFree {
        /// The address passed to `free`.
        address: u64,
    },
    /// `free` of an address that lies in free memory: freed already (double free) or never
    /// allocated there.
    DoubleFree {
        /// The address passed to `free`.
        address: u64,
    },
    /// `allocate_at` over a live block.
    Overlap {
        /// The requested address.
        address: u64,
        /// The requested size after rounding.
        size: u64,
        /// The start of the live block in the way.
        conflict_address: u64,
        /// The size of the live block in the way.
        conflict_size: u64,
    },
    /// `allocate_at` outside the current allocatable range `[start, end)`.
    OutOfRange {
        /// The requested address.
        address: u64,
        /// The requested size after rounding.
        size: u64,
        /// Start of the allocatable range (after shrinks).
        start: u64,
        /// End of the allocatable range.
        end: u64,
    },
    /// `shrink(bytes)` with `bytes >= ` the current size (§1.2: "must be smaller than max size").
    ShrinkTooLarge {
        /// The requested shrink.
        bytes: u64,
        /// The current allocatable size.
        max_size: u64,
    },
    /// `shrink(bytes)` would cut into a live allocation.
    ShrinkPastAllocation {
        /// The requested shrink.
        bytes: u64,
        /// The lowest live allocation.
        address: u64,
    },
    /// The buffer size is not a multiple of the page size (or the page size is 0 with a
    /// non-zero size).
    PageSizeMismatch {
        /// Buffer size, bytes.
        size: u64,
        /// Page size, bytes.
        page_size: u64,
    },
    /// A sharded buffer asks for more shard cores than the type has banks.
    TooManyShards {
        /// Requested shard cores.
        shards: u32,
        /// Banks available.
        banks: u32,
    },
    /// A sharded buffer over 0 shard cores: a sharded buffer needs at least one.
    ZeroShards {
        /// Banks available (the most shard cores a buffer of the type can have).
        banks: u32,
    },
    /// A bank index beyond the bank count.
    NoSuchBank {
        /// The bank index.
        bank: u32,
        /// The bank count.
        banks: u32,
    },
    /// A circular buffer whose total size is not a positive multiple of its page size.
    CbPageSize {
        /// Index of the CB in creation order.
        index: u32,
        /// Its total size, bytes.
        total_size: u64,
        /// Its page size, bytes.
        page_size: u64,
    },
    /// A circular-buffer id that does not exist.
    NoSuchCb {
        /// The id.
        index: u32,
    },
    /// A circular buffer with no address at validation: added or resized after the last
    /// [`crate::banked::CircularBuffers::allocate`] (validation would pass it unchecked: a
    /// fresh-user trial).
    CbUnplaced {
        /// Index of the CB in creation order.
        index: u32,
    },
    /// The CB region of a core range grows beyond the L1 size (§1.7).
    CbBeyondL1 {
        /// The core range.
        core_range: CoreRange,
        /// The end of its CB region, bytes.
        region_end: u64,
        /// The L1 size per core, bytes.
        l1_size: u64,
    },
    /// The CB region of a core range ends above the lowest L1 buffer address (§1.7).
    CbClash {
        /// The core range.
        core_range: CoreRange,
        /// The end of its CB region, bytes.
        region_end: u64,
        /// The lowest L1 buffer address.
        buffer_address: u64,
    },
    /// An arithmetic overflow in size or address computation.
    Overflow {
        /// The operand that overflowed.
        value: u64,
    },
}

impl fmt::Display for BankedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::InvalidConfig { what, value } => {
                // why, where the parameter says it (a trial read "invalid configuration:
                // l1_unreserved_base = 1499136" and had to guess)
                let why = match what {
                    "dram_reserved" => ": the reserved region fills the bank (it must be below dram_bank_size)",
                    "l1_unreserved_base" => ": at or above l1_size, it leaves no unreserved L1",
                    _ if value == 0 => ": it must be positive",
                    _ => "",
                };
                write!(f, "invalid configuration: {what} = {value}{why}")
            }
            Self::RangeTooLarge { offset, size, limit } => match offset.checked_add(size) {
                None => write!(f, "invalid configuration: offset {offset} + size {size} overflows 64 bits"),
                Some(end) => {
                    write!(
                        f,
                        "invalid configuration: offset {offset} + size {size} = {end} is beyond the \
                         address limit {limit}"
                    )?;
                    if limit.is_power_of_two() {
                        write!(f, " (2^{})", limit.trailing_zeros())?;
                    }
                    Ok(())
                }
            },
            Self::MisalignedConfig { what, value, alignment } => write!(
                f,
                "invalid configuration: {what} = {value} is not a multiple of the alignment {alignment} \
                 (every address the allocator hands out is on its alignment grid)"
            ),
            Self::ZeroSize { buffer_type: Some(BufferType::Dram) } => {
                f.write_str("size 0 B: a DRAM buffer holds at least one byte")
            }
            Self::ZeroSize { buffer_type: Some(BufferType::L1) } => {
                f.write_str("size 0 B: an L1 buffer holds at least one byte")
            }
            Self::ZeroSize { buffer_type: None } => {
                f.write_str("size 0 B: an allocation holds at least one byte")
            }
            Self::CapacityExhausted { table, capacity } => {
                write!(f, "{table} is full (capacity {capacity})")
            }
            Self::OutOfMemory(ref oom) => oom.fmt(f),
            Self::BelowAddressLimit { address, limit } => write!(
                f,
                "Out of Memory: Cannot allocate at an address below {limit}. Allocation at {address}"
            ),
            Self::UnknownFree { address } => {
                write!(f, "free of unknown address {address}: no allocation starts there")
            }
            Self::DoubleFree { address } => {
                write!(f, "double free: address {address} is not allocated (it lies in free memory)")
            }
            Self::Overlap {
                address,
                size,
                conflict_address,
                conflict_size,
            } => write!(
                f,
                "cannot allocate {size} B at {address}: overlaps the allocation [{conflict_address}, {})",
                conflict_address.saturating_add(conflict_size)
            ),
            Self::OutOfRange {
                address,
                size,
                start,
                end,
            } => write!(
                f,
                "cannot allocate {size} B at {address}: outside the allocatable range [{start}, {end})"
            ),
            Self::ShrinkTooLarge { bytes, max_size } => write!(
                f,
                "shrink size {bytes} B must be smaller than max size {max_size} B"
            ),
            Self::ShrinkPastAllocation { bytes, address } => write!(
                f,
                "cannot shrink by {bytes} B: the allocation at {address} is in the way"
            ),
            Self::PageSizeMismatch { size, page_size } => write!(
                f,
                "buffer size {size} B is not a multiple of the page size {page_size} B"
            ),
            Self::TooManyShards { shards, banks } => {
                write!(f, "{shards} shard cores requested but only {banks} banks exist")
            }
            Self::ZeroShards { banks } => write!(
                f,
                "0 shard cores requested: a sharded buffer needs 1 to {banks} shard cores (one per bank at most)"
            ),
            Self::NoSuchBank { bank, banks } => {
                write!(f, "bank {bank} does not exist (there are {banks} banks)")
            }
            Self::CbPageSize {
                index,
                total_size,
                page_size,
            } => write!(
                f,
                "circular buffer {index}: total size {total_size} B is not a positive multiple of the page size {page_size} B"
            ),
            Self::NoSuchCb { index } => write!(f, "circular buffer {index} does not exist"),
            Self::CbUnplaced { index } => write!(
                f,
                "circular buffer {index} has no address: allocate the circular buffers before validating them"
            ),
            Self::CbBeyondL1 {
                core_range,
                region_end,
                l1_size,
            } => write!(
                f,
                "Statically allocated circular buffers on core range {core_range} grow to {region_end} B which is beyond max L1 size of {l1_size} B"
            ),
            Self::CbClash {
                core_range,
                region_end,
                buffer_address,
            } => write!(
                f,
                "Statically allocated circular buffers clash with L1 buffers on core range {core_range}. L1 buffer allocated at {buffer_address} and static circular buffer region ends at {region_end}"
            ),
            Self::Overflow { value } => write!(f, "arithmetic overflow with operand {value}"),
        }
    }
}

impl core::error::Error for BankedError {}

impl From<OutOfMemory> for BankedError {
    fn from(oom: OutOfMemory) -> Self {
        Self::OutOfMemory(oom)
    }
}
