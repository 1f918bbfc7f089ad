//! The plan file's typed errors and their kinds (corrupt / invalid plan).
//! Uses: nothing else in the crate; used by: reader, validate, sim.
//!
//! The typed errors of the plan-file reader. Every variant names the record, core or name
//! table entry at fault (indices into the file's tables), so a caller can look the tensor
//! up with [`super::PlanFile::name`].

use core::fmt;

/// A fixed-size part of the file whose entry size is declared in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Part {
    /// The header ([`super::PlanHeader`]).
    Header,
    /// A core entry ([`super::CoreEntry`]).
    Core,
    /// A record ([`super::Record`]).
    Record,
    /// A name table entry ([`super::NameRef`]).
    Name,
}

/// Whether the bytes are not a readable plan file, or a readable file holds a wrong plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorKind {
    /// Unreadable or corrupt: truncation, magic, version, sizes, checksum, table structure
    /// (`dramalloc check-plan` exit 2).
    Corrupt,
    /// A well-formed file whose plan is wrong: outside the window, colliding, twins apart
    /// (`dramalloc check-plan` exit 1).
    InvalidPlan,
}

/// Why a plan file was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PlanFileError {
    /// Fewer bytes than the header, or than the header's `file_bytes`, says there are.
    Truncated {
        /// Bytes required.
        needed: u64,
        /// Bytes present.
        found: u64,
    },
    /// The first 8 bytes are not [`super::MAGIC`]; the message shows them in hex, and as
    /// text where they are printable.
    ///
    /// ```
    /// use dramalloc_core::plan_file::PlanFileError;
    /// let e = PlanFileError::BadMagic { found: *b"id,lower" };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "not a plan file: it starts with 0x69 0x64 0x2c 0x6c 0x6f 0x77 0x65 0x72 \
    ///      (as text: `id,lower`), a plan file with `DRAMPLAN`"
    /// );
    /// let e = PlanFileError::BadMagic { found: [0x7f, b'E', b'L', b'F', 2, 1, 1, 0] };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "not a plan file: it starts with 0x7f 0x45 0x4c 0x46 0x02 0x01 0x01 0x00, a plan file with `DRAMPLAN`"
    /// );
    /// ```
    BadMagic {
        /// The bytes found.
        found: [u8; 8],
    },
    /// A format version this reader does not read.
    UnsupportedVersion {
        /// The version in the file.
        found: u32,
        /// The version this reader reads ([`super::VERSION`]).
        supported: u32,
    },
    /// The header declares an entry size other than this reader's.
    EntrySize {
        /// Which part.
        part: Part,
        /// The size in the header, bytes.
        found: u32,
        /// This reader's size, bytes.
        expected: u32,
    },
    /// The header's `file_bytes` differs from the size its counts imply, or from the bytes
    /// given (more bytes than declared).
    LengthMismatch {
        /// `file_bytes` in the header.
        declared: u64,
        /// The size implied by the counts, or the bytes given.
        actual: u64,
    },
    /// The CRC-32 over the file does not match the stored one.
    ChecksumMismatch {
        /// The stored checksum.
        stored: u32,
        /// The checksum of the bytes.
        computed: u32,
    },
    /// Header flags or reserved fields carry bits this version does not define.
    UnknownHeaderBits {
        /// The flags field.
        flags: u32,
        /// The reserved field.
        reserved: u16,
    },
    /// A core count of 0 or above 65,535.
    BadCoreCount {
        /// The count in the header.
        cores: u32,
    },
    /// A core entry whose records do not continue where the previous core's ended, or run
    /// past the record table.
    CoreTable {
        /// The core.
        core: u32,
    },
    /// A core entry whose reserved field is not 0 (before 2026-12-05 said as
    /// [`PlanFileError::CoreTable`], whose words named the wrong fault).
    CoreReserved {
        /// The core.
        core: u32,
        /// The field's value.
        value: u32,
    },
    /// The cores' record ranges end before the record table does: records `first..records`
    /// belong to no core.
    RecordsWithoutCore {
        /// The first record no core lists.
        first: u32,
        /// The records in the table.
        records: u32,
    },
    /// A record listed under one core whose `core` field names another.
    RecordCore {
        /// The record.
        record: u32,
        /// The core whose range holds it.
        core: u32,
    },
    /// A record whose tensor index is past the name table.
    UnknownTensor {
        /// The record.
        record: u32,
        /// Its tensor index.
        tensor: u32,
    },
    /// A record with flag bits this version does not define.
    UnknownRecordFlags {
        /// The record.
        record: u32,
        /// Its flags.
        flags: u16,
    },
    /// A core's records are not in increasing tensor order.
    Unsorted {
        /// The first record out of order.
        record: u32,
    },
    /// A tensor listed twice on one core.
    DuplicateRecord {
        /// The second record.
        record: u32,
        /// The first record.
        first: u32,
    },
    /// A name whose bytes lie outside the string table.
    NameOutOfRange {
        /// The name table entry.
        name: u32,
    },
    /// A name that is not UTF-8.
    NameNotUtf8 {
        /// The name table entry.
        name: u32,
    },
    /// A record ends past the window (or its end overflows `u64`: `end` is `u64::MAX`).
    OutsideWindow {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// One past its last byte.
        end: u64,
        /// The window, bytes.
        window: u64,
    },
    /// A record's address is not a multiple of the header's alignment.
    Misaligned {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its address.
        address: u64,
        /// The alignment, bytes.
        align: u64,
    },
    /// A record whose aligned size is smaller than its size.
    AlignedTooSmall {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its size, bytes.
        bytes: u64,
        /// Its aligned size, bytes.
        aligned: u64,
    },
    /// A record whose aligned size is not its size rounded up to the header's alignment.
    AlignedMismatch {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its size, bytes.
        bytes: u64,
        /// Its aligned size, bytes.
        aligned: u64,
        /// `bytes` rounded up to the alignment (`u64::MAX` on overflow).
        expected: u64,
    },
    /// The header's alignment is not a power of two (1: none).
    BadAlign {
        /// The stored alignment, bytes.
        align: u64,
    },
    /// A shared record outside the header's shared region.
    SharedOutsideRegion {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its address.
        address: u64,
        /// Its address plus its aligned size.
        end: u64,
        /// The region's start (`shared_base`).
        base: u64,
        /// The region's size (`shared_bytes`).
        bytes: u64,
    },
    /// The header's shared region `[shared_base, shared_base + shared_bytes)` ends past the
    /// window (checked also where it is empty: a trial's `shared_base` of 2^56 + 36,864 in a
    /// 24 GiB window, its CRC fixed up, was accepted).
    SharedRegionOutsideWindow {
        /// The region's start (`shared_base`).
        base: u64,
        /// The region's size (`shared_bytes`).
        bytes: u64,
        /// The header's window.
        window: u64,
    },
    /// The header's `shared_bytes` is not the extent of the shared records above `shared_base`.
    SharedBytesMismatch {
        /// The stored size, bytes.
        stored: u64,
        /// The highest end of a shared record minus `shared_base` (0: no shared record).
        computed: u64,
    },
    /// A core's stored floor is not the end of its pre-placed records.
    FloorMismatch {
        /// The core.
        core: u32,
        /// The stored floor.
        stored: u64,
        /// The highest end of its non-empty pre-placed records, at least its slab's start.
        computed: u64,
    },
    /// A core's CC region does not end at the window's top (with per-core slabs too: the CC
    /// region lies above every slab).
    CcRegionNotAtTop {
        /// The core.
        core: u32,
        /// Its CC region start.
        cc_base: u64,
        /// The region size.
        cc_bytes: u64,
        /// The window's top, where it must end.
        top: u64,
    },
    /// A lifetime with `last_use < def`, past the core's instructions, or with only one of
    /// the two set to [`super::NO_ACCESS`].
    BadLifetime {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its def.
        def: u32,
        /// Its last use.
        last_use: u32,
        /// Instructions of the core.
        instructions: u32,
    },
    /// A core's CC region reaches past the window.
    CcRegionOutsideWindow {
        /// The core.
        core: u32,
        /// Its CC region start.
        cc_base: u64,
        /// The region size.
        cc_bytes: u64,
        /// The window.
        window: u64,
    },
    /// A record flagged CC outside its core's CC region, or one inside it without the flag.
    CcFlagMismatch {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its address.
        address: u64,
        /// Whether it carries [`super::FLAG_CC`].
        flagged: bool,
    },
    /// Two records of one core live at the same instruction share bytes.
    Collision {
        /// The core.
        core: u32,
        /// The record at the lower address (ties: the lower index).
        a: u32,
        /// The other record.
        b: u32,
        /// `a`'s tensor.
        tensor_a: u32,
        /// `b`'s tensor.
        tensor_b: u32,
    },
    /// A shared record on core k > 0 whose tensor is not a shared record on core 0.
    MissingTwin {
        /// The record.
        record: u32,
        /// Its tensor.
        tensor: u32,
        /// Its core.
        core: u32,
    },
    /// Twins of a shared tensor with different addresses or sizes.
    TwinMismatch {
        /// The record on core k > 0.
        record: u32,
        /// Its twin on core 0.
        twin: u32,
        /// The tensor.
        tensor: u32,
        /// The record's address.
        address: u64,
        /// The twin's address.
        twin_address: u64,
    },
    /// A core's stored HWM differs from its records'.
    HwmMismatch {
        /// The core.
        core: u32,
        /// The stored HWM.
        stored: u64,
        /// `max(floor, max(address + aligned))` over its records.
        computed: u64,
    },
    /// A core's stored CC usage differs from its records'.
    CcUsedMismatch {
        /// The core.
        core: u32,
        /// The stored bytes.
        stored: u64,
        /// The highest end of its CC records minus the region start (0: none).
        computed: u64,
    },
}

impl PlanFileError {
    /// [`ErrorKind::Corrupt`] for a file that cannot be read, [`ErrorKind::InvalidPlan`] for
    /// a readable file holding a wrong plan.
    pub const fn kind(&self) -> ErrorKind {
        use PlanFileError::*;
        match self {
            OutsideWindow { .. }
            | Misaligned { .. }
            | AlignedTooSmall { .. }
            | AlignedMismatch { .. }
            | BadAlign { .. }
            | SharedOutsideRegion { .. }
            | SharedRegionOutsideWindow { .. }
            | SharedBytesMismatch { .. }
            | FloorMismatch { .. }
            | CcRegionNotAtTop { .. }
            | BadLifetime { .. }
            | CcRegionOutsideWindow { .. }
            | CcFlagMismatch { .. }
            | Collision { .. }
            | MissingTwin { .. }
            | TwinMismatch { .. }
            | HwmMismatch { .. }
            | CcUsedMismatch { .. } => ErrorKind::InvalidPlan,
            _ => ErrorKind::Corrupt,
        }
    }
}

impl fmt::Display for PlanFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PlanFileError::*;
        match *self {
            Truncated { needed, found } => write!(f, "truncated: {needed} bytes needed, {found} present"),
            BadMagic { found } => {
                // the bytes in hex, and as text where they are printable (a trial's CSV given
                // to `check-plan` read "magic [69, 64, 2c, 6c, 6f, 77, 65, 72]")
                write!(f, "not a plan file: it starts with")?;
                for b in found {
                    write!(f, " {b:#04x}")?;
                }
                if found.iter().all(|&b| b.is_ascii_graphic() || b == b' ') {
                    f.write_str(" (as text: `")?;
                    for &b in &found {
                        write!(f, "{}", char::from(b))?;
                    }
                    f.write_str("`)")?;
                }
                f.write_str(", a plan file with `DRAMPLAN`")
            }
            UnsupportedVersion { found, supported } => {
                write!(f, "format version {found} (this reader reads version {supported})")
            }
            EntrySize { part, found, expected } => {
                write!(f, "{part:?} entries of {found} bytes declared, {expected} expected")
            }
            LengthMismatch { declared, actual } => {
                write!(f, "header says {declared} bytes, the file has or implies {actual}")
            }
            ChecksumMismatch { stored, computed } => {
                write!(f, "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")
            }
            UnknownHeaderBits { flags, reserved } => {
                // name only what is wrong: a known flag beside an unknown bit is no fault
                let unknown = flags & !super::header::KNOWN_FLAGS;
                match (unknown, reserved) {
                    (0, r) => write!(f, "the header's reserved field is {r:#x}, not 0"),
                    (u, 0) => write!(f, "header flags {flags:#x} carry bits {u:#x} this version does not define"),
                    (u, r) => write!(
                        f,
                        "header flags {flags:#x} carry bits {u:#x} this version does not define, and the reserved \
                         field is {r:#x}, not 0"
                    ),
                }
            }
            BadCoreCount { cores } => write!(f, "core count {cores} (1..=65535)"),
            CoreTable { core } => write!(f, "core {core}: record range does not follow the previous core's"),
            CoreReserved { core, value } => write!(f, "core {core}: reserved field is {value}, not 0"),
            RecordsWithoutCore { first, records } if first + 1 == records => {
                write!(f, "record {first} of {records} belongs to no core")
            }
            RecordsWithoutCore { first, records } => {
                write!(f, "records {first} to {} of {records} belong to no core", records.saturating_sub(1))
            }
            RecordCore { record, core } => write!(f, "record {record} is listed under core {core} but names another core"),
            UnknownTensor { record, tensor } => write!(f, "record {record}: tensor index {tensor} is past the name table"),
            UnknownRecordFlags { record, flags } => write!(f, "record {record}: unknown flags {flags:#x}"),
            Unsorted { record } => write!(f, "record {record}: records of a core are not in tensor order"),
            DuplicateRecord { record, first } => {
                write!(f, "record {record}: tensor listed twice on one core (first: record {first})")
            }
            NameOutOfRange { name } => write!(f, "name {name} lies outside the string table"),
            NameNotUtf8 { name } => write!(f, "name {name} is not UTF-8"),
            // an end of u64::MAX is also where `address + aligned` overflowed
            OutsideWindow { record, tensor, end: u64::MAX, window } => write!(
                f,
                "record {record} (tensor {tensor}): its address plus its aligned size reaches 2^64 - 1 or \
                 overflows, past the {window}-byte window"
            ),
            OutsideWindow { record, tensor, end, window } => {
                write!(f, "record {record} (tensor {tensor}) ends at {end}, past the {window}-byte window")
            }
            Misaligned { record, tensor, address, align } => {
                write!(f, "record {record} (tensor {tensor}): address {address} is not a multiple of {align}")
            }
            AlignedTooSmall { record, tensor, bytes, aligned } => {
                write!(f, "record {record} (tensor {tensor}): aligned size {aligned} < size {bytes}")
            }
            // (a def of NO_ACCESS, u32::MAX, is a half-missing lifetime: the arm below)
            BadLifetime { record, tensor, def, last_use, instructions } if def > last_use && def != u32::MAX => write!(
                f,
                "record {record} (tensor {tensor}): lifetime [{def}, {last_use}] ends before it starts \
                 (core of {instructions} instructions)"
            ),
            BadLifetime { record, tensor, def, last_use, instructions } => write!(
                f,
                "record {record} (tensor {tensor}): lifetime [{def}, {last_use}] is not within {instructions} instructions"
            ),
            CcRegionOutsideWindow { core, cc_base, cc_bytes, window } => write!(
                f,
                "core {core}: CC region [{cc_base}, {cc_base} + {cc_bytes}) reaches past the {window}-byte window"
            ),
            CcFlagMismatch { record, tensor, address, flagged } => write!(
                f,
                "record {record} (tensor {tensor}) at {address}: CC flag {} but the address is {} the CC region",
                if flagged { "set" } else { "clear" },
                if flagged { "outside" } else { "inside" }
            ),
            Collision { core, a, b, tensor_a, tensor_b } => write!(
                f,
                "core {core}: records {a} (tensor {tensor_a}) and {b} (tensor {tensor_b}) are live together and share bytes"
            ),
            MissingTwin { record, tensor, core } => {
                write!(f, "record {record}: shared tensor {tensor} on core {core} has no shared twin on core 0")
            }
            TwinMismatch { record, twin, tensor, address, twin_address } => write!(
                f,
                "record {record}: shared tensor {tensor} at {address} (size or address differs from its twin, record {twin} at {twin_address})"
            ),
            HwmMismatch { core, stored, computed } => {
                write!(f, "core {core}: stored HWM {stored}, records give {computed}")
            }
            AlignedMismatch { record, tensor, bytes, aligned, expected } => write!(
                f,
                "record {record}: tensor {tensor} has aligned size {aligned}, but {bytes} bytes rounded up to the alignment are {expected}"
            ),
            BadAlign { align } => write!(f, "header: alignment {align} is not a power of two"),
            SharedOutsideRegion { record, tensor, address, end, base, bytes } => write!(
                f,
                "record {record}: shared tensor {tensor} at [{address}, {end}) lies outside the shared region [{base}, {base} + {bytes})"
            ),
            SharedRegionOutsideWindow { base, bytes, window } => {
                write!(f, "the shared region at {base} of {bytes} bytes ends past the window ({window} bytes)")
            }
            SharedBytesMismatch { stored, computed } => {
                write!(f, "header: shared region of {stored} bytes, the shared records use {computed}")
            }
            FloorMismatch { core, stored, computed } => {
                write!(f, "core {core}: stored floor {stored}, its pre-placed records give {computed}")
            }
            // an empty region only marks its place: the window or the base is wrong
            CcRegionNotAtTop { core, cc_base, cc_bytes: 0, top } => write!(
                f,
                "core {core}: no CC region, but its base {cc_base} is not the window's top {top} (an empty \
                 CC region sits at the top: the header's window or the core's CC base is wrong)"
            ),
            CcRegionNotAtTop { core, cc_base, cc_bytes, top } => write!(
                f,
                "core {core}: CC region [{cc_base}, {cc_base} + {cc_bytes}) does not end at the window's top, {top}"
            ),
            CcUsedMismatch { core, stored, computed } => {
                write!(f, "core {core}: stored CC usage {stored} bytes, records give {computed}")
            }
        }
    }
}

impl core::error::Error for PlanFileError {}
