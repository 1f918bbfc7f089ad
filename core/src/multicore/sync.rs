//! `sync_shared_allocations`: address equalization across cores (seed section of that name).
//! Uses: error, liveness, module; used by: pipeline.
//!
//! `sync_shared_allocations` — address equalization (seed section of that name).
//!
//! A pass over all N modules: for every shared location (usage class spill, marked
//! `is_shared_post_dram_alloc`) that has no address yet, resolve its remote-local target by
//! core index and name and write the SAME address, partition and bank into it, setting it
//! allocated. With N == 1 it does nothing. Compile-time agreement, not a runtime barrier.

use crate::error::PlanError;
use crate::liveness::program::UsageClass;

use super::module::{find_by_name, Module, ModuleState};

/// Equalizes shared addresses; returns how many locations were written.
///
/// # Errors
/// [`PlanError::MissingTwin`] when a location has no remote-local target, names a core that
/// does not exist, or names a location the target core lacks (or that is unallocated there);
/// [`PlanError::TwinSizeMismatch`] when the twins differ in size. Both name both sides.
pub fn sync_shared_allocations(
    modules: &[Module<'_>],
    states: &mut [ModuleState<'_>],
) -> Result<u32, PlanError> {
    let n = modules.len();
    if n <= 1 {
        return Ok(0);
    }
    let mut written = 0u32;
    for k in 0..n {
        let f = &modules[k].function;
        for l in 0..f.locations.len() {
            let s = states[k].locations[l];
            if s.is_allocated() || !s.is_shared_post_dram_alloc() || f.locations[l].usage != UsageClass::Spill
            {
                continue;
            }
            let name = modules[k].names[l];
            let missing = |target_core: u32, target_location: u32| PlanError::MissingTwin {
                core: k as u32,
                location: l as u32,
                target_core,
                target_location,
            };
            let target = s.remote_local_target(name).ok_or(missing(u32::MAX, u32::MAX))?;
            let tc = target.core_idx as usize;
            if tc >= n || tc == k {
                return Err(missing(target.core_idx, u32::MAX));
            }
            let r = find_by_name(&modules[tc], &states[tc], target.remote_name)
                .ok_or(missing(target.core_idx, u32::MAX))?;
            let remote = states[tc].locations[r as usize];
            if !remote.is_allocated() {
                return Err(missing(target.core_idx, r));
            }
            let (mine, theirs) = (f.locations[l].bytes, modules[tc].function.locations[r as usize].bytes);
            if mine != theirs {
                return Err(PlanError::TwinSizeMismatch {
                    core: k as u32,
                    location: l as u32,
                    bytes: mine,
                    target_core: target.core_idx,
                    target_location: r,
                    target_bytes: theirs,
                });
            }
            let st = &mut states[k].locations[l];
            st.partition = remote.partition;
            st.bank = remote.bank;
            st.set_allocated(remote.address);
            milestone!(
                "Assigned memloc {} to address {} based on its remote local target",
                name,
                remote.address
            );
            written += 1;
        }
    }
    Ok(written)
}
