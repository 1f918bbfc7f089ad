//! The banked allocator's smaller public operations with exact values (issue 18: their mutants
//! were killed only by doctests or by the workspace suite, which the core's mutation run does
//! not see): the supported bank counts, shard limits, the L1 interleaved address limit,
//! `can_allocate`, `clear`, page locations, core ranges and the circular-buffer checks; the
//! grid checks of device and allocator ranges and the refusal of zero-size requests.

use dramalloc_core::banked::{
    is_supported_bank_count, BankConfig, BankManager, BankedError, BufferType, CircularBuffers, CoreRange,
    Layout, PageLocation, Policy,
};

const K: u64 = 1024;

fn config(buffer_type: BufferType, bottom_up: bool, address_limit: u64) -> BankConfig {
    BankConfig {
        buffer_type,
        num_banks: 4,
        bank_size: 64 * K,
        reserved: 0,
        page_alignment: 32,
        alignment: 32,
        policy: Policy::First,
        bottom_up,
        address_limit,
        offset_period: 2,
        offset_step: 1 << 20,
    }
}

#[test]
fn supported_bank_counts_are_the_powers_of_two_and_the_listed_grids() {
    let accepted: Vec<u32> = (0..=150).filter(|&n| is_supported_bank_count(n)).collect();
    let want = [
        1, 2, 4, 7, 8, 12, 16, 20, 32, 48, 56, 63, 64, 70, 72, 80, 94, 108, 110, 117, 120, 124, 126, 128,
        130, 140,
    ];
    assert_eq!(accepted, want);
    assert!(is_supported_bank_count(1 << 31));
    assert!(!is_supported_bank_count(u32::MAX));
}

#[test]
fn shards_go_up_to_the_bank_count() {
    let m = BankManager::<16>::new(config(BufferType::Dram, true, 0)).unwrap();
    assert_eq!(m.size_per_bank(8 * K, 2 * K, Layout::Sharded { cores: 4 }), Ok((2 * K, 4)));
    assert_eq!(
        m.size_per_bank(8 * K, 2 * K, Layout::Sharded { cores: 5 }),
        Err(BankedError::TooManyShards { shards: 5, banks: 4 })
    );
    // 0 shard cores is not "too many": its own error (this test pinned TooManyShards before)
    assert_eq!(
        m.size_per_bank(8 * K, 2 * K, Layout::Sharded { cores: 0 }),
        Err(BankedError::ZeroShards { banks: 4 })
    );
    assert_eq!(
        BankedError::ZeroShards { banks: 4 }.to_string(),
        "0 shard cores requested: a sharded buffer needs 1 to 4 shard cores (one per bank at most)"
    );
    assert_eq!(m.size_per_bank(8 * K, 2 * K, Layout::Interleaved), Ok((2 * K, 4)));
}

/// The address limit binds L1 interleaved buffers only: a top-down L1 buffer below it fails,
/// the same buffer sharded (or in DRAM) does not.
#[test]
fn the_l1_address_limit_binds_interleaved_buffers_only() {
    let mut l1 = BankManager::<16>::new(config(BufferType::L1, false, 63 * K)).unwrap();
    assert_eq!(
        l1.allocate(8 * K, 2 * K, Layout::Interleaved),
        Err(BankedError::BelowAddressLimit { address: 62 * K, limit: 63 * K })
    );
    assert_eq!(l1.allocate(8 * K, 2 * K, Layout::Sharded { cores: 4 }).map(|b| b.address), Ok(62 * K));
    let mut dram = BankManager::<16>::new(config(BufferType::Dram, false, 63 * K)).unwrap();
    assert_eq!(dram.allocate(8 * K, 2 * K, Layout::Interleaved).map(|b| b.address), Ok(62 * K));
}

#[test]
fn can_allocate_and_clear() {
    let mut m = BankManager::<16>::new(config(BufferType::Dram, true, 0)).unwrap();
    assert!(m.can_allocate(64 * K));
    assert!(!m.can_allocate(64 * K + 1));
    assert_eq!(m.allocate(4 * 48 * K, 48 * K, Layout::Interleaved).map(|b| b.address), Ok(0));
    assert!(m.can_allocate(16 * K));
    assert!(!m.can_allocate(16 * K + 1));
    m.clear();
    assert!(m.can_allocate(64 * K));
    assert_eq!(m.allocate(4 * K, K, Layout::Interleaved).map(|b| b.address), Ok(0));
}

/// Page `p` of an interleaved buffer lives in bank `p % 4` at `address + (p / 4) * page`;
/// its physical address adds the bank offset `(bank % 2) * 1 MiB`.
#[test]
fn page_locations_of_an_interleaved_buffer() {
    let m = BankManager::<16>::new(config(BufferType::Dram, true, 0)).unwrap();
    let got: Vec<PageLocation> = (0..9).map(|p| m.page_location(4096, p, 2 * K).unwrap()).collect();
    let want: Vec<PageLocation> = (0..9u64)
        .map(|p| {
            let (bank, address) = ((p % 4) as u32, 4096 + (p / 4) * 2 * K);
            PageLocation { bank, address, physical: address + u64::from(bank % 2) * (1 << 20) }
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(got[5], PageLocation { bank: 1, address: 4096 + 2 * K, physical: (1 << 20) + 4096 + 2 * K });
}

#[test]
fn core_range_counts_its_cores() {
    assert_eq!(CoreRange::core(3, 5).num_cores(), 1);
    assert_eq!(CoreRange::new(1, 2, 4, 3).num_cores(), 8); // 4 columns x 2 rows
    assert_eq!(CoreRange::new(0, 0, 7, 7).num_cores(), 64);
}

#[test]
fn circular_buffers_count_reject_empty_sizes_and_may_end_at_the_l1_size() {
    let mut cbs = CircularBuffers::<4>::new();
    assert_eq!((cbs.len(), cbs.is_empty()), (0, true));
    let a = cbs.add(CoreRange::core(0, 0), 4 * K, K).unwrap();
    assert_eq!((cbs.len(), cbs.is_empty()), (1, false));
    cbs.add(CoreRange::core(0, 0), 0, K).unwrap();
    assert_eq!(cbs.allocate(K, 32), Err(BankedError::CbPageSize { index: 1, total_size: 0, page_size: K }));
    assert_eq!(cbs.len(), 2);
    cbs.set_total_size(1, 4 * K).unwrap();
    // not allocated since: validation refuses rather than passing unplaced CBs unchecked
    let unplaced = BankedError::CbUnplaced { index: 0 };
    assert_eq!(cbs.validate(K, None), Err(unplaced));
    assert_eq!(
        unplaced.to_string(),
        "circular buffer 0 has no address: allocate the circular buffers before validating them"
    );
    cbs.allocate(K, 32).unwrap();
    assert_eq!((cbs.address(a), cbs.address(1)), (Ok(Some(K)), Ok(Some(5 * K))));
    // the region ends at 9 KiB: exactly the L1 size is allowed, one byte less is not
    assert_eq!(cbs.validate(9 * K, None), Ok(()));
    assert_eq!(
        cbs.validate(9 * K - 1, None),
        Err(BankedError::CbBeyondL1 {
            core_range: CoreRange::core(0, 0),
            region_end: 9 * K,
            l1_size: 9 * K - 1
        })
    );
}

#[test]
fn device_descriptors_align_the_l1_base_and_reject_full_reservations() {
    use dramalloc_core::banked::DeviceDescriptor;
    assert_eq!(DeviceDescriptor::blackhole(100).l1_unreserved_base, 128);
    assert_eq!(DeviceDescriptor::blackhole(128).l1_unreserved_base, 128);
    let custom = |alignment, base| DeviceDescriptor::custom(2, 64 * K, alignment, 32, 4, 16 * K, base, 16);
    assert_eq!(custom(32, 100).l1_unreserved_base, 128);
    assert_eq!(custom(0, 100).l1_unreserved_base, 100);
    // a reservation that fills the bank, or an unreserved base at the L1 size, is an error;
    // one alignment unit less leaves a bank of one unit. (This test pinned a bank of one byte
    // from a reservation of 64K - 1, off the 32-byte grid: that is now MisalignedConfig.)
    let full_dram = DeviceDescriptor { dram_reserved: 64 * K, ..custom(32, 0) };
    assert_eq!(
        full_dram.dram_config(),
        Err(BankedError::InvalidConfig { what: "dram_reserved", value: 64 * K })
    );
    let one = DeviceDescriptor { dram_reserved: 64 * K - 32, ..custom(32, 0) };
    assert_eq!(one.dram_config().map(|c| c.bank_size), Ok(32));
    let off = DeviceDescriptor { dram_reserved: 64 * K - 1, ..custom(32, 0) };
    assert_eq!(
        off.dram_config(),
        Err(BankedError::MisalignedConfig { what: "dram_reserved", value: 64 * K - 1, alignment: 32 })
    );
    let full_l1 = custom(32, 16 * K);
    assert_eq!(
        full_l1.l1_config(),
        Err(BankedError::InvalidConfig { what: "l1_unreserved_base", value: 16 * K })
    );
    let one = DeviceDescriptor { l1_unreserved_base: 16 * K - 32, ..custom(32, 0) };
    assert_eq!(one.l1_config().map(|c| c.bank_size), Ok(32));
    let off = DeviceDescriptor { l1_unreserved_base: 16 * K - 1, ..custom(32, 0) };
    assert_eq!(
        off.l1_config(),
        Err(BankedError::MisalignedConfig { what: "l1_unreserved_base", value: 16 * K - 1, alignment: 32 })
    );
}

/// An L1 base whose next multiple of the alignment passes `u64::MAX` is kept as given and
/// refused by `Device::new` as off the grid; the rounding overflowed before (a panic in debug
/// builds; in release a base of 0, which `Device::new` accepted: a fresh-user trial). The top
/// multiple itself is kept and refused as at or above the L1 size.
#[test]
fn an_l1_base_near_u64_max_is_refused_not_wrapped() {
    use dramalloc_core::banked::{Device, DeviceDescriptor};
    let mis = |value, alignment| {
        Err(BankedError::MisalignedConfig { what: "l1_unreserved_base", value, alignment })
    };
    let wh = DeviceDescriptor::wormhole(u64::MAX);
    assert_eq!(wh.l1_unreserved_base, u64::MAX);
    assert_eq!(Device::<16>::new(wh).map(|_| ()), mis(u64::MAX, 32));
    let bh = DeviceDescriptor::blackhole(u64::MAX - 62);
    assert_eq!(bh.l1_unreserved_base, u64::MAX - 62);
    assert_eq!(Device::<16>::new(bh).map(|_| ()), mis(u64::MAX - 62, 64));
    let top = u64::MAX - 31; // 2^64 - 32, on the grid
    let custom = DeviceDescriptor::custom(2, 64 * K, 32, 32, 4, 16 * K, top - 5, 16);
    assert_eq!(custom.l1_unreserved_base, top);
    assert_eq!(
        Device::<16>::new(custom).map(|_| ()),
        Err(BankedError::InvalidConfig { what: "l1_unreserved_base", value: top })
    );
}

/// Every region bound of a device must be on the DRAM-alignment grid (the allocators' grid):
/// the user trial's unaligned `l1_size` and `dram_reserved` gave addresses off it. Each key is
/// refused by name, with its value and the alignment; the L1 base is rounded up (as tt-metal
/// does), nothing else is.
#[test]
fn device_region_bounds_off_the_grid_are_refused_by_name() {
    use dramalloc_core::banked::{Device, DeviceDescriptor};
    let mis = |what, value, alignment| Err(BankedError::MisalignedConfig { what, value, alignment });
    // the trial: l1_size 1000, l1_base 100 (rounded to 128), DRAM and L1 alignment 32 / 16
    let trial = DeviceDescriptor::custom(2, 1 << 20, 32, 0, 2, 1000, 100, 16);
    assert_eq!(trial.l1_unreserved_base, 128);
    assert_eq!(Device::<16>::new(trial).map(|_| ()), mis("l1_size", 1000, 32));
    // the trial's DRAM: alignment 48 (not a power of two), reservation 5
    let dram = DeviceDescriptor::custom(2, 48 * K, 48, 5, 2, 1 << 20, 0, 16);
    assert_eq!(Device::<16>::new(dram).map(|_| ()), mis("dram_reserved", 5, 48));
    let size = DeviceDescriptor::custom(2, 1 << 20, 48, 48, 2, 48 * K, 0, 16);
    assert_eq!(Device::<16>::new(size).map(|_| ()), mis("dram_bank_size", 1 << 20, 48));
    let step = DeviceDescriptor { dram_offset_period: 2, dram_offset_step: 1000, ..trial };
    assert_eq!(step.dram_config().map(|_| ()), mis("dram_offset_step", 1000, 32));
    let zero = DeviceDescriptor { dram_alignment: 0, ..trial };
    assert_eq!(
        zero.dram_config().map(|_| ()),
        Err(BankedError::InvalidConfig { what: "dram_alignment", value: 0 })
    );
    assert_eq!(
        zero.l1_config().map(|_| ()),
        Err(BankedError::InvalidConfig { what: "dram_alignment", value: 0 })
    );
    assert_eq!(
        BankedError::MisalignedConfig { what: "l1_size", value: 1000, alignment: 32 }.to_string(),
        "invalid configuration: l1_size = 1000 is not a multiple of the alignment 32 \
         (every address the allocator hands out is on its alignment grid)"
    );
    // on the grid: L1 buffers top-down from 1024, DRAM bottom-up from 96, all multiples of 32/48
    let mut ok = Device::<16>::new(DeviceDescriptor { l1_size: 1024, ..trial }).unwrap();
    let x = ok.allocate(BufferType::L1, 64, 32, Layout::Interleaved).unwrap();
    let y = ok.allocate(BufferType::L1, 64, 32, Layout::Interleaved).unwrap();
    assert_eq!((x.address, y.address, x.size_per_bank), (992, 960, 32));
    let mut d48 = Device::<16>::new(DeviceDescriptor::custom(2, 48 * K, 48, 96, 2, 48 * K, 0, 16)).unwrap();
    let a = d48.allocate(BufferType::Dram, 96, 48, Layout::Interleaved).unwrap();
    let b = d48.allocate(BufferType::Dram, 96, 48, Layout::Interleaved).unwrap();
    assert_eq!((a.address, b.address, a.size_per_bank), (96, 144, 48));
}

/// A single free list: both ends of its range on the alignment grid, else refused by name.
#[test]
fn free_list_range_off_the_grid_is_refused_by_name() {
    use dramalloc_core::banked::{FreeList, FreeListConfig};
    let new =
        |size, offset, align| FreeList::<4>::new(FreeListConfig::new(size, offset, 1, align, Policy::First));
    let mis = |what, value, alignment| Err(BankedError::MisalignedConfig { what, value, alignment });
    assert_eq!(new(1000, 0, 32).map(|_| ()), mis("size", 1000, 32));
    assert_eq!(new(1024, 5, 4).map(|_| ()), mis("offset", 5, 4));
    assert_eq!(new(1000, 5, 4).map(|_| ()), mis("offset", 5, 4), "the offset is named first");
    assert_eq!(new(960, 48, 48).map(|f| (f.start(), f.end())), Ok((48, 1008)));
    // a bank manager's range goes through the same check
    let off = BankConfig { reserved: 16, ..config(BufferType::Dram, true, 0) };
    assert_eq!(BankManager::<4>::new(off).map(|_| ()), mis("offset", 16, 32));
}

/// A zero-size buffer or allocation is a typed error; nothing is allocated (the trial: 32
/// bytes a bank were taken and `per_bank=0` printed). tt-metal's `Buffer` refuses size 0.
#[test]
fn zero_size_buffers_and_allocations_are_refused() {
    use dramalloc_core::banked::{Device, DeviceDescriptor, FreeList, FreeListConfig};
    let mut dev =
        Device::<16>::new(DeviceDescriptor::custom(6, 1 << 20, 32, 0, 4, 1 << 20, 64 * K, 16)).unwrap();
    for (t, page) in [(BufferType::Dram, 100), (BufferType::L1, 32), (BufferType::Dram, 0)] {
        for layout in [Layout::Interleaved, Layout::Sharded { cores: 2 }] {
            assert_eq!(
                dev.allocate(t, 0, page, layout),
                Err(BankedError::ZeroSize { buffer_type: Some(t) }),
                "{t} page {page} {layout:?}"
            );
        }
        assert_eq!(dev.bank(t).statistics().allocated, 0);
        assert_eq!(dev.bank(t).statistics().allocated_blocks, 0);
    }
    assert_eq!(dev.allocate(BufferType::Dram, 400, 100, Layout::Interleaved).map(|b| b.address), Ok(0));
    assert_eq!(dev.bank(BufferType::Dram).statistics().allocated, 128);
    assert_eq!(
        BankedError::ZeroSize { buffer_type: Some(BufferType::L1) }.to_string(),
        "size 0 B: an L1 buffer holds at least one byte"
    );
    assert_eq!(
        BankedError::ZeroSize { buffer_type: Some(BufferType::Dram) }.to_string(),
        "size 0 B: a DRAM buffer holds at least one byte"
    );
    // the single free list
    let mut fl = FreeList::<4>::new(FreeListConfig::new(1 << 20, 0, 1, 1, Policy::First)).unwrap();
    let zero = Err(BankedError::ZeroSize { buffer_type: None });
    assert_eq!(fl.allocate(0, true), zero);
    assert_eq!(fl.allocate(0, false), zero);
    assert_eq!(fl.allocate_with_limit(0, true, 0), zero);
    assert_eq!(fl.allocate_at(0, 0), zero);
    assert_eq!((fl.find(0, true), fl.find(0, false), fl.can_allocate(0)), (None, None, false));
    assert_eq!((fl.statistics().allocated, fl.statistics().allocated_blocks), (0, 0));
    assert_eq!(
        BankedError::ZeroSize { buffer_type: None }.to_string(),
        "size 0 B: an allocation holds at least one byte"
    );
    assert_eq!(fl.allocate(1, true), Ok(0));
}

/// A device's deallocate returns the freed per-bank size and frees it; clear frees both types.
#[test]
fn device_deallocate_returns_the_per_bank_size_and_clear_frees_both_types() {
    use dramalloc_core::banked::{Device, DeviceDescriptor};
    let mut dev = Device::<16>::new(DeviceDescriptor::custom(2, 64 * K, 32, 32, 4, 16 * K, 0, 16)).unwrap();
    let d = dev.allocate(BufferType::Dram, 8 * K, 2 * K, Layout::Interleaved).unwrap();
    let l = dev.allocate(BufferType::L1, 8 * K, 2 * K, Layout::Interleaved).unwrap();
    assert_eq!((d.address, d.size_per_bank, l.address, l.size_per_bank), (32, 4 * K, 14 * K, 2 * K));
    assert_eq!(dev.deallocate(BufferType::Dram, d.address), Ok(4 * K));
    assert_eq!(dev.deallocate(BufferType::Dram, d.address), Err(BankedError::DoubleFree { address: 32 }));
    assert_eq!(dev.lowest_l1_address(), Some(14 * K));
    dev.allocate(BufferType::Dram, 8 * K, 2 * K, Layout::Interleaved).unwrap();
    dev.clear();
    assert_eq!(dev.lowest_l1_address(), None);
    assert_eq!(dev.bank(BufferType::Dram).allocator().statistics().allocated, 0);
}
