//! Shared DRAM allocation: core 0 places the shared set once; other cores get remote-local targets.
//! Uses: align, cc_region, error, liveness, module, planner, shared_set, strategy, workspace; used by: pipeline.
//!
//! Shared DRAM allocation (seed `coloring_allocator_dram_shared`, "Skipping shared tensor
//! allocations on core k, marking as remote local target instead").
//!
//! Core 0 places the whole shared set once, in a shared region outside every core's private
//! range, with the same planner (alignment 4096), using for each shared tensor the hull of
//! every core's accesses to it on the common flat-index axis. Distinct shared tensors whose
//! hulls never overlap may share bytes (the anti-dependency edges then order the cores). On
//! cores 1..N-1 shared tensors are not placed: each gets a remote-local target pointing at
//! its twin on core 0, resolved later by `sync_shared_allocations`.

use crate::align::DRAM_PAGE;
use crate::cc_region::CcSize;
use crate::error::{PlanError, Store};
use crate::liveness::buffers::Buffer;
use crate::liveness::program::Access;
use crate::planner::{plan_buffer_iter, PlanConfig};
use crate::workspace::Workspace;

use super::module::{find_by_name, Module, ModuleState};
use super::shared_set::{SharedAccess, SharedEntry};

/// Result of [`allocate_shared`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SharedOutcome {
    /// Shared tensors placed.
    pub tensors: u32,
    /// Access records written.
    pub accesses: u32,
    /// Bytes of the shared region in use (its HWM above `base`).
    pub region_bytes: u64,
}

/// Where an error happened: the core and the error (location indices are that core's).
pub type CoreError = (u32, PlanError);

/// Places the shared set of all `modules` at `base` within `capacity` bytes.
/// `states` must hold the marks of the DRAM allocation pass and name indices.
///
/// # Errors
/// [`PlanError::MissingTwin`] (a core's shared tensor has no twin on core 0),
/// [`PlanError::SharedMismatch`] (the twin on core 0 is private), [`PlanError::TwinSizeMismatch`],
/// [`PlanError::UseBeforeDef`] (no core defines it before its first use),
/// [`PlanError::DoesNotFit`] (the shared region is too small), [`PlanError::Capacity`].
#[allow(clippy::too_many_arguments)]
pub fn allocate_shared(
    modules: &[Module<'_>],
    states: &mut [ModuleState<'_>],
    entries: &mut [SharedEntry],
    accesses: &mut [SharedAccess],
    ws: &mut Workspace<'_>,
    strategy: crate::Strategy,
    base: u64,
    capacity: u64,
) -> Result<(SharedOutcome, usize), CoreError> {
    const NONE: u32 = u32::MAX;
    let m0 = &modules[0];
    let n0 = m0.function.locations.len();
    if ws.locations.len() < n0 {
        return Err((
            0,
            PlanError::Capacity { store: Store::Locations, needed: n0, capacity: ws.locations.len() },
        ));
    }
    // entries: the core-0 shared set, in location order
    let mut ne = 0usize;
    for l in 0..n0 {
        ws.locations[l].info = NONE;
        if states[0].locations[l].is_shared_post_dram_alloc() {
            if ne >= entries.len() {
                return Err((
                    0,
                    PlanError::Capacity { store: Store::Shared, needed: ne + 1, capacity: entries.len() },
                ));
            }
            let loc = m0.function.locations[l];
            entries[ne] = SharedEntry {
                bytes: loc.bytes,
                aligned: states[0].locations[l].aligned,
                location: l as u32,
                first_def: NONE,
                first_use: NONE,
                first_access: NONE,
                ..SharedEntry::default()
            };
            ws.locations[l].info = ne as u32;
            ne += 1;
        }
    }
    // twins and accesses of every core
    let mut na = 0usize;
    for (k, m) in modules.iter().enumerate() {
        let f = &m.function;
        for (l, loc) in f.locations.iter().enumerate() {
            if !states[k].locations[l].is_shared_post_dram_alloc() || k == 0 {
                continue;
            }
            let name = m.names[l];
            let Some(t) = find_by_name(m0, &states[0], name) else {
                return Err((
                    k as u32,
                    PlanError::MissingTwin {
                        core: k as u32,
                        location: l as u32,
                        target_core: 0,
                        target_location: NONE,
                    },
                ));
            };
            if ws.locations[t as usize].info == NONE {
                return Err((
                    k as u32,
                    PlanError::SharedMismatch {
                        core: k as u32,
                        location: l as u32,
                        target_core: 0,
                        target_location: t,
                    },
                ));
            }
            let tb = m0.function.locations[t as usize].bytes;
            if tb != loc.bytes {
                return Err((
                    k as u32,
                    PlanError::TwinSizeMismatch {
                        core: k as u32,
                        location: l as u32,
                        bytes: loc.bytes,
                        target_core: 0,
                        target_location: t,
                        target_bytes: tb,
                    },
                ));
            }
        }
        for i in 0..f.instructions.len() {
            for o in f.operands_of(i) {
                let l = o.location as usize;
                if !states[k].locations[l].is_shared_post_dram_alloc() {
                    continue;
                }
                let t = if k == 0 { Some(l as u32) } else { find_by_name(m0, &states[0], m.names[l]) };
                let e = t.map_or(NONE, |t| ws.locations[t as usize].info);
                if e == NONE {
                    continue; // reported above
                }
                let ent = &mut entries[e as usize];
                let i32_ = i as u32;
                ent.first_access = ent.first_access.min(i32_);
                ent.last_access = ent.last_access.max(i32_);
                match o.access {
                    Access::Def => ent.first_def = ent.first_def.min(i32_),
                    Access::Use => ent.first_use = ent.first_use.min(i32_),
                }
                if na >= accesses.len() {
                    return Err((
                        k as u32,
                        PlanError::Capacity { store: Store::Edges, needed: na + 1, capacity: accesses.len() },
                    ));
                }
                accesses[na] = SharedAccess {
                    entry: e,
                    core: k as u32,
                    instruction: i32_,
                    is_def: (o.access == Access::Def) as u32,
                };
                na += 1;
            }
        }
    }
    for e in entries[..ne].iter() {
        if e.first_use != NONE && (e.first_def == NONE || e.first_use < e.first_def) {
            return Err((0, PlanError::UseBeforeDef { location: e.location, instruction: e.first_use }));
        }
    }
    // a shared tensor no core accesses is live nowhere; give it the interval [0, 0]
    for e in entries[..ne].iter_mut().filter(|e| e.first_access == NONE) {
        e.first_access = 0;
        e.last_access = 0;
    }
    let cfg = PlanConfig { window: capacity, cc: CcSize::Mib(0), strategy };
    let bufs = entries[..ne].iter().map(|e| Buffer::new(e.first_access, e.last_access, e.bytes));
    let plan = plan_buffer_iter(bufs, DRAM_PAGE, &cfg, ws).map_err(|err| {
        (
            0,
            match err {
                PlanError::DoesNotFit { location, size, needed, available, largest_gap } => {
                    PlanError::DoesNotFit {
                        location: entries[location as usize].location,
                        size,
                        needed: needed.saturating_add(base),
                        available: available.saturating_add(base),
                        largest_gap,
                    }
                }
                other => other,
            },
        )
    })?;
    for (k, info) in ws.infos[..ne].iter().enumerate() {
        entries[k].address = base + info.address;
        states[0].locations[entries[k].location as usize].set_allocated(base + info.address);
    }
    for st in states.iter_mut().skip(1) {
        for s in st.locations.iter_mut().filter(|s| s.is_shared_post_dram_alloc()) {
            s.set_remote_target(0);
        }
    }
    let outcome = SharedOutcome { tensors: ne as u32, accesses: na as u32, region_bytes: plan.metrics.hwm };
    Ok((outcome, ne))
}
