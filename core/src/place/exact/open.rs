//! The branch and bound's unplaced buffers as a bitset over `by_lo` positions, with the last
//! section of each block of positions, so the search's scans skip placed and ended buffers.
//! Uses: sections (UNPLACED), workspace (Slot); used by: mod.rs, search.rs, inference.rs.
//!
//! The search's scans ([`super::search`], [`super::inference`]) walk a run of `by_lo` (the
//! buffers by first section) and keep the unplaced buffers live from some section `y` on.
//! Measured on the hard DSA set, about a third of the entries they read were placed and
//! about half of the rest had ended before `y`. [`Open`] keeps one bit per position (set:
//! unplaced) and, for every [`BLOCK`] positions, the last section any of their buffers
//! covers (static), so a scan reads 64 positions a word and drops a block that ends before
//! `y` whole. The scans visit the same buffers in the same order as before, so the search
//! and its work count are unchanged; only the entries it skips are not read.
//! Fixed capacity: [`super::EXACT_MAX_BUFFERS`] positions, 768 bytes.

use super::EXACT_MAX_BUFFERS;
use crate::place::sections::UNPLACED;
use crate::workspace::Slot;

/// Positions a block's last section covers: eight to a word, so a word's mask is built from
/// eight comparisons.
const BLOCK: usize = 8;
const WORDS: usize = EXACT_MAX_BUFFERS / 64;
const BLOCKS: usize = EXACT_MAX_BUFFERS / BLOCK;

/// The unplaced buffers of one probe by `by_lo` position (see the module docs).
pub(super) struct Open {
    /// Bit `k % 64` of word `k / 64`: the buffer at `by_lo[k]` is unplaced.
    bits: [u64; WORDS],
    /// The largest last section of the buffers at positions `[BLOCK·b, BLOCK·(b + 1))`
    /// (sections number at most [`EXACT_MAX_BUFFERS`], so they fit `u16`).
    last: [u16; BLOCKS],
}

impl Open {
    /// The unplaced slots of `by_lo` (every slot but the pinned ones at a probe's start).
    /// `by_lo` has at most [`EXACT_MAX_BUFFERS`] entries (the caller's check); positions past
    /// it stay clear.
    pub(super) fn new(slots: &[Slot], by_lo: &[u32]) -> Self {
        let mut open = Open { bits: [0; WORDS], last: [0; BLOCKS] };
        for (k, &v) in by_lo.iter().enumerate().take(EXACT_MAX_BUFFERS) {
            let c = &slots[v as usize];
            if c.at == UNPLACED {
                open.bits[k / 64] |= 1 << (k % 64);
            }
            let b = &mut open.last[k / BLOCK];
            *b = (*b).max(c.hi.min(u32::from(u16::MAX)) as u16);
        }
        open
    }

    /// Whether the bits are those of `slots` and `by_lo` now ([`Open::new`]'s): the check of
    /// the debug builds that a probe starts (and so every probe ended) with the state it began.
    pub(super) fn matches(&self, slots: &[Slot], by_lo: &[u32]) -> bool {
        let now = Open::new(slots, by_lo);
        now.bits == self.bits && now.last == self.last
    }

    /// Marks position `k` placed.
    #[inline(always)]
    pub(super) fn remove(&mut self, k: usize) {
        self.bits[k / 64] &= !(1 << (k % 64));
    }

    /// Marks position `k` unplaced.
    #[inline(always)]
    pub(super) fn insert(&mut self, k: usize) {
        self.bits[k / 64] |= 1 << (k % 64);
    }

    /// The unplaced positions of word `w` within `[i, j)` whose block reaches section `y` or
    /// later (a superset of the buffers there live at `y`: each must still be checked).
    #[inline(always)]
    fn word(&self, w: usize, (i, j): (usize, usize), y: u32) -> u64 {
        let base = w * 64;
        let mut bits = self.bits[w];
        if i > base {
            bits &= u64::MAX << (i - base);
        }
        if j < base + 64 {
            bits &= (1u64 << (j - base)) - 1;
        }
        if bits == 0 || y == 0 {
            return bits;
        }
        let mut reach = 0u64;
        for (b, &last) in self.last[w * (64 / BLOCK)..(w + 1) * (64 / BLOCK)].iter().enumerate() {
            if u32::from(last) >= y {
                reach |= ((1u64 << BLOCK) - 1) << (b * BLOCK);
            }
        }
        bits & reach
    }

    /// The unplaced positions of `[i, j)` whose block reaches section `y`, in order.
    #[inline(always)]
    pub(super) fn scan(&self, (i, j): (usize, usize), y: u32) -> Scan<'_> {
        let w = i / 64;
        let bits = if i < j { self.word(w, (i, j), y) } else { 0 };
        Scan { open: self, w, bits, range: (i, j), y }
    }
}

/// The positions of [`Open::scan`], in increasing order.
pub(super) struct Scan<'a> {
    open: &'a Open,
    /// The word being read and its positions not yet returned.
    w: usize,
    bits: u64,
    range: (usize, usize),
    y: u32,
}

impl Scan<'_> {
    /// The next position without taking it.
    #[inline(always)]
    pub(super) fn peek(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.w += 1;
            if self.w * 64 >= self.range.1 {
                return None;
            }
            self.bits = self.open.word(self.w, self.range, self.y);
        }
        Some(self.w * 64 + self.bits.trailing_zeros() as usize)
    }

    /// Drops the position the last [`Scan::peek`] returned (`next` without finding it again:
    /// the sections' sweeps peek at each position before they take it). Nothing after a peek
    /// that returned `None`.
    #[inline(always)]
    pub(super) fn take_peeked(&mut self) {
        self.bits &= self.bits.wrapping_sub(1);
    }
}

impl Iterator for Scan<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let k = self.peek()?;
        self.bits &= self.bits - 1;
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn slot(hi: u32, placed: bool) -> Slot {
        Slot { lo: 0, hi, at: if placed { 5 } else { UNPLACED }, ..Slot::default() }
    }

    #[test]
    fn a_scan_returns_the_unplaced_positions_of_its_range_whose_block_reaches_y() {
        // 130 slots: block 0 (positions 0-7) ends at section 3, the rest at 9; 2 and 70 placed
        let slots: [Slot; 130] = core::array::from_fn(|k| slot(if k < 8 { 3 } else { 9 }, k == 2 || k == 70));
        let by_lo: [u32; 130] = core::array::from_fn(|k| k as u32);
        let mut open = Open::new(&slots, &by_lo);
        let take = |open: &Open, range, y| open.scan(range, y).collect::<Vec<_>>();
        assert_eq!(take(&open, (1, 5), 0), [1, 3, 4]);
        assert_eq!(take(&open, (1, 11), 4), [8, 9, 10]);
        assert_eq!(take(&open, (66, 72), 9), [66, 67, 68, 69, 71]);
        assert_eq!(take(&open, (63, 66), 10), [0usize; 0]);
        assert_eq!(take(&open, (127, 130), 0), [127, 128, 129]);
        assert_eq!(take(&open, (5, 5), 0), [0usize; 0]);
        open.remove(128);
        open.insert(70);
        assert_eq!(take(&open, (68, 72), 0), [68, 69, 70, 71]);
        assert_eq!(take(&open, (120, 130), 0), [120, 121, 122, 123, 124, 125, 126, 127, 129]);
        // the debug check of a probe's start: only the bits of these slots match
        assert!(!open.matches(&slots, &by_lo));
        open.insert(128);
        open.remove(70);
        assert!(open.matches(&slots, &by_lo));
        open.insert(70);
        let mut scan = open.scan((60, 70), 0);
        assert_eq!(
            (scan.peek(), scan.peek(), scan.next(), scan.peek()),
            (Some(60), Some(60), Some(60), Some(61))
        );
        // a peeked position taken without finding it again: the next peek is the one after
        scan.take_peeked();
        assert_eq!((scan.peek(), scan.next(), scan.peek()), (Some(62), Some(62), Some(63)));
    }
}
