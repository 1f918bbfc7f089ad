//! The binary plan file: its layout, its zero-copy reader and its typed errors.
//! Uses: bytemuck, crc; used by: sim (report, cli), firmware, fuzz.
//!
//! The binary plan file a loader maps and reads in place (format version 1).
//!
//! A plan leaves `dramalloc` as a blob (`dramalloc run --report-dir DIR` writes
//! `DIR/plan.bin`; `dramalloc_sim::report::plan_bin` builds it) that firmware or a runtime
//! loader reads with no parsing and no heap: [`PlanFile::parse`] borrows the header and the
//! tables straight out of the bytes (`bytemuck`, every field a little-endian integer of
//! alignment 1, so any address works, an `include_bytes!` array included), then
//! [`PlanFile::validate`] checks the plan itself.
//!
//! ```text
//! offset 0    PlanHeader   88 B   magic "DRAMPLAN", version, sizes, counts, CRC-32,
//!                                 window, shared region, alignment
//!        88   CoreEntry    56 B × cores     HWM, floor, CC region (start, size, use), record range
//!             Record       40 B × records   tensor, core, flags, address, size, aligned, def, last use
//!             NameRef       8 B × names     offset and length in the string table
//!             strings      string_bytes     UTF-8 tensor names
//! ```
//!
//! Every failure is a [`PlanFileError`] naming the core, record or name; its
//! [`PlanFileError::kind`] separates a corrupt file from a wrong plan.
//!
//! ```
//! use dramalloc_core::plan_file::{PlanFile, PlanFileError};
//! assert_eq!(PlanFile::parse(b"DRAMPLAN").unwrap_err(), PlanFileError::Truncated { needed: 88, found: 8 });
//! ```

mod checksum;
mod collisions;
mod error;
mod header;
mod le;
mod rank_set;
mod reader;
mod record;
mod validate;

pub use checksum::{file_checksum, file_checksum_wide};
pub use collisions::scratch_for;
pub use error::{ErrorKind, Part, PlanFileError};
pub use header::{
    CoreEntry, Layout, PlanHeader, CHECKSUM_OFFSET, FLAG_PROBLEM, FLAG_SLABS, FLAG_TENSOR_PARALLEL,
    KNOWN_FLAGS, MAGIC, NO_ACCESS, VERSION,
};
pub use le::{U16Le, U32Le, U64Le};
pub use reader::PlanFile;
pub use record::{NameRef, Record, FLAG_CC, FLAG_PINNED, FLAG_PREPLACED, FLAG_SHARED, KNOWN_RECORD_FLAGS};
