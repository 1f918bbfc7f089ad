//! The `exact` strategy: an anytime branch and bound over canonical placements (after MiniMalloc).
//! Uses: min_heap, sections, workspace; used by: planner, portfolio, skyline, sim.
//!
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
//! (every section's unplaced total must fit between the child's offset and the capacity: the
//! part's largest total, one O(sections) pass a node, against each child's offset, before
//! anything is placed), the minimum offsets it raised and the floors
//! of the window of sections those buffers cover (a heap sweep over that window only); the
//! rest of the part passed at the parent. Placing raises the minimum offsets of the unplaced
//! buffers it overlaps (overlap = a shared section); undo records restore them. A node lists
//! its children once, sorted, on the same undo stack (a scan per child when it is full). The
//! path is a stack of ranks in a caller's slice.
//!
//! **Minimising the peak (anytime).** The caller's plan (the best greedy plan) is the
//! incumbent. Each round probes capacity = lower bound with the round's node limit (with the
//! planner's [`Schedule::planner`], a quarter of it in the rounds past `auto`'s nodes), then
//! bisects between the highest capacity that failed at its limit and the best peak found,
//! each bisection probe with a quarter of the limit (plus n), at most the limit's worth of
//! nodes a round; when the two meet (within `max(align, bound / 1024)`) it probes the
//! capacity just below the best peak, once for each best peak, then starts again from the
//! proven bound. A probe that exhausts its search proves its capacity infeasible. It stops at
//! the lower bound, when the proven bound and the best meet, after a round in which no probe
//! stopped at its node limit and nothing is left to bisect (the next round would repeat it),
//! after `max_nodes` nodes in all, or when the caller's
//! `keep_going` callback returns false (checked every [`CHECK_EVERY`] nodes; a host passes a
//! clock, firmware a counter). With `keep_going` always true the result depends only on the
//! input (deterministic).
//!
//! Complexity per node for m unplaced buffers of its part: O(sections + m log m) to list the
//! children (the level test is then O(1) a child), per child O(m + w log w) to place it and check its
//! window of w buffers. Memory: one [`Slot`] and at most one [`Section`] per candidate, three
//! index slices and the undo stack of the caller, no heap; the scans skip placed and ended
//! buffers through a 768-byte bitset of the search's own (`open.rs`).
//! Applies to one-interval candidates whose sizes are multiples of the alignment; pinned
//! candidates and per-buffer offset alignments through [`Rules`] (`rules.rs`).
//!
//! This file is the run (rounds, probes, bisection); `search.rs` holds the decision search,
//! `inference.rs` its section inference, `rules.rs` the fixed buffers and own alignments,
//! `budget.rs` the budget and node count, `preorder.rs` the static preorders, `open.rs` the
//! unplaced buffers the scans read.

mod budget;
mod inference;
mod open;
mod preorder;
mod rules;
mod search;

pub use budget::{Ask, Budget, Claim, CHECK_EVERY};
pub use preorder::{preorder, PREORDERS};
pub use rules::Rules;

pub use crate::place::sections::prepare;
use crate::place::sections::UNPLACED;
use crate::workspace::{Raise, Section, Slot};
use budget::Meter;
use core::cell::Cell;
use open::Open;
use search::{Probe, Search};

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
    /// The rounds that begin once the run has expanded this many nodes give the lower-bound
    /// probe `L >> late_bound_shift` nodes per preorder instead (`u64::MAX`: never).
    pub late_from: u64,
    /// Right shift of L for the lower-bound probe of the rounds from `late_from` on.
    pub late_bound_shift: u32,
    /// The first round's L (0: `2n`): a run that goes on from an earlier one passes twice
    /// that run's last [`ExactOutcome::limit`], so it does not repeat its rounds.
    pub first_limit: u64,
    /// Where a run that goes on from an earlier one starts (that run's
    /// [`ExactOutcome::proven`] and [`ExactOutcome::failed`], bytes; 0: none): every capacity
    /// up to the first is infeasible, and the bisection starts above the second.
    pub resume: (u64, u64),
    /// Most work the run may spend, in slot visits: each node's unplaced part, each child
    /// that fails its checks (its part and the window of sections it checked) and the undo
    /// rebuilds ([`ExactOutcome::work`]); the run ends, as at its node limit, once its work
    /// reaches this (`u64::MAX`: no cap). Unlike a node count it follows the time a search
    /// takes, whose nodes cost O(part) each; unlike the clock it is deterministic.
    pub max_work: u64,
}

impl Schedule {
    /// Most nodes at the lower bound (its three preorders 3L a round), the bisection L, in
    /// every round. Measured on the hard DSA set at `auto`'s then 20,000 nodes, giving the
    /// bisection more (or the lower bound less) improves D and J a little and loses the lower
    /// bound on A, B, E or F: a short search finds most of its wins at the lower bound.
    pub const DEFAULT: Schedule = Schedule {
        bound_shift: 0,
        bisect_shift: 2,
        bisect_share: 1,
        late_from: u64::MAX,
        late_bound_shift: 0,
        first_limit: 0,
        resume: (0, 0),
        max_work: u64::MAX,
    };

    /// The planner's for a run whose first `first_nodes` nodes are a shorter search's (the
    /// sim's search with each buffer's own alignment passes
    /// [`AUTO_EXACT_NODES`](crate::place::portfolio::AUTO_EXACT_NODES); `exact` goes on from
    /// `auto`'s capped run with `planner(0)` and that run's last limit, [`Schedule::first_limit`]):
    /// [`Schedule::DEFAULT`] for the rounds that begin within them, so
    /// the longer search is the shorter one node for node up to there (never worse, by construction);
    /// then, for a search that goes on (`exact`, up to its time limit), the lower-bound probes
    /// `L / 4` per preorder, so they (3L/4 a round) and the bisection (L) share each round
    /// about equally. A long search's later rounds find its improvements in the bisection:
    /// `exact --time-limit 1 --threads 1` on the 11 files of the hard DSA set and 33 variants
    /// of them (each file with a seeded tenth of its buffers dropped), two runs each way,
    /// 2026-12-04: mean 1.0154 → 1.0136–1.0142, the lower bound reached on 23 of 44 both
    /// ways, none worse, D 1.0561 → 1.0395–1.0530 (1.0530 after 0.56 s), two variants 1.0557 →
    /// 1.0195 and 1.0459 → 1.0215–1.0459 (the figures near the limit move with the clock);
    /// with `L / 2` D only reaches 1.0530, with `L / 16` B loses the lower bound.
    ///
    /// ```
    /// use dramalloc_core::place::exact::Schedule;
    /// let s = Schedule::planner(20_000);
    /// assert_eq!((s.bound_shift, s.late_from, s.late_bound_shift), (0, 20_000, 2));
    /// assert_eq!(Schedule { late_from: u64::MAX, late_bound_shift: 0, ..s }, Schedule::DEFAULT);
    /// ```
    pub const fn planner(first_nodes: u64) -> Schedule {
        Schedule { late_from: first_nodes, late_bound_shift: 2, ..Schedule::DEFAULT }
    }

    /// `auto`'s: [`Schedule::DEFAULT`] ending once the run has spent `max_work` slot visits
    /// ([`Schedule::max_work`]; `auto` passes
    /// [`AUTO_EXACT_WORK`](crate::place::portfolio::AUTO_EXACT_WORK)).
    ///
    /// ```
    /// use dramalloc_core::place::exact::Schedule;
    /// assert_eq!(Schedule { max_work: u64::MAX, ..Schedule::auto(1_000) }, Schedule::DEFAULT);
    /// ```
    pub const fn auto(max_work: u64) -> Schedule {
        Schedule { max_work, ..Schedule::DEFAULT }
    }
}

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
    /// The last round's node limit L ([`Schedule`]), 0 where no round ran.
    pub limit: u64,
    /// The highest capacity proven infeasible, bytes (the lower bound − 1 where none was).
    pub proven: u64,
    /// The highest capacity where the bisection's probes stopped at their node limit, bytes
    /// (at least `proven`).
    pub failed: u64,
    /// Slot visits spent ([`Schedule::max_work`]).
    pub work: u64,
}

/// Largest problem the recursive search takes: its recursion is one frame per placed buffer
/// (about 400 bytes of stack in a release build, plus one smaller frame where a part splits),
/// so 2,048 buffers stay near 1 MiB of stack.
pub const EXACT_MAX_BUFFERS: usize = 2048;

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
    let (bounds, rules) = ((start, lower_bound, incumbent, align), Rules::NONE);
    branch_and_bound_with(slots, sections, by_lo, ids, raises, bounds, rules, schedule, budget)
}

/// [`branch_and_bound`] with [`Rules`]: each slot's own offset alignment and fixed slots.
/// `bounds` is (start, lower bound, incumbent, align) as there; the slots and sections come
/// from [`crate::place::sections::prepare_loads`] (fixed buffers included, their `best` at
/// their fixed addresses, their bytes in the section totals). The fixed slots stay where they
/// are; the lower bound used is at least the highest fixed end. Rules that do not fit the
/// slots ([`Rules::fit`]) return the incumbent, as a problem it does not search. On return the
/// slots' `at` and the section totals are as they were; the free slots' `best` hold the best
/// plan found.
///
/// ```
/// use dramalloc_core::place::exact::{branch_and_bound_with, Budget, Rules, Schedule};
/// use dramalloc_core::place::sections::prepare_loads;
/// use dramalloc_core::workspace::{Raise, Section, Slot};
/// use dramalloc_core::Info;
/// // three buffers live together: 50 bytes aligned to 4, 40 aligned to 8, 10 aligned to 10
/// let infos = [50u64, 40, 10].map(|b| Info { aligned: b, bytes: b, ..Info::default() });
/// let (mut slots, mut secs) = ([Slot::default(); 3], [Section::default(); 3]);
/// let (mut by_lo, mut ids, mut raises) = ([0u32; 3], [0u32; 3], [Raise::default(); 16]);
/// let count = prepare_loads(&infos, |_| (0, 9), 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
/// let mut go = || true;
/// let mut budget = Budget::new(1000, 0, &mut go);
/// let rules = Rules { align: &[4, 8, 10], pinned: &[], memo: &[] };
/// let bounds = (0, 100, 200, 1); // start, lower bound, incumbent, align
/// let out = branch_and_bound_with(
///     &mut slots, &mut secs[..count], &by_lo, &mut ids, &mut raises, bounds, rules,
///     Schedule::DEFAULT, &mut budget,
/// );
/// // 40 at 0, 50 at 40, 10 at 90: every offset a multiple of its alignment, peak 100
/// assert_eq!((out.peak, out.optimal), (100, true));
/// assert_eq!(slots.map(|s| s.best), [40, 0, 90]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn branch_and_bound_with(
    slots: &mut [Slot],
    sections: &mut [Section],
    by_lo: &[u32],
    ids: &mut [u32],
    raises: &mut [Raise],
    (start, lower_bound, incumbent, align): (u64, u64, u64, u64),
    rules: Rules<'_>,
    schedule: Schedule,
    budget: &mut Budget<'_>,
) -> ExactOutcome {
    let n = slots.len();
    let fixed_top = rules.pinned.iter().map(|&p| slots[p as usize].best + slots[p as usize].size).max();
    let lower_bound = lower_bound.max(fixed_top.unwrap_or(0));
    let mut out = ExactOutcome { peak: incumbent, ..ExactOutcome::default() };
    if incumbent <= lower_bound
        || n == 0
        || n > EXACT_MAX_BUFFERS
        || ids.len() < n
        || by_lo.len() < n
        || !rules.fit(slots)
    {
        out.optimal = incumbent <= lower_bound;
        return out;
    }
    // fixed slots: placed from the start, their bytes out of the section totals
    for &p in rules.pinned {
        let s = &mut slots[p as usize];
        (s.at, s.sol) = (rules::PINNED, s.best);
        for sec in &mut sections[s.lo as usize..=s.hi as usize] {
            sec.remaining -= s.size;
        }
    }
    let out = search_all(
        slots,
        sections,
        by_lo,
        ids,
        raises,
        (start, lower_bound, align),
        rules,
        schedule,
        budget,
        out,
    );
    for &p in rules.pinned {
        let s = &mut slots[p as usize];
        s.at = UNPLACED;
        for sec in &mut sections[s.lo as usize..=s.hi as usize] {
            sec.remaining += s.size;
        }
    }
    out
}

/// The rounds of [`branch_and_bound_with`] once its input is checked and its fixed slots set.
#[allow(clippy::too_many_arguments)]
fn search_all(
    slots: &mut [Slot],
    sections: &mut [Section],
    by_lo: &[u32],
    ids: &mut [u32],
    raises: &mut [Raise],
    (start, lower_bound, align): (u64, u64, u64),
    rules: Rules<'_>,
    schedule: Schedule,
    budget: &mut Budget<'_>,
    mut out: ExactOutcome,
) -> ExactOutcome {
    let n = slots.len();
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
        sec.pad = 0; // the search's scratch (`Search::feasible_after`)
    }
    for s in slots.iter().filter(|s| s.at == UNPLACED) {
        for sec in &mut sections[s.lo as usize..s.hi as usize] {
            sec.cuts += 1;
        }
    }
    let plain = rules.is_none();
    for m in rules.memo {
        m.set([u64::MAX, 0]); // no minimum offset is u64::MAX
    }
    let reach = rules.pinned.iter().map(|&p| slots[p as usize].size).max().unwrap_or(0);
    // the unplaced buffers: every probe unwinds its search, so each starts from this state
    let mut open = Open::new(slots, by_lo);
    let mut meter = Meter::new(budget, schedule.max_work);
    // every capacity <= proven is infeasible
    let mut proven = lower_bound.saturating_sub(1).max(schedule.resume.0);
    let mut limit = if schedule.first_limit > 0 { schedule.first_limit } else { 2 * n as u64 };
    let mut heuristic = usize::MAX;
    // highest capacity that failed at its node limit: bisection probes above it until it
    // meets the best peak, then starts again from the proven bound with larger limits
    let mut lo = proven.max(schedule.resume.1);
    'rounds: loop {
        let mut cap = lower_bound;
        // whether a probe of this round stopped at its node limit, and the capacity just below
        // the best peak (`top`, below) this round probed last
        let (mut limited, mut tried_top) = (false, None);
        let mut bisect_from = u64::MAX; // node count when this round's bisection began
        let round_from = meter.nodes;
        let bound_shift =
            if round_from >= schedule.late_from { schedule.late_bound_shift } else { schedule.bound_shift };
        loop {
            let mut failed = true;
            for h in 0..PREORDERS {
                if heuristic != h {
                    preorder(slots, ids, h);
                    heuristic = h;
                }
                let probe_limit = if cap == lower_bound {
                    (limit >> bound_shift).max(n as u64)
                } else {
                    (limit >> schedule.bisect_shift) + n as u64
                };
                // the search without rules compiled apart (`PLAIN`), the same fields
                macro_rules! probe {
                    ($plain:literal) => {
                        Search::<$plain> {
                            open: &mut open,
                            slots,
                            sec: &mut *sections,
                            by_lo,
                            heap: &mut *ids,
                            raises,
                            nraise: 0,
                            start,
                            cap,
                            heuristic: h,
                            spent: 0,
                            rules,
                            reach,
                            visits: Cell::new(0),
                        }
                        .probe(probe_limit, &mut meter)
                    };
                }
                let found = if plain { probe!(true) } else { probe!(false) };
                match found {
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
                    Probe::Limit => limited = true,
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
                // within 1/1024 of the bound: the capacity just below the best peak (where it
                // is above lo), once a round for each best peak, which finds a lower plan or
                // proves the best
                let top = (out.peak - 1) / align * align;
                if top > lo && tried_top != Some(top) {
                    (cap, tried_top) = (top, Some(top));
                    continue;
                }
                // nothing left to bisect: with no probe at its node limit, the next round
                // (larger limits) would repeat this one, node for node
                if !limited {
                    break 'rounds;
                }
                break;
            }
            // the middle rounded down to a multiple of align, at least the next one above lo
            let mid = lo + gap / 2;
            cap = (mid / align * align).max((lo / align + 1) * align);
            if cap >= out.peak {
                break;
            }
        }
        // a round that expanded no node hit no node limit: the next, with larger limits, would
        // repeat it, node for node (and the clock is asked only between nodes)
        if meter.nodes == round_from {
            break;
        }
        limit = limit.saturating_mul(2);
    }
    out.nodes = meter.nodes;
    out.work = meter.work;
    out.stopped = meter.stopped;
    out.limit = limit;
    (out.proven, out.failed) = (proven, lo.max(proven));
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

    /// The search returns the incumbent at once, nothing expanded, where it cannot or need
    /// not search: an incumbent at the lower bound (optimal), no buffers, more than
    /// [`EXACT_MAX_BUFFERS`], `ids` or `by_lo` shorter than the slots (not optimal).
    #[test]
    fn returns_the_incumbent_where_it_does_not_search() {
        let mut go = || true;
        let mut budget = Budget::new(1 << 20, 0, &mut go);
        let mut slots = [Slot { lo: 0, hi: 0, size: 4, ..Slot::default() }; 3];
        let mut secs = [Section { remaining: 12, ..Section::default() }; 1];
        let mut run = |slots: &mut [Slot], ids: &mut [u32], by_lo: &[u32], lb: u64, inc: u64| {
            let o = branch_and_bound(
                slots,
                &mut secs,
                by_lo,
                ids,
                &mut [],
                0,
                lb,
                inc,
                1,
                Schedule::DEFAULT,
                &mut budget,
            );
            (o.peak, o.nodes, o.optimal, o.improved, o.stopped)
        };
        let (by_lo, mut ids) = ([0u32, 1, 2], [0u32; 3]);
        assert_eq!(run(&mut slots, &mut ids, &by_lo, 12, 12), (12, 0, true, false, false));
        assert_eq!(run(&mut slots, &mut ids, &by_lo, 12, 11), (11, 0, true, false, false));
        assert_eq!(run(&mut [], &mut ids, &by_lo, 12, 16), (16, 0, false, false, false));
        assert_eq!(run(&mut slots, &mut ids[..2], &by_lo, 12, 16), (16, 0, false, false, false));
        assert_eq!(run(&mut slots, &mut ids, &by_lo[..2], 12, 16), (16, 0, false, false, false));
        let mut many = [Slot::default(); EXACT_MAX_BUFFERS + 1];
        let mut ids = [0u32; EXACT_MAX_BUFFERS + 1];
        assert_eq!(
            run(&mut many, &mut ids, &[0; EXACT_MAX_BUFFERS + 1], 12, 16),
            (16, 0, false, false, false)
        );
    }

    /// Runs the search on `iv` (intervals and sizes) with every size times `scale`,
    /// capacities on multiples of `align`; returns (peak, nodes, optimal) and the plan.
    /// Even cases use [`Schedule::DEFAULT`] and too few undo records (recomputation), odd
    /// cases a bisection-heavy schedule and enough records.
    fn search(iv: &[(u32, u32, u64)], case: usize, scale: u64, align: u64) -> ((u64, u64, bool), [u64; 48]) {
        let schedule = if case.is_multiple_of(2) {
            Schedule::DEFAULT
        } else {
            Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3, ..Schedule::DEFAULT }
        };
        search_with(iv, case.is_multiple_of(2), scale, align, 0, schedule, 1 << 20)
    }

    /// [`search`] on up to 48 buffers with the given `schedule`, at most `max_nodes` nodes,
    /// few undo records when `few_raises`, and the lower bound passed to the search lowered
    /// by `weaken` (a weaker bound than the max load: the search must prove the capacities
    /// between them infeasible).
    fn search_with(
        iv: &[(u32, u32, u64)],
        few_raises: bool,
        scale: u64,
        align: u64,
        weaken: u64,
        schedule: Schedule,
        max_nodes: u64,
    ) -> ((u64, u64, bool), [u64; 48]) {
        let n = iv.len();
        let infos: [Info; 48] =
            core::array::from_fn(|k| Info { aligned: iv[k.min(n - 1)].2 * scale, ..Info::default() });
        let mut slots = [Slot::default(); 48];
        let mut secs = [Section::default(); 96];
        let (mut by_lo, mut ids) = ([0u32; 48], [0u32; 48]);
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
        for t in 0..64 {
            lb = lb.max(iv.iter().filter(|x| x.0 <= t && t <= x.1).map(|x| x.2).sum::<u64>());
        }
        let mut go = || true;
        let mut budget = Budget::new(max_nodes, 0, &mut go);
        let out = branch_and_bound(
            &mut slots[..n],
            &mut secs[..count],
            &by_lo[..n],
            &mut ids,
            &mut [Raise::default(); 256][..if few_raises { 4 } else { 256 }],
            0,
            (lb - weaken) * scale,
            (total + 1) * scale,
            align,
            schedule,
            &mut budget,
        );
        ((out.peak, out.nodes, out.optimal), core::array::from_fn(|k| slots[k].best))
    }

    /// Asserts that `best` (addresses of `iv`'s buffers, sizes times `scale`) is a plan:
    /// buffers live together do not overlap, and each ends at or below `peak`.
    fn assert_valid(iv: &[(u32, u32, u64)], best: &[u64], scale: u64, peak: u64, case: usize) {
        for a in 0..iv.len() {
            for b in a + 1..iv.len() {
                if iv[a].0 <= iv[b].1 && iv[b].0 <= iv[a].1 {
                    let (x, y) = (best[a], best[b]);
                    assert!(x + iv[a].2 * scale <= y || y + iv[b].2 * scale <= x, "case {case}");
                }
            }
            assert!(best[a] + iv[a].2 * scale <= peak, "case {case}");
        }
    }

    /// Larger random instances (8 to 40 buffers, short and long lifetimes, sizes over two
    /// orders of magnitude, with and without undo room), each searched to 2,000 nodes: every
    /// answer of the search's shortcut after a placement is checked against the full sweep
    /// (the core's tests do so on every call), and every plan is valid.
    #[test]
    fn the_placement_check_agrees_with_the_full_sweep_on_larger_instances() {
        let mut r = Rng(0x5EC7_10A5);
        for case in 0..400 {
            let n = 8 + (r.next() % 33) as usize;
            let span = 4 + r.next() % 40;
            let iv: [(u32, u32, u64); 48] = core::array::from_fn(|_| {
                let lo = (r.next() % span) as u32;
                let long = r.next().is_multiple_of(5);
                let life = r.next() % if long { span } else { 4 };
                (lo, lo + life as u32, 1 + r.next() % if r.next().is_multiple_of(3) { 100 } else { 10 })
            });
            let iv = &iv[..n];
            let ((peak, _, _), best) = search_with(iv, case % 4 == 3, 1, 1, 0, Schedule::DEFAULT, 2_000);
            assert_valid(iv, &best, 1, peak, case);
        }
    }

    #[test]
    fn finds_the_optimum_of_small_random_instances() {
        let checks = super::search::CROSS_CHECKS.load(core::sync::atomic::Ordering::Relaxed);
        let mut r = Rng(7);
        let (mut nodes, mut nodes_large) = (0u64, 0u64);
        // Miri: 30 cases (the full 300 take minutes there).
        let cases = if cfg!(miri) { 30 } else { 300 };
        for case in 0..cases {
            let n = 2 + (r.next() % 5) as usize;
            let iv: [(u32, u32, u64); 6] = core::array::from_fn(|_| {
                let lo = (r.next() % 8) as u32;
                (lo, lo + (r.next() % 5) as u32, 1 + r.next() % 6)
            });
            let iv = &iv[..n];
            let ((peak, e1, optimal), best) = search(iv, case, 1, 1);
            let opt = brute(iv);
            assert_eq!(peak, opt, "case {case}: {iv:?}");
            assert!(optimal);
            nodes += e1;
            assert_valid(iv, &best, 1, peak, case);
            // every size and the capacities in pages: the same search, page for byte
            let ((peak, expanded, optimal), _) = search(iv, case, 4096, 4096);
            assert_eq!((peak, expanded, optimal), (opt * 4096, e1, true), "case {case}");
            // sizes of MiB at byte capacities: the bisection stops within 1/1024 of the
            // bound, so the search is shorter and may end above the optimum, never below
            let ((peak, expanded, _), _) = search(iv, case, 1 << 20, 1);
            assert!(peak >= opt << 20 && peak <= (opt << 20) + (opt << 20) / 512, "case {case}: {peak}");
            nodes_large += expanded;
        }
        // the nodes the 300 searches expanded, pinned (their schedule: the first node limit
        // `2n`, the probe at the bound on `limit >> bound_shift`, at least n; the bisection
        // on multiples of the alignment down to 1/1024 of the bound)
        if !cfg!(miri) {
            assert_eq!((nodes, nodes_large), (7_145, 3_911));
        }
        // the search's shortcut after a placement was checked against the full sweep here
        let after = super::search::CROSS_CHECKS.load(core::sync::atomic::Ordering::Relaxed);
        // (11,908 of them when run alone; other tests running beside it add theirs)
        assert!(after >= checks + 11_908, "{}", after - checks);
    }

    /// The run's schedule where it matters: 10 to 30 buffers, the bound passed exact or
    /// weakened by a quarter (so the capacities between are proven infeasible and the best
    /// is proven optimal above the bound it was given), in bytes and in 4-byte units, with
    /// three schedules (one whose bisection probes get only n nodes, so they fail at their
    /// limit and the bisection must restart from the proven bound), cut at 3,000 nodes.
    /// Every plan is checked valid; the peaks, nodes and proofs of the 720 runs are pinned.
    #[test]
    fn the_schedule_on_weakened_bounds_and_starved_probes() {
        let mut r = Rng(5);
        let schedules = [
            Schedule::DEFAULT,
            Schedule { bound_shift: 2, bisect_shift: 0, bisect_share: 3, ..Schedule::DEFAULT },
            Schedule { bound_shift: 0, bisect_shift: 3, bisect_share: 2, ..Schedule::DEFAULT },
        ];
        let (mut peaks, mut nodes, mut optimal, mut unfound) = (0u64, 0u64, 0u32, 0u32);
        let cases = if cfg!(miri) { 2 } else { 60 };
        for case in 0..cases {
            let n = 10 + (r.next() % 21) as usize;
            let iv: [(u32, u32, u64); 48] = core::array::from_fn(|_| {
                let lo = (r.next() % 12) as u32;
                (lo, lo + (r.next() % 5) as u32, 1 + r.next() % 5)
            });
            let iv = &iv[..n];
            let mut lb = 0;
            for t in 0..32 {
                lb = lb.max(iv.iter().filter(|x| x.0 <= t && t <= x.1).map(|x| x.2).sum::<u64>());
            }
            for (k, &schedule) in schedules.iter().enumerate() {
                for weaken in [0, lb / 4] {
                    for (scale, align) in [(1, 1), (4, 4)] {
                        let ((peak, expanded, opt), best) =
                            search_with(iv, k == 1, scale, align, weaken, schedule, 3_000);
                        // the incumbent (all at 0, not a plan) is kept when nothing was found
                        let total = iv.iter().map(|x| x.2).sum::<u64>();
                        if peak == (total + 1) * scale {
                            unfound += 1;
                            continue;
                        }
                        assert_valid(iv, &best, scale, peak, case);
                        assert!(peak >= lb * scale, "case {case}");
                        peaks += peak / scale;
                        nodes += expanded;
                        optimal += opt as u32;
                    }
                }
            }
        }
        if !cfg!(miri) {
            assert_eq!((peaks, nodes, optimal, unfound), (16_296, 65_892, 720, 0));
        }
    }

    /// With an incumbent that is not a multiple of the alignment (the caller's plan, here 10
    /// with 4-byte alignment) and a weak bound (4, where the max load is 8), the bisection
    /// probes multiples of 4 only and finds the optimum 8: probing 5 and 6 (the old
    /// `lo + 1`) proved 6 infeasible and took `6 + 4 >= 10` as a proof that 10 was optimal.
    #[test]
    fn an_unaligned_incumbent_is_bisected_on_aligned_capacities() {
        let infos = [Info { aligned: 4, ..Info::default() }; 2];
        let mut slots = [Slot::default(); 2];
        let mut secs = [Section::default(); 2];
        let (mut by_lo, mut ids) = ([0u32; 2], [0u32; 2]);
        let count = prepare(&infos, |_| (0, 3), 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
        let mut go = || true;
        let mut budget = Budget::new(1 << 12, 0, &mut go);
        let out = branch_and_bound(
            &mut slots,
            &mut secs[..count],
            &by_lo,
            &mut ids,
            &mut [Raise::default(); 8],
            0,
            4,
            10,
            4,
            Schedule::DEFAULT,
            &mut budget,
        );
        assert_eq!((out.peak, out.optimal, out.improved), (8, true, true));
        let mut best = [slots[0].best, slots[1].best];
        best.sort_unstable();
        assert_eq!(best, [0, 4]);
    }

    /// Exactly [`EXACT_MAX_BUFFERS`] buffers are searched (one more is not, see
    /// `returns_the_incumbent_where_it_does_not_search`): 2,048 one-byte buffers, each live at
    /// its own instruction, from an incumbent of 2 reach the bound 1.
    #[test]
    fn the_largest_problem_taken_is_searched() {
        if cfg!(miri) {
            return;
        }
        const N: usize = EXACT_MAX_BUFFERS;
        let infos = [Info { aligned: 1, ..Info::default() }; N];
        let mut slots = [Slot::default(); N];
        let mut secs = [Section::default(); N];
        let (mut by_lo, mut ids) = ([0u32; N], [0u32; N]);
        let base = infos.as_ptr() as usize;
        let at = |i: &Info| ((i as *const Info as usize - base) / core::mem::size_of::<Info>()) as u32;
        let count =
            prepare(&infos, |i| (at(i), at(i)), 0, &mut slots, &mut secs, &mut by_lo, &mut ids).unwrap();
        let mut go = || true;
        let mut budget = Budget::new(1 << 20, 0, &mut go);
        let out = branch_and_bound(
            &mut slots,
            &mut secs[..count],
            &by_lo,
            &mut ids,
            &mut [Raise::default(); 8],
            0,
            1,
            2,
            1,
            Schedule::DEFAULT,
            &mut budget,
        );
        assert_eq!((out.peak, out.optimal, out.improved), (1, true, true));
        assert!(out.nodes > 0 && slots.iter().all(|s| s.best == 0));
    }
}
