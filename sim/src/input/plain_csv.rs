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
//! plan or the same error, naming the same line, as without this path.
//!
//! Under a problem's own four columns in order (`id,lower,upper,size`), a line of an id of
//! ASCII bytes above the space and plain decimal numbers is read in one pass
//! ([`super::canonical_row`]: 10^6 rows of `generate --shape short`, 1,448 → 877 million
//! instructions for the read stage, callgrind); every other line goes through the cells and
//! the rules as before.
//!
//! On a host of several cores the lines are split among up to [`MAX_PARTS`] threads,
//! [`PART`] bytes each at a time: each checks its lines by the same rules into a problem of
//! its own, and the parts are appended in file order (the same [`Problem`] as one thread
//! reads). The file is read in blocks of [`BLOCK`] bytes, so memory stays the [`Problem`]
//! plus one round of the parts (one block on one core).

use std::io::{self, Read};

use csv::ByteRecord;

use super::canonical_row;
use super::minimalloc_csv::{Header, Kind};
use super::problem::{first_duplicate, Problem};
use super::row_rules::RowRules;

/// Bytes read at a time.
pub(super) const BLOCK: usize = 1 << 20;

/// Bytes of lines one thread splits and checks at a time, where several parse together.
pub(super) const PART: usize = 4 << 20;

/// Bytes of input a part is given at least: a smaller file is read by fewer threads (a
/// thread starts in tens of microseconds; 256 KiB of rows take about 1 ms to check).
pub(super) const MIN_PIECE: usize = 256 << 10;

/// The most threads that parse one file together.
pub(super) const MAX_PARTS: usize = 8;

/// The most cells a plain row can have: one per known column (`upper` and `end` share one).
const MAX_CELLS: usize = 7;

/// Reads `f` (named `file` in the rules' errors) as plain CSV: `Ok(None)` when it is not plain
/// or breaks a rule (the caller reads it again through the `csv` crate), `Err` only for an
/// I/O error. `bytes` is the input's length when known. On a host of several cores the lines
/// are split and checked by up to [`MAX_PARTS`] threads (no more than
/// [`crate::io_threads::io_threads`]), [`PART`] bytes each at a time, one
/// per [`MIN_PIECE`] bytes of a file of known length.
///
/// # Errors
/// An I/O error of reading `f`.
pub(super) fn read_plain<R: Read>(
    f: R,
    bytes: Option<u64>,
    file: &str,
    max_rows: usize,
    kind: Kind,
) -> io::Result<Option<Problem>> {
    let cores = crate::io_threads::io_threads();
    let by_size = bytes.map_or(usize::MAX, |b| usize::try_from(b / MIN_PIECE as u64).unwrap_or(usize::MAX));
    let parts = cores.min(MAX_PARTS).min(by_size).max(1);
    read_plain_parts(f, bytes, file, max_rows, kind, parts, PART)
}

/// [`read_plain`] with the lines split among `parts` threads, `part` bytes each at a time
/// (one thread: [`BLOCK`] bytes at a time). The problem is that of one thread: each part's
/// rows, checked by the same rules with their lines numbered from the part's start, are
/// appended in file order with their lines moved on ([`Problem::append`]); a part that breaks
/// a rule, more rows than `max_rows` in all, or parts that declare different `align`s give
/// up (the `csv` crate then names the first such line).
fn read_plain_parts<R: Read>(
    mut f: R,
    bytes: Option<u64>,
    file: &str,
    max_rows: usize,
    kind: Kind,
    parts: usize,
    part: usize,
) -> io::Result<Option<Problem>> {
    let parts = parts.max(1);
    let round = if parts > 1 { parts.saturating_mul(part.max(1)) } else { BLOCK };
    let mut buf: Vec<u8> = Vec::with_capacity(round + BLOCK);
    let mut header: Option<Header> = None;
    let mut main = Part::new(bytes, file, max_rows, kind);
    let mut at = 0u64; // byte offset of `buf[0]` in the file
    loop {
        let had = buf.len();
        let got = (&mut f).take(BLOCK as u64).read_to_end(&mut buf)?;
        if got > 0 && buf.len() < round {
            continue; // (a round's worth first)
        }
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
        if header.is_none() && end > 0 {
            let nl = memchr::memchr(b'\n', lines).unwrap_or(end);
            header = take_header(&main.rules, &lines[..nl]);
            if header.is_none() {
                return Ok(None);
            }
            main.line = 1;
            from = (nl + 1).min(end);
        }
        if let Some(h) = &header {
            let body = &lines[from..];
            if !main.read_parts(h, body, at + from as u64, parts) {
                return Ok(None);
            }
        }
        buf.drain(..end);
        at += end as u64;
        if got == 0 {
            break;
        }
    }
    let (Some(header), Part { rules, mut problem, .. }) = (header, main) else { return Ok(None) };
    if kind == Kind::Problem && first_duplicate(&problem).is_some() {
        return Ok(None);
    }
    rules.finish(&header, &mut problem);
    Ok(Some(problem))
}

/// The header read from its `line` (no line end, no quote), or `None` (an empty line or a
/// CR in it, too many cells, or a header the rules refuse).
fn take_header(rules: &RowRules<'_>, line: &[u8]) -> Option<Header> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return None;
    }
    let (cells, count) = split_cells(line)?;
    rules.header(&ByteRecord::from(cells[..count].to_vec())).ok()
}

/// The cells of `line` (no line end, no quote) split at commas, and their count; `None`
/// for a CR in the line or more than [`MAX_CELLS`] cells.
fn split_cells(line: &[u8]) -> Option<([&[u8]; MAX_CELLS], usize)> {
    let mut cells = [&b""[..]; MAX_CELLS];
    let mut count = 0usize;
    let mut from = 0usize;
    // rows are short: one pass over the bytes beats a vector search per comma
    for (i, &b) in line.iter().enumerate() {
        if b == b',' {
            if count == MAX_CELLS - 1 {
                return None;
            }
            cells[count] = &line[from..i];
            count += 1;
            from = i + 1;
        } else if b == b'\r' {
            return None;
        }
    }
    cells[count] = &line[from..];
    Some((cells, count + 1))
}

/// The rows one thread has read: its rules, the lines it has read, and its problem.
struct Part<'f> {
    rules: RowRules<'f>,
    /// Lines read (the header is line 1 of the whole file; a later part counts from 0).
    line: u64,
    problem: Problem,
}

impl<'f> Part<'f> {
    /// An empty part of a text `bytes` long (when known, to reserve once).
    fn new(bytes: Option<u64>, file: &'f str, max_rows: usize, kind: Kind) -> Part<'f> {
        Part { rules: RowRules::new(bytes, file, max_rows, kind), line: 0, problem: Problem::default() }
    }

    /// Takes the data lines of `text` (whole lines, no quote; the last may lack its line
    /// end), starting at byte `at` of the file: split into up to `parts` pieces at line ends,
    /// the first read here, the others by threads of their own, then appended in order.
    /// `false` when the plain path gives up.
    fn read_parts(&mut self, header: &Header, text: &[u8], at: u64, parts: usize) -> bool {
        let mut cuts = [0usize; MAX_PARTS + 1];
        let pieces = parts.clamp(1, MAX_PARTS);
        for (i, c) in cuts.iter_mut().enumerate().take(pieces).skip(1) {
            let target = text.len() * i / pieces;
            *c = memchr::memchr(b'\n', &text[target..]).map_or(text.len(), |j| target + j + 1);
        }
        cuts[pieces] = text.len();
        for i in 1..=pieces {
            cuts[i] = cuts[i].max(cuts[i - 1]);
        }
        if pieces == 1 || cuts[1] == text.len() {
            return self.read_lines(header, text, at);
        }
        // the later pieces, each with rules of its own
        let later: Vec<(&[u8], RowRules<'_>)> = (1..pieces)
            .filter(|&i| cuts[i] < cuts[i + 1])
            .map(|i| (&text[cuts[i]..cuts[i + 1]], self.rules.for_part((cuts[i + 1] - cuts[i]) as u64)))
            .collect();
        let (first, later) = std::thread::scope(|s| {
            let handles: Vec<_> = later
                .into_iter()
                .map(|(piece, rules)| {
                    s.spawn(move || {
                        let mut p = Part { rules, line: 0, problem: Problem::default() };
                        p.read_lines(header, piece, 0).then_some(p)
                    })
                })
                .collect();
            let first = self.read_lines(header, &text[..cuts[1]], at);
            (first, handles.into_iter().map(|h| h.join().ok().flatten()).collect::<Vec<_>>())
        });
        if !first {
            return false;
        }
        for p in later {
            let Some(p) = p else { return false };
            if self.problem.len() + p.problem.len() > self.rules.max_rows()
                || !self.rules.adopt(&p.rules, self.line)
            {
                return false;
            }
            self.problem.append(&p.problem, self.line);
            self.line += p.line;
        }
        true
    }

    /// Takes every data line of `text` (whole lines; the last may lack its line end),
    /// starting at byte `at`; `false` when the plain path gives up.
    fn read_lines(&mut self, header: &Header, text: &[u8], at: u64) -> bool {
        let canonical = canonical_row::applies(header, self.rules.kind());
        let end = text.len();
        let last = (end > 0 && text[end - 1] != b'\n').then_some(end);
        let mut from = 0usize;
        for nl in memchr::memchr_iter(b'\n', text).chain(last) {
            let mut line = &text[from..nl];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            if line.is_empty() || !self.take(header, canonical, line, at + from as u64) {
                return false;
            }
            from = nl + 1;
        }
        true
    }

    /// Takes one data line starting at byte `offset` (no line end, not empty, no quote), in
    /// one pass where `canonical` (the header is [`canonical_row::applies`]) and the line is
    /// one; `false` when the plain path gives up (a CR in the line included).
    fn take(&mut self, header: &Header, canonical: bool, line: &[u8], offset: u64) -> bool {
        self.line += 1;
        // a canonical row in one pass ([`canonical_row`]); any other to the general rules
        if canonical && canonical_row::take(&mut self.problem, line, self.line, self.rules.max_rows()) {
            return true;
        }
        let Some((cells, count)) = split_cells(line) else { return false };
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

    /// Read by `parts` threads of `part` bytes: the same problem as one thread reads (lines,
    /// fixed offsets, alignments and the declared `align` included), or the same give-up, for
    /// every split of the lines among the parts.
    #[test]
    fn parts_read_what_one_thread_reads() {
        let mut long = String::from("id,lower,upper,size,offset,alignment\n");
        for k in 0..40u64 {
            let offset = if k % 7 == 3 { format!("{}", 4096 * k) } else { String::new() };
            let alignment = if k % 11 == 5 { "64" } else { "" };
            long.push_str(&format!("b{k},{},{},{},{offset},{alignment}\n", k % 5, k % 5 + 1 + k % 3, 1 + k));
        }
        let mut dup = long.clone();
        dup.push_str("b3,0,1,1,,\n"); // the id of line 5, 37 lines on
        let mut declared = String::from("id,lower,upper,size,offset,align\n");
        for k in 0..30u64 {
            declared.push_str(&format!("s{k},0,{},8,{},4096\n", 1 + k, 8 * k));
        }
        let mut changes = declared.clone();
        changes.push_str("last,0,1,8,0,64\n");
        let texts = [
            (long.as_str(), Kind::Problem),
            (&long.replace('\n', "\r\n"), Kind::Problem),
            (long.trim_end(), Kind::Problem),
            (&dup, Kind::Problem),
            (&format!("{long}\nz,0,1,1,,\n"), Kind::Problem),
            (&format!("{long}\"q\",0,1,1,,\n"), Kind::Problem),
            (&long.replace("b39,", "b39,x"), Kind::Problem),
            (declared.as_str(), Kind::Solution),
            (&changes, Kind::Solution),
            ("id,lower,upper,size\n", Kind::Problem),
            ("id,lower,upper,size", Kind::Problem),
            ("id,lower,upper,size\na,0,1,1", Kind::Problem),
        ];
        for (i, (text, kind)) in texts.iter().enumerate() {
            for max_rows in [usize::MAX, 35] {
                let one = read_plain_parts(text.as_bytes(), None, "p.csv", max_rows, *kind, 1, PART).unwrap();
                for (parts, part) in [(2, 1), (2, 64), (3, 40), (3, 200), (8, 17), (2, 1 << 20)] {
                    let got = read_plain_parts(text.as_bytes(), None, "p.csv", max_rows, *kind, parts, part)
                        .unwrap();
                    assert_eq!(got, one, "text {i}, max_rows {max_rows}, {parts} parts of {part} bytes");
                }
            }
        }
        // several rounds of whole blocks, each split among the parts
        let mut big = String::from("id,lower,upper,size\n");
        for k in 0..(5 * BLOCK / 24) as u64 {
            big.push_str(&format!("r{k},{},{},{}\n", k % 97, k % 97 + 1 + k % 13, 1 + k % 4099));
        }
        let want =
            read_plain_parts(big.as_bytes(), None, "p.csv", usize::MAX, Kind::Problem, 1, PART).unwrap();
        for (parts, part) in [(2, 4096), (3, BLOCK / 2 + 7)] {
            let got = read_plain_parts(big.as_bytes(), None, "p.csv", usize::MAX, Kind::Problem, parts, part)
                .unwrap();
            assert_eq!(got, want, "{parts} parts of {part} bytes");
        }
        // what the cases above read: a problem with lines, offsets and alignments; the give-ups
        let one =
            |t: &str, kind| read_plain_parts(t.as_bytes(), None, "p.csv", usize::MAX, kind, 1, PART).unwrap();
        let p = one(&long, Kind::Problem).unwrap();
        assert_eq!((p.len(), p.line(39), p.fixed(10), p.alignment(16)), (40, Some(41), Some(40_960), 64));
        assert_eq!(one(&declared, Kind::Solution).unwrap().declared_align(), Some(4096));
        assert!(one(&dup, Kind::Problem).is_none());
        assert!(one(&changes, Kind::Solution).is_none());
        assert!(read_plain_parts(long.as_bytes(), None, "p.csv", 35, Kind::Problem, 1, PART)
            .unwrap()
            .is_none());
    }
}
