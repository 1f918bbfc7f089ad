//! minimalloc CSV: problems `id,lower,upper,size` and solutions `id,lower,upper,size,offset`.
//! Uses: error; used by: quality, verify.
//!
//! The format of `../shared/traces/minimalloc/` (google/minimalloc's benchmarks): a header
//! line is required; columns may come in any order (matched by name, case-insensitively,
//! surrounding spaces trimmed); extra columns are ignored. A buffer is live over the
//! half-open interval `[lower, upper)` (upper EXCLUSIVE, so the closed interval is
//! `[lower, upper - 1]`); `size` and `offset` are bytes. Every cell is trimmed of
//! surrounding spaces, ids included. Parsing is O(n) with one hash map of ids.
//!
//! # Rules checked for problems (each a distinct [`InputError`] naming file, line, column,
//! value)
//! malformed CSV, missing or repeated column, empty id, non-numeric or negative value,
//! `upper <= lower`, duplicate id, size 0, a size whose round-up to 4096 overflows `u64`,
//! more rows than the configured maximum.
//!
//! Solutions are checked only for shape (columns, numbers, row count): whether they match
//! the problem, repeat a row or collide is the job of [`crate::verify`], which can name the
//! culprit precisely.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use csv::{ReaderBuilder, StringRecord, Trim};

use super::error::{InputError, Location};
use super::{align_up, read_text, PAGE};

/// Columns of a problem file.
const PROBLEM_COLUMNS: [&str; 4] = ["id", "lower", "upper", "size"];
/// Columns of a solution file.
const SOLUTION_COLUMNS: [&str; 5] = ["id", "lower", "upper", "size", "offset"];

/// One buffer of a minimalloc problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Buffer {
    /// Unique, non-empty id.
    pub id: String,
    /// First instant the buffer is live.
    pub lower: u64,
    /// One past the last live instant (exclusive; `upper > lower`).
    pub upper: u64,
    /// Size in bytes (non-zero; its round-up to 4096 fits in `u64`).
    pub size: u64,
}

/// One row of a minimalloc solution: a buffer and the byte offset it was placed at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SolutionRow {
    /// The buffer's id.
    pub id: String,
    /// First instant the buffer is live.
    pub lower: u64,
    /// One past the last live instant (exclusive).
    pub upper: u64,
    /// Size in bytes.
    pub size: u64,
    /// Start address in bytes.
    pub offset: u64,
}

/// Parses a problem CSV (`id,lower,upper,size`); `source` names the text in errors.
///
/// At most `max_rows` data rows are accepted.
///
/// # Errors
/// An [`InputError`] for every rule in the module docs, naming `source`, the 1-based line
/// (the header is line 1), the column and the value.
///
/// ```
/// use dramalloc_sim::input::{parse_buffers, Buffer};
/// let rows = parse_buffers("size,id,upper,lower\n4,b1,3,0\n", "p.csv", 10)?;
/// assert_eq!(rows, vec![Buffer { id: "b1".into(), lower: 0, upper: 3, size: 4 }]);
/// # Ok::<(), dramalloc_sim::input::InputError>(())
/// ```
pub fn parse_buffers(text: &str, source: &str, max_rows: usize) -> Result<Vec<Buffer>, InputError> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    for_each_row(text, source, &PROBLEM_COLUMNS, max_rows, |line, id, v| {
        let [lower, upper, size] = [v[0], v[1], v[2]];
        let at = |column: &str| Location::Csv { line, column: column.to_owned() };
        if size == 0 {
            return Err(InputError::ZeroSize {
                file: source.to_owned(),
                at: at("size"),
                name: id.to_owned(),
            });
        }
        if align_up(size, PAGE).is_none() {
            return Err(InputError::SizeOverflow { file: source.to_owned(), at: at("size"), value: size });
        }
        if upper <= lower {
            return Err(InputError::EmptyLifetime {
                file: source.to_owned(),
                line,
                id: id.to_owned(),
                lower,
                upper,
            });
        }
        if let Some(&first) = seen.get(id) {
            return Err(InputError::Duplicate {
                file: source.to_owned(),
                at: at("id"),
                name: id.to_owned(),
                first: Location::Csv { line: first, column: "id".to_owned() },
            });
        }
        seen.insert(id.to_owned(), line);
        out.push(Buffer { id: id.to_owned(), lower, upper, size });
        Ok(())
    })?;
    Ok(out)
}

/// Reads and parses a problem CSV file.
///
/// # Errors
/// [`InputError::Io`] or [`InputError::NotUtf8`] when the file cannot be read as text,
/// otherwise as [`parse_buffers`] with the path as the source name.
pub fn read_buffers(path: &Path, max_rows: usize) -> Result<Vec<Buffer>, InputError> {
    let (text, source) = read_text(path)?;
    parse_buffers(&text, &source, max_rows)
}

/// Parses a solution CSV (`id,lower,upper,size,offset`); `source` names the text in errors.
///
/// Only the shape is checked; see the module docs.
///
/// # Errors
/// Malformed CSV, a missing or repeated column, an empty id, a non-numeric or negative
/// value, or more than `max_rows` rows, each naming `source`, line, column and value.
pub fn parse_solution(text: &str, source: &str, max_rows: usize) -> Result<Vec<SolutionRow>, InputError> {
    let mut out = Vec::new();
    for_each_row(text, source, &SOLUTION_COLUMNS, max_rows, |_, id, v| {
        out.push(SolutionRow { id: id.to_owned(), lower: v[0], upper: v[1], size: v[2], offset: v[3] });
        Ok(())
    })?;
    Ok(out)
}

/// Reads and parses a solution CSV file.
///
/// # Errors
/// [`InputError::Io`] or [`InputError::NotUtf8`] when the file cannot be read as text,
/// otherwise as [`parse_solution`] with the path as the source name.
pub fn read_solution(path: &Path, max_rows: usize) -> Result<Vec<SolutionRow>, InputError> {
    let (text, source) = read_text(path)?;
    parse_solution(&text, &source, max_rows)
}

/// Writes a solution as minimalloc does: header `id,lower,upper,size,offset`, one line per
/// row, `\n` line ends. Ids containing `,`, `"`, or a line break are quoted.
///
/// ```
/// use dramalloc_sim::input::{write_solution, SolutionRow};
/// let row = SolutionRow { id: "b1".into(), lower: 0, upper: 3, size: 4, offset: 8 };
/// assert_eq!(write_solution(&[row]), "id,lower,upper,size,offset\nb1,0,3,4,8\n");
/// ```
#[must_use]
pub fn write_solution(rows: &[SolutionRow]) -> String {
    let mut out = String::with_capacity(32 + rows.len() * 40);
    out.push_str("id,lower,upper,size,offset\n");
    for r in rows {
        if r.id.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&r.id.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&r.id);
        }
        // Writing to a String cannot fail.
        let _ = writeln!(out, ",{},{},{},{}", r.lower, r.upper, r.size, r.offset);
    }
    out
}

/// Reads `text` as CSV with the named `columns` (the first is the id, the rest unsigned
/// numbers) and calls `row(line, id, numbers)` for each data record.
fn for_each_row<F>(
    text: &str,
    file: &str,
    columns: &[&'static str],
    max_rows: usize,
    mut row: F,
) -> Result<(), InputError>
where
    F: FnMut(u64, &str, &[u64]) -> Result<(), InputError>,
{
    let malformed = |e: csv::Error| InputError::MalformedCsv {
        file: file.to_owned(),
        line: e.position().map_or(0, csv::Position::line),
        message: e.to_string(),
    };
    let mut reader = ReaderBuilder::new().has_headers(true).trim(Trim::All).from_reader(text.as_bytes());
    let header = reader.headers().map_err(malformed)?.clone();
    let index = column_indices(&header, file, columns)?;
    let mut numbers = vec![0u64; columns.len() - 1];
    let mut record = StringRecord::new();
    let mut count = 0usize;
    while reader.read_record(&mut record).map_err(malformed)? {
        let line = record.position().map_or(0, csv::Position::line);
        if count == max_rows {
            return Err(InputError::TooMany {
                file: file.to_owned(),
                at: Location::Csv { line, column: columns[0].to_owned() },
                what: "rows",
                max: max_rows,
            });
        }
        count += 1;
        let at = |c: usize| Location::Csv { line, column: columns[c].to_owned() };
        // The reader rejects records whose length differs from the header's, so every
        // index is in range; `unwrap_or("")` only keeps this free of panics.
        let id = record.get(index[0]).unwrap_or("");
        if id.is_empty() {
            return Err(InputError::EmptyName { file: file.to_owned(), at: at(0) });
        }
        for c in 1..columns.len() {
            numbers[c - 1] = number(file, at(c), record.get(index[c]).unwrap_or(""))?;
        }
        row(line, id, &numbers)?;
    }
    Ok(())
}

/// Finds each required column in the header.
fn column_indices(
    header: &StringRecord,
    file: &str,
    columns: &[&'static str],
) -> Result<Vec<usize>, InputError> {
    let mut index = Vec::with_capacity(columns.len());
    for &column in columns {
        let mut found =
            header.iter().enumerate().filter(|(_, h)| h.eq_ignore_ascii_case(column)).map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(i), None) => index.push(i),
            (Some(_), Some(_)) => {
                return Err(InputError::DuplicateColumn { file: file.to_owned(), column: column.to_owned() })
            }
            (None, _) => {
                return Err(InputError::MissingColumn {
                    file: file.to_owned(),
                    column,
                    header: header.iter().collect::<Vec<_>>().join(","),
                })
            }
        }
    }
    Ok(index)
}

/// Parses one unsigned cell, telling negative numbers from non-numbers.
fn number(file: &str, at: Location, cell: &str) -> Result<u64, InputError> {
    if let Ok(n) = cell.parse::<u64>() {
        return Ok(n);
    }
    let value = format!("`{cell}`");
    let negative = cell.starts_with('-') && cell.parse::<f64>().is_ok_and(|x| x < 0.0);
    Err(if negative {
        InputError::Negative { file: file.to_owned(), at, value }
    } else {
        InputError::NotANumber { file: file.to_owned(), at, value }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solution_round_trips_with_quoted_ids() {
        let rows = vec![
            SolutionRow { id: "a,\"b\"".into(), lower: 1, upper: 2, size: 3, offset: 4096 },
            SolutionRow { id: "7".into(), lower: 0, upper: 9, size: 1, offset: 0 },
        ];
        let text = write_solution(&rows);
        assert_eq!(text, "id,lower,upper,size,offset\n\"a,\"\"b\"\"\",1,2,3,4096\n7,0,9,1,0\n");
        assert_eq!(parse_solution(&text, "s.csv", 10).unwrap(), rows);
    }

    #[test]
    fn header_only_is_an_empty_problem() {
        assert_eq!(parse_buffers("id,lower,upper,size\n", "p", 0).unwrap(), vec![]);
    }

    #[test]
    fn extra_columns_and_spaces_are_accepted() {
        let rows = parse_buffers("ID, note ,lower,upper,size\n x , hi ,1,2,3\n", "p", 1).unwrap();
        assert_eq!(rows, vec![Buffer { id: "x".into(), lower: 1, upper: 2, size: 3 }]);
    }
}
