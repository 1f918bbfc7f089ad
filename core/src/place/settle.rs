//! Settling a plan down: every unpinned buffer slid to the floor of its region, an
//! interfering neighbour's end or a page boundary, the peak never higher.
//! Uses: liveness, portfolio (Storage), repair (Work, out_of_work, TREE_VISIT_UNITS), seed
//! (place_in_gap), error; used by: repair (after a kept window), sweep_two_ended (its whole plan).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::portfolio::Storage;
use crate::place::repair::{out_of_work, Work, TREE_VISIT_UNITS};
use crate::place::seed::search::{place_in_gap, Span};
use crate::place::seed::select::Regions;

/// Slides every unpinned buffer at or above address `from` down until it touches the floor
/// of its region or an interfering neighbour's end (a one-page buffer: the page boundary at
/// or above that), in ascending address order, while `work` lasts and (asked every 256
/// buffers) the caller's clock says go on.
///
/// A kept window moves buffers away from below others outside the window, which then hang
/// above a hole: still a valid plan, but not the seed's (every address the floor, a
/// neighbour's end or a page boundary). One pass suffices: a buffer's neighbours below it
/// come earlier in the pass and are final when it is settled, and those above it end above
/// its address. Each move is down, into space no neighbour holds, so the plan stays valid and
/// the peak never rises. A buffer in the CC region (at or above the general ceiling) stays
/// in it. Cost: one neighbour query per buffer at or above `from`
/// ([`TREE_VISIT_UNITS`] a neighbour), plus the sort of those buffers by address.
///
/// # Errors
/// Only a tree-query error ([`PlanError::Capacity`]), impossible with full storage.
pub(crate) fn settle(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    from: u64,
    work: &mut Work<'_>,
) -> Result<(), PlanError> {
    // (address, candidate) records, sorted in place: at 10^6 buffers a sort through the
    // candidates' own records costs a cache miss a comparison
    let mut k = 0usize;
    for (c, info) in infos.iter().enumerate() {
        if info.address >= from && !info.is_pinned() {
            st.occupied[k] = Span { lo: info.address, hi: c as u64 };
            k += 1;
        }
    }
    let sorted = &mut st.occupied[..k];
    sorted.sort_unstable();
    for (done, rec) in sorted.iter().enumerate() {
        if out_of_work(work, done) {
            break; // the buffers not reached stay where they are: the plan is valid
        }
        let c = rec.hi as u32;
        let info = infos[c as usize];
        let floor =
            if info.address >= regions.general_ceiling { regions.general_ceiling } else { regions.start };
        let mut top = floor;
        let mut seen = 0u64;
        graph.for_each_neighbour(c, infos, st.scratch, |u, _| {
            let end = infos[u as usize].end();
            if end <= info.address {
                top = top.max(end);
            }
            seen += 1;
        })?;
        work.left = work.left.saturating_sub(TREE_VISIT_UNITS * (seen + 1));
        if let Some(a) = place_in_gap(top, info.end(), info.aligned, regions.align) {
            infos[c as usize].address = a.min(info.address);
        }
    }
    Ok(())
}

/// Settles every unpinned buffer ([`settle`] from address 0) with no work limit, while
/// `clock` says go on: a whole plan made by another placer (the two-ended sweep's, whose
/// buffers rest against a ceiling) becomes one whose every address is the floor, a
/// neighbour's end or a page boundary, its peak no higher. Cost: one neighbour query per
/// buffer and the sort. Where the clock says stop first ([`Clock::stopped`] is then true),
/// the buffers not reached stay where they are, a valid plan: at 10^6 buffers the settle
/// took seconds, and without the clock the two-ended sweep's row ran a 5 s
/// `--time-limit` to 6.3 s (a whole-issue finding, 2026-12-06).
///
/// # Errors
/// As [`settle`].
pub(crate) fn settle_all(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    clock: &mut Clock<'_>,
) -> Result<(), PlanError> {
    let mut go = || clock.ask_now();
    let mut work = Work::new(u64::MAX, &mut go);
    settle(graph, infos, st, regions, 0, &mut work)
}
