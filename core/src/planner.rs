//! The `allocate` driver (seed section "The allocate Driver"): liveness → interval tree →
//! elimination order → `select`, with the HWM floor (`find_start_addr`), the CC region, the
//! early exit and the metrics.
//!
//! **What [`Strategy::Auto`] runs, by size** (n candidates; work = the estimated interval
//! tests of one greedy member, [`placement_work`]), in this order, keeping the lowest peak and
//! skipping the rest once a member reaches the lower bound:
//! 1. `skyline`, all three preorders, when n ≤ [`AUTO_SKYLINE_MAX`]; one preorder capped at
//!    [`AUTO_SKYLINE_REKEYS`] re-keys a buffer ([`AUTO_SKYLINE_REKEYS_MAX`] in all) when
//!    n ≤ [`AUTO_SKYLINE_LARGE_MAX`];
//! 2. `seed` when 2 × work ≤ [`AUTO_WORK_BUDGET`] (its order costs O(E log n) more);
//! 3. `greedy-size` and `best-fit` when work ≤ [`AUTO_WORK_BUDGET`];
//! 4. `sweep` when work > [`AUTO_WORK_BUDGET`];
//! 5. the branch and bound of [`crate::place::exact`] from the best plan when n ≤ [`AUTO_EXACT_MAX`],
//!    min([`AUTO_EXACT_NODES`], [`AUTO_EXACT_WORK`] / n) nodes (deterministic).
//!
//! [`Strategy::Exact`] runs the same, continues the branch and bound with the caller's
//! budget (n ≤ [`crate::place::exact::EXACT_MAX_BUFFERS`]), and above [`AUTO_SKYLINE_MAX`] gives the
//! skyline's other preorders the caller's budget.

use crate::cc_region::CcSize;
use crate::error::PlanError;
use crate::liveness::buffers::{build_from_buffer_iter, Buffer};
use crate::liveness::info::Info;
use crate::liveness::interference::{build_csr, Graph};
use crate::liveness::interval_tree::IntervalTree;
use crate::liveness::intervals::{build_from_function_excluding, Built};
use crate::liveness::program::Function;
use crate::metrics::Metrics;
use crate::place::exact::{branch_and_bound, prepare, Budget, Schedule, CHECK_EVERY};
use crate::place::greedy::by_size;
use crate::place::lower_bound::max_load;
use crate::place::scan::{interval_of, scan};
use crate::place::seed::search::Fit;
use crate::place::seed::search::Span;
use crate::place::seed::select::{select, Regions, SelectBuffers};
use crate::place::seed::simplify::simplify;
use crate::place::skyline::skyline;
use crate::place::sweep::sweep;
use crate::strategy::Strategy;
use crate::workspace::{Placed, Raise, Scratch, Section, Slot, Workspace};

/// Node budget of [`Strategy::Exact`] when the caller gives none (`plan_buffers`): at most
/// this many nodes, and at most [`EXACT_DEFAULT_WORK`] / n (a node costs O(n)).
pub const EXACT_DEFAULT_NODES: u64 = 2_000_000;

/// Work cap of the default [`Strategy::Exact`] budget, in candidate visits.
pub const EXACT_DEFAULT_WORK: u64 = 100_000_000;

/// Node budget of the branch and bound inside [`Strategy::Auto`]: deterministic, about
/// 4–390 ms with the portfolio on the hard DSA instances (150–450 buffers) on one core
/// (a node costs 2–20 µs there; `dramalloc quality` shows the times).
pub const AUTO_EXACT_NODES: u64 = 20_000;

/// Work cap of [`Strategy::Auto`]'s branch and bound, in candidate visits: its node budget
/// is `min(AUTO_EXACT_NODES, AUTO_EXACT_WORK / n)` (a node costs O(n)), so 2,000 buffers get
/// 4,000 nodes.
pub const AUTO_EXACT_WORK: u64 = 8_000_000;

/// Largest number of buffers for which [`Strategy::Auto`] runs the skyline member (its
/// worst case is quadratic: see [`crate::place::skyline`]).
pub const AUTO_SKYLINE_MAX: usize = 4_096;

/// Above [`AUTO_SKYLINE_MAX`], up to this many buffers [`Strategy::Auto`] runs the skyline
/// with one preorder ("TAW"), stopped after [`AUTO_SKYLINE_REKEYS`] re-keys per buffer or
/// [`AUTO_SKYLINE_REKEYS_MAX`] in all (generated inputs need about 8 a buffer,
/// `iopddl_S_1` 128–256).
pub const AUTO_SKYLINE_LARGE_MAX: usize = 200_000;

/// Re-keys per buffer allowed to the capped skyline of [`Strategy::Auto`].
pub const AUTO_SKYLINE_REKEYS: u64 = 256;

/// Re-keys in all allowed to the capped skyline of [`Strategy::Auto`] (about 1 s).
pub const AUTO_SKYLINE_REKEYS_MAX: u64 = 8_000_000;

/// Largest number of buffers for which [`Strategy::Auto`] runs its branch and bound.
pub const AUTO_EXACT_MAX: usize = 2_000;

/// Work budget of [`Strategy::Auto`]'s greedy members, in estimated interval tests per
/// member (see [`placement_work`]): members above it are skipped and the sweep runs instead.
pub const AUTO_WORK_BUDGET: u64 = 450_000_000;

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
/// As [`plan_function`], plus [`PlanError::BadInterval`] for `last_use < def`.
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
/// best plan found so far is returned when the budget ends (anytime). Other strategies ignore
/// the budget.
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
/// let mut budget = Budget { max_nodes: 10_000, keep_going: &mut keep_going };
/// let plan = plan_buffers_with(&bufs, 1, &cfg, &mut ws, &mut budget)?;
/// assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (2, 2));
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// As [`plan_buffers`].
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
/// As [`plan_buffers`].
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
/// As [`plan_buffers`].
pub fn plan_buffer_iter(
    buffers: impl ExactSizeIterator<Item = Buffer>,
    align: u64,
    cfg: &PlanConfig,
    ws: &mut Workspace<'_>,
) -> Result<Plan, PlanError> {
    let built = build_from_buffer_iter(buffers, align, ws)?;
    plan_built(ws, &built, cfg, align)
}

fn plan_built(
    ws: &mut Workspace<'_>,
    built: &Built,
    cfg: &PlanConfig,
    align: u64,
) -> Result<Plan, PlanError> {
    let mut always = || true;
    let nodes = (EXACT_DEFAULT_WORK / (built.infos as u64).max(1)).min(EXACT_DEFAULT_NODES);
    let mut budget = Budget { max_nodes: nodes, keep_going: &mut always };
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
        ..
    } = ws;
    let infos = &mut infos[..n];
    let scratch = &mut scratch[..n];
    let cc_limit = cfg.cc.bytes(built.collective_bytes, cfg.window)?;
    let floor = built.preplaced_hwm.map_or(0, |h| h + 1);
    if floor > cfg.window {
        return Err(PlanError::OutsideWindow {
            location: built.preplaced_top,
            end: floor,
            window: cfg.window,
        });
    }
    if cc_limit > 0 && floor > cfg.window - cc_limit {
        return Err(PlanError::CcRegionOverlapsPreplaced { cc_bytes: cc_limit, floor, window: cfg.window });
    }
    let tree = IntervalTree::build(&mut nodes[..m]);
    build_csr(tree.nodes(), &mut interval_ids[..m], infos);
    let mut graph = Graph::new(tree, &interval_ids[..m]);
    scratch.iter_mut().for_each(|s| *s = Scratch::default());

    let mut pinned = 0u64;
    for v in 0..n {
        if !infos[v].is_pinned() {
            continue;
        }
        pinned += 1;
        let a = infos[v];
        if a.end() > cfg.window {
            return Err(PlanError::OutsideWindow { location: a.location, end: a.end(), window: cfg.window });
        }
        let mut clash = None;
        graph.for_each_neighbour(v as u32, infos, scratch, |u, _| {
            let b = &infos[u as usize];
            if clash.is_none()
                && b.is_pinned()
                && u as usize > v
                && a.address < b.end()
                && b.address < a.end()
            {
                clash = Some(b.location);
            }
        })?;
        if let Some(b) = clash {
            return Err(PlanError::PinnedOverlap { a: a.location, b });
        }
    }
    let (load_all, load_free) = max_load(&mut graph, infos, scratch, heap)?;
    let mut metrics = Metrics {
        candidates: n as u64,
        intervals: m as u64,
        pinned,
        reserved_space: floor,
        preplaced_bytes: built.preplaced_bytes,
        spill_bytes: built.spill_bytes,
        aligned_spill_bytes: built.aligned_spill_bytes,
        lower_bound: load_all.max(if load_free > 0 { floor + load_free } else { 0 }),
        cc_limit,
        window: cfg.window,
        strategy: Strategy::ALL.iter().position(|&x| x == cfg.strategy).unwrap_or(0) as u64,
        ..Metrics::default()
    };
    let regions = Regions { start: floor, general_ceiling: cfg.window - cc_limit, window: cfg.window, align };
    let status = if pinned == n as u64 {
        Status::NothingToPlace
    } else {
        let mut st = Storage { scratch, order, heap, neighbours, occupied, placed, slots, sections, raises };
        let chosen = run_strategy(cfg.strategy, &mut graph, infos, &mut st, regions, &metrics, budget)?;
        metrics.strategy = Strategy::ALL.iter().position(|&x| x == chosen).unwrap_or(0) as u64;
        Status::Planned
    };
    metrics.hwm = infos.iter().map(Info::end).max().unwrap_or(0).max(floor);
    for i in infos.iter().filter(|i| i.address >= regions.general_ceiling && cc_limit > 0) {
        metrics.allreduce_hwm = metrics.allreduce_hwm.max(i.end());
    }
    metrics.real_cc_bytes = metrics.allreduce_hwm.saturating_sub(regions.general_ceiling);
    Ok(Plan { status, metrics })
}

/// Slices the strategies work in.
struct Storage<'s, 'w> {
    scratch: &'s mut [Scratch],
    order: &'s mut &'w mut [u32],
    heap: &'s mut &'w mut [u32],
    neighbours: &'s mut &'w mut [u32],
    occupied: &'s mut &'w mut [Span],
    placed: &'s mut &'w mut [Placed],
    slots: &'s mut &'w mut [Slot],
    sections: &'s mut &'w mut [Section],
    raises: &'s mut &'w mut [Raise],
}

/// Estimated nodes the interval-tree queries of `select` visit for one-interval candidates
/// (`None` when some candidate has several intervals): a query for `[lo, hi]` on the
/// `lo`-sorted, max-augmented tree walks every interval starting in `[lo - L, hi]` for the
/// longest lifetime `L`. O(n log n) from the tree's `lo`-sorted nodes.
pub fn query_work(graph: &Graph<'_>, infos: &[Info]) -> Option<u64> {
    if infos.iter().any(|i| i.interval_count != 1) {
        return None;
    }
    let nodes = graph.tree().nodes();
    let longest = nodes.iter().map(|x| x.hi - x.lo).max().unwrap_or(0);
    let mut work = 0u64;
    for nd in nodes {
        let j = nodes.partition_point(|x| x.lo <= nd.hi);
        let i = nodes.partition_point(|x| x.lo < nd.lo.saturating_sub(longest));
        work += j.saturating_sub(i) as u64;
    }
    Some(work)
}

/// Estimated cost of one greedy member, in interval tests, and whether the address-ordered
/// scan ([`crate::place::scan`], n²/2 tests) is the cheaper placer; `select` costs about 4 units per
/// visited tree node (see [`query_work`]). Multi-interval candidates always use `select`.
pub fn placement_work(n: usize, visits: Option<u64>) -> (u64, bool) {
    let scan_work = (n as u64).saturating_mul(n as u64) / 2;
    match visits {
        Some(e) if scan_work <= e.saturating_mul(4) => (scan_work, true),
        Some(e) => (e.saturating_mul(4), false),
        None => (u64::MAX, false),
    }
}

fn peak(infos: &[Info]) -> u64 {
    infos.iter().map(Info::end).max().unwrap_or(0)
}

/// How a skyline member runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SkyRun {
    /// All preorders, no limit (falls back to greedy-size where it does not apply).
    Full,
    /// One preorder, at most [`AUTO_SKYLINE_REKEYS`] re-keys a buffer and
    /// [`AUTO_SKYLINE_REKEYS_MAX`] in all.
    Quick,
    /// The preorders the quick run did not try, until the caller's budget says stop.
    Timed,
}

/// Places with one greedy member; returns its peak, `None` when a `Quick` or `Timed`
/// skyline did not apply or stopped before finishing a preorder.
#[allow(clippy::too_many_arguments)]
fn run_member(
    s: Strategy,
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    use_scan: bool,
    sky: SkyRun,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Option<u64>, PlanError> {
    let n = infos.len();
    let (k, fit) = match s {
        Strategy::Seed => {
            let k = simplify(graph, infos, st.scratch, st.heap, st.order)?;
            st.order[..k].reverse();
            (k, Fit::First)
        }
        Strategy::Sweep => {
            if sweep(graph, infos, st.order, st.heap, st.placed, st.occupied, regions, Fit::First)? {
                return Ok(Some(peak(infos)));
            }
            (by_size(graph, infos, st.scratch, st.order), Fit::First)
        }
        Strategy::Skyline => {
            // preorders in the order tried; the last one ("TWA") first where only some run
            let (hs, rekeys): (&[usize], u64) = match sky {
                SkyRun::Full => (&[0, 1, 2], u64::MAX),
                SkyRun::Quick => {
                    (&[1], AUTO_SKYLINE_REKEYS.saturating_mul(n as u64).min(AUTO_SKYLINE_REKEYS_MAX))
                }
                // after the quick run (same preorder) where that ran
                SkyRun::Timed if n <= AUTO_SKYLINE_LARGE_MAX => (&[2, 0], u64::MAX),
                SkyRun::Timed => (&[1, 2, 0], u64::MAX),
            };
            // only the timed run answers to the caller's clock: the others are deterministic
            let mut always = || true;
            let stop: &mut dyn FnMut() -> bool = if sky == SkyRun::Timed { keep_going } else { &mut always };
            match run_skyline(graph, infos, st, regions, hs, rekeys, stop)? {
                Some(peak) => return Ok(Some(peak)),
                None if sky != SkyRun::Full => return Ok(None),
                None => (by_size(graph, infos, st.scratch, st.order), Fit::First),
            }
        }
        Strategy::GreedySize => (by_size(graph, infos, st.scratch, st.order), Fit::First),
        _ => (by_size(graph, infos, st.scratch, st.order), Fit::Best),
    };
    if use_scan && st.placed.len() >= n {
        scan(graph, infos, &st.order[..k], st.placed, st.occupied, regions, fit)?;
    } else {
        let mut buf = SelectBuffers { scratch: st.scratch, neighbours: st.neighbours, occupied: st.occupied };
        select(graph, infos, &st.order[..k], &mut buf, regions, fit)?;
    }
    Ok(Some(peak(infos)))
}

/// `start` plus every candidate's aligned size (bytes), `None` when it overflows `u64`. Every
/// offset and top the skyline and the branch and bound compute is at most this, so where it
/// exists their arithmetic cannot wrap; where it does not they are skipped.
fn stack_top(infos: &[Info], start: u64) -> Option<u64> {
    infos.iter().try_fold(start, |top, i| top.checked_add(i.aligned))
}

/// Places by the skyline rule ([`crate::place::skyline`]), keeping the best of the preorders `hs`
/// (ties: the first), each run stopped after `max_rekeys` re-keys or when `keep_going` says
/// so; returns its peak, or
/// `None` where it does not apply (a candidate with several intervals or pinned, an
/// unaligned start, storage shorter than n, sizes whose sum overflows `u64`) or every run
/// stopped.
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the buffer that ends highest when the peak passes the
/// region ceiling.
fn run_skyline(
    graph: &Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    hs: &[usize],
    max_rekeys: u64,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Option<u64>, PlanError> {
    let n = infos.len();
    if n == 0
        || st.slots.len() < n
        || st.sections.len() < n
        || st.scratch.len() < n
        || st.placed.len() < n
        || !regions.start.is_multiple_of(regions.align.max(1))
        || infos.iter().any(|i| i.interval_count != 1)
        || stack_top(infos, regions.start).is_none()
    {
        return Ok(None);
    }
    let mut best: Option<u64> = None;
    for &h in hs {
        let (by_lo, ids) = (&mut **st.order, &mut **st.heap);
        let Some(count) =
            prepare(infos, |i| interval_of(graph, i), regions.start, st.slots, st.sections, by_lo, ids)
        else {
            return Ok(None);
        };
        let slots = &mut st.slots[..n];
        let Some(peak) = skyline(
            slots,
            st.sections,
            count,
            by_lo,
            st.placed,
            st.scratch,
            h,
            regions.start,
            max_rekeys,
            keep_going,
        ) else {
            continue; // stopped at the re-key limit or by the caller
        };
        if best.is_none_or(|b| peak < b) {
            best = Some(peak);
            for (info, slot) in infos.iter_mut().zip(slots.iter()) {
                info.address = slot.at;
                info.allocated = 1;
            }
        }
    }
    let Some(peak) = best else { return Ok(None) };
    if peak > regions.general_ceiling {
        let top = infos.iter().max_by_key(|i| i.end()).unwrap_or(&infos[0]);
        return Err(PlanError::DoesNotFit {
            location: top.location,
            size: top.aligned,
            needed: peak,
            available: regions.general_ceiling,
            largest_gap: 0,
        });
    }
    Ok(Some(peak))
}

/// Runs `strategy`; returns the strategy that produced the final addresses.
fn run_strategy(
    strategy: Strategy,
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    metrics: &Metrics,
    budget: &mut Budget<'_>,
) -> Result<Strategy, PlanError> {
    let n = infos.len();
    let pairs = query_work(graph, infos);
    let (work, use_scan) = placement_work(n, pairs);
    match strategy {
        Strategy::Auto | Strategy::Exact => {}
        s => {
            run_member(s, graph, infos, st, regions, use_scan, SkyRun::Full, &mut || true)?;
            return Ok(s);
        }
    }
    let keep = st.slots.len() >= n;
    let mut best: Option<(u64, Strategy)> = None;
    let mut first_err = None;
    // `exact` starts from the same members as `auto` (so it is never worse than `auto`); a
    // member too expensive for the input's size is skipped by both, so a time-limited `exact`
    // does not spend its time in an O(E log n) seed order on a huge input.
    let greedy_ok = work <= AUTO_WORK_BUDGET;
    // The seed's simplify costs O(E log n) on top of placement.
    let seed_ok = work.saturating_mul(2) <= AUTO_WORK_BUDGET;
    // (member, runs, quick): above AUTO_SKYLINE_MAX buffers the skyline runs once, capped
    let big_skyline = n > AUTO_SKYLINE_MAX && n <= AUTO_SKYLINE_LARGE_MAX;
    // `exact` also gives the uncapped skyline the caller's budget on large inputs
    let timed_skyline = strategy == Strategy::Exact && n > AUTO_SKYLINE_MAX;
    // the skyline first: where it reaches the lower bound nothing can beat it and the slower
    // members are skipped
    let portfolio = [
        (Strategy::Skyline, n <= AUTO_SKYLINE_MAX, SkyRun::Full),
        (Strategy::Skyline, big_skyline, SkyRun::Quick),
        (Strategy::Seed, seed_ok, SkyRun::Full),
        (Strategy::GreedySize, greedy_ok, SkyRun::Full),
        (Strategy::BestFit, greedy_ok, SkyRun::Full),
        (Strategy::Sweep, !greedy_ok, SkyRun::Full),
        (Strategy::Skyline, timed_skyline, SkyRun::Timed),
    ];
    for (s, on, sky) in portfolio {
        if !on || best.is_some_and(|(b, _)| b <= metrics.lower_bound) {
            continue;
        }
        match run_member(s, graph, infos, st, regions, use_scan, sky, budget.keep_going) {
            Ok(Some(h)) if best.is_none_or(|(bh, _)| h < bh) => {
                best = Some((h, s));
                if keep {
                    for (slot, info) in st.slots.iter_mut().zip(infos.iter()) {
                        slot.best = info.address;
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    let Some((best_peak, mut chosen)) = best else {
        return Err(first_err.unwrap_or(PlanError::Unallocated { location: 0 }));
    };
    if keep {
        for (slot, info) in st.slots.iter().zip(infos.iter_mut()) {
            info.address = slot.best;
            info.allocated = 1;
        }
    } else {
        run_member(chosen, graph, infos, st, regions, use_scan, SkyRun::Full, &mut || true)?;
    }
    // Branch and bound: one-interval, unpinned, aligned start, CC region unused.
    let exact_ok = keep
        && pairs.is_some()
        && (strategy == Strategy::Exact || n <= AUTO_EXACT_MAX)
        && best_peak <= regions.general_ceiling
        && regions.start.is_multiple_of(regions.align.max(1))
        && stack_top(infos, regions.start).is_some()
        && best_peak > metrics.lower_bound;
    if exact_ok {
        let g = &*graph;
        let (by_lo, ids) = (&mut **st.order, &mut **st.heap);
        if let Some(count) =
            prepare(infos, |i| interval_of(g, i), regions.start, st.slots, st.sections, by_lo, ids)
        {
            let (slots, secs) = (&mut st.slots[..n], &mut st.sections[..count]);
            let (start, lb, align) = (regions.start, metrics.lower_bound, regions.align);
            // auto: a deterministic node budget. exact: the same search continued with the
            // caller's budget, which is never cut before auto's nodes (the search is
            // deterministic, so exact's first nodes are auto's: never worse)
            let auto_nodes = AUTO_EXACT_NODES.min(AUTO_EXACT_WORK / n as u64);
            let mut always = || true;
            let mut calls = 0u64;
            let mut after_auto = || {
                calls += 1;
                calls * CHECK_EVERY < auto_nodes || (budget.keep_going)()
            };
            let mut b = if strategy == Strategy::Exact {
                Budget { max_nodes: budget.max_nodes.max(auto_nodes), keep_going: &mut after_auto }
            } else {
                Budget { max_nodes: auto_nodes, keep_going: &mut always }
            };
            let out = branch_and_bound(
                slots,
                secs,
                by_lo,
                ids,
                st.raises,
                start,
                lb,
                best_peak,
                align,
                Schedule::DEFAULT,
                &mut b,
            );
            if out.improved {
                for (slot, info) in st.slots.iter().zip(infos.iter_mut()) {
                    info.address = slot.best;
                }
                chosen = strategy;
            }
        }
    }
    Ok(chosen)
}
