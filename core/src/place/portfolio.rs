//! The `auto` portfolio: a table of members, each with its cost estimate, run top to bottom
//! within one work budget, then the branch and bound and the peak repair of the best plan.
//! Uses: every strategy of place (through single: one strategy alone), skyline_member (its skyline runs), class_index, cost_model, sweep_long, sections, report, error, liveness, metrics, strategy, workspace; used by: planner, repair.
//!
//! **How `auto` decides** ([`PORTFOLIO`], read top to bottom). Each row has a cost estimate
//! in *work units*, scaled to be about nanoseconds on the development machine ([`Cost`]):
//! the sweep `20 n log2 n`, the sweep around the long-lived `20 n log2 n + 2E` plus its
//! long set's greedy pass ([`Estimate::sweep_long`]), the sweep around the hot `18 n log2 n`
//! plus two fifths of `2E` and its hot set's greedy pass ([`Estimate::sweep_hot`], calibrated
//! to its measured time; skipped where a greedy pass fits in the budget left, as it stands in
//! for `greedy-load`, and then run right after `greedy-load` where that is over budget after
//! all (`rows`); and, where it would make the first plan, skipped where it would leave less than
//! the sweep's estimate, [`Outcome::NoRoomForTheSweep`]), a skyline preorder `150 n log2 n` (more at scale, where it leaves
//! the cache) plus its re-keys, a greedy member `15 (2E + n)` for E interfering pairs
//! ([`overlapping_pairs`], counted exactly) when the planner holds the interference graph,
//! else (one interval per buffer) the cheaper of the lifetime-class index
//! ([`crate::place::class_index`], about `42 E (1 + n / 2^20)`) and the address-ordered scan
//! (`n² / 2`), the seed's order twice a greedy member. A row runs when its estimate fits in what is left of the budget (the
//! caller's [`Budget::work`], [`AUTO_WORK_BUDGET`] by default), and is charged its
//! estimate (a greedy row on the address-ordered scan: the entries its walks really read,
//! counted by [`Clock::charge`], at most its `n² / 2` estimate, which is a bound); the skyline gets a re-key cap from the budget left, the peak repair all that
//! remains. A row is skipped once a member reaches the lower bound (nothing can beat it; not with buffers padded for their own alignment, whose bound is of the padded sizes, nor with buffers that stand in for the caller's problem, [`crate::Workspace::stand_in`]), and
//! every row is skipped once the caller's clock (`keep_going`, a time limit) says stop. The
//! sweep runs whatever the budget, the clock and the host's plans ([`Budget::claim`]) say
//! when the rows before it (the sweep around the 1/128 longest-lived, about as cheap where few
//! buffers are live at once, and the sweep around the hot) made no plan: it is the cheapest
//! plan there is, so `auto` always has one. The row that makes the first plan is not stopped
//! by the clock (stopped, it would leave no plan); so the sweep around the hot, dearer than
//! the sweep, makes it only where its estimate leaves the sweep's in the budget, checked again
//! once it has counted its hot set's pairs (its estimate assumes an eighth of them; it is
//! charged the counted estimate, or its set-up where it stops there).
//!
//! A row stops as soon as a buffer it places ends at or above the best peak so far
//! ([`Outcome::Above`]): no member moves a buffer it placed (the skyline's general-region retry
//! moves only buffers above the general ceiling, so its cutoff stops there), so that row's plan
//! could not have been lower, and it could not have replaced the best. It is charged its
//! estimate in proportion to the buffers it placed (the scan: the entries it walked), and the
//! rest goes back to the budget for the rows after it. Not with padded or stand-in sizes,
//! whose peaks do not rank the real plans, nor for the two-ended sweep, whose settle lowers
//! buffers it placed.
//!
//! The lowest peak is kept (ties: the earlier row), so `auto` is never worse than any member
//! it runs, by construction. With buffers padded for their own alignment a plan's peak is the
//! one it has once unpadded (`liveness::buffers::unpadded_peak`), the plan the caller
//! gets: the branch and bound's and the repair's plans are ranked the same way, and a repair
//! that lowered only the padded peak is undone. With no clock (or one that never says stop)
//! every decision is a function of the input alone: `auto` is deterministic. The plan's
//! [`crate::place::report::Members`] lists each row's outcome.
//!
//! Then, from the best plan: the branch and bound of [`crate::place::exact`] for up to
//! [`AUTO_EXACT_MAX`] buffers (until it has spent [`AUTO_EXACT_WORK`] slot visits, and
//! stopped by the caller's clock like every member), and the peak repair of
//! [`crate::place::repair`] with the budget left and, while it keeps lowering the peak, the
//! caller's [`Budget::repair_work`] past it (the sim's front end, which has a clock, passes
//! no bound: the repair then ends at the clock, at the bound, where no window lowers the peak
//! or where it stalls).
//!
//! This file holds the table, the driver loop (`run_strategy`) and the single-strategy
//! runners; the skyline runs and their completion after a cap (first fit or settle, the
//! CC-region retry) are in `skyline_member.rs`, the branch and bound's runs, budget and
//! record in `exact_member.rs`, the two sweep rows' runners beside their sweeps
//! (`sweep_long.rs`, `sweep_two_ended.rs`; the sweep around the hot's budget rule,
//! `affords`, and set-up charge in `sweep_hot.rs`). It runs to about 660 lines, past the
//! style guide's 600, about 440 of them code: `run_strategy` alone is about 390, one sequence
//! of rows, the branch and bound and the repair threading one budget and one report, and
//! split further it would pass the budget, the estimate, the report and the storage between
//! files as a dozen arguments.
//!
//! [`Strategy::Exact`] runs the same (its branch and bound to `auto`'s work cap, then the
//! repair), gives the skyline preorders the budgeted run could not finish the caller's clock,
//! and then searches on from the repaired plan with the caller's nodes left (n ≤
//! [`crate::place::exact::EXACT_MAX_BUFFERS`]; a second branch-and-bound row). On the same
//! inputs, budget and a clock that does not stop it first, it is `auto`'s steps and then more,
//! so it is never worse (before 2026-12-05 it searched on before the repair, which the clock
//! then starved: worse than `auto` on 8 of 200 of a fresh-user trial's files).

use crate::error::PlanError;
use crate::liveness::buffers::unpadded_peak;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::metrics::Metrics;
use crate::place::clock::Clock;
use crate::place::cost_model::REKEY_UNITS_PER_LEVEL;
pub use crate::place::cost_model::{
    overlapping_pairs, Cost, Estimate, Placer, CLASS_UNITS_PER_CLASS, CLASS_UNITS_PER_PAIR,
    GREEDY_UNITS_PER_ENTRY, LIST_UNITS_PER_PAIR,
};
use crate::place::exact::{Ask, Budget, Claim, Schedule};
use crate::place::exact_member::{record, resumed, run_exact, NoSearch};
pub use crate::place::exact_member::{AUTO_EXACT_MAX, AUTO_EXACT_NODES, AUTO_EXACT_WORK};
use crate::place::repair::{repair, Work};
use crate::place::report::{Member, Members, Outcome};
use crate::place::seed::search::Span;
use crate::place::seed::select::Regions;
use crate::place::single::{greedy_of, run_single, strategy_of};
use crate::place::skyline_member::{run_skyline, skyline_applies, Finish};
use crate::place::sweep_hot::{affords, run_sweep_hot, set_up_units, sized_hot_set};
use crate::place::sweep_long::run_sweep_long;
use crate::place::sweep_two_ended::run_two_ended;
use crate::strategy::Strategy;
use crate::workspace::{Placed, Raise, Scratch, Section, Slot};

/// Node budget of [`Strategy::Exact`] when the caller gives none (`plan_buffers`): at most
/// this many nodes, and at most [`EXACT_DEFAULT_WORK`] / n (a node costs O(n)).
pub const EXACT_DEFAULT_NODES: u64 = 2_000_000;

/// Work cap of the default [`Strategy::Exact`] budget, in candidate visits.
pub const EXACT_DEFAULT_WORK: u64 = 100_000_000;

/// Work budget of [`Strategy::Auto`] over all its members and the repair, in work units.
/// The cost estimates are scaled so that a unit is about one nanosecond on one core of the
/// development machine (a 2-core VM; `dramalloc quality` shows the times), so this is about
/// 0.7 s there: `auto` plans 10^5–10^6 buffers in about a second of planning.
pub const AUTO_WORK_BUDGET: u64 = 700_000_000;

/// The members of `auto` (and of `exact` before its branch and bound), tried top to bottom
/// while the budget lasts: (member, cost estimate). The sweep around the 1/128 longest-lived
/// first (at 10^6 short-lived buffers about a sweep's cost, and often far lower peaks), then
/// the sweep around the 1/8 hottest (`greedy-load`'s order for less work: it runs only where a
/// greedy pass no longer fits in the budget left, [`Outcome::Covered`], or, in a second place
/// right after `greedy-load`, where that is then over budget (`rows`); where it makes the
/// first plan, only where it leaves the sweep's estimate, [`Outcome::NoRoomForTheSweep`]),
/// then the sweep (always, when neither made a plan: the cheapest plan there is; where the
/// 1/8 hottest would make the first plan but do not fit beside the sweep's estimate, the row
/// runs with the largest smaller hot set that does, down to 1/64:
/// [`crate::place::sweep_hot::MAX_HOT_SHARE`]); then,
/// alternating, a skyline preorder, sweeps around larger long sets (1/8, 1/2: dearer, as their
/// greedy part grows) and greedy orders, so a small budget still gets every kind; the two
/// best-fit orders (ties by lifetime, by start) and the seed's order, as they are rarely
/// the best at scale and cost the most (best fit walks every gap); last the two-ended sweep
/// (about two sweeps), the only member that places buffers from the top: it wins where the
/// others all stack (a chain of buffers each live with its neighbours only) and rarely
/// elsewhere, so it takes no budget from them.
#[rustfmt::skip]
pub const PORTFOLIO: [(Member, Cost); 16] = [
    (Member::SweepLong(7), Cost::SweepLong(7)),
    (Member::SweepHot(3), Cost::SweepHot(3)),
    (Member::Sweep,       Cost::Sweep),
    (Member::Skyline(1),  Cost::Skyline),
    (Member::SweepLong(3), Cost::SweepLong(3)),
    (Member::GreedyLoad,  Cost::Greedy),
    (Member::GreedyClass, Cost::Greedy),
    (Member::GreedySize,  Cost::Greedy),
    (Member::SweepLong(1), Cost::SweepLong(1)),
    (Member::Skyline(2),  Cost::Skyline),
    (Member::GreedyStart, Cost::Greedy),
    (Member::Skyline(0),  Cost::Skyline),
    (Member::BestFit,     Cost::Greedy),
    (Member::BestFitStart, Cost::Greedy),
    (Member::Seed,        Cost::Seed),
    (Member::SweepTwoEnded, Cost::TwoEnded),
];

/// The row of [`PORTFOLIO`] that stands in for `greedy-load`: the sweep around the hot.
const HOT_ROW: usize = 1;

// Every row, the stand-in's second place, `exact`'s timed skyline, the branch and bound, the
// repair and `exact`'s second branch-and-bound row fit in the report.
const _: () = assert!(crate::place::report::MAX_MEMBERS >= PORTFOLIO.len() + 5);

/// [`PORTFOLIO`]'s rows in order, `(member, estimate, false)`, with the sweep around the hot
/// again right after `greedy-load` (`true`): where it was skipped at its own row because a
/// greedy pass fitted there ([`Outcome::Covered`]) and `greedy-load` is then over budget, it
/// runs in that place, so it stands in for `greedy-load` wherever that does not run for its
/// budget (otherwise the second place is passed over, not reported).
fn rows() -> impl Iterator<Item = (Member, Cost, bool)> {
    let (hot, hot_cost) = PORTFOLIO[HOT_ROW];
    PORTFOLIO.iter().flat_map(move |&(m, c)| {
        let again = (m == Member::GreedyLoad).then_some((hot, hot_cost, true));
        core::iter::once((m, c, false)).chain(again)
    })
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
    /// Words for the sweep's index of pinned buffers ([`crate::Workspace::lookahead`]).
    pub(crate) lookahead: &'s mut &'w mut [u64],
    /// The buffers stand in for the caller's problem ([`crate::Workspace::stand_in`]).
    pub(crate) stand_in: bool,
}

/// The highest end of the candidates, bytes (0 for none).
pub(super) fn peak(infos: &[Info]) -> u64 {
    infos.iter().map(Info::end).max().unwrap_or(0)
}

/// `start` plus every candidate's aligned size (bytes), `None` past `u64` (then the skyline and
/// the branch and bound are skipped): with no pinned candidate none of their offsets and tops
/// passes it. Pinned ones sit higher: the skyline also asks `skyline_reach`, the search saturates.
pub(super) fn stack_top(infos: &[Info], start: u64) -> Option<u64> {
    infos.iter().try_fold(start, |top, i| top.checked_add(i.aligned))
}

/// Runs `strategy` on the prepared graph: a single strategy alone, `auto` and `exact` as the
/// rows of [`PORTFOLIO`] top to bottom and then the branch and bound and the repair from the
/// best plan; returns the strategy that produced the final addresses and the members' report.
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
) -> Result<(Strategy, Members), PlanError> {
    let n = infos.len();
    let est = Estimate::of(graph, infos);
    let mut report = Members::default();
    if !matches!(strategy, Strategy::Auto | Strategy::Exact) {
        // a single strategy has no other plan to fall back on: stopped, it has none
        let mut clock = Clock::new(&mut *budget.keep_going);
        run_single(strategy, graph, infos, st, regions, &est, u64::MAX, &mut clock)?;
        return if clock.stopped() { Err(PlanError::Stopped) } else { Ok((strategy, report)) };
    }
    let exact = strategy == Strategy::Exact;
    let keep = st.slots.len() >= n;
    let lb = metrics.lower_bound;
    report.lower_bound = lb;
    // buffers padded for their own alignment (`liveness::buffers`): the bound is of the padded
    // sizes, and a member at it is optimal for those, not for the real sizes the plan ends with
    // (another member's plan may unpad lower), so no member is skipped for an earlier one at it;
    // the same where the buffers stand in for the caller's (`Workspace::stand_in`)
    let padded = st.stand_in
        || infos.iter().any(|i| {
            !i.is_pinned() && crate::align::align_up(i.bytes, regions.align).is_some_and(|r| r < i.aligned)
        });
    // padded (not stand-in) candidates: plans rank by the peak they have once unpadded
    // (`unpadded_peak`), which the caller gets; their padded peaks do not rank them
    let real = padded && !st.stand_in;
    let rank = |infos: &[Info], h: u64| if real { unpadded_peak(infos, regions.align) } else { h };
    let mut left = budget.work;
    let mut best: Option<(u64, Member)> = None;
    let mut first_err = None;
    let mut skyline_stopped = false;
    // where the skyline cannot place these candidates its rows are not applicable, not stopped
    let skyline_ok = skyline_applies(infos, st, regions);
    let mut last_cut = None;
    // where the rows together cost more than the budget, a host with threads of its own may
    // take single strategies off the portfolio ([`Budget::claim`]); below that every row runs
    // here, as without one
    let total = PORTFOLIO.iter().fold(0u64, |t, &(_, cost)| t.saturating_add(est.cost(cost)));
    let split = total > budget.work;
    // the sweep around the hot skipped at its row where a greedy pass fitted there
    // ([`Outcome::Covered`]), and then `greedy-load` over budget after all (the rows between
    // spent what it needed): the stand-in runs after it
    let (mut covered, mut stand_in) = (false, false);
    for (member, cost, again) in rows() {
        if again && !stand_in {
            continue;
        }
        let (member, cost) = sized_hot_set(member, cost, best.is_none(), left, &est);
        let c = est.cost(cost);
        let mut started = None;
        // the sweep runs whatever the budget, the clock and the host's plans say when no row
        // before it made a plan, so `auto` always has one
        let forced = member == Member::Sweep && best.is_none();
        // a sweep (around the long-lived or plain) that would make the first plan is neither
        // skipped nor stopped by the clock (only the budget skips it, a function of the
        // input): it costs about a sweep, so giving it up for the sweep saves no time and
        // costs quality, and stopped it would leave the sweep to start again from nothing
        let first_plan =
            matches!(member, Member::SweepLong(_) | Member::SweepHot(_) | Member::Sweep) && best.is_none();
        // a sweep around the long-lived needs one interval per candidate (E known); with no
        // long set it is the sweep, with an earlier row's long set it is that row
        let (one_interval, repeat) = match member {
            Member::SweepLong(s) => {
                let k = est.lifetimes.cut(s as u32);
                let same = est.lifetimes.long_set(k).0 == 0 || last_cut == Some(k);
                last_cut = Some(k);
                (est.pairs.is_some(), same)
            }
            Member::Skyline(_) => (skyline_ok, false),
            Member::SweepTwoEnded | Member::SweepHot(_) => (est.pairs.is_some(), false),
            _ => (true, false),
        };
        // a greedy row on the address-ordered scan runs when its bound (n² / 2 entries
        // walked) fits, and is charged the entries it really walks (often far fewer)
        let metered = est.placer == Placer::Scan
            && greedy_of(strategy_of(member)).is_some()
            && st.placed.len() >= n
            && st.occupied.len() >= n;
        let outcome = if !padded && best.is_some_and(|(b, _)| b <= lb) {
            Outcome::AtLowerBound
        } else if ask(budget, split, Ask::Status) == Claim::Reached && !forced {
            // (not the sweep that makes the first plan: `auto` returns a plan of its own, which
            // the host then ranks against its own; a fresh-user trial found 2,500 equal
            // buffers, whose greedy helper reached the bound before the portfolio's first row,
            // answered with no plan at all, "location 0 is still unallocated")
            Outcome::ReachedElsewhere
        } else if !one_interval {
            Outcome::NotApplicable
        } else if repeat {
            Outcome::NoLongSet
        } else if matches!(member, Member::SweepHot(_)) && est.cost(Cost::Greedy) <= left {
            Outcome::Covered
        } else if matches!(member, Member::SweepHot(_)) && best.is_none() && !affords(c, left, true, &est) {
            // the first plan is not stopped by the clock: dearer than the sweep, it may take
            // only what leaves the sweep's estimate in the budget
            Outcome::NoRoomForTheSweep { cost: c, sweep: est.cost(Cost::Sweep), left }
        } else if !forced && !first_plan && !(budget.keep_going)() {
            Outcome::OutOfTime
        } else if !forced && c > left {
            Outcome::OverBudget { cost: c, left }
        } else if let Some(o) = member
            .is_single()
            .then(|| ask(budget, split, Ask::Take(strategy_of(member))))
            .and_then(|c| match c {
                Claim::Here => None,
                Claim::Elsewhere => Some(Outcome::Elsewhere),
                Claim::Reached => Some(Outcome::ReachedElsewhere),
            })
        {
            o
        } else {
            started = nanos_left(budget);
            // a skyline may spend half of what is left on re-keys
            let rekeys = left.saturating_sub(c) / 2 / (REKEY_UNITS_PER_LEVEL * est.log_n.max(1));
            let before_run = left;
            // the sweep around the hot's estimate once its hot set's pairs were counted: `Err`
            // where that was more than it may spend (it stopped before its greedy pass)
            let mut hot_counted = None;
            let mut stopped = false;
            let mut above = None;
            // a metered row is charged the work it does, not its estimate
            left = left.saturating_sub(if metered { 0 } else { c });
            let run = match member {
                Member::Skyline(h) => {
                    let mut cap = rekeys;
                    // what the re-keys leave may finish the plan by first fit if they run out;
                    // where even a whole greedy pass would not fit in it, the run settles
                    let per_buffer = est.greedy / est.n.max(1);
                    let spare = left.saturating_sub(rekeys * REKEY_UNITS_PER_LEVEL * est.log_n.max(1));
                    let cutoff = skyline_cutoff(best.map(|(b, _)| b), padded, regions);
                    let mut finish =
                        Finish { settle: est.greedy > spare, left: spare, per_buffer, cutoff, above: None };
                    let before = finish.left;
                    let r = run_skyline(
                        graph,
                        infos,
                        st,
                        regions,
                        &[h as usize],
                        &mut cap,
                        &mut finish,
                        budget.keep_going,
                    );
                    left = left.saturating_sub(before - finish.left);
                    let charged = (rekeys - cap).saturating_mul(REKEY_UNITS_PER_LEVEL * est.log_n.max(1));
                    left = left.saturating_sub(charged);
                    if let Some((top, placed)) = finish.above {
                        left = left.saturating_add(c - placed_share(c, placed, est.n));
                        above = Some((top, placed));
                    }
                    r
                }
                m => {
                    let mut clock =
                        if first_plan { Clock::none() } else { Clock::new(&mut *budget.keep_going) };
                    // a row stops once its partial plan peaks at or above the best plan's: it
                    // could no longer replace it (the earlier of equal peaks is kept); not with
                    // padded or stand-in sizes, whose peaks do not rank the real plans
                    if let Some((b, _)) = best.filter(|_| !padded) {
                        clock = clock.with_ceiling(b);
                    }
                    let r = match m {
                        Member::SweepLong(share) => {
                            run_sweep_long(share, graph, infos, st, regions, &est, &mut clock)
                        }
                        Member::SweepHot(share) => {
                            // the rule above, again with its hot set's pairs counted
                            let affordable = |e_hot| {
                                let cost = est.sweep_hot_with(share as u32, e_hot);
                                if affords(cost, before_run, best.is_none(), &est) {
                                    Ok(cost)
                                } else {
                                    Err(cost)
                                }
                            };
                            let r = run_sweep_hot(
                                share,
                                graph,
                                infos,
                                st,
                                regions,
                                &mut clock,
                                &affordable,
                                &mut hot_counted,
                            );
                            // charged its estimate with the pairs counted, where it ran on
                            if let Some(Ok(cost)) = hot_counted {
                                left = before_run.saturating_sub(cost);
                            }
                            r
                        }
                        Member::SweepTwoEnded => run_two_ended(graph, infos, st, regions, lb, &mut clock),
                        m => {
                            run_single(strategy_of(m), graph, infos, st, regions, &est, u64::MAX, &mut clock)
                        }
                    };
                    stopped = clock.stopped();
                    if metered {
                        left = left.saturating_sub(clock.work());
                    }
                    if let (Some(top), false) = (clock.above(), stopped) {
                        let placed = clock.placed_count();
                        if !metered {
                            // (the sweep around the hot: its estimate with the pairs counted)
                            let cost = hot_counted.and_then(Result::ok).unwrap_or(c);
                            left = before_run.saturating_sub(placed_share(cost, placed, est.n));
                        }
                        above = Some((top, placed));
                    }
                    r
                }
            };
            match run {
                // the clock stopped it before its plan was complete
                Ok(_) if stopped => Outcome::Stopped,
                Ok(_) if above.is_some() => {
                    let (top, placed) = above.unwrap_or_default();
                    Outcome::Above { top, placed, work: before_run - left }
                }
                Ok(Some(h)) => {
                    let h = rank(infos, h);
                    if best.is_none_or(|(bh, _)| h < bh) {
                        best = Some((h, member));
                        if keep {
                            for (slot, info) in st.slots.iter_mut().zip(infos.iter()) {
                                slot.best = info.address;
                            }
                        }
                    }
                    // a forced sweep costs its estimate even where the budget could not pay it
                    Outcome::Ran { peak: h, work: if forced { c } else { before_run - left } }
                }
                Ok(None) if matches!(hot_counted, Some(Err(_))) => {
                    // charged its set-up (the loads and the hot set), the rest back to the budget
                    let cost = hot_counted.and_then(Result::err).unwrap_or_default();
                    left = before_run.saturating_sub(set_up_units(&est));
                    if best.is_none() {
                        Outcome::NoRoomForTheSweep { cost, sweep: est.cost(Cost::Sweep), left: before_run }
                    } else {
                        Outcome::OverBudget { cost, left: before_run }
                    }
                }
                Ok(None) if matches!(member, Member::Skyline(_)) => {
                    skyline_stopped = true;
                    Outcome::Stopped
                }
                Ok(None) => {
                    // it declined the input before any work (sweep-long with short storage):
                    // its estimate goes back to the budget
                    left = before_run;
                    Outcome::NotApplicable
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                    Outcome::Failed
                }
            }
        };
        covered |= outcome == Outcome::Covered;
        stand_in = covered && member == Member::GreedyLoad && matches!(outcome, Outcome::OverBudget { .. });
        report.push(member, outcome);
        // the time of a row that started, on the host's clock
        time_last(&mut report, budget, started);
    }
    // the host may finish the rows it took now, before the repair spends the clock
    let reached = ask(budget, split, Ask::RowsDone) == Claim::Reached;
    let Some((best_peak, winner)) = best else {
        return Err(first_err.unwrap_or(PlanError::Unallocated { location: 0 }));
    };
    report.best = Some(winner);
    let mut chosen = strategy_of(winner);
    if keep {
        restore_best(st.slots, infos);
    } else if let Member::SweepLong(share) = winner {
        run_sweep_long(share, graph, infos, st, regions, &est, &mut Clock::none())?;
    } else {
        run_single(chosen, graph, infos, st, regions, &est, u64::MAX, &mut Clock::none())?;
    }
    let mut best_peak = best_peak;
    // exact: the skyline preorders the budget stopped, on the caller's clock
    if exact && skyline_stopped && keep && best_peak > lb {
        let cutoff = skyline_cutoff(Some(best_peak), padded, regions);
        let mut none = Finish { settle: false, left: 0, per_buffer: 0, cutoff, above: None };
        let run = run_skyline(
            graph,
            infos,
            st,
            regions,
            &[0, 1, 2],
            &mut { u64::MAX },
            &mut none,
            budget.keep_going,
        );
        let outcome = match run.map(|h| h.map(|h| rank(infos, h))) {
            Ok(Some(h)) if h < best_peak => {
                best_peak = h;
                chosen = Strategy::Skyline;
                // a whole plan of its own, not an improvement of the kept one
                report.best = Some(Member::SkylineTimed);
                for (slot, info) in st.slots.iter_mut().zip(infos.iter()) {
                    slot.best = info.address;
                }
                Outcome::Ran { peak: h, work: 0 }
            }
            Ok(Some(h)) => Outcome::Ran { peak: h, work: 0 },
            Ok(None) => match none.above {
                Some((top, placed)) => Outcome::Above { top, placed, work: 0 },
                None => Outcome::Stopped,
            },
            Err(_) => Outcome::Failed,
        };
        restore_best(st.slots, infos);
        report.push(Member::SkylineTimed, outcome);
    }
    // Branch and bound: one-interval, aligned start, CC region unused (`exact_member`), with
    // `auto`'s nodes for `exact` too: `exact` is `auto`'s steps up to the repair, then it
    // searches on from the repaired plan (below), so it is never worse on the same clock
    let mut searched = None;
    if keep && est.greedy != u64::MAX && (reached || ask(budget, split, Ask::Status) == Claim::Reached) {
        report.push(Member::BranchAndBound, Outcome::ReachedElsewhere);
    } else if keep && est.greedy != u64::MAX {
        let first = (u64::MAX, Schedule::auto(AUTO_EXACT_WORK));
        let t0 = nanos_left(budget);
        match run_exact(graph, infos, st, regions, (lb, best_peak), exact, first, budget) {
            Ok(out) => {
                best_peak = record(&out, st.slots, infos, best_peak, &mut report, &rank);
                time_last(&mut report, budget, t0);
                if out.improved {
                    chosen = strategy;
                }
                searched = Some(out);
            }
            // (only `exact` gets there: `auto` searches at most AUTO_EXACT_MAX buffers)
            Err(NoSearch::TooMany) => report.push(Member::BranchAndBound, Outcome::NotApplicable),
            Err(NoSearch::OutOfTime) => report.push(Member::BranchAndBound, Outcome::OutOfTime),
            Err(NoSearch::Skipped) => {}
        }
    }
    // the peak repair of the best plan, with what is left of the budget and the caller's
    // repair allowance past it (a host with a clock: until the clock stops it)
    // (with padding, the repair lowers padded peaks toward their bound: it runs while the
    // plan's padded peak is above it, though its unpadded one may be below, and its plan is
    // kept only where it unpads lower)
    let repairable = if real { peak(infos) } else { best_peak };
    if repairable > lb {
        let allowed = left.saturating_add(budget.repair_work);
        let t0 = nanos_left(budget);
        let outcome = if ask(budget, split, Ask::Status) == Claim::Reached {
            Outcome::ReachedElsewhere
        } else if !(budget.keep_going)() {
            Outcome::OutOfTime
        } else if allowed == 0 {
            Outcome::OverBudget { cost: 1, left }
        } else {
            // (without the slots, where a repair that lowered only the padded peak could not be
            // undone, the repair does not apply: it needs them too)
            let mut w = Work::with_extension(left, budget.repair_work, budget.keep_going);
            match repair(graph, infos, st, regions, lb, &mut w)? {
                // stopped by the clock before its first unit: it did not run
                Some(_) if w.used() == 0 && w.stopped() => Outcome::OutOfTime,
                Some(r) => {
                    let p = rank(infos, r.peak);
                    if p < best_peak {
                        best_peak = p;
                        chosen = strategy;
                        report.improved_by[1] = Some(Member::Repair);
                    } else if real {
                        // its moves lowered the padded peak, not the unpadded one: the plan
                        // before it (kept in the slots) stays
                        restore_best(st.slots, infos);
                    }
                    Outcome::Ran { peak: p, work: w.used() }
                }
                None => Outcome::NotApplicable,
            }
        };
        report.push(Member::Repair, outcome);
        if matches!(outcome, Outcome::Ran { .. }) {
            time_last(&mut report, budget, t0);
        }
    }
    // `exact`: the search goes on from the plan so far with the caller's nodes left, on the
    // clock (a second branch-and-bound row; none where the first proved its plan or the clock
    // had stopped), as one run would have gone on (`exact_member::resumed`)
    let more =
        searched.filter(|o| exact && !o.optimal && best_peak > lb).map(|o| resumed(&o, budget.max_nodes));
    if let Some(next) = more.filter(|&(m, _)| m > 0 && (budget.keep_going)()) {
        if let Ok(out) = run_exact(graph, infos, st, regions, (lb, best_peak), exact, next, budget) {
            let unchanged = rank(infos, peak(infos));
            record(&out, st.slots, infos, unchanged, &mut report, &rank);
            if out.improved {
                chosen = strategy;
            }
        }
    }
    Ok((chosen, report))
}

/// The tops (bytes) that stop a skyline run: from the best peak so far up to the general
/// region's ceiling, over which its buffers are placed again ([`Outcome::Above`]); none
/// (`0..0`) before a plan or with padded or stand-in sizes, whose peaks do not rank the real
/// plans.
fn skyline_cutoff(best: Option<u64>, padded: bool, regions: Regions) -> core::ops::Range<u64> {
    match best {
        Some(b) if !padded => b..regions.general_ceiling.saturating_add(1),
        _ => 0..0,
    }
}

/// What a row stopped at the best peak ([`Outcome::Above`]) is charged of its estimate `cost`:
/// in proportion to the `placed` of `n` buffers it placed, at most `cost`.
fn placed_share(cost: u64, placed: u64, n: u64) -> u64 {
    ((u128::from(cost) * u128::from(placed) / u128::from(n.max(1))) as u64).min(cost)
}

/// The host's answer about a row ([`Budget::claim`]): [`Claim::Here`] where the rows are
/// not `split` (they fit the budget together) or there is no host.
fn ask(budget: &mut Budget<'_>, split: bool, question: Ask) -> Claim {
    match budget.claim.as_mut() {
        Some(claim) if split => claim(question),
        _ => Claim::Here,
    }
}

/// The host's clock reading, nanoseconds left (negative past the limit; [`Budget::nanos_left`];
/// `None` without one).
fn nanos_left(budget: &mut Budget<'_>) -> Option<i64> {
    budget.nanos_left.as_mut().map(|f| f())
}

/// Records on the report's last run the nanoseconds since the clock read `t0` (nothing
/// without a clock or a start).
fn time_last(report: &mut Members, budget: &mut Budget<'_>, t0: Option<i64>) {
    let Some(t0) = t0 else { return };
    if let Some(t1) = nanos_left(budget) {
        report.time_last(u64::try_from(i128::from(t0) - i128::from(t1)).unwrap_or(0));
    }
}

/// Puts the best plan (`slots[..].best`) back into `infos`.
pub(super) fn restore_best(slots: &[Slot], infos: &mut [Info]) {
    for (slot, info) in slots.iter().zip(infos.iter_mut()) {
        info.address = slot.best;
        info.allocated = 1;
    }
}
