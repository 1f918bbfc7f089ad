//! The one error type of both input readers ([`InputError`]) and the place it points at.
//! Uses: nothing else in the crate; used by: cli, minimalloc_csv, model, program_json, run, tensor_parallel.
//!
//! The one error type of both input readers ([`InputError`]) and the place it points at
//! ([`Location`]).
//!
//! Every variant names the file (or, for [`pack_preplaced`](super::pack_preplaced), the
//! program), the place inside it (a JSON path such as `tensors[12].bytes` or a CSV line and
//! column) and the offending value, so the message alone tells the user what to fix.

use std::fmt;
use std::io;

/// ` (as `a` and `b`)` where a column was written two ways (a name and an alias), else empty.
fn as_written(first: &str, second: &str) -> String {
    if first == second {
        String::new()
    } else {
        format!(" (as `{first}` and `{second}`)")
    }
}

/// Most characters of a cell, id or header an error message repeats ([`shorten`]): far above
/// any real tensor name (the bundled models' longest is 250), far below a runaway cell.
pub const MAX_VALUE_CHARS: usize = 1024;

/// `text` as an error message repeats it: whole up to [`MAX_VALUE_CHARS`] characters, else
/// cut there ([`shorten_to`]): a 5 MB id must not make a 5 MB message.
///
/// ```
/// use dramalloc_sim::input::error::shorten;
/// assert_eq!(shorten("w0"), "w0");
/// let long = "x".repeat(2000);
/// assert_eq!(shorten(&long), format!("{}… (2000 bytes)", "x".repeat(1024)));
/// ```
pub fn shorten(text: &str) -> String {
    shorten_to(text, MAX_VALUE_CHARS)
}

/// `text` whole up to `max` characters, else its first `max` characters, `…` and its length
/// in bytes; control characters (a NUL, an escape that would drive the terminal) are written
/// as Rust escapes (`\0`, `\u{1b}`).
///
/// ```
/// use dramalloc_sim::input::error::shorten_to;
/// assert_eq!(shorten_to("abc", 3), "abc");
/// assert_eq!(shorten_to("abcd", 3), "abc… (4 bytes)");
/// assert_eq!(shorten_to("éééé", 2), "éé… (8 bytes)");
/// assert_eq!(shorten_to("a\0\x1b[31m", 10), "a\\0\\u{1b}[31m");
/// ```
pub fn shorten_to(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(4 * max));
    for (k, c) in text.chars().enumerate() {
        if k == max {
            out.push_str(&format!("… ({} bytes)", text.len()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Where inside an input file an error was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Location {
    /// A JSON path such as `tensors[12].bytes` or `ops[3].inputs[1]`.
    Json(String),
    /// A CSV cell: 1-based line number (the header is line 1) and the column name.
    Csv {
        /// 1-based line number of the record; the header is line 1.
        line: u64,
        /// Column name as written in the header (trimmed).
        column: String,
    },
}

/// Why a zero-byte size is refused where it is written: a program's planned tensors must
/// hold a byte (its inputs and weights may be empty), a CSV's buffers all must.
fn zero_rule(at: &Location) -> &'static str {
    match at {
        Location::Csv { .. } => "a buffer of a minimalloc CSV holds at least one byte",
        Location::Json(_) => "only inputs and weights may be empty",
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Json(path) => f.write_str(path),
            Location::Csv { line, column } => write!(f, "line {line}, column `{column}`"),
        }
    }
}

/// A bad input file: why it was rejected and exactly where.
///
/// `file` is the path (or the `source` name given to a `parse_*` function; for
/// [`pack_preplaced`](super::pack_preplaced) it is the program's name). The `Display`
/// text is one line that names file, place and value; the command line prints it and
/// exits with code 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The file.
        file: String,
        /// The operating-system error.
        #[source]
        source: io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{file}: not valid UTF-8 text (first bad byte at offset {offset})")]
    NotUtf8 {
        /// The file.
        file: String,
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// Text was expected (a program JSON or CSV) and the file, not UTF-8, holds a model (a
    /// model is read by its extension; see `ModelFormat::recognise` in `input::import`).
    #[error(
        "{file}: not valid UTF-8 text (first bad byte at offset {offset}): it looks like {} {format} \
         model: {}",
        if format.starts_with(['A', 'E', 'I', 'O', 'U']) { "an" } else { "a" },
        if *on_stdin {
            format!("save it as a file with the {extension} extension and give that (a model is read by its extension)")
        } else {
            format!("give it the {extension} extension")
        }
    )]
    ModelNotText {
        /// The file (`<stdin>` for standard input).
        file: String,
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// The model format: `ONNX`, `TFLite`.
        format: &'static str,
        /// The extension that makes a file read as that format: `.onnx`, `.tflite`.
        extension: &'static str,
        /// Whether the input is standard input (no file to rename).
        on_stdin: bool,
    },
    /// Program JSON was expected by a command that takes no model file (`faults`), and the
    /// file, not UTF-8, holds a model: it is to be converted with `dramalloc import` first.
    #[error(
        "{file}: not valid UTF-8 text (first bad byte at offset {offset}): it looks like {} {format} \
         model, and this command reads program JSON only: convert it first with `dramalloc import {file} -o \
         PROGRAM.json`",
        if format.starts_with(['A', 'E', 'I', 'O', 'U']) { "an" } else { "a" }
    )]
    ModelNeedsImport {
        /// The file.
        file: String,
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// The model format: `ONNX`, `TFLite`.
        format: &'static str,
    },
    /// A CSV with no line (or only empty ones): not even its header.
    #[error("{file}: the file is empty: a CSV starts with its header line, `{header}`")]
    EmptyCsv {
        /// The file.
        file: String,
        /// The header the file should start with (its required columns).
        header: &'static str,
    },
    /// The file is not well-formed JSON; `line`/`column` are `serde_json`'s (1-based).
    #[error("{file}:{line}:{column}: malformed JSON: {message}")]
    MalformedJson {
        /// The file.
        file: String,
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
        /// `serde_json`'s description.
        message: String,
    },
    /// The file is not well-formed CSV (for example a row with a different number of fields).
    #[error("{file}: line {line}: malformed CSV: {message}")]
    MalformedCsv {
        /// The file.
        file: String,
        /// 1-based line of the bad record (0 when the reader could not tell).
        line: u64,
        /// The csv crate's description.
        message: String,
    },
    /// A required JSON field is absent.
    #[error("{file}: {at}: missing field")]
    MissingField {
        /// The file.
        file: String,
        /// Path of the missing field, e.g. `tensors[12].bytes`.
        at: Location,
    },
    /// A required CSV column is absent from the header.
    #[error("{file}: line {line}: missing column `{column}` in header `{header}`")]
    MissingColumn {
        /// The file.
        file: String,
        /// 1-based line of the header (after any empty lines before it).
        line: u64,
        /// The missing column.
        column: &'static str,
        /// The header line as read (fields joined by `,`).
        header: String,
    },
    /// A CSV header names a required column twice.
    #[error(
        "{file}: line {line}: column `{column}` appears twice in the header{}",
        as_written(first, second)
    )]
    DuplicateColumn {
        /// The file.
        file: String,
        /// 1-based line of the header (after any empty lines before it).
        line: u64,
        /// The repeated column (its own name, also when written as an alias).
        column: String,
        /// Its first header cell as written.
        first: String,
        /// Its second header cell as written.
        second: String,
    },
    /// A CSV header names a column the reader does not know.
    #[error("{file}: line {line}: unknown column `{column}` ({hint})")]
    UnknownColumn {
        /// The file.
        file: String,
        /// 1-based line of the header (after any empty lines before it).
        line: u64,
        /// The column as written.
        column: String,
        /// What is known instead, or why this one is not read.
        hint: &'static str,
    },
    /// A CSV cell that must be text (an id) is not UTF-8.
    #[error("{file}: {at}: not valid UTF-8 text")]
    CellNotUtf8 {
        /// The file.
        file: String,
        /// Where.
        at: Location,
    },
    /// A solution's `align` cell is 0.
    #[error("{file}: {at}: align 0 (a solution's alignment is at least 1 byte)")]
    ZeroPlanAlign {
        /// The file.
        file: String,
        /// Where.
        at: Location,
    },
    /// A buffer's own alignment is 0.
    #[error("{file}: {at}: `{name}` has alignment 0 (an alignment is at least 1 byte; leave the cell empty for none)")]
    ZeroAlignment {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// The buffer id.
        name: String,
    },
    /// The `align` column of a solution differs between rows.
    #[error("{file}: line {line}, column `align`: {align} differs from {first} on line {first_line} (a solution has one alignment)")]
    AlignChanges {
        /// The file.
        file: String,
        /// The row that differs.
        line: u64,
        /// Its value.
        align: u64,
        /// The first row's value.
        first: u64,
        /// The first row's line.
        first_line: u64,
    },
    /// A JSON value has the wrong type (or a string is not one of the allowed words).
    #[error("{file}: {at}: expected {expected}, found {value}")]
    WrongType {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// What was expected, e.g. `a string` or `one of input|output|weight|intermediate`.
        expected: &'static str,
        /// The value found (JSON text, shortened to 80 characters).
        value: String,
    },
    /// A size, bound or address is not a non-negative integer.
    #[error("{file}: {at}: expected a non-negative integer, found {value}")]
    NotANumber {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// The value found (JSON text or the CSV cell).
        value: String,
    },
    /// A size, bound or address written in digits alone whose value passes `u64::MAX`.
    #[error("{file}: {at}: {value} is out of range: past u64's largest value, 18446744073709551615")]
    OutOfRange {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// The value found (the CSV cell, quoted).
        value: String,
    },
    /// A size, bound or address is negative.
    #[error("{file}: {at}: negative value {value} (sizes, bounds and addresses are unsigned)")]
    Negative {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// The value found.
        value: String,
    },
    /// A size whose round-up to a 4096-byte page overflows `u64`.
    #[error("{file}: {at}: size {value} bytes overflows u64 when rounded up to a 4096-byte page (every size must, whatever --align, so any alignment up to a page can plan it)")]
    SizeOverflow {
        /// The file.
        file: String,
        /// Where.
        at: Location,
        /// The size in bytes.
        value: u64,
    },
    /// A planned tensor (intermediate or output) or a CSV buffer of zero bytes.
    #[error("{file}: {at}: `{name}` has size 0 bytes ({})", zero_rule(at))]
    ZeroSize {
        /// The file.
        file: String,
        /// Where the size is written.
        at: Location,
        /// Tensor name or buffer id.
        name: String,
    },
    /// An empty tensor name or buffer id.
    #[error("{file}: {at}: empty name")]
    EmptyName {
        /// The file.
        file: String,
        /// Where.
        at: Location,
    },
    /// A CSV row whose half-open lifetime `[lower, upper)` is empty. The message names the
    /// column the file has: `upper` (exclusive), or MiniMalloc's inclusive `end` (`upper - 1`).
    #[error(
        "{file}: line {line}: buffer `{id}` has {}",
        if *inclusive_end {
            format!("end {} < lower {lower} (end is inclusive)", upper.wrapping_sub(1))
        } else {
            format!("upper {upper} <= lower {lower} (upper is exclusive)")
        }
    )]
    EmptyLifetime {
        /// The file.
        file: String,
        /// 1-based line of the row.
        line: u64,
        /// The buffer id.
        id: String,
        /// First live instant.
        lower: u64,
        /// One past the last live instant.
        upper: u64,
        /// The file's column is the inclusive `end` (it said `upper - 1`).
        inclusive_end: bool,
    },
    /// A tensor name or buffer id used twice.
    #[error("{file}: {at}: duplicate name `{name}` (first at {first})")]
    Duplicate {
        /// The file.
        file: String,
        /// The second occurrence.
        at: Location,
        /// The repeated name or id.
        name: String,
        /// The first occurrence.
        first: Location,
    },
    /// An op names a tensor that is not in `tensors`.
    #[error("{file}: {at}: unknown tensor `{name}`")]
    UnknownTensor {
        /// The file.
        file: String,
        /// Where the op names it, e.g. `ops[3].inputs[1]`.
        at: Location,
        /// The unknown name.
        name: String,
    },
    /// An op reads an intermediate or output tensor that no earlier op has written.
    #[error("{file}: {at}: op reads {kind} tensor `{name}` before any op defines it")]
    ReadBeforeDef {
        /// The file.
        file: String,
        /// Where the op reads it.
        at: Location,
        /// The tensor.
        name: String,
        /// Its kind (`intermediate` or `output`).
        kind: &'static str,
    },
    /// A second op writes a tensor that an earlier op already defined.
    #[error("{file}: {at}: tensor `{name}` is written again (first defined at {first})")]
    Redefined {
        /// The file.
        file: String,
        /// The second write.
        at: Location,
        /// The tensor.
        name: String,
        /// The first write.
        first: Location,
    },
    /// An op writes an input or weight tensor (those are written only by the loader).
    #[error("{file}: {at}: op writes {kind} tensor `{name}` (inputs and weights are read-only)")]
    WritesPreloaded {
        /// The file.
        file: String,
        /// Where the op writes it.
        at: Location,
        /// The tensor.
        name: String,
        /// Its kind (`input` or `weight`).
        kind: &'static str,
    },
    /// An intermediate or output tensor that no op writes.
    #[error("{file}: {at}: {kind} tensor `{name}` is never written by any op")]
    NeverDefined {
        /// The file.
        file: String,
        /// The tensor's entry, e.g. `tensors[7]`.
        at: Location,
        /// The tensor.
        name: String,
        /// Its kind.
        kind: &'static str,
    },
    /// An explicit `address` on an intermediate tensor (only pre-placed kinds may have one).
    #[error("{file}: {at}: intermediate tensor `{name}` has an explicit address {address} (only inputs, outputs and weights are pre-placed)")]
    AddressOnIntermediate {
        /// The file.
        file: String,
        /// Where the address is written.
        at: Location,
        /// The tensor.
        name: String,
        /// The address given.
        address: u64,
    },
    /// `"shared": true` on an input, output or weight: those are pre-placed per core, only
    /// intermediates go to the shared region (the flag was dropped silently before).
    #[error(
        "{file}: {at}: {kind} tensor `{name}` is flagged shared (only intermediates are placed in the shared \
         region; inputs, outputs and weights are pre-placed on each core)"
    )]
    SharedPreplaced {
        /// The file.
        file: String,
        /// Where the flag is written.
        at: Location,
        /// The tensor.
        name: String,
        /// Its kind (`input`, `output`, `weight`).
        kind: &'static str,
    },
    /// More tensors or rows than the configured capacity.
    #[error("{file}: {at}: more than {max} {what}")]
    TooMany {
        /// The file.
        file: String,
        /// The first entry beyond the capacity.
        at: Location,
        /// `tensors` or `rows`.
        what: &'static str,
        /// The configured capacity.
        max: usize,
    },
    /// An explicit address not aligned to the pre-placement alignment.
    #[error("{file}: {at}: address {address} of `{name}` is not a multiple of {align}")]
    MisalignedAddress {
        /// The program.
        file: String,
        /// Where the address is written.
        at: Location,
        /// The tensor.
        name: String,
        /// The address given.
        address: u64,
        /// The alignment in bytes.
        align: u64,
    },
    /// Two explicitly placed tensors overlap (byte ranges use the aligned size, half-open).
    #[error("{file}: pre-placed `{first}` at bytes [{first_start}, {first_end}) overlaps `{second}` at bytes [{second_start}, {second_end})")]
    PreplacedOverlap {
        /// The program.
        file: String,
        /// The lower-addressed tensor.
        first: String,
        /// Its first byte.
        first_start: u64,
        /// One past its last (aligned) byte.
        first_end: u64,
        /// The other tensor.
        second: String,
        /// Its first byte.
        second_start: u64,
        /// One past its last (aligned) byte.
        second_end: u64,
    },
    /// A buffer's or tensor's end would pass `u64::MAX` (a CSV row's fixed offset plus its
    /// size, a program's pre-placement), in the one wording of every such overflow
    /// ([`overflow_message`]).
    #[error("{file}: {at}: {}", overflow_message(&format!("{noun} `{name}`"), *bytes, what))]
    AddressOverflow {
        /// The file (a program: its name).
        file: String,
        /// The row's offset cell or the tensor's entry.
        at: Location,
        /// `buffer` (a CSV row) or `tensor` (a program's).
        noun: &'static str,
        /// The buffer id or tensor name.
        name: String,
        /// Its size in bytes.
        bytes: u64,
        /// What overflows, e.g. `its offset 18446744073709551615 plus its size` (boxed: the
        /// error stays under 128 bytes).
        what: Box<str>,
    },
    /// An alignment that is zero or not a power of two.
    #[error("alignment {align} is not a power of two")]
    BadAlign {
        /// The alignment given.
        align: u64,
    },
}

/// The one wording of a buffer whose end would pass `u64::MAX`, for the input's errors and
/// the planner's ([`crate::quality::solve_error::describe`]): `who` names the buffer, `bytes`
/// is its size and `what` says what overflows.
///
/// ```
/// use dramalloc_sim::input::error::overflow_message;
/// assert_eq!(
///     overflow_message("buffer `a`", 100, "its offset 18446744073709547520 plus its size rounded up to 4096"),
///     "placing buffer `a` (100 bytes) overflows the u64 address space: its offset 18446744073709547520 plus \
///      its size rounded up to 4096 ends past 18446744073709551615"
/// );
/// ```
pub fn overflow_message(who: &str, bytes: u64, what: &str) -> String {
    format!("placing {who} ({bytes} bytes) overflows the u64 address space: {what} ends past {}", u64::MAX)
}
