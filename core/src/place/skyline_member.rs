//! The skyline members of the portfolio: when the skyline applies, its runs over the
//! preorders under a re-key budget, and how a capped run finishes (by first fit, and the
//! seed's retry of the buffers above the general region's ceiling).
//! Uses: sections, skyline, seed (select), liveness, error; used by: portfolio.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::portfolio::{peak, stack_top, Storage};
use crate::place::scan::interval_of;
use crate::place::sections::{prepare_loads, UNPLACED};
use crate::place::seed::search::Fit;
use crate::place::seed::select::{place_among_neighbours, Regions, SelectBuffers};
use crate::place::skyline::{skyline, Stop};

/// Whether the skyline rule can place these candidates: at least one, all with one
/// interval, an aligned start, storage of at least n (what [`prepare_loads`] needs as well),
/// and sizes whose sum does not overflow `u64`, nor the highest pinned top plus the free
/// candidates' sizes ([`skyline_reach`]). Pinned candidates stay where they are, the
/// skyline raised over them ([`crate::place::skyline::skyline`]).
pub(super) fn skyline_applies(infos: &[Info], st: &Storage<'_, '_>, regions: Regions) -> bool {
    let n = infos.len();
    n > 0
        && st.slots.len() >= n
        && st.sections.len() >= n
        && st.scratch.len() >= n
        && st.placed.len() >= n
        && regions.start.is_multiple_of(regions.align.max(1))
        && st.order.len() >= n
        && st.heap.len() >= n
        && infos.iter().all(|i| i.interval_count == 1)
        && stack_top(infos, regions.start).is_some()
        && skyline_reach(infos, regions.start).is_some()
}

/// The highest top the skyline can give a free candidate (bytes): the highest pinned top (or
/// `start`) plus every free candidate's aligned size, as the skyline goes above every pinned
/// buffer live with it. `None` when that overflows `u64`: the skyline does not apply there
/// (a fresh-user trial: a pinned buffer ending 4 KiB below 2^64 and a free one live with it
/// gave a plan past 2^64, reported as a success).
pub(crate) fn skyline_reach(infos: &[Info], start: u64) -> Option<u64> {
    let mut pinned = infos.iter().filter(|i| i.is_pinned());
    let base = pinned.try_fold(start, |top, i| Some(top.max(i.address.checked_add(i.aligned)?)))?;
    infos.iter().filter(|i| !i.is_pinned()).try_fold(base, |top, i| top.checked_add(i.aligned))
}

/// Places by the skyline rule ([`crate::place::skyline`]), keeping the best of the preorders `hs`
/// (ties: the first), all of them together stopped after `*max_rekeys` re-keys (counted
/// down, in steps of [`crate::place::skyline::CHECK_EVERY`]; a preorder
/// that reaches the cap is dropped) or when `keep_going` says so; returns its peak, or
/// `None` where it does not apply (a candidate with several intervals or pinned, an
/// unaligned start, storage shorter than n, sizes whose sum overflows `u64`) or every run
/// stopped.
///
/// Where the peak passes the general region's ceiling, the buffers above it are retried as
/// `select` retries them ([`retry_above_ceiling`]: below the ceiling, else in the CC region;
/// `None` when `keep_going` stops that retry).
///
/// # Errors
/// [`PlanError::DoesNotFit`] from that retry.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_skyline(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    hs: &[usize],
    max_rekeys: &mut u64,
    finish: &mut Finish,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Option<u64>, PlanError> {
    let n = infos.len();
    if !skyline_applies(infos, st, regions) {
        return Ok(None);
    }
    let mut best: Option<u64> = None;
    for &h in hs {
        let left = *max_rekeys;
        let (by_lo, ids) = (&mut **st.order, &mut **st.heap);
        let Some(count) =
            prepare_loads(infos, |i| interval_of(graph, i), regions.start, st.slots, st.sections, by_lo, ids)
        else {
            return Ok(None);
        };
        let slots = &mut st.slots[..n];
        // a pinned buffer stays where it is: the skyline starts raised over it
        for (slot, info) in slots.iter_mut().zip(infos.iter()).filter(|(_, i)| i.is_pinned()) {
            slot.at = info.address;
        }
        let mut used = 0u64;
        let run = skyline(
            slots,
            st.sections,
            count,
            by_lo,
            st.placed,
            st.scratch,
            h,
            regions.start,
            left,
            finish.settle,
            finish.cutoff.clone(),
            &mut || {
                used += crate::place::skyline::CHECK_EVERY;
                keep_going()
            },
        );
        *max_rekeys = left.saturating_sub(used);
        let peak = match run {
            Ok(peak) => peak,
            // at its re-key limit, and nothing better kept yet: the buffers it placed stay,
            // the rest go by first fit in preorder rank (the gaps under the skyline included)
            Err(Stop::Capped) if best.is_none() => {
                if !complete_by_first_fit(graph, infos, st, regions, finish, keep_going)? {
                    continue; // no budget to finish it
                }
                let p = peak(infos);
                best = Some(p);
                continue;
            }
            // a buffer ended at or above the best plan's peak: this preorder cannot win
            Err(Stop::Above(top)) => {
                // the free buffers it placed (pinned ones are where they were)
                let placed = slots
                    .iter()
                    .zip(infos.iter())
                    .filter(|(s, i)| s.at != UNPLACED && !i.is_pinned())
                    .count() as u64;
                finish.above.get_or_insert((top, placed));
                continue;
            }
            Err(_) => continue, // stopped by the caller, or nothing to keep
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
        return retry_above_ceiling(graph, infos, st, regions, keep_going);
    }
    Ok(Some(peak))
}

/// Completes a skyline run stopped at its re-key limit: its placed slots' addresses go to
/// `infos`, and the unplaced candidates are placed by first fit
/// ([`crate::place::seed::select::place_one`]) among everything placed, in preorder rank.
///
/// # Errors
/// [`PlanError::DoesNotFit`] from `place_one`.
fn complete_by_first_fit(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    finish: &mut Finish,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<bool, PlanError> {
    let unplaced = st.slots[..infos.len()].iter().filter(|s| s.at == UNPLACED).count() as u64;
    let cost = finish.per_buffer.saturating_mul(unplaced);
    if cost > finish.left {
        return Ok(false);
    }
    finish.left -= cost;
    let mut k = 0usize;
    for (v, (info, slot)) in infos.iter_mut().zip(st.slots.iter()).enumerate() {
        if slot.at == UNPLACED {
            info.allocated = 0;
            st.order[k] = v as u32;
            k += 1;
        } else {
            info.address = slot.at;
            info.allocated = 1;
        }
    }
    st.order[..k].sort_unstable_by_key(|&v| st.slots[v as usize].rank);
    // the free buffers the skyline placed before it stopped
    let before = infos.iter().filter(|i| i.is_allocated() && !i.is_pinned()).count();
    let mut cut = Cut { within: finish.cutoff.clone(), above: None };
    let done = place_each(graph, infos, st, k, regions, &mut cut, keep_going)?;
    if let Some((top, placed)) = cut.above {
        // the buffers it did not place give their units back
        finish.left += finish.per_buffer * (k as u64 - placed);
        finish.above.get_or_insert((top, before as u64 + placed));
    }
    Ok(done)
}

/// Where [`place_each`] stops: a buffer ending inside `within` (bytes; `0..0`: never) stops it,
/// and `above` then holds that buffer's top and how many of the list it had placed.
struct Cut {
    within: core::ops::Range<u64>,
    above: Option<(u64, u64)>,
}

/// How a skyline run stopped at its re-key limit finishes its plan: by settling (cheap, in
/// the run) or by first fit with at most `left` units at `per_buffer` each (a greedy pass's
/// estimate over n).
pub(crate) struct Finish {
    /// Settle instead of stopping.
    pub(crate) settle: bool,
    /// Units left for a first-fit completion.
    pub(crate) left: u64,
    /// Units per buffer placed by first fit.
    pub(crate) per_buffer: u64,
    /// Tops (bytes) that stop a run ([`crate::place::skyline::skyline`]'s `cutoff`): from
    /// the best peak so far up to the general region's ceiling; `0..0` for none.
    pub(crate) cutoff: core::ops::Range<u64>,
    /// The first run stopped by `cutoff`: the top that stopped it and the free buffers it had
    /// placed.
    pub(crate) above: Option<(u64, u64)>,
}

/// Places `st.order[..k]` (unallocated, first element first) one by one by first fit among
/// every allocated candidate, leaving the others where they are; `false` (some left
/// unallocated) when `keep_going` says stop (asked every 256 buffers) or a buffer ends inside
/// `cut` (recorded there).
///
/// # Errors
/// [`PlanError::DoesNotFit`] from `place_one`.
fn place_each(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    k: usize,
    regions: Regions,
    cut: &mut Cut,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<bool, PlanError> {
    for (done, &v) in st.order[..k].iter().enumerate() {
        if done % 256 == 255 && !keep_going() {
            return Ok(false);
        }
        let mut buf = SelectBuffers { scratch: st.scratch, neighbours: st.neighbours, occupied: st.occupied };
        place_among_neighbours(graph, infos, v, &mut buf, regions, Fit::First)?;
        let top = infos[v as usize].end();
        if cut.within.contains(&top) {
            cut.above = Some((top, done as u64 + 1));
            return Ok(false);
        }
    }
    Ok(true)
}

/// The seed's second `search` for a plan made without it (the skyline's): every buffer
/// ending above the general region's ceiling is lifted out and placed again, lowest first,
/// by [`crate::place::seed::select::place_one`] among all the others (first fit below the
/// ceiling, else in the CC region). Returns the new peak, `None` when `keep_going` (asked
/// every 256 buffers) said stop first.
///
/// # Errors
/// [`PlanError::DoesNotFit`] from `place_one`, naming the buffer, the end first fit would
/// need and the largest gap it saw.
fn retry_above_ceiling(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Option<u64>, PlanError> {
    let mut k = 0usize;
    for (v, info) in infos.iter_mut().enumerate() {
        if !info.is_pinned() && info.end() > regions.general_ceiling {
            info.allocated = 0;
            st.order[k] = v as u32;
            k += 1;
        }
    }
    st.order[..k].sort_unstable_by_key(|&v| (infos[v as usize].address, v));
    let mut never = Cut { within: 0..0, above: None };
    Ok(place_each(graph, infos, st, k, regions, &mut never, keep_going)?.then(|| peak(infos)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate of `aligned` bytes, pinned at `at` where given.
    fn info(aligned: u64, at: Option<u64>) -> Info {
        Info { aligned, address: at.unwrap_or(0), pinned: u8::from(at.is_some()), ..Info::default() }
    }

    /// The highest pinned top (or the start) plus the free sizes, `None` past `u64::MAX`.
    #[test]
    fn the_reach_is_the_highest_pinned_top_plus_the_free_sizes() {
        let top = u64::MAX - 8192;
        assert_eq!(
            skyline_reach(&[info(4096, Some(top - 4096)), info(4096, None)], 0),
            Some(u64::MAX - 4096)
        );
        assert_eq!(skyline_reach(&[info(4096, Some(top - 4095)), info(8192, None)], 0), None);
        assert_eq!(
            skyline_reach(&[info(10, Some(0)), info(4, Some(100)), info(5, None), info(6, None)], 64),
            Some(115)
        );
        assert_eq!(skyline_reach(&[info(10, Some(0)), info(5, None)], 64), Some(69));
        assert_eq!(skyline_reach(&[info(8, Some(u64::MAX - 8)), info(0, None)], 0), Some(u64::MAX));
        assert_eq!(skyline_reach(&[info(8, Some(u64::MAX - 7))], 0), None);
        assert_eq!(skyline_reach(&[], 7), Some(7));
    }
}
