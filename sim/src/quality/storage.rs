//! The front end's storage for one plan: the workspace, the sweep's index of the fixed
//! buffers and the interference graph where it fits and pays.
//! Uses: host_storage, quality (problem's caps), dramalloc-core; used by: problem.rs
//! (`solve_limited`), time_split.rs (its sections).

use dramalloc_core::place::portfolio::GREEDY_UNITS_PER_ENTRY;
use dramalloc_core::place::sweep::pinned_index_words;
use dramalloc_core::Strategy;

use crate::host_storage::HostWorkspace;
use crate::quality::problem::{ADJACENCY_MAX_ENTRIES, LOOKAHEAD_MAX_WORDS};

/// Whether a plan of `strategy` holds the interference graph of `entries` `u32`s (`n + 1 +
/// 2E`): where it fits ([`ADJACENCY_MAX_ENTRIES`]) and pays. A portfolio holds it only when
/// one greedy pass over it fits its `work` budget (it would skip every greedy member
/// otherwise), and a strategy that never asks for neighbours (the sweep) not at all.
pub(crate) fn holds_adjacency(strategy: Strategy, entries: u64, work: u64) -> bool {
    let portfolio = matches!(strategy, Strategy::Auto | Strategy::Exact);
    strategy.reads_neighbours()
        && entries <= ADJACENCY_MAX_ENTRIES
        && (!portfolio || entries.saturating_mul(GREEDY_UNITS_PER_ENTRY) <= work)
}

/// The front end's storage for a plan of `rows` buffers, `fixed` of them fixed and `pairs`
/// pairs live together, by `strategy` on a `work` budget: the workspace, the sweep's index of
/// the fixed buffers it looks ahead of (all its levels up to [`LOOKAHEAD_MAX_WORDS`]), and the
/// interference graph where [`holds_adjacency`] (and `adjacency`, the caller's leave).
pub(crate) fn front_end_storage(
    rows: usize,
    fixed: usize,
    pairs: u64,
    strategy: Strategy,
    work: u64,
    adjacency: bool,
) -> HostWorkspace {
    let mut host = HostWorkspace::new(rows.max(1), rows.max(1), 1);
    let words = pinned_index_words(fixed).min(LOOKAHEAD_MAX_WORDS);
    if words > 0 {
        host = host.with_lookahead(words);
    }
    let entries = rows as u64 + 1 + 2 * pairs;
    if adjacency && holds_adjacency(strategy, entries, work) {
        host = host.with_adjacency(entries as usize);
    }
    host
}
