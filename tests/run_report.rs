//! What `dramalloc run` reports, checked with exact values on the bundled models: the
//! `--disable-dram-allocation` gate, memory pressure and the HBM budget check, the bounds of
//! the summary, and the host-memory estimate.

use std::process::ExitCode;

use dramalloc_core::liveness::program::Location;
use dramalloc_core::multicore::pressure::Peak;
use dramalloc_core::multicore::SharedMode;
use dramalloc_core::{CcSize, PlanError, Strategy};
use dramalloc_sim::exec::host_memory::{
    available, HostEstimate, BOOKKEEPING_PER_ITEM, HUGE_PAGE, PAGE_OVERHEAD,
};
use dramalloc_sim::input::{bundled, pack_preplaced, parse_program, Program, TensorKind, PAGE};
use dramalloc_sim::model::{CoreProgram, SimModel};
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::report::bounds::{core_bounds, CoreBounds, Part};
use dramalloc_sim::run::{build_model, run, DevicePressure, RunError, RunOptions, Split};

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
    let RunError::UnaddressedSpill { core, tensor, first_access, count, cores, summary, .. } = &e else {
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
    // nothing was placed in the shared or the CC region: the summary says `-` and why, not 0
    let mut table = Vec::new();
    dramalloc_sim::cli::print_summary(&mut table, summary);
    let table = String::from_utf8(table).unwrap();
    for row in ["shared tensors", "CC region (limit / used)"] {
        let line = format!("  {row:<28} - (no DRAM pass: --disable-dram-allocation)\n");
        assert!(table.contains(&line), "{table}");
    }
}

// ---------------------------------------------------------------- memory pressure

#[test]
fn the_summary_shows_the_peak_pressure_with_shared_bytes_counted_once() {
    let opts = RunOptions { cores: 4, split: Split::TensorParallel, ..RunOptions::default() };
    let out = run(&resnet(), &opts).unwrap();
    let s = &out.summary;
    assert_eq!(
        s.pressure,
        Some(DevicePressure {
            bytes: 452_788_224,
            private_bytes: 452_788_224,
            shared_bytes: 0,
            at: "op 23 `n13`".into(),
            shared_peak: 3_211_264,
        })
    );
    for c in &s.per_core {
        assert_eq!(
            (c.peak_live, c.peak_live_at.as_str()),
            (113_197_056, "op 21 `n12/allreduce_stage`"),
            "core {}",
            c.core
        );
    }
    // the shared set at its peak, once: not 4 × 3,211,264
    let p = &out.plan.report.pressure;
    // the shared set at its peak (the 4 slices of one all-reduce), once: not 4 × 3,211,264
    assert_eq!(p.shared, Peak { instruction: 1, private_bytes: 0, shared_bytes: 3_211_264 });
    // a core's view peaks where a slice set is live beside 109,985,792 private bytes; its
    // private bytes alone peak 2 ops later
    for k in 0..4 {
        assert_eq!(p.view[k], Peak { instruction: 21, private_bytes: 109_985_792, shared_bytes: 3_211_264 });
        assert_eq!(p.private[k], Peak { instruction: 23, private_bytes: 113_197_056, shared_bytes: 0 });
    }
}

#[test]
fn a_program_without_ops_has_no_peak_op_to_name() {
    let json = r#"{"name": "empty", "tensors": [{"name": "x", "bytes": 16, "kind": "input"}], "ops": []}"#;
    let out = run(&parse_program(json, "empty.json", 16).unwrap(), &RunOptions::default()).unwrap();
    let s = &out.summary;
    // --json: the place is empty, on the device and on every core
    assert_eq!(s.pressure.as_ref().map(|p| (p.bytes, p.at.as_str())), Some((0, "")));
    assert!(s.per_core.iter().all(|c| (c.peak_live, c.peak_live_at.as_str()) == (0, "")));
    let mut table = Vec::new();
    dramalloc_sim::cli::print_summary(&mut table, s);
    let line = "  peak live bytes (device)     0 (0 private on all cores + 0 shared, counted once; the program has no op)\n";
    assert!(String::from_utf8(table).unwrap().contains(line));
    // with ops, the line names the op
    let out = run(&resnet(), &RunOptions { cores: 1, ..RunOptions::default() }).unwrap();
    let mut table = Vec::new();
    dramalloc_sim::cli::print_summary(&mut table, &out.summary);
    let line = "  peak live bytes (device)     113197056 at op 13 `n13` (113197056 private on all cores + 0 shared, counted once)\n";
    assert!(String::from_utf8(table).unwrap().contains(line));
}

#[test]
fn run_refuses_a_window_the_live_bytes_cannot_fit_naming_core_op_and_bytes() {
    let plan = PlanOptions { window: 113_197_056 - 4096, cc: CcSize::Mib(0), ..PlanOptions::default() };
    let e = run(&resnet(), &RunOptions { cores: 1, plan, ..RunOptions::default() }).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    let RunError::Plan(f) = &e else { panic!("{e}") };
    assert_eq!(
        f.error,
        PlanError::OverBudget {
            instruction: 13,
            private_bytes: 113_197_056,
            shared_bytes: 0,
            budget: 113_197_056 - 4096
        }
    );
    assert_eq!(
        f.message,
        "DramAllocation on core 0: HBM budget: at op 13 `n13` 113197056 live DRAM bytes (113197056 private + 0 shared, counted once) do not fit the 113192960-byte budget"
    );
}

// ---------------------------------------------------------------- bounds

/// Case B12 as a simulated model: core 0 has P0 (8 KiB, live [0, 5]) and the shared S
/// (16 KiB, defined at 1, read at 4 on both cores); core 1 has P1 (24 KiB, live [0, 5]).
fn b12() -> SimModel {
    let core = |private: &str, bytes: u64| {
        let mut c = CoreProgram::default();
        let p = c.add_tensor(private.into(), TensorKind::Intermediate, Location::spill(bytes));
        let shared = Location { shared: true, ..Location::spill(16384) };
        let s = c.add_tensor("S".into(), TensorKind::Intermediate, shared);
        (c, p, s)
    };
    let ((mut c0, p0, s0), (mut c1, p1, s1)) = (core("P0", 8192), core("P1", 24576));
    for (c, p, s, writes) in [(&mut c0, p0, s0, true), (&mut c1, p1, s1, false)] {
        c.add_op("def_p".into(), "X".into(), &[], &[p], false);
        let defs: &[u32] = if writes { &[s] } else { &[] };
        c.add_op("def_s".into(), "X".into(), &[], defs, false);
        c.add_op("i2".into(), "X".into(), &[], &[], false);
        c.add_op("i3".into(), "X".into(), &[], &[], false);
        c.add_op("use_s".into(), "X".into(), &[s], &[], false);
        c.add_op("use_p".into(), "X".into(), &[p], &[], false);
    }
    SimModel { name: "b12".into(), cores: vec![c0, c1] }
}

#[test]
fn the_bound_covers_private_shared_and_cc_and_shows_the_stacking_cost() {
    let model = b12();
    let opts = PlanOptions { cc: CcSize::Mib(0), strategy: Strategy::Seed, ..PlanOptions::default() };
    let plan = plan_model(&model, &opts).unwrap();
    assert_eq!((plan.report.shared_base, plan.report.shared_region_bytes), (24576, 16384));
    let b = core_bounds(&model, &plan, &opts);
    let part = |used, lower_bound| Part { used, lower_bound };
    // core 0: its 8 KiB, then the shared region stacked above core 1's 24 KiB: 40 KiB spent
    // against 8 + 16 KiB of bound (ratio 1.6667, the cost of stacking, shown)
    assert_eq!(
        b[0],
        CoreBounds {
            private: part(8192, 8192),
            shared: part(16384, 16384),
            cc: part(0, 0),
            total: part(40960, 24576)
        }
    );
    assert_eq!(
        b[1],
        CoreBounds {
            private: part(24576, 24576),
            shared: part(16384, 16384),
            cc: part(0, 0),
            total: part(40960, 40960)
        }
    );
}

#[test]
fn tensor_parallel_and_slab_runs_report_bounds_that_cover_the_shared_region() {
    let p = resnet();
    let windows = RunOptions { cores: 4, split: Split::TensorParallel, ..RunOptions::default() };
    let slabs = RunOptions {
        plan: PlanOptions {
            cc: CcSize::Mib(0),
            mode: SharedMode::Slabs { mb_per_core: 256 },
            ..PlanOptions::default()
        },
        ..windows.clone()
    };
    // the collective staging slices: in the CC region with windows, in the shared region
    // without a CC region (`--allreduce-buffer-size 0`). With windows the total's bound is the
    // most private and CC bytes live at once, 113,197,056 (the slices are live where the
    // private bytes are below their peak, and a private tensor may be retried into the CC
    // region), not the parts' bounds added (116,408,320, which a plan that moves a private
    // tensor there could go below); with slabs the shared region's bound is added to it.
    let slices = Part { used: 3_211_264, lower_bound: 3_211_264 };
    for (opts, shared, cc, bound) in
        [(windows, Part::default(), slices, 113_197_056), (slabs, slices, Part::default(), 116_408_320)]
    {
        let out = run(&p, &opts).unwrap();
        for c in &out.summary.per_core {
            let want = CoreBounds {
                private: Part { used: 113_197_056, lower_bound: 113_197_056 },
                shared,
                cc,
                total: Part { used: 116_408_320, lower_bound: bound },
            };
            assert_eq!(c.parts, want, "core {} {:?}", c.core, opts.plan.mode);
            assert_eq!((c.hwm, c.lower_bound), (116_408_320, bound));
        }
    }
}

/// A trial's case: a 1 MiB window with a 1 MiB CC region leaves 1,024 KiB less 4 KiB pages
/// of pre-placed input and output for the private part, so `b` and `c` (40 KiB each, live
/// [1, 2] and [2, 3]) are retried into the CC region, `a` (8 KiB, [0, 1]) stays private:
/// private 16,384 / 16,384 (the pre-placed 8 KiB and `a`) and CC 81,920 / 81,920. The two
/// parts' bounds added are 98,304, which the summary printed as the bound at used/LB 1.0000;
/// but a layout of 90,112 bytes exists (`a` and `c` at CC + 40,960, `b` at CC + 0: the private
/// part 8 KiB, the CC region 80 KiB), so the bound is the most bytes live at once, 90,112
/// (the summary's own `peak live`), and used/LB 1.0909.
#[test]
fn the_bound_holds_whatever_lies_in_the_cc_region() {
    let json = r#"{"name": "cc_lb", "tensors": [
        {"name": "x", "bytes": 4096, "kind": "input"},
        {"name": "a", "bytes": 8192, "kind": "intermediate"},
        {"name": "b", "bytes": 40960, "kind": "intermediate"},
        {"name": "c", "bytes": 40960, "kind": "intermediate"},
        {"name": "y", "bytes": 4096, "kind": "output"}],
      "ops": [{"name": "o0", "op": "Relu", "inputs": ["x"], "outputs": ["a"]},
              {"name": "o1", "op": "Relu", "inputs": ["a"], "outputs": ["b"]},
              {"name": "o2", "op": "Relu", "inputs": ["b"], "outputs": ["c"]},
              {"name": "o3", "op": "Relu", "inputs": ["c"], "outputs": ["y"]}]}"#;
    let p = parse_program(json, "cc_lb.json", 16).unwrap();
    let plan = PlanOptions { window: 1048 << 10, cc: CcSize::Mib(1), ..PlanOptions::default() };
    let out = run(&p, &RunOptions { cores: 1, plan, ..RunOptions::default() }).unwrap();
    let c = &out.summary.per_core[0];
    let part = |used, lower_bound| Part { used, lower_bound };
    assert_eq!(
        c.parts,
        CoreBounds {
            private: part(16_384, 16_384),
            shared: part(0, 0),
            cc: part(81_920, 81_920),
            total: part(98_304, 90_112)
        }
    );
    assert_eq!((c.hwm, c.lower_bound, c.peak_live), (98_304, 90_112, 90_112));
}

/// A tensor whose end would pass u64 (a u64::MAX window, 2^64 - 4096 bytes after a 4 KiB
/// input) is said to overflow, as the core says it, not as `u64::MAX bytes needed, u64::MAX
/// available` (a trial: the saturated need read as equal to what was available).
#[test]
fn a_tensor_whose_end_overflows_u64_is_said_to() {
    let p = parse_program(&big_json(u64::MAX - 4095), "big.json", 16).unwrap();
    let plan = PlanOptions { window: u64::MAX, cc: CcSize::Mib(0), ..PlanOptions::default() };
    let e = run(&p, &RunOptions { cores: 1, plan, host_memory: None, ..RunOptions::default() }).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    let RunError::Plan(f) = &e else { panic!("{e}") };
    assert!(matches!(f.error, PlanError::DoesNotFit { needed: u64::MAX, .. }), "{:?}", f.error);
    assert_eq!(
        f.message,
        "DramAllocation on core 0: tensor `t` (18446744073709547520 bytes aligned) does not fit: its end overflows \
         u64, 18446744073709551615 bytes available (largest free gap 18446744073709543423 bytes)"
    );
}

// ---------------------------------------------------------------- host memory

/// x (input) -> t (`bytes` bytes) -> y (output), as program JSON.
fn big_json(bytes: u64) -> String {
    format!(
        r#"{{"name": "big", "tensors": [
            {{"name": "x", "bytes": 4096, "kind": "input"}},
            {{"name": "t", "bytes": {bytes}, "kind": "intermediate"}},
            {{"name": "y", "bytes": 4096, "kind": "output"}}],
          "ops": [{{"name": "n0", "op": "Conv", "inputs": ["x"], "outputs": ["t"]}},
                  {{"name": "n1", "op": "Relu", "inputs": ["t"], "outputs": ["y"]}}]}}"#
    )
}

fn one_big_tensor(bytes: u64) -> Program {
    parse_program(&big_json(bytes), "big.json", 16).unwrap()
}

#[test]
fn a_40_gb_tensor_is_refused_before_execution_with_exit_2() {
    let plan = PlanOptions { window: 64 << 30, ..PlanOptions::default() };
    let opts = RunOptions { cores: 1, plan, host_memory: Some(16 << 30), ..RunOptions::default() };
    let e = run(&one_big_tensor(40_000_000_000), &opts).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    // pages: t's 9,765,625 and x's and y's; no fingerprint buffer (written and checked in
    // place); one huge page of slab rounding for the core's arena and one for the shared one
    let needed = HostEstimate {
        arena_pages: 9_765_627,
        arena_bytes: 9_765_627 * (4096 + PAGE_OVERHEAD),
        slab_slack_bytes: 2 * HUGE_PAGE,
        bookkeeping_bytes: 5 * BOOKKEEPING_PER_ITEM,
    };
    let RunError::HostMemory { needed: got, available } = &e else { panic!("{e}") };
    assert_eq!((*got, *available), (needed, 16 << 30));
    assert_eq!(
        e.to_string(),
        "the simulation needs about 40629202784 bytes of host memory (9765627 arena pages of 4 KiB, fingerprints written and checked in place), more than the 17179869184 bytes available"
    );
    let dir = std::env::temp_dir().join(format!("dramalloc-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    std::fs::write(&path, big_json(40_000_000_000)).unwrap();
    let p = path.to_str().unwrap();
    let args = ["run", p, "--cores", "1", "--hbm-window", "68719476736", "--host-memory", "17179869184"];
    assert_eq!(cli(&args), ExitCode::from(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// On Linux the host's own available memory is the limit: a 1 PiB tensor cannot fit anywhere.
#[cfg(target_os = "linux")]
#[test]
fn without_a_limit_the_hosts_available_memory_is_the_limit() {
    assert!(available().is_some_and(|a| a > 0), "Linux reports MemAvailable");
    let plan = PlanOptions { window: 1 << 52, ..PlanOptions::default() };
    let e =
        run(&one_big_tensor(1 << 50), &RunOptions { cores: 1, plan, ..RunOptions::default() }).unwrap_err();
    let RunError::HostMemory { needed, .. } = &e else { panic!("{e}") };
    assert_eq!(needed.arena_pages, (1 << 50) / 4096 + 2);
    assert_eq!(e.exit_code(), 2);
}
