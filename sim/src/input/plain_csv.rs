//! The quote-free fast path of the minimalloc CSV reader: plain lines split at commas.
//! Uses: minimalloc_csv (header), row_rules, problem; used by: minimalloc_csv.
//!
//! Most problem files are plain: no quotes, one record per line, `\n` or `\r\n` line ends.
//! For those the `csv` crate's state machine (about 480 instructions a row on 10^6 generated
//! rows, most of the reader's time) is more than the format needs: this path finds line ends
//! and commas with `memchr` and hands the cells to the same row rules
//! ([`super::row_rules::RowRules`]) as the `csv` path, so a row it accepts becomes the
//! same [`Problem`] entry, with the same line number.
//!
//! It gives up, returning `None`, on anything else: a quote anywhere, an empty line, a lone
//! `\r` (a CR line end or a CR inside a cell), a row whose cell count differs from the
//! header's, and every error of the rules (a bad value, too many rows, a repeated id). The
//! caller then reads the whole file again through the `csv` crate, which decides: the same
//! plan or the same error, naming the same line, as without this path. The file is read in
//! blocks of [`BLOCK`] bytes, so memory stays the [`Problem`] plus one block.

use std::io::{self, Read};

use csv::ByteRecord;

use super::minimalloc_csv::{Header, Kind};
use super::problem::{first_duplicate, Problem};
use super::row_rules::RowRules;

/// Bytes read at a time.
pub(super) const BLOCK: usize = 1 << 20;

/// The most cells a plain row can have: one per known column (`upper` and `end` share one).
const MAX_CELLS: usize = 7;

/// Reads `f` (named `file` in the rules' errors) as plain CSV: `Ok(None)` when it is not plain
/// or breaks a rule (the caller reads it again through the `csv` crate), `Err` only for an
/// I/O error. `bytes` is the input's length when known.
///
/// # Errors
/// An I/O error of reading `f`.
pub(super) fn read_plain<R: Read>(
    mut f: R,
    bytes: Option<u64>,
    file: &str,
    max_rows: usize,
    kind: Kind,
) -> io::Result<Option<Problem>> {
    let mut buf: Vec<u8> = Vec::with_capacity(2 * BLOCK);
    let mut plain = Plain {
        header: None,
        rules: RowRules::new(bytes, file, max_rows, kind),
        line: 0,
        problem: Problem::default(),
    };
    let mut at = 0u64; // byte offset of `buf[0]` in the file
    loop {
        let had = buf.len();
        let got = (&mut f).take(BLOCK as u64).read_to_end(&mut buf)?;
        let end = if got == 0 {
            buf.len() // the last line may have no line end
        } else {
            match memchr::memrchr(b'\n', &buf[had..]) {
                Some(i) => had + i + 1,
                None => continue, // no complete line yet
            }
        };
        let lines = &buf[..end];
        if memchr::memchr(b'"', lines).is_some() {
            return Ok(None);
        }
        let mut from = 0usize;
        let last = (end > 0 && lines[end - 1] != b'\n').then_some(end);
        for nl in memchr::memchr_iter(b'\n', lines).chain(last) {
            let mut line = &lines[from..nl];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            if line.is_empty() || !plain.take(line, at + from as u64) {
                return Ok(None);
            }
            from = nl + 1;
        }
        buf.drain(..end);
        at += end as u64;
        if got == 0 {
            break;
        }
    }
    let Plain { header: Some(header), rules, mut problem, .. } = plain else { return Ok(None) };
    if kind == Kind::Problem && first_duplicate(&problem).is_some() {
        return Ok(None);
    }
    rules.finish(&header, &mut problem);
    Ok(Some(problem))
}

/// What the plain reader has read so far.
struct Plain<'f> {
    /// The header, once its line is read.
    header: Option<Header>,
    rules: RowRules<'f>,
    /// Lines read (the header is line 1).
    line: u64,
    problem: Problem,
}

impl Plain<'_> {
    /// Takes one line starting at byte `offset` (no line end, not empty, no quote); `false`
    /// when the plain path gives up (a CR in the line included).
    fn take(&mut self, line: &[u8], offset: u64) -> bool {
        self.line += 1;
        let mut cells = [&b""[..]; MAX_CELLS];
        let mut count = 0usize;
        let mut from = 0usize;
        // rows are short: one pass over the bytes beats a vector search per comma
        for (i, &b) in line.iter().enumerate() {
            if b == b',' {
                if count == MAX_CELLS - 1 {
                    return false;
                }
                cells[count] = &line[from..i];
                count += 1;
                from = i + 1;
            } else if b == b'\r' {
                return false;
            }
        }
        cells[count] = &line[from..];
        count += 1;
        let Some(header) = &self.header else {
            let record = ByteRecord::from(cells[..count].to_vec());
            self.header = self.rules.header(&record).ok();
            return self.header.is_some();
        };
        if count != header.width() {
            return false;
        }
        let cell = |slot: usize| header.slot_index(slot).map_or(&b""[..], |i| cells[i]);
        // no quote in a plain file, so no id is quoted
        self.rules.accept(header, &mut self.problem, cell, None, self.line, offset).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::minimalloc_csv::{read_buffers, read_csv, read_solution};

    /// The `csv` crate's reading of `text`, without the fast path.
    fn parse_buffers(text: &str, source: &str, max_rows: usize) -> Result<Problem, crate::input::InputError> {
        read_csv(text.as_bytes(), source, max_rows, Kind::Problem)
    }

    fn parse_solution(
        text: &str,
        source: &str,
        max_rows: usize,
    ) -> Result<Problem, crate::input::InputError> {
        read_csv(text.as_bytes(), source, max_rows, Kind::Solution)
    }

    /// `text` in a fresh temporary file; the file is removed when the guard drops.
    struct Temp(std::path::PathBuf);

    impl Temp {
        fn new(text: &str, tag: usize) -> Temp {
            let path = std::env::temp_dir().join(format!("dramalloc_plain_{}_{tag}.csv", std::process::id()));
            std::fs::write(&path, text).unwrap();
            Temp(path)
        }

        fn plain(&self, kind: Kind, max_rows: usize) -> Option<Problem> {
            let f = std::fs::File::open(&self.0).unwrap();
            let bytes = Some(f.metadata().unwrap().len());
            read_plain(f, bytes, "p.csv", max_rows, kind).unwrap()
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Plain files: the fast path reads the same problem as the `csv` crate, lines included
    /// (`Problem`'s equality compares ids, rows, offsets, alignments, lines and `align`).
    #[test]
    fn plain_files_read_as_the_csv_path_reads_them() {
        let problems = [
            "id,lower,upper,size\na,0,4,5\nb,1,3,4096\n",
            "id,lower,upper,size\r\na,0,4,5\r\nb,1,3,4096\r\n",
            "id,lower,upper,size\na,0,4,5\nb,1,3,4096",
            "\u{feff}size, id ,upper,lower\n 5 , a ,4,0\n7,b,9,2\n",
            "Buffer,start,end,size,offset,alignment\nx,1,2,3,,\ny,0,9,8,4096,64\nz,0,1,1,,8\n",
            "id,lower,upper,size\n",
            "id,lower,upper,size",
        ];
        for (i, text) in problems.iter().enumerate() {
            let t = Temp::new(text, i);
            let want = parse_buffers(text, "p.csv", 10).unwrap();
            assert_eq!(t.plain(Kind::Problem, 10), Some(want.clone()), "{text:?}");
            assert_eq!(read_buffers(&t.0, 10).unwrap(), want, "{text:?}");
        }
        let solution = "id,lower,upper,size,offset,align\na,0,4,5,0,4096\nb,1,3,8,4096,4096\n";
        let t = Temp::new(solution, 100);
        let want = parse_solution(solution, "p.csv", 10).unwrap();
        assert_eq!(want.declared_align(), Some(4096));
        assert_eq!(t.plain(Kind::Solution, 10), Some(want.clone()));
        assert_eq!(read_solution(&t.0, 10).unwrap(), want);
    }

    /// Everything else makes the fast path give up, and the file is then read by the `csv`
    /// crate: the same problem (quotes, empty lines, CR line ends) or the same error, naming
    /// the same line.
    #[test]
    fn anything_else_is_left_to_the_csv_path() {
        let cases = [
            "id,lower,upper,size\n\"a,b\",0,4,5\n",
            "id,lower,upper,size\na,0,4,5\n\nb,1,3,4\n",
            "id,lower,upper,size\ra,0,4,5\rb,1,3,4\r",
            "id,lower,upper,size\na,0\r,4,5\n",
            "\nid,lower,upper,size\na,0,4,5\n",
            "id,lower,upper,size\na,0,4\n",
            "id,lower,upper,size\na,0,4,5,6\n",
            "id,lower,upper,size,offset,alignment,align\na,0,4,5,,,1,9\n",
            "id,lower,upper,size\na,0,4,-5\n",
            "id,lower,upper,size\na,0,4,5\nb,0,4,5\na,1,2,3\n",
            "id,lower,upper,size\na,0,4,5\nb,0,4,5\nc,0,4,5\n",
            "id,lower,upper,size,gaps\na,0,4,5,\n",
            "id,lower,upper,size\na,4,4,5\n",
            "",
        ];
        for (i, text) in cases.iter().enumerate() {
            let t = Temp::new(text, 200 + i);
            assert_eq!(t.plain(Kind::Problem, 2), None, "{text:?}");
            let want = parse_buffers(text, &t.0.display().to_string(), 2);
            let got = read_buffers(&t.0, 2);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{text:?}");
        }
        // a solution row without its offset
        let t = Temp::new("id,lower,upper,size,offset\na,0,4,5,\n", 300);
        assert_eq!(t.plain(Kind::Solution, 2), None);
        assert!(read_solution(&t.0, 2).is_err());
    }

    /// A FIFO (what `dramalloc plan <(...)` reads) cannot be read twice: a quoted file given
    /// through one goes to the `csv` crate at once and is read whole, not given up on by the
    /// fast path and then found empty.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_read_once_by_the_csv_path() {
        let text = "id,lower,upper,size\n\"a,b\",0,4,5\nc,1,3,8\n";
        let path = std::env::temp_dir().join(format!("dramalloc_plain_fifo_{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo must run");
        assert!(made.success(), "mkfifo {}", path.display());
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || std::fs::write(path, text).unwrap())
        };
        // a reader that opened the FIFO again would wait for a writer for ever: fail instead
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let path = path.clone();
            std::thread::spawn(move || {
                let _ = tx.send(read_buffers(&path, 10));
            });
        }
        let got = rx.recv_timeout(std::time::Duration::from_secs(20));
        let _ = std::fs::remove_file(&path);
        let got = got.expect("the FIFO was opened a second time (no writer left)").unwrap();
        writer.join().unwrap();
        assert_eq!((got.len(), got.id(0), got.id(1)), (2, "a,b", "c"));
    }

    /// A file longer than one block: lines cut by the block boundary are read whole, and the
    /// line numbers run on across blocks.
    #[test]
    fn lines_across_blocks_are_read_whole() {
        let mut text = String::from("id,lower,upper,size\n");
        let mut k = 0u64;
        while text.len() < 2 * BLOCK + 1000 {
            text.push_str(&format!("buffer_{k},{},{},{}\n", k % 97, k % 97 + 1 + k % 13, 1 + k % 4099));
            k += 1;
        }
        text.push_str("last,0,1,1"); // no line end
        let t = Temp::new(&text, 400);
        let want = parse_buffers(&text, "p.csv", usize::MAX).unwrap();
        let got = t.plain(Kind::Problem, usize::MAX).unwrap();
        assert_eq!(got.len(), k as usize + 1);
        assert_eq!((got.line(k as usize), got.id(k as usize)), (Some(k + 2), "last"));
        assert_eq!(got, want);
    }
}
