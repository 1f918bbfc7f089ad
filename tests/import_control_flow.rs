//! ONNX control flow: an `If` or `Loop` reads the outer tensors its subgraphs read, so they
//! are among its inputs and stay live (and unshared) until it runs; a subgraph reading a
//! tensor nothing defines is named with its node.

#[path = "support/model_builder.rs"]
mod model_builder;

use dramalloc_model_formats::onnx::GraphProto;
use dramalloc_sim::input::import::{import_bytes, ImportOptions, Imported, ModelFormat};
use dramalloc_sim::input::Program;
use dramalloc_sim::run::{run, RunOptions};
use model_builder::*;

fn import(graph: GraphProto) -> Imported {
    import_bytes(&onnx_model(graph), "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default()).unwrap()
}

/// The names of the inputs of op `op`.
fn op_inputs<'a>(p: &'a Program, op: &str) -> Vec<&'a str> {
    let op = p.ops.iter().find(|o| o.name == op).unwrap();
    op.inputs.iter().map(|&t| p.tensors[t as usize].name.as_str()).collect()
}

/// A branch of one `op` node reading `input` (an outer tensor) and writing `output` [1024].
fn branch(name: &str, op: &str, input: &str, output: &str) -> GraphProto {
    GraphProto {
        name: Some(name.into()),
        node: vec![node(&format!("{name}_{op}"), op, &[input], &[output])],
        output: vec![value_info(output, F32, Some(dims(&[1024])))],
        ..Default::default()
    }
}

/// x -> Relu -> a -> ReduceSum -> s; cond = s > 0; b = Abs(x);
/// ifo = If(cond) { Relu(a) } else { Neg(`else_reads`) }; y = ifo + b.
fn if_graph(else_reads: &str) -> GraphProto {
    let the_if = node("the_if", "If", &["cond"], &["ifo"]);
    let the_if = with_graph(the_if, "then_branch", branch("then", "Relu", "a", "t_out"));
    let the_if = with_graph(the_if, "else_branch", branch("else", "Neg", else_reads, "e_out"));
    GraphProto {
        name: Some("cap".into()),
        input: vec![value_info("x", F32, Some(dims(&[1024])))],
        output: vec![value_info("y", F32, Some(dims(&[1024])))],
        value_info: vec![value_info("ifo", F32, Some(dims(&[1024])))],
        initializer: vec![weight("zero", &[])],
        node: vec![
            node("n0", "Relu", &["x"], &["a"]),
            with_int(node("n1", "ReduceSum", &["a"], &["s"]), "keepdims", 0),
            node("n2", "Greater", &["s", "zero"], &["cond"]),
            node("n3", "Abs", &["x"], &["b"]),
            the_if,
            node("n5", "Add", &["ifo", "b"], &["y"]),
        ],
        ..Default::default()
    }
}

#[test]
fn an_if_reads_the_outer_tensors_of_both_branches_once() {
    let p = import(if_graph("a")).program;
    assert_eq!(op_inputs(&p, "the_if"), ["cond", "a"]);
    let p = import(if_graph("b")).program;
    assert_eq!(op_inputs(&p, "the_if"), ["cond", "a", "b"]);
}

#[test]
fn a_loop_reads_its_explicit_inputs_then_the_outer_tensors_of_its_body() {
    // body(iter, cond_in, acc_in): acc_out = acc_in + a (outer); cond_out = cond_in.
    let body = GraphProto {
        name: Some("body".into()),
        input: vec![
            value_info("iter", I64, Some(dims(&[]))),
            value_info("cond_in", BOOL, Some(dims(&[]))),
            value_info("acc_in", F32, Some(dims(&[1024]))),
        ],
        node: vec![
            node("body_add", "Add", &["acc_in", "a"], &["acc_out"]),
            node("body_id", "Identity", &["cond_in"], &["cond_out"]),
        ],
        output: vec![
            value_info("cond_out", BOOL, Some(dims(&[]))),
            value_info("acc_out", F32, Some(dims(&[1024]))),
        ],
        ..Default::default()
    };
    let graph = GraphProto {
        name: Some("cap2".into()),
        input: vec![value_info("x", F32, Some(dims(&[1024])))],
        output: vec![value_info("y", F32, Some(dims(&[1024])))],
        value_info: vec![value_info("lo", F32, Some(dims(&[1024])))],
        initializer: vec![ints("trip", &[3])],
        node: vec![
            node("n0", "Relu", &["x"], &["a"]),
            node("n1", "Abs", &["x"], &["b"]),
            with_graph(node("the_loop", "Loop", &["trip", "", "b"], &["lo"]), "body", body),
            node("n3", "Neg", &["lo"], &["y"]),
        ],
        ..Default::default()
    };
    let p = import(graph).program;
    assert_eq!(op_inputs(&p, "the_loop"), ["trip", "b", "a"]);
}

#[test]
fn a_tensor_an_if_captures_lives_until_the_if_and_shares_no_bytes_with_one_live_before() {
    let p = import(if_graph("a")).program;
    let out = run(&p, &RunOptions { cores: 1, ..RunOptions::default() }).unwrap();
    assert_eq!(out.summary.verdict, "OK");
    let core = &out.model.cores[0];
    let placed = |name: &str| {
        let l = core.names.iter().position(|n| n == name).unwrap();
        out.plan.placements[0][l]
    };
    let (a, b) = (placed("a"), placed("b"));
    let the_if = p.ops.iter().position(|o| o.name == "the_if").unwrap() as u32;
    assert_eq!((a.first_access, a.last_access), (0, the_if));
    // b is written at op 3 and read after the If: its bytes must not be a's.
    assert_eq!((b.first_access, b.last_access), (3, 5));
    let (a0, b0) = (a.address.unwrap(), b.address.unwrap());
    assert!(a0 + a.aligned <= b0 || b0 + b.aligned <= a0, "a at {a0}, b at {b0}");
}

#[test]
fn a_branch_reading_a_tensor_nothing_defines_names_the_node_and_the_tensor() {
    let bytes = onnx_model(if_graph("ghost"));
    let e = import_bytes(&bytes, "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "m.onnx: node `the_if` reads tensor `ghost`, which nothing defines");
}
