//! The happens-before check before every execution (`exec::edge_order`) and the `reverse`
//! fault: a reversed edge keeps every other edge; without a cycle the simulator fails at the
//! reversed edge's consumer, a reversal that closes a cycle fails with the cycle error naming
//! it, a hand-made cyclic edge set fails the same way instead of hanging the cores, and an
//! unmodified plan passes.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use dramalloc_core::multicore::Edge;
use dramalloc_sim::exec::edge_order::{check_edge_order, EdgeCycle, EdgeOrderError};
use dramalloc_sim::exec::executor::{execute, Collision, ExecOptions};
use dramalloc_sim::exec::faults::{inject, reversed, Fault, Injected};
use dramalloc_sim::input::{parse_program, read_program, Program};
use dramalloc_sim::model::SimModel;
use dramalloc_sim::planning::{plan_model, PlanOptions, PlannedModel};
use dramalloc_sim::run::{build_model, run, RunError, RunOptions, Split};

fn tiny() -> Program {
    parse_program(include_str!("support/tiny_tp.json"), "tiny", 100).unwrap()
}

fn planned(p: &Program, cores: usize) -> (SimModel, PlannedModel) {
    let model = build_model(p, cores, Split::TensorParallel).unwrap();
    let plan = plan_model(&model, &PlanOptions::default()).unwrap();
    (model, plan)
}

fn edge(from: (u32, u32), to: (u32, u32), kind_code: u32) -> Edge {
    Edge {
        from_core: from.0,
        from_instruction: from.1,
        to_core: to.0,
        to_instruction: to.1,
        kind_code,
        ..Edge::default()
    }
}

/// `execute` on another thread: a hang fails the test after 60 s instead of blocking it.
fn execute_within_a_minute(model: SimModel, plan: PlannedModel) -> Result<(), Collision> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = execute(&model, &plan, &ExecOptions::default());
        let _ = tx.send(r.map(|_| ()).map_err(|f| f.collision));
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("the execution hung")
}

/// Tiny on 2 cores has two RAW edges: each core's all-reduce stage (op 1) writes its slice
/// before the other core's gather (op 2) reads it. `reverse:0` turns the second around and
/// keeps the first; core 0's gather then runs before core 1 has staged its slice and reads
/// never-written memory: at the reversed edge's `to` op, by name and index.
#[test]
fn a_reversed_edge_fails_at_its_consumer_and_keeps_every_other_edge() {
    let (model, plan) = planned(&tiny(), 2);
    assert_eq!(
        plan.edges,
        vec![edge((0, 1), (1, 2), 0), Edge { from_entry: 1, to_entry: 1, ..edge((1, 1), (0, 2), 0) }]
    );
    let mut bad = plan.clone();
    let what = inject(&model, &mut bad, Fault::ReverseEdge(0)).unwrap();
    assert_eq!(what, Injected::Reversed { edge: plan.edges[1] });
    assert_eq!(what.to_string(), "reversed Raw edge core 1 op 1 -> core 0 op 2 (the other edges kept)");
    assert_eq!(bad.edges, vec![plan.edges[0], reversed(&plan.edges[1])]);
    assert_eq!(bad.edges[1], Edge { from_entry: 1, to_entry: 1, ..edge((0, 2), (1, 1), 0) });
    let got = execute_within_a_minute(model.clone(), bad).unwrap_err();
    assert_eq!(
        got,
        Collision::WrongBytes {
            core: 0,
            instruction: 2,
            op: "c0/allreduce_gather".into(),
            tensor: "a/cc_slice1".into(),
            found: "never-written memory".into(),
            address: 0x5e0c01002,
        }
    );
    assert!(what.named_by(&got));
    // the same through `run`: the simulator's failure path, exit 1
    let opts = RunOptions {
        cores: 2,
        split: Split::TensorParallel,
        fault: Some(Fault::ReverseEdge(0)),
        ..RunOptions::default()
    };
    let e = run(&tiny(), &opts).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    let RunError::Collision { error, summary, .. } = &e else { panic!("{e}") };
    assert_eq!(error, &got);
    assert_eq!(
        summary.verdict,
        "FAILED: core 0, op `c0/allreduce_gather`: reading `a/cc_slice1` at address 0x5e0c01002 found never-written memory"
    );
}

/// mp_face_detection_short_range on 2 cores: `reverse:0` picks the RAW edge core 0 op 26 ->
/// core 1 op 127, which core 0 op 26 -> core 1 op 27 and core 1's program order already
/// imply. Reversed, it closes a cycle: the run fails before executing anything, naming it.
#[test]
fn a_reversal_that_closes_a_cycle_fails_with_the_cycle_error_naming_it() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/models/mp_face_detection_short_range.json");
    let (model, plan) = planned(&read_program(&p, 1_000_000).unwrap(), 2);
    let mut bad = plan.clone();
    let what = inject(&model, &mut bad, Fault::ReverseEdge(0)).unwrap();
    let Injected::Reversed { edge: e } = what else { panic!("{what}") };
    assert_eq!(
        (e.from_core, e.from_instruction, e.to_core, e.to_instruction, e.kind_code),
        (0, 26, 1, 127, 0)
    );
    assert_eq!(bad.edges.len(), plan.edges.len());
    assert_eq!(
        bad.edges.iter().filter(|&x| !plan.edges.contains(x)).collect::<Vec<_>>(),
        vec![&reversed(&e)]
    );
    let got = execute_within_a_minute(model.clone(), bad.clone()).unwrap_err();
    let Collision::EdgeOrder(EdgeOrderError::Cycle(EdgeCycle { edge: named, through })) = &got else {
        panic!("{got}")
    };
    assert_eq!(*named, reversed(&e));
    let through: Vec<_> =
        through.iter().map(|t| (t.from_core, t.from_instruction, t.to_core, t.to_instruction)).collect();
    assert_eq!(through, vec![(0, 26, 1, 27)]);
    assert_eq!(
        got.to_string(),
        "the edges form a cycle (a runtime would deadlock): core 0 op 26 waits for core 1 op 127, which waits (through core 0 op 26 -> core 1 op 27) for core 0 op 26"
    );
    assert!(what.named_by(&got));
    // the campaign's rule: a failure elsewhere, or a cycle named by another edge, is no detection
    let elsewhere =
        Collision::Unaddressed { core: 1, instruction: 126, op: String::new(), tensor: String::new() };
    assert!(!what.named_by(&elsewhere));
    let other = EdgeCycle { edge: reversed(&through_edge(&plan)), through: Vec::new() };
    assert!(!what.named_by(&Collision::EdgeOrder(EdgeOrderError::Cycle(other))));
    let at_to =
        Collision::Unaddressed { core: 1, instruction: 127, op: String::new(), tensor: String::new() };
    assert!(what.named_by(&at_to));
}

/// The plan's edge core 0 op 26 -> core 1 op 27.
fn through_edge(plan: &PlannedModel) -> Edge {
    *plan
        .edges
        .iter()
        .find(|x| (x.from_core, x.from_instruction, x.to_core, x.to_instruction) == (0, 26, 1, 27))
        .unwrap()
}

/// Hand-made edge sets on tiny over 2 cores (5 ops per core): two edges that wait on each
/// other through program order, an edge back up its own core, a self-loop, and an edge to a
/// core the model does not have. Each fails before anything runs, none hangs.
#[test]
fn a_hand_made_cyclic_edge_set_fails_with_the_cycle_error_not_a_hang() {
    let (model, plan) = planned(&tiny(), 2);
    let with = |edges: Vec<Edge>| PlannedModel { edges, ..plan.clone() };
    // core 1 op 1 waits for core 0 op 3, after core 0 op 0, which waits for core 1 op 2
    let (a, b) = (edge((0, 3), (1, 1), 0), edge((1, 2), (0, 0), 1));
    let got = execute_within_a_minute(model.clone(), with(vec![b, a])).unwrap_err();
    assert_eq!(got, Collision::EdgeOrder(EdgeOrderError::Cycle(EdgeCycle { edge: a, through: vec![b] })));
    assert_eq!(
        got.to_string(),
        "the edges form a cycle (a runtime would deadlock): core 1 op 1 waits for core 0 op 3, which waits (through core 1 op 2 -> core 0 op 0) for core 1 op 1"
    );
    // the plan's own edges around them change nothing
    let mut edges = plan.edges.clone();
    edges.extend([a, b]);
    assert_eq!(
        check_edge_order(&model, &edges),
        Err(EdgeOrderError::Cycle(EdgeCycle { edge: a, through: vec![b] }))
    );
    // up its own core: op 1 waits for op 3
    let up = edge((0, 3), (0, 1), 2);
    let got = execute_within_a_minute(model.clone(), with(vec![up])).unwrap_err();
    assert_eq!(got, Collision::EdgeOrder(EdgeOrderError::Cycle(EdgeCycle { edge: up, through: vec![] })));
    assert!(got
        .to_string()
        .ends_with("core 0 op 1 waits for core 0 op 3, which waits (through program order) for core 0 op 1"));
    let lp = edge((1, 4), (1, 4), 0);
    assert_eq!(
        check_edge_order(&model, &[lp]),
        Err(EdgeOrderError::Cycle(EdgeCycle { edge: lp, through: vec![] }))
    );
    // a core or an op the model does not have
    for bad in [edge((2, 0), (0, 1), 0), edge((0, 1), (1, 5), 0)] {
        let got = execute_within_a_minute(model.clone(), with(vec![bad])).unwrap_err();
        assert_eq!(got, Collision::EdgeOrder(EdgeOrderError::OutOfRange { edge: bad }));
    }
    assert_eq!(
        EdgeOrderError::OutOfRange { edge: edge((2, 0), (0, 1), 0) }.to_string(),
        "edge core 2 op 0 -> core 0 op 1 names an op the model does not have"
    );
    // a ring over 5 cores: the message lists three edges of the way back and counts the rest
    let (model5, plan5) = planned(&tiny(), 5);
    let ring: Vec<Edge> = (0..4).map(|k| edge((k, k), (k + 1, k + 1), 0)).collect();
    let back = edge((4, 4), (0, 0), 1);
    let got = check_edge_order(&model5, &[&ring[..], &[back]].concat()).unwrap_err();
    assert_eq!(got, EdgeOrderError::Cycle(EdgeCycle { edge: back, through: ring }));
    assert_eq!(
        got.to_string(),
        "the edges form a cycle (a runtime would deadlock): core 0 op 0 waits for core 4 op 4, which waits (through core 0 op 0 -> core 1 op 1, core 1 op 1 -> core 2 op 2, core 2 op 2 -> core 3 op 3 and 1 more edge(s)) for core 0 op 0"
    );
    assert_eq!(check_edge_order(&model5, &plan5.edges), Ok(()));
    // backwards but no cycle: core 0 op 1 waits for core 1 op 4 (core 1 waits for nothing)
    assert_eq!(check_edge_order(&model, &[edge((1, 4), (0, 1), 0)]), Ok(()));
}

/// Unmodified plans pass: the edge check and the execution.
#[test]
fn an_unmodified_plan_passes() {
    for cores in [1, 2, 3, 8] {
        let (model, plan) = planned(&tiny(), cores);
        assert_eq!(check_edge_order(&model, &plan.edges), Ok(()), "{cores} cores");
        assert_eq!(execute_within_a_minute(model, plan), Ok(()), "{cores} cores");
    }
    let out = run(&tiny(), &RunOptions { cores: 2, split: Split::TensorParallel, ..RunOptions::default() })
        .unwrap();
    assert_eq!(out.summary.verdict, "OK");
    assert_eq!(out.summary.edges, 2);
}

/// magika_standard_v3_3 on 2 cores has 23 edges, few implied by others: of `reverse:0..40`,
/// 25 close a cycle and 15 fail at an op of the reversed edge. The failure does not depend on
/// the interleaving: the same collision under every executor jitter seed
/// (`exec::jitter`).
#[test]
fn a_reversal_fails_at_the_same_op_under_every_jitter_seed() {
    use dramalloc_sim::exec::executor::execute_jittered;
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/models/magika_standard_v3_3.json");
    let (model, plan) = planned(&read_program(&p, 1_000_000).unwrap(), 2);
    assert_eq!(plan.edges.len(), 23);
    let (mut cycles, mut at_op) = (0, 0);
    for seed in 0..40 {
        let mut bad = plan.clone();
        let what = inject(&model, &mut bad, Fault::ReverseEdge(seed)).unwrap();
        let quiet = execute(&model, &bad, &ExecOptions::default()).unwrap_err().collision;
        assert!(what.named_by(&quiet), "reverse:{seed}: {what}: {quiet}");
        if matches!(quiet, Collision::EdgeOrder(_)) {
            cycles += 1;
            continue;
        }
        at_op += 1;
        for jitter in 0..4 {
            let got = execute_jittered(&model, &bad, &ExecOptions::default(), Some(jitter)).unwrap_err();
            assert_eq!(got.collision, quiet, "reverse:{seed} jitter {jitter}");
        }
    }
    assert_eq!((cycles, at_op), (25, 15));
}
