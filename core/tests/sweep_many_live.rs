//! The time sweep with more buffers live at once than its live list takes
//! (`place::sweep::LIST_MAX_LIVE`): the live set is the treap of `place::live_set`. Every
//! buffer is placed, no two buffers live together share a byte, and the peak is pinned.

use dramalloc_core::place::sweep::LIST_MAX_LIVE;
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, StaticWorkspace, Strategy};

#[test]
fn a_sweep_past_the_live_list_places_every_buffer_apart() {
    // 400 buffers defined over instructions 0–4, each live to 10–16: all live at 4–10
    let bufs: Vec<Buffer> =
        (0..400u32).map(|i| Buffer::new(i % 5, 10 + i % 7, 256 * (1 + u64::from(i % 9)))).collect();
    assert!(bufs.len() > LIST_MAX_LIVE);
    let mut st: Box<StaticWorkspace<400, 400, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(&bufs, 256, &cfg, &mut ws).unwrap();
    let infos = &ws.infos[..bufs.len()];
    assert!(infos.iter().all(|i| i.is_allocated()));
    for (a, (ia, ba)) in infos.iter().zip(&bufs).enumerate() {
        for (ib, bb) in infos.iter().zip(&bufs).skip(a + 1) {
            let live_together = ba.def <= bb.last_use && bb.def <= ba.last_use;
            assert!(!live_together || ia.end() <= ib.address || ib.end() <= ia.address, "{a} overlaps");
        }
    }
    // every buffer is live at instruction 10, so the peak is at least the sum of all sizes
    let total: u64 = bufs.iter().map(|b| b.bytes).sum();
    assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (total, total));
    // the sweep's own addresses (def order, larger first within an instruction), not the
    // size order's of greedy-size (the sweep's fallback where it does not apply)
    let first: Vec<u64> = infos[..6].iter().map(|i| i.address).collect();
    assert_eq!(first, [100_096, 198_144, 294_144, 388_096, 481_280, 64_512]);
}
