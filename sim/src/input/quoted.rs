//! Quoted CSV names: a quoted name is read verbatim, and a name that would not read back as
//! itself unquoted is written quoted.
//! Uses: nothing else in the crate; used by: minimalloc_csv, row_rules, report (plan.csv, solution CSV), verify (run_plan).
//!
//! The CSV readers trim the cells they read (hand-written files put spaces after commas), but
//! a quoted field is the text between its quotes, untrimmed (RFC 4180): `"t "` is the name
//! `t ` where ` t ,` is `t` (and `"t" ,` is `t`: what follows the closing quote is trimmed).
//! The `csv` crate does not say which fields were quoted (and its own trimming trims quoted
//! fields too), so its readers here read through [`RawKept`], which keeps the raw bytes of the
//! records being read, and ask it ([`RawKept::quoted_tail`]) only for a name cell with
//! whitespace at an edge: a field is quoted when its first byte is `"`, as the `csv` crate
//! decides; [`name_of`] then cuts the name from the cell. The writers put every name
//! through [`push_name`], which quotes one with a comma, a quote, a line break or whitespace
//! at either end, so every name the tool writes reads back as itself.

use std::io::{self, Read};

/// Released bytes are dropped from [`RawKept`]'s buffer once there are at least this many
/// and at least as many as are still kept (each byte is moved at most once on average).
const DROP_AT: usize = 1 << 16;

/// Wraps a reader and keeps the bytes read through it from the start of the record being
/// read on, so the record's raw text can be looked at after the `csv` crate decoded it.
/// Memory: the `csv` reader's read-ahead (its buffer) plus the current record, about twice.
pub(crate) struct RawKept<R> {
    inner: R,
    /// The bytes read from stream offset `base` on.
    kept: Vec<u8>,
    /// The stream offset of `kept[0]`.
    base: u64,
}

impl<R> RawKept<R> {
    /// Keeps the bytes read from `inner`.
    pub(crate) fn new(inner: R) -> Self {
        RawKept { inner, kept: Vec::new(), base: 0 }
    }

    /// Forgets the bytes before stream offset `offset` (the start of the record just read:
    /// the records before it are not asked about again). Amortised O(1) per byte.
    pub(crate) fn release(&mut self, offset: u64) {
        let n = usize::try_from(offset.saturating_sub(self.base)).unwrap_or(usize::MAX).min(self.kept.len());
        if n >= DROP_AT && 2 * n >= self.kept.len() {
            self.kept.drain(..n);
            self.base += n as u64;
        }
    }

    /// Whether field `field` (0-based) of the record the `csv` crate read from stream offset
    /// `start` (its `Position::byte`) opens with a quote: `Some` of the number of bytes after
    /// its closing quote (which the `csv` crate appends to the field as they are), `None`
    /// when it is unquoted, not in the bytes read, or `start` was released.
    pub(crate) fn quoted_tail(&self, start: u64, field: usize) -> Option<usize> {
        let from = start.checked_sub(self.base).and_then(|f| usize::try_from(f).ok());
        debug_assert!(from.is_some(), "record at {start} asked after its bytes were released");
        quoted_tail(self.kept.get(from?..)?, field)
    }
}

impl<R: Read> Read for RawKept<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.kept.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Whether field `field` of the record at the start of `raw` opens with a quote (`Some` of
/// the bytes after its closing quote, as [`RawKept::quoted_tail`]), the record split as the
/// `csv` crate (default settings) splits it: line ends before the record are skipped; a field
/// opening with `"` is quoted up to the next `"` that is not doubled (and goes on unquoted
/// after it); outside quotes `,` ends a field and `\r` or `\n` the record.
fn quoted_tail(raw: &[u8], field: usize) -> Option<usize> {
    let mut i = raw.iter().position(|&b| b != b'\r' && b != b'\n').unwrap_or(raw.len());
    for k in 0..=field {
        let opens = raw.get(i) == Some(&b'"');
        let (mut quoted, mut closed_at) = (opens, None);
        i += usize::from(opens);
        loop {
            let Some(&b) = raw.get(i) else {
                // the input ends the record
                return (k == field && opens).then(|| closed_at.map_or(0, |c| i - c));
            };
            i += 1;
            if quoted {
                if b == b'"' {
                    if raw.get(i) == Some(&b'"') {
                        i += 1;
                    } else {
                        (quoted, closed_at) = (false, Some(i));
                    }
                }
            } else if b == b',' || b == b'\r' || b == b'\n' {
                if k == field {
                    return opens.then(|| closed_at.map_or(0, |c| i - 1 - c));
                }
                if b != b',' {
                    return None; // the record ends before the field
                }
                break;
            }
        }
    }
    None
}

/// The name a cell holds: unquoted (`quoted` `None`), the cell trimmed of ASCII whitespace;
/// quoted, with `tail` bytes after its closing quote (`Some(tail)`, see
/// [`RawKept::quoted_tail`]), the text between the quotes verbatim and the tail trimmed at
/// its end.
pub(crate) fn name_of(cell: &[u8], quoted: Option<usize>) -> &[u8] {
    let Some(tail) = quoted else { return cell.trim_ascii() };
    let (inside, after) = cell.split_at(cell.len() - tail.min(cell.len()));
    &cell[..inside.len() + after.trim_ascii_end().len()]
}

/// Whether a cell has ASCII whitespace at either end (what the minimalloc CSV reader trims
/// from an unquoted cell).
pub(crate) fn has_edge_space(cell: &[u8]) -> bool {
    cell.first().is_some_and(u8::is_ascii_whitespace) || cell.last().is_some_and(u8::is_ascii_whitespace)
}

/// Whether `name` must be quoted in a CSV to read back as itself: it holds a comma, a quote
/// or a line break, or has whitespace (Unicode's, which covers ASCII's) at either end.
pub(crate) fn needs_quotes(name: &str) -> bool {
    name.contains([',', '"', '\n', '\r'])
        || name.starts_with(char::is_whitespace)
        || name.ends_with(char::is_whitespace)
}

/// Appends `name` to `out` as one CSV field: quoted, with its quotes doubled, when
/// [`needs_quotes`] says so; as it is otherwise.
pub(crate) fn push_name(out: &mut Vec<u8>, name: &str) {
    if !needs_quotes(name) {
        out.extend_from_slice(name.as_bytes());
        return;
    }
    out.push(b'"');
    for &b in name.as_bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names with edges of whitespace, line breaks, commas and quotes are quoted; plain ones,
    /// and ones with inner spaces only, are not.
    #[test]
    fn names_are_quoted_when_unquoted_they_would_read_otherwise() {
        let written = |name: &str| {
            let mut out = Vec::new();
            push_name(&mut out, name);
            String::from_utf8(out).unwrap()
        };
        let cases = [
            ("t", "t"),
            ("a b", "a b"),
            ("t ", "\"t \""),
            (" u", "\" u\""),
            ("\tx", "\"\tx\""),
            ("n\n", "\"n\n\""),
            ("x\u{a0}", "\"x\u{a0}\""),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ];
        for (name, want) in cases {
            assert_eq!(written(name), want, "{name:?}");
        }
    }

    /// The field walk follows the `csv` crate: quotes open a field only at its start, `""`
    /// inside quotes is a quote, commas and line ends inside quotes are text, line ends
    /// before the record are skipped; what follows a closing quote is counted.
    #[test]
    fn the_quoted_fields_of_a_record_are_found_as_the_csv_crate_splits_it() {
        let quoted = |raw: &str| (0..5).map(|k| quoted_tail(raw.as_bytes(), k)).collect::<Vec<_>>();
        let (n, q) = (None, Some(0));
        assert_eq!(quoted("a,b,c\n"), [n, n, n, n, n]);
        assert_eq!(quoted("\"t \",1,\" u\"\n"), [q, n, q, n, n]);
        assert_eq!(quoted("\"t \",1,\" u\""), [q, n, q, n, n]);
        assert_eq!(quoted("\n\r\n\"a,\"\"b\"\"\",\"\n,\",x\r\n\"next\""), [q, q, n, n, n]);
        assert_eq!(quoted(" \"a\",\"b\"x\"c\",\"d\"  \r\n"), [n, Some(4), Some(2), n, n]);
        assert_eq!(quoted("\"unclosed,1"), [q, n, n, n, n]);
        // the name: the quoted text whole, what follows the closing quote trimmed at its end
        assert_eq!(name_of(b" t ", None), b"t");
        assert_eq!(name_of(b" t ", Some(0)), b" t ");
        assert_eq!(name_of(b"t  ", Some(1)), b"t ");
        assert_eq!(name_of(b"t x ", Some(3)), b"t x");
    }

    /// Read through one `csv` reader, a record's quoted fields are found at its position,
    /// also after earlier bytes were released and when a record spans the reader's buffer.
    #[test]
    fn the_kept_bytes_answer_for_the_record_just_read() {
        let mut text = String::from("id,n\n");
        for k in 0..20_000 {
            text.push_str(&if k % 3 == 0 { format!("\"k{k} \",{k}\n") } else { format!(" k{k} ,{k}\n") });
        }
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .buffer_capacity(1 << 10)
            .from_reader(RawKept::new(text.as_bytes()));
        let mut record = csv::ByteRecord::new();
        let mut rows = 0;
        while r.read_byte_record(&mut record).unwrap() {
            let start = record.position().unwrap().byte();
            r.get_mut().release(start);
            if rows > 0 {
                let k = rows - 1;
                assert_eq!(r.get_ref().quoted_tail(start, 0), (k % 3 == 0).then_some(0), "row {k}");
                assert_eq!(r.get_ref().quoted_tail(start, 1), None, "row {k}");
            }
            rows += 1;
        }
        assert_eq!(rows, 20_001);
        assert!(r.get_ref().kept.len() < 4 * DROP_AT, "{} bytes kept", r.get_ref().kept.len());
    }
}
