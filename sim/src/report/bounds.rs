//! The bounds of the run summary: what each core's plan uses against a lower bound, by part (private, shared, CC) and in all.
//! Uses: host_storage, model, planning, dramalloc-core (liveness, multicore); used by: run.
//!
//! Every addressed DRAM tensor of a core's view belongs to one part:
//! - **private**: the core's pre-placed tensors and private spills below its CC region.
//!   `used` = their highest end above the core's base (0, or its slab start
//!   `core × mb_per_core MiB`); `lower_bound` = the planner's max-load bound over the same
//!   tensors, `max(peak live spills, pre-placed end + peak live unpinned spills)`.
//! - **shared**: the shared set below the CC region, one region for all cores. `used` = its
//!   highest end above the shared base; `lower_bound` = the peak of the shared bytes live at
//!   one instruction (each tensor over the hull of its accesses on all cores, as it is placed).
//! - **CC**: whatever lies in the core's CC region `[cc_base, cc_base + cc_limit)` (the top of
//!   its window; with slabs the device's region after the shared slab): the collective staging
//!   buffers and any private retry. `used` = its highest end above the region's start (the seed's real CC buffer size),
//!   `lower_bound` = the peak of those tensors' bytes live at one instruction.
//!
//! Each part's bound holds for the tensors the plan put there. The **total** bound holds for
//! every plan of the core's tensors, whatever goes where: the shared bound plus the most bytes
//! live at one instruction of the private and CC tensors together, and at least the
//! pre-placed floor plus the most bytes live at once of the others (the private spills go
//! above the floor). It is not the sum of the three parts' bounds: a private tensor may lie in
//! the private part or, retried, in the CC region, and a plan that moves it changes both
//! parts' bounds (a trial's 1-core run: private 16,384 / 16,384 and CC 81,920 / 81,920 bytes,
//! whose sum, 98,304, was printed as the bound, where a layout of 90,112 bytes exists). The
//! total `used` is what the layout spends: with per-core windows the shared region is stacked
//! above the highest private HWM of all cores, so a core's total is the top of the shared
//! region (or its private HWM when nothing is shared) plus its CC bytes; with slabs the three
//! regions are apart and the total is the sum of the three `used`. Each part's `used` is at
//! least its bound, and the total's at least the total's bound (the private and CC `used` add
//! up to at least the bytes of both live at once), so `used / lower_bound` ≥ 1 for every part
//! and for the total.
//!
//! Liveness is the planner's own ([`dramalloc_core::liveness::intervals`]): the bound is the
//! one the placement worked against, not a re-derivation.

use dramalloc_core::liveness::intervals::build_from_function_excluding;
use dramalloc_core::multicore::SharedMode;
use serde::Serialize;

use crate::host_storage::HostWorkspace;
use crate::model::SimModel;
use crate::planning::{PlanOptions, PlannedModel};

/// One part of a core's plan: bytes used and a lower bound on them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Part {
    /// Bytes the part spans in the core's view (its highest end above the part's start).
    pub used: u64,
    /// A lower bound on `used` that every plan of the same tensors meets.
    pub lower_bound: u64,
}

/// The parts of one core's plan and their total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CoreBounds {
    /// Pre-placed tensors and private spills.
    pub private: Part,
    /// The shared region (the same on every core).
    pub shared: Part,
    /// The CC region.
    pub cc: Part,
    /// Everything placed: see the module docs.
    pub total: Part,
}

/// A tensor for [`max_load`]: live over the closed instruction range `[lo, hi]`, `bytes` bytes.
type Live = (u32, u32, u64);

/// The largest sum of bytes live at one instruction. O(n log n).
pub fn max_load(live: &[Live]) -> u64 {
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * live.len());
    for &(lo, hi, bytes) in live {
        // at one instruction, starts count before ends: closed intervals touch
        events.push((u64::from(lo), false, bytes));
        events.push((u64::from(hi) + 1, true, bytes));
    }
    events.sort_unstable_by_key(|&(t, end, _)| (t, !end));
    let (mut now, mut best) = (0u64, 0u64);
    for (_, end, bytes) in events {
        if end {
            now -= bytes;
        } else {
            now += bytes;
            best = best.max(now);
        }
    }
    best
}

/// The bounds of every core of `plan` (see the module docs). `opts` gives the layout
/// (windows or slabs). Unaddressed spills are not placed and are left out. The liveness build
/// of a planned core cannot fail (its plan ran the same build); if it did, that core's spills
/// would be left out of its bounds. O(locations + operands + n log n) per core.
pub fn core_bounds(model: &SimModel, plan: &PlannedModel, opts: &PlanOptions) -> Vec<CoreBounds> {
    let cap = match opts.mode {
        SharedMode::Windows => 0,
        SharedMode::Slabs { mb_per_core } => mb_per_core << 20,
    };
    let cc_range = |k: usize| {
        let m = &plan.metrics[k];
        (m.cc_limit > 0).then(|| (m.cc_base, m.cc_base + m.cc_limit))
    };
    let in_range = |r: Option<(u64, u64)>, a: u64| r.is_some_and(|(s, e)| a >= s && a < e);
    // the shared set, split by core 0's CC region
    let (mut shared_live, mut shared_top, mut shared_cc): (Vec<Live>, u64, Vec<(u64, Live)>) =
        (Vec::new(), 0, Vec::new());
    for e in &plan.shared {
        let live = (e.first_access, e.last_access.max(e.first_access), e.aligned);
        if in_range(cc_range(0), e.address) {
            shared_cc.push((e.address + e.aligned, live));
        } else {
            shared_live.push(live);
            shared_top = shared_top.max(e.address + e.aligned - plan.report.shared_base);
        }
    }
    let shared = Part { used: shared_top, lower_bound: max_load(&shared_live) };
    let any_shared = !shared_live.is_empty();
    (0..model.cores.len())
        .map(|k| {
            let c = &model.cores[k];
            let pl = &plan.placements[k];
            let base = cap * k as u64;
            let cc = cc_range(k);
            let mut floor = 0u64;
            for (l, loc) in c.locations.iter().enumerate() {
                if let (true, Some(a)) = (loc.is_preplaced() && loc.bytes > 0, pl[l].address) {
                    floor = floor.max(a + pl[l].aligned - base);
                }
            }
            let (mut top, mut cc_top) = (floor, 0u64);
            let (mut all, mut free, mut in_cc): (Vec<Live>, Vec<Live>, Vec<Live>) =
                (Vec::new(), Vec::new(), Vec::new());
            let mut host = HostWorkspace::minimal(c.locations.len(), c.operands.len(), c.locations.len());
            let mut ws = host.workspace();
            if let Ok(built) =
                build_from_function_excluding(&c.function(), &mut ws, |l| pl[l as usize].shared)
            {
                for node in &ws.nodes[..built.intervals as usize] {
                    let l = ws.infos[node.payload as usize].location as usize;
                    let Some(a) = pl[l].address else { continue };
                    let live = (node.lo, node.hi, pl[l].aligned);
                    if in_range(cc, a) {
                        in_cc.push(live);
                    } else {
                        all.push(live);
                        if c.locations[l].address.is_none() {
                            free.push(live);
                        }
                    }
                }
            }
            for (l, p) in pl.iter().enumerate() {
                match p.address {
                    Some(a) if c.locations[l].is_candidate() && !p.shared => {
                        if in_range(cc, a) {
                            cc_top = cc_top.max(a + p.aligned - cc.map_or(0, |r| r.0));
                        } else {
                            top = top.max(a + p.aligned - base);
                        }
                    }
                    _ => {}
                }
            }
            for (end, live) in &shared_cc {
                cc_top = cc_top.max(end - cc.map_or(0, |r| r.0));
                in_cc.push(*live);
            }
            let private = Part { used: top, lower_bound: max_load(&all).max(floor + max_load(&free)) };
            let cc = Part { used: cc_top, lower_bound: max_load(&in_cc) };
            // the total's bound holds whatever the split between the private part and the CC
            // region (a private tensor may be placed in either): the two are apart, so their
            // `used` add up to at least the most bytes live at once of both together, and the
            // private spills go above the pre-placed floor
            all.extend_from_slice(&in_cc);
            free.extend_from_slice(&in_cc);
            let load_both = max_load(&all).max(floor + max_load(&free));
            let used = match opts.mode {
                SharedMode::Windows if any_shared => {
                    private.used.max(plan.report.shared_base + shared.used) + cc.used
                }
                _ => private.used + shared.used + cc.used,
            };
            let lower_bound = shared.lower_bound + load_both;
            CoreBounds { private, shared, cc, total: Part { used, lower_bound } }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_load_counts_touching_closed_intervals_together() {
        assert_eq!(max_load(&[]), 0);
        // [0,2] and [2,3] share instruction 2; [3,5] touches [2,3] at 3
        assert_eq!(max_load(&[(0, 2, 4096), (2, 3, 8192), (3, 5, 4096)]), 12288);
        assert_eq!(max_load(&[(0, 1, 4096), (2, 3, 8192)]), 8192);
    }
}
