//! Plan metrics: what a run measured, one Pod record.
//! Uses: nothing else in the crate; used by: multicore, place, planner, sim.
//!
//! Plan metrics (seed: the `addMetric` calls of `allocate`, "reserved space", "Real CC
//! buffer size", "allreduce_dram_hwm"). A Pod record firmware can log or copy out.

use bytemuck::{Pod, Zeroable};

/// What one planning run measured. All sizes in bytes. `#[repr(C)]`, Pod.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Metrics {
    /// Candidate (Info) records.
    pub candidates: u64,
    /// Liveness intervals (tree nodes).
    pub intervals: u64,
    /// Pinned candidates (fixed address).
    pub pinned: u64,
    /// Reserved space: the floor `find_start_addr` returned (pre-placed HWM + 1, or 0).
    pub reserved_space: u64,
    /// Bytes of pre-placed DRAM locations (inputs, outputs, weights).
    pub preplaced_bytes: u64,
    /// Spill bytes (non-pinned candidates, raw sizes).
    pub spill_bytes: u64,
    /// Spill bytes, each rounded up to the alignment.
    pub aligned_spill_bytes: u64,
    /// Final HWM of the plan: max(address + aligned) over all candidates, at least the floor.
    pub hwm: u64,
    /// Max-load lower bound on `hwm`: max(floor + peak live non-pinned bytes, peak live bytes,
    /// the highest end of a pinned candidate).
    pub lower_bound: u64,
    /// Size of the CC region at the top of the window, `window - cc_base`: the size asked,
    /// plus up to `align - 1` bytes where the window is not a multiple of the alignment.
    pub cc_limit: u64,
    /// First byte of the CC region: `window` less the size asked, rounded down to the
    /// alignment ([`crate::cc_region::region_start`]) for one function; in slab mode the
    /// multi-core pipeline's device-wide region (see `multicore::SharedMode::Slabs`).
    pub cc_base: u64,
    /// Real CC buffer size: bytes of the CC region actually used.
    pub real_cc_bytes: u64,
    /// Allreduce HWM: highest end address inside the CC region (0 when unused).
    pub allreduce_hwm: u64,
    /// Window size the plan was bounded by.
    pub window: u64,
    /// Strategy that produced the addresses (index into [`crate::Strategy::ALL`]).
    pub strategy: u64,
}
