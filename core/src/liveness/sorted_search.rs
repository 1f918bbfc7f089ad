//! Where a sorted query starts: the first node whose `lo` reaches a key, found through a
//! cache-resident table of sampled starts, guarded interpolation, and a count or a branch-free
//! binary search over what is left.
//! Uses: interval_tree (Node); used by: interval_tree.
//!
//! A sorted [`IntervalTree`](super::interval_tree::IntervalTree) answers a query from the
//! first node with `lo >= key` (`key = q.lo - max_len`). A plain binary search over `n` nodes
//! of 24 bytes makes `log2 n` dependent loads, and the deep ones miss the cache on every query
//! (on the 2-core VM a random load costs 63 ns in a 12 MB array and 121 ns in a 24 MB one).
//!
//! Three steps, each cheaper per node than the last:
//! 1. [`StartSamples`] keeps the starts of [`SAMPLES`] evenly spaced nodes (256 bytes, stays
//!    in L1): a binary search over it narrows the range to about `n / SAMPLES` nodes without
//!    touching the node array.
//! 2. Up to [`INTERPOLATION_ROUNDS`] rounds of guarded interpolation: each probes the position
//!    the keys at the range's ends predict for `key` and a guard `g = max(GUARD_NODES,
//!    sqrt(range))` nodes beyond it, on the side the probe says the answer lies; when the guard
//!    brackets the answer the range drops to `g` nodes, else to the far side of the guard.
//!    Within one sample gap the starts of a program are close to evenly spread (the defs
//!    follow the instructions), so one round usually leaves `sqrt(n / SAMPLES)` nodes.
//! 3. A range of at most [`COUNT_NODES`] nodes is finished by counting the nodes that start
//!    before `key` (independent loads of consecutive lines); a longer one by binary search.
//!
//! Whatever the keys (clustered, exponential, all equal), the rounds only narrow the range and
//! the binary search bounds the cost: besides the samples (in cache), at most
//! `3 * INTERPOLATION_ROUNDS + max(COUNT_NODES, ceil(log2 n) + 1) + 2` nodes are read to decide
//! (the unit tests count them, and pin the counts of fixed key sets).
//!
//! Source: the guarded interpolation ("SIP") of Van Sandt, Chronis and Patel, "Efficiently
//! Searching In-Memory Sorted Arrays: Revenge of the Interpolation Search?" (SIGMOD 2019),
//! behind a sampled top level (as in a static B-tree's root) and with a binary search, not a
//! linear one, as the fallback.

use super::interval_tree::Node;

/// Sampled starts kept by [`StartSamples`]: 64 `u32`, 256 bytes (the tree is built and
/// queried in a 32 KiB stack, `tests/stack_bound.rs`; 64 samples narrow a query of a million
/// nodes to 15,625 before the interpolation, which then needs two rounds, not one).
pub const SAMPLES: usize = 64;

/// Interpolation rounds before the binary search takes over (each reads three nodes).
pub const INTERPOLATION_ROUNDS: usize = 3;

/// The smallest guard distance (nodes), and half the range below which interpolation stops:
/// 16 nodes are 384 bytes, six cache lines, which the binary search covers in four steps.
pub const GUARD_NODES: usize = 16;

/// A range of at most this many nodes (1.5 KiB, 24 cache lines) is finished by counting the
/// nodes that start before the key rather than by a binary search: its loads do not depend on
/// each other, so the lines arrive together instead of one miss after another.
pub const COUNT_NODES: usize = 64;

/// `nodes[i].lo`, or 0 past the end: a load whose value only feeds a `black_box`, so the
/// line is fetched ahead of the step that needs it.
#[inline(always)]
pub(super) fn lo_at(nodes: &[Node], i: usize) -> u32 {
    nodes.get(i).map_or(0, |n| n.lo)
}

/// The starts of [`SAMPLES`] evenly spaced nodes of a sorted node array: sample `i` is
/// `nodes[i * n / SAMPLES].lo` (`u32::MAX` for an empty array).
/// Part of [`IntervalTree`](super::interval_tree::IntervalTree); 256 bytes plus a length.
#[derive(Clone, Debug)]
pub struct StartSamples {
    /// Sampled starts (instruction indices), non-decreasing.
    lo: [u32; SAMPLES],
    /// Length of the node array the samples were taken from.
    n: usize,
}

impl StartSamples {
    /// Samples `nodes` (sorted by `lo`). O(`SAMPLES`).
    pub fn new(nodes: &[Node]) -> StartSamples {
        let n = nodes.len();
        let lo = core::array::from_fn(|i| nodes.get(Self::position(i, n)).map_or(u32::MAX, |x| x.lo));
        StartSamples { lo, n }
    }

    /// The node index sample `i` was taken at, for `n` nodes: `i * n / SAMPLES` (for
    /// `n < SAMPLES` some nodes are sampled twice, which narrows the range as well).
    #[inline(always)]
    fn position(i: usize, n: usize) -> usize {
        // i < SAMPLES and n < 2^32 (u32 payloads), so the product fits in u64
        ((i as u64 * n as u64) / SAMPLES as u64) as usize
    }

    /// The first index in `nodes` (the array these samples were taken from, sorted by `lo`)
    /// whose node starts at or after `key` (instruction index); `nodes.len()` when none does.
    /// Equal to `nodes.partition_point(|n| n.lo < key)`.
    ///
    /// On nodes not sorted by `lo`, or not the sampled array, the result is some index in
    /// `0..=nodes.len()` (never a panic).
    ///
    /// # Example
    /// ```
    /// use dramalloc_core::liveness::interval_tree::Node;
    /// use dramalloc_core::liveness::sorted_search::StartSamples;
    /// let nodes: Vec<Node> = (0..1000).map(|i| Node::new(3 * i, 3 * i + 1, i)).collect();
    /// let samples = StartSamples::new(&nodes);
    /// assert_eq!(samples.lower_bound(&nodes, 0), 0);
    /// assert_eq!(samples.lower_bound(&nodes, 301), 101); // 300 < 301 <= 303
    /// assert_eq!(samples.lower_bound(&nodes, 5000), 1000); // past the last start
    /// ```
    #[inline]
    pub fn lower_bound(&self, nodes: &[Node], key: u32) -> usize {
        let n = nodes.len();
        if n != self.n {
            return lower_bound(nodes, key); // not the sampled array
        }
        // samples before `j` start before `key`; sample `j` (if any) at or after it
        let j = self.lo.partition_point(|&s| s < key);
        let Some(left) = j.checked_sub(1) else { return 0 }; // node 0 starts at or after `key`
        let (l, below) = (Self::position(left, n) + 1, self.lo.get(left).copied().unwrap_or(0));
        let right = Self::position(j, n);
        match self.lo.get(j) {
            // a sample's position is below n (j < SAMPLES)
            Some(&above) => narrow(nodes, l, right, below, above, key),
            _ => match nodes.last() {
                Some(last) if probed(1) && last.lo >= key => narrow(nodes, l, n - 1, below, last.lo, key),
                _ => n,
            },
        }
    }
}

/// The first index in `nodes` (sorted by `lo`, non-decreasing) whose node starts at or after
/// `key` (instruction index); `nodes.len()` when none does: steps 2 and 3 of the module doc
/// over the whole array. Equal to `nodes.partition_point(|n| n.lo < key)`.
///
/// On nodes not sorted by `lo` the result is some index in `0..=nodes.len()` (never a panic).
///
/// # Example
/// ```
/// use dramalloc_core::liveness::interval_tree::Node;
/// use dramalloc_core::liveness::sorted_search::lower_bound;
/// let nodes: Vec<Node> = (0..1000).map(|i| Node::new(3 * i, 3 * i + 1, i)).collect();
/// assert_eq!(lower_bound(&nodes, 0), 0);
/// assert_eq!(lower_bound(&nodes, 301), 101); // 300 < 301 <= 303
/// assert_eq!(lower_bound(&nodes, 5000), 1000); // past the last start
/// ```
#[inline]
pub fn lower_bound(nodes: &[Node], key: u32) -> usize {
    match (nodes.first(), nodes.last()) {
        (Some(first), Some(last)) if probed(2) && first.lo < key => {
            if last.lo < key {
                nodes.len()
            } else {
                narrow(nodes, 1, nodes.len() - 1, first.lo, last.lo, key)
            }
        }
        _ => 0,
    }
}

/// Steps 2 and 3 of the module doc. The answer lies in `[l, r]`: the node at `l - 1` starts at
/// `below < key` (so does every node before it), the node at `r` at `above >= key`
/// (`1 <= l <= r < nodes.len()`).
#[inline(always)]
fn narrow(nodes: &[Node], mut l: usize, mut r: usize, mut below: u32, mut above: u32, key: u32) -> usize {
    for _ in 0..INTERPOLATION_ROUNDS {
        if r.saturating_sub(l) <= 2 * GUARD_NODES {
            break;
        }
        // interpolate between (l - 1, below) and (r, above), then keep the probe in [l, r - 1];
        // below < key <= above on sorted nodes, and on unsorted ones the rounds stop here
        let (Some(dist), Some(span)) = (key.checked_sub(below), above.checked_sub(below)) else { break };
        // dist < 2^32 and r + 1 - l <= n < 2^32: the product fits in u64
        let Some(offset) = (u64::from(dist) * (r + 1 - l) as u64).checked_div(u64::from(span)) else { break };
        let p = (l - 1 + offset as usize).clamp(l, r - 1);
        let guard = GUARD_NODES.max((r - l).isqrt());
        // both guards are loaded with the probe; only one is used
        let (up, down) = ((p + guard).min(r - 1), p.saturating_sub(guard).max(l));
        let (at_p, at_up, at_down) = (lo_at(nodes, p), lo_at(nodes, up), lo_at(nodes, down));
        probed(3);
        if at_p < key {
            if at_up >= key {
                (l, r) = (p + 1, up);
                break;
            }
            (l, below) = (up + 1, at_up);
        } else {
            if at_down < key {
                (l, r) = (down + 1, p);
                break;
            }
            (r, above) = (down, at_down);
        }
    }
    let rest = nodes.get(l..r).unwrap_or(&[]);
    if rest.len() <= COUNT_NODES {
        // sorted, so the nodes before the answer are exactly those that start before `key`:
        // independent loads of consecutive lines, no chain of dependent probes
        probed(rest.len());
        return l + rest.iter().map(|n| usize::from(n.lo < key)).sum::<usize>();
    }
    l + binary_lower_bound(rest, key)
}

/// [`lower_bound`] by binary search alone. Branch-free: the halving step is a conditional
/// move, and both candidates of the next step are loaded while this step's compare resolves.
#[inline(always)]
fn binary_lower_bound(nodes: &[Node], key: u32) -> usize {
    let mut base = 0usize;
    let mut size = nodes.len();
    let mut touched = 0u32;
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        let next = (size - half) / 2;
        touched ^= lo_at(nodes, base + next) ^ lo_at(nodes, mid + next);
        let below = probed(1) && nodes.get(mid).is_some_and(|n| n.lo < key);
        base = if below { mid } else { base };
        size -= half;
    }
    core::hint::black_box(touched);
    base + usize::from(probed(1) && nodes.get(base).is_some_and(|n| n.lo < key))
}

/// Counts `k` node reads that decide the search (unit tests only; the prefetch loads of the
/// binary search are not counted). Always true, so it can sit in a condition.
#[inline(always)]
fn probed(_k: usize) -> bool {
    #[cfg(test)]
    probe_count::add(_k);
    true
}

// Test builds only (the library stays no_std): the count is per thread because the test
// harness runs the unit tests in parallel threads, which a shared atomic would mix.
#[cfg(test)]
pub(super) mod probe_count {
    extern crate std;
    use core::cell::Cell;

    std::thread_local! {
        static PROBES: Cell<usize> = const { Cell::new(0) };
    }

    pub(in crate::liveness) fn add(k: usize) {
        PROBES.with(|p| p.set(p.get() + k));
    }

    /// The reads since the last call (this thread's).
    pub(in crate::liveness) fn take() -> usize {
        PROBES.with(|p| p.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes_from(starts: &[u32]) -> [Node; 16384] {
        let mut out = [Node::default(); 16384];
        for (o, &s) in out.iter_mut().zip(starts) {
            *o = Node::new(s, s, 0);
        }
        out
    }

    /// Every key from below the first start to past the last, against `partition_point`.
    fn agrees(starts: &[u32]) {
        let all = nodes_from(starts);
        let nodes = &all[..starts.len()];
        let samples = StartSamples::new(nodes);
        let top = starts.last().copied().unwrap_or(0).saturating_add(2);
        let step = (top / 3000).max(1);
        for key in (0..=top).step_by(step as usize) {
            let want = nodes.partition_point(|n| n.lo < key);
            assert_eq!(lower_bound(nodes, key), want, "key {key}");
            assert_eq!(samples.lower_bound(nodes, key), want, "sampled, key {key}");
        }
        for &s in starts {
            for k in [s.saturating_sub(1), s, s.saturating_add(1)] {
                let want = nodes.partition_point(|n| n.lo < k);
                assert_eq!(lower_bound(nodes, k), want, "key {k}");
                assert_eq!(samples.lower_bound(nodes, k), want, "sampled, key {k}");
            }
        }
    }

    #[test]
    fn evenly_spread_keys() {
        let s: [u32; 4000] = core::array::from_fn(|i| 7 * i as u32 + 3);
        agrees(&s);
        // long enough that a sample gap (256 nodes) is interpolated, with a gap in the middle
        let s: [u32; 16384] = core::array::from_fn(|i| 7 * i as u32 + if i > 9000 { 1 << 20 } else { 0 });
        agrees(&s);
    }

    #[test]
    fn clustered_exponential_and_equal_keys() {
        // exponential: interpolation overshoots badly, the binary search still finishes
        let exp: [u32; 31] = core::array::from_fn(|i| 1u32 << i);
        agrees(&exp);
        let mut sq = [0u32; 3000];
        for (i, s) in sq.iter_mut().enumerate() {
            *s = (i * i) as u32;
        }
        agrees(&sq);
        // runs of duplicates and one far outlier
        let mut dup = [0u32; 2000];
        for (i, s) in dup.iter_mut().enumerate() {
            *s = (i / 100) as u32;
        }
        dup[1999] = u32::MAX;
        agrees(&dup);
        agrees(&[5u32; 500]);
        agrees(&[0u32, u32::MAX]);
        agrees(&[]);
        agrees(&[9]);
    }

    /// On nodes not sorted by `lo` the answer is some index in range, never a panic (the
    /// interpolation stops when the keys at the range's ends are out of order).
    #[test]
    fn unsorted_nodes_give_an_index_in_range() {
        let mut x = 7u64;
        let starts: [u32; 5000] = core::array::from_fn(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 40) as u32
        });
        let all = nodes_from(&starts);
        let nodes = &all[..starts.len()];
        let samples = StartSamples::new(nodes);
        for key in (0..1u32 << 24).step_by(4099) {
            assert!(lower_bound(nodes, key) <= nodes.len());
            assert!(samples.lower_bound(nodes, key) <= nodes.len());
        }
    }

    #[test]
    fn pseudo_random_keys() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut s = [0u32; 16384];
        for v in s.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *v = (x % 1_000_000_000) as u32;
        }
        s.sort_unstable();
        agrees(&s);
    }

    /// The node reads of every key in `keys`: (sum, max) for the sampled search and for the
    /// search over the whole array, each answer checked against `partition_point`.
    fn reads(nodes: &[Node], keys: impl Iterator<Item = u32>) -> ((usize, usize), (usize, usize)) {
        let samples = StartSamples::new(nodes);
        let (mut sampled, mut whole) = ((0, 0), (0, 0));
        probe_count::take();
        for key in keys {
            let want = nodes.partition_point(|n| n.lo < key);
            assert_eq!(samples.lower_bound(nodes, key), want, "sampled, key {key}");
            let r = probe_count::take();
            sampled = (sampled.0 + r, sampled.1.max(r));
            assert_eq!(lower_bound(nodes, key), want, "whole, key {key}");
            let r = probe_count::take();
            whole = (whole.0 + r, whole.1.max(r));
        }
        (sampled, whole)
    }

    /// The documented bound on the node reads of one search over `n` nodes.
    fn bound(n: usize) -> usize {
        let log = (usize::BITS - n.leading_zeros()) as usize; // ceil(log2 n) + 1 at most
        3 * INTERPOLATION_ROUNDS + COUNT_NODES.max(log + 1) + 2
    }

    /// Pins the cost of the search, in node reads over fixed key sets: evenly spread starts
    /// with a jump (the samples find the gap, one interpolation round and a short count
    /// finish), pseudo-random starts (one or two rounds), and exponential starts (the
    /// interpolation misses, the binary search finishes). Every read count stays within the
    /// module's bound; the exact sums change only if the search itself changes.
    #[test]
    fn node_reads_are_few_and_bounded() {
        let even = nodes_from(&core::array::from_fn::<u32, 16384, _>(|i| {
            5 * i as u32 + if i > 9000 { 1 << 20 } else { 0 }
        }));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut random: [u32; 16384] = core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 100_000_000) as u32
        });
        random.sort_unstable();
        let random = nodes_from(&random);
        let exp = nodes_from(&core::array::from_fn::<u32, 31, _>(|i| 1u32 << i));
        let cases: [(&[Node], u32, u32); 3] = [
            (&even[..], 257, 1 << 21),
            (&random[..16384], 6_101, 100_000_000),
            (&exp[..31], 700_001, 1 << 31),
        ];
        let mut got = [((0, 0), (0, 0)); 3];
        for (g, &(nodes, step, top)) in got.iter_mut().zip(&cases) {
            *g = reads(nodes, (0..top).step_by(step as usize));
            let b = bound(nodes.len());
            assert!(g.0 .1 <= b && g.1 .1 <= b, "{g:?} past the bound {b}");
        }
        // (sum, max) per case, (sampled, whole array): the samples answer a 31-node array
        // alone (one read, for the last node); on 16,384 nodes a search reads 13 to 17 nodes
        // on average, mostly in one consecutive run
        assert_eq!(
            got,
            [((105_700, 73), (115_882, 71)), ((285_120, 35), (213_447, 69)), ((1_534, 1), (50_593, 31))]
        );
        // every start as a key: a key equal to the start at a range's end puts the estimate
        // on that end, which the probe must not pass (it stays in [l, r - 1])
        let at_starts = reads(&random[..16384], random[..16384].iter().map(|n| n.lo));
        assert_eq!(at_starts, ((286_361, 35), (213_404, 69)));
    }
}
