//! minimalloc CSV readers on arbitrary UTF-8: the problem and the solution form; a parsed
//! problem of up to 256 rows is also planned (the `dramalloc plan` path). Never panics. A text
//! (read by the quote-free fast path where it is plain) and the same bytes as a stream (the
//! `csv` crate only) give the same problem or the same error.
#![no_main]

use dramalloc_core::Strategy;
use dramalloc_sim::input::{parse_buffers, parse_solution, read_buffers_from, read_solution_from};
use dramalloc_sim::quality::problem::solve;
use libfuzzer_sys::fuzz_target;

const MAX_ROWS: usize = 2_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let problem = parse_buffers(text, "fuzz", MAX_ROWS);
    let streamed = read_buffers_from(data, "fuzz", MAX_ROWS);
    assert_eq!(format!("{problem:?}"), format!("{streamed:?}"), "fast path and csv crate differ");
    let solution = parse_solution(text, "fuzz", MAX_ROWS);
    let streamed = read_solution_from(data, "fuzz", MAX_ROWS);
    assert_eq!(format!("{solution:?}"), format!("{streamed:?}"), "fast path and csv crate differ");
    if let Ok(rows) = problem {
        assert!(rows.len() <= MAX_ROWS);
        for b in rows.rows() {
            assert!(b.size > 0 && b.lower < b.upper, "accepted row {b:?}");
        }
        // The default strategy on small problems (the planner itself is `planner_intervals`).
        if rows.len() <= 256 {
            let _ = solve(&rows, 1, None, Strategy::default());
        }
    }
    if let Ok(rows) = solution {
        assert!(rows.len() <= MAX_ROWS);
    }
});
