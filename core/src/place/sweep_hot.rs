//! The sweep around the hot: the buffers live where the load is highest placed first in
//! `greedy-load`'s order, then every other buffer by the time sweep around them.
//! Uses: sections (through single: the loads), sweep_long (the sweep around a first set),
//! portfolio (Storage, peak), report (Member), error, liveness, workspace; used by: portfolio
//! (its row, the share it runs with).
//!
//! `greedy-load` (first fit in order of each buffer's largest load over its lifetime, then
//! lifetime) packs the buffers live at the max-load instant first, contiguously from the
//! floor, then those of the next-highest sections around them. On generated inputs of 10^5
//! buffers it often reaches the max-load bound where every other member is above it, but it
//! is a greedy pass, O(E) in the interfering pairs, out of the work budget at 10^6. Its
//! peak is decided by the buffers that live where the load is high: a buffer that lives
//! only at instants of low load can go almost anywhere without raising it. So this member
//! places the `n >> s` buffers first in that order (the *hot* set: the largest loads over
//! their lifetimes), among themselves only, by first fit (through a lifetime-class index
//! holding only them, or the address-ordered scan where the hot set is dense:
//! `place/first_set.rs`), and sweeps the rest (*cold*) around them in def order
//! ([`crate::place::sweep_long::sweep_first`] with [`First::Hot`]: the same machinery as the
//! sweep around the long-lived, another first set and order).
//!
//! Measured in a standalone model before it was built (2026-12-06, `dramalloc generate`
//! files of 10^5 and 10^6 rows, peak / max-load bound): with every buffer whose largest load
//! is at least 0.6–0.8 of the bound in the hot set, the plan's peak was `greedy-load`'s own
//! on `mixed`, `short` and `long-tail` at 10^5 (1.0000, 1.0547, 1.0355): the cold buffers
//! added nothing to it. Ordering the hot set by size instead was worse on all five files
//! tried (1.07–1.23). The hot set is a share of the buffers, not a load threshold, so its
//! cost is known before it runs (the portfolio's estimate).
//!
//! **Sized to the budget** (2026-12-07). Where the row would make `auto`'s first plan and the
//! 1/8 hottest, with the sweep's estimate kept beside them, are over the budget left, the
//! portfolio runs it with the largest smaller share that fits, down to 1/64
//! ([`MAX_HOT_SHARE`], `sized_hot_set`); the report names the share
//! (`sweep-hot/16`). At 10^6 rows planned as two time sections, each section's row then runs
//! (1/16 to 1/64) where the 1/8 was skipped for its budget and the sweep made the plan.
//!
//! **The hot set's pairs are counted** before its greedy pass (O(h log h) for h hot buffers):
//! the portfolio's estimate assumes an eighth of the interfering pairs, and a hot set that is
//! a clique holds about all of them (a try-and-break run's cliques of n/8 to n/16 buffers took
//! this row 2.3–7.2 s against an estimate of about 0.3–0.7 s). With the count the estimate is
//! made again ([`crate::place::cost_model::Estimate::sweep_hot_with`]); where it is more than
//! the row may spend, the row stops there, charged its set-up, and the portfolio goes on.
//!
//! Complexity: the section loads O(n log n), the selection of the hot set O(n), their greedy
//! pass as the cheaper of a class-index pass and a scan over them, the sweep O(n log n + n · d); no heap allocation.
//! Storage: the sweep around the long-lived's, and the search slots (one per candidate) for
//! the loads.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::cost_model::{Cost, Estimate, HOT_LOAD_UNITS};
use crate::place::portfolio::{peak, Storage};
use crate::place::report::Member;
use crate::place::seed::select::Regions;
use crate::place::single::section_loads_asking;
use crate::place::sweep_long::{hot_key, sweep_first, First, Lent};
use crate::workspace::Slot;
use core::cmp::Reverse;

/// Places by the sweep around the `n >> share` hottest candidates (see the module docs);
/// `None` where it does not apply (several intervals per candidate, short storage, no
/// unpinned candidate) or where `clock` said stop before the loads were known; an incomplete
/// plan when `clock` says stop later (the caller checks [`Clock::stopped`]). Overwrites the
/// slots' section fields and totals (not their `best`).
///
/// # Errors
/// [`PlanError::DoesNotFit`] from its placement.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_sweep_hot(
    share: u8,
    graph: &Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    clock: &mut Clock<'_>,
    affordable: &dyn Fn(u64) -> Result<u64, u64>,
    counted: &mut Option<Result<u64, u64>>,
) -> Result<Option<u64>, PlanError> {
    let n = infos.len();
    // (short slots or order: the loads decline, `Some(false)`)
    match section_loads_asking(graph, infos, st, regions, &mut || clock.ask_now()) {
        Some(true) => {}
        Some(false) | None => return Ok(None),
    }
    let order = &mut **st.order;
    let mut m = 0usize;
    for (v, info) in infos.iter().enumerate() {
        if !info.is_pinned() {
            order[m] = v as u32;
            m += 1;
        }
    }
    let hot = (n >> share).min(m);
    if hot == 0 {
        return Ok(None);
    }
    let loads: &[Slot] = st.slots;
    let at_least = hot_key(loads, hot_last(&mut order[..m], loads, hot));
    // the hot set's pairs counted, not assumed: where they make the row dearer than it may
    // be, it stops here, before its greedy pass
    let cost = affordable(hot_pairs(&order[..hot], loads, &mut st.heap[..hot]));
    *counted = Some(cost);
    if cost.is_err() {
        return Ok(None);
    }
    let first = First::Hot { loads, at_least };
    let lent = Lent { pinned: st.neighbours, lookahead: st.lookahead };
    Ok(sweep_first(
        graph,
        infos,
        first,
        order,
        st.heap,
        st.placed,
        st.occupied,
        st.sections,
        Some(lent),
        regions,
        clock,
    )?
    .then(|| peak(infos)))
}

/// Whether the row may spend `cost` of the `left` units: as the first plan (`first`), which
/// the clock does not stop, only what leaves the sweep's estimate (the sweep after it makes a
/// plan where it did not); the portfolio asks before the row starts, with its estimate, and
/// the row again once it has counted its hot set's pairs.
pub(super) fn affords(cost: u64, left: u64, first: bool, est: &Estimate) -> bool {
    let keep = if first { est.cost(Cost::Sweep) } else { 0 };
    cost.saturating_add(keep) <= left
}

/// The smallest hot set the sweep around the hot is sized to (`sized_hot_set`): `n >>
/// MAX_HOT_SHARE` (1/64) of the buffers. Below it the row saves little (its estimate is mostly
/// the sweep's and the section loads', `18 n log2 n`: on 10^6 generated `long-tail` buffers
/// 621 million units at 1/64 against 582 at 1/256 and 1,082 at 1/8) and loses what placing the
/// hot first gained (the same input, one thread: 1.0312 × the bound from 1/8 to 1/256,
/// 1.0776 at 1/1024, 1.0905 at 1/8192, the sweep 1.1609).
pub const MAX_HOT_SHARE: u8 = 6;

/// The row `(member, cost)` as it runs: as it is, but for the sweep around the hot where it
/// would make the first plan (`first`), no greedy pass fits in the budget `left` (so it is
/// not [`crate::place::report::Outcome::Covered`]) and its share of the buffers, with the
/// sweep's estimate after it, is more than `left`: then the largest smaller share (1/16,
/// 1/32, 1/64: [`MAX_HOT_SHARE`])
/// that fits with the sweep's estimate, where one does (else as it is, and skipped for its
/// budget). A smaller hot set costs less (its greedy pass is over fewer buffers and pairs)
/// and still places the buffers live at the highest loads first, where the sweep alone is
/// online everywhere. Not always lower: what it spends, the repair does not get
/// (`core/tests/sweep_hot_row.rs` has a case either way).
pub(super) fn sized_hot_set(
    member: Member,
    cost: Cost,
    first: bool,
    left: u64,
    est: &Estimate,
) -> (Member, Cost) {
    match member {
        Member::SweepHot(share)
            if first && est.cost(Cost::Greedy) > left && !affords(est.cost(cost), left, true, est) =>
        {
            match (share + 1..=MAX_HOT_SHARE).find(|&s| affords(est.sweep_hot(s as u32), left, true, est)) {
                Some(s) => (Member::SweepHot(s), Cost::SweepHot(s)),
                None => (member, cost),
            }
        }
        _ => (member, cost),
    }
}

/// Work units of the row's set-up (the section loads and the hot set), what it is charged
/// where it stops after counting its hot set's pairs: [`HOT_LOAD_UNITS`] `· n log2 n`.
pub(super) fn set_up_units(est: &Estimate) -> u64 {
    est.n.saturating_mul(est.log_n).saturating_mul(HOT_LOAD_UNITS)
}

/// The pairs of `hot` (slots of `loads`) whose section ranges `[lo, hi]` overlap, each counted
/// once: sorted by first section into `scratch` (as long as `hot`), then for each the later
/// ones starting at or before its last section, by binary search. O(h log h).
fn hot_pairs(hot: &[u32], loads: &[Slot], scratch: &mut [u32]) -> u64 {
    scratch.copy_from_slice(hot);
    scratch.sort_unstable_by_key(|&v| loads[v as usize].lo);
    let mut pairs = 0u64;
    for (i, &v) in scratch.iter().enumerate() {
        let hi = loads[v as usize].hi;
        pairs += scratch[i + 1..].partition_point(|&w| loads[w as usize].lo <= hi) as u64;
    }
    pairs
}

/// The `hot`-th of `order` (1 ≤ `hot` ≤ its length) ranked by [`hot_key`], larger first: the
/// last of the hot set. O(len) (a selection, not a sort); reorders `order`.
fn hot_last(order: &mut [u32], loads: &[Slot], hot: usize) -> u32 {
    order.select_nth_unstable_by_key(hot - 1, |&v| Reverse(hot_key(loads, v)));
    order[hot - 1]
}

#[cfg(test)]
mod tests {
    use crate::error::PlanError;
    use crate::place::clock::Clock;
    use crate::place::sections::{prepare_loads, section_totals};
    use crate::place::seed::search::Span;
    use crate::place::seed::select::Regions;
    use crate::place::sweep_long::{hot_key, sweep_first, First};
    use crate::test_problem::with_graph;
    use crate::workspace::{Placed, Section, Slot};
    use core::cmp::Reverse;

    const N: usize = 48;

    const WIDE: Regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 1 };

    /// Plans `iv` (`(lo, hi, size)`, closed intervals; `pinned` at the given address) by the
    /// sweep around the `hot` candidates first in the load order; the addresses, the hot
    /// candidates in the order they were ranked, or the error.
    fn run(
        iv: &[(u32, u32, u64)],
        pinned: &[(usize, u64)],
        hot: usize,
    ) -> Result<([u64; N], [u32; N]), PlanError> {
        let n = iv.len();
        with_graph::<N, _>(iv, pinned, |graph, infos| {
            let mut slots = [Slot::default(); N];
            let (mut order, mut heap) = ([0u32; N], [0u32; N]);
            let mut sections = [Section::default(); N];
            let count = prepare_loads(
                &*infos,
                |i| (iv[i.location as usize].0, iv[i.location as usize].1),
                0,
                &mut slots,
                &mut sections,
                &mut order,
                &mut heap,
            )
            .unwrap();
            section_totals(&mut slots, &mut sections, count, &heap[..n]);
            let mut ranked = [0u32; N];
            let mut m = 0;
            for v in (0..n as u32).filter(|&v| !infos[v as usize].is_pinned()) {
                ranked[m] = v;
                m += 1;
            }
            ranked[..m].sort_unstable_by_key(|&v| Reverse(hot_key(&slots, v)));
            let first = First::Hot { loads: &slots, at_least: hot_key(&slots, ranked[hot - 1]) };
            let (mut placed, mut occ) = ([Placed::default(); N], [Span::default(); N]);
            let done = sweep_first(
                graph,
                infos,
                first,
                &mut order[..n],
                &mut heap[..n],
                &mut placed[..n],
                &mut occ[..n],
                &mut sections,
                None,
                WIDE,
                &mut Clock::none(),
            )?;
            assert!(done);
            Ok((core::array::from_fn(|v| if v < n { infos[v].address } else { 0 }), ranked))
        })
    }

    /// An 8-byte buffer A at [0, 1], a 4-byte B at [1, 20], a 16-byte C at [3, 4]: the load is
    /// 12 at instruction 1 and 20 (the bound) at 3–4, so B and C both have 20 as their largest
    /// load and B, the longer-lived, ranks first. With those two hot, B takes 0 and C 4; A,
    /// cold, sees B ahead (defined during its life) and goes above it, at 4: peak 20. With B
    /// alone hot, C is swept into the same place, above B (A has gone by then). The plain
    /// sweep gives 28 (`sweep_long`'s tests).
    #[test]
    fn the_hot_go_first_in_load_order() {
        let iv = [(0, 1, 8), (1, 20, 4), (3, 4, 16)];
        let (at, ranked) = run(&iv, &[], 2).unwrap();
        assert_eq!(&ranked[..3], &[1, 2, 0]);
        assert_eq!(&at[..3], &[4, 0, 4]);
        let (at, _) = run(&iv, &[], 1).unwrap();
        assert_eq!(&at[..3], &[4, 0, 4]);
    }

    /// Equal largest loads rank by lifetime, not size: X [0, 10] (4 bytes) before Y [5, 6]
    /// (16 bytes), both at the bound 20 at instructions 5–6, so X takes 0 and Y 4 (in size
    /// order Y would take 0 and X 16).
    #[test]
    fn ties_of_load_go_to_the_longer_lived() {
        let iv = [(0, 10, 4), (5, 6, 16)];
        let (at, ranked) = run(&iv, &[], 2).unwrap();
        assert_eq!(&ranked[..2], &[0, 1]);
        assert_eq!(&at[..2], &[0, 4]);
    }

    /// A pinned buffer is an obstacle to the hot ones and looked ahead of by the cold: P
    /// [2, 3] pinned at [0, 8); hot H [0, 9] (8 bytes, its largest load 16 at 2–3, above cold
    /// S's 12) goes above it, at 8; cold S [0, 1] (4 bytes) finds H live at 8 and nothing else,
    /// so it takes 0, and P comes after S has gone.
    #[test]
    fn pinned_buffers_are_obstacles_to_both_steps() {
        let iv = [(2, 3, 8), (0, 9, 8), (0, 1, 4)];
        let (at, _) = run(&iv, &[(0, 0)], 1).unwrap();
        assert_eq!(&at[..3], &[0, 8, 0]);
    }

    /// The last of the hot set is the `hot`-th by (load, lifetime, lower index), for every
    /// `hot` and a scrambled order: loads 5, 9, 9, 1, 9 with lifetimes 3, 2, 4, 7, 2 rank
    /// 2 (9, 4), 1 (9, 2), 4 (9, 2; higher index), 0, 3.
    #[test]
    fn the_last_of_the_hot_set_is_the_hot_th_ranked() {
        let slot = |total: u64, width: u32| Slot { total, width, ..Slot::default() };
        let loads = [slot(5, 3), slot(9, 2), slot(9, 4), slot(1, 7), slot(9, 2)];
        for hot in 1..=5 {
            let mut order = [3u32, 0, 4, 2, 1];
            assert_eq!(super::hot_last(&mut order, &loads, hot), [2, 1, 4, 0, 3][hot - 1], "hot {hot}");
        }
    }

    /// Every interfering pair is kept apart, for every size of the hot set, with a pinned
    /// buffer (at 24) in a third of the cases; the sum of the 400 peaks pins the plans (a
    /// change to the ranking, the order or the look-ahead moves it).
    #[test]
    fn every_interfering_pair_is_kept_apart() {
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        let mut next = |m: u64| rng.below(m);
        let mut peaks = 0u64;
        for case in 0..400 {
            let n = 2 + next(N as u64 - 2) as usize;
            let mut iv = [(0u32, 0u32, 0u64); N];
            for e in iv[..n].iter_mut() {
                let lo = next(60) as u32;
                let scale = 1 + next(6);
                *e = (lo, lo + next(1 << scale) as u32, 1 + next(32));
            }
            let pinned: &[(usize, u64)] = if case % 3 == 0 { &[(0, 24)] } else { &[] };
            let free = n - pinned.len();
            let hot = 1 + next(free as u64) as usize;
            let (at, _) = run(&iv[..n], pinned, hot).unwrap();
            peaks += (0..n).map(|v| at[v] + iv[v].2).max().unwrap_or(0);
            for a in 0..n {
                for b in a + 1..n {
                    let (p, q) = (iv[a], iv[b]);
                    if p.0 <= q.1 && q.0 <= p.1 {
                        let apart = at[a] + p.2 <= at[b] || at[b] + q.2 <= at[a];
                        assert!(
                            apart,
                            "case {case} hot {hot}: {a} {p:?} at {} and {b} {q:?} at {}",
                            at[a], at[b]
                        );
                    }
                }
            }
        }
        assert_eq!(peaks, 50_220);
    }
}
