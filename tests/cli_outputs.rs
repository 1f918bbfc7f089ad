//! The command line's outputs and exit codes as a compiler engineer meets them (issue 17, with
//! the plan files and `--json` of issues 14 and 15): what is written when a run or a plan
//! fails, reports replaced or kept, stdout lost or closed, the report directory checked
//! first, model files planned to `.bin` or JSON. Each pinned to its exact text; the flags and
//! messages are in `cli.rs`. Runs `dramalloc` in-process on buffers (`cli::run_with`), on the
//! bundled data only.

use std::path::PathBuf;
use std::process::ExitCode;

use dramalloc_sim::cli::{run_with, Console};

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{
    data, dramalloc, dramalloc_in, dramalloc_line, summary, Out, CODE_BAD, CODE_FAILED, CODE_OK,
};

/// A fresh scratch directory under the system temp dir.
fn scratch(tag: &str) -> PathBuf {
    in_process::scratch_in("cli_outputs", tag)
}

// ------------------------------------------------------------------ outputs and exit codes

#[test]
fn a_solution_remembers_its_alignment() {
    let dir = scratch("align");
    let sol = dir.join("A.solution.csv");
    let problem = data("minimalloc/A.1048576.csv");
    let out =
        dramalloc_line(&format!("plan {problem} --align 1 -o {} --strategy greedy-size", sol.display()));
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(
        summary(out.stdout.trim_end()),
        format!("{problem}: 154 buffers, strategy greedy-size, HWM 1352704 bytes, lower bound 1048576 bytes, ratio 1.2900")
    );
    let out = dramalloc(&["verify", &problem, sol.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "OK: 154 buffers, peak 1352704 bytes, offsets aligned to 1 (the solution's align column)\n"
    );
    // --align still overrides it
    let out = dramalloc(&["verify", &problem, sol.to_str().unwrap(), "--align", "4K"]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_run_still_writes_its_reports_marked_failed() {
    let dir = scratch("failed");
    // a passing run first: its plan.bin and plan.h must not outlive the failed run below
    let out = dramalloc(&["run", "--report-dir", dir.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert!(dir.join("plan.bin").exists() && dir.join("plan.h").exists());
    let out = dramalloc(&["run", "--inject-fault", "move:3", "--report-dir", dir.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert!(
        out.stdout.contains(&format!("reports (of the failed run): {}\n", dir.display())),
        "{}",
        out.stdout
    );
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert!(
        v["verdict"]
            .as_str()
            .unwrap()
            .starts_with("FAILED: verifier: core 1: collision: `r129` (live [129, 139)"),
        "{v}"
    );
    let svg = std::fs::read_to_string(dir.join("layout.svg")).unwrap();
    assert!(svg.contains(">FAILED RUN: onnx_resnet50: core 0 of 2,"), "{}", &svg[..400]);
    assert!(std::fs::read_to_string(dir.join("plan.csv")).unwrap().starts_with("tensor,core,address,"));
    // a failed plan is not one to embed
    assert!(!dir.join("plan.bin").exists() && !dir.join("plan.h").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_that_fails_in_planning_or_on_a_spill_replaces_the_earlier_reports() {
    let dir = scratch("failed-plan");
    let d = dir.to_str().unwrap();
    let vgg = data("models/onnx_vgg19.json");
    let good = |out: &Out| assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let verdict = || {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        v["verdict"].as_str().unwrap().to_owned()
    };
    // planning fails: no plan, so the FAILED summary alone, every earlier file removed
    good(&dramalloc(&["run", &vgg, "--report-dir", d]));
    let out =
        dramalloc(&["run", &vgg, "--hbm-window", "100M", "--allreduce-buffer-size", "1", "--report-dir", d]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(out.stdout, format!("reports (of the failed run): {d}\n"));
    assert_eq!(
        verdict(),
        "FAILED: plan failed: DramAllocation on core 0: HBM budget: at op 1 `n1` 601014272 live DRAM bytes \
         (601014272 private + 0 shared, counted once) do not fit the 104857600-byte budget"
    );
    for stale in ["plan.csv", "layout.svg", "plan.bin", "plan.h"] {
        assert!(!dir.join(stale).exists(), "{stale}");
    }
    // a spill left unaddressed: the plan exists, so plan.csv and layout.svg of it, no plan.bin/plan.h
    good(&dramalloc(&["run", &vgg, "--report-dir", d]));
    let out = dramalloc(&["run", &vgg, "--disable-dram-allocation", "--report-dir", d]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(verdict(), "FAILED: DRAM spill `r0` on core 0 has no address");
    // the pressure was not measured (no DRAM pass): `-`, where it said 0 with the inputs and
    // weights live (a trial)
    let row = out.stdout.lines().find(|l| l.starts_with("  0-1 ")).unwrap();
    assert_eq!(row.split_whitespace().nth(4), Some("-"), "{row}");
    assert!(std::fs::read_to_string(dir.join("layout.svg"))
        .unwrap()
        .contains(">FAILED RUN: onnx_vgg19: core 0 of 2,"));
    assert!(std::fs::read_to_string(dir.join("plan.csv")).unwrap().starts_with("tensor,core,address,"));
    assert!(!dir.join("plan.bin").exists() && !dir.join("plan.h").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard output that fails every write with `kind` (a full disk: ENOSPC; a reader gone: EPIPE).
struct Failing(std::io::Error);

impl std::io::Write for Failing {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(match self.0.raw_os_error() {
            Some(n) => std::io::Error::from_raw_os_error(n),
            None => std::io::Error::from(self.0.kind()),
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `dramalloc ARGS` printing to a standard output that fails with `e`: the exit code and stderr.
fn dramalloc_failing_stdout(args: &[&str], e: std::io::Error) -> (ExitCode, String) {
    let (mut o, mut err) = (Failing(e), Vec::new());
    let mut con = Console { stdin: &mut std::io::empty(), stdout: &mut o, stderr: &mut err, progress: false };
    let code = run_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into), &mut con);
    (code, String::from_utf8(err).unwrap())
}

#[test]
fn a_primary_output_lost_on_stdout_exits_1_and_a_broken_pipe_quietly() {
    let dir = scratch("stdout");
    let csv = dir.join("g.csv");
    assert_eq!(
        dramalloc(&["generate", "-n", "50", "-o", csv.to_str().unwrap()]).code,
        ExitCode::from(CODE_OK)
    );
    let (sol, bin) = (dir.join("sol.csv"), dir.join("g.bin"));
    let (sol, bin) = (sol.to_str().unwrap(), bin.to_str().unwrap());
    let (csv, onnx, json) =
        (csv.to_str().unwrap(), data("models/onnx_squeezenet.onnx"), data("models/onnx_squeezenet.json"));
    for out in [sol, bin] {
        assert_eq!(dramalloc(&["plan", csv, "-o", out]).code, ExitCode::from(CODE_OK));
    }
    let script = dir.join("s.replay");
    std::fs::write(&script, "allocator 1M\nalloc a 1K\n").unwrap();
    // the verdicts and reports of quality, verify and check-plan are primary outputs too, and
    // so are replay's result lines (it once said `writing replay output: Broken pipe`)
    let commands: [&[&str]; 10] = [
        &["replay", script.to_str().unwrap()],
        &["plan", csv, "-o", "-"],
        &["plan", csv, "-o", sol],
        &["plan", csv, "-o", "-", "--format", "bin"],
        &["import", &onnx, "-o", "-"],
        &["generate", "-n", "50", "-o", "-"],
        &["run", &json, "--cores", "1"],
        &["quality", csv, "--strategies", "greedy-size"],
        &["verify", csv, sol],
        &["check-plan", bin],
    ];
    for args in commands {
        let (code, err) = dramalloc_failing_stdout(args, std::io::Error::from_raw_os_error(28));
        assert_eq!(code, ExitCode::from(CODE_FAILED), "{args:?}");
        assert!(
            err.ends_with("error: standard output: No space left on device (os error 28)\n"),
            "{args:?}: {err}"
        );
        let (code, err) =
            dramalloc_failing_stdout(args, std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(code, ExitCode::from(CODE_FAILED), "{args:?}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_takes_a_model_file_and_writes_bin_or_json_next_to_dash() {
    let dir = scratch("model");
    let bin = dir.join("sq.bin");
    let model = data("models/onnx_squeezenet.onnx");
    let out = dramalloc(&["plan", &model, "-o", bin.to_str().unwrap(), "--json"]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&v["buffers"], &v["hwm"], &v["lower_bound"], &v["member"], &v["format"]),
        (&65.into(), &6316032.into(), &6316032.into(), &"sweep".into(), &"bin".into())
    );
    // 65 buffers: no 1/128 long-lived set, and a greedy pass fits in place of the sweep around
    // the hot, so the sweep is the first member that runs
    assert_eq!(
        v["members"][0].as_str(),
        Some("sweep-long/128    skipped: no long-lived set of its own (its plan would be the sweep's or an earlier row's)")
    );
    let first = v["members"][2].as_str().unwrap();
    assert!(first.starts_with("sweep             ran: peak 6316032 bytes (1.0000 x LB), "), "{first}");
    let out = dramalloc(&["check-plan", bin.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().next(),
        Some(&*format!("OK: {}: 1 core(s), 65 records, valid", bin.display()))
    );
    // `-o -`: the solution on stdout, the JSON summary on stderr
    let out = dramalloc(&["plan", &model, "-o", "-", "--json"]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(out.stdout.lines().next(), Some("id,lower,upper,size,offset,align"));
    assert_eq!(out.stdout.lines().count(), 66);
    let v: serde_json::Value = serde_json::from_str(&out.stderr).unwrap();
    assert_eq!((&v["output"], &v["format"]), (&"<stdout>".into(), &"csv".into()));
    let out = dramalloc(&["plan", &data("minimalloc/A.1048576.csv"), "-o", "-", "--input-shape", "x=1"]);
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert!(out
        .stderr
        .ends_with(": --input-shape x: --input-shape applies to model files (.onnx, .tflite) only\n"));
    // `run` on its bundled program (a JSON) refuses it too
    let out = dramalloc(&["run", "--input-shape", "x=1x2"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            ExitCode::from(CODE_BAD),
            "error: bundled:onnx_resnet50.json: --input-shape x: --input-shape applies to model files (.onnx, .tflite) only\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_directory_is_checked_before_planning() {
    let dir = scratch("reportdir");
    let file = dir.join("taken");
    std::fs::write(&file, "x").unwrap();
    let out = dramalloc(&["run", "--cores", "64", "--report-dir", file.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert_eq!(
        out.stderr,
        format!("error: --report-dir {}: exists and is not a directory\n", file.display())
    );
    assert_eq!(out.stdout, "", "nothing ran");
    let reports = dir.join("r");
    let out =
        dramalloc(&["run", "--cores", "2", "--svg-core", "2", "--report-dir", reports.to_str().unwrap()]);
    assert_eq!(out.stderr, "error: --svg-core 2: the run has cores 0..1 (--cores 2)\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn replay_names_the_script_fails_on_unwritable_reports_and_stops_when_strict() {
    let dir = scratch("replay");
    std::fs::write(dir.join("blocked"), "a file, not a directory").unwrap();
    let script = dir.join("s.replay");
    std::fs::write(&script, "device wormhole\nbuffer a dram 24K 2048\nreport blocked\nfree zz\nclear\n")
        .unwrap();
    let s = script.to_str().unwrap();
    let out = dramalloc(&["replay", s]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    let target = dir.join("blocked");
    assert!(
        out.stdout.contains(&format!("error report blocked : writing memory report {}:", target.display())),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.starts_with(&format!("error: {s}:3: writing memory report {}:", target.display())),
        "{}",
        out.stderr
    );
    assert!(out.stdout.ends_with("error free zz : unknown name `zz`\nclear\n"), "{}", out.stdout);
    // --strict stops at the first error line
    let out = dramalloc(&["replay", "--strict", s]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(out.stdout.lines().count(), 3);
    assert!(
        out.stderr.starts_with(&format!("error: {s}:3: `report blocked`: writing memory report")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.trim_end().ends_with("(--strict: stopped here)"));
    // a malformed line names the script
    let out = dramalloc_in(&["replay", "-"], "allocator 1M\nalloc a 1Q\n");
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert_eq!(out.stderr, "error: <stdin>:2: bad size `1Q`: `alloc a 1Q`\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_help_lists_exit_codes_and_strategies() {
    for cmd in ["run", "import", "plan", "verify", "replay", "check-plan", "quality"] {
        let out = dramalloc(&[cmd, "--help"]);
        assert_eq!(out.code, ExitCode::from(CODE_OK));
        assert!(out.stdout.contains("Exit codes: 0 "), "{cmd}: {}", out.stdout);
    }
    for cmd in ["run", "plan"] {
        let out = dramalloc(&[cmd, "--help"]);
        // clap pads the names to the longest one (`greedy-class:`); compare the words
        let lines: Vec<String> =
            out.stdout.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        for want in [
            "- greedy-size: size-descending first fit (TensorFlow Lite Micro)",
            "- greedy-load: first fit, buffers living through the highest load first (MiniMalloc's order)",
        ] {
            assert!(lines.iter().any(|l| l == want), "{cmd}: {want}: {}", out.stdout);
        }
    }
    let out = dramalloc(&["quality", "-h"]);
    assert!(
        out.stdout.contains("[possible values: seed, greedy-size, best-fit, skyline, sweep, exact, auto, greedy-start, greedy-load, greedy-class, best-fit-start]"),
        "{}",
        out.stdout
    );
    let out = dramalloc(&["plan", "x.csv", "-o", "y", "--strategy", "fast"]);
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert!(out.stderr.starts_with("error: invalid value 'fast' for '--strategy <STRATEGY>'\n  [possible values: seed, greedy-size, best-fit, skyline, sweep, exact, auto, greedy-start, greedy-load, greedy-class, best-fit-start]"), "{}", out.stderr);
}

/// An output that names the input is refused before anything is written (exit 2), the input
/// kept byte for byte: a trial's `import m.onnx -o m.onnx` replaced the model with its program
/// JSON and `plan m.onnx -o m.onnx` with the solution, both with exit 0. The same file under
/// another name (`./`, a hard link) is the same file.
#[test]
fn an_output_over_the_input_is_refused_and_the_input_kept() {
    let dir = scratch("over-input");
    let model = dir.join("m.onnx");
    let bytes = std::fs::read(data("models/onnx_squeezenet.onnx")).unwrap();
    std::fs::write(&model, &bytes).unwrap();
    let link = dir.join("link.onnx");
    std::fs::hard_link(&model, &link).unwrap();
    let (m, l) = (model.to_str().unwrap(), link.to_str().unwrap());
    let dotted = format!("{}/./m.onnx", dir.display());
    let sol = dir.join("sol.csv");
    let s = sol.to_str().unwrap();
    let cases: [(&[&str], String); 5] = [
        (
            &["import", m, "-o", m],
            format!("error: -o {m}: the same file as the input {m}, which writing it would destroy"),
        ),
        (
            &["import", m, "-o", &dotted],
            format!("error: -o {dotted}: the same file as the input {m}, which writing it would destroy"),
        ),
        (
            &["plan", m, "-o", l],
            format!("error: -o {l}: the same file as the input {m}, which writing it would destroy"),
        ),
        (
            &["plan", l, "-o", m, "--format", "bin"],
            format!("error: -o {m}: the same file as the input {l}, which writing it would destroy"),
        ),
        (
            &["plan", m, "-o", s, "--svg", l],
            format!("error: --svg {l}: the same file as the input {m}, which writing it would destroy"),
        ),
    ];
    for (args, want) in cases {
        let out = dramalloc(args);
        assert_eq!(
            (out.code, out.stderr.lines().next().unwrap_or("")),
            (ExitCode::from(CODE_BAD), want.as_str())
        );
        assert_eq!(std::fs::read(&model).unwrap(), bytes, "{args:?} changed the input");
    }
    assert!(!sol.exists(), "a solution was written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `import -` reads the model from standard input, its format told by its content, and names
/// it `<stdin>` (a trial: it was read as a file named `-`, "No such file or directory"): the
/// program is the file's but for its name and source; bytes of neither format exit 2.
#[test]
fn import_reads_a_model_from_standard_input() {
    let dir = scratch("import-stdin");
    let model = data("models/onnx_squeezenet.onnx");
    let (from_file, from_stdin) = (dir.join("f.json"), dir.join("s.json"));
    assert_eq!(
        dramalloc(&["import", &model, "-o", from_file.to_str().unwrap()]).code,
        ExitCode::from(CODE_OK)
    );
    let bytes = std::fs::read(&model).unwrap();
    let import_stdin = |stdin: &[u8]| {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let mut input = stdin;
        let mut con = Console { stdin: &mut input, stdout: &mut o, stderr: &mut e, progress: false };
        let args = ["dramalloc", "import", "-", "-o", from_stdin.to_str().unwrap()];
        let code = run_with(args.into_iter().map(Into::into), &mut con);
        (code, String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
    };
    let (code, out, _) = import_stdin(&bytes);
    assert_eq!(code, ExitCode::from(CODE_OK));
    assert!(out.starts_with("<stdin>: ONNX model, 65 ops, 118 tensors"), "{out}");
    let parse = |p: &PathBuf| {
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (mut f, mut s) = (parse(&from_file), parse(&from_stdin));
    assert_eq!((&s["name"], &s["source"]), (&serde_json::json!("stdin"), &serde_json::json!("<stdin>")));
    for v in [&mut f, &mut s] {
        let o = v.as_object_mut().unwrap();
        o.remove("name");
        o.remove("source");
    }
    assert_eq!(f, s);
    let (code, _, err) = import_stdin(b"hello\n");
    assert_eq!(code, ExitCode::from(CODE_BAD));
    assert!(err.starts_with("error: <stdin>: not an ONNX (.onnx) or TFLite (.tflite) model"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A solution offset whose buffer would end past u64 is an invalid plan, exit 1, whatever the
/// offset: u64::MAX itself (the reader's mark of a free buffer, refused as it reads) exited 2
/// where 2^64 - 4096 exited 1 (a trial).
#[test]
fn a_solution_offset_past_u64_is_invalid_whatever_its_value() {
    let dir = scratch("verify-overflow");
    let p = dir.join("p.csv");
    std::fs::write(&p, "id,lower,upper,size\na,0,2,4096\n").unwrap();
    let p = p.to_str().unwrap();
    for (offset, want) in [
        ("18446744073709547520", "buffer `a`: offset 18446744073709547520 + size 4096 overflows u64"),
        (
            "18446744073709551615",
            "line 2, column `offset`: placing buffer `a` (4096 bytes) overflows the u64 address space: its offset \
             18446744073709551615 plus its size ends past 18446744073709551615",
        ),
    ] {
        let s = dir.join(format!("s{offset}.csv"));
        std::fs::write(&s, format!("id,lower,upper,size,offset\na,0,2,4096,{offset}\n")).unwrap();
        let s = s.to_str().unwrap();
        let out = dramalloc(&["verify", p, s, "--align", "1"]);
        let prefix = if want.starts_with("line") { format!("error: {s}: ") } else { format!("error: {s} against {p}: ") };
        assert_eq!((out.code, out.stderr.trim_end()), (ExitCode::from(CODE_FAILED), format!("{prefix}{want}").as_str()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trial's findings on outputs: a report named like the input replaced it (`run` a program
/// saved as `out/summary.json` with `--report-dir out`, exit 0; a `replay` script named like
/// its own report); `plan -o nodir/x.csv` planned before it failed; a replaced output lost
/// its permissions; a dangling link was replaced by a file.
#[test]
fn reports_never_replace_their_input_and_outputs_are_checked_before_planning() {
    let dir = scratch("outputs-kept");
    let program = r#"{"name":"t","tensors":[{"name":"x","bytes":4096,"kind":"input"},{"name":"y","bytes":4096,"kind":"intermediate"},{"name":"z","bytes":4096,"kind":"output"}],"ops":[{"name":"o0","op":"Relu","inputs":["x"],"outputs":["y"]},{"name":"o1","op":"Relu","inputs":["y"],"outputs":["z"]}]}"#;
    let d = dir.to_str().unwrap();
    for name in ["summary.json", "plan.h"] {
        let p = dir.join(name);
        std::fs::write(&p, program).unwrap();
        let out = dramalloc(&["run", p.to_str().unwrap(), "--report-dir", d]);
        let p = p.display();
        assert_eq!(
            (out.code, out.stderr),
            (
                ExitCode::from(CODE_BAD),
                format!("error: --report-dir {d}/{name}: the same file as the input {p}, which writing it would destroy\n")
            )
        );
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), program);
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    // a replay script named like its report: an error line, the script kept
    let script = dir.join("run1_memory_usage_summary.csv");
    let text = "device wormhole\nreport . prefix=run1_\n";
    std::fs::write(&script, text).unwrap();
    let s = script.to_str().unwrap();
    let out = dramalloc(&["replay", s]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    let want = format!(
        "error: {s}:2: writing memory report {d}/./run1_memory_usage_summary.csv: the same file as the script {s}, which writing it would destroy\n"
    );
    assert_eq!(out.stderr, want);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), text);
    // outputs that cannot be written fail before the planning: nothing on standard output
    let problem = data("minimalloc/A.1048576.csv");
    let missing = dir.join("nodir").join("x.csv");
    let m = missing.display();
    let out = dramalloc(&["plan", &problem, "-o", missing.to_str().unwrap()]);
    let why = format!("its directory {d}/nodir takes no new file (a write goes through a temp file there)");
    assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(CODE_FAILED), ""));
    assert!(out.stderr.starts_with(&format!("error: -o {m}: cannot be written: {why}: ")), "{}", out.stderr);
    let out = dramalloc(&["plan", &problem, "-o", d]);
    assert_eq!(out.stderr, format!("error: -o {d}: a directory, not a file to write\n"));
    // a replaced output keeps its permissions; a dangling link gets its target, the link kept
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let sol = dir.join("sol.csv");
        std::fs::write(&sol, "old").unwrap();
        std::fs::set_permissions(&sol, std::fs::Permissions::from_mode(0o640)).unwrap();
        let out = dramalloc(&["plan", &problem, "-o", sol.to_str().unwrap()]);
        assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
        assert_eq!(std::fs::metadata(&sol).unwrap().permissions().mode() & 0o777, 0o640);
        std::fs::create_dir(dir.join("real")).unwrap();
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink("real/new.csv", &link).unwrap();
        let out = dramalloc(&["plan", &problem, "-o", link.to_str().unwrap()]);
        assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(dir.join("real/new.csv")).unwrap(), std::fs::read(&sol).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A picture is an XML document whatever the names in it: a character XML 1.0 does not allow
/// at all (a C0 control but tab, line feed and carriage return; U+FFFE) is written as the text
/// of its escape, `\u{1}` (a trial's ids `"\x01a"` and ESC made a `--svg` no parser read);
/// what XML allows stays as it is (a right-to-left override, `<` as `&lt;`).
#[test]
fn a_picture_holds_no_character_xml_forbids() {
    let dir = scratch("svg-controls");
    let csv = dir.join("c.csv");
    std::fs::write(
        &csv,
        "id,lower,upper,size\n\"\u{1}a\",0,2,10\n\"\u{1b}[31mred\",1,3,20\n\"b\u{fffe}\",2,4,30\n\"r\u{202e}<\",3,5,40\n",
    )
    .unwrap();
    let (sol, svg) = (dir.join("c.out.csv"), dir.join("c.svg"));
    let out = dramalloc(&[
        "plan",
        csv.to_str().unwrap(),
        "--align",
        "1",
        "-o",
        sol.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let text = std::fs::read_to_string(&svg).unwrap();
    let forbidden: Vec<char> =
        text.chars().filter(|&c| (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{fffe}').collect();
    assert_eq!(forbidden, Vec::<char>::new());
    for label in ["\\u{1}a", "\\u{1b}[31mred", "b\\u{fffe}", "r\u{202e}&lt;"] {
        assert!(text.contains(label), "{label} missing from {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
