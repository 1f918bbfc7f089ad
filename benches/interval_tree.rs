//! The interval tree (seed "The IntervalTree": a static, perfectly balanced, max-augmented tree
//! in one array, here sorted by `lo`) against the interval crates a user would pick instead:
//! `coitrees` (`BasicCOITree`) and `rust-lapper`, on the same 10^6 intervals and the same 10^6
//! queries, in one run, on two distributions:
//!
//! * `uniform` (seeded SplitMix64, seeds `0x1EAF_0001`/`0x1EAF_0002`): starts uniform in
//!   `[0, 10^9)`, lengths uniform in `[0, 10^4)` (about 10 hits per query);
//! * `liveness` (seeds `0x1EAF_0003`/`0x1EAF_0004`): what a program's tensors look like, one
//!   def per instruction on average (starts uniform in `[0, 10^6)`), 90 % short lengths
//!   (uniform in `[0, 32]`) and 10 % long ones (uniform in `[0, 700]`), about 100 hits per
//!   query.
//!
//! dramalloc's tree is built with its block index (`IntervalTree::with_index`, `index_words(n)`
//! words lent beside the nodes, about 1 MB for 10^6 intervals; its build is in the build
//! time): the planner lends it the same way (`Workspace::tree_index`).
//!
//! Queries are drawn from the same law as the intervals. Every structure reports every
//! overlap to a visitor that sums the payloads, and the three sums must agree. Before the
//! criterion groups, a ratio pass per distribution (`support/ratio.rs`: best of three, the
//! three structures taking turns) prints build and query time, the hits per query and the ratio
//! dramalloc / best peer (below 1: dramalloc is faster; the target is query <= 1).
//!
//! Run: `cargo bench -p dramalloc-suite --bench interval_tree` (smoke: `-- --test`).

use std::hint::black_box;

use coitrees::{BasicCOITree, Interval as CoiInterval, IntervalTree as _};
use criterion::{criterion_group, Criterion};
use dramalloc_core::liveness::block_index::index_words;
use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
use dramalloc_sim::quality::generate::SplitMix64;
use rust_lapper::{Interval as LapInterval, Lapper};

#[path = "support/ratio.rs"]
mod ratio;

const N: usize = 1_000_000;
const QUERIES: usize = 1_000_000;

/// One distribution of closed intervals `[lo, hi]`.
#[derive(Clone, Copy)]
struct Law {
    name: &'static str,
    /// Starts are uniform in `[0, span)`.
    span: u64,
    /// Short lengths are uniform in `[0, short)`.
    short: u64,
    /// One interval in `long_every` gets a long length, uniform in `[0, long)`.
    long_every: u64,
    long: u64,
    seeds: (u64, u64),
}

const UNIFORM: Law = Law {
    name: "uniform",
    span: 1_000_000_000,
    short: 10_000,
    long_every: 0,
    long: 0,
    seeds: (0x1EAF_0001, 0x1EAF_0002),
};
const LIVENESS: Law = Law {
    name: "liveness",
    span: 1_000_000,
    short: 33,
    long_every: 10,
    long: 701,
    seeds: (0x1EAF_0003, 0x1EAF_0004),
};

/// `n` closed intervals `[lo, hi]` of `law`.
fn intervals(law: Law, n: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut r = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let lo = (r.next_u64() % law.span) as u32;
            let long = law.long_every > 0 && r.next_u64().is_multiple_of(law.long_every);
            let len = r.next_u64() % if long { law.long } else { law.short };
            (lo, lo + len as u32)
        })
        .collect()
}

/// The sorted tree and its block index (`index_words(n)` words lent beside the nodes).
fn ours_build(iv: &[(u32, u32)]) -> (Vec<Node>, Vec<u32>) {
    let mut nodes: Vec<Node> =
        iv.iter().enumerate().map(|(k, &(lo, hi))| Node::new(lo, hi, k as u32)).collect();
    let mut words = vec![0u32; index_words(nodes.len())];
    let _ =
        IntervalTree::build(&mut nodes).with_index(&mut words).expect("index storage sized by index_words");
    (nodes, words)
}

fn ours_query(tree: &IntervalTree<'_>, qs: &[(u32, u32)]) -> u64 {
    let mut sum = 0u64;
    for &(lo, hi) in qs {
        let _ = tree.for_each_overlap(lo, hi, |n| sum += n.payload as u64);
    }
    sum
}

fn coi_build(iv: &[(u32, u32)]) -> BasicCOITree<u32, u32> {
    let v: Vec<CoiInterval<u32>> = iv
        .iter()
        .enumerate()
        .map(|(k, &(lo, hi))| CoiInterval::new(lo as i32, hi as i32, k as u32))
        .collect();
    BasicCOITree::new(&v)
}

fn coi_query(t: &BasicCOITree<u32, u32>, qs: &[(u32, u32)]) -> u64 {
    let mut sum = 0u64;
    for &(lo, hi) in qs {
        t.query(lo as i32, hi as i32, |n| sum += u64::from(n.metadata.to_owned()));
    }
    sum
}

fn lap_build(iv: &[(u32, u32)]) -> Lapper<u32, u32> {
    // rust-lapper intervals are half-open [start, stop)
    Lapper::new(
        iv.iter()
            .enumerate()
            .map(|(k, &(lo, hi))| LapInterval { start: lo, stop: hi + 1, val: k as u32 })
            .collect(),
    )
}

fn lap_query(t: &Lapper<u32, u32>, qs: &[(u32, u32)]) -> u64 {
    let mut sum = 0u64;
    for &(lo, hi) in qs {
        for iv in t.find(lo, hi + 1) {
            sum += iv.val as u64;
        }
    }
    sum
}

fn ratio_pass(law: Law, rounds: u32) {
    let iv = intervals(law, N, law.seeds.0);
    let qs = intervals(law, QUERIES, law.seeds.1);
    let names = ["dramalloc", "coitrees", "rust-lapper"];
    let build = ratio::best_in_turns(
        rounds,
        &mut [
            (names[0], Box::new(|| ratio::timed(|| ours_build(&iv)))),
            (names[1], Box::new(|| ratio::timed(|| coi_build(&iv)))),
            (names[2], Box::new(|| ratio::timed(|| lap_build(&iv)))),
        ],
    );
    let ((ours, mut words), coi, lap) = (ours_build(&iv), coi_build(&iv), lap_build(&iv));
    // the nodes were built by `IntervalTree::build`: re-wrap them without rebuilding
    let tree =
        IntervalTree::from_built(&ours).with_index(&mut words).expect("index storage sized by index_words");
    let sums = [ours_query(&tree, &qs), coi_query(&coi, &qs), lap_query(&lap, &qs)];
    assert_eq!(sums[0], sums[1], "coitrees disagrees");
    assert_eq!(sums[0], sums[2], "rust-lapper disagrees");
    let query = ratio::best_in_turns(
        rounds,
        &mut [
            (names[0], Box::new(|| ratio::timed(|| ours_query(&tree, &qs)))),
            (names[1], Box::new(|| ratio::timed(|| coi_query(&coi, &qs)))),
            (names[2], Box::new(|| ratio::timed(|| lap_query(&lap, &qs)))),
        ],
    );
    let mut hits = 0u64;
    for &(lo, hi) in &qs {
        let _ = tree.for_each_overlap(lo, hi, |_| hits += 1);
    }
    println!(
        "interval tree, {}: {N} intervals, {QUERIES} queries, {:.1} hits a query (best of {rounds}, in turns):",
        law.name,
        hits as f64 / QUERIES as f64
    );
    ratio::report(&format!("build {}", law.name), &names, &build, 1e3, "ms", "none (for the record)");
    ratio::report(&format!("query {}", law.name), &names, &query, 1e3, "ms", "<= 1.00");
}

fn bench(c: &mut Criterion) {
    for law in [UNIFORM, LIVENESS] {
        let iv = intervals(law, N, law.seeds.0);
        let qs = intervals(law, QUERIES, law.seeds.1);
        let mut g = c.benchmark_group(format!("interval_tree_build_1e6/{}", law.name));
        g.sample_size(10);
        g.bench_function("dramalloc", |b| b.iter(|| black_box(ours_build(&iv))));
        g.bench_function("coitrees", |b| b.iter(|| black_box(coi_build(&iv))));
        g.bench_function("rust-lapper", |b| b.iter(|| black_box(lap_build(&iv))));
        g.finish();
        let ((ours, mut words), coi, lap) = (ours_build(&iv), coi_build(&iv), lap_build(&iv));
        let ours = IntervalTree::from_built(&ours)
            .with_index(&mut words)
            .expect("index storage sized by index_words");
        let mut g = c.benchmark_group(format!("interval_tree_query_1e6/{}", law.name));
        g.sample_size(10);
        g.bench_function("dramalloc", |b| b.iter(|| black_box(ours_query(&ours, &qs))));
        g.bench_function("coitrees", |b| b.iter(|| black_box(coi_query(&coi, &qs))));
        g.bench_function("rust-lapper", |b| b.iter(|| black_box(lap_query(&lap, &qs))));
        g.finish();
    }
}

criterion_group!(benches, bench);

fn main() {
    let rounds = ratio::rounds(3);
    ratio_pass(UNIFORM, rounds);
    ratio_pass(LIVENESS, rounds);
    benches();
    Criterion::default().configure_from_args().final_summary();
}
