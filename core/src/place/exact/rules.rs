//! What the branch and bound honours beyond the plan's alignment: each buffer's own offset
//! alignment and fixed (pinned) buffers as obstacles.
//! Uses: align, workspace; used by: mod.rs, search.rs, portfolio, sim.
//!
//! **Why the canonical search stays complete.** Take any plan and move each free buffer, one
//! at a time, to the lowest offset that is a multiple of its alignment and meets no fixed
//! buffer and no other buffer live with it; repeat until none moves (each move lowers the sum
//! of offsets, so it ends). In the result every free buffer sits at the lowest such offset
//! above the free buffers below it that it overlaps in time. Placing the free buffers in
//! address order then reproduces it exactly, each at [`Rules::lowest`] from its minimum offset
//! (the top of the highest placed free buffer it overlaps): that offset is the lowest multiple
//! of its alignment at or above it whose bytes meet no fixed buffer live with it. The search's
//! dominance and floors hold with those offsets; the section totals leave the fixed bytes out,
//! which only weakens the inference (every test stays a necessary condition).

use crate::align::align_up;
use crate::workspace::Slot;
use core::cell::Cell;

/// A fixed slot's `at` while the search runs: placed (every test skips it) but not one of
/// the free buffers whose tops set minimum offsets.
pub(super) const PINNED: u64 = u64::MAX - 1;

/// Placement rules for [`super::branch_and_bound_with`] beyond the plan's alignment.
/// [`Rules::NONE`] is MiniMalloc's problem: free buffers, offsets on multiples of the plan's
/// alignment only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rules<'a> {
    /// Each slot's offset alignment, bytes, indexed like the slots (0 and 1 mean none); an
    /// empty slice: none for every slot. A slot's offsets are multiples of it, so a caller
    /// planning at alignment `A` with per-buffer alignments `a` passes `lcm(A, a)` here.
    pub align: &'a [u64],
    /// The fixed slots, as indices into the slots, sorted by address: each stays at its
    /// `best` (its fixed address, bytes) and is an obstacle to the free slots live with it.
    pub pinned: &'a [u32],
    /// Scratch of at least one entry a slot (or none): the search remembers there each free
    /// slot's offset for its current minimum offset, `[minimum offset, offset]` (bytes), so a
    /// node lists its children without walking the fixed slots again for the slots whose
    /// minimum offset did not move. Made from a `&mut [[u64; 2]]` by
    /// `Cell::from_mut(s).as_slice_of_cells()`; overwritten.
    pub memo: &'a [Cell<[u64; 2]>],
}

impl Rules<'_> {
    /// No rules beyond the plan's alignment.
    pub const NONE: Rules<'static> = Rules { align: &[], pinned: &[], memo: &[] };

    /// True when these rules change nothing (every offset is a minimum offset).
    pub fn is_none(&self) -> bool {
        self.pinned.is_empty() && self.align.iter().all(|&a| a <= 1)
    }

    /// True when the rules fit `slots`: an alignment per slot or none, fixed indices in range,
    /// sorted by address, without repeats, a memo of a slot's entry each or none.
    pub fn fit(&self, slots: &[Slot]) -> bool {
        let n = slots.len();
        (self.align.is_empty() || self.align.len() == n)
            && (self.memo.is_empty() || self.memo.len() >= n)
            && self.pinned.iter().all(|&p| (p as usize) < n)
            && self.pinned.windows(2).all(|w| {
                let (a, b) = (&slots[w[0] as usize], &slots[w[1] as usize]);
                (a.best, w[0]) < (b.best, w[1])
            })
    }

    /// The lowest offset at or above `from` (bytes) for slot `v`: a multiple of its alignment
    /// whose `size` bytes meet no fixed slot live with it (sections overlapping). One pass
    /// over the fixed slots by address, stopping at the first that starts past the buffer.
    /// `u64::MAX` where no such offset is below 2^64.
    ///
    /// ```
    /// use dramalloc_core::place::exact::Rules;
    /// use dramalloc_core::workspace::Slot;
    /// let mut slots = [Slot { lo: 0, hi: 2, size: 8, ..Slot::default() }; 3];
    /// slots[1].best = 4; // fixed at [4, 12), live with slot 0
    /// slots[2] = Slot { lo: 3, hi: 3, size: 100, best: 12, ..Slot::default() }; // not live with it
    /// let rules = Rules { align: &[16, 1, 1], pinned: &[1, 2], memo: &[] };
    /// // 0 collides with [4, 12); 12 is the first free byte, 16 the first multiple of 16
    /// assert_eq!(rules.lowest(&slots, 0, 0), 16);
    /// assert_eq!(Rules { align: &[], ..rules }.lowest(&slots, 0, 0), 12);
    /// ```
    pub fn lowest(&self, slots: &[Slot], v: usize, from: u64) -> u64 {
        self.lowest_near(slots, v, from, u64::MAX).0
    }

    /// [`Rules::lowest`] where no fixed slot is larger than `reach` bytes: the fixed slots
    /// starting `reach` or more below the first candidate offset end at or below it and are
    /// skipped by a binary search. Also returns the fixed slots visited (plus the search's
    /// steps), the work the caller charges.
    pub(super) fn lowest_near(&self, slots: &[Slot], v: usize, from: u64, reach: u64) -> (u64, u64) {
        let c = &slots[v];
        let a = self.align.get(v).copied().unwrap_or(1).max(1);
        let Some(mut x) = align_up(from, a) else {
            return (u64::MAX, 1);
        };
        let first = self.pinned.partition_point(|&p| slots[p as usize].best.saturating_add(reach) <= x);
        let mut visits = u64::from(usize::BITS - self.pinned.len().leading_zeros());
        for &p in &self.pinned[first..] {
            let o = &slots[p as usize];
            visits += 1;
            if o.best >= x.saturating_add(c.size) {
                break;
            }
            let end = o.best.saturating_add(o.size);
            if end > x && o.lo <= c.hi && c.lo <= o.hi {
                match align_up(end, a) {
                    Some(up) => x = up,
                    None => return (u64::MAX, visits),
                }
            }
        }
        (x, visits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::info::Info;
    use crate::place::exact::{branch_and_bound_with, Budget, Schedule};
    use crate::place::sections::{prepare_loads, UNPLACED};
    use crate::test_rng::XorShift;
    use crate::workspace::{Raise, Section};

    /// One buffer of a case: closed lifetime, size, own alignment, fixed address.
    #[derive(Clone, Copy, Default, Debug)]
    struct B {
        lo: u32,
        hi: u32,
        size: u64,
        align: u64,
        fixed: Option<u64>,
    }

    fn live(a: &B, b: &B) -> bool {
        a.lo <= b.hi && b.lo <= a.hi
    }

    /// The lowest peak over every order of the free buffers, each at 0 or a placed neighbour's
    /// end (fixed ones included) rounded up to its alignment, where it meets no neighbour:
    /// every plan pushes down to one of those.
    fn brute(bs: &[B]) -> u64 {
        fn rec(bs: &[B], at: &mut [Option<u64>; 6], best: &mut u64) {
            let peak = (0..bs.len()).filter_map(|k| at[k].map(|a| a + bs[k].size)).max().unwrap_or(0);
            if peak >= *best {
                return;
            }
            let Some(_) = (0..bs.len()).find(|&k| at[k].is_none()) else {
                *best = peak;
                return;
            };
            for v in 0..bs.len() {
                if at[v].is_some() {
                    continue;
                }
                let b = bs[v];
                let mut cands = [0u64; 7];
                let mut m = 1;
                for u in 0..bs.len() {
                    if let Some(a) = at[u].filter(|_| live(&bs[u], &b)) {
                        cands[m] = (a + bs[u].size).div_ceil(b.align) * b.align;
                        m += 1;
                    }
                }
                for &o in &cands[..m] {
                    let ok = (0..bs.len()).all(|u| {
                        at[u].is_none_or(|a| !live(&bs[u], &b) || o + b.size <= a || a + bs[u].size <= o)
                    });
                    if ok {
                        at[v] = Some(o);
                        rec(bs, at, best);
                        at[v] = None;
                    }
                }
            }
        }
        let mut at = [None; 6];
        for (k, b) in bs.iter().enumerate() {
            at[k] = b.fixed;
        }
        let mut best = u64::MAX;
        rec(bs, &mut at, &mut best);
        best
    }

    /// Random cases of 2 to 6 buffers with own alignments and up to two fixed ones: the
    /// search with [`Rules`] from an incumbent above every plan reaches the exhaustive optimum
    /// and proves it, every plan honours the alignments, the fixed addresses and the
    /// neighbours, and the slots' `at` and the section totals are left as they were. Every third case has too
    /// few undo records (the search rebuilds minimum offsets instead).
    #[test]
    fn finds_the_optimum_with_alignments_and_fixed_buffers() {
        let mut r = XorShift(0xA11C_E5ED);
        let (mut fixed_cases, mut nodes) = (0, 0u64);
        for case in 0..600 {
            let n = 2 + r.below(5) as usize;
            let mut bs = [B::default(); 6];
            for b in &mut bs[..n] {
                let lo = r.below(6) as u32;
                let align = [1, 1, 2, 3, 4, 8, 10, 16][r.below(8) as usize];
                *b = B { lo, hi: lo + r.below(4) as u32, size: 1 + r.below(20), align, fixed: None };
            }
            // up to two fixed, apart from the fixed ones live with them
            for _ in 0..r.below(3) {
                let k = r.below(n as u64) as usize;
                let o = r.below(40).div_ceil(bs[k].align) * bs[k].align;
                let clear = (0..n).all(|u| {
                    u == k
                        || bs[u].fixed.is_none_or(|a| {
                            !live(&bs[u], &bs[k]) || o + bs[k].size <= a || a + bs[u].size <= o
                        })
                });
                if clear {
                    bs[k].fixed = Some(o);
                }
            }
            let bs = &bs[..n];
            let opt = brute(bs);
            let infos: [Info; 6] = core::array::from_fn(|k| Info {
                aligned: bs[k.min(n - 1)].size,
                location: k as u32,
                ..Info::default()
            });
            let (mut slots, mut secs) = ([Slot::default(); 6], [Section::default(); 12]);
            let (mut by_lo, mut ids) = ([0u32; 6], [0u32; 6]);
            let at = |i: &Info| (bs[i.location as usize].lo, bs[i.location as usize].hi);
            let count =
                prepare_loads(&infos[..n], at, 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
            let before = secs;
            let lb = secs[..count].iter().map(|s| s.remaining).max().unwrap();
            let mut pinned = [0u32; 6];
            let mut p = 0;
            for k in 0..n {
                if let Some(a) = bs[k].fixed {
                    slots[k].best = a;
                    pinned[p] = k as u32;
                    p += 1;
                }
            }
            pinned[..p].sort_unstable_by_key(|&k| (slots[k as usize].best, k));
            fixed_cases += (p > 0) as u32;
            let align: [u64; 6] = core::array::from_fn(|k| bs[k.min(n - 1)].align);
            let mut memo = [[0u64; 2]; 6];
            let memo =
                &Cell::from_mut(&mut memo[..]).as_slice_of_cells()[..if case % 2 == 0 { n } else { 0 }];
            let rules = Rules { align: &align[..n], pinned: &pinned[..p], memo };
            let mut raises = [Raise::default(); 64];
            let room = if case % 3 == 0 { 2 } else { 64 };
            let mut go = || true;
            let mut budget = Budget::new(1 << 20, 0, &mut go);
            let incumbent = 10_000;
            let out = branch_and_bound_with(
                &mut slots[..n],
                &mut secs[..count],
                &by_lo[..n],
                &mut ids,
                &mut raises[..room],
                (0, lb, incumbent, 1),
                rules,
                Schedule::DEFAULT,
                &mut budget,
            );
            assert_eq!((out.peak, out.optimal, out.improved), (opt, true, true), "case {case}: {bs:?}");
            nodes += out.nodes;
            for a in 0..n {
                let x = slots[a].best;
                assert!(x.is_multiple_of(bs[a].align) && x + bs[a].size <= opt, "case {case}");
                assert!(bs[a].fixed.is_none_or(|f| f == x), "case {case}: fixed moved");
                assert_eq!(slots[a].at, UNPLACED);
                for b in a + 1..n {
                    let y = slots[b].best;
                    let apart = x + bs[a].size <= y || y + bs[b].size <= x;
                    assert!(!live(&bs[a], &bs[b]) || apart, "case {case}: {a} and {b} overlap");
                }
            }
            let totals = |s: &[Section]| -> [u64; 12] {
                core::array::from_fn(|k| s.get(k).map_or(0, |x| x.remaining))
            };
            assert_eq!(
                totals(&secs[..count]),
                totals(&before[..count]),
                "case {case}: section totals changed"
            );
        }
        // the cases' fixed buffers and the nodes the 600 searches expanded
        assert_eq!((fixed_cases, nodes), (400, 30_631));
    }

    /// The lowest offset from a minimum offset: past a fixed slot live with it, rounded up to
    /// its alignment; a fixed slot not live with it, or ending below, is no obstacle; with a
    /// reach (the largest fixed size) the ones further below are skipped, the same answer;
    /// past `u64` none (`u64::MAX`).
    #[test]
    fn lowest_goes_past_fixed_slots_live_with_it() {
        let mut slots = [Slot { lo: 0, hi: 2, size: 8, ..Slot::default() }; 4];
        slots[1].best = 4; // [4, 12), live with slot 0
        slots[2] = Slot { lo: 3, hi: 3, size: 100, best: 12, ..Slot::default() }; // not live with it
        slots[3] = Slot { lo: 1, hi: 1, size: 4, best: 30, ..Slot::default() }; // [30, 34), live
        let rules = Rules { align: &[16, 1, 1, 1], pinned: &[1, 2, 3], memo: &[] };
        assert_eq!(rules.lowest(&slots, 0, 0), 16);
        assert_eq!(rules.lowest(&slots, 0, 17), 48); // 17 -> 32 meets [30, 34): 34 -> 48
        assert_eq!(rules.lowest_near(&slots, 0, 17, 8).0, 48);
        let plain = Rules { align: &[], ..rules };
        assert_eq!(
            (plain.lowest(&slots, 0, 0), plain.lowest(&slots, 0, 12), plain.lowest(&slots, 0, 23)),
            (12, 12, 34)
        );
        let high = Rules { align: &[1 << 63, 1, 1, 1], ..rules };
        assert_eq!((high.lowest(&slots, 0, 1), high.lowest(&slots, 0, (1 << 63) + 1)), (1 << 63, u64::MAX));
    }

    /// A slot whose only offset is 0 (an alignment of `u64::MAX`, as the front end passes an
    /// lcm past `u64`) live with another: once the other is at 0 it fits nowhere (its offset
    /// `u64::MAX`), which must end that branch, not count as every slot placed. A fresh-user
    /// trial's two rows (4,096-byte footprints, alignments 12,288 and 2^61 − 1 at `--align
    /// 4096`) came out both at 0, peak 4,096 "proven optimal" below the bound 8,192: the search
    /// took a top of `u64::MAX` for "nothing left to place". The optimum is 0 and 12,288.
    #[test]
    fn a_slot_that_fits_nowhere_ends_its_branch() {
        let infos = [
            Info { aligned: 4096, location: 0, ..Info::default() },
            Info { aligned: 4096, location: 1, ..Info::default() },
        ];
        let (mut slots, mut secs) = ([Slot::default(); 2], [Section::default(); 2]);
        let (mut by_lo, mut ids) = ([0u32; 2], [0u32; 2]);
        let count =
            prepare_loads(&infos, |i| (0, 1 + i.location), 0, &mut slots, &mut secs, &mut by_lo, &mut ids)
                .unwrap();
        (slots[0].best, slots[1].best) = (12_288, 0);
        let mut go = || true;
        let mut budget = Budget::new(1 << 20, 0, &mut go);
        let rules = Rules { align: &[12_288, u64::MAX], pinned: &[], memo: &[] };
        let out = branch_and_bound_with(
            &mut slots,
            &mut secs[..count],
            &by_lo,
            &mut ids,
            &mut [Raise::default(); 16],
            (0, 8192, 16_384, 1),
            rules,
            Schedule::DEFAULT,
            &mut budget,
        );
        assert_eq!((out.peak, out.optimal, out.improved), (16_384, true, false));
        assert_eq!((slots[0].best, slots[1].best), (12_288, 0));
    }

    /// Rules that do not fit the slots are declined: the incumbent comes back unsearched.
    #[test]
    fn rules_that_do_not_fit_are_declined() {
        let mut slots = [Slot { size: 4, ..Slot::default() }; 3];
        slots[1].best = 8;
        let unsorted = Rules { align: &[], pinned: &[1, 0], memo: &[] };
        let out_of_range = Rules { align: &[], pinned: &[3], memo: &[] };
        let short_align = Rules { align: &[1, 2], pinned: &[], memo: &[] };
        let repeated = Rules { align: &[], pinned: &[1, 1], memo: &[] };
        let mut two = [[0u64; 2]; 2];
        let short_memo =
            Rules { align: &[], pinned: &[], memo: Cell::from_mut(&mut two[..]).as_slice_of_cells() };
        for rules in [unsorted, out_of_range, short_align, repeated, short_memo] {
            assert!(!rules.fit(&slots));
        }
        assert!(Rules { align: &[1, 2, 4], pinned: &[0, 1], memo: &[] }.fit(&slots));
        assert!(Rules::NONE.is_none() && Rules { align: &[1, 0, 1], pinned: &[], memo: &[] }.is_none());
        assert!(!Rules { align: &[1, 2, 1], pinned: &[], memo: &[] }.is_none());
        let mut secs = [Section { remaining: 12, ..Section::default() }; 1];
        let mut go = || true;
        let mut budget = Budget::new(100, 0, &mut go);
        let out = branch_and_bound_with(
            &mut slots,
            &mut secs,
            &[0, 1, 2],
            &mut [0; 3],
            &mut [Raise::default(); 8],
            (0, 12, 20, 1),
            unsorted,
            Schedule::DEFAULT,
            &mut budget,
        );
        assert_eq!((out.peak, out.nodes, out.optimal, out.improved), (20, 0, false, false));
    }
}
