//! The cost model of the `auto` portfolio: what each row of [`crate::place::portfolio::PORTFOLIO`]
//! is estimated to cost, in work units of about a nanosecond on one core of the development
//! machine, from the input's size, its interfering pairs E and its lifetime classes.
//! Uses: liveness, sweep_long; used by: portfolio.
//!
//! The estimates are calibrated by measurement (each constant says where its figure comes
//! from); `auto` charges a row its estimate against its work budget, so an estimate that is
//! too low lets a row overrun the time limit and one that is too high skips a row that would
//! have fitted.

use crate::liveness::info::Info;
use crate::liveness::interference::Graph;
use crate::place::sweep_long::Lifetimes;

/// Work units of a greedy pass per entry of the interference graph (one neighbour looked up,
/// its range sorted and scanned).
pub const GREEDY_UNITS_PER_ENTRY: u64 = 15;

/// Work units of one re-key of the skyline per level of its heap and tree (a re-key costs
/// about `8 log2 n` units).
pub(crate) const REKEY_UNITS_PER_LEVEL: u64 = 8;

/// What a row's cost estimate counts (work units, about nanoseconds; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// `20 · n · log2 n`: the time sweep.
    Sweep,
    /// `150 · n · log2 n · (1 + n / 2^19)`: one skyline pass with no re-key (sections, sort,
    /// heap and tree steps; the last factor: its tree and heap leave the cache at scale);
    /// its re-keys are capped by the budget left.
    Skyline,
    /// One greedy first- or best-fit pass ([`Estimate::greedy`]).
    Greedy,
    /// Twice a greedy pass: the seed's simplify costs O(E log n) on top of its placement.
    Seed,
    /// The sweep around at most `n >> s` long-lived buffers ([`Estimate::sweep_long`]).
    SweepLong(u8),
    /// The sweep around the `n >> s` hottest buffers ([`Estimate::sweep_hot`]).
    SweepHot(u8),
    /// The two-ended sweep ([`crate::place::sweep_two_ended`]): a sweep and its live list
    /// walked from both ends, `20 · n · log2 n + 2 ·` [`LIST_UNITS_PER_PAIR`] `· E`, then its
    /// plan settled down, a neighbour query a buffer, [`SETTLE_UNITS_PER_ENTRY`] `· (2E + n)`
    /// (unbounded without one interval per candidate).
    TwoEnded,
}

/// Which placer a greedy pass uses to find each buffer's placed neighbours (the same plan
/// either way; only the cost differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placer {
    /// Interval-tree queries ([`crate::place::seed::select::select`]): any candidates.
    Tree,
    /// The address-ordered scan ([`crate::place::scan`]), O(n²): one-interval candidates.
    Scan,
    /// The lifetime-class index ([`crate::place::class_index`]), O(n · c + E log d):
    /// one-interval candidates.
    Classes,
}

/// The input as the cost estimates see it.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    /// Candidates.
    pub n: u64,
    /// `ceil(log2(n + 1))`.
    pub log_n: u64,
    /// Work of one greedy pass with the cheapest [`Placer`]: [`GREEDY_UNITS_PER_ENTRY`]
    /// `· (2E + n)` with the interference graph (E pairs, [`overlapping_pairs`]); for
    /// one-interval candidates without it the cheaper of the lifetime-class index,
    /// `(`[`CLASS_UNITS_PER_PAIR`] `· 2E +` [`CLASS_UNITS_PER_CLASS`] `· n · c) · (1 + n / 2^20)`
    /// for c non-empty lifetime classes, and the address-ordered scan, `n² / 2`; else tree queries,
    /// `10 · (2E + n log2 n)` (unknown E: unbounded).
    pub greedy: u64,
    /// The placer that estimate is for.
    pub placer: Placer,
    /// Interfering pairs E of one-interval candidates ([`overlapping_pairs`]; `None`
    /// otherwise).
    pub pairs: Option<u64>,
    /// The intervals' lifetime classes (for [`Cost::SweepLong`]).
    pub lifetimes: Lifetimes,
}

/// Work units of the sweep around the long-lived per interfering pair: its sorted live list
/// is walked and shifted in contiguous memory (measured: about 1.3 ns a pair on 10^5 nested
/// layered buffers, E = 1.1 · 10^9).
pub const LIST_UNITS_PER_PAIR: u64 = 2;

/// Work units of the settle after the two-ended sweep per neighbour visited and per buffer
/// (the repair's `TREE_VISIT_UNITS`: a tree query's visit).
pub const SETTLE_UNITS_PER_ENTRY: u64 = crate::place::repair::TREE_VISIT_UNITS;

/// Work units per `n log2 n` of the sweep around the hot's set-up: the section loads (two
/// sorts of n keys and a merge, then a range maximum per candidate) and the hot set's
/// selection.
pub const HOT_LOAD_UNITS: u64 = 10;

/// Work units per `n log2 n` of the sweep around the hot's set-up (the section loads, the hot
/// set's selection) and its sweep, calibrated with [`HOT_PAIR_SCALE`] against the member's
/// measured time, so that a unit is about a nanosecond as for the other rows. Measured
/// 2026-12-06 (`plan F --threads 1`, its `sweep-hot/8` line) on `generate --seed 3` files:
/// `mixed` 2.5 · 10^5 rows 131.7–144.2 ms, `long-tail` 2.5 · 10^5 272.4–295.2 ms and 10^5
/// 102.3 ms, where the estimate before was 20 + [`HOT_LOAD_UNITS`] = 30 units per `n log2 n`
/// and the pairs' terms unscaled (272, 623 and 243 · 10^6 units: 2.0–2.4 units a
/// nanosecond). Fitted to the first two: 0.60 ns per unit of the `n log2 n` term, 0.41 of
/// the pairs' terms; it predicts the third within 8 %, and a fourth file not in the fit
/// (one time section of `generate --seed 2 -n 1000000`, 440,463 rows, planned beside the
/// other section) at 251 ms against 254.6 measured.
pub const HOT_NLOG_UNITS: u64 = 18;

/// The scale `(num, den)` of the pairs' terms of [`Estimate::sweep_hot`] (the live list and
/// the hot set's greedy pass): measured 0.41 ns per unit (see [`HOT_NLOG_UNITS`]).
pub const HOT_PAIR_SCALE: (u64, u64) = (2, 5);

/// Work units of a class-index greedy pass per interfering pair, counted twice (a record
/// read in a class run, a near miss, and its share of the neighbours' sort), in the cache;
/// the estimate scales it by `1 + n / 2^20` for the misses at scale.
pub const CLASS_UNITS_PER_PAIR: u64 = 21;

/// Work units of a class-index greedy pass per buffer and non-empty lifetime class (one
/// chunk-table read and the first records of the stretch).
pub const CLASS_UNITS_PER_CLASS: u64 = 8;

/// Work units per entry of the address-ordered scan's bound (`n_first · (pinned + n_first /
/// 2)` entries walked) when it places a sweep's first set (`place/first_set.rs`), in the
/// units of the class index's estimate (`class_pass`, as in [`Estimate::greedy`]). Measured
/// 2026-12-07, each placer forced on the first sets of 14 inputs (`generate` shapes at 2 ·
/// 10^4 to 3 · 10^5 rows, `iopddl` `Y_1`, `somas` `pangu_2.6B`): on 26 sets of 108 to 44,929
/// buffers timed with both (a 27th was cut short by the clock in both runs) the scan took
/// 1.2–4.5 ns per entry of its bound (it walks dead entries too), the index 0.6–1.4 ns per
/// unit (up to 3.6 on sets of a few hundred buffers, where building the index over all n
/// candidates dominates); at 3 units the cheaper placer is chosen on 25 of the 26.
pub const FIRST_SCAN_UNITS_PER_ENTRY: u64 = 3;

/// Work units of a class-index greedy pass over `n` buffers in `classes` non-empty lifetime
/// classes with `pairs` interfering pairs: `(`[`CLASS_UNITS_PER_PAIR`] `· 2 pairs +`
/// [`CLASS_UNITS_PER_CLASS`] `· n · classes) · (1 + n / 2^20)`, the last factor for the
/// cache misses of the index and the buffers' records at scale (measured: 47 ns a pair at
/// 10^5 buffers, 84 at 10^6).
pub(crate) fn class_pass(pairs: u64, n: u64, classes: u64) -> u64 {
    pairs
        .saturating_mul(2 * CLASS_UNITS_PER_PAIR)
        .saturating_add(n.saturating_mul(classes).saturating_mul(CLASS_UNITS_PER_CLASS))
        .saturating_mul(n + (1 << 20))
        >> 20
}

impl Estimate {
    /// The estimate of `graph` and `infos`.
    pub fn of(graph: &Graph<'_>, infos: &[Info]) -> Estimate {
        let n = infos.len() as u64;
        let log_n = 64 - n.leading_zeros() as u64;
        let lifetimes = Lifetimes::of(graph);
        // E of one-interval candidates: the CSR's count where the planner holds one, else the
        // lower bound's sweep's where it ran (the same pairs), else one galloping pass
        let pairs = match graph.pairs().or(graph.swept_pairs()) {
            Some(counted) => infos.iter().all(|i| i.interval_count == 1).then_some(counted),
            None => overlapping_pairs(graph, infos),
        };
        let (greedy, placer) = match graph.pairs() {
            Some(pairs) => (
                pairs.saturating_mul(2).saturating_add(n).saturating_mul(GREEDY_UNITS_PER_ENTRY),
                Placer::Tree,
            ),
            None => match pairs {
                Some(pairs) => {
                    let (_, _, classes) = lifetimes.long_set(0);
                    let index = class_pass(pairs, n, classes);
                    // the scan walks the placed list to the first gap that holds each
                    // buffer: at most n² / 2 entries at about 1 ns each (measured: a
                    // 20,000-buffer clique, every walk to the top, 0.21 s; 57,052 buffers
                    // at E = 1.7 · 10^8, 1.25–1.6 s, where the walks stop early but read
                    // mostly dead entries)
                    let scan = n.saturating_mul(n) / 2;
                    if scan < index {
                        (scan, Placer::Scan)
                    } else {
                        (index, Placer::Classes)
                    }
                }
                None => (u64::MAX, Placer::Tree),
            },
        };
        Estimate { n, log_n, greedy, placer, pairs, lifetimes }
    }

    /// Work units of the sweep around at most `n >> share` long-lived buffers: a sweep
    /// (`20 n log2 n`), its live list ([`LIST_UNITS_PER_PAIR`] `· E`) and the long set's greedy
    /// pass as a class-index pass over its estimated pairs, `n_long · L_long / span` (as if
    /// the long intervals were spread evenly over the time span; at most E). Unbounded
    /// without one interval per candidate.
    pub fn sweep_long(&self, share: u32) -> u64 {
        let Some(e) = self.pairs else { return u64::MAX };
        let (nl, len, classes) = self.lifetimes.long_set(self.lifetimes.cut(share));
        let e_long = (nl as u128 * len as u128 / self.lifetimes.span.max(1) as u128).min(e as u128) as u64;
        // the index holds the long set only, so its cache factor is the long set's
        let long = class_pass(e_long, nl, classes);
        self.cost(Cost::Sweep).saturating_add(e.saturating_mul(LIST_UNITS_PER_PAIR)).saturating_add(long)
    }

    /// Work units of the sweep around the `n >> share` hottest buffers
    /// ([`crate::place::sweep_hot`]): the section loads, the hot set's selection and the sweep
    /// ([`HOT_NLOG_UNITS`] `· n log2 n`), and the live list ([`LIST_UNITS_PER_PAIR`] `· E`)
    /// with the hot set's greedy pass as a class-index pass over `n_hot = n >> share` buffers
    /// and `E_hot = E >> share` pairs, the two scaled by [`HOT_PAIR_SCALE`]. Hot buffers
    /// cluster where the load is high, so their share of the pairs is about their share of the
    /// buffers, not its square (measured with `share` = 3: 0.10–0.14 of E on six files of
    /// 2 · 10^4 to 10^5 buffers, generated and real). Unbounded without one interval per
    /// candidate.
    pub fn sweep_hot(&self, share: u32) -> u64 {
        self.pairs.map_or(u64::MAX, |e| self.sweep_hot_with(share, e >> share.min(63)))
    }

    /// [`Estimate::sweep_hot`] with the hot set's interfering pairs `e_hot` counted instead of
    /// assumed (`E >> share`): the member counts them once it knows its hot set, and stops
    /// where this is more than it may spend (a clique of `n >> share` buffers holds about
    /// all of E, not an eighth: a try-and-break run's cliques took 4–25 times the estimate).
    /// Unbounded without one interval per candidate.
    pub fn sweep_hot_with(&self, share: u32, e_hot: u64) -> u64 {
        let Some(e) = self.pairs else { return u64::MAX };
        let nh = self.n >> share.min(63);
        let classes = self.lifetimes.long_set(0).2;
        let pairs = class_pass(e_hot, nh, classes).saturating_add(e.saturating_mul(LIST_UNITS_PER_PAIR));
        let (num, den) = HOT_PAIR_SCALE;
        let nlog = self.n.saturating_mul(self.log_n);
        nlog.saturating_mul(HOT_NLOG_UNITS).saturating_add(pairs / den * num)
    }

    /// Work units of a row.
    pub fn cost(&self, c: Cost) -> u64 {
        let nlog = self.n.saturating_mul(self.log_n);
        match c {
            Cost::Sweep => nlog.saturating_mul(20),
            // memory-bound once its tree and heap leave the cache (measured: ~3x at 10^6)
            Cost::Skyline => nlog.saturating_mul(150).saturating_mul(self.n + (1 << 19)) >> 19,
            Cost::Greedy => self.greedy,
            Cost::Seed => self.greedy.saturating_mul(2),
            Cost::SweepLong(share) => self.sweep_long(share as u32),
            Cost::SweepHot(share) => self.sweep_hot(share as u32),
            Cost::TwoEnded => match self.pairs {
                Some(e) => nlog
                    .saturating_mul(20)
                    .saturating_add(e.saturating_mul(2 * LIST_UNITS_PER_PAIR))
                    .saturating_add(
                        e.saturating_mul(2).saturating_add(self.n).saturating_mul(SETTLE_UNITS_PER_ENTRY),
                    ),
                None => u64::MAX,
            },
        }
    }
}

/// Interfering pairs of one-interval candidates, each counted once (`None` when some
/// candidate has several intervals): for each node of the `lo`-sorted tree, the later nodes
/// starting at or before its end, found by a galloping search from the node itself, so a
/// node whose end is k nodes on costs O(log k) reads near it. O(n log n) at worst, no
/// storage.
pub fn overlapping_pairs(graph: &Graph<'_>, infos: &[Info]) -> Option<u64> {
    if infos.iter().any(|i| i.interval_count != 1) {
        return None;
    }
    let nodes = graph.tree().nodes();
    Some(nodes.iter().enumerate().map(|(i, nd)| later_starts(&nodes[i + 1..], nd.hi) as u64).sum())
}

/// How many of the `lo`-sorted `nodes` start at or before `hi`: galloping from the front
/// (steps 1, 2, 4, ...), then a binary search in the last step.
fn later_starts(nodes: &[crate::liveness::interval_tree::Node], hi: u32) -> usize {
    let mut step = 1usize;
    let mut known = 0usize; // nodes[..known] start at or before hi
    while known + step <= nodes.len() && nodes[known + step - 1].lo <= hi {
        known += step;
        step *= 2;
    }
    let end = (known + step).min(nodes.len());
    known + nodes[known..end].partition_point(|x| x.lo <= hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::interval_tree::Node;

    #[test]
    fn galloping_counts_the_same_starts_as_a_scan() {
        // starts 0, 1, 3, 3, 3, 7, 7, 8, 10, 10, 10, 14, ... (with repeats), every end asked
        let mut nodes = [Node::default(); 40];
        let mut lo = 0u32;
        for (k, n) in nodes.iter_mut().enumerate() {
            lo += [0, 1, 2, 0, 0, 4][k % 6];
            n.lo = lo;
        }
        for from in 0..nodes.len() {
            for hi in 0..=lo + 1 {
                let want = nodes[from..].iter().filter(|x| x.lo <= hi).count();
                assert_eq!(later_starts(&nodes[from..], hi), want, "from {from}, hi {hi}");
            }
        }
        assert_eq!(later_starts(&[], 5), 0);
        assert_eq!(later_starts(&nodes, lo), 40);
        assert_eq!(later_starts(&nodes, 0), 1);
        assert_eq!(later_starts(&nodes, 3), 5);
    }

    /// 100 one-interval buffers `[k, k + 1]`: E = 99 pairs (each with the next), one lifetime
    /// class (length 1). Without a CSR the class index is the cheaper placer:
    /// `(42 · 99 + 8 · 100 · 1) · (100 + 2^20) >> 20` = 4,958 units against the scan's
    /// 100² / 2 = 5,000. With a CSR of those 99 pairs, tree queries at `15 · (2E + n)`.
    #[test]
    fn the_greedy_estimate_and_its_placer() {
        use crate::liveness::info::Info;
        let mut nodes: [Node; 100] = core::array::from_fn(|k| Node::new(k as u32, k as u32 + 1, k as u32));
        let mut infos = [Info { aligned: 8, interval_count: 1, ..Info::default() }; 100];
        let mut ids = [0u32; 100];
        let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
        let est = Estimate::of(&graph, &infos);
        assert_eq!((est.n, est.log_n, est.pairs), (100, 7, Some(99)));
        assert_eq!((est.greedy, est.placer), (4_958, Placer::Classes));
        // a CSR (only its first and last offsets matter here): the same 99 pairs
        let mut adj = [0u32; 101];
        (adj[0], adj[100]) = (101, 101 + 2 * 99);
        let graph = graph.with_adjacency(&adj);
        let est = Estimate::of(&graph, &infos);
        assert_eq!((est.pairs, est.greedy, est.placer), (Some(99), 15 * (2 * 99 + 100), Placer::Tree));
        // a candidate with two intervals: E is not a pair count of buffers any more
        infos[7].interval_count = 2;
        assert_eq!(Estimate::of(&graph, &infos).pairs, None);
    }

    /// At a tie of the two placers' estimates the class index is kept: the chain
    /// `[k, k + 1]` for k < 99 (98 pairs) and `[0, 1]` (2 more) is E = 100, one class, so
    /// `42 · 100 + 8 · 100` = 5,000 units, the scan's 100² / 2.
    #[test]
    fn a_tie_keeps_the_class_index() {
        use crate::liveness::info::Info;
        let mut nodes: [Node; 100] = core::array::from_fn(|k| {
            if k < 99 {
                Node::new(k as u32, k as u32 + 1, k as u32)
            } else {
                Node::new(0, 1, 99)
            }
        });
        let mut infos = [Info { aligned: 8, interval_count: 1, ..Info::default() }; 100];
        let mut ids = [0u32; 100];
        let est = Estimate::of(&Graph::build(&mut nodes, &mut ids, &mut infos), &infos);
        assert_eq!((est.pairs, est.greedy, est.placer), (Some(100), 5_000, Placer::Classes));
    }

    /// The lower bound's sweep counts the same interfering pairs as the galloping pass and a
    /// brute force, on random intervals with repeated starts and ends (and `Estimate::of`
    /// takes its count); before the sweep, or where it cannot run, the graph has none.
    #[test]
    fn the_lower_bounds_sweep_counts_the_pairs() {
        use crate::liveness::info::Info;
        use crate::place::lower_bound::max_load;
        use crate::workspace::Scratch;
        let mut seed = 0x5EED_u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        for case in 0..60u32 {
            const N: usize = 48;
            let iv: [(u32, u32); N] = core::array::from_fn(|_| {
                let lo = next(20) as u32;
                (lo, lo + next(if case % 3 == 0 { 3 } else { 12 }) as u32)
            });
            let want = (0..N)
                .flat_map(|a| (a + 1..N).map(move |b| (a, b)))
                .filter(|&(a, b)| iv[a].0 <= iv[b].1 && iv[b].0 <= iv[a].1)
                .count() as u64;
            let mut nodes: [Node; N] = core::array::from_fn(|k| Node::new(iv[k].0, iv[k].1, k as u32));
            let mut infos = [Info { aligned: 8, interval_count: 1, ..Info::default() }; N];
            let mut ids = [0u32; N];
            let mut graph = Graph::build(&mut nodes, &mut ids, &mut infos);
            assert_eq!(graph.swept_pairs(), None);
            let mut scratch = [Scratch::default(); N];
            // too little scratch for the sweep: point queries, no count
            let _ = max_load(&mut graph, &infos, &mut scratch, &mut [0u64; N - 1]).unwrap();
            assert_eq!(graph.swept_pairs(), None, "case {case}");
            let _ = max_load(&mut graph, &infos, &mut scratch, &mut [0u64; N]).unwrap();
            assert_eq!(graph.swept_pairs(), Some(want), "case {case}");
            assert_eq!(overlapping_pairs(&graph, &infos), Some(want), "case {case}");
            assert_eq!(Estimate::of(&graph, &infos).pairs, Some(want), "case {case}");
        }
    }
}
