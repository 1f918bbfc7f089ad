//! `auto` on a host with a clock (`Budget::nanos_left`): the rows that ran give the rate of
//! this run's rows, and a later row whose estimate needs more than the time left at that rate
//! is skipped (`Outcome::OverClock`), where the work budget alone would run it. Exact values
//! on a fixed generated problem, with a fake clock that moves a fixed step at every question.

use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{plan_buffers_with, Buffer, CcSize, Plan, PlanConfig, StaticWorkspace, Strategy};

#[path = "support/problem.rs"]
mod generate;
use generate::problem;

/// One millisecond, the fake clock's step.
const MS: u64 = 1_000_000;

/// Plans `bufs` by `auto` (256-byte alignment, 1 GiB window, 1,000,000 work units) with a
/// clock that says `start` nanoseconds are left at its first question and `step` fewer at
/// each question after it (`None`: no clock); returns the plan and how often it was asked.
fn plan(bufs: &[Buffer], clock: Option<(u64, u64)>) -> (Plan, u64) {
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    let (start, step) = clock.unwrap_or((0, 0));
    let mut asked = 0u64;
    let mut left = || {
        asked += 1;
        start.saturating_sub((asked - 1) * step)
    };
    let nanos_left: Option<&mut dyn FnMut() -> u64> = clock.is_some().then_some(&mut left);
    let p = {
        let mut budget = Budget {
            max_nodes: 20_000,
            work: 1_000_000,
            repair_work: 0,
            keep_going: &mut go,
            claim: None,
            nanos_left,
        };
        plan_buffers_with(bufs, 256, &cfg, &mut st.workspace(), &mut budget).unwrap()
    };
    (p, asked)
}

/// The problem of `portfolio_report.rs`'s `A_AUTO` (60 buffers).
fn problem_a() -> Vec<Buffer> {
    problem(6u64.wrapping_mul(0x9E37_79B9_7F4A_7C15), 60, 20, 12, 4)
}

/// The sweep ran first (7,200 units) while the clock moved one step, 1 ms: 7,200 units a
/// millisecond. At the skyline's question (the third) 7.5 ms are left, and its 54,006 units
/// need 7,500,834 ns at that rate (54,006 × 10^6 / 7,200, rounded up): 834 ns short, it is
/// skipped, where with those 834 ns more, or without a clock, it runs. Each row that runs
/// adds its work and its two steps to the rate (`greedy-size`: 1,800 units at 9,212 units in
/// 3 ms), and once the clock is at 0 every row left is skipped; the plan is still a plan, and
/// the branch and bound (on its own work cap) still runs.
#[test]
fn a_row_the_clock_would_stop_is_skipped() {
    let a = problem_a();
    let (p, asked) = plan(&a, Some((9_500_000, MS)));
    let over = |cost, needs, left| O::OverClock { cost, needs, left };
    let want = [
        (M::SweepLong(7), O::NoLongSet),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), over(54_006, 7_500_834, 7_500_000)),
        (M::SweepHot(3), O::Covered),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Ran { peak: 294_400, work: 1_051 }),
        (M::GreedyClass, O::Above { top: 294_400, placed: 50, work: 961 }),
        (M::GreedySize, over(1_800, 586_192, 500_000)),
        (M::SweepLong(1), over(14_438, 4_701_911, 0)),
        (M::Skyline(2), over(54_006, 17_587_712, 0)),
        (M::GreedyStart, over(1_800, 586_192, 0)),
        (M::Skyline(0), over(54_006, 17_587_712, 0)),
        (M::BestFit, over(1_800, 586_192, 0)),
        (M::BestFitStart, over(1_800, 586_192, 0)),
        (M::Seed, over(3_600, 1_172_384, 0)),
        (M::SweepTwoEnded, over(29_736, 9_683_891, 0)),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ];
    assert_eq!(p.members.runs(), want);
    // asked before and after each row that ran (three) and the branch and bound, before each
    // row the clock may skip; each row that ran took one step, 1 ms, the skipped rows none
    // (the branch and bound ran with the clock at 0 already: 0 ns)
    assert_eq!((asked, p.metrics.hwm, p.members.best), (20, 265_472, Some(M::GreedyLoad)));
    let timed: Vec<usize> = (0..want.len()).filter(|&i| p.members.nanos()[i] > 0).collect();
    assert_eq!(timed, [1, 5, 6]);
    assert!(timed.iter().all(|&i| p.members.nanos()[i] == MS));

    let (enough, _) = plan(&a, Some((9_500_834, MS)));
    assert_eq!(enough.members.runs()[2], (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }));
    let (alone, asked) = plan(&a, None);
    assert_eq!(asked, 0);
    assert!(alone.members.nanos().iter().all(|&t| t == 0), "no clock: nothing timed");
    assert_eq!(alone.members.runs()[2], (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }));
    assert!(!alone.members.runs().iter().any(|(_, o)| matches!(o, O::OverClock { .. })));
}

/// A clock with time to spare changes nothing: the same rows, the same plan as without one.
#[test]
fn a_clock_with_time_to_spare_changes_nothing() {
    let a = problem_a();
    let (timed, asked) = plan(&a, Some((u64::MAX / 2, 1)));
    let (alone, _) = plan(&a, None);
    assert!(asked > 10, "asked {asked} times");
    assert_eq!(timed.members.runs(), alone.members.runs());
    assert_eq!((timed.metrics.hwm, timed.members.best), (alone.metrics.hwm, alone.members.best));
    assert_eq!(timed.metrics.hwm, 265_472);
    // every run that ran, the branch and bound included, took one step (1 ns); the rest none
    for (&(m, o), &t) in timed.members.runs().iter().zip(timed.members.nanos()) {
        let ran = matches!(o, O::Ran { .. } | O::Above { .. });
        assert_eq!(t, u64::from(ran), "{m:?}: {o:?}");
    }
    assert_eq!(timed.members.runs().last(), Some(&(M::BranchAndBound, O::Ran { peak: 265_472, work: 86 })));
}

/// The repair is timed as the rows are: `portfolio_report.rs`'s problem C (A with one buffer
/// pinned) with no sections lent, where the repair runs after the rows (42,576 units there),
/// with a clock that moves 1 ns a question.
#[test]
fn the_repair_is_timed() {
    let mut c = problem_a();
    c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    ws.sections = &mut [];
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    let mut t = u64::MAX / 2;
    let mut left = || {
        t -= 1;
        t
    };
    let mut budget = Budget {
        max_nodes: 20_000,
        work: 60_000,
        repair_work: 0,
        keep_going: &mut go,
        claim: None,
        nanos_left: Some(&mut left),
    };
    let p = plan_buffers_with(&c, 256, &cfg, &mut ws, &mut budget).unwrap();
    let (runs, nanos) = (p.members.runs(), p.members.nanos());
    assert_eq!(runs.last(), Some(&(M::Repair, O::Ran { peak: 285_952, work: 42_576 })));
    assert_eq!(nanos.last(), Some(&1));
}
