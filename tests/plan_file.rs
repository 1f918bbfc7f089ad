//! The binary plan file: what `dramalloc_sim::report::plan_bin` writes, the core's reader
//! reads back with the same addresses as `plan.csv`; every single-bit flip and every
//! truncation of a small blob is rejected as corrupt; wrong plans are rejected with the
//! exact error naming the record.

use dramalloc_core::plan_file::{
    ErrorKind, PlanFile, PlanFileError, Record, U32Le, U64Le, FLAG_CC, FLAG_PREPLACED, FLAG_SHARED, NO_ACCESS,
};
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
        let csv = dramalloc_sim::report::plan_csv(&model, &plan).unwrap();
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

#[test]
fn the_tiny_blob_has_exact_contents() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    let bytes = blob.encode().unwrap();
    let file = read(&bytes).unwrap();
    // x, w, a, b, y, a/cc_slice0, a/cc_slice1, a/reduced on each core
    assert_eq!(file.records().len(), 16);
    assert_eq!(bytes.len(), 88 + 2 * 56 + 16 * 40 + 8 * 8 + "xwabya/cc_slice0a/cc_slice1a/reduced".len());
    let t = |name: &str| (0..8).find(|&t| file.name(t) == Some(name)).unwrap();
    let (_, x) = file.find(1, t("x")).unwrap();
    assert_eq!((x.address.get(), x.aligned.get(), x.has(FLAG_PREPLACED)), (0, 8192, true));
    let (_, s0) = file.find(0, t("a/cc_slice0")).unwrap();
    let (_, s0b) = file.find(1, t("a/cc_slice0")).unwrap();
    assert!(s0.has(FLAG_SHARED) && s0b.has(FLAG_SHARED));
    assert_eq!(s0.address.get(), s0b.address.get());
    assert_eq!(file.header().shared_base.get() % 4096, 0);
}

#[test]
fn every_bit_flip_and_every_truncation_of_a_small_blob_is_rejected_as_corrupt() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    let bytes = blob.encode().unwrap();
    assert!(read(&bytes).is_ok());
    let mut flipped = bytes.clone();
    for bit in 0..bytes.len() * 8 {
        flipped[bit / 8] ^= 1 << (bit % 8);
        let e = read(&flipped).err().unwrap_or_else(|| panic!("bit {bit} flipped was accepted"));
        assert_eq!(e.kind(), ErrorKind::Corrupt, "bit {bit}: {e}");
        flipped[bit / 8] ^= 1 << (bit % 8);
    }
    for len in 0..bytes.len() {
        let e = read(&bytes[..len]).err().unwrap_or_else(|| panic!("truncation to {len} bytes accepted"));
        let expected = if len < 88 {
            PlanFileError::Truncated { needed: 88, found: len as u64 }
        } else {
            PlanFileError::Truncated { needed: bytes.len() as u64, found: len as u64 }
        };
        assert_eq!(e, expected);
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        read(&longer).unwrap_err(),
        PlanFileError::LengthMismatch { declared: bytes.len() as u64, actual: bytes.len() as u64 + 1 }
    );
}

#[test]
fn a_blob_reads_at_any_alignment() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    let bytes = blob.encode().unwrap();
    for shift in 0..8 {
        let mut v = vec![0u8; shift];
        v.extend_from_slice(&bytes);
        assert_eq!(read(&v[shift..]).unwrap().records().len(), 16);
    }
}

/// Re-encodes `blob` after `edit` changes one record of `core` for tensor `name`.
fn edited(blob: &PlanBlob, core: u16, name: &str, edit: impl Fn(&mut Record)) -> Vec<u8> {
    let t = blob.names.iter().position(|n| n == name).unwrap() as u32;
    let mut b = blob.clone();
    let r = b.records.iter_mut().find(|r| r.core.get() == core && r.tensor.get() == t).unwrap();
    edit(r);
    b.encode().unwrap()
}

/// Index of `core`'s record of `name` in the encoded file.
fn index(bytes: &[u8], core: u32, name: &str) -> u32 {
    let f = PlanFile::parse(bytes).unwrap();
    let t = (0..f.names().len() as u32).find(|&t| f.name(t) == Some(name)).unwrap();
    f.find(core, t).unwrap().0
}

#[test]
fn wrong_plans_are_rejected_with_the_record_named() {
    let (_, _, blob) = blob_of(TINY, 2, Split::TensorParallel, &opts());
    let t = |name: &str| blob.names.iter().position(|n| n == name).unwrap() as u32;
    let good = blob.encode().unwrap();
    let addr = |core: u32, name: &str| {
        let f = PlanFile::parse(&good).unwrap();
        f.find(core, t(name)).unwrap().1.address.get()
    };

    // a shared twin moved on core 1
    let bad = edited(&blob, 1, "a/cc_slice1", |r| r.address = U64Le::new(r.address.get() + 4096));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::TwinMismatch {
            record: index(&bad, 1, "a/cc_slice1"),
            twin: index(&bad, 0, "a/cc_slice1"),
            tensor: t("a/cc_slice1"),
            address: addr(1, "a/cc_slice1") + 4096,
            twin_address: addr(0, "a/cc_slice1"),
        }
    );
    // `a` (live 0..2) moved onto `x` (pre-placed, live always) on core 0
    let bad = edited(&blob, 0, "a", |r| r.address = U64Le::new(0));
    let e = read(&bad).unwrap_err();
    assert_eq!(
        e,
        PlanFileError::Collision {
            core: 0,
            a: index(&bad, 0, "x"),
            b: index(&bad, 0, "a"),
            tensor_a: t("x"),
            tensor_b: t("a"),
        }
    );
    assert_eq!(e.kind(), ErrorKind::InvalidPlan);
    // the O(n²) check without scratch finds the same pair
    assert_eq!(PlanFile::parse(&bad).unwrap().validate(&mut []).unwrap_err(), e);
    // past the window
    let bad = edited(&blob, 0, "b", |r| r.address = U64Le::new(1 << 30));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::OutsideWindow {
            record: index(&bad, 0, "b"),
            tensor: t("b"),
            end: (1 << 30) + 4096,
            window: 1 << 30
        }
    );
    // into the CC region (the top 4 MiB) without the flag
    let cc = (1u64 << 30) - (4 << 20);
    let bad = edited(&blob, 1, "b", |r| r.address = U64Le::new(cc));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::CcFlagMismatch {
            record: index(&bad, 1, "b"),
            tensor: t("b"),
            address: cc,
            flagged: false
        }
    );
    let bad =
        edited(&blob, 1, "b", |r| r.flags = dramalloc_core::plan_file::U16Le::new(r.flags.get() | FLAG_CC));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::CcFlagMismatch {
            record: index(&bad, 1, "b"),
            tensor: t("b"),
            address: addr(1, "b"),
            flagged: true
        }
    );
    // misaligned
    let bad = edited(&blob, 0, "b", |r| r.address = U64Le::new(r.address.get() + 8));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::Misaligned {
            record: index(&bad, 0, "b"),
            tensor: t("b"),
            address: addr(0, "b") + 8,
            align: 4096
        }
    );
    // a lifetime past the program, and a half-missing one
    let bad = edited(&blob, 0, "b", |r| r.last_use = U32Le::new(99));
    let instr = PlanFile::parse(&good).unwrap().cores()[0].instructions.get();
    let def = PlanFile::parse(&good).unwrap().find(0, t("b")).unwrap().1.def.get();
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(&bad, 0, "b"),
            tensor: t("b"),
            def,
            last_use: 99,
            instructions: instr
        }
    );
    let bad = edited(&blob, 0, "b", |r| r.def = U32Le::new(NO_ACCESS));
    assert!(matches!(read(&bad).unwrap_err(), PlanFileError::BadLifetime { def: NO_ACCESS, .. }));
    // a stored HWM that the records do not give
    let mut b = blob.clone();
    let hwm = b.cores[1].hwm.get();
    b.cores[1].hwm = U64Le::new(hwm + 1);
    assert_eq!(
        read(&b.encode().unwrap()).unwrap_err(),
        PlanFileError::HwmMismatch { core: 1, stored: hwm + 1, computed: hwm }
    );
    // a shared record on core 1 whose twin on core 0 is not shared
    // (its CC flag stays: it lies in the CC region)
    let bad = edited(&blob, 0, "a/cc_slice1", |r| {
        r.flags =
            dramalloc_core::plan_file::U16Le::new(r.flags.get() & !dramalloc_core::plan_file::FLAG_SHARED)
    });
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::MissingTwin {
            record: index(&bad, 1, "a/cc_slice1"),
            tensor: t("a/cc_slice1"),
            core: 1
        }
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
