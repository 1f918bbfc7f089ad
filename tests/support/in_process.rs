//! Runs `dramalloc` in-process (`cli::run_with`) on buffers: what one command printed and
//! returned, and the helpers around it. Shared by `cli.rs`, `cli_outputs.rs`,
//! `verify_plan_csv.rs` and `report_truth.rs` (not every file uses every helper: hence
//! `allow(dead_code)`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_sim::cli::{run_with, Console};

/// What one command printed and returned.
pub struct Out {
    pub code: ExitCode,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `dramalloc ARGS` with `stdin` as standard input.
pub fn dramalloc_in(args: &[&str], stdin: &str) -> Out {
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let mut input = stdin.as_bytes();
    let mut con = Console { stdin: &mut input, stdout: &mut o, stderr: &mut e, progress: false };
    let code = run_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into), &mut con);
    Out { code, stdout: String::from_utf8(o).unwrap(), stderr: String::from_utf8(e).unwrap() }
}

/// `dramalloc ARGS` with an empty standard input.
#[allow(dead_code)]
pub fn dramalloc(args: &[&str]) -> Out {
    dramalloc_in(args, "")
}

/// `dramalloc` on a command line split at spaces (paths here have none).
#[allow(dead_code)]
pub fn dramalloc_line(line: &str) -> Out {
    dramalloc(&line.split(' ').collect::<Vec<_>>())
}

/// A fresh scratch directory `dramalloc-PREFIX-TAG-PID` under the system temp dir.
#[allow(dead_code)]
pub fn scratch_in(prefix: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dramalloc-{prefix}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path of `rel` in the bundled data (`sim/data/`).
#[allow(dead_code)]
pub fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data").join(rel).display().to_string()
}

/// The summary line of `plan` without its stage times.
#[allow(dead_code)]
pub fn summary(line: &str) -> &str {
    line.split("; read ").next().unwrap()
}

/// `text` with the time each member line ends with (`, 12.3 ms`: the run's milliseconds on
/// the clock, which vary from run to run) taken off, so the lines can be compared exactly.
#[allow(dead_code)]
pub fn untimed(text: &str) -> String {
    text.lines().map(|l| untimed_line(l).to_string() + "\n").collect()
}

/// One line without the time it ends with, if it ends with one (`, N.N ms`).
fn untimed_line(line: &str) -> &str {
    match line.strip_suffix(" ms").and_then(|l| l.rsplit_once(", ")) {
        Some((head, ms)) if ms.split_once('.').is_some_and(|(a, b)| is_digits(a) && is_digits(b)) => head,
        _ => line,
    }
}

/// Whether `s` is one or more ASCII digits.
fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `dramalloc`'s exit codes: success.
#[allow(dead_code)]
pub const CODE_OK: u8 = 0;
/// The plan does not fit or is invalid, the run failed, or an output cannot be written.
#[allow(dead_code)]
pub const CODE_FAILED: u8 = 1;
/// Bad input or a bad flag.
#[allow(dead_code)]
pub const CODE_BAD: u8 = 2;
