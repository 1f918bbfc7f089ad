//! The unit tests' one-interval problems: nodes and candidate records built from
//! `(lo, hi, size)` triples.
//! Uses: liveness (Node, Info, interval tree, CSR, Graph); used by: the unit tests of
//! place::first_set and sweep_hot.

use crate::liveness::info::Info;
use crate::liveness::interference::{build_csr, Graph};
use crate::liveness::interval_tree::{IntervalTree, Node};

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

/// Builds the problem `iv` of [`one_interval`] (`pinned` at the given addresses) into its
/// interval tree and interference graph, then runs `f` on the graph and the candidate records
/// (`iv.len()` of them). Panics where `iv` is longer than `N`.
pub(crate) fn with_graph<const N: usize, R>(
    iv: &[(u32, u32, u64)],
    pinned: &[(usize, u64)],
    f: impl FnOnce(&Graph<'_>, &mut [Info]) -> R,
) -> R {
    let n = iv.len();
    let (mut nodes, mut infos) = one_interval::<N>(iv, pinned);
    let tree = IntervalTree::build(&mut nodes[..n]);
    let mut ids = [0u32; N];
    build_csr(tree.nodes(), &mut ids[..n], &mut infos[..n]);
    let graph = Graph::new(tree, &ids[..n]);
    f(&graph, &mut infos[..n])
}
