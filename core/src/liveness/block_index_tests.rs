//! Tests of the block index: its size, its search against `partition_point` across the level
//! boundaries, its queries against a brute-force scan (short and long windows, both paths),
//! its storage error, and the invariant checker rejecting a corrupted index.

extern crate std;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::liveness::interval_tree::IntervalTree;
use crate::liveness::sorted_search::probe_count as reads;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

/// Sorted nodes with the given starts, each `len(i)` long, payload = input position.
fn nodes_with(starts: &[u32], len: impl Fn(usize) -> u32) -> Vec<Node> {
    let mut nodes: Vec<Node> =
        starts.iter().enumerate().map(|(i, &s)| Node::new(s, s.saturating_add(len(i)), i as u32)).collect();
    nodes.sort_unstable_by_key(|n| (n.lo, n.hi, n.payload));
    nodes
}

#[test]
fn index_words_counts_the_blocks_and_every_level() {
    assert_eq!(index_words(0), 0);
    assert_eq!(index_words(1), 2);
    assert_eq!(index_words(BLOCK), 2);
    assert_eq!(index_words(BLOCK + 1), 4);
    // 16 blocks: no level above them; 17 blocks: one level of 2 keys
    assert_eq!(index_words(16 * BLOCK), 32);
    assert_eq!(index_words(17 * BLOCK), 34 + 2);
    // 257 blocks: levels of 17 and 2 keys
    assert_eq!(index_words(257 * BLOCK), 514 + 17 + 2);
    assert_eq!(index_words(1_000_000), 250_000 + 7_813 + 489 + 31 + 2);
}

/// Every block count around the level boundaries, keys with duplicates: the search equals
/// `partition_point` over the block starts for keys below, at, between and above them.
#[test]
fn the_search_equals_partition_point_across_level_boundaries() {
    let counts: &[usize] =
        if cfg!(miri) { &[1, 16, 17, 257] } else { &[1, 2, 15, 16, 17, 255, 256, 257, 4097, 5000] };
    for &blocks in counts {
        let n = blocks * BLOCK - 3 % (blocks * BLOCK); // the last block is partial
        let starts: Vec<u32> = (0..n as u32).map(|i| 3 * (i / 2)).collect(); // pairs of equal starts
        let nodes = nodes_with(&starts, |_| 1);
        let mut words = vec![0u32; index_words(n)];
        let index = BlockIndex::build(&nodes, &mut words).unwrap();
        assert_eq!(index.blocks(), n.div_ceil(BLOCK));
        let top = starts.last().copied().unwrap_or(0) + 5;
        let step = if cfg!(miri) { 97 } else { 1 };
        for key in (0..top).step_by(step) {
            let want = index.first.partition_point(|&s| s < key);
            assert_eq!(index.blocks_before(key), want, "{blocks} blocks, key {key}");
        }
    }
}

#[test]
fn the_search_handles_extreme_keys() {
    let nodes = nodes_with(&[0, 0, 0, 5, u32::MAX - 1, u32::MAX, u32::MAX, u32::MAX, u32::MAX], |_| 0);
    let mut words = vec![0u32; index_words(nodes.len())];
    let index = BlockIndex::build(&nodes, &mut words).unwrap();
    assert_eq!(index.first, &[0, u32::MAX]);
    assert_eq!(index.max, &[u32::MAX, u32::MAX]);
    assert_eq!(index.blocks_before(0), 0);
    assert_eq!(index.blocks_before(1), 1);
    assert_eq!(index.blocks_before(u32::MAX), 1);
}

/// Payloads of the overlaps of `[lo, hi]` in visit order, through the index.
fn through_index(tree: &IntervalTree<'_>, lo: u32, hi: u32) -> Vec<u32> {
    let mut got = Vec::new();
    tree.for_each_overlap(lo, hi, |n| got.push(n.payload)).unwrap();
    got
}

/// Random laws with short windows, long windows (a few program-long intervals) and both: every
/// query through the index reports exactly the brute-force overlaps in ascending index, as the
/// tree without the index does.
#[test]
fn queries_equal_brute_force_in_index_order() {
    let mut rng = Lcg(0xB10C);
    let rounds = if cfg!(miri) { 3 } else { 40 };
    for round in 0..rounds {
        let n = 1 + (rng.next() as usize % if cfg!(miri) { 300 } else { 3000 });
        let span = 1 + rng.next() % 5000;
        let starts: Vec<u32> = (0..n).map(|_| rng.next() % span).collect();
        let lens: Vec<u32> = (0..n)
            .map(|_| match rng.next() % 16 {
                0 if round % 3 != 0 => rng.next() % (span + 1), // long (none every third round)
                1..=2 => rng.next() % 300,
                _ => rng.next() % 12,
            })
            .collect();
        let mut plain = nodes_with(&starts, |i| lens[i]);
        let mut indexed = plain.clone();
        let plain = IntervalTree::build(&mut plain);
        let mut words = vec![0u32; index_words(n)];
        let tree = IntervalTree::build(&mut indexed).with_index(&mut words).unwrap();
        assert!(tree.check_invariants());
        for _ in 0..if cfg!(miri) { 10 } else { 100 } {
            let lo = rng.next() % (span + 40);
            let hi = lo + rng.next() % 60;
            let want: Vec<u32> =
                tree.nodes().iter().filter(|n| n.overlaps(lo, hi)).map(|n| n.payload).collect();
            assert_eq!(through_index(&tree, lo, hi), want, "round {round}, n {n}, query [{lo},{hi}]");
            assert_eq!(through_index(&plain, lo, hi), want, "round {round}, without the index");
        }
    }
}

/// A window of more than [`PICK_BUFFER`] blocks that all hold an overlap (the far path refills
/// its pick buffer), and one where only every third block does (the others are skipped): every
/// overlap is visited once, in order.
#[test]
fn long_windows_refill_the_pick_buffer_and_skip_blocks() {
    let n = (PICK_BUFFER + 10) * BLOCK * 3;
    // every node reaches 10_000
    let nodes = nodes_with(&(0..n as u32).collect::<Vec<_>>(), |i| 10_000 - i as u32);
    let mut sorted = nodes.clone();
    let mut words = vec![0u32; index_words(n)];
    let tree = IntervalTree::build(&mut sorted).with_index(&mut words).unwrap();
    let got = through_index(&tree, 9_000, 9_000);
    assert_eq!(got, (0..n as u32).collect::<Vec<_>>());
    // one long node in every third block, the rest one instruction long
    let long = |i: usize| if i % (3 * BLOCK) == 5 { 5_000 } else { 0 };
    let mut sorted = nodes_with(&(0..n as u32).collect::<Vec<_>>(), long);
    let mut words = vec![0u32; index_words(n)];
    let tree = IntervalTree::build(&mut sorted).with_index(&mut words).unwrap();
    let q = n as u32 - 2;
    let want: Vec<u32> = tree.nodes().iter().filter(|x| x.overlaps(q, q + 1)).map(|x| x.payload).collect();
    assert_eq!(want.len(), n / (3 * BLOCK) + 2);
    assert_eq!(through_index(&tree, q, q + 1), want);
}

#[test]
fn short_storage_is_a_capacity_error_naming_the_words() {
    let mut nodes = nodes_with(&[1, 2, 3, 4, 5, 6, 7, 8, 9], |_| 1);
    let mut words = [0u32; 3];
    let err = IntervalTree::build(&mut nodes).with_index(&mut words).unwrap_err();
    assert_eq!(err, PlanError::Capacity { store: Store::Index, needed: 4, capacity: 3 });
}

#[test]
fn an_unsorted_tree_refuses_an_index() {
    let mut nodes = [Node::new(5, 6, 0), Node::new(1, 2, 1)];
    let mut words = [0u32; 2];
    let err = IntervalTree::from_unsorted(&mut nodes).with_index(&mut words).unwrap_err();
    assert_eq!(err, PlanError::UnsortedTree { len: 2 });
}

/// The checker accepts a built index and rejects each corrupted part: a block start, a block
/// end, a search-level key, and an index built for other nodes.
#[test]
fn the_invariant_checker_rejects_a_corrupted_index() {
    let n = 20 * BLOCK; // 20 blocks: one level of 2 keys
    let nodes = nodes_with(&(0..n as u32).map(|i| 2 * i).collect::<Vec<_>>(), |i| (i % 5) as u32);
    let mut words = vec![0u32; index_words(n)];
    assert!(BlockIndex::build(&nodes, &mut words).unwrap().matches(&nodes));
    let (first, max, level) = (0, 20, 40);
    for (at, what) in [(first + 3, "a block start"), (max + 7, "a block end"), (level + 1, "a level key")] {
        let mut bad = words.clone();
        bad[at] += 1;
        let index = BlockIndex {
            first: &bad[..20],
            max: &bad[20..40],
            levels: [&bad[40..42], &[], &[], &[], &[], &[], &[], &[]],
            depth: 1,
        };
        assert!(!index.matches(&nodes), "{what}");
    }
    let index = BlockIndex::build(&nodes, &mut words).unwrap();
    assert!(!index.matches(&nodes[..n - 1]), "other nodes");
}

/// Nodes `[i, i + 1]` for `i` in `0..4096` and one long node `[1500, 3500]` (payload 4096):
/// the node reads of a query pin which path it takes. A query at 3000 has a window of 250
/// blocks (from `3000 - max_len = 1000`): the far path reads only the long node's block and
/// the block of `[2999, 3000]` and `[3000, 3001]` (the long node, sorted after `[1500, 1501]`,
/// shifts the later nodes by one), then one node, the first of the next block, which starts
/// after 3000 (17 reads); a query at 2 (a window of one block) reads its chunk of 8 nodes.
#[test]
fn node_reads_pin_the_path_of_a_query() {
    let mut starts: Vec<u32> = (0..4096).collect();
    starts.push(1500);
    let mut nodes = nodes_with(&starts, |i| if i == 4096 { 2000 } else { 1 });
    let mut words = vec![0u32; index_words(nodes.len())];
    let tree = IntervalTree::build(&mut nodes).with_index(&mut words).unwrap();
    reads::take();
    assert_eq!(through_index(&tree, 3000, 3000), [4096, 2999, 3000]);
    assert_eq!(reads::take(), 8 + 8 + 1);
    assert_eq!(through_index(&tree, 2, 2), [1, 2]);
    assert_eq!(reads::take(), 8);
    // a short window that ends mid-chunk: the chunk with the first start past `hi` ends it
    assert_eq!(through_index(&tree, 20, 29), (19..=29).collect::<Vec<_>>());
    assert_eq!(reads::take(), 8 * 4);
    // without the long node (`max_len` 1) a query at 100 starts at block 12, node 96: one chunk
    let mut short = nodes_with(&starts[..4096], |_| 1);
    let mut words = vec![0u32; index_words(short.len())];
    let tree = IntervalTree::build(&mut short).with_index(&mut words).unwrap();
    reads::take();
    assert_eq!(through_index(&tree, 100, 100), [99, 100]);
    assert_eq!(reads::take(), 8);
    // nodes `[i, i + 24]`: a query at 256 starts at block 28 (from 232) and block 32, four
    // blocks on, starts exactly at 256: still a short window, read node by node (five chunks)
    let mut even = nodes_with(&starts[..512], |_| 24);
    let mut words = vec![0u32; index_words(even.len())];
    let tree = IntervalTree::build(&mut even).with_index(&mut words).unwrap();
    reads::take();
    assert_eq!(through_index(&tree, 256, 256), (232..=256).collect::<Vec<_>>());
    assert_eq!(reads::take(), 5 * 8);
}

/// More overlaps in a short window than one pick buffer holds (all 200 nodes overlap the
/// query): every one is visited once, in order, across the buffer's flushes.
#[test]
fn a_short_window_with_more_overlaps_than_a_pick_buffer() {
    let starts: Vec<u32> = (0..200).map(|i| i / 8).collect(); // 8 nodes a start: 25 starts
    let mut nodes = nodes_with(&starts, |_| 0);
    let mut words = vec![0u32; index_words(nodes.len())];
    let tree = IntervalTree::build(&mut nodes).with_index(&mut words).unwrap();
    let got = through_index(&tree, 0, 30);
    assert_eq!(got, (0..200).collect::<Vec<u32>>());
}
