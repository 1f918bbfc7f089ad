//! A binary min-heap of ids or keys kept in a caller's slice.
//! Uses: nothing else in the crate; used by: exact, lower_bound, sweep.
//!
//! A binary min-heap kept in a caller's slice: `heap[..len]` is the heap, the order is given
//! by a `less(a, b)` closure. No heap allocation, no bounds beyond the slice. The entries are
//! `u32` ids ordered through a table (the exact search's section check, the sweep's short
//! live list) or `u64` keys that carry their own order (`(last use << 32) | node`: the tree
//! sweep and the max-load lower bound), which spares a random read of the table per
//! comparison on large inputs.

/// More keys waiting than this (128 KiB, about a core's L2 cache) and a sweep's heap steps
/// miss the cache: the sweeps ([`crate::place::lower_bound`], the time sweep's treap path)
/// then sort every end once and read them in order instead. A property of the machine's
/// caches, not of any input.
pub const SORT_ABOVE: usize = 1 << 14;

/// The min-heap key of an interval's end: its last use (instruction index) in the high half,
/// the node index below, so keys order by last use (ties by node) and the node is read back
/// from the key alone (`key as u32`).
#[inline]
pub fn end_key(last_use: u32, node: u32) -> u64 {
    (u64::from(last_use) << 32) | u64::from(node)
}

/// The last use of an [`end_key`].
#[inline]
pub fn key_hi(key: u64) -> u32 {
    (key >> 32) as u32
}

/// Pushes `id` onto `heap[..*len]` (which must have room at `*len`) and grows `*len`.
/// O(log n).
#[inline]
pub fn push<T: Copy>(heap: &mut [T], len: &mut usize, id: T, less: impl Fn(T, T) -> bool) {
    let mut x = *len;
    heap[x] = id;
    *len += 1;
    while x > 0 && less(heap[x], heap[(x - 1) / 2]) {
        heap.swap(x, (x - 1) / 2);
        x = (x - 1) / 2;
    }
}

/// Removes the minimum `heap[0]` from `heap[..*len]` (`*len > 0`) and shrinks `*len`.
/// O(log n).
#[inline]
pub fn pop<T: Copy>(heap: &mut [T], len: &mut usize, less: impl Fn(T, T) -> bool) {
    *len -= 1;
    heap[0] = heap[*len];
    sift_root(heap, *len, less);
}

/// Restores the heap order of `heap[..len]` after the root's key grew (sifts it down).
/// O(log len).
#[inline]
pub fn sift_root<T: Copy>(heap: &mut [T], len: usize, less: impl Fn(T, T) -> bool) {
    let mut x = 0;
    loop {
        let (l, r) = (2 * x + 1, 2 * x + 2);
        let mut m = x;
        if l < len && less(heap[l], heap[m]) {
            m = l;
        }
        if r < len && less(heap[r], heap[m]) {
            m = r;
        }
        if m == x {
            return;
        }
        heap.swap(x, m);
        x = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_order() {
        let keys = [5u32, 1, 9, 3, 7, 3, 0];
        let mut heap = [0u32; 7];
        let mut len = 0;
        for id in 0..7 {
            push(&mut heap, &mut len, id, |a, b| keys[a as usize] < keys[b as usize]);
        }
        let mut out = [0u32; 7];
        for o in out.iter_mut() {
            *o = keys[heap[0] as usize];
            pop(&mut heap, &mut len, |a, b| keys[a as usize] < keys[b as usize]);
        }
        assert_eq!(out, [0, 1, 3, 3, 5, 7, 9]);
        assert_eq!(len, 0);
    }

    /// End keys order by last use, then node, and give both back.
    #[test]
    fn end_keys_order_by_last_use_then_node() {
        assert!(end_key(3, 9) < end_key(4, 0));
        assert!(end_key(4, 1) < end_key(4, 2));
        assert_eq!(end_key(u32::MAX, 7), 0xFFFF_FFFF_0000_0007);
        let k = end_key(0xDEAD, 0xBEEF);
        assert_eq!((key_hi(k), k as u32), (0xDEAD, 0xBEEF));
    }

    /// The sift stays inside `heap[..len]`: a smaller stale entry just past it (what a pop
    /// leaves there) never comes in, whether the last child inside is a left or a right one.
    #[test]
    fn sift_root_ignores_the_entries_past_len() {
        let less = |a: u32, b: u32| a < b;
        let mut heap = [10u32, 2, 4, 0];
        sift_root(&mut heap, 3, less);
        assert_eq!(heap, [2, 10, 4, 0]);
        let mut heap = [10u32, 2, 4, 8, 0];
        sift_root(&mut heap, 4, less);
        assert_eq!(heap, [2, 8, 4, 10, 0]);
    }
}
