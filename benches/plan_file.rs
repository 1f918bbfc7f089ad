//! Cost of the plan-file reader: `PlanFile::parse` (structure and CRC-32) and
//! `PlanFile::validate` (the plan: window, lifetimes, twins, collisions) on the plan of the
//! bundled ResNet-50 split tensor-parallel over 4 cores, with and without scratch (the
//! O(n log n) and the O(n²) collision check).
//! Run: `cargo bench -p dramalloc-suite --bench plan_file` (smoke: `-- --test`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use dramalloc_core::plan_file::PlanFile;
use dramalloc_sim::input::parse_program;
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::report::plan_bin::PlanBlob;
use dramalloc_sim::run::{build_model, Split};

fn blob() -> Vec<u8> {
    let program = parse_program(dramalloc_sim::input::bundled::RESNET50_JSON, "resnet50", 1_000_000).unwrap();
    let model = build_model(&program, 4, Split::TensorParallel).unwrap();
    let opts = PlanOptions::default();
    let plan = plan_model(&model, &opts).unwrap();
    PlanBlob::from_run(&model, &plan, &opts, true).unwrap().encode().unwrap()
}

fn reader(c: &mut Criterion) {
    let bytes = blob();
    let file = PlanFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u32; file.scratch_len()];
    let mut g = c.benchmark_group(format!(
        "plan_file/resnet50_tp4 ({} records, {} bytes)",
        file.records().len(),
        bytes.len()
    ));
    g.bench_function("parse", |b| b.iter(|| PlanFile::parse(black_box(&bytes)).unwrap().records().len()));
    g.bench_function("validate (scratch)", |b| b.iter(|| file.validate(black_box(&mut scratch)).unwrap()));
    g.bench_function("validate (no scratch)", |b| b.iter(|| file.validate(black_box(&mut [])).unwrap()));
    g.finish();
}

criterion_group!(benches, reader);
criterion_main!(benches);
