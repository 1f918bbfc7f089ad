//! The unit tests' one-interval problems: nodes and candidate records built from
//! `(lo, hi, size)` triples.
//! Uses: liveness (Node, Info); used by: the unit tests of place::first_set and sweep_hot.

use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;

/// The nodes (payload = candidate) and the candidate records of the problem `iv`
/// (`(lo, hi, size)`: a closed interval of instructions and a size in bytes, one interval per
/// candidate, candidate `v` at `iv[v]`), with candidates `pinned` fixed at the given byte
/// addresses; the entries past `iv.len()` are defaults. Panics where `iv` is longer than `N`.
pub(crate) fn one_interval<const N: usize>(
    iv: &[(u32, u32, u64)],
    pinned: &[(usize, u64)],
) -> ([Node; N], [Info; N]) {
    let mut nodes = [Node::default(); N];
    let mut infos = [Info::default(); N];
    for (v, &(lo, hi, size)) in iv.iter().enumerate() {
        nodes[v] = Node { lo, hi, payload: v as u32, ..Node::default() };
        infos[v] = Info { aligned: size, location: v as u32, interval_count: 1, ..Info::default() };
    }
    for &(v, at) in pinned {
        infos[v].pinned = 1;
        infos[v].address = at;
    }
    (nodes, infos)
}
