//! The independent verifier: accepts a correct solution with the exact peak and rejects each
//! kind of wrong one with the exact variant and values.

use std::path::Path;

use dramalloc_sim::input::{parse_buffers, parse_solution, read_buffers, Buffer, Problem, SolutionRow};
use dramalloc_sim::verify::{Placed, VerifyError, VerifyReport};

const ALIGN: u64 = 4096;

/// minimalloc's `examples/input.12.csv`, scaled to 4 KiB units.
const PROBLEM: &str = "id,lower,upper,size
b1,0,3,4096
b2,3,9,4096
b3,0,9,4096
b4,9,21,4096
b5,0,21,4096
";

/// A hand-made optimal placement of [`PROBLEM`]: three lanes, peak 12288.
const SOLUTION: &str = "id,lower,upper,size,offset
b1,0,3,4096,0
b2,3,9,4096,0
b3,0,9,4096,4096
b4,9,21,4096,4096
b5,0,21,4096,8192
";

fn problem() -> Vec<Buffer> {
    parse_buffers(PROBLEM, "problem.csv", 100).unwrap().to_buffers()
}

fn solution() -> Vec<SolutionRow> {
    parse_solution(SOLUTION, "solution.csv", 100).unwrap().to_solution_rows()
}

/// The verifier on owned rows.
fn verify(
    problem: &[Buffer],
    solution: &[SolutionRow],
    align: u64,
    capacity: Option<u64>,
) -> Result<VerifyReport, VerifyError> {
    let p: Problem = problem.iter().cloned().collect();
    let s: Problem = solution.iter().cloned().collect();
    dramalloc_sim::verify::verify(&p, &s, align, capacity)
}

fn placed(id: &str, lower: u64, upper: u64, offset: u64, size: u64) -> Placed {
    Placed { id: id.into(), lower, upper, offset, size }
}

#[test]
fn accepts_a_correct_solution_with_the_exact_peak() {
    assert_eq!(
        verify(&problem(), &solution(), ALIGN, Some(12288)),
        Ok(VerifyReport { buffers: 5, peak: 12288 })
    );
    // Row order does not matter.
    let mut rows = solution();
    rows.reverse();
    assert_eq!(verify(&problem(), &rows, ALIGN, None).map(|r| r.peak), Ok(12288));
}

#[test]
fn peak_uses_raw_sizes() {
    let p = parse_buffers("id,lower,upper,size\na,0,2,100\nb,0,2,10\n", "p", 10).unwrap();
    let s = parse_solution("id,lower,upper,size,offset\na,0,2,100,0\nb,0,2,10,4096\n", "s", 10).unwrap();
    assert_eq!(
        dramalloc_sim::verify::verify(&p, &s, ALIGN, Some(4106)),
        Ok(VerifyReport { buffers: 2, peak: 4106 })
    );
}

#[test]
fn rejects_a_colliding_solution_naming_the_pair() {
    let mut rows = solution();
    rows[3].offset = 8192; // b4 [9,21) onto b5 [0,21) at 8192
    let e = verify(&problem(), &rows, ALIGN, None).unwrap_err();
    assert_eq!(
        e,
        VerifyError::Collision {
            first: placed("b5", 0, 21, 8192, 4096),
            second: placed("b4", 9, 21, 8192, 4096),
        }
    );
    assert_eq!(
        e.to_string(),
        "collision: `b5` (live [0, 21), bytes [8192, 12288)) overlaps `b4` (live [9, 21), bytes [8192, 12288))"
    );
}

#[test]
fn rejects_a_partial_overlap_from_below() {
    // a: bytes [0, 5000) at times [0, 4); b: bytes [4096, 8192) at [2, 3).
    let p = parse_buffers("id,lower,upper,size\na,0,4,5000\nb,2,3,4096\n", "p", 10).unwrap();
    let s = parse_solution("id,lower,upper,size,offset\na,0,4,5000,0\nb,2,3,4096,4096\n", "s", 10).unwrap();
    assert_eq!(
        dramalloc_sim::verify::verify(&p, &s, ALIGN, None),
        Err(VerifyError::Collision {
            first: placed("a", 0, 4, 0, 5000),
            second: placed("b", 2, 3, 4096, 4096),
        })
    );
}

#[test]
fn rejects_a_misaligned_offset() {
    let mut rows = solution();
    rows[4].offset = 8192 + 512;
    assert_eq!(
        verify(&problem(), &rows, ALIGN, None),
        Err(VerifyError::Misaligned { id: "b5".into(), offset: 8704, align: 4096 })
    );
    // The same offset is fine with a 512-byte alignment.
    assert_eq!(verify(&problem(), &rows, 512, None).map(|r| r.peak), Ok(12800));
}

#[test]
fn rejects_a_missing_row() {
    let mut rows = solution();
    rows.remove(2);
    assert_eq!(verify(&problem(), &rows, ALIGN, None), Err(VerifyError::MissingRow { id: "b3".into() }));
}

#[test]
fn rejects_a_duplicate_row() {
    let mut rows = solution();
    rows.push(rows[1].clone());
    assert_eq!(
        verify(&problem(), &rows, ALIGN, None),
        Err(VerifyError::DuplicateRow { row: 5, first_row: 1, id: "b2".into() })
    );
}

#[test]
fn rejects_an_unknown_or_changed_row() {
    let mut rows = solution();
    rows[0].id = "zz".into();
    assert_eq!(
        verify(&problem(), &rows, ALIGN, None),
        Err(VerifyError::UnknownRow { row: 0, id: "zz".into() })
    );
    let mut rows = solution();
    rows[1].upper = 4;
    assert_eq!(
        verify(&problem(), &rows, ALIGN, None),
        Err(VerifyError::Mismatch { row: 1, id: "b2".into(), expected: (3, 9, 4096), found: (3, 4, 4096) })
    );
}

#[test]
fn rejects_a_capacity_overflow() {
    assert_eq!(
        verify(&problem(), &solution(), ALIGN, Some(12287)),
        Err(VerifyError::OverCapacity { id: "b5".into(), end: 12288, capacity: 12287 })
    );
}

#[test]
fn rejects_zero_alignment_and_end_overflow() {
    assert_eq!(verify(&problem(), &solution(), 0, None), Err(VerifyError::ZeroAlign));
    let mut rows = solution();
    rows[0].offset = u64::MAX - 4095;
    assert_eq!(
        verify(&problem(), &rows, ALIGN, None),
        Err(VerifyError::EndOverflow { id: "b1".into(), offset: u64::MAX - 4095, size: 4096 })
    );
}

/// Stacks every buffer (no reuse): always valid, peak = sum of aligned sizes minus the last
/// buffer's padding.
fn stacked(problem: &[Buffer]) -> (Vec<SolutionRow>, u64) {
    let mut offset = 0u64;
    let mut peak = 0;
    let rows = problem
        .iter()
        .map(|b| {
            let row = SolutionRow { id: b.id.clone(), lower: b.lower, upper: b.upper, size: b.size, offset };
            peak = offset + b.size;
            offset += b.size.div_ceil(ALIGN) * ALIGN;
            row
        })
        .collect();
    (rows, peak)
}

#[test]
fn accepts_stacked_placements_of_the_largest_bundled_trace_and_catches_a_moved_buffer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/large");
    let p = read_buffers(&dir.join("iopddl_S_1.csv"), 1 << 20).unwrap().to_buffers();
    let (mut rows, peak) = stacked(&p);
    assert_eq!(verify(&p, &rows, ALIGN, None), Ok(VerifyReport { buffers: 28_526, peak }));
    // Put the last buffer onto the first one live at the same time.
    let last = rows.len() - 1;
    let victim =
        (0..last).find(|&i| rows[i].lower < rows[last].upper && rows[last].lower < rows[i].upper).unwrap();
    rows[last].offset = rows[victim].offset;
    let Err(VerifyError::Collision { first, second }) = verify(&p, &rows, ALIGN, None) else {
        panic!("moved buffer not caught");
    };
    let mut pair = [first.id, second.id];
    pair.sort();
    let mut want = [rows[victim].id.clone(), rows[last].id.clone()];
    want.sort();
    assert_eq!(pair, want);
}

/// A solution that carries own alignments must carry the problem's: a trial's row said 4
/// where the problem said 8, and passed (its offset a multiple of 8 all the same).
#[test]
fn rejects_a_row_whose_own_alignment_differs_from_the_problem_s() {
    let problem =
        parse_buffers("id,lower,upper,size,alignment\na,0,2,100,8\nb,1,3,100,1\n", "p.csv", 10).unwrap();
    let good = "id,lower,upper,size,alignment,offset\na,0,2,100,8,0\nb,1,3,100,1,100\n";
    let s = parse_solution(good, "s.csv", 10).unwrap();
    assert_eq!(
        dramalloc_sim::verify::verify(&problem, &s, 1, None),
        Ok(VerifyReport { buffers: 2, peak: 200 })
    );
    let s = parse_solution(&good.replace("a,0,2,100,8,0", "a,0,2,100,4,0"), "s.csv", 10).unwrap();
    let e = dramalloc_sim::verify::verify(&problem, &s, 1, None).unwrap_err();
    assert_eq!(e, VerifyError::AlignmentMismatch { row: 0, id: "a".into(), expected: 8, found: 4 });
    assert_eq!(e.to_string(), "solution line 2: `a` has alignment 4 but the problem says 8");
    // a solution without the column (a peer planner's) is judged by the problem's alignments
    let bare =
        parse_solution("id,lower,upper,size,offset\na,0,2,100,0\nb,1,3,100,100\n", "s.csv", 10).unwrap();
    assert_eq!(
        dramalloc_sim::verify::verify(&problem, &bare, 1, None),
        Ok(VerifyReport { buffers: 2, peak: 200 })
    );
}
