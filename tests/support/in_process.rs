//! Runs `dramalloc` in-process (`cli::run_with`) on buffers: what one command printed and
//! returned. Shared by `cli.rs` and `report_truth.rs`.

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
