//! `auto` on a host with a clock (`Budget::nanos_left`): each run is timed on it
//! (`Members::nanos`), and a row keeps its pace on it, stopped from half its buffers on where
//! the rest would not finish in the time left (`Outcome::OverClock`, `place/pace.rs`); a caller
//! without a clock, or with time to spare, gets the rows and plans of before. Exact values on
//! fixed generated problems, with a fake clock that moves a fixed step at every reading.

use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{plan_buffers_with, Buffer, CcSize, Plan, PlanConfig, StaticWorkspace, Strategy};

#[path = "support/problem.rs"]
mod generate;
use generate::problem;

/// One millisecond, the fake clock's step.
const MS: i64 = 1_000_000;

/// Plans `bufs` (at most 1,100) by `auto` (256-byte alignment, 1 GiB window, `work` units)
/// with a clock that reads `start` nanoseconds left at its first reading and `step` fewer at
/// each reading after it (`None`: no clock); returns the plan and how often it was read.
fn plan(bufs: &[Buffer], work: u64, clock: Option<(i64, i64)>) -> (Plan, i64) {
    let mut st: Box<StaticWorkspace<1100, 1100, 0>> = Box::new(StaticWorkspace::new());
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    let (start, step) = clock.unwrap_or((0, 0));
    let mut read = 0i64;
    let mut left = || {
        read += 1;
        start - (read - 1) * step
    };
    let nanos_left: Option<&mut dyn FnMut() -> i64> = clock.is_some().then_some(&mut left);
    let p = {
        let mut budget = Budget { nanos_left, ..Budget::new(20_000, work, &mut go) };
        plan_buffers_with(bufs, 256, &cfg, &mut st.workspace(), &mut budget).unwrap()
    };
    (p, read)
}

/// `portfolio_report.rs`'s problem A (60 buffers).
fn problem_a() -> Vec<Buffer> {
    problem(6u64.wrapping_mul(0x9E37_79B9_7F4A_7C15), 60, 20, 12, 4)
}

/// 1,024 buffers: a row's clock reads the time at its 256th and 512th buffer, the second at
/// half of them, where its pace is judged.
fn problem_k() -> Vec<Buffer> {
    problem(0x2545_F491_4F6C_DD1D, 1_024, 400, 24, 16)
}

/// A row behind its pace is stopped at half its buffers. Each reading is 1 ms after the one
/// before; a paced row reads the clock at its start, at its 256th buffer and at its 512th,
/// half of its 1,024, where 2 ms have passed: it needs 4 ms in all, 2 ms more. `greedy-class`
/// starts with 3 ms left (the clock read 16 ms at first, 13 times since): 1 ms is left at its
/// half, so it is stopped there; with 2 ms more at first (18 ms) it goes on, and stops where a
/// buffer ends above the best plan's peak. The rows after it, started with the clock past its
/// limit, are stopped at their half too (`sweep-long/2`'s steps count its long set twice: placed
/// first, then swept), and a skyline row, which keeps no pace, runs.
#[test]
fn a_row_behind_its_pace_is_stopped_at_half_its_buffers() {
    let k = problem_k();
    let (p, read) = plan(&k, 50_000_000, Some((16 * MS, MS)));
    let behind = |placed, left| O::OverClock { placed, needs: 4 * MS as u64, left };
    let want = [
        (M::SweepLong(7), O::NoLongSet),
        (M::Sweep, O::Ran { peak: 728_320, work: 225_280 }),
        (M::Skyline(1), O::Ran { peak: 662_016, work: 3_134_692 }),
        (M::SweepHot(3), O::Covered),
        (M::SweepLong(3), O::Above { top: 666_880, placed: 594, work: 201_502 }),
        (M::GreedyLoad, O::Above { top: 672_512, placed: 112, work: 4_830 }),
        (M::GreedyClass, behind(511, 3 * MS as u64)),
        (M::GreedySize, behind(511, 0)),
        // its long set (394 buffers) placed first, then all 1,024 swept: 1,418 steps, judged at
        // the 768th, 3 ms in: 3 ms × 1,418 / 768, rounded up
        (M::SweepLong(1), O::OverClock { placed: 623, needs: 5_539_063, left: 0 }),
        (M::Skyline(2), O::Ran { peak: 657_920, work: 3_134_692 }),
        (M::GreedyStart, O::AtLowerBound),
        (M::Skyline(0), O::AtLowerBound),
        (M::BestFit, O::AtLowerBound),
        (M::BestFitStart, O::AtLowerBound),
        (M::Seed, O::AtLowerBound),
        (M::SweepTwoEnded, O::AtLowerBound),
    ];
    assert_eq!(p.members.runs(), want);
    assert_eq!((read, p.metrics.hwm, p.members.best), (31, 657_920, Some(M::Skyline(2))));
    let ms = |n: u64| n * MS as u64;
    assert_eq!(
        p.members.nanos(),
        [0, ms(1), ms(1), 0, ms(4), ms(2), ms(4), ms(4), ms(5), ms(1), 0, 0, 0, 0, 0, 0]
    );

    let (later, _) = plan(&k, 50_000_000, Some((18 * MS, MS)));
    assert_eq!(
        later.members.runs()[6],
        (M::GreedyClass, O::Above { top: 663_296, placed: 759, work: 211_500 })
    );
    let (alone, read) = plan(&k, 50_000_000, None);
    assert_eq!(
        (alone.members.runs()[6], read),
        ((M::GreedyClass, O::Above { top: 663_296, placed: 759, work: 211_500 }), 0)
    );
}

/// A clock with time to spare changes nothing: the same rows, the same plan as without one;
/// every run that ran (the branch and bound included) took one step, the rest none. Without
/// a clock nothing is read or timed.
#[test]
fn a_clock_with_time_to_spare_changes_nothing() {
    for bufs in [problem_a(), problem_k()] {
        let (timed, read) = plan(&bufs, 50_000_000, Some((i64::MAX / 2, 1)));
        let (alone, none) = plan(&bufs, 50_000_000, None);
        assert!(read > 10 && none == 0, "read {read} and {none} times");
        assert_eq!(timed.members.runs(), alone.members.runs());
        assert_eq!((timed.metrics.hwm, timed.members.best), (alone.metrics.hwm, alone.members.best));
        for (&(m, o), &t) in timed.members.runs().iter().zip(timed.members.nanos()) {
            let ran = matches!(o, O::Ran { .. } | O::Above { .. });
            assert!(t == u64::from(ran) || (ran && t > 1), "{m:?}: {o:?} took {t}");
        }
        assert!(alone.members.nanos().iter().all(|&t| t == 0), "no clock: nothing timed");
    }
    let (a, _) = plan(&problem_a(), 1_000_000, Some((i64::MAX / 2, 1)));
    assert_eq!(a.members.runs().last(), Some(&(M::BranchAndBound, O::Ran { peak: 265_472, work: 86 })));
}

/// The repair is timed as the rows are: `portfolio_report.rs`'s problem C (A with one buffer
/// pinned) with no sections lent, where the repair runs after the rows (42,576 units there),
/// with a clock that moves 1 ns a reading.
#[test]
fn the_repair_is_timed() {
    let mut c = problem_a();
    c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    ws.sections = &mut [];
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut go = || true;
    let mut t = i64::MAX / 2;
    let mut left = || {
        t -= 1;
        t
    };
    let mut budget = Budget { nanos_left: Some(&mut left), ..Budget::new(20_000, 60_000, &mut go) };
    let p = plan_buffers_with(&c, 256, &cfg, &mut ws, &mut budget).unwrap();
    let (runs, nanos) = (p.members.runs(), p.members.nanos());
    assert_eq!(runs.last(), Some(&(M::Repair, O::Ran { peak: 285_952, work: 42_576 })));
    assert_eq!(nanos.last(), Some(&1));
}
