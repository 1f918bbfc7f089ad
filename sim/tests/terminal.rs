//! `dramalloc` on a terminal: the progress bars are drawn on standard error from other
//! threads, so the commands that draw them (`run` with its per-core executor, `plan -o FILE`
//! with its spinner) must finish there too. Runs the binary under `script` (util-linux),
//! which gives it a pseudo-terminal; a command still running after two minutes counts as
//! deadlocked and fails the test (it once hung forever: the main thread held standard
//! error's lock for the whole command).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `dramalloc ARGS` on a pseudo-terminal; returns (exit success, everything printed).
fn on_terminal(args: &str) -> (bool, String) {
    let bin = env!("CARGO_BIN_EXE_dramalloc");
    let mut child = Command::new("script")
        .args(["-qec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) is needed to give dramalloc a terminal");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            return (status.success(), text);
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("`dramalloc {args}` on a terminal still runs after 120 s: deadlocked");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn run_and_plan_finish_on_a_terminal() {
    let (ok, text) = on_terminal("run sim/data/models/onnx_squeezenet.json --cores 2");
    assert!(ok, "{text}");
    assert!(text.contains("verdict                      OK"), "{text}");
    let out = std::env::temp_dir().join(format!("dramalloc-terminal-{}.csv", std::process::id()));
    let (ok, text) = on_terminal(&format!("plan sim/data/models/onnx_vgg19.csv -o {}", out.display()));
    assert!(ok, "{text}");
    assert!(text.contains("44 buffers, strategy auto"), "{text}");
    let _ = std::fs::remove_file(out);
}
