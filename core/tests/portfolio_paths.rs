//! The portfolio's paths that `portfolio_report.rs` does not reach, each pinned by exact
//! values (member reports, peaks, work units, clock calls, the kept strategy, addresses): a
//! row whose estimate is exactly what is left, a skyline row that settles or finishes by first
//! fit depending on what its re-keys leave, the clock asked every 256 buffers of that first-fit
//! completion, `exact`'s timed skyline after a skyline row stopped there (and when its plan is
//! kept), the branch and bound skipped at the lower bound or where the sizes overflow, the
//! strategy reported after the repair, tied skyline preorders, and the retry of a skyline plan
//! above the general ceiling (only the buffers ending above it: issue 18's `>` -> `>=` in
//! `retry_above_ceiling` is killed by `a_buffer_ending_at_the_ceiling_is_not_retried`), and a
//! single strategy stopped by the caller's clock (no plan).

#[path = "support/xorshift.rs"]
mod xorshift;
use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{
    plan_buffers_with, Buffer, CcSize, Plan, PlanConfig, PlanError, StaticWorkspace, Strategy,
};
use std::cell::Cell;
use xorshift::xorshift;

#[path = "support/problem.rs"]
mod generate;
use generate::problem;

/// `portfolio_report.rs`'s problem `a` (60 buffers) with a different seed multiplier `k`
/// (`k = 6` is `a` itself).
fn small(k: u64) -> Vec<Buffer> {
    problem(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 60, 20, 12, 4)
}

/// `portfolio_report.rs`'s 600-buffer problem: every greedy pass is on the address-ordered
/// scan (estimate 600² / 2 = 180,000 units, 300 a buffer), a skyline row is estimated at
/// 901,029 units and a re-key at 80 (8 · log2 n).
fn big() -> Vec<Buffer> {
    problem(0x2545_F491_4F6C_DD1D, 600, 200, 20, 16)
}

/// 600 buffers as in [`big`] (defs over 200 instructions, lifetimes up to 20, one in 16 up
/// to 100) from seed multiplier `k`, of 1 to 4 pages of 4 KiB each: coarser sizes, so some
/// members reach the lower bound.
fn paged(k: u64) -> Vec<Buffer> {
    let mut x = k.wrapping_mul(0x2545_F491_4F6C_DD1D);
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..600)
        .map(|_| {
            let def = (next() % 200) as u32;
            let long = next() % 16 == 0;
            let life = (next() % if long { 100 } else { 20 }) as u32;
            Buffer::new(def, def + life, 4096 * (1 + next() % 4))
        })
        .collect()
}

/// Plans `bufs` with `strategy` at 256-byte alignment in a window of `window` bytes with a CC
/// region of `cc_mib` MiB, `work` units and `keep_going` as the clock; returns the result and
/// the addresses left in the workspace.
fn plan_with(
    bufs: &[Buffer],
    strategy: Strategy,
    window: u64,
    cc_mib: u64,
    work: u64,
    keep_going: &mut dyn FnMut() -> bool,
) -> (Result<Plan, PlanError>, Vec<u64>) {
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window, cc: CcSize::Mib(cc_mib), strategy };
    let mut budget = Budget::new(20_000, work, keep_going);
    let got = plan_buffers_with(bufs, 256, &cfg, &mut ws, &mut budget);
    let addresses = ws.infos[..bufs.len()].iter().map(|i| i.address).collect();
    (got, addresses)
}

/// As [`plan_with`] in a 1 GiB window without a CC region; the plan and how many times the
/// clock was asked. `answer(k)` is the clock's answer to its k-th call (from 1).
fn plan_counted(bufs: &[Buffer], strategy: Strategy, work: u64, answer: impl Fn(u64) -> bool) -> (Plan, u64) {
    let calls = Cell::new(0u64);
    let mut keep_going = || {
        calls.set(calls.get() + 1);
        answer(calls.get())
    };
    let (got, _) = plan_with(bufs, strategy, 1 << 30, 0, work, &mut keep_going);
    (got.unwrap_or_else(|e| panic!("{strategy:?}: {e}")), calls.get())
}

/// `Strategy::ALL` index of `s` (the plan's `strategy` metric).
fn index(s: Strategy) -> u64 {
    Strategy::ALL.iter().position(|&x| x == s).unwrap() as u64
}

/// A row runs when its estimate is at most what is left, equal included: on `a` the forced
/// sweep costs 7,200 units and the first skyline row 54,006, so with 61,206 units the skyline
/// row runs with nothing left over for re-keys (it settles; settled to the end it peaks at
/// 453,888, but its 29th buffer ends at 322,560, past the sweep's 316,416, and it stops there,
/// charged 29/60 of its estimate, so `greedy-load` runs after it), and with one unit less it is
/// over budget.
#[test]
fn a_row_costing_exactly_what_is_left_runs() {
    let a = small(6);
    let (p, _) = plan_counted(&a, Strategy::Auto, 61_206, |_| true);
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::Above { top: 322_560, placed: 29, work: 26_102 }));
    assert_eq!(p.members.runs()[5], (M::GreedyLoad, O::Ran { peak: 294_400, work: 1_051 }));
    let (p, _) = plan_counted(&a, Strategy::Auto, 61_205, |_| true);
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::OverBudget { cost: 54_006, left: 54_005 }));
}

/// The skyline row's re-key cap is half of what its estimate leaves, L, over 8 · log2 n = 48
/// units a re-key: `L / 96` re-keys, and `L - 48 · (L / 96)` units are spare for a first-fit
/// completion. It settles (no completion, its estimate charged alone) when a whole greedy pass
/// (1,800 units on `a`) would not fit in the spare. With L = 3,000 (31 re-keys, 1,512 spare) it
/// settles, peak 510,720; with L = 3,576 (37 re-keys, exactly 1,800 spare) it finishes by first
/// fit, 59 buffers at 30 units, and reaches 298,240. Settling, it stops once a buffer ends past
/// the sweep's 316,416 (its 37th, at 325,888; settled to the end it peaks at 510,720): only a
/// settling run gets there, a capped one finishes by first fit, which has no such stop.
#[test]
fn a_skyline_row_settles_unless_a_greedy_pass_fits_in_its_spare() {
    let a = small(6);
    let (p, _) = plan_counted(&a, Strategy::Auto, 7_200 + 54_006 + 3_000, |_| true);
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::Above { top: 325_888, placed: 37, work: 33_303 }));
    let (p, _) = plan_counted(&a, Strategy::Auto, 7_200 + 54_006 + 3_576, |_| true);
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::Ran { peak: 298_240, work: 54_006 + 59 * 30 }));
    assert_eq!(p.members.runs()[5], (M::GreedyLoad, O::Ran { peak: 294_400, work: 1_051 }));
    assert_eq!(p.members.runs()[6], (M::GreedyClass, O::OverBudget { cost: 1_800, left: 755 }));
}

/// On the 600-buffer problem with 1,400,000 units the first skyline row is capped at 2,368
/// re-keys with 503 buffers unplaced and finishes them by first fit (503 · 300 units). That
/// completion asks the caller's clock once every 256 buffers: after the row's own question
/// (call 1), at the 256th buffer (call 2) and no other time (503 < 512). A clock that says stop
/// from its third call lets the row finish and stops every later one, with 16 calls in all.
#[test]
fn a_first_fit_completion_asks_the_clock_every_256_buffers() {
    let (p, calls) = plan_counted(&big(), Strategy::Auto, 1_400_000, |k| k <= 2);
    let want: &[(M, O)] = &[
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 585_728, work: 120_000 }),
        (M::Skyline(1), O::Ran { peak: 547_072, work: 901_029 + 503 * 300 }),
        (M::SweepLong(3), O::OutOfTime),
        (M::GreedyLoad, O::OutOfTime),
        (M::GreedyClass, O::OutOfTime),
        (M::GreedySize, O::OutOfTime),
        (M::SweepLong(1), O::OutOfTime),
        (M::Skyline(2), O::OutOfTime),
        (M::GreedyStart, O::OutOfTime),
        (M::Skyline(0), O::OutOfTime),
        (M::BestFit, O::OutOfTime),
        (M::BestFitStart, O::OutOfTime),
        (M::Seed, O::OutOfTime),
        (M::SweepTwoEnded, O::OutOfTime),
        (M::BranchAndBound, O::OutOfTime),
        (M::Repair, O::OutOfTime),
    ];
    assert_eq!(p.members.runs(), want);
    assert_eq!((p.metrics.hwm, p.members.best, calls), (547_072, Some(M::Skyline(1)), 16));
}

/// The members' report when the clock says stop once, at its second call (the first-fit
/// completion of the capped skyline row, 256 buffers in), and yes otherwise: that row is
/// reported stopped; the branch and bound, allowed its work cap (`AUTO_EXACT_WORK` slot visits),
/// reaches the lower bound in 806 nodes (its row reports the nodes it expanded).
fn stopped_skyline_rows(timed: Option<O>) -> Vec<(M, O)> {
    let over = |cost| O::OverBudget { cost, left: 55_897 };
    let mut rows = vec![
        (M::SweepLong(7), O::NoLongSet),
        (M::SweepHot(3), O::Covered),
        (M::Sweep, O::Ran { peak: 585_728, work: 120_000 }),
        (M::Skyline(1), O::Stopped),
        (M::SweepLong(3), O::Ran { peak: 573_696, work: 172_174 }),
        (M::GreedyLoad, over(180_000)),
        // the sweep around the hot's second place: `greedy-load` did not fit, nor does it
        (M::SweepHot(3), over(171_984)),
        (M::GreedyClass, over(180_000)),
        (M::GreedySize, over(180_000)),
        (M::SweepLong(1), over(264_664)),
        (M::Skyline(2), over(901_029)),
        (M::GreedyStart, over(180_000)),
        (M::Skyline(0), over(901_029)),
        (M::BestFit, over(180_000)),
        (M::BestFitStart, over(180_000)),
        (M::Seed, over(360_000)),
        (M::SweepTwoEnded, over(639_672)),
    ];
    if let Some(o) = timed {
        rows.push((M::SkylineTimed, o));
    }
    rows.push((M::BranchAndBound, O::Ran { peak: 530_688, work: 806 }));
    rows
}

/// A skyline row whose first-fit completion the clock stops is reported stopped (its partial
/// plan not kept). `exact` then runs the three skyline preorders uncapped on the caller's clock
/// (the timed skyline, peak 533,504, better than the best row's 573,696) before its branch and
/// bound; `auto` does not. Both reach the lower bound 530,688 by the branch and bound. The
/// clock is asked 28 and 22 times (27 and 21 before the sweep around the hot's second place,
/// after `greedy-load`, asked it too): once more each than every row and every 256th node
/// alone, for the work the search spends between nodes (`ASK_EVERY_SPENT`).
#[test]
fn exact_retries_a_skyline_row_stopped_in_its_completion() {
    let bufs = big();
    let (p, calls) = plan_counted(&bufs, Strategy::Exact, 1_400_000, |k| k != 2);
    assert_eq!(p.members.runs(), stopped_skyline_rows(Some(O::Ran { peak: 533_504, work: 0 })));
    assert_eq!((p.metrics.hwm, p.metrics.lower_bound, calls), (530_688, 530_688, 28));
    let (p, calls) = plan_counted(&bufs, Strategy::Auto, 1_400_000, |k| k != 2);
    assert_eq!(p.members.runs(), stopped_skyline_rows(None));
    assert_eq!((p.metrics.hwm, p.members.best, calls), (530_688, Some(M::SweepLong(3)), 22));
}

/// `exact`'s timed skyline replaces the best row's plan only when its peak is lower. In the
/// run above, the clock also says stop from its 24th call on (the branch and bound's check, so
/// neither it nor the repair runs): the timed skyline's 533,504 is kept (the plan's strategy is
/// the skyline). Stopping from the 18th call on (the timed skyline's first question) settles
/// every preorder at its first question (calls 18 to 20); settled to the end the best peaks at
/// 1,560,320, but each stops once a buffer ends past the best row's 573,696 (the first at its
/// 269th buffer, at 585,472): the best row's plan (the sweep around the long-lived) is kept.
#[test]
fn the_timed_skyline_is_kept_only_when_lower() {
    let bufs = big();
    let above = O::Above { top: 585_472, placed: 269, work: 0 };
    for (last_yes, timed, hwm, strategy, all_calls) in [
        (23, O::Ran { peak: 533_504, work: 0 }, 533_504, Strategy::Skyline, 25),
        (17, above, 573_696, Strategy::Sweep, 22),
    ] {
        let (p, calls) = plan_counted(&bufs, Strategy::Exact, 1_400_000, |k| k != 2 && k <= last_yes);
        let runs = p.members.runs();
        assert_eq!(
            runs[17..],
            [(M::SkylineTimed, timed), (M::BranchAndBound, O::OutOfTime), (M::Repair, O::OutOfTime)],
            "clock yes up to call {last_yes}"
        );
        assert_eq!((p.metrics.hwm, p.metrics.strategy, calls), (hwm, index(strategy), all_calls));
    }
}

/// Once a member reaches the lower bound nothing runs after it, the branch and bound and the
/// repair included: here the sweep places the three buffers at the bound, 12,288 bytes.
#[test]
fn no_branch_and_bound_at_the_lower_bound() {
    let bufs = [Buffer::new(0, 1, 4096), Buffer::new(2, 3, 4096), Buffer::new(1, 2, 8192)];
    for s in [Strategy::Auto, Strategy::Exact] {
        let (p, calls) = plan_counted(&bufs, s, 700_000_000, |_| true);
        let runs = p.members.runs();
        assert_eq!(runs.len(), 16, "{s:?}: {runs:?}");
        // (the sweep around the hot before it is skipped: a greedy pass fits)
        assert_eq!(runs[1], (M::SweepHot(3), O::Covered));
        assert_eq!(runs[2], (M::Sweep, O::Ran { peak: 12_288, work: 120 }));
        assert!(runs[3..].iter().all(|&(_, o)| o == O::AtLowerBound), "{s:?}: {runs:?}");
        assert_eq!((p.metrics.hwm, p.metrics.lower_bound, calls), (12_288, 12_288, 0));
    }
}

/// The plan's strategy is the portfolio's only when the repair lowered the best member's
/// peak: on `a`'s construction from seed multiplier 2 with one buffer pinned, the branch and
/// bound stopped by the clock (its ask is the 13th), the repair lowers the best member's
/// (`greedy-load`) plan to 281,088, so the strategy is `auto`; from seed multiplier 6 (`c`)
/// the repair ends at the third skyline's 272,896, no lower, and the strategy stays the
/// skyline's. (The repair's work was 46,729 and 49,520 units before its best-fit order, and
/// 47,670 and 51,428 before its final settle went by the sections' tree where half the buffers
/// or more settle.)
#[test]
fn the_strategy_is_auto_only_when_the_repair_lowers_the_peak() {
    for (k, repaired, hwm, best, strategy) in [
        (2, O::Ran { peak: 281_088, work: 32_160 }, 281_088, M::GreedyLoad, Strategy::Auto),
        (6, O::Ran { peak: 272_896, work: 51_428 }, 272_896, M::Skyline(2), Strategy::Skyline),
    ] {
        let mut c = small(k);
        c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
        let (p, _) = plan_counted(&c, Strategy::Auto, 700_000_000, |call| call != 13);
        assert_eq!(p.members.runs()[16], (M::BranchAndBound, O::OutOfTime), "seed multiplier {k}");
        assert_eq!(p.members.runs().last(), Some(&(M::Repair, repaired)), "seed multiplier {k}");
        assert_eq!((p.metrics.hwm, p.members.best, p.metrics.strategy), (hwm, Some(best), index(strategy)));
    }
}

/// Where the candidates' sizes sum past `u64::MAX` (here a pinned 2^62-byte buffer at 2^62
/// and two free ones of 2^62 + 2^61 and 2^63 - 2^61 bytes: 2^64 in all) the branch and bound
/// is not tried at all, not even asked about the clock, and the skyline rows do not apply: with
/// a clock that says stop from its first call, the report has no branch-and-bound row. The
/// buffer of 2^62 + 2^61 bytes cannot go under the pinned one, so the plan is above the bound.
#[test]
fn sizes_summing_past_u64_skip_the_branch_and_bound() {
    let bufs = [
        Buffer::pinned(0, 1, 1 << 62, 1 << 62),
        Buffer::new(0, 1, (1 << 62) + (1 << 61)),
        Buffer::new(2, 2, (1 << 63) - (1 << 61)),
    ];
    for s in [Strategy::Auto, Strategy::Exact] {
        let calls = Cell::new(0u64);
        let mut stop = || {
            calls.set(calls.get() + 1);
            false
        };
        let (got, addresses) = plan_with(&bufs, s, u64::MAX, 0, 700_000_000, &mut stop);
        let p = got.unwrap_or_else(|e| panic!("{s:?}: {e}"));
        let runs = p.members.runs();
        assert_eq!(runs.len(), 17, "{s:?}: {runs:?}");
        assert_eq!(runs[2], (M::Sweep, O::Ran { peak: (1 << 63) + (1 << 62) + (1 << 61), work: 120 }));
        assert_eq!(runs[3], (M::Skyline(1), O::NotApplicable));
        assert_eq!(runs[16], (M::Repair, O::OutOfTime));
        assert_eq!(addresses, [1 << 62, 1 << 63, 0]);
        assert_eq!((p.metrics.lower_bound, calls.get()), ((1 << 63) + (1 << 61), 9));
    }
}

/// The skyline strategy keeps the first of tied preorders: from seed multiplier 195 the
/// preorders 1 and 2 both reach 228,864 (preorder 0: 235,776) with different plans, and the
/// plan is preorder 1's (addresses in units of 256 bytes). `exact`'s rows show the tie: the
/// row of preorder 1 runs to 228,864, and the row of preorder 2, after it, stops at its last
/// (60th) buffer, the one that ends at 228,864; preorder 0's row stops at its 58th, at 229,888.
#[test]
fn tied_skyline_preorders_keep_the_first() {
    let bufs = small(195);
    let (p, _) = plan_counted(&bufs, Strategy::Exact, 700_000_000, |_| true);
    let row = |m| p.members.runs().iter().find_map(|&(x, o)| (x == m).then_some(o));
    assert_eq!(row(M::Skyline(1)), Some(O::Ran { peak: 228_864, work: 54_006 }));
    assert_eq!(row(M::Skyline(2)), Some(O::Above { top: 228_864, placed: 60, work: 54_006 }));
    assert_eq!(row(M::Skyline(0)), Some(O::Above { top: 229_888, placed: 58, work: 52_205 }));
    let (got, addresses) = plan_with(&bufs, Strategy::Skyline, 1 << 30, 0, 700_000_000, &mut || true);
    assert_eq!(got.map(|p| p.metrics.hwm), Ok(228_864));
    let units: Vec<u64> = addresses.iter().map(|a| a / 256).collect();
    let want: [u64; 60] = [
        40, 762, 204, 867, 420, 327, 0, 52, 780, 117, 786, 718, 666, 824, 420, 603, 459, 249, 382, 293, 0,
        366, 885, 212, 117, 153, 544, 254, 420, 507, 0, 317, 740, 874, 465, 254, 602, 338, 366, 586, 0, 96,
        197, 563, 867, 708, 750, 401, 145, 797, 773, 846, 573, 878, 459, 811, 63, 661, 708, 518,
    ];
    assert_eq!(units, want);
}

/// `exact`'s timed skyline does not replace the best row's plan when it only ties it: on
/// [`paged`]`(8)`, with the skyline row stopped in its completion (call 2) and the clock saying
/// stop from its 25th call on (the branch and bound's check), the timed skyline's preorders
/// each reach the sweep's 573,440 (the first at its 595th buffer) and stop there, and the plan
/// stays the sweep's. The sweep around the 1/8 longest-lived stops at its 391st buffer, past
/// the sweep's peak (run to the end it peaks at 593,920).
#[test]
fn a_timed_skyline_that_ties_the_best_row_is_not_kept() {
    let (p, calls) = plan_counted(&paged(8), Strategy::Exact, 1_400_000, |k| k != 2 && k <= 24);
    let runs = p.members.runs();
    assert_eq!(runs[2], (M::Sweep, O::Ran { peak: 573_440, work: 120_000 }));
    assert_eq!(runs[3], (M::Skyline(1), O::Stopped));
    assert_eq!(runs[4], (M::SweepLong(3), O::Above { top: 577_536, placed: 391, work: 112_213 }));
    assert_eq!(
        runs[17..],
        [
            (M::SkylineTimed, O::Above { top: 573_440, placed: 595, work: 0 }),
            (M::BranchAndBound, O::OutOfTime),
            (M::Repair, O::OutOfTime)
        ]
    );
    assert_eq!(
        (p.metrics.hwm, p.members.best, p.metrics.strategy, calls),
        (573_440, Some(M::Sweep), index(Strategy::Sweep), 26)
    );
}

/// With a skyline row stopped in its completion, `exact` runs the timed skyline only while the
/// best plan is above the lower bound: on [`paged`]`(4)` the sweep around the 1/8
/// longest-lived reaches the bound, 573,440, so every later row is at the bound and nothing
/// follows them (5 clock calls: the skyline row's, its completion's, the sweep's row and two
/// in that sweep).
#[test]
fn no_timed_skyline_once_a_row_reaches_the_lower_bound() {
    let (p, calls) = plan_counted(&paged(4), Strategy::Exact, 1_400_000, |k| k != 2);
    let runs = p.members.runs();
    assert_eq!(runs.len(), 16, "{runs:?}");
    assert_eq!(
        runs[..5],
        [
            (M::SweepLong(7), O::NoLongSet),
            (M::SweepHot(3), O::Covered),
            (M::Sweep, O::Ran { peak: 598_016, work: 120_000 }),
            (M::Skyline(1), O::Stopped),
            (M::SweepLong(3), O::Ran { peak: 573_440, work: 170_114 }),
        ]
    );
    assert!(runs[5..].iter().all(|&(_, o)| o == O::AtLowerBound), "{runs:?}");
    assert_eq!((p.metrics.hwm, p.metrics.lower_bound, calls), (573_440, 573_440, 5));
}

/// A skyline plan above the general region's ceiling is retried as `select` retries: only the
/// buffers ending above the ceiling are lifted and placed again by first fit, lowest first
/// (below the ceiling, else in the CC region); the others keep their skyline addresses. On `a`
/// with 64,206 units the first skyline row settles (peak 510,720 in a 1 GiB window); under a
/// ceiling of 290,048 bytes with a 1 MiB CC region above it, its retried plan peaks at 325,376.
#[test]
fn a_skyline_plan_above_the_ceiling_retries_only_the_buffers_above_it() {
    let a = small(6);
    let ceiling = 290_048;
    let (got, _) =
        plan_with(&a, Strategy::Auto, ceiling + (1 << 20), 1, 7_200 + 54_006 + 3_000, &mut || true);
    let p = got.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::Ran { peak: 325_376, work: 54_006 }));
}

/// A buffer ending exactly at the general ceiling stays where the skyline put it (kills
/// `end() > ceiling` -> `>=` in `retry_above_ceiling`). In a plan of the skyline rule alone
/// no gap below such a buffer could hold it (the rule places the lowest minimum offset
/// first), but a settled run can leave one. On `small(1)` with 62,000 units the first
/// skyline row settles; under a ceiling of 125,696 bytes with a 1 MiB CC region
/// above it, its plan has a 12 KiB buffer (instructions 3–14) at 113,408, ending at the
/// ceiling. Retrying only the buffers above it peaks at 267,008 and the sweep's 262,656
/// stays the plan; lifting that buffer too would re-place it lower by first fit, the row
/// would peak at 247,040 and become the plan.
#[test]
fn a_buffer_ending_at_the_ceiling_is_not_retried() {
    let a = small(1);
    let ceiling = 125_696;
    let (got, _) = plan_with(&a, Strategy::Auto, ceiling + (1 << 20), 1, 7_200 + 54_006 + 794, &mut || true);
    let p = got.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.members.runs()[2], (M::Sweep, O::Ran { peak: 262_656, work: 7_200 }));
    assert_eq!(p.members.runs()[3], (M::Skyline(1), O::Ran { peak: 267_008, work: 54_006 }));
    assert_eq!(p.metrics.hwm, 262_656);
}

/// A single strategy asks the caller's clock (every 256 buffers placed; the skyline through
/// its re-key checks, at least once) and, told to stop, has no plan: `PlanError::Stopped`
/// after the first "stop", not a plan with buffers left out. Told to go on, each makes its
/// plan (the peaks pinned).
#[test]
fn a_single_strategy_stopped_by_the_clock_has_no_plan() {
    let bufs = big();
    let peaks = [
        (Strategy::Seed, 574_464),
        (Strategy::GreedySize, 544_256),
        (Strategy::BestFit, 571_136),
        (Strategy::Skyline, 533_504),
        (Strategy::Sweep, 585_728),
        (Strategy::GreedyStart, 546_304),
        (Strategy::GreedyLoad, 559_616),
        (Strategy::GreedyClass, 552_448),
        (Strategy::BestFitStart, 553_984),
    ];
    for (s, peak) in peaks {
        let mut calls = 0u32;
        let mut stop = || {
            calls += 1;
            false
        };
        let (stopped, _) = plan_with(&bufs, s, 1 << 30, 0, 0, &mut stop);
        assert_eq!((stopped.err(), calls), (Some(PlanError::Stopped), 1), "{s:?}");
        let (free, _) = plan_with(&bufs, s, 1 << 30, 0, 0, &mut || true);
        assert_eq!(free.map(|p| p.metrics.hwm), Ok(peak), "{s:?}");
    }
}

/// `exact` on more buffers than its branch and bound searches
/// (`dramalloc_core::place::exact::EXACT_MAX_BUFFERS`, 2,048) reports the search as not
/// applicable, not as a run of 0 search nodes; on 2,048 it runs. 2,049 (2,048) buffers of a
/// fixed xorshift (lifetimes 0–39, 1 to 1,000 bytes) whose members stay above the bound.
/// (On a thread of 64 MiB of stack: the search recurses once per placed buffer, about 400
/// bytes a frame in a release build and several times that in a debug one, where
/// `.ci/mutants` runs the tests; `auto`'s run, to its work cap, goes 2,048 deep.)
#[test]
fn exact_above_its_buffer_limit_says_not_applicable() {
    let big_stack = std::thread::Builder::new().stack_size(64 << 20);
    big_stack.spawn(exact_above_its_buffer_limit).unwrap().join().unwrap();
}

fn exact_above_its_buffer_limit() {
    let run = |n: u32| {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let bufs: Vec<Buffer> = (0..n).map(|t| Buffer::new(t, t + next(40) as u32, 1 + next(1000))).collect();
        let mut st: Box<StaticWorkspace<4096, 4096, 0>> = Box::new(StaticWorkspace::new());
        let mut ws = st.workspace();
        let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Exact };
        let mut go = || true;
        let mut budget = Budget::new(100, 10_000_000, &mut go);
        let p = plan_buffers_with(&bufs, 1, &cfg, &mut ws, &mut budget).unwrap();
        p.members.runs().iter().find(|(m, _)| *m == M::BranchAndBound).map(|r| r.1)
    };
    assert_eq!(run(2049), Some(O::NotApplicable));
    assert!(matches!(run(2048), Some(O::Ran { .. })), "{:?}", run(2048));
}

/// The branch and bound searches around a pinned buffer (an obstacle it never moves): on the
/// two problems above with the clock always yes it reaches the lower bound, from the
/// members' 281,600 (seed multiplier 2, the seed's plan) and 272,896 (6, the third skyline's)
/// to 281,088 and 253,952 bytes, the pinned buffer at its 8,192, no buffer live with it
/// overlapping it; the repair does not run (nothing is above the bound).
#[test]
fn the_branch_and_bound_plans_around_a_pinned_buffer() {
    for (k, nodes, bound) in [(2, 3_075, 281_088), (6, 1_060, 253_952)] {
        let mut c = small(k);
        c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
        let (got, at) = plan_with(&c, Strategy::Auto, 1 << 30, 0, 700_000_000, &mut || true);
        let p = got.unwrap();
        let runs = p.members.runs();
        assert_eq!(runs.last(), Some(&(M::BranchAndBound, O::Ran { peak: bound, work: nodes })), "{k}");
        assert_eq!(
            (p.metrics.hwm, p.metrics.lower_bound, p.metrics.strategy),
            (bound, bound, index(Strategy::Auto))
        );
        assert_eq!(at[7], 8192);
        for (a, &x) in c.iter().zip(&at) {
            for (b, &y) in c.iter().zip(&at) {
                let live = a.def <= b.last_use && b.def <= a.last_use;
                let apart = x + a.bytes.next_multiple_of(256) <= y
                    || y + b.bytes.next_multiple_of(256) <= x
                    || core::ptr::eq(a, b);
                assert!(!live || apart, "{k}");
            }
        }
    }
}

/// The pinned buffers' list takes the last `⌈p / 4⌉` undo records: on `c` (one pinned buffer)
/// with exactly one record the branch and bound runs with none left for undoing (it
/// recomputes minimum offsets and scans for children instead: 1,147 nodes where the records
/// give 1,060) and still reaches the bound; with none it does not run, and the repair plans from the third skyline's 272,896
/// (its work 49,520 units before its best-fit order).
#[test]
fn the_pinned_list_takes_the_last_undo_records() {
    let mut c = small(6);
    c[7] = Buffer::pinned(c[7].def, c[7].last_use, 4096, 8192);
    for (records, last) in [
        (1, (M::BranchAndBound, O::Ran { peak: 253_952, work: 1_147 })),
        (0, (M::Repair, O::Ran { peak: 272_896, work: 51_428 })),
    ] {
        let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
        let mut ws = st.workspace();
        ws.raises = &mut core::mem::take(&mut ws.raises)[..records];
        let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
        let mut go = || true;
        let mut budget = Budget::new(20_000, 700_000_000, &mut go);
        let p = plan_buffers_with(&c, 256, &cfg, &mut ws, &mut budget).unwrap();
        assert_eq!(p.members.runs().last(), Some(&last), "{records} records");
        assert_eq!(ws.infos[7].address, 8192);
    }
}
