//! The pass pipeline and the `disable_dram_allocation` gate.
//! Uses: every other multicore file, align, error, liveness, planner, workspace; used by: sim.
//!
//! The pass pipeline and the `disable_dram_allocation` gate (seed "The
//! disable_dram_allocation Gate": the gate is checked in the pipeline BUILDER, so with it set
//! the DRAM pass and its paired passes are never registered, not skipped at run time).
//!
//! Passes, in order:
//! 1. [`Pass::DramAllocation`] — mark every core's shared set; measure the memory pressure
//!    ([`super::pressure`]) and check the HBM budget, before anything is placed; then per
//!    core plan the private spills.
//! 2. [`Pass::DmaCleanup`] — per core: every instruction's distinct DRAM operands occupy
//!    disjoint bytes (the hazard a DMA engine would hit); counts the operand pairs checked.
//! 3. [`Pass::BuildDependencies`] — per core: counts the address-reuse pairs (private
//!    locations sharing bytes), each one an ordering dependency for a runtime.
//! 4. [`Pass::AntiDependencyPostDram`] — per core: checks every reuse pair is ordered in
//!    time (access hulls disjoint) and counts the WAR edges (last access → next def).
//! 5. [`Pass::SharedDramAllocation`] — core 0 places the shared set (the collective
//!    staging buffers in the CC region); other cores get remote-local targets.
//! 6. [`Pass::SyncSharedAllocations`] — address equalization across cores.
//! 7. [`Pass::AntiDependencyPostSharedDram`] — cross-core RAW/WAR/WAW edges over the shared
//!    region.
//!
//! With `disable_dram_allocation` none of them is registered: every DRAM spill stays
//! unaddressed and [`MultiReport::unaddressed_spills`] says how many. Locations with a fixed
//! address (pre-placed inputs, weights and outputs, pinned spills) get it before any pass
//! runs, gate or no gate: pre-placement is not the DRAM pass's job.

use heapless::Vec;

use crate::align::{align_up, DRAM_PAGE};
use crate::cc_region::{cc_buffer_size, CcSize};
use crate::error::{PlanError, Store};
use crate::liveness::program::MemoryType;
use crate::planner::PlanConfig;
use crate::workspace::Workspace;

use super::antidep::{build_edges, Edge};
use super::marking::mark_shared;
use super::module::{build_name_index, Module, ModuleState, MAX_CORES};
use super::pressure::{check_budget, mem_pressure, Budget, Pressure};
use super::private_alloc::{allocate_private, place_fixed, reset_state};
use super::shared_alloc::{allocate_shared, Region};
use super::shared_set::{SharedAccess, SharedEntry};
use super::sync::sync_shared_allocations;

/// A pass of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Pass {
    /// `coloring_allocator_dram`: marks the shared set, checks the HBM budget, then private
    /// DRAM allocation per core.
    DramAllocation,
    /// `dynamic_dma_cleanup` slot: per-instruction operand-overlap check after placement.
    DmaCleanup,
    /// `build_fdeps` slot: address-reuse dependency count per core.
    BuildDependencies,
    /// Post-DRAM anti-dependency analysis per core.
    AntiDependencyPostDram,
    /// `coloring_allocator_dram_shared`: the shared set placed once by core 0.
    SharedDramAllocation,
    /// `sync_shared_allocations`.
    SyncSharedAllocations,
    /// `anti_dependency_analyzer_post_shared_dram`: cross-core edges.
    AntiDependencyPostSharedDram,
}

/// Where private and shared tensors live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SharedMode {
    /// Each core has its own window `[0, window)`; the shared region starts above the highest
    /// private HWM of all cores (page-aligned) and must end below every core's CC region
    /// `[window - cc, window)`, the same range on every core. The collective staging buffers
    /// go to the CC region, above what the cores' private retries put there.
    #[default]
    Windows,
    /// Shared mode 1: one device address space; core k's private tensors live in its slab
    /// `[k * cap, (k + 1) * cap)` with `cap = mb_per_core << 20`; the shared region starts at
    /// `N * cap`, outside every slab, and may use `cap` bytes. The CC region is one device
    /// range after it, `[(N + 1) * cap, (N + 1) * cap + cc)`, holding the collective staging
    /// buffers; a slab has no CC region of its own, so nothing retries into it and a slab
    /// smaller than the CC region works.
    Slabs {
        /// Slab size per core, MiB.
        mb_per_core: u64,
    },
}

/// Settings of a multi-core run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MultiConfig {
    /// Per-core plan settings (window = the per-core HBM window in [`SharedMode::Windows`]).
    pub plan: PlanConfig,
    /// Address-space layout.
    pub mode: SharedMode,
    /// The gate: when set, no DRAM pass is registered.
    pub disable_dram_allocation: bool,
}

/// Caller-provided storage of a multi-core run.
#[derive(Debug)]
pub struct MultiStorage<'a> {
    /// Planner workspace, reused core after core (sized for the largest core).
    pub ws: Workspace<'a>,
    /// Shared-set table (one entry per shared tensor; too few: [`PlanError::Capacity`] of
    /// [`Store::Shared`]).
    pub shared: &'a mut [SharedEntry],
    /// Shared access records (one per operand touching a shared tensor, all cores; too few:
    /// [`PlanError::Capacity`] of [`Store::Accesses`]).
    pub accesses: &'a mut [SharedAccess],
    /// Cross-core edges (too few: [`PlanError::Capacity`] of [`Store::Edges`]).
    pub edges: &'a mut [Edge],
    /// Index scratch, at least as long as the largest core's location list.
    pub index: &'a mut [u32],
    /// Live-byte scratch of the memory-pressure pass: at least
    /// [`super::pressure::scratch_len`] entries (3 × (largest instruction count + 1)).
    pub pressure: &'a mut [u64],
}

/// A pass error: which pass, which core, what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MultiError {
    /// The pass that failed.
    pub pass: Pass,
    /// The core it failed on.
    pub core: u32,
    /// The error (location indices are that core's).
    pub error: PlanError,
}

impl core::fmt::Display for MultiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?} on core {}: {}", self.pass, self.core, self.error)
    }
}

impl core::error::Error for MultiError {}

/// What a pipeline run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MultiReport {
    /// The passes that ran, in order.
    pub ran: Vec<Pass, 8>,
    /// Shared tensors placed.
    pub shared_tensors: u32,
    /// Start of the shared region, bytes.
    pub shared_base: u64,
    /// Bytes of the shared region in use.
    pub shared_region_bytes: u64,
    /// First byte of the CC region (in [`SharedMode::Windows`] the same on every core).
    pub cc_base: u64,
    /// Size of the CC region, bytes (the seed's limit: `--allreduce-buffer-size`, or auto).
    pub cc_bytes: u64,
    /// Bytes of the CC region in use: the highest end there above `cc_base`, private retries
    /// and collective buffers together (seed FunctionAttribute 13, "Real CC buffer size").
    pub cc_used: u64,
    /// Collective staging buffers placed in the CC region.
    pub cc_tensors: u32,
    /// Where they lie: `[collective_base, collective_base + collective_bytes)`, inside the CC
    /// region above every core's private retries (shared by all cores, like the shared region).
    pub collective_base: u64,
    /// Bytes of that range (0: no collective buffer in the CC region).
    pub collective_bytes: u64,
    /// Locations written by `sync_shared_allocations`.
    pub synced: u32,
    /// Cross-core edges written (`storage.edges[..edges]`).
    pub edges: usize,
    /// Operand pairs checked by the DMA hazard check.
    pub operand_pairs_checked: u64,
    /// Address-reuse pairs over all cores (BuildDependencies).
    pub reuse_pairs: u64,
    /// Per-core WAR edges implied by reuse (AntiDependencyPostDram).
    pub private_war_edges: u64,
    /// DRAM spills left without an address (all of them when the gate is set).
    pub unaddressed_spills: u64,
    /// Memory pressure measured before placement (empty when the gate is set).
    pub pressure: Pressure,
}

/// The pass list, decided when it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    passes: Vec<Pass, 8>,
}

impl Pipeline {
    /// Builds the pass list. The gate is checked HERE: with `disable_dram_allocation` the
    /// DRAM pass and all passes paired with it are not registered.
    ///
    /// ```
    /// use dramalloc_core::multicore::{MultiConfig, Pipeline, Pass};
    /// let on = Pipeline::build(&MultiConfig::default());
    /// assert_eq!(on.passes().len(), 7);
    /// let off = Pipeline::build(&MultiConfig { disable_dram_allocation: true, ..MultiConfig::default() });
    /// assert!(off.passes().is_empty());
    /// ```
    pub fn build(cfg: &MultiConfig) -> Pipeline {
        let mut passes = Vec::new();
        if !cfg.disable_dram_allocation {
            for p in [
                Pass::DramAllocation,
                Pass::DmaCleanup,
                Pass::BuildDependencies,
                Pass::AntiDependencyPostDram,
                Pass::SharedDramAllocation,
                Pass::SyncSharedAllocations,
                Pass::AntiDependencyPostSharedDram,
            ] {
                // capacity 8 > 7 passes: cannot fail
                let _ = passes.push(p);
            }
        }
        Pipeline { passes }
    }

    /// The registered passes, in order.
    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }

    /// Runs the passes over `modules` (one per core, 1..=64) with per-core `states`.
    ///
    /// # Errors
    /// [`MultiError`] naming the pass, the core and the [`PlanError`]:
    /// [`PlanError::BadCoreCount`] (no modules, or more than 64), [`PlanError::Capacity`] of
    /// [`Store::ModuleStates`] (fewer `states` than modules; both before any pass, on core 0),
    /// [`PlanError::SlabsOverflow`] (slab mode whose slabs and CC region end past `u64`, on
    /// core 0 before any pass),
    /// the errors of [`super::module::build_name_index`] ([`PlanError::TooFewNames`], a short
    /// state), any planner error, the shared-set errors of
    /// [`super::shared_alloc::allocate_shared`] and [`super::sync::sync_shared_allocations`],
    /// [`PlanError::OperandOverlap`], [`PlanError::Capacity`] (of the store that ran out).
    pub fn run(
        &self,
        cfg: &MultiConfig,
        modules: &[Module<'_>],
        states: &mut [ModuleState<'_>],
        storage: &mut MultiStorage<'_>,
    ) -> Result<MultiReport, MultiError> {
        self.run_observed(cfg, modules, states, storage, |_, _| {})
    }

    /// As [`Pipeline::run`], calling `after(pass, states)` after every pass that ran. An
    /// observer may inspect the per-core state between passes (or, in fault-injection tests,
    /// corrupt it — e.g. drop a remote-local target before `sync_shared_allocations`).
    ///
    /// # Errors
    /// As [`Pipeline::run`].
    pub fn run_observed(
        &self,
        cfg: &MultiConfig,
        modules: &[Module<'_>],
        states: &mut [ModuleState<'_>],
        storage: &mut MultiStorage<'_>,
        mut after: impl FnMut(Pass, &mut [ModuleState<'_>]),
    ) -> Result<MultiReport, MultiError> {
        let n = modules.len();
        let fail = |pass: Pass, core: u32| move |error: PlanError| MultiError { pass, core, error };
        if n == 0 || n > MAX_CORES {
            return Err(MultiError {
                pass: Pass::DramAllocation,
                core: 0,
                error: PlanError::BadCoreCount { cores: n as u32 },
            });
        }
        if states.len() < n {
            return Err(MultiError {
                pass: Pass::DramAllocation,
                core: 0,
                error: PlanError::Capacity { store: Store::ModuleStates, needed: n, capacity: states.len() },
            });
        }
        let cc_bytes = device_cc_bytes(cfg, modules).map_err(fail(Pass::DramAllocation, 0))?;
        let (window, slab) = match cfg.mode {
            SharedMode::Windows => (cfg.plan.window, 0),
            SharedMode::Slabs { mb_per_core } => {
                let cap = mb_per_core
                    .checked_mul(1 << 20)
                    .filter(|c| c.checked_mul(n as u64 + 1).and_then(|e| e.checked_add(cc_bytes)).is_some());
                let cap = cap.ok_or(fail(Pass::DramAllocation, 0)(PlanError::SlabsOverflow {
                    cores: n as u32,
                    mb_per_core,
                    cc_bytes,
                }))?;
                (cap, cap)
            }
        };
        for k in 0..n {
            build_name_index(k as u32, &modules[k], &mut states[k])
                .map_err(fail(Pass::DramAllocation, k as u32))?;
            reset_state(&modules[k], &mut states[k]).map_err(fail(Pass::DramAllocation, k as u32))?;
            // pre-placement is not the DRAM pass's job: fixed addresses hold with the gate set
            place_fixed(&modules[k], &mut states[k], slab * k as u64);
        }
        let mut rep = MultiReport::default();
        let (mut entries, mut accesses) = (0usize, 0usize);
        for &pass in self.passes() {
            match pass {
                Pass::DramAllocation => {
                    for k in 0..n {
                        mark_shared(&modules[k], &mut states[k]);
                    }
                    // the HBM budget check, before anything is placed
                    let fail_at = |(core, error)| MultiError { pass, core, error };
                    let pressure =
                        mem_pressure(modules, states, &mut storage.ws, storage.pressure).map_err(fail_at)?;
                    let budget = match cfg.mode {
                        SharedMode::Windows => Budget::Window(cfg.plan.window),
                        SharedMode::Slabs { .. } => Budget::Slabs { cap: window },
                    };
                    check_budget(&pressure, budget).map_err(fail_at)?;
                    rep.pressure = pressure;
                    // one CC size for every core; a slab has no CC region of its own
                    let cc = CcSize::Bytes(if slab > 0 { 0 } else { cc_bytes });
                    let pc = PlanConfig { window, cc, ..cfg.plan };
                    for k in 0..n {
                        allocate_private(&modules[k], &mut states[k], &pc, slab * k as u64, &mut storage.ws)
                            .map_err(fail(pass, k as u32))?;
                        if slab > 0 {
                            let m = &mut states[k].metrics;
                            (m.cc_base, m.cc_limit) = (slab * (n as u64 + 1), cc_bytes);
                        }
                    }
                }
                Pass::DmaCleanup => {
                    for k in 0..n {
                        rep.operand_pairs_checked +=
                            check_operands(&modules[k], &states[k]).map_err(fail(pass, k as u32))?;
                    }
                }
                Pass::BuildDependencies | Pass::AntiDependencyPostDram => {
                    for k in 0..n {
                        let (pairs, war) = reuse_pairs(&modules[k], &states[k], storage.index, pass)
                            .map_err(fail(pass, k as u32))?;
                        if pass == Pass::BuildDependencies {
                            rep.reuse_pairs += pairs;
                        } else {
                            rep.private_war_edges += war;
                        }
                    }
                }
                Pass::SharedDramAllocation => {
                    let (base, capacity, cc) = match cfg.mode {
                        SharedMode::Windows => {
                            // the shared region above every core's private HWM; a core that
                            // retried into the CC region counts as full up to the ceiling (its
                            // HWM lies in the CC region, where the collectives go above it)
                            let ceiling = states[..n]
                                .iter()
                                .map(|s| s.metrics.cc_base)
                                .min()
                                .unwrap_or(cfg.plan.window);
                            let top = states[..n]
                                .iter()
                                .map(|s| if s.metrics.allreduce_hwm > 0 { ceiling } else { s.metrics.hwm })
                                .max()
                                .unwrap_or(0);
                            let base = align_up(top, DRAM_PAGE).unwrap_or(u64::MAX);
                            // the CC region above every core's private retries
                            let retried =
                                states[..n].iter().map(|s| s.metrics.allreduce_hwm).max().unwrap_or(0);
                            let cc_base = align_up(retried.max(ceiling), DRAM_PAGE).unwrap_or(u64::MAX);
                            let cc_cap =
                                if cc_bytes > 0 { cfg.plan.window.saturating_sub(cc_base) } else { 0 };
                            (base, ceiling.saturating_sub(base), Region { base: cc_base, capacity: cc_cap })
                        }
                        SharedMode::Slabs { .. } => {
                            let cc = Region { base: slab * (n as u64 + 1), capacity: cc_bytes };
                            (slab * n as u64, slab, cc)
                        }
                    };
                    let (out, ne) = allocate_shared(
                        modules,
                        states,
                        storage.shared,
                        storage.accesses,
                        &mut storage.ws,
                        cfg.plan.strategy,
                        Region { base, capacity },
                        cc,
                    )
                    .map_err(|(core, error)| MultiError { pass, core, error })?;
                    entries = ne;
                    rep.shared_tensors = out.tensors;
                    rep.shared_base = base;
                    rep.shared_region_bytes = out.region_bytes;
                    rep.cc_tensors = out.cc_tensors;
                    if out.cc_tensors > 0 {
                        (rep.collective_base, rep.collective_bytes) = (cc.base, out.cc_top - cc.base);
                    }
                    // every core sees the collectives: its CC use reaches their top
                    for s in states[..n].iter_mut() {
                        let m = &mut s.metrics;
                        m.allreduce_hwm = m.allreduce_hwm.max(out.cc_top);
                        m.real_cc_bytes = m.allreduce_hwm.saturating_sub(m.cc_base);
                    }
                    if out.cc_tensors > 0 {
                        milestone!("Real CC buffer size {}", out.cc_top - states[0].metrics.cc_base);
                    }
                    accesses = out.accesses as usize;
                }
                Pass::SyncSharedAllocations => {
                    rep.synced = sync_shared_allocations(modules, states).map_err(|e| MultiError {
                        pass,
                        core: twin_core(&e),
                        error: e,
                    })?;
                }
                Pass::AntiDependencyPostSharedDram => {
                    rep.edges = build_edges(
                        &mut storage.shared[..entries],
                        &mut storage.accesses[..accesses],
                        storage.edges,
                    )
                    .map_err(fail(pass, 0))?;
                }
            }
            let _ = rep.ran.push(pass);
            after(pass, states);
        }
        if let Some(s0) = states.first() {
            (rep.cc_base, rep.cc_bytes) = (s0.metrics.cc_base, s0.metrics.cc_limit);
            rep.cc_used = states[..n].iter().map(|s| s.metrics.real_cc_bytes).max().unwrap_or(0);
        }
        for k in 0..n {
            let f = &modules[k].function;
            let un = f
                .locations
                .iter()
                .zip(states[k].locations.iter())
                .filter(|(l, s)| l.is_candidate() && l.memory == MemoryType::Dram && !s.is_allocated())
                .count() as u64;
            states[k].unaddressed = un;
            rep.unaddressed_spills += un;
        }
        Ok(rep)
    }
}

/// The CC region's size for the device: a fixed size as given, auto the seed's
/// `cc_buffer_size` summed over every core's function (the region is one address range that
/// holds every core's collective buffers), rounded up to the page.
fn device_cc_bytes(cfg: &MultiConfig, modules: &[Module<'_>]) -> Result<u64, PlanError> {
    match cfg.plan.cc {
        CcSize::Auto => {
            let sum = modules.iter().fold(0u64, |t, m| t.saturating_add(cc_buffer_size(&m.function)));
            let bytes = align_up(sum, DRAM_PAGE)
                .ok_or(PlanError::CcRegionTooLarge { cc_bytes: u64::MAX, window: cfg.plan.window })?;
            milestone!("CC buffer size limit {}", bytes);
            Ok(bytes)
        }
        fixed => fixed.bytes(0, u64::MAX),
    }
}

fn twin_core(e: &PlanError) -> u32 {
    match *e {
        PlanError::MissingTwin { core, .. } | PlanError::TwinSizeMismatch { core, .. } => core,
        _ => 0,
    }
}

/// DMA hazard check: distinct allocated DRAM operands of one instruction must not overlap.
fn check_operands(m: &Module<'_>, s: &ModuleState<'_>) -> Result<u64, PlanError> {
    let f = &m.function;
    let mut pairs = 0u64;
    for i in 0..f.instructions.len() {
        let ops = f.operands_of(i);
        for (x, a) in ops.iter().enumerate() {
            for b in &ops[x + 1..] {
                let (la, lb) = (a.location as usize, b.location as usize);
                let (sa, sb) = (s.locations[la], s.locations[lb]);
                if la == lb || !sa.is_allocated() || !sb.is_allocated() {
                    continue;
                }
                if f.locations[la].memory != MemoryType::Dram || f.locations[lb].memory != MemoryType::Dram {
                    continue;
                }
                pairs += 1;
                if sa.address < sb.address + sb.aligned && sb.address < sa.address + sa.aligned {
                    return Err(PlanError::OperandOverlap {
                        instruction: i as u32,
                        a: la as u32,
                        b: lb as u32,
                    });
                }
            }
        }
    }
    Ok(pairs)
}

/// Address-reuse pairs among a core's private allocated spills: `(pairs, war edges)`.
fn reuse_pairs(
    m: &Module<'_>,
    s: &ModuleState<'_>,
    index: &mut [u32],
    pass: Pass,
) -> Result<(u64, u64), PlanError> {
    let f = &m.function;
    let mut k = 0usize;
    for (l, loc) in f.locations.iter().enumerate() {
        let st = s.locations[l];
        if loc.is_candidate() && st.is_allocated() && !st.is_shared_post_dram_alloc() {
            let slot = index.get_mut(k).ok_or(PlanError::Capacity {
                store: Store::Order,
                needed: k + 1,
                capacity: k,
            })?;
            *slot = l as u32;
            k += 1;
        }
    }
    let war_too = pass == Pass::AntiDependencyPostDram;
    Ok(super::reuse::count_reuse(&mut index[..k], |l| s.locations[l as usize], war_too))
}
