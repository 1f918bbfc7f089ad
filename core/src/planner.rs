//! The `allocate` driver: floor, CC limit, pinned checks, lower bound and metrics around the placement.
//! Uses: align, cc_region, error, liveness, metrics, place, strategy, workspace; used by: multicore, sim.
//!
//! The `allocate` driver (seed section "The allocate Driver"): liveness → interval tree →
//! elimination order → `select`, with the HWM floor (`find_start_addr`), the CC region, the
//! early exit and the metrics.
//!
//! What `auto` and `exact` run at which size, and with which budgets:
//! [`crate::place::portfolio`].

use crate::cc_region::{region_start, CcSize};
use crate::error::PlanError;
use crate::liveness::block_index::index_words;
use crate::liveness::buffers::{build_from_buffer_iter, unpad, Buffer};
use crate::liveness::info::Info;
use crate::liveness::interference::{build_adjacency, build_csr, Graph};
use crate::liveness::interval_tree::IntervalTree;
use crate::liveness::intervals::{build_from_function_excluding, Built};
use crate::liveness::program::Function;
use crate::metrics::Metrics;
use crate::place::exact::Budget;
use crate::place::lower_bound::max_load;
use crate::place::pinned_clash::{pinned_clash, Clash};
use crate::place::portfolio::{
    run_strategy, Storage, AUTO_WORK_BUDGET, EXACT_DEFAULT_NODES, EXACT_DEFAULT_WORK,
};
use crate::place::report::Members;
use crate::place::seed::select::Regions;
use crate::strategy::Strategy;
use crate::workspace::{Scratch, Workspace};

/// Default per-core HBM window, bytes: 24 GiB, the HBM of one logical NeuronCore (LNC = 2)
/// of a Trainium2-class device (96 GiB HBM per chip over 4 logical cores).
pub const DEFAULT_HBM_WINDOW: u64 = 24 << 30;

/// Settings of one planning run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PlanConfig {
    /// Window (HBM bytes) the plan must fit in, CC region included.
    pub window: u64,
    /// CC region size (top of the window).
    pub cc: CcSize,
    /// Placement strategy.
    pub strategy: Strategy,
}

impl Default for PlanConfig {
    fn default() -> Self {
        PlanConfig { window: DEFAULT_HBM_WINDOW, cc: CcSize::default(), strategy: Strategy::default() }
    }
}

/// Whether any work was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Status {
    /// Candidates were placed.
    Planned,
    /// Nothing needed a placement (no candidate, or all pinned): success with zero work
    /// (seed: "No candidate, DRAM allocation successful").
    NothingToPlace,
}

/// The result of a successful run. Addresses are in the workspace's Info records
/// (`ws.infos[..metrics.candidates]`, `Info::location` names the location or buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Plan {
    /// Planned or early exit.
    pub status: Status,
    /// The metrics.
    pub metrics: Metrics,
    /// What the `auto` and `exact` portfolios ran, and why the rest were skipped (empty for
    /// a single strategy).
    pub members: Members,
}

/// Plans every DRAM spill of `f` (seed `DRAM_Allocator::allocate`). Alignment is the DRAM
/// page (4096 bytes).
///
/// ```
/// use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand};
/// use dramalloc_core::{plan_function, PlanConfig, CcSize, StaticWorkspace};
/// // 0: def a; 1: use a, def b; 2: use b
/// let locs = [Location::spill(4096), Location::spill(4096)];
/// let ops = [Operand::def(0), Operand::use_(0), Operand::def(1), Operand::use_(1)];
/// let ins = [Instruction { first: 0, count: 1, collective: false },
///            Instruction { first: 1, count: 2, collective: false },
///            Instruction { first: 3, count: 1, collective: false }];
/// let f = Function { locations: &locs, instructions: &ins, operands: &ops };
/// let mut st: StaticWorkspace<4, 8, 4> = StaticWorkspace::new();
/// let mut ws = st.workspace();
/// let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), ..PlanConfig::default() };
/// let plan = plan_function(&f, &cfg, &mut ws)?;
/// assert_eq!((ws.infos[0].address, ws.infos[1].address), (0, 4096)); // both live at 1
/// assert_eq!(plan.metrics.hwm, 8192);
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// Every input error of [`crate::liveness::intervals::build_from_function`]; [`PlanError::DoesNotFit`]
/// when a candidate fits neither below the CC ceiling nor in the CC region;
/// [`PlanError::OutsideWindow`], [`PlanError::PinnedOverlap`], [`PlanError::CcRegionTooLarge`],
/// [`PlanError::CcRegionOverlapsPreplaced`].
/// On error no address is reported as planned.
pub fn plan_function(f: &Function<'_>, cfg: &PlanConfig, ws: &mut Workspace<'_>) -> Result<Plan, PlanError> {
    plan_function_excluding(f, cfg, ws, |_| false)
}

/// As [`plan_function`], with the locations for which `exclude(location)` is true left out
/// of the plan (see [`crate::liveness::intervals::build_from_function_excluding`]).
///
/// # Errors
/// As [`plan_function`].
pub fn plan_function_excluding(
    f: &Function<'_>,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
    exclude: impl Fn(u32) -> bool,
) -> Result<Plan, PlanError> {
    let built = build_from_function_excluding(f, ws, exclude)?;
    plan_built(ws, &built, cfg, crate::align::DRAM_PAGE)
}

/// Plans buffers that carry their own closed intervals, aligning sizes and the page-straddle
/// rule to `align` bytes (1 for the DSA sets, 4096 for DRAM). Buffer `k` is Info `k`.
///
/// ```
/// use dramalloc_core::{plan_buffers, Buffer, PlanConfig, CcSize, StaticWorkspace};
/// let bufs = [Buffer::new(0, 9, 4096), Buffer::new(3, 5, 8192), Buffer::new(5, 8, 8192)];
/// let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
/// let mut ws = st.workspace();
/// let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), ..PlanConfig::default() };
/// let plan = plan_buffers(&bufs, 4096, &cfg, &mut ws)?;
/// assert_eq!(plan.metrics.hwm, 20480); // all three live at 5
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// As [`plan_function`], plus [`PlanError::BadInterval`] for `last_use < def` and
/// [`PlanError::BadAlignment`] for `align` 0 (an alignment is at least 1 byte; 1 for none).
pub fn plan_buffers(
    buffers: &[Buffer],
    align: u64,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
) -> Result<Plan, PlanError> {
    plan_buffer_iter(buffers.iter().copied(), align, cfg, ws)
}

/// As [`plan_buffers`], with the search budget of the [`Strategy::Exact`] strategy given by
/// the caller: at most `budget.max_nodes` search nodes, and `budget.keep_going` is asked
/// every [`crate::place::exact::CHECK_EVERY`] nodes (a host passes a clock for a time limit). The
/// best plan found so far is returned when the budget ends (anytime). A single strategy
/// ignores `max_nodes` and `work`, and asks `keep_going` every 256 buffers placed (the
/// skyline: every [`crate::place::skyline::CHECK_EVERY`] re-keys instead; its placements
/// alone are O(n log n), and a run without re-keys is not asked): told to stop, it has no plan
/// ([`PlanError::Stopped`]; pass `|| true` where it must finish).
///
/// ```
/// use dramalloc_core::{plan_buffers_with, Buffer, PlanConfig, CcSize, StaticWorkspace, Strategy};
/// use dramalloc_core::place::exact::Budget;
/// // Size-descending first-fit needs 3 units here; the optimum is the lower bound, 2.
/// let bufs = [Buffer::new(0, 1, 1), Buffer::new(1, 2, 1), Buffer::new(2, 3, 1),
///             Buffer::new(0, 0, 1), Buffer::new(3, 3, 1)];
/// let mut st: StaticWorkspace<5, 5, 0> = StaticWorkspace::new();
/// let mut ws = st.workspace();
/// let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: Strategy::Exact };
/// let mut calls = 0;
/// let mut keep_going = || { calls += 1; calls < 1000 };
/// let mut budget = Budget::new(10_000, 1_000_000, &mut keep_going);
/// let plan = plan_buffers_with(&bufs, 1, &cfg, &mut ws, &mut budget)?;
/// assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (2, 2));
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// As [`plan_buffers`]; [`PlanError::Stopped`] when `keep_going` stopped a single strategy.
pub fn plan_buffers_with(
    buffers: &[Buffer],
    align: u64,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
    budget: &mut Budget<'_>,
) -> Result<Plan, PlanError> {
    let built = build_from_buffer_iter(buffers.iter().copied(), align, ws)?;
    plan_built_with(ws, &built, cfg, align, budget)
}

/// As [`plan_buffers_with`], from any exact-size iterator of buffers.
///
/// # Errors
/// As [`plan_buffers`]; [`PlanError::IteratorLength`] when the iterator yields another count
/// than its `len()`.
pub fn plan_buffer_iter_with(
    buffers: impl ExactSizeIterator<Item = Buffer>,
    align: u64,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
    budget: &mut Budget<'_>,
) -> Result<Plan, PlanError> {
    let built = build_from_buffer_iter(buffers, align, ws)?;
    plan_built_with(ws, &built, cfg, align, budget)
}

/// As [`plan_buffers`], from any exact-size iterator of buffers (no slice needed).
///
/// # Errors
/// As [`plan_buffers`]; [`PlanError::IteratorLength`] when the iterator yields another count
/// than its `len()`.
pub fn plan_buffer_iter(
    buffers: impl ExactSizeIterator<Item = Buffer>,
    align: u64,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
) -> Result<Plan, PlanError> {
    let built = build_from_buffer_iter(buffers, align, ws)?;
    plan_built(ws, &built, cfg, align)
}

/// Node budget of the branch and bound when the caller gives none (`plan_buffers`,
/// `plan_function`) for `candidates` buffers: [`EXACT_DEFAULT_WORK`] / n (a node costs O(n)),
/// at most [`EXACT_DEFAULT_NODES`]; 0 candidates count as 1.
///
/// ```
/// use dramalloc_core::planner::exact_default_nodes;
/// assert_eq!(exact_default_nodes(50), 2_000_000);
/// assert_eq!(exact_default_nodes(2_048), 48_828);
/// ```
pub fn exact_default_nodes(candidates: u64) -> u64 {
    (EXACT_DEFAULT_WORK / candidates.max(1)).min(EXACT_DEFAULT_NODES)
}

fn plan_built(
    ws: &mut Workspace<'_>,
    built: &Built,
    cfg: &PlanConfig,
    align: u64,
) -> Result<Plan, PlanError> {
    let mut always = || true;
    let nodes = exact_default_nodes(built.infos as u64);
    let mut budget = Budget::new(nodes, AUTO_WORK_BUDGET, &mut always);
    plan_built_with(ws, built, cfg, align, &mut budget)
}

fn plan_built_with(
    ws: &mut Workspace<'_>,
    built: &Built,
    cfg: &PlanConfig,
    align: u64,
    budget: &mut Budget<'_>,
) -> Result<Plan, PlanError> {
    let (n, m) = (built.infos as usize, built.intervals as usize);
    ws.ensure(n, m)?;
    let Workspace {
        nodes,
        interval_ids,
        infos,
        scratch,
        order,
        heap,
        neighbours,
        occupied,
        placed,
        slots,
        sections,
        raises,
        adjacency,
        tree_index,
        lookahead,
        stand_in,
        ..
    } = ws;
    let infos = &mut infos[..n];
    let scratch = &mut scratch[..n];
    let asked = cfg.cc.bytes(built.collective_bytes, cfg.window)?;
    if let Some(h) = built.preplaced_hwm {
        milestone!("Already used DRAM hwm: {}", h);
    }
    if cfg.cc == CcSize::Auto {
        milestone!("CC buffer size limit {}", asked);
    }
    // the region starts on the alignment (a window that is not a multiple of it gives a
    // region a little larger than asked); its size from here on is the real one
    let cc_base = region_start(cfg.window, asked, align);
    let cc_limit = cfg.window - cc_base;
    let floor = built.preplaced_hwm.map_or(0, |h| h + 1);
    if floor > cfg.window {
        return Err(PlanError::OutsideWindow {
            location: built.preplaced_top,
            end: floor,
            window: cfg.window,
        });
    }
    if cc_limit > 0 && floor > cc_base {
        return Err(PlanError::CcRegionOverlapsPreplaced { cc_bytes: cc_limit, floor, window: cfg.window });
    }
    let mut tree = IntervalTree::build(&mut nodes[..m]);
    // the block index, where the caller lent room for it (the same answers, fewer reads)
    if tree_index.len() >= index_words(m) {
        tree = tree.with_index(tree_index)?;
    }
    milestone!("Num intervals {} Num locations {}", m, n);
    build_csr(tree.nodes(), &mut interval_ids[..m], infos);
    let mut graph = Graph::new(tree, &interval_ids[..m]);
    scratch.iter_mut().for_each(|s| *s = Scratch::default());
    // the neighbour lists once, where the caller lent room for them and the strategy asks for
    // neighbours (the sweep never does: building them for it cost 0.3 s and 100 MB on 5,000
    // nested buffers, where its plan takes 1 ms)
    if adjacency.len() > n && cfg.strategy.reads_neighbours() {
        if let Some(len) =
            build_adjacency(&mut graph, infos, scratch, adjacency, &mut order[..], &mut heap[..])?
        {
            graph = graph.with_adjacency(&adjacency[..len]);
        }
    }

    let mut pinned = 0u64;
    for a in infos.iter().filter(|i| i.is_pinned()) {
        pinned += 1;
        if a.end() > cfg.window {
            return Err(PlanError::OutsideWindow { location: a.location, end: a.end(), window: cfg.window });
        }
    }
    // two pinned candidates live together must not overlap: one sweep over the pinned ones
    // where it applies, else (or to name a clash it found) the neighbour queries
    let swept = if pinned == 0 {
        Clash::None
    } else {
        let words: &mut [u64] = bytemuck::cast_slice_mut(&mut sections[..]);
        let ends: &mut [u64] = bytemuck::cast_slice_mut(&mut occupied[..]);
        pinned_clash(graph.tree().nodes(), infos, words, &mut heap[..], ends)
    };
    // the sweep's suspect first; every pinned candidate where the sweep did not apply (or,
    // which cannot happen, its suspect has no partner)
    let suspects = match swept {
        Clash::None => 0..0,
        Clash::At(v) => v as usize..n,
        Clash::NotSwept => 0..n,
    };
    for v in suspects {
        let a = infos[v];
        if !a.is_pinned() {
            continue;
        }
        let mut clash = None;
        graph.for_each_neighbour(v as u32, infos, scratch, |u, _| {
            let b = &infos[u as usize];
            // the sweep names the later of a pair: its partner may have either index
            let partner = if swept == Clash::At(v as u32) { u as usize != v } else { u as usize > v };
            if clash.is_none() && b.is_pinned() && partner && a.address < b.end() && b.address < a.end() {
                clash = Some(u as usize);
            }
        })?;
        if let Some(u) = clash {
            let (x, y) = (v.min(u), v.max(u));
            return Err(PlanError::PinnedOverlap { a: infos[x].location, b: infos[y].location });
        }
    }
    // every plan's HWM is at least the floor, with or without anything to place above it,
    // and at least the end of every pinned candidate (they stay where they are)
    let pinned_top = infos.iter().filter(|i| i.is_pinned()).map(Info::end).max().unwrap_or(0);
    let bound = |(all, free): (u64, u64)| all.max(floor.saturating_add(free)).max(pinned_top);
    // the bound's end keys go in `occupied`, unused until a strategy runs
    let (load_all, load_free) = max_load(&mut graph, infos, scratch, bytemuck::cast_slice_mut(occupied))?;
    let mut metrics = Metrics {
        candidates: n as u64,
        intervals: m as u64,
        pinned,
        reserved_space: floor,
        preplaced_bytes: built.preplaced_bytes,
        spill_bytes: built.spill_bytes,
        aligned_spill_bytes: built.aligned_spill_bytes,
        lower_bound: bound((load_all, load_free)),
        cc_limit,
        cc_base,
        window: cfg.window,
        strategy: Strategy::ALL.iter().position(|&x| x == cfg.strategy).unwrap_or(0) as u64,
        ..Metrics::default()
    };
    let regions = Regions { start: floor, general_ceiling: cc_base, window: cfg.window, align };
    let mut members = Members::default();
    let status = if pinned == n as u64 {
        Status::NothingToPlace
    } else {
        let (sc, hp) = (&mut *scratch, &mut *heap);
        let mut st = Storage {
            scratch: sc,
            order,
            heap: hp,
            neighbours,
            occupied,
            placed,
            slots,
            sections,
            raises,
            lookahead,
            stand_in: *stand_in,
        };
        // a live load that reaches 2^64 - 1 bytes (the sweep saturates there) is placed by the
        // seed's first fit alone, whose ends are checked: past u64 no window holds it, and it
        // names the buffer that does not fit; the other strategies' section sums assume the
        // load fits in u64 (a fresh-user trial: two 2^63-byte buffers live together panicked
        // `auto` in a build with overflow checks)
        let strategy = if load_all == u64::MAX { Strategy::Seed } else { cfg.strategy };
        let (chosen, report) = run_strategy(strategy, &mut graph, infos, &mut st, regions, &metrics, budget)?;
        members = report;
        metrics.strategy = Strategy::ALL.iter().position(|&x| x == chosen).unwrap_or(0) as u64;
        Status::Planned
    };
    // Buffers padded for their own alignment go to their aligned offsets with their real
    // footprints (`liveness::buffers`); the bound is then that of the real footprints.
    if unpad(infos, align) {
        metrics.lower_bound =
            bound(max_load(&mut graph, infos, scratch, bytemuck::cast_slice_mut(occupied))?);
    }
    metrics.hwm = infos.iter().map(Info::end).max().unwrap_or(0).max(floor);
    for i in infos.iter().filter(|i| i.address >= regions.general_ceiling && cc_limit > 0) {
        metrics.allreduce_hwm = metrics.allreduce_hwm.max(i.end());
    }
    metrics.real_cc_bytes = metrics.allreduce_hwm.saturating_sub(regions.general_ceiling);
    milestone!("Real CC buffer size {}", metrics.real_cc_bytes);
    match status {
        Status::Planned => milestone!("DRAM allocation successful"),
        Status::NothingToPlace => milestone!("No candidate, DRAM allocation successful"),
    }
    Ok(Plan { status, metrics, members })
}
