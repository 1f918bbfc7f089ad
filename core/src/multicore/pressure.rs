//! Memory pressure (seed `getMemPressure`): live DRAM bytes per instruction on each core, shared bytes counted once.
//! Uses: error, liveness, module, shared_alloc, workspace; used by: pipeline, sim.
//!
//! Memory pressure, with the seed's `getMemPressure` semantics (QUIRK under "The
//! isSharedPostDRAMAlloc marker": `getMemPressure` / `LiveMemSize` / `filter_mem` exclude
//! shared bytes from per-core accounting, so shared DRAM is counted once across all N cores,
//! not N times — a naive sum over-reports HBM by (N − 1) × the shared bytes and may fail the
//! budget check spuriously).
//!
//! At flat instruction `i`, on core `k`:
//! - **private** bytes: every pre-placed DRAM location of the core (inputs, weights, outputs:
//!   they hold their bytes for the whole program) plus every private spill live at `i`, each
//!   by its aligned size. "Live" is the planner's own liveness
//!   ([`crate::liveness::intervals`]): from a def to its last use, exactly the intervals the
//!   placement must keep apart.
//! - **shared** bytes: every tensor of the shared set (core 0's marked locations) whose hull
//!   of accesses on all cores contains `i` — once, whichever cores touch it. The shared set is
//!   placed by these hulls ([`super::shared_alloc`]).
//!
//! The device pressure at `i` is the private bytes of every core plus the shared bytes once.
//! Cost: one liveness build per core, O(instructions + locations + operands) each, and a
//! caller-lent slice of 3 × (instructions + 1) words; nothing allocates.

use heapless::Vec;

use crate::error::{PlanError, Store};
use crate::liveness::intervals::build_from_function_excluding;
use crate::liveness::program::MemoryType;
use crate::workspace::Workspace;

use super::module::{find_by_name, Module, ModuleState, MAX_CORES};
use super::shared_alloc::CoreError;

/// Live bytes at one instruction: the private part and the shared part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Peak {
    /// Flat instruction index (the first one where the peak is reached).
    pub instruction: u32,
    /// Private bytes live there (one core's, or the sum over all cores for the device).
    pub private_bytes: u64,
    /// Shared bytes live there, counted once.
    pub shared_bytes: u64,
}

impl Peak {
    /// All live bytes, private plus shared.
    pub const fn bytes(&self) -> u64 {
        self.private_bytes.saturating_add(self.shared_bytes)
    }
}

/// The peaks of a multi-core program's memory pressure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    /// Per core: the largest private + shared bytes live at one instruction (what the core's
    /// view of HBM must hold at once).
    pub view: Vec<Peak, MAX_CORES>,
    /// Per core: the largest private bytes live at one instruction (shared part 0).
    pub private: Vec<Peak, MAX_CORES>,
    /// The largest shared bytes live at one instruction (private part 0).
    pub shared: Peak,
    /// The device: the largest sum over cores of private bytes plus the shared bytes once.
    pub device: Peak,
}

/// The HBM budget the live bytes must fit before anything is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Budget {
    /// Every core's view holds its private bytes and the shared region: private + shared
    /// live at any instruction must fit the window (bytes). The CC region is inside it.
    Window(u64),
    /// Per-core slabs: a core's private bytes must fit its slab, the shared bytes the shared
    /// slab (both `cap` bytes).
    Slabs {
        /// Slab size, bytes.
        cap: u64,
    },
}

/// Entries of `live` that [`mem_pressure`] needs for `modules`: 3 × (largest instruction
/// count + 1).
pub fn scratch_len(modules: &[Module<'_>]) -> usize {
    3 * (modules.iter().map(|m| m.function.instructions.len()).max().unwrap_or(0) + 1)
}

/// Adds `bytes` over the closed instruction range `[lo, hi]` of a difference array.
fn add(diff: &mut [u64], lo: u32, hi: u32, bytes: u64) {
    diff[lo as usize] = diff[lo as usize].wrapping_add(bytes);
    diff[hi as usize + 1] = diff[hi as usize + 1].wrapping_sub(bytes);
}

/// Turns a difference array into the values (prefix sums, which never go below 0).
fn prefix(diff: &mut [u64]) {
    let mut run = 0u64;
    for d in diff.iter_mut() {
        run = run.wrapping_add(*d);
        *d = run;
    }
}

/// Computes the memory pressure of `modules` (seed `getMemPressure`; see the module docs).
/// `states` must hold the shared marks, access hulls and name indices the pipeline sets
/// before placement; `ws` is the planner workspace (its liveness scratch is overwritten);
/// `live` is scratch of at least [`scratch_len`] entries. On return `live[..w]` holds the
/// shared bytes and `live[2w..3w]` the device bytes per instruction (`w` = largest
/// instruction count + 1).
///
/// # Errors
/// `(core, error)`: [`PlanError::Capacity`] ([`Store::Pressure`]) when `live` is short, and
/// the liveness errors of [`build_from_function_excluding`] (as the placement would raise
/// them).
pub fn mem_pressure(
    modules: &[Module<'_>],
    states: &[ModuleState<'_>],
    ws: &mut Workspace<'_>,
    live: &mut [u64],
) -> Result<Pressure, CoreError> {
    let need = scratch_len(modules);
    if live.len() < need {
        return Err((0, PlanError::Capacity { store: Store::Pressure, needed: need, capacity: live.len() }));
    }
    let w = need / 3;
    let (shared, rest) = live.split_at_mut(w);
    let (private, rest) = rest.split_at_mut(w);
    let device = &mut rest[..w];
    shared.fill(0);
    if let (Some(m0), Some(s0)) = (modules.first(), states.first()) {
        for (l, st) in s0.locations[..m0.function.locations.len()].iter().enumerate() {
            if !st.is_shared_post_dram_alloc() {
                continue;
            }
            let (mut lo, mut hi) = (st.first_access, st.last_access);
            for (m, s) in modules.iter().zip(states).skip(1) {
                if let Some(t) = find_by_name(m, s, m0.names[l]) {
                    let ts = s.locations[t as usize];
                    if ts.first_access != u32::MAX {
                        lo = lo.min(ts.first_access);
                        hi = hi.max(ts.last_access);
                    }
                }
            }
            if lo != u32::MAX {
                add(shared, lo, hi, st.aligned);
            }
        }
    }
    prefix(shared);
    device.copy_from_slice(shared);
    let mut out = Pressure { shared: peak_of(shared, |i| (0, shared[i])), ..Pressure::default() };
    for (k, (m, s)) in modules.iter().zip(states).enumerate() {
        let f = &m.function;
        private.fill(0);
        if let Some(last) = f.instructions.len().checked_sub(1) {
            for (loc, st) in f.locations.iter().zip(s.locations.iter()) {
                if loc.is_preplaced() && loc.memory == MemoryType::Dram && loc.bytes > 0 {
                    add(private, 0, last as u32, st.aligned);
                }
            }
        }
        let built =
            build_from_function_excluding(f, ws, |l| s.locations[l as usize].is_shared_post_dram_alloc())
                .map_err(|e| (k as u32, e))?;
        for node in &ws.nodes[..built.intervals as usize] {
            add(private, node.lo, node.hi, ws.infos[node.payload as usize].aligned);
        }
        prefix(private);
        for (d, p) in device.iter_mut().zip(private.iter()) {
            *d = d.wrapping_add(*p);
        }
        // capacity MAX_CORES: the pipeline runs at most that many modules
        let _ = out.view.push(peak_of(private, |i| (private[i], shared[i])));
        let _ = out.private.push(peak_of(private, |i| (private[i], 0)));
    }
    out.device = peak_of(device, |i| (device[i] - shared[i], shared[i]));
    Ok(out)
}

/// The first instruction where `parts(i)` (private, shared) sums highest over `0..len`.
fn peak_of(values: &[u64], parts: impl Fn(usize) -> (u64, u64)) -> Peak {
    let mut best = Peak::default();
    for i in 0..values.len().saturating_sub(1) {
        let (p, s) = parts(i);
        if p.saturating_add(s) > best.bytes() {
            best = Peak { instruction: i as u32, private_bytes: p, shared_bytes: s };
        }
    }
    best
}

/// The HBM budget check before placement: the live bytes of every core must fit `budget`.
///
/// # Errors
/// `(core, PlanError::OverBudget)` for the first core whose peak does not fit, naming the
/// instruction and the private and shared bytes live there (the shared slab's overflow is
/// reported on core 0, which places the shared set).
pub fn check_budget(p: &Pressure, budget: Budget) -> Result<(), CoreError> {
    let over = |k: usize, peak: &Peak, budget: u64| {
        (peak.bytes() > budget).then_some((
            k as u32,
            PlanError::OverBudget {
                instruction: peak.instruction,
                private_bytes: peak.private_bytes,
                shared_bytes: peak.shared_bytes,
                budget,
            },
        ))
    };
    let found = match budget {
        Budget::Window(window) => p.view.iter().enumerate().find_map(|(k, v)| over(k, v, window)),
        Budget::Slabs { cap } => p
            .private
            .iter()
            .enumerate()
            .find_map(|(k, v)| over(k, v, cap))
            .or_else(|| over(0, &p.shared, cap)),
    };
    found.map_or(Ok(()), Err)
}
