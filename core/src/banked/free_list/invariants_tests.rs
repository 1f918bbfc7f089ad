//! Tests of [`FreeList::check_invariants`] on corrupted allocators (issue 18): every invariant
//! it checks is broken once, by hand, on a small allocator, and the checker must name exactly
//! that invariant. The uncorrupted allocator passes under both policies.

use super::super::block_table::{State, NONE};
use super::super::{FreeList, FreeListConfig, Policy};

type Fl = FreeList<16>;

/// `A [0,64)` allocated, `F1 [64,128)` free, `C [128,192)` allocated, `F2 [192,1024)` free,
/// and one spare slot (the block `[192,256)` merged back into the tail).
fn layout(policy: Policy) -> Fl {
    let mut fl = Fl::new(FreeListConfig::new(1024, 0, 1, 1, policy)).unwrap();
    for want in [0, 64, 128, 192] {
        assert_eq!(fl.allocate(64, true), Ok(want));
    }
    assert_eq!(fl.free(64), Ok(64));
    assert_eq!(fl.free(192), Ok(64));
    assert_eq!((fl.spare_len, fl.free_count, fl.allocated_count, fl.allocated_bytes), (1, 2, 2, 128));
    assert_eq!(fl.check_invariants(), Ok(()));
    fl
}

/// The slot of the live block starting at relative address `addr`.
fn slot(fl: &Fl, addr: u64) -> u32 {
    let i = fl.table().iter().position(|b| b.addr == addr && b.state != State::Spare).unwrap();
    i as u32
}

fn spare_slot(fl: &Fl) -> u32 {
    fl.table().iter().position(|b| b.state == State::Spare).unwrap() as u32
}

/// `(parent, child)` of the two free blocks in the address tree.
fn tree_pair(fl: &Fl) -> (u32, u32) {
    let (f1, f2) = (slot(fl, 64), slot(fl, 192));
    if fl.root == f1 {
        assert_eq!((fl.blocks[f1 as usize].right, fl.blocks[f2 as usize].parent), (f2, f1));
        (f1, f2)
    } else {
        assert_eq!((fl.root, fl.blocks[f2 as usize].left, fl.blocks[f1 as usize].parent), (f2, f1, f2));
        (f2, f1)
    }
}

/// The parent's link to the child in the address tree.
fn child_link(fl: &mut Fl, parent: u32, child: u32) -> &mut u32 {
    let p = &mut fl.blocks[parent as usize];
    if p.left == child {
        &mut p.left
    } else {
        &mut p.right
    }
}

fn expect(fl: &Fl, why: &str) {
    assert_eq!(fl.check_invariants(), Err(why));
}

#[test]
fn both_policies_pass_on_a_fresh_and_a_full_table() {
    for policy in [Policy::First, Policy::Best] {
        layout(policy);
        // Exactly BLOCKS live blocks (16 allocations of 64 fill [0,1024)).
        let mut fl = Fl::new(FreeListConfig::new(1024, 0, 1, 1, policy)).unwrap();
        for k in 0..16 {
            assert_eq!(fl.allocate(64, true), Ok(64 * k));
            assert_eq!(fl.check_invariants(), Ok(()));
        }
        assert_eq!(fl.used, 16);
    }
}

#[test]
fn block_list_corruptions() {
    let mut fl = layout(Policy::First);
    let c = slot(&fl, 128) as usize;
    fl.blocks[c].next = 40;
    expect(&fl, "link to a slot beyond the table");

    let mut fl = layout(Policy::First);
    let (c, s) = (slot(&fl, 128) as usize, spare_slot(&fl));
    fl.blocks[c].next = s;
    expect(&fl, "dead slot linked into the list");

    let mut fl = layout(Policy::First);
    let c = slot(&fl, 128) as usize;
    fl.blocks[c].prev = NONE;
    expect(&fl, "prev link mismatch");

    let mut fl = layout(Policy::First);
    let c = slot(&fl, 128) as usize;
    fl.blocks[c].addr = 129;
    expect(&fl, "blocks do not tile the range");

    let mut fl = layout(Policy::First);
    let c = slot(&fl, 128) as usize;
    fl.blocks[c].size = 0;
    expect(&fl, "zero-size block");
}

#[test]
fn range_end_corruption() {
    // Top-down: the last block [960,1024) is allocated; shortening it leaves the end uncovered.
    let mut fl = Fl::new(FreeListConfig::new(1024, 0, 1, 1, Policy::First)).unwrap();
    assert_eq!(fl.allocate(64, false), Ok(960));
    let t = slot(&fl, 960) as usize;
    fl.blocks[t].size = 63;
    expect(&fl, "blocks do not reach the end of the range");
}

#[test]
fn adjacent_free_blocks_are_rejected() {
    // Mark C free and link it into the address tree consistently (heap order by the slot
    // priorities, augmentation right): only the "no two adjacent free blocks" rule breaks.
    let mut fl = layout(Policy::First);
    let (f1, c, f2) = (slot(&fl, 64), slot(&fl, 128), slot(&fl, 192));
    // C leaves the allocated map and the counters, then the address tree is rebuilt over
    // F1 < C < F2 as a treap (inserted in priority order).
    fl.allocated_count -= 1;
    fl.allocated_bytes -= 64;
    fl.free_count += 1;
    for h in 0..16 {
        if fl.buckets[h] == c {
            fl.buckets[h] = fl.blocks[c as usize].left;
        }
    }
    let mut nodes = [f1, c, f2];
    nodes.sort_by_key(|&s| core::cmp::Reverse(super::super::block_table::priority(s)));
    // Treap by insertion in priority order: a path, each node under the previous one.
    let addr = |fl: &Fl, s: u32| fl.blocks[s as usize].addr;
    for &s in &nodes {
        let b = &mut fl.blocks[s as usize];
        b.state = State::Free;
        (b.left, b.right, b.parent) = (NONE, NONE, NONE);
    }
    fl.root = nodes[0];
    let insert = |fl: &mut Fl, s: u32| {
        let mut p = fl.root;
        loop {
            let go_left = addr(fl, s) < addr(fl, p);
            let next = if go_left { fl.blocks[p as usize].left } else { fl.blocks[p as usize].right };
            if next == NONE {
                if go_left {
                    fl.blocks[p as usize].left = s;
                } else {
                    fl.blocks[p as usize].right = s;
                }
                fl.blocks[s as usize].parent = p;
                return;
            }
            p = next;
        }
    };
    insert(&mut fl, nodes[1]);
    insert(&mut fl, nodes[2]);
    // Augmentation bottom-up: the deepest node first.
    for &s in nodes.iter().rev() {
        fl.pull(s);
    }
    expect(&fl, "two adjacent free blocks");
}

#[test]
fn counter_corruptions() {
    let mut fl = layout(Policy::First);
    fl.free_count += 1;
    expect(&fl, "stale entries in the free index");

    let mut fl = layout(Policy::First);
    fl.allocated_bytes += 1;
    expect(&fl, "allocated index or byte count drifted");

    let mut fl = layout(Policy::First);
    fl.allocated_count -= 1;
    expect(&fl, "allocated index or byte count drifted");

    let mut fl = layout(Policy::First);
    fl.spare_len += 1;
    expect(&fl, "slot accounting drifted");
}

#[test]
fn allocated_map_corruptions() {
    let mut fl = layout(Policy::First);
    fl.buckets = [NONE; 16];
    expect(&fl, "allocated block missing from the allocated index");

    // C also heads an empty bucket: counted twice.
    let mut fl = layout(Policy::First);
    let c = slot(&fl, 128);
    let h = Fl::bucket(128);
    let empty = (0..16).find(|&k| k != h && fl.buckets[k] == NONE).unwrap();
    fl.buckets[empty] = c;
    expect(&fl, "stale entries in the allocated index");
}

#[test]
fn spare_stack_corruption() {
    let mut fl = layout(Policy::First);
    fl.spare = slot(&fl, 0);
    expect(&fl, "spare stack is corrupt");
}

#[test]
fn address_tree_corruptions() {
    let mut fl = layout(Policy::First);
    fl.root = slot(&fl, 0);
    expect(&fl, "bad address-tree root");

    let mut fl = layout(Policy::First);
    let (p, _) = tree_pair(&fl);
    fl.blocks[p as usize].parent = slot(&fl, 0);
    expect(&fl, "bad address-tree root");

    // The child's parent link cut and the parent's child link cut: a free block outside the tree.
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    *child_link(&mut fl, p, ch) = NONE;
    fl.blocks[ch as usize].parent = NONE;
    fl.pull(p);
    expect(&fl, "free block not linked into the address tree");

    // The child still names its parent, the parent no longer links it: missed by the walk.
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    *child_link(&mut fl, p, ch) = NONE;
    fl.pull(p);
    expect(&fl, "free block missing from the address tree or out of order");

    // A child link to an allocated block.
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    *child_link(&mut fl, p, ch) = slot(&fl, 128);
    fl.blocks[ch as usize].parent = NONE;
    expect(&fl, "free block not linked into the address tree");
    fl.blocks[ch as usize].parent = p;
    expect(&fl, "address-tree link or heap order broken");

    // The child moved to the wrong side.
    let mut fl = layout(Policy::First);
    let (p, _) = tree_pair(&fl);
    let b = &mut fl.blocks[p as usize];
    (b.left, b.right) = (b.right, b.left);
    expect(&fl, "address tree out of order");

    for (who, delta) in [(0usize, 1i64), (0, -1), (1, 1), (1, -1)] {
        let mut fl = layout(Policy::First);
        let pair = tree_pair(&fl);
        let s = if who == 0 { pair.0 } else { pair.1 } as usize;
        let b = &mut fl.blocks[s];
        if who == 0 {
            b.max_left = b.max_left.wrapping_add_signed(delta);
        } else {
            b.max_right = b.max_right.wrapping_add_signed(delta);
        }
        expect(&fl, "address-tree augmentation drifted");
    }
}

#[test]
fn address_tree_heap_order_is_checked() {
    // Swap the roles of parent and child (same keys, reversed priorities) with the links
    // rewritten consistently: only the heap order breaks.
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    let child_is_right = fl.blocks[p as usize].right == ch;
    for s in [p, ch] {
        let b = &mut fl.blocks[s as usize];
        (b.left, b.right, b.parent) = (NONE, NONE, NONE);
    }
    fl.root = ch;
    fl.blocks[p as usize].parent = ch;
    if child_is_right {
        fl.blocks[ch as usize].left = p; // the old parent has the lower address
    } else {
        fl.blocks[ch as usize].right = p;
    }
    fl.pull(p);
    fl.pull(ch);
    expect(&fl, "address-tree link or heap order broken");
}

/// The parent's link to the child in the size tree.
fn size_child_link(fl: &mut Fl, parent: u32, child: u32) -> &mut u32 {
    let l = &mut fl.size_links[parent as usize];
    if l.left == child {
        &mut l.left
    } else {
        &mut l.right
    }
}

/// `(parent, child)` of the two free blocks in the size tree (BEST).
fn size_pair(fl: &Fl) -> (u32, u32) {
    let (f1, f2) = (slot(fl, 64), slot(fl, 192));
    if fl.size_root == f1 {
        (f1, f2)
    } else {
        assert_eq!(fl.size_root, f2);
        (f2, f1)
    }
}

#[test]
fn size_tree_corruptions() {
    let mut fl = layout(Policy::First);
    fl.size_root = 0;
    expect(&fl, "size tree linked under FIRST");

    let mut fl = layout(Policy::Best);
    let (p, _) = size_pair(&fl);
    fl.size_links[p as usize].parent = slot(&fl, 0);
    expect(&fl, "bad size-tree root");

    let mut fl = layout(Policy::Best);
    let (p, ch) = size_pair(&fl);
    *size_child_link(&mut fl, p, ch) = NONE;
    fl.size_links[ch as usize].parent = NONE;
    expect(&fl, "free block not linked into the size tree");

    // Child still names its parent, parent lost the link: the in-order walk finds one of two.
    let mut fl = layout(Policy::Best);
    let (p, ch) = size_pair(&fl);
    *size_child_link(&mut fl, p, ch) = NONE;
    expect(&fl, "size tree does not hold exactly the free blocks");

    let mut fl = layout(Policy::Best);
    let (p, ch) = size_pair(&fl);
    let a = slot(&fl, 0);
    *size_child_link(&mut fl, p, ch) = a;
    fl.size_links[ch as usize].parent = NONE;
    expect(&fl, "free block not linked into the size tree");
    fl.size_links[ch as usize].parent = p;
    expect(&fl, "size-tree link or heap order broken");

    let mut fl = layout(Policy::Best);
    let (p, _) = size_pair(&fl);
    let l = &mut fl.size_links[p as usize];
    (l.left, l.right) = (l.right, l.left);
    expect(&fl, "size tree out of order");

    // The size tree lost its root: the old root is a free block linked nowhere.
    let mut fl = layout(Policy::Best);
    fl.size_root = NONE;
    expect(&fl, "free block not linked into the size tree");
}

#[test]
fn a_cycle_in_the_spare_stack_is_rejected() {
    let mut fl = layout(Policy::First);
    let s = spare_slot(&fl);
    fl.blocks[s as usize].next = s;
    expect(&fl, "spare stack is corrupt");
}

/// A non-free slot of lower treap priority than `p`, with its `parent` links pointing at `p`.
fn allocated_below(fl: &Fl, p: u32) -> u32 {
    use super::super::block_table::priority;
    let cands = [slot(fl, 0), slot(fl, 128), spare_slot(fl)];
    *cands.iter().find(|&&s| priority(s) < priority(p)).expect("a slot of lower priority")
}

#[test]
fn a_tree_child_that_is_not_free_is_rejected_even_when_it_names_its_parent() {
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    let x = allocated_below(&fl, p);
    *child_link(&mut fl, p, ch) = x;
    fl.blocks[x as usize].parent = p;
    expect(&fl, "address-tree link or heap order broken");

    let mut fl = layout(Policy::Best);
    let (p, ch) = size_pair(&fl);
    let x = allocated_below(&fl, p);
    *size_child_link(&mut fl, p, ch) = x;
    fl.size_links[x as usize].parent = p;
    expect(&fl, "size-tree link or heap order broken");
}

#[test]
fn a_size_tree_child_naming_another_parent_is_rejected() {
    let mut fl = layout(Policy::Best);
    let (_, ch) = size_pair(&fl);
    fl.size_links[ch as usize].parent = slot(&fl, 0);
    expect(&fl, "size-tree link or heap order broken");
}

#[test]
fn an_address_tree_child_at_its_parents_address() {
    // A left child at the parent's address is out of order; a right child there passes the
    // tree's local order (keys only need `>=`) and is caught by the tiling walk.
    let mut fl = layout(Policy::First);
    let (p, ch) = tree_pair(&fl);
    let left = fl.blocks[p as usize].left == ch;
    fl.blocks[ch as usize].addr = fl.blocks[p as usize].addr;
    expect(&fl, if left { "address tree out of order" } else { "blocks do not tile the range" });
}
