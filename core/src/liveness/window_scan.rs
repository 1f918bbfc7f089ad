//! The scan of a sorted query's window: the nodes that start before `q.lo`, eight at a time.
//! Uses: interval_tree (Node, PICK_BUFFER); used by: interval_tree.
//!
//! A sorted [`IntervalTree`](super::interval_tree::IntervalTree) query starts at the first
//! node that can reach `q.lo` (its `lo >= q.lo - max_len`) and must look at every node from
//! there that starts before `q.lo`: those overlap iff `hi >= q.lo`. When a few long intervals
//! make `max_len` large, this window is hundreds of nodes (about 700 on the liveness law of
//! `benches/interval_tree.rs`), and the query's time is the scan's.
//!
//! The window is sorted by `lo`, so when the last node of a chunk of [`CHUNK`] starts before
//! `q.lo`, all of them do: the chunk's overlaps are collected with no test per node that can
//! end the loop (every position is written, the cursor advances past the overlapping ones,
//! so the unpredictable `hi >= q.lo` costs no misprediction), and only the chunk that holds
//! the end of the window is finished node by node. The positions are visited in order, a
//! buffer at a time. Measured on the liveness law (10^6 × 10^6, ratio passes of
//! `benches/interval_tree.rs`, 2026-12-01): 1.38–1.66 s with one exit test per node,
//! 1.18–1.61 s with chunks of eight (0.98–1.19 × rust-lapper before, 0.74–0.96 after, in the
//! same passes); chunks of 16 were no faster and slowed the short windows of the uniform law.
//!
//! Tried and not kept: a key column of 8-byte `[lo, hi]` pairs beside the 24-byte nodes,
//! scanned instead of them (a third of the bytes): 0.85–1.0 × the chunked node scan, within
//! this VM's run-to-run noise, for 8 more bytes a node and one more cache miss on short
//! windows.

use super::interval_tree::{Node, PICK_BUFFER};

/// Nodes of a window scanned as one chunk, with one exit test for the chunk.
pub const CHUNK: usize = 8;

/// The picked positions a scan holds before visiting them: two [`PICK_BUFFER`]s, so a whole
/// chunk always fits after the flush test.
const PICKED: usize = 2 * PICK_BUFFER;

/// Scans the window `nodes[base..end]` (sorted by `lo`) up to the first node that starts at
/// or after `lo`; visits, in ascending index, those before it that end at or after `lo`.
/// Returns the number of nodes that start before `lo` (the window's length when all do).
#[inline(always)]
pub(super) fn scan_before(
    nodes: &[Node],
    base: usize,
    end: usize,
    lo: u32,
    visit: &mut impl FnMut(&Node),
) -> usize {
    let window = nodes.get(base..end).unwrap_or(&[]);
    let mut picked = [0u32; PICKED];
    let mut count = 0usize;
    let mut done = 0usize;
    for chunk in window.chunks_exact(CHUNK) {
        if chunk.last().is_some_and(|n| n.lo >= lo) {
            break; // the window ends in this chunk
        }
        for (j, n) in chunk.iter().enumerate() {
            picked[count % PICKED] = (base + done + j) as u32;
            count += usize::from(n.hi >= lo);
        }
        done += CHUNK;
        if count > PICKED - CHUNK {
            visit_positions(nodes, picked.get(..count).unwrap_or(&picked), visit);
            count = 0;
        }
    }
    let mut stop = window.len();
    for (j, n) in window.get(done..).unwrap_or(&[]).iter().enumerate() {
        if n.lo >= lo {
            stop = done + j;
            break;
        }
        picked[count % PICKED] = (base + done + j) as u32;
        count += usize::from(n.hi >= lo);
    }
    visit_positions(nodes, picked.get(..count).unwrap_or(&picked), visit);
    stop
}

/// Visits the nodes at `positions`, in order (also the block index's picks).
#[inline(always)]
pub(super) fn visit_positions(nodes: &[Node], positions: &[u32], visit: &mut impl FnMut(&Node)) {
    for &i in positions {
        if let Some(n) = nodes.get(i as usize) {
            visit(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node `i` is `[i, i + len(i)]`: from every start and for every `lo`, the scan visits
    /// exactly the brute-force overlaps among the nodes that start before `lo`, in order, and
    /// stops at the first node that starts at or after it.
    #[test]
    fn scan_before_matches_brute_force_on_every_cut() {
        const N: usize = 100;
        let mut nodes = [Node::default(); N];
        for (i, n) in nodes.iter_mut().enumerate() {
            let len = ((i * 37) % 23) as u32; // 0..22, irregular
            *n = Node::new(i as u32, i as u32 + len, i as u32);
        }
        for base in 0..N {
            for lo in 0..(N as u32 + 3) {
                let mut want = [0u32; N];
                let mut w = 0;
                for n in nodes[base..].iter().take_while(|n| n.lo < lo) {
                    if n.hi >= lo {
                        want[w] = n.payload;
                        w += 1;
                    }
                }
                let starts_before = nodes[base..].iter().take_while(|n| n.lo < lo).count();
                let mut got = [0u32; N];
                let mut g = 0;
                let stop = scan_before(&nodes, base, N, lo, &mut |n: &Node| {
                    got[g] = n.payload;
                    g += 1;
                });
                assert_eq!(stop, starts_before, "base {base}, lo {lo}");
                assert_eq!(&got[..g], &want[..w], "base {base}, lo {lo}");
            }
        }
    }

    /// More overlaps than the pick buffers hold: every one is visited once, in order.
    #[test]
    fn a_window_of_overlaps_longer_than_the_pick_buffers() {
        const N: usize = 300;
        let mut nodes = [Node::default(); N];
        for (i, n) in nodes.iter_mut().enumerate() {
            *n = Node::new(i as u32, 1000, i as u32); // all reach 1000
        }
        let mut seen = 0u32;
        let stop = scan_before(&nodes, 0, N, 500, &mut |n: &Node| {
            assert_eq!(n.payload, seen);
            seen += 1;
        });
        assert_eq!((stop, seen), (N, N as u32));
        // a window that ends at 250: exactly the 250 nodes before it
        let mut seen = 0u32;
        let stop = scan_before(&nodes, 0, N, 250, &mut |_| seen += 1);
        assert_eq!((stop, seen), (250, 250));
    }
}
