//! The sweep around the hot as a row of `auto` (`core/src/place/sweep_hot.rs`): it runs where a
//! greedy pass no longer fits in the budget left, is charged its estimate and its plan is
//! valid and kept; as the first plan, with one unit less than its estimate and the sweep's it
//! is skipped; where a greedy pass fits it is skipped, and runs after `greedy-load` where that
//! is then over budget. Exact values on one generated problem.

#[path = "support/problem.rs"]
mod generate;
use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{plan_buffers_with, Buffer, CcSize, Plan, PlanConfig, StaticWorkspace, Strategy};
use generate::problem;

const N: usize = 3000;

/// 3,000 buffers defined over 1,000 instructions, lifetimes up to 20 (one in 16 up to 500).
fn bufs() -> Vec<Buffer> {
    problem(0x2545_F491_4F6C_DD1D, N, 1000, 20, 16)
}

/// `auto` on [`bufs`] at 256-byte alignment with `work` units and no clock; the plan, checked:
/// every two buffers live together are apart.
fn plan(work: u64) -> (Plan, u64) {
    let b = bufs();
    let mut st: Box<StaticWorkspace<N, N, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    let mut budget = Budget::new(0, work, &mut go);
    let p = plan_buffers_with(&b, 256, &cfg, &mut ws, &mut budget).unwrap();
    let at: Vec<(u64, u64)> = ws.infos[..N].iter().map(|i| (i.address, i.address + i.aligned)).collect();
    for x in 0..N {
        for y in x + 1..N {
            let live = b[x].def <= b[y].last_use && b[y].def <= b[x].last_use;
            assert!(!live || at[x].1 <= at[y].0 || at[y].1 <= at[x].0, "{x} and {y} overlap");
        }
    }
    // the plan itself, pinned: a sum of the addresses weighted by index
    let digest =
        at.iter().enumerate().map(|(k, a)| a.0.wrapping_mul(k as u64 + 1)).fold(0u64, u64::wrapping_add);
    (p, digest)
}

/// The row comes before the sweep: estimated at 1,237,324 units with an eighth of the pairs
/// assumed for its hot set, 1,237,358 once it has counted them, it makes the first plan where
/// that and the sweep's 720,000 are left, and is charged the counted estimate; its plan is
/// kept (1,029,632 against a bound of 1,005,056); the skyline row (5,430,899) and a greedy
/// pass (4,500,000, the address-ordered scan's `n² / 2`) are over budget. With one unit less
/// it stops once it has counted (the first plan is not stopped by the clock, so it may not
/// leave less than the sweep's estimate), charged its set-up (360,000 units), and the sweep
/// makes the first plan (1,096,960), which the repair brings to 1,043,968 with the 877,357
/// units no other row fits in.
#[test]
fn the_row_runs_where_a_greedy_pass_does_not_fit() {
    let (p, digest) = plan(1_237_358 + 720_000);
    assert_eq!(digest, 1_632_558_827_008);
    let runs = p.members.runs();
    assert_eq!(runs[1], (M::SweepHot(3), O::Ran { peak: 1_029_632, work: 1_237_358 }));
    assert_eq!(runs[2], (M::Sweep, O::Above { top: 1_038_080, placed: 2_480, work: 595_200 }));
    assert_eq!(runs[5], (M::GreedyLoad, O::OverBudget { cost: 4_500_000, left: 124_800 }));
    assert_eq!(
        (p.metrics.hwm, p.metrics.lower_bound, p.members.best),
        (1_029_632, 1_005_056, Some(M::SweepHot(3)))
    );
    let (p, _) = plan(1_237_358 + 720_000 - 1);
    let runs = p.members.runs();
    let left = 1_237_358 + 719_999;
    assert_eq!(runs[1], (M::SweepHot(3), O::NoRoomForTheSweep { cost: 1_237_358, sweep: 720_000, left }));
    assert_eq!(runs[2], (M::Sweep, O::Ran { peak: 1_096_960, work: 720_000 }));
    assert_eq!(runs[4], (M::SweepLong(3), O::OverBudget { cost: 1_369_305, left: 877_357 }));
    // every later row is over budget too; the repair brings the sweep's plan to 1,043,968
    assert_eq!(runs[16], (M::Repair, O::Ran { peak: 1_043_968, work: 877_357 }));
    assert_eq!((p.metrics.hwm, p.members.best), (1_043_968, Some(M::Sweep)));
}

/// Where the 1/8 hottest and the sweep's estimate are more than is left as the first plan,
/// the row runs with the largest smaller hot set whose estimate fits beside the sweep's
/// (estimates: 1/8 1,237,324 before its pairs are counted, 1/16 1,022,218, 1/32 914,686, 1/64
/// 860,926, the sweep 720,000): with one unit less than the 1/8's, the 1/16 runs (charged its
/// counted 997,098), its plan (1,045,504) is kept over the sweep's, and the repair brings it to
/// 1,029,632, where the sweep and the repair with the budget alone reached 1,043,968 (the test
/// above). With just the 1/64's estimate and the sweep's left, the 1/64 runs, and the repair,
/// left 159,404 units, ends at 1,044,736: above the 1,043,968 that the repair reaches with
/// one unit less (no hot set fits then, and it gets 860,925 units). A rung that is not always
/// lower: it takes what the repair would have had.
#[test]
fn a_smaller_hot_set_makes_the_first_plan_where_the_eighth_does_not_fit() {
    let (p, digest) = plan(1_237_324 + 720_000 - 1);
    assert_eq!(digest, 1_535_930_217_984);
    let runs = p.members.runs();
    assert_eq!(runs[1], (M::SweepHot(4), O::Ran { peak: 1_045_504, work: 997_098 }));
    assert_eq!(runs[16], (M::Repair, O::Ran { peak: 1_029_632, work: 364_785 }));
    assert_eq!((p.metrics.hwm, p.members.best), (1_029_632, Some(M::SweepHot(4))));
    let (p, _) = plan(860_926 + 720_000);
    let runs = p.members.runs();
    assert_eq!(runs[1], (M::SweepHot(6), O::Ran { peak: 1_051_392, work: 826_082 }));
    assert_eq!(runs[16], (M::Repair, O::Ran { peak: 1_044_736, work: 159_404 }));
    let (p, _) = plan(860_926 + 720_000 - 1);
    let runs = p.members.runs();
    let left = 860_926 + 719_999;
    assert_eq!(runs[1], (M::SweepHot(3), O::NoRoomForTheSweep { cost: 1_237_324, sweep: 720_000, left }));
    assert_eq!(runs[16], (M::Repair, O::Ran { peak: 1_043_968, work: 860_925 }));
    assert_eq!(p.metrics.hwm, 1_043_968);
}

/// Where a greedy pass fits in what is left at its row the row is skipped there, and runs
/// after `greedy-load` where that is then over budget: with 5,220,000 units left at its row (it
/// comes before the sweep), the sweep takes 720,000 of them, the sweep around the 1/8
/// longest-lived 1,369,305, and `greedy-load` is over budget after all (3,130,695 left); the
/// sweep around the hot runs in its place, charged its counted estimate, and its plan
/// (1,029,632, the same as where it runs first) is kept; the repair brings it to 1,014,528
/// with the 1,893,337 units left. (Before the row had this second place, neither it nor
/// `greedy-load` ran here, and the repair brought the sweep around the long-lived's plan to
/// 1,027,584.)
#[test]
fn the_row_is_skipped_where_a_greedy_pass_fits_and_stands_in_where_greedy_load_then_does_not() {
    let (p, _) = plan(720_000 + 4_500_000);
    let runs = p.members.runs();
    assert_eq!(runs[1], (M::SweepHot(3), O::Covered));
    assert_eq!(runs[4], (M::SweepLong(3), O::Ran { peak: 1_044_480, work: 1_369_305 }));
    assert_eq!(runs[5], (M::GreedyLoad, O::OverBudget { cost: 4_500_000, left: 3_130_695 }));
    assert_eq!(runs[6], (M::SweepHot(3), O::Ran { peak: 1_029_632, work: 1_237_358 }));
    assert_eq!(runs[7], (M::GreedyClass, O::OverBudget { cost: 4_500_000, left: 1_893_337 }));
    assert_eq!(runs.last(), Some(&(M::Repair, O::Ran { peak: 1_014_528, work: 1_893_337 })));
    assert_eq!((p.metrics.hwm, p.members.best), (1_014_528, Some(M::SweepHot(3))));
}

/// Where a greedy pass fits at the row and `greedy-load` then runs, the second place is passed
/// over (not reported): with the whole default budget.
#[test]
fn the_second_place_is_passed_over_where_greedy_load_runs() {
    let (p, _) = plan(700_000_000);
    let runs = p.members.runs();
    assert_eq!(runs[1], (M::SweepHot(3), O::Covered));
    // (it runs, and stops at its 96th buffer, at the sweep around the long-lived's peak)
    assert_eq!(runs[5], (M::GreedyLoad, O::Above { top: 1_029_632, placed: 96, work: 4_560 }));
    assert_eq!(runs[6].0, M::GreedyClass);
    assert_eq!(runs.iter().filter(|r| r.0 == M::SweepHot(3)).count(), 1);
}

/// [`bufs`] and a clique of 429 buffers of 64 KiB all live over instructions 400–600: the
/// hot set (the 3,429 >> 3 = 428 largest loads over a lifetime) is the clique.
fn with_clique() -> Vec<Buffer> {
    let mut b = bufs();
    b.extend((0..429u32).map(|k| Buffer::new(400 + k % 50, 600 - k % 50, 65_536)));
    b
}

/// The row counts its hot set's pairs once it knows the set, and stops before its greedy pass
/// where they make it dearer than it may spend: the estimate assumes an eighth of the pairs,
/// a clique holds about all of them. Here the estimate before the count fits with the
/// sweep's, the count does not: the row is skipped, charged only its set-up, and the sweep
/// makes the first plan.
#[test]
fn a_hot_set_whose_pairs_are_counted_over_the_budget_stops_before_its_greedy_pass() {
    const K: usize = 3429;
    let b = with_clique();
    let mut st: Box<StaticWorkspace<K, K, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    // the row's estimate before the count (2,257,078) and the sweep's (20 n log2(n + 1))
    let (estimate, sweep) = (2_257_078, 20 * 3429 * 12);
    let mut budget = Budget::new(0, estimate + sweep, &mut go);
    let p = plan_buffers_with(&b, 256, &cfg, &mut ws, &mut budget).unwrap();
    let runs = p.members.runs();
    // counted, 2,704,560: over the 2,257,078 it may spend as the first plan
    let skipped = O::NoRoomForTheSweep { cost: 2_704_560, sweep, left: estimate + sweep };
    assert_eq!(runs[1], (M::SweepHot(3), skipped));
    assert_eq!(runs[2], (M::Sweep, O::Ran { peak: 29_009_920, work: sweep }));
    // charged its set-up only (10 units per n log2 n: 411,480), the rest back to the budget
    let left = estimate + sweep - 3429 * 12 * 10 - sweep;
    assert_eq!(runs[3], (M::Skyline(1), O::OverBudget { cost: 6_212_568, left }));
    assert_eq!(left, 1_845_598);
}
