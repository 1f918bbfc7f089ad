//! `--split tensor-parallel` and the tensors the program's caller reads: a graph output
//! written by a split op ends holding the reduced value (the all-reduce's gather writes the
//! output itself; the op's partial result is the private `T/partial`), and the simulator
//! checks every pre-placed tensor an op wrote after the last op (`Collision::FinalBytes`).

use std::process::ExitCode;

use dramalloc_sim::exec::executor::{execute, Collision, Corruption, ExecOptions};
use dramalloc_sim::input::{parse_program, Program, TensorKind};
use dramalloc_sim::model::CoreProgram;
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::run::{build_model, Split};

/// `h` an intermediate Conv output, `y` a MatMul output that is a graph output and is read
/// by `r0`, `out` a plain graph output.
const TINY: &str = r#"{"name": "tp_out", "tensors": [
  {"name": "x", "bytes": 4096, "kind": "input"},
  {"name": "w", "bytes": 4096, "kind": "weight"},
  {"name": "h", "bytes": 4096, "kind": "intermediate"},
  {"name": "y", "bytes": 4096, "kind": "output"},
  {"name": "out", "bytes": 4096, "kind": "output"}],
 "ops": [
  {"name": "c0", "op": "Conv", "inputs": ["x", "w"], "outputs": ["h"]},
  {"name": "m0", "op": "MatMul", "inputs": ["h", "w"], "outputs": ["y"]},
  {"name": "r0", "op": "Relu", "inputs": ["y"], "outputs": ["out"]}]}"#;

fn tiny() -> Program {
    parse_program(TINY, "tp_out.json", 100).unwrap()
}

fn cli(args: &[&str]) -> ExitCode {
    dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into))
}

/// Each op of `c` as `name: reads -> writes`.
fn ops(c: &CoreProgram) -> Vec<String> {
    use dramalloc_core::liveness::program::Access;
    (0..c.instructions.len())
        .map(|i| {
            let names = |a: Access| {
                let v: Vec<&str> = c
                    .operands_of(i)
                    .iter()
                    .filter(|o| o.access == a)
                    .map(|o| c.names[o.location as usize].as_str())
                    .collect();
                v.join(",")
            };
            format!("{}: {} -> {}", c.op_names[i], names(Access::Use), names(Access::Def))
        })
        .collect()
}

#[test]
fn a_split_graph_output_is_written_by_the_gather_and_its_partial_is_private() {
    let model = build_model(&tiny(), 2, Split::TensorParallel).unwrap();
    for (k, c) in model.cores.iter().enumerate() {
        let tensors: Vec<(&str, TensorKind, bool)> = (0..c.names.len())
            .map(|l| (c.names[l].as_str(), c.kinds[l], c.locations[l].address.is_some()))
            .collect();
        use TensorKind::{Input, Intermediate as Mid, Output, Weight};
        assert_eq!(
            tensors,
            [
                ("x", Input, true),
                ("w", Weight, true),
                ("h", Mid, false),
                ("y", Output, true),
                ("out", Output, true),
                ("h/cc_slice0", Mid, false),
                ("h/cc_slice1", Mid, false),
                ("h/reduced", Mid, false),
                ("y/partial", Mid, false),
                ("y/cc_slice0", Mid, false),
                ("y/cc_slice1", Mid, false),
            ],
            "core {k}"
        );
        let own = |t: &str| format!("{t}/cc_slice{k}");
        assert_eq!(
            ops(c),
            [
                "c0: x,w -> h".to_string(),
                format!("c0/allreduce_stage: h -> {}", own("h")),
                "c0/allreduce_gather: h/cc_slice0,h/cc_slice1 -> h/reduced".into(),
                "m0: h/reduced,w -> y/partial".into(),
                format!("m0/allreduce_stage: y/partial -> {}", own("y")),
                "m0/allreduce_gather: y/cc_slice0,y/cc_slice1 -> y".into(),
                "r0: y -> out".into(),
            ],
            "core {k}"
        );
    }
}

#[test]
fn run_plans_the_reduced_output_at_its_preplaced_address() {
    let dir = std::env::temp_dir().join(format!("dramalloc-tp-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("tp_out.json");
    std::fs::write(&json, TINY).unwrap();
    let rd = dir.join("rd");
    let args = ["--cores", "2", "--split", "tensor-parallel", "--hbm-window", "16G"];
    let code =
        cli(&[&["run", json.to_str().unwrap()], &args[..], &["--report-dir", rd.to_str().unwrap()]].concat());
    assert_eq!(code, ExitCode::SUCCESS);
    let csv = std::fs::read_to_string(rd.join("plan.csv")).unwrap();
    let core0: Vec<&str> = csv.lines().filter(|l| l.split(',').nth(1) == Some("0")).collect();
    // `y` (pre-placed at 8192) is defined by the gather (op 5) and read by `r0` (op 6);
    // `y/partial` is the private intermediate the MatMul (op 3) writes and the stage reads
    assert_eq!(
        core0,
        [
            "x,0,0,4096,4096,0,0,false",
            "w,0,4096,4096,4096,0,3,false",
            "h,0,16384,4096,4096,0,1,false",
            "y,0,8192,4096,4096,5,6,false",
            "out,0,12288,4096,4096,6,6,false",
            "h/cc_slice0,0,16655581184,2048,4096,1,2,true",
            "h/cc_slice1,0,16655585280,2048,4096,2,2,true",
            "h/reduced,0,16384,4096,4096,2,3,false",
            "y/partial,0,20480,4096,4096,3,4,false",
            "y/cc_slice0,0,16655581184,2048,4096,4,5,true",
            "y/cc_slice1,0,16655585280,2048,4096,5,5,true",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_graph_output_overwritten_after_the_last_op_is_caught_by_the_callers_read() {
    let model = build_model(&tiny(), 2, Split::TensorParallel).unwrap();
    let plan = plan_model(&model, &PlanOptions::default()).unwrap();
    let y = model.cores[1].names.iter().position(|n| n == "y").unwrap();
    let at = plan.placements[1][y].address.unwrap() + 100;
    let last = model.cores[1].instructions.len() as u32 - 1;
    // a correct run reads back `y` and `out` on both cores after the last op: per core the
    // ops read 11 pages (c0 2, each stage 1, each gather 2, m0 2, r0 1), the caller 2
    let ok = execute(&model, &plan, &ExecOptions::default()).unwrap();
    assert_eq!(ok.bytes_verified, 2 * (11 + 2) * 4096);
    let corrupt = Corruption { core: 1, after_instruction: last, address: at };
    let err = execute(&model, &plan, &ExecOptions { corrupt: Some(corrupt), ..ExecOptions::default() })
        .unwrap_err();
    assert!(matches!(&err.collision, Collision::FinalBytes { core: 1, tensor, .. } if tensor == "y"));
    assert_eq!(
        err.collision.to_string(),
        format!(
            "core 1, after the last op: reading `y` at address {at:#x} (the caller's read of a \
             pre-placed tensor) found corrupted bytes (word 0x010000fb0005000c)"
        )
    );
}
