//! Time-sweep placement (the `sweep` strategy): buffers placed in def order among the live ones.
//! Uses: error, liveness, min_heap, scan, seed, workspace; used by: portfolio.
//!
//! Time-sweep placement (the `sweep` strategy): buffers are placed in the order they become
//! live, like a run-time allocator replaying the program, each into a gap among the buffers
//! live at that instant; a buffer leaves the live list after its last use.
//!
//! Only the live list matters: a buffer placed at its def avoids every earlier-placed buffer
//! still live, and every later one avoids it, so the plan is valid with no interference
//! queries. The live list is kept sorted by address ([`Placed`]); ends wait in a binary
//! min-heap keyed by last use. Within one instruction, larger buffers go first.
//!
//! Complexity O(n log n + n · d) for at most d buffers live at once, no heap allocation:
//! the strategy for millions of short-lived buffers, where the O(E) and O(n²) placers are
//! too slow. Quality is that of an online allocator (often well above the lower bound on
//! adversarial sets), so `auto` uses it only when the others do not fit the work budget.
//! Applies to one-interval candidates without pinned ones (returns `Ok(false)` otherwise).

use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::min_heap;
use crate::place::seed::search::{Fit, Span};
use crate::place::seed::select::{place_one, Regions};
use crate::workspace::Placed;

/// Places every candidate by the time sweep. `order`, `heap`, `placed`, `occupied` need
/// `infos.len()` entries. Returns `Ok(false)` (nothing
/// changed) when a candidate has several intervals or is pinned.
///
/// # Errors
/// [`PlanError::DoesNotFit`] naming the first buffer that fits in no gap of the window.
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    graph: &Graph<'_>,
    infos: &mut [Info],
    order: &mut [u32],
    heap: &mut [u32],
    placed: &mut [Placed],
    occupied: &mut [Span],
    regions: Regions,
    fit: Fit,
) -> Result<bool, PlanError> {
    let n = infos.len();
    if infos.iter().any(|i| i.interval_count != 1 || i.is_pinned())
        || placed.len() < n
        || occupied.len() < n
        || heap.len() < n
        || order.len() < n
    {
        return Ok(false);
    }
    let nodes = graph.tree().nodes();
    // Node indices in (def, size descending, index) order; nodes are sorted by lo already.
    for (i, o) in order[..n].iter_mut().enumerate() {
        *o = i as u32;
    }
    order[..n].sort_unstable_by(|&a, &b| {
        let (na, nb) = (&nodes[a as usize], &nodes[b as usize]);
        na.lo
            .cmp(&nb.lo)
            .then(infos[nb.payload as usize].aligned.cmp(&infos[na.payload as usize].aligned))
            .then(a.cmp(&b))
    });
    for info in infos.iter_mut() {
        info.allocated = 0;
    }
    let by_hi = |a: u32, b: u32| nodes[a as usize].hi < nodes[b as usize].hi;
    let (mut live, mut hlen) = (0usize, 0usize);
    for &ni in order[..n].iter() {
        let node = nodes[ni as usize];
        while hlen > 0 && nodes[heap[0] as usize].hi < node.lo {
            let gone = nodes[heap[0] as usize];
            min_heap::pop(heap, &mut hlen, by_hi);
            let g = &infos[gone.payload as usize];
            let at = placed[..live].partition_point(|q| (q.addr, q.end) < (g.address, g.end()));
            placed.copy_within(at + 1..live, at);
            live -= 1;
        }
        for (o, p) in occupied.iter_mut().zip(&placed[..live]) {
            *o = Span { lo: p.addr, hi: p.end };
        }
        let v = node.payload as usize;
        let address = place_one(&mut occupied[..live], &infos[v], regions, fit)?;
        let info = &mut infos[v];
        info.address = address;
        info.allocated = 1;
        crate::place::scan::insert_sorted(
            placed,
            &mut live,
            Placed { lo: node.lo, hi: node.hi, addr: address, end: info.end() },
        );
        min_heap::push(heap, &mut hlen, ni, by_hi);
    }
    Ok(true)
}
