//! The rules of a minimalloc CSV data row: cells to numbers, the value checks, the row
//! appended to the problem.
//! Uses: error, minimalloc_csv (header, kind), problem, quoted; used by: minimalloc_csv, plain_csv.
//!
//! Both readers of the format (the `csv` crate's in [`super::minimalloc_csv`] and the
//! quote-free fast path in [`super::plain_csv`]) hand each row's cells here, so a row reads
//! the same, and fails with the same error, whichever reader split it.

use csv::ByteRecord;

use super::error::{shorten, InputError, Location};
use super::minimalloc_csv::{Header, Kind, SAMPLE_ROWS};
use super::problem::{Problem, Row};
use super::quoted::name_of;
use super::{align_up, PAGE};

/// The rules of the data rows, applied one row at a time (by the `csv` crate's reader,
/// [`super::minimalloc_csv`], and by the quote-free fast path, [`super::plain_csv`]).
pub(super) struct RowRules<'f> {
    /// The input's length, bytes, when known (to reserve once).
    bytes: Option<u64>,
    file: &'f str,
    max_rows: usize,
    kind: Kind,
    /// The `align` of the first row that has one, and its line.
    declared: Option<(u64, u64)>,
}

impl<'f> RowRules<'f> {
    /// The rules for `kind` rows of `file` (`bytes` long when known), at most `max_rows`.
    pub(super) fn new(bytes: Option<u64>, file: &'f str, max_rows: usize, kind: Kind) -> Self {
        RowRules { bytes, file, max_rows, kind, declared: None }
    }

    /// The most rows these rules accept.
    pub(super) fn max_rows(&self) -> usize {
        self.max_rows
    }

    /// What these rules read the rows as.
    pub(super) fn kind(&self) -> Kind {
        self.kind
    }

    /// Fresh rules for a later part of the same file, `bytes` long (its file, row limit and
    /// kind; nothing declared yet).
    pub(super) fn for_part(&self, bytes: u64) -> RowRules<'f> {
        RowRules::new(Some(bytes), self.file, self.max_rows, self.kind)
    }

    /// Takes on what the rules of a later part of the same file saw (its lines numbered from
    /// the part's start, `line_offset` lines into the file): its declared `align`, where these
    /// rules saw none. `false` when the two declare different ones (the file breaks the rule).
    pub(super) fn adopt(&mut self, later: &RowRules<'_>, line_offset: u64) -> bool {
        match (self.declared, later.declared) {
            (Some((mine, _)), Some((theirs, _))) => mine == theirs,
            (None, Some((align, line))) => {
                self.declared = Some((align, line + line_offset));
                true
            }
            (_, None) => true,
        }
    }

    /// Checks the row on file line `line`, starting at byte `offset`, whose cells (untrimmed)
    /// `cell` gives by the column slots of `header`, and appends it to `problem`. Every cell
    /// is trimmed of ASCII whitespace but a quoted id (`id_quoted`: `Some` of the bytes after
    /// its closing quote), which is the text between its quotes verbatim
    /// ([`super::quoted::name_of`]).
    ///
    /// # Errors
    /// The first rule the row breaks (see the module docs), naming the line and column.
    pub(super) fn accept<'r>(
        &mut self,
        header: &Header,
        problem: &mut Problem,
        cell: impl Fn(usize) -> &'r [u8],
        id_quoted: Option<usize>,
        line: u64,
        offset: u64,
    ) -> Result<(), InputError> {
        let (file, kind) = (self.file, self.kind);
        let at = |slot: usize| Location::Csv { line, column: header.column(slot) };
        if problem.len() == self.max_rows {
            return Err(InputError::TooMany {
                file: file.to_owned(),
                at: at(0),
                what: "rows",
                max: self.max_rows,
            });
        }
        let id_cell = name_of(cell(0), id_quoted);
        let cell = |slot: usize| cell(slot).trim_ascii();
        let id = std::str::from_utf8(id_cell)
            .map_err(|_| InputError::CellNotUtf8 { file: file.to_owned(), at: at(0) })?;
        if id.is_empty() {
            return Err(InputError::EmptyName { file: file.to_owned(), at: at(0) });
        }
        let lower = number(file, || at(1), cell(1))?;
        let mut upper = number(file, || at(2), cell(2))?;
        if header.inclusive_end {
            upper = upper.checked_add(1).ok_or_else(|| InputError::NotANumber {
                file: file.to_owned(),
                at: at(2),
                value: format!("`{upper}` (end + 1 overflows u64)"),
            })?;
        }
        let size = number(file, || at(3), cell(3))?;
        let offset_cell = match cell(4) {
            b"" if kind == Kind::Problem => None,
            c => Some(number(file, || at(4), c)?),
        };
        // u64::MAX marks a free buffer in `Problem`, and no buffer of a byte or more starts there
        if offset_cell
            .is_some_and(|o| o == u64::MAX || (kind == Kind::Problem && o.checked_add(size).is_none()))
        {
            return Err(InputError::AddressOverflow {
                file: file.to_owned(),
                at: at(4),
                noun: "buffer",
                name: shorten(id),
                bytes: size,
                what: format!("its offset {} plus its size", offset_cell.unwrap_or(u64::MAX)).into(),
            });
        }
        let alignment = match cell(5) {
            b"" => 1,
            c => match number(file, || at(5), c)? {
                0 => {
                    return Err(InputError::ZeroAlignment {
                        file: file.to_owned(),
                        at: at(5),
                        name: shorten(id),
                    })
                }
                a => a,
            },
        };
        if header.slot_index(6).is_some() {
            let align = number(file, || at(6), cell(6))?;
            if align == 0 {
                return Err(InputError::ZeroPlanAlign { file: file.to_owned(), at: at(6) });
            }
            match self.declared {
                None => self.declared = Some((align, line)),
                Some((first, first_line)) if first != align => {
                    return Err(InputError::AlignChanges {
                        file: file.to_owned(),
                        line,
                        align,
                        first,
                        first_line,
                    })
                }
                Some(_) => {}
            }
        }
        if kind == Kind::Problem {
            check_buffer(file, line, id, (lower, upper, header.inclusive_end), size, &at)?;
        }
        if let (SAMPLE_ROWS, Some(total)) = (problem.len(), self.bytes) {
            // rows so far took `offset` bytes: reserve for the rest, 10 % over
            let read = offset.max(1);
            let rows = (total.saturating_mul(SAMPLE_ROWS as u64 * 11 / 10) / read) as usize;
            let rows = rows.min(self.max_rows).saturating_sub(problem.len());
            problem.reserve(rows, rows * (problem.id_bytes() / SAMPLE_ROWS + 1));
        }
        let k = problem.push(id, Row { lower, upper, size });
        problem.set_line(k, line);
        problem.set_fixed(k, offset_cell);
        problem.set_alignment(k, alignment);
        Ok(())
    }

    /// The header of these rules' file and kind, read from its `record` (on line 1).
    ///
    /// # Errors
    /// As [`Header`]'s rules: an unknown, repeated or missing column.
    pub(super) fn header(&self, record: &ByteRecord) -> Result<Header, InputError> {
        // the plain path gives up on empty lines, so its header is line 1
        Header::parse(record, self.file, self.kind, 1)
    }

    /// Records what the rows declared (the `align` column) and how `header` spells an
    /// inclusive `end` column, once every row is in.
    pub(super) fn finish(self, header: &Header, problem: &mut Problem) {
        problem.set_declared_align(self.declared.map(|(a, _)| a));
        problem.set_inclusive_end(header.inclusive_end.then(|| header.column(2)));
    }
}

/// The value rules of a problem row.
fn check_buffer(
    file: &str,
    line: u64,
    id: &str,
    (lower, upper, inclusive_end): (u64, u64, bool),
    size: u64,
    at: &dyn Fn(usize) -> Location,
) -> Result<(), InputError> {
    if size == 0 {
        return Err(InputError::ZeroSize { file: file.to_owned(), at: at(3), name: shorten(id) });
    }
    if align_up(size, PAGE).is_none() {
        return Err(InputError::SizeOverflow { file: file.to_owned(), at: at(3), value: size });
    }
    if upper <= lower {
        return Err(InputError::EmptyLifetime {
            file: file.to_owned(),
            line,
            id: shorten(id),
            lower,
            upper,
            inclusive_end,
        });
    }
    Ok(())
}

/// Parses one unsigned decimal cell from bytes, telling negative numbers from non-numbers.
fn number(file: &str, at: impl FnOnce() -> Location, whole: &[u8]) -> Result<u64, InputError> {
    // up to 19 digits cannot overflow u64
    if !whole.is_empty() && whole.len() <= 19 && whole.iter().all(u8::is_ascii_digit) {
        return Ok(whole.iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0')));
    }
    // leading zeros (all but the last digit) do not count towards the 20 digits of u64
    let zeros = whole.iter().take_while(|&&b| b == b'0').count().min(whole.len().saturating_sub(1));
    let cell = &whole[zeros..];
    if !cell.is_empty() && cell.len() <= 20 {
        let mut n: u64 = 0;
        let mut ok = true;
        for &b in cell {
            let d = b.wrapping_sub(b'0');
            match (d < 10).then(|| n.checked_mul(10).and_then(|m| m.checked_add(u64::from(d)))).flatten() {
                Some(m) => n = m,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Ok(n);
        }
    }
    let text = String::from_utf8_lossy(whole);
    let value = format!("`{}`", shorten(&text));
    let negative = text.starts_with('-') && text.parse::<f64>().is_ok_and(|x| x < 0.0);
    // digits alone that passed u64: a number, too large
    let too_large = !whole.is_empty() && whole.iter().all(u8::is_ascii_digit);
    let at = at();
    Err(if negative {
        InputError::Negative { file: file.to_owned(), at, value }
    } else if too_large {
        InputError::OutOfRange { file: file.to_owned(), at, value }
    } else {
        InputError::NotANumber { file: file.to_owned(), at, value }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_from_bytes_up_to_u64_max() {
        let at = || Location::Csv { line: 2, column: "size".into() };
        assert_eq!(number("f", at, b"18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(number("f", at, b"007").unwrap(), 7);
        assert_eq!(
            number("f", at, b"18446744073709551616").unwrap_err().to_string(),
            "f: line 2, column `size`: `18446744073709551616` is out of range: past u64's largest value, \
             18446744073709551615"
        );
        assert!(matches!(number("f", at, b"000123456789012345678901"), Err(InputError::OutOfRange { .. })));
        assert!(matches!(number("f", at, b"0000000000000000000000042"), Ok(42)));
        assert!(matches!(number("f", at, b"1e30"), Err(InputError::NotANumber { .. })));
        assert!(matches!(number("f", at, b"-3"), Err(InputError::Negative { .. })));
        assert!(matches!(number("f", at, b"+3"), Err(InputError::NotANumber { .. })));
    }
}
