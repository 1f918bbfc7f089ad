//! Address-ordered scan placement: `select`'s plans for one-interval candidates, without tree queries.
//! Uses: error, liveness, seed, workspace; used by: portfolio, sweep.
//!
//! Address-ordered scan placement: the same plans as [`crate::place::seed::select::select`] for problems
//! whose candidates have exactly one liveness interval each (the [`crate::plan_buffers`]
//! form), without the per-candidate tree query and sort.
//!
//! The placed buffers are kept sorted by address ([`Placed`]: interval and byte range, 24
//! bytes, contiguous) in a [`PlacedList`] (a long sorted run and a short insert buffer, so
//! an insert moves O(sqrt n) entries, not O(n)). For each candidate the list is walked once;
//! first fit stops at the first gap that holds it, otherwise the entries whose interval
//! overlaps the candidate's are copied, already in address order, into the occupied list
//! handed to [`crate::place::seed::select::place_one`] (whose sort then only checks the
//! order). This is the walk of
//! TensorFlow Lite Micro's greedy planner ("walk the already placed buffers in offset order,
//! skip those not alive at the same time"), cache-friendly and branch-light.
//!
//! Complexity O(n · p) for p placed buffers (worst case n²/2 interval tests of 8 bytes each,
//! plus O(sqrt n) entries moved per insert), against O(E log d) for `select` with E interfering pairs: the scan wins when many buffers
//! are long-lived (E large), `select` when lifetimes are short. Results are identical. The
//! entries each walk reads are charged to the caller's [`Clock`] ([`Clock::charge`]): at most
//! n(n − 1)/2 in all, and where first fit stops early far fewer (on the 57,052-buffer doubled
//! `iopddl_S_1`, 3.7 · 10^8 in load order against the bound's 1.6 · 10^9), so `auto` charges
//! its budget what the walk did, not the bound.

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::clock::Clock;
use crate::place::placed_list::PlacedList;
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{place_one, FirstFit, Regions};
use crate::workspace::Placed;

/// The closed interval `(lo, hi)` of single-interval candidate `v`.
#[inline]
pub fn interval_of(graph: &Graph<'_>, info: &Info) -> (u32, u32) {
    let n = &graph.tree().nodes()[graph.intervals_of(info)[0] as usize];
    (n.lo, n.hi)
}

/// Inserts `p` into the address-sorted `list[..*len]`.
#[inline]
pub fn insert_sorted(list: &mut [Placed], len: &mut usize, p: Placed) {
    let at = list[..*len].partition_point(|q| (q.addr, q.end) < (p.addr, p.end));
    list.copy_within(at..*len, at + 1);
    list[at] = p;
    *len += 1;
}

/// True when placed entry `p` is live at some instruction of `[lo, hi]` (closed intervals).
#[inline]
fn live_in(p: &Placed, lo: u32, hi: u32) -> bool {
    p.lo <= hi && lo <= p.hi
}

/// The first-fit address of `size` bytes among the entries of `list` live in `[lo, hi]`
/// ([`crate::place::seed::select::first_fit_sorted`] over them), walked a segment at a time,
/// and the number of entries walked (the work a [`Clock`] is charged).
#[inline]
fn first_fit(list: &PlacedList<'_>, lo: u32, hi: u32, size: u64, regions: Regions) -> (Option<u64>, u64) {
    let mut walk = FirstFit::new(size, regions);
    let mut walked = 0u64;
    for seg in list.segments() {
        for (k, p) in seg.iter().enumerate() {
            if live_in(p, lo, hi) {
                if let Some(a) = walk.span(p.addr, p.end) {
                    return (Some(a), walked + k as u64 + 1);
                }
            }
        }
        walked += seg.len() as u64;
    }
    (walk.finish(), walked)
}

/// Places every candidate of `order` (first element first) exactly as
/// [`crate::place::seed::select::select`] would, for candidates with one interval each. Pinned candidates
/// are obstacles. `placed` and `occupied` need at least `infos.len()` entries.
///
/// ```
/// use dramalloc_core::{plan_buffers, Buffer, PlanConfig, CcSize, StaticWorkspace, Strategy};
/// // (`plan_buffers` runs the scan with `Clock::none()`: no time limit)
/// // greedy-size uses the scan for one-interval buffers: same addresses as `select`.
/// let bufs = [Buffer::new(0, 9, 4096), Buffer::new(3, 5, 8192), Buffer::new(6, 8, 8192)];
/// let mut st: StaticWorkspace<3, 3, 0> = StaticWorkspace::new();
/// let mut ws = st.workspace();
/// let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: Strategy::GreedySize };
/// let plan = plan_buffers(&bufs, 4096, &cfg, &mut ws)?;
/// let addr: Vec<u64> = ws.infos.iter().map(|i| i.address).collect();
/// assert_eq!((addr, plan.metrics.hwm), (vec![8192, 0, 0], 12288));
/// # Ok::<(), dramalloc_core::PlanError>(())
/// ```
///
/// # Errors
/// As [`crate::place::seed::select::select`]: [`PlanError::DoesNotFit`], [`PlanError::Unallocated`];
/// [`PlanError::Capacity`] when `placed` or `occupied` is too short.
#[allow(clippy::too_many_arguments)]
pub fn scan(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<(), PlanError> {
    let n = infos.len();
    if placed.len() < n || occupied.len() < n {
        return Err(PlanError::Capacity {
            store: crate::error::Store::Order,
            needed: n,
            capacity: placed.len().min(occupied.len()),
        });
    }
    let mut list = PlacedList::new(&mut placed[..n]);
    for info in infos.iter_mut() {
        if info.is_pinned() {
            let (lo, hi) = interval_of(graph, info);
            list.insert(Placed { lo, hi, addr: info.address, end: info.end() });
        } else {
            info.allocated = 0;
        }
    }
    if !place_scanned(&mut list, graph, infos, order, occupied, regions, fit, clock)? {
        return Ok(());
    }
    if let Some(i) = infos.iter().find(|i| !i.is_allocated()) {
        return Err(PlanError::Unallocated { location: i.location });
    }
    Ok(())
}

/// Places the candidates of `order` (first element first) among the entries of `list` and
/// each other, as [`scan`] does once its list holds the pinned candidates: for each, first
/// fit (or `fit`) among the entries live with it, then its entry inserted. `occupied` holds
/// at least as many entries as `list` will. Returns `Ok(false)` where `clock` said stop (or
/// a buffer ended at or above its ceiling) before the order's end, the rest left as they
/// were. The entries each first-fit walk reads are charged to `clock`.
///
/// # Errors
/// [`PlanError::DoesNotFit`] from [`place_one`].
///
/// # Panics
/// When `list` fills up (its slice shorter than its entries and the order).
#[allow(clippy::too_many_arguments)]
pub(crate) fn place_scanned(
    list: &mut PlacedList<'_>,
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &[u32],
    occupied: &mut [Span],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> Result<bool, PlanError> {
    for &v in order {
        if !clock.tick() {
            return Ok(false);
        }
        let (lo, hi) = interval_of(graph, &infos[v as usize]);
        let live = || list.iter().filter(|p| live_in(p, lo, hi));
        // first fit stops at the first gap; the full list only for best fit, the CC retry
        // and the error
        let (fast, walked) = match fit {
            Fit::First => first_fit(list, lo, hi, infos[v as usize].aligned, regions),
            Fit::Best => (None, 0),
        };
        // the work is the entries walked: the first-fit walk, or the whole list
        clock.charge(if fast.is_some() { walked } else { list.len() as u64 });
        let address = match fast {
            Some(a) => a,
            None => {
                let mut m = 0usize;
                for p in live() {
                    occupied[m] = Span { lo: p.addr, hi: p.end };
                    m += 1;
                }
                place_one(&mut occupied[..m], &infos[v as usize], regions, fit)?
            }
        };
        let info = &mut infos[v as usize];
        info.address = address;
        info.allocated = 1;
        list.insert(Placed { lo, hi, addr: address, end: info.end() });
        clock.placed(info.end());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Store;
    use crate::liveness::interference::build_csr;
    use crate::liveness::interval_tree::{IntervalTree, Node};

    /// Two interfering buffers: the scan places them one above the other, and a `placed` or
    /// an `occupied` slice shorter than the candidates is a capacity error, not a panic.
    #[test]
    fn short_storage_is_a_capacity_error() {
        let mut nodes = [
            Node { lo: 0, hi: 4, payload: 0, ..Node::default() },
            Node { lo: 2, hi: 6, payload: 1, ..Node::default() },
        ];
        let mut infos = [
            Info { aligned: 16, location: 0, interval_count: 1, ..Info::default() },
            Info { aligned: 8, location: 1, interval_count: 1, ..Info::default() },
        ];
        let tree = IntervalTree::build(&mut nodes);
        let mut ids = [0u32; 2];
        build_csr(tree.nodes(), &mut ids, &mut infos);
        let graph = Graph::new(tree, &ids);
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
        let (mut placed, mut occupied) = ([Placed::default(); 2], [Span::default(); 2]);
        let order = [0u32, 1];
        let short = |capacity| Err(PlanError::Capacity { store: Store::Order, needed: 2, capacity });
        let mut v = infos;
        assert_eq!(
            scan(
                &graph,
                &mut v,
                &order,
                &mut placed[..1],
                &mut occupied,
                regions,
                Fit::First,
                &mut Clock::none()
            ),
            short(1)
        );
        assert_eq!(
            scan(
                &graph,
                &mut v,
                &order,
                &mut placed,
                &mut occupied[..1],
                regions,
                Fit::First,
                &mut Clock::none()
            ),
            short(1)
        );
        scan(&graph, &mut v, &order, &mut placed, &mut occupied, regions, Fit::First, &mut Clock::none())
            .unwrap();
        assert_eq!((v[0].address, v[1].address), (0, 16));
    }

    /// The clock is charged the entries each first-fit walk reads, up to the gap it stops
    /// at: a, b, c and e (8 bytes each) stack at 0, 8, 16, 24 (walks of 0, 1, 2, 3 entries),
    /// then d, live when b is not, stops at the gap b leaves after reading a, b and c (3 of
    /// the 4): 9 in all. Best fit reads the whole list every time: 0 + 1 + 2 + 3 + 4 = 10.
    #[test]
    fn the_clock_is_charged_the_entries_walked() {
        // a [0, 9], b [0, 4], c [0, 9], d [5, 9], e [0, 9]
        let spans = [(0u32, 9u32), (0, 4), (0, 9), (5, 9), (0, 9)];
        let mut nodes: [Node; 5] = core::array::from_fn(|k| Node {
            lo: spans[k].0,
            hi: spans[k].1,
            payload: k as u32,
            ..Node::default()
        });
        let mut infos: [Info; 5] = core::array::from_fn(|k| Info {
            aligned: 8,
            location: k as u32,
            interval_count: 1,
            ..Info::default()
        });
        let mut ids = [0u32; 5];
        let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
        let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
        let order = [0u32, 1, 2, 4, 3];
        for (fit, charged) in [(Fit::First, 9), (Fit::Best, 10)] {
            let (mut placed, mut occupied) = ([Placed::default(); 5], [Span::default(); 5]);
            let mut v = infos;
            let mut clock = Clock::none();
            scan(&graph, &mut v, &order, &mut placed, &mut occupied, regions, fit, &mut clock).unwrap();
            assert_eq!(clock.work(), charged, "{fit:?}");
            let at: [u64; 5] = core::array::from_fn(|k| v[k].address);
            assert_eq!(at, [0, 8, 16, 8, 24], "{fit:?}");
        }
    }
}
