//! The plain reader's one-pass row: a problem line `id,lower,upper,size` in the canonical
//! column order, its three numbers parsed as its bytes are read.
//! Uses: minimalloc_csv (header, kind, SAMPLE_ROWS), problem, input (align_up, PAGE); used by:
//! plain_csv.
//!
//! Most problem files are written by tools in the columns MiniMalloc's own files use, with
//! printable ids and plain decimal numbers. For such a line the general rules
//! ([`super::row_rules::RowRules::accept`]) split the cells, trim them, check each number's
//! digits and then fold them, and build the error closures of every check. This path reads
//! the line once, and takes the row only where the general rules would take it with the same
//! result:
//! - the id is 1 or more bytes, each ASCII above the space (no whitespace or control byte
//!   but DEL, so there is nothing to trim, and it is UTF-8);
//! - each number is 1 to 19 ASCII digits, which cannot overflow `u64`, followed by exactly a
//!   comma, or the line's end for the last one;
//! - the size is not 0 and rounds up to a page within `u64`, and `upper > lower`;
//! - the row is neither past the row limit nor the one at which the rules reserve storage
//!   ([`SAMPLE_ROWS`]).
//!
//! Any other line goes to the general rules, which take it the same way or name its error:
//! this path never rejects a line. The row it appends is the general rules' row: the same
//! id, numbers, line, no fixed offset and no own alignment (tested line by line against
//! them).

use super::minimalloc_csv::{Header, Kind, SAMPLE_ROWS};
use super::problem::{Problem, Row};
use super::{align_up, PAGE};

/// Whether rows under `header` of `kind` can take the one-pass path: a problem's columns
/// exactly `id,lower,upper,size`, in that order, the upper bound exclusive.
pub(super) fn applies(header: &Header, kind: Kind) -> bool {
    kind == Kind::Problem
        && header.width() == 4
        && !header.inclusive_end
        && (0..4).all(|slot| header.slot_index(slot) == Some(slot))
        && (4..7).all(|slot| header.slot_index(slot).is_none())
}

/// Appends the row of `line` (file line `line_no`, no line end) to `problem` when it is one
/// the module docs describe, with `problem` holding fewer than `max_rows` rows; returns
/// whether it did. `false` leaves `problem` as it was: the caller then hands the line to the
/// general rules.
pub(super) fn take(problem: &mut Problem, line: &[u8], line_no: u64, max_rows: usize) -> bool {
    let n = problem.len();
    if n >= max_rows || n == SAMPLE_ROWS {
        return false;
    }
    let Some((id, [lower, upper, size])) = cells(line) else { return false };
    if size == 0 || upper <= lower || align_up(size, PAGE).is_none() {
        return false;
    }
    let Ok(id) = std::str::from_utf8(id) else { return false };
    // (`push` appends a free buffer with no own alignment, as the general rules' row is)
    let k = problem.push(id, Row { lower, upper, size });
    problem.set_line(k, line_no);
    true
}

/// The id and the three numbers of a canonical line, or `None` where the line is not one
/// (module docs).
fn cells(line: &[u8]) -> Option<(&[u8], [u64; 3])> {
    // the id: ASCII bytes above the space up to the first comma (a short loop beats a vector
    // search)
    let mut comma = 0usize;
    loop {
        match line.get(comma) {
            Some(b',') => break,
            Some(&b) if b > b' ' && b.is_ascii() => comma += 1,
            _ => return None,
        }
    }
    if comma == 0 {
        return None;
    }
    let mut rest = &line[comma + 1..];
    let mut numbers = [0u64; 3];
    for (k, number) in numbers.iter_mut().enumerate() {
        let (mut value, mut digits) = (0u64, 0usize);
        while let Some(&b) = rest.get(digits) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            value = value.wrapping_mul(10).wrapping_add(u64::from(d));
            digits += 1;
        }
        if digits == 0 || digits > 19 {
            return None;
        }
        *number = value;
        rest = &rest[digits..];
        match (k, rest) {
            (2, []) => {}
            (0 | 1, [b',', after @ ..]) => rest = after,
            _ => return None,
        }
    }
    Some((&line[..comma], numbers))
}

#[cfg(test)]
mod tests {
    use super::super::row_rules::RowRules;
    use super::*;

    fn header(names: &[&str]) -> Header {
        Header::parse(&csv::ByteRecord::from(names.to_vec()), "p.csv", Kind::Problem, 1).unwrap()
    }

    #[test]
    fn only_a_problems_own_four_columns_in_order_apply() {
        assert!(applies(&header(&["id", "lower", "upper", "size"]), Kind::Problem));
        assert!(applies(&header(&["buffer", "start", "upper", "size"]), Kind::Problem));
        assert!(!applies(&header(&["id", "lower", "upper", "size"]), Kind::Solution));
        assert!(!applies(&header(&["id", "lower", "end", "size"]), Kind::Problem));
        assert!(!applies(&header(&["lower", "id", "upper", "size"]), Kind::Problem));
        assert!(!applies(&header(&["id", "lower", "upper", "size", "offset"]), Kind::Problem));
        assert!(!applies(&header(&["id", "lower", "upper", "size", "alignment"]), Kind::Problem));
    }

    /// Line by line, the problem the one-pass path builds (the general rules after it where it
    /// declines, as the plain reader does) is the general rules' own, and it declines exactly
    /// the lines it must.
    #[test]
    fn take_appends_what_the_general_rules_append() {
        let h = header(&["id", "lower", "upper", "size"]);
        let lines: [&[u8]; 14] = [
            b"a,0,4,5",
            b"b_1.x/y:z,007,0018,4096",
            b"c,1,2,9999999999999999999",
            b"d, 1,3,4",                      // trimmed by the general rules
            b" e ,1,3,4",                     // the id trimmed too
            b"f g,1,3,4",                     // an inner space is kept
            b"h,1,3,00000000000000000000004", // leading zeros past 19 digits
            b"i,0,4,0",                       // errors: size 0
            b"j,4,4,5",                       // an empty lifetime
            b"k,0,4,-5",                      // a negative size
            b"l,0,4,18446744073709551615",    // rounds past u64 to a page
            "m\u{e9},0,4,5".as_bytes(),       // a UTF-8 id
            b"n,0,4294967296,5",
            b"o,3,9,1",
        ];
        let taken_lines = [0, 1, 2, 12, 13];
        let mut rules = RowRules::new(None, "p.csv", usize::MAX, Kind::Problem);
        let (mut fast, mut general) = (Problem::default(), Problem::default());
        for (i, line) in lines.iter().enumerate() {
            let line_no = i as u64 + 2;
            let cells: Vec<&[u8]> = line.split(|&b| b == b',').collect();
            let cell = |slot: usize| cells.get(slot).copied().unwrap_or(&b""[..]);
            let want = rules.accept(&h, &mut general, cell, None, line_no, 0);
            let taken = take(&mut fast, line, line_no, usize::MAX);
            assert_eq!(taken, taken_lines.contains(&i), "line {i}");
            if !taken {
                let got = rules.accept(&h, &mut fast, cell, None, line_no, 0);
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "line {i}");
            } else {
                assert!(want.is_ok(), "line {i}: taken, but the general rules say {want:?}");
            }
            assert_eq!(fast, general, "line {i}");
        }
        assert_eq!(fast.len(), 10);
    }

    /// At the row limit and at the row where the rules reserve storage it declines, and
    /// takes the rows around them.
    #[test]
    fn the_row_limit_and_the_reserving_row_go_to_the_general_rules() {
        let mut p = Problem::default();
        assert!(take(&mut p, b"a,0,1,1", 2, 1));
        assert!(!take(&mut p, b"b,0,1,1", 3, 1));
        let mut p = Problem::default();
        for k in 0..SAMPLE_ROWS {
            assert!(take(&mut p, format!("r{k},0,1,1").as_bytes(), k as u64 + 2, usize::MAX));
        }
        assert!(!take(&mut p, b"next,0,1,1", 9, usize::MAX));
        assert_eq!(p.len(), SAMPLE_ROWS);
    }

    #[test]
    fn the_cells_of_a_canonical_line() {
        assert_eq!(cells(b"b7,0,3,4096"), Some((&b"b7"[..], [0, 3, 4096])));
        assert_eq!(
            cells(b"x,007,18,9999999999999999999"),
            Some((&b"x"[..], [7, 18, 9_999_999_999_999_999_999]))
        );
        // not canonical: the general rules decide
        for line in [
            &b""[..],
            b"b7",
            b",0,3,4",
            b"b 7,0,3,4",
            b" b7,0,3,4",
            b"b7,0,3",
            b"b7,0,3,4,",
            b"b7,0,3,4,5",
            b"b7, 0,3,4",
            b"b7,0 ,3,4",
            b"b7,0,3,4 ",
            b"b7,,3,4",
            b"b7,+0,3,4",
            b"b7,-1,3,4",
            b"b7,0,3,4\r",
            b"b7,0,3,10000000000000000000",
            b"b7,0,3,18446744073709551615",
            "b\u{e9},0,3,4".as_bytes(),
        ] {
            assert_eq!(cells(line), None, "{:?}", String::from_utf8_lossy(line));
        }
    }
}
