//! The branch and bound's run schedule (`place::exact::branch_and_bound`) on two problems of
//! the hard DSA set (MiniMalloc's D and J, bundled in `sim/data/minimalloc/`), where the
//! probe at the lower bound neither finds a plan nor proves the bound infeasible within its
//! node limit, so the bisection above it runs. Issue 18: the small random searches of the
//! unit tests end before any probe reaches its limit, and mutation testing left the
//! bisection's probe limit, its restart and its stop alive. Each run is checked valid and
//! its peak and node count are pinned, with two schedules and a node limit that ends it.

use dramalloc_core::liveness::info::Info;
use dramalloc_core::place::exact::{branch_and_bound, prepare, Budget, ExactOutcome, Schedule};
use dramalloc_core::workspace::{Raise, Section, Slot};

/// `(lower, upper, size)` rows of a MiniMalloc CSV (`id,lower,upper,size`, times half-open).
fn rows(csv: &str) -> Vec<(u32, u32, u64)> {
    csv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            (f[1] as u32, f[2] as u32 - 1, f[3])
        })
        .collect()
}

/// Runs the search on `rows` with `max_nodes` and `schedule` (byte capacities, from an
/// incumbent of the sizes' sum); checks the plan it leaves and returns (peak, nodes, optimal).
fn run(rows: &[(u32, u32, u64)], max_nodes: u64, schedule: Schedule) -> (u64, u64, bool) {
    let out = run_out(rows, max_nodes, schedule);
    (out.peak, out.nodes, out.optimal)
}

/// As [`run`], returning the whole outcome.
fn run_out(rows: &[(u32, u32, u64)], max_nodes: u64, schedule: Schedule) -> ExactOutcome {
    let n = rows.len();
    let infos: Vec<Info> = rows.iter().map(|r| Info { aligned: r.2, ..Info::default() }).collect();
    let mut slots = vec![Slot::default(); n];
    let mut secs = vec![Section::default(); n];
    let (mut by_lo, mut ids) = (vec![0u32; n], vec![0u32; n]);
    let base = infos.as_ptr() as usize;
    let at = |i: &Info| (i as *const Info as usize - base) / core::mem::size_of::<Info>();
    let count =
        prepare(&infos, |i| (rows[at(i)].0, rows[at(i)].1), 0, &mut slots, &mut secs, &mut by_lo, &mut ids)
            .unwrap();
    // (time, start?, size): at one time the ends (half-open) come before the starts
    let mut ends: Vec<(u32, bool, u64)> =
        rows.iter().flat_map(|r| [(r.0, true, r.2), (r.1 + 1, false, r.2)]).collect();
    ends.sort_unstable();
    let (mut load, mut lb) = (0u64, 0u64);
    for (_, start, size) in ends {
        if !start {
            load -= size;
        } else {
            load += size;
            lb = lb.max(load);
        }
    }
    let total: u64 = rows.iter().map(|r| r.2).sum();
    let mut go = || true;
    let mut budget = Budget::new(max_nodes, 0, &mut go);
    let out = branch_and_bound(
        &mut slots,
        &mut secs[..count],
        &by_lo,
        &mut ids,
        &mut vec![Raise::default(); n * n / 2 + n],
        0,
        lb,
        total,
        1,
        schedule,
        &mut budget,
    );
    assert!(out.improved && out.peak >= lb, "{out:?} lb {lb} total {total} count {count}");
    for a in 0..n {
        assert!(slots[a].best + rows[a].2 <= out.peak);
        for b in a + 1..n {
            if rows[a].0 <= rows[b].1 && rows[b].0 <= rows[a].1 {
                let (x, y) = (slots[a].best, slots[b].best);
                assert!(x + rows[a].2 <= y || y + rows[b].2 <= x, "buffers {a} and {b} overlap");
            }
        }
    }
    out
}

/// D and J at 4,000 nodes, with the planner's schedule and with one that gives the bisection
/// the larger share, and D at 16,000 with the planner's (there a bisection probe fails at its
/// node limit and the next one starts above it): the node limit ends every run, so the pins
/// are the peaks the schedule reached.
#[test]
fn d_and_j_cut_at_4000_nodes() {
    let d = rows(include_str!("../../sim/data/minimalloc/D.1048576.csv"));
    let j = rows(include_str!("../../sim/data/minimalloc/J.1048576.csv"));
    let heavy = Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3, ..Schedule::DEFAULT };
    let got = [
        run(&d, 4_000, Schedule::DEFAULT),
        run(&j, 4_000, Schedule::DEFAULT),
        run(&d, 4_000, heavy),
        run(&j, 4_000, heavy),
        run(&d, 16_000, Schedule::DEFAULT),
    ];
    assert_eq!(
        got,
        [
            (1_087_488, 4_000, false),
            (1_137_664, 4_000, false),
            (1_086_464, 4_000, false),
            (1_137_664, 4_000, false),
            (1_061_888, 16_000, false)
        ]
    );
}

/// The planner's schedule (`Schedule::planner(first)`) is the default in every round that
/// begins within its first nodes, so a run cut there is the default's node for node; the
/// rounds that begin later give the lower-bound probe a quarter of the limit, and D at
/// 16,000 nodes ends elsewhere.
#[test]
fn the_planners_schedule_changes_only_its_late_rounds() {
    let d = rows(include_str!("../../sim/data/minimalloc/D.1048576.csv"));
    let got = [
        run(&d, 16_000, Schedule::planner(16_000)),
        run(&d, 16_000, Schedule::planner(u64::MAX)),
        run(&d, 16_000, Schedule::planner(2_000)),
        run(&d, 16_000, Schedule::planner(0)),
    ];
    assert_eq!(
        got,
        [
            (1_061_888, 16_000, false),
            (1_061_888, 16_000, false),
            (1_054_720, 16_000, false),
            (1_054_720, 16_000, false)
        ]
    );
}

/// `auto`'s work cap (`Schedule::auto`) ends a run once its slot visits reach the cap, whatever
/// its node count: on D (with n²/2 + n undo records, as `plan` lends) a cap of
/// 5,000,000 visits ends the run at a pinned node, its work pinned just past the cap (the
/// charge that crossed it); with no cap the same run goes on to its node limit and spends
/// more, and a node limit of the capped run's count gives the same plan.
#[test]
fn the_work_cap_ends_the_run() {
    let d = rows(include_str!("../../sim/data/minimalloc/D.1048576.csv"));
    let capped = run_out(&d, u64::MAX, Schedule::auto(5_000_000));
    let got = (capped.peak, capped.nodes, capped.work, capped.stopped, capped.optimal);
    assert_eq!(got, (1_087_488, 3_112, 5_000_171, true, false));
    let uncapped = run_out(&d, 4 * capped.nodes, Schedule::DEFAULT);
    assert!(uncapped.work > 2 * capped.work && uncapped.nodes == 4 * capped.nodes, "{uncapped:?}");
    assert_eq!(run(&d, capped.nodes + 1, Schedule::DEFAULT).0, capped.peak);
}
