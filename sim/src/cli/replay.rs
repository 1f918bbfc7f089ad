//! `dramalloc replay`: executes a banked-allocator script, one result line per operation.
//! Uses: replay; used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::err;

/// `dramalloc replay`: runs `script` and prints its output lines.
pub(super) fn cmd_replay(script: PathBuf) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match crate::replay::run_replay(&script, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.exit_code() as u8;
            err(e, code)
        }
    }
}
