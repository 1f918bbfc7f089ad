//! A binary min-heap of `u32` ids kept in a caller's slice.
//! Uses: nothing else in the crate; used by: exact, lower_bound, sweep.
//!
//! A binary min-heap of `u32` ids kept in a caller's slice: `heap[..len]` is the heap, the
//! order is given by a `less(a, b)` closure. No heap allocation, no bounds beyond the slice.
//! Used by the time sweep, the max-load lower bound and the exact search's section check.

/// Pushes `id` onto `heap[..*len]` (which must have room at `*len`) and grows `*len`.
/// O(log n).
#[inline]
pub fn push(heap: &mut [u32], len: &mut usize, id: u32, less: impl Fn(u32, u32) -> bool) {
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
pub fn pop(heap: &mut [u32], len: &mut usize, less: impl Fn(u32, u32) -> bool) {
    *len -= 1;
    heap[0] = heap[*len];
    sift_root(heap, *len, less);
}

/// Restores the heap order of `heap[..len]` after the root's key grew (sifts it down).
/// O(log len).
pub fn sift_root(heap: &mut [u32], len: usize, less: impl Fn(u32, u32) -> bool) {
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
