//! The pinned buffers a sweep looks ahead of, indexed for first-fit queries over a range of
//! them in def order.
//! Uses: nothing; used by: sweep.
//!
//! A buffer the sweep places at its def must avoid the pinned buffers defined later in its
//! life (they are not live yet). Those are a contiguous range of the pinned buffers in def
//! order, and within its lifetime they are all obstacles whatever their own lifetimes, so a
//! query needs only their byte ranges. The index is a merge-sort tree over those ranges:
//! level `l` holds the pinned buffers in runs of `2^l` consecutive ones (in def order), each
//! run sorted by first byte with the running maximum of the ends. A range of pinned buffers is
//! the union of at most `2 log2 p` aligned runs, and in each run one binary search gives both
//! the largest end among the buffers starting at or below an address (do they cover it?) and
//! the lowest start above it (where the free bytes stop). [`PinnedIndex::fit_in`] walks the
//! free pieces of a gap between live buffers with them, in address order: the same pieces a
//! sort of the range's byte ranges would give, so the same first fit, in
//! O(pieces · log^2 p) instead of O(k log k) for k buffers in the range.
//!
//! Storage: two lent `u64` words per pinned buffer per level; with fewer words than all
//! `ceil(log2 p) + 1` levels the top levels are left out and a long range takes more runs
//! (see [`PinnedIndex::visits`]). The index carries the caller's budget of run visits: every
//! probe spends the runs it searches ([`PinnedIndex::has_budget`]).

/// One entry of a run: a pinned buffer's first byte, and the largest end (one past the last
/// byte) of the run's entries up to this one.
type Entry = [u64; 2];

use core::cell::Cell;

/// Levels of the full index over `p` pinned buffers: `ceil(log2 p) + 1` (1 for `p <= 1`), so
/// the top level's single run holds them all.
pub(crate) fn full_levels(p: usize) -> u32 {
    if p <= 1 {
        1
    } else {
        usize::BITS - (p - 1).leading_zeros() + 1
    }
}

/// The index over `p` pinned buffers (see the module doc), in lent words.
#[derive(Debug)]
pub(crate) struct PinnedIndex<'a> {
    /// Level `l` is `entries[l * p..(l + 1) * p]`.
    entries: &'a [Entry],
    p: usize,
    levels: u32,
    /// Run visits left of the budget given to [`PinnedIndex::build`].
    left: Cell<u64>,
}

impl<'a> PinnedIndex<'a> {
    /// Builds the index of the byte ranges `span(0)..span(p - 1)` (`[first byte, end)`, in
    /// def order) in `words`, as many levels as fit (at most `ceil(log2 p) + 1`), with a
    /// budget of `budget` run visits for its probes; `None` when `p` is 0 or not even level 0
    /// fits. O(p log p).
    pub(crate) fn build(
        words: &'a mut [u64],
        p: usize,
        budget: u64,
        span: impl Fn(usize) -> (u64, u64),
    ) -> Option<Self> {
        let levels = full_levels(p).min(u32::try_from(words.len() / 2 / p.max(1)).unwrap_or(u32::MAX));
        if p == 0 || levels == 0 {
            return None;
        }
        let entries: &mut [Entry] = bytemuck::cast_slice_mut(&mut words[..2 * p * levels as usize]);
        for (i, e) in entries[..p].iter_mut().enumerate() {
            let (lo, hi) = span(i);
            *e = [lo, hi];
        }
        // level l is merged from level l - 1 while that still holds the raw ends, then
        // level l - 1 gets its running maxima
        for l in 1..levels as usize {
            let (below, rest) = entries[(l - 1) * p..].split_at_mut(p);
            let half = 1usize << (l - 1);
            for r0 in (0..p).step_by(2 * half) {
                let mid = (r0 + half).min(p);
                let end = (r0 + 2 * half).min(p);
                merge(&below[r0..mid], &below[mid..end], &mut rest[r0..end]);
            }
            running_max(below, half);
        }
        let top = levels as usize - 1;
        running_max(&mut entries[top * p..(top + 1) * p], 1 << top);
        Some(PinnedIndex { entries, p, levels, left: Cell::new(budget) })
    }

    /// The runs covering the pinned buffers `[i, j)`, in order: `(level, first buffer)`.
    fn runs(&self, i: usize, j: usize) -> impl Iterator<Item = (u32, usize)> + '_ {
        let mut at = i;
        core::iter::from_fn(move || {
            if at >= j {
                return None;
            }
            let mut l = at.trailing_zeros().min(self.levels - 1);
            while at + (1 << l) > j {
                l -= 1;
            }
            let run = (l, at);
            at += 1 << l;
            Some(run)
        })
    }

    /// How many runs a query over the pinned buffers `[i, j)` searches (at most
    /// `2 (levels - 1)` plus `(j - i) >> (levels - 1)`), the cost of one step of
    /// [`PinnedIndex::fit_in`], counted up to `cap + 1` at most. O(min(runs, cap)).
    pub(crate) fn visits(&self, i: usize, j: usize, cap: usize) -> usize {
        self.runs(i, j).take(cap.saturating_add(1)).count()
    }

    /// Whether the budget of run visits given to [`PinnedIndex::build`] is not spent yet
    /// (a query started before it ran out runs to its end).
    pub(crate) fn has_budget(&self) -> bool {
        self.left.get() > 0
    }

    /// Over the pinned buffers `[i, j)`: the largest end among those starting at or below
    /// byte `a` (0 if none), and the lowest start above `a` (`u64::MAX` if none). Spends the
    /// runs it searches from the budget.
    fn probe(&self, i: usize, j: usize, a: u64) -> (u64, u64) {
        let (mut cover, mut next, mut searched) = (0u64, u64::MAX, 0u64);
        for (l, at) in self.runs(i, j) {
            searched += 1;
            let base = l as usize * self.p + at;
            let run = &self.entries[base..base + (1 << l)];
            let k = run.partition_point(|e| e[0] <= a);
            if k > 0 {
                cover = cover.max(run[k - 1][1]);
            }
            if let Some(e) = run.get(k) {
                next = next.min(e[0]);
            }
        }
        self.left.set(self.left.get().saturating_sub(searched));
        (cover, next)
    }

    /// Walks the pieces of the gap `[lo, hi)` (bytes) that no pinned buffer of `[i, j)`
    /// covers, in address order, and returns the first answer of `in_piece(lo, hi)` (e.g.
    /// the page-straddle rule's address in the piece), `None` when no piece gave one. A
    /// piece ends where a buffer starts, even an empty one (as the seed's gap walk over
    /// sorted obstacles ends it).
    pub(crate) fn fit_in(
        &self,
        i: usize,
        j: usize,
        lo: u64,
        hi: u64,
        mut in_piece: impl FnMut(u64, u64) -> Option<u64>,
    ) -> Option<u64> {
        let mut a = lo;
        while a < hi {
            let (cover, next) = self.probe(i, j, a);
            if cover > a {
                a = cover; // inside a pinned buffer: go past the highest end there
                continue;
            }
            let top = next.min(hi);
            if let Some(x) = in_piece(a, top) {
                return Some(x);
            }
            a = top;
        }
        None
    }
}

/// Merges the runs `x` and `y` (each sorted by first byte) into `out` by first byte.
fn merge(x: &[Entry], y: &[Entry], out: &mut [Entry]) {
    let (mut a, mut b) = (0usize, 0usize);
    for o in out.iter_mut() {
        let take_x = b == y.len() || (a < x.len() && x[a][0] <= y[b][0]);
        *o = if take_x { x[a] } else { y[b] };
        if take_x {
            a += 1;
        } else {
            b += 1;
        }
    }
}

/// Replaces each entry's end with the largest end of its run up to it, runs of `run`
/// entries.
fn running_max(level: &mut [Entry], run: usize) {
    for chunk in level.chunks_mut(run) {
        let mut most = 0u64;
        for e in chunk {
            most = most.max(e[1]);
            e[1] = most;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of `[lo, hi)` free of `spans`, by sorting them (the seed's gap walk).
    fn pieces_by_sort(spans: &[(u64, u64)], lo: u64, hi: u64, out: &mut [(u64, u64); 64]) -> usize {
        let mut sorted = [(0u64, 0u64); 64];
        sorted[..spans.len()].copy_from_slice(spans);
        let sorted = &mut sorted[..spans.len()];
        sorted.sort_unstable();
        let (mut from, mut n) = (lo, 0usize);
        for &(s, e) in sorted.iter() {
            if from >= hi {
                return n;
            }
            if s > from {
                out[n] = (from, s.min(hi));
                n += 1;
            }
            from = from.max(e);
        }
        if from < hi {
            out[n] = (from, hi);
            n += 1;
        }
        n
    }

    /// Every piece `fit_in` walks, for every range of random spans and every level count,
    /// is the one the sort gives, in the same order.
    #[test]
    fn pieces_are_those_of_the_sorted_obstacles() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rounds = if cfg!(miri) { 10 } else { 400 };
        for _ in 0..rounds {
            let p = 1 + (next() % 40) as usize;
            let mut spans = [(0u64, 0u64); 40];
            for s in spans[..p].iter_mut() {
                let lo = next() % 1000;
                *s = (lo, lo + next() % 120); // some empty
            }
            for levels in 1..=7usize {
                let mut words = [0u64; 2 * 40 * 7];
                let ix = PinnedIndex::build(&mut words[..2 * p * levels], p, u64::MAX, |i| spans[i]).unwrap();
                assert_eq!(
                    ix.levels as usize,
                    levels.min(if p == 1 { 1 } else { 1 + (p - 1).ilog2() as usize + 1 })
                );
                for _ in 0..20 {
                    let i = (next() % p as u64) as usize;
                    let j = i + 1 + (next() % (p - i) as u64) as usize;
                    let lo = next() % 1100;
                    let hi = lo + next() % 600;
                    let mut want = [(0u64, 0u64); 64];
                    let n = pieces_by_sort(&spans[i..j], lo, hi, &mut want);
                    let mut got = [(0u64, 0u64); 64];
                    let mut k = 0usize;
                    let none = ix.fit_in(i, j, lo, hi, |a, b| {
                        got[k] = (a, b);
                        k += 1;
                        None
                    });
                    assert_eq!(
                        (none, &got[..k]),
                        (None, &want[..n]),
                        "p {p} levels {levels} [{i}, {j}) [{lo}, {hi})"
                    );
                    // the first piece of at least 50 bytes is the answer when asked for it
                    let first = want[..n].iter().find(|g| g.1 - g.0 >= 50).map(|g| g.0);
                    assert_eq!(ix.fit_in(i, j, lo, hi, |a, b| (b - a >= 50).then_some(a)), first);
                }
            }
        }
    }

    /// A range's runs: aligned powers of two, no more than the levels allow.
    #[test]
    fn runs_cover_a_range_with_aligned_powers_of_two() {
        let mut words = [0u64; 2 * 16 * 5];
        let ix = PinnedIndex::build(&mut words, 16, u64::MAX, |i| (i as u64, i as u64 + 1)).unwrap();
        assert_eq!(ix.levels, 5);
        let mut runs = [(0u32, 0usize); 8];
        let mut k = 0;
        for r in ix.runs(3, 16) {
            runs[k] = r;
            k += 1;
        }
        assert_eq!(&runs[..k], &[(0, 3), (2, 4), (3, 8)]);
        assert_eq!((ix.visits(0, 16, 9), ix.visits(0, 15, 9), ix.visits(5, 6, 9)), (1, 4, 1));
        // two levels only: runs of 2 at most
        let mut words = [0u64; 2 * 16 * 2];
        let ix = PinnedIndex::build(&mut words, 16, u64::MAX, |i| (i as u64, i as u64 + 1)).unwrap();
        assert_eq!((ix.levels, ix.visits(0, 16, 9), ix.visits(1, 16, 9), ix.visits(1, 16, 5)), (2, 8, 8, 6));
        // each probe spends the runs it searches: a budget of 5 lasts one probe of 4 runs
        // over [0, 15), not two
        let mut words = [0u64; 2 * 16 * 5];
        let ix = PinnedIndex::build(&mut words, 16, 5, |i| (2 * i as u64, 2 * i as u64 + 1)).unwrap();
        assert_eq!((ix.visits(0, 15, 9), ix.has_budget()), (4, true));
        assert_eq!(ix.probe(0, 15, 3), (3, 4));
        assert!(ix.has_budget());
        assert_eq!(ix.probe(0, 15, 4), (5, 6));
        assert!(!ix.has_budget());
        // no room for one level, or nothing to index
        assert!(PinnedIndex::build(&mut [0u64; 31], 16, u64::MAX, |i| (i as u64, 1)).is_none());
        assert!(PinnedIndex::build(&mut [0u64; 8], 0, u64::MAX, |i| (i as u64, 1)).is_none());
    }
}
