//! minimalloc CSV: problems `id,lower,upper,size[,offset][,alignment]` and solutions (with `offset`).
//! Uses: error, line_count, plain_csv, problem, quoted, row_rules; used by: cli, quality, verify.
//!
//! The format of google/minimalloc's benchmarks and of its own reader: a header line is
//! required; columns may come in any order, matched by name case-insensitively, surrounding
//! spaces trimmed (every cell is trimmed, ids included, except a quoted id: `"t "` is the id
//! `t `, as `dramalloc plan` writes it; see `quoted`). A buffer is live over the half-open
//! interval `[lower, upper)` (upper EXCLUSIVE, so the closed interval is `[lower, upper - 1]`);
//! sizes and offsets are bytes. A UTF-8 byte-order mark before the header is skipped.
//!
//! | column | meaning |
//! |---|---|
//! | `id` (also `buffer`, `buffer_id`) | unique, non-empty name |
//! | `lower` (also `start`, `begin`) | first live instant |
//! | `upper`, or `end` (inclusive: `upper = end + 1`, as MiniMalloc reads it) | one past the last live instant |
//! | `size` | bytes |
//! | `offset` | a fixed offset: the buffer stays there and is an obstacle to the others; an empty cell leaves it free |
//! | `alignment` | the buffer's own offset alignment in bytes (empty: none) |
//! | `align` | the alignment a solution was planned with (written by `dramalloc plan`; the same on every row) |
//!
//! Any other column is an error ([`InputError::UnknownColumn`]), MiniMalloc's `gaps` included.
//!
//! **Speed.** Files and texts are first read by the quote-free fast path
//! (`plain_csv`); what it gives up on, and streams, are read through one reused byte
//! record of the `csv` crate (through `quoted::RawKept`, which keeps the raw bytes of the
//! record being read, to tell a quoted id). Either way cells are trimmed as slices, numbers
//! parsed from bytes, ids appended to the problem's arena (reserved once from the first rows
//! when the length is known), repeated ids found in one batch
//! ([`super::problem::first_duplicate`]). 10^6 rows take about 0.09 s (fast path) to 0.11 s
//! (`csv` crate) with numeric ids (see the README); memory is the [`Problem`] plus one 1 MiB
//! block (the `csv` crate: its 64 KiB buffer and about twice that of kept raw bytes), plus
//! 16 bytes per non-numeric id while the batch check runs.
//!
//! # Rules checked for problems (each a distinct [`InputError`] naming file, line, column,
//! value)
//! malformed CSV, missing, repeated or unknown column, empty id, an id that is not UTF-8,
//! non-numeric or negative value, `upper <= lower`, duplicate id, size 0, a size whose
//! round-up to 4096 overflows `u64`, alignment 0, `align` differing between rows, more rows
//! than the configured maximum.
//!
//! Solutions are checked only for shape (columns, numbers, row count; `offset` required on
//! every row): whether they match the problem, repeat a row or collide is the job of
//! [`crate::verify`], which can name the culprit precisely.

use std::io::Read;
use std::path::Path;

use csv::{ByteRecord, ReaderBuilder};

use super::error::{shorten, InputError, Location};
use super::line_count::LineCounted;
use super::problem::{first_duplicate, Problem};
use super::quoted::{has_edge_space, RawKept};
use super::row_rules::RowRules;

/// The UTF-8 byte-order mark.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the reader makes of the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A problem: every rule of the module docs.
    Problem,
    /// A solution: shape only, `offset` required.
    Solution,
}

/// A column the reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Id,
    Lower,
    Upper,
    /// MiniMalloc's inclusive `end`.
    End,
    Size,
    Offset,
    Alignment,
    Align,
}

impl Col {
    /// The column of a header cell (already trimmed), by name or alias.
    fn of(name: &str) -> Option<Col> {
        Some(match name.to_ascii_lowercase().as_str() {
            "id" | "buffer" | "buffer_id" => Col::Id,
            "lower" | "start" | "begin" => Col::Lower,
            "upper" => Col::Upper,
            "end" => Col::End,
            "size" => Col::Size,
            "offset" => Col::Offset,
            "alignment" => Col::Alignment,
            "align" => Col::Align,
            _ => return None,
        })
    }

    /// The canonical name (`End` counts as `upper`: a header may have only one of them).
    fn name(self) -> &'static str {
        match self {
            Col::Id => "id",
            Col::Lower => "lower",
            Col::Upper | Col::End => "upper",
            Col::Size => "size",
            Col::Offset => "offset",
            Col::Alignment => "alignment",
            Col::Align => "align",
        }
    }

    /// Slot in [`Header::index`].
    fn slot(self) -> usize {
        match self {
            Col::Id => 0,
            Col::Lower => 1,
            Col::Upper | Col::End => 2,
            Col::Size => 3,
            Col::Offset => 4,
            Col::Alignment => 5,
            Col::Align => 6,
        }
    }
}

/// Where each known column is in a record.
pub(super) struct Header {
    /// Field index per [`Col::slot`].
    index: [Option<usize>; 7],
    /// The upper column is MiniMalloc's inclusive `end`.
    pub(super) inclusive_end: bool,
    /// The column names as written (for messages).
    names: Vec<String>,
}

impl Header {
    pub(super) fn parse(
        record: &ByteRecord,
        file: &str,
        kind: Kind,
        line: u64,
    ) -> Result<Header, InputError> {
        let names = record
            .iter()
            .enumerate()
            // a byte-order mark before the header is not part of the first name
            .map(|(i, c)| (i, if i == 0 { c.strip_prefix(BOM).unwrap_or(c) } else { c }))
            // a name that is not text (a binary file) is said so, not echoed as an unknown column
            .map(|(i, c)| {
                std::str::from_utf8(c.trim_ascii()).map(str::to_owned).map_err(|_| InputError::CellNotUtf8 {
                    file: file.to_owned(),
                    at: Location::Csv { line, column: format!("header field {}", i + 1) },
                })
            })
            .collect::<Result<Vec<String>, InputError>>()?;
        let mut h = Header { index: [None; 7], inclusive_end: false, names };
        for (i, name) in h.names.iter().enumerate() {
            let Some(col) = Col::of(name) else {
                return Err(InputError::UnknownColumn {
                    file: file.to_owned(),
                    line,
                    column: shorten(name),
                    hint: if name.eq_ignore_ascii_case("gaps") {
                        "MiniMalloc's lifetime gaps are not supported"
                    } else {
                        KNOWN_COLUMNS
                    },
                });
            };
            if let Some(before) = h.index[col.slot()].replace(i) {
                return Err(InputError::DuplicateColumn {
                    file: file.to_owned(),
                    line,
                    column: col.name().to_owned(),
                    first: shorten(&h.names[before]),
                    second: shorten(name),
                });
            }
            h.inclusive_end |= col == Col::End;
        }
        let required: &[Col] = match kind {
            Kind::Problem => &[Col::Id, Col::Lower, Col::Upper, Col::Size],
            Kind::Solution => &[Col::Id, Col::Lower, Col::Upper, Col::Size, Col::Offset],
        };
        for &col in required {
            if h.index[col.slot()].is_none() {
                return Err(InputError::MissingColumn {
                    file: file.to_owned(),
                    line,
                    column: col.name(),
                    header: shorten(&h.names.join(",")),
                });
            }
        }
        Ok(h)
    }

    /// The number of columns.
    pub(super) fn width(&self) -> usize {
        self.names.len()
    }

    /// The record field of column slot `slot`, when the header has that column.
    pub(super) fn slot_index(&self, slot: usize) -> Option<usize> {
        self.index[slot]
    }

    /// The name of the column at `slot` as the header writes it.
    pub(super) fn column(&self, slot: usize) -> String {
        self.index[slot].map_or_else(String::new, |i| self.names[i].clone())
    }
}

/// The columns the reader knows, for [`InputError::UnknownColumn`].
const KNOWN_COLUMNS: &str =
    "known: id, lower, upper, size, offset, alignment, align; aliases buffer, buffer_id, start, begin, end";

/// Parses a problem CSV; `source` names the text in errors. At most `max_rows` data rows are
/// accepted.
///
/// # Errors
/// An [`InputError`] for every rule in the module docs, naming `source`, the 1-based line
/// (the header is line 1), the column and the value.
///
/// ```
/// use dramalloc_sim::input::parse_buffers;
/// let p = parse_buffers("size,id,upper,lower,offset\n4,b1,3,0,\n8,F,9,0,4096\n", "p.csv", 10)?;
/// assert_eq!((p.len(), p.id(1), p.row(1).size), (2, "F", 8));
/// assert_eq!((p.fixed(0), p.fixed(1)), (None, Some(4096)));
/// # Ok::<(), dramalloc_sim::input::InputError>(())
/// ```
pub fn parse_buffers(text: &str, source: &str, max_rows: usize) -> Result<Problem, InputError> {
    read_text(text, source, max_rows, Kind::Problem)
}

/// Reads a problem CSV from `reader` (streamed, through the `csv` crate: a stream cannot be
/// read again, so the quote-free fast path of files and texts is not tried); `source` names
/// it in errors. The same problem or error as [`parse_buffers`] of the same text.
///
/// # Errors
/// As [`parse_buffers`], and [`InputError::Io`] when reading fails.
pub fn read_buffers_from(reader: impl Read, source: &str, max_rows: usize) -> Result<Problem, InputError> {
    read_csv(reader, source, max_rows, Kind::Problem)
}

/// Reads a problem CSV file.
///
/// # Errors
/// [`InputError::Io`] when the file cannot be opened or read, otherwise as [`parse_buffers`]
/// with the path as the source name.
pub fn read_buffers(path: &Path, max_rows: usize) -> Result<Problem, InputError> {
    read_file(path, max_rows, Kind::Problem)
}

/// Opens `path` and reads it, reserving from its length.
/// Plain regular files (no quotes, see [`super::plain_csv`]) are read by the fast path
/// first; any other file, or any error, is read (again) through the `csv` crate, which
/// decides. A pipe, a FIFO or a device (`<(...)`, `/dev/stdin`) cannot be read twice, so it
/// goes to the `csv` crate at once.
fn read_file(path: &Path, max_rows: usize, kind: Kind) -> Result<Problem, InputError> {
    let file = path.display().to_string();
    let open = || std::fs::File::open(path).map_err(|source| InputError::Io { file: file.clone(), source });
    let f = open()?;
    let meta = f.metadata().ok();
    let bytes = meta.as_ref().map(std::fs::Metadata::len);
    if !meta.is_some_and(|m| m.is_file()) {
        return read_csv_sized(f, bytes, &file, max_rows, kind);
    }
    if let Ok(Some(problem)) = super::plain_csv::read_plain(f, bytes, &file, max_rows, kind) {
        return Ok(problem);
    }
    read_csv_sized(open()?, bytes, &file, max_rows, kind)
}

/// Parses a solution CSV (a problem with an `offset` on every row); `source` names the text.
///
/// Only the shape is checked; see the module docs.
///
/// # Errors
/// Malformed CSV, a missing, repeated or unknown column, an empty id, a non-numeric, empty or
/// negative value, or more than `max_rows` rows, each naming `source`, line, column and value.
pub fn parse_solution(text: &str, source: &str, max_rows: usize) -> Result<Problem, InputError> {
    read_text(text, source, max_rows, Kind::Solution)
}

/// A text in memory: the quote-free fast path first ([`super::plain_csv`]), the `csv` crate
/// when the text is not plain or breaks a rule.
fn read_text(text: &str, source: &str, max_rows: usize, kind: Kind) -> Result<Problem, InputError> {
    let bytes = Some(text.len() as u64);
    if let Ok(Some(problem)) = super::plain_csv::read_plain(text.as_bytes(), bytes, source, max_rows, kind) {
        return Ok(problem);
    }
    read_csv(text.as_bytes(), source, max_rows, kind)
}

/// Reads a solution CSV from `reader` (streamed); `source` names it in errors.
///
/// # Errors
/// As [`parse_solution`], and [`InputError::Io`] when reading fails.
pub fn read_solution_from(reader: impl Read, source: &str, max_rows: usize) -> Result<Problem, InputError> {
    read_csv(reader, source, max_rows, Kind::Solution)
}

/// Reads a solution CSV file.
///
/// # Errors
/// [`InputError::Io`] when the file cannot be opened or read, otherwise as
/// [`parse_solution`] with the path as the source name.
pub fn read_solution(path: &Path, max_rows: usize) -> Result<Problem, InputError> {
    read_file(path, max_rows, Kind::Solution)
}

/// The `csv` crate's reader behind every entry point: see the module docs.
pub(super) fn read_csv(
    reader: impl Read,
    file: &str,
    max_rows: usize,
    kind: Kind,
) -> Result<Problem, InputError> {
    read_csv_sized(reader, None, file, max_rows, kind)
}

/// Rows read before the reader estimates the total from the bytes they took.
pub(super) const SAMPLE_ROWS: usize = 1024;

/// As [`read_csv`]; `bytes`, the input's length when known, lets the reader reserve the
/// problem and the index once (from the first [`SAMPLE_ROWS`] rows) instead of growing them.
fn read_csv_sized(
    reader: impl Read,
    bytes: Option<u64>,
    file: &str,
    max_rows: usize,
    kind: Kind,
) -> Result<Problem, InputError> {
    // Cells are trimmed in the row rules, as slices: the `csv` crate's own trimming builds a
    // new record for every row, and trims quoted ids too. Lines are counted from the bytes
    // (LF, CRLF, CR), see line_count; the raw bytes are kept to tell quoted ids, see quoted.
    let mut reader = ReaderBuilder::new()
        .has_headers(false)
        .buffer_capacity(1 << 16)
        .from_reader(LineCounted::new(RawKept::new(reader)));
    let mut record = ByteRecord::new();
    let line = match reader.read_byte_record(&mut record) {
        // the header's own line, after any empty lines before it
        Ok(true) => reader.get_mut().record_line(record.position().map_or(0, csv::Position::byte)),
        // no line at all (or only empty ones): said so, not as a header missing its `id`
        Ok(false) => {
            let header = match kind {
                Kind::Problem => "id,lower,upper,size",
                Kind::Solution => "id,lower,upper,size,offset",
            };
            return Err(InputError::EmptyCsv { file: file.to_owned(), header });
        }
        Err(e) => return Err(malformed(e, &mut reader, file)),
    };
    let header = Header::parse(&record, file, kind, line)?;
    let max_rows = max_rows.min(u32::MAX as usize - 1);
    let mut problem = Problem::default();
    let rows = read_rows(&mut reader, &mut record, &header, bytes, file, max_rows, kind, &mut problem);
    // Repeated ids are found in one batch at the end; the first error in file order wins.
    if kind == Kind::Problem {
        if let Some(dup) = duplicate_error(&problem, file, &header.column(0)) {
            let row_error_first = match &rows {
                Err(e) => error_line(e).is_some_and(|l| l < dup_line(&dup)),
                Ok(()) => false,
            };
            if !row_error_first {
                return Err(dup);
            }
        }
    }
    rows?;
    Ok(problem)
}

/// The error of a record the `csv` crate cannot read, naming the line its byte offset is on.
fn malformed<R: Read>(
    e: csv::Error,
    reader: &mut csv::Reader<LineCounted<RawKept<R>>>,
    file: &str,
) -> InputError {
    let line = e.position().map_or(0, |p| reader.get_mut().record_line(p.byte()));
    // the `csv` crate's own text repeats its line count, which is wrong for CRLF and CR files
    // and after empty lines: the width mismatch (the one malformation of byte records) is
    // said without it
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("found a record with {len} fields, but the header has {expected_len}")
        }
        _ => e.to_string(),
    };
    match e.into_kind() {
        csv::ErrorKind::Io(source) => InputError::Io { file: file.to_owned(), source },
        _ => InputError::MalformedCsv { file: file.to_owned(), line, message },
    }
}

/// The line a row error names.
fn error_line(e: &InputError) -> Option<u64> {
    match e {
        InputError::MalformedCsv { line, .. }
        | InputError::EmptyLifetime { line, .. }
        | InputError::AlignChanges { line, .. } => Some(*line),
        InputError::TooMany { at: Location::Csv { line, .. }, .. }
        | InputError::CellNotUtf8 { at: Location::Csv { line, .. }, .. }
        | InputError::EmptyName { at: Location::Csv { line, .. }, .. }
        | InputError::NotANumber { at: Location::Csv { line, .. }, .. }
        | InputError::OutOfRange { at: Location::Csv { line, .. }, .. }
        | InputError::Negative { at: Location::Csv { line, .. }, .. }
        | InputError::ZeroSize { at: Location::Csv { line, .. }, .. }
        | InputError::SizeOverflow { at: Location::Csv { line, .. }, .. }
        | InputError::ZeroAlignment { at: Location::Csv { line, .. }, .. }
        | InputError::ZeroPlanAlign { at: Location::Csv { line, .. }, .. }
        | InputError::AddressOverflow { at: Location::Csv { line, .. }, .. } => Some(*line),
        _ => None,
    }
}

/// The line of the second occurrence a duplicate error names.
fn dup_line(e: &InputError) -> u64 {
    match e {
        InputError::Duplicate { at: Location::Csv { line, .. }, .. } => *line,
        _ => 0,
    }
}

/// Reads the data rows into `problem`, stopping at the first bad one.
#[allow(clippy::too_many_arguments)]
fn read_rows<R: Read>(
    reader: &mut csv::Reader<LineCounted<RawKept<R>>>,
    record: &mut ByteRecord,
    header: &Header,
    bytes: Option<u64>,
    file: &str,
    max_rows: usize,
    kind: Kind,
    problem: &mut Problem,
) -> Result<(), InputError> {
    let mut rows = RowRules::new(bytes, file, max_rows, kind);
    loop {
        match reader.read_byte_record(record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(malformed(e, reader, file)),
        }
        let offset = record.position().map_or(0, csv::Position::byte);
        let counted = reader.get_mut();
        let line = counted.record_line(offset);
        let raw = counted.get_mut();
        raw.release(offset);
        // The reader rejects records whose length differs from the header's, so every index
        // is in range; `unwrap_or(b"")` only keeps this free of panics.
        let cell = |slot: usize| header.index[slot].and_then(|i| record.get(i)).unwrap_or(b"");
        // only an id with a space at an edge asks the raw bytes whether it was quoted
        let id_quoted = if has_edge_space(cell(0)) {
            header.index[0].and_then(|i| raw.quoted_tail(offset, i))
        } else {
            None
        };
        rows.accept(header, problem, cell, id_quoted, line, offset)?;
    }
    rows.finish(header, problem);
    Ok(())
}

/// The first repeated id of a problem, as the error naming both lines.
fn duplicate_error(problem: &Problem, file: &str, id_column: &str) -> Option<InputError> {
    let (first, second) = first_duplicate(problem)?;
    let at = |k: usize| Location::Csv { line: problem.line(k).unwrap_or(0), column: id_column.to_owned() };
    Some(InputError::Duplicate {
        file: file.to_owned(),
        at: at(second),
        name: shorten(problem.id(second)),
        first: at(first),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;

    #[test]
    fn errors_name_the_line_for_lf_crlf_and_cr_line_ends() {
        for end in ["\n", "\r\n", "\r"] {
            let csv = |rows: &[&str]| rows.join(end) + end;
            let e = parse_buffers(&csv(&["id,lower,upper,size", "a,0,4,5", "b,0,4,-5"]), "p", 9).unwrap_err();
            assert_eq!(
                e.to_string(),
                "p: line 3, column `size`: negative value `-5` (sizes, bounds and addresses are unsigned)",
                "{end:?}"
            );
            let e = parse_buffers(&csv(&["id,lower,upper,size", "a,0,4,5", "b,0,4,5", "a,1,2,3"]), "p", 9)
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                "p: line 4, column `id`: duplicate name `a` (first at line 2, column `id`)",
                "{end:?}"
            );
            let e = parse_buffers(&csv(&["id,lower,upper,size", "a,0,4,5", "b,0,4"]), "p", 9).unwrap_err();
            assert!(matches!(e, InputError::MalformedCsv { line: 3, .. }), "{end:?}: {e}");
            assert_eq!(
                e.to_string(),
                "p: line 3: malformed CSV: found a record with 3 fields, but the header has 4",
                "{end:?}"
            );
            // after empty lines, the row's own line
            let text = csv(&["id,lower,upper,size", "a,0,4,5", "", "", "b,0,4,x"]);
            let e = parse_buffers(&text, "p", 9).unwrap_err();
            assert_eq!(
                e.to_string(),
                "p: line 5, column `size`: expected a non-negative integer, found `x`",
                "{end:?}"
            );
            let e = parse_buffers(&csv(&["id,lower,upper,size", "", "b,0,4"]), "p", 9).unwrap_err();
            assert!(matches!(e, InputError::MalformedCsv { line: 3, .. }), "{end:?}: {e}");
            // a header after empty lines is named by its own line too
            let e = parse_buffers(&csv(&["", "", "id,lower,upper", "a,0,3"]), "p", 9).unwrap_err();
            assert_eq!(
                e.to_string(),
                "p: line 3: missing column `size` in header `id,lower,upper`",
                "{end:?}"
            );
        }
    }

    #[test]
    fn header_only_is_an_empty_problem() {
        assert_eq!(parse_buffers("id,lower,upper,size\n", "p", 0).unwrap().len(), 0);
    }

    #[test]
    fn spaces_aliases_and_inclusive_end_are_read() {
        let p = parse_buffers("Buffer, start ,end,size\n x , 1 ,2,3\n", "p", 1).unwrap();
        assert_eq!((p.id(0), p.row(0)), ("x", Row { lower: 1, upper: 3, size: 3 }));
        // an empty lifetime is told in the file's own column
        let e = parse_buffers("id,start,end,size\na,3,2,4\n", "p", 1).unwrap_err();
        assert_eq!(e.to_string(), "p: line 2: buffer `a` has end 2 < lower 3 (end is inclusive)");
        let e = parse_buffers("id,lower,upper,size\na,3,3,4\n", "p", 1).unwrap_err();
        assert_eq!(e.to_string(), "p: line 2: buffer `a` has upper 3 <= lower 3 (upper is exclusive)");
    }

    /// A quoted id is the text between its quotes (what follows the closing quote trimmed),
    /// an unquoted one is trimmed: `"t "`, `" u"` and `t` are three ids, ` t ` repeats `t`;
    /// the same from a text, a file and a stream.
    #[test]
    fn quoted_ids_are_verbatim_and_unquoted_ones_trimmed() {
        let text =
            "size,id,lower,upper\n1,\"t \",0,1\n2, \" u\",0,1\n3, t ,0,1\n4,\"n\n\",0,1\n5,\"v\" ,0,1\n";
        let path = std::env::temp_dir().join(format!("dramalloc_quoted_ids_{}.csv", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let from_file = read_buffers(&path, 9);
        let _ = std::fs::remove_file(&path);
        for p in [parse_buffers(text, "p", 9), read_buffers_from(text.as_bytes(), "p", 9), from_file] {
            let p = p.unwrap();
            let ids: Vec<&str> = (0..p.len()).map(|k| p.id(k)).collect();
            // ` " u"`: a space before the quote makes the quotes text, as the `csv` crate reads it
            assert_eq!(ids, ["t ", "\" u\"", "t", "n\n", "v"]);
            assert_eq!(p.line(4), Some(7));
        }
        let e = parse_buffers("id,lower,upper,size\n\"t \",0,1,1\nt,0,1,1\n t ,0,1,1\n", "p", 9).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p: line 4, column `id`: duplicate name `t` (first at line 3, column `id`)"
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let p = parse_buffers("\u{feff}id,lower,upper,size\na,0,1,1\n", "p", 1).unwrap();
        assert_eq!(p.id(0), "a");
    }
}
