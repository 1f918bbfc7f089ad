//! The `auto` portfolio as a table of members with cost estimates, then the branch and bound.
//! Uses: every strategy of place, sections, error, liveness, metrics, strategy, workspace; used by: planner.
//!
//! The `auto` portfolio and the start of `exact`: which members run at which size, as one
//! table read top to bottom, then the branch and bound from the best plan.
//!
//! **What [`Strategy::Auto`] runs, by size** (n candidates; work = the estimated interval
//! tests of one greedy member, [`placement_work`]), in this order, keeping the lowest peak and
//! skipping the rest once a member reaches the lower bound (the rows of `PORTFOLIO`):
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

use core::ops::RangeInclusive;

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::metrics::Metrics;
use crate::place::exact::{branch_and_bound, prepare, Budget, Schedule, CHECK_EVERY};
use crate::place::greedy::by_size;
use crate::place::scan::{interval_of, scan};
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{select, Regions, SelectBuffers};
use crate::place::seed::simplify::simplify;
use crate::place::skyline::skyline;
use crate::place::sweep::sweep;
use crate::strategy::Strategy;
use crate::workspace::{Placed, Raise, Scratch, Section, Slot};

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

// shorthands of the table's ranges
const SKY: u64 = AUTO_SKYLINE_MAX as u64;
const SKY_LARGE: u64 = AUTO_SKYLINE_LARGE_MAX as u64;
const WORK: u64 = AUTO_WORK_BUDGET;
const ANY: u64 = u64::MAX;

/// The members of `auto` (and of `exact` before its branch and bound), tried top to bottom:
/// a row runs when its cost estimate is in its range and no earlier row has reached the lower
/// bound; the lowest peak is kept (ties: the earlier row). The skyline comes first: where it
/// reaches the lower bound nothing can beat it and the slower members are skipped. Above
/// [`AUTO_SKYLINE_MAX`] buffers it runs once, capped; the sweep replaces the greedy members
/// above their work budget; `exact` also gives the uncapped skyline the caller's budget on
/// large inputs.
#[rustfmt::skip]
const PORTFOLIO: [Member; 7] = [
    //          strategy              how            cost estimate    runs for             who
    Member::new(Strategy::Skyline,    SkyRun::Full,  Cost::Buffers,   0..=SKY,             Who::AutoAndExact),
    Member::new(Strategy::Skyline,    SkyRun::Quick, Cost::Buffers,   SKY + 1..=SKY_LARGE, Who::AutoAndExact),
    Member::new(Strategy::Seed,       SkyRun::Full,  Cost::TwiceWork, 0..=WORK,            Who::AutoAndExact),
    Member::new(Strategy::GreedySize, SkyRun::Full,  Cost::Work,      0..=WORK,            Who::AutoAndExact),
    Member::new(Strategy::BestFit,    SkyRun::Full,  Cost::Work,      0..=WORK,            Who::AutoAndExact),
    Member::new(Strategy::Sweep,      SkyRun::Full,  Cost::Work,      WORK + 1..=ANY,      Who::AutoAndExact),
    Member::new(Strategy::Skyline,    SkyRun::Timed, Cost::Buffers,   SKY + 1..=ANY,       Who::ExactOnly),
];

/// What a row's cost estimate counts.
#[derive(Clone, Copy)]
enum Cost {
    /// The candidates, n (the skyline's re-keys grow with n, quadratically at worst).
    Buffers,
    /// The estimated interval tests of one greedy member ([`placement_work`]).
    Work,
    /// Twice that: the seed's simplify costs O(E log n) on top of its placement.
    TwiceWork,
}

/// Which of the two portfolio strategies runs a row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    /// [`Strategy::Auto`] and [`Strategy::Exact`].
    AutoAndExact,
    /// [`Strategy::Exact`] only (the row answers to the caller's budget).
    ExactOnly,
}

/// The input as the rows' cost estimates see it.
#[derive(Clone, Copy)]
struct Size {
    /// Candidates.
    n: u64,
    /// Estimated interval tests of one greedy member ([`placement_work`]).
    work: u64,
    /// True under [`Strategy::Exact`], false under [`Strategy::Auto`].
    exact: bool,
}

/// One row of [`PORTFOLIO`]: a member, how it runs, its cost estimate and the range of that
/// estimate in which it runs.
struct Member {
    strategy: Strategy,
    /// How a skyline member runs (the other members ignore it).
    sky: SkyRun,
    cost: Cost,
    /// The member runs when its cost estimate lies in this range.
    runs_for: RangeInclusive<u64>,
    who: Who,
}

impl Member {
    const fn new(
        strategy: Strategy,
        sky: SkyRun,
        cost: Cost,
        runs_for: RangeInclusive<u64>,
        who: Who,
    ) -> Self {
        Member { strategy, sky, cost, runs_for, who }
    }

    /// Whether the row runs on an input of this size.
    fn runs_on(&self, size: Size) -> bool {
        let estimate = match self.cost {
            Cost::Buffers => size.n,
            Cost::Work => size.work,
            Cost::TwiceWork => size.work.saturating_mul(2),
        };
        (self.who == Who::AutoAndExact || size.exact) && self.runs_for.contains(&estimate)
    }
}

/// Slices the strategies work in.
pub(crate) struct Storage<'s, 'w> {
    pub(crate) scratch: &'s mut [Scratch],
    pub(crate) order: &'s mut &'w mut [u32],
    pub(crate) heap: &'s mut &'w mut [u32],
    pub(crate) neighbours: &'s mut &'w mut [u32],
    pub(crate) occupied: &'s mut &'w mut [Span],
    pub(crate) placed: &'s mut &'w mut [Placed],
    pub(crate) slots: &'s mut &'w mut [Slot],
    pub(crate) sections: &'s mut &'w mut [Section],
    pub(crate) raises: &'s mut &'w mut [Raise],
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
            if sweep(
                graph,
                infos,
                st.order,
                st.heap,
                st.placed,
                st.occupied,
                st.sections,
                regions,
                Fit::First,
            )? {
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

/// Runs `strategy` on the prepared graph: a single strategy alone, `auto` and `exact` as the
/// rows of [`PORTFOLIO`] top to bottom and then the branch and bound from the best plan;
/// returns the strategy that produced the final addresses.
///
/// # Errors
/// The first member's error when no member produced a plan ([`PlanError::DoesNotFit`],
/// [`PlanError::Capacity`], ...); a single strategy's error.
pub(crate) fn run_strategy(
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
    let size = Size { n: n as u64, work, exact: strategy == Strategy::Exact };
    for member in &PORTFOLIO {
        let s = member.strategy;
        if !member.runs_on(size) || best.is_some_and(|(b, _)| b <= metrics.lower_bound) {
            continue;
        }
        match run_member(s, graph, infos, st, regions, use_scan, member.sky, budget.keep_going) {
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
