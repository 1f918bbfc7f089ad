//! What `dramalloc run` reports, checked with exact values on the bundled models: the
//! `--disable-dram-allocation` gate, memory pressure and the HBM budget check, the bounds of
//! the summary, and the host-memory estimate.

use std::process::ExitCode;

use dramalloc_sim::input::{bundled, pack_preplaced, parse_program, Program, PAGE};
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::run::{build_model, run, RunError, RunOptions, Split};

fn resnet() -> Program {
    parse_program(bundled::RESNET50_JSON, "resnet.json", 1 << 20).unwrap()
}

fn cli(args: &[&str]) -> ExitCode {
    dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into))
}

fn gated() -> PlanOptions {
    PlanOptions { disable_dram_allocation: true, ..PlanOptions::default() }
}

// ---------------------------------------------------------------- the gate

#[test]
fn the_gate_keeps_every_preplaced_address_and_leaves_every_spill_unaddressed() {
    let p = resnet();
    let packed = pack_preplaced(&p, PAGE).unwrap();
    let model = build_model(&p, 2, Split::None).unwrap();
    let plan = plan_model(&model, &gated()).unwrap();
    assert!(plan.report.ran.is_empty(), "no DRAM pass registered");
    assert_eq!(plan.report.unaddressed_spills, 2 * 175);
    for k in 0..2 {
        for (l, t) in p.tensors.iter().enumerate() {
            let want = if t.kind.is_preplaced() { packed[l] } else { None };
            assert_eq!(plan.placements[k][l].address, want, "core {k} `{}`", t.name);
        }
    }
    // the input `run` used to fail on keeps its packed address: the first tensor, at 0
    let data = p.tensors.iter().position(|t| t.name == "gpu_0/data_0").unwrap();
    assert_eq!(
        (data, plan.placements[0][data].address, plan.placements[1][data].address),
        (0, Some(0), Some(0))
    );
    let w = p.tensors.iter().position(|t| t.name == "gpu_0/conv1_w_0").unwrap();
    assert_eq!(plan.placements[1][w].address, Some(602_112));
}

#[test]
fn run_with_the_gate_names_the_first_surviving_spill_and_exits_1() {
    let opts = RunOptions { cores: 2, plan: gated(), ..RunOptions::default() };
    let e = run(&resnet(), &opts).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    let RunError::UnaddressedSpill { core, tensor, first_access, count, cores, summary } = &e else {
        panic!("{e}");
    };
    assert_eq!((*core, tensor.as_str(), first_access.as_str()), (0, "r0", "first accessed by op 0 `n0`"));
    assert_eq!((*count, *cores), (350, 2));
    assert_eq!(summary.per_core.iter().map(|c| c.unaddressed).collect::<Vec<_>>(), [175, 175]);
    assert_eq!(
        e.to_string(),
        "core 0: DRAM spill `r0` has no address (first accessed by op 0 `n0`); 350 spill(s) left unaddressed on 2 core(s)"
    );
    assert_eq!(cli(&["run", "--disable-dram-allocation"]), ExitCode::from(1));
}
