//! The branch and bound's bisection restart (`place::exact::branch_and_bound`, issue 18): a
//! bisection probe that fails at its node limit at capacity `c` raises the bisection's lower
//! end to `c`; the search drops back to the proven bound only when the best peak comes
//! within `max(align, lower_bound / 1024)` of that end. The test kills the mutant that
//! mutation testing left alive there (`exact/mod.rs`, `lower_bound / 1024` ->
//! `lower_bound % 1024`), whose threshold on small bounds (below 1,024 bytes) is the whole
//! bound, so it restarts from the proven bound after every such failure. The instance
//! was found by a random search over small problems where the mutated threshold changed the
//! run; the run is checked valid and pinned: peak, nodes expanded, optimality, improvement
//! and every address.

use dramalloc_core::place::exact::{branch_and_bound, Budget, Schedule};
use dramalloc_core::workspace::Raise;

#[path = "support/sections.rs"]
mod sections;
use sections::{prepared, searched, Prepared, Run};

/// The search with [`Schedule::DEFAULT`] from address 0 with no undo records ([`searched`]).
fn run(iv: &[(u32, u32, u64)], weaken: u64) -> Run {
    searched(iv, 0, 0, weaken, Schedule::DEFAULT)
}

/// Six buffers (max load 11), the bound weakened to 3: 60 nodes to the optimum 11. Probes
/// at the bound prove 3 infeasible at once; the first round's bisection probes 11, where
/// all three preorders stop at their limit of 9 nodes, so 11 becomes the bisection's lower
/// end. The next round finds a plan of peak 13 at capacity 15, 2 bytes above that end:
/// more than `align` (1), so the bisection goes on above 11 (a plan of 12 at capacity 12;
/// then, within 1 byte of 11, from the proven bound: 7, 9 and 10 infeasible, a plan of 11).
/// With the threshold `max(1, 3 % 1024)` = 3 it drops back to the proven bound at once (8
/// and 10 infeasible, then 11): 49 nodes.
#[test]
fn a_bisection_resumes_above_a_capacity_that_failed_at_its_limit() {
    let iv = [(2, 6, 4), (6, 9, 3), (6, 10, 4), (10, 12, 2), (9, 10, 2), (10, 18, 3)];
    assert_eq!(run(&iv, 8), (11, 60, true, true, vec![3, 0, 7, 3, 5, 0]));
}

/// A round that cannot do better in the next ends the search. Four buffers from address 2^20
/// (so `lower_bound / 1024` is above every gap), the bound weakened by 8 and aligned to 2: the
/// probe at the bound is refused at once and the bisection stops at once; before the first
/// fix every later round did the same with a larger limit, no node ever spent, so neither the
/// node budget nor the clock (asked every few nodes) ended the call. Since the probe of the
/// capacity just below the best peak (within 1/1024 of the bound, once a round), that probe
/// finds the plan at 2^20 + 20 (the max load) in 7 nodes, the next (below it) proves it optimal
/// at once, and with no probe at its node limit
/// the search ends (before, rounds with a node each went on until the clock: a fresh-user
/// trial's two buffers, one fixed, ran 181 million nodes in `exact --time-limit 5`). Run on a
/// thread with a deadline, so a regression fails instead of hanging.
#[test]
fn a_round_without_a_node_ends_the_search() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let iv = [(4, 4, 18), (1, 1, 8), (0, 0, 18), (4, 4, 2)];
        let start = 1u64 << 20;
        let Prepared { mut slots, sections: mut secs, by_lo, by_hi: mut ids, count } = prepared(&iv, start);
        let mut go = || true;
        let mut budget = Budget::new(2_000, 0, &mut go);
        let schedule = Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3, ..Schedule::DEFAULT };
        let lb = start + 20;
        let out = branch_and_bound(
            &mut slots,
            &mut secs[..count],
            &by_lo,
            &mut ids,
            &mut [] as &mut [Raise],
            start,
            lb - 8,
            start + 47,
            2,
            schedule,
            &mut budget,
        );
        let _ = tx.send((out.peak, out.nodes, out.optimal, out.improved, out.stopped));
    });
    let got = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("branch_and_bound did not return");
    assert_eq!(got, ((1 << 20) + 20, 7, true, true, false));
}
