//! One strategy planned alone, as the single-strategy path and as a row of the `auto`
//! portfolio: the greedy orders with first or best fit (on the address-ordered scan, the
//! lifetime-class index or the tree's queries, whichever the cost model says is cheaper), the
//! seed's simplify order, the time sweep and the skyline.
//! Uses: class_index, clock, cost_model, greedy, scan, sections, seed, skyline_member, sweep,
//! liveness, report, strategy, error; used by: portfolio (its rows and single strategies),
//! repair (the section loads).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::class_index::place_by_class;
use crate::place::clock::Clock;
use crate::place::cost_model::{Estimate, Placer};
use crate::place::greedy::{sort_order, Order};
use crate::place::portfolio::{peak, Storage};
use crate::place::report::Member;
use crate::place::scan::{interval_of, scan};
use crate::place::sections::{prepare_loads, section_totals};
use crate::place::seed::search::Fit;
use crate::place::seed::select::{select, Regions, SelectBuffers};
use crate::place::seed::simplify::simplify;
use crate::place::skyline_member::{run_skyline, Finish};
use crate::place::sweep::sweep;
use crate::strategy::Strategy;

/// The greedy order and gap rule of a member or single strategy.
pub(super) fn greedy_of(s: Strategy) -> Option<(Order, Fit)> {
    Some(match s {
        Strategy::GreedySize => (Order::SizeLife, Fit::First),
        Strategy::BestFit => (Order::SizeLife, Fit::Best),
        Strategy::BestFitStart => (Order::SizeStart, Fit::Best),
        Strategy::GreedyStart => (Order::SizeStart, Fit::First),
        Strategy::GreedyLoad => (Order::LoadLife, Fit::First),
        Strategy::GreedyClass => (Order::ClassStart, Fit::First),
        _ => return None,
    })
}

/// The strategy a member's plan counts as ([`Member::strategy`]).
pub(super) const fn strategy_of(m: Member) -> Strategy {
    m.strategy()
}

/// Places by greedy order `o` with gap rule `fit` (the scan where it is the cheaper placer).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_greedy(
    o: Order,
    fit: Fit,
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    placer: Placer,
    clock: &mut Clock<'_>,
) -> Result<u64, PlanError> {
    // the load order needs the section totals; without them it is the size order
    let o =
        if o == Order::LoadLife && !section_loads(graph, infos, st, regions) { Order::SizeLife } else { o };
    let k = sort_order(o, graph, infos, st.slots, st.scratch, st.order);
    place_in_order(graph, infos, st, k, regions, fit, placer, clock)?;
    Ok(peak(infos))
}

/// Places `st.order[..k]` (first element first) by `fit` with `placer` where it applies and
/// the storage allows it, else by `select`'s tree queries (the same plan); stops with the
/// later buffers unallocated when `clock` says stop.
#[allow(clippy::too_many_arguments)]
pub(super) fn place_in_order(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    k: usize,
    regions: Regions,
    fit: Fit,
    placer: Placer,
    clock: &mut Clock<'_>,
) -> Result<(), PlanError> {
    let n = infos.len();
    match placer {
        Placer::Scan if st.placed.len() >= n => {
            return scan(graph, infos, &st.order[..k], st.placed, st.occupied, regions, fit, clock);
        }
        Placer::Classes => {
            let table: &mut [u32] = bytemuck::cast_slice_mut(st.sections);
            if place_by_class(
                graph,
                infos,
                &st.order[..k],
                st.placed,
                table,
                st.heap,
                st.occupied,
                regions,
                fit,
                clock,
            )? {
                return Ok(());
            }
        }
        _ => {}
    }
    let mut buf = SelectBuffers { scratch: st.scratch, neighbours: st.neighbours, occupied: st.occupied };
    select(graph, infos, &st.order[..k], &mut buf, regions, fit, clock)
}

/// Sets every slot's section total ([`prepare_loads`], which keeps `best`; pinned buffers
/// count in the loads); false where it does not apply (several intervals, short storage).
pub(super) fn section_loads(
    graph: &Graph<'_>,
    infos: &[Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
) -> bool {
    section_loads_asking(graph, infos, st, regions, &mut || true).unwrap_or(false)
}

/// [`section_loads`] that asks `go` between its two steps (the sections and their sort, then
/// the totals: each about 50 ms at 10^6 candidates): `None`, the totals not set, when it
/// said stop.
pub(super) fn section_loads_asking(
    graph: &Graph<'_>,
    infos: &[Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    go: &mut dyn FnMut() -> bool,
) -> Option<bool> {
    if infos.iter().any(|i| i.interval_count != 1) {
        return Some(false);
    }
    match prepare_loads(
        infos,
        |i| interval_of(graph, i),
        regions.start,
        st.slots,
        st.sections,
        st.order,
        st.heap,
    ) {
        Some(count) => {
            if !go() {
                return None;
            }
            section_totals(st.slots, st.sections, count, &st.heap[..infos.len()]);
            Some(true)
        }
        None => Some(false),
    }
}

/// Places with one strategy alone (the single-strategy path and the `auto` rows); returns
/// its peak, `None` when a budgeted skyline did not apply or stopped before a plan. When
/// `clock` says stop the plan is incomplete (the caller checks [`Clock::stopped`]; the
/// skyline asks it directly).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_single(
    s: Strategy,
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    est: &Estimate,
    mut max_rekeys: u64,
    clock: &mut Clock<'_>,
) -> Result<Option<u64>, PlanError> {
    if let Some((o, fit)) = greedy_of(s) {
        return run_greedy(o, fit, graph, infos, st, regions, est.placer, clock).map(Some);
    }
    match s {
        Strategy::Seed => {
            let k = simplify(graph, infos, st.scratch, st.heap, st.order)?;
            st.order[..k].reverse();
            place_in_order(graph, infos, st, k, regions, Fit::First, est.placer, clock)?;
            Ok(Some(peak(infos)))
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
                st.neighbours,
                st.lookahead,
                regions,
                Fit::First,
                clock,
            )? {
                return Ok(Some(peak(infos)));
            }
            run_greedy(Order::SizeLife, Fit::First, graph, infos, st, regions, est.placer, clock).map(Some)
        }
        Strategy::Skyline => {
            let mut none = Finish { settle: false, left: 0, per_buffer: 0, cutoff: 0..0, above: None };
            let mut ask = || clock.ask_now();
            match run_skyline(graph, infos, st, regions, &[0, 1, 2], &mut max_rekeys, &mut none, &mut ask)? {
                Some(p) => Ok(Some(p)),
                // where the skyline does not apply, `greedy-size` (the strategy's documented fallback)
                None => run_greedy(Order::SizeLife, Fit::First, graph, infos, st, regions, est.placer, clock)
                    .map(Some),
            }
        }
        // the portfolios are not single strategies
        _ => Ok(None),
    }
}
