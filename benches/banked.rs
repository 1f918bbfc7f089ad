//! Allocate/free throughput of the banked free list, side by side with `offset-allocator` 0.2
//! and `range-alloc` 0.1 on the same operations in the same run:
//!
//! * `Churn` (issue 16): 10^6 mixed allocate/free operations in 1 GiB, sizes uniform in
//!   1 KiB..=1 MiB (whole KiB), at most 4,096 live blocks, exact first fit (bottom-up) for us.
//!   Each step allocates or frees with even odds (allocates when nothing is live, frees at
//!   4,096 live); the victim of a free is a uniformly drawn live block. The sizes and the coin
//!   flips are drawn once (SplitMix64, seed `0xF1EE_0001`); a failed allocation is an
//!   operation too. offset-allocator counts 1 KiB units (2^20 of them); range-alloc gets bytes
//!   (best fit by its own design); offset-allocator is approximate (size classes), we are exact.
//! * the reference's own workloads (`banked-allocator.md` §4, from `marty1885/tt-alloc-opt`):
//!   12 GiB, offset 0, min 64, align 64. offset-allocator gets 64-byte units (12 GiB / 64
//!   fits); range-alloc gets bytes. The peers have no allocate-at, so in `Small` they skip the
//!   `at(25M, 2K)` step (ours does it). GetAvailableAddresses/Statistics/ShrinkReset are ours
//!   only.
//!
//! Every timed iteration starts from a freshly constructed allocator built outside the timing
//! (`iter_batched_ref`): offset-allocator's construction (and its `reset`, which rebuilds its
//! whole node table) is not counted. The `Clear` row times a clear/reset alone.
//!
//! Before the criterion groups run, a ratio pass (best of 5 rounds for `Churn`, 30 for the
//! rest, the allocators in turns, construction untimed) prints ns per operation (`Churn`) or
//! per iteration and the ratio dramalloc / best peer (below 1: dramalloc is faster). Run:
//! `cargo bench -p dramalloc-suite --bench banked` (smoke: `-- --test`; short:
//! `-- --warm-up-time 0.2 --measurement-time 0.5 --sample-size 10`).

use std::hint::black_box;
use std::ops::Range;

use criterion::{criterion_group, BatchSize, Criterion};

#[path = "support/ratio.rs"]
mod ratio;
use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
use dramalloc_sim::quality::generate::SplitMix64;

const K: u64 = 1024;
const M: u64 = 1024 * K;
const G: u64 = 1024 * M;
const SPACE: u64 = 12 * G;
const UNIT: u64 = 64;
/// Block-table capacity: WorstCase keeps ~3000 blocks; `Churn` at most 4,096 allocated blocks
/// and one free block more.
const BLOCKS: usize = 2 * CHURN_LIVE + 1;

/// `Churn`: operations, address space, largest live count, size range (bytes).
const CHURN_OPS: usize = 1_000_000;
const CHURN_SPACE: u64 = G;
const CHURN_LIVE: usize = 4096;
const CHURN_UNIT: u64 = K;

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

struct Offset(offset_allocator::Allocator<u32>, u64);

impl Peer for Offset {
    type H = offset_allocator::Allocation<u32>;
    const NAME: &'static str = "offset-allocator";
    fn clear(&mut self) {
        self.0.reset();
    }
    fn alloc(&mut self, size: u64) -> Option<Self::H> {
        self.0.allocate(u32::try_from(size.div_ceil(self.1)).ok()?)
    }
    fn free(&mut self, h: Self::H) {
        self.0.free(h);
    }
    fn addr(h: &Self::H) -> u64 {
        // units, not bytes: only summed to keep the work observable
        u64::from(h.offset)
    }
}

struct Ranges(range_alloc::RangeAllocator<u64>, u64);

impl Peer for Ranges {
    type H = Range<u64>;
    const NAME: &'static str = "range-alloc";
    fn clear(&mut self) {
        self.0.reset();
    }
    fn alloc(&mut self, size: u64) -> Option<Range<u64>> {
        self.0.allocate_range(size.div_ceil(self.1) * self.1).ok()
    }
    fn free(&mut self, h: Range<u64>) {
        self.0.free_range(h);
    }
    fn addr(h: &Range<u64>) -> u64 {
        h.start
    }
}

fn ours_in(space: u64, unit: u64) -> Ours {
    match FreeList::new(FreeListConfig::new(space, 0, unit, unit, Policy::First)) {
        Ok(f) => Ours(Box::new(f)),
        Err(e) => panic!("bench setup: {e}"),
    }
}

fn offset_in(space: u64, unit: u64) -> Offset {
    Offset(offset_allocator::Allocator::new(u32::try_from(space / unit).unwrap_or(u32::MAX)), unit)
}

fn ranges_in(space: u64, unit: u64) -> Ranges {
    Ranges(range_alloc::RangeAllocator::new(0..space), unit)
}

/// The reference workloads' configuration: 12 GiB in 64-byte units.
fn ours() -> Ours {
    ours_in(SPACE, UNIT)
}

fn offset() -> Offset {
    offset_in(SPACE, UNIT)
}

fn ranges() -> Ranges {
    ranges_in(SPACE, UNIT)
}

/// Sums addresses so the work cannot be optimised away.
fn take<P: Peer>(h: &Option<P::H>) -> u64 {
    h.as_ref().map_or(0, P::addr)
}

fn worst_case<P: Peer>(p: &mut P) -> u64 {
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

/// One `Churn` step: allocate `size` bytes, or free the live block at `pick % live`.
#[derive(Clone, Copy)]
enum Step {
    Alloc(u64),
    Free(u32),
}

/// The `Churn` coin flips and sizes, drawn once. Whether a step allocates depends on the live
/// count, which depends on the allocator's successes, so the draws are kept for both cases.
struct Churn {
    draws: Vec<(bool, u64, u32)>,
}

impl Churn {
    fn new() -> Churn {
        let mut r = SplitMix64(0xF1EE_0001);
        let draws = (0..CHURN_OPS)
            .map(|_| {
                let x = r.next_u64();
                (x & 1 == 0, (1 + (x >> 1) % 1024) * K, (x >> 12) as u32)
            })
            .collect();
        Churn { draws }
    }

    fn step(&self, i: usize, live: usize) -> Step {
        let (alloc, size, pick) = self.draws[i];
        if live == 0 || (alloc && live < CHURN_LIVE) {
            Step::Alloc(size)
        } else {
            Step::Free(pick % live as u32)
        }
    }
}

/// `Churn` on a fresh allocator; `live` is an empty vector with room for `CHURN_LIVE`.
fn churn<P: Peer>(p: &mut P, ops: &Churn, live: &mut Vec<P::H>) -> u64 {
    let mut sum = 0;
    for i in 0..CHURN_OPS {
        match ops.step(i, live.len()) {
            Step::Alloc(size) => {
                if let Some(h) = p.alloc(size) {
                    sum += P::addr(&h);
                    live.push(h);
                }
            }
            Step::Free(k) => {
                let h = live.swap_remove(k as usize);
                p.free(h);
            }
        }
    }
    live.clear();
    sum
}

/// Only the clear/reset every workload starts with.
fn clear_only<P: Peer>(p: &mut P) -> u64 {
    p.clear();
    0
}

/// One timed run of `w` on a fresh allocator from `make` (construction untimed), in seconds.
fn once<P: Peer>(make: &impl Fn() -> P, w: &mut impl FnMut(&mut P) -> u64) -> f64 {
    let mut p = make();
    ratio::timed(|| w(&mut p))
}

/// The three allocators on one workload, as ratio-pass contenders.
fn contenders<'a>(
    make: (impl Fn() -> Ours + 'a, impl Fn() -> Offset + 'a, impl Fn() -> Ranges + 'a),
    mut wa: impl FnMut(&mut Ours) -> u64 + 'a,
    mut wb: impl FnMut(&mut Offset) -> u64 + 'a,
    mut wc: impl FnMut(&mut Ranges) -> u64 + 'a,
) -> [ratio::Run<'a>; 3] {
    let (ma, mb, mc) = make;
    [
        (Ours::NAME, Box::new(move || once(&ma, &mut wa))),
        (Offset::NAME, Box::new(move || once(&mb, &mut wb))),
        (Ranges::NAME, Box::new(move || once(&mc, &mut wc))),
    ]
}

/// The ratio pass: `Churn` per operation (held to the issue-16 target), then the reference
/// workloads per iteration (printed for the record; offset-allocator is approximate).
fn print_ratios(ops: &Churn) {
    let (rounds, churn_rounds) = (ratio::rounds(30), ratio::rounds(5));
    println!("banked free list vs peers (best of the rounds, contenders in turns, construction untimed):");
    let (mut live_a, mut live_b, mut live_c) =
        (Vec::with_capacity(CHURN_LIVE), Vec::with_capacity(CHURN_LIVE), Vec::with_capacity(CHURN_LIVE));
    let secs = ratio::best_in_turns(
        churn_rounds,
        &mut contenders(
            (
                || ours_in(CHURN_SPACE, CHURN_UNIT),
                || offset_in(CHURN_SPACE, CHURN_UNIT),
                || ranges_in(CHURN_SPACE, CHURN_UNIT),
            ),
            |p| churn(p, ops, &mut live_a),
            |p| churn(p, ops, &mut live_b),
            |p| churn(p, ops, &mut live_c),
        ),
    );
    let names = [Ours::NAME, Offset::NAME, Ranges::NAME];
    ratio::report(
        "Churn",
        &names,
        &secs,
        1e9 / CHURN_OPS as f64,
        "ns/op",
        "<= 2 x offset-allocator, < range-alloc",
    );
    println!(
        "{:<22}  dramalloc / offset-allocator = {:.2}  dramalloc / range-alloc = {:.2}",
        "Churn",
        secs[0] / secs[1],
        secs[0] / secs[2]
    );
    macro_rules! row {
        ($name:literal, $w:ident) => {
            ratio::case(
                $name,
                rounds,
                &mut contenders((ours, offset, ranges), $w::<Ours>, $w::<Offset>, $w::<Ranges>),
                1e9,
                "ns/iter",
                "none (for the record)",
            );
        };
    }
    row!("WorstCase", worst_case);
    row!("TypicalCase", typical_case);
    row!("MixedAllocations", mixed);
    row!("Small", small);
    row!("Clear", clear_only);
}

fn shared(c: &mut Criterion) {
    macro_rules! group {
        ($name:literal, $w:ident) => {{
            let mut g = c.benchmark_group($name);
            g.bench_function(Ours::NAME, |x| x.iter_batched_ref(ours, |p| $w(p), BatchSize::LargeInput));
            g.bench_function(Offset::NAME, |x| x.iter_batched_ref(offset, |p| $w(p), BatchSize::LargeInput));
            g.bench_function(Ranges::NAME, |x| x.iter_batched_ref(ranges, |p| $w(p), BatchSize::LargeInput));
            g.finish();
        }};
    }
    group!("WorstCase", worst_case);
    group!("TypicalCase", typical_case);
    group!("MixedAllocations", mixed);
    group!("Small", small);
    group!("Clear", clear_only);
}

/// `Churn`: one iteration is 10^6 operations on a fresh allocator (construction untimed).
fn churn_group(c: &mut Criterion) {
    let ops = Churn::new();
    let mut g = c.benchmark_group("Churn");
    g.sample_size(10);
    macro_rules! peer {
        ($make:ident, $t:ty) => {{
            g.bench_function(<$t>::NAME, |x| {
                x.iter_batched_ref(
                    || ($make(CHURN_SPACE, CHURN_UNIT), Vec::with_capacity(CHURN_LIVE)),
                    |(p, live)| churn(p, &ops, live),
                    BatchSize::PerIteration,
                )
            });
        }};
    }
    peer!(ours_in, Ours);
    peer!(offset_in, Offset);
    peer!(ranges_in, Ranges);
    g.finish();
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

criterion_group!(benches, churn_group, shared, ours_only);

fn main() {
    print_ratios(&Churn::new());
    benches();
    Criterion::default().configure_from_args().final_summary();
}
