//! Shared DRAM allocation: core 0 places the shared set once; other cores get remote-local targets.
//! Uses: align, cc_region, error, liveness, module, planner, shared_set, strategy, workspace; used by: pipeline.
//!
//! The collective staging buffers of the set (the tensors a collective instruction defines
//! on some core, [`SharedEntry::collective`]) go to the CC region instead (seed "CC-Buffer
//! Auto-Sizing": collective buffers "must sit at a known, stable address range that the
//! DMA/collective layer targets"), one address on every core; the others to the shared
//! region. Without a CC region (size 0), or where they do not all fit in it, the
//! collectives go to the shared region with the others.
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
    /// Collective staging buffers placed in the CC region.
    pub cc_tensors: u32,
    /// Highest end address of a collective buffer in the CC region (0: none there).
    pub cc_top: u64,
}

/// A range of addresses the shared set is placed in: `[base, base + capacity)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Region {
    /// First byte.
    pub base: u64,
    /// Bytes available.
    pub capacity: u64,
}

/// Where an error happened: the core and the error (location indices are that core's).
pub type CoreError = (u32, PlanError);

/// Places the shared set of all `modules`: the collective staging buffers in `cc` (when its
/// capacity is not 0 and they fit there; else with the others), the others in `shared`. `states` must hold the marks of the DRAM
/// allocation pass and name indices.
///
/// # Errors
/// [`PlanError::MissingTwin`] (a core's shared tensor has no twin on core 0),
/// [`PlanError::SharedMismatch`] (the twin on core 0 is private), [`PlanError::TwinSizeMismatch`],
/// [`PlanError::UseBeforeDef`] (no core defines it before its first use),
/// [`PlanError::DoesNotFit`] (the shared region, or the CC region, is too small; its
/// `needed` and `available` are addresses), [`PlanError::Capacity`].
#[allow(clippy::too_many_arguments)]
pub fn allocate_shared(
    modules: &[Module<'_>],
    states: &mut [ModuleState<'_>],
    entries: &mut [SharedEntry],
    accesses: &mut [SharedAccess],
    ws: &mut Workspace<'_>,
    strategy: crate::Strategy,
    shared: Region,
    cc: Region,
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
                if o.access == Access::Def && f.instructions[i].collective {
                    ent.collective = 1;
                }
                if na >= accesses.len() {
                    return Err((
                        k as u32,
                        PlanError::Capacity {
                            store: Store::Accesses,
                            needed: na + 1,
                            capacity: accesses.len(),
                        },
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
    // the collectives in the CC region; where they do not fit there, all of them go to the
    // shared region with the others (the CC region then holds none)
    let collective = |e: &SharedEntry| e.collective != 0;
    let cc_used = match cc.capacity {
        0 => None,
        _ => match place_subset(&mut entries[..ne], collective, cc, strategy, ws) {
            Ok(used) => Some(used),
            Err((_, PlanError::DoesNotFit { .. })) => None,
            Err(e) => return Err(e),
        },
    };
    let in_cc = |e: &SharedEntry| cc_used.is_some() && e.collective != 0;
    let region_bytes = place_subset(&mut entries[..ne], |e| !in_cc(e), shared, strategy, ws)?;
    let cc_used = cc_used.unwrap_or(0);
    for e in entries[..ne].iter() {
        states[0].locations[e.location as usize].set_allocated(e.address);
    }
    for st in states.iter_mut().skip(1) {
        for s in st.locations.iter_mut().filter(|s| s.is_shared_post_dram_alloc()) {
            s.set_remote_target(0);
        }
    }
    let cc_tensors = entries[..ne].iter().filter(|e| in_cc(e)).count() as u32;
    let cc_top = if cc_tensors > 0 { cc.base + cc_used } else { 0 };
    let outcome = SharedOutcome { tensors: ne as u32, accesses: na as u32, region_bytes, cc_tensors, cc_top };
    Ok((outcome, ne))
}

/// Places the entries that `pick` selects in `region` with the planner (alignment 4096, each
/// over its hull of accesses) and writes their addresses; returns the HWM above
/// `region.base` (0 when none is picked).
fn place_subset(
    entries: &mut [SharedEntry],
    pick: impl Fn(&SharedEntry) -> bool,
    region: Region,
    strategy: crate::Strategy,
    ws: &mut Workspace<'_>,
) -> Result<u64, CoreError> {
    if !entries.iter().any(&pick) {
        return Ok(0);
    }
    let cfg = PlanConfig { window: region.capacity, cc: CcSize::Mib(0), strategy };
    let n = entries.iter().filter(|e| pick(e)).count();
    let it = entries.iter().filter(|e| pick(e)).map(|e| Buffer::new(e.first_access, e.last_access, e.bytes));
    let bufs = Counted { it, left: n };
    let plan = plan_buffer_iter(bufs, DRAM_PAGE, &cfg, ws).map_err(|err| {
        let owner = |k: u32| entries.iter().filter(|e| pick(e)).nth(k as usize).map_or(k, |e| e.location);
        (
            0,
            match err {
                PlanError::DoesNotFit { location, size, needed, available, largest_gap } => {
                    PlanError::DoesNotFit {
                        location: owner(location),
                        size,
                        needed: needed.saturating_add(region.base),
                        available: available.saturating_add(region.base),
                        largest_gap,
                    }
                }
                other => other,
            },
        )
    })?;
    for (e, info) in entries.iter_mut().filter(|e| pick(e)).zip(ws.infos.iter()) {
        e.address = region.base + info.address;
    }
    Ok(plan.metrics.hwm)
}

/// An iterator that knows how many items it yields (the planner takes exact-size iterators).
struct Counted<I> {
    it: I,
    left: usize,
}

impl<I: Iterator> Iterator for Counted<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        let x = self.it.next()?;
        self.left = self.left.saturating_sub(1);
        Some(x)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator> ExactSizeIterator for Counted<I> {}
