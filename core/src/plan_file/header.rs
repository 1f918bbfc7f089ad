//! The plan file's header, per-core table, constants and section layout.
//! Uses: le, record; used by: reader, validate, checksum, sim.
//!
//! The file header, the per-core table and the section layout of a plan file.

use bytemuck::{Pod, Zeroable};

use super::le::{U16Le, U32Le, U64Le};
use super::record::{NameRef, Record};

/// First 8 bytes of every plan file.
pub const MAGIC: [u8; 8] = *b"DRAMPLAN";

/// The format version this reader reads and the writer writes.
pub const VERSION: u32 = 1;

/// Header flag: the cores run the tensor-parallel split of one program (`dramalloc run
/// --split tensor-parallel`), so a checker can rebuild them from the program.
pub const FLAG_TENSOR_PARALLEL: u32 = 1;

/// Header flag: one device address space in per-core slabs (`dramalloc run --mb-per-core`):
/// the window is `(cores + 1)` slabs and one CC region above them (core 0's `cc_bytes`, at
/// the window's top, the same range for every core); core k's private and pre-placed
/// tensors live in slab k (at `k · slab`, `slab = (window - cc_bytes) / (cores + 1)`), the
/// shared region in slab `cores`.
pub const FLAG_SLABS: u32 = 2;

/// Header flag: one core holding the solution of a minimalloc problem (`dramalloc plan -o
/// X.bin`): record `i` is buffer `i`, live over `[lower, upper - 1]`, at its offset. Planned
/// from a program, the buffers are the program's problem (its written intermediates and
/// outputs, `dramalloc plan`'s problem), not a core's view: no pre-placed records.
pub const FLAG_PROBLEM: u32 = 4;

/// Every header flag this version defines; other bits must be 0.
pub const KNOWN_FLAGS: u32 = FLAG_TENSOR_PARALLEL | FLAG_SLABS | FLAG_PROBLEM;

/// Lifetime value of a record no instruction accesses (`def` and `last_use` both).
pub const NO_ACCESS: u32 = u32::MAX;

/// Byte offset of [`PlanHeader::checksum`]: the CRC-32 covers the file with these 4 bytes
/// read as zero.
pub const CHECKSUM_OFFSET: usize = core::mem::offset_of!(PlanHeader, checksum);

/// The file header: 88 bytes, little-endian, alignment 1, at offset 0.
///
/// The sections follow in this order, each directly after the previous one (every entry size
/// is a multiple of 8, so every section starts 8-aligned in the file): `core_count`
/// [`CoreEntry`], `record_count` [`Record`], `name_count` [`NameRef`], `string_bytes` bytes
/// of UTF-8 names. Nothing follows the strings: `file_bytes` is their end.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PlanHeader {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// Format version ([`VERSION`]).
    pub version: U32Le,
    /// Size of this header, bytes (88).
    pub header_bytes: U32Le,
    /// Size of the whole file, bytes.
    pub file_bytes: U64Le,
    /// CRC-32 (ISO-HDLC, the zlib/PNG one) of the whole file with this field read as zero.
    pub checksum: U32Le,
    /// Header flags ([`KNOWN_FLAGS`]).
    pub flags: U32Le,
    /// Cores (1..=65,535).
    pub core_count: U32Le,
    /// Records over all cores.
    pub record_count: U32Le,
    /// Tensor names (a record's `tensor` indexes them).
    pub name_count: U32Le,
    /// Bytes of the string table.
    pub string_bytes: U32Le,
    /// Size of one [`CoreEntry`], bytes (56).
    pub core_bytes: U16Le,
    /// Size of one [`Record`], bytes (40).
    pub record_bytes: U16Le,
    /// Size of one [`NameRef`], bytes (8).
    pub name_bytes: U16Le,
    /// Zero.
    pub reserved: U16Le,
    /// Every record ends at or below this address, bytes (the per-core HBM window, or the
    /// whole device address space with per-core slabs).
    pub window: U64Le,
    /// Start of the shared region, bytes (where shared tensors live on every core).
    pub shared_base: U64Le,
    /// Bytes of the shared region in use.
    pub shared_bytes: U64Le,
    /// Alignment every address is a multiple of, bytes: a power of two (4096 for DRAM; 1: none;
    /// 0 is refused as [`super::PlanFileError::BadAlign`]).
    pub align: U64Le,
}

/// One core's line of the per-core table: 56 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CoreEntry {
    /// High-water mark of the core's view: `max(floor, max(address + aligned))` over its
    /// records, bytes.
    pub hwm: U64Le,
    /// The pre-placed floor the planner started from (seed "Already used DRAM hwm" + 1, or
    /// 0), bytes.
    pub floor: U64Le,
    /// First byte of the core's CC (collective) region (meaningful when `cc_bytes > 0`).
    pub cc_base: U64Le,
    /// Size of the core's CC region, bytes (0: none).
    pub cc_bytes: U64Le,
    /// Bytes of the CC region in use (seed "Real CC buffer size").
    pub cc_used: U64Le,
    /// Index of the core's first record; a core's records are contiguous.
    pub first_record: U32Le,
    /// Records of this core.
    pub record_count: U32Le,
    /// Instructions the core runs (lifetimes are below this).
    pub instructions: U32Le,
    /// Zero.
    pub reserved: U32Le,
}

const _: () = assert!(core::mem::size_of::<PlanHeader>() == 88);
const _: () = assert!(core::mem::size_of::<CoreEntry>() == 56);
const _: () = assert!(CHECKSUM_OFFSET == 24);

/// Byte offsets of the sections of a file with the given counts (see [`PlanHeader`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Layout {
    /// Offset of the core table.
    pub cores: u64,
    /// Offset of the records.
    pub records: u64,
    /// Offset of the name table.
    pub names: u64,
    /// Offset of the string bytes.
    pub strings: u64,
    /// Total file size, bytes.
    pub file_bytes: u64,
}

impl Layout {
    /// The layout for `cores` core entries, `records` records, `names` names and
    /// `string_bytes` bytes of strings; `None` when the sizes overflow `u64`. O(1).
    ///
    /// ```
    /// use dramalloc_core::plan_file::Layout;
    /// let l = Layout::new(2, 3, 1, 5).unwrap();
    /// assert_eq!((l.cores, l.records, l.names, l.strings, l.file_bytes), (88, 200, 320, 328, 333));
    /// ```
    pub const fn new(cores: u64, records: u64, names: u64, string_bytes: u64) -> Option<Layout> {
        let h = core::mem::size_of::<PlanHeader>() as u64;
        let Some(c) = cores.checked_mul(core::mem::size_of::<CoreEntry>() as u64) else { return None };
        let Some(r) = records.checked_mul(core::mem::size_of::<Record>() as u64) else { return None };
        let Some(n) = names.checked_mul(core::mem::size_of::<NameRef>() as u64) else { return None };
        let Some(rec) = h.checked_add(c) else { return None };
        let Some(nam) = rec.checked_add(r) else { return None };
        let Some(st) = nam.checked_add(n) else { return None };
        let Some(end) = st.checked_add(string_bytes) else { return None };
        Some(Layout { cores: h, records: rec, names: nam, strings: st, file_bytes: end })
    }
}
