//! The `exact` strategy: an anytime branch and bound over canonical placements, after
//! MiniMalloc (Moffitt, ASPLOS 2023) and TelaMalloc (ASPLOS 2023), written here from their
//! published ideas (see `planning-algorithms.md`).
//!
//! **Model.** The time axis is cut at every interval boundary into *sections*; each section
//! keeps a *floor* (top of the highest placed buffer crossing it) and the *remaining* total
//! size of the unplaced buffers crossing it. Buffers are placed in non-decreasing offset
//! order, each *left-justified*: at the highest floor under it, but not below the offset of
//! the buffer placed before (the *level*). Every plan can be sorted by offset and pushed
//! down into such a sequence without raising its peak, so the search loses no optimum.
//!
//! **Pruning.**
//! - *Section inference*: a node is dropped when some section's `max(floor, level) +
//!   remaining` exceeds the capacity being tried.
//! - *Dynamic ordering*: children are tried by smallest offset, then larger size, then
//!   longer lifetime.
//! - *Dominance*: a buffer `d` is not tried while another unplaced buffer `c` would fit
//!   entirely below `d`'s offset (`offset(c) + size(c) <= offset(d)`): choosing `d` would turn
//!   that space into waste that `c` could have used at no cost.
//! - *Symmetry*: buffers at the same offset never overlap in time, so they are placed in
//!   index order only.
//!
//! **Anytime.** The search starts from the best greedy peak (the caller's plan) and first asks
//! for a plan at the lower bound (capacity = LB; most instances that have one are solved
//! quickly this way), then runs branch and bound with the capacity tightened below each plan
//! found. It stops at the lower bound, when the search space is exhausted (the plan is then
//! optimal), after `max_nodes` nodes, or when the caller's `keep_going` callback returns
//! false (checked every [`CHECK_EVERY`] nodes; a host passes a clock, firmware a counter).
//! The best plan found is kept in the workspace slots.
//!
//! Complexity per node O(n + sections + sum of touched spans); memory: one [`Slot`] per
//! candidate and up to `2n` [`Section`]s of the caller's workspace, no heap.
//! Applies to one-interval, unpinned candidates whose sizes are multiples of the alignment.

use crate::info::Info;
use crate::workspace::{Section, Slot};

/// How often (in nodes) the `keep_going` callback is consulted.
pub const CHECK_EVERY: u64 = 256;

const UNPLACED: u64 = u64::MAX;

/// What one branch-and-bound run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExactOutcome {
    /// Search nodes expanded.
    pub nodes: u64,
    /// Best peak found, bytes (the incumbent when nothing better was found).
    pub peak: u64,
    /// True when the best peak is proven optimal (equals the lower bound, or the search
    /// space was exhausted).
    pub optimal: bool,
    /// True when the search improved on the incumbent (the slots' `best` addresses changed).
    pub improved: bool,
    /// True when the node limit or the caller's callback ended the search.
    pub stopped: bool,
}

/// Limits of one run.
pub struct Budget<'a> {
    /// Node limit (deterministic).
    pub max_nodes: u64,
    /// Called every [`CHECK_EVERY`] nodes; returning false stops the search.
    pub keep_going: &'a mut dyn FnMut() -> bool,
}

impl core::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Budget").field("max_nodes", &self.max_nodes).finish_non_exhaustive()
    }
}

/// The problem as the search sees it.
struct Search<'a> {
    slots: &'a mut [Slot],
    sec: &'a mut [Section],
    /// Floor of an empty section (the allocation start), bytes.
    start: u64,
    cap: u64,
    nodes: u64,
    stop: bool,
}

#[inline]
fn overlaps(a: &Slot, b: &Slot) -> bool {
    a.lo <= b.hi && b.lo <= a.hi
}

impl Search<'_> {
    #[inline]
    fn offset(&self, v: usize, level: u64) -> u64 {
        self.slots[v].floor.max(level)
    }

    /// Places `b` at `at`: raises its sections' floors and its unplaced neighbours' floors.
    fn place(&mut self, b: usize, at: u64) {
        let s = self.slots[b];
        let end = at + s.size;
        for sec in &mut self.sec[s.lo as usize..=s.hi as usize] {
            sec.floor = end;
            sec.remaining -= s.size;
        }
        self.slots[b].at = at;
        for c in self.slots.iter_mut() {
            if c.at == UNPLACED && overlaps(c, &s) && c.floor < end {
                c.floor = end;
            }
        }
    }

    /// Undoes the placement of `b` (the last placed buffer).
    fn unplace(&mut self, b: usize) {
        let s = self.slots[b];
        let end = s.at + s.size;
        self.slots[b].at = UNPLACED;
        for sec in &mut self.sec[s.lo as usize..=s.hi as usize] {
            sec.floor = self.start;
            sec.remaining += s.size;
        }
        for p in self.slots.iter() {
            if p.at != UNPLACED && overlaps(p, &s) {
                let (lo, hi) = (p.lo.max(s.lo), p.hi.min(s.hi));
                let e = p.at + p.size;
                for sec in &mut self.sec[lo as usize..=hi as usize] {
                    if sec.floor < e {
                        sec.floor = e;
                    }
                }
            }
        }
        let sec = &*self.sec;
        for c in self.slots.iter_mut() {
            if c.at == UNPLACED && c.floor == end && overlaps(c, &s) {
                c.floor = sec[c.lo as usize..=c.hi as usize].iter().map(|x| x.floor).max().unwrap_or(0);
            }
        }
    }

    /// Section inference at `level`.
    fn feasible(&self, level: u64) -> bool {
        self.sec.iter().all(|s| s.remaining == 0 || s.floor.max(level) + s.remaining <= self.cap)
    }

    /// Ordering key of candidate `v` at `level` (smaller is tried first).
    #[inline]
    fn key(&self, v: usize, level: u64) -> (u64, u64, u32, u32) {
        let s = &self.slots[v];
        (self.offset(v, level), u64::MAX - s.size, u32::MAX - (s.hi - s.lo), v as u32)
    }

    /// The smallest-key valid child strictly after `after` (None: from the start).
    fn next_child(
        &self,
        level: u64,
        last: Option<usize>,
        after: Option<(u64, u64, u32, u32)>,
    ) -> Option<usize> {
        // dominance bound: the two smallest offset + size among the unplaced
        let (mut m1, mut arg1, mut m2) = (u64::MAX, usize::MAX, u64::MAX);
        for (v, s) in self.slots.iter().enumerate() {
            if s.at == UNPLACED {
                let e = self.offset(v, level) + s.size;
                if e < m1 {
                    m2 = m1;
                    m1 = e;
                    arg1 = v;
                } else if e < m2 {
                    m2 = e;
                }
            }
        }
        let mut best: Option<((u64, u64, u32, u32), usize)> = None;
        for (v, s) in self.slots.iter().enumerate() {
            if s.at != UNPLACED {
                continue;
            }
            let off = self.offset(v, level);
            if off + s.size > self.cap {
                continue;
            }
            let bound = if v == arg1 { m2 } else { m1 };
            if off >= bound {
                continue; // dominated: some other buffer fits entirely below
            }
            if let Some(l) = last {
                if off == level && v < l {
                    continue; // symmetry: equal offsets in index order
                }
            }
            let k = self.key(v, level);
            if after.is_some_and(|a| k <= a) {
                continue;
            }
            if best.is_none_or(|(bk, _)| k < bk) {
                best = Some((k, v));
            }
        }
        best.map(|(_, v)| v)
    }
}

/// Sets up slots and sections for the candidates `infos` (one interval each, `(lo, hi)`
/// from `interval`), all floors at `start`; keeps every slot's `best`. Returns the section count, or `None` when the
/// storage is too small or a candidate is pinned.
pub fn prepare(
    infos: &[Info],
    interval: impl Fn(&Info) -> (u32, u32),
    start: u64,
    slots: &mut [Slot],
    sections: &mut [Section],
) -> Option<usize> {
    let n = infos.len();
    if slots.len() < n || sections.len() < 2 * n || n == 0 || infos.iter().any(Info::is_pinned) {
        return None;
    }
    for (k, info) in infos.iter().enumerate() {
        let (lo, hi) = interval(info);
        sections[2 * k].floor = lo as u64;
        sections[2 * k + 1].floor = hi as u64 + 1;
    }
    let pts = &mut sections[..2 * n];
    pts.sort_unstable_by_key(|s| s.floor);
    let mut p = 0usize;
    for i in 0..2 * n {
        if i == 0 || pts[i].floor != pts[p - 1].floor {
            pts[p].floor = pts[i].floor;
            p += 1;
        }
    }
    for (k, info) in infos.iter().enumerate() {
        let (lo, hi) = interval(info);
        let a = sections[..p].partition_point(|s| s.floor < lo as u64);
        let b = sections[..p].partition_point(|s| s.floor < hi as u64 + 1);
        let best = slots[k].best; // the caller's incumbent plan is kept
        slots[k] =
            Slot { lo: a as u32, hi: (b - 1) as u32, size: info.aligned, floor: start, best, at: UNPLACED };
    }
    let count = p - 1;
    for s in &mut sections[..count] {
        *s = Section { floor: start, remaining: 0 };
    }
    for s in &slots[..n] {
        for sec in &mut sections[s.lo as usize..=s.hi as usize] {
            sec.remaining += s.size;
        }
    }
    Some(count)
}

/// Runs the anytime branch and bound on prepared `slots[..n]` / `sections[..count]` (see
/// [`prepare`]) whose `best` addresses hold a plan with peak `incumbent`; looks for plans of
/// peak at most `lower_bound` first, then for anything below the best found. On return the
/// slots' `best` hold the best plan (offsets include `start`).
pub fn branch_and_bound(
    slots: &mut [Slot],
    sections: &mut [Section],
    start: u64,
    lower_bound: u64,
    incumbent: u64,
    budget: &mut Budget<'_>,
) -> ExactOutcome {
    let mut out = ExactOutcome { peak: incumbent, ..ExactOutcome::default() };
    if incumbent <= lower_bound || slots.is_empty() {
        out.optimal = true;
        return out;
    }
    // phase 1: capacity = LB with half the node budget; phase 2: below the incumbent.
    let half = budget.max_nodes / 2;
    for phase in 0..2 {
        let cap = if phase == 0 { lower_bound } else { out.peak - 1 };
        let limit = if phase == 0 { half } else { budget.max_nodes };
        let (found, exhausted) = run(slots, sections, start, cap, lower_bound, limit, budget, &mut out);
        if found && out.peak <= lower_bound {
            out.optimal = true;
            return out;
        }
        if exhausted && phase == 1 {
            out.optimal = true;
        }
        if out.stopped {
            break;
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn run(
    slots: &mut [Slot],
    sections: &mut [Section],
    start: u64,
    cap: u64,
    lower_bound: u64,
    limit: u64,
    budget: &mut Budget<'_>,
    out: &mut ExactOutcome,
) -> (bool, bool) {
    let n = slots.len();
    let mut s = Search { slots, sec: sections, start, cap, nodes: 0, stop: false };
    let mut found = false;
    // The path needs no stack: offsets are non-decreasing along it and equal offsets are in
    // index order, so the last placed buffer is the placed one with the largest (at, index).
    let last_placed = |s: &Search<'_>| -> Option<usize> {
        let mut best: Option<(u64, usize)> = None;
        for (v, x) in s.slots.iter().enumerate() {
            if x.at != UNPLACED && best.is_none_or(|(a, b)| (x.at, v) > (a, b)) {
                best = Some((x.at, v));
            }
        }
        best.map(|(_, v)| v)
    };
    let mut depth = 0usize;
    let mut last: Option<usize> = None;
    let mut level = start;
    // descend: try first child of current node
    let mut pending: Option<usize> = if s.feasible(level) { s.next_child(level, last, None) } else { None };
    loop {
        if let Some(b) = pending {
            s.nodes += 1;
            out.nodes += 1;
            if out.nodes.is_multiple_of(CHECK_EVERY) && !(budget.keep_going)() {
                s.stop = true;
            }
            if out.nodes >= budget.max_nodes || s.stop {
                out.stopped = true;
            }
            if s.nodes >= limit || out.stopped {
                // unwind everything and stop
                while let Some(v) = last {
                    s.unplace(v);
                    last = last_placed(&s);
                }
                return (found, false);
            }
            let at = s.offset(b, level);
            s.place(b, at);
            depth += 1;
            last = Some(b);
            level = at;
            if depth == n {
                let peak = s.slots.iter().map(|x| x.at + x.size).max().unwrap_or(start);
                if peak < out.peak {
                    out.peak = peak;
                    out.improved = true;
                    found = true;
                    for x in s.slots.iter_mut() {
                        x.best = x.at;
                    }
                }
                if out.peak <= lower_bound {
                    while let Some(v) = last {
                        s.unplace(v);
                        last = last_placed(&s);
                    }
                    return (true, false);
                }
                s.cap = s.cap.min(out.peak - 1);
            } else if s.feasible(level) {
                pending = s.next_child(level, last, None);
                continue;
            }
        }
        // backtrack: undo the last placement, try its next sibling
        let Some(b) = last else {
            return (found, true);
        };
        s.unplace(b);
        depth -= 1;
        last = last_placed(&s);
        level = last.map_or(start, |v| s.slots[v].at);
        let k = s.key(b, level);
        pending = s.next_child(level, last, Some(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    /// Best peak over all placement orders (first-fit-lowest gives every left-justified plan).
    fn brute(iv: &[(u32, u32, u64)]) -> u64 {
        fn rec(iv: &[(u32, u32, u64)], used: &mut [bool], at: &mut [u64], best: &mut u64) {
            let n = iv.len();
            if used.iter().all(|&u| u) {
                let p = (0..n).map(|i| at[i] + iv[i].2).max().unwrap();
                *best = (*best).min(p);
                return;
            }
            for v in 0..n {
                if used[v] {
                    continue;
                }
                // every candidate offset: 0 or the top of a placed overlapping buffer
                let mut cands = [0u64; 16];
                let mut k = 1;
                for u in 0..n {
                    if used[u] && iv[u].0 <= iv[v].1 && iv[v].0 <= iv[u].1 {
                        cands[k] = at[u] + iv[u].2;
                        k += 1;
                    }
                }
                for &o in &cands[..k] {
                    let ok = (0..n).all(|u| {
                        !used[u]
                            || iv[u].0 > iv[v].1
                            || iv[v].0 > iv[u].1
                            || o + iv[v].2 <= at[u]
                            || at[u] + iv[u].2 <= o
                    });
                    if ok {
                        used[v] = true;
                        at[v] = o;
                        rec(iv, used, at, best);
                        used[v] = false;
                    }
                }
            }
        }
        let mut best = u64::MAX;
        rec(iv, &mut [false; 6][..iv.len()], &mut [0; 6][..iv.len()], &mut best);
        best
    }

    #[test]
    fn finds_the_optimum_of_small_random_instances() {
        let mut r = Rng(7);
        // Miri: 30 cases (the full 300 take minutes there).
        let cases = if cfg!(miri) { 30 } else { 300 };
        for case in 0..cases {
            let n = 2 + (r.next() % 5) as usize;
            let iv: [(u32, u32, u64); 6] = core::array::from_fn(|_| {
                let lo = (r.next() % 8) as u32;
                (lo, lo + (r.next() % 5) as u32, 1 + r.next() % 6)
            });
            let iv = &iv[..n];
            let infos: [Info; 6] =
                core::array::from_fn(|k| Info { aligned: iv[k.min(n - 1)].2, ..Info::default() });
            let mut slots = [Slot::default(); 6];
            let mut secs = [Section::default(); 12];
            let count = prepare(
                &infos[..n],
                |i| {
                    let k = infos.iter().position(|x| core::ptr::eq(x, i)).unwrap();
                    (iv[k].0, iv[k].1)
                },
                0,
                &mut slots,
                &mut secs,
            )
            .unwrap();
            let total: u64 = iv.iter().map(|x| x.2).sum();
            let mut lb = 0;
            for t in 0..16 {
                lb = lb.max(iv.iter().filter(|x| x.0 <= t && t <= x.1).map(|x| x.2).sum::<u64>());
            }
            let mut go = || true;
            let mut budget = Budget { max_nodes: 1 << 20, keep_going: &mut go };
            let out = branch_and_bound(&mut slots[..n], &mut secs[..count], 0, lb, total + 1, &mut budget);
            let opt = brute(iv);
            assert_eq!(out.peak, opt, "case {case}: {iv:?}");
            assert!(out.optimal);
            // the plan is valid
            for a in 0..n {
                for b in a + 1..n {
                    if iv[a].0 <= iv[b].1 && iv[b].0 <= iv[a].1 {
                        let (x, y) = (slots[a].best, slots[b].best);
                        assert!(x + iv[a].2 <= y || y + iv[b].2 <= x, "case {case}");
                    }
                }
            }
        }
    }
}
