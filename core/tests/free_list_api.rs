//! The banked free list's public operations with exact values (issue 18: mutants of
//! `find`, `can_allocate`, the address limit, `allocate_at`, `free` classification, shrink,
//! reset, statistics and the iterators were killed only by doctests or not at all). Every
//! allocator here sits at a non-zero offset, so a lost `+ offset` shows.

use dramalloc_core::banked::{
    BankedError, BlockInfo, FreeList, FreeListConfig, OomKind, OutOfMemory, Policy, Statistics,
};

const K: u64 = 1024;
const O: u64 = 1 << 20;

fn fl(size: u64, policy: Policy) -> FreeList<16> {
    FreeList::new(FreeListConfig::new(size, O, K, K, policy)).unwrap()
}

#[test]
fn new_rejects_bad_configs_exactly() {
    let bad =
        |size, offset, align| FreeList::<4>::new(FreeListConfig::new(size, offset, 1, align, Policy::First));
    assert_eq!(bad(0, 0, 1).unwrap_err(), BankedError::InvalidConfig { what: "size", value: 0 });
    assert_eq!(bad(1, 0, 0).unwrap_err(), BankedError::InvalidConfig { what: "alignment", value: 0 });
    // the range's end beyond 2^57, and beyond 64 bits: each message says which, with the values
    let e = bad(2, (1 << 57) - 1, 1).unwrap_err();
    assert_eq!(e, BankedError::RangeTooLarge { offset: (1 << 57) - 1, size: 2, limit: 1 << 57 });
    assert_eq!(
        e.to_string(),
        "invalid configuration: offset 144115188075855871 + size 2 = 144115188075855873 is beyond \
         the address limit 144115188075855872 (2^57)"
    );
    let e = bad(u64::MAX, 0, 1).unwrap_err();
    assert_eq!(e, BankedError::RangeTooLarge { offset: 0, size: u64::MAX, limit: 1 << 57 });
    assert_eq!(
        e.to_string(),
        "invalid configuration: offset 0 + size 18446744073709551615 = 18446744073709551615 is \
         beyond the address limit 144115188075855872 (2^57)"
    );
    for (size, offset) in [(2, u64::MAX), (u64::MAX, 1)] {
        let e = bad(size, offset, 1).unwrap_err();
        assert_eq!(e, BankedError::RangeTooLarge { offset, size, limit: 1 << 57 });
        assert_eq!(
            e.to_string(),
            format!("invalid configuration: offset {offset} + size {size} overflows 64 bits")
        );
    }
    // a limit that is not a power of two is printed without the exponent
    let odd = BankedError::RangeTooLarge { offset: 1, size: 3, limit: 3 };
    assert_eq!(odd.to_string(), "invalid configuration: offset 1 + size 3 = 4 is beyond the address limit 3");
    // Exactly MAX_ADDRESS is allowed.
    let f = bad(1, (1 << 57) - 1, 1).unwrap();
    assert_eq!((f.start(), f.end()), ((1 << 57) - 1, 1 << 57));
    assert_eq!(f.config().size, 1);
}

#[test]
fn alloc_size_rounds_to_min_then_alignment() {
    let f = FreeList::<4>::new(FreeListConfig::new(1 << 20, 0, 3000, 1024, Policy::First)).unwrap();
    assert_eq!([0, 1, 3000, 3072, 3073].map(|s| f.alloc_size(s).unwrap()), [3072, 3072, 3072, 3072, 4096]);
    assert_eq!(f.alloc_size(u64::MAX), Err(BankedError::Overflow { value: u64::MAX }));
    let f = FreeList::<4>::new(FreeListConfig::new(1 << 20, 0, 0, 1, Policy::First)).unwrap();
    assert_eq!([0, 1, 7].map(|s| f.alloc_size(s).unwrap()), [1, 1, 7]);
    assert_eq!(f.alloc_size(u64::MAX), Ok(u64::MAX));
}

#[test]
fn find_and_can_allocate() {
    let mut f = fl(8 * K, Policy::First);
    assert_eq!(f.find(1, true), Some(O));
    assert_eq!(f.find(1, false), Some(O + 7 * K));
    assert_eq!(f.find(8 * K, false), Some(O));
    assert_eq!(f.find(8 * K + 1, true), None);
    assert_eq!(f.find(u64::MAX, true), None);
    assert!(f.can_allocate(8 * K));
    assert!(!f.can_allocate(8 * K + 1));
    assert_eq!(f.allocate_at(O + 2 * K, K), Ok(O + 2 * K));
    // Free: [0,2K) and [3K,8K): 5K fits, 6K does not (6K free in total: fragmented).
    assert!(f.can_allocate(5 * K));
    assert!(!f.can_allocate(6 * K));
    assert_eq!(f.find(2 * K, true), Some(O));
    assert_eq!(f.find(3 * K, true), Some(O + 3 * K));
    assert_eq!(f.find(3 * K, false), Some(O + 5 * K));
    // find changed nothing.
    assert_eq!(f.statistics().allocated_blocks, 1);
}

#[test]
fn out_of_memory_is_classified_with_exact_figures() {
    let mut f = fl(8 * K, Policy::First);
    f.allocate_at(O + 2 * K, K).unwrap();
    let oom = |request, per_bank, largest, kind| {
        BankedError::OutOfMemory(OutOfMemory {
            buffer_type: None,
            request,
            num_banks: 1,
            per_bank,
            bank_size: 8 * K,
            allocated: K,
            free: 7 * K,
            largest_free: largest,
            kind,
        })
    };
    assert_eq!(f.allocate(6 * K - 5, true), Err(oom(6 * K - 5, 6 * K, 5 * K, OomKind::Fragmented)));
    assert_eq!(f.allocate(7 * K, false), Err(oom(7 * K, 7 * K, 5 * K, OomKind::Fragmented)));
    assert_eq!(f.allocate(7 * K + 1, false), Err(oom(7 * K + 1, 8 * K, 5 * K, OomKind::Full)));
}

#[test]
fn allocate_with_limit() {
    let mut f = fl(8 * K, Policy::First);
    assert_eq!(
        f.allocate_with_limit(K, true, O + 1),
        Err(BankedError::BelowAddressLimit { address: O, limit: O + 1 })
    );
    assert_eq!(f.statistics().allocated_blocks, 0, "nothing allocated on the error");
    assert_eq!(f.allocate_with_limit(K, true, O), Ok(O));
    assert_eq!(f.allocate_with_limit(K, false, O + 7 * K), Ok(O + 7 * K));
    assert_eq!(
        f.allocate_with_limit(K, false, O + 7 * K),
        Err(BankedError::BelowAddressLimit { address: O + 6 * K, limit: O + 7 * K })
    );
}

#[test]
fn allocate_at_errors_name_the_conflict_and_the_range() {
    let mut f = fl(16 * K, Policy::First);
    assert_eq!(f.allocate_at(O + 4 * K, 2 * K), Ok(O + 4 * K));
    assert_eq!(f.allocate_at(O + 8 * K, K), Ok(O + 8 * K));
    let overlap =
        |address, size, c, cs| BankedError::Overlap { address, size, conflict_address: c, conflict_size: cs };
    // Starts inside the first block.
    assert_eq!(f.allocate_at(O + 5 * K, K), Err(overlap(O + 5 * K, K, O + 4 * K, 2 * K)));
    // Starts free, runs into the next block.
    assert_eq!(f.allocate_at(O + 3 * K, 2 * K), Err(overlap(O + 3 * K, 2 * K, O + 4 * K, 2 * K)));
    assert_eq!(f.allocate_at(O + 7 * K, 2 * K), Err(overlap(O + 7 * K, 2 * K, O + 8 * K, K)));
    // Starts inside the second allocated block of a run of two (the walk passes the first).
    assert_eq!(f.allocate_at(O + 6 * K, 2 * K), Ok(O + 6 * K));
    assert_eq!(f.allocate_at(O + 7 * K, K), Err(overlap(O + 7 * K, K, O + 6 * K, 2 * K)));
    assert_eq!(f.allocate_at(O + 8 * K, K), Err(overlap(O + 8 * K, K, O + 8 * K, K)));
    // Exactly filling a gap: [3K,4K).
    assert_eq!(f.allocate_at(O + 3 * K, K), Ok(O + 3 * K));
    let range = |address, size| BankedError::OutOfRange { address, size, start: O, end: O + 16 * K };
    assert_eq!(f.allocate_at(O - K, K), Err(range(O - K, K)));
    assert_eq!(f.allocate_at(O + 15 * K + 1, K), Err(range(O + 15 * K + 1, K)));
    assert_eq!(f.allocate_at(u64::MAX, K), Err(range(u64::MAX, K)));
    assert_eq!(f.allocate_at(O + 15 * K, K), Ok(O + 15 * K), "the last unit");
    // Below a shrink.
    f.shrink(2 * K).unwrap();
    assert_eq!(
        f.allocate_at(O + K, K),
        Err(BankedError::OutOfRange { address: O + K, size: K, start: O + 2 * K, end: O + 16 * K })
    );
    assert_eq!(f.allocate_at(O + 2 * K, K), Ok(O + 2 * K));
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn free_merges_and_classifies_bad_frees() {
    let mut f = fl(8 * K, Policy::Best);
    for k in 0..4 {
        assert_eq!(f.allocate(K, true), Ok(O + k * K));
    }
    assert_eq!(f.allocation_size(O + K), Some(K));
    assert_eq!(f.allocation_size(O + K + 1), None);
    assert_eq!(f.allocation_size(O - 1), None);
    // Free 1 (no free neighbour), then 0 (free next), 3 (free next: the tail), 2 (both).
    assert_eq!(f.free(O + K), Ok(K));
    assert_eq!(f.statistics().free_blocks, 2);
    assert_eq!(f.free(O), Ok(K));
    assert_eq!(f.free(O + 3 * K), Ok(K));
    assert_eq!(f.statistics().free_blocks, 2);
    assert_eq!(f.free(O + 2 * K), Ok(K));
    assert_eq!(f.statistics().free_blocks, 1);
    assert_eq!(f.check_invariants(), Ok(()));
    assert_eq!(f.free(O), Err(BankedError::DoubleFree { address: O }));
    assert_eq!(f.free(O + 8 * K - 1), Err(BankedError::DoubleFree { address: O + 8 * K - 1 }));
    assert_eq!(f.free(O + 8 * K), Err(BankedError::UnknownFree { address: O + 8 * K }));
    assert_eq!(f.free(O - 1), Err(BankedError::UnknownFree { address: O - 1 }));
    // Inside an allocation: unknown, not double.
    f.allocate(2 * K, true).unwrap();
    assert_eq!(f.free(O + K), Err(BankedError::UnknownFree { address: O + K }));
    assert_eq!(f.free(O + 2 * K), Err(BankedError::DoubleFree { address: O + 2 * K }));
    // Below a shrink: unknown.
    f.free(O).unwrap();
    f.shrink(K).unwrap();
    assert_eq!(f.free(O), Err(BankedError::UnknownFree { address: O }));
}

#[test]
fn prev_free_merge_keeps_the_lower_block() {
    // [A][B] then free A, free B: B merges into the free block before it.
    let mut f = fl(4 * K, Policy::First);
    assert_eq!(f.allocate(K, true), Ok(O));
    assert_eq!(f.allocate(K, true), Ok(O + K));
    assert_eq!(f.allocate(K, true), Ok(O + 2 * K));
    f.free(O).unwrap();
    f.free(O + K).unwrap();
    let blocks: Vec<BlockInfo> = f.blocks().collect();
    assert_eq!(
        blocks,
        [
            BlockInfo { address: O, size: 2 * K, allocated: false },
            BlockInfo { address: O + 2 * K, size: K, allocated: true },
            BlockInfo { address: O + 3 * K, size: K, allocated: false },
        ]
    );
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn shrink_and_reset_exact() {
    let mut f = fl(8 * K, Policy::First);
    assert_eq!(f.shrink(0), Ok(()));
    assert_eq!(f.shrink(8 * K), Err(BankedError::ShrinkTooLarge { bytes: 8 * K, max_size: 8 * K }));
    assert_eq!(f.shrink(2 * K), Ok(()));
    assert_eq!(f.start(), O + 2 * K);
    assert_eq!(f.shrink(6 * K), Err(BankedError::ShrinkTooLarge { bytes: 6 * K, max_size: 6 * K }));
    assert_eq!(f.allocate_at(O + 4 * K, K), Ok(O + 4 * K));
    assert_eq!(f.shrink(2 * K), Ok(()), "up to the allocation exactly");
    assert_eq!(f.shrink(K), Err(BankedError::ShrinkPastAllocation { bytes: K, address: O + 4 * K }));
    // off the 1 KiB grid (a fresh-user trial: `shrink(33)` at alignment 32 was accepted)
    let misaligned = |value| Err(BankedError::MisalignedConfig { what: "shrink", value, alignment: K });
    assert_eq!(f.shrink(1), misaligned(1));
    assert_eq!(f.shrink(K + 1), misaligned(K + 1));
    assert_eq!(f.start(), O + 4 * K, "nothing changed");
    assert_eq!(f.lowest_occupied_address(), Some(O + 4 * K));
    let st = f.statistics();
    assert_eq!((st.total, st.allocated, st.free, st.free_blocks), (4 * K, K, 3 * K, 1));
    assert_eq!(f.check_invariants(), Ok(()));
    // Reset with an allocated lowest block: a new free block is linked before it.
    assert_eq!(f.reset(), Ok(()));
    assert_eq!(f.start(), O);
    assert_eq!(f.statistics().free_blocks, 2);
    assert_eq!(f.find(4 * K, true), Some(O));
    assert_eq!(f.reset(), Ok(()), "no shrink: nothing to undo");
    // Reset with a free lowest block: it grows back.
    f.shrink(K).unwrap();
    f.reset().unwrap();
    assert_eq!(f.blocks().next(), Some(BlockInfo { address: O, size: 4 * K, allocated: false }));
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn reset_needs_a_table_slot() {
    // Two slots: [alloc][free] after a shrink up to the allocation; reset needs a third.
    let mut f = FreeList::<2>::new(FreeListConfig::new(4 * K, O, K, K, Policy::First)).unwrap();
    f.shrink(K).unwrap();
    assert_eq!(f.allocate(K, true), Ok(O + K));
    assert_eq!(f.reset(), Err(BankedError::CapacityExhausted { table: "block table", capacity: 2 }));
    assert_eq!(f.start(), O + K, "unchanged on error");
    f.free(O + K).unwrap();
    assert_eq!(f.reset(), Ok(()));
    assert_eq!(f.start(), O);
}

#[test]
fn statistics_and_iterators_exact() {
    let mut f = fl(8 * K, Policy::First);
    let st = f.statistics();
    assert_eq!(
        st,
        Statistics {
            total: 8 * K,
            allocated: 0,
            free: 8 * K,
            largest_free: 8 * K,
            largest_free_address: Some(O),
            free_blocks: 1,
            allocated_blocks: 0
        }
    );
    f.allocate_at(O + K, K).unwrap();
    f.allocate_at(O + 5 * K, 3 * K).unwrap();
    // Free [0,1K) and [2K,5K).
    let st = f.statistics();
    assert_eq!(
        st,
        Statistics {
            total: 8 * K,
            allocated: 4 * K,
            free: 4 * K,
            largest_free: 3 * K,
            largest_free_address: Some(O + 2 * K),
            free_blocks: 2,
            allocated_blocks: 2
        }
    );
    assert_eq!(f.available_addresses(1).collect::<Vec<_>>(), [(O, O + K), (O + 2 * K, O + 5 * K)]);
    assert_eq!(f.available_addresses(K + 1).collect::<Vec<_>>(), [(O + 2 * K, O + 5 * K)]);
    assert_eq!(f.available_addresses(u64::MAX).count(), 0);
    assert_eq!(f.allocated_addresses().collect::<Vec<_>>(), [(O + K, O + 2 * K), (O + 5 * K, O + 8 * K)]);
    assert_eq!(f.lowest_occupied_address(), Some(O + K));
    // Full: no free block, no largest address.
    f.allocate_at(O, K).unwrap();
    f.allocate_at(O + 2 * K, 3 * K).unwrap();
    let st = f.statistics();
    assert_eq!((st.free, st.largest_free, st.largest_free_address, st.free_blocks), (0, 0, None, 0));
    assert_eq!(f.lowest_occupied_address(), Some(O));
    f.clear();
    assert_eq!(f.lowest_occupied_address(), None);
    assert_eq!(f.statistics().free_blocks, 1);
}

#[test]
fn best_fit_picks_the_smallest_gap_with_exact_ties() {
    let mut f = fl(16 * K, Policy::Best);
    // Gaps after this: [0,3K) [4K,6K) [7K,9K) [10K,16K).
    for at in [3, 6, 9] {
        f.allocate_at(O + at * K, K).unwrap();
    }
    assert_eq!(f.find(2 * K, true), Some(O + 4 * K), "smallest gap, lowest of the tie");
    assert_eq!(f.find(2 * K, false), Some(O + 7 * K), "top-down: highest of the tie");
    assert_eq!(f.find(3 * K, true), Some(O));
    assert_eq!(f.find(4 * K, true), Some(O + 10 * K));
    assert_eq!(f.find(4 * K, false), Some(O + 12 * K));
    let mut g = fl(16 * K, Policy::First);
    for at in [3, 6, 9] {
        g.allocate_at(O + at * K, K).unwrap();
    }
    assert_eq!(g.find(2 * K, true), Some(O));
    assert_eq!(g.find(2 * K, false), Some(O + 14 * K));
}

/// A bad free inside an allocation that lies above a free block is unknown, not double (the
/// free block below does not reach it); one at the range's end, with the tail free, is unknown
/// too (the tail ends there); one past the end or below a shrink is unknown.
#[test]
fn a_bad_free_above_a_free_block_is_unknown() {
    let mut f = fl(8 * K, Policy::First);
    for k in 0..3 {
        assert_eq!(f.allocate(K, true), Ok(O + k * K));
    }
    assert_eq!(f.free(O + K), Ok(K)); // [A alloc][free][C alloc][tail free]
    assert_eq!(f.free(O + 2 * K + 512), Err(BankedError::UnknownFree { address: O + 2 * K + 512 }));
    assert_eq!(f.free(O + 2 * K - 1), Err(BankedError::DoubleFree { address: O + 2 * K - 1 }));
    assert_eq!(f.free(O + 8 * K), Err(BankedError::UnknownFree { address: O + 8 * K }));
    assert_eq!(f.free(O + 8 * K - 1), Err(BankedError::DoubleFree { address: O + 8 * K - 1 }));
    assert_eq!(f.free(u64::MAX), Err(BankedError::UnknownFree { address: u64::MAX }));
    assert_eq!(f.free(O), Ok(K));
    f.shrink(2 * K).unwrap();
    assert_eq!(f.free(O + K), Err(BankedError::UnknownFree { address: O + K }));
}

/// An out-of-memory error after a shrink counts the shrunk range only: `bank_size` and `free`
/// are the size less the shrink.
#[test]
fn out_of_memory_after_a_shrink_reports_the_shrunk_range() {
    let mut f = fl(8 * K, Policy::First);
    f.shrink(2 * K).unwrap();
    assert_eq!(f.allocate(K, true), Ok(O + 2 * K));
    assert_eq!(
        f.allocate(6 * K, true),
        Err(BankedError::OutOfMemory(OutOfMemory {
            buffer_type: None,
            request: 6 * K,
            num_banks: 1,
            per_bank: 6 * K,
            bank_size: 6 * K,
            allocated: K,
            free: 5 * K,
            largest_free: 5 * K,
            kind: OomKind::Full,
        }))
    );
}

/// `allocate_at` off the grid is refused, as `shrink` off it is: a block at 33 with alignment
/// 32 made the next `allocate` above it return 65 (a fresh-user trial). Nothing changes; on
/// the grid it allocates.
#[test]
fn allocate_at_off_the_grid_is_refused() {
    let mut f = FreeList::<8>::new(FreeListConfig::new(1024, 0, 32, 32, Policy::First)).unwrap();
    assert_eq!(
        f.allocate_at(33, 1),
        Err(BankedError::MisalignedConfig { what: "address", value: 33, alignment: 32 })
    );
    assert_eq!(f.statistics().allocated, 0);
    assert_eq!((f.allocate_at(64, 1), f.allocate(1, true), f.allocate(1, true)), (Ok(64), Ok(0), Ok(32)));
    assert_eq!(f.allocate(1, true), Ok(96));
    assert_eq!(f.check_invariants(), Ok(()));
}
