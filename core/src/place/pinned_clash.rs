//! Whether two fixed (pinned) candidates live at the same time share a byte: one sweep over
//! the pinned ones in def order with the address-ordered live set of the time sweep.
//! Uses: liveness, live_set, min_heap, workspace; used by: planner.
//!
//! The planner must refuse such an input ([`crate::PlanError::PinnedOverlap`]). Asking the
//! interference graph for every pinned candidate's neighbours costs every interfering pair
//! of a pinned candidate, hours where half of 10^6 layered buffers are fixed (the long-lived
//! ones interfere with most of the others). Here only the pinned candidates are swept, in
//! `lo` order (the tree's), each checked against the pinned ones live at its def (an
//! address-ordered [`LiveSet`]: the range `[address, end)` must be one free gap) and then
//! entered; a pinned candidate leaves the set after its last use (its end key sorted once).
//! Two pinned candidates live together are checked when the later-defined one enters, so
//! every clash is found. O(p log p) for p pinned candidates.

use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;
use crate::place::live_set::LiveSet;
use crate::place::min_heap::{end_key, key_hi};

/// What the sweep found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clash {
    /// No two pinned candidates live together overlap.
    None,
    /// The pinned candidate (index into the infos) whose range meets one live before it.
    At(u32),
    /// The sweep does not apply (a pinned candidate with several intervals, storage short,
    /// a set deeper than its path stack): the caller checks by neighbour queries.
    NotSwept,
}

/// Sweeps the pinned candidates of `infos` (intervals `nodes`, sorted by `lo`) as in the
/// module docs. `words` (four `u64`s per candidate), `up` (one `u32` per candidate) and
/// `ends` (one `u64` per pinned candidate) are scratch.
///
/// ```
/// use dramalloc_core::liveness::info::Info;
/// use dramalloc_core::liveness::interval_tree::Node;
/// use dramalloc_core::place::pinned_clash::{pinned_clash, Clash};
/// let pin = |address, aligned, k| Info { pinned: 1, allocated: 1, address, aligned, interval_count: 1, location: k, ..Info::default() };
/// // 0 at [0, 64) over [0, 5], 1 at [64, 128) over [2, 3], 2 at [32, 96) over [4, 9]
/// let mut infos = [pin(0, 64, 0), pin(64, 64, 1), pin(32, 64, 2)];
/// let nodes = [Node::new(0, 5, 0), Node::new(2, 3, 1), Node::new(4, 9, 2)];
/// let (mut words, mut up, mut ends) = ([0u64; 12], [0u32; 3], [0u64; 3]);
/// // 2 meets 0 (live together at 4 and 5); 1 has gone by 4
/// assert_eq!(pinned_clash(&nodes, &infos, &mut words, &mut up, &mut ends), Clash::At(2));
/// infos[2].address = 64;
/// assert_eq!(pinned_clash(&nodes, &infos, &mut words, &mut up, &mut ends), Clash::None);
/// ```
pub fn pinned_clash(
    nodes: &[Node],
    infos: &[Info],
    words: &mut [u64],
    up: &mut [u32],
    ends: &mut [u64],
) -> Clash {
    let n = infos.len();
    let mut p = 0usize;
    for (i, node) in nodes.iter().enumerate() {
        let info = &infos[node.payload as usize];
        if info.is_pinned() {
            if info.interval_count != 1 || p == ends.len() {
                return Clash::NotSwept;
            }
            ends[p] = end_key(node.hi, i as u32);
            p += 1;
        }
    }
    let ends = &mut ends[..p];
    ends.sort_unstable();
    let Some(mut live) = LiveSet::new(words, up, n) else {
        return Clash::NotSwept;
    };
    let mut gone = 0usize;
    for node in nodes {
        let v = node.payload;
        let info = &infos[v as usize];
        if !info.is_pinned() {
            continue;
        }
        while key_hi(ends[gone]) < node.lo {
            if !live.remove(nodes[ends[gone] as u32 as usize].payload) {
                return Clash::NotSwept;
            }
            gone += 1;
        }
        // the whole range must be one free gap (page 1: no page rule; a fit within
        // `[address, end)` of `end - address` bytes can only be at `address`)
        match live.fits(info.aligned, info.address, info.end(), 1) {
            Ok(Some(_)) => {}
            Ok(_) => return Clash::At(v),
            Err(()) => return Clash::NotSwept,
        }
        if !live.insert(v, info.address, info.end()) {
            return Clash::NotSwept;
        }
    }
    Clash::None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pinned candidate `k` at `[address, address + aligned)` over `[lo, hi]`, as (info, node).
    fn pin(k: u32, lo: u32, hi: u32, address: u64, aligned: u64) -> (Info, Node) {
        let info = Info {
            pinned: 1,
            allocated: 1,
            address,
            aligned,
            interval_count: 1,
            location: k,
            ..Info::default()
        };
        (info, Node::new(lo, hi, k))
    }

    /// Sweeps `cands` (given in `lo` order, at most 2,000) with full storage, or `ends` one
    /// entry short.
    fn clash(cands: &[(Info, Node)], short_ends: bool) -> Clash {
        let n = cands.len();
        let mut infos = [Info::default(); 2000];
        let mut nodes = [Node::new(0, 0, 0); 2000];
        for (k, c) in cands.iter().enumerate() {
            (infos[k], nodes[k]) = *c;
        }
        let (mut words, mut up, mut ends) = ([0u64; 8000], [0u32; 2000], [0u64; 2000]);
        let ends = if short_ends { &mut ends[..n - 1] } else { &mut ends[..n] };
        pinned_clash(&nodes[..n], &infos[..n], &mut words, &mut up, ends)
    }

    /// Clashes by time and bytes: overlapping bytes while live together (from below, from
    /// above, at one shared instruction) is named at the later-defined one; touching bytes,
    /// or the same bytes once the first has ended, are not.
    #[test]
    fn a_clash_is_named_at_the_later_buffer() {
        // from above: 0 [64, 128) over [0, 5], 1 [32, 96) over [2, 3]
        assert_eq!(clash(&[pin(0, 0, 5, 64, 64), pin(1, 2, 3, 32, 64)], false), Clash::At(1));
        // from below, the later one with the lower index
        assert_eq!(clash(&[pin(1, 0, 5, 0, 64), pin(0, 2, 3, 32, 64)], false), Clash::At(0));
        // live together at one instruction (4)
        assert_eq!(clash(&[pin(0, 0, 4, 0, 64), pin(1, 4, 9, 0, 64)], false), Clash::At(1));
        // one instruction apart: the first has ended
        assert_eq!(clash(&[pin(0, 0, 3, 0, 64), pin(1, 4, 9, 0, 64)], false), Clash::None);
        // touching bytes
        assert_eq!(clash(&[pin(0, 0, 9, 0, 64), pin(1, 1, 9, 64, 64)], false), Clash::None);
        // a free candidate is no obstacle
        let mut free = pin(1, 1, 2, 0, 64);
        free.0.pinned = 0;
        assert_eq!(clash(&[pin(0, 0, 9, 0, 64), free], false), Clash::None);
    }

    /// 2,000 pinned buffers in 16 slots of 4 KiB, buffer k over [k, k + 15] in slot k mod 16:
    /// 16 live at once, each slot reused the instruction after it is freed. No clash, found by
    /// the sweep (not left to the neighbour queries); moving buffer 1,000 into slot 9 is a
    /// clash at its own def, with buffer 985 (slot 9 over [985, 1000]).
    #[test]
    fn thousands_of_reused_slots_sweep_clean_and_one_move_is_found() {
        let mut cands: [(Info, Node); 2000] =
            core::array::from_fn(|k| pin(k as u32, k as u32, k as u32 + 15, 4096 * (k as u64 % 16), 4096));
        assert_eq!(clash(&cands, false), Clash::None);
        cands[1000].0.address = 4096 * (1001 % 16);
        assert_eq!(clash(&cands, false), Clash::At(1000));
    }

    /// Where the sweep does not apply it says so: a pinned candidate with two intervals, one
    /// end slot short, set records short.
    #[test]
    fn what_the_sweep_cannot_take_is_left_to_the_caller() {
        let cands = [pin(0, 0, 5, 0, 64), pin(1, 6, 9, 0, 64)];
        assert_eq!(clash(&cands, false), Clash::None);
        assert_eq!(clash(&cands, true), Clash::NotSwept);
        let mut split = cands;
        split[1].0.interval_count = 2;
        assert_eq!(clash(&split, false), Clash::NotSwept);
        let infos = [cands[0].0, cands[1].0];
        let nodes = [cands[0].1, cands[1].1];
        let (mut words, mut up, mut ends) = ([0u64; 7], [0u32; 2], [0u64; 2]);
        assert_eq!(pinned_clash(&nodes, &infos, &mut words, &mut up, &mut ends), Clash::NotSwept);
    }
}
