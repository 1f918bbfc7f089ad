//! The DRAM allocation pass of one core: its private spills, the shared set left out.
//! Uses: align, error, liveness, module, planner, workspace; used by: pipeline.
//!
//! The DRAM allocation pass of one core (seed `coloring_allocator_dram` → `allocate`): plans
//! every private DRAM spill with the single-function planner, leaving the shared set (marked
//! by the pipeline first) out, and records addresses in the core's [`ModuleState`].

use crate::align::{align_up, alignment_for};
use crate::error::PlanError;
use crate::liveness::program::MemoryType;
use crate::planner::{plan_function_excluding, PlanConfig};
use crate::workspace::Workspace;

use super::module::{Module, ModuleState};

/// Resets `state` for `module`: aligned sizes and per-location access hulls.
///
/// # Errors
/// [`PlanError::SizeOverflow`] for a size whose alignment overflows, [`PlanError::OperandRange`]
/// / [`PlanError::UnknownLocation`] for malformed operands.
pub fn reset_state(module: &Module<'_>, state: &mut ModuleState<'_>) -> Result<(), PlanError> {
    let f = &module.function;
    for (l, loc) in f.locations.iter().enumerate() {
        let aligned = align_up(loc.bytes, alignment_for(loc.memory))
            .ok_or(PlanError::SizeOverflow { location: l as u32, bytes: loc.bytes })?;
        state.locations[l].reset(aligned);
    }
    state.unaddressed = 0;
    for (i, ins) in f.instructions.iter().enumerate() {
        let ops = f
            .operands
            .get(ins.first as usize..ins.first as usize + ins.count as usize)
            .ok_or(PlanError::OperandRange { instruction: i as u32, first: ins.first, count: ins.count })?;
        for o in ops {
            let s = state
                .locations
                .get_mut(o.location as usize)
                .filter(|_| (o.location as usize) < f.locations.len())
                .ok_or(PlanError::UnknownLocation { instruction: i as u32, location: o.location })?;
            s.first_access = s.first_access.min(i as u32);
            s.last_access = s.last_access.max(i as u32);
        }
    }
    Ok(())
}

/// Gives every DRAM location with a fixed address (pre-placed inputs, weights and outputs;
/// pinned spills) that address plus `base` (the core's slab start, 0 without slabs). Runs
/// before any pass, so it holds with the `disable_dram_allocation` gate set. O(locations).
pub fn place_fixed(module: &Module<'_>, state: &mut ModuleState<'_>, base: u64) {
    for (l, loc) in module.function.locations.iter().enumerate() {
        if let (MemoryType::Dram, Some(a)) = (loc.memory, loc.address) {
            state.locations[l].set_allocated(base.saturating_add(a));
        }
    }
}

/// Runs the DRAM allocation of one core: plans the private spills (the shared set, marked by
/// [`super::marking::mark_shared`], left out) in `cfg.window` bytes and adds `base` (the
/// core's slab start, 0 without slabs) to every address. Fixed addresses were set by
/// [`place_fixed`].
///
/// # Errors
/// Every error of [`crate::plan_function`] (location indices are this core's).
pub fn allocate_private(
    module: &Module<'_>,
    state: &mut ModuleState<'_>,
    cfg: &PlanConfig,
    base: u64,
    ws: &mut Workspace<'_>,
) -> Result<(), PlanError> {
    let locs = &*state.locations;
    let plan =
        plan_function_excluding(&module.function, cfg, ws, |l| locs[l as usize].is_shared_post_dram_alloc())?;
    for info in ws.infos[..plan.metrics.candidates as usize].iter() {
        state.locations[info.location as usize].set_allocated(base + info.address);
    }
    state.metrics = plan.metrics;
    if base > 0 {
        state.metrics.hwm += base;
        state.metrics.reserved_space += base;
    }
    Ok(())
}
