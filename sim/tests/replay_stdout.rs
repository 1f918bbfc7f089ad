//! `dramalloc replay` through the binary with its standard output closed or cut short, as a
//! shell leaves it. A trial found `replay big.replay >&-` exited 0 with no message, and
//! `replay big.replay | head -1` printed `error: writing replay output: Broken pipe`; now
//! replay's output is checked like every other command's: a closed standard output is exit 1
//! with `error: standard output: …`, a broken pipe a quiet exit 1.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-replay-stdout-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A script whose output (about 660 KB) is far more than a pipe and `head` take in.
fn big_script(dir: &std::path::Path) -> PathBuf {
    let mut s = String::from("allocator 1G min=1K align=1K\n");
    for _ in 0..60_000 {
        s.push_str("alloc a 1K\nfree a\n");
    }
    let p = dir.join("big.replay");
    std::fs::write(&p, s).unwrap();
    p
}

/// `sh -c SCRIPT BIN ARGS...`: (exit code, stdout, stderr) of the shell.
fn sh(script: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_dramalloc"))
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[cfg(target_os = "linux")]
#[test]
fn replay_with_standard_output_closed_is_exit_1_with_the_message() {
    let d = scratch("closed");
    let script = big_script(&d);
    let script = script.to_str().unwrap();
    let (code, out, err) = sh(r#"exec "$0" replay "$1" >&-"#, &[script]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (1, "", "error: standard output: it was closed when dramalloc started\n")
    );
    // the same run with its output on /dev/null (write-only, as a shell opens it) succeeds
    let (code, _, err) = sh(r#"exec "$0" replay "$1" > /dev/null"#, &[script]);
    assert_eq!((code, err.as_str()), (0, ""));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn replay_into_a_broken_pipe_is_a_quiet_exit_1() {
    let d = scratch("pipe");
    let script = big_script(&d);
    let code_file = d.join("code");
    let (code, out, err) = sh(
        r#"{ "$0" replay "$1"; echo $? > "$2"; } | head -1"#,
        &[script.to_str().unwrap(), code_file.to_str().unwrap()],
    );
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "allocator 1073741824 offset=0 min=1024 align=1024 policy=first\n", "")
    );
    assert_eq!(std::fs::read_to_string(&code_file).unwrap(), "1\n");
    std::fs::remove_dir_all(&d).unwrap();
}
