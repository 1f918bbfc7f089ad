//! The shared set's records: one entry per shared tensor, one record per access to it.
//! Uses: nothing else in the crate; used by: antidep, pipeline, shared_alloc, sim.

use bytemuck::{Pod, Zeroable};

/// One tensor of the shared set. Pod, 56 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SharedEntry {
    /// Address in the shared region (identical on every core), bytes.
    pub address: u64,
    /// Size, bytes.
    pub bytes: u64,
    /// Size rounded up to the 4096-byte page.
    pub aligned: u64,
    /// Location index of the twin on core 0 (the owner that places it).
    pub location: u32,
    /// Smallest flat index of a def on any core (`u32::MAX`: none).
    pub first_def: u32,
    /// Smallest flat index of a use on any core (`u32::MAX`: none).
    pub first_use: u32,
    /// Smallest flat index of any access on any core.
    pub first_access: u32,
    /// Largest flat index of any access on any core.
    pub last_access: u32,
    /// First index of this entry's records in the sorted access list (anti-dependencies).
    pub first_record: u32,
    /// Number of access records.
    pub record_count: u32,
    /// 1 when a collective instruction defines it on some core (a collective staging buffer:
    /// it lives in the CC region), else 0. Also keeps the record free of padding.
    pub collective: u32,
}

/// One access of a core's instruction to a shared tensor. Pod, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SharedAccess {
    /// Shared-entry index.
    pub entry: u32,
    /// Core index.
    pub core: u32,
    /// Flat instruction index on that core.
    pub instruction: u32,
    /// 1 for a def (write), 0 for a use (read).
    pub is_def: u32,
}
