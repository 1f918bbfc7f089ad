//! `PlanFile::validate` at the edges of its checks, on the fixture blob with fields edited and
//! the checksum renewed (`support/blob.rs`): the slab layout (slabs below one CC region), the CC region's place, a record
//! ending at the window, touching buffers, the shared region, the floor, collisions named on
//! core 1 and in address order.

mod support;

use dramalloc_core::plan_file::{PlanFile, PlanFileError, U32Le, U64Le, FLAG_SHARED, FLAG_SLABS, NO_ACCESS};
use support::blob::{core_entry, edited, header, index, read, record, sealed, t, BLOB};

const WINDOW: u64 = 1 << 30;
const CC: u64 = 4 << 20;

#[test]
fn the_fixture_is_valid_with_and_without_scratch() {
    // the O(n²) path compares the touching pair too: `b` starts where `a/reduced` ends,
    // both live at instructions 3 and 4
    assert!(read(BLOB).is_ok());
    assert!(PlanFile::parse(BLOB).unwrap().validate(&mut []).is_ok());
}

#[test]
fn with_slabs_each_core_owns_a_third_of_the_window_below_the_cc_region() {
    // 2 cores and the shared slab: slabs of (WINDOW - CC) / 3 below the CC region, which
    // stays at the window's top; core 1's floor must be at least its slab's start
    let slab = (WINDOW - CC) / 3;
    let bytes = sealed(|b| {
        let h = header(b);
        h.flags = U32Le::new(h.flags.get() | FLAG_SLABS);
    });
    assert_eq!(
        read(&bytes).unwrap_err(),
        PlanFileError::FloorMismatch { core: 1, stored: 16_384, computed: slab }
    );
    // core 1's floor at its slab's start (its records below it, but its collective slices in
    // the CC region above, so its HWM stays): valid, with the
    // CC region where it was, at the window's top (what `run --mb-per-core` writes)
    let with = |cc_shift: u64| {
        sealed(move |b| {
            let h = header(b);
            h.flags = U32Le::new(h.flags.get() | FLAG_SLABS);
            let c = core_entry(b, 1);
            c.floor = U64Le::new(slab);
            c.hwm = U64Le::new(c.hwm.get().max(slab));
            let c = core_entry(b, 0);
            c.cc_base = U64Le::new(c.cc_base.get() - cc_shift);
        })
    };
    assert!(read(&with(0)).is_ok());
    // a CC region at the top of slab 0, or anywhere below the window's top, is refused
    assert_eq!(
        read(&with(4096)).unwrap_err(),
        PlanFileError::CcRegionNotAtTop { core: 0, cc_base: WINDOW - CC - 4096, cc_bytes: CC, top: WINDOW }
    );
}

#[test]
fn the_cc_region_must_lie_in_the_window_at_its_top() {
    let outside = sealed(|b| core_entry(b, 0).cc_bytes = U64Le::new(CC + 4096));
    assert_eq!(
        read(&outside).unwrap_err(),
        PlanFileError::CcRegionOutsideWindow {
            core: 0,
            cc_base: WINDOW - CC,
            cc_bytes: CC + 4096,
            window: WINDOW
        }
    );
    // no region, but a base past the window: the region is empty, so only its place is wrong
    let empty = sealed(|b| {
        let c = core_entry(b, 0);
        c.cc_bytes = U64Le::new(0);
        c.cc_base = U64Le::new(WINDOW + 1);
    });
    let e = read(&empty).unwrap_err();
    assert_eq!(e, PlanFileError::CcRegionNotAtTop { core: 0, cc_base: WINDOW + 1, cc_bytes: 0, top: WINDOW });
    assert_eq!(
        e.to_string(),
        format!(
            "core 0: no CC region, but its base {} is not the window's top {WINDOW} (an empty CC region sits at \
             the top: the header's window or the core's CC base is wrong)",
            WINDOW + 1
        )
    );
}

#[test]
fn a_record_may_end_at_the_window() {
    // both twins of a/cc_slice1 moved to the last page of the CC region; the cores' HWM and
    // CC use follow
    let top = WINDOW - 4096;
    let (r0, r1) = (index(0, "a/cc_slice1") as usize, index(1, "a/cc_slice1") as usize);
    let bytes = sealed(|b| {
        record(b, r0).address = U64Le::new(top);
        record(b, r1).address = U64Le::new(top);
        for k in 0..2 {
            let c = core_entry(b, k);
            c.hwm = U64Le::new(WINDOW);
            c.cc_used = U64Le::new(CC);
        }
    });
    assert!(read(&bytes).is_ok());
}

#[test]
fn an_empty_record_at_the_window_is_outside_the_cc_region() {
    // `b` of no bytes at the window's end: inside the window, not in the CC region (which
    // ends there), so unflagged is right; the HWM is then the window
    let i = index(0, "b") as usize;
    let bytes = sealed(|b| {
        let r = record(b, i);
        r.bytes = U64Le::new(0);
        r.aligned = U64Le::new(0);
        r.address = U64Le::new(WINDOW);
        core_entry(b, 0).hwm = U64Le::new(WINDOW);
    });
    assert!(read(&bytes).is_ok());
}

#[test]
fn lifetimes_at_their_limits() {
    // the last instruction is 4 of 5; a record no instruction touches is valid
    assert!(read(&edited(0, "b", |r| r.last_use = U32Le::new(4))).is_ok());
    let never = edited(0, "b", |r| {
        r.def = U32Le::new(NO_ACCESS);
        r.last_use = U32Le::new(NO_ACCESS);
    });
    assert!(read(&never).is_ok());
    let bad = edited(0, "b", |r| r.last_use = U32Le::new(5));
    assert_eq!(
        read(&bad).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(0, "b"),
            tensor: t("b"),
            def: 3,
            last_use: 5,
            instructions: 5
        }
    );
    let backwards = edited(0, "b", |r| r.def = U32Le::new(4));
    assert!(read(&backwards).is_ok()); // [4, 4]
    let backwards = edited(0, "b", |r| r.last_use = U32Le::new(2));
    assert_eq!(
        read(&backwards).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(0, "b"),
            tensor: t("b"),
            def: 3,
            last_use: 2,
            instructions: 5
        }
    );
    // said as it is: a lifetime that ends before it starts, not one outside the program
    assert_eq!(
        read(&backwards).unwrap_err().to_string(),
        format!(
            "record {} (tensor {}): lifetime [3, 2] ends before it starts (core of 5 instructions)",
            index(0, "b"),
            t("b")
        )
    );
    assert_eq!(
        read(&bad).unwrap_err().to_string(),
        format!("record {} (tensor {}): lifetime [3, 5] is not within 5 instructions", index(0, "b"), t("b"))
    );
    let half = edited(0, "b", |r| r.last_use = U32Le::new(NO_ACCESS));
    assert_eq!(
        read(&half).unwrap_err(),
        PlanFileError::BadLifetime {
            record: index(0, "b"),
            tensor: t("b"),
            def: 3,
            last_use: NO_ACCESS,
            instructions: 5
        }
    );
}

#[test]
fn aligned_sizes_must_be_the_rounded_up_size() {
    let small = edited(0, "b", |r| r.aligned = U64Le::new(2048));
    assert_eq!(
        read(&small).unwrap_err(),
        PlanFileError::AlignedTooSmall { record: index(0, "b"), tensor: t("b"), bytes: 3000, aligned: 2048 }
    );
    let large = edited(0, "b", |r| r.aligned = U64Le::new(8192));
    assert_eq!(
        read(&large).unwrap_err(),
        PlanFileError::AlignedMismatch {
            record: index(0, "b"),
            tensor: t("b"),
            bytes: 3000,
            aligned: 8192,
            expected: 4096
        }
    );
}

#[test]
fn shared_records_outside_the_cc_region_lie_in_the_shared_region() {
    // `b` made shared on both cores (same address, 24,576, one page): the header's shared
    // region starts at 28,672 and is empty
    let (b0, b1) = (index(0, "b") as usize, index(1, "b") as usize);
    let share = |b: &mut [u8]| {
        for i in [b0, b1] {
            let r = record(b, i);
            r.flags = dramalloc_core::plan_file::U16Le::new(r.flags.get() | FLAG_SHARED);
        }
    };
    let below = sealed(share);
    assert_eq!(
        read(&below).unwrap_err(),
        PlanFileError::SharedOutsideRegion {
            record: b0 as u32,
            tensor: t("b"),
            address: 24_576,
            end: 28_672,
            base: 28_672,
            bytes: 0
        }
    );
    let region = |bytes: u64| {
        sealed(move |b| {
            share(b);
            let h = header(b);
            h.shared_base = U64Le::new(24_576);
            h.shared_bytes = U64Le::new(bytes);
        })
    };
    assert!(read(&region(4096)).is_ok());
    assert_eq!(
        read(&region(4095)).unwrap_err(),
        PlanFileError::SharedOutsideRegion {
            record: b0 as u32,
            tensor: t("b"),
            address: 24_576,
            end: 28_672,
            base: 24_576,
            bytes: 4095
        }
    );
    assert_eq!(
        read(&region(8192)).unwrap_err(),
        PlanFileError::SharedBytesMismatch { stored: 8192, computed: 4096 }
    );
    // an empty shared region that claims bytes
    let claims = sealed(|b| header(b).shared_bytes = U64Le::new(4096));
    assert_eq!(read(&claims).unwrap_err(), PlanFileError::SharedBytesMismatch { stored: 4096, computed: 0 });
}

#[test]
fn an_empty_pre_placed_record_does_not_raise_the_floor() {
    // `w` (pre-placed) emptied and moved above the floor (16,384, the end of `y`), where `b`
    // ends: the floor stays (an empty record inside another record's bytes counts as a
    // collision, so it sits where nothing else is)
    let bytes = edited(0, "w", |r| {
        r.bytes = U64Le::new(0);
        r.aligned = U64Le::new(0);
        r.address = U64Le::new(28_672);
    });
    assert_eq!(read(&bytes).err(), None);
    // with a page it does: the stored floor is then wrong
    let bytes = edited(0, "w", |r| r.address = U64Le::new(28_672));
    assert_eq!(
        read(&bytes).unwrap_err(),
        PlanFileError::FloorMismatch { core: 0, stored: 16_384, computed: 32_768 }
    );
}

#[test]
fn collisions_are_named_on_core_1_and_in_address_order() {
    // core 1's `a` onto `x`: the records are named by their index in the whole file
    let bad = edited(1, "a", |r| r.address = U64Le::new(0));
    let want = PlanFileError::Collision { core: 1, a: 8, b: 10, tensor_a: t("x"), tensor_b: t("a") };
    assert_eq!(read(&bad).unwrap_err(), want);
    assert_eq!(PlanFile::parse(&bad).unwrap().validate(&mut []).unwrap_err(), want);
    // `w` (record 1, pre-placed) moved into `a` (record 2, at 16,384): the lower address
    // first, by both paths
    let bad = edited(0, "w", |r| r.address = U64Le::new(20_480));
    let want = PlanFileError::Collision { core: 0, a: 2, b: 1, tensor_a: t("a"), tensor_b: t("w") };
    assert_eq!(read(&bad).unwrap_err(), want);
    assert_eq!(PlanFile::parse(&bad).unwrap().validate(&mut []).unwrap_err(), want);
}

#[test]
fn an_end_past_64_bits_is_outside_the_window_and_says_it_overflows() {
    // `b` at 100 bytes under 2^64: its address plus its aligned size overflows
    let e = read(&edited(0, "b", |r| r.address = U64Le::new(u64::MAX - 100))).unwrap_err();
    let PlanFileError::OutsideWindow { record, tensor, end, window } = e else { panic!("{e:?}") };
    assert_eq!((end, window), (u64::MAX, WINDOW));
    assert_eq!(
        e.to_string(),
        format!(
            "record {record} (tensor {tensor}): its address plus its aligned size reaches 2^64 - 1 or overflows, \
             past the {WINDOW}-byte window"
        )
    );
    // an end that fits 64 bits is said as it is
    let e = read(&edited(0, "b", |r| r.address = U64Le::new(WINDOW))).unwrap_err();
    let PlanFileError::OutsideWindow { record, tensor, end, .. } = e else { panic!("{e:?}") };
    assert!(end > WINDOW && end < u64::MAX);
    assert_eq!(
        e.to_string(),
        format!("record {record} (tensor {tensor}) ends at {end}, past the {WINDOW}-byte window")
    );
}
