//! Allocate/free throughput of the banked free list on the reference's own benchmark workloads
//! (`banked-allocator.md` §4, from `marty1885/tt-alloc-opt`), side by side with
//! `offset-allocator` 0.2 and `range-alloc` 0.1 on the same operations in the same run.
//!
//! Setup as the reference harness: 12 GiB, offset 0, min 64, align 64, cleared before each
//! iteration. offset-allocator counts in `u32` units, so it gets 64-byte units (12 GiB / 64
//! fits); range-alloc gets bytes. The peers have no allocate-at, so in `Small` they skip the
//! `at(25M, 2K)` step (ours does it). GetAvailableAddresses/Statistics/ShrinkReset are ours only.
//!
//! Every workload starts with a clear/reset; the `Clear` row times that alone (offset-allocator's
//! `reset` rebuilds its whole node table, which dominates its `Small` row), so the operations'
//! own cost is a row minus `Clear`.
//!
//! Before the criterion groups run, a short timing pass prints ns per iteration and the ratio
//! peer / dramalloc for each shared workload. Run: `cargo bench -p dramalloc-suite --bench banked`
//! (smoke: `-- --test`; short: `-- --warm-up-time 0.2 --measurement-time 0.5 --sample-size 10`).

use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

use criterion::{criterion_group, Criterion};
use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};

const K: u64 = 1024;
const M: u64 = 1024 * K;
const G: u64 = 1024 * M;
const SPACE: u64 = 12 * G;
const UNIT: u64 = 64;
/// Block-table capacity: WorstCase keeps ~3000 blocks.
const BLOCKS: usize = 4096;

const LONG: [u64; 8] = [64 * K, 64 * K, 120 * K, 60 * M, 256 * K, 12 * K, 16 * M, K];
const TEMP: [u64; 8] = [16 * K, 16 * K, 16 * K, 16 * M, 32 * K, K, M, 3 * K];

/// The common surface of the three allocators.
trait Peer {
    type H: Clone;
    const NAME: &'static str;
    fn clear(&mut self);
    fn alloc(&mut self, size: u64) -> Option<Self::H>;
    fn free(&mut self, h: Self::H);
    fn at(&mut self, _addr: u64, _size: u64) -> Option<Self::H> {
        None
    }
    fn addr(h: &Self::H) -> u64;
}

struct Ours(Box<FreeList<BLOCKS>>);

impl Peer for Ours {
    type H = u64;
    const NAME: &'static str = "dramalloc";
    fn clear(&mut self) {
        self.0.clear();
    }
    fn alloc(&mut self, size: u64) -> Option<u64> {
        self.0.allocate(size, true).ok()
    }
    fn free(&mut self, h: u64) {
        let _ = self.0.free(h);
    }
    fn at(&mut self, addr: u64, size: u64) -> Option<u64> {
        self.0.allocate_at(addr, size).ok()
    }
    fn addr(h: &u64) -> u64 {
        *h
    }
}

struct Offset(offset_allocator::Allocator<u32>);

impl Peer for Offset {
    type H = offset_allocator::Allocation<u32>;
    const NAME: &'static str = "offset-allocator";
    fn clear(&mut self) {
        self.0.reset();
    }
    fn alloc(&mut self, size: u64) -> Option<Self::H> {
        self.0.allocate(u32::try_from(size.div_ceil(UNIT)).ok()?)
    }
    fn free(&mut self, h: Self::H) {
        self.0.free(h);
    }
    fn addr(h: &Self::H) -> u64 {
        u64::from(h.offset) * UNIT
    }
}

struct Ranges(range_alloc::RangeAllocator<u64>);

impl Peer for Ranges {
    type H = Range<u64>;
    const NAME: &'static str = "range-alloc";
    fn clear(&mut self) {
        self.0.reset();
    }
    fn alloc(&mut self, size: u64) -> Option<Range<u64>> {
        self.0.allocate_range(size.div_ceil(UNIT) * UNIT).ok()
    }
    fn free(&mut self, h: Range<u64>) {
        self.0.free_range(h);
    }
    fn addr(h: &Range<u64>) -> u64 {
        h.start
    }
}

fn ours() -> Ours {
    match FreeList::new(FreeListConfig::new(SPACE, 0, UNIT, UNIT, Policy::First)) {
        Ok(f) => Ours(Box::new(f)),
        Err(e) => panic!("bench setup: {e}"),
    }
}

fn offset() -> Offset {
    Offset(offset_allocator::Allocator::new(u32::try_from(SPACE / UNIT).unwrap_or(u32::MAX)))
}

fn ranges() -> Ranges {
    Ranges(range_alloc::RangeAllocator::new(0..SPACE))
}

/// Sums addresses so the work cannot be optimised away.
fn take<P: Peer>(h: &Option<P::H>) -> u64 {
    h.as_ref().map_or(0, P::addr)
}

fn worst_case<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    let mut sum = 0;
    for _ in 0..1000 {
        let a = p.alloc(K);
        let b = p.alloc(2 * K);
        let c = p.alloc(3 * K);
        let d = p.alloc(4 * K);
        sum += take::<P>(&b) + take::<P>(&d);
        for h in [a, c].into_iter().flatten() {
            p.free(h);
        }
    }
    sum
}

fn typical_case<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    let mut sum = 0;
    for _ in 0..100 {
        let mut temps = Vec::with_capacity(8);
        for (l, t) in LONG.iter().zip(TEMP.iter()) {
            let a = p.alloc(*l);
            sum += take::<P>(&a);
            temps.push(p.alloc(*t));
        }
        for h in temps.into_iter().flatten() {
            p.free(h);
        }
    }
    sum
}

fn mixed<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    let mut sum = 0;
    for _ in 0..150 {
        for l in LONG {
            sum += take::<P>(&p.alloc(l));
        }
        let temps: Vec<_> = TEMP.iter().map(|t| p.alloc(*t)).collect();
        for h in temps.into_iter().flatten() {
            p.free(h);
        }
    }
    sum
}

fn small<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    let mut sum = 0;
    for _ in 0..20 {
        if let Some(h) = p.alloc(K) {
            p.free(h);
        }
        let a = p.alloc(K);
        let b = p.alloc(2 * K);
        let c = p.alloc(3 * K);
        let d = p.at(25 * M, 2 * K);
        let e = p.alloc(4 * K);
        sum += take::<P>(&e);
        for h in [a, b, c, d].into_iter().flatten() {
            p.free(h);
        }
    }
    sum
}

/// Only the clear/reset every workload starts with.
fn clear_only<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    0
}

type Workload<P> = fn(&mut P) -> u64;
/// One row of the ratio table: a name and the workload for each allocator.
type Row = (&'static str, Workload<Ours>, Workload<Offset>, Workload<Ranges>);

fn time_ns<P: Peer>(p: &mut P, w: Workload<P>, iters: u32) -> f64 {
    black_box(w(p));
    let t = Instant::now();
    for _ in 0..iters {
        black_box(w(p));
    }
    t.elapsed().as_nanos() as f64 / f64::from(iters)
}

fn print_ratios() {
    let quick = std::env::args().any(|a| a == "--test");
    let iters = if quick { 2 } else { 30 };
    let (mut a, mut b, mut c) = (ours(), offset(), ranges());
    println!("banked free list vs peers (ns per iteration, {iters} iterations; ratio = peer / dramalloc)");
    let rows: [Row; 5] = [
        ("WorstCase", worst_case::<Ours>, worst_case::<Offset>, worst_case::<Ranges>),
        ("TypicalCase", typical_case::<Ours>, typical_case::<Offset>, typical_case::<Ranges>),
        ("MixedAllocations", mixed::<Ours>, mixed::<Offset>, mixed::<Ranges>),
        ("Small", small::<Ours>, small::<Offset>, small::<Ranges>),
        ("Clear", clear_only::<Ours>, clear_only::<Offset>, clear_only::<Ranges>),
    ];
    for (name, wa, wb, wc) in rows {
        let ta = time_ns(&mut a, wa, iters);
        let tb = time_ns(&mut b, wb, iters);
        let tc = time_ns(&mut c, wc, iters);
        println!(
            "{name:<18} {}: {ta:>12.0}  {}: {tb:>12.0} (x{:.2})  {}: {tc:>12.0} (x{:.2})",
            Ours::NAME,
            Offset::NAME,
            tb / ta,
            Ranges::NAME,
            tc / ta
        );
    }
}

fn shared(c: &mut Criterion) {
    macro_rules! group {
        ($name:literal, $w:ident) => {{
            let mut g = c.benchmark_group($name);
            let (mut a, mut b, mut r) = (ours(), offset(), ranges());
            g.bench_function(Ours::NAME, |x| x.iter(|| $w(&mut a)));
            g.bench_function(Offset::NAME, |x| x.iter(|| $w(&mut b)));
            g.bench_function(Ranges::NAME, |x| x.iter(|| $w(&mut r)));
            g.finish();
        }};
    }
    group!("WorstCase", worst_case);
    group!("TypicalCase", typical_case);
    group!("MixedAllocations", mixed);
    group!("Small", small);
    group!("Clear", clear_only);
}

fn ours_only(c: &mut Criterion) {
    let mut o = ours();
    let mut live = Vec::new();
    for _ in 0..450 {
        if let Some(h) = o.alloc(K) {
            live.push(h);
        }
    }
    for h in live.iter().step_by(2) {
        o.free(*h);
    }
    c.bench_function("GetAvailableAddresses/dramalloc", |x| {
        x.iter(|| black_box(o.0.available_addresses(K).count()))
    });
    c.bench_function("Statistics/dramalloc", |x| x.iter(|| black_box(o.0.statistics())));
    let mut s = ours();
    let first = s.0.allocate(20 * K, false).ok();
    let _ = s.0.allocate(20 * K, false);
    if let Some(f) = first {
        let _ = s.0.free(f);
    }
    c.bench_function("ShrinkReset/dramalloc", |x| {
        x.iter(|| {
            let _ = black_box(s.0.shrink(K));
            let _ = black_box(s.0.reset());
        })
    });
}

criterion_group!(benches, shared, ours_only);

fn main() {
    print_ratios();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
