//! The binary plan file: what `dramalloc_sim::report::plan_bin` writes, the core's reader
//! reads back with the same addresses as `plan.csv`; the tiny program's blob is the core's
//! fixture byte for byte (the core's `tests/plan_file_blob.rs` flips, truncates and edits it:
//! every corruption and every wrong plan rejected with the exact error); structural faults
//! only the encoder can make (a duplicate, an unknown tensor) are named.

use dramalloc_core::multicore::SharedMode;
use dramalloc_core::plan_file::{ErrorKind, PlanFile, PlanFileError, U32Le, FLAG_SHARED};
use dramalloc_core::{CcSize, Strategy};
use dramalloc_sim::input::{parse_program, SolutionRow};
use dramalloc_sim::model::SimModel;
use dramalloc_sim::planning::{plan_model, PlanOptions, PlannedModel};
use dramalloc_sim::report::plan_bin::PlanBlob;
use dramalloc_sim::run::{build_model, Split};

const VGG19: &str = include_str!("../sim/data/models/onnx_vgg19.json");

/// A tiny program: input x, weight w, two intermediates and an output; a Conv so that the
/// tensor-parallel split adds shared staging slices.
const TINY: &str = include_str!("support/tiny_tp.json");

fn planned(json: &str, cores: usize, split: Split, opts: &PlanOptions) -> (SimModel, PlannedModel) {
    let program = parse_program(json, "test.json", 100_000).unwrap();
    let model = build_model(&program, cores, split).unwrap();
    let plan = plan_model(&model, opts).unwrap();
    (model, plan)
}

fn opts() -> PlanOptions {
    PlanOptions { window: 1 << 30, cc: CcSize::Mib(4), strategy: Strategy::Auto, ..PlanOptions::default() }
}

fn blob_of(json: &str, cores: usize, split: Split, opts: &PlanOptions) -> (SimModel, PlannedModel, PlanBlob) {
    let (model, plan) = planned(json, cores, split, opts);
    let blob = PlanBlob::from_run(&model, &plan, opts, split == Split::TensorParallel).unwrap();
    (model, plan, blob)
}

fn read(bytes: &[u8]) -> Result<PlanFile<'_>, PlanFileError> {
    let mut scratch = vec![0u32; 4096];
    PlanFile::read(bytes, &mut scratch)
}

#[test]
fn a_run_reads_back_with_the_addresses_of_plan_csv() {
    for (json, cores, split) in [
        (VGG19, 2, Split::TensorParallel),
        (dramalloc_sim::input::bundled::RESNET50_JSON, 4, Split::TensorParallel),
        (dramalloc_sim::input::bundled::RESNET50_JSON, 1, Split::None),
    ] {
        let (model, plan, blob) = blob_of(json, cores, split, &opts());
        let bytes = blob.encode().unwrap();
        let file = read(&bytes).unwrap();
        let csv = dramalloc_sim::report::plan_csv(&model, &plan);
        let mut rows = csv::Reader::from_reader(csv.as_slice());
        let mut n = 0;
        for row in rows.records() {
            let row = row.unwrap();
            let core: u32 = row[1].parse().unwrap();
            let t = (0..file.names().len() as u32).find(|&t| file.name(t) == Some(&row[0])).unwrap();
            let (_, r) = file.find(core, t).unwrap();
            assert_eq!(r.address.get(), row[2].parse::<u64>().unwrap(), "{} on core {core}", &row[0]);
            assert_eq!(r.bytes.get(), row[3].parse::<u64>().unwrap());
            assert_eq!(r.aligned.get(), row[4].parse::<u64>().unwrap());
            assert_eq!(r.has(FLAG_SHARED), &row[7] == "true");
            n += 1;
        }
        assert_eq!(n, file.records().len());
        for k in 0..cores {
            // the view's HWM: the highest end of an addressed tensor (at least the floor)
            let top = plan.placements[k].iter().filter_map(|p| p.address.map(|a| a + p.aligned)).max();
            assert_eq!(file.cores()[k].hwm.get(), top.unwrap_or(0).max(plan.metrics[k].reserved_space));
        }
        assert_eq!(file.header().core_count.get() as usize, cores);
    }
}

/// A run in per-core slabs (`run --mb-per-core`): the CC region lies above the slabs and the
/// shared slab, at the window's top; the blob validates, core k's floor is its slab's start.
#[test]
fn a_slab_run_reads_back_with_the_cc_region_above_the_slabs() {
    for (json, cores, split, mb, cc) in [
        (dramalloc_sim::input::bundled::RESNET50_JSON, 4, Split::TensorParallel, 256u64, 500u64),
        (VGG19, 2, Split::None, 1024, 4),
    ] {
        let o = PlanOptions { cc: CcSize::Mib(cc), mode: SharedMode::Slabs { mb_per_core: mb }, ..opts() };
        let (_, plan, blob) = blob_of(json, cores, split, &o);
        let bytes = blob.encode().unwrap();
        let file = read(&bytes).unwrap_or_else(|e| panic!("{cores} cores, {mb} MiB slabs: {e}"));
        let slab = mb << 20;
        assert_eq!(file.header().window.get(), slab * (cores as u64 + 1) + (cc << 20));
        for (k, c) in file.cores().iter().enumerate() {
            assert_eq!(
                (c.cc_base.get(), c.cc_bytes.get()),
                (slab * (cores as u64 + 1), cc << 20),
                "core {k}"
            );
            assert_eq!(c.floor.get(), plan.metrics[k].reserved_space.max(slab * k as u64), "core {k}");
        }
    }
}

/// The tiny program's blob, as `core/tests/data/tiny_tp.plan.bin` holds it: the core's own
/// plan-file tests (`core/tests/plan_file_blob.rs`) read that copy. `DRAMALLOC_BLESS=1`
/// rewrites it after a deliberate change of the planner or the format.
#[test]
fn the_tiny_blob_is_the_core_fixture() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    let bytes = blob.encode().unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/core/tests/data/tiny_tp.plan.bin");
    if std::env::var_os("DRAMALLOC_BLESS").is_some() {
        std::fs::write(path, &bytes).unwrap();
    }
    let fixture = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        fixture == bytes,
        "{path} differs from today's blob: rerun with DRAMALLOC_BLESS=1 if the change is meant"
    );
}

#[test]
fn structural_faults_behind_a_valid_checksum_are_named() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    // a record listed twice on core 0
    let mut b = blob.clone();
    let dup = b.records[0];
    b.records.push(dup);
    let e = read(&b.encode().unwrap()).unwrap_err();
    assert!(matches!(e, PlanFileError::DuplicateRecord { .. }), "{e}");
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    // a tensor index past the name table
    let mut b = blob.clone();
    b.records[0].tensor = U32Le::new(99);
    // sorted by tensor, it becomes the last of core 0's 8 records
    assert_eq!(
        read(&b.encode().unwrap()).unwrap_err(),
        PlanFileError::UnknownTensor { record: 7, tensor: 99 }
    );
}

#[test]
fn a_minimalloc_solution_becomes_a_one_core_blob() {
    let rows = vec![
        SolutionRow { id: "a".into(), lower: 0, upper: 2, size: 10, offset: 0 },
        SolutionRow { id: "b".into(), lower: 1, upper: 3, size: 10, offset: 16 },
    ];
    let blob = PlanBlob::from_solution(&rows, 16, Some(64)).unwrap();
    let bytes = blob.encode().unwrap();
    let f = read(&bytes).unwrap();
    assert_eq!(f.cores()[0].hwm.get(), 32);
    assert_eq!((f.find(0, 1).unwrap().1.def.get(), f.find(0, 1).unwrap().1.last_use.get()), (1, 2));
    let clash = vec![rows[0].clone(), SolutionRow { offset: 8, ..rows[1].clone() }];
    let bytes = PlanBlob::from_solution(&clash, 8, Some(64)).unwrap().encode().unwrap();
    assert_eq!(
        read(&bytes).unwrap_err(),
        PlanFileError::Collision { core: 0, a: 0, b: 1, tensor_a: 0, tensor_b: 1 }
    );
    // time-disjoint buffers may share bytes
    let reuse = vec![rows[0].clone(), SolutionRow { lower: 2, upper: 3, offset: 0, ..rows[1].clone() }];
    assert!(read(&PlanBlob::from_solution(&reuse, 16, None).unwrap().encode().unwrap()).is_ok());
}

/// `plan -o x.bin` writes the file straight from the problem (`encode_solution`): byte for
/// byte the file of the solution rows' blob with the fixed rows' records flagged pinned, on
/// 2,000 generated buffers (stacked) with every 7th fixed (286),
/// 64-byte pages and a capacity; and the same errors: an alignment that is not a power of
/// two, a size that overflows when aligned, an instant past 32 bits (naming the buffer).
#[test]
fn a_solution_written_straight_from_the_problem_is_the_rows_blob() {
    use dramalloc_sim::quality::generate::Shape;
    use dramalloc_sim::report::plan_bin::{encode_solution, BlobError};
    let mut p = Shape::Mixed.generate(2000, 7);
    // every buffer above the last (a valid plan, if not a good one)
    let offsets: Vec<u64> = p
        .iter()
        .scan(0u64, |top, (_, r)| Some(std::mem::replace(top, *top + r.size.next_multiple_of(64))))
        .collect();
    for k in (0..p.len()).step_by(7) {
        p.set_fixed(k, Some(offsets[k]));
    }
    let rows = p.with_offsets(&offsets).to_solution_rows();
    let mut blob = PlanBlob::from_solution(&rows, 64, Some(1 << 40)).unwrap();
    // a row does not say it was fixed; the problem does: those records carry FLAG_PINNED
    for r in blob.records.iter_mut().step_by(7) {
        r.flags = dramalloc_core::plan_file::U16Le::new(dramalloc_core::plan_file::FLAG_PINNED);
    }
    let want = blob.encode().unwrap();
    let got = encode_solution(&p, &offsets, 64, Some(1 << 40)).unwrap();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the files differ");
    let file = read(&got).unwrap();
    assert_eq!(file.records().len(), 2000);
    let pinned = file.records().iter().filter(|r| r.flags.get() == dramalloc_core::plan_file::FLAG_PINNED);
    assert_eq!(pinned.count(), 286);
    assert_eq!(encode_solution(&p, &offsets, 48, None), Err(BlobError::BadAlign { align: 48 }));
    let row = |size, upper| dramalloc_sim::input::Buffer { id: "big".into(), lower: 0, upper, size };
    let huge: dramalloc_sim::input::Problem = [row(u64::MAX, 2)].into_iter().collect();
    assert_eq!(
        encode_solution(&huge, &[0], 64, None),
        Err(BlobError::SizeOverflow { id: "big".into(), size: u64::MAX, align: 64 })
    );
    let late: dramalloc_sim::input::Problem = [row(8, 1 << 33)].into_iter().collect();
    assert_eq!(
        encode_solution(&late, &[0], 64, None),
        Err(BlobError::TimeRange { id: "big".into(), value: 1 << 33 })
    );
    // an exclusive `upper` of u32::MAX is an instruction count the format holds (the last use
    // one below it, under the NO_ACCESS sentinel); one more is not
    let last: dramalloc_sim::input::Problem = [row(8, u32::MAX.into())].into_iter().collect();
    let bytes = encode_solution(&last, &[0], 64, None).unwrap();
    let file = read(&bytes).unwrap();
    let (core, rec) = (&file.cores()[0], &file.records()[0]);
    assert_eq!((core.instructions.get(), rec.def.get(), rec.last_use.get()), (u32::MAX, 0, u32::MAX - 1));
    let past: dramalloc_sim::input::Problem = [row(8, u64::from(u32::MAX) + 1)].into_iter().collect();
    assert_eq!(
        encode_solution(&past, &[0], 64, None),
        Err(BlobError::TimeRange { id: "big".into(), value: 1 << 32 })
    );
}
