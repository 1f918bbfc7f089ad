//! Info records: one 40-byte Pod record per candidate location.
//! Uses: nothing else in the crate; used by: interference, intervals, place, planner, workspace, sim.
//!
//! Info records: one per candidate location (seed: the 280-byte `Info` of
//! `renumber_locations`; here a 40-byte Pod record firmware can read).

use bytemuck::{Pod, Zeroable};

/// Per-candidate planning record. `#[repr(C)]`, Pod, 40 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Info {
    /// Size rounded up to the alignment, bytes (seed `Info[+0]`).
    pub aligned: u64,
    /// Assigned (or fixed) byte address; meaningful when `allocated != 0`.
    pub address: u64,
    /// Raw size, bytes.
    pub bytes: u64,
    /// Index of the location (or buffer) this record plans.
    pub location: u32,
    /// First index of this record's intervals in the workspace's `interval_ids`.
    pub first_interval: u32,
    /// Number of liveness intervals.
    pub interval_count: u32,
    /// 1 once an address is assigned (seed `allocated@+45`).
    pub allocated: u8,
    /// 1 when the address is fixed by the input (seed `pinned@+46`).
    pub pinned: u8,
    /// 1 when the location is in the cross-core shared set.
    pub shared: u8,
    /// 1 when the location is an operand of a collective instruction.
    pub collective: u8,
}

const _: () = assert!(core::mem::size_of::<Info>() == 40);

impl Info {
    /// End address (exclusive) of the aligned footprint, saturating.
    pub const fn end(&self) -> u64 {
        self.address.saturating_add(self.aligned)
    }
    /// True once placed.
    pub const fn is_allocated(&self) -> bool {
        self.allocated != 0
    }
    /// True when the address came with the input.
    pub const fn is_pinned(&self) -> bool {
        self.pinned != 0
    }
}
