//! Planner benchmarks: (a) plan time per strategy on the bundled real models and the hard
//! DSA set; (c) `auto` on generated problems of 10^3..10^6 buffers
//! (`dramalloc_sim::quality::generate`, seed `DEFAULT_SEED`). Quick smoke:
//! `cargo bench -p dramalloc-suite --bench planner -- --test`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::HostWorkspace;

fn core_buffers(b: &dramalloc_sim::input::Problem) -> Vec<Buffer> {
    b.rows().iter().map(|x| Buffer::new(x.lower as u32, (x.upper - 1) as u32, x.size)).collect()
}

fn per_strategy(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan");
    g.sample_size(10);
    for (set, name, text) in dramalloc_sim::input::bundled::PROBLEMS.iter().filter(|p| p.0 != "large") {
        let bufs = core_buffers(&dramalloc_sim::input::parse_buffers(text, name, 10_000_000).unwrap());
        let mut host = HostWorkspace::new(bufs.len(), bufs.len(), 1);
        for s in [
            Strategy::Seed,
            Strategy::GreedySize,
            Strategy::BestFit,
            Strategy::Skyline,
            Strategy::Sweep,
            Strategy::Auto,
        ] {
            let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: s };
            g.bench_with_input(BenchmarkId::new(s.name(), format!("{set}/{name}")), &bufs, |b, bufs| {
                b.iter(|| plan_buffers(bufs, 1, &cfg, &mut host.workspace()).unwrap().metrics.hwm)
            });
        }
    }
    g.finish();
}

fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    g.sample_size(10);
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let bufs = core_buffers(&dramalloc_sim::quality::generate::problem(
            n,
            dramalloc_sim::quality::generate::DEFAULT_SEED,
        ));
        let mut host = HostWorkspace::new(n, n, 1);
        let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: Strategy::Auto };
        g.bench_with_input(BenchmarkId::new("auto", n), &bufs, |b, bufs| {
            b.iter(|| plan_buffers(bufs, 1, &cfg, &mut host.workspace()).unwrap().metrics.hwm)
        });
    }
    g.finish();
}

criterion_group!(benches, per_strategy, scaling);
criterion_main!(benches);
