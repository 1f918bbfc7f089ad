//! A reader that notes where lines start, so a CSV record's byte offset gives its line.
//! Uses: nothing else in the crate; used by: minimalloc_csv.
//!
//! The `csv` crate's `Position::line` counts `\n` only, late: a CRLF record is named one line
//! early and a CR-only file is all line 1. The byte offset it reports is exact (for CRLF it is
//! the `\n`), so the line is counted here from the bytes, whatever ends the lines.

use std::collections::VecDeque;
use std::io::{self, Read};

/// Wraps a reader; `line_at` maps a byte offset to its 1-based line, each of
/// `\n`, `\r\n` and a lone `\r` ending one line, and [`LineCounted::record_line`] gives the
/// line a record starting there is on (the `csv` reader skips empty lines before a record,
/// and its offset is where the skipped lines begin). Memory: the lines read ahead of the last
/// query (the `csv` reader's buffer), not the whole file.
pub(crate) struct LineCounted<R> {
    inner: R,
    /// The lines not yet passed by a query, from the line holding the last offset asked for
    /// on: (offset of its first byte, whether it is empty so far: no byte but line ends).
    lines: VecDeque<(u64, bool)>,
    /// Lines passed by queries.
    passed: u64,
    /// Bytes read so far.
    read: u64,
    /// The last byte read was `\r`.
    cr: bool,
    /// One past the offset of the last line-end byte read (0: none yet).
    after_end: u64,
}

impl<R> LineCounted<R> {
    /// Counts the lines of `inner`.
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, lines: VecDeque::from([(0, true)]), passed: 0, read: 0, cr: false, after_end: 0 }
    }

    /// The wrapped reader.
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Drops the lines before the one holding byte `offset`.
    fn pass(&mut self, offset: u64) {
        while self.lines.len() > 1 && self.lines[1].0 <= offset {
            self.lines.pop_front();
            self.passed += 1;
        }
    }

    /// The 1-based line holding byte `offset`. Queries must come in non-decreasing order of
    /// offset (as records are read). Amortised O(1). (The reader asks
    /// [`LineCounted::record_line`]; the tests check the line ends with this.)
    #[cfg(test)]
    pub(crate) fn line_at(&mut self, offset: u64) -> u64 {
        self.pass(offset);
        self.passed + 1
    }

    /// The 1-based line of a record the `csv` reader says starts at byte `offset`: the first
    /// line that is not empty from the one holding `offset` on. Same order rule as
    /// [`LineCounted::line_at`].
    pub(crate) fn record_line(&mut self, offset: u64) -> u64 {
        self.pass(offset);
        let skipped = self.lines.iter().take_while(|&&(_, empty)| empty).count();
        // the record's own line has been read, so it is in the list; keep to it if not
        self.passed + 1 + skipped.min(self.lines.len() - 1) as u64
    }
}

impl<R: Read> Read for LineCounted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        // only the line ends are looked at (memchr's vector search), not every byte
        for i in memchr::memchr2_iter(b'\r', b'\n', chunk) {
            let at = self.read + i as u64;
            if at > self.after_end {
                // bytes between two line ends: the current line has content
                self.mark_content();
            }
            self.after_end = at + 1;
            // `\r\n` ends one line, at its `\r`: the `csv` reader starts the next record at
            // the `\n` (which it then skips)
            let after_cr = if i == 0 { self.cr } else { chunk[i - 1] == b'\r' };
            if chunk[i] == b'\r' || !after_cr {
                self.lines.push_back((at + 1, true));
            }
        }
        if self.read + n as u64 > self.after_end {
            self.mark_content();
        }
        if let Some(&last) = chunk.last() {
            self.cr = last == b'\r';
        }
        self.read += n as u64;
        Ok(n)
    }
}

impl<R> LineCounted<R> {
    /// The line read last has a byte that is not a line end.
    fn mark_content(&mut self) {
        if let Some(last) = self.lines.back_mut() {
            last.1 = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], offsets: &[u64]) -> Vec<u64> {
        // one byte per read: a `\r\n` split over two reads too
        let mut r = LineCounted::new(text);
        let mut sink = Vec::new();
        let mut byte = [0u8; 1];
        while r.read(&mut byte).unwrap() == 1 {
            sink.push(byte[0]);
        }
        offsets.iter().map(|&o| r.line_at(o)).collect()
    }

    #[test]
    fn lf_crlf_and_cr_each_end_one_line() {
        assert_eq!(lines(b"ab\ncd\nef\n", &[0, 3, 6]), [1, 2, 3]);
        assert_eq!(lines(b"ab\r\ncd\r\nef\r\n", &[0, 3, 4, 7, 8]), [1, 2, 2, 3, 3]);
        assert_eq!(lines(b"ab\rcd\ref\r", &[0, 3, 6]), [1, 2, 3]);
        assert_eq!(lines(b"a\r\n\r\nb\n", &[0, 5]), [1, 3]);
    }

    /// A record after empty lines: the `csv` reader reports the offset where the empty
    /// lines begin; its line is the first non-empty one from there, for every line end.
    #[test]
    fn a_record_after_empty_lines_is_on_its_own_line() {
        let record_lines = |text: &[u8], offsets: &[u64]| {
            let mut r = LineCounted::new(text);
            std::io::copy(&mut r, &mut std::io::sink()).unwrap();
            offsets.iter().map(|&o| r.record_line(o)).collect::<Vec<_>>()
        };
        // "h\n" "a\n" "\n" "\n" "b\n": b is on line 5, its record offset is 4
        assert_eq!(record_lines(b"h\na\n\n\nb\n", &[0, 2, 4]), [1, 2, 5]);
        // CRLF: "h\r\n" "a\r\n" "\r\n" "b\r\n": the csv offset of b is the `\n` at 5
        assert_eq!(record_lines(b"h\r\na\r\n\r\nb\r\n", &[0, 3, 5]), [1, 2, 4]);
        // CR: "h\r" "\r" "\r" "b\r"
        assert_eq!(record_lines(b"h\r\r\rb\r", &[0, 2]), [1, 4]);
        // empty lines first, and a last line with no end
        assert_eq!(record_lines(b"\n\nh\n\nb", &[0, 4]), [3, 5]);
        // a line of spaces is not empty (the csv reader reads it as a record)
        assert_eq!(record_lines(b"h\n \nb\n", &[0, 2, 4]), [1, 2, 3]);
    }

    /// Random texts of `a`, `\r` and `\n` read in random chunk sizes (so a `\r\n` often
    /// spans two reads): every offset's line is the one a byte-by-byte count gives.
    #[test]
    fn any_chunking_gives_the_bytewise_lines() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..300 {
            let len = 1 + next(200) as usize;
            let text: Vec<u8> = (0..len).map(|_| [b'a', b'\r', b'\n'][next(3) as usize]).collect();
            // reference: the line of each offset, each of \n, \r\n and a lone \r ending one
            let mut want = Vec::with_capacity(len);
            let mut line = 1u64;
            for (i, &b) in text.iter().enumerate() {
                want.push(line);
                if b == b'\r' || (b == b'\n' && (i == 0 || text[i - 1] != b'\r')) {
                    line += 1;
                }
            }
            let mut r = LineCounted::new(&text[..]);
            let mut buf = [0u8; 64];
            loop {
                let k = 1 + next(64) as usize;
                if r.read(&mut buf[..k]).unwrap() == 0 {
                    break;
                }
            }
            let got: Vec<u64> = (0..len as u64).map(|o| r.line_at(o)).collect();
            assert_eq!(got, want, "case {case}: {:?}", String::from_utf8_lossy(&text));
        }
    }
}
