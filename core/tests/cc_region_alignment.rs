//! The CC region of a window that is not a multiple of the page: its start is `window - size`
//! rounded down to the page, so what is retried or placed in it lies on the page grid (a trial
//! run with `--hbm-window 629145601` put a private tensor at 104857601 before, which
//! `check-plan` rejected), and its use is measured from that start (a window of 2^64 - 1 read
//! one byte more than the collectives take).

use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand, UsageClass};
use dramalloc_core::multicore::MultiConfig;
use dramalloc_core::{plan_function, CcSize, PlanConfig, PlanError, StaticWorkspace, Strategy};

const K: u64 = 1024;
const M: u64 = 1 << 20;

#[path = "support/multicore.rs"]
mod harness;
use harness::{run, Prog};

/// A (40 KiB) and B (16 KiB) live together: in a 64 KiB + 1 byte window with a 16 KiB CC
/// region B does not fit below the ceiling and is retried into the region, at its start.
fn a_and_b() -> Prog {
    let mut p = Prog::default();
    let a = p.spill("A", 40 * K, false);
    let b = p.spill("B", 16 * K, false);
    p.at(0, &[Operand::def(a), Operand::def(b)], false);
    p.at(1, &[Operand::use_(a), Operand::use_(b)], false);
    p
}

#[test]
fn a_retry_into_the_cc_region_of_an_unaligned_window_lands_on_the_page() {
    let plan = PlanConfig { window: 64 * K + 1, cc: CcSize::Bytes(16 * K), strategy: Strategy::Seed };
    let r = run(&[a_and_b(), a_and_b()], &MultiConfig { plan, ..MultiConfig::default() }).unwrap();
    for k in 0..2 {
        // B at 48 KiB, not at 48 KiB + 1
        assert_eq!((r.addr(k, "A"), r.addr(k, "B")), (Some(0), Some(48 * K)), "core {k}");
        let m = &r.metrics[k];
        // the region is [48 KiB, 64 KiB + 1): one byte more than asked, used 16 KiB
        assert_eq!(
            (m.cc_base, m.cc_limit, m.allreduce_hwm, m.real_cc_bytes),
            (48 * K, 16 * K + 1, 64 * K, 16 * K)
        );
    }
    let q = &r.report;
    assert_eq!((q.shared_base, q.cc_base, q.cc_bytes, q.cc_used), (48 * K, 48 * K, 16 * K + 1, 16 * K));
}

/// One core's plan through [`plan_function`]: the same retry, at 48 KiB, and the metrics.
#[test]
fn plan_function_retries_onto_the_page_below_an_unaligned_ceiling() {
    let p = a_and_b();
    let ins: Vec<Instruction> = p.ins.clone();
    let f = Function { locations: &p.locs, instructions: &ins, operands: &p.ops };
    let mut st: StaticWorkspace<4, 8, 4> = StaticWorkspace::new();
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 64 * K + 4095, cc: CcSize::Bytes(16 * K), strategy: Strategy::Seed };
    let plan = plan_function(&f, &cfg, &mut ws).unwrap();
    assert_eq!((ws.infos[0].address, ws.infos[1].address), (0, 48 * K));
    let m = plan.metrics;
    assert_eq!((m.cc_base, m.cc_limit, m.hwm, m.real_cc_bytes), (48 * K, 16 * K + 4095, 64 * K, 16 * K));
}

/// The region's start, rounded down, is what the pre-placed tensors must stay below: a
/// pre-placed tensor ending at 48 KiB + 4 KiB overlaps the region `[48 KiB, 64 KiB + 1)`.
#[test]
fn the_pre_placed_floor_is_checked_against_the_rounded_start() {
    let locs = [Location::preplaced(4 * K, UsageClass::Weight, 48 * K), Location::spill(4 * K)];
    let ins = [Instruction { first: 0, count: 2, collective: false }];
    let ops = [Operand::use_(0), Operand::def(1)];
    let f = Function { locations: &locs, instructions: &ins, operands: &ops };
    let mut st: StaticWorkspace<4, 8, 4> = StaticWorkspace::new();
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 64 * K + 1, cc: CcSize::Bytes(16 * K), strategy: Strategy::Seed };
    let e = plan_function(&f, &cfg, &mut ws).unwrap_err();
    assert_eq!(
        e,
        PlanError::CcRegionOverlapsPreplaced { cc_bytes: 16 * K + 1, floor: 52 * K, window: 64 * K + 1 }
    );
    assert_eq!(
        e.to_string(),
        "CC region of 16385 bytes at [49152, 65537) overlaps the pre-placed tensors, which end at 53248"
    );
}

/// A collective's staging buffer in a window of 2^64 - 1 bytes with a 1 MiB CC region: the
/// region starts at 2^64 - 1 MiB - 4 KiB (2^64 - 1 - 1 MiB rounded down), the stage there, and
/// the region's use is the stage's 12 KiB (it read 12 KiB + 1 byte before).
#[test]
fn collectives_in_a_u64_window_lie_on_the_page_and_use_what_they_take() {
    let progs: Vec<Prog> = (0..2)
        .map(|_| {
            let mut p = Prog::default();
            let x = p.spill("X", 8 * K, false);
            let st = p.spill("stage", 12 * K, true);
            p.at(0, &[Operand::def(x)], false);
            p.at(1, &[Operand::use_(x), Operand::def(st)], true);
            p.at(2, &[Operand::use_(st)], false);
            p
        })
        .collect();
    let plan = PlanConfig { window: u64::MAX, cc: CcSize::Mib(1), strategy: Strategy::Seed };
    let r = run(&progs, &MultiConfig { plan, ..MultiConfig::default() }).unwrap();
    let base = 0u64.wrapping_sub(M + 4 * K);
    assert_eq!(base, 0xFFFF_FFFF_FFEF_F000);
    let q = &r.report;
    assert_eq!((q.cc_base, q.cc_bytes, q.collective_base, q.cc_used), (base, M + 4 * K - 1, base, 12 * K));
    assert_eq!((r.addr(0, "stage"), r.addr(1, "stage")), (Some(base), Some(base)));
    for m in &r.metrics {
        assert_eq!((m.cc_base, m.real_cc_bytes), (base, 12 * K));
    }
}
