//! The collective-communication (CC) buffer region (seed section "CC-Buffer Auto-Sizing").
//! Uses: align, error; used by: multicore, planner, sim.
//!
//! `--allreduce-buffer-size` is in MiB (default 500); `-1` means auto: the sum of the byte
//! sizes of all operands of collective instructions (every operand occurrence counts),
//! rounded up to 4096. The region sits at the top of the window; `select` places by first-fit
//! below it and retries inside it when nothing fits below.

use crate::align::{align_up, DRAM_PAGE};
use crate::error::PlanError;

/// Default CC region size, MiB (seed: `--allreduce-buffer-size` default 500).
pub const DEFAULT_CC_MIB: u64 = 500;

/// How the CC region is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CcSize {
    /// A fixed size in MiB (`--allreduce-buffer-size N`); 0 disables the region.
    Mib(u64),
    /// Auto (`--allreduce-buffer-size -1`): collective operand bytes rounded up to a page.
    Auto,
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

    /// Region size in bytes given the collective operand bytes; checked against `window`.
    ///
    /// ```
    /// use dramalloc_core::cc_region::CcSize;
    /// assert_eq!(CcSize::Mib(2).bytes(0, 1 << 30), Ok(2 << 20));
    /// assert_eq!(CcSize::Auto.bytes(5000, 1 << 30), Ok(8192));
    /// ```
    ///
    /// # Errors
    /// [`PlanError::CcRegionTooLarge`] when the region exceeds the window (or overflows).
    pub const fn bytes(self, collective_bytes: u64, window: u64) -> Result<u64, PlanError> {
        let b = match self {
            CcSize::Mib(m) => m.checked_mul(1 << 20),
            CcSize::Auto => align_up(collective_bytes, DRAM_PAGE),
        };
        match b {
            Some(b) if b <= window => Ok(b),
            Some(b) => Err(PlanError::CcRegionTooLarge { cc_bytes: b, window }),
            None => Err(PlanError::CcRegionTooLarge { cc_bytes: u64::MAX, window }),
        }
    }
}
