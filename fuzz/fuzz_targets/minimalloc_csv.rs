//! minimalloc CSV readers on arbitrary UTF-8: the problem and the solution form; a parsed
//! problem of up to 256 rows is also planned (the `dramalloc plan` path). Never panics.
#![no_main]

use dramalloc_core::Strategy;
use dramalloc_sim::input::{parse_buffers, parse_solution};
use dramalloc_sim::quality::problem::solve;
use libfuzzer_sys::fuzz_target;

const MAX_ROWS: usize = 2_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(rows) = parse_buffers(text, "fuzz", MAX_ROWS) {
        assert!(rows.len() <= MAX_ROWS);
        for b in rows.rows() {
            assert!(b.size > 0 && b.lower < b.upper, "accepted row {b:?}");
        }
        // The default strategy on small problems (the planner itself is `planner_intervals`).
        if rows.len() <= 256 {
            let _ = solve(&rows, 1, None, Strategy::default());
        }
    }
    if let Ok(rows) = parse_solution(text, "fuzz", MAX_ROWS) {
        assert!(rows.len() <= MAX_ROWS);
    }
});
