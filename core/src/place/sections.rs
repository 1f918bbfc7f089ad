//! Time sections of the branch and bound and the skyline: one per distinct last instruction.
//! Uses: gather, liveness, workspace; used by: exact, portfolio, skyline.
//!
//! Time sections of the branch and bound ([`crate::place::exact`]), after the sweep of MiniMalloc
//! (Moffitt, ASPLOS 2023): the time axis is swept once and a *section* is cut at every
//! distinct last instruction: the set of buffers live at that instruction. Every maximal
//! clique of the interval graph is one of them, so two buffers overlap in time exactly when
//! they share a section; every buffer covers a contiguous range of sections; there are at
//! most n sections. The smaller (non-maximal) sections are kept on purpose: their floors are
//! the lowest offsets of fewer buffers, so section inference prunes more with them.
//!
//! Complexity O(n log n) (two sorts and a merge), no heap: the caller lends the slot, section
//! and two index slices.

use crate::liveness::info::Info;
use crate::place::gather::GATHER;
use crate::workspace::{Section, Slot};

/// `Slot::at` of a buffer the search has not placed.
pub const UNPLACED: u64 = u64::MAX;

/// Sets up slots and sections for the candidates `infos` (one closed interval each, `(lo,
/// hi)` instructions from `interval`), all floors at `start` (bytes); keeps every slot's
/// `best` (the caller's incumbent plan). On return `by_lo[..n]` holds the candidates sorted
/// by first instruction (ties by index) and `by_hi[..n]` by last instruction. Returns the
/// section count, or `None` (nothing changed but scratch) when a slice is shorter than n,
/// `n == 0` or a candidate is pinned (the branch and bound and the skyline place every
/// slot; [`prepare_loads`] takes pinned candidates too).
pub fn prepare(
    infos: &[Info],
    interval: impl Fn(&Info) -> (u32, u32),
    start: u64,
    slots: &mut [Slot],
    sections: &mut [Section],
    by_lo: &mut [u32],
    by_hi: &mut [u32],
) -> Option<usize> {
    if infos.iter().any(Info::is_pinned) {
        return None;
    }
    prepare_loads(infos, interval, start, slots, sections, by_lo, by_hi)
}

/// As [`prepare`], pinned candidates included: for the section loads alone
/// ([`section_totals`]: a pinned buffer's bytes count in every section it is live in, as
/// any other's), which the load orders of the greedy members and the repair rank by.
pub fn prepare_loads(
    infos: &[Info],
    interval: impl Fn(&Info) -> (u32, u32),
    start: u64,
    slots: &mut [Slot],
    sections: &mut [Section],
    by_lo: &mut [u32],
    by_hi: &mut [u32],
) -> Option<usize> {
    let n = infos.len();
    if slots.len() < n || sections.len() < n || by_lo.len() < n || by_hi.len() < n || n == 0 {
        return None;
    }
    // the starts and the ends as `(time << 32) | candidate` keys in the sections' storage
    // (written only after the merge), sorted as plain integers: sorting the indices by a key
    // read from each slot missed the cache at every comparison where the candidates are not
    // numbered in time order (10^6 such rows: 0.23 s of the repair's set-up)
    let keys: &mut [u64] = bytemuck::cast_slice_mut(&mut sections[..n]);
    let (lo_keys, rest) = keys.split_at_mut(n);
    let hi_keys = &mut rest[..n];
    for (k, info) in infos.iter().enumerate() {
        let (lo, hi) = interval(info);
        let best = slots[k].best;
        slots[k] = Slot {
            lo,
            hi,
            size: info.aligned,
            floor: start,
            best,
            at: UNPLACED,
            total: 0,
            sol: 0,
            // saturating: `[0, u32::MAX]` is 2^32 instructions wide (a rank key only)
            width: (hi - lo).saturating_add(1),
            rank: 0,
        };
        lo_keys[k] = (u64::from(lo) << 32) + k as u64;
        hi_keys[k] = (u64::from(hi) << 32) + k as u64;
    }
    lo_keys.sort_unstable();
    hi_keys.sort_unstable();
    let (by_lo, by_hi) = (&mut by_lo[..n], &mut by_hi[..n]);
    // Merge the starts and ends (starts first on ties: closed intervals touching at an
    // instruction overlap). A start's time is not needed after it is seen, an end's after its
    // end, so the section indices overwrite the times in place.
    let (mut i, mut count, mut last) = (0usize, 0usize, None);
    for (j, &e) in hi_keys.iter().enumerate() {
        let t = (e >> 32) as u32;
        while i < n && (lo_keys[i] >> 32) as u32 <= t {
            let k = lo_keys[i] as u32;
            by_lo[i] = k;
            slots[k as usize].lo = count as u32;
            i += 1;
        }
        if last != Some(t) {
            count += 1;
            last = Some(t);
        }
        by_hi[j] = e as u32;
        slots[e as u32 as usize].hi = (count - 1) as u32;
    }
    for s in &mut sections[..count] {
        *s = Section::default();
    }
    // remaining per section by a difference array (floor: additions, low: removals)
    for s in &slots[..n] {
        sections[s.lo as usize].floor += s.size;
        if (s.hi as usize) + 1 < count {
            sections[s.hi as usize + 1].low += s.size;
        }
    }
    let mut run = 0u64;
    for s in &mut sections[..count] {
        // ends first: `run - low + floor` is this section's load, at most the largest load
        // (which the planner checks fits in u64); `run + floor` first could pass it
        run = run - s.low + s.floor;
        *s = Section { floor: start, remaining: run, ..Section::default() };
    }
    Some(count)
}

/// Sets every slot's `total` to the largest `remaining` of the sections it covers (the
/// section totals MiniMalloc's preorders rank by), after [`prepare`] with the same slots and
/// sections and `by_hi` = its second order (the slots by last section). A monotone stack of
/// section indices in the sections' `cuts` fields (zero again afterwards) answers each range
/// maximum by a binary search: O((n + count) log count), no extra storage.
pub fn section_totals(slots: &mut [Slot], sections: &mut [Section], count: usize, by_hi: &[u32]) {
    let mut len = 0usize; // stack: sections[..len].cuts, indices with decreasing remaining
    let mut r = 0usize; // sections pushed
    for chunk in by_hi.chunks(GATHER) {
        // the chunk's sections read first in one short loop: where the candidates are not
        // numbered in time order each read misses the cache, and here the misses overlap
        let mut span = [(0u32, 0u32); GATHER];
        for (g, &v) in span.iter_mut().zip(chunk) {
            let s = &slots[v as usize];
            *g = (s.lo, s.hi);
        }
        for (&v, &(lo, hi)) in chunk.iter().zip(&span) {
            // every section up to the slot's last on the stack (the slots come by last section;
            // `hi` is a section index, below `count`)
            while r <= hi as usize {
                while len > 0 && sections[sections[len - 1].cuts as usize].remaining <= sections[r].remaining
                {
                    len -= 1;
                }
                sections[len].cuts = r as u32;
                len += 1;
                r += 1;
            }
            // the first stack entry at or after the slot's first section holds the maximum
            let (mut a, mut b) = (0usize, len);
            while a < b {
                let m = (a + b) / 2;
                if (sections[m].cuts as usize) < lo as usize {
                    a = m + 1;
                } else {
                    b = m;
                }
            }
            slots[v as usize].total = sections[sections[a].cuts as usize].remaining;
        }
    }
    for sec in &mut sections[..count] {
        sec.cuts = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_section_per_distinct_end() {
        // a [0,4], b [2,6], c [5,9], d [8,8]: {a,b} at 4, {b,c} at 6, {c,d} at 8, {c} at 9
        let iv = [(0u32, 4u32), (2, 6), (5, 9), (8, 8)];
        let infos: [Info; 4] =
            core::array::from_fn(|k| Info { aligned: 1 + k as u64, location: k as u32, ..Info::default() });
        let mut slots = [Slot::default(); 4];
        let mut secs = [Section::default(); 4];
        let (mut a, mut b) = ([0u32; 4], [0u32; 4]);
        let count =
            prepare(&infos, |i| iv[i.location as usize], 0, &mut slots, &mut secs, &mut a, &mut b).unwrap();
        assert_eq!(count, 4);
        let ranges: [(u32, u32); 4] = core::array::from_fn(|k| (slots[k].lo, slots[k].hi));
        assert_eq!(ranges, [(0, 0), (0, 1), (1, 3), (2, 2)]);
        let rem: [u64; 4] = core::array::from_fn(|s| secs[s].remaining);
        assert_eq!(rem, [3, 5, 7, 3]);
        section_totals(&mut slots, &mut secs, count, &b);
        let totals: [u64; 4] = core::array::from_fn(|k| slots[k].total);
        assert_eq!(totals, [3, 5, 7, 7]); // d lies in the section of total 7
        assert!(secs.iter().all(|s| s.cuts == 0));
    }

    /// Every slice one entry short, no candidates, or a pinned candidate: `None`, with the
    /// slots untouched; a floor above 0 is every slot's and every section's floor.
    #[test]
    fn short_storage_empty_and_pinned_input_are_declined() {
        let iv = [(0u32, 4u32), (2, 6), (5, 9)];
        let infos: [Info; 3] =
            core::array::from_fn(|k| Info { aligned: 8, location: k as u32, ..Info::default() });
        let at = |i: &Info| iv[i.location as usize];
        for short in 0..4 {
            let cut = |k: usize| if k == short { 2 } else { 3 };
            let mut slots = [Slot { best: 77, ..Slot::default() }; 3];
            let mut secs = [Section::default(); 3];
            let (mut a, mut b) = ([0u32; 3], [0u32; 3]);
            let out = prepare(
                &infos,
                at,
                0,
                &mut slots[..cut(0)],
                &mut secs[..cut(1)],
                &mut a[..cut(2)],
                &mut b[..cut(3)],
            );
            assert_eq!(out, None, "slice {short} short");
            assert!(slots.iter().all(|s| s.at == 0 && s.best == 77), "slice {short}");
        }
        let (mut slots, mut secs, mut a, mut b) =
            ([Slot::default(); 3], [Section::default(); 3], [0u32; 3], [0u32; 3]);
        assert_eq!(prepare(&infos[..0], at, 0, &mut slots, &mut secs, &mut a, &mut b), None);
        let mut pinned = infos;
        pinned[1] = Info { allocated: 1, pinned: 1, address: 64, ..pinned[1] };
        assert!(pinned[1].is_pinned());
        assert_eq!(prepare(&pinned, at, 0, &mut slots, &mut secs, &mut a, &mut b), None);
        // for the loads alone a pinned buffer counts as any other: the same sections
        assert_eq!(prepare_loads(&pinned, at, 0, &mut slots, &mut secs, &mut a, &mut b), Some(3));
        section_totals(&mut slots, &mut secs, 3, &b);
        let totals: [u64; 3] = core::array::from_fn(|k| slots[k].total);
        assert_eq!(totals, [16, 16, 16]);
        assert_eq!(prepare(&infos, at, 4096, &mut slots, &mut secs, &mut a, &mut b), Some(3));
        assert!(slots.iter().all(|s| s.floor == 4096 && s.at == UNPLACED));
        assert!(secs.iter().all(|s| s.floor == 4096));
    }
}
