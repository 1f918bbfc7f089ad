//! The interference graph's stored adjacency (`build_adjacency`, the CSR the planner builds
//! when the workspace lends it room): on random problems, one interval per candidate (the
//! sweep over the `lo`-sorted nodes) and several (one tree query per interval), every
//! candidate's neighbour list is exactly the set of candidates whose intervals overlap one
//! of its own, the pair count is that of every pair tested, and storage one entry short is
//! declined, not overrun.

use dramalloc_core::liveness::interference::{build_adjacency, build_csr, Graph};
use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
use dramalloc_core::workspace::Scratch;
use dramalloc_core::{Info, PlanError, Store};

const MAX: usize = 48;

/// A fixed xorshift stream.
struct Rng(u64);

impl Rng {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// `n` candidates with 1 to `most` closed intervals each over 60 instructions (lifetimes of
/// 0 to 11), as (candidate, lo, hi).
fn problem(rng: &mut Rng, n: usize, most: u64) -> Vec<(u32, u32, u32)> {
    let mut iv = Vec::new();
    for v in 0..n as u32 {
        for _ in 0..1 + rng.below(most) {
            let lo = rng.below(60) as u32;
            iv.push((v, lo, lo + rng.below(12) as u32));
        }
    }
    iv
}

/// Every other candidate with an interval overlapping one of `v`'s, ascending.
fn brute(iv: &[(u32, u32, u32)], v: u32) -> Vec<u32> {
    let mut out: Vec<u32> = iv
        .iter()
        .filter(|a| a.0 == v)
        .flat_map(|a| iv.iter().filter(move |b| b.0 != v && b.1 <= a.2 && a.1 <= b.2).map(|b| b.0))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Builds the graph of `iv` (n candidates), its adjacency in `out` with `live` entries of
/// sweep storage, and checks it against [`brute`]; returns the entries used.
fn check(iv: &[(u32, u32, u32)], n: usize, out_len: usize, live: usize) -> Option<usize> {
    let mut nodes: Vec<Node> =
        iv.iter().map(|&(v, lo, hi)| Node { lo, hi, payload: v, ..Node::default() }).collect();
    let mut infos = vec![Info::default(); n];
    for &(v, _, _) in iv {
        infos[v as usize].interval_count += 1;
    }
    let tree = IntervalTree::build(&mut nodes);
    let mut ids = vec![0u32; iv.len()];
    build_csr(tree.nodes(), &mut ids, &mut infos);
    let mut graph = Graph::new(tree, &ids);
    let mut scratch = vec![Scratch::default(); n];
    let (mut out, mut active, mut cursor) = (vec![0u32; out_len], vec![0u32; live], vec![0u32; live]);
    let len = build_adjacency(&mut graph, &infos, &mut scratch, &mut out, &mut active, &mut cursor)
        .expect("no stack overflow")?;
    let pairs: usize = (0..n as u32).map(|v| brute(iv, v).len()).sum();
    assert_eq!(len, n + 1 + pairs, "entries: offsets and both directions of every pair");
    let mut graph = graph.with_adjacency(&out[..len]);
    assert_eq!(graph.pairs(), Some(pairs as u64 / 2));
    let mut got = vec![0u32; n];
    for v in 0..n as u32 {
        let degree = brute(iv, v).len();
        if degree > 0 {
            // one entry short: the error names the count and the room
            let short = graph.collect_neighbours(v, &infos, &mut scratch, &mut got[..degree - 1]);
            assert_eq!(
                short,
                Err(PlanError::Capacity { store: Store::Order, needed: degree, capacity: degree - 1 })
            );
        }
        // exactly enough room, then more
        assert_eq!(graph.collect_neighbours(v, &infos, &mut scratch, &mut got[..degree]), Ok(degree));
        let k = graph.collect_neighbours(v, &infos, &mut scratch, &mut got).unwrap();
        let mut list = got[..k].to_vec();
        list.sort_unstable();
        assert_eq!(list, brute(iv, v), "neighbours of {v}");
        let (a, b) = (out[v as usize] as usize, out[v as usize + 1] as usize);
        assert_eq!(b - a, k, "the offsets of {v} bound its list");
    }
    Some(len)
}

#[test]
fn one_interval_each_by_the_sweep() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..200 {
        let n = 1 + rng.below(MAX as u64) as usize;
        let iv = problem(&mut rng, n, 1);
        let len = check(&iv, n, n * n + n + 1, n).unwrap_or_else(|| panic!("case {case}: declined"));
        // one entry short: declined
        assert_eq!(check(&iv, n, len - 1, n), None, "case {case}");
        // the same graph by tree queries (sweep storage one short) is the same list
        assert_eq!(check(&iv, n, len, n - 1), Some(len), "case {case}");
        assert_eq!(check(&iv, n, len - 1, n - 1), None, "case {case}");
    }
}

#[test]
fn several_intervals_each_by_tree_queries() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for case in 0..200 {
        let n = 1 + rng.below(MAX as u64) as usize;
        let iv = problem(&mut rng, n, 3);
        let len = check(&iv, n, n * n + n + 1, n).unwrap_or_else(|| panic!("case {case}: declined"));
        assert_eq!(check(&iv, n, len - 1, n), None, "case {case}");
    }
}

/// Exact values on one small graph: intervals [0, 4], [2, 6], [5, 9] and [20, 21] (one
/// each): pairs (0, 1) and (1, 2); the CSR is the offsets 5, 6, 8, 9, 9 and the lists.
#[test]
fn a_chain_and_an_island() {
    let iv = [(0u32, 0u32, 4u32), (1, 2, 6), (2, 5, 9), (3, 20, 21)];
    assert_eq!(check(&iv, 4, 32, 4), Some(9));
    assert_eq!(check(&iv, 4, 9, 4), Some(9));
    assert_eq!(check(&iv, 4, 8, 4), None);
    // shorter than the offsets alone
    assert_eq!(check(&iv, 4, 4, 4), None);
}
