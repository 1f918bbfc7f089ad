//! The interval tree (seed "The IntervalTree": a static, perfectly balanced, max-augmented tree
//! in one array, here sorted by `lo`) against the interval crates a user would pick instead:
//! `coitrees` (`BasicCOITree`) and `rust-lapper`, on the same 10^6 random intervals and the
//! same 10^6 random queries, in one run.
//!
//! Data (seeded SplitMix64, seed `0x1EAF_0001`): starts uniform in `[0, 10^9)`, lengths uniform
//! in `[1, 10^4]` (about 10 hits per query); queries drawn from the same law. Every structure
//! reports every overlap to a visitor that sums the payloads, and the three sums must agree.
//! Before the criterion groups, one timed pass prints build and query time and the ratio
//! peer / dramalloc.
//!
//! Run: `cargo bench -p dramalloc-suite --bench interval_tree` (smoke: `-- --test`).

use std::hint::black_box;
use std::time::Instant;

use coitrees::{BasicCOITree, Interval as CoiInterval, IntervalTree as _};
use criterion::{criterion_group, Criterion};
use dramalloc_core::liveness::interval_tree::{IntervalTree, Node};
use dramalloc_sim::quality::generate::SplitMix64;
use rust_lapper::{Interval as LapInterval, Lapper};

const N: usize = 1_000_000;
const QUERIES: usize = 1_000_000;

/// Closed intervals `[lo, hi]`.
fn intervals(n: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut r = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let lo = (r.next_u64() % 1_000_000_000) as u32;
            (lo, lo + (r.next_u64() % 10_000) as u32)
        })
        .collect()
}

fn ours_build(iv: &[(u32, u32)]) -> Vec<Node> {
    let mut nodes: Vec<Node> =
        iv.iter().enumerate().map(|(k, &(lo, hi))| Node::new(lo, hi, k as u32)).collect();
    let _ = IntervalTree::build(&mut nodes);
    nodes
}

fn ours_query(nodes: &[Node], qs: &[(u32, u32)]) -> u64 {
    // the nodes were built by `IntervalTree::build`: re-wrap them without rebuilding
    let tree = IntervalTree::from_built(nodes);
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

fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn ratio_pass() {
    let iv = intervals(N, 0x1EAF_0001);
    let qs = intervals(QUERIES, 0x1EAF_0002);
    let (ours, b0) = timed(|| ours_build(&iv));
    let (coi, b1) = timed(|| coi_build(&iv));
    let (lap, b2) = timed(|| lap_build(&iv));
    let (s0, q0) = timed(|| ours_query(&ours, &qs));
    let (s1, q1) = timed(|| coi_query(&coi, &qs));
    let (s2, q2) = timed(|| lap_query(&lap, &qs));
    assert_eq!(s0, s1, "coitrees disagrees");
    assert_eq!(s0, s2, "rust-lapper disagrees");
    println!("interval tree, {N} intervals, {QUERIES} queries (one timed pass; ratio = peer / dramalloc):");
    println!("  {:<12} build {:>8.1} ms  query {:>8.1} ms", "dramalloc", b0, q0);
    println!(
        "  {:<12} build {:>8.1} ms  query {:>8.1} ms  ratio build {:.2} query {:.2}",
        "coitrees",
        b1,
        q1,
        b1 / b0,
        q1 / q0
    );
    println!(
        "  {:<12} build {:>8.1} ms  query {:>8.1} ms  ratio build {:.2} query {:.2}",
        "rust-lapper",
        b2,
        q2,
        b2 / b0,
        q2 / q0
    );
}

fn bench(c: &mut Criterion) {
    let iv = intervals(N, 0x1EAF_0001);
    let qs = intervals(QUERIES, 0x1EAF_0002);
    let mut g = c.benchmark_group("interval_tree_build_1e6");
    g.sample_size(10);
    g.bench_function("dramalloc", |b| b.iter(|| black_box(ours_build(&iv))));
    g.bench_function("coitrees", |b| b.iter(|| black_box(coi_build(&iv))));
    g.bench_function("rust-lapper", |b| b.iter(|| black_box(lap_build(&iv))));
    g.finish();
    let (ours, coi, lap) = (ours_build(&iv), coi_build(&iv), lap_build(&iv));
    let mut g = c.benchmark_group("interval_tree_query_1e6");
    g.sample_size(10);
    g.bench_function("dramalloc", |b| b.iter(|| black_box(ours_query(&ours, &qs))));
    g.bench_function("coitrees", |b| b.iter(|| black_box(coi_query(&coi, &qs))));
    g.bench_function("rust-lapper", |b| b.iter(|| black_box(lap_query(&lap, &qs))));
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    ratio_pass();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
