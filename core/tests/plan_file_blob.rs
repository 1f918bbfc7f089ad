//! The plan-file reader on a real blob: `data/tiny_tp.plan.bin`, the plan `dramalloc` makes of
//! the suite's tiny tensor-parallel program on 2 cores (`tests/plan_file.rs` in the suite
//! checks that the encoder still writes exactly these bytes). Every single-bit flip and every
//! truncation is rejected as corrupt; a wrong plan behind a valid checksum is rejected with
//! the exact error naming the record; the reader works at any alignment.

use dramalloc_core::plan_file::{
    CoreEntry, ErrorKind, PlanFile, PlanFileError, U16Le, U32Le, U64Le, FLAG_CC, FLAG_PREPLACED, FLAG_SHARED,
    NO_ACCESS,
};

mod support;

use support::blob::{edited, index, original as record, read, t, BLOB, CORE, HEADER, RECORD};

/// The blob with core 1's table entry changed by `edit`, checksum renewed.
fn core_1_edited(edit: impl Fn(&mut CoreEntry)) -> Vec<u8> {
    support::blob::sealed(|b| edit(support::blob::core_entry(b, 1)))
}

#[test]
fn the_blob_has_exact_contents() {
    let file = read(BLOB).unwrap();
    assert_eq!(file.records().len(), 16);
    assert_eq!(
        BLOB.len(),
        HEADER + 2 * CORE + 16 * RECORD + 8 * 8 + "xwabya/cc_slice0a/cc_slice1a/reduced".len()
    );
    assert_eq!((file.header().core_count.get(), file.header().window.get()), (2, 1 << 30));
    let x = record(1, "x");
    assert_eq!((x.address.get(), x.aligned.get(), x.has(FLAG_PREPLACED)), (0, 8192, true));
    let (s0, s1) = (record(0, "a/cc_slice0"), record(1, "a/cc_slice0"));
    assert!(s0.has(FLAG_SHARED) && s1.has(FLAG_SHARED));
    assert_eq!(s0.address.get(), s1.address.get());
    assert_eq!(file.header().shared_base.get() % 4096, 0);
    // each core's 8 records, in tensor order
    assert_eq!((file.first_record(0), file.first_record(1), file.core_records(1).len()), (0, 8, 8));
    assert!(file.core_records(0).windows(2).all(|w| w[0].tensor.get() < w[1].tensor.get()));
}

#[test]
fn every_bit_flip_and_every_truncation_is_rejected_as_corrupt() {
    let mut flipped = BLOB.to_vec();
    for bit in 0..BLOB.len() * 8 {
        flipped[bit / 8] ^= 1 << (bit % 8);
        let e = read(&flipped).err().unwrap_or_else(|| panic!("bit {bit} flipped was accepted"));
        assert_eq!(e.kind(), ErrorKind::Corrupt, "bit {bit}: {e}");
        flipped[bit / 8] ^= 1 << (bit % 8);
    }
    for len in 0..BLOB.len() {
        let needed = if len < HEADER { HEADER } else { BLOB.len() } as u64;
        assert_eq!(read(&BLOB[..len]).unwrap_err(), PlanFileError::Truncated { needed, found: len as u64 });
    }
    let mut longer = BLOB.to_vec();
    longer.push(0);
    assert_eq!(
        read(&longer).unwrap_err(),
        PlanFileError::LengthMismatch { declared: BLOB.len() as u64, actual: BLOB.len() as u64 + 1 }
    );
}

#[test]
fn the_blob_reads_at_any_alignment() {
    for shift in 0..8 {
        let mut v = vec![0u8; shift];
        v.extend_from_slice(BLOB);
        assert_eq!(read(&v[shift..]).unwrap().records().len(), 16);
    }
}

#[test]
fn a_moved_shared_twin_is_named() {
    let bad = edited(1, "a/cc_slice1", |r| r.address = U64Le::new(r.address.get() + 4096));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::TwinMismatch {
            record: index(1, "a/cc_slice1"),
            twin: index(0, "a/cc_slice1"),
            tensor: t("a/cc_slice1"),
            address: record(1, "a/cc_slice1").address.get() + 4096,
            twin_address: record(0, "a/cc_slice1").address.get(),
        }
    );
    // a shared record on core 1 whose twin on core 0 is not shared (its CC flag stays)
    let bad = edited(0, "a/cc_slice1", |r| r.flags = U16Le::new(r.flags.get() & !FLAG_SHARED));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::MissingTwin { record: index(1, "a/cc_slice1"), tensor: t("a/cc_slice1"), core: 1 }
    );
}

#[test]
fn a_collision_is_named_with_and_without_scratch() {
    // `a` (live 0..2) moved onto `x` (pre-placed, live always) on core 0
    let bad = edited(0, "a", |r| r.address = U64Le::new(0));
    let e = read(&bad).unwrap_err();
    let want = PlanFileError::Collision {
        core: 0,
        a: index(0, "x"),
        b: index(0, "a"),
        tensor_a: t("x"),
        tensor_b: t("a"),
    };
    assert_eq!((e, e.kind()), (want, ErrorKind::InvalidPlan));
    // the O(n²) check without scratch finds the same pair
    assert_eq!(PlanFile::parse(&bad).unwrap().validate(&mut []).unwrap_err(), want);
}

#[test]
fn addresses_outside_their_region_or_misaligned_are_named() {
    let bad = edited(0, "b", |r| r.address = U64Le::new(1 << 30));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::OutsideWindow {
            record: index(0, "b"),
            tensor: t("b"),
            end: (1 << 30) + 4096,
            window: 1 << 30
        }
    );
    // into the CC region (the top 4 MiB) without the flag, and the flag outside it
    let cc = (1u64 << 30) - (4 << 20);
    let bad = edited(1, "b", |r| r.address = U64Le::new(cc));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::CcFlagMismatch { record: index(1, "b"), tensor: t("b"), address: cc, flagged: false }
    );
    let bad = edited(1, "b", |r| r.flags = U16Le::new(r.flags.get() | FLAG_CC));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::CcFlagMismatch {
            record: index(1, "b"),
            tensor: t("b"),
            address: record(1, "b").address.get(),
            flagged: true
        }
    );
    let bad = edited(0, "b", |r| r.address = U64Le::new(r.address.get() + 8));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::Misaligned {
            record: index(0, "b"),
            tensor: t("b"),
            address: record(0, "b").address.get() + 8,
            align: 4096
        }
    );
}

#[test]
fn bad_lifetimes_are_named() {
    let instructions = PlanFile::parse(BLOB).unwrap().cores()[0].instructions.get();
    let bad = edited(0, "b", |r| r.last_use = U32Le::new(99));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(0, "b"),
            tensor: t("b"),
            def: record(0, "b").def.get(),
            last_use: 99,
            instructions
        }
    );
    let bad = edited(0, "b", |r| r.def = U32Le::new(NO_ACCESS));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(0, "b"),
            tensor: t("b"),
            def: NO_ACCESS,
            last_use: record(0, "b").last_use.get(),
            instructions
        }
    );
}

#[test]
fn a_stored_hwm_the_records_do_not_give_is_named() {
    let hwm = PlanFile::parse(BLOB).unwrap().cores()[1].hwm.get();
    let bytes = core_1_edited(|c| c.hwm = U64Le::new(hwm + 1));
    assert_eq!(
        read(&bytes).unwrap_err(),
        PlanFileError::HwmMismatch { core: 1, stored: hwm + 1, computed: hwm }
    );
}
