//! The plan file's records and name-table entries, and the record flags.
//! Uses: le; used by: header, reader, validate, sim.
//!
//! A plan file's records (one per planned tensor per core) and its name table entries.

use bytemuck::{Pod, Zeroable};

use super::le::{U16Le, U32Le, U64Le};

/// Record flag: one buffer shared by all cores (same address on every core).
pub const FLAG_SHARED: u16 = 1;
/// Record flag: the address was fixed by the input (a pinned spill).
pub const FLAG_PINNED: u16 = 2;
/// Record flag: placed in the core's CC (collective) region.
pub const FLAG_CC: u16 = 4;
/// Record flag: pre-placed (an input, output or weight): occupies its bytes the whole program.
pub const FLAG_PREPLACED: u16 = 8;
/// Every record flag this version defines; other bits must be 0.
pub const KNOWN_RECORD_FLAGS: u16 = FLAG_SHARED | FLAG_PINNED | FLAG_CC | FLAG_PREPLACED;

/// One tensor on one core: 40 bytes, little-endian, alignment 1.
///
/// Within a core, records are sorted by `tensor` (strictly increasing), so a loader finds a
/// tensor by binary search. A record occupies bytes `[address, address + aligned)` (nothing
/// when `aligned` is 0) over instructions `[def, last_use]`, closed, read as follows:
/// - flagged [`FLAG_PREPLACED`]: `def` and `last_use` are its core's first and last access
///   ([`super::NO_ACCESS`] in both when no instruction accesses it), and it occupies its bytes
///   over every instruction of its core whatever they say, accessed or not;
/// - shared ([`FLAG_SHARED`]): `[def, last_use]` is the hull of every core's accesses;
/// - not pre-placed, [`super::NO_ACCESS`] in both: never accessed, occupies nothing in time.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Record {
    /// Index of the tensor's name in the name table (twins on different cores share it).
    pub tensor: U32Le,
    /// Core index.
    pub core: U16Le,
    /// [`FLAG_SHARED`] | [`FLAG_PINNED`] | [`FLAG_CC`] | [`FLAG_PREPLACED`].
    pub flags: U16Le,
    /// Address in the core's view, bytes.
    pub address: U64Le,
    /// Size, bytes.
    pub bytes: U64Le,
    /// Size rounded up to the alignment, bytes (at least `bytes`).
    pub aligned: U64Le,
    /// First instruction accessing it (def), or [`super::NO_ACCESS`]; for a pre-placed
    /// record its first access, not where its lifetime starts (the whole program).
    pub def: U32Le,
    /// Last instruction accessing it, or [`super::NO_ACCESS`]; for a pre-placed record its
    /// last access, not where its lifetime ends (the whole program).
    pub last_use: U32Le,
}

const _: () = assert!(core::mem::size_of::<Record>() == 40);

impl Record {
    /// True when every bit of `flag` is set.
    pub const fn has(&self, flag: u16) -> bool {
        self.flags.get() & flag == flag
    }

    /// One past the last byte of the aligned footprint, `None` on `u64` overflow.
    pub const fn end(&self) -> Option<u64> {
        self.address.get().checked_add(self.aligned.get())
    }
}

/// One name of the name table: bytes `[offset, offset + len)` of the string table. 8 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NameRef {
    /// First byte in the string table.
    pub offset: U32Le,
    /// Length, bytes (UTF-8).
    pub len: U32Le,
}

const _: () = assert!(core::mem::size_of::<NameRef>() == 8);
