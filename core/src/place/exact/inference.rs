//! The branch and bound's section inference: whether a part can still fit under the
//! capacity, checked in full or only where a placement changed something, and the tests of a
//! child before its placement (MiniMalloc's section inference and monotonic floor).
//! Uses: min_heap, open (via Search), sections, workspace, search (Search); used by: search.rs.

use super::search::Search;
use crate::place::min_heap;
use crate::place::sections::UNPLACED;
use crate::workspace::Slot;

impl<const PLAIN: bool> Search<'_, PLAIN> {
    /// Section inference with the unallocated and monotonic floors at `level` over the
    /// sections `[s0, s1)` of part `[i, j)`: false when some section's floor plus the sizes
    /// of its unplaced buffers, or some buffer's minimum offset plus its size, exceeds the
    /// capacity. One sweep over the sections with a min-heap of the live unplaced buffers'
    /// minimum offsets: O(k log k + sections) for k buffers starting before `s1`.
    pub(super) fn feasible(&mut self, level: u64, s0: usize, s1: usize, (i, j): (usize, usize)) -> bool {
        let slots = &*self.slots;
        let heap = &mut *self.heap;
        let key = |v: u32| slots[v as usize].floor;
        let by_key = |a: u32, b: u32| key(a) < key(b);
        let mut len = 0usize;
        let mut scan = self.open.scan((i, j), s0 as u32);
        for s in s0..s1 {
            while let Some(k) = scan.peek().filter(|&k| slots[self.by_lo[k] as usize].lo as usize <= s) {
                scan.take_peeked();
                let v = self.by_lo[k];
                let c = &slots[v as usize];
                debug_assert_eq!(c.at, UNPLACED);
                if (c.hi as usize) < s0 {
                    continue;
                }
                if c.floor.max(level) + c.size > self.cap {
                    return false; // it fits nowhere any more
                }
                min_heap::push(heap, &mut len, v, by_key);
            }
            while len > 0 && (slots[heap[0] as usize].hi as usize) < s {
                min_heap::pop(heap, &mut len, by_key);
            }
            let rem = self.sec[s].remaining;
            if rem > 0 && len > 0 && key(heap[0]).max(level) + rem > self.cap {
                return false;
            }
        }
        true
    }

    /// [`Search::feasible`] after placing `b`, whose placement raised the buffers of the undo
    /// records `raises[raised..nraise]` to `top = b.floor + b.size`, over its window `[w0, w1]`
    /// of part `[i, j)`, with the part feasible before (the invariant of [`Search::dfs`]) and
    /// the level and the raised buffers checked ([`Search::may_place`], `place`'s `fits`). The
    /// same answer with less work, section by section:
    /// * in `b`'s sections every unplaced buffer overlaps `b`, so its minimum offset is at
    ///   least `top`: the section fails where `top` plus its unplaced total is over the
    ///   capacity, passes where a raised buffer (at exactly `top`) is live, and is unknown
    ///   otherwise;
    /// * elsewhere a section no raised buffer crosses is as it was (it passes), and one a
    ///   raised buffer crosses has its lowest minimum offset at most `top`: it passes where
    ///   `top` fits, and is unknown otherwise.
    ///
    /// An unknown section passes only through an unplaced buffer whose minimum offset fits
    /// under the capacity less the section's total, so only those are swept, over the unknown
    /// sections' span. The raised buffers per section are counted in the sections' `pad`
    /// (a difference array, zero again on return). O(window + raised + k log k).
    pub(super) fn feasible_after(
        &mut self,
        b: &Slot,
        raised: usize,
        (w0, w1): (usize, usize),
        (i, j): (usize, usize),
    ) -> bool {
        let top = b.floor + b.size;
        for r in &self.raises[raised..self.nraise] {
            let c = &self.slots[r.slot as usize];
            self.sec[c.lo as usize].pad = self.sec[c.lo as usize].pad.wrapping_add(1);
            if (c.hi as usize) < w1 {
                self.sec[c.hi as usize + 1].pad = self.sec[c.hi as usize + 1].pad.wrapping_sub(1);
            }
        }
        // one pass: each section's raised count read, its `pad` left 1 where it is unknown
        let (mut live, mut failed, mut span, mut most) = (0u32, false, None, 0u64);
        for s in w0..=w1 {
            let sec = &mut self.sec[s];
            live = live.wrapping_add(sec.pad);
            sec.pad = 0;
            let rem = sec.remaining;
            if failed || rem == 0 {
                continue;
            }
            let unknown = if (b.lo as usize..=b.hi as usize).contains(&s) {
                failed = top + rem > self.cap;
                !failed && live == 0
            } else {
                live > 0 && top + rem > self.cap
            };
            if unknown {
                sec.pad = 1;
                span = Some((span.map_or(s, |(u0, _)| u0), s));
                most = most.max(self.cap - rem);
            }
        }
        let Some((u0, u1)) = span.filter(|_| !failed) else {
            for sec in &mut self.sec[w0..=w1] {
                sec.pad = 0;
            }
            return !failed;
        };
        // the unknown sections: the live unplaced buffers low enough to matter, by minimum offset
        let slots = &*self.slots;
        let heap = &mut *self.heap;
        let key = |v: u32| slots[v as usize].floor;
        let by_key = |a: u32, b: u32| key(a) < key(b);
        let (mut len, mut ok) = (0usize, true);
        let mut scan = self.open.scan((i, j), u0 as u32);
        for s in u0..=u1 {
            if !ok || self.sec[s].pad == 0 {
                self.sec[s].pad = 0;
                continue;
            }
            self.sec[s].pad = 0;
            while let Some(k) = scan.peek().filter(|&k| slots[self.by_lo[k] as usize].lo as usize <= s) {
                scan.take_peeked();
                let v = self.by_lo[k];
                let c = &slots[v as usize];
                if c.hi as usize >= u0 && c.floor <= most {
                    min_heap::push(heap, &mut len, v, by_key);
                }
            }
            while len > 0 && (slots[heap[0] as usize].hi as usize) < s {
                min_heap::pop(heap, &mut len, by_key);
            }
            ok = len > 0 && key(heap[0]) + self.sec[s].remaining <= self.cap;
        }
        ok
    }

    /// The largest unplaced total of the sections `[s0, s1)`, bytes: the monotonic floor of
    /// [`Search::may_place`] for every child of a node. O(sections).
    pub(super) fn most_remaining(&self, s0: usize, s1: usize) -> u64 {
        self.sec[s0..s1].iter().map(|x| x.remaining).max().unwrap_or(0)
    }

    /// The tests of a child before its placement at `at`, on this node's state (no placement
    /// needed). Every other unplaced buffer goes at or above its offset, so the largest of them
    /// (`other` bytes) must fit there. And the monotonic floor: no section of the part may hold
    /// more unplaced bytes than fit between `at` and the capacity (`most`, the part's
    /// [`Search::most_remaining`]). In the child's own sections the child itself counts: every
    /// other unplaced buffer there overlaps it, so it goes at or above its top, and the
    /// section's whole unplaced total (the child included) must fit above `at`, the test
    /// [`Search::feasible_after`] makes there after the placement, made here before it (a
    /// hatless child never fails it: its sections hold it alone, which fits). O(1).
    #[inline]
    pub(super) fn may_place(&self, at: u64, other: u64, most: u64) -> bool {
        Self::end(at, other) <= self.cap && most <= self.cap.saturating_sub(at)
    }
}
