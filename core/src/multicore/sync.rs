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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::program::{Function, Location};
    use crate::multicore::module::{build_name_index, LocState};

    /// A remote-local target must name another existing core: core 1's S pointing at core 1
    /// itself, or at core 2 of 2, is `MissingTwin` naming that core and no location (the
    /// allocator only ever points at core 0, where S sits at 4096 and is copied).
    #[test]
    fn a_target_on_the_same_core_or_past_the_last_is_a_missing_twin() {
        let locations = [Location { shared: true, ..Location::spill(4096) }];
        let function = Function { locations: &locations, instructions: &[], operands: &[] };
        let names = ["S"];
        let modules = [Module { function, names: &names }, Module { function, names: &names }];
        for (target, want) in [(0, Ok(1)), (1, Err(1)), (2, Err(2))] {
            let (mut l0, mut b0, mut l1, mut b1) = ([LocState::EMPTY], [0u32], [LocState::EMPTY], [0u32]);
            let mut states = [ModuleState::new(&mut l0, &mut b0), ModuleState::new(&mut l1, &mut b1)];
            for (k, s) in states.iter_mut().enumerate() {
                build_name_index(k as u32, &modules[k], s).unwrap();
                s.locations[0].set_shared_post_dram_alloc();
            }
            states[0].locations[0].set_allocated(4096);
            states[1].locations[0].set_remote_target(target);
            let got = sync_shared_allocations(&modules, &mut states);
            let want = want.map_err(|tc| PlanError::MissingTwin {
                core: 1,
                location: 0,
                target_core: tc,
                target_location: u32::MAX,
            });
            assert_eq!(got, want, "target core {target}");
            assert_eq!(states[1].locations[0].is_allocated(), want.is_ok());
            assert_eq!(states[1].locations[0].address, if want.is_ok() { 4096 } else { 0 });
        }
    }
}
