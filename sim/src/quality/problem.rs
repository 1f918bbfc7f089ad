//! Planning problems in the minimalloc form, planned with the core planner (`plan`, `quality`).
//! Uses: host_storage, input, limits, solved, input_checks, member_lines and program_problem
//! (re-exported), storage, time_split,
//! dramalloc-core; used by: mod.rs, cli.
//!
//! Planning problems in the minimalloc form (`id, lower, upper, size`, `upper` exclusive) and
//! planning them with the core planner: the engine behind `dramalloc plan` and
//! `dramalloc quality`.

use std::cell::Cell;
use std::time::{Duration, Instant};

use dramalloc_core::place::exact::{Ask, Budget, Claim};
use dramalloc_core::place::report::{Member, Outcome};
use dramalloc_core::{
    plan_buffer_iter_with, Buffer as CoreBuffer, CcSize, Metrics, PlanConfig, PlanError, Strategy,
};

use crate::host_storage::HostWorkspace;
use crate::input::Problem;
use crate::quality::aligned_exact::{aligned_search, limits as search_limits, search_on};
pub use crate::quality::aligned_fit::SETTLE_NS_PER_PAIR;
use crate::quality::aligned_fit::{aligned_first_fit, post_reserve};
use crate::quality::common_alignment::{common_alignment, lcm, pads, BothWays};
use crate::quality::helpers::{helper_count, spare_cores, HelperOutcome, Helpers};
pub use crate::quality::input_checks::{check_load, check_time_range};
pub use crate::quality::limits::{
    default_threads, nanos_until, work_for, Limits, BINARY_NANOS_PER_ROW, DEFAULT_TIME_LIMIT,
    IO_UNITS_PER_ROW, PICTURE_NANOS_PER_ROW, TAIL_FIXED, TAIL_NANOS_PER_ROW, WORK_UNITS_PER_SECOND,
};
pub use crate::quality::live_pairs::{overlapping_pairs, COUNT_SPAN_PER_BUFFER};
pub use crate::quality::member_lines::member_lines;
pub use crate::quality::program_problem::problem_from_program;
use crate::quality::settle::{peak_of, settle};
use crate::quality::solve_error::fixed_only_at_zero;
pub use crate::quality::solve_error::{describe, SolveError};
use crate::quality::solve_error::{located, only_at_zero};
pub use crate::quality::solved::{Aligned, Alone, Solved};
use crate::quality::storage::front_end_storage;
use crate::quality::time_split::solve_split;

/// Most pairs of buffers live together [`settle`] lists (two `u32` each: 64 MiB), a memory
/// cap: past it a plan with per-buffer alignments is kept as the planner made it.
pub const SETTLE_MAX_PAIRS: u64 = 1 << 23;

/// Most `u64` words (64 MiB) lent to the sweep's index of fixed buffers
/// (`dramalloc_core::Workspace::lookahead`), a memory cap: 10^5 rows with half of them fixed
/// need 1.7 × 10^6 words for all levels (13.6 MB), 10^6 rows with a tenth fixed 3.6 × 10^6,
/// with half fixed 2 × 10^7 (160 MB; the cap gives 8 levels of the 20).
pub const LOOKAHEAD_MAX_WORDS: usize = 1 << 23;

/// The single strategy a portfolio member runs alone (`None`: the sweeps around the
/// long-lived and the hot, the branch and bound and the repair have none).
fn single_of(m: Member) -> Option<Strategy> {
    match m {
        Member::SweepLong(_) | Member::SweepHot(_) | Member::BranchAndBound | Member::Repair => None,
        _ => Some(m.strategy()),
    }
}

/// Plans `problem` with `strategy`, sizes rounded up to `align` bytes, within `capacity`
/// bytes (`None`: unbounded). No CC region. Fixed buffers stay at their offsets; a buffer's
/// own alignment is honoured (`dramalloc_core::Buffer::aligned_to`).
///
/// # Errors
/// [`SolveError::TimeRange`], [`SolveError::BelowLowerBound`] (a capacity below the max-load
/// bound), or [`SolveError::Plan`] (e.g. `DoesNotFit` naming the buffer).
pub fn solve(
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
) -> Result<Solved, SolveError> {
    solve_within(problem, align, capacity, strategy, DEFAULT_TIME_LIMIT)
}

/// Largest interference graph lent to the planner, in `u32` entries (128 MiB): above it the
/// planner answers neighbour queries from its interval tree.
pub const ADJACENCY_MAX_ENTRIES: u64 = 1 << 25;

/// As [`solve`], with `auto` and `exact` bounded by `time_limit`: their work budget is
/// [`work_for`] the limit (deterministic), and the clock (measured from the start of the plan
/// with [`Instant`]) stops whatever still runs when the limit is reached; the best plan found
/// so far is returned. Single strategies ignore it.
///
/// # Errors
/// As [`solve`].
pub fn solve_within(
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    time_limit: Duration,
) -> Result<Solved, SolveError> {
    solve_bounded(problem, align, capacity, strategy, time_limit, u64::MAX)
}

/// As [`solve_within`], with `exact`'s branch and bound also stopped after `max_nodes`
/// search nodes (never before `auto`'s own search, which ends at its work cap): with a clock
/// that does not bind,
/// the plan is deterministic, and `exact` is never worse than `auto` (its search continues
/// `auto`'s).
///
/// # Errors
/// As [`solve`].
pub fn solve_bounded(
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    time_limit: Duration,
    max_nodes: u64,
) -> Result<Solved, SolveError> {
    solve_limited(problem, align, capacity, strategy, Limits::within(time_limit), max_nodes)
}

/// As [`solve_bounded`], bounded by `limits` instead of a time limit from now.
///
/// # Errors
/// As [`solve`], and [`SolveError::LoadOverflow`] (checked first, after the time range).
pub fn solve_limited(
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    limits: Limits,
    max_nodes: u64,
) -> Result<Solved, SolveError> {
    solve_clocked(problem, align, capacity, strategy, limits, max_nodes, false)
}

/// [`solve_limited`], with `single_on_clock` a single strategy stopped by the clock too (it
/// then has no plan: [`PlanError::Stopped`]): a portfolio's strategies run alone after it
/// (per-buffer alignments) must end by its limit, where `plan --strategy S` runs to its plan.
fn solve_clocked(
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    limits: Limits,
    max_nodes: u64,
    single_on_clock: bool,
) -> Result<Solved, SolveError> {
    check_time_range(problem)?;
    // a live load past u64 is a proof that no plan exists, whatever the strategy or capacity
    check_load(problem, align)?;
    // a capacity below the lower bound is a proof that no plan fits: a single strategy says so
    // at once; a portfolio, which is on the clock, only once its plan missed the capacity (the
    // bound's O(n log n) would otherwise come out of its planning time: 70 ms of 10^6 rows)
    let portfolio = matches!(strategy, Strategy::Auto | Strategy::Exact);
    let below_bound = |capacity: u64| {
        let lower_bound = crate::quality::max_load(problem, align);
        (lower_bound > capacity).then_some(SolveError::BelowLowerBound { capacity, lower_bound })
    };
    if let Some(e) = capacity.filter(|_| !portfolio).and_then(below_bound) {
        return Err(e);
    }
    // no plan found within `capacity`, the best peaking at `best`: the proof where the capacity
    // is below the bound, else how close the search came
    // whether the clock stopped anything of a portfolio (a member, the branch and bound, or
    // `auto` going on as `exact`): what the error then says, not the time it is raised at
    let stopped = Cell::new(false);
    // (the bound the plan's summary prints: the max load, and at least the end of every fixed
    // buffer, which stays where it is; a trial's error said 24,576 bytes where the summary of
    // the same plan said 53,248)
    let missed_by = |capacity: u64, best: u64| {
        below_bound(capacity).unwrap_or_else(|| SolveError::AboveCapacity {
            capacity,
            best,
            lower_bound: crate::quality::max_load(problem, align).max(fixed_top(problem, align)),
            stopped: stopped.get(),
        })
    };
    let start = Instant::now();
    let name = |error: PlanError| {
        let id = located(&error).filter(|&k| k < problem.len()).map(|k| problem.id(k).to_owned());
        SolveError::Plan { id, message: describe(problem, &error), error }
    };
    // a fixed buffer past the capacity: no plan can fit, said as a single strategy's window
    // says it (a portfolio, and with per-buffer alignments any strategy, plans unbounded first,
    // where it would pass)
    if let Some(capacity) = capacity {
        let end = |k: usize| fixed_end(problem, k, align);
        if let Some(k) = (0..problem.len()).find(|&k| end(k).is_some_and(|e| e > capacity)) {
            let (location, end) = (k as u32, end(k).unwrap_or(u64::MAX));
            return Err(name(PlanError::OutsideWindow { location, end, window: capacity }));
        }
    }
    // a fixed row whose own alignment has no common multiple with `align` below 2^64 but 0
    // can only be at offset 0 (the core refuses such a row as a size overflow, and the first
    // fit with own alignments that follows takes fixed offsets as given)
    if let Some(k) = (0..problem.len()).find(|&k| {
        problem.fixed(k).is_some_and(|at| at != 0 && lcm(align.max(1), problem.alignment(k)).is_none())
    }) {
        let (at, location) = (problem.fixed(k).unwrap_or(0), k as u32);
        let error = PlanError::MisalignedFixed { location, address: at, align: u64::MAX };
        let id = Some(problem.id(k).to_owned());
        return Err(SolveError::Plan { id, message: fixed_only_at_zero(problem, k, align), error });
    }
    // (padded also where the common alignment overflows: primes up to 71 times 4096)
    let padded = pads(problem, align);
    // With per-buffer alignments `exact` is `auto`'s whole front end on `auto`'s share of the
    // clock (the same limits), then the branch and bound with each buffer's own alignment on
    // from that plan with what is left (`aligned_exact::search_on`): never above `auto` on the
    // same clock. Before, it ran the core's `exact` on the padded sizes, whose search (over
    // 2,000 buffers, where `auto` does not search) and timed skylines took the clock the steps
    // after it needed, and its own search from a different plan, node-limited where `auto`'s
    // is work-capped: above `auto` on a fresh-user trial's 2,048 rows (4,206,592 bytes against
    // 3,588,096) and on 82 of 300 small generated inputs with 20,000 nodes.
    if padded && strategy == Strategy::Exact {
        let mut sol = solve_limited(problem, align, None, Strategy::Auto, limits, max_nodes)?;
        search_on(problem, align, &mut sol, max_nodes, limits.until);
        if let Some(c) = capacity.filter(|&c| sol.metrics.hwm > c) {
            return Err(missed_by(c, sol.metrics.hwm));
        }
        sol.time = start.elapsed();
        return Ok(sol);
    }
    // a problem too large for helper threads, on a host with spare cores: one time section per
    // thread (`time_split`), where the cuts cross few buffers
    // (past the size helpers fit; why not, where it does not split)
    let mut not_split = None;
    let threads = limits.threads.min(1 + spare_cores());
    if strategy == Strategy::Auto && capacity.is_none() && !padded && helper_count(problem.len(), 2) == 0 {
        match solve_split(problem, align, Limits { threads, ..limits }, max_nodes) {
            Ok(mut sol) => {
                sol.time = start.elapsed();
                return Ok(sol);
            }
            Err(why) => not_split = Some(why),
        }
    }
    let work = limits.work;
    let pairs = overlapping_pairs(problem);
    let fixed = (0..problem.len()).filter(|&k| problem.fixed(k).is_some()).count();
    let mut host = front_end_storage(problem.len(), fixed, pairs, strategy, work, true);
    // a padded plan is settled and planned by first fit with each buffer's own alignment after
    // the portfolio: its clock stops early enough for them (`post_reserve`)
    let until =
        if padded && portfolio { limits.until - post_reserve(pairs, limits.until) } else { limits.until };
    // helper threads plan single strategies beside the portfolio (`helpers`); with per-buffer
    // alignments the single strategies run alone after it instead (below)
    // threads past the host's add no core: the helpers would share the spare ones and finish less
    // and a helper starts only on a core nothing else wants (`spare_cores`)
    let threads = if portfolio && !padded { limits.threads.min(1 + spare_cores()) } else { 1 };
    let count = helper_count(problem.len(), threads);
    let helpers = (count > 0)
        .then(|| Helpers::start(count, core_buffers(problem, true).collect(), align, capacity, limits.until));
    // where the portfolio cannot run all its rows, it tells the helpers which ones it takes
    let claims = helpers.as_ref().map(Helpers::claims);
    let run = |window: u64, host: &mut HostWorkspace, align: u64, own: bool, strategy: Strategy| {
        let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
        // the clock stops a portfolio (which keeps its best plan), a single strategy only where
        // a portfolio runs it alone after its own plan
        let portfolio = matches!(strategy, Strategy::Auto | Strategy::Exact);
        let clocked = portfolio || single_on_clock;
        let mut keep_going = || {
            let go = !clocked || Instant::now() < until;
            stopped.set(stopped.get() || !go);
            go
        };
        // the repair is anytime: past the members' units it goes on until the clock stops it
        let repair_work = if portfolio { u64::MAX } else { 0 };
        // (with padding `exact` does not get here: it runs this front end as `auto`, above)
        let mut claim = |ask: Ask| claims.as_ref().map_or(Claim::Here, |c| c.claim(ask));
        let claim: Option<&mut dyn FnMut(Ask) -> Claim> = claims.is_some().then_some(&mut claim);
        // the clock's reading: the portfolio times its rows, the branch and bound and the
        // repair by it (`Members::nanos`); the readings decide nothing
        let mut left = || nanos_until(until);
        let nanos_left: Option<&mut dyn FnMut() -> i64> = clocked.then_some(&mut left);
        let mut budget =
            Budget { max_nodes, work, repair_work, keep_going: &mut keep_going, claim, nanos_left };
        // the plan at the common alignment (not `own`) is of sizes rounded up to it: its bound
        // proves nothing about the real plan, so no member is skipped for reaching it
        let mut ws = host.workspace();
        ws.stand_in = !own;
        plan_buffer_iter_with(core_buffers(problem, own), align, &cfg, &mut ws, &mut budget)
    };
    // Within a capacity, the greedy members of a portfolio stop at the first buffer that does
    // not fit, while an unbounded plan of the same strategy may still end below the capacity:
    // a single strategy tries bounded first (its error names the buffer), then unbounded, and
    // keeps whichever fits. A portfolio plans unbounded first: a member that would miss the
    // capacity on its way (the sweep's first plan) then still hands its plan to the repair,
    // which may bring the peak under it; a window would fail that member and leave nothing
    // to repair (`--capacity` on 10^6 buffers failed in 1 s where the plan fits). `auto`
    // within a capacity it did not meet goes on as `exact` (its branch and bound on the
    // clock until a plan fits or the time limit; the same members first): a capacity asks
    // for any plan that fits, and the heuristics' miss is not a proof that none does. When
    // nothing fits, `missed` keeps the lowest peak found (the error says how close it came)
    // and the closure's error is `None` (a planner's error is `Some`).
    let missed: Cell<Option<u64>> = Cell::new(None);
    // and the member report of the portfolio's last plan that missed it, for the report where a
    // helper's plan stands in
    let missed_members: Cell<Option<dramalloc_core::place::report::Members>> = Cell::new(None);
    // With per-buffer alignments the portfolio's peak is of padded sizes, above the plan's once
    // settled: a portfolio's plan that misses the capacity is kept, and the capacity checked on
    // the final plan (after the settle, the common alignment and the strategies run alone).
    let common_align = common_alignment(problem, align);
    let fitting = |host: &mut HostWorkspace, align: u64, own: bool| {
        let fits = |p: &dramalloc_core::Plan| capacity.is_none_or(|c| p.metrics.hwm <= c);
        if capacity.is_some() && portfolio {
            let note = |p: &dramalloc_core::Plan| {
                missed.set(Some(missed.get().map_or(p.metrics.hwm, |m| m.min(p.metrics.hwm))));
                missed_members.set(Some(p.members));
            };
            match run(u64::MAX, host, align, own, strategy) {
                Ok(p) if fits(&p) || padded => return Ok((p, false)),
                Ok(p) => note(&p),
                Err(e) => return Err(Some(e)),
            }
            if strategy == Strategy::Auto {
                if Instant::now() >= until {
                    stopped.set(true);
                    return Err(None);
                }
                match run(u64::MAX, host, align, own, Strategy::Exact) {
                    Ok(p) if fits(&p) => return Ok((p, true)),
                    Ok(p) => note(&p),
                    Err(_) => {}
                }
            }
            return Err(None);
        }
        // with per-buffer alignments a single strategy's peak is of padded sizes, above the
        // final plan's: it plans as without a capacity, which is checked on the final plan
        if padded {
            return run(u64::MAX, host, align, own, strategy).map(|p| (p, false)).map_err(Some);
        }
        let bounded_first = match run(capacity.unwrap_or(u64::MAX), host, align, own, strategy) {
            Ok(p) => Ok((p, false)),
            // a portfolio past its deadline does not start again (its first plan is not stopped)
            Err(bounded @ PlanError::DoesNotFit { .. }) if portfolio && Instant::now() >= until => {
                Err(bounded)
            }
            Err(bounded @ PlanError::DoesNotFit { .. }) => match run(u64::MAX, host, align, own, strategy) {
                Ok(p) if fits(&p) => Ok((p, false)),
                _ if strategy == Strategy::Auto && Instant::now() < until => {
                    match run(u64::MAX, host, align, own, Strategy::Exact) {
                        Ok(p) if fits(&p) => Ok((p, true)),
                        _ => Err(bounded),
                    }
                }
                _ => Err(bounded),
            },
            Err(e) => Err(e),
        };
        bounded_first.map_err(Some)
    };
    let fitted = fitting(&mut host, align, true);
    let (mut helped, helper_plan) = helpers.map_or((Vec::new(), None), |h| h.finish(false));
    // a helper's plan (within the capacity) replaces a higher one, or stands in for none
    let mut first_aligned = None;
    let (mut offsets, mut metrics, mut members, as_exact) = match fitted {
        Ok((plan, as_exact)) => {
            let offsets = host.infos()[..problem.len()].iter().map(|i| i.address).collect();
            (offsets, plan.metrics, plan.members, as_exact)
        }
        Err(None | Some(PlanError::DoesNotFit { .. })) if helper_plan.is_some() => {
            let lower_bound = helper_plan.as_ref().map_or(0, |h| h.metrics.lower_bound);
            (
                Vec::new(),
                Metrics { hwm: u64::MAX, lower_bound, ..Metrics::default() },
                missed_members.get().unwrap_or_default(),
                false,
            )
        }
        // a portfolio's plans all missed the capacity: the lowest peak found, the helpers'
        // plans above it included
        Err(None) => {
            let helpers_best = helped.iter().filter_map(|h| match h.outcome {
                HelperOutcome::AboveCapacity { hwm } => Some(hwm),
                _ => None,
            });
            let best = helpers_best.chain(missed.get()).min().unwrap_or(u64::MAX);
            return Err(missed_by(capacity.unwrap_or(u64::MAX), best));
        }
        // padded sizes past u64 (own alignments near 2^63 or above) overflow, or fit nowhere
        // padded: first fit with each buffer's own alignment, unpadded, is the plan where it
        // finds one (the only plan, so not stopped by the clock)
        Err(Some(e @ (PlanError::DoesNotFit { .. } | PlanError::SizeOverflow { .. }))) if padded => {
            let far = Instant::now() + Duration::from_secs(24 * 3600);
            let Some(fit) = aligned_first_fit(problem, align, SETTLE_MAX_PAIRS, far) else {
                let mut err = name(e);
                // a row whose alignment has no common multiple with `align` but 0 below 2^64:
                // not its size, but that no plan left it offset 0
                if let (PlanError::SizeOverflow { location, .. }, SolveError::Plan { message, .. }) =
                    (e, &mut err)
                {
                    let k = location as usize;
                    if k < problem.len() && lcm(align, problem.alignment(k)).is_none() {
                        *message = only_at_zero(problem, k, align);
                    }
                }
                return Err(err);
            };
            let (order, orders, dropped, hwm) = (fit.order, fit.orders, fit.dropped, fit.hwm);
            first_aligned = Some(Aligned { order, orders, dropped, hwm, kept: true });
            let lower_bound = crate::quality::max_load(problem, align);
            let strategy = Strategy::ALL.iter().position(|&s| s == strategy).unwrap_or(0) as u64;
            let metrics = Metrics { hwm: fit.hwm, lower_bound, strategy, ..Metrics::default() };
            (fit.offsets, metrics, Default::default(), false)
        }
        Err(Some(e)) => return Err(name(e)),
    };
    if let Some(h) = helper_plan.filter(|h| h.metrics.hwm < metrics.hwm) {
        helped.iter_mut().filter(|x| x.strategy == h.strategy).for_each(|x| x.kept = true);
        offsets = h.offsets;
        metrics = Metrics { lower_bound: metrics.lower_bound, ..h.metrics };
        members.best = None;
        members.improved_by = [None; 2];
    }
    // the padded plan's members: none skipped at the (padded) bound, unlike the common plan's
    let padded_members = members;
    // Per-buffer alignments padded the plan's buffers: where it is above its bound, settle it
    // down (`settle`), plan again at the buffers' common alignment, settle that too, and keep
    // the lower peak (`common_alignment`).
    let (mut both_ways, mut settled, mut over_pairs) = (None, None, false);
    if padded && metrics.hwm > metrics.lower_bound {
        // whatever the clock says (its time is reserved: `post_reserve`): a padded plan is
        // not yet the plan. Its pair list is at most SETTLE_MAX_PAIRS (about 0.3 s), and the
        // settle itself stops at the clock after its first 1,024 buffers (valid either way)
        settled = settle(problem, &mut offsets, align, SETTLE_MAX_PAIRS, limits.until);
        over_pairs = settled.is_none();
        if let Some(s) = settled {
            metrics.hwm = s.after;
        }
    }
    if let Some(m) = common_align.filter(|_| metrics.hwm > metrics.lower_bound && first_aligned.is_none()) {
        let mut both =
            BothWays { common_align: m, padded_hwm: metrics.hwm, common_hwm: None, settled: !over_pairs };
        if metrics.hwm > metrics.lower_bound && Instant::now() < limits.until {
            if let Ok((p, _)) = fitting(&mut host, m, false) {
                // the common plan's footprints are its sizes rounded up to `m`; its peak is
                // that of the real footprints, as the padded plan's is after unpadding
                let mut common: Vec<u64> = host.infos()[..problem.len()].iter().map(|i| i.address).collect();
                let settled = if Instant::now() < limits.until {
                    settle(problem, &mut common, align, SETTLE_MAX_PAIRS, limits.until)
                } else {
                    None
                };
                let hwm = settled.map_or_else(|| peak_of(problem, &common, align), |s| s.after);
                both.common_hwm = Some(hwm);
                if both.kept_common() {
                    offsets = common;
                    // the bound stays that of the real sizes: the common plan's is of the
                    // sizes rounded up to `m`, a bound of plans at that alignment only
                    metrics = Metrics { lower_bound: metrics.lower_bound, hwm, ..p.metrics };
                    members = p.members;
                }
            }
            both_ways = Some(both);
        }
    }
    // With padding the portfolio compares its members on padded peaks: each single strategy
    // whose member ran is also run alone (padded, settled, at the common alignment, as `plan
    // --strategy` would) while the clock allows, and the lowest real peak is kept, so `auto`
    // is never above a strategy it ran (`Alone`). A member stopped at the best padded peak
    // (`Outcome::Above`: its padded plan could not be lower, its settled or common one may
    // be) counts as ran, with its work scaled up to all the buffers.
    let mut alone = Vec::new();
    if padded && matches!(strategy, Strategy::Auto | Strategy::Exact) && metrics.hwm > metrics.lower_bound {
        // each with the work its members were charged (a single strategy alone is not stopped
        // by the clock: it starts only where that work, as time, still fits before the limit)
        let mut singles: Vec<(Strategy, u64)> = Vec::new();
        let all = problem.len() as u64;
        for &(m, o) in padded_members.runs() {
            let work = match o {
                Outcome::Ran { work, .. } => Some(work),
                Outcome::Above { work, placed, .. } => {
                    Some((u128::from(work) * u128::from(all) / u128::from(placed.max(1))) as u64)
                }
                _ => None,
            };
            if let (Some(s), Some(work)) = (single_of(m), work) {
                match singles.iter_mut().find(|x| x.0 == s) {
                    Some(x) => x.1 = x.1.saturating_add(work),
                    None => singles.push((s, work)),
                }
            }
        }
        for (s, work) in singles {
            let needs = Duration::from_secs_f64(work as f64 / WORK_UNITS_PER_SECOND);
            if Instant::now().checked_add(needs).is_none_or(|end| end >= limits.until) {
                alone.push(Alone { strategy: s, hwm: None, kept: false });
                continue;
            }
            // on the clock: stopped by it, it is not run (a fresh-user trial: `skyline` alone,
            // unclocked, took `plan` of 18,692 rows with alignments to 1.8 s at a 1 s limit)
            let sol = solve_clocked(problem, align, capacity, s, limits, max_nodes, true).ok();
            let hwm = sol.as_ref().map(|x| x.metrics.hwm);
            let kept = hwm.is_some_and(|h| h < metrics.hwm);
            if let (true, Some(sol)) = (kept, sol) {
                alone.iter_mut().for_each(|a: &mut Alone| a.kept = false);
                offsets = sol.offsets;
                metrics = Metrics { lower_bound: metrics.lower_bound, ..sol.metrics };
                members.best = None;
                members.improved_by = [None; 2];
            }
            alone.push(Alone { strategy: s, hwm, kept });
        }
    }
    // and first fit with each buffer's own alignment, unpadded (`aligned_fit`), kept where lower
    let mut aligned = first_aligned;
    if aligned.is_none()
        && padded
        && portfolio
        && metrics.hwm > metrics.lower_bound
        && Instant::now() < limits.until
    {
        if let Some(fit) = aligned_first_fit(problem, align, SETTLE_MAX_PAIRS, limits.until) {
            let kept = fit.hwm < metrics.hwm;
            let (order, orders, dropped, hwm) = (fit.order, fit.orders, fit.dropped, fit.hwm);
            aligned = Some(Aligned { order, orders, dropped, hwm, kept });
            if kept {
                alone.iter_mut().for_each(|a: &mut Alone| a.kept = false);
                (offsets, metrics.hwm) = (fit.offsets, fit.hwm);
                members.best = None;
                members.improved_by = [None; 2];
            }
        }
    }
    // and the branch and bound with each buffer's own alignment (`aligned_exact`), from the
    // plan so far, where it is above its bound: on the clock, whatever it finds is a plan
    let mut searched = None;
    if padded && portfolio && metrics.hwm > metrics.lower_bound && Instant::now() < limits.until {
        // `auto`'s limits: with padding `exact` runs this front end as `auto` (above)
        let nodes = search_limits(false, max_nodes);
        if let Some(s) = aligned_search(problem, align, &offsets, nodes, limits.until) {
            // (what the search started from stays described: it lowered that plan)
            if s.improved {
                (offsets, metrics.hwm) = (s.offsets.clone(), s.hwm);
            }
            searched = Some(s);
        }
    }
    // (with per-buffer alignments the capacity was left to here; otherwise a plan above it
    // was refused on the way)
    if let Some(c) = capacity.filter(|&c| metrics.hwm > c) {
        return Err(missed_by(c, metrics.hwm));
    }
    let time = start.elapsed();
    Ok(Solved {
        offsets,
        metrics,
        time,
        members,
        both_ways,
        as_exact,
        padded,
        settled,
        over_pairs,
        alone,
        aligned,
        searched,
        helped,
        split: None,
        not_split,
    })
}

/// The core's buffers of `problem`, in problem order: each row's lifetime (`upper`
/// exclusive becomes the last use), size and fixed offset, and with `own` its own alignment.
pub(crate) fn core_buffers(problem: &Problem, own: bool) -> impl ExactSizeIterator<Item = CoreBuffer> + '_ {
    problem.rows().iter().enumerate().map(move |(k, b)| CoreBuffer {
        def: b.lower as u32,
        last_use: (b.upper - 1) as u32,
        bytes: b.size,
        address: problem.fixed(k),
        align: if own { problem.alignment(k) } else { 1 },
    })
}

/// The end of buffer `k` of `problem` where it is fixed: its offset plus its size rounded up
/// to `align`, saturating at `u64::MAX` (bytes); `None` for a free buffer.
fn fixed_end(problem: &Problem, k: usize, align: u64) -> Option<u64> {
    let size = problem.row(k).size.checked_next_multiple_of(align.max(1)).unwrap_or(u64::MAX);
    problem.fixed(k).map(|at| at.saturating_add(size))
}

/// The highest [`fixed_end`] of `problem`, bytes; 0 with no fixed buffer. Every plan's peak is
/// at least this: fixed buffers stay where they are.
fn fixed_top(problem: &Problem, align: u64) -> u64 {
    (0..problem.len()).filter_map(|k| fixed_end(problem, k, align)).max().unwrap_or(0)
}
