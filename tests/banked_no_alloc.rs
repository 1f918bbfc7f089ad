//! Proves that the banked allocator performs zero heap allocations: a counting
//! `#[global_allocator]` (ecosystem notes §3.2) with a per-thread, const-initialised counter,
//! so the parallel test harness does not mix tests. The `unsafe` below is confined to this
//! test binary (implementing `GlobalAlloc` requires it); the library crates forbid unsafe code.

use dramalloc_core::banked::{
    BufferType, CircularBuffers, CoreRange, Device, DeviceDescriptor, FreeList, FreeListConfig, Layout,
    Policy,
};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs_during;

#[test]
fn the_counter_sees_a_heap_allocation() {
    let (v, n) = allocs_during(|| vec![1u8; 10]);
    assert_eq!(v.len(), 10);
    assert!(n >= 1);
}

#[test]
fn free_list_operations_never_allocate() {
    let (result, n) = allocs_during(|| {
        let mut fl = FreeList::<256>::new(FreeListConfig::new(1 << 30, 0, 1024, 1024, Policy::First))?;
        let mut sum = 0u64;
        for round in 0..100u64 {
            let a = fl.allocate(1024, true)?;
            let b = fl.allocate(2048 + round, false)?;
            let c = fl.allocate(3072, true)?;
            fl.free(a)?;
            fl.free(c)?;
            let _ = fl.free(c); // double free: an error value, no allocation
            sum += b;
            fl.free(b)?;
        }
        fl.allocate_at(32 * 1024, 1024)?;
        fl.shrink(1024)?;
        fl.reset()?;
        sum += fl.available_addresses(1).map(|(s, e)| e - s).sum::<u64>();
        sum += fl.allocated_addresses().count() as u64;
        sum += fl.statistics().largest_free;
        let _ = fl.allocate(1 << 31, true); // out of memory: an error value
        fl.check_invariants().map_err(|_| dramalloc_core::banked::BankedError::Overflow { value: 0 })?;
        fl.clear();
        let mut best = FreeList::<64>::new(FreeListConfig::new(1 << 20, 4096, 32, 32, Policy::Best))?;
        for _ in 0..20 {
            best.allocate(100, false)?;
        }
        sum += best.statistics().allocated;
        Ok::<u64, dramalloc_core::banked::BankedError>(sum)
    });
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(n, 0, "heap allocations in the free list");
}

#[test]
fn device_and_circular_buffers_never_allocate() {
    let (result, n) = allocs_during(|| {
        let mut dev = Device::<128>::new(DeviceDescriptor::wormhole(111_360))?;
        let d = dev.allocate(BufferType::Dram, 13 * 2048, 2048, Layout::Interleaved)?;
        let l = dev.allocate(BufferType::L1, 262_144, 262_144, Layout::Interleaved)?;
        let s = dev.allocate(BufferType::L1, 8 * 4096, 4096, Layout::Sharded { cores: 4 })?;
        let loc = dev.bank(BufferType::Dram).page_location(d.address, 13, d.aligned_page)?;
        let mut cbs = CircularBuffers::<32>::new();
        for _ in 0..32 {
            cbs.add(CoreRange::core(0, 0), 18 * 2048, 2048)?;
        }
        cbs.allocate(111_360, 32)?;
        let clash = cbs.validate(1_499_136, dev.lowest_l1_address());
        dev.deallocate(BufferType::L1, s.address)?;
        dev.deallocate(BufferType::L1, l.address)?;
        dev.clear();
        Ok::<_, dramalloc_core::banked::BankedError>((loc.physical, clash.is_err()))
    });
    assert_eq!(result, Ok((32 + 2048 + (1 << 30), true)));
    assert_eq!(n, 0, "heap allocations in the bank manager or CB packer");
}
