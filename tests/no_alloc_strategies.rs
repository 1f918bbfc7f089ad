//! Zero heap allocations in every strategy: a counting global allocator (ecosystem notes
//! §3.2) around `plan_buffers` on a 10,000-buffer generated problem, with the caller's
//! storage allocated before counting.

use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::portfolio::AUTO_WORK_BUDGET;
use dramalloc_core::{plan_buffers, plan_buffers_with, Buffer, CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::HostWorkspace;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs_during;

#[test]
fn counter_sees_an_allocation() {
    let (_, n) = allocs_during(|| vec![1u8; 10]);
    assert!(n >= 1);
}

#[test]
fn every_strategy_plans_10000_buffers_without_heap_allocation() {
    let n = if cfg!(miri) { 50 } else { 10_000 };
    let bufs: Vec<Buffer> = dramalloc_sim::quality::generate::problem(n, 42)
        .rows()
        .iter()
        .map(|b| Buffer::new(b.lower as u32, (b.upper - 1) as u32, b.size))
        .collect();
    let mut host = HostWorkspace::new(n, n, 1);
    for s in Strategy::ALL {
        let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: s };
        let (plan, count) = allocs_during(|| plan_buffers(&bufs, 1, &cfg, &mut host.workspace()));
        let plan = plan.unwrap();
        assert!(plan.metrics.hwm >= plan.metrics.lower_bound);
        assert_eq!(count, 0, "{s:?} allocated");
    }
    // the exact strategy with a caller budget, on a problem small enough to search
    let small = &bufs[..300];
    let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: Strategy::Exact };
    let mut calls = 0u32;
    let (plan, count) = allocs_during(|| {
        let mut keep_going = || {
            calls += 1;
            calls < 100
        };
        let mut budget = Budget::new(100_000, AUTO_WORK_BUDGET, &mut keep_going);
        plan_buffers_with(small, 1, &cfg, &mut host.workspace(), &mut budget)
    });
    assert!(plan.is_ok());
    assert_eq!(count, 0, "exact allocated");
}
