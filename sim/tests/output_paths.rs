//! `-o` naming the process's own standard output or error, through a shell's `> FILE`: the
//! binary is run with its standard output (or error) on a file, as the shell would leave it.
//! A trial found `plan F -o /dev/stdout > out.csv` left only the summary line in `out.csv`
//! (the solution went in at offset 0 through a path of its own, then the summary over it
//! through the shell's descriptor, also at offset 0) and `import -o /dev/stdout > x.json` a
//! fragment of JSON. Now such a path is `-o -`: the output on standard output, the summary
//! on standard error; and `/dev/stderr` is written through standard error's own descriptor.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const PROBLEM: &str = "id,lower,upper,size\na,0,2,4096\nb,1,3,4096\nc,2,4,8192\n";
const SOLUTION: &str =
    "id,lower,upper,size,offset,align\na,0,2,4096,0,4096\nb,1,3,4096,8192,4096\nc,2,4,8192,0,4096\n";

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-outpaths-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `dramalloc ARGS` in `dir` with standard output on `dir/stdout` and standard error on
/// `dir/stderr` (each truncated first, as `>` does); returns (exit code, stdout, stderr).
fn run(dir: &PathBuf, args: &[&str]) -> (i32, String, String) {
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let status = Command::new(env!("CARGO_BIN_EXE_dramalloc"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .status()
        .unwrap();
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    (status.code().unwrap_or(-1), read(&out), read(&err))
}

#[test]
fn plan_and_generate_to_dev_stdout_keep_the_output_whole() {
    let d = scratch("stdout");
    std::fs::write(d.join("fx.csv"), PROBLEM).unwrap();
    for path in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        let (code, out, err) = run(&d, &["plan", "fx.csv", "--strategy", "greedy-size", "-o", path]);
        assert_eq!((code, out.as_str()), (0, SOLUTION), "-o {path}: {err}");
        assert!(err.starts_with("fx.csv: 3 buffers, strategy greedy-size, HWM 12288 bytes"), "{err}");
    }
    let (code, out, err) = run(&d, &["generate", "-n", "3", "--seed", "1", "-o", "/dev/stdout"]);
    let (_, dash, _) = run(&d, &["generate", "-n", "3", "--seed", "1", "-o", "-"]);
    assert_eq!((code, out.lines().count(), &out), (0, 4, &dash), "{err}");
    assert_eq!(out.lines().next(), Some("id,lower,upper,size"));
    assert!(err.starts_with("3 buffers of shape mixed (seed 1) -> "), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn import_to_dev_stdout_is_the_json_alone() {
    let d = scratch("import");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/data/models/onnx_squeezenet.onnx");
    let (code, out, err) = run(&d, &["import", model, "-o", "/dev/stdout"]);
    let (_, dash, _) = run(&d, &["import", model, "-o", "-"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, dash);
    assert!(out.starts_with('{') && out.trim_end().ends_with('}'), "{out}");
    assert!(err.contains(": ONNX model, "), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn plan_to_dev_stderr_is_followed_not_overwritten() {
    let d = scratch("stderr");
    std::fs::write(d.join("fx.csv"), PROBLEM).unwrap();
    // the solution through standard error's descriptor, the summary on standard output
    let (code, out, err) = run(&d, &["plan", "fx.csv", "--strategy", "greedy-size", "-o", "/dev/stderr"]);
    assert_eq!((code, err.as_str()), (0, SOLUTION), "{out}");
    assert!(out.starts_with("fx.csv: 3 buffers, strategy greedy-size"), "{out}");
    // the picture is a file: standard output is refused for it, before planning
    let (code, out, err) = run(&d, &["plan", "fx.csv", "-o", "o.csv", "--svg", "/dev/stdout"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: --svg /dev/stdout: the picture goes to a file (standard output carries the summary or the solution)\n"
        )
    );
    assert!(!d.join("o.csv").exists());
    std::fs::remove_dir_all(&d).unwrap();
}
