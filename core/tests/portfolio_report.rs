//! What `auto` and `exact` report, member by member, on fixed generated problems: which
//! members ran, the peak each one reached and the work it was charged, which stopped once a
//! buffer of theirs ended at or above the best peak so far (`Above`, and where), and why the
//! others were skipped (`Plan::members`), plus the single strategies' peaks. Exact values: any
//! change to a member's placement, the portfolio's order or its budget accounting shows up
//! here. Every reported peak is also checked against the lower bound and the winner.

use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{
    plan_buffers_with, Buffer, CcSize, Plan, PlanConfig, PlanError, StaticWorkspace, Strategy,
};

#[path = "support/problem.rs"]
mod generate;
use generate::problem;

/// Plans `bufs` with `strategy` at 256-byte alignment in a 1 GiB window, with `work` units
/// and a clock that says stop after `ticks` calls; returns the plan.
fn plan(bufs: &[Buffer], strategy: Strategy, work: u64, ticks: u64) -> Plan {
    match plan_in(1 << 30, bufs, strategy, work, ticks) {
        Ok(p) => p,
        Err(e) => panic!("{strategy:?}: {e}"),
    }
}

/// As [`plan`], in a window of `window` bytes, the error returned.
fn plan_in(
    window: u64,
    bufs: &[Buffer],
    strategy: Strategy,
    work: u64,
    ticks: u64,
) -> Result<Plan, PlanError> {
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
    let mut calls = 0u64;
    let mut keep_going = || {
        calls += 1;
        calls <= ticks
    };
    let mut budget = Budget::new(20_000, work, &mut keep_going);
    plan_buffers_with(bufs, 256, &cfg, &mut ws, &mut budget)
}

/// The report's runs, after checking that every peak is at or above the lower bound and that
/// the plan's peak is the best one that ran.
fn runs(p: &Plan) -> Vec<(M, O)> {
    let lb = p.metrics.lower_bound;
    let mut best = u64::MAX;
    for (m, o) in p.members.runs() {
        if let O::Ran { peak, .. } = o {
            assert!(*peak >= lb, "{m:?} reports {peak} below the lower bound {lb}");
            best = best.min(*peak);
        }
    }
    if best != u64::MAX {
        assert!(p.metrics.hwm <= best, "plan {} above its best member {best}", p.metrics.hwm);
    }
    p.members.runs().to_vec()
}

/// One expected plan: (peak, lower bound, member kept) and the member report.
type Want = ((u64, u64, Option<M>), &'static [(M, O)]);

const A_AUTO: Want = (
    (265_472, 265_472, Some(M::Skyline(2))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 293_632, placed: 25, work: 300 }),
        (M::GreedyClass, O::Above { top: 286_464, placed: 46, work: 809 }),
        (M::GreedySize, O::Above { top: 286_464, placed: 46, work: 832 }),
        (M::SweepLong(1), O::Above { top: 314_112, placed: 50, work: 12_031 }),
        (M::Skyline(2), O::Ran { peak: 276_224, work: 54_006 }),
        (M::GreedyStart, O::Above { top: 280_576, placed: 42, work: 721 }),
        (M::Skyline(0), O::Above { top: 280_832, placed: 59, work: 53_105 }),
        (M::BestFit, O::Above { top: 280_576, placed: 42, work: 861 }),
        (M::BestFitStart, O::Above { top: 280_576, placed: 42, work: 861 }),
        (M::Seed, O::Above { top: 281_344, placed: 24, work: 1_440 }),
        (M::SweepTwoEnded, O::Ran { peak: 307_200, work: 29_736 }),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

const A_TINY: Want = (
    (265_472, 265_472, Some(M::GreedyLoad)),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), O::OverBudget { cost: 54_006, left: 52_800 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Ran { peak: 294_400, work: 1_051 }),
        (M::GreedyClass, O::Above { top: 294_400, placed: 50, work: 961 }),
        (M::GreedySize, O::Above { top: 294_400, placed: 49, work: 957 }),
        (M::SweepLong(1), O::Above { top: 314_112, placed: 50, work: 12_031 }),
        (M::Skyline(2), O::OverBudget { cost: 54_006, left: 37_800 }),
        (M::GreedyStart, O::Above { top: 294_400, placed: 49, work: 959 }),
        (M::Skyline(0), O::OverBudget { cost: 54_006, left: 36_841 }),
        (M::BestFit, O::Above { top: 294_400, placed: 49, work: 1_176 }),
        (M::BestFitStart, O::Above { top: 294_400, placed: 49, work: 1_176 }),
        (M::Seed, O::Above { top: 306_176, placed: 36, work: 2_160 }),
        (M::SweepTwoEnded, O::Ran { peak: 307_200, work: 29_736 }),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

const A_CLOCK: Want = (
    (284_672, 265_472, Some(M::Skyline(1))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 293_632, placed: 25, work: 300 }),
        (M::GreedyClass, O::Above { top: 286_464, placed: 46, work: 809 }),
        (M::GreedySize, O::Above { top: 286_464, placed: 46, work: 832 }),
        (M::SweepLong(1), O::Above { top: 314_112, placed: 50, work: 12_031 }),
        (M::Skyline(2), O::OutOfTime),
        (M::GreedyStart, O::OutOfTime),
        (M::Skyline(0), O::OutOfTime),
        (M::BestFit, O::OutOfTime),
        (M::BestFitStart, O::OutOfTime),
        (M::Seed, O::OutOfTime),
        (M::SweepTwoEnded, O::OutOfTime),
        (M::BranchAndBound, O::OutOfTime),
        (M::Repair, O::OutOfTime),
    ],
);

const A_SINGLES: [u64; 11] =
    [306_176, 295_424, 295_936, 276_224, 316_416, 265_472, 265_472, 295_424, 294_400, 295_424, 295_936];

const B_AUTO: Want = (
    (240_128, 240_128, Some(M::GreedySize)),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 279_296, work: 12_600 }),
        (M::Skyline(1), O::Ran { peak: 263_424, work: 94_516 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 266_240, placed: 63, work: 1_435 }),
        (M::GreedyClass, O::Above { top: 265_984, placed: 69, work: 1_989 }),
        (M::GreedySize, O::Ran { peak: 262_144, work: 2_963 }),
        (M::SweepLong(1), O::Above { top: 273_152, placed: 76, work: 29_837 }),
        (M::Skyline(2), O::Above { top: 264_448, placed: 90, work: 94_516 }),
        (M::GreedyStart, O::Above { top: 262_400, placed: 66, work: 1_770 }),
        (M::Skyline(0), O::Above { top: 262_144, placed: 89, work: 93_465 }),
        (M::BestFit, O::Above { top: 264_704, placed: 69, work: 2_346 }),
        (M::BestFitStart, O::Above { top: 262_400, placed: 66, work: 2_145 }),
        (M::Seed, O::Above { top: 265_984, placed: 61, work: 5_490 }),
        (M::SweepTwoEnded, O::Ran { peak: 284_160, work: 52_044 }),
        (M::BranchAndBound, O::Ran { peak: 240_128, work: 139 }),
    ],
);

const B_TINY: Want = (
    (240_128, 240_128, Some(M::GreedySize)),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 279_296, work: 12_600 }),
        (M::Skyline(1), O::OverBudget { cost: 94_516, left: 47_400 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Ran { peak: 276_736, work: 2_376 }),
        (M::GreedyClass, O::Ran { peak: 275_712, work: 2_962 }),
        (M::GreedySize, O::Ran { peak: 262_144, work: 2_963 }),
        (M::SweepLong(1), O::Above { top: 273_152, placed: 76, work: 29_837 }),
        (M::Skyline(2), O::OverBudget { cost: 94_516, left: 9_262 }),
        (M::GreedyStart, O::Above { top: 262_400, placed: 66, work: 1_770 }),
        (M::Skyline(0), O::OverBudget { cost: 94_516, left: 7_492 }),
        (M::BestFit, O::Above { top: 264_704, placed: 69, work: 2_346 }),
        (M::BestFitStart, O::Above { top: 262_400, placed: 66, work: 2_145 }),
        (M::Seed, O::OverBudget { cost: 8_100, left: 3_001 }),
        (M::SweepTwoEnded, O::OverBudget { cost: 52_044, left: 3_001 }),
        (M::BranchAndBound, O::Ran { peak: 240_128, work: 139 }),
    ],
);

const B_CLOCK: Want = (
    (262_144, 240_128, Some(M::GreedySize)),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 279_296, work: 12_600 }),
        (M::Skyline(1), O::Ran { peak: 263_424, work: 94_516 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 266_240, placed: 63, work: 1_435 }),
        (M::GreedyClass, O::Above { top: 265_984, placed: 69, work: 1_989 }),
        (M::GreedySize, O::Ran { peak: 262_144, work: 2_963 }),
        (M::SweepLong(1), O::Above { top: 273_152, placed: 76, work: 29_837 }),
        (M::Skyline(2), O::OutOfTime),
        (M::GreedyStart, O::OutOfTime),
        (M::Skyline(0), O::OutOfTime),
        (M::BestFit, O::OutOfTime),
        (M::BestFitStart, O::OutOfTime),
        (M::Seed, O::OutOfTime),
        (M::SweepTwoEnded, O::OutOfTime),
        (M::BranchAndBound, O::OutOfTime),
        (M::Repair, O::OutOfTime),
    ],
);

const B_SINGLES: [u64; 11] =
    [265_984, 262_144, 273_152, 263_424, 279_296, 240_128, 240_128, 280_832, 276_736, 275_712, 279_552];

const C_AUTO: Want = (
    (253_952, 253_952, Some(M::Skyline(2))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 303_360, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 279_808, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 282_624, placed: 24, work: 294 }),
        (M::GreedyClass, O::Above { top: 283_136, placed: 45, work: 799 }),
        (M::GreedySize, O::Above { top: 283_136, placed: 45, work: 821 }),
        (M::SweepLong(1), O::Above { top: 307_712, placed: 49, work: 11_791 }),
        (M::Skyline(2), O::Ran { peak: 272_896, work: 54_006 }),
        (M::GreedyStart, O::Above { top: 277_248, placed: 41, work: 707 }),
        // 58 of the 59 free buffers placed (the pinned one is not counted)
        (M::Skyline(0), O::Above { top: 273_152, placed: 58, work: 52_205 }),
        (M::BestFit, O::Above { top: 277_248, placed: 41, work: 861 }),
        (M::BestFitStart, O::Above { top: 277_248, placed: 41, work: 861 }),
        (M::Seed, O::Above { top: 282_368, placed: 24, work: 1_440 }),
        (M::SweepTwoEnded, O::NotApplicable),
        (M::BranchAndBound, O::Ran { peak: 253_952, work: 1_060 }),
    ],
);

const C_TINY: Want = (
    (253_952, 253_952, Some(M::GreedyLoad)),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 303_360, work: 7_200 }),
        (M::Skyline(1), O::OverBudget { cost: 54_006, left: 52_800 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Ran { peak: 282_624, work: 1_111 }),
        (M::GreedyClass, O::Above { top: 283_136, placed: 45, work: 799 }),
        (M::GreedySize, O::Above { top: 283_136, placed: 45, work: 821 }),
        (M::SweepLong(1), O::Above { top: 307_712, placed: 49, work: 11_791 }),
        (M::Skyline(2), O::OverBudget { cost: 54_006, left: 38_278 }),
        (M::GreedyStart, O::Above { top: 283_136, placed: 45, work: 820 }),
        (M::Skyline(0), O::OverBudget { cost: 54_006, left: 37_458 }),
        (M::BestFit, O::Above { top: 283_136, placed: 45, work: 1_035 }),
        (M::BestFitStart, O::Above { top: 283_136, placed: 45, work: 1_035 }),
        (M::Seed, O::Above { top: 282_880, placed: 29, work: 1_740 }),
        (M::SweepTwoEnded, O::NotApplicable),
        (M::BranchAndBound, O::Ran { peak: 253_952, work: 1_062 }),
    ],
);

const C_CLOCK: Want = (
    (279_808, 253_952, Some(M::Skyline(1))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 303_360, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 279_808, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 282_624, placed: 24, work: 294 }),
        (M::GreedyClass, O::Above { top: 283_136, placed: 45, work: 799 }),
        (M::GreedySize, O::Above { top: 283_136, placed: 45, work: 821 }),
        (M::SweepLong(1), O::Above { top: 307_712, placed: 49, work: 11_791 }),
        (M::Skyline(2), O::OutOfTime),
        (M::GreedyStart, O::OutOfTime),
        (M::Skyline(0), O::OutOfTime),
        (M::BestFit, O::OutOfTime),
        (M::BestFitStart, O::OutOfTime),
        (M::Seed, O::OutOfTime),
        (M::SweepTwoEnded, O::OutOfTime),
        (M::BranchAndBound, O::OutOfTime),
        (M::Repair, O::OutOfTime),
    ],
);

const C_SINGLES: [u64; 11] =
    [294_912, 292_096, 292_608, 272_896, 303_360, 253_952, 253_952, 292_096, 282_624, 292_096, 292_608];

const A_W80: Want = (
    (265_472, 265_472, Some(M::Skyline(1))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 292_608, work: 55_356 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 293_632, placed: 25, work: 300 }),
        (M::GreedyClass, O::Above { top: 294_400, placed: 50, work: 961 }),
        (M::GreedySize, O::Above { top: 294_400, placed: 49, work: 957 }),
        (M::SweepLong(1), O::Above { top: 314_112, placed: 50, work: 12_031 }),
        (M::Skyline(2), O::OverBudget { cost: 54_006, left: 3_195 }),
        (M::GreedyStart, O::Above { top: 294_400, placed: 49, work: 959 }),
        (M::Skyline(0), O::OverBudget { cost: 54_006, left: 2_236 }),
        (M::BestFit, O::Above { top: 294_400, placed: 49, work: 1_176 }),
        (M::BestFitStart, O::OverBudget { cost: 1_800, left: 1_060 }),
        (M::Seed, O::OverBudget { cost: 3_600, left: 1_060 }),
        (M::SweepTwoEnded, O::OverBudget { cost: 29_736, left: 1_060 }),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

const A_W150: Want = (
    (265_472, 265_472, Some(M::Skyline(1))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }),
        (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 293_632, placed: 25, work: 300 }),
        (M::GreedyClass, O::Above { top: 286_464, placed: 46, work: 809 }),
        (M::GreedySize, O::Above { top: 286_464, placed: 46, work: 832 }),
        (M::SweepLong(1), O::Above { top: 314_112, placed: 50, work: 12_031 }),
        (M::Skyline(2), O::Above { top: 290_304, placed: 46, work: 42_364 }),
        (M::GreedyStart, O::Above { top: 286_464, placed: 46, work: 834 }),
        (M::Skyline(0), O::OverBudget { cost: 54_006, left: 31_624 }),
        (M::BestFit, O::Above { top: 286_464, placed: 46, work: 1_035 }),
        (M::BestFitStart, O::Above { top: 286_464, placed: 46, work: 1_035 }),
        (M::Seed, O::Above { top: 293_632, placed: 25, work: 1_500 }),
        (M::SweepTwoEnded, O::OverBudget { cost: 29_736, left: 28_054 }),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

const A_N280: Want = (
    (265_472, 265_472, Some(M::Skyline(2))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Failed),
        (M::Skyline(1), O::Failed),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Failed),
        (M::GreedyClass, O::Failed),
        (M::GreedySize, O::Failed),
        (M::SweepLong(1), O::Failed),
        (M::Skyline(2), O::Ran { peak: 276_224, work: 54_006 }),
        (M::GreedyStart, O::Failed),
        (M::Skyline(0), O::Failed),
        (M::BestFit, O::Failed),
        (M::BestFitStart, O::Failed),
        (M::Seed, O::Failed),
        (M::SweepTwoEnded, O::Failed),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

const A_N300: Want = (
    (265_472, 265_472, Some(M::Skyline(2))),
    &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Failed),
        (M::Skyline(1), O::Ran { peak: 284_672, work: 54_006 }),
        (M::SweepLong(3), O::NoLongSet),
        (M::GreedyLoad, O::Above { top: 293_632, placed: 25, work: 300 }),
        (M::GreedyClass, O::Above { top: 286_464, placed: 46, work: 809 }),
        (M::GreedySize, O::Above { top: 286_464, placed: 46, work: 832 }),
        (M::SweepLong(1), O::Failed),
        (M::Skyline(2), O::Ran { peak: 276_224, work: 54_006 }),
        (M::GreedyStart, O::Above { top: 280_576, placed: 42, work: 721 }),
        (M::Skyline(0), O::Above { top: 280_832, placed: 59, work: 53_105 }),
        (M::BestFit, O::Above { top: 280_576, placed: 42, work: 861 }),
        (M::BestFitStart, O::Above { top: 280_576, placed: 42, work: 861 }),
        (M::Seed, O::Above { top: 281_344, placed: 24, work: 1_440 }),
        (M::SweepTwoEnded, O::Failed),
        (M::BranchAndBound, O::Ran { peak: 265_472, work: 86 }),
    ],
);

/// The three problems: `a` (60 buffers), `b` (90) and `c` (`a` with one buffer pinned at
/// 8 KiB, so the sweeps around long-lived sets do not apply; the sweep places around the
/// pinned buffer, the load orders count it, the skylines start raised over it, and the
/// branch and bound takes it as an obstacle).
fn problems() -> [Vec<Buffer>; 3] {
    let a = problem(6u64.wrapping_mul(0x9E37_79B9_7F4A_7C15), 60, 20, 12, 4);
    let b = problem(0x9E37_79B9_7F4A_7C15, 90, 30, 15, 5);
    let mut c = a.clone();
    c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
    [a, b, c]
}

/// Checks one plan's peak, lower bound, kept member and member report.
fn expect(name: &str, p: &Plan, want: Want) {
    let got = runs(p);
    assert_eq!((p.metrics.hwm, p.metrics.lower_bound, p.members.best), want.0, "{name}");
    assert_eq!(got, want.1, "{name}: the member report");
    assert_eq!(p.members.improved_by, improvers(&got), "{name}: the steps that lowered the peak");
}

/// The steps a report says lowered the kept plan's peak: the branch and bound where it ran
/// below every member, the repair where it ran below everything before it.
fn improvers(runs: &[(M, O)]) -> [Option<M>; 2] {
    let mut best = u64::MAX;
    let mut out = [None; 2];
    for &(m, o) in runs {
        if let O::Ran { peak, .. } = o {
            match m {
                M::BranchAndBound if peak < best => out[0] = Some(m),
                M::Repair if peak < best => out[1] = Some(m),
                _ => {}
            }
            best = best.min(peak);
        }
    }
    out
}

/// `auto` with its whole work budget: every member runs until one reaches the lower bound
/// (the branch and bound on all three); on `c` the sweeps around the long-lived do not apply
/// (a pinned candidate), the skylines start raised over it, and the branch and bound takes
/// the third skyline's 272,896 to the bound, 253,952, around the pinned buffer. `exact`
/// makes the same report on all three.
#[test]
fn auto_runs_every_member_it_can_afford() {
    let [a, b, c] = problems();
    for (name, bufs, want) in [("a", &a, A_AUTO), ("b", &b, B_AUTO), ("c", &c, C_AUTO)] {
        let p = plan(bufs, Strategy::Auto, 700_000_000, u64::MAX);
        expect(name, &p, want);
        // the branch and bound from the skyline's plan
        assert_eq!(p.members.improved_by, [Some(M::BranchAndBound), None], "{name}");
        let e = plan(bufs, Strategy::Exact, 100_000_000, u64::MAX);
        expect(&format!("{name} exact"), &e, want);
    }
}

/// `auto` with 60,000 work units: the members that cost more than what is left are skipped
/// as over budget, with their cost and what was left.
#[test]
fn auto_skips_what_its_work_budget_cannot_pay() {
    let [a, b, c] = problems();
    for (name, bufs, want) in [("a", &a, A_TINY), ("b", &b, B_TINY), ("c", &c, C_TINY)] {
        expect(name, &plan(bufs, Strategy::Auto, 60_000, u64::MAX), want);
    }
}

/// `auto` with no work budget: the sweep runs anyway (`auto` always has a plan) and its row
/// shows what it cost, its estimate, not the nothing the budget could pay; every other row is
/// over budget with nothing left.
#[test]
fn a_forced_sweep_reports_its_cost() {
    let [a, _, _] = problems();
    let p = plan(&a, Strategy::Auto, 0, u64::MAX);
    assert_eq!(runs(&p)[2], (M::Sweep, O::Ran { peak: 316_416, work: 7_200 }));
    assert_eq!(runs(&p)[3], (M::Skyline(1), O::OverBudget { cost: 54_006, left: 0 }));
    assert_eq!(runs(&p)[5], (M::GreedyLoad, O::OverBudget { cost: 1_800, left: 0 }));
}

/// `auto` whose clock says stop from its sixth call on: the members after that are out of
/// time and the plan is the best of those that ran.
#[test]
fn auto_stops_on_the_callers_clock() {
    let [a, b, c] = problems();
    for (name, bufs, want) in [("a", &a, A_CLOCK), ("b", &b, B_CLOCK), ("c", &c, C_CLOCK)] {
        expect(name, &plan(bufs, Strategy::Auto, 700_000_000, 5), want);
    }
}

/// Each single strategy's peak (in [`Strategy::ALL`] order), with an empty member report;
/// `exact` and `auto` reach the best of them.
#[test]
fn single_strategies_reach_their_own_peaks() {
    let [a, b, c] = problems();
    for (name, bufs, want) in [("a", &a, A_SINGLES), ("b", &b, B_SINGLES), ("c", &c, C_SINGLES)] {
        let mut got = [0u64; 11];
        for (g, s) in got.iter_mut().zip(Strategy::ALL) {
            let p = plan(bufs, s, 700_000_000, u64::MAX);
            if !matches!(s, Strategy::Auto | Strategy::Exact) {
                assert_eq!(p.members.runs(), &[], "{name} {s:?}: a single strategy reports no member");
            }
            *g = p.metrics.hwm;
        }
        assert_eq!(got, want, "{name}");
        assert_eq!(got.iter().min(), Some(&got[5]), "{name}: exact is the best");
    }
}

/// `auto` on `a` with 80,000 and 150,000 work units: the first skyline member reaches its
/// re-key cap and finishes by first fit (more work than its estimate, a higher peak than
/// uncapped), the other preorders are over budget or capped in turn; at 150,000 the second,
/// capped, stops in its first-fit completion at the buffer that ends at 290,304, past the
/// first's 284,672 (its 46th placed), and the units of the buffers it did not place go back to
/// the budget.
#[test]
fn a_capped_skyline_finishes_by_first_fit() {
    let [a, _, _] = problems();
    expect("80,000 units", &plan(&a, Strategy::Auto, 80_000, u64::MAX), A_W80);
    expect("150,000 units", &plan(&a, Strategy::Auto, 150_000, u64::MAX), A_W150);
}

/// `auto` on `a` in windows of 280,000 and 300,000 bytes: the members whose plans do not fit
/// fail (the others and the branch and bound still plan, at the lower bound); in 270,000 bytes
/// nothing fits, and the error names the buffer that does not.
#[test]
fn members_that_do_not_fit_the_window_fail() {
    let [a, _, _] = problems();
    let planned = |w| plan_in(w, &a, Strategy::Auto, 700_000_000, u64::MAX).unwrap_or_else(|e| panic!("{e}"));
    expect("280,000 bytes", &planned(280_000), A_N280);
    expect("300,000 bytes", &planned(300_000), A_N300);
    let err = plan_in(270_000, &a, Strategy::Auto, 700_000_000, u64::MAX).err();
    let want = PlanError::DoesNotFit {
        location: 59,
        size: 15_872,
        needed: 271_104,
        available: 270_000,
        largest_gap: 14_768,
    };
    assert_eq!(err, Some(want));
}

/// A clock that says stop in the middle of a member: with 600 buffers every placer asks the
/// clock once every 256 buffers placed ([`dramalloc_core::place::clock::ASK_EVERY`]), so the
/// member running then is reported stopped (its unfinished plan not kept) and every later
/// one out of time; the sweep, the first row to make a plan, is not stopped by the clock
/// even when it says stop from its first call.
#[test]
fn a_member_stopped_by_the_clock_is_reported_and_not_kept() {
    let bufs = problem(0x2545_F491_4F6C_DD1D, 600, 200, 20, 16);
    let sweep = (M::Sweep, O::Ran { peak: 585_728, work: 120_000 });
    let skyline = (M::Skyline(1), O::Ran { peak: 541_696, work: 1_556_389 });
    // the sweep around the hot asks no clock where a greedy pass fits in the budget left
    let hot = (M::SweepHot(3), O::Covered);
    // the rows between the skyline and the one the clock stops each stop where a buffer of
    // theirs ends at or above the skyline's peak
    let sweep_long = (M::SweepLong(3), O::Above { top: 546_560, placed: 288, work: 82_643 });
    let load = (M::GreedyLoad, O::Above { top: 559_616, placed: 57, work: 1_352 });
    let class = (M::GreedyClass, O::Above { top: 542_976, placed: 491, work: 90_498 });
    type Case<'a> = (u64, u64, M, &'a [(M, O)]);
    let cases: [Case; 3] = [
        (0, 585_728, M::Sweep, &[hot, sweep]),
        (4, 541_696, M::Skyline(1), &[hot, sweep, skyline, (M::SweepLong(3), O::Stopped)]),
        (
            10,
            541_696,
            M::Skyline(1),
            &[hot, sweep, skyline, sweep_long, load, class, (M::GreedySize, O::Stopped)],
        ),
    ];
    for (ticks, hwm, best, ran) in cases {
        let p = plan(&bufs, Strategy::Auto, 700_000_000, ticks);
        assert_eq!((p.metrics.hwm, p.metrics.lower_bound, p.members.best), (hwm, 530_688, Some(best)));
        let got = runs(&p);
        assert_eq!(got[0], (M::SweepLong(7), O::NoLongSet), "ticks {ticks}");
        assert_eq!(&got[1..=ran.len()], ran, "ticks {ticks}");
        // (the sweep around the hot, first of them, is skipped before the clock is asked: a
        // greedy pass fits)
        assert!(got[ran.len() + 1..].iter().all(|&(_, o)| o == O::OutOfTime), "ticks {ticks}: {got:?}");
        assert_eq!(got.len(), 18, "ticks {ticks}");
    }
}

/// A clock that says stop from its first call, on a problem whose longest-lived buffer is
/// alone in its lifetime class: the sweep around the 1/128 longest-lived would make the first
/// plan, so the clock does not skip it (only the budget could); the sweep after it is then
/// out of time like every later row. Without the clock the same row runs with the same peak.
#[test]
fn the_row_that_makes_the_first_plan_is_not_skipped_by_the_clock() {
    let mut bufs = problem(0x2545_F491_4F6C_DD1D, 599, 400, 8, 40);
    bufs.push(Buffer::new(0, 1600, 8192));
    let p = plan(&bufs, Strategy::Auto, 700_000_000, 0);
    assert_eq!(
        (p.metrics.hwm, p.metrics.lower_bound, p.members.best),
        (307_712, 274_176, Some(M::SweepLong(7)))
    );
    let got = runs(&p);
    assert_eq!(got[0], (M::SweepLong(7), O::Ran { peak: 307_712, work: 135_198 }));
    assert_eq!(got[1], (M::SweepHot(3), O::Covered));
    assert_eq!(got[8], (M::SweepLong(1), O::NoLongSet), "its long set is the first row's");
    assert!(got[1..].iter().enumerate().all(|(k, &(_, o))| k == 0 || k == 7 || o == O::OutOfTime), "{got:?}");
    // a clock that lets the sweep start (one call) and stops it at its first question (256
    // buffers in): with a plan already made, the sweep is stopped like any member
    let p = plan(&bufs, Strategy::Auto, 700_000_000, 1);
    assert_eq!(runs(&p)[..4], [got[0], got[1], (M::Sweep, O::Stopped), (M::Skyline(1), O::OutOfTime)]);
    assert_eq!(p.metrics.hwm, 307_712);
    let free = plan(&bufs, Strategy::Auto, 700_000_000, u64::MAX);
    assert_eq!(runs(&free)[..3], [got[0], got[1], (M::Sweep, O::Ran { peak: 300_544, work: 120_000 })]);
    assert_eq!((free.metrics.hwm, free.members.best), (274_176, Some(M::Skyline(1))));
}

/// With a buffer padded for its own alignment the bound is of the padded sizes: a member at
/// it is not optimal for the real sizes, so no later member is skipped for it. Two 100-byte
/// buffers apart in time, aligned to 64 in a plan aligned to 1 (padded to 163 bytes): the
/// sweep's plan is at the padded bound, 163, and every other row still runs; each row's peak
/// is its plan's once unpadded, 100 (the padded 163 before rows were ranked unpadded);
/// without the alignment the rows after the sweep are skipped at the bound.
#[test]
fn padded_buffers_skip_no_member_at_the_padded_bound() {
    let run = |own: u64| {
        let bufs = [Buffer::new(0, 1, 100).aligned_to(own), Buffer::new(2, 3, 100).aligned_to(own)];
        let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
        let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
        let mut go = || true;
        let mut budget = Budget::new(20_000, 1_000_000, &mut go);
        let p = plan_buffers_with(&bufs, 1, &cfg, &mut st.workspace(), &mut budget).unwrap();
        (p.members.lower_bound, p.metrics.hwm, p.members.runs().to_vec())
    };
    let (lb, hwm, runs) = run(64);
    assert_eq!((lb, hwm), (163, 100));
    let ran = |peak, work| O::Ran { peak, work };
    assert_eq!(
        runs,
        [
            (M::SweepLong(7), O::NoLongSet),
            (M::SweepHot(3), O::Covered),
            (M::Sweep, ran(100, 80)),
            (M::Skyline(1), ran(100, 600)),
            (M::SweepLong(3), O::NoLongSet),
            (M::GreedyLoad, ran(100, 1)),
            (M::GreedyClass, ran(100, 1)),
            (M::GreedySize, ran(100, 1)),
            (M::SweepLong(1), O::NoLongSet),
            (M::Skyline(2), ran(100, 600)),
            (M::GreedyStart, ran(100, 1)),
            (M::Skyline(0), ran(100, 600)),
            (M::BestFit, ran(100, 1)),
            (M::BestFitStart, ran(100, 1)),
            (M::Seed, ran(100, 4)),
            (M::SweepTwoEnded, ran(100, 100)),
        ]
    );
    let (lb, hwm, runs) = run(1);
    assert_eq!((lb, hwm), (100, 100));
    assert_eq!(runs.last(), Some(&(M::SweepTwoEnded, O::AtLowerBound)));
}

/// A member that declines the input before any work gives its estimate back: with no
/// sections lent, `sweep-long/2` cannot build its class index and declines (not applicable),
/// and the members after it see the budget as it was before it.
#[test]
fn a_member_that_declines_is_not_charged() {
    let [_, _, c] = problems();
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    ws.sections = &mut [];
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut keep_going = || true;
    let mut budget = Budget::new(20_000, 60_000, &mut keep_going);
    let p = plan_buffers_with(&c, 256, &cfg, &mut ws, &mut budget).unwrap();
    let r = runs(&p);
    assert_eq!(r[8], (M::SweepLong(1), O::NotApplicable));
    // the repair gets all the rows left: 60,000 - 7,200 - 1,260 - 1,169 - 1,194 - 1,195 -
    // 1,653 - 1,653 - 2,100 (the rows after greedy-load stop where a buffer of theirs ends at
    // or above its peak, charged their estimate in proportion to the buffers placed; charged
    // its 14,438, the declined row would leave 28,138)
    let ran: u64 = r
        .iter()
        .filter_map(|(m, o)| match o {
            O::Ran { work, .. } | O::Above { work, .. } if *m != M::Repair => Some(*work),
            _ => None,
        })
        .sum();
    assert_eq!((ran, r.last()), (17_424, Some(&(M::Repair, O::Ran { peak: 285_952, work: 42_576 }))));
}
