//! Greedy placement orders: the orders the first-fit and best-fit members place in.
//! Uses: liveness, workspace; used by: portfolio.
//!
//! Each order lists the unpinned candidates, most constrained first; first fit then gives
//! each the lowest gap left by the ones before it. Which order packs best depends on the
//! input (the `dramalloc quality` tables), so `auto` tries several:
//! - [`Order::SizeLife`]: size, then lifetime (`greedy-size`, `best-fit`);
//! - [`Order::SizeStart`]: size, then the earlier start: equal sizes go in time order and
//!   reuse one slot one after the other (the tie rule of the planners in
//!   `planning-algorithms.md`, "Ties matter");
//! - [`Order::SizeIndex`]: size, then input order (TensorFlow Lite Micro's stable sort);
//! - [`Order::LoadLife`]: the largest load over the lifetime (the section total of
//!   MiniMalloc's preorder "TWA"), then lifetime: buffers that live through the peak first;
//! - [`Order::ClassStart`]: size rounded down to a quarter octave (`2^(k/4)` bytes), then
//!   the earlier start: nearly equal sizes packed in time order.
//!
//! All descending in their first keys, ties by candidate index. O(n log n).

use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::workspace::{Scratch, Slot};

/// A greedy placement order (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Order {
    /// Aligned size, then lifetime (longest first).
    SizeLife,
    /// Aligned size, then start (earliest first).
    SizeStart,
    /// Aligned size, then candidate index (TensorFlow Lite Micro).
    SizeIndex,
    /// Largest load over the lifetime, then lifetime (needs the section totals).
    LoadLife,
    /// Size class (a quarter octave), then start.
    ClassStart,
}

/// The quarter-octave class of `bytes`: `floor(4 · log2(bytes))`, from the leading bit and
/// the next two bits (exact for the powers of two, monotone in `bytes`).
fn class(bytes: u64) -> u64 {
    if bytes == 0 {
        return 0;
    }
    let lead = 63 - bytes.leading_zeros() as u64;
    let frac = if lead >= 2 { (bytes >> (lead - 2)) & 3 } else { (bytes << (2 - lead)) & 3 };
    lead * 4 + frac
}

/// Writes the non-pinned candidates into `order` in `o`; returns the count. Uses
/// `scratch[..].key` for the secondary key; [`Order::LoadLife`] reads `slots[..].total`
/// (set by [`crate::place::sections::prepare`]) and needs `slots` one per candidate.
pub fn sort_order(
    o: Order,
    graph: &Graph<'_>,
    infos: &[Info],
    slots: &[Slot],
    scratch: &mut [Scratch],
    order: &mut [u32],
) -> usize {
    let nodes = graph.tree().nodes();
    let mut k = 0usize;
    for (v, info) in infos.iter().enumerate() {
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        for &ni in graph.intervals_of(info) {
            lo = lo.min(nodes[ni as usize].lo);
            hi = hi.max(nodes[ni as usize].hi);
        }
        // the secondary key, larger first
        scratch[v].key = match o {
            Order::SizeLife | Order::LoadLife => hi.saturating_sub(lo) as u64,
            Order::SizeStart | Order::ClassStart => u32::MAX as u64 - lo as u64,
            Order::SizeIndex => 0,
        };
        if !info.is_pinned() {
            order[k] = v as u32;
            k += 1;
        }
    }
    let first = |v: u32| -> u64 {
        let i = &infos[v as usize];
        match o {
            Order::LoadLife => slots.get(v as usize).map_or(i.aligned, |s| s.total),
            Order::ClassStart => class(i.aligned),
            _ => i.aligned,
        }
    };
    order[..k].sort_unstable_by(|&a, &b| {
        first(b).cmp(&first(a)).then(scratch[b as usize].key.cmp(&scratch[a as usize].key)).then(a.cmp(&b))
    });
    k
}

/// The `greedy-size` order ([`Order::SizeLife`]) without section totals.
pub fn by_size(graph: &Graph<'_>, infos: &[Info], scratch: &mut [Scratch], order: &mut [u32]) -> usize {
    sort_order(Order::SizeLife, graph, infos, &[], scratch, order)
}

#[cfg(test)]
mod tests {
    use super::class;

    #[test]
    fn quarter_octave_classes() {
        assert_eq!([class(1), class(2), class(4), class(1024)], [0, 4, 8, 40]);
        // 1024 .. 2047 in four classes: [1024,1280) [1280,1536) [1536,1792) [1792,2048)
        assert_eq!([class(1279), class(1280), class(1535), class(1536), class(2047)], [40, 41, 41, 42, 43]);
        assert!((1..5000u64).all(|b| class(b) <= class(b + 1)));
        // below 4 bytes the fraction comes from shifting left: 3 = 0b11 is 1.5 · 2^1
        assert_eq!([class(3), class(5), class(7)], [6, 9, 11]);
    }

    /// `greedy-size`'s order: the unpinned candidates, largest first, ties by the longer
    /// lifetime, then by index; the count returned is theirs.
    #[test]
    fn by_size_orders_the_unpinned_by_size_then_lifetime() {
        use super::by_size;
        use crate::liveness::info::Info;
        use crate::liveness::interference::Graph;
        use crate::liveness::interval_tree::Node;
        use crate::workspace::Scratch;
        // (lo, hi, aligned, pinned)
        let c = [
            (0u32, 9u32, 64u64, false),
            (2, 3, 64, false),
            (0, 9, 128, true),
            (1, 8, 64, false),
            (4, 4, 256, false),
        ];
        let mut nodes: [Node; 5] = core::array::from_fn(|k| Node::new(c[k].0, c[k].1, k as u32));
        let mut infos: [Info; 5] = core::array::from_fn(|k| Info {
            aligned: c[k].2,
            pinned: c[k].3 as u8,
            interval_count: 1,
            ..Info::default()
        });
        let mut ids = [0u32; 5];
        let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
        let (mut scratch, mut order) = ([Scratch::default(); 5], [u32::MAX; 5]);
        assert_eq!(by_size(&graph, &infos, &mut scratch, &mut order), 4);
        assert_eq!(order[..4], [4, 0, 3, 1]);
    }
}
