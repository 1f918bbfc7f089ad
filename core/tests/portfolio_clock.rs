//! `auto` on a host with a clock reading (`Budget::nanos_left`): each run is timed on it
//! (`Members::nanos`), and the readings decide nothing: the rows and plans are those without
//! one, whatever the clock reads. Exact values on fixed generated problems, with a fake clock
//! that moves a fixed step at every reading.

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

/// 1,024 buffers, where most rows run.
fn problem_k() -> Vec<Buffer> {
    problem(0x2545_F491_4F6C_DD1D, 1_024, 400, 24, 16)
}

/// Each run is timed between two readings: with a clock that reads 1 ms less each time and
/// runs out early (past its limit from the tenth reading on, where a reading is negative), every
/// row that ran took one step and the rest none; the rows and the plan are those without a
/// clock.
#[test]
fn each_run_is_timed_and_the_readings_decide_nothing() {
    let k = problem_k();
    let (p, read) = plan(&k, 50_000_000, Some((9 * MS, MS)));
    let (alone, none) = plan(&k, 50_000_000, None);
    assert_eq!((p.members.runs(), none), (alone.members.runs(), 0));
    assert_eq!((p.metrics.hwm, p.members.best), (alone.metrics.hwm, alone.members.best));
    let ran: Vec<bool> =
        p.members.runs().iter().map(|&(_, o)| matches!(o, O::Ran { .. } | O::Above { .. })).collect();
    let ms: Vec<u64> = ran.iter().map(|&r| if r { MS as u64 } else { 0 }).collect();
    assert_eq!(p.members.nanos(), ms);
    // two readings a run that ran, and one before the branch and bound, which did not search
    // (the plan is at the bound)
    assert_eq!(p.metrics.hwm, p.metrics.lower_bound);
    assert_eq!(read, 2 * ran.iter().filter(|&&r| r).count() as i64 + 1);
}

/// A clock with time to spare changes nothing either: the same rows, the same plan as without
/// one; every run that ran (the branch and bound included) took one step (1 ns), the rest
/// none. Without a clock nothing is read or timed.
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
