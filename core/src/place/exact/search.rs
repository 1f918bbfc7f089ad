//! The branch and bound's decision search at one capacity: placing, undoing, the children
//! and their order, the decomposition; its section inference is in `inference.rs`.
//! Uses: budget, inference, open, preorder, rules, sections, workspace; used by: mod.rs.

use super::budget::Meter;
use super::open::Open;
use super::preorder::preorder_key;
use super::rules::{Rules, PINNED};
use crate::place::sections::UNPLACED;
use crate::workspace::{Raise, Section, Slot};
use core::cell::Cell;

/// How many answers of [`Search::feasible_after`] the core's tests checked against
/// [`Search::feasible`].
#[cfg(test)]
pub(super) static CROSS_CHECKS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// How a probe ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Probe {
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
/// `PLAIN`: no [`Rules`] (every offset is a minimum offset), known when compiled.
pub(super) struct Search<'s, const PLAIN: bool> {
    pub(super) slots: &'s mut [Slot],
    pub(super) sec: &'s mut [Section],
    pub(super) by_lo: &'s [u32],
    /// The unplaced buffers by `by_lo` position, kept with `slots[..].at`.
    pub(super) open: &'s mut Open,
    /// Min-heap scratch of [`Search::feasible`] (the preorder slice, free during a probe).
    pub(super) heap: &'s mut [u32],
    /// Undo records; `nraise` are in use.
    pub(super) raises: &'s mut [Raise],
    pub(super) nraise: usize,
    pub(super) start: u64,
    pub(super) cap: u64,
    /// The static preorder in use ([`super::preorder`]).
    pub(super) heuristic: usize,
    /// Slot visits of [`Search::unplace`]'s rebuilds not yet charged to the meter (at the
    /// next node, [`Meter::tick_after`], or after a failed child, [`Meter::charge`]).
    pub(super) spent: u64,
    /// Own alignments and fixed slots ([`Rules::NONE`] where `PLAIN`).
    pub(super) rules: Rules<'s>,
    /// The largest fixed slot, bytes ([`Rules::lowest_near`]).
    pub(super) reach: u64,
    /// Fixed slots visited by [`Search::offset`] not yet added to `spent`.
    pub(super) visits: core::cell::Cell<u64>,
}

impl<const PLAIN: bool> Search<'_, PLAIN> {
    /// Where slot `v` (`c`) goes if placed now: its minimum offset, or with [`Rules`] the
    /// lowest offset from there that its alignment and the fixed slots allow
    /// ([`Rules::lowest`]).
    #[inline]
    fn offset(&self, c: &Slot, v: usize) -> u64 {
        if PLAIN {
            return c.floor;
        }
        let memo = self.rules.memo.get(v);
        if let Some([key, at]) = memo.map(Cell::get) {
            if key == c.floor {
                return at;
            }
        }
        let (at, visits) = self.rules.lowest_near(self.slots, v, c.floor, self.reach);
        self.visits.set(self.visits.get() + visits);
        if let Some(m) = memo {
            m.set([c.floor, at]);
        }
        at
    }

    /// `at + bytes`: plain where `PLAIN` (every offset is a minimum offset, whose tops the
    /// caller checked fit `u64`), saturating where [`Rules::lowest`] may give `u64::MAX`.
    #[inline]
    pub(super) fn end(at: u64, bytes: u64) -> u64 {
        if PLAIN {
            at + bytes
        } else {
            at.saturating_add(bytes)
        }
    }

    /// The run of `by_lo` whose first section is in `[s0, s1)`. O(log n).
    #[inline]
    fn part(&self, s0: usize, s1: usize) -> (usize, usize) {
        let first = |x: &u32| self.slots[*x as usize].lo as usize;
        (self.by_lo.partition_point(|x| first(x) < s0), self.by_lo.partition_point(|x| first(x) < s1))
    }

    /// Places the buffer at `by_lo[pos]` (`b`, of part `[i, j)` of `by_lo`) at `at` (its
    /// [`Search::offset`]) and raises the minimum offsets of the unplaced buffers it overlaps. Returns the undo mark (`None`: the undo
    /// records are full, [`Search::unplace`] recomputes instead), the window of sections
    /// whose floors may have changed (`b`'s and the raised buffers', inclusive), whether
    /// every raised buffer still fits under the capacity and whether `b` has a *hat* (an
    /// unplaced buffer overlapping it in time).
    fn place(
        &mut self,
        pos: usize,
        at: u64,
        (i, j): (usize, usize),
    ) -> (Option<usize>, (usize, usize), bool, bool) {
        let b = self.by_lo[pos] as usize;
        self.open.remove(pos);
        let s = self.slots[b];
        let top = at + s.size;
        for sec in &mut self.sec[s.lo as usize..=s.hi as usize] {
            sec.remaining -= s.size;
        }
        self.slots[b].at = at;
        self.slots[b].sol = at;
        let mark = self.nraise;
        let room = self.raises.len() - mark >= j - i;
        let (mut w0, mut w1, mut fits, mut hat) = (s.lo, s.hi, true, false);
        // the unplaced buffers overlapping b are in b's part and start at or before its end
        let end = i + self.by_lo[i..j].partition_point(|&v| self.slots[v as usize].lo <= s.hi);
        for k in self.open.scan((i, end), s.lo) {
            let v = self.by_lo[k];
            let c = &mut self.slots[v as usize];
            debug_assert_eq!(c.at, UNPLACED);
            if c.hi < s.lo {
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

    /// Undoes [`Search::place`] of the buffer at `by_lo[pos]` (`b`): pops the undo records down to `mark`, or without
    /// one rebuilds the minimum offsets that `b` set from all placed free buffers (placed
    /// buffers may cross into the part; fixed ones set no minimum offset).
    fn unplace(&mut self, pos: usize, (i, j): (usize, usize), mark: Option<usize>) {
        let b = self.by_lo[pos] as usize;
        let s = self.slots[b];
        let top = s.at + s.size;
        self.slots[b].at = UNPLACED;
        self.open.insert(pos);
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
        for k in self.open.scan((i, j), s.lo) {
            let c = self.slots[self.by_lo[k] as usize];
            if c.floor == top && overlaps(&c, &s) {
                self.spent += self.slots.len() as u64;
                let mut f = self.start;
                for p in self.slots.iter() {
                    if p.at != UNPLACED && p.at != PINNED && overlaps(p, &c) {
                        f = f.max(p.at + p.size);
                    }
                }
                self.slots[self.by_lo[k] as usize].floor = f;
            }
        }
    }

    /// The smallest-key child (key = ([`Search::offset`], rank)) of part `[i, j)` strictly after
    /// `after`, canonical after the last placement `last` = (offset, rank), not dominated
    /// (offset below `min_top`, the lowest minimum offset + size of the unplaced buffers),
    /// within the capacity; returns its `by_lo` position.
    fn next_child(
        &self,
        (i, j): (usize, usize),
        min_top: u64,
        last: Option<(u64, u32)>,
        after: Option<(u64, u32)>,
    ) -> Option<usize> {
        let mut best: Option<((u64, u32), usize)> = None;
        for k in self.open.scan((i, j), 0) {
            let v = self.by_lo[k];
            let c = &self.slots[v as usize];
            let at = self.offset(c, v as usize);
            if at >= min_top || Self::end(at, c.size) > self.cap {
                continue;
            }
            let key = (at, c.rank);
            if last.is_some_and(|l| key < l) || after.is_some_and(|a| key <= a) {
                continue;
            }
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, k));
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
        for k in self.open.scan((i, j), 0) {
            let v = self.by_lo[k];
            let c = &mut self.slots[v as usize];
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
        if !ctl.tick(core::mem::take(&mut self.spent) + self.visits.take()) {
            return Step::Abort;
        }
        let part = self.part(s0, s1);
        // the node's own work, charged with the next node or failed child
        self.spent += (part.1 - part.0) as u64 + 1;
        // lowest top and the two largest sizes of the unplaced buffers
        let (mut min_top, mut big, mut big_at, mut second) = (u64::MAX, 0u64, usize::MAX, 0u64);
        let mut high = 0; // highest minimum offset of an unplaced buffer
        let mut unplaced = false;
        for k in self.open.scan(part, 0) {
            let v = self.by_lo[k];
            let c = &self.slots[v as usize];
            unplaced = true;
            min_top = min_top.min(Self::end(self.offset(c, v as usize), c.size));
            high = high.max(c.floor);
            if c.size > big {
                (second, big, big_at) = (big, c.size, v as usize);
            } else {
                second = second.max(c.size);
            }
        }
        // (not `min_top == u64::MAX`: with rules a buffer that fits nowhere has that top)
        if !unplaced {
            return Step::Done;
        }
        // the children in (offset, rank) order: listed once on the undo stack when it has
        // room (the list is popped on return), else found by a scan per child
        let base = self.nraise;
        let listed = self.raises.len() - base >= part.1 - part.0;
        // the tests of a child before its placement (the largest other size, the monotonic
        // floor) read only this node's state, which every child's search restores: where the
        // children are listed they are tested once, here, and only those that pass are sorted
        let other_of = |v: usize| if v == big_at { second } else { big };
        // the part's largest unplaced total (the monotonic floor of `may_place`)
        let most = self.most_remaining(s0, s1);
        if listed {
            for k in self.open.scan(part, 0) {
                let v = self.by_lo[k];
                let c = &self.slots[v as usize];
                let at = self.offset(c, v as usize);
                let key = (at, c.rank);
                if at < min_top
                    && Self::end(at, c.size) <= self.cap
                    && last.is_none_or(|l| key >= l)
                    && self.may_place(at, other_of(v as usize), most)
                {
                    // (`slot` holds the `by_lo` position here)
                    self.raises[self.nraise] = Raise { slot: k as u32, pad: c.rank, floor: at };
                    self.nraise += 1;
                }
            }
            self.raises[base..self.nraise].sort_unstable_by_key(|r| (r.floor, r.pad));
        }
        let end = self.nraise;
        let (mut next, mut after, mut result) = (base, None, Step::Dead);
        loop {
            let (pos, at) = if listed {
                if next == end {
                    break;
                }
                next += 1;
                let r = self.raises[next - 1];
                (r.slot as usize, r.floor)
            } else {
                match self.next_child(part, min_top, last, after) {
                    Some(k) => {
                        let b = self.by_lo[k] as usize;
                        (k, self.offset(&self.slots[b], b))
                    }
                    None => break,
                }
            };
            let b = self.by_lo[pos] as usize;
            // the child as placed: its minimum offset is where it goes
            let s = Slot { floor: at, ..self.slots[b] };
            let key = (at, s.rank);
            after = Some(key);
            if !listed && !self.may_place(at, other_of(b), most) {
                continue;
            }
            let (mark, (w0, w1), fits, hat) = self.place(pos, at, part);
            // the window's floors are at most the highest minimum offset (or b's top): when
            // even that fits under every section's unplaced total, the sweep cannot fail
            let top = high.max(s.floor + s.size);
            let easy = || self.sec[w0..=w1].iter().all(|x| top + x.remaining <= self.cap);
            let feasible = |me: &mut Self| match mark {
                Some(m) => me.feasible_after(&s, m, (w0, w1), part),
                None => me.feasible(s.floor, w0, w1 + 1, part),
            };
            let ok = fits && (easy() || feasible(self));
            // the core's own tests check every shortcut answer against the full sweep
            #[cfg(test)]
            if fits && mark.is_some() {
                assert_eq!(ok, self.feasible(s.floor, w0, w1 + 1, part), "feasible_after disagrees");
                CROSS_CHECKS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            }
            let st = if ok {
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
                for sec in &mut self.sec[lo..hi] {
                    sec.cuts += 1;
                }
                st
            } else {
                Step::Dead
            };
            self.unplace(pos, part, mark);
            if st != Step::Dead {
                result = st;
                break;
            }
            // a child that failed cost no node of its own: its placement, sweep and undo are
            // charged, so a node of many such children still asks the clock
            let spent = core::mem::take(&mut self.spent)
                + self.visits.take()
                + (part.1 - part.0 + w1 - w0 + 1) as u64;
            if !ctl.meter.charge(spent) {
                result = Step::Abort;
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
    fn tick(&mut self, spent: u64) -> bool {
        self.used += 1;
        if self.used > self.limit {
            self.hit_limit = true;
            return false;
        }
        self.meter.tick_after(spent)
    }
}

impl<const PLAIN: bool> Search<'_, PLAIN> {
    /// One decision search at `self.cap` with at most `limit` nodes.
    pub(super) fn probe(&mut self, limit: u64, meter: &mut Meter<'_, '_>) -> Probe {
        let count = self.sec.len();
        debug_assert!(
            self.open.matches(self.slots, self.by_lo),
            "a probe starts with every free slot unplaced"
        );
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
