//! The branch and bound's decision search (`place::exact`, its `search.rs`) on small
//! instances where one of its incremental steps decides the node count or the plan (issue
//! 18): the undo records popped down to a placement's mark (not one past it, into the
//! node's own list of children), a buffer raised only when its minimum offset is below the
//! new top, the recomputation of minimum offsets without undo records (only for buffers
//! the undone placement raised), the section maxima of `edges` and the level test of
//! `level_ok` on both sides of a buffer, the room each use of the undo records asks for,
//! the re-ranking of a part after a split, the dominated buffers left out of the child scan
//! and the shortcut past the window's sweep. Each instance was found by a random search
//! where the mutated step changed the answer; each run is checked valid and pinned: peak,
//! nodes expanded, optimality, improvement and every address.

use dramalloc_core::place::exact::Schedule;

#[path = "support/sections.rs"]
mod sections;
use sections::{searched, Run};

/// Runs the search ([`Schedule::DEFAULT`], at most 2,000 nodes, byte capacities) on the
/// candidates `iv` = (first, last instruction, size), candidate k at location k, from `start`
/// with `raises` undo records, the incumbent one byte above the sizes' sum and the lower
/// bound the max load less `weaken`; checks the plan it leaves.
fn run(iv: &[(u32, u32, u64)], raises: usize, start: u64, weaken: u64) -> Run {
    run_with(iv, raises, start, weaken, Schedule::DEFAULT)
}

/// [`run`] with another schedule.
fn run_with(iv: &[(u32, u32, u64)], raises: usize, start: u64, weaken: u64, schedule: Schedule) -> Run {
    searched(iv, raises, start, weaken, schedule)
}

/// Ten buffers over instructions 1–11: 427 nodes to the optimum 14, with undo records to
/// spare (56) and with none (recomputation). Popping one record past a placement's mark
/// leaves the node's last listed child overwritten by the next placement's raises (445
/// nodes); `lo > s0` -> `lo < s0` in `level_ok` reads the prefix maxima on the wrong side
/// (429 nodes).
#[test]
fn undo_records_stop_at_the_mark() {
    let iv = [
        (1, 1, 7),
        (4, 7, 4),
        (5, 8, 3),
        (7, 9, 4),
        (4, 4, 7),
        (9, 11, 4),
        (8, 11, 6),
        (5, 5, 6),
        (7, 7, 3),
        (4, 4, 1),
    ];
    let plan = vec![0, 3, 0, 10, 7, 0, 4, 7, 7, 0];
    assert_eq!(run(&iv, 56, 0, 0), (14, 427, true, true, plan.clone()));
    assert_eq!(run(&iv, 0, 0, 0), (14, 427, true, true, plan));
}

/// Twelve buffers, no undo records: 22 nodes to the optimum 25. A `level_ok` that passes
/// everything, or that ignores the sections after the buffer (`hi + 1 < s1` -> `>`), or
/// that passes when either side fits (`&&` -> `||`), expands a 23rd node.
#[test]
fn the_level_test_checks_both_sides_and_the_buffer() {
    let iv = [
        (9, 13, 8),
        (7, 11, 1),
        (7, 11, 3),
        (7, 8, 6),
        (2, 5, 7),
        (2, 6, 4),
        (5, 7, 1),
        (5, 7, 7),
        (5, 8, 6),
        (8, 11, 2),
        (0, 1, 1),
        (3, 3, 6),
    ];
    assert_eq!(run(&iv, 0, 0, 0), (25, 22, true, true, vec![0, 16, 13, 0, 0, 13, 24, 17, 7, 17, 0, 7]));
}

/// Thirteen buffers from byte 16, the bound weakened by one byte: 78 nodes to the optimum
/// 21 (5 above `start`). Without the section maxima of `edges` (stale `floor` and `low`
/// fields) the level test passes children it should not: 92 nodes.
#[test]
fn the_level_test_uses_fresh_section_maxima() {
    let iv = [
        (5, 5, 2),
        (7, 8, 2),
        (0, 1, 1),
        (4, 5, 1),
        (3, 4, 2),
        (6, 6, 1),
        (0, 0, 2),
        (0, 0, 1),
        (9, 10, 2),
        (5, 6, 2),
        (6, 6, 1),
        (3, 4, 2),
        (1, 2, 2),
    ];
    let plan = vec![18, 16, 18, 20, 16, 18, 16, 19, 16, 16, 19, 18, 16];
    assert_eq!(run(&iv, 0, 16, 1), (21, 78, true, true, plan));
}

/// Fourteen one-byte buffers: 21 nodes to the optimum 7 with buffers 4 and 5 at 5 and
/// buffer 13 at 4, with 72 undo records and with 28. With 72, raising a buffer whose minimum
/// offset already equals the new top (`<` -> `<=`) widens the window checked after the
/// placement and gives another plan of the same peak (4 and 5 at 4, 13 at 5); with 28 (room
/// to rank a part anew after a split), ranking the part's sections `[a, k)` instead of
/// `[a, k + 1)` gives that other plan too.
#[test]
fn only_buffers_below_the_new_top_are_raised() {
    let iv = [
        (2, 3, 1),
        (2, 4, 1),
        (4, 5, 1),
        (5, 7, 1),
        (4, 4, 1),
        (2, 3, 1),
        (2, 2, 1),
        (0, 0, 1),
        (1, 1, 1),
        (0, 2, 1),
        (4, 7, 1),
        (3, 5, 1),
        (4, 4, 1),
        (3, 4, 1),
    ];
    let plan = vec![3, 1, 3, 1, 5, 5, 2, 1, 1, 0, 0, 2, 6, 4];
    assert_eq!(run(&iv, 72, 0, 0), (7, 21, true, true, plan.clone()));
    assert_eq!(run(&iv, 28, 0, 0), (7, 21, true, true, plan));
}

/// Twelve buffers, a lone one at instruction 0 and eleven over 1–6 (the second part, from
/// position 1 of `by_lo`): 19 nodes to the optimum 21 whatever the undo records, but the plan
/// depends on where they run short (whether a sub-part is ranked anew after a split): 22 and
/// 34 records give one plan, 28 and 38 another (buffers 5 and 11 swap 9 and 13). Each room
/// test asks for its part's `j - i` records: asking for `j + i` before a placement (22),
/// before a re-ranking (28) or before listing a node's children (38), or refusing a
/// re-ranking that has exactly `j - i` (34), gives the other plan.
#[test]
fn each_room_test_asks_for_its_part_only() {
    let iv = [
        (0, 0, 3),
        (4, 5, 4),
        (3, 4, 1),
        (1, 2, 2),
        (4, 6, 5),
        (3, 4, 4),
        (3, 4, 3),
        (2, 3, 5),
        (1, 1, 4),
        (1, 1, 1),
        (3, 5, 4),
        (2, 3, 4),
    ];
    assert_eq!(run(&iv, 22, 0, 0), (21, 19, true, true, vec![0, 9, 20, 5, 0, 13, 17, 0, 0, 4, 5, 9]));
    assert_eq!(run(&iv, 34, 0, 0), (21, 19, true, true, vec![0, 9, 20, 5, 0, 13, 17, 0, 0, 4, 5, 9]));
    let other = vec![0, 13, 20, 5, 0, 9, 17, 0, 0, 4, 5, 13];
    assert_eq!(run(&iv, 28, 0, 0), (21, 19, true, true, other.clone()));
    assert_eq!(run(&iv, 38, 0, 0), (21, 19, true, true, other));
}

/// Ten buffers from byte 16, the bound weakened by 6, 20 undo records (too few for every
/// placement, so some minimum offsets are recomputed): 62 nodes to the optimum 36 (20
/// above `start`). Recomputing the minimum offset of every buffer that overlaps the undone
/// one, placed ones included, not only of the unplaced ones it raised (`&&` -> `||`), gives
/// 79 nodes and another plan.
#[test]
fn recomputation_touches_only_the_raised_buffers() {
    let iv = [
        (7, 12, 8),
        (0, 5, 7),
        (4, 5, 2),
        (5, 6, 2),
        (6, 8, 2),
        (0, 3, 7),
        (1, 2, 5),
        (2, 3, 1),
        (4, 8, 5),
        (9, 14, 5),
    ];
    assert_eq!(run(&iv, 20, 16, 6), (36, 62, true, true, vec![16, 16, 23, 31, 24, 23, 30, 35, 26, 24]));
}

/// Fourteen one-byte buffers, 72 undo records: 23 nodes to the optimum 6. After a split
/// each sub-part is ranked anew from its current section totals; keeping the old ranks
/// (no re-ranking) gives another plan of the same peak (buffers 0 and 1, 5 and 9 swap).
#[test]
fn a_split_ranks_its_parts_anew() {
    let iv = [
        (9, 10, 1),
        (3, 5, 1),
        (9, 12, 1),
        (4, 7, 1),
        (1, 4, 1),
        (4, 7, 1),
        (5, 6, 1),
        (2, 2, 1),
        (9, 12, 1),
        (7, 10, 1),
        (2, 4, 1),
        (0, 0, 1),
        (9, 9, 1),
        (7, 9, 1),
    ];
    assert_eq!(run(&iv, 72, 0, 0), (6, 23, true, true, vec![2, 3, 0, 0, 1, 2, 1, 0, 1, 3, 4, 0, 5, 4]));
}

/// Eleven buffers, no undo records (the children found by a scan per child): 22 nodes to
/// the optimum 13. A scan that also offers the dominated buffers (minimum offset at or
/// above the lowest top of the unplaced ones) once the others failed (`||` -> `&&`)
/// expands their subtrees too: 65 nodes.
#[test]
fn the_child_scan_skips_dominated_buffers() {
    let iv = [
        (5, 10, 1),
        (6, 8, 3),
        (4, 5, 1),
        (0, 3, 5),
        (9, 14, 4),
        (9, 12, 4),
        (3, 5, 5),
        (5, 9, 1),
        (2, 6, 3),
        (8, 11, 3),
        (7, 8, 1),
    ];
    assert_eq!(run(&iv, 0, 0, 0), (13, 22, true, true, vec![4, 6, 3, 3, 0, 6, 8, 5, 0, 10, 0]));
}

/// Ten buffers, three undo records, the bound weakened by 4 and a bisection-heavy schedule:
/// 44 nodes to the optimum 9. The shortcut that skips the window's sweep after a placement
/// holds only when the highest floor or the placed buffer's top (`floor + size`), plus each
/// section's unplaced total, fits; with `floor * size` it holds too often: 46 nodes. Four
/// one-byte buffers (no undo records, 8 nodes to the optimum 2): with `top * remaining`
/// for `top + remaining` the shortcut holds where it should not (a top of 1 adds nothing):
/// 51 nodes.
#[test]
fn the_sweep_shortcut_counts_the_placed_top() {
    let iv = [
        (8, 8, 3),
        (7, 10, 2),
        (3, 5, 3),
        (5, 7, 2),
        (2, 4, 3),
        (9, 14, 1),
        (6, 9, 3),
        (2, 3, 2),
        (8, 12, 1),
        (1, 3, 1),
    ];
    let schedule = Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3, ..Schedule::DEFAULT };
    assert_eq!(run_with(&iv, 3, 0, 4, schedule), (9, 44, true, true, vec![0, 7, 3, 0, 0, 0, 4, 7, 3, 6]));
    assert_eq!(
        run(&[(9, 14, 1), (5, 8, 1), (7, 11, 1), (0, 5, 1)], 0, 0, 0),
        (2, 8, true, true, vec![0, 0, 1, 1])
    );
}
