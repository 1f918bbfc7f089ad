//! A reader that notes where lines start, so a CSV record's byte offset gives its line.
//! Uses: nothing else in the crate; used by: minimalloc_csv.
//!
//! The `csv` crate's `Position::line` counts `\n` only, late: a CRLF record is named one line
//! early and a CR-only file is all line 1. The byte offset it reports is exact (for CRLF it is
//! the `\n`), so the line is counted here from the bytes, whatever ends the lines.

use std::collections::VecDeque;
use std::io::{self, Read};

/// Wraps a reader; [`LineCounted::line_at`] maps a byte offset to its 1-based line, each of
/// `\n`, `\r\n` and a lone `\r` ending one line. Memory: the line starts read ahead of the
/// last query (the `csv` reader's buffer), not the whole file.
pub(crate) struct LineCounted<R> {
    inner: R,
    /// Offsets of line starts not yet passed by a query.
    starts: VecDeque<u64>,
    /// Line starts passed by queries.
    passed: u64,
    /// Bytes read so far.
    read: u64,
    /// The last byte read was `\r`.
    cr: bool,
}

impl<R> LineCounted<R> {
    /// Counts the lines of `inner`.
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, starts: VecDeque::new(), passed: 0, read: 0, cr: false }
    }

    /// The 1-based line holding byte `offset`. Queries must come in non-decreasing order of
    /// offset (as records are read). Amortised O(1).
    pub(crate) fn line_at(&mut self, offset: u64) -> u64 {
        while self.starts.front().is_some_and(|&s| s <= offset) {
            self.starts.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }
}

impl<R: Read> Read for LineCounted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        // only the line ends are looked at (memchr's vector search), not every byte
        for i in memchr::memchr2_iter(b'\r', b'\n', chunk) {
            // `\r\n` ends one line, at its `\r`: the `csv` reader starts the next record at
            // the `\n` (which it then skips)
            let after_cr = if i == 0 { self.cr } else { chunk[i - 1] == b'\r' };
            if chunk[i] == b'\r' || !after_cr {
                self.starts.push_back(self.read + i as u64 + 1);
            }
        }
        if let Some(&last) = chunk.last() {
            self.cr = last == b'\r';
        }
        self.read += n as u64;
        Ok(n)
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
