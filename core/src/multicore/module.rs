//! Modules (one per logical core), per-location state and the name index.
//! Uses: error, liveness, metrics; used by: every multicore file but antidep and shared_set, sim.

use bytemuck::{Pod, Zeroable};

use crate::error::{PlanError, Store};
use crate::liveness::program::Function;
use crate::metrics::Metrics;

/// Largest supported core count.
pub const MAX_CORES: usize = 64;

const ALLOCATED: u32 = 1;
const SHARED: u32 = 2;
const REMOTE: u32 = 4;

/// One core's copy of the function (seed: a `bir::Module` made by `lnc_splitter`) and the
/// names of its locations (`names[i]` names `function.locations[i]`; twins on different cores
/// share a name).
#[derive(Clone, Copy, Debug)]
pub struct Module<'a> {
    /// The function this core runs.
    pub function: Function<'a>,
    /// Location names, parallel to `function.locations`.
    pub names: &'a [&'a str],
}

/// The remote-local target of a shared location on cores 1..N-1 (seed:
/// `getRemoteLocalTarget() -> { remote_name, coreIdx }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RemoteLocalTarget<'a> {
    /// Name of the twin on the target core.
    pub remote_name: &'a str,
    /// Target core index.
    pub core_idx: u32,
}

/// What the passes decided for one location of one core. Pod, 40 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LocState {
    /// Byte address in this core's address view (valid when allocated).
    pub address: u64,
    /// Aligned size, bytes.
    pub aligned: u64,
    /// Partition (always 0 for DRAM; carried as the seed's sync copies it).
    pub partition: u32,
    /// Bank (always 0 for DRAM; carried as the seed's sync copies it).
    pub bank: u32,
    /// First flat instruction index accessing the location on this core (`u32::MAX`: none).
    pub first_access: u32,
    /// Last flat instruction index accessing it on this core.
    pub last_access: u32,
    remote_core: u32,
    flags: u32,
}

impl LocState {
    /// The zeroed state (nothing allocated, no flags); `const`, for static storage.
    pub const EMPTY: LocState = LocState {
        address: 0,
        aligned: 0,
        partition: 0,
        bank: 0,
        first_access: 0,
        last_access: 0,
        remote_core: 0,
        flags: 0,
    };

    /// True once an address is assigned (by a plan, as pre-placed, or by sync).
    pub const fn is_allocated(&self) -> bool {
        self.flags & ALLOCATED != 0
    }
    /// The seed's `isSharedPostDRAMAlloc()`: the single source of truth that this location
    /// is one buffer shared by all cores. Only the allocator's marking sets it.
    pub const fn is_shared_post_dram_alloc(&self) -> bool {
        self.flags & SHARED != 0
    }
    /// The remote-local target, if one was set (`own_name` is the twin's name).
    pub fn remote_local_target<'a>(&self, own_name: &'a str) -> Option<RemoteLocalTarget<'a>> {
        (self.flags & REMOTE != 0)
            .then_some(RemoteLocalTarget { remote_name: own_name, core_idx: self.remote_core })
    }
    pub(crate) fn set_allocated(&mut self, address: u64) {
        self.address = address;
        self.flags |= ALLOCATED;
    }
    pub(crate) fn set_shared_post_dram_alloc(&mut self) {
        self.flags |= SHARED;
    }
    pub(crate) fn set_remote_target(&mut self, core: u32) {
        self.remote_core = core;
        self.flags |= REMOTE;
    }
    /// Test support: drops the remote-local target (fault injection).
    pub fn clear_remote_target(&mut self) {
        self.flags &= !REMOTE;
    }
    pub(crate) fn reset(&mut self, aligned: u64) {
        *self = LocState { aligned, first_access: u32::MAX, ..LocState::default() };
    }
}

/// Per-core pass state, lent by the caller.
#[derive(Debug)]
pub struct ModuleState<'s> {
    /// One entry per location of the core's function.
    pub locations: &'s mut [LocState],
    /// Name index: a permutation of location indices sorted by name (filled by the passes).
    pub by_name: &'s mut [u32],
    /// Metrics of this core's private plan.
    pub metrics: Metrics,
    /// Spills left without an address (the gate was set, or the core had none planned).
    pub unaddressed: u64,
}

impl<'s> ModuleState<'s> {
    /// Wraps caller storage (`locations` and `by_name` at least as long as the function's
    /// location list, else the run fails with [`PlanError::Capacity`] of
    /// [`Store::LocationStates`] or [`Store::NameIndex`]).
    pub fn new(locations: &'s mut [LocState], by_name: &'s mut [u32]) -> ModuleState<'s> {
        ModuleState { locations, by_name, metrics: Metrics::default(), unaddressed: 0 }
    }
}

/// Fills `state.by_name` for `module` (sort by name).
///
/// # Errors
/// [`PlanError::TooFewNames`] when `module.names` is shorter than the location list (checked
/// first: an input mistake, not storage); [`PlanError::Capacity`] naming
/// [`Store::LocationStates`] or [`Store::NameIndex`] when `state.locations` or
/// `state.by_name` is shorter than the location list; [`PlanError::DuplicateName`] when two
/// locations share a name.
pub fn build_name_index(
    core: u32,
    module: &Module<'_>,
    state: &mut ModuleState<'_>,
) -> Result<(), PlanError> {
    let n = module.function.locations.len();
    if module.names.len() < n {
        return Err(PlanError::TooFewNames { core, names: module.names.len() as u32, locations: n as u32 });
    }
    for (store, capacity) in
        [(Store::LocationStates, state.locations.len()), (Store::NameIndex, state.by_name.len())]
    {
        if capacity < n {
            return Err(PlanError::Capacity { store, needed: n, capacity });
        }
    }
    let idx = &mut state.by_name[..n];
    for (i, slot) in idx.iter_mut().enumerate() {
        *slot = i as u32;
    }
    idx.sort_unstable_by(|&a, &b| module.names[a as usize].cmp(module.names[b as usize]));
    for w in idx.windows(2) {
        if module.names[w[0] as usize] == module.names[w[1] as usize] {
            return Err(PlanError::DuplicateName { core, a: w[0].min(w[1]), b: w[0].max(w[1]) });
        }
    }
    Ok(())
}

/// Finds a location by name through the index built by [`build_name_index`]. O(log n).
pub fn find_by_name(module: &Module<'_>, state: &ModuleState<'_>, name: &str) -> Option<u32> {
    let n = module.function.locations.len();
    let idx = &state.by_name[..n];
    idx.binary_search_by(|&i| module.names[i as usize].cmp(name)).ok().map(|p| idx[p])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Store;
    use crate::liveness::program::Location;

    #[test]
    fn a_remote_target_is_set_and_cleared() {
        let mut l = LocState::EMPTY;
        assert_eq!(l.remote_local_target("S"), None);
        l.set_remote_target(3);
        l.set_allocated(4096);
        let t = l.remote_local_target("S").unwrap();
        assert_eq!((t.remote_name, t.core_idx, l.is_allocated()), ("S", 3, true));
        l.clear_remote_target();
        assert_eq!((l.remote_local_target("S").is_none(), l.is_allocated()), (true, true));
    }

    /// The name index sorts by name; two equal names, or any of the three slices shorter than
    /// the location list, are errors naming what was short (too few names: `TooFewNames`; a
    /// short state: `Capacity` of its store) or which two collide.
    #[test]
    fn name_index_sorts_and_rejects_short_storage_and_duplicates() {
        let locations = [Location::spill(1), Location::spill(1), Location::spill(1)];
        let function = Function { locations: &locations, instructions: &[], operands: &[] };
        let names = ["b", "c", "a"];
        let module = Module { function, names: &names };
        let (mut locs, mut by_name) = ([LocState::EMPTY; 3], [0u32; 3]);
        let mut state = ModuleState::new(&mut locs, &mut by_name);
        assert_eq!(build_name_index(0, &module, &mut state), Ok(()));
        assert_eq!(state.by_name, &[2, 0, 1]);
        assert_eq!(find_by_name(&module, &state, "c"), Some(1));
        let short = |locs: usize, idx: usize, nm: usize| {
            let (mut l, mut b) = ([LocState::EMPTY; 3], [0u32; 3]);
            let mut st = ModuleState::new(&mut l[..locs], &mut b[..idx]);
            let m = Module { function, names: &names[..nm] };
            build_name_index(0, &m, &mut st)
        };
        let cap = |store, capacity| Err(PlanError::Capacity { store, needed: 3, capacity });
        assert_eq!(short(2, 3, 3), cap(Store::LocationStates, 2));
        assert_eq!(short(3, 1, 3), cap(Store::NameIndex, 1));
        assert_eq!(short(3, 3, 2), Err(PlanError::TooFewNames { core: 0, names: 2, locations: 3 }));
        // the names are checked first, then the location states, then the index
        assert_eq!(short(1, 1, 1), Err(PlanError::TooFewNames { core: 0, names: 1, locations: 3 }));
        assert_eq!(short(1, 1, 3), cap(Store::LocationStates, 1));
        let dup = ["x", "y", "x"];
        let m = Module { function, names: &dup };
        assert_eq!(
            build_name_index(4, &m, &mut state),
            Err(PlanError::DuplicateName { core: 4, a: 0, b: 2 })
        );
    }
}
