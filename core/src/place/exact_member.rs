//! The branch and bound as a portfolio member: when it applies, its work cap, and the
//! fixed (pinned) candidates it honours as obstacles.
//! Uses: exact, sections, scan, report, portfolio (Storage, restore_best); used by: portfolio
//! (which re-exports its budget constants).

use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::exact::{branch_and_bound_with, Budget, ExactOutcome, Rules, Schedule, EXACT_MAX_BUFFERS};
use crate::place::portfolio::{peak, restore_best, stack_top, Storage};
use crate::place::report::{Member, Members, Outcome};
use crate::place::scan::interval_of;
use crate::place::sections::prepare_loads;
use crate::place::seed::search::Span;
use crate::place::seed::select::Regions;
use crate::workspace::{Raise, Slot};
use core::cell::Cell;

/// Work cap of [`crate::Strategy::Auto`]'s branch and bound, in slot visits
/// ([`Schedule::max_work`], [`Schedule::auto`]). A node's work is O(its part), so a cap on
/// work, unlike a node budget, bounds the time whatever the nodes cost: on the hard DSA set a
/// node took 1.3 µs on E and 7 µs on D, so 20,000 nodes took 26 ms on one and 140 ms on the
/// other. A visit took 2.9–4.3 ns there (2026-12-05, one core of the development VM), so
/// 15 × 10^6 visits were 45–65 ms of search, most of the 50 ms a file that issue 12 allows
/// `auto`; the searches that end sooner (at the bound, or with their rounds done) spend less.
/// The search's scans skip placed and ended buffers since 2026-12-06 (the same visits counted,
/// the whole `auto` run 22 % shorter over the set).
pub const AUTO_EXACT_WORK: u64 = 15_000_000;

/// Nodes after which the planner's one-run schedule for `exact` gives the lower-bound probes
/// a quarter of each round ([`Schedule::planner`]; the sim's search with each buffer's own
/// alignment): `auto`'s former node budget, whose rounds it then repeats.
pub const AUTO_EXACT_NODES: u64 = 20_000;

/// Largest number of buffers for which [`crate::Strategy::Auto`] runs its branch and bound.
pub const AUTO_EXACT_MAX: usize = 2_000;

/// Why the member did not search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NoSearch {
    /// The input is outside what the search takes (more than one interval a candidate, an
    /// unaligned start, a plan in the CC region, sizes whose sum overflows, storage short,
    /// `auto` past [`AUTO_EXACT_MAX`] candidates, or the plan already at the bound).
    Skipped,
    /// More than [`EXACT_MAX_BUFFERS`] candidates (`exact` only).
    TooMany,
    /// The caller's clock had stopped.
    OutOfTime,
}

/// Runs the branch and bound from the plan in `infos` (its peak `best_peak`, the bound `lb`)
/// with at most `nodes` nodes and `schedule`, stopping on the caller's clock; `exact` also
/// takes inputs of more than [`AUTO_EXACT_MAX`] candidates. Pinned candidates stay at their addresses, obstacles to the others
/// ([`Rules::pinned`]); their list takes the last `⌈p / 4⌉` undo records (fewer records than
/// that: not searched; none left past it: the search recomputes instead of undoing). Returns the outcome (the slots' `best` hold the best plan found, to be
/// put back by the caller where `improved`), or why it did not search.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_exact(
    graph: &Graph,
    infos: &[Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    (lb, best_peak): (u64, u64),
    exact: bool,
    (nodes, schedule): (u64, Schedule),
    budget: &mut Budget<'_>,
) -> Result<ExactOutcome, NoSearch> {
    let n = infos.len();
    let pinned = infos.iter().filter(|i| i.is_pinned()).count();
    let ok = st.slots.len() >= n
        && infos.iter().all(|i| i.interval_count == 1)
        && (exact || n <= AUTO_EXACT_MAX)
        && best_peak <= regions.general_ceiling
        && regions.start.is_multiple_of(regions.align.max(1))
        && stack_top(infos, regions.start).is_some()
        && best_peak > lb
        && st.raises.len() >= pinned.div_ceil(4);
    if !ok {
        return Err(NoSearch::Skipped);
    }
    if n > EXACT_MAX_BUFFERS {
        return Err(NoSearch::TooMany);
    }
    if !(budget.keep_going)() {
        return Err(NoSearch::OutOfTime);
    }
    let g = graph;
    let (by_lo, ids) = (&mut **st.order, &mut **st.heap);
    let count = prepare_loads(infos, |i| interval_of(g, i), regions.start, st.slots, st.sections, by_lo, ids)
        .ok_or(NoSearch::Skipped)?;
    let (slots, secs) = (&mut st.slots[..n], &mut st.sections[..count]);
    // the fixed candidates' list, by address, in the last undo records
    let (raises, tail) = st.raises.split_at_mut(st.raises.len() - pinned.div_ceil(4));
    let list = &mut bytemuck::cast_slice_mut::<Raise, u32>(tail)[..pinned];
    for (k, (v, info)) in infos.iter().enumerate().filter(|(_, i)| i.is_pinned()).enumerate() {
        slots[v].best = info.address;
        list[k] = v as u32;
    }
    list.sort_unstable_by_key(|&v| (slots[v as usize].best, v));
    // each free slot's offset remembered for its minimum offset, in the seed search's spans
    // (unused during the search)
    let keep = if pinned > 0 && st.occupied.len() >= n { n } else { 0 };
    let spans = &mut st.occupied[..keep];
    let memo = Cell::from_mut(bytemuck::cast_slice_mut::<Span, [u64; 2]>(spans)).as_slice_of_cells();
    let rules = Rules { align: &[], pinned: list, memo };
    let mut b = Budget::new(nodes, 0, budget.keep_going);
    let bounds = (regions.start, lb, best_peak, regions.align);
    Ok(branch_and_bound_with(slots, secs, by_lo, ids, raises, bounds, rules, schedule, &mut b))
}

/// Records a branch-and-bound run that searched: where it lowered the peak, its plan goes back
/// into `infos` and `improved_by` marks it; its row gives the peak after it (`unchanged`, bytes,
/// where it found nothing lower), as `rank` gives it (the unpadded peak of padded candidates,
/// [`crate::liveness::buffers`]). Returns that peak.
pub(super) fn record(
    out: &ExactOutcome,
    slots: &[Slot],
    infos: &mut [Info],
    unchanged: u64,
    report: &mut Members,
    rank: &dyn Fn(&[Info], u64) -> u64,
) -> u64 {
    let after = if out.improved {
        restore_best(slots, infos);
        report.improved_by[0] = Some(Member::BranchAndBound);
        rank(infos, peak(infos))
    } else {
        unchanged
    };
    report.push(Member::BranchAndBound, Outcome::Ran { peak: after, work: out.nodes });
    after
}

/// The nodes and schedule of `exact`'s search on after `first` (a run of `auto`'s nodes), out
/// of the caller's `max_nodes`: its rounds from twice `first`'s last node limit, from its proven
/// bound and its bisection's lower end, on the schedule of the rounds past `auto`'s nodes
/// ([`Schedule::planner`]), as one run would have gone on.
pub(super) fn resumed(first: &ExactOutcome, max_nodes: u64) -> (u64, Schedule) {
    let (first_limit, resume) = (first.limit.saturating_mul(2), (first.proven, first.failed));
    (max_nodes.saturating_sub(first.nodes), Schedule { first_limit, resume, ..Schedule::planner(0) })
}
