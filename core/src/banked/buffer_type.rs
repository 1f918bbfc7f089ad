//! The buffer types of a device: DRAM and L1 (seed 004 §1 "Memory Banks").
//! Uses: nothing else in the crate; used by: bank_manager, device, error, sim.

/// The kind of memory a bank manager serves (seed 004 §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BufferType {
    /// Device DRAM, one bank per channel view; allocated bottom-up.
    Dram,
    /// Tensix L1 (SRAM), one bank per compute core; allocated top-down.
    L1,
}

impl core::fmt::Display for BufferType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Dram => "DRAM",
            Self::L1 => "L1",
        })
    }
}
