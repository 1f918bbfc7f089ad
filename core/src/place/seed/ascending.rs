//! `Ascending`: byte ranges handed out in ascending start order, sorted only as far as they
//! are read (incremental quicksort).
//! Uses: search (Span); used by: search.
//!
//! First fit walks its occupied ranges by start and usually stops at a gap well before the
//! last one (measured on the repair of 10^6 long-tail buffers: 55 % of about 250 ranges read a
//! call), so sorting all of them wastes the work of ordering the tail. This iterator orders
//! the slice in place only as far as it is read: the leftmost unread segment is split around
//! a median-of-three pivot (three positions drawn by a xorshift generator, so no order of
//! the input makes the pivots bad) into `< pivot` and `>= pivot` (or, when the pivot is the least
//! start, `== pivot`, final, and `> pivot`) by branch-free Lomuto passes until it is short,
//! then sorted; the ends of the segments still to split wait on
//! a small fixed stack. Reading the `k` smallest of `m` ranges costs O(m + k log k) expected
//! (Paredes and Navarro, "Optimal Incremental Sorting", ALENEX 2006); reading all of them, a
//! quicksort's O(m log m). A stack that would overflow (adversarial pivots) sorts its
//! segment instead, so the worst case is O(m log m) per segment. No heap, no recursion.
//!
//! The ranges come out with non-decreasing `lo`; equal starts come out in an unspecified
//! order (first fit keeps the running maximum end, so their order does not change the gaps).

use crate::place::seed::search::Span;

/// Segments at most this long are sorted outright.
const SHORT: usize = 24;

/// The first state of the generator that draws the pivots' samples ([`split`]): any nonzero
/// constant (xorshift's state 0 stays 0); fixed, so the work of a read is a function of the
/// input.
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Deepest stack of pending segment ends; a split that would go deeper sorts its segment
/// instead (expected depth: about log2(m / SHORT) for m ranges).
const DEPTH: usize = 32;

/// The ranges of a slice in ascending `lo` order, reordering the slice in place as they are
/// read. After the last range is read the slice is sorted by `lo`.
///
/// ```
/// use dramalloc_core::place::seed::ascending::Ascending;
/// use dramalloc_core::place::seed::search::Span;
/// let mut v = [Span { lo: 30, hi: 31 }, Span { lo: 10, hi: 12 }, Span { lo: 20, hi: 21 }];
/// let mut los = [0u64; 3];
/// for (l, s) in los.iter_mut().zip(Ascending::new(&mut v)) {
///     *l = s.lo;
/// }
/// assert_eq!(los, [10, 20, 30]);
/// ```
#[derive(Debug)]
pub struct Ascending<'a> {
    v: &'a mut [Span],
    /// The next range to hand out.
    next: usize,
    /// `v[next..sorted_to]` are in their final places.
    sorted_to: usize,
    /// Ends of the segments still to split, decreasing from the bottom; the current segment
    /// is `[next, top)` (`v.len()` when empty). Every range left of an end starts at or
    /// below every range right of it.
    stack: [usize; DEPTH],
    depth: usize,
    /// The xorshift state the pivots' positions are drawn from ([`split`]).
    seed: u64,
    /// Ranges passed over so far by the splits and sorts (a split counted once): the work of
    /// the reads, [`Ascending::moved`].
    moved: u64,
}

impl<'a> Ascending<'a> {
    /// Starts reading `v` in ascending `lo` order. O(1); nothing is moved until the first
    /// read.
    pub fn new(v: &'a mut [Span]) -> Ascending<'a> {
        Ascending { v, next: 0, sorted_to: 0, stack: [0; DEPTH], depth: 0, seed: SEED, moved: 0 }
    }

    /// Reads `v`, already sorted by `lo`, as it is. O(1).
    pub fn sorted(v: &'a mut [Span]) -> Ascending<'a> {
        let sorted_to = v.len();
        Ascending { v, next: 0, sorted_to, stack: [0; DEPTH], depth: 0, seed: SEED, moved: 0 }
    }

    /// Ranges the reads so far have passed over in their splits and sorts (a split's one or
    /// two passes counted once, a sort of `m` ranges as `m`): O(m + k log k) expected for the
    /// `k` smallest of `m` ranges, whatever their order (the pivots' samples are drawn).
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// Splits or sorts the leftmost unread segment (`next` below the slice's end) until
    /// `v[next]` is final (`sorted_to > next`).
    fn settle_next(&mut self) {
        loop {
            // the ends the reads have reached are done with
            while self.depth > 0 && self.stack[self.depth - 1] <= self.next {
                self.depth -= 1;
            }
            let lo = self.next;
            let hi = if self.depth == 0 { self.v.len() } else { self.stack[self.depth - 1] };
            self.moved += (hi - lo) as u64;
            if hi - lo <= SHORT || self.depth == DEPTH {
                self.v[lo..hi].sort_unstable_by_key(|s| s.lo);
                self.sorted_to = hi;
                return;
            }
            let (mid, final_below) = split(&mut self.v[lo..hi], &mut self.seed);
            self.stack[self.depth] = lo + mid;
            self.depth += 1;
            if final_below {
                self.sorted_to = lo + mid;
                return;
            }
        }
    }
}

impl Iterator for Ascending<'_> {
    type Item = Span;

    #[inline]
    fn next(&mut self) -> Option<Span> {
        if self.next == self.sorted_to {
            if self.next == self.v.len() {
                return None;
            }
            self.settle_next();
        }
        let s = self.v[self.next];
        self.next += 1;
        Some(s)
    }
}

/// Splits `v` (longer than [`SHORT`]) around the median start of three ranges at positions
/// drawn from `seed` (xorshift64, advanced three times): returns `(mid, final_below)`,
/// `0 < mid <= v.len()`, every range of `v[..mid]` starting at or below every range of
/// `v[mid..]`. Mostly `v[..mid]` holds the starts below the pivot (`final_below` false); when
/// none is below it (the pivot is the least start), `v[..mid]` holds the starts equal to it,
/// already in order (`final_below` true). Branch-free Lomuto passes: a swap every range, the
/// split point advanced by the comparison.
///
/// Drawn, not fixed, positions: with the first, middle and last ranges as samples, a slice
/// in descending order (or rising then falling) left the later segments in orders whose
/// samples were near their least, so each pass split off a few ranges. Reading 80 % of
/// 3,240 ranges took 1.44 ms descending and 2.6 ms rising-then-falling against 41 µs in
/// random order (2026-12-06; 1.56 M ranges moved against 42 k), and the sweep around the hot
/// spent 3.3 s on a 62,185-buffer compiler graph (`iopddl` `Y_1`), 84 % of it here. Drawn,
/// every order took 39–48 µs. Which ranges are the samples changes no plan: the ranges come
/// out in the same order of starts.
fn split(v: &mut [Span], seed: &mut u64) -> (usize, bool) {
    let n = v.len();
    let mut sample = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        v[(*seed % n as u64) as usize].lo
    };
    let (x, y, z) = (sample(), sample(), sample());
    let pivot = x.max(y).min(x.min(y).max(z));
    let below = lomuto(v, |k| k < pivot);
    if below > 0 {
        return (below, false);
    }
    (lomuto(v, |k| k == pivot), true)
}

/// Moves the ranges whose start passes `keep` to the front, in one branch-free pass; returns
/// how many there are.
#[inline]
fn lomuto(v: &mut [Span], keep: impl Fn(u64) -> bool) -> usize {
    let mut front = 0usize;
    for i in 0..v.len() {
        let kept = keep(v[i].lo);
        v.swap(front, i);
        front += usize::from(kept);
    }
    front
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// Reads a prefix of random slices (many equal starts, every length up to 300, sorted and
    /// reversed inputs) and checks it is the prefix of the sorted starts, that every range is
    /// still there once, and that reading to the end leaves the slice sorted.
    #[test]
    fn hands_out_the_sorted_order_as_far_as_read() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut next = |m: u64| rng.below(m);
        for case in 0..3000 {
            let m = case % 301;
            let keys = [4, 50, 1 << 40][case % 3];
            let mut v = [Span::default(); 300];
            for (i, s) in v.iter_mut().take(m).enumerate() {
                let lo = match case % 7 {
                    5 => i as u64,
                    6 => (m - i) as u64,
                    _ => next(keys),
                };
                *s = Span { lo, hi: lo + 1 + i as u64 };
            }
            let v = &mut v[..m];
            let mut want = [Span::default(); 300];
            want[..m].copy_from_slice(v);
            want[..m].sort_unstable();
            let read = if m == 0 { 0 } else { next(m as u64 + 1) as usize };
            let mut got = [Span::default(); 300];
            let mut it = Ascending::new(v);
            for g in got.iter_mut().take(read) {
                *g = it.next().unwrap();
            }
            let rest = it.count();
            assert_eq!(read + rest, m);
            for k in 0..read {
                assert_eq!(got[k].lo, want[k].lo, "case {case} k {k}");
            }
            let mut all = [Span::default(); 300];
            all[..m].copy_from_slice(v);
            assert!(all[..m].windows(2).all(|w| w[0].lo <= w[1].lo), "case {case}: left unsorted");
            all[..m].sort_unstable();
            assert_eq!(all[..m], want[..m], "case {case}: a range lost or duplicated");
        }
    }

    /// A slice of one start throughout is final after one split (nothing below the pivot).
    #[test]
    fn equal_starts_are_final_at_once() {
        let mut v = [Span { lo: 7, hi: 8 }; 100];
        let mut it = Ascending::new(&mut v);
        assert_eq!(it.next(), Some(Span { lo: 7, hi: 8 }));
        assert_eq!((it.sorted_to, it.depth), (100, 1));
        assert_eq!(it.count(), 99);
    }

    /// The work stays in proportion to what is read: reading 1,000 distinct starts (shuffled,
    /// ascending, descending) one at a time, at most [`SHORT`] ranges beyond the last one read
    /// are ever final, the pending ends stay split (every start left of one below every start
    /// right of it) and few, and the prefix read is the sorted order.
    #[test]
    fn orders_only_as_far_as_it_reads() {
        const M: usize = 1000;
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let mut deepest_of = [0; 3];
        for shape in 0..3 {
            let mut v = [Span::default(); M];
            for (i, s) in v.iter_mut().enumerate() {
                let lo = [i, i, M - 1 - i][shape] as u64;
                *s = Span { lo, hi: lo + 1 };
            }
            if shape == 0 {
                for i in (1..M).rev() {
                    v.swap(i, rng.below(i as u64 + 1) as usize);
                }
            }
            let mut it = Ascending::new(&mut v);
            let mut deepest = 0;
            for k in 0..M {
                assert_eq!(it.next().map(|s| s.lo), Some(k as u64), "shape {shape}");
                assert!(it.sorted_to - it.next <= SHORT, "shape {shape} read {k}: {} final", it.sorted_to);
                deepest = deepest.max(it.depth);
                for &e in &it.stack[..it.depth] {
                    let left = it.v[it.next..e].iter().map(|s| s.lo).max().unwrap_or(0);
                    let right = it.v[e..].iter().map(|s| s.lo).min().unwrap_or(u64::MAX);
                    assert!(left <= right, "shape {shape} read {k}: end {e} not split");
                }
            }
            assert_eq!(it.next(), None);
            deepest_of[shape] = deepest;
        }
        // pending ends at most: about log2(M / SHORT) = 5.4 expected, more where the drawn
        // samples split unevenly; far below DEPTH
        assert_eq!(deepest_of, [10, 6, 7]);
    }

    /// The orders that made the fixed samples (first, middle and last range) bad: reading 80 %
    /// of 3,240 ranges passed over 28,607 ranges in random order, 32,160 ascending, but
    /// 1,544,693 descending and 2,525,257 rising then falling with them (this test's figures
    /// with the samples put back to those three); with drawn samples every order costs about
    /// the random order's work.
    #[test]
    fn no_order_of_the_input_makes_the_reads_quadratic() {
        const M: usize = 3240;
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut random = [Span::default(); M];
        for s in random.iter_mut() {
            let lo = rng.below(1 << 30);
            *s = Span { lo, hi: lo + 1000 };
        }
        let mut ascending = random;
        ascending.sort_unstable_by_key(|s| s.lo);
        let mut descending = ascending;
        descending.reverse();
        let mut pipe = [Span::default(); M];
        for (k, s) in pipe.iter_mut().enumerate() {
            // the even ranks rising, then the odd ones falling
            *s = if k < M / 2 { ascending[2 * k] } else { ascending[2 * (M - 1 - k) + 1] };
        }
        let work = |v: &mut [Span]| {
            let mut it = Ascending::new(v);
            let mut last = 0;
            for _ in 0..M * 8 / 10 {
                let s = it.next().unwrap();
                assert!(s.lo >= last);
                last = s.lo;
            }
            it.moved()
        };
        let all = [work(&mut random), work(&mut ascending), work(&mut descending), work(&mut pipe)];
        assert_eq!(all, [29_193, 28_671, 28_750, 29_460]);
        assert!(all.iter().all(|&w| w <= 2 * all[0]), "{all:?}");
    }
}
