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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multicore::module::LocState;

    /// FNV-1a of the 16 bytes of one `(core, location, address)` record, written out.
    fn fnv(mut h: u64, core: u32, location: u32, address: u64) -> u64 {
        let mut bytes = [0u8; 16];
        bytes[..4].copy_from_slice(&core.to_le_bytes());
        bytes[4..8].copy_from_slice(&location.to_le_bytes());
        bytes[8..].copy_from_slice(&address.to_le_bytes());
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }

    /// Core 0 addresses location 1 at 4096 (8 KiB aligned) and leaves 0 unaddressed; core 1
    /// addresses location 0 at 0 (4 KiB) and location 2 at 65,536 beyond the count given.
    #[test]
    fn view_hwm_and_checksum_of_two_cores() {
        let mut l0 = [LocState::EMPTY; 3];
        let mut l1 = [LocState::EMPTY; 3];
        l0[0].aligned = 1 << 20; // not addressed: does not count
        l0[1].aligned = 8192;
        l0[1].set_allocated(4096);
        l1[0].aligned = 4096;
        l1[0].set_allocated(0);
        l1[2].aligned = 4096;
        l1[2].set_allocated(65_536);
        let (mut n0, mut n1) = ([0u32; 3], [0u32; 3]);
        let mut states = [ModuleState::new(&mut l0, &mut n0), ModuleState::new(&mut l1, &mut n1)];
        assert_eq!((view_hwm(&states[0]), view_hwm(&states[1])), (12_288, 69_632));
        states[1].metrics.reserved_space = 100_000; // the pre-placed floor is the least HWM
        assert_eq!(view_hwm(&states[1]), 100_000);
        let want = fnv(fnv(0xcbf2_9ce4_8422_2325, 0, 1, 4096), 1, 0, 0);
        assert_eq!(address_checksum(&states, &[3, 2]), want);
        assert_eq!(address_checksum(&states, &[3, 2]), 0x7477_b30b_3b2c_f745); // FNV-1a, by Python
        assert_ne!(address_checksum(&states, &[3, 3]), want);
    }
}
