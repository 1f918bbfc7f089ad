//! `dramalloc replay`: executes a banked-allocator script, one result line per operation.
//! Uses: args, console, replay; used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{is_dash, read_text, STDIN};
use super::console::Console;
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// `replay --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 the script ran (error lines do not count, unless --strict); 1 --strict and an
error line, a `report` whose files cannot be written, or the output cannot be written; 2 an
unreadable script or a malformed line (nothing runs). Sizes in scripts take K, M, G, T
(powers of 1024).";

/// Options of `dramalloc replay`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER)]
pub struct ReplayArgs {
    /// The script; `-`: standard input.
    pub script: PathBuf,
    /// Stop at the first error line (exit code 1).
    #[arg(long)]
    pub strict: bool,
}

/// `dramalloc replay`.
pub(super) fn cmd_replay(a: &ReplayArgs, con: &mut Console<'_>) -> ExitCode {
    let result = if is_dash(&a.script) {
        match read_text(&a.script, con) {
            Ok((text, _)) => crate::replay::run_replay_text(&text, STDIN, None, a.strict, con.stdout),
            Err(e) => return fail(con, e, EXIT_BAD_INPUT),
        }
    } else {
        crate::replay::run_replay(&a.script, a.strict, con.stdout)
    };
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            let code = e.exit_code() as u8;
            return fail(con, e, code);
        }
    };
    let name = if is_dash(&a.script) { STDIN.to_owned() } else { a.script.display().to_string() };
    if let (true, Some((line, text, reason))) = (outcome.stopped, &outcome.first_error) {
        return fail(con, format!("{name}:{line}: `{text}`: {reason} (--strict: stopped here)"), EXIT_FAILED);
    }
    if let Some((line, reason)) = outcome.failed_reports.first() {
        return fail(con, format!("{name}:{line}: {reason}"), EXIT_FAILED);
    }
    ExitCode::from(EXIT_OK)
}
