//! A set of ranks `0..n` in lent `u32` words with predecessor and successor queries.
//! Uses: nothing; used by: validate (the collision sweep).
//!
//! Complexity: insert, remove, [`RankSet::pred`] and [`RankSet::succ`] O(log₃₂ n) word
//! operations (at most [`MAX_LEVELS`]); storage [`RankSet::words_for`]`(n)` words, about
//! n / 31. A hierarchy of bitmaps (van Emde Boas layout flattened to 32-way levels): level 0
//! holds one bit per rank, and bit `w` of level `l + 1` is set when word `w` of level `l` is
//! not zero, so a query climbs only while the words it meets are empty below or above it,
//! then descends by the highest or lowest set bit. Deterministic, no heap, no recursion.

/// Levels of a set over any `u32`-indexed rank range (32^7 > 2^32).
pub const MAX_LEVELS: usize = 7;

/// Bits per word.
const BITS: usize = 32;

/// A set of ranks in `0..n` (see the module docs).
#[derive(Debug)]
pub struct RankSet<'a> {
    words: &'a mut [u32],
    /// Offset of each level's first word in `words`; `levels` of them are used.
    start: [usize; MAX_LEVELS],
    levels: usize,
}

impl<'a> RankSet<'a> {
    /// Words a set over `0..n` needs: the sum over levels of ⌈bits / 32⌉, at least one word.
    pub const fn words_for(n: usize) -> usize {
        let (mut bits, mut total) = (n, 0);
        loop {
            let words = bits.div_ceil(BITS);
            let words = if words == 0 { 1 } else { words };
            total += words;
            if words == 1 {
                return total;
            }
            bits = words;
        }
    }

    /// An empty set over `0..n` in the first [`RankSet::words_for`]`(n)` entries of `words`,
    /// which it clears; `None` when `words` is shorter.
    pub fn new(words: &'a mut [u32], n: usize) -> Option<Self> {
        let need = Self::words_for(n);
        let words = words.get_mut(..need)?;
        words.fill(0);
        let (mut start, mut levels, mut bits, mut at) = ([0; MAX_LEVELS], 0, n, 0);
        loop {
            start[levels] = at;
            levels += 1;
            let len = bits.div_ceil(BITS).max(1);
            at += len;
            if len == 1 {
                break;
            }
            bits = len;
        }
        Some(RankSet { words, start, levels })
    }

    /// Adds rank `r` (`r < n`).
    pub fn insert(&mut self, r: u32) {
        let mut p = r as usize;
        for l in 0..self.levels {
            self.words[self.start[l] + p / BITS] |= 1 << (p % BITS);
            p /= BITS;
        }
    }

    /// Removes rank `r` (`r < n`); removing an absent rank changes nothing.
    pub fn remove(&mut self, r: u32) {
        let mut p = r as usize;
        for l in 0..self.levels {
            let w = &mut self.words[self.start[l] + p / BITS];
            *w &= !(1 << (p % BITS));
            if *w != 0 {
                return;
            }
            p /= BITS;
        }
    }

    /// The largest rank in the set below `r`, `None` when there is none.
    pub fn pred(&self, r: u32) -> Option<u32> {
        let mut p = r as usize;
        let mut l = 0;
        // climb until a word holds a set bit below the position
        let found = loop {
            let below = self.words[self.start[l] + p / BITS] & ((1u32 << (p % BITS)) - 1);
            if below != 0 {
                break (p / BITS) * BITS + (BITS - 1 - below.leading_zeros() as usize);
            }
            l += 1;
            if l == self.levels {
                return None;
            }
            p /= BITS;
        };
        Some(self.descend(l, found, |w| BITS - 1 - w.leading_zeros() as usize))
    }

    /// The smallest rank in the set above `r`, `None` when there is none.
    pub fn succ(&self, r: u32) -> Option<u32> {
        let mut p = r as usize;
        let mut l = 0;
        let found = loop {
            let shift = p % BITS + 1;
            let above = if shift == BITS { 0 } else { self.words[self.start[l] + p / BITS] >> shift };
            if above != 0 {
                break p / BITS * BITS + shift + above.trailing_zeros() as usize;
            }
            l += 1;
            if l == self.levels {
                return None;
            }
            p /= BITS;
        };
        Some(self.descend(l, found, |w| w.trailing_zeros() as usize))
    }

    /// From set bit `p` of level `l` down to level 0, taking at each level the bit `pick`
    /// chooses in the (non-empty) word bit `p` stands for.
    fn descend(&self, mut l: usize, mut p: usize, pick: impl Fn(u32) -> usize) -> u32 {
        while l > 0 {
            l -= 1;
            p = p * BITS + pick(self.words[self.start[l] + p]);
        }
        p as u32
    }
}

#[cfg(test)]
mod tests {
    use super::RankSet;

    /// The set's answers against a linear scan of a `bool` mirror.
    fn check(set: &RankSet<'_>, mirror: &[bool]) {
        for r in 0..mirror.len() {
            let pred = (0..r).rev().find(|&q| mirror[q]).map(|q| q as u32);
            let succ = (r + 1..mirror.len()).find(|&q| mirror[q]).map(|q| q as u32);
            assert_eq!((set.pred(r as u32), set.succ(r as u32)), (pred, succ), "rank {r}");
        }
    }

    #[test]
    fn sizes_cover_every_level() {
        assert_eq!(RankSet::words_for(0), 1);
        assert_eq!(RankSet::words_for(32), 1);
        assert_eq!(RankSet::words_for(33), 3);
        assert_eq!(RankSet::words_for(1024), 33);
        assert_eq!(RankSet::words_for(1025), 33 + 2 + 1);
        let mut short = [0u32; 35];
        assert!(RankSet::new(&mut short, 1025).is_none());
    }

    #[test]
    fn queries_match_a_scan_across_three_levels() {
        const N: usize = 2100;
        let mut words = [u32::MAX; RankSet::words_for(N)];
        let mut set = RankSet::new(&mut words, N).unwrap();
        let mut mirror = [false; N];
        check(&set, &mirror);
        // a spread of ranks: word edges, level edges, the last rank
        for r in [0, 1, 31, 32, 33, 63, 64, 1023, 1024, 1025, 2047, 2048, 2099] {
            set.insert(r);
            mirror[r as usize] = true;
        }
        check(&set, &mirror);
        for r in [1024, 0, 2099, 33, 32] {
            set.remove(r);
            mirror[r as usize] = false;
            check(&set, &mirror);
        }
        // removing an absent rank leaves the set as it was
        set.remove(500);
        check(&set, &mirror);
        for r in [31, 1, 63, 64, 1023, 1025, 2047, 2048] {
            set.remove(r);
        }
        assert_eq!((set.pred(2099), set.succ(0)), (None, None));
    }

    #[test]
    fn a_word_emptied_below_keeps_its_neighbours() {
        let mut words = [0u32; RankSet::words_for(100)];
        let mut set = RankSet::new(&mut words, 100).unwrap();
        set.insert(40);
        set.insert(41);
        set.remove(40);
        // word 1 is not empty yet: level 1 still points into it
        assert_eq!((set.pred(99), set.succ(0)), (Some(41), Some(41)));
        set.remove(41);
        assert_eq!((set.pred(99), set.succ(0)), (None, None));
    }
}
