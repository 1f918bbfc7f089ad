//! Multi-core pipeline paths the other tests leave open (issue 18: each test kills mutants of
//! `core/src/multicore/` that survived `multicore_passes.rs`): CC regions in slabs and sized
//! for the device, a core that retried into the CC region, shared hulls in the memory
//! pressure, pre-placed bytes, exact storage checks, use-before-def of the shared set, twins at
//! other location indices, locations outside DRAM, and the reuse pairs' WAR-edge rule.
//!
//! Every test drives the public pipeline ([`Pipeline::run_observed`]) on the core's own
//! [`StaticMulti`] storage; a few corrupt the per-core state through the observer, as the
//! pipeline's documentation allows for fault injection.

use dramalloc_core::liveness::program::{Location, MemoryType, Operand, UsageClass};
use dramalloc_core::multicore::{DepKind, ModuleState, MultiConfig, MultiStorage, Pass, SharedMode};
use dramalloc_core::{CcSize, PlanConfig, PlanError, Store, Strategy};

const K: u64 = 1024;
const M: u64 = 1 << 20;

#[path = "support/multicore.rs"]
mod harness;
use harness::{peak, run, run_with, Prog};

/// Windows of 1 GiB, the CC region sized `cc`.
fn cfg(cc: CcSize) -> MultiConfig {
    MultiConfig {
        plan: PlanConfig { window: 1 << 30, cc, strategy: Strategy::Seed },
        ..MultiConfig::default()
    }
}

fn slabs(mb_per_core: u64, cc: CcSize) -> MultiConfig {
    MultiConfig { mode: SharedMode::Slabs { mb_per_core }, ..cfg(cc) }
}

/// `n` cores, each with a private X ((k + 1) × 8 KiB) and Y (8 KiB), a 12 KiB staging buffer
/// written at 1 by a collective (on core 0 only, or on every core with `all_collective`) that
/// reads X, and a 4 KiB handoff written at 2 by core 0; everything shared is read at 3.
fn n_cores(n: usize, all_collective: bool) -> Vec<Prog> {
    (0..n)
        .map(|k| {
            let mut p = Prog::default();
            let x = p.spill("X", (k as u64 + 1) * 8 * K, false);
            let st = p.spill("stage", 12 * K, true);
            let h = p.spill("handoff", 4 * K, true);
            let y = p.spill("Y", 8 * K, false);
            p.at(0, &[Operand::def(x)], false);
            if k == 0 || all_collective {
                p.at(1, &[Operand::use_(x), Operand::def(st)], true);
            }
            if k == 0 {
                p.at(2, &[Operand::def(h)], false);
            }
            p.at(3, &[Operand::use_(st), Operand::use_(h), Operand::def(y)], false);
            p.at(4, &[Operand::use_(y)], false);
            p
        })
        .collect()
}

/// Slabs of 1 MiB with a 2 MiB CC region: a slab has no CC region of its own (the private
/// plans get none, so a CC region larger than a slab works), and the device's CC region lies
/// after the shared slab, at (N + 1) slabs = 3 MiB, where the collective's staging buffer goes.
/// Every core's private plan has the slab as its window.
#[test]
fn slabs_put_the_cc_region_after_the_shared_slab_and_none_in_a_slab() {
    let r = run(&n_cores(2, false), &slabs(1, CcSize::Mib(2))).unwrap();
    let p = &r.report;
    assert_eq!((p.shared_base, p.shared_region_bytes, p.cc_base, p.cc_bytes), (2 * M, 4 * K, 3 * M, 2 * M));
    assert_eq!((p.cc_tensors, p.collective_base, p.collective_bytes, p.cc_used), (1, 3 * M, 12 * K, 12 * K));
    for k in 0..2 {
        assert_eq!((r.addr(k, "stage"), r.addr(k, "handoff")), (Some(3 * M), Some(2 * M)), "core {k}");
        let m = &r.metrics[k];
        assert_eq!((m.window, m.cc_base, m.cc_limit, m.allreduce_hwm), (M, 3 * M, 2 * M, 3 * M + 12 * K));
    }
}

/// An auto CC region is sized once for the device, from every core's collectives: on both
/// cores the collective writes the 12 KiB stage (size plus footprint: 24 KiB) and reads X
/// (8 KiB on core 0: 16 KiB; 16 KiB on core 1: 32 KiB), 40 + 56 = 96 KiB together, and every
/// core's plan gets the 96 KiB (not its own 40 or 56).
#[test]
fn an_auto_cc_region_is_sized_for_the_device() {
    let r = run(&n_cores(2, true), &cfg(CcSize::Auto)).unwrap();
    let p = &r.report;
    let base = (1 << 30) - 96 * K;
    assert_eq!((p.cc_base, p.cc_bytes, p.cc_tensors, p.collective_base), (base, 96 * K, 1, base));
    assert_eq!(r.addr(1, "stage"), Some(base));
    for m in &r.metrics {
        assert_eq!((m.cc_base, m.cc_limit), (base, 96 * K));
    }
}

/// A core whose private plan retried into the CC region (a 64 KiB window with a 16 KiB CC
/// region: A, 40 KiB, and B, 16 KiB, are live together, so B goes to the CC region) counts as
/// full up to the ceiling: the shared region starts at the ceiling, 48 KiB, not above the
/// core's HWM (64 KiB, inside the CC region).
#[test]
fn a_core_that_retried_into_the_cc_region_puts_the_shared_base_at_the_ceiling() {
    let mut p = Prog::default();
    let a = p.spill("A", 40 * K, false);
    let b = p.spill("B", 16 * K, false);
    p.at(0, &[Operand::def(a), Operand::def(b)], false);
    p.at(1, &[Operand::use_(a), Operand::use_(b)], false);
    let plan = PlanConfig { window: 64 * K, cc: CcSize::Bytes(16 * K), strategy: Strategy::Seed };
    let c = MultiConfig { plan, ..MultiConfig::default() };
    let r = run(&[p.clone(), p], &c).unwrap();
    assert_eq!((r.addr(0, "A"), r.addr(0, "B")), (Some(0), Some(48 * K)));
    assert_eq!((r.metrics[0].hwm, r.metrics[0].allreduce_hwm), (64 * K, 64 * K));
    let q = &r.report;
    assert_eq!((q.shared_base, q.shared_region_bytes, q.cc_base, q.cc_used), (48 * K, 0, 48 * K, 16 * K));
}

/// With no CC region (size 0) nothing goes to a CC region and no core records CC use: the
/// collective's stage stays in the shared region, at its base, 16 KiB. The same holds when
/// the cores' metrics claim a CC base below the window (1 MiB, set by the observer after the
/// DRAM pass): the region's size, not the metrics, decides.
#[test]
fn a_zero_cc_region_holds_nothing_whatever_the_metrics_say() {
    for lowered in [false, true] {
        let lower = |pass: Pass, st: &mut [ModuleState<'_>]| {
            if lowered && pass == Pass::DramAllocation {
                st.iter_mut().for_each(|s| s.metrics.cc_base = M);
            }
        };
        let r = run_with(&n_cores(2, false), &cfg(CcSize::Mib(0)), |_| {}, lower).unwrap();
        let p = &r.report;
        assert_eq!((p.cc_tensors, p.collective_base, p.collective_bytes, p.cc_used), (0, 0, 0, 0));
        assert_eq!(
            (p.shared_base, p.shared_region_bytes, r.addr(1, "stage")),
            (16 * K, 16 * K, Some(16 * K))
        );
        for m in &r.metrics {
            assert_eq!((m.allreduce_hwm, m.real_cc_bytes), (0, 0), "lowered: {lowered}");
        }
    }
}

/// A shared tensor's hull in the memory pressure spans every core's accesses: S (16 KiB) is
/// written at 1 and read at 2 on core 0 but read at 5 on core 1, so it is live over [1, 5],
/// and core 1's view at 4 holds its private P (24 KiB, [4, 5]) and S.
#[test]
fn the_pressure_counts_a_shared_tensor_over_every_cores_accesses() {
    let mut c0 = Prog::default();
    let s = c0.spill("S", 16 * K, true);
    c0.at(1, &[Operand::def(s)], false);
    c0.at(2, &[Operand::use_(s)], false);
    let mut c1 = Prog::default();
    let p = c1.spill("P", 24 * K, false);
    let s1 = c1.spill("S", 16 * K, true);
    c1.at(4, &[Operand::def(p)], false);
    c1.at(5, &[Operand::use_(p), Operand::use_(s1)], false);
    let r = run(&[c0, c1], &cfg(CcSize::Mib(0))).unwrap();
    let q = &r.report.pressure;
    assert_eq!((q.shared, q.device), (peak(1, 0, 16 * K), peak(4, 24 * K, 16 * K)));
    assert_eq!(q.view.as_slice(), &[peak(1, 0, 16 * K), peak(4, 24 * K, 16 * K)]);
}

/// Pre-placed DRAM locations hold their bytes for the whole program in the pressure: a 4 KiB
/// input X beside an 8 KiB spill T gives 12 KiB at 0.
#[test]
fn the_pressure_counts_preplaced_bytes() {
    let mut p = Prog::default();
    let x = p.add("X", Location::preplaced(4 * K, UsageClass::Input, 0));
    let t = p.spill("T", 8 * K, false);
    p.at(0, &[Operand::use_(x), Operand::def(t)], false);
    p.at(1, &[Operand::use_(t)], false);
    let r = run(&[p], &cfg(CcSize::Mib(0))).unwrap();
    let q = &r.report.pressure;
    assert_eq!(
        (q.private[0], q.view[0], q.device),
        (peak(0, 12 * K, 0), peak(0, 12 * K, 0), peak(0, 12 * K, 0))
    );
}

/// An operand naming the location just past the function's list is an error before any pass
/// runs (the gate set, so no later pass could report it), even where the state has room.
#[test]
fn an_operand_past_the_location_list_is_an_error_with_the_gate_set() {
    let mut c0 = Prog::default();
    let a = c0.spill("A", 4 * K, false);
    c0.at(0, &[Operand::def(a)], false);
    let mut c1 = c0.clone();
    c1.ops[0].location = 1; // core 1 has one location
    let gate = MultiConfig { disable_dram_allocation: true, ..cfg(CcSize::Mib(0)) };
    let e = run(&[c0, c1], &gate).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 1));
    assert_eq!(e.error, PlanError::UnknownLocation { instruction: 0, location: 1 });
}

/// Core 0 (the owner of the shared set) with S written at 1 and read at 4, P0 private; core 1
/// with `core1` reading S at 4.
fn owner_and_reader(core1: Prog) -> Vec<Prog> {
    let mut c0 = Prog::default();
    let p0 = c0.spill("P0", 8 * K, false);
    let s = c0.spill("S", 16 * K, true);
    c0.at(0, &[Operand::def(p0)], false);
    c0.at(1, &[Operand::def(s)], false);
    c0.at(4, &[Operand::use_(s)], false);
    c0.at(5, &[Operand::use_(p0)], false);
    vec![c0, core1]
}

/// A planner workspace whose location scratch is exactly as long as core 0's location list
/// is enough for the shared pass; one entry shorter is a capacity error.
#[test]
fn the_workspace_location_scratch_is_checked_exactly() {
    let mut c1 = Prog::default();
    let s = c1.spill("S", 16 * K, true);
    c1.at(4, &[Operand::use_(s)], false);
    let progs = owner_and_reader(c1);
    for (len, ok) in [(2, true), (1, false)] {
        let cut = |s: &mut MultiStorage<'_>| s.ws.locations = &mut std::mem::take(&mut s.ws.locations)[..len];
        let r = run_with(&progs, &cfg(CcSize::Mib(0)), cut, |_, _| {});
        if ok {
            assert_eq!(r.map(|r| (r.report.shared_base, r.addr(1, "S"))), Ok((8 * K, Some(8 * K))));
        } else {
            let e = r.unwrap_err();
            assert_eq!((e.pass, e.core), (Pass::DramAllocation, 0));
            assert_eq!(e.error, PlanError::Capacity { store: Store::Locations, needed: 2, capacity: 1 });
        }
    }
}

/// Core 1's twin of S sits at location 0 (core 0's at 1): its read at 4 is found by name and
/// recorded, so the RAW edge core 0 -> core 1 exists.
#[test]
fn a_twin_at_another_location_index_is_found_by_name() {
    let mut c1 = Prog::default();
    let s = c1.spill("S", 16 * K, true);
    let p1 = c1.spill("P1", 24 * K, false);
    c1.at(0, &[Operand::def(p1)], false);
    c1.at(4, &[Operand::use_(s)], false);
    c1.at(5, &[Operand::use_(p1)], false);
    let r = run(&owner_and_reader(c1), &cfg(CcSize::Mib(0))).unwrap();
    assert_eq!(r.edge_tuples(), vec![(0, 1, 1, 4, DepKind::Raw)]);
    assert_eq!((r.addr(0, "S"), r.addr(1, "S"), r.report.synced), (Some(24 * K), Some(24 * K), 1));
}

/// Use-before-def of the shared set, over all cores' flat indices: a tensor only read (first
/// use 4), one read on core 1 at 1 before core 0 writes it at 3, are errors naming the first
/// use; a read on core 1 at the very index core 0 writes it is not.
#[test]
fn shared_use_before_def_is_checked_across_cores() {
    // (core 0 writes S at, core 1 reads S at) -> the error's instruction, if any
    for (def, use_, want) in [(None, 4, Some(4)), (Some(3), 1, Some(1)), (Some(2), 2, None)] {
        let mut c0 = Prog::default();
        let s = c0.spill("S", 16 * K, true);
        if let Some(d) = def {
            c0.at(d, &[Operand::def(s)], false);
        }
        c0.at(5, &[Operand::use_(s)], false);
        let mut c1 = Prog::default();
        let s1 = c1.spill("S", 16 * K, true);
        c1.at(use_, &[Operand::use_(s1)], false);
        let r = run(&[c0, c1], &cfg(CcSize::Mib(0)));
        match want {
            Some(instruction) => {
                let e = r.unwrap_err();
                assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, 0));
                assert_eq!(e.error, PlanError::UseBeforeDef { location: 0, instruction });
            }
            None => {
                let r = r.unwrap();
                assert_eq!((r.addr(1, "S"), r.report.synced), (Some(0), 1));
                assert_eq!(r.edge_tuples(), vec![(0, 2, 1, 2, DepKind::Raw)]);
            }
        }
    }
}

/// With no CC region the collectives are never tried there: three collective buffers and a
/// handoff on a workspace of 2 candidates fail as the shared region's placement of all four
/// (needed 4), not as a CC placement of the three.
#[test]
fn no_cc_region_means_no_cc_placement_attempt() {
    let mut p = Prog::default();
    let [a, b, c] = ["A", "B", "C"].map(|n| p.spill(n, 4 * K, false));
    let h = p.spill("H", 4 * K, true);
    p.at(0, &[Operand::def(a), Operand::def(b), Operand::def(c)], true);
    p.at(1, &[Operand::def(h)], false);
    p.at(2, &[Operand::use_(a), Operand::use_(b), Operand::use_(c), Operand::use_(h)], false);
    let cut = |s: &mut MultiStorage<'_>| s.ws.infos = &mut std::mem::take(&mut s.ws.infos)[..2];
    let e = run_with(&[p], &cfg(CcSize::Mib(0)), cut, |_, _| {}).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, 0));
    assert_eq!(e.error, PlanError::Capacity { store: Store::Infos, needed: 4, capacity: 2 });
}

/// Two cores, each: a DRAM spill A and an SBUF location B (4 KiB each), both written at 0 and
/// read at 1.
fn dram_and_sbuf() -> Vec<Prog> {
    let mut p = Prog::default();
    let a = p.spill("A", 4 * K, false);
    let b = p.add("B", Location { memory: MemoryType::Sbuf, ..Location::spill(4 * K) });
    p.at(0, &[Operand::def(a), Operand::def(b)], false);
    p.at(1, &[Operand::use_(a), Operand::use_(b)], false);
    vec![p.clone(), p]
}

/// Locations outside DRAM are no business of the DRAM passes: the SBUF spill B (never
/// addressed here, its state at address 0 like A's) makes no reuse pair with A and no sync
/// error; even addressed at A's bytes (copied there by the observer after the DRAM pass) it is
/// no DMA operand pair.
#[test]
fn locations_outside_dram_are_left_alone() {
    let r = run(&dram_and_sbuf(), &cfg(CcSize::Mib(0))).unwrap();
    let p = &r.report;
    assert_eq!((r.addr(0, "A"), r.addr(0, "B"), r.addr(1, "B")), (Some(0), None, None));
    assert_eq!((p.reuse_pairs, p.operand_pairs_checked, p.synced, p.unaddressed_spills), (0, 0, 0, 0));
    let copy = |pass: Pass, st: &mut [ModuleState<'_>]| {
        if pass == Pass::DramAllocation {
            st[1].locations[1] = st[1].locations[0];
        }
    };
    let r = run_with(&dram_and_sbuf(), &cfg(CcSize::Mib(0)), |_| {}, copy).unwrap();
    assert_eq!((r.addr(1, "B"), r.report.operand_pairs_checked), (Some(0), 0));
}

/// One core: L0 accessed over `l0`, L1 over `l1` (each written at the first index, read at
/// the second); with `again`, L0 is written again at 4 and read at 5.
fn two_spills(l0: (usize, usize), l1: (usize, usize), again: bool) -> Prog {
    let mut p = Prog::default();
    let [a, b] = ["L0", "L1"].map(|n| p.spill(n, 4 * K, false));
    let mut acc = vec![(l0.0, Operand::def(a)), (l0.1, Operand::use_(a)), (l1.0, Operand::def(b))];
    acc.push((l1.1, Operand::use_(b)));
    if again {
        acc.extend([(4, Operand::def(a)), (5, Operand::use_(a))]);
    }
    acc.sort_by_key(|x| x.0);
    for (i, o) in acc {
        p.at(i, &[o], false);
    }
    p
}

/// A reuse pair is one WAR edge when the two access hulls are disjoint, whichever comes first:
/// core 0's L1 ([2, 3]) follows L0 ([0, 1]), core 1's L1 ([0, 1]) precedes L0 ([2, 3]). Both
/// share address 0 on each core.
#[test]
fn a_reuse_pair_with_disjoint_hulls_is_one_war_edge_either_way() {
    let r =
        run(&[two_spills((0, 1), (2, 3), false), two_spills((2, 3), (0, 1), false)], &cfg(CcSize::Mib(0)))
            .unwrap();
    assert_eq!(
        (r.addr(0, "L0"), r.addr(0, "L1"), r.addr(1, "L0"), r.addr(1, "L1")),
        (Some(0), Some(0), Some(0), Some(0))
    );
    assert_eq!((r.report.reuse_pairs, r.report.private_war_edges), (2, 2));
}

/// Hulls that overlap give no WAR edge: L0 written twice ([0, 1] and [4, 5]) around L1
/// ([2, 3]) shares L1's bytes (their intervals do not meet), but its hull [0, 5] contains
/// L1's. Hulls that touch (one ends at the index where the other starts, set by the observer
/// after the DRAM pass, on core 0 with the lower-index location first and on core 1 second)
/// are not disjoint either.
#[test]
fn overlapping_or_touching_hulls_give_no_war_edge() {
    let r = run(&[two_spills((0, 1), (2, 3), true)], &cfg(CcSize::Mib(0))).unwrap();
    assert_eq!((r.addr(0, "L0"), r.addr(0, "L1")), (Some(0), Some(0)));
    assert_eq!((r.report.reuse_pairs, r.report.private_war_edges), (1, 0));
    let touch = |pass: Pass, st: &mut [ModuleState<'_>]| {
        if pass == Pass::DramAllocation {
            st[0].locations[1].first_access = 1; // L1 [1, 3] after L0 [0, 1]
            st[1].locations[0].first_access = 1; // L0 [1, 3] after L1 [0, 1]
        }
    };
    let progs = [two_spills((0, 1), (2, 3), false), two_spills((2, 3), (0, 1), false)];
    let r = run_with(&progs, &cfg(CcSize::Mib(0)), |_| {}, touch).unwrap();
    assert_eq!((r.report.reuse_pairs, r.report.private_war_edges), (2, 0));
}

/// The reuse-pair index must hold every private allocated spill of a core: two need two
/// entries; one entry is a capacity error naming both numbers.
#[test]
fn the_reuse_index_is_checked_exactly() {
    let progs = [two_spills((0, 1), (2, 3), false)];
    for (len, ok) in [(2, true), (1, false)] {
        let cut = |s: &mut MultiStorage<'_>| s.index = &mut std::mem::take(&mut s.index)[..len];
        let r = run_with(&progs, &cfg(CcSize::Mib(0)), cut, |_, _| {});
        if ok {
            assert_eq!(r.map(|r| r.report.reuse_pairs), Ok(1));
        } else {
            let e = r.unwrap_err();
            assert_eq!((e.pass, e.core), (Pass::BuildDependencies, 0));
            assert_eq!(e.error, PlanError::Capacity { store: Store::Order, needed: 2, capacity: 1 });
        }
    }
}

/// Slabs whose device layout, `(cores + 1)` slabs and the CC region after them, ends past
/// `u64` are refused before any pass with [`PlanError::SlabsOverflow`] naming the cores, the
/// slab size and the CC region (a trial's `--mb-per-core 6000000000000` on 2 cores was told
/// its 500 MiB CC region was 2^64 - 1 bytes): a slab that overflows alone, slabs that fit
/// with no CC region but not with one of 4 MiB, and the largest slabs that fit.
#[test]
fn slabs_past_u64_are_named_with_their_sizes() {
    let progs = n_cores(2, false);
    let e = run(&progs, &slabs(u64::MAX, CcSize::Mib(0))).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 0));
    assert_eq!(e.error, PlanError::SlabsOverflow { cores: 2, mb_per_core: u64::MAX, cc_bytes: 0 });
    assert_eq!(
        e.error.to_string(),
        "2 slabs of 18446744073709551615 MiB (one per core) and the shared slab of the same size need \
         58028439341502200382750720 bytes of address space, more than a u64 address reaches \
         (18446744073709551615)"
    );
    // 3 slabs of 5864062014805 MiB end 1 MiB - 1 byte short of 2^64 - 1: no room for 4 MiB of CC
    let mb = (u64::MAX / 3) >> 20;
    assert_eq!(mb, 5_864_062_014_805);
    let e = run(&progs, &slabs(mb, CcSize::Mib(4))).unwrap_err();
    assert_eq!(e.error, PlanError::SlabsOverflow { cores: 2, mb_per_core: mb, cc_bytes: 4 * M });
    assert_eq!(
        e.error.to_string(),
        "2 slabs of 5864062014805 MiB (one per core), the shared slab of the same size and the 4194304-byte CC \
         region after them need 18446744073712697344 bytes of address space, more than a u64 address reaches \
         (18446744073709551615)"
    );
    let r = run(&progs, &slabs(mb, CcSize::Mib(0))).unwrap();
    assert_eq!(r.report.shared_base, 2 * mb * M);
}
