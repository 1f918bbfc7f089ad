//! `dramalloc scale` (issue 12's report command): it runs the real binary's `plan` as a child
//! process, so these tests run the built binary too. Its figures are `plan`'s own, each
//! solution is verified, and a planner that prints a wrong HWM or fails is named.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_dramalloc");

/// Three buffers, max load 12,288 bytes at instant 2 (b and c).
const PROBLEM: &str = "id,lower,upper,size\na,0,2,4096\nb,1,3,4096\nc,2,4,8192\n";

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-scale-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the shell script `body` to `dir/name`, executable (a planner for `--planner`), and
/// returns its path as text.
fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// `dramalloc ARGS` in `dir`: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// The generated problems' figures are those of `generate` then `plan --json` run by hand,
/// each run is a whole process (some time, a resident set on Linux), and what a case missed
/// follows from its figures.
#[test]
fn the_figures_are_plans_own() {
    let d = scratch("figures");
    let (code, out, err) = run(
        &d,
        &[
            "scale",
            "--generated",
            "2000",
            "--shapes",
            "short,layered",
            "--seeds",
            "1",
            "--strategy",
            "greedy-size",
            "--runs",
            "2",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["targets"],
        serde_json::json!({"ratio": 1.01, "whole_s": 1.0, "resident_bytes": 268435456u64})
    );
    let cases = v["cases"].as_array().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c["input"].as_str().unwrap()).collect();
    assert_eq!(names, ["short n=2000 seed 1", "layered n=2000 seed 1"]);
    for (case, shape) in cases.iter().zip(["short", "layered"]) {
        let f = format!("{shape}.csv");
        assert_eq!(run(&d, &["generate", "--shape", shape, "-n", "2000", "--seed", "1", "-o", &f]).0, 0);
        let (code, own, err) =
            run(&d, &["plan", &f, "--strategy", "greedy-size", "--align", "1", "--json", "-o", "s.csv"]);
        assert_eq!(code, 0, "{err}");
        let own: serde_json::Value = serde_json::from_str(&own).unwrap();
        let runs = case["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        for r in runs {
            assert_eq!(
                (&r["buffers"], &r["hwm"], &r["lower_bound"]),
                (&own["buffers"], &own["hwm"], &own["lower_bound"])
            );
            assert!(r["whole_s"].as_f64().unwrap() > 0.0);
            if cfg!(target_os = "linux") {
                assert!(r["peak_resident_bytes"].as_u64().unwrap() > 1 << 20, "{r}");
            }
        }
        let ratio = runs[0]["ratio"].as_f64().unwrap();
        assert_eq!(case["missed"]["ratio"], serde_json::json!(ratio > 1.01));
        let slow = runs.iter().any(|r| r["whole_s"].as_f64().unwrap() >= 1.0);
        assert_eq!(case["missed"]["time"], serde_json::json!(slow));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The table of one file against targets given on the command line, its row and its counts.
#[test]
fn the_table_names_each_input_and_counts_the_targets_met() {
    let d = scratch("table");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    let (code, out, err) = run(
        &d,
        &[
            "scale",
            "three.csv",
            "--strategy",
            "greedy-size",
            "--max-ratio",
            "1.5",
            "--max-seconds",
            "60",
            "--max-resident",
            "16G",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "whole-process figures of `plan`, the worst of 1 run each (targets: peak <= 1.5 x LB, whole process under 60 s, peak resident under 17179869184 bytes (16384.00 MiB))");
    let row: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(
        (row[0], row[1], row[2], row[3], row[row.len() - 1]),
        ("three.csv", "3", "12288", "1.0000", "met"),
        "{out}"
    );
    assert_eq!(lines[4], "within 1.5 x LB: 1 of 1; whole process under 60 s: 1 of 1; peak resident under 17179869184 bytes (16384.00 MiB): 1 of 1; all three: 1 of 1");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Bad inputs and flags exit 2, naming what is wrong: no input, standard input, a file
/// `plan` refuses (its own message, with the line), a missing file.
#[test]
fn bad_inputs_are_named() {
    let d = scratch("bad");
    std::fs::write(d.join("bad.csv"), "id,lower,upper,size\na,0,2,4096\nb,3,1,10\n").unwrap();
    let (code, _, err) = run(&d, &["scale"]);
    assert_eq!((code, err.as_str()), (2, "error: give the files to plan, or --generated N[,N...]\n"));
    let (code, _, err) = run(&d, &["scale", "-"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: <stdin>: `scale` reads each input several times: give a regular file"),
        "{err}"
    );
    let (code, _, err) = run(&d, &["scale", "bad.csv"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: bad.csv: `plan` exited with exit status: 2: error: bad.csv"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    let (code, _, err) = run(&d, &["scale", "missing.csv"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: missing.csv: `plan` exited with exit status: 2: error: missing.csv"),
        "{err}"
    );
    let (code, _, err) = run(&d, &["scale", "bad.csv", "--max-ratio", "0.9"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected a peak / lower bound ratio of at least 1"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A planner whose solution does not verify, or whose printed HWM is not its solution's peak,
/// or that cannot be run, fails the command (exit 1), named. The planner here is a shell
/// script that writes a fixed solution to its `-o` path and prints fixed JSON.
#[test]
fn a_planner_that_lies_or_fails_is_named() {
    let d = scratch("lies");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    let planner = |name: &str, solution: &str, hwm: u64| {
        let json = format!(
            r#"{{"buffers": 3, "hwm": {hwm}, "lower_bound": 12288, "read_ms": 0.1, "time_ms": 0.1, "write_ms": 0.1, "peak_resident_bytes": null}}"#
        );
        let body = format!(
            "#!/bin/sh\nwhile [ \"$1\" != \"-o\" ]; do shift; done\nprintf '{}' > \"$2\"\necho '{json}'\n",
            solution.replace('\n', "\\n")
        );
        script(&d, name, &body)
    };
    let good = "id,lower,upper,size,offset\na,0,2,4096,0\nb,1,3,4096,8192\nc,2,4,8192,0\n";
    let overlapping = "id,lower,upper,size,offset\na,0,2,4096,0\nb,1,3,4096,0\nc,2,4,8192,4096\n";
    let honest = planner("honest.sh", good, 12288);
    let (code, out, err) = run(&d, &["scale", "three.csv", "--planner", &honest]);
    assert_eq!(code, 0, "{err}");
    let row: Vec<&str> = out.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!((row[3], row[8], row[row.len() - 1]), ("1.0000", "-", "known"), "{out}");
    let liar = planner("liar.sh", good, 12000);
    let (code, _, err) = run(&d, &["scale", "three.csv", "--planner", &liar]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "error: three.csv: the planner printed HWM 12000 bytes, its solution's peak (offset + size rounded up \
             to --align) is 12288\n"
        )
    );
    // a bound above the peak, a buffer count that is not the input's, a negative stage time
    for (name, json_edit, said) in [
        (
            "bound.sh",
            ("\"lower_bound\": 12288", "\"lower_bound\": 20000"),
            "a lower bound of 20000 bytes, above its HWM 12288",
        ),
        ("count.sh", ("\"buffers\": 3", "\"buffers\": 7"), "printed 7 buffers, the input has 3"),
        ("time.sh", ("\"time_ms\": 0.1", "\"time_ms\": -5"), "printed a plan time of -5 ms"),
    ] {
        let path = planner(name, good, 12288);
        let text = std::fs::read_to_string(&path).unwrap().replace(json_edit.0, json_edit.1);
        std::fs::write(&path, text).unwrap();
        let (code, _, err) = run(&d, &["scale", "three.csv", "--planner", &path]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(said), "{err}");
    }
    let wrong = planner("wrong.sh", overlapping, 12288);
    let (code, _, err) = run(&d, &["scale", "three.csv", "--planner", &wrong]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: three.csv: the plan does not verify: "), "{err}");
    let (code, _, err) = run(&d, &["scale", "three.csv", "--planner", "/nonexistent/planner"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: --planner /nonexistent/planner: cannot run it: "), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Interrupted (SIGINT, as `kill -INT` sends it to this process alone), the command ends its
/// `plan` child, removes its scratch directory, the generated input and the solution in it,
/// and exits 130 as the signal would have (before, the directory and a 300,000-row input were
/// left behind, and the child ran on with no parent).
#[test]
fn an_interrupted_scale_leaves_no_scratch_directory() {
    let d = scratch("interrupt");
    let mut child = Command::new(BIN)
        .args(["scale", "--generated", "300000", "--shapes", "long-tail", "--runs", "20"])
        .current_dir(&d)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(d.join("stdout")).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("dramalloc-scale-{}-0", child.id()));
    let input = dir.join("long-tail-300000-seed971265762964537345.csv");
    let start = std::time::Instant::now();
    while !input.exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(input.exists(), "no generated input in {}", dir.display());
    // its `plan` child (whose arguments name the directory) running
    let children = || {
        let out = Command::new("pgrep").args(["-f", &dir.display().to_string()]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    while children().is_empty() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_ne!(children(), "", "no plan child running");
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!dir.exists(), "{} is left", dir.display());
    // and its `plan` child was ended, not left running, and no report was printed (a trial
    // saw an empty table and "cannot run it" after the signal)
    assert_eq!(children(), "", "a plan child is left running");
    assert_eq!(std::fs::read_to_string(d.join("stdout")).unwrap(), "");
    std::fs::remove_dir_all(&d).unwrap();
}

/// With `--align` above 1 the HWM `plan` prints counts each buffer's size rounded up to it, and
/// so does the check (before, every such run failed: "the planner printed HWM 48181248 bytes,
/// the verifier finds 48178944"); a file with its own `alignment` column too.
#[test]
fn the_hwm_at_an_alignment_is_of_the_rounded_sizes() {
    let d = scratch("align");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    std::fs::write(
        d.join("own.csv"),
        "id,lower,upper,size,alignment\na,0,2,4000,64\nb,1,3,10,1\nc,2,4,5000,1\n",
    )
    .unwrap();
    let (code, out, err) =
        run(&d, &["scale", "--generated", "1000", "--shapes", "mixed", "--align", "4096", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["cases"][0]["runs"][0]["hwm"].as_u64().unwrap() % 4096, 0);
    let (code, out, err) =
        run(&d, &["scale", "three.csv", "own.csv", "--strategy", "greedy-size", "--align", "8", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hwm = |k: usize| v["cases"][k]["runs"][0]["hwm"].as_u64().unwrap();
    let (_, own, _) =
        run(&d, &["plan", "own.csv", "--strategy", "greedy-size", "--align", "8", "--json", "-o", "s.csv"]);
    let own: serde_json::Value = serde_json::from_str(&own).unwrap();
    assert_eq!((hwm(0), hwm(1)), (12288, own["hwm"].as_u64().unwrap()));
    std::fs::remove_dir_all(&d).unwrap();
}

/// One input that fails does not hide the others: their rows are printed, the failure named
/// after them, and the exit code is the failure's.
#[test]
fn the_inputs_measured_are_reported_whatever_became_of_the_others() {
    let d = scratch("keep");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    std::fs::write(d.join("bad.csv"), "id,lower,upper,size\na,3,1,10\n").unwrap();
    let (code, out, err) = run(&d, &["scale", "bad.csv", "three.csv", "--strategy", "greedy-size"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.lines().nth(2).unwrap().starts_with("three.csv "), "{out}");
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(err.starts_with("error: bad.csv: `plan` exited with exit status: 2: error: bad.csv"), "{err}");
    // and in JSON, the failed input with its error beside the cases measured
    let (code, out, _) = run(&d, &["scale", "bad.csv", "three.csv", "--strategy", "greedy-size", "--json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&v["cases"][0]["input"], &v["failed"][0]["input"]), (&"three.csv".into(), &"bad.csv".into()));
    assert!(v["failed"][0]["error"]
        .as_str()
        .unwrap()
        .starts_with("bad.csv: `plan` exited with exit status: 2"));
    // every input failed: the header still says how many runs each was to have
    let (_, out, _) = run(&d, &["scale", "bad.csv", "--runs", "3"]);
    assert!(out.starts_with("whole-process figures of `plan`, the worst of 3 runs each"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--shapes` and `--seeds` with files, a directory, a bad target or run count are bad flags.
#[test]
fn flags_that_do_not_apply_are_refused() {
    let d = scratch("flags");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    std::fs::create_dir_all(d.join("dir")).unwrap();
    for (args, said) in [
        (
            &["scale", "three.csv", "--seeds", "1"][..],
            "--shapes and --seeds are of --generated problems, not of files",
        ),
        (
            &["scale", "three.csv", "--shapes", "short"][..],
            "--shapes and --seeds are of --generated problems, not of files",
        ),
        (&["scale", "dir"][..], "dir: `scale` reads each input several times: give a regular file"),
        (&["scale", "three.csv", "--runs", "0"][..], "expected a run count from 1 to 1000"),
        (&["scale", "three.csv", "--max-seconds", "inf"][..], "expected a time target in seconds"),
        (
            &["scale", "three.csv", "--planner", "no-such-planner"][..],
            "(a name without a `/` is looked up in PATH: give ./NAME)",
        ),
        (&["scale", "three.csv", "--max-resident", "0"][..], "a memory target is at least 1 byte"),
    ] {
        let (code, _, err) = run(&d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A planner that hangs is killed at `--run-timeout` and its run counted as failed (exit 1),
/// named; the command does not wait for it.
#[test]
fn a_hung_planner_is_killed_at_the_run_timeout() {
    let d = scratch("hung");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    let hung = script(&d, "hung.sh", "#!/bin/sh\nsleep 30\n");
    let start = std::time::Instant::now();
    let (code, _, err) = run(&d, &["scale", "three.csv", "--planner", &hung, "--run-timeout", "0.5"]);
    assert!(start.elapsed().as_secs() < 20, "waited {:?}", start.elapsed());
    assert_eq!(
        (code, err.as_str()),
        (1, "error: three.csv: `plan`: it did not end within 0.5 s and was killed\n")
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// `/dev/stdin` redirected from a file is that file: the child is given the file's own path
/// (it was given `/dev/stdin`, its own empty standard input: "the file is empty").
#[test]
fn a_redirected_standard_input_path_is_its_file() {
    let d = scratch("devstdin");
    std::fs::write(d.join("three.csv"), PROBLEM).unwrap();
    let out = Command::new(BIN)
        .args(["scale", "/dev/stdin", "--strategy", "greedy-size"])
        .current_dir(&d)
        .stdin(std::fs::File::open(d.join("three.csv")).unwrap())
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let row: Vec<&str> = stdout.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!((row[0], row[1], row[2]), ("/dev/stdin", "3", "12288"), "{stdout}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `-v` reaches the `plan` children: each run's milestone lines, those of `plan -v` run by
/// hand (on one thread, so that their order is fixed), are passed on after the input's name; without it nothing is.
#[test]
fn verbose_passes_each_childs_lines_after_the_input_name() {
    let d = scratch("verbose");
    std::fs::write(d.join("p.csv"), PROBLEM).unwrap();
    // one thread: helper threads log too, in an order that varies from run to run
    let (code, _, by_hand) =
        run(&d, &["-v", "plan", "p.csv", "--threads", "1", "--json", "-o", "by_hand.csv"]);
    assert_eq!(code, 0, "{by_hand}");
    assert!(by_hand.contains("DRAM allocation successful"), "{by_hand}");
    let once: String = by_hand.lines().map(|l| format!("p.csv: {l}\n")).collect();
    let (code, out, err) = run(&d, &["-v", "scale", "p.csv", "--threads", "1", "--runs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, once.repeat(2));
    assert!(out.contains("p.csv "), "{out}");
    let (code, _, quiet) = run(&d, &["scale", "p.csv", "--runs", "2"]);
    assert_eq!((code, quiet.as_str()), (0, ""));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A run that fails is named with its run where there are several, and with what the planner
/// said from its first `error` line on (the hint after it too, the warning before it not).
#[test]
fn a_failed_run_is_named_with_its_run_and_all_its_error() {
    let d = scratch("failed-run");
    std::fs::write(d.join("p.csv"), PROBLEM).unwrap();
    // runs the real planner once, then fails
    let body = format!(
        "#!/bin/sh\nif [ -e ran ]; then echo 'warning: first' >&2; echo 'error: run broke' >&2; \
         echo 'hint: try again' >&2; exit 1; fi\ntouch ran\nexec {BIN} \"$@\"\n"
    );
    let path = script(&d, "second.sh", &body);
    let (code, _, err) = run(&d, &["scale", "p.csv", "--runs", "2", "--planner", &path]);
    assert_eq!(
        (code, err.as_str()),
        (1, "error: p.csv: `plan` (run 2 of 2) exited with exit status: 1: error: run broke\n  hint: try again\n")
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// With `-v` a failing child's standard error is passed on once, line by line after the
/// input's name, and the failure says where it is (before, its error was printed twice).
#[test]
fn verbose_prints_a_childs_error_once() {
    let d = scratch("verbose-error");
    std::fs::write(d.join("bad.csv"), "id,lower,upper,size\na,0,x,4096\n").unwrap();
    let (code, _, err) = run(&d, &["-v", "scale", "bad.csv"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "bad.csv: error: bad.csv: line 2, column `upper`: expected a non-negative integer, found `x`\n\
             error: bad.csv: `plan` exited with exit status: 2 (its standard error is above: it ran with -v, \
             as `scale` did)\n"
        )
    );
    std::fs::remove_dir_all(&d).unwrap();
}
