//! The CC region with `--split tensor-parallel` (issue 13, item 1): the collective staging
//! buffers live in it, one address on every core; the summary's used size is the real one
//! (seed FunctionAttribute 13); the auto size is the seed's `cc_buffer_size` sum; with
//! `--mb-per-core` it is one device range after the shared slab, so slabs under 500 MiB work.
//! A window that is not a multiple of the page keeps every address on the page grid.

use dramalloc_core::liveness::program::MemoryType;
use dramalloc_core::multicore::SharedMode;
use dramalloc_core::CcSize;
use dramalloc_sim::input::{bundled, parse_program, Program};
use dramalloc_sim::model::SimModel;
use dramalloc_sim::planning::{plan_model, PlanOptions, PlannedModel};
use dramalloc_sim::run::{build_model, run, RunOptions, Split};
use dramalloc_sim::verify::plan_check::check_plans;
use dramalloc_sim::verify::VerifyError;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{data, dramalloc, scratch_in};

const MIB: u64 = 1 << 20;

fn resnet() -> Program {
    parse_program(bundled::RESNET50_JSON, "resnet.json", 1 << 20).unwrap()
}

fn planned(cores: usize, opts: &PlanOptions) -> (SimModel, PlannedModel) {
    let model = build_model(&resnet(), cores, Split::TensorParallel).unwrap();
    let plan = plan_model(&model, opts).unwrap();
    (model, plan)
}

/// Every `…/cc_slice<k>` of every core: (name, address, aligned bytes).
fn slices(model: &SimModel, plan: &PlannedModel, core: usize) -> Vec<(String, u64, u64)> {
    let c = &model.cores[core];
    (0..c.names.len())
        .filter(|&l| c.names[l].contains("/cc_slice"))
        .map(|l| {
            let p = &plan.placements[core][l];
            (c.names[l].clone(), p.address.expect("a collective buffer has an address"), p.aligned)
        })
        .collect()
}

#[test]
fn tensor_parallel_collectives_sit_in_the_cc_region_at_one_address_on_every_core() {
    let opts = PlanOptions::default();
    let (model, plan) = planned(4, &opts);
    let cc_base = opts.window - 500 * MIB;
    let r = &plan.report;
    // 54 all-reduces x 4 slices, all in the CC region, nothing left in the shared region
    assert_eq!((r.shared_tensors, r.cc_tensors, r.shared_region_bytes), (216, 216, 0));
    assert_eq!((r.cc_base, r.cc_bytes, r.collective_base), (cc_base, 500 * MIB, cc_base));
    assert_eq!((r.cc_used, r.collective_bytes), (3_211_264, 3_211_264));
    let on0 = slices(&model, &plan, 0);
    assert_eq!(on0.len(), 216);
    assert_eq!(on0.iter().map(|s| s.1).min(), Some(cc_base));
    assert_eq!(on0.iter().map(|s| s.1 + s.2).max(), Some(cc_base + 3_211_264));
    for k in 1..4 {
        assert_eq!(slices(&model, &plan, k), on0, "core {k}: the same addresses as core 0");
    }
    for m in &plan.metrics {
        assert_eq!((m.cc_base, m.real_cc_bytes, m.allreduce_hwm), (cc_base, 3_211_264, cc_base + 3_211_264));
    }
    // executed and verified, and the summary shows the real used size
    let out = run(&resnet(), &RunOptions { cores: 4, split: Split::TensorParallel, ..RunOptions::default() })
        .unwrap();
    assert_eq!(out.summary.verdict, "OK");
    assert_eq!(
        (out.summary.cc_limit, out.summary.cc_base, out.summary.cc_collectives),
        (500 * MIB, cc_base, 216)
    );
    assert!(out.summary.per_core.iter().all(|c| c.parts.cc.used == 3_211_264));
    let mut table = Vec::new();
    dramalloc_sim::cli::print_summary(&mut table, &out.summary);
    let line =
        "  CC region (limit / used)     524288000 / 3211264 bytes at 0x5e0c00000, 216 collective buffers\n";
    assert!(String::from_utf8(table).unwrap().contains(line));
}

#[test]
fn the_auto_size_is_the_seeds_sum_over_every_collective_operand() {
    let model = build_model(&resnet(), 4, Split::TensorParallel).unwrap();
    // seed `cc_buffer_size`: per operand of a collective op, Info size + access-pattern
    // footprint; every core's collectives, as the region is one range for the device
    let mut sum = 0u64;
    for c in &model.cores {
        for (i, ins) in c.instructions.iter().enumerate().filter(|(_, ins)| ins.collective) {
            assert_eq!(ins.count, 2, "allreduce_stage reads T and writes its slice");
            for o in c.operands_of(i) {
                let loc = c.locations[o.location as usize];
                assert_eq!(loc.memory, MemoryType::Dram);
                sum += loc.bytes.div_ceil(4096) * 4096 + loc.bytes;
            }
        }
    }
    let want = sum.div_ceil(4096) * 4096;
    assert_eq!(want, 444_960_768);
    let opts = PlanOptions { cc: CcSize::Auto, ..PlanOptions::default() };
    let plan = plan_model(&model, &opts).unwrap();
    assert_eq!((plan.report.cc_bytes, plan.report.cc_used), (want, 3_211_264));
    assert!(plan.metrics.iter().all(|m| m.cc_limit == want && m.cc_base == opts.window - want));
}

#[test]
fn slab_mode_under_500_mib_puts_the_cc_region_after_the_shared_slab() {
    let mode = SharedMode::Slabs { mb_per_core: 256 };
    let opts = PlanOptions { mode, ..PlanOptions::default() };
    let (model, plan) = planned(4, &opts);
    let cc_base = 5 * 256 * MIB; // four slabs, the shared slab, then the CC region
    let r = &plan.report;
    assert_eq!((r.cc_base, r.cc_bytes, r.cc_used, r.cc_tensors), (cc_base, 500 * MIB, 3_211_264, 216));
    let on0 = slices(&model, &plan, 0);
    assert_eq!(on0.iter().map(|s| s.1).min(), Some(cc_base));
    assert_eq!(slices(&model, &plan, 3), on0);
    // every private tensor stays in its slab
    for (k, pl) in plan.placements.iter().enumerate() {
        for p in pl.iter().filter(|p| !p.shared) {
            let a = p.address.expect("addressed");
            assert!(a >= k as u64 * 256 * MIB && a + p.aligned <= (k as u64 + 1) * 256 * MIB);
        }
    }
    let out = run(
        &resnet(),
        &RunOptions { cores: 4, split: Split::TensorParallel, plan: opts, ..RunOptions::default() },
    )
    .unwrap();
    assert_eq!(out.summary.verdict, "OK");
    assert!(out.summary.per_core.iter().all(|c| c.parts.cc.used == 3_211_264));
}

/// A private tensor that fits nowhere below the ceiling is retried in the CC region, and
/// the collectives go above it. The tiny program in a 36 KiB window with a 16 KiB CC region:
/// x, w and y are pre-placed one page each (the floor is 16384), so the general region
/// `[16384, 20480)` holds only `b` (4096 B); `a` and `a/reduced` (8192 B each, disjoint
/// lifetimes) are retried at the CC region's base, 20480, on both cores; the two 4096-byte
/// slices, live together at the gather, go above those retries, up to the window's end.
#[test]
fn a_private_retry_and_the_collectives_share_the_cc_region() {
    let program = parse_program(include_str!("support/tiny_tp.json"), "tiny", 100).unwrap();
    let opts = PlanOptions {
        window: 36_864,
        cc: CcSize::Bytes(16_384),
        strategy: dramalloc_core::Strategy::Seed,
        ..PlanOptions::default()
    };
    let model = build_model(&program, 2, Split::TensorParallel).unwrap();
    let plan = plan_model(&model, &opts).unwrap();
    let addr = |k: usize, name: &str| {
        let l = model.cores[k].names.iter().position(|n| n == name).unwrap();
        plan.placements[k][l].address
    };
    for k in 0..2 {
        assert_eq!(
            (addr(k, "a"), addr(k, "a/reduced"), addr(k, "b")),
            (Some(20_480), Some(20_480), Some(16_384))
        );
        assert_eq!((addr(k, "a/cc_slice0"), addr(k, "a/cc_slice1")), (Some(28_672), Some(32_768)));
        let m = &plan.metrics[k];
        assert_eq!(
            (m.cc_base, m.cc_limit, m.allreduce_hwm, m.real_cc_bytes),
            (20_480, 16_384, 36_864, 16_384)
        );
    }
    let r = &plan.report;
    assert_eq!((r.cc_used, r.cc_tensors, r.collective_base, r.collective_bytes), (16_384, 2, 28_672, 8192));
    let out = run(
        &program,
        &RunOptions { cores: 2, split: Split::TensorParallel, plan: opts, ..RunOptions::default() },
    )
    .unwrap();
    assert_eq!(out.summary.verdict, "OK");
}

/// A window one byte past 600 MiB (a trial's `--hbm-window 629145601`): the CC region starts
/// at 600 MiB - 500 MiB = 104857600 (the page below 104857601), where the private tensors
/// retried into it go (`r0` was at 104857601 before, and `check-plan` and `verify` rejected
/// the plan `run` had called OK). On 2 cores tensor-parallel too (154 rows were off the grid).
#[test]
fn an_unaligned_window_keeps_every_address_on_the_page() {
    let d = scratch_in("cc", "unaligned");
    let program = data("models/onnx_resnet50.json");
    for (cores, split) in [("1", "none"), ("2", "tensor-parallel")] {
        let r = d.join(format!("R{cores}"));
        let rs = r.to_str().unwrap();
        let args =
            ["run", "--hbm-window", "629145601", "--cores", cores, "--split", split, "--report-dir", rs];
        let out = dramalloc(&args);
        assert_eq!(out.code, std::process::ExitCode::SUCCESS, "{}", out.stderr);
        assert!(out.stdout.contains("CC region (limit / used)     524288001 / "), "{}", out.stdout);
        let csv = std::fs::read_to_string(r.join("plan.csv")).unwrap();
        assert!(csv.contains("\nr0,0,104857600,3211264,3211264,0,1,false\n"), "{csv}");
        let off: Vec<&str> = csv
            .lines()
            .skip(1)
            .filter(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap() % 4096 != 0)
            .collect();
        assert_eq!(off, Vec::<&str>::new());
        let h = std::fs::read_to_string(r.join("plan.h")).unwrap();
        assert!(h.contains("#define DRAMALLOC_ADDR_R0_CORE0 0x6400000ULL\n"), "{h}");
        let out = dramalloc(&["check-plan", r.join("plan.bin").to_str().unwrap()]);
        assert_eq!(out.code, std::process::ExitCode::SUCCESS, "{}", out.stderr);
        let csv_path = r.join("plan.csv");
        let out = dramalloc(&["verify", &program, csv_path.to_str().unwrap(), "--split", split]);
        assert_eq!(out.code, std::process::ExitCode::SUCCESS, "{}", out.stderr);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// `run`'s own verifier asks every address to be a multiple of the page, as `check-plan` and
/// `verify` do: a tensor moved one byte off the grid is named, with no collision needed.
#[test]
fn runs_verifier_rejects_an_address_off_the_page() {
    let model = build_model(&resnet(), 1, Split::None).unwrap();
    let mut plan = plan_model(&model, &PlanOptions::default()).unwrap();
    let l = model.cores[0].names.iter().position(|n| n == "r0").unwrap();
    let at = plan.placements[0][l].address.unwrap();
    assert_eq!(at, 103_563_264);
    plan.placements[0][l].address = Some(at + 1);
    let (core, e) = check_plans(&model, &plan).unwrap_err();
    assert_eq!(
        (core, &e),
        (0, &VerifyError::Misaligned { id: "r0".into(), offset: 103_563_265, align: 4096 })
    );
    assert_eq!(e.to_string(), "buffer `r0`: offset 103563265 is not a multiple of 4096");
}
