//! Tests of [`IntervalTree::check_invariants`] on corrupted trees (issue 18): each structural
//! invariant it claims to check is broken once and the checker must answer false; the trees
//! built by `build` and `from_unsorted` must answer true. Also pins `len`, `is_empty`, the
//! query's `q.lo > max` prune and its `n.lo <= q.hi` right-subtree prune to exact answers.

use super::*;

/// `[0,2] [1,9] [3,4] [5,6] [7,8]` sorted by `lo`: root 2, left 1 (child 0), right 4 (child 3).
fn five() -> [Node; 5] {
    let mut nodes =
        [Node::new(0, 2, 0), Node::new(1, 9, 1), Node::new(3, 4, 2), Node::new(5, 6, 3), Node::new(7, 8, 4)];
    IntervalTree::build(&mut nodes);
    nodes
}

fn tree(nodes: &[Node], root: i32, sorted: bool) -> IntervalTree<'_> {
    IntervalTree {
        nodes,
        root,
        sorted,
        max_len: nodes.iter().map(|n| n.hi - n.lo).max().unwrap_or(0),
        samples: crate::liveness::sorted_search::StartSamples::new(nodes),
        index: None,
    }
}

fn payloads(t: &IntervalTree<'_>, lo: u32, hi: u32) -> ([u32; 8], usize) {
    let mut got = [u32::MAX; 8];
    let mut n = 0;
    t.for_each_overlap(lo, hi, |node| {
        got[n] = node.payload;
        n += 1;
    })
    .unwrap();
    got[..n].sort_unstable();
    (got, n)
}

#[test]
fn built_trees_pass_and_have_the_expected_shape() {
    let nodes = five();
    assert_eq!(
        nodes.map(|n| (n.left, n.right, n.max)),
        [(NIL, NIL, 2), (0, NIL, 9), (1, 4, 9), (NIL, NIL, 6), (3, NIL, 8)]
    );
    assert!(tree(&nodes, 2, true).check_invariants());
    assert!(tree(&nodes, 2, false).check_invariants());
    assert!(tree(&[], NIL, true).check_invariants());
}

#[test]
fn wrong_max_is_rejected() {
    for (i, bad) in [(0, 3), (1, 8), (2, 10), (3, 5), (4, 9)] {
        let mut nodes = five();
        nodes[i].max = bad;
        assert!(!tree(&nodes, 2, true).check_invariants(), "node {i} max {bad}");
    }
    // A max one too high at a leaf, one too low at the root.
    let mut nodes = five();
    nodes[2].max = 8;
    assert!(!tree(&nodes, 2, true).check_invariants());
}

#[test]
fn child_link_out_of_range_is_rejected() {
    let mut nodes = five();
    nodes[3].left = 5;
    assert!(!tree(&nodes, 2, true).check_invariants());
    let mut nodes = five();
    nodes[4].right = 7;
    assert!(!tree(&nodes, 2, true).check_invariants());
    assert!(!tree(&five(), 5, true).check_invariants(), "root out of range");
}

#[test]
fn unreachable_or_twice_reached_nodes_are_rejected() {
    // Node 0 cut off: four reached of five (max of node 1 stays consistent: 9).
    let mut nodes = five();
    nodes[1].left = NIL;
    assert!(!tree(&nodes, 2, true).check_invariants());
    // Node 3 reached twice (also as node 1's right child): six visits of five nodes.
    let mut nodes = five();
    nodes[1].right = 3;
    assert!(!tree(&nodes, 2, true).check_invariants());
    // An empty root over a non-empty array: nothing reached.
    assert!(!tree(&five(), NIL, true).check_invariants());
}

#[test]
fn unsorted_lo_is_rejected_only_for_a_sorted_tree() {
    // Swap the payload intervals of nodes 3 and 4 (lo 7 before lo 5), keeping max consistent.
    let mut nodes = five();
    (nodes[3].lo, nodes[3].hi, nodes[4].lo, nodes[4].hi) = (7, 8, 5, 6);
    nodes[3].max = 8;
    nodes[4].max = 8;
    assert!(!tree(&nodes, 2, true).check_invariants());
    assert!(tree(&nodes, 2, false).check_invariants());
    // Equal lo is allowed (non-decreasing).
    let mut eq = [Node::new(4, 5, 0), Node::new(4, 4, 1)];
    IntervalTree::build(&mut eq);
    assert!(tree(&eq, 1, true).check_invariants());
}

#[test]
fn from_built_keeps_the_built_root() {
    let nodes = five();
    let t = IntervalTree::from_built(&nodes);
    assert_eq!((t.root(), t.len(), t.is_empty()), (2, 5, false));
    assert_eq!(payloads(&t, 5, 5), ([1, 3, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX], 2));
    let empty: [Node; 0] = [];
    let t = IntervalTree::from_built(&empty);
    assert_eq!((t.root(), t.len(), t.is_empty()), (NIL, 0, true));
}

#[test]
fn queries_at_the_prune_boundaries() {
    let nodes = five();
    for sorted in [true, false] {
        let t = tree(&nodes, 2, sorted);
        // q.lo == subtree max of the left leaf [0,2]: still visited.
        assert_eq!(payloads(&t, 2, 2).1, 2, "[2,2] hits [0,2] and [1,9]");
        // q.hi == lo of the rightmost node [7,8]: the right subtree is not pruned.
        let (got, n) = payloads(&t, 7, 7);
        assert_eq!(&got[..n], &[1, 4]);
        // q.lo one past every max: nothing.
        assert_eq!(payloads(&t, 10, 20).1, 0);
        let (got, n) = payloads(&t, 0, 9);
        assert_eq!(&got[..n], &[0, 1, 2, 3, 4]);
    }
}

#[test]
fn a_link_out_of_range_is_rejected_and_the_query_walks_by_index() {
    let mut nodes = five();
    nodes[4].left = 9;
    let t = tree(&nodes, 2, true);
    assert!(!t.check_invariants());
    // the query scans the lo-sorted nodes by index (it follows links only for windows of
    // more than 1,024 candidates), so the broken link does not change its answer
    let (got, n) = payloads(&t, 5, 8);
    assert_eq!(&got[..n], &[1, 3, 4]);
}

#[test]
fn depth_for_small_counts() {
    assert_eq!([0, 1, 2, 3, 4, 7, 8].map(depth_for), [0, 1, 2, 2, 3, 3, 4]);
}

#[test]
fn make_tree_on_an_empty_or_inverted_range_is_nil() {
    let mut nodes = [Node::default(); 2];
    assert_eq!(make_tree(&mut nodes, 1, 1), NIL);
    assert_eq!(make_max(&mut nodes, NIL), 0);
}

#[test]
fn right_subtree_with_lo_equal_to_query_hi_is_searched() {
    // Sorted: [2,3] [3,3] [3,4]; root 1, right child 2 has lo == q.hi == 3.
    let mut nodes = [Node::new(3, 4, 2), Node::new(2, 3, 0), Node::new(3, 3, 1)];
    let t = IntervalTree::build(&mut nodes);
    assert_eq!((t.root(), t.nodes()[1].right), (1, 2));
    let (got, n) = payloads(&t, 0, 3);
    assert_eq!(&got[..n], &[0, 1, 2]);
}

#[test]
fn a_one_node_tree_rooted_at_zero_answers() {
    let mut nodes = [Node::new(4, 6, 9)];
    let t = IntervalTree::build(&mut nodes);
    assert_eq!(t.root(), 0);
    let (got, n) = payloads(&t, 6, 8);
    assert_eq!(&got[..n], &[9]);
    assert_eq!(payloads(&t, 7, 8).1, 0);
}

#[test]
fn a_self_linked_node_is_rejected_and_the_query_walks_by_index() {
    // Node 0 is its own left and right child: the checker stops at n + 1 visits
    let mut nodes = [Node::new(0, 0, 0)];
    (nodes[0].left, nodes[0].right) = (0, 0);
    assert!(!tree(&nodes, 0, true).check_invariants());
    let mut visits = 0;
    assert_eq!(tree(&nodes, 0, true).for_each_overlap(0, 0, |_| visits += 1), Ok(()));
    assert_eq!(visits, 1);
}
