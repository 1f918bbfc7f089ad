//! The `exact` strategy: an anytime branch and bound over canonical placements, after
//! MiniMalloc (Moffitt, ASPLOS 2023), written here from its published ideas (see
//! `planning-algorithms.md`); sections come from [`crate::place::sections`].
//!
//! **Decision search (one capacity).** Buffers are placed one at a time in a *canonical*
//! sequence: each at its *minimum offset* (the top of the highest placed buffer it overlaps
//! in time, left-justified), the sequence sorted by (offset, preorder rank). Every plan can be
//! pushed down and sorted into such a sequence without raising its peak, so no optimum is
//! lost. A buffer whose minimum offset fell below the offset of the last placement can only
//! be placed once something raises it.
//!
//! **Pruning.**
//! - *Section inference*: a node is dropped when some section's floor plus the total size
//!   of its unplaced buffers exceeds the capacity. The floor of a section is the lowest
//!   minimum offset of its unplaced buffers (the *unallocated floor*), and never below the
//!   offset of the last placement (the *monotonic floor*).
//! - *Dominance*: a buffer is not placed at or above the lowest top (minimum offset + size)
//!   of the unplaced buffers: that buffer would fit entirely below, in a gap that the
//!   canonical sequence can no longer fill.
//! - *Hatless pruning* (MiniMalloc): when the child just placed overlaps no unplaced buffer
//!   and its subtree fails, the node fails (placing it elsewhere cannot help the others).
//! - *Dynamic ordering*: children are tried by smallest minimum offset, then preorder rank.
//! - *Static preordering*: ranks come from sorting by lifetime, area and the largest section
//!   total a buffer touches in three orders (MiniMalloc's "WAT", "TAW", "TWA"), tried in
//!   turn with a node limit that doubles each round (MiniMalloc's round robin). After a split
//!   each part is ranked anew from its current section totals (as MiniMalloc's sub-problems).
//!
//! **Incremental checks.** A child is checked only for what its placement changes: the level
//! (every section's unplaced total must fit between the child's offset and the capacity, an
//! O(sections) pass before anything is placed), the minimum offsets it raised and the floors
//! of the window of sections those buffers cover (a heap sweep over that window only); the
//! rest of the part passed at the parent. Placing raises the minimum offsets of the unplaced
//! buffers it overlaps (overlap = a shared section); undo records restore them. A node lists
//! its children once, sorted, on the same undo stack (a scan per child when it is full). The
//! path is a stack of ranks in a caller's slice.
//!
//! **Minimising the peak (anytime).** The caller's plan (the best greedy plan) is the
//! incumbent. Each round probes capacity = lower bound with the round's node limit, then
//! bisects between the highest capacity that failed at its limit and the best peak found,
//! each bisection probe with a quarter of the limit (plus n), at most the limit's worth of
//! nodes a round; when the two meet it starts again from the proven bound. A probe that
//! exhausts its search proves its capacity infeasible. It stops at the lower bound, when the
//! proven bound and the best meet, after `max_nodes` nodes in all, or when the caller's
//! `keep_going` callback returns false (checked every [`CHECK_EVERY`] nodes; a host passes a
//! clock, firmware a counter). With `keep_going` always true the result depends only on the
//! input (deterministic).
//!
//! Complexity per node for m unplaced buffers of its part: O(m log m) to list the children,
//! then per child O(sections) for the level and O(m + w log w) to place it and check its
//! window of w buffers. Memory: one [`Slot`] and at most one [`Section`] per candidate, three
//! index slices and the undo stack of the caller, no heap.
//! Applies to one-interval, unpinned candidates whose sizes are multiples of the alignment.

use crate::place::min_heap;
pub use crate::place::sections::prepare;
use crate::place::sections::UNPLACED;
use crate::workspace::{Raise, Section, Slot};

/// How often (in nodes) the `keep_going` callback is consulted.
pub const CHECK_EVERY: u64 = 256;

/// How [`branch_and_bound`] shares each round's node limit L (which doubles every round):
/// the lower-bound probe gets `L >> bound_shift` nodes per preorder (at least n), each
/// bisection probe `(L >> bisect_shift) + n`, and the bisection `bisect_share × L` in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Schedule {
    /// Right shift of L for the lower-bound probe.
    pub bound_shift: u32,
    /// Right shift of L for one bisection probe.
    pub bisect_shift: u32,
    /// Bisection nodes a round, in units of L.
    pub bisect_share: u32,
}

impl Schedule {
    /// The planner's (`auto` and `exact`): most nodes at the lower bound, the bisection about
    /// a quarter. Measured on the hard DSA set, giving the bisection more (or the lower
    /// bound less) improves D and J a little and loses the lower bound on A, B, E or F.
    pub const DEFAULT: Schedule = Schedule { bound_shift: 0, bisect_shift: 2, bisect_share: 1 };
}

/// Number of static preorders tried in turn ([`preorder`]).
pub const PREORDERS: usize = 3;

/// What one branch-and-bound run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExactOutcome {
    /// Search nodes expanded.
    pub nodes: u64,
    /// Best peak found, bytes (the incumbent when nothing better was found).
    pub peak: u64,
    /// True when the best peak is proven optimal (equals the lower bound, or the capacity
    /// just below it was proven infeasible).
    pub optimal: bool,
    /// True when the search improved on the incumbent (the slots' `best` addresses changed).
    pub improved: bool,
    /// True when the node limit or the caller's callback ended the search.
    pub stopped: bool,
}

/// Limits of one run.
pub struct Budget<'a> {
    /// Most search nodes to expand.
    pub max_nodes: u64,
    /// Called every [`CHECK_EVERY`] nodes; returning false stops the search.
    pub keep_going: &'a mut dyn FnMut() -> bool,
}

impl core::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Budget").field("max_nodes", &self.max_nodes).finish_non_exhaustive()
    }
}

/// Node accounting over all probes of one run.
struct Meter<'b, 'a> {
    budget: &'b mut Budget<'a>,
    nodes: u64,
    stopped: bool,
}

impl Meter<'_, '_> {
    /// Counts one node; false when the run must end.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) && !(self.budget.keep_going)() {
            self.stopped = true;
        }
        if self.nodes >= self.budget.max_nodes {
            self.stopped = true;
        }
        !self.stopped
    }
}

/// How a probe ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Probe {
    /// A plan with this peak was found (in the slots' `best`).
    Found(u64),
    /// The whole search space was visited: the capacity is infeasible.
    Infeasible,
    /// The probe's own node limit was reached.
    Limit,
    /// The run's budget ended.
    Stopped,
}

#[inline]
fn overlaps(a: &Slot, b: &Slot) -> bool {
    a.lo <= b.hi && b.lo <= a.hi
}

/// One decision search over the candidates; `by_lo` lists them by first section, so the
/// buffers of a section range (a part of the decomposition) are one run of it.
struct Search<'s> {
    slots: &'s mut [Slot],
    sec: &'s mut [Section],
    by_lo: &'s [u32],
    /// Min-heap scratch of [`Search::feasible`] (the preorder slice, free during a probe).
    heap: &'s mut [u32],
    /// Undo records; `nraise` are in use.
    raises: &'s mut [Raise],
    nraise: usize,
    start: u64,
    cap: u64,
    /// The static preorder in use ([`preorder`]).
    heuristic: usize,
}

impl Search<'_> {
    /// The run of `by_lo` whose first section is in `[s0, s1)`. O(log n).
    #[inline]
    fn part(&self, s0: usize, s1: usize) -> (usize, usize) {
        let first = |x: &u32| self.slots[*x as usize].lo as usize;
        (self.by_lo.partition_point(|x| first(x) < s0), self.by_lo.partition_point(|x| first(x) < s1))
    }

    /// Places `b` (of part `[i, j)` of `by_lo`) at its minimum offset and raises the minimum
    /// offsets of the unplaced buffers it overlaps. Returns the undo mark (`None`: the undo
    /// records are full, [`Search::unplace`] recomputes instead), the window of sections
    /// whose floors may have changed (`b`'s and the raised buffers', inclusive), whether
    /// every raised buffer still fits under the capacity and whether `b` has a *hat* (an
    /// unplaced buffer overlapping it in time).
    fn place(&mut self, b: usize, (i, j): (usize, usize)) -> (Option<usize>, (usize, usize), bool, bool) {
        let s = self.slots[b];
        let top = s.floor + s.size;
        for sec in &mut self.sec[s.lo as usize..=s.hi as usize] {
            sec.remaining -= s.size;
        }
        self.slots[b].at = s.floor;
        self.slots[b].sol = s.floor;
        let mark = self.nraise;
        let room = self.raises.len() - mark >= j - i;
        let (mut w0, mut w1, mut fits, mut hat) = (s.lo, s.hi, true, false);
        // the unplaced buffers overlapping b are in b's part and start at or before its end
        let end = i + self.by_lo[i..j].partition_point(|&v| self.slots[v as usize].lo <= s.hi);
        for &v in &self.by_lo[i..end] {
            let c = &mut self.slots[v as usize];
            if c.at != UNPLACED || c.hi < s.lo {
                continue;
            }
            hat = true;
            if c.floor < top {
                if room {
                    self.raises[self.nraise] = Raise { slot: v, pad: 0, floor: c.floor };
                    self.nraise += 1;
                }
                c.floor = top;
                fits &= top + c.size <= self.cap;
                w0 = w0.min(c.lo);
                w1 = w1.max(c.hi);
            }
        }
        (room.then_some(mark), (w0 as usize, w1 as usize), fits, hat)
    }

    /// Undoes [`Search::place`] of `b`: pops the undo records down to `mark`, or without
    /// one rebuilds the minimum offsets that `b` set from all placed buffers (placed buffers
    /// may cross into the part).
    fn unplace(&mut self, b: usize, (i, j): (usize, usize), mark: Option<usize>) {
        let s = self.slots[b];
        let top = s.at + s.size;
        self.slots[b].at = UNPLACED;
        for sec in &mut self.sec[s.lo as usize..=s.hi as usize] {
            sec.remaining += s.size;
        }
        if let Some(mark) = mark {
            while self.nraise > mark {
                self.nraise -= 1;
                let r = self.raises[self.nraise];
                self.slots[r.slot as usize].floor = r.floor;
            }
            return;
        }
        for k in i..j {
            let c = self.slots[self.by_lo[k] as usize];
            if c.at == UNPLACED && c.floor == top && overlaps(&c, &s) {
                let mut f = self.start;
                for p in self.slots.iter() {
                    if p.at != UNPLACED && overlaps(p, &c) {
                        f = f.max(p.at + p.size);
                    }
                }
                self.slots[self.by_lo[k] as usize].floor = f;
            }
        }
    }

    /// Section inference with the unallocated and monotonic floors at `level` over the
    /// sections `[s0, s1)` of part `[i, j)`: false when some section's floor plus the sizes
    /// of its unplaced buffers, or some buffer's minimum offset plus its size, exceeds the
    /// capacity. One sweep over the sections with a min-heap of the live unplaced buffers'
    /// minimum offsets: O(k log k + sections) for k buffers starting before `s1`.
    fn feasible(&mut self, level: u64, s0: usize, s1: usize, (i, j): (usize, usize)) -> bool {
        let slots = &*self.slots;
        let heap = &mut *self.heap;
        let key = |v: u32| slots[v as usize].floor;
        let by_key = |a: u32, b: u32| key(a) < key(b);
        let (mut len, mut k) = (0usize, i);
        for s in s0..s1 {
            while k < j && slots[self.by_lo[k] as usize].lo as usize <= s {
                let v = self.by_lo[k];
                k += 1;
                let c = &slots[v as usize];
                if c.at != UNPLACED || (c.hi as usize) < s0 {
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

    /// Writes the prefix and suffix maxima of the sections' unplaced totals over `[s0, s1)`
    /// into their `floor` and `low` (scratch of [`Search::level_ok`]). O(sections).
    fn edges(&mut self, s0: usize, s1: usize) {
        let mut run = 0;
        for sec in &mut self.sec[s0..s1] {
            run = run.max(sec.remaining);
            sec.floor = run;
        }
        run = 0;
        for sec in self.sec[s0..s1].iter_mut().rev() {
            run = run.max(sec.remaining);
            sec.low = run;
        }
    }

    /// The monotonic floor alone, before placing `b` at `level`: false when a section of
    /// `[s0, s1)` would hold more unplaced bytes than fit between `level` and the capacity.
    /// O(1) outside `b`'s sections (the maxima of [`Search::edges`]), O(its sections) inside;
    /// no placement needed.
    fn level_ok(&self, level: u64, b: &Slot, s0: usize, s1: usize) -> bool {
        let room = self.cap.saturating_sub(level);
        let (lo, hi) = (b.lo as usize, b.hi as usize);
        let before = if lo > s0 { self.sec[lo - 1].floor } else { 0 };
        let after = if hi + 1 < s1 { self.sec[hi + 1].low } else { 0 };
        before.max(after) <= room && self.sec[lo..=hi].iter().all(|sec| sec.remaining - b.size <= room)
    }

    /// The smallest-key child (key = (offset, rank)) of part `[i, j)` strictly after
    /// `after`, canonical after the last placement `last` = (offset, rank), not dominated
    /// (offset below `min_top`, the lowest minimum offset + size of the unplaced buffers),
    /// within the capacity; returns its slot index.
    fn next_child(
        &self,
        (i, j): (usize, usize),
        min_top: u64,
        last: Option<(u64, u32)>,
        after: Option<(u64, u32)>,
    ) -> Option<usize> {
        let mut best: Option<((u64, u32), usize)> = None;
        for &v in &self.by_lo[i..j] {
            let c = &self.slots[v as usize];
            if c.at != UNPLACED || c.floor >= min_top || c.floor + c.size > self.cap {
                continue;
            }
            let key = (c.floor, c.rank);
            if last.is_some_and(|l| key < l) || after.is_some_and(|a| key <= a) {
                continue;
            }
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, v as usize));
            }
        }
        best.map(|(_, v)| v)
    }

    /// Solves the unplaced buffers of sections `[s0, s1)` (MiniMalloc's dynamic
    /// decomposition): splits the range where no unplaced buffer crosses a section boundary
    /// and searches each part on its own; the parts share nothing but the placed buffers'
    /// floors, so one failing part fails the whole without retrying the others. With
    /// `rerank` each part is first preordered anew from its current section totals.
    fn solve_range(&mut self, s0: usize, s1: usize, rerank: bool, ctl: &mut Ctl<'_, '_, '_>) -> Step {
        let mut a = s0;
        for k in s0..s1 {
            if k + 1 == s1 || self.sec[k].cuts == 0 {
                let mark = if rerank { self.rerank(a, k + 1) } else { None };
                let st = self.dfs(a, k + 1, None, ctl);
                if let Some(base) = mark {
                    while self.nraise > base {
                        self.nraise -= 1;
                        let r = self.raises[self.nraise];
                        let c = &mut self.slots[r.slot as usize];
                        (c.rank, c.total) = (r.pad, r.floor);
                    }
                }
                if st != Step::Done {
                    return st;
                }
                a = k + 1;
            }
        }
        Step::Done
    }

    /// Preorders the unplaced buffers of sections `[s0, s1)` anew (MiniMalloc's sub-problem
    /// preordering): each one's total becomes the largest unplaced total of its sections.
    /// Their old ranks and totals go on the undo stack; returns its mark, `None` (nothing
    /// changed) when the stack has no room.
    fn rerank(&mut self, s0: usize, s1: usize) -> Option<usize> {
        let (i, j) = self.part(s0, s1);
        let base = self.nraise;
        if self.raises.len() - base < j - i {
            return None;
        }
        for &v in &self.by_lo[i..j] {
            let c = &mut self.slots[v as usize];
            if c.at != UNPLACED {
                continue;
            }
            let total =
                self.sec[c.lo as usize..=c.hi as usize].iter().map(|x| x.remaining).max().unwrap_or(0);
            self.raises[self.nraise] = Raise { slot: v, pad: c.rank, floor: c.total };
            self.nraise += 1;
            c.total = total;
        }
        let (slots, h) = (&*self.slots, self.heuristic);
        self.raises[base..self.nraise].sort_unstable_by(|a, b| {
            let (x, y) = (&slots[a.slot as usize], &slots[b.slot as usize]);
            preorder_key(y, h).cmp(&preorder_key(x, h)).then(a.slot.cmp(&b.slot))
        });
        for (r, rec) in self.raises[base..self.nraise].iter().enumerate() {
            self.slots[rec.slot as usize].rank = r as u32;
        }
        Some(base)
    }

    /// Depth-first search over the unplaced buffers of sections `[s0, s1)` after the
    /// placement `last` = (offset, rank) of this part. Invariant on entry: the part passes
    /// [`Search::feasible`] at the level of `last`; a child is checked only where placing it
    /// changed something (the level everywhere, the floors in its window).
    fn dfs(&mut self, s0: usize, s1: usize, last: Option<(u64, u32)>, ctl: &mut Ctl<'_, '_, '_>) -> Step {
        if !ctl.tick() {
            return Step::Abort;
        }
        let part = self.part(s0, s1);
        // lowest top and the two largest sizes of the unplaced buffers
        let (mut min_top, mut big, mut big_at, mut second) = (u64::MAX, 0u64, usize::MAX, 0u64);
        let mut high = 0; // highest minimum offset of an unplaced buffer
        for &v in &self.by_lo[part.0..part.1] {
            let c = &self.slots[v as usize];
            if c.at == UNPLACED {
                min_top = min_top.min(c.floor + c.size);
                high = high.max(c.floor);
                if c.size > big {
                    (second, big, big_at) = (big, c.size, v as usize);
                } else {
                    second = second.max(c.size);
                }
            }
        }
        if min_top == u64::MAX {
            return Step::Done;
        }
        // the children in (offset, rank) order: listed once on the undo stack when it has
        // room (the list is popped on return), else found by a scan per child
        let base = self.nraise;
        let listed = self.raises.len() - base >= part.1 - part.0;
        if listed {
            for &v in &self.by_lo[part.0..part.1] {
                let c = &self.slots[v as usize];
                let key = (c.floor, c.rank);
                if c.at == UNPLACED
                    && c.floor < min_top
                    && c.floor + c.size <= self.cap
                    && last.is_none_or(|l| key >= l)
                {
                    self.raises[self.nraise] = Raise { slot: v, pad: c.rank, floor: c.floor };
                    self.nraise += 1;
                }
            }
            self.raises[base..self.nraise].sort_unstable_by_key(|r| (r.floor, r.pad));
        }
        let end = self.nraise;
        let (mut next, mut after, mut result) = (base, None, Step::Dead);
        let mut stale = true; // the section maxima of `edges` need computing
        loop {
            let b = if listed {
                if next == end {
                    break;
                }
                next += 1;
                self.raises[next - 1].slot as usize
            } else {
                match self.next_child(part, min_top, last, after) {
                    Some(b) => b,
                    None => break,
                }
            };
            let s = self.slots[b];
            let key = (s.floor, s.rank);
            after = Some(key);
            // every other unplaced buffer goes at or above this level
            let other = if b == big_at { second } else { big };
            if s.floor + other > self.cap {
                continue;
            }
            if stale {
                self.edges(s0, s1); // a deeper node overwrote them
                stale = false;
            }
            if !self.level_ok(s.floor, &s, s0, s1) {
                continue;
            }
            let (mark, (w0, w1), fits, hat) = self.place(b, part);
            // the window's floors are at most the highest minimum offset (or b's top): when
            // even that fits under every section's unplaced total, the sweep cannot fail
            let top = high.max(s.floor + s.size);
            let easy = || self.sec[w0..=w1].iter().all(|x| top + x.remaining <= self.cap);
            let st = if fits && (easy() || self.feasible(s.floor, w0, w1 + 1, part)) {
                let (lo, hi) = (s.lo as usize, s.hi as usize);
                let mut split = false;
                for sec in &mut self.sec[lo..hi] {
                    sec.cuts -= 1;
                    split |= sec.cuts == 0;
                }
                let st = if split {
                    self.solve_range(s0, s1, true, ctl)
                } else {
                    self.dfs(s0, s1, Some(key), ctl)
                };
                stale = true;
                for sec in &mut self.sec[lo..hi] {
                    sec.cuts += 1;
                }
                st
            } else {
                Step::Dead
            };
            self.unplace(b, part, mark);
            if st != Step::Dead {
                result = st;
                break;
            }
            if !hat {
                // hatless pruning (MiniMalloc): `b` overlaps no unplaced buffer, so placing
                // it here loses nothing; if the rest fails with it, it fails without it
                break;
            }
        }
        self.nraise = base;
        result
    }
}

/// Result of one (sub)search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    /// Every buffer of the part is placed (their `sol` holds the plan).
    Done,
    /// No plan at this capacity below this node.
    Dead,
    /// A node limit or the caller's callback ended the search.
    Abort,
}

/// Node limits of one probe.
struct Ctl<'m, 'b, 'a> {
    meter: &'m mut Meter<'b, 'a>,
    used: u64,
    limit: u64,
    hit_limit: bool,
}

impl Ctl<'_, '_, '_> {
    #[inline]
    fn tick(&mut self) -> bool {
        self.used += 1;
        if self.used > self.limit {
            self.hit_limit = true;
            return false;
        }
        self.meter.tick()
    }
}

/// Largest problem the recursive search takes: its recursion is one frame per placed buffer
/// (about 400 bytes of stack in a release build, plus one smaller frame where a part splits),
/// so 2,048 buffers stay near 1 MiB of stack.
pub const EXACT_MAX_BUFFERS: usize = 2048;

impl Search<'_> {
    /// One decision search at `self.cap` with at most `limit` nodes.
    fn probe(&mut self, limit: u64, meter: &mut Meter<'_, '_>) -> Probe {
        let count = self.sec.len();
        if !self.feasible(self.start, 0, count, (0, self.by_lo.len())) {
            return Probe::Infeasible;
        }
        let mut ctl = Ctl { meter, used: 0, limit, hit_limit: false };
        match self.solve_range(0, count, false, &mut ctl) {
            Step::Done => {
                let mut peak = 0;
                for c in self.slots.iter_mut() {
                    c.best = c.sol;
                    peak = peak.max(c.sol + c.size);
                }
                Probe::Found(peak)
            }
            Step::Dead => Probe::Infeasible,
            Step::Abort if ctl.hit_limit => Probe::Limit,
            Step::Abort => Probe::Stopped,
        }
    }
}

/// The sort key (descending) of static preorder `h` (see [`preorder`]).
fn preorder_key(s: &Slot, h: usize) -> (u64, u64, u64) {
    let area = s.size.saturating_mul(s.width as u64);
    let w = s.width as u64;
    match h % PREORDERS {
        0 => (w, area, s.total),
        1 => (s.total, area, w),
        _ => (s.total, w, area),
    }
}

/// Sorts `ids` by static preorder `h` (0: lifetime, area, section total — MiniMalloc's
/// "WAT"; 1: total, area, lifetime; 2: total, lifetime, area; all descending, ties by
/// index) and writes the ranks; `ids` (at least `slots.len()` entries) is overwritten with
/// the order.
pub fn preorder(slots: &mut [Slot], ids: &mut [u32], h: usize) {
    for (k, id) in ids.iter_mut().enumerate() {
        *id = k as u32;
    }
    ids.sort_unstable_by(|&a, &b| {
        preorder_key(&slots[b as usize], h).cmp(&preorder_key(&slots[a as usize], h)).then(a.cmp(&b))
    });
    for (r, &c) in ids.iter().enumerate() {
        slots[c as usize].rank = r as u32;
    }
}

/// Runs the anytime search on slots and sections set up by [`prepare`] (`by_lo` as
/// [`prepare`] left it, `count` sections,
/// `ids` at least n entries of scratch; at most [`EXACT_MAX_BUFFERS`] candidates, else the
/// incumbent is returned), whose `best`
/// addresses hold a plan with peak `incumbent` (bytes, offsets from `start`). Capacities
/// probed are multiples of `align` above the lower bound; `schedule` shares each round's
/// nodes between the lower-bound probe and the bisection above it. On return the slots'
/// `best` hold the best plan found.
#[allow(clippy::too_many_arguments)]
pub fn branch_and_bound(
    slots: &mut [Slot],
    sections: &mut [Section],
    by_lo: &[u32],
    ids: &mut [u32],
    raises: &mut [Raise],
    start: u64,
    lower_bound: u64,
    incumbent: u64,
    align: u64,
    schedule: Schedule,
    budget: &mut Budget<'_>,
) -> ExactOutcome {
    let n = slots.len();
    let mut out = ExactOutcome { peak: incumbent, ..ExactOutcome::default() };
    if incumbent <= lower_bound || n == 0 || n > EXACT_MAX_BUFFERS || ids.len() < n || by_lo.len() < n {
        out.optimal = incumbent <= lower_bound;
        return out;
    }
    let (ids, by_lo) = (&mut ids[..n], &by_lo[..n]);
    for (k, id) in ids.iter_mut().enumerate() {
        *id = k as u32;
    }
    // preorder key: the largest section total each buffer touches
    for s in slots.iter_mut() {
        s.total = sections[s.lo as usize..=s.hi as usize].iter().map(|x| x.remaining).max().unwrap_or(0);
    }
    let align = align.max(1);
    // cuts: unplaced buffers crossing each boundary between sections k and k + 1
    for sec in sections.iter_mut() {
        sec.cuts = 0;
    }
    for s in slots.iter() {
        for sec in &mut sections[s.lo as usize..s.hi as usize] {
            sec.cuts += 1;
        }
    }
    let mut meter = Meter { budget, nodes: 0, stopped: false };
    let mut proven = lower_bound.saturating_sub(1); // every capacity <= proven is infeasible
    let mut limit = 2 * n as u64;
    let mut heuristic = usize::MAX;
    // highest capacity that failed at its node limit: bisection probes above it until it
    // meets the best peak, then starts again from the proven bound with larger limits
    let mut lo = proven;
    'rounds: loop {
        let mut cap = lower_bound;
        let mut bisect_from = u64::MAX; // node count when this round's bisection began
        loop {
            let mut failed = true;
            for h in 0..PREORDERS {
                if heuristic != h {
                    preorder(slots, ids, h);
                    heuristic = h;
                }
                let mut s = Search {
                    slots,
                    sec: sections,
                    by_lo,
                    heap: ids,
                    raises,
                    nraise: 0,
                    start,
                    cap,
                    heuristic: h,
                };
                let probe_limit = if cap == lower_bound {
                    (limit >> schedule.bound_shift).max(n as u64)
                } else {
                    (limit >> schedule.bisect_shift) + n as u64
                };
                match s.probe(probe_limit, &mut meter) {
                    Probe::Found(p) => {
                        out.peak = p;
                        out.improved = true;
                        failed = false;
                        break;
                    }
                    Probe::Infeasible => {
                        proven = proven.max(cap);
                        break;
                    }
                    Probe::Limit => {}
                    Probe::Stopped => break 'rounds,
                }
            }
            if out.peak <= lower_bound || proven + align >= out.peak {
                out.optimal = true;
                break 'rounds;
            }
            if failed && cap != lower_bound {
                lo = lo.max(cap);
            }
            // bisection gets at most the lower-bound probe's node limit a round
            bisect_from = bisect_from.min(meter.nodes);
            if meter.nodes - bisect_from >= limit.saturating_mul(schedule.bisect_share as u64) {
                break;
            }
            // bisect between lo (failed) and the best peak, on multiples of align
            lo = lo.max(proven);
            // a probe may have found a plan below a capacity that failed at its limit earlier
            if out.peak.saturating_sub(lo) <= align.max(lower_bound / 1024) {
                lo = proven;
            }
            let gap = out.peak - lo;
            if gap <= align.max(lower_bound / 1024) {
                break;
            }
            let mid = lo + gap / 2;
            cap = (mid / align * align).max(lo + 1);
            if cap >= out.peak {
                break;
            }
        }
        limit = limit.saturating_mul(2);
    }
    out.nodes = meter.nodes;
    out.stopped = meter.stopped;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::info::Info;

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
            let (mut by_lo, mut ids) = ([0u32; 6], [0u32; 6]);
            let count = prepare(
                &infos[..n],
                |i| {
                    let k = infos.iter().position(|x| core::ptr::eq(x, i)).unwrap();
                    (iv[k].0, iv[k].1)
                },
                0,
                &mut slots,
                &mut secs,
                &mut by_lo,
                &mut ids,
            )
            .unwrap();
            let total: u64 = iv.iter().map(|x| x.2).sum();
            let mut lb = 0;
            for t in 0..16 {
                lb = lb.max(iv.iter().filter(|x| x.0 <= t && t <= x.1).map(|x| x.2).sum::<u64>());
            }
            let mut go = || true;
            let mut budget = Budget { max_nodes: 1 << 20, keep_going: &mut go };
            let out = branch_and_bound(
                &mut slots[..n],
                &mut secs[..count],
                &by_lo[..n],
                &mut ids,
                // even cases: too few undo records (recomputation), odd: enough
                &mut [Raise::default(); 64][..if case % 2 == 0 { 4 } else { 64 }],
                0,
                lb,
                total + 1,
                1,
                if case % 2 == 0 {
                    Schedule::DEFAULT
                } else {
                    Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3 }
                },
                &mut budget,
            );
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
