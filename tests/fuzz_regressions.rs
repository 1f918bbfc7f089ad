//! Inputs on which fuzzing (`.ci/fuzz`) once crashed, replayed with the fuzz target's checks.
//! CI also runs this file in a debug build, where integer overflow panics as it did under the
//! fuzzer.

use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::HostWorkspace;

/// (def, len, size) of `planner_intervals` crash-82c80af2: the `auto` branch and bound's
/// bisection subtracted a capacity that had failed at its node limit from a lower peak found
/// later (`exact.rs`, "attempt to subtract with overflow").
const CRASH_82C80AF2: [(u32, u32, u64); 10] = [
    (25911, 14135, 1073804599),
    (128, 55040, 926365440),
    (0, 16384, 10496),
    (1031, 55808, 2593797890),
    (511, 0, 3372220423),
    (52170, 52447, 5977693),
    (65333, 65535, 3607101695),
    (14135, 14122, 1073741824),
    (0, 23808, 3657434119),
    (39578, 36096, 4294967295),
];

#[test]
fn bisection_after_a_plan_below_a_failed_capacity() {
    let bufs: Vec<Buffer> =
        CRASH_82C80AF2.iter().map(|&(def, len, bytes)| Buffer::new(def, def + len, bytes)).collect();
    let mut host = HostWorkspace::new(bufs.len(), bufs.len(), 1);
    for strategy in Strategy::ALL {
        let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy };
        let plan = plan_buffers(&bufs, 1, &cfg, &mut host.workspace()).unwrap();
        let infos = host.infos();
        for (a, x) in bufs.iter().enumerate() {
            for (b, y) in bufs.iter().enumerate().skip(a + 1) {
                if x.def <= y.last_use && y.def <= x.last_use {
                    let (p, q) = (&infos[a], &infos[b]);
                    assert!(
                        p.end() <= q.address || q.end() <= p.address,
                        "{strategy:?}: {a} and {b} overlap"
                    );
                }
            }
        }
        assert!(plan.metrics.hwm >= plan.metrics.lower_bound, "{strategy:?}");
        assert_eq!(plan.metrics.lower_bound, 8_888_935_224, "{strategy:?}");
    }
}
