//! `simplify`: the Briggs-style elimination order (seed section "The simplify elimination order").
//! Uses: error, liveness, workspace; used by: portfolio.
//!
//! **Constraint measure** (the seed leaves it open; defined here): the key of a candidate is
//! its own aligned size plus the aligned sizes of its distinct interfering neighbours that
//! are still in the worklist or pinned, in bytes. Repeatedly the least-constrained candidate
//! (smallest key; among equal keys the highest index) is removed and pushed on the
//! elimination stack, and the keys of its remaining neighbours drop by its size. `select`
//! pops the stack back to front, so the most constrained candidate is placed first and,
//! among equals, candidates are placed in index (program) order. Pinned candidates are
//! obstacles: they count in their neighbours' keys but are never on the stack.
//!
//! Deterministic for a given input. Complexity O(E log n) for E interference pairs
//! (an indexed binary heap in the caller's `heap` slice), no heap allocation.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::workspace::Scratch;

const OUT: u32 = u32::MAX;

#[inline]
fn less(scratch: &[Scratch], a: u32, b: u32) -> bool {
    let (ka, kb) = (scratch[a as usize].key, scratch[b as usize].key);
    ka < kb || (ka == kb && a > b)
}

fn sift_up(heap: &mut [u32], scratch: &mut [Scratch], mut i: usize) {
    while i > 0 {
        let p = (i - 1) / 2;
        if !less(scratch, heap[i], heap[p]) {
            break;
        }
        heap.swap(i, p);
        scratch[heap[i] as usize].heap_pos = i as u32;
        scratch[heap[p] as usize].heap_pos = p as u32;
        i = p;
    }
}

fn sift_down(heap: &mut [u32], len: usize, scratch: &mut [Scratch], mut i: usize) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < len && less(scratch, heap[l], heap[m]) {
            m = l;
        }
        if r < len && less(scratch, heap[r], heap[m]) {
            m = r;
        }
        if m == i {
            break;
        }
        heap.swap(i, m);
        scratch[heap[i] as usize].heap_pos = i as u32;
        scratch[heap[m] as usize].heap_pos = m as u32;
        i = m;
    }
}

/// Computes the elimination stack of the non-pinned candidates into `order` and returns its
/// length. `select` must place `order[len-1]` first and `order[0]` last.
///
/// Slices: `infos`, `scratch`, `heap` and `order` have at least `infos.len()` entries.
///
/// # Errors
/// Only a tree-query stack overflow, impossible for a tree built here.
pub fn simplify(
    graph: &mut Graph<'_>,
    infos: &[Info],
    scratch: &mut [Scratch],
    heap: &mut [u32],
    order: &mut [u32],
) -> Result<usize, PlanError> {
    let n = infos.len();
    // initial keys
    for v in 0..n {
        let mut key = infos[v].aligned;
        graph.for_each_neighbour(v as u32, infos, scratch, |u, _| {
            key = key.saturating_add(infos[u as usize].aligned)
        })?;
        scratch[v].key = key;
        scratch[v].heap_pos = OUT;
    }
    let mut len = 0usize;
    for v in 0..n {
        if !infos[v].is_pinned() {
            heap[len] = v as u32;
            scratch[v].heap_pos = len as u32;
            len += 1;
        }
    }
    for i in (0..len / 2).rev() {
        sift_down(heap, len, scratch, i);
    }
    let mut stacked = 0usize;
    while len > 0 {
        let v = heap[0];
        len -= 1;
        heap[0] = heap[len];
        scratch[heap[0] as usize].heap_pos = 0;
        scratch[v as usize].heap_pos = OUT;
        if len > 0 {
            sift_down(heap, len, scratch, 0);
        }
        order[stacked] = v;
        stacked += 1;
        let size = infos[v as usize].aligned;
        graph.for_each_neighbour(v, infos, scratch, |u, sc| {
            let pos = sc[u as usize].heap_pos;
            if pos != OUT {
                sc[u as usize].key = sc[u as usize].key.saturating_sub(size);
                sift_up(heap, sc, pos as usize);
            }
        })?;
    }
    Ok(stacked)
}
