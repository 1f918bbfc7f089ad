//! Alignment: the seed's `getAlignmentSize` (section "Page / GCA Alignment").
//! Uses: liveness; used by: cc_region, liveness, multicore, planner.
//!
//! DRAM aligns to a fixed 4096-byte page, `aligned = (bytes + 4095) & !4095`; every other
//! memory type aligns to 1. The seed's `--dram-page-size` knob does not change DRAM
//! alignment, so there is no such knob here.

use crate::liveness::program::MemoryType;

/// The DRAM page: 4096 bytes.
pub const DRAM_PAGE: u64 = 4096;

/// Alignment in bytes for a memory type: 4096 for DRAM, 1 otherwise.
pub const fn alignment_for(memory: MemoryType) -> u64 {
    match memory {
        MemoryType::Dram => DRAM_PAGE,
        _ => 1,
    }
}

/// Rounds `bytes` up to a multiple of `align` (bytes; `align >= 1`). `None` on `u64`
/// overflow or `align == 0`.
///
/// ```
/// use dramalloc_core::align::align_up;
/// assert_eq!(align_up(1, 4096), Some(4096));
/// assert_eq!(align_up(8192, 4096), Some(8192));
/// assert_eq!(align_up(u64::MAX, 4096), None);
/// ```
pub const fn align_up(bytes: u64, align: u64) -> Option<u64> {
    if align == 0 {
        return None;
    }
    let rem = bytes % align;
    if rem == 0 {
        Some(bytes)
    } else {
        bytes.checked_add(align - rem)
    }
}
