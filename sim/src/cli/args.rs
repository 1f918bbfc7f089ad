//! The option value parsers and the input readers the subcommands share (`-` is standard input;
//! `.onnx` and `.tflite` files are imported with `--input-shape`).
//! Uses: console, exec, input (import too), quality, size, dramalloc-core (strategy); used by: every subcommand file.
//!
//! Every parser's error says what the flag accepts (clap prints it after the flag's name);
//! commands allow values that start with `-`, so `--align -4` reaches the parser and is told
//! that sizes are not negative instead of clap's `-- -4` tip.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use dramalloc_core::Strategy;

use super::console::Console;
use super::MAX_TENSORS;
use crate::exec::faults::Fault;
use crate::input::import::{import_model, ImportError, ImportOptions, ModelFormat};
use crate::input::{self, InputError, Problem, Program};
use crate::size::{check_size, SizeProblem, SIZE_RULE};

/// The closing help lines on sizes, shared by the subcommands' `--help`.
pub(super) const SIZES: &str =
    "Sizes: a byte count with an optional suffix K, M, G or T, all powers of 1024 (K = Ki = KiB = KB = 1024).";

/// One line per strategy for `--help`.
fn strategy_help(s: Strategy) -> &'static str {
    match s {
        Strategy::Seed => "the seed's order (simplify) and first fit: the reference behaviour",
        Strategy::GreedySize => "size-descending first fit (TensorFlow Lite Micro)",
        Strategy::BestFit => "size-descending best fit (XLA heap simulator)",
        Strategy::GreedyStart => "size-descending first fit, equal sizes in start order",
        Strategy::BestFitStart => "size-descending best fit, equal sizes in start order",
        Strategy::GreedyLoad => {
            "first fit, buffers living through the highest load first (MiniMalloc's order)"
        }
        Strategy::GreedyClass => "first fit by quarter-octave size class, then start",
        Strategy::Skyline => "lowest offset first, three preorders; near-optimal, quadratic at worst",
        Strategy::Sweep => "time-order placement, O(n log n): millions of buffers",
        Strategy::Exact => "branch and bound within --time-limit (after MiniMalloc)",
        Strategy::Auto => "the default portfolio: the best of the members its work budget affords",
    }
}

/// The `--strategy` parser: the names of [`Strategy::ALL`], each with its help line.
pub(super) fn strategy_parser() -> impl TypedValueParser<Value = Strategy> {
    PossibleValuesParser::new(Strategy::ALL.map(|s| PossibleValue::new(s.name()).help(strategy_help(s))))
        .map(|name| Strategy::from_name(&name).unwrap_or_default())
}

/// `--inject-fault`.
pub(super) fn parse_fault(s: &str) -> Result<Fault, String> {
    Fault::parse(s).ok_or_else(|| {
        format!("bad fault `{s}`: use SEED, move:SEED, twin:SEED, reverse:SEED or corrupt:SEED")
    })
}

/// `--input-shape NAME=DIMS`: one input's shape for model files.
pub(super) fn parse_input_shape(s: &str) -> Result<(String, Vec<u64>), String> {
    input::import::parse_input_shape(s)
}

/// Imports a model file with `input_shapes` (see [`input::import::import_model`]); `-` reads
/// the model from standard input, its format told by its content (a trial: `import -` was
/// read as a file named `-`).
pub(super) fn import(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
    con: &mut Console<'_>,
) -> Result<input::import::Imported, ImportError> {
    let options = ImportOptions { input_shapes: input_shapes.to_vec(), max_tensors: MAX_TENSORS };
    if is_dash(path) {
        let mut bytes = Vec::new();
        con.stdin
            .read_to_end(&mut bytes)
            .map_err(|source| ImportError::Io { file: STDIN.to_owned(), source })?;
        return input::import::import_sniffed(&bytes, STDIN, "stdin", &options);
    }
    import_model(path, &options)
}

/// A size in bytes ([`crate::size`]).
pub(super) fn size(s: &str) -> Result<u64, String> {
    check_size(s).map_err(|problem| match problem {
        SizeProblem::Negative => format!("sizes are not negative: expected {SIZE_RULE}"),
        SizeProblem::TooLarge => {
            format!("too large: a size is at most {} bytes (16 EiB less one byte)", u64::MAX)
        }
        SizeProblem::Malformed => format!("expected {SIZE_RULE}"),
    })
}

/// An alignment: a size of at least 1 byte.
pub(super) fn align(s: &str) -> Result<u64, String> {
    match size(s)? {
        0 => Err("an alignment is at least 1 byte".to_owned()),
        a => Ok(a),
    }
}

/// A size in MiB: a plain number is MiB, a number with a suffix is bytes that must make
/// whole MiB (`512`, `512M` and `1G/2` are all the same 512 MiB).
pub(super) fn mib(s: &str) -> Result<u64, String> {
    const RULE: &str = "a number of MiB (`512`) or a size with a suffix that makes whole MiB (`512M`, `2G`)";
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().map_err(|_| format!("too large: expected {RULE}"));
    }
    let bytes = check_size(s).map_err(|problem| match problem {
        SizeProblem::Negative => format!("not negative: expected {RULE}"),
        SizeProblem::TooLarge => format!("too large: expected {RULE}"),
        SizeProblem::Malformed => format!("expected {RULE}"),
    })?;
    if bytes % (1 << 20) != 0 {
        return Err(format!("{bytes} bytes is not a whole number of MiB: expected {RULE}"));
    }
    Ok(bytes >> 20)
}

/// `--allreduce-buffer-size`: MiB as [`mib`], or `-1` (size it from the collective operands).
pub(super) fn mib_or_auto(s: &str) -> Result<i64, String> {
    if s == "-1" {
        return Ok(-1);
    }
    let m = mib(s).map_err(|e| format!("{e}, or -1 to size it from the collective operands"))?;
    i64::try_from(m).map_err(|_| "too large".to_owned())
}

/// A non-negative number of seconds.
pub(super) fn seconds(s: &str) -> Result<Duration, String> {
    let rule = "expected a non-negative number of seconds, e.g. 1 or 0.25";
    let x: f64 = s.parse().map_err(|_| rule.to_owned())?;
    // `Duration::MAX`'s seconds (2^64 - 1) round up to 2^64 as an `f64`: the longest limit is
    // the largest `f64` below that, 2^64 - 2^11 seconds (an infinite one is too long as well)
    if x >= Duration::MAX.as_secs_f64() {
        let longest = f64::from_bits(Duration::MAX.as_secs_f64().to_bits() - 1);
        return Err(format!("{s} seconds is too long: a time limit is at most {longest:.0} seconds"));
    }
    Duration::try_from_secs_f64(x).map_err(|_| rule.to_owned())
}

/// A thread count, 1..=1024 (`--threads`).
pub(super) fn threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ 1..=1024) => Ok(n),
        _ => Err("expected a thread count from 1 to 1024".to_owned()),
    }
}

/// A logical core count, 1..=64.
pub(super) fn cores(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err("expected a core count from 1 to 64".to_owned()),
    }
}

/// A core index (non-negative).
pub(super) fn core_index(s: &str) -> Result<u32, String> {
    s.parse().map_err(|_| "expected a core index: 0, 1, ... (below --cores)".to_owned())
}

/// A buffer count of a generated problem, 1..=[`MAX_TENSORS`].
pub(super) fn count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ 1..=MAX_TENSORS) => Ok(n),
        _ => Err(format!("expected a buffer count from 1 to {MAX_TENSORS}")),
    }
}

/// A fault count of `faults` (faults of each kind), 1..=[`MAX_TENSORS`].
pub(super) fn fault_count(s: &str) -> Result<usize, String> {
    count(s).map_err(|_| format!("expected a fault count (of each kind) from 1 to {MAX_TENSORS}"))
}

/// A seed: a non-negative integer.
pub(super) fn seed(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| "expected a non-negative integer".to_owned())
}

/// True for the path `-`: standard input or output.
pub(super) fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// True for an output path that is standard output: `-`, or a path naming this process's
/// descriptor 1 (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, a link to one of them). The
/// output then goes through standard output and the summary to standard error, as for `-`.
pub(super) fn is_stdout(path: &Path) -> bool {
    is_dash(path) || crate::atomic_write::names_standard_output(path)
}

/// Whether `a` and `b` name one file ([`crate::atomic_write::same_file`]).
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    crate::atomic_write::same_file(a, b)
}

/// Checks, before any planning, that output `path` (of flag `flag`) can be written: not a
/// directory, in a directory that exists and takes a new file (the temp file a write starts
/// with; a probe file is made and removed). A trial's `plan F -o nodir/x.csv` planned 10^6
/// rows for 2.85 s before it failed. Standard output, a device or a FIFO, and a symbolic link
/// (its target is the write's to find) pass; a full device still fails at the write.
///
/// # Errors
/// The message, naming the flag, the path and the reason.
pub(super) fn probe_output(flag: &str, path: &Path) -> Result<(), String> {
    let name = path.display();
    if is_stdout(path) || std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(());
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(format!("{flag} {name}: a directory, not a file to write")),
        Ok(m) if !m.is_file() => return Ok(()),
        _ => {}
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".dramalloc-probe.{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => {
            let dir = dir.display();
            Err(format!("{flag} {name}: cannot be written: its directory {dir} takes no new file (a write goes through a temp file there): {e}"))
        }
    }
}

/// The error when output `out` (of flag `flag`) is the file `input` was read from: writing it
/// would destroy the input (a trial's `import m.onnx -o m.onnx` replaced the model with its
/// program JSON, exit 0). `None` for standard input or output, or different files.
pub(super) fn overwrites_input(flag: &str, out: &Path, input: &Path) -> Option<String> {
    (!is_dash(input) && !is_stdout(out) && same_file(out, input)).then(|| {
        format!(
            "{flag} {}: the same file as the input {}, which writing it would destroy",
            out.display(),
            input.display()
        )
    })
}

/// The name of standard input in messages.
pub(super) const STDIN: &str = "<stdin>";

/// An input path as messages name it (`<stdin>` for `-`).
pub(super) fn display(path: &Path) -> String {
    if is_dash(path) {
        STDIN.to_owned()
    } else {
        path.display().to_string()
    }
}

/// True when the first character that is not white space (after a byte-order mark) is `{`:
/// standard input holds a program JSON, not a CSV.
pub(super) fn looks_like_json(head: &[u8]) -> bool {
    let head = head.strip_prefix(input::minimalloc_csv::BOM).unwrap_or(head);
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The whole text of `path` (`-`: standard input) and its name for messages.
pub(super) fn read_text(path: &Path, con: &mut Console<'_>) -> Result<(String, String), InputError> {
    let (bytes, file) = read_bytes(path, con)?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, file)),
        Err(e) => Err(input::not_text(file, e.as_bytes(), e.utf8_error().valid_up_to(), is_dash(path))),
    }
}

/// The whole of `path` (`-`: standard input) and its name for messages.
pub(super) fn read_bytes(path: &Path, con: &mut Console<'_>) -> Result<(Vec<u8>, String), InputError> {
    Ok(if is_dash(path) {
        let mut bytes = Vec::new();
        con.stdin
            .read_to_end(&mut bytes)
            .map_err(|source| InputError::Io { file: STDIN.to_owned(), source })?;
        (bytes, STDIN.to_owned())
    } else {
        let file = path.display().to_string();
        (std::fs::read(path).map_err(|source| InputError::Io { file: file.clone(), source })?, file)
    })
}

/// Reads a program JSON (`-`: standard input).
pub(super) fn read_program(path: &Path, con: &mut Console<'_>) -> Result<Program, InputError> {
    let (text, file) = read_text(path, con)?;
    input::parse_program(&text, &file, MAX_TENSORS)
}

/// The problem of a program: validated as `run` validates it (pre-placement included).
fn program_problem(program: &Program) -> Result<Problem, InputError> {
    input::pack_preplaced(program, input::PAGE)?;
    Ok(crate::quality::problem::problem_from_program(program))
}

/// Reads a program: a model file (`.onnx`, `.tflite`) is imported with `input_shapes`, any
/// other file (`-`: standard input) is read as program JSON (which takes no `--input-shape`).
pub(super) fn read_program_file(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
    con: &mut Console<'_>,
) -> Result<Program, ImportError> {
    if !is_dash(path) && ModelFormat::from_path(path).is_some() {
        return Ok(import(path, input_shapes, con)?.program);
    }
    no_shapes_for(path, input_shapes)?;
    Ok(read_program(path, con)?)
}

/// Reads a program JSON or a model file (by extension; on standard input, a program JSON by
/// a leading `{`) as its problem, or a minimalloc CSV.
///
/// A JSON program or an imported model is validated as `run` validates it (pre-placement
/// included) before it becomes a problem.
pub(super) fn read_problem(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
    con: &mut Console<'_>,
) -> Result<Problem, ImportError> {
    if is_dash(path) {
        no_shapes_for(path, input_shapes)?;
        let mut stdin = BufReader::with_capacity(1 << 16, &mut *con.stdin);
        let head = stdin.fill_buf().map_err(|source| InputError::Io { file: STDIN.to_owned(), source })?;
        if looks_like_json(head) {
            let mut text = String::new();
            stdin
                .read_to_string(&mut text)
                .map_err(|source| InputError::Io { file: STDIN.to_owned(), source })?;
            return Ok(program_problem(&input::parse_program(&text, STDIN, MAX_TENSORS)?)?);
        }
        if std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some()) {
            // not text from its first buffer on: a model given as a CSV is said to be one;
            // else the CSV reader's own message, from the bytes in memory
            let mut all = Vec::new();
            stdin
                .read_to_end(&mut all)
                .map_err(|source| InputError::Io { file: STDIN.to_owned(), source })?;
            if let Err(e) = std::str::from_utf8(&all) {
                if let m @ InputError::ModelNotText { .. } =
                    input::not_text(STDIN.to_owned(), &all, e.valid_up_to(), true)
                {
                    return Err(m.into());
                }
            }
            return Ok(input::read_buffers_from(all.as_slice(), STDIN, MAX_TENSORS)?);
        }
        return Ok(input::read_buffers_from(stdin, STDIN, MAX_TENSORS)?);
    }
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json || ModelFormat::from_path(path).is_some() {
        let program = read_program_file(path, input_shapes, con)?;
        // as `run` says it: the file, then the program's own error (which names the program)
        program_problem(&program)
            .map_err(|e| ImportError::InFile { file: display(path), source: Box::new(e) })
    } else {
        no_shapes_for(path, input_shapes)?;
        input::read_buffers(path, MAX_TENSORS).map_err(|e| model_not_csv(path, e).into())
    }
}

/// `e`, from reading `path` as a minimalloc CSV, or [`InputError::ModelNotText`] when it says
/// the file is not UTF-8 text and the file holds a model (read again: only on that error).
fn model_not_csv(path: &Path, e: InputError) -> InputError {
    if !matches!(e, InputError::CellNotUtf8 { .. } | InputError::NotUtf8 { .. }) {
        return e;
    }
    let Ok(bytes) = std::fs::read(path) else { return e };
    match std::str::from_utf8(&bytes) {
        Err(u) => match input::not_text(display(path), &bytes, u.valid_up_to(), false) {
            m @ InputError::ModelNotText { .. } => m,
            _ => e,
        },
        Ok(_) => e,
    }
}

/// `--input-shape` given for a file that is not a model.
pub(super) fn no_shapes_for(path: &Path, input_shapes: &[(String, Vec<u64>)]) -> Result<(), ImportError> {
    match input_shapes.first() {
        None => Ok(()),
        Some((name, _)) => Err(ImportError::BadInputShape {
            file: display(path),
            name: name.clone(),
            detail: "--input-shape applies to model files (.onnx, .tflite) only".into(),
        }),
    }
}

/// Reads a solution CSV (`-`: standard input).
pub(super) fn read_solution(path: &Path, con: &mut Console<'_>) -> Result<Problem, InputError> {
    if is_dash(path) {
        input::read_solution_from(&mut *con.stdin, STDIN, MAX_TENSORS)
    } else {
        input::read_solution(path, MAX_TENSORS)
    }
}

/// `n` and the noun, plural unless `n == 1`: `1 buffer`, `2 buffers`.
pub(super) fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mib_values_plain_or_with_suffix() {
        assert_eq!(mib("512"), Ok(512));
        assert_eq!(mib("2G"), Ok(2048));
        assert_eq!(
            mib("1536KiB"),
            Err("1572864 bytes is not a whole number of MiB: expected a number of MiB (`512`) or a size with a suffix that makes whole MiB (`512M`, `2G`)".to_owned())
        );
        assert_eq!(mib_or_auto("-1"), Ok(-1));
        assert!(mib_or_auto("-2").unwrap_err().starts_with("not negative"));
    }

    #[test]
    fn nouns_are_plural_unless_one() {
        assert_eq!(
            (count_of(1, "buffer"), count_of(0, "buffer"), count_of(3, "core")),
            ("1 buffer".into(), "0 buffers".into(), "3 cores".into())
        );
    }
}
