//! A host with threads of its own beside the portfolio (`Budget::claim`): asked only where the
//! rows' estimates together pass the work budget; a single strategy it claims is skipped as
//! `Elsewhere`, and once it says a plan of its own is at the lower bound every later row, the
//! branch and bound and the repair are skipped as `ReachedElsewhere` (not the sweep that makes
//! the first plan: the portfolio always returns one). Each pinned by the exact member report
//! and the exact sequence of questions asked.

#[path = "support/problem.rs"]
mod generate;
use dramalloc_core::place::exact::{Ask, Budget, Claim};
use dramalloc_core::place::report::{Member as M, Outcome as O};
use dramalloc_core::{plan_buffers_with, Buffer, CcSize, PlanConfig, StaticWorkspace, Strategy};
use generate::problem;

/// `portfolio_report.rs`'s 600-buffer problem (every row's estimate is known there).
fn big() -> Vec<Buffer> {
    problem(0x2545_F491_4F6C_DD1D, 600, 200, 20, 16)
}

/// Plans `bufs` with `auto` at 256-byte alignment within `work` units, the host answering
/// `answer(question number, question)`; returns the member report, the peak and the questions.
fn plan(bufs: &[Buffer], work: u64, answer: impl Fn(usize, Ask) -> Claim) -> (Vec<(M, O)>, u64, Vec<Ask>) {
    let mut st: Box<StaticWorkspace<600, 600, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut asked = Vec::new();
    let mut go = || true;
    let mut claim = |s: Ask| {
        asked.push(s);
        answer(asked.len() - 1, s)
    };
    let mut budget = Budget {
        max_nodes: 20_000,
        work,
        repair_work: 0,
        keep_going: &mut go,
        claim: Some(&mut claim),
        nanos_left: None,
    };
    let plan = plan_buffers_with(bufs, 256, &cfg, &mut ws, &mut budget).unwrap();
    (plan.members.runs().to_vec(), plan.metrics.hwm, asked)
}

/// With the 0.7 × 10^9 units of `auto`'s default budget every row of the 600 buffers fits
/// (their estimates add up to 5,674,387): the host is asked nothing, even one that would
/// claim every strategy, and the plan is the one planned without a host.
#[test]
fn rows_within_the_budget_ask_the_host_nothing() {
    let (runs, hwm, asked) = plan(&big(), 700_000_000, |_, _| Claim::Elsewhere);
    assert_eq!(asked, []);
    assert!(runs.iter().all(|&(_, o)| !matches!(o, O::Elsewhere | O::ReachedElsewhere)), "{runs:?}");
    assert_eq!(hwm, 530_688);
    assert_eq!(runs[runs.len() - 1], (M::BranchAndBound, O::Ran { peak: 530_688, work: 806 }));
}

/// Within 10^6 units (the skyline row's 901,029 do not fit) the host is asked about each
/// single strategy the budget lets run, in the table's order, and about every other row with
/// `None`; the one it claims (`greedy-class`) is skipped and charged nothing, so the next
/// greedy row runs on the units it would have spent.
#[test]
fn a_strategy_the_host_plans_is_skipped_here() {
    let (runs, hwm, asked) = plan(&big(), 1_000_000, |_, s| {
        if s == Ask::Take(Strategy::GreedyClass) {
            Claim::Elsewhere
        } else {
            Claim::Here
        }
    });
    assert_eq!(hwm, 530_688);
    assert_eq!(runs[6], (M::GreedyClass, O::Elsewhere));
    assert_eq!(runs[7], (M::GreedySize, O::Ran { peak: 544_256, work: 122_786 }));
    // rows whose partial plan reaches the best peak so far (greedy-size's 544,256) stop there,
    // charged their estimate in proportion to the buffers placed (the scan: what it walked)
    assert_eq!(runs[8], (M::SweepLong(1), O::Above { top: 549_888, placed: 548, work: 241_726 }));
    assert_eq!(runs[9], (M::Skyline(2), O::OverBudget { cost: 901_029, left: 249_276 }));
    assert_eq!(runs[10], (M::GreedyStart, O::Above { top: 544_768, placed: 545, work: 107_251 }));
    assert_eq!(runs[12], (M::BestFit, O::OverBudget { cost: 180_000, left: 142_025 }));
    let singles: Vec<Strategy> =
        asked.iter().filter_map(|&a| if let Ask::Take(s) = a { Some(s) } else { None }).collect();
    use Strategy::{GreedyClass, GreedyLoad, GreedySize, GreedyStart};
    assert_eq!(singles, [GreedyLoad, GreedyClass, GreedySize, GreedyStart]);
    assert_eq!(asked.len(), 22);
    assert_eq!(asked.iter().filter(|&&a| a == Ask::RowsDone).count(), 1);
}

/// Once the host says a plan of its own is at the lower bound (from its eighth answer on),
/// every row left, the branch and bound and the repair are skipped as `ReachedElsewhere`, and
/// the plan is the best of the rows that ran (`greedy-load`'s).
#[test]
fn a_plan_at_the_bound_elsewhere_skips_what_is_left() {
    let (runs, hwm, asked) =
        plan(&big(), 1_000_000, |k, _| if k >= 7 { Claim::Reached } else { Claim::Here });
    assert_eq!(hwm, 559_616);
    assert_eq!(
        runs[..6],
        [
            (M::SweepLong(7), O::NoLongSet),
            (M::SweepHot(3), O::Covered),
            (M::Sweep, O::Ran { peak: 585_728, work: 120_000 }),
            (M::Skyline(1), O::OverBudget { cost: 901_029, left: 880_000 }),
            (M::SweepLong(3), O::Ran { peak: 573_696, work: 172_174 }),
            (M::GreedyLoad, O::Ran { peak: 559_616, work: 94_038 }),
        ]
    );
    assert_eq!(runs.len(), 18);
    assert!(runs[6..].iter().all(|&(_, o)| o == O::ReachedElsewhere), "{runs:?}");
    assert_eq!(runs[16].0, M::BranchAndBound);
    assert_eq!(runs[17].0, M::Repair);
    // six rows asked with None, then greedy-load's claim, then the question that says reached
    use Ask::{RowsDone, Status, Take};
    assert_eq!(
        asked[..8],
        [Status, Status, Status, Status, Status, Status, Take(Strategy::GreedyLoad), Status]
    );
    // the ten rows left ask Status, then RowsDone once; its Reached skips the branch and bound
    // without another question, and the repair asks Status
    assert_eq!(asked[17..], [RowsDone, Status]);
    assert_eq!(asked.len(), 19);
}

/// A host whose plan is at the lower bound before the first row asks (its first answer is
/// `Reached`) still gets a plan: the sweep that makes the first plan runs whatever the host
/// says, every other row, the branch and bound and the repair are skipped, and the plan is
/// the sweep's (the host ranks it against its own). Before, every row was skipped and the
/// portfolio returned no plan (`PlanError::Unallocated`): a fresh-user trial's 2,500 equal
/// buffers, whose greedy helper thread reached the bound first, failed with exit 2.
#[test]
fn a_plan_at_the_bound_elsewhere_before_the_first_row_still_leaves_the_sweeps() {
    let (runs, hwm, asked) = plan(&big(), 1_000_000, |_, _| Claim::Reached);
    assert_eq!(runs[2], (M::Sweep, O::Ran { peak: 585_728, work: 120_000 }));
    assert_eq!(hwm, 585_728);
    assert_eq!(runs.len(), 18);
    assert!(runs.iter().enumerate().all(|(k, &(_, o))| k == 2 || o == O::ReachedElsewhere), "{runs:?}");
    // every row asks Status (the sweep's answer is asked, and set aside), then RowsDone once,
    // and the repair asks Status
    use Ask::{RowsDone, Status};
    assert_eq!(asked[..16], [Status; 16]);
    assert_eq!(asked[16..], [RowsDone, Status]);
}

/// The host is asked only where the rows' estimates together (5,674,387 units on [`big`],
/// the skipped rows' included) pass the budget: at exactly that budget it is asked nothing,
/// with one unit less it is asked (here 25 questions, answered `Here`: the same plan).
#[test]
fn the_host_is_asked_only_past_the_rows_total() {
    let (_, hwm, asked) = plan(&big(), 5_674_387, |_, _| Claim::Here);
    assert_eq!((hwm, asked.len()), (530_688, 0));
    let (_, hwm, asked) = plan(&big(), 5_674_386, |_, _| Claim::Here);
    assert_eq!((hwm, asked.len(), asked[0]), (530_688, 25, Ask::Status));
}
