//! Simulator byte throughput against the machine's own `memset` + `memcmp` bandwidth, in one
//! run: the main job (`dramalloc run`: the bundled ResNet-50, planned with the default
//! options) executed byte by byte — every op writes its outputs' fingerprints straight into
//! the arena and checks its inputs' fingerprints in place — on 1 core and on 2 cores
//! (replicated; the cores run in parallel as far as the cross-core edges allow).
//!
//! The peer is what the same bytes cost as plain memory traffic: `slice::fill` (memset) over
//! a warm buffer as large as the arena commits, as many bytes as the simulator writes, and
//! `==` on two such buffers (memcmp), as many bytes as it verifies. The ratio is
//! simulator time / memset+memcmp time (1.0: the simulator touches bytes as fast as memset
//! and memcmp do; the target, >= 50 % of their bandwidth, is a ratio <= 2). The arena's
//! first touch of a page costs a page
//! fault, which the warm buffers do not pay: the simulator is measured as it runs.
//!
//! Before the criterion groups, a ratio pass (best of five, the two in turns) prints both, in
//! GB/s, and the ratio.
//! Run: `cargo bench -p dramalloc-suite --bench sim` (smoke: `-- --test`).

use std::hint::black_box;

use criterion::{criterion_group, Criterion, Throughput};

#[path = "support/ratio.rs"]
mod ratio;
use dramalloc_sim::exec::executor::{execute, ExecOptions, ExecReport};
use dramalloc_sim::input::{bundled::RESNET50_JSON, parse_program};
use dramalloc_sim::model::SimModel;
use dramalloc_sim::planning::{plan_model, PlanOptions, PlannedModel};
use dramalloc_sim::run::{build_model, Split};

fn job(cores: usize) -> (SimModel, PlannedModel) {
    let program = match parse_program(RESNET50_JSON, "bundled:onnx_resnet50.json", 1_000_000) {
        Ok(p) => p,
        Err(e) => panic!("bench setup: {e}"),
    };
    let model = match build_model(&program, cores, Split::None) {
        Ok(m) => m,
        Err(e) => panic!("bench setup: {e}"),
    };
    match plan_model(&model, &PlanOptions::default()) {
        Ok(plan) => (model, plan),
        Err(e) => panic!("bench setup: {e}"),
    }
}

fn run(model: &SimModel, plan: &PlannedModel) -> ExecReport {
    match execute(model, plan, &ExecOptions::default()) {
        Ok(r) => r,
        Err(e) => panic!("the main job must verify: {e}"),
    }
}

/// Warm buffers for the memory-traffic peer: two equal ones of `bytes` bytes.
struct Peer {
    a: Vec<u8>,
    b: Vec<u8>,
}

impl Peer {
    fn new(bytes: u64) -> Peer {
        let n = bytes.max(4096) as usize;
        Peer { a: vec![0x5A; n], b: vec![0x5A; n] }
    }

    /// memset `written` bytes and memcmp `verified` bytes, cycling over the buffers.
    fn traffic(&mut self, written: u64, verified: u64) -> u64 {
        let n = self.a.len() as u64;
        let mut equal = 0;
        let mut left = written;
        while left > 0 {
            let k = left.min(n) as usize;
            self.a[..k].fill(black_box(0x5A));
            left -= k as u64;
        }
        let mut left = verified;
        while left > 0 {
            let k = left.min(n) as usize;
            // the result must be used, or the compiler drops the memcmp altogether
            equal += u64::from(black_box(black_box(&self.a[..k]) == black_box(&self.b[..k])));
            left -= k as u64;
        }
        equal
    }
}

fn ratio_pass() {
    let rounds = ratio::rounds(5);
    println!("simulator byte throughput vs memset+memcmp of the same bytes (best of {rounds}, in turns):");
    for cores in [1, 2] {
        let (model, plan) = job(cores);
        let rep = run(&model, &plan);
        let mut peer = Peer::new(rep.committed_bytes / cores as u64);
        peer.traffic(rep.bytes_written, rep.bytes_verified); // warm
        let secs = ratio::best_in_turns(
            rounds,
            &mut [
                ("dramalloc", Box::new(|| ratio::timed(|| run(&model, &plan)))),
                (
                    "memset+memcmp",
                    Box::new(|| ratio::timed(|| peer.traffic(rep.bytes_written, rep.bytes_verified))),
                ),
            ],
        );
        let bytes = (rep.bytes_written + rep.bytes_verified) as f64;
        println!(
            "  {cores} core(s): written {} + verified {} bytes; simulator {:.2} GB/s, memset+memcmp {:.2} GB/s",
            rep.bytes_written,
            rep.bytes_verified,
            bytes / secs[0] / 1e9,
            bytes / secs[1] / 1e9,
        );
        ratio::report(
            &format!("sim {cores} core(s)"),
            &["dramalloc", "memset+memcmp"],
            &secs,
            1e3,
            "ms",
            "<= 2.00 (>= 50 % of the bandwidth)",
        );
    }
}

fn bench(c: &mut Criterion) {
    for cores in [1, 2] {
        let (model, plan) = job(cores);
        let rep = run(&model, &plan);
        let mut peer = Peer::new(rep.committed_bytes / cores as u64);
        let mut g = c.benchmark_group(format!("sim_bytes/{cores}_core"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(rep.bytes_written + rep.bytes_verified));
        g.bench_function("dramalloc", |b| b.iter(|| black_box(run(&model, &plan))));
        g.bench_function("memset+memcmp", |b| {
            b.iter(|| black_box(peer.traffic(rep.bytes_written, rep.bytes_verified)))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);

fn main() {
    ratio_pass();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
