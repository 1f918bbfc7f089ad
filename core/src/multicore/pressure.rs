//! Memory pressure that counts shared bytes once.
//! Uses: liveness, module, shared_set; used by: tests.
//!
//! Memory pressure that counts shared bytes once (seed QUIRK under "The
//! isSharedPostDRAMAlloc marker": `getMemPressure` / `LiveMemSize` / `filter_mem` exclude
//! shared bytes from per-core accounting). Summing every core's copy of a shared buffer would
//! over-report HBM by (N − 1) × the shared bytes.

use crate::liveness::program::MemoryType;

use super::module::{Module, ModuleState};
use super::shared_set::SharedEntry;

/// Aligned DRAM bytes of one core, shared locations excluded (pre-placed and private spills).
pub fn core_private_bytes(module: &Module<'_>, state: &ModuleState<'_>) -> u64 {
    module
        .function
        .locations
        .iter()
        .zip(state.locations.iter())
        .filter(|(loc, s)| loc.memory == MemoryType::Dram && !s.is_shared_post_dram_alloc())
        .map(|(_, s)| s.aligned)
        .sum()
}

/// Aligned bytes of the shared set, each tensor once.
pub fn shared_bytes(entries: &[SharedEntry]) -> u64 {
    entries.iter().map(|e| e.aligned).sum()
}

/// Total DRAM pressure: every core's private bytes plus the shared bytes once.
pub fn total_pressure(modules: &[Module<'_>], states: &[ModuleState<'_>], entries: &[SharedEntry]) -> u64 {
    modules.iter().zip(states.iter()).map(|(m, s)| core_private_bytes(m, s)).sum::<u64>()
        + shared_bytes(entries)
}
