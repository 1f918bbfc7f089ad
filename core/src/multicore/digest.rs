//! Per-core view HWM and an address checksum of a pipeline run.
//! Uses: module; used by: the firmware and host examples.
//!
//! What two runs of the pipeline must agree on, in two numbers per plan: each core's HWM
//! and one checksum over every address. Firmware and a host print them to show that they
//! planned the same model the same way (`core/examples/firmware`, `sim/examples/plan_model.rs`).

use super::module::ModuleState;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// HWM of a core's view after the pipeline: the highest `address + aligned` of its
/// addressed locations (pre-placed, private, shared), at least its pre-placed floor, bytes.
/// O(n).
pub fn view_hwm(state: &ModuleState<'_>) -> u64 {
    state
        .locations
        .iter()
        .filter(|l| l.is_allocated())
        .map(|l| l.address.saturating_add(l.aligned))
        .fold(state.metrics.reserved_space, u64::max)
}

/// FNV-1a (64-bit) over `(core: u32, location: u32, address: u64)`, little-endian, for every
/// addressed location of the first `locations[k]` of core k's states, cores and locations in
/// order. O(total locations).
///
/// ```
/// use dramalloc_core::multicore::{digest::address_checksum, LocState, ModuleState};
/// let (mut locs, mut names) = ([LocState::EMPTY; 2], [0u32; 2]);
/// let states = [ModuleState::new(&mut locs, &mut names)];
/// assert_eq!(address_checksum(&states, &[2]), 0xcbf2_9ce4_8422_2325); // nothing addressed
/// ```
pub fn address_checksum(states: &[ModuleState<'_>], locations: &[usize]) -> u64 {
    let mut h = FNV_OFFSET;
    for (k, (s, &n)) in states.iter().zip(locations).enumerate() {
        for (l, loc) in s.locations.iter().take(n).enumerate() {
            if !loc.is_allocated() {
                continue;
            }
            let mut bytes = [0u8; 16];
            bytes[..4].copy_from_slice(&(k as u32).to_le_bytes());
            bytes[4..8].copy_from_slice(&(l as u32).to_le_bytes());
            bytes[8..].copy_from_slice(&loc.address.to_le_bytes());
            for b in bytes {
                h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
    }
    h
}
