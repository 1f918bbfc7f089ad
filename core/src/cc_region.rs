//! The collective-communication (CC) buffer region (seed section "CC-Buffer Auto-Sizing").
//! Uses: align, error, liveness (program); used by: liveness, multicore, planner, sim.
//!
//! `--allreduce-buffer-size` is in MiB (default 500); `-1` means auto: the seed's
//! `cc_buffer_size`, for every operand of every collective instruction its Info size (the
//! aligned size) plus its access-pattern footprint (the bytes the operand touches: the whole
//! tensor in this program model), rounded up to 4096 ([`operand_cc_bytes`], [`cc_buffer_size`]).
//! The region sits at the top of the window, `[start, window)`, its start `window - size`
//! rounded down to the alignment ([`region_start`]): a window that is not a multiple of the
//! page gives a region up to a page less one byte larger than asked, never one that starts
//! off the page grid (every address retried or placed in it is aligned). `select` places by
//! first-fit below it and retries inside it when nothing fits below. The multi-core pipeline places the collective
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

/// First byte of a CC region of `cc_bytes` bytes at the top of a `window`-byte window whose
/// addresses are multiples of `align` bytes: `window - cc_bytes` rounded down to a multiple
/// of `align`, so the region `[start, window)` starts on the alignment and holds up to
/// `align - 1` bytes more than `cc_bytes` where the window is not a multiple of `align`.
/// No region (`cc_bytes` 0) starts at `window`. `align` 0 counts as 1; a `cc_bytes` above
/// `window` (which [`CcSize::bytes`] refuses first) counts as the whole window. Never panics.
///
/// ```
/// use dramalloc_core::cc_region::region_start;
/// assert_eq!(region_start(629_145_600, 524_288_000, 4096), 104_857_600);
/// // one byte past 600 MiB: the region starts on the page below, not at 104857601
/// assert_eq!(region_start(629_145_601, 524_288_000, 4096), 104_857_600);
/// assert_eq!(region_start(u64::MAX, 524_288_000, 4096), 0xFFFF_FFFF_E0BF_F000);
/// assert_eq!(region_start(629_145_601, 0, 4096), 629_145_601);
/// assert_eq!(region_start(1001, 100, 1), 901);
/// ```
pub const fn region_start(window: u64, cc_bytes: u64, align: u64) -> u64 {
    if cc_bytes == 0 {
        return window;
    }
    let start = window.saturating_sub(cc_bytes);
    let align = if align == 0 { 1 } else { align };
    start - start % align
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

#[cfg(test)]
mod tests {
    use super::region_start;

    #[test]
    fn a_region_starts_on_the_alignment_below_the_window_less_its_size() {
        // a page-multiple window: exactly `window - size`
        assert_eq!(region_start(1 << 20, 1 << 16, 4096), (1 << 20) - (1 << 16));
        // one byte over: the page below, never an odd address
        assert_eq!(region_start((1 << 20) + 1, 1 << 16, 4096), (1 << 20) - (1 << 16));
        assert_eq!(region_start((1 << 20) + 4095, 1 << 16, 4096), (1 << 20) - (1 << 16));
        assert_eq!(region_start((1 << 20) + 4096, 1 << 16, 4096), (1 << 20) - (1 << 16) + 4096);
        // the top of a u64 window: 2^64 - 1 - 512 KiB = ...f7ffff, down to ...f7f000
        assert_eq!(region_start(u64::MAX, 1 << 19, 4096), 0xFFFF_FFFF_FFF7_F000);
        // byte alignment, and an alignment of 0 counted as 1
        assert_eq!(region_start(1001, 100, 1), 901);
        assert_eq!(region_start(1001, 100, 0), 901);
        assert_eq!(region_start(1001, 100, 64), 896);
        // no region: at the window, unrounded; a size past the window: the whole window
        assert_eq!(region_start(1001, 0, 64), 1001);
        assert_eq!(region_start(1001, 2000, 64), 0);
    }
}
