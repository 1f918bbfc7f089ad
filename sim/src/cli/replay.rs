//! `dramalloc replay`: executes a banked-allocator script, one result line per operation.
//! Uses: args, console, replay; used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{is_dash, STDIN};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_FAILED, EXIT_OK};
use crate::replay::{decode_script, read_script, replay_named, script_dir, ReplayError};

/// `replay --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 the script ran (error lines do not count, unless --strict); 1 --strict and an
error line, a `report` whose files cannot be written, or the output cannot be written; 2 an
unreadable or non-UTF-8 script or a malformed line (nothing runs). Sizes in scripts take K, M,
G, T (powers of 1024).";

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
    let stdin = is_dash(&a.script);
    let name = if stdin { STDIN.to_owned() } else { a.script.display().to_string() };
    let text = if stdin {
        let mut bytes = Vec::new();
        con.stdin
            .read_to_end(&mut bytes)
            .map_err(|source| ReplayError::Read { path: STDIN.into(), source })
            .and_then(|_| decode_script(bytes, STDIN))
    } else {
        read_script(&a.script)
    };
    let base = if stdin { None } else { script_dir(&a.script) };
    let script = (!stdin).then_some(a.script.as_path());
    let outcome = match text.and_then(|text| replay_named(&text, &name, base, script, a.strict)) {
        Ok(o) => o,
        Err(e) => {
            let code = e.exit_code() as u8;
            return fail(con, e, code);
        }
    };
    let mut buf = String::new();
    for l in &outcome.lines {
        buf.push_str(l);
        buf.push('\n');
    }
    // checked like every primary output: a closed standard output or a failed write is exit
    // 1 with a message, a broken pipe a quiet exit 1; the run's own failures are still told
    let written = con.write_out(|o| o.write_all(buf.as_bytes())).map_err(|e| stdout_failed(con, &e));
    if let (true, Some((line, text, reason))) = (outcome.stopped, &outcome.first_error) {
        return fail(con, format!("{name}:{line}: `{text}`: {reason} (--strict: stopped here)"), EXIT_FAILED);
    }
    if let Some((line, reason)) = outcome.failed_reports.first() {
        return fail(con, format!("{name}:{line}: {reason}"), EXIT_FAILED);
    }
    written.map_or_else(|code| code, |()| ExitCode::from(EXIT_OK))
}
