//! Peak repair: re-places the buffers of a time window around the buffer that sets the
//! peak, keeping a new placement only when it ends below the peak.
//! Uses: liveness, seed (select's first fit), sections, settle, repair_work (its budget), error, workspace; used by:
//! portfolio, settle (Work, out_of_work).
//!
//! A large-neighbourhood search in the style of TVM's `hill_climb` and of ruin-and-recreate,
//! made deterministic. While the work budget lasts:
//! 1. take the buffer `v` that ends highest (the lowest index among ties) — the peak `P`;
//! 2. for a window of instructions `[lo(v) - m, hi(v) + m]`, `m` = 16, 32, 64, ..., lift out
//!    every unpinned buffer whose whole lifetime lies inside the window (`v` among them;
//!    every other buffer stays where it is, an obstacle);
//! 3. put them back by first fit ([`crate::place::seed::select::place_one`], the seed's
//!    in-gap rule and CC retry; the last order by best fit, [`BEST_FIT`]) in each of
//!    [`ORDERS`] in turn, and keep the order whose buffers end lowest;
//! 4. if they end below `P`, the window's new addresses stay and the search starts again
//!    at the new peak; otherwise the window doubles, up to [`MAX_WINDOW`] buffers or the
//!    whole program (a doubled window that holds no buffer the last did not is the same
//!    window, and is not tried again: on the hard set's J that was 23 % of the repair's
//!    work). When no window lowers `v`, the repair ends: nothing near `v` can go
//!    lower in these orders.
//!
//! 5. when a window was kept, the buffers at or above the lowest address a window buffer
//!    left slide down onto a neighbour's end (`place/settle.rs`): the kept windows
//!    leave holes under buffers outside them, and the seed's rule puts every buffer at the
//!    floor, at a neighbour's end or on a page boundary.
//!
//! Every re-placement is checked against all of a buffer's interfering neighbours, inside
//! and outside the window, so each kept plan is valid; the peak never rises. A window that
//! does not help is restored exactly.
//!
//! Quality: the windows fix what a global order got wrong locally, where the peak is. On
//! generated inputs with short lifetimes a time sweep's plan (1.17–1.19 × the max-load
//! bound) comes down to 1.00–1.01 (`dramalloc quality --generated`); it cannot fix a peak
//! set by a buffer living across most of the program, whose window is everything.
//!
//! Cost: per window, at most one interval-tree query per buffer lifted out, made where an
//! order first places the buffer (its neighbour list is then kept for the window's later
//! orders, where the storage holds it), plus, for each order, a pass over those lists and the
//! sort of the occupied ranges; counted in [`Work`] units ([`TREE_VISIT_UNITS`] a neighbour
//! found by a tree query, one a neighbour read again). An order stops at the first buffer
//! that cannot go below the peak, so a window that fails queries only the buffers its orders
//! reached. (Before 2026-12-06 every buffer's query came first, and the queries were 58–91 %
//! of the failed windows' units on three generated 10^6-row files: `mixed` and `short` seed
//! 1, `long-tail` the default seed; README, "A window's neighbours queried as its orders
//! place them".)

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::cost_model::HOT_LOAD_UNITS;
use crate::place::portfolio::Storage;
pub(crate) use crate::place::repair_work::out_of_work;
pub use crate::place::repair_work::{Work, ASK_EVERY_VISITS, STALL_FACTOR};
use crate::place::scan::interval_of;
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{place_one, Regions};
use crate::place::settle::settle;
use crate::place::single::section_loads_asking;
use crate::workspace::Section;

/// Work units of one neighbour found by an interval-tree query (about 10 ns: the tree walk
/// misses the cache at scale); one read from a window's cached list costs one unit.
pub const TREE_VISIT_UNITS: u64 = 10;

/// The most buffers one window lifts out.
pub const MAX_WINDOW: usize = 65_536;

/// Most `u32` words (4 MiB) of the placed list's storage a window's neighbour lists are kept
/// in (two words a window buffer index them); a list that does not fit is queried from the
/// tree again by each order. At 10^6
/// buffers the storage is 24 MB, and the lists of a window of long-lived buffers would
/// touch all of it (measured: 272 MB RSS for a layered 10^6-row plan against 249 MB).
pub const CACHE_WORDS: usize = 1 << 20;

/// A window buffer whose neighbour list is not kept yet ([`try_window`]'s lists).
const NOT_LISTED: u32 = u32::MAX;

/// The first window reaches this many instructions beyond the peak buffer on each side.
pub const FIRST_MARGIN: u32 = 16;

/// The orders a window is re-placed in, by key (all descending, ties by candidate index):
/// (size, then earlier start first), (largest load over the lifetime, then lifetime),
/// (largest load over the lifetime, then size), (lifetime, then size), (size × lifetime),
/// then the size order perturbed twice (see [`PERTURBED`]), then the second order's key by
/// best fit ([`BEST_FIT`]). The load keys need the sections of
/// [`crate::place::sections::prepare_loads`] (pinned candidates count in them); without them
/// (short storage) those orders are left out: four orders.
pub const ORDERS: usize = 8;

/// Orders from this number on are the size order with about a third of its neighbouring
/// pairs swapped, pseudo-randomly but deterministically (a xorshift seeded by the order
/// number and the peak): when every fixed order leaves the peak where it is, a perturbed one
/// often does not (TVM's `hill_climb` perturbs the same way).
pub const PERTURBED: usize = 10;

/// The last order: order 1's key (largest load over the lifetime, then lifetime), each
/// buffer placed by best fit ([`Fit::Best`]: the smallest gap below the general ceiling
/// that holds it) instead of first fit. First fit in every order can leave a plan whose
/// peak it cannot lower: the largest buffer goes first into the lowest gap that holds it,
/// though a smaller one would fill that gap and a gap of exactly its size lies higher (the
/// unit test `the_best_fit_order_fills_the_gaps_first_fit_leaves`). Best fit is the other
/// classic rule (XLA's heap simulator). Of the two keys tried with it, the size order's and
/// this one, this one won more windows (14 against 1 on seven generated files of 3 × 10^4
/// to 5.5 × 10^5 rows; README, "Best fit in the repair's windows").
pub const BEST_FIT: usize = 20;

/// What one repair did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repaired {
    /// The peak after the repair, bytes.
    pub peak: u64,
}

/// Sort key of candidate `v` under order `o` (larger first), a `(first, second)` pair of `u64`s:
/// order 4's size × lifetime is split into its high and low 64 bits, so it compares exactly.
fn key(o: usize, info: &Info, lo: u32, hi: u32, load: u64) -> Span {
    let (size, life) = (info.aligned, u64::from(hi - lo) + 1);
    let (first, second) = match o {
        1 | BEST_FIT => (load, life),
        2 => (load, size),
        3 => (life, size),
        4 => {
            let product = u128::from(size) * u128::from(life);
            ((product >> 64) as u64, product as u64)
        }
        // 0, and the perturbed orders before their swaps
        _ => (size, u64::from(u32::MAX - lo)),
    };
    Span { lo: first, hi: second }
}

/// Repairs the plan in `infos` (every candidate placed, one interval each) while `work`
/// lasts. Needs `slots`, `order`, `heap`, `neighbours` and `occupied` of one entry per
/// candidate (`sections` too for the load orders); returns `None` (nothing changed) when
/// storage is short or a candidate has several intervals.
///
/// # Errors
/// Only a tree-query error ([`PlanError::Capacity`]), impossible with full storage.
pub(crate) fn repair(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    regions: Regions,
    lower_bound: u64,
    work: &mut Work<'_>,
) -> Result<Option<Repaired>, PlanError> {
    let n = infos.len();
    if n == 0
        || st.slots.len() < n
        || st.order.len() < n
        || st.heap.len() < n
        || st.neighbours.len() < n
        || st.occupied.len() < n
        || infos.iter().any(|i| i.interval_count != 1 || !i.is_allocated())
    {
        return Ok(None);
    }
    // the largest section total under each candidate (slots[..].total), where it can be had;
    // prepare keeps `best` and rewrites the rest of each slot. The clock is asked between its
    // two steps (the sections and their sort, then the totals: about 60 and 50 ms at 10^6
    // candidates, where the sweep can end just before the clock), so a clock that ran out in
    // the first stops the repair before the second (`Work::used` stays 0: "out of time")
    // (where they would take more than half the repair's budget, the windows get it first:
    // [`loads_pay`]; [`Work::planning_budget`])
    let deferred = !loads_pay(n, work.planning_budget());
    let asked = if !deferred {
        section_loads_asking(graph, infos, st, regions, &mut || work.go())
    } else {
        Some(false)
    };
    let Some(mut loads) = asked else {
        return Ok(Some(Repaired { peak: infos.iter().map(Info::end).max().unwrap_or(0) }));
    };
    let mut lowest_moved: Option<u64> = None;
    let mut out = loop {
        let orders: &[usize] =
            if loads { &[0, 1, 2, 3, 4, PERTURBED, PERTURBED + 1, BEST_FIT] } else { &[0, 3, 4, PERTURBED] };
        // the ends in a max tree over the sections' storage (free again once the totals are
        // read), so the peak and the buffer that sets it cost O(log n) after each window
        let sections: &mut [Section] = core::mem::take(&mut *st.sections);
        let run = {
            let mut tops = Tops::new(bytemuck::cast_slice_mut(&mut sections[..]), infos);
            peaks(graph, infos, st, &mut tops, orders, regions, lower_bound, work)
        };
        *st.sections = sections;
        let (out, moved, end) = run?;
        if let Some(m) = moved {
            lowest_moved = Some(lowest_moved.map_or(m, |l| l.min(m)));
        }
        // the orders without the loads ran out (no window lowers the peak, or the repair
        // stalled) with work and time left (the clock asked first: their first step is not
        // stopped inside): the loads now, and the windows again with every order, their
        // patience counted from here
        if !deferred || loads || end != End::RanOut || !work.go() {
            break out;
        }
        match section_loads_asking(graph, infos, st, regions, &mut || work.go()) {
            Some(true) => {
                loads = true;
                work.gained();
            }
            _ => break out,
        }
    };
    // (settle moves nothing once the work or the clock is out: skip its sort of n records)
    if let Some(from) = lowest_moved.filter(|_| !work.done()) {
        settle(graph, infos, st, regions, from, work)?;
        out.peak = infos.iter().map(Info::end).max().unwrap_or(0);
    }
    Ok(Some(out))
}

/// True when the section loads of `n` candidates (the load orders' keys, estimated at
/// [`HOT_LOAD_UNITS`] `· n log2 n` units, as for the sweep around the hot) cost at most half
/// of the repair's `budget` units; otherwise the repair starts with the orders that need no
/// loads and computes them only once those run out (no window lowers the peak, or it
/// stalls) with work and time left. An anytime search whose set-up takes most of its budget
/// has too little left to use it:
/// - at 10^6 buffers under the default 1 s (`budget` 2 · 10^8 units, the loads about
///   2 · 10^8), without the loads first `generate --shape mixed` ends at 1.0233 × LB (three
///   runs) against 1.0343–1.0362 with them, and `long-tail` at 1.1238 against 1.1292–1.1345;
/// - `core/tests/repair_paths.rs`'s 3,000 buffers with 280,000 units left: 25,507 bytes
///   against 26,495, and with no bound (the loads once the other orders ran out) 24,471
///   against 25,014 (26,401 against 26,517 and 24,991 against 25,014 when each window
///   queried all its buffers' neighbours before its first order).
///
/// ```
/// use dramalloc_core::place::repair::loads_pay;
/// assert!(loads_pay(1_000, 200_000)); // 10 · 1,000 · 10 = 100,000 units
/// assert!(!loads_pay(1_000, 199_999));
/// assert!(!loads_pay(1_000_000, 200_000_000));
/// ```
pub fn loads_pay(n: usize, base: u64) -> bool {
    section_load_units(n).saturating_mul(2) <= base
}

/// Work units of the section loads over `n` candidates (the sections, a sort of the
/// candidates, a pass of O(log s) steps each): [`HOT_LOAD_UNITS`] `· n log2 n`, as for the
/// sweep around the hot's loads; also what the settle by the sections' tree is charged.
pub(crate) fn section_load_units(n: usize) -> u64 {
    let n = n as u64;
    let log_n = 64 - n.leading_zeros() as u64;
    n.saturating_mul(log_n).saturating_mul(HOT_LOAD_UNITS)
}

/// The repair loop of [`repair`] over the ends in `tops`.
#[allow(clippy::too_many_arguments)]
fn peaks(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    tops: &mut Tops<'_>,
    orders: &[usize],
    regions: Regions,
    lower_bound: u64,
    work: &mut Work<'_>,
) -> Result<(Repaired, Option<u64>, End), PlanError> {
    let nodes = graph.tree().nodes(); // sorted by lo; one per candidate here
    let mut end = End::Other;
    let mut lowest_moved: Option<u64> = None;
    let last = nodes.iter().map(|x| x.hi).max().unwrap_or(0);
    let mut out = Repaired { peak: tops.peak(infos) };
    'peaks: while out.peak > lower_bound {
        let v = tops.argmax(infos);
        if infos[v].is_pinned() {
            break; // nothing can go below a fixed buffer
        }
        let (vlo, vhi) = interval_of(graph, &infos[v]);
        let mut margin = FIRST_MARGIN;
        // the last window's buffer count: the windows nest as the margin doubles, so one with
        // no buffer the last had not is the same window, and would fail the same way (it
        // restores the plan exactly, and its orders depend only on the window and the peak)
        let mut tried = usize::MAX;
        loop {
            let (wlo, whi) = (vlo.saturating_sub(margin), vhi.saturating_add(margin));
            // the window's buffers: lifetimes inside [wlo, whi]
            let first = nodes.partition_point(|x| x.lo < wlo);
            let mut k = 0usize;
            for x in nodes[first..].iter().take_while(|x| x.lo <= whi) {
                let c = x.payload as usize;
                if x.hi <= whi && !infos[c].is_pinned() {
                    if k == MAX_WINDOW {
                        break;
                    }
                    st.order[k] = c as u32;
                    k += 1;
                }
            }
            let whole = wlo == 0 && whi >= last;
            let again = k == tried;
            tried = k;
            // (no work left: the window's first step says so, and the test below ends it)
            if !again && !work.go() {
                break 'peaks;
            }
            if !again && try_window(graph, infos, st, orders, k, regions, out.peak, work)?.is_some() {
                for &c in &st.order[..k] {
                    let (info, was) = (&infos[c as usize], st.slots[c as usize].sol);
                    if info.address != was {
                        lowest_moved = Some(lowest_moved.map_or(was, |m| m.min(was)));
                    }
                    tops.set(c as usize, info.end());
                }
                let before = out.peak;
                out.peak = tops.peak(infos);
                if out.peak < before {
                    work.gained(); // (a window kept among tied peaks is no gain yet)
                }
                continue 'peaks;
            }
            if whole || k == MAX_WINDOW || work.done() {
                // (no window lowers the peak, or the repair stalled; not the budget. A clock
                // that said stop says it again when the caller asks)
                if work.left > 0 {
                    end = End::RanOut;
                }
                break 'peaks;
            }
            margin = margin.saturating_mul(2);
        }
    }
    Ok((out, lowest_moved, end))
}

/// Why [`peaks`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// No window lowers the peak buffer, or the repair stalled, with work left.
    RanOut,
    /// The bound, a pinned peak buffer, no work left or the clock.
    Other,
}

/// The candidates' ends in a max tree (`t[1]` the root, leaf `v` at `p + v`), over storage
/// of at least `2p` `u64`s for `p` = n rounded up to a power of two; with less storage every
/// query scans the Info records instead (O(n)).
struct Tops<'a> {
    t: &'a mut [u64],
    p: usize,
}

impl<'a> Tops<'a> {
    fn new(storage: &'a mut [u64], infos: &[Info]) -> Tops<'a> {
        let p = infos.len().next_power_of_two();
        if storage.len() < 2 * p {
            return Tops { t: &mut [], p: 0 };
        }
        let t = &mut storage[..2 * p];
        t.fill(0);
        for (v, info) in infos.iter().enumerate() {
            t[p + v] = info.end();
        }
        for i in (1..p).rev() {
            t[i] = t[2 * i].max(t[2 * i + 1]);
        }
        Tops { t, p }
    }

    fn set(&mut self, v: usize, end: u64) {
        if self.p == 0 {
            return;
        }
        let mut i = self.p + v;
        self.t[i] = end;
        while i > 1 {
            i /= 2;
            self.t[i] = self.t[2 * i].max(self.t[2 * i + 1]);
        }
    }

    /// The highest end, bytes.
    fn peak(&self, infos: &[Info]) -> u64 {
        if self.p == 0 {
            return infos.iter().map(Info::end).max().unwrap_or(0);
        }
        self.t[1]
    }

    /// The lowest-index candidate whose end is the peak.
    fn argmax(&self, infos: &[Info]) -> usize {
        if self.p == 0 {
            let peak = self.peak(infos);
            return infos.iter().position(|i| i.end() == peak).unwrap_or(0);
        }
        let mut i = 1;
        while i < self.p {
            i = if self.t[2 * i] == self.t[i] { 2 * i } else { 2 * i + 1 };
        }
        i - self.p
    }
}

/// Lifts out the `k` window buffers listed in `st.order` and re-places them in each order;
/// keeps the best placement when its highest end is below `peak` and returns that end, else
/// restores the window and returns `None`.
#[allow(clippy::too_many_arguments)]
fn try_window(
    graph: &mut Graph<'_>,
    infos: &mut [Info],
    st: &mut Storage<'_, '_>,
    orders: &[usize],
    k: usize,
    regions: Regions,
    peak: u64,
    work: &mut Work<'_>,
) -> Result<Option<u64>, PlanError> {
    let (window, sorted) = (&st.order[..k], &mut st.heap[..k]);
    for &c in window {
        st.slots[c as usize].sol = infos[c as usize].address; // to restore
    }
    // each window buffer's neighbour list, queried from the tree when the buffer is first
    // placed and kept for the orders after in the placed list's storage seen as u32s (per
    // window position its list's start and length, [`NOT_LISTED`] until queried, then the
    // lists), while they fit: an order that fails early queries only the lists it reads
    let cache: &mut [u32] = bytemuck::cast_slice_mut(&mut st.placed[..]);
    let words = cache.len().min(CACHE_WORDS);
    let cache = &mut cache[..words];
    let kept_lists = cache.len() >= 2 * k;
    let mut len = 2 * k;
    if kept_lists {
        cache[..k].fill(NOT_LISTED);
    }
    for (wi, &c) in window.iter().enumerate() {
        st.scratch[c as usize].heap_pos = wi as u32; // the buffer's place in the window
    }
    let mut best = peak; // a placement must end below this to count
    let mut found = false;
    for &o in orders {
        {
            // the keys once, by window position, in the occupied ranges' storage (free until
            // the placement below): the sort then reads two dense arrays, not three records
            let (nodes, slots) = (graph.tree().nodes(), &*st.slots);
            let keys = &mut st.occupied[..k];
            for ((wi, &c), (kept, at)) in
                window.iter().enumerate().zip(keys.iter_mut().zip(sorted.iter_mut()))
            {
                let info = &infos[c as usize];
                let x = &nodes[graph.intervals_of(info)[0] as usize];
                *kept = key(o, info, x.lo, x.hi, slots[c as usize].total);
                *at = wi as u32;
            }
            let keys = &*keys;
            sorted.sort_unstable_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                keys[b].cmp(&keys[a]).then(window[a].cmp(&window[b]))
            });
            for at in sorted.iter_mut() {
                *at = window[*at as usize];
            }
        }
        if (PERTURBED..BEST_FIT).contains(&o) {
            // the size order with a third of its neighbours swapped, by a xorshift seeded
            // from the order and the peak (deterministic)
            let mut x = (o as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ peak | 1;
            for i in 1..sorted.len() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x.is_multiple_of(3) {
                    sorted.swap(i - 1, i);
                }
            }
        }
        for &c in window {
            infos[c as usize].allocated = 0;
        }
        let mut top = 0u64;
        let mut ok = true;
        for (done, &c) in sorted.iter().enumerate() {
            if out_of_work(work, done) {
                ok = false;
                break;
            }
            let wi = st.scratch[c as usize].heap_pos as usize;
            let list: &[u32] = if kept_lists && cache[wi] != NOT_LISTED {
                let (from, m) = (cache[wi] as usize, cache[k + wi] as usize);
                work.left = work.left.saturating_sub(m as u64 + 1);
                &cache[from..from + m]
            } else {
                let m = graph.collect_neighbours(c, infos, st.scratch, st.neighbours)?;
                work.left = work.left.saturating_sub(TREE_VISIT_UNITS * (m as u64 + 1));
                if kept_lists && len + m <= cache.len() {
                    cache[len..len + m].copy_from_slice(&st.neighbours[..m]);
                    (cache[wi], cache[k + wi]) = (len as u32, m as u32);
                    len += m;
                }
                &st.neighbours[..m]
            };
            let mut j = 0usize;
            for &u in list {
                let nb = &infos[u as usize];
                if nb.is_allocated() {
                    st.occupied[j] = Span { lo: nb.address, hi: nb.end() };
                    j += 1;
                }
            }
            let fit = if o == BEST_FIT { Fit::Best } else { Fit::First };
            match place_one(&mut st.occupied[..j], &infos[c as usize], regions, fit) {
                Ok(a) if a.saturating_add(infos[c as usize].aligned) < best => {
                    let info = &mut infos[c as usize];
                    info.address = a;
                    info.allocated = 1;
                    top = top.max(info.end());
                }
                // no better than the best so far (or nowhere to go): this order is done
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            best = top;
            found = true;
            for &c in window {
                st.slots[c as usize].at = infos[c as usize].address;
            }
        }
        for &c in window {
            infos[c as usize].allocated = 1;
        }
        if work.done() {
            break; // (the clock: a large window's sort per order would run on past it)
        }
    }
    for &c in window {
        let s = &st.slots[c as usize];
        infos[c as usize].address = if found { s.at } else { s.sol };
        infos[c as usize].allocated = 1;
    }
    Ok(found.then_some(best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::interval_tree::Node;
    use crate::place::sections::UNPLACED;
    use crate::workspace::{Placed, Raise, Scratch, Slot};

    /// Which slice of the storage a run lends one entry short.
    #[derive(Clone, Copy, PartialEq)]
    enum Short {
        None,
        Slots,
        Order,
        Heap,
        Neighbours,
        Occupied,
        /// One section: no load orders, and the ends scanned instead of kept in a tree.
        Sections,
    }

    /// Repairs the plan `(lo, hi, aligned, address)` of up to 8 buffers (`edit` may change
    /// the infos first) with one slice short where asked; returns the repair's answer, the
    /// first 4 buffers' addresses after it and the work it used.
    fn run(
        plan: &[(u32, u32, u64, u64)],
        short: Short,
        edit: fn(&mut [Info]),
    ) -> (Option<u64>, [u64; 4], u64) {
        let (out, at, used, _) = run_on(plan, short, edit, (16, 1_000_000, 0, u32::MAX));
        (out, at, used)
    }

    /// [`run`] with the bound, the work budget (base and allowance past it) and the clock's
    /// first "stop" (its call number) given; also says whether the section loads were
    /// computed last (every slot's `at` left [`UNPLACED`] by their set-up, no window kept
    /// since).
    fn run_on(
        plan: &[(u32, u32, u64, u64)],
        short: Short,
        edit: fn(&mut [Info]),
        (bound, base, extra, stop_at): (u64, u64, u64, u32),
    ) -> (Option<u64>, [u64; 4], u64, bool) {
        let n = plan.len();
        let mut nodes: [Node; 8] = core::array::from_fn(|k| {
            let (lo, hi, _, _) = plan.get(k).copied().unwrap_or_default();
            Node::new(lo, hi, k as u32)
        });
        let mut infos: [Info; 8] = core::array::from_fn(|k| {
            let (_, _, aligned, address) = plan.get(k).copied().unwrap_or((0, 0, 8, 0));
            Info { aligned, address, allocated: 1, interval_count: 1, location: k as u32, ..Info::default() }
        });
        let infos = &mut infos[..n];
        let mut ids = [0u32; 8];
        let mut graph = Graph::build(&mut nodes[..n], &mut ids, infos);
        edit(infos);
        let len = |s: Short| if s == short { n.saturating_sub(1) } else { 8 };
        let secs_len = if short == Short::Sections { 1 } else { 8 };
        let mut scratch = [Scratch::default(); 8];
        let (mut order, mut heap, mut nb) = ([0u32; 8], [0u32; 8], [0u32; 8]);
        let (mut occ, mut placed) = ([Span::default(); 8], [Placed::default(); 8]);
        let (mut slots, mut secs, mut raises) =
            ([Slot::default(); 8], [Section::default(); 8], [Raise::default(); 8]);
        let mut order = &mut order[..len(Short::Order)];
        let mut heap = &mut heap[..len(Short::Heap)];
        let mut nb = &mut nb[..len(Short::Neighbours)];
        let mut occ = &mut occ[..len(Short::Occupied)];
        let mut placed = &mut placed[..];
        let mut slots = &mut slots[..len(Short::Slots)];
        let mut secs = &mut secs[..secs_len];
        let mut raises = &mut raises[..];
        let mut st = Storage {
            scratch: &mut scratch,
            order: &mut order,
            heap: &mut heap,
            neighbours: &mut nb,
            occupied: &mut occ,
            placed: &mut placed,
            slots: &mut slots,
            sections: &mut secs,
            raises: &mut raises,
            lookahead: &mut &mut [][..],
            stand_in: false,
        };
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
        let mut calls = 0u32;
        let mut go = || {
            calls += 1;
            calls < stop_at
        };
        let mut work = Work::with_extension(base, extra, &mut go);
        let out = repair(&mut graph, infos, &mut st, regions, bound, &mut work).unwrap();
        let at: [u64; 4] = core::array::from_fn(|k| infos.get(k).map_or(0, |i| i.address));
        let used = work.used();
        let loads = st.slots.len() >= n && n > 0 && st.slots[..n].iter().all(|s| s.at == UNPLACED);
        (out.map(|r| r.peak), at, used, loads)
    }

    /// Each order's key as a `(first, second)` pair: order 4 compares the exact size ×
    /// lifetime product past 64 bits (2^40 bytes for 2^30 instructions against 2^63 bytes for
    /// one), the perturbed orders start from order 0's.
    #[test]
    fn keys_compare_as_their_exact_values() {
        let info = |aligned| Info { aligned, ..Info::default() };
        let long = key(4, &info(1 << 40), 0, (1 << 30) - 1, 0);
        let wide = key(4, &info(1 << 63), 5, 5, 0);
        assert_eq!((long, wide), (Span { lo: 64, hi: 0 }, Span { lo: 0, hi: 1 << 63 }));
        assert!(long > wide);
        let small = info(8); // [3, 9]: a lifetime of 7, a load of 100
        let keys: [Span; 6] = core::array::from_fn(|o| key([0, 1, 2, 3, 4, PERTURBED][o], &small, 3, 9, 100));
        let pairs = keys.map(|k| (k.lo, k.hi));
        assert_eq!(
            pairs,
            [(8, u64::from(u32::MAX) - 3), (100, 7), (100, 8), (7, 8), (0, 56), (8, u64::from(u32::MAX) - 3)]
        );
    }

    /// A [0, 9] at 0, B [0, 4] at 8, C [5, 9] at 16 (8 bytes each): C sets the peak, 24,
    /// where 16 is the bound; the repair lifts the window and puts C on B's place.
    const PLAN: [(u32, u32, u64, u64); 3] = [(0, 9, 8, 0), (0, 4, 8, 8), (5, 9, 8, 16)];

    /// The window's new plan reaches the bound. The work it is charged (a buffer's tree query
    /// at [`TREE_VISIT_UNITS`] a neighbour where an order first places it, its kept list at
    /// one a neighbour in the orders after, the settle) is pinned: 105 units with the eight
    /// orders (100 with seven, before the best-fit order); without the sections (no load
    /// orders, the ends scanned instead of kept in a tree) the same plan, with the four other
    /// orders, for 85. (Before the lists were queried
    /// as each order placed them, the queries came first and the first order read the lists
    /// again: 7 units more, the three buffers' 2 + 1 + 1 neighbours and one a buffer.)
    #[test]
    fn a_window_lowers_the_peak_to_the_bound() {
        assert_eq!(run(&PLAN, Short::None, |_| {}), (Some(16), [0, 8, 8, 0], 105));
        assert_eq!(run(&PLAN, Short::Sections, |_| {}), (Some(16), [0, 8, 8, 0], 85));
        // A pinned where it stands (lifted out by no window): the eight orders stay, its
        // bytes counted in the loads (52 with seven orders; they were left out with a pinned
        // buffer: 50 units)
        let pin = |i: &mut [Info]| i[0].pinned = 1;
        assert_eq!(run(&PLAN, Short::None, pin), (Some(16), [0, 8, 8, 0], 54));
        assert_eq!(run(&PLAN, Short::Sections, pin), (Some(16), [0, 8, 8, 0], 46));
    }

    /// The section loads of [`PLAN`]'s 3 candidates cost 10 · 3 · 2 = 60 units, so they pay
    /// from a budget of 120 (`loads_pay`). Asked to reach 8 (out of reach: the window's best
    /// is 16) on 100 units, the repair starts without them and spends them all: no loads.
    /// With an unbounded allowance past those 100 (a host's clock) the orders without loads
    /// run out (the window reaches 16, then no window lowers it), and the loads come then,
    /// and the windows again with every order (no lower plan either). Where the clock says
    /// stop when asked before them (its third call), they do not come. With 120 units the
    /// loads come first, and the kept window rewrites its slots.
    /// Best fit where first fit is stuck: A (5 bytes), B (4) and C (3), all live over [0, 9],
    /// with two pinned 2-byte buffers at 7 and 14, so the free gaps below 16 are [0, 7) and
    /// [9, 14). The plan is first fit's in size order: A at 0, B at 9, C above the second
    /// pinned one at 16, peak 19. Every fixed order places A first (the largest; the first by
    /// index among equal loads and lifetimes) at 0, and so do the two perturbed ones here:
    /// without the best-fit order the repair ends at 19, where it started (240 units). Best
    /// fit puts A in the gap of exactly its size, [9, 14), and B and C fill [0, 7): 16, the
    /// bound (5 + 4 + 3 + 2 + 2).
    #[test]
    fn the_best_fit_order_fills_the_gaps_first_fit_leaves() {
        let plan = [(0, 9, 5, 0), (0, 9, 4, 9), (0, 9, 3, 16), (0, 9, 2, 7), (0, 9, 2, 14)];
        let pin = |i: &mut [Info]| (i[3].pinned, i[4].pinned) = (1, 1);
        assert_eq!(run(&plan, Short::None, pin), (Some(16), [9, 0, 4, 7], 405));
    }

    #[test]
    fn the_loads_come_first_only_where_they_pay() {
        let none = |_: &mut [Info]| {};
        let reached = (Some(16), [0, 8, 8, 0]);
        let got = |b| {
            let (peak, at, used, loads) = run_on(&PLAN, Short::None, none, b);
            ((peak, at), used, loads)
        };
        assert_eq!(got((8, 100, 0, u32::MAX)), (reached, 100, false));
        assert_eq!(got((8, 100, u64::MAX, u32::MAX)), (reached, 235, true));
        assert_eq!(got((8, 100, u64::MAX, 3)), (reached, 150, false));
        assert_eq!(got((8, 120, 0, u32::MAX)), (reached, 120, false));
        assert!(loads_pay(3, 120) && !loads_pay(3, 119));
    }

    /// Nothing to repair, storage one entry short (each slice in turn), a buffer with two
    /// intervals or one not placed: `None`, and the plan is left as it was.
    #[test]
    fn declines_without_storage_or_a_whole_one_interval_plan() {
        assert_eq!(run(&[], Short::None, |_| {}), (None, [0; 4], 0));
        for short in [Short::Slots, Short::Order, Short::Heap, Short::Neighbours, Short::Occupied] {
            assert_eq!(run(&PLAN, short, |_| {}), (None, [0, 8, 16, 0], 0));
        }
        assert_eq!(run(&PLAN, Short::None, |i| i[1].interval_count = 2), (None, [0, 8, 16, 0], 0));
        assert_eq!(run(&PLAN, Short::None, |i| i[2].allocated = 0), (None, [0, 8, 16, 0], 0));
    }
}
