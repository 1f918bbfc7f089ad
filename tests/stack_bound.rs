//! Stack bound: the core plans a million intervals inside a small thread stack. The tree is
//! built by recursion of depth `ceil(log2(n + 1))` (<= 32 for u32 indices) and queried with
//! a fixed 64-entry explicit stack; nothing else recurses. `STACK` is the bound the README
//! documents.

use dramalloc_core::{plan_buffer_iter, Buffer, CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::HostWorkspace;

/// The documented bound: planning runs in this much stack, 32 KiB in release builds; a debug
/// build's unoptimised frames need 48 KiB (at 32 KiB it overflows, measured 2026-12-01).
const STACK: usize = if cfg!(debug_assertions) { 48 * 1024 } else { 32 * 1024 };

fn buffers(n: usize) -> impl ExactSizeIterator<Item = Buffer> {
    let mut s = 0x5EEDu64;
    (0..n).map(move |i| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = ((s >> 40) % 64) as u32;
        let size = 1 + (s >> 20) % (1 << 16);
        Buffer::new(i as u32 / 4, i as u32 / 4 + len, size)
    })
}

#[test]
fn a_million_intervals_plan_in_a_small_stack() {
    let n = 1_000_000;
    let mut host = HostWorkspace::new(n, n, 1);
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: Strategy::Auto };
            let plan = plan_buffer_iter(buffers(n), 1, &cfg, &mut host.workspace()).unwrap();
            assert_eq!(plan.metrics.candidates, n as u64);
            assert!(plan.metrics.hwm >= plan.metrics.lower_bound);
        })
        .unwrap();
    handle.join().unwrap();
}
