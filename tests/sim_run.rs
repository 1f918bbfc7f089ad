//! The simulator end to end: every bundled model (`sim/data/models`) on 1 core and on 4 cores
//! tensor-parallel, plan → verify round trips, exit codes, and fault injection (every injected
//! fault caught). Reads only the data bundled in the repository.

#[path = "support/bundled_data.rs"]
mod bundled_data;

use std::process::ExitCode;

use dramalloc_sim::exec::campaign::{plan_all, run_kind, Kind, PassedOver, Planned, Row};
use dramalloc_sim::exec::faults::{inject, Fault, Injected};
use dramalloc_sim::input::{bundled, Program};
use dramalloc_sim::run::{run, RunOptions, Split};
use dramalloc_sim::verify::plan_check::check_plans;

/// The 15 bundled models, in name order.
fn models() -> Vec<(String, Program)> {
    let v: Vec<(String, Program)> =
        bundled::models(1_000_000).unwrap().into_iter().map(|p| (p.name.clone(), p)).collect();
    assert_eq!(v.len(), 15);
    v
}

fn cli(args: &[&str]) -> ExitCode {
    dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into))
}

#[test]
fn every_model_runs_on_1_core_and_4_cores_tensor_parallel() {
    let models = models();
    for (name, p) in &models {
        for (cores, split) in [(1, Split::None), (4, Split::TensorParallel)] {
            let opts = RunOptions { cores, split, ..RunOptions::default() };
            let out = run(p, &opts).unwrap_or_else(|e| panic!("{name} on {cores} cores: {e}"));
            assert_eq!(out.summary.verdict, "OK", "{name}");
            assert_eq!(out.summary.cores, cores);
            for c in &out.summary.per_core {
                assert!(
                    c.hwm >= c.lower_bound,
                    "{name} core {}: HWM {} < LB {}",
                    c.core,
                    c.hwm,
                    c.lower_bound
                );
                assert_eq!(c.unaddressed, 0);
            }
            assert!(out.exec.bytes_verified > 0 && out.exec.bytes_written > 0);
            // the host-memory estimate made before execution counts exactly the pages it commits
            let est = dramalloc_sim::exec::host_memory::estimate(&out.model, &out.plan);
            assert_eq!(est.arena_pages * 4096, out.exec.committed_bytes, "{name} on {cores} cores");
            if split == Split::TensorParallel {
                assert!(out.summary.shared_tensors > 0, "{name}: tensor-parallel shares staging slices");
                // every core resolves every shared tensor to one address
                for e in &out.plan.shared {
                    let n0 = &out.model.cores[0].names[e.location as usize];
                    for (k, c) in out.model.cores.iter().enumerate() {
                        let l = c.names.iter().position(|x| x == n0).unwrap();
                        assert_eq!(
                            out.plan.placements[k][l].address,
                            Some(e.address),
                            "{name} {n0} core {k}"
                        );
                    }
                }
            }
        }
    }
}

/// `run --cores 1` plans as well as `plan`: every bundled model reaches its max-load lower
/// bound. ddddocr_ocr and mp_hand_landmark_full ended 0.34 % and 1.92 % above it while a tensor
/// read by several ops had one liveness interval per read (the one-interval placers then
/// stepped aside).
#[test]
fn every_bundled_model_on_1_core_reaches_its_lower_bound() {
    for (name, p) in &models() {
        let out = run(p, &RunOptions { cores: 1, ..RunOptions::default() }).unwrap();
        let c = &out.summary.per_core[0];
        assert_eq!(c.hwm, c.lower_bound, "{name}");
        match name.as_str() {
            "ddddocr_ocr" => assert_eq!(c.hwm, 57_880_576),
            "mp_hand_landmark_full" => assert_eq!(c.hwm, 15_761_408),
            _ => {}
        }
    }
}

#[test]
fn bundled_default_run_succeeds() {
    assert_eq!(cli(&[]), ExitCode::SUCCESS);
}

#[test]
fn plan_then_verify_accepts_every_bundled_problem() {
    let dir = bundled_data::data_dir();
    let out = std::env::temp_dir().join(format!("dramalloc-sim-run-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut n = 0;
    for p in bundled_data::files(&dir, ".csv").into_iter().chain(bundled_data::files(&dir, ".json")) {
        let ext = p.extension().unwrap().to_string_lossy().into_owned();
        let sol = out.join(format!("{}.{ext}.solution.csv", p.file_stem().unwrap().to_string_lossy()));
        let (ps, ss) = (p.to_str().unwrap(), sol.to_str().unwrap());
        for align in ["1", "4096"] {
            assert_eq!(cli(&["plan", ps, "--align", align, "-o", ss]), ExitCode::SUCCESS, "plan {ps}");
            assert_eq!(cli(&["verify", ps, ss, "--align", align]), ExitCode::SUCCESS, "verify {ps}");
        }
        n += 1;
    }
    // 15 model CSVs + 15 model JSONs, 11 hard DSA instances + 1 example, 3 large instances
    assert_eq!(n, 45);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn verify_rejects_a_colliding_solution_with_exit_1() {
    let dir = std::env::temp_dir().join(format!("dramalloc-collide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (p, s) = (dir.join("p.csv"), dir.join("s.csv"));
    std::fs::write(&p, "id,lower,upper,size\na,0,5,4096\nb,3,8,4096\n").unwrap();
    std::fs::write(&s, "id,lower,upper,size,offset\na,0,5,4096,0\nb,3,8,4096,2048\n").unwrap();
    assert_eq!(cli(&["verify", p.to_str().unwrap(), s.to_str().unwrap(), "--align", "1"]), ExitCode::from(1));
    std::fs::write(&s, "id,lower,upper,size,offset\na,0,5,4096,0\nb,3,8,4096,4096\n").unwrap();
    assert_eq!(cli(&["verify", p.to_str().unwrap(), s.to_str().unwrap()]), ExitCode::SUCCESS);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exit_codes_bad_input_2_does_not_fit_1() {
    let dir = std::env::temp_dir().join(format!("dramalloc-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"name\": \"m\", \"tensors\": [").unwrap();
    assert_eq!(cli(&["run", bad.to_str().unwrap()]), ExitCode::from(2));
    let csv = dir.join("p.csv");
    std::fs::write(&csv, "id,lower,upper,size\na,0,4,98304\nb,1,4,65536\nc,2,4,49152\n").unwrap();
    let sol = dir.join("s.csv");
    // B13 through the command line: 208 KiB needed, 192 KiB available -> exit 1, no file
    assert_eq!(
        cli(&[
            "plan",
            csv.to_str().unwrap(),
            "--capacity",
            "196608",
            "--strategy",
            "seed",
            "-o",
            sol.to_str().unwrap()
        ]),
        ExitCode::from(1)
    );
    assert!(!sol.exists(), "no partial solution is written");
    std::fs::write(&csv, "id,lower,upper,size\na,4,4,1\n").unwrap();
    assert_eq!(cli(&["plan", csv.to_str().unwrap(), "-o", sol.to_str().unwrap()]), ExitCode::from(2));
    assert_eq!(cli(&["run", "--cores", "0"]), ExitCode::from(2));
    assert_eq!(cli(&["run", "--allreduce-buffer-size", "-5"]), ExitCode::from(2));
    // a window smaller than the pre-placed tensors does not fit: exit 1
    assert_eq!(cli(&["run", "--hbm-window", "1048576", "--allreduce-buffer-size", "0"]), ExitCode::from(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_dir_gets_five_whole_files() {
    let dir = std::env::temp_dir().join(format!("dramalloc-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        cli(&["run", "--cores", "2", "--split", "tensor-parallel", "--report-dir", dir.to_str().unwrap()]),
        ExitCode::SUCCESS
    );
    let csv = std::fs::read_to_string(dir.join("plan.csv")).unwrap();
    assert!(csv.starts_with("tensor,core,address,bytes,aligned_bytes,def,last_use,shared\n"));
    assert!(csv.lines().any(|l| l.ends_with(",true")), "shared rows present");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "OK");
    assert_eq!(summary["cores"], 2);
    let svg = std::fs::read_to_string(dir.join("layout.svg")).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
    assert!(svg.trim_end().ends_with("</svg>"));
    let bin = std::fs::read(dir.join("plan.bin")).unwrap();
    let file = dramalloc_core::plan_file::PlanFile::read(&bin, &mut vec![0; 100_000]).unwrap();
    assert_eq!(file.records().len(), csv.lines().count() - 1, "one record per plan.csv row");
    assert_eq!(file.header().core_count.get(), 2);
    let header = std::fs::read_to_string(dir.join("plan.h")).unwrap();
    assert!(header.starts_with("/* plan.h: generated by dramalloc for onnx_resnet50 (2 cores)"));
    assert!(header.contains(&format!("#define DRAMALLOC_PLAN_RECORDS {}u", file.records().len())));
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 5, "no temp files left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn fault_count() -> usize {
    std::env::var("DRAMALLOC_FAULTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

/// The bundled models planned for the campaign on `cores` cores; `smallest` keeps the 5 with
/// the fewest bytes (the faults that need an execution to show run on those).
fn campaign_models(cores: usize, smallest: bool) -> Vec<Planned> {
    let mut m: Vec<Program> = models().into_iter().map(|(_, p)| p).collect();
    if smallest {
        m.sort_by_key(|p| p.tensors.iter().map(|t| t.bytes).sum::<u64>());
        m.truncate(5);
    }
    plan_all(&m, cores).unwrap()
}

fn row(kind: Kind, n: usize, (verifier, simulator, sync): (usize, usize, usize)) -> Row {
    Row {
        kind,
        injected: n,
        detected: n,
        by_verifier: verifier,
        by_cycle: 0,
        by_simulator: simulator,
        by_sync: sync,
        passed_over: Vec::new(),
    }
}

#[test]
fn every_moved_tensor_is_caught_by_the_verifier_naming_it() {
    let n = fault_count();
    let planned = campaign_models(2, false);
    assert_eq!(run_kind(Kind::Move, &planned, n, None), row(Kind::Move, n, (n, 0, 0)));
    for i in 0..50u64 {
        let p = &planned[i as usize % planned.len()];
        let mut bad = p.plan.clone();
        let what = inject(&p.model, &mut bad, Fault::MoveOntoNeighbour(i)).unwrap();
        let Injected::Moved { tensor, .. } = &what else { panic!("{what}") };
        let (_, e) = check_plans(&p.model, &bad).unwrap_err();
        assert!(e.to_string().contains(tensor.as_str()), "{}: verifier names `{tensor}`: {e}", p.name);
    }
}

#[test]
fn every_twin_moved_on_one_core_is_caught() {
    let n = fault_count();
    let r = run_kind(Kind::Twin, &campaign_models(2, true), n, None);
    assert_eq!((r.injected, r.detected, r.by_sync), (n, n, 0));
    assert_eq!(r.by_verifier + r.by_simulator, n);
}

/// One edge reversed, every other kept. Reordering is invisible to the geometry: the
/// simulator sees it, and must name the culprit. Most edges are implied by others (the
/// planner orders every pair of accesses to overlapping shared bytes): reversed, such an edge
/// closes a cycle, which the edge check names before anything runs; the others make the
/// consumer read before its producer wrote (or a writer overwrite before the last read), and
/// the execution fails at that op. A failure anywhere else would count as missed.
#[test]
fn every_reversed_cross_core_edge_is_caught_naming_it() {
    let n = fault_count();
    let r = run_kind(Kind::Reverse, &campaign_models(2, true), n, None);
    let (cycle, simulator) = (r.by_cycle, r.by_simulator);
    assert_eq!(r, Row { by_cycle: cycle, ..row(Kind::Reverse, n, (0, simulator, 0)) });
    if n == 1000 {
        assert_eq!((cycle, simulator), (873, 127));
    }
}

#[test]
fn every_corrupted_byte_of_a_live_tensor_is_caught() {
    let n = fault_count();
    // the plan is fine: only the simulator can see it
    assert_eq!(run_kind(Kind::Corrupt, &campaign_models(2, true), n, None), row(Kind::Corrupt, n, (0, n, 0)));
}

/// With less host memory than some executions need, exactly the models whose execution needs
/// more are passed over (named, with the estimate of their correct plan: a corrupted byte does
/// not change the plan), and the others carry every injection.
#[test]
fn executions_above_the_host_memory_are_passed_over_by_name() {
    use dramalloc_sim::exec::host_memory::estimate;
    let n = 20;
    let planned = campaign_models(2, true);
    let needs: Vec<u64> = planned.iter().map(|p| estimate(&p.model, &p.plan).total()).collect();
    let mut sorted = needs.clone();
    sorted.sort_unstable();
    let limit = sorted[1]; // the two smallest fit, the three largest do not
    assert!(sorted[1] < sorted[2], "needs {needs:?} must differ");
    let r = run_kind(Kind::Corrupt, &planned, n, Some(limit));
    let want: Vec<PassedOver> = planned
        .iter()
        .zip(&needs)
        .filter(|&(_, &need)| need > limit)
        .map(|(p, &needed)| PassedOver { model: p.name.clone(), needed })
        .collect();
    assert_eq!(want.len(), 3);
    assert_eq!(r, Row { passed_over: want, ..row(Kind::Corrupt, n, (0, n, 0)) });
    // nothing fits: nothing is injected, every model is named
    let r = run_kind(Kind::Corrupt, &planned, n, Some(sorted[0] - 1));
    assert_eq!((r.injected, r.detected, r.passed_over.len()), (0, 0, 5));
    assert_eq!(cli(&["faults", "--host-memory", "4K", "--count", "2"]), ExitCode::from(1));
}

#[test]
fn every_dropped_remote_target_is_caught_by_sync() {
    let n = fault_count();
    // exactly `MissingTwin` naming the core and location whose target was dropped
    let r = run_kind(Kind::DropTarget, &campaign_models(4, true), n, None);
    assert_eq!(r, row(Kind::DropTarget, n, (0, 0, n)));
}

#[test]
fn the_faults_command_passes_on_the_bundled_models_and_fails_where_faults_have_no_place() {
    assert_eq!(cli(&["faults", "--count", "3"]), ExitCode::SUCCESS);
    assert_eq!(cli(&["faults", "--cores", "0"]), ExitCode::from(2));
    assert_eq!(cli(&["faults", "--cores", "65"]), ExitCode::from(2));
    // on one core nothing is shared: twin, reverse and drop-target have no place -> exit 1
    assert_eq!(cli(&["faults", "--cores", "1", "--count", "2"]), ExitCode::from(1));
    // one op, nothing shared: twin, reverse and drop-target have no place -> exit 1
    let dir = std::env::temp_dir().join(format!("dramalloc-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("relu.json");
    std::fs::write(
        &p,
        r#"{"name": "relu", "tensors": [{"name": "x", "bytes": 4096, "kind": "input"},
            {"name": "t", "bytes": 4096, "kind": "intermediate"}, {"name": "y", "bytes": 4096, "kind": "output"}],
          "ops": [{"name": "a", "op": "Relu", "inputs": ["x"], "outputs": ["t"]},
                  {"name": "b", "op": "Relu", "inputs": ["t"], "outputs": ["y"]}]}"#,
    )
    .unwrap();
    assert_eq!(cli(&["faults", p.to_str().unwrap(), "--count", "2"]), ExitCode::from(1));
    let _ = std::fs::remove_dir_all(&dir);
}
