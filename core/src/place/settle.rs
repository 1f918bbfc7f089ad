//! Settling a plan down: every unpinned buffer slid to the floor of its region, an
//! interfering neighbour's end or a page boundary, the peak never higher.
//! Uses: liveness, portfolio (Storage), repair (Work, out_of_work, TREE_VISIT_UNITS), seed
//! (place_in_gap), error; used by: repair (after a kept window), sweep_two_ended (its whole plan).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::portfolio::Storage;
use crate::place::repair::{out_of_work, section_load_units, Work, TREE_VISIT_UNITS};
use crate::place::scan::interval_of;
use crate::place::sections::prepare_loads;
use crate::place::seed::search::{place_in_gap, Span};
use crate::place::seed::select::Regions;
use crate::place::skyline::Skyline;

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
/// in it. Cost: where half the buffers or more settle, the storage holds the sections' tree
/// ([`settle_by_sections`]) and `work` has [`section_load_units`] left, those units (the sections, the sort of every
/// buffer by address and O(log s) a buffer); otherwise one neighbour query per buffer at or
/// above `from` ([`TREE_VISIT_UNITS`] a neighbour), plus the sort of those buffers by address.
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
    // the sections' tree where the storage holds it and the work left pays for it: O(log s) a
    // buffer, where a neighbour query's cost is not bounded by the neighbours it finds (a
    // generated problem with heavy-tailed lifetimes, 2026-12-07: 250,931 buffers settled in
    // 5.4 s for 100.6 M units charged, 9.8 M neighbours found)
    // (where half the buffers or more settle: the queries cost at least a descent of log2 n
    // each, so the tree's n log2 n is at most twice their least, and it is bounded)
    let n = infos.len();
    let k = infos.iter().filter(|i| i.address >= from && !i.is_pinned()).count();
    let cost = section_load_units(n);
    if 2 * k >= n && cost <= work.left {
        let left = work.left;
        let mut go = || work.go();
        if settle_by_sections(graph, infos, st, regions, from, &mut go) {
            work.left = left - cost;
            return Ok(());
        }
    }
    settle_by_queries(graph, infos, st, regions, from, work)
}

/// [`settle`] by one neighbour query a buffer at or above `from`, while `work` lasts.
fn settle_by_queries(
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
        let mut below = 0;
        let mut seen = 0u64;
        graph.for_each_neighbour(c, infos, st.scratch, |u, _| {
            let end = infos[u as usize].end();
            if end <= info.address {
                below = below.max(end);
            }
            seen += 1;
        })?;
        work.left = work.left.saturating_sub(TREE_VISIT_UNITS * (seen + 1));
        infos[c as usize].address = settled_at(&info, below, regions);
    }
    Ok(())
}

/// Where an unpinned buffer settles, `below` the highest end under it among its neighbours:
/// the lowest address from there, or from its region's floor (the CC region's for a buffer at
/// or above the general ceiling), under the seed's page rule ([`place_in_gap`]), never above
/// its address now.
fn settled_at(info: &Info, below: u64, regions: Regions) -> u64 {
    let floor = if info.address >= regions.general_ceiling { regions.general_ceiling } else { regions.start };
    place_in_gap(floor.max(below), info.end(), info.aligned, regions.align)
        .map_or(info.address, |a| a.min(info.address))
}

/// Settles every unpinned buffer ([`settle`] from address 0) with no work limit, while
/// `clock` says go on: a whole plan made by another placer (the two-ended sweep's, whose
/// buffers rest against a ceiling) becomes one whose every address is the floor, a
/// neighbour's end or a page boundary, its peak no higher. Cost: the sort and O(log s) a
/// buffer ([`settle_by_sections`]), or one neighbour query a buffer where the storage is too
/// short for the sections' tree. Where the clock says stop first ([`Clock::stopped`] is then true),
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
    if settle_by_sections(graph, infos, st, regions, 0, &mut || clock.ask_now()) {
        return Ok(());
    }
    let mut go = || clock.ask_now();
    let mut work = Work::new(u64::MAX, &mut go);
    settle(graph, infos, st, regions, 0, &mut work)
}

/// [`settle`] from address 0 with the neighbours' ends kept in a segment tree over the time
/// sections ([`Skyline`]: range chmax, range max) instead of a neighbour query a buffer: in
/// ascending address order every buffer settled before one is below it (in a valid plan a
/// lower buffer live with it ends at or below its address, and settling only lowers it), and
/// every later one ends above its address, so the highest end below it among its neighbours
/// is the tree's maximum over its sections, O(log s) instead of O(its neighbours). The same
/// addresses as [`settle`] (a unit test compares them); pinned buffers stay, their ends in the
/// tree. At 10^6 `short` rows the neighbour queries took 5.7 s, 58 % of a 10 s plan, where
/// the long-lived buffers have thousands of neighbours each. Returns `false` (nothing moved)
/// where a candidate has several intervals or a slice is shorter than n; stops where `go`
/// says so (asked every 256 buffers), the buffers not reached where they were. Only the
/// buffers at or above address `from` move (those below it only hold their ends in the
/// tree), as in [`settle`] from there.
fn settle_by_sections(
    graph: &Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    from: u64,
    go: &mut dyn FnMut() -> bool,
) -> bool {
    let n = infos.len();
    let holds = n > 0
        && st.occupied.len() >= n
        && st.scratch.len() >= n
        && infos.iter().all(|i| i.interval_count == 1);
    if !holds {
        return false;
    }
    let interval = |i: &Info| interval_of(graph, i);
    let Some(count) = prepare_loads(infos, interval, 0, st.slots, st.sections, st.order, st.heap) else {
        return false;
    };
    let Some(mut sky) = Skyline::flat(st.sections, st.scratch, count) else {
        return false;
    };
    // (address, candidate) records, pinned ones too (they stay, their ends in the tree)
    for (c, info) in infos.iter().enumerate() {
        st.occupied[c] = Span { lo: info.address, hi: c as u64 };
    }
    let sorted = &mut st.occupied[..n];
    sorted.sort_unstable();
    for (done, rec) in sorted.iter().enumerate() {
        if done % 256 == 255 && !go() {
            break; // the buffers not reached stay where they are: the plan is valid
        }
        let c = rec.hi as usize;
        let (lo, hi) = (st.slots[c].lo as usize, st.slots[c].hi as usize + 1);
        if !infos[c].is_pinned() && infos[c].address >= from {
            infos[c].address = settled_at(&infos[c], sky.max(lo, hi), regions);
        }
        sky.chmax(lo, hi, infos[c].end());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{settle, settle_by_queries, settle_by_sections};
    use crate::liveness::info::Info;
    use crate::liveness::interference::Graph;
    use crate::liveness::interval_tree::Node;
    use crate::place::lent_storage::Lent;
    use crate::place::repair::Work;
    use crate::place::seed::select::Regions;

    const N: usize = 48;

    /// Which settle [`on_plan`] runs.
    #[derive(Clone, Copy)]
    enum How {
        /// [`settle_by_queries`] from address 0.
        Queries,
        /// [`settle_by_sections`] from address 0.
        Sections,
        /// [`settle`] from this address.
        From(u64),
    }

    /// Settles `plan` (`(lo, hi, aligned, address, pinned)` per buffer) as `how` says, with
    /// unbounded work; the addresses after it and the units charged (0 for the sections alone).
    fn on_plan(plan: &[(u32, u32, u64, u64, bool)], how: How, regions: Regions) -> ([u64; N], u64) {
        let n = plan.len();
        let mut nodes: [Node; N] = core::array::from_fn(|k| {
            let (lo, hi, ..) = plan.get(k).copied().unwrap_or_default();
            Node::new(lo, hi, k as u32)
        });
        let mut infos: [Info; N] = core::array::from_fn(|k| {
            let (_, _, aligned, address, pinned) = plan.get(k).copied().unwrap_or_default();
            let pinned = u8::from(pinned);
            Info {
                aligned,
                address,
                allocated: 1,
                interval_count: 1,
                location: k as u32,
                pinned,
                ..Info::default()
            }
        });
        let infos = &mut infos[..n];
        let mut ids = [0u32; N * N];
        let mut graph = Graph::build(&mut nodes[..n], &mut ids, infos);
        let mut go = || true;
        let mut work = Work::new(u64::MAX, &mut go);
        Lent::<N>::new().with(|st| match how {
            How::Sections => assert!(settle_by_sections(&graph, infos, st, regions, 0, &mut || true)),
            How::Queries => settle_by_queries(&mut graph, infos, st, regions, 0, &mut work).unwrap(),
            How::From(from) => settle(&mut graph, infos, st, regions, from, &mut work).unwrap(),
        });
        (core::array::from_fn(|k| infos.get(k).map_or(0, |i| i.address)), work.used())
    }

    /// The addresses after [`on_plan`] by the neighbour queries (`by_sections` false) or by the
    /// sections' tree.
    fn settled(plan: &[(u32, u32, u64, u64, bool)], by_sections: bool, regions: Regions) -> [u64; N] {
        on_plan(plan, if by_sections { How::Sections } else { How::Queries }, regions).0
    }

    /// [`settle`] of `plan` from address `from`: the addresses after it and the units charged.
    fn settle_from(plan: &[(u32, u32, u64, u64, bool)], from: u64) -> ([u64; N], u64) {
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
        on_plan(plan, How::From(from), regions)
    }

    /// Four 8-byte buffers live together at 0, 100, 200 and 300. From address 0 all four settle
    /// (half or more): by the sections' tree, charged `10 n log2 n` = 10 · 4 · 3 = 120 units;
    /// from 150 two do, the same way; from 250 only the top one does (fewer than half): by
    /// its neighbour query, 10 units a neighbour and 10 for the buffer, 40. Ten, five of them
    /// settling: exactly half, by the tree.
    #[test]
    fn the_settle_goes_by_the_sections_where_half_the_buffers_or_more_settle() {
        let plan = [(0, 9, 8, 0, false), (0, 9, 8, 100, false), (0, 9, 8, 200, false), (0, 9, 8, 300, false)];
        let (at, used) = settle_from(&plan, 0);
        assert_eq!((&at[..4], used), (&[0, 8, 16, 24][..], 120));
        assert_eq!(crate::place::repair::section_load_units(4), 120);
        let (at, used) = settle_from(&plan, 150);
        assert_eq!((&at[..4], used), (&[0, 100, 108, 116][..], 120));
        let (at, used) = settle_from(&plan, 250);
        assert_eq!((&at[..4], used), (&[0, 100, 200, 208][..], 40));
        // ten, five of them from 450 up: exactly half, by the tree (10 · 10 · 4 = 400 units;
        // the queries would be charged 5 · 10 · (9 + 1) = 500)
        let ten: [(u32, u32, u64, u64, bool); 10] =
            core::array::from_fn(|k| (0, 9, 8, 100 * k as u64, false));
        let (at, used) = settle_from(&ten, 450);
        assert_eq!((&at[..10], used), (&[0, 100, 200, 300, 400, 408, 416, 424, 432, 440][..], 400));
    }

    /// 300 one-instant buffers, each alone in time at address `1000 + k`: every one would
    /// settle to 0. The sections' settle asks its clock once every 256 buffers, at the 256th
    /// in address order, and stops there when told: the 255 before it are at 0, the other 45
    /// where they were. Told to go on, all 300 settle, the clock asked once.
    #[test]
    fn the_sections_settle_asks_its_clock_every_256_buffers() {
        const M: usize = 300;
        let run = |answer: bool| {
            let mut nodes: [Node; M] = core::array::from_fn(|k| Node::new(k as u32, k as u32, k as u32));
            let mut infos: [Info; M] = core::array::from_fn(|k| Info {
                aligned: 8,
                address: 1000 + k as u64,
                allocated: 1,
                interval_count: 1,
                location: k as u32,
                ..Info::default()
            });
            let mut ids = [0u32; M];
            let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
            let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
            let mut asked = 0;
            let mut go = || {
                asked += 1;
                answer
            };
            let done =
                Lent::<M>::new().with(|st| settle_by_sections(&graph, &mut infos, st, regions, 0, &mut go));
            assert!(done);
            (infos.map(|i| i.address), asked)
        };
        let (stopped, asked) = run(false);
        assert_eq!(asked, 1);
        assert!(stopped[..255].iter().all(|&a| a == 0), "{:?}", &stopped[..255]);
        assert_eq!(stopped[255..], core::array::from_fn::<u64, 45, _>(|k| 1255 + k as u64));
        let (all, asked) = run(true);
        assert_eq!((all, asked), ([0; M], 1));
    }

    /// On 500 random valid plans with holes (each buffer on a row of its own, 1–3 rows of
    /// 64 bytes high apart; a tenth pinned; pages of 1, 16 and 64 bytes; a CC region above
    /// 2,048 bytes), the tree's settle moves every buffer where the neighbour queries do.
    #[test]
    fn the_sections_settle_matches_the_neighbour_queries() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut moved = 0;
        for case in 0..500 {
            let n = 1 + next(N as u64) as usize;
            let align = [1, 16, 64][case % 3];
            let mut row = 0u64;
            let all: [(u32, u32, u64, u64, bool); N] = core::array::from_fn(|_| {
                let lo = next(40) as u32;
                row += 1 + next(3);
                let size = (1 + next(64)).div_ceil(align) * align;
                (lo, lo + next(12) as u32, size.min(64), row * 64, next(10) == 0)
            });
            let plan = &all[..n];
            let regions = Regions { start: 0, general_ceiling: 2048, window: 1 << 20, align };
            let (a, b) = (settled(plan, false, regions), settled(plan, true, regions));
            assert_eq!(a, b, "case {case}");
            moved += plan.iter().zip(&a).filter(|(p, &at)| p.3 != at).count();
        }
        assert!(moved > 5_000, "{moved}");
    }
}
