//! The solution CSV of `dramalloc plan`: `id,lower,upper,size[,alignment],offset,align`, one buffered write.
//! Uses: input (problem, quoted); used by: cli.
//!
//! The columns MiniMalloc writes (`alignment` only when some buffer has its own, as MiniMalloc
//! does), then `align`: the alignment the plan used, the same on every row. MiniMalloc's reader
//! ignores a column it does not know, and `dramalloc verify` checks offsets against it unless
//! `--align` says otherwise. Ids containing `,`, `"` or a line break, or with whitespace at
//! either end, are quoted (the reader trims unquoted cells), so every id reads back as itself. Numbers are
//! formatted with `itoa` into one buffered writer: 10^6 rows take about 0.05 s.

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
    let alignments = problem.has_alignments();
    out.write_all(if alignments {
        b"id,lower,upper,size,alignment,offset,align\n"
    } else {
        b"id,lower,upper,size,offset,align\n"
    })?;
    let mut num = itoa::Buffer::new();
    let mut align_text = Vec::with_capacity(22);
    align_text.push(b',');
    align_text.extend_from_slice(num.format(align).as_bytes());
    align_text.push(b'\n');
    let mut line = Vec::with_capacity(128);
    for (k, (id, row)) in problem.iter().enumerate() {
        line.clear();
        push_name(&mut line, id);
        let mut field = |v: u64| {
            line.push(b',');
            line.extend_from_slice(num.format(v).as_bytes());
        };
        field(row.lower);
        field(row.upper);
        field(row.size);
        if alignments {
            field(problem.alignment(k));
        }
        field(offsets[k]);
        line.extend_from_slice(&align_text);
        out.write_all(&line)?;
    }
    out.flush()
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
}
