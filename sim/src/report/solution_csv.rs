//! The solution CSV of `dramalloc plan`: `id,lower,upper,size[,alignment],offset,align`, one buffered write.
//! Uses: input (problem, quoted); used by: cli.
//!
//! The columns MiniMalloc writes (`alignment` only when some buffer has its own, as MiniMalloc
//! does), then `align`: the alignment the plan used, the same on every row. MiniMalloc's reader
//! ignores a column it does not know, and `dramalloc verify` checks offsets against it unless
//! `--align` says otherwise. Ids containing `,`, `"` or a line break, or with whitespace at
//! either end, are quoted (the reader trims unquoted cells), so every id reads back as itself. Numbers are
//! formatted with `itoa`, on a host of several cores by up to [`MAX_PARTS`] threads
//! [`PART_ROWS`] rows each at a time, and the texts written in row order (10^6 rows: about
//! 0.05 s on one thread).

use std::io::{self, Write};

use crate::input::quoted::push_name;
use crate::input::Problem;

/// Writes the solution placing buffer `k` of `problem` at `offsets[k]`, planned with
/// alignment `align` bytes, to `out` (`\n` line ends). `out` should be buffered.
///
/// # Errors
/// Any error of `out`.
///
/// # Panics
/// When `offsets` is shorter than the problem.
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem};
/// use dramalloc_sim::report::solution_csv::write_solution;
/// let p: Problem = vec![Buffer { id: "b1".into(), lower: 0, upper: 3, size: 4 }].into_iter().collect();
/// let mut out = Vec::new();
/// write_solution(&p, &[8], 4, &mut out)?;
/// assert_eq!(out, b"id,lower,upper,size,offset,align\nb1,0,3,4,8,4\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_solution(problem: &Problem, offsets: &[u64], align: u64, out: &mut dyn Write) -> io::Result<()> {
    let cores = crate::io_threads::io_threads();
    write_solution_parts(problem, offsets, align, out, cores.min(MAX_PARTS), PART_ROWS)
}

/// Rows one thread formats at a time, where several format a solution together.
pub const PART_ROWS: usize = 1 << 16;

/// The most threads that format one solution together.
pub const MAX_PARTS: usize = 8;

/// [`write_solution`] with the rows formatted by up to `parts` threads, `part_rows` each at
/// a time (round by round, each round's texts then written in row order): the same bytes as
/// one thread. 10^6 rows on the 2-core development machine: the formatting about 45 ms on
/// one thread.
fn write_solution_parts(
    problem: &Problem,
    offsets: &[u64],
    align: u64,
    out: &mut dyn Write,
    parts: usize,
    part_rows: usize,
) -> io::Result<()> {
    let offsets = &offsets[..problem.len()];
    let alignments = problem.has_alignments();
    out.write_all(if alignments {
        b"id,lower,upper,size,alignment,offset,align\n"
    } else {
        b"id,lower,upper,size,offset,align\n"
    })?;
    let mut tail = Vec::with_capacity(22);
    tail.push(b',');
    tail.extend_from_slice(itoa::Buffer::new().format(align).as_bytes());
    tail.push(b'\n');
    let (parts, part_rows) = (parts.clamp(1, MAX_PARTS), part_rows.max(1));
    let format = |rows: std::ops::Range<usize>| format_rows(problem, offsets, alignments, &tail, rows);
    let mut from = 0usize;
    while from < problem.len() {
        let to = from.saturating_add(parts.saturating_mul(part_rows)).min(problem.len());
        let cuts: Vec<usize> = (0..=parts).map(|i| from + (to - from) * i / parts).collect();
        if parts == 1 || to - from <= part_rows {
            out.write_all(&format(from..to))?;
        } else {
            let texts = std::thread::scope(|s| {
                let later: Vec<_> =
                    cuts.windows(2).skip(1).map(|w| s.spawn(move || format(w[0]..w[1]))).collect();
                let mut texts = vec![format(cuts[0]..cuts[1])];
                texts.extend(later.into_iter().map(|h| h.join().expect("formatting a row does not panic")));
                texts
            });
            for text in &texts {
                out.write_all(text)?;
            }
        }
        from = to;
    }
    out.flush()
}

/// The text of `rows` of the solution: id, lower, upper, size, the alignment (when
/// `alignments`), the offset, then `tail` (`,align\n`).
fn format_rows(
    problem: &Problem,
    offsets: &[u64],
    alignments: bool,
    tail: &[u8],
    rows: std::ops::Range<usize>,
) -> Vec<u8> {
    let mut text = Vec::with_capacity(rows.len() * 40);
    let mut num = itoa::Buffer::new();
    for k in rows {
        let row = problem.row(k);
        push_name(&mut text, problem.id(k));
        let mut field = |v: u64| {
            text.push(b',');
            text.extend_from_slice(num.format(v).as_bytes());
        };
        field(row.lower);
        field(row.upper);
        field(row.size);
        if alignments {
            field(problem.alignment(k));
        }
        field(offsets[k]);
        text.extend_from_slice(tail);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{parse_solution, SolutionRow};

    #[test]
    fn round_trips_with_quoted_ids_and_alignments() {
        let rows = vec![
            SolutionRow { id: "a,\"b\"".into(), lower: 1, upper: 2, size: 3, offset: 4096 },
            SolutionRow { id: "7".into(), lower: 0, upper: 9, size: 1, offset: 64 },
        ];
        let mut p: Problem = rows.iter().cloned().collect();
        p.set_alignment(1, 64);
        let mut out = Vec::new();
        write_solution(&p, &[4096, 64], 1, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "id,lower,upper,size,alignment,offset,align\n\"a,\"\"b\"\"\",1,2,3,1,4096,1\n7,0,9,1,64,64,1\n"
        );
        let back = parse_solution(&text, "s.csv", 10).unwrap();
        assert_eq!(back.to_solution_rows(), rows);
        assert_eq!((back.alignment(1), back.declared_align()), (64, Some(1)));
    }

    /// Ids with whitespace at an edge are quoted, so they read back as themselves, beside the
    /// same id without it; one with inner spaces only is not.
    #[test]
    fn ids_with_edge_whitespace_are_quoted_and_read_back_whole() {
        let ids = ["t ", " u", "t", "n\n", "a b", "\tw"];
        let rows: Vec<SolutionRow> = (0u64..6)
            .map(|k| SolutionRow {
                id: ids[k as usize].into(),
                lower: k,
                upper: k + 1,
                size: 8,
                offset: 64 * k,
            })
            .collect();
        let p: Problem = rows.iter().cloned().collect();
        let mut out = Vec::new();
        write_solution(&p, &[0, 64, 128, 192, 256, 320], 64, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "id,lower,upper,size,offset,align\n\"t \",0,1,8,0,64\n\" u\",1,2,8,64,64\nt,2,3,8,128,64\n\
             \"n\n\",3,4,8,192,64\na b,4,5,8,256,64\n\"\tw\",5,6,8,320,64\n"
        );
        assert_eq!(parse_solution(&text, "s.csv", 10).unwrap().to_solution_rows(), rows);
    }

    /// Formatted by several threads, a few rows each at a time: the same bytes as one
    /// thread, for every split of the rows (ids quoted or not, with and without alignments).
    #[test]
    fn parts_write_what_one_thread_writes() {
        for with_alignments in [false, true] {
            let rows: Vec<SolutionRow> = (0..50u64)
                .map(|k| SolutionRow {
                    id: if k % 7 == 0 { format!("a,{k}") } else { format!("b{k}") },
                    lower: k,
                    upper: k + 1 + k % 5,
                    size: 1 + 13 * k,
                    offset: 4096 * k,
                })
                .collect();
            let mut p: Problem = rows.into_iter().collect();
            if with_alignments {
                p.set_alignment(3, 64);
            }
            let offsets: Vec<u64> = (0..50u64).map(|k| 4096 * k).collect();
            let mut one = Vec::new();
            write_solution_parts(&p, &offsets, 4096, &mut one, 1, PART_ROWS).unwrap();
            assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), 51);
            for (parts, part_rows) in [(2, 1), (2, 7), (3, 5), (8, 2), (2, 25), (3, 100)] {
                let mut got = Vec::new();
                write_solution_parts(&p, &offsets, 4096, &mut got, parts, part_rows).unwrap();
                assert_eq!(got, one, "{parts} parts of {part_rows} rows, alignments {with_alignments}");
            }
            let back = parse_solution(std::str::from_utf8(&one).unwrap(), "s.csv", 100).unwrap();
            assert_eq!((back.len(), back.id(7), back.fixed(49)), (50, "a,7", Some(4096 * 49)));
        }
    }
}
