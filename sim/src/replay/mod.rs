//! `dramalloc replay SCRIPT`: parse and execute an allocator script (issue 5).
//! Uses: report, dramalloc-core (banked); used by: cli.
//!
//! One operation a line; `#` starts a comment; sizes and addresses are bytes, optionally with
//! a `K`/`M`/`G`/`T` suffix (1024-based, see [`crate::size`]) and joined with `+`/`-` (e.g. `1G-1K`).
//!
//! Single free list (`allocator SIZE [offset=N] [min=N] [align=N] [policy=first|best]`, defaults
//! offset 0, min 1, align 1, first; `offset` and `SIZE` must be multiples of `align`, else the
//! line is an error line naming the key, its value and the alignment):
//!
//! | line | output |
//! |---|---|
//! | `alloc NAME SIZE [up\|down]` (bottom-up by default) | `NAME ADDR` or `NAME none` (out of memory) |
//! | `at NAME ADDR SIZE` | `NAME ADDR`, `NAME none` (outside the range), or an error line (over a live block) |
//! | `free NAME` or `free ADDR` | `free NAME`, or an error line (unknown / double free) |
//! | `shrink SIZE`, `reset`, `clear` | the operation's name and argument, or an error line |
//! | `stats` | `stats total=T allocated=A free=F largest=L` |
//! | `available SIZE` | `available S-E S-E ...` in address order |
//! | `lowest` | `lowest ADDR` or `lowest none` |
//!
//! Banked device (`device wormhole|blackhole [l1_base=N]` or `device dram_banks=N
//! dram_bank_size=B dram_align=A dram_reserved=R l1_banks=N l1_size=S l1_base=B l1_align=A`;
//! the default `l1_base` is 111360, the notes' example). `l1_base` is rounded up to `dram_align`
//! (as tt-metal aligns the L1 unreserved base) and the `device` line prints the rounded value;
//! `dram_reserved`, `dram_bank_size` and `l1_size` are not rounded: one that is not a multiple
//! of `dram_align` (the grid of every allocator of the device) makes the `device` line an
//! error line naming the key, its value and the alignment. So every address printed is on the
//! grid. A zero `SIZE` in `alloc`, `at` or `buffer` is an error line naming the allocation or
//! buffer, and `sharded=0` one saying a sharded buffer needs 1 to (banks) shard cores.
//!
//! | line | output |
//! |---|---|
//! | `buffer NAME dram\|l1 SIZE PAGE [sharded=K]` | `NAME ADDR per_bank=N`, or an error line (out of memory with the full report) |
//! | `free NAME` | `free NAME` or an error line |
//! | `cb NAME CORES SIZE [page=P]` | `NAME ADDR` (CORES is `x,y` or `x0,y0-x1,y1` with x0 <= x1 and y0 <= y1, else the script is malformed; page defaults to SIZE) |
//! | `cbsize NAME SIZE` | `cbs NAME=ADDR ...` after re-packing, or an error line |
//! | `validate` | `ok` or the clash error line |
//! | `stats dram\|l1` | `stats dram total=T allocated=A free=F largest=L` |
//! | `lowest dram\|l1` | `lowest ADDR` or `lowest none` |
//! | `clear` | `clear` (frees every buffer) |
//! | `report DIR [prefix=P]` | `report DIR` after writing the three CSVs whole, or an error line |
//!
//! A run-time failure prints `error <the line> : <reason>` and the replay goes on (with
//! `--strict` it stops there, exit code 1); a `report` that cannot be written is such a line,
//! and makes the exit code 1 at the end. `at` on an address off the allocator's grid (offset
//! plus a multiple of its alignment) is an error line. A malformed line (unknown operation,
//! bad number, an operation without its `allocator`/`device`) is a [`ReplayError::Parse`]
//! naming the script and the line number: the whole script is parsed before anything runs, so
//! nothing is executed, printed or written then (exit code 2). So is a script that is not
//! UTF-8 text ([`ReplayError::NotUtf8`], naming the first line with a bad byte); a byte-order
//! mark at the start is skipped. `dram_align` and `l1_align` must be positive.
//!
//! `parser.rs` turns the script into operations, `interpreter.rs` executes them; this file
//! holds the errors, the outcome and the entry points.

mod interpreter;
mod parser;

use std::io::Write;
use std::path::{Path, PathBuf};

use dramalloc_core::banked::Device;

pub use crate::size::parse_size;
use interpreter::Machine;
use parser::{parse_script, Line};

/// Block-table capacity (free plus allocated blocks) of every allocator a replay creates.
pub const REPLAY_BLOCKS: usize = 8192;
/// Stack of the thread a replay runs on (bytes). The allocators live in `Box`es, but an
/// unoptimised build assembles a `Device<REPLAY_BLOCKS>` (about 1 MiB) on the stack and copies
/// it through several frames before boxing it, which overflows a 2 MiB test thread. Stack pages
/// are committed only when touched.
const REPLAY_STACK: usize = 16 * std::mem::size_of::<Device<REPLAY_BLOCKS>>() + (8 << 20);
/// Capacity of the CB table of a replay.
pub const REPLAY_CBS: usize = 256;
/// Default L1 unreserved base when a named device gives none (the notes' Blackhole example).
pub const DEFAULT_L1_BASE: u64 = 111_360;

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The script could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The script path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The script is not UTF-8 text; nothing was executed.
    #[error("{file}:{line}: not valid UTF-8 text")]
    NotUtf8 {
        /// The script's name.
        file: String,
        /// 1-based number of the first line holding a byte that is not UTF-8.
        line: usize,
    },
    /// A malformed line; nothing was executed.
    #[error("{file}:{line}: {message}: `{text}`")]
    Parse {
        /// The script's name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The line's text.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// Writing the output failed.
    #[error("writing replay output: {0}")]
    Output(#[from] std::io::Error),
}

impl ReplayError {
    /// The process exit code for this error: 2 for an unreadable, non-UTF-8 or malformed
    /// script, 1 when the output cannot be written.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Parse { .. } | Self::Read { .. } | Self::NotUtf8 { .. } => 2,
            Self::Output(_) => 1,
        }
    }
}

/// What a completed replay did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayOutcome {
    /// The output lines (without newlines), one per operation.
    pub lines: Vec<String>,
    /// How many of them are `error …` lines.
    pub errors: usize,
    /// The first error line: its script line number, the operation and the reason.
    pub first_error: Option<(usize, String, String)>,
    /// The `report` lines that could not write their files: line number and reason (which
    /// names the file).
    pub failed_reports: Vec<(usize, String)>,
    /// The run stopped at its first error line (`--strict`).
    pub stopped: bool,
}

/// Parses and executes a script given as text. Relative `report` directories are resolved
/// against `base_dir` when given (else the working directory).
///
/// # Errors
/// [`ReplayError::Parse`] for a malformed line; nothing has run then.
///
/// ```
/// let out = dramalloc_sim::replay::replay_str("allocator 1G min=1K align=1K\nalloc a 1K\nfree a\nfree a\n", None)?;
/// assert_eq!(out.lines[1], "a 0");
/// assert_eq!(out.lines[3], "error free a : double free: address 0 is not allocated (it lies in free memory)");
/// assert_eq!(out.errors, 1);
/// # Ok::<(), dramalloc_sim::replay::ReplayError>(())
/// ```
pub fn replay_str(script: &str, base_dir: Option<&Path>) -> Result<ReplayOutcome, ReplayError> {
    replay_named(script, "<script>", base_dir, None, false)
}

/// As [`replay_str`], with the script's name `file` for its errors, and with `strict` stopping
/// the run at its first error line ([`ReplayOutcome::stopped`]). A `report` whose file would
/// be the script file `script_path` (when it was read from one) is an error line: writing it
/// would destroy the script.
///
/// # Errors
/// [`ReplayError::Parse`] naming `file` for a malformed line; nothing has run then.
pub fn replay_named(
    script: &str,
    file: &str,
    base_dir: Option<&Path>,
    script_path: Option<&Path>,
    strict: bool,
) -> Result<ReplayOutcome, ReplayError> {
    let lines = parse_script(script, file)?;
    let base = (base_dir.map(Path::to_path_buf), script_path.map(Path::to_path_buf));
    // Run on a thread with a known, large stack (see REPLAY_STACK), whatever the caller's is.
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("dramalloc-replay".into())
            .stack_size(REPLAY_STACK)
            .spawn_scoped(s, || execute(&lines, base.clone(), strict));
        match worker {
            Ok(handle) => Ok(handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
            // No thread to be had: run here and hope the caller's stack suffices.
            Err(_) => Ok(execute(&lines, base.clone(), strict)),
        }
    })
}

/// Executes parsed lines on a fresh machine.
fn execute(
    lines: &[Line],
    (base_dir, script): (Option<PathBuf>, Option<PathBuf>),
    strict: bool,
) -> ReplayOutcome {
    let mut m = Machine::new(base_dir, script);
    let mut outcome = ReplayOutcome::default();
    for l in lines {
        match m.exec(&l.op) {
            Ok(s) => outcome.lines.push(s),
            Err(reason) => {
                outcome.errors += 1;
                if matches!(l.op, parser::Op::Report { .. }) {
                    outcome.failed_reports.push((l.number, reason.clone()));
                }
                outcome.lines.push(format!("error {} : {reason}", l.text));
                outcome.first_error.get_or_insert((l.number, l.text.clone(), reason));
                if strict {
                    outcome.stopped = true;
                    break;
                }
            }
        }
    }
    outcome
}

/// The text of the script `file` read as `bytes` (a byte-order mark at its start is kept:
/// the parser skips it).
///
/// # Errors
/// [`ReplayError::NotUtf8`] naming `file` and the first line with a byte that is not UTF-8.
///
/// ```
/// use dramalloc_sim::replay::decode_script;
/// let e = decode_script(b"allocator 1M\nalloc a\xff 1K\n".to_vec(), "s.replay").unwrap_err();
/// assert_eq!(e.to_string(), "s.replay:2: not valid UTF-8 text");
/// ```
pub fn decode_script(bytes: Vec<u8>, file: &str) -> Result<String, ReplayError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes().iter().take(valid).filter(|&&b| b == b'\n').count() + 1;
        ReplayError::NotUtf8 { file: file.to_owned(), line }
    })
}

/// Reads the script at `path` as text ([`decode_script`]).
///
/// # Errors
/// [`ReplayError::Read`], [`ReplayError::NotUtf8`].
pub fn read_script(path: &Path) -> Result<String, ReplayError> {
    let bytes =
        std::fs::read(path).map_err(|source| ReplayError::Read { path: path.to_path_buf(), source })?;
    decode_script(bytes, &path.display().to_string())
}

/// The directory relative `report` directories of the script at `path` are resolved
/// against: the script's own (`None`: the working directory).
pub fn script_dir(path: &Path) -> Option<&Path> {
    path.parent().filter(|p| !p.as_os_str().is_empty())
}

/// The `dramalloc replay SCRIPT` entry point: reads the script ([`read_script`]), runs it with
/// [`run_replay_text`] (relative `report` directories are resolved against the script's
/// directory).
///
/// # Errors
/// [`ReplayError::Read`], [`ReplayError::NotUtf8`], and as [`run_replay_text`].
pub fn run_replay(
    script_path: &Path,
    strict: bool,
    out: &mut dyn Write,
) -> Result<ReplayOutcome, ReplayError> {
    let text = read_script(script_path)?;
    let name = script_path.display().to_string();
    let outcome = replay_named(&text, &name, script_dir(script_path), Some(script_path), strict)?;
    write_lines(&outcome, out)?;
    Ok(outcome)
}

/// Runs `text`, the script named `file` (relative `report` directories are resolved against
/// `base_dir`), and writes the output lines to `out` (all at once, after the run).
///
/// Exit codes for the caller: `Ok` → 0, or 1 when a report failed or a `strict` run stopped
/// at an error line; `Err(e)` → `e.exit_code()`: 2 for an unreadable script or a malformed
/// line (nothing printed or written), 1 for failed output.
///
/// # Errors
/// [`ReplayError::Parse`], [`ReplayError::Output`].
pub fn run_replay_text(
    text: &str,
    file: &str,
    base_dir: Option<&Path>,
    strict: bool,
    out: &mut dyn Write,
) -> Result<ReplayOutcome, ReplayError> {
    let outcome = replay_named(text, file, base_dir, None, strict)?;
    write_lines(&outcome, out)?;
    Ok(outcome)
}

/// The output lines of `outcome` written to `out` at once.
fn write_lines(outcome: &ReplayOutcome, out: &mut dyn Write) -> Result<(), ReplayError> {
    let mut buf = String::new();
    for l in &outcome.lines {
        buf.push_str(l);
        buf.push('\n');
    }
    out.write_all(buf.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_name_cannot_be_bound_again() {
        let out =
            replay_str("allocator 1M min=1K align=1K\nalloc a 1K\nalloc a 1K\nfree a\nalloc a 1K\n", None)
                .unwrap();
        assert_eq!(out.lines[1], "a 0");
        assert!(
            out.lines[2].starts_with("error alloc a 1K : name `a` still holds a live allocation"),
            "{}",
            out.lines[2]
        );
        assert_eq!(&out.lines[3..], &["free a".to_string(), "a 0".to_string()]);
        assert_eq!(out.errors, 1);
    }

    #[test]
    fn malformed_line_names_its_number_and_runs_nothing() {
        let r = replay_str("allocator 1M\nalloc a 1K\nalloc b 1Q\n", None);
        match r {
            Err(ReplayError::Parse { line, ref file, .. }) => {
                assert_eq!((line, file.as_str()), (3, "<script>"))
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn reversed_core_range_is_malformed() {
        let script = "device wormhole l1_base=111360\ncb good 0,0-0,2 2K\ncb bad 0,2-0,0 2K\n";
        match replay_str(script, None) {
            Err(ReplayError::Parse { line, text, .. }) => {
                assert_eq!((line, text.as_str()), (3, "cb bad 0,2-0,0 2K"))
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        let ok = "device wormhole l1_base=111360\ncb wide 0,0-1,2 2K\n";
        assert!(replay_str(ok, None).is_ok());
    }

    #[test]
    fn op_before_allocator_is_malformed() {
        assert!(matches!(replay_str("alloc a 1K\n", None), Err(ReplayError::Parse { line: 1, .. })));
    }
}
