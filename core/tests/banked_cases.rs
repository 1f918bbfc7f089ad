//! Every scenario of `cases-banked.md` (sections A–D) with its exact addresses and statistics.
//! The invariant walker runs after every mutation.

use dramalloc_core::banked::{
    size_per_bank, BankConfig, BankManager, BankedError, BlockInfo, BufferType, CircularBuffers, CoreRange,
    Device, DeviceDescriptor, FreeList, FreeListConfig, Layout, OomKind, Policy, Statistics,
    WORMHOLE_L1_SIZE,
};

type R = Result<(), BankedError>;

const K: u64 = 1024;
const M: u64 = 1024 * K;
const G: u64 = 1024 * M;

type Fl = FreeList<256>;

fn flo(size: u64, offset: u64, min: u64, align: u64, policy: Policy) -> Result<Fl, BankedError> {
    FreeList::new(FreeListConfig::new(size, offset, min, align, policy))
}

/// FLO(1 G, 0, 1 K, 1 K) with the given policy.
fn default_flo(policy: Policy) -> Result<Fl, BankedError> {
    flo(G, 0, K, K, policy)
}

fn inv(fl: &Fl) {
    if let Err(e) = fl.check_invariants() {
        panic!("invariant violated: {e}");
    }
}

fn a(fl: &mut Fl, size: u64) -> Result<u64, BankedError> {
    let r = fl.allocate(size, true);
    inv(fl);
    r
}

fn d(fl: &mut Fl, size: u64) -> Result<u64, BankedError> {
    let r = fl.allocate(size, false);
    inv(fl);
    r
}

fn at(fl: &mut Fl, addr: u64, size: u64) -> Result<u64, BankedError> {
    let r = fl.allocate_at(addr, size);
    inv(fl);
    r
}

fn free(fl: &mut Fl, addr: u64) -> Result<u64, BankedError> {
    let r = fl.free(addr);
    inv(fl);
    r
}

fn stats4(fl: &Fl) -> (u64, u64, u64, u64) {
    let s = fl.statistics();
    (s.total, s.allocated, s.free, s.largest_free)
}

fn is_oom(r: Result<u64, BankedError>) -> bool {
    matches!(r, Err(BankedError::OutOfMemory(_)))
}

fn avail(fl: &Fl, size: u64) -> Vec<(u64, u64)> {
    fl.available_addresses(size).collect()
}

fn allocated(fl: &Fl) -> Vec<(u64, u64)> {
    fl.allocated_addresses().collect()
}

fn both() -> [Policy; 2] {
    [Policy::First, Policy::Best]
}

// ---------------------------------------------------------------- A. single free list

#[test]
fn p01_sequential() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        assert_eq!(a(&mut fl, K)?, 0);
        assert_eq!(a(&mut fl, K)?, K);
    }
    Ok(())
}

#[test]
fn p02_alignment_rounds_the_size() -> R {
    for p in both() {
        let mut fl = flo(G, 0, 1, K, p)?;
        assert_eq!(a(&mut fl, 64)?, 0);
        assert_eq!(a(&mut fl, 64)?, K);
    }
    Ok(())
}

#[test]
fn p03_minimum_rounds_the_size() -> R {
    for p in both() {
        let mut fl = flo(G, 0, K, 1, p)?;
        assert_eq!(a(&mut fl, 1)?, 0);
        assert_eq!(a(&mut fl, 1)?, K);
    }
    Ok(())
}

#[test]
fn p04_clear() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        a(&mut fl, K)?;
        a(&mut fl, K)?;
        fl.clear();
        inv(&fl);
        assert_eq!(a(&mut fl, K)?, 0);
    }
    Ok(())
}

#[test]
fn p05_churn() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let expect: Vec<u64> = (0..10).map(|i| i * K).collect();
        let got: Vec<u64> = (0..10).map(|_| a(&mut fl, K)).collect::<Result<_, _>>()?;
        assert_eq!(got, expect);
        for &x in expect.iter().rev() {
            assert_eq!(free(&mut fl, x)?, K);
        }
        let got: Vec<u64> = (0..10).map(|_| a(&mut fl, K)).collect::<Result<_, _>>()?;
        assert_eq!(got, expect);
        for &x in &expect {
            free(&mut fl, x)?;
        }
        assert_eq!(stats4(&fl), (G, 0, G, G));
    }
    Ok(())
}

#[test]
fn p06_allocate_at_address() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        assert_eq!(a(&mut fl, K)?, 0);
        assert_eq!(at(&mut fl, K, K)?, K);
        assert_eq!(
            at(&mut fl, K, K),
            Err(BankedError::Overlap { address: K, size: K, conflict_address: K, conflict_size: K })
        );
        assert_eq!(at(&mut fl, 2 * K, K)?, 2 * K);
        free(&mut fl, 0)?;
        assert_eq!(at(&mut fl, 0, K)?, 0);
    }
    Ok(())
}

#[test]
fn p08_wedge_first() -> R {
    let mut fl = default_flo(Policy::First)?;
    assert_eq!(at(&mut fl, 32 * K, K)?, 32 * K);
    assert_eq!(a(&mut fl, K)?, 0);
    assert_eq!(d(&mut fl, K)?, G - K);
    assert_eq!(a(&mut fl, K)?, K);
    Ok(())
}

#[test]
fn p08_wedge_best_takes_the_smallest_block() -> R {
    // Our BEST: smallest fitting block; top-down takes its end. [1K, 32K) beats [33K, 1G).
    let mut fl = default_flo(Policy::Best)?;
    assert_eq!(at(&mut fl, 32 * K, K)?, 32 * K);
    assert_eq!(a(&mut fl, K)?, 0);
    assert_eq!(d(&mut fl, K)?, 31 * K);
    assert_eq!(a(&mut fl, K)?, K);
    Ok(())
}

#[test]
fn p09_shrink_then_reset() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let x = a(&mut fl, K)?;
        let y = a(&mut fl, K)?;
        assert_eq!((x, y), (0, K));
        free(&mut fl, x)?;
        fl.shrink(K)?;
        inv(&fl);
        assert_eq!(at(&mut fl, 0, K), Err(BankedError::OutOfRange { address: 0, size: K, start: K, end: G }));
        assert!(matches!(at(&mut fl, K, K), Err(BankedError::Overlap { conflict_address: K, .. })));
        fl.reset()?;
        inv(&fl);
        free(&mut fl, y)?;
        assert_eq!(a(&mut fl, 2 * K)?, 0);
    }
    Ok(())
}

#[test]
fn p10_shrink_by_full_capacity_is_rejected() -> R {
    let mut fl = default_flo(Policy::First)?;
    let before_stats = fl.statistics();
    let before_blocks: Vec<BlockInfo> = fl.blocks().collect();
    let e = fl.shrink(G);
    assert_eq!(e, Err(BankedError::ShrinkTooLarge { bytes: G, max_size: G }));
    if let Err(e) = e {
        assert!(e.to_string().contains("must be smaller than max size"));
    }
    assert_eq!(fl.statistics(), before_stats);
    assert_eq!(fl.blocks().collect::<Vec<_>>(), before_blocks);
    inv(&fl);
    Ok(())
}

#[test]
fn p11_shrink_consumes_leading_free_block() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        assert_eq!(d(&mut fl, K)?, G - K);
        fl.shrink(G - K)?;
        inv(&fl);
        assert!(is_oom(a(&mut fl, K)));
        fl.reset()?;
        inv(&fl);
        assert_eq!(a(&mut fl, G - K)?, 0);
    }
    Ok(())
}

#[test]
fn p12_statistics() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let x = a(&mut fl, K)?;
        a(&mut fl, K)?;
        free(&mut fl, x)?;
        assert_eq!(stats4(&fl), (G, K, G - K, G - 2 * K));
    }
    Ok(())
}

#[test]
fn p13_top_down() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        assert_eq!(d(&mut fl, K)?, G - K);
        assert_eq!(d(&mut fl, K)?, G - 2 * K);
        assert_eq!(a(&mut fl, K)?, 0);
    }
    Ok(())
}

#[test]
fn p14_coalescing() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let (x, y, z) = (a(&mut fl, K)?, a(&mut fl, K)?, a(&mut fl, K)?);
        assert_eq!((x, y, z), (0, K, 2 * K));
        free(&mut fl, y)?;
        free(&mut fl, x)?;
        assert_eq!(a(&mut fl, 2 * K)?, 0);
    }
    Ok(())
}

#[test]
fn p15_coalescing_after_shrink_reset() -> R {
    for with_alloc_while_shrunk in [false, true] {
        let mut fl = default_flo(Policy::First)?;
        let (x, y, _z) = (a(&mut fl, K)?, a(&mut fl, K)?, a(&mut fl, K)?);
        free(&mut fl, y)?;
        free(&mut fl, x)?;
        fl.shrink(K)?;
        inv(&fl);
        if with_alloc_while_shrunk {
            assert_eq!(a(&mut fl, 2 * K)?, 3 * K);
        }
        fl.reset()?;
        inv(&fl);
        assert_eq!(a(&mut fl, 2 * K)?, 0);
    }
    Ok(())
}

#[test]
fn p16_out_of_memory() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        assert_eq!(a(&mut fl, G)?, 0);
        let e = a(&mut fl, K);
        assert!(matches!(e, Err(BankedError::OutOfMemory(o)) if o.kind == OomKind::Full && o.free == 0));
        fl.clear();
        assert_eq!(a(&mut fl, G - K)?, 0);
        let e = a(&mut fl, 2 * K);
        assert!(matches!(e, Err(BankedError::OutOfMemory(o))
            if o.kind == OomKind::Full && o.free == K && o.per_bank == 2 * K && o.largest_free == K));
    }
    Ok(())
}

#[test]
fn p17_available_addresses() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        a(&mut fl, K)?;
        assert_eq!(avail(&fl, K), [(K, G)]);
        fl.clear();
        let (_x, y, _z) = (a(&mut fl, K)?, a(&mut fl, K)?, a(&mut fl, K)?);
        free(&mut fl, y)?;
        assert_eq!(avail(&fl, K), [(K, 2 * K), (3 * K, G)]);
        assert_eq!(avail(&fl, 10 * K), [(3 * K, G)]);
    }
    Ok(())
}

#[test]
fn p18_lowest_occupied() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let (x, y, z) = (a(&mut fl, K)?, a(&mut fl, K)?, a(&mut fl, K)?);
        assert_eq!(fl.lowest_occupied_address(), Some(0));
        free(&mut fl, x)?;
        assert_eq!(fl.lowest_occupied_address(), Some(K));
        free(&mut fl, y)?;
        assert_eq!(fl.lowest_occupied_address(), Some(2 * K));
        free(&mut fl, z)?;
        assert_eq!(fl.lowest_occupied_address(), None);
    }
    Ok(())
}

#[test]
fn p19_lowest_occupied_with_allocate_at() -> R {
    let mut fl = default_flo(Policy::First)?;
    assert_eq!(at(&mut fl, K, K)?, K);
    assert_eq!(fl.lowest_occupied_address(), Some(K));
    free(&mut fl, K)?;
    assert_eq!(fl.lowest_occupied_address(), None);
    Ok(())
}

#[test]
fn p21_reallocate_at_same_address_after_free() -> R {
    let mut fl = default_flo(Policy::First)?;
    assert_eq!(at(&mut fl, K, K)?, K);
    free(&mut fl, K)?;
    assert_eq!(at(&mut fl, K, K)?, K);
    Ok(())
}

#[test]
fn p22_order_of_allocated_addresses() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let big = d(&mut fl, 512 * K)?;
        assert_eq!(big, G - 512 * K);
        assert_eq!(a(&mut fl, 2 * K)?, 0);
        assert_eq!(a(&mut fl, 500)?, 2 * K);
        assert_eq!(allocated(&fl), [(0, 2 * K), (2 * K, 3 * K), (G - 512 * K, G)]);
        free(&mut fl, big)?;
        assert_eq!(allocated(&fl), [(0, 2 * K), (2 * K, 3 * K)]);
        fl.clear();
        assert_eq!(allocated(&fl), []);
        d(&mut fl, K)?;
        assert_eq!(allocated(&fl), [(G - K, G)]);
        fl.shrink(K)?;
        assert_eq!(allocated(&fl), [(G - K, G)]);
        fl.reset()?;
        inv(&fl);
        assert_eq!(allocated(&fl), [(G - K, G)]);
    }
    Ok(())
}

#[test]
fn p23_non_zero_offset() -> R {
    for p in both() {
        let mut fl = flo(G, 2 * K, K, K, p)?;
        assert_eq!(avail(&fl, K), [(2 * K, G + 2 * K)]);
        assert_eq!(at(&mut fl, 2 * K, 3 * K)?, 2 * K);
        assert_eq!(allocated(&fl), [(2 * K, 5 * K)]);
        assert_eq!(avail(&fl, K), [(5 * K, G + 2 * K)]);
        assert_eq!(d(&mut fl, 2 * K)?, G);
        assert_eq!(allocated(&fl), [(2 * K, 5 * K), (G, G + 2 * K)]);
        assert_eq!(avail(&fl, K), [(5 * K, G)]);
    }
    Ok(())
}

#[test]
fn p25_unknown_or_double_free_is_an_error() -> R {
    for p in both() {
        let mut fl = flo(M, 0, K, K, p)?;
        let x = a(&mut fl, K)?;
        let before = fl.statistics();
        assert_eq!(free(&mut fl, 12345 * K), Err(BankedError::UnknownFree { address: 12345 * K }));
        assert_eq!(fl.statistics(), before);
        assert_eq!(free(&mut fl, x)?, K);
        let before = fl.statistics();
        assert_eq!(free(&mut fl, x), Err(BankedError::DoubleFree { address: x }));
        assert_eq!(fl.statistics(), before);
        assert_eq!(stats4(&fl), (M, 0, M, M));
    }
    Ok(())
}

#[test]
fn p25_free_inside_an_allocation_is_unknown() -> R {
    let mut fl = flo(M, 0, K, K, Policy::First)?;
    a(&mut fl, 4 * K)?;
    assert_eq!(free(&mut fl, K), Err(BankedError::UnknownFree { address: K }));
    Ok(())
}

#[test]
fn p26_statistics_after_coalescing() -> R {
    for p in both() {
        let mut fl = default_flo(p)?;
        let (x, y, _z) = (a(&mut fl, K)?, a(&mut fl, K)?, a(&mut fl, K)?);
        free(&mut fl, y)?;
        free(&mut fl, x)?;
        assert_eq!(stats4(&fl), (G, K, G - K, G - 3 * K));
    }
    Ok(())
}

#[test]
fn p28_fragmented_oom() -> R {
    let mut fl = flo(8 * K, 0, K, K, Policy::First)?;
    for i in 0..8 {
        assert_eq!(a(&mut fl, K)?, i * K);
    }
    for x in [0, 2 * K, 4 * K, 6 * K] {
        free(&mut fl, x)?;
    }
    assert_eq!(stats4(&fl), (8 * K, 4 * K, 4 * K, K));
    let e = a(&mut fl, 2 * K);
    assert_eq!(
        e,
        Err(BankedError::OutOfMemory(dramalloc_core::banked::OutOfMemory {
            buffer_type: None,
            request: 2 * K,
            num_banks: 1,
            per_bank: 2 * K,
            bank_size: 8 * K,
            allocated: 4 * K,
            free: 4 * K,
            largest_free: K,
            kind: OomKind::Fragmented,
        }))
    );
    Ok(())
}

#[test]
fn p29_edge_sizes() -> R {
    // The cases file has alloc(0) -> 0, then 1K (the reference rounds 0 up to the minimum);
    // here a zero-size request is an error that allocates nothing (tt-metal's `Buffer`
    // refuses size 0), so the 1K allocation after it still lands at 0.
    for p in both() {
        let mut fl = flo(M, 0, K, K, p)?;
        assert!(is_oom(a(&mut fl, M + 1)));
        assert_eq!(a(&mut fl, 0), Err(BankedError::ZeroSize { buffer_type: None }));
        assert_eq!(fl.allocate_at(0, 0), Err(BankedError::ZeroSize { buffer_type: None }));
        assert_eq!(fl.statistics().allocated, 0);
        assert_eq!(a(&mut fl, 1)?, 0);
        assert_eq!(a(&mut fl, 1)?, K);
    }
    Ok(())
}

// ---------------------------------------------------------------- B. small allocator

fn small() -> Result<Fl, BankedError> {
    flo(1024, 0, 32, 32, Policy::First)
}

#[test]
fn p31_resize() -> R {
    let mut fl = small()?;
    assert_eq!(d(&mut fl, 32)?, 992);
    fl.shrink(64)?;
    inv(&fl);
    assert_eq!(d(&mut fl, 32)?, 960);
    assert_eq!(a(&mut fl, 32)?, 64);
    fl.reset()?;
    inv(&fl);
    assert_eq!(a(&mut fl, 32)?, 0);
    assert_eq!(a(&mut fl, 32)?, 32);
    free(&mut fl, 0)?;
    assert_eq!(a(&mut fl, 64)?, 96);
    fl.shrink(32)?;
    inv(&fl);
    free(&mut fl, 32)?;
    assert_eq!(a(&mut fl, 32)?, 32);
    Ok(())
}

#[test]
fn p32_directed_resize() -> R {
    let mut fl = small()?;
    assert_eq!(at(&mut fl, 32, 992)?, 32);
    fl.shrink(32)?;
    inv(&fl);
    assert!(is_oom(d(&mut fl, 32)));
    assert!(matches!(at(&mut fl, 0, 32), Err(BankedError::OutOfRange { .. })));
    free(&mut fl, 32)?;
    assert_eq!(a(&mut fl, 32)?, 32);
    assert_eq!(d(&mut fl, 32)?, 992);
    fl.reset()?;
    inv(&fl);
    assert_eq!(a(&mut fl, 32)?, 0);
    free(&mut fl, 32)?;
    assert_eq!(a(&mut fl, 32)?, 32);
    Ok(())
}

// ---------------------------------------------------------------- C. banks and lockstep

#[test]
fn p33_size_per_bank() -> R {
    assert_eq!(size_per_bank(12 * 2048, 2048, 12, 32)?, 2048);
    assert_eq!(size_per_bank(13 * 2048, 2048, 12, 32)?, 4096);
    assert_eq!(size_per_bank(7 * 100, 100, 4, 32)?, 256);
    assert_eq!(size_per_bank(0, 0, 12, 32)?, 0);
    assert_eq!(size_per_bank(100, 0, 12, 32), Err(BankedError::PageSizeMismatch { size: 100, page_size: 0 }));
    assert_eq!(
        size_per_bank(3000, 2048, 12, 32),
        Err(BankedError::PageSizeMismatch { size: 3000, page_size: 2048 })
    );
    Ok(())
}

#[test]
fn p34_dram_lockstep_wormhole() -> R {
    let cfg = DeviceDescriptor::wormhole(111_360).dram_config()?;
    assert_eq!((cfg.num_banks, cfg.bank_size, cfg.reserved, cfg.alignment), (12, G - 32, 32, 32));
    let mut dram = BankManager::<64>::new(cfg)?;
    let b = dram.allocate(12 * 2048, 2048, Layout::Interleaved)?;
    assert_eq!((b.address, b.size_per_bank), (32, 2048));
    let b = dram.allocate(13 * 2048, 2048, Layout::Interleaved)?;
    assert_eq!((b.address, b.size_per_bank), (2080, 4096));
    let b = dram.allocate(12 * 128, 128, Layout::Interleaved)?;
    assert_eq!((b.address, b.size_per_bank), (6176, 128));
    for bank in 0..12 {
        let off = if bank % 2 == 0 { 0 } else { G };
        assert_eq!(dram.physical_address(6176, bank)?, 6176 + off);
    }
    assert_eq!(dram.physical_address(0, 12), Err(BankedError::NoSuchBank { bank: 12, banks: 12 }));
    // Page 13 of the second buffer: bank 1, second row.
    let loc = dram.page_location(2080, 13, 2048)?;
    assert_eq!((loc.bank, loc.address, loc.physical), (1, 2080 + 2048, 2080 + 2048 + G));
    Ok(())
}

const S: u64 = WORMHOLE_L1_SIZE;
const B: u64 = 111_360;

#[test]
fn p35_l1_top_down() -> R {
    let mut dev = Device::<64>::new(DeviceDescriptor::wormhole(B))?;
    let sizes = [32 * K, 64 * K, 128 * K];
    let mut total = 0;
    let mut expected_first = Vec::new();
    let mut i = 0;
    loop {
        let sz = sizes[i % 3];
        if total + sz > S - B {
            assert!(matches!(
                dev.allocate(BufferType::L1, sz, sz, Layout::Interleaved),
                Err(BankedError::OutOfMemory(_))
            ));
            break;
        }
        total += sz;
        let b = dev.allocate(BufferType::L1, sz, sz, Layout::Interleaved)?;
        assert_eq!(b.address, S - total);
        expected_first.push(b.address);
        i += 1;
    }
    assert_eq!(expected_first[..4], [1_466_368, 1_400_832, 1_269_760, 1_236_992]);
    dev.clear();
    let too_big = (S - B) + 64;
    let e = dev.allocate(BufferType::L1, too_big, too_big, Layout::Interleaved);
    assert!(matches!(e, Err(BankedError::OutOfMemory(o))
        if o.buffer_type == Some(BufferType::L1) && o.per_bank == too_big && o.bank_size == S - B
           && o.num_banks == 64 && o.kind == OomKind::Full));
    Ok(())
}

#[test]
fn p36_l1_padding_to_allocator_alignment() -> R {
    let mut dev = Device::<64>::new(DeviceDescriptor::wormhole(B))?;
    let b = dev.allocate(BufferType::L1, 16, 16, Layout::Interleaved)?;
    assert_eq!((b.address, b.size_per_bank), (S - 32, 16));
    let b = dev.allocate(BufferType::L1, 16, 16, Layout::Interleaved)?;
    assert_eq!(b.address, S - 64);
    Ok(())
}

const P: u64 = 2048;

#[test]
fn p39a_cbs_on_one_core() -> R {
    let mut cbs = CircularBuffers::<16>::new();
    let ids: Vec<u32> = (0..5).map(|_| cbs.add(CoreRange::core(0, 0), P, P)).collect::<Result<_, _>>()?;
    cbs.allocate(B, 32)?;
    for (i, id) in ids.into_iter().enumerate() {
        assert_eq!(cbs.address(id)?, Some(B + i as u64 * P));
    }
    Ok(())
}

#[test]
fn p39b_cb_over_a_range_lands_above_the_fullest_core() -> R {
    let mut cbs = CircularBuffers::<16>::new();
    for _ in 0..3 {
        cbs.add(CoreRange::core(0, 0), P, P)?;
    }
    for _ in 0..5 {
        cbs.add(CoreRange::core(0, 2), P, P)?;
    }
    let wide = cbs.add(CoreRange::new(0, 0, 0, 2), P, P)?;
    cbs.allocate(B, 32)?;
    assert_eq!(cbs.address(wide)?, Some(B + 5 * P));
    assert_eq!(cbs.region_end(&CoreRange::core(0, 1)), Some(B + 6 * P));
    Ok(())
}

#[test]
fn p39c_resizing_a_cb_repacks() -> R {
    let mut cbs = CircularBuffers::<16>::new();
    let c0 = cbs.add(CoreRange::core(0, 0), P, P)?;
    let c1 = cbs.add(CoreRange::core(0, 0), P, P)?;
    cbs.allocate(B, 32)?;
    assert_eq!((cbs.address(c0)?, cbs.address(c1)?), (Some(B), Some(B + P)));
    cbs.set_total_size(c0, 2 * P)?;
    assert_eq!(cbs.address(c1)?, None);
    cbs.allocate(B, 32)?;
    assert_eq!(cbs.address(c1)?, Some(B + 2 * P));
    cbs.set_total_size(c0, P / 2)?;
    assert_eq!(
        cbs.allocate(B, 32),
        Err(BankedError::CbPageSize { index: 0, total_size: P / 2, page_size: P })
    );
    Ok(())
}

#[test]
fn p39d_cb_clash() -> R {
    let mut dev = Device::<64>::new(DeviceDescriptor::wormhole(B))?;
    let buf = dev.allocate(BufferType::L1, 262_144, 262_144, Layout::Interleaved)?;
    assert_eq!(buf.address, 1_236_992);
    const NUM_CB: u64 = 32;
    let pages = (buf.address - B) / NUM_CB / P + 1;
    assert_eq!(pages, 18);
    let mut cbs = CircularBuffers::<32>::new();
    for _ in 0..NUM_CB {
        cbs.add(CoreRange::core(0, 0), pages * P, P)?;
    }
    cbs.allocate(B, 32)?;
    let e = cbs.validate(S, dev.lowest_l1_address());
    assert_eq!(
        e,
        Err(BankedError::CbClash {
            core_range: CoreRange::core(0, 0),
            region_end: 1_291_008,
            buffer_address: 1_236_992
        })
    );
    if let Err(e) = e {
        let msg = e.to_string();
        assert!(msg.contains("1291008") && msg.contains("1236992") && msg.contains("(0,0)-(0,0)"));
    }
    Ok(())
}

#[test]
fn cb_beyond_l1_size() -> R {
    let mut cbs = CircularBuffers::<4>::new();
    cbs.add(CoreRange::core(1, 1), S, P)?;
    cbs.allocate(B, 32)?;
    assert_eq!(
        cbs.validate(S, None),
        Err(BankedError::CbBeyondL1 { core_range: CoreRange::core(1, 1), region_end: B + S, l1_size: S })
    );
    Ok(())
}

// ---------------------------------------------------------------- D. field cases

#[test]
fn b04_top_down_first_vs_best() -> R {
    for p in both() {
        let mut fl = flo(32 * K, 0, 4 * K, 32, p)?;
        let x = d(&mut fl, 8 * K)?;
        let y = d(&mut fl, 8 * K)?;
        let z = d(&mut fl, 8 * K)?;
        assert_eq!((x, y, z), (24 * K, 16 * K, 8 * K));
        free(&mut fl, x)?;
        free(&mut fl, y)?;
        assert_eq!(avail(&fl, 1), [(0, 8 * K), (16 * K, 32 * K)]);
        match p {
            Policy::Best => {
                assert_eq!(d(&mut fl, 8 * K)?, 0);
                assert_eq!(d(&mut fl, 16 * K)?, 16 * K);
            }
            Policy::First => {
                assert_eq!(d(&mut fl, 8 * K)?, 24 * K);
                let e = d(&mut fl, 16 * K);
                assert!(matches!(e, Err(BankedError::OutOfMemory(o))
                    if o.free == 16 * K && o.largest_free == 8 * K && o.request == 16 * K
                       && o.kind == OomKind::Fragmented));
                if let Err(e) = e {
                    assert!(e.to_string().contains("fragmented"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn b05_total_free_is_not_one_block() -> R {
    let cfg = BankConfig {
        buffer_type: BufferType::Dram,
        num_banks: 4,
        bank_size: 64 * K,
        reserved: 0,
        page_alignment: 32,
        alignment: 32,
        policy: Policy::First,
        bottom_up: true,
        address_limit: 0,
        offset_period: 1,
        offset_step: 0,
    };
    let mut banks = BankManager::<64>::new(cfg)?;
    let addrs: Vec<u64> = (0..4)
        .map(|_| banks.allocate(4 * 16 * K, 16 * K, Layout::Interleaved).map(|b| b.address))
        .collect::<Result<_, _>>()?;
    assert_eq!(addrs, [0, 16 * K, 32 * K, 48 * K]);
    banks.deallocate(addrs[0])?;
    banks.deallocate(addrs[2])?;
    assert!(!banks.can_allocate(24 * K));
    let e = banks.allocate(4 * 24 * K, 24 * K, Layout::Interleaved);
    assert_eq!(
        e,
        Err(BankedError::OutOfMemory(dramalloc_core::banked::OutOfMemory {
            buffer_type: Some(BufferType::Dram),
            request: 96 * K,
            num_banks: 4,
            per_bank: 24 * K,
            bank_size: 64 * K,
            allocated: 32 * K,
            free: 32 * K,
            largest_free: 16 * K,
            kind: OomKind::Fragmented,
        }))
    );
    Ok(())
}

#[test]
fn b07_allocate_at_after_free_of_same_address() -> R {
    let mut fl = flo(64 * K, 0, 32, 32, Policy::First)?;
    assert_eq!(at(&mut fl, 16 * K, 8 * K)?, 16 * K);
    free(&mut fl, 16 * K)?;
    assert_eq!(at(&mut fl, 16 * K, 8 * K)?, 16 * K);
    assert_eq!(a(&mut fl, 8 * K)?, 0);
    // Variant: alloc_at over a live block names the conflict.
    assert_eq!(
        at(&mut fl, 20 * K, 8 * K),
        Err(BankedError::Overlap {
            address: 20 * K,
            size: 8 * K,
            conflict_address: 16 * K,
            conflict_size: 8 * K
        })
    );
    free(&mut fl, 16 * K)?;
    free(&mut fl, 0)?;
    assert_eq!(fl.blocks().collect::<Vec<_>>(), [BlockInfo { address: 0, size: 64 * K, allocated: false }]);
    Ok(())
}

#[test]
fn b08_free_never_exceeds_allocatable() -> R {
    let mut fl = flo(64 * K, 0, 32, 32, Policy::First)?;
    let x = a(&mut fl, 16 * K)?;
    let y = a(&mut fl, 16 * K)?;
    assert_eq!((x, y), (0, 16 * K));
    free(&mut fl, x)?;
    assert_eq!(a(&mut fl, 8 * K)?, 0);
    assert_eq!(at(&mut fl, 48 * K, 16 * K)?, 48 * K);
    free(&mut fl, y)?;
    assert_eq!(
        fl.statistics(),
        Statistics {
            total: 64 * K,
            allocated: 24 * K,
            free: 40 * K,
            largest_free: 40 * K,
            largest_free_address: Some(8 * K),
            free_blocks: 1,
            allocated_blocks: 2,
        }
    );
    assert_eq!(fl.blocks().map(|b| b.size).sum::<u64>(), 64 * K);
    Ok(())
}

#[test]
fn b10_cb_clash_independent_of_outputs() -> R {
    let desc = DeviceDescriptor::custom(1, 64 * M, 32, 32, 2, M, 64 * K, 16);
    let mut dev = Device::<64>::new(desc)?;
    let x = dev.allocate(BufferType::L1, 2 * 768 * K, 768 * K, Layout::Interleaved)?;
    assert_eq!((x.address, x.size_per_bank), (262_144, 768 * K));
    let core = CoreRange::core(0, 0);

    let mut p1 = CircularBuffers::<4>::new();
    p1.add(core, 128 * K, 2048)?;
    p1.add(core, 64 * K, 2048)?;
    p1.allocate(desc.l1_unreserved_base, desc.dram_alignment)?;
    assert_eq!(p1.region_end(&core), Some(256 * K));
    p1.validate(desc.l1_size, dev.lowest_l1_address())?;

    let mut p2 = CircularBuffers::<4>::new();
    p2.add(core, 128 * K, 2048)?;
    p2.add(core, 68 * K, 2048)?;
    p2.allocate(desc.l1_unreserved_base, desc.dram_alignment)?;
    assert_eq!(
        p2.validate(desc.l1_size, dev.lowest_l1_address()),
        Err(BankedError::CbClash { core_range: core, region_end: 266_240, buffer_address: 262_144 })
    );
    Ok(())
}

#[test]
fn sharded_uses_shard_cores_but_reserves_everywhere() -> R {
    let mut dev = Device::<64>::new(DeviceDescriptor::wormhole(B))?;
    // 8 pages of 4 KiB over 4 shard cores: 2 pages per bank.
    let b = dev.allocate(BufferType::L1, 8 * 4096, 4096, Layout::Sharded { cores: 4 })?;
    assert_eq!((b.address, b.size_per_bank, b.num_banks), (S - 8192, 8192, 4));
    assert_eq!(
        dev.allocate(BufferType::L1, 4096, 4096, Layout::Sharded { cores: 65 }),
        Err(BankedError::TooManyShards { shards: 65, banks: 64 })
    );
    Ok(())
}
