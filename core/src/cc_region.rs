//! The collective-communication (CC) buffer region (seed section "CC-Buffer Auto-Sizing").
//! Uses: align, error, liveness (program); used by: liveness, multicore, planner, sim.
//!
//! `--allreduce-buffer-size` is in MiB (default 500); `-1` means auto: the seed's
//! `cc_buffer_size`, for every operand of every collective instruction its Info size (the
//! aligned size) plus its access-pattern footprint (the bytes the operand touches: the whole
//! tensor in this program model), rounded up to 4096 ([`operand_cc_bytes`], [`cc_buffer_size`]).
//! The region sits at the top of the window; `select` places by first-fit below it and
//! retries inside it when nothing fits below. The multi-core pipeline places the collective
//! staging buffers there, one address on every core, and sizes an auto region from the
//! collective operands of every core (the region is one address range for the device).

use crate::align::{align_up, alignment_for, DRAM_PAGE};
use crate::error::PlanError;
use crate::liveness::program::{Function, Location, MemoryType};

/// One collective operand's term of the seed's `cc_buffer_size`: its Info size (`bytes`
/// rounded up to its memory's alignment) plus its access-pattern footprint (`bytes`); 0 for
/// an operand outside DRAM. Saturating. Seed "CC-Buffer Auto-Sizing".
///
/// ```
/// use dramalloc_core::cc_region::operand_cc_bytes;
/// use dramalloc_core::liveness::program::Location;
/// assert_eq!(operand_cc_bytes(&Location::spill(5000)), 8192 + 5000);
/// ```
pub const fn operand_cc_bytes(loc: &Location) -> u64 {
    if !matches!(loc.memory, MemoryType::Dram) {
        return 0;
    }
    match align_up(loc.bytes, alignment_for(loc.memory)) {
        Some(a) => a.saturating_add(loc.bytes),
        None => u64::MAX,
    }
}

/// The seed's `cc_buffer_size` of one function, bytes (not yet page-rounded): the sum of
/// [`operand_cc_bytes`] over every operand of every collective instruction (each
/// occurrence counts). Operands naming no location are skipped (the liveness pass reports
/// them). O(operands).
pub fn cc_buffer_size(f: &Function<'_>) -> u64 {
    let mut total = 0u64;
    for (i, ins) in f.instructions.iter().enumerate() {
        if !ins.collective {
            continue;
        }
        for o in f.operands_of(i) {
            if let Some(loc) = f.locations.get(o.location as usize) {
                total = total.saturating_add(operand_cc_bytes(loc));
            }
        }
    }
    total
}

/// Default CC region size, MiB (seed: `--allreduce-buffer-size` default 500).
pub const DEFAULT_CC_MIB: u64 = 500;

/// How the CC region is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CcSize {
    /// A fixed size in MiB (`--allreduce-buffer-size N`); 0 disables the region.
    Mib(u64),
    /// Auto (`--allreduce-buffer-size -1`): the seed's `cc_buffer_size` rounded up to a page.
    Auto,
    /// A size fixed in bytes: what the multi-core pipeline hands every core once it has
    /// sized the device's region (from `Auto` or for a slab, 0).
    Bytes(u64),
}

impl Default for CcSize {
    fn default() -> Self {
        CcSize::Mib(DEFAULT_CC_MIB)
    }
}

impl CcSize {
    /// From the command-line value: `-1` is auto, `n >= 0` is `n` MiB, anything else `None`.
    pub const fn from_knob(value: i64) -> Option<CcSize> {
        match value {
            -1 => Some(CcSize::Auto),
            v if v >= 0 => Some(CcSize::Mib(v as u64)),
            _ => None,
        }
    }

    /// Region size in bytes given the seed's `cc_buffer_size` (`collective_bytes`); checked
    /// against `window`.
    ///
    /// ```
    /// use dramalloc_core::cc_region::CcSize;
    /// assert_eq!(CcSize::Mib(2).bytes(0, 1 << 30), Ok(2 << 20));
    /// assert_eq!(CcSize::Auto.bytes(5000, 1 << 30), Ok(8192));
    /// assert_eq!(CcSize::Bytes(12288).bytes(5000, 1 << 30), Ok(12288));
    /// ```
    ///
    /// # Errors
    /// [`PlanError::CcRegionTooLarge`] when the region exceeds the window (or overflows).
    pub const fn bytes(self, collective_bytes: u64, window: u64) -> Result<u64, PlanError> {
        let b = match self {
            CcSize::Mib(m) => m.checked_mul(1 << 20),
            CcSize::Auto => align_up(collective_bytes, DRAM_PAGE),
            CcSize::Bytes(b) => Some(b),
        };
        match b {
            Some(b) if b <= window => Ok(b),
            Some(b) => Err(PlanError::CcRegionTooLarge { cc_bytes: b, window }),
            None => Err(PlanError::CcRegionTooLarge { cc_bytes: u64::MAX, window }),
        }
    }
}
