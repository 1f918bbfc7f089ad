//! The `skyline` strategy: the branch and bound's placement rule without backtracking.
//! Uses: exact, sections, skyline_queue, workspace; used by: portfolio.
//!
//! The `skyline` strategy: the branch and bound of [`crate::place::exact`] without backtracking.
//! Each step places the unplaced buffer with the lowest *minimum offset* (the top of the
//! highest placed buffer it overlaps in time, MiniMalloc's left-justified offset; ties by a
//! static preorder rank) at that offset. Offsets placed are therefore non-decreasing, so the
//! tops of the placed buffers form a skyline over the time sections: placing `b` at `o`
//! raises the skyline to `o + size` over `b`'s sections, and a buffer's minimum offset is
//! the skyline's maximum over its sections.
//!
//! Data structures, no heap: the skyline is a bottom-up segment tree over the sections with
//! range-chmax updates and range-max queries (O(log s) each; its node maxima live in the
//! caller's section slice viewed as `u64`s, its pending chmax tags in the scratch slice); the
//! buffers wait as [`Placed`] entries keyed inline by (minimum offset when keyed, rank), in
//! the caller's placed slice: first the preorder itself (every key (0, rank)), then the
//! re-keyed ones in the queue of `skyline_queue.rs`. A popped buffer whose true
//! minimum offset has risen is pushed back with the new key, else it is placed.
//! O(n log n) for n buffers plus O(log n) per *re-key* (a popped buffer whose minimum offset
//! rose since it was keyed). Re-keys are few when lifetimes are short; a long lifetime under
//! a busy skyline is re-keyed about once per rise, so the worst case is O(n² log n):
//! `iopddl_S_1` (28,526 buffers, 43 million overlapping pairs) takes 23 million re-keys and
//! about 4.4 s per preorder. Deferring the buffers re-keyed most to the end was tried and
//! costs far more than it saves in peak (1.52 × LB there instead of 1.0023).
//!
//! Quality (`dramalloc quality --strategies skyline`): within 0.23 % of the max-load bound
//! on `iopddl_S_1`, where size-ordered first-fit is at 2.9 %; at the bound on 15 of the 15
//! real models, `iopddl_G_1` and `somas_resnet50`; 1.12–1.26 × on the hard DSA set.

use crate::place::exact::preorder;
use crate::place::sections::UNPLACED;
use crate::place::skyline_queue::Waiting;
use crate::workspace::{Placed, Scratch, Section, Slot};

/// Bottom-up segment tree over `p` leaves (a power of two): `t[1..2p]` subtree maxima,
/// `d[1..p]` chmax tags of internal nodes (a tag holds for every leaf below it).
pub(crate) struct Skyline<'a> {
    t: &'a mut [u64],
    d: &'a mut [u64],
    p: usize,
}

/// The tags go when the run ends, whichever way: `d` is the caller's scratch slice, whose
/// visit stamps a tree query after the run reads
/// ([`crate::liveness::interference::Graph::for_each_neighbour`]); a tag left there for a
/// stamp made first fit skip live neighbours (a fresh-user trial: first fit after a capped or
/// above-the-ceiling skyline run, and later `auto` members, returned overlapping plans `Ok`).
impl Drop for Skyline<'_> {
    fn drop(&mut self) {
        self.d.fill(0);
    }
}

impl<'a> Skyline<'a> {
    /// A flat skyline (every leaf 0) over `count` sections, its tree in `sections` (at least
    /// 2p/4 entries, p = `count` rounded up to a power of two) and its tags in `scratch` (at
    /// least p/2); `None` where either is shorter or `count` is 0. One entry per candidate in
    /// each is always enough for the sections of those candidates.
    pub(crate) fn flat(
        sections: &'a mut [Section],
        scratch: &'a mut [Scratch],
        count: usize,
    ) -> Option<Skyline<'a>> {
        if !Skyline::holds(sections, scratch, count) {
            return None;
        }
        let p = count.next_power_of_two();
        let t: &mut [u64] = bytemuck::cast_slice_mut(sections);
        let d: &mut [u64] = bytemuck::cast_slice_mut(scratch);
        let sky = Skyline { t: &mut t[..2 * p], d: &mut d[..p], p };
        sky.t.fill(0);
        sky.d.fill(0);
        Some(sky)
    }
}

impl Skyline<'_> {
    /// Whether [`Skyline::flat`] can hold a tree over `count` sections in these slices: `count`
    /// at least 1, `2p` `u64`s of `sections` and `p` of `scratch`.
    fn holds(sections: &[Section], scratch: &[Scratch], count: usize) -> bool {
        let p = count.next_power_of_two();
        count > 0 && core::mem::size_of_val(sections) >= 16 * p && core::mem::size_of_val(scratch) >= 8 * p
    }

    /// Every leaf of `[l, r)` becomes at least `v`.
    pub(crate) fn chmax(&mut self, l: usize, r: usize, v: u64) {
        let (mut l, mut r) = (l + self.p, r + self.p);
        let (l0, r0) = (l, r - 1);
        while l < r {
            if l & 1 == 1 {
                self.apply(l, v);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.apply(r, v);
            }
            l >>= 1;
            r >>= 1;
        }
        self.pull(l0);
        self.pull(r0);
    }

    fn apply(&mut self, i: usize, v: u64) {
        self.t[i] = self.t[i].max(v);
        if i < self.p {
            self.d[i] = self.d[i].max(v);
        }
    }

    /// Recomputes the maxima on the path from leaf `i` to the root.
    fn pull(&mut self, mut i: usize) {
        while i > 1 {
            i >>= 1;
            self.t[i] = self.t[2 * i].max(self.t[2 * i + 1]).max(self.d[i]);
        }
    }

    /// Maximum over the leaves `[l, r)`: the covering nodes' maxima and the tags on the two
    /// boundary paths (every covering node hangs off one of them).
    pub(crate) fn max(&self, l: usize, r: usize) -> u64 {
        let (mut l, mut r) = (l + self.p, r + self.p);
        let mut best = 0;
        // both paths climb together (the leaves are at one depth) and read their shared
        // ancestors once
        let (mut a, mut b) = (l >> 1, (r - 1) >> 1);
        while a != b {
            best = best.max(self.d[a]).max(self.d[b]);
            a >>= 1;
            b >>= 1;
        }
        while a >= 1 {
            best = best.max(self.d[a]);
            a >>= 1;
        }
        while l < r {
            if l & 1 == 1 {
                best = best.max(self.t[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = best.max(self.t[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        best
    }
}

/// Why [`skyline`] stopped before placing every buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It reached its re-key limit.
    Capped,
    /// A slice was too short (nothing was written).
    Storage,
    /// A buffer would end past `u64::MAX` (above a fixed slot near the top of the address
    /// space): no plan; the buffers placed before it keep their `at`.
    Overflow,
    /// A buffer ended in the caller's cutoff range, at this top (bytes): the buffers placed
    /// so far keep their `at`, the rest are unplaced.
    Above(u64),
}

/// How often (in re-keys) the `keep_going` callback of [`skyline`] is consulted.
pub const CHECK_EVERY: u64 = 4096;

/// Places the slots set up by [`crate::place::exact::prepare`] (`count` sections, their loads in
/// `remaining`) by the skyline rule with static preorder `h` (see [`preorder`]), from `start`
/// (bytes, aligned; sizes are multiples of the alignment, so every offset is too). Writes
/// each slot's address to `at` and returns the peak (bytes, `max(at + size)`).
///
/// A slot whose `at` is not [`UNPLACED`] on entry is *fixed* there (a pinned buffer, set up
/// by [`crate::place::sections::prepare_loads`] and its caller): it stays, and the skyline
/// starts raised to its top over its sections, so every buffer live with it goes above it
/// (valid wherever it is; wasteful where it sits high above the others, which the portfolio
/// judges by the peak like any member's). Its top counts in the peak. A buffer that would
/// end past `u64::MAX` there stops the run with [`Stop::Overflow`].
///
/// A buffer that ends inside `cutoff` (bytes; `0..0`: never) stops the run with
/// [`Stop::Above`]: the portfolio passes its best peak so far up to the general region's
/// ceiling, where no buffer the skyline placed moves again, so the plan could not be lower.
///
/// At most `max_rekeys` re-keys (`u64::MAX`: no limit); `keep_going` is asked every
/// [`CHECK_EVERY`] re-keys. Past the limit the run stops with [`Stop::Capped`] — or, with
/// `settle`, *settles*: each buffer popped from then on goes at its current minimum offset
/// without a re-key (a valid plan, no longer strictly lowest-offset-first, cheap). On
/// `false` from `keep_going` it settles the rest whatever `settle` says (a plan in
/// O(log n) per buffer left instead of none; the caller's clock is overrun by that much).
/// When it stops (capped, without `settle`), the buffers placed
/// so far keep their `at` and the rest are `UNPLACED`, so a caller can complete the plan
/// another way (the portfolio does, by first fit); either way the quadratic worst case stays
/// bounded.
///
/// Storage: `ids` and `heap` (the waiting buffers with their keys) at least n entries; `sections` (at least 2p/4 of them) and
/// `scratch` (at least p/2) hold the tree, p = `count` rounded up to a power of two, so one
/// entry per candidate in each is always enough. Returns `None` (slots' ranks and totals
/// changed, no address written) when a slice is too short.
///
/// `scratch` is left zeroed where the tree used it, so a tree query after the run (the
/// visit stamps of [`crate::liveness::interference::Graph::for_each_neighbour`]) never
/// reads a tag for a stamp: a fresh-user trial found first fit after a capped or
/// above-the-ceiling run skipping live neighbours there, an overlapping plan returned `Ok`.
#[allow(clippy::too_many_arguments)]
pub fn skyline(
    slots: &mut [Slot],
    sections: &mut [Section],
    count: usize,
    ids: &mut [u32],
    heap: &mut [Placed],
    scratch: &mut [Scratch],
    h: usize,
    start: u64,
    max_rekeys: u64,
    settle: bool,
    cutoff: core::ops::Range<u64>,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<u64, Stop> {
    let n = slots.len();
    let p = count.next_power_of_two();
    if count > n || ids.len() < n || heap.len() < n || !Skyline::holds(sections, scratch, count) {
        return Err(Stop::Storage);
    }
    // the section loads move to the slots' `sol` (free here) before the tree overwrites them
    for (slot, sec) in slots[..count].iter_mut().zip(sections.iter()) {
        slot.sol = sec.remaining;
    }
    let Some(mut sky) = Skyline::flat(sections, scratch, count) else {
        return Err(Stop::Storage);
    };
    for (leaf, slot) in sky.t[p..p + count].iter_mut().zip(slots.iter()) {
        *leaf = slot.sol;
    }
    for i in (1..p).rev() {
        sky.t[i] = sky.t[2 * i].max(sky.t[2 * i + 1]);
    }
    for s in slots.iter_mut() {
        s.total = sky.max(s.lo as usize, s.hi as usize + 1);
    }
    preorder(slots, &mut ids[..n], h);
    // the skyline starts flat at 0 (offsets below are relative to `start`), raised over each
    // fixed slot's sections to its top; all keys are (0, rank), so the preorder itself (less
    // the fixed slots) is the order of the first pops, and a key a fixed slot made stale is
    // re-keyed when popped
    sky.t.fill(0);
    sky.d.fill(0);
    // entries carry what a pop needs inline (`lo` = slot, `hi` = rank, `addr` =
    // minimum offset when keyed, `end` = first section << 32 | last section): a stale pop
    // touches no slot
    let (mut len, mut rekeys) = (0usize, 0u64);
    let mut peak = start;
    for &v in &ids[..n] {
        let c = &slots[v as usize];
        if c.at != UNPLACED {
            let top = c.at.saturating_add(c.size);
            sky.chmax(c.lo as usize, c.hi as usize + 1, top.saturating_sub(start));
            peak = peak.max(top);
            continue;
        }
        heap[len] = Placed { lo: v, hi: c.rank, addr: 0, end: (c.lo as u64) << 32 | c.hi as u64 };
        len += 1;
    }
    // the preorder's entries are taken in turn (keys (0, rank)): they come before every
    // re-keyed one (a re-key raises the offset to at least 1), which waits in the queue at
    // the front of `heap`, below the entries not yet taken (each taken entry frees its place)
    let (mut q, mut taken, mut out_of_time) = (Waiting::default(), 0usize, false);
    loop {
        let top = if taken < len {
            taken += 1;
            heap[taken - 1]
        } else if let Some(top) = q.pop(heap) {
            top
        } else {
            break;
        };
        let (lo, hi) = ((top.end >> 32) as usize, (top.end as u32) as usize + 1);
        let f = sky.max(lo, hi);
        if f > top.addr && !out_of_time && !(settle && rekeys == max_rekeys) {
            // its minimum offset rose since it was keyed: re-key and look again
            if rekeys == max_rekeys {
                return Err(Stop::Capped);
            }
            if rekeys % CHECK_EVERY == CHECK_EVERY - 1 && !keep_going() {
                // settle from here: `top` goes at its current minimum offset
                out_of_time = true;
            } else {
                rekeys += 1;
                q.push(heap, Placed { addr: f, ..top });
                continue;
            }
        }
        let s = &mut slots[top.lo as usize];
        // above a fixed slot near the top of the address space the top can pass 2^64 - 1
        let Some(rise) = f.checked_add(s.size).filter(|&r| r <= u64::MAX - start) else {
            return Err(Stop::Overflow);
        };
        s.at = start + f;
        sky.chmax(lo, hi, rise);
        peak = peak.max(start + rise);
        if cutoff.contains(&(start + rise)) {
            return Err(Stop::Above(start + rise));
        }
    }
    Ok(peak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::info::Info;
    use crate::place::exact::prepare;

    /// The skyline rule written plainly: O(n^2) scans.
    fn plain<const N: usize>(iv: &[(u32, u32, u64)], rank: &[u32]) -> (u64, [u64; N]) {
        let n = iv.len();
        let (mut floor, mut at, mut placed) = ([0u64; N], [0u64; N], [false; N]);
        let mut peak = 0;
        for _ in 0..n {
            let b = (0..n).filter(|&i| !placed[i]).min_by_key(|&i| (floor[i], rank[i])).unwrap();
            placed[b] = true;
            at[b] = floor[b];
            let top = floor[b] + iv[b].2;
            peak = peak.max(top);
            for c in 0..n {
                if !placed[c] && iv[c].0 <= iv[b].1 && iv[b].0 <= iv[c].1 {
                    floor[c] = floor[c].max(top);
                }
            }
        }
        (peak, at)
    }

    #[test]
    fn matches_the_plain_rule_on_random_instances() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut stopped = 0;
        for case in 0..2000 {
            let n = 1 + (next() % 8) as usize;
            let iv: [(u32, u32, u64); 8] = core::array::from_fn(|_| {
                let lo = (next() % 10) as u32;
                (lo, lo + (next() % 6) as u32, 1 + next() % 9)
            });
            let iv = &iv[..n];
            let infos: [Info; 8] = core::array::from_fn(|k| Info {
                aligned: iv[k.min(n - 1)].2,
                location: k as u32,
                ..Info::default()
            });
            let mut slots = [Slot::default(); 8];
            let mut secs = [Section::default(); 8];
            let (mut by_lo, mut ids, mut heap) = ([0u32; 8], [0u32; 8], [Placed::default(); 8]);
            let mut scratch = [Scratch::default(); 8];
            let interval = |i: &Info| (iv[i.location as usize].0, iv[i.location as usize].1);
            let count =
                prepare(&infos[..n], interval, 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
            let h = case % 3;
            let start = 64 * (case as u64 % 2);
            let peak = skyline(
                &mut slots[..n],
                &mut secs,
                count,
                &mut ids,
                &mut heap,
                &mut scratch,
                h,
                start,
                u64::MAX,
                false,
                0..0,
                &mut || true,
            )
            .unwrap();
            let rank: [u32; 8] = core::array::from_fn(|k| slots[k.min(n - 1)].rank);
            let (want, at) = plain::<8>(iv, &rank[..n]);
            assert_eq!(peak, start + want, "case {case}: {iv:?}");
            for k in 0..n {
                assert_eq!(slots[k].at, start + at[k], "case {case}: {iv:?}");
            }
            // with no re-key allowed the run gives the same plan, or stops capped with the
            // buffers placed before the first re-key where the full run put them
            let keep = slots;
            let count2 =
                prepare(&infos[..n], interval, 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
            match skyline(
                &mut slots[..n],
                &mut secs,
                count2,
                &mut ids,
                &mut heap,
                &mut scratch,
                h,
                start,
                0,
                false,
                0..0,
                &mut || true,
            ) {
                Ok(p) => {
                    assert_eq!(p, peak, "case {case}");
                    assert!((0..n).all(|k| slots[k].at == keep[k].at), "case {case}");
                }
                Err(stop) => {
                    assert_eq!(stop, Stop::Capped);
                    assert!(
                        (0..n).all(|k| slots[k].at == UNPLACED || slots[k].at == keep[k].at),
                        "case {case}"
                    );
                    stopped += 1;
                }
            }
        }
        assert!(stopped > 0 && stopped < 2000, "{stopped}");
    }

    /// Hundreds of buffers, a tenth of them long-lived: thousands of re-keys through the
    /// queue's heap and its refills, and the same plan as the plain rule, address by address.
    #[test]
    fn matches_the_plain_rule_through_many_rekeys() {
        const N: usize = 400;
        let mut x = 0xD1B5_4A32_D192_ED03u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..6 {
            let iv: [(u32, u32, u64); N] = core::array::from_fn(|_| {
                let lo = (next() % 300) as u32;
                let life = if next() % 10 == 0 { 50 + next() % 150 } else { next() % 6 };
                (lo, lo + life as u32, 1 + next() % 1000)
            });
            let infos: [Info; N] =
                core::array::from_fn(|k| Info { aligned: iv[k].2, location: k as u32, ..Info::default() });
            let mut slots = [Slot::default(); N];
            let mut secs = [Section::default(); N];
            let (mut by_lo, mut ids, mut heap) = ([0u32; N], [0u32; N], [Placed::default(); N]);
            let mut scratch = [Scratch::default(); N];
            let interval = |i: &Info| (iv[i.location as usize].0, iv[i.location as usize].1);
            let count = prepare(&infos, interval, 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
            let h = case % 3;
            let peak = skyline(
                &mut slots,
                &mut secs,
                count,
                &mut ids,
                &mut heap,
                &mut scratch,
                h,
                0,
                u64::MAX,
                false,
                0..0,
                &mut || true,
            )
            .unwrap();
            let rank: [u32; N] = core::array::from_fn(|k| slots[k].rank);
            let (want, at) = plain::<N>(&iv, &rank);
            assert_eq!(peak, want, "case {case}");
            for (k, slot) in slots.iter().enumerate() {
                assert_eq!(slot.at, at[k], "case {case}, buffer {k}");
            }
            // it took more than 500 re-keys: capped there, it stops
            prepare(&infos, interval, 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
            let capped = skyline(
                &mut slots,
                &mut secs,
                count,
                &mut ids,
                &mut heap,
                &mut scratch,
                h,
                0,
                500,
                false,
                0..0,
                &mut || true,
            );
            assert_eq!(capped, Err(Stop::Capped), "case {case}");
        }
    }

    #[test]
    fn short_storage_is_refused() {
        let mut slots = [Slot::default(); 4];
        let mut secs = [Section::default(); 1];
        let (mut ids, mut heap) = ([0u32; 4], [Placed::default(); 4]);
        // 3 sections need a tree of 8 u64 maxima: one Section holds 4
        let out = skyline(
            &mut slots,
            &mut secs,
            3,
            &mut ids,
            &mut heap,
            &mut [Scratch::default(); 4],
            0,
            0,
            u64::MAX,
            false,
            0..0,
            &mut || true,
        );
        assert_eq!(out, Err(Stop::Storage));
    }

    /// A fixed slot (its `at` set before the run) stays where it is, the buffers live with it
    /// go above it and the others from the start, and its top counts in the peak: A [0, 3]
    /// fixed at 100 (16 bytes), B [2, 5] and C [6, 9] (8 bytes each), from start 0: B at
    /// 116, C at 0, peak 124; with A fixed at 300 instead B goes to 316 (the skyline over a
    /// fixed slot is its top, wherever it sits), peak 324.
    #[test]
    fn a_fixed_slot_stays_and_raises_the_skyline_over_it() {
        let iv = [(0u32, 3u32, 16u64), (2, 5, 8), (6, 9, 8)];
        let infos: [Info; 3] =
            core::array::from_fn(|k| Info { aligned: iv[k].2, location: k as u32, ..Info::default() });
        let interval = |i: &Info| (iv[i.location as usize].0, iv[i.location as usize].1);
        for (fixed, want_b, want_peak) in [(100u64, 116u64, 124u64), (300, 316, 324)] {
            let mut slots = [Slot::default(); 3];
            let mut secs = [Section::default(); 3];
            let (mut by_lo, mut ids, mut heap) = ([0u32; 3], [0u32; 3], [Placed::default(); 3]);
            let mut scratch = [Scratch::default(); 3];
            let count = crate::place::sections::prepare_loads(
                &infos, interval, 0, &mut slots, &mut secs, &mut by_lo, &mut ids,
            )
            .unwrap();
            slots[0].at = fixed;
            let peak = skyline(
                &mut slots,
                &mut secs,
                count,
                &mut by_lo,
                &mut heap,
                &mut scratch,
                0,
                0,
                u64::MAX,
                false,
                0..0,
                &mut || true,
            )
            .unwrap();
            let at: [u64; 3] = core::array::from_fn(|k| slots[k].at);
            assert_eq!((peak, at), (want_peak, [fixed, want_b, 0]), "A fixed at {fixed}");
        }
    }
}
