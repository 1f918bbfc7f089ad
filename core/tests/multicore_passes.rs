//! Multi-core passes: shared placement, remote-local targets, `sync_shared_allocations`,
//! memory pressure counted once, the disable gate, and hand-written anti-dependency edges.
//! Includes the public case B12 of `notes/cases-planner.md`.
//!
//! A test of the core alone (it ran in the workspace suite before, on the simulator's host
//! storage): the storage is the core's fixed-capacity [`StaticMulti`], boxed, sized for the
//! largest program here (8 cores, 64 locations, 10,000 edges), so these tests also count for
//! the core's mutation score (`.ci/mutants`).

use dramalloc_core::liveness::program::{Location, Operand, UsageClass};
use dramalloc_core::multicore::pipeline::MultiError;
use dramalloc_core::multicore::pressure::Peak;
use dramalloc_core::multicore::{DepKind, MultiConfig, MultiStorage, Pass, Pipeline, SharedMode};
use dramalloc_core::static_storage::StaticMulti;
use dramalloc_core::{CcSize, PlanConfig, PlanError, Store, Strategy};

const K: u64 = 1024;

#[path = "support/multicore.rs"]
mod harness;
use harness::{modules_of, names_of, peak, run, run_with, Prog, Run, Storage};

fn cfg() -> MultiConfig {
    MultiConfig {
        plan: PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Seed },
        ..MultiConfig::default()
    }
}

fn b12() -> Vec<Prog> {
    let mut c0 = Prog::default();
    let p0 = c0.spill("P0", 8 * K, false);
    let s = c0.spill("S", 16 * K, true);
    c0.at(0, &[Operand::def(p0)], false);
    c0.at(1, &[Operand::def(s)], false);
    c0.at(4, &[Operand::use_(s)], false);
    c0.at(5, &[Operand::use_(p0)], false);
    let mut c1 = Prog::default();
    let p1 = c1.spill("P1", 24 * K, false);
    let s1 = c1.spill("S", 16 * K, true);
    c1.at(0, &[Operand::def(p1)], false);
    c1.at(4, &[Operand::use_(s1)], false);
    c1.at(5, &[Operand::use_(p1)], false);
    vec![c0, c1]
}

#[test]
fn b12_shared_buffer_has_one_address_on_both_cores() {
    let r = run(&b12(), &cfg()).unwrap();
    assert_eq!(r.addr(0, "P0"), Some(0));
    assert_eq!(r.addr(1, "P1"), Some(0));
    assert_eq!(r.addr(0, "S"), Some(24 * K));
    assert_eq!(r.addr(1, "S"), Some(24 * K));
    assert_eq!(r.report.shared_base, 24 * K);
    assert_eq!(r.report.shared_region_bytes, 16 * K);
    // per-core peak with the shared region: 40 KiB on both cores
    for k in 0..2 {
        assert_eq!(r.report.shared_base + r.report.shared_region_bytes, 40 * K);
        assert!(r.hwm[k] <= 24 * K);
    }
    assert_eq!(r.report.synced, 1);
}

#[test]
fn b12_missing_twin_is_a_planning_error() {
    let mut progs = b12();
    // core 1 calls its copy "S2": core 0 has no such twin
    progs[1].names[1] = "S2".into();
    let e = run(&progs, &cfg()).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, 1));
    assert_eq!(
        e.error,
        PlanError::MissingTwin { core: 1, location: 1, target_core: 0, target_location: u32::MAX }
    );
    assert_eq!(e.to_string(), format!("SharedDramAllocation on core 1: {}", e.error));
    // on three cores with core 2's twin renamed, the error is core 2's
    let mut progs = n_cores(3);
    progs[2].names[2] = "handoff2".into();
    let e = run(&progs, &cfg()).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, 2));
    assert!(matches!(e.error, PlanError::MissingTwin { core: 2, location: 2, .. }), "{e}");
    // a twin of another size
    let mut progs = b12();
    progs[1].locs[1].bytes = 20 * K;
    let e = run(&progs, &cfg()).unwrap_err();
    assert_eq!(
        e.error,
        PlanError::TwinSizeMismatch {
            core: 1,
            location: 1,
            bytes: 20 * K,
            target_core: 0,
            target_location: 1,
            target_bytes: 16 * K
        }
    );
}

/// N cores: each has a private tensor of (k+1) × 8 KiB, and all share a staging buffer
/// written by a collective on core 0 and read everywhere, plus an explicitly shared handoff.
fn n_cores(n: usize) -> Vec<Prog> {
    (0..n)
        .map(|k| {
            let mut p = Prog::default();
            let x = p.spill("X", (k as u64 + 1) * 8 * K, false);
            let st = p.spill("stage", 12 * K, true);
            let h = p.spill("handoff", 4 * K, true);
            let y = p.spill("Y", 8 * K, false);
            p.at(0, &[Operand::def(x)], false);
            if k == 0 {
                p.at(1, &[Operand::use_(x), Operand::def(st)], true);
                p.at(2, &[Operand::def(h)], false);
            } else {
                p.at(2, &[], false);
            }
            p.at(3, &[Operand::use_(st), Operand::use_(h), Operand::def(y)], false);
            p.at(4, &[Operand::use_(y)], false);
            p
        })
        .collect()
}

#[test]
fn shared_tensors_resolve_identically_on_2_4_8_cores() {
    for n in [2usize, 4, 8] {
        let progs = n_cores(n);
        let r = run(&progs, &cfg()).unwrap();
        assert_eq!(r.report.shared_tensors, 2, "n={n}");
        assert_eq!(r.report.synced as usize, 2 * (n - 1), "core 0 placed, the others synced");
        let (s0, h0) = (r.addr(0, "stage").unwrap(), r.addr(0, "handoff").unwrap());
        for (k, prog) in progs.iter().enumerate() {
            assert_eq!(r.addr(k, "stage"), Some(s0), "n={n} core {k}");
            assert_eq!(r.addr(k, "handoff"), Some(h0), "n={n} core {k}");
            assert!(r.shared[k][1] && r.shared[k][2] && !r.shared[k][0] && !r.shared[k][3]);
            // private tensors never overlap the shared region
            for name in ["X", "Y"] {
                let a = r.addr(k, name).unwrap();
                let bytes = prog.locs[prog.id(name) as usize].bytes;
                assert!(a + bytes <= r.report.shared_base, "n={n} core {k} {name}");
            }
        }
        // the shared region starts above the largest private HWM: on core n-1, X (n × 8 KiB,
        // never read there: live at [0, 0]) and Y ([3, 4]) do not interfere, so the HWM is n × 8 KiB
        assert_eq!(r.report.shared_base, (n as u64) * 8 * K);
        assert_eq!(s0.min(h0), r.report.shared_base);
    }
}

/// Live bytes of `n_cores(n)` (seed `getMemPressure`): private on core 0 X [0,1], Y [3,4];
/// on core k > 0 X [0,0] (never read there), Y [3,4]; shared stage [1,3] and handoff [2,3]
/// (hulls over all cores), counted once.
#[test]
fn memory_pressure_counts_shared_bytes_once() {
    for n in [2usize, 4, 8] {
        let r = run(&n_cores(n), &cfg()).unwrap();
        let p = &r.report.pressure;
        assert_eq!(p.shared, peak(2, 0, 16 * K), "n={n}");
        // core 0: 8 KiB private + 16 KiB shared at 3; core 1 the same; core 2's X (24 KiB)
        // alone at 0 ties and comes first; core k > 2: its X at 0
        let view: Vec<Peak> = (0..n as u64)
            .map(|k| match k {
                0 | 1 => peak(3, 8 * K, 16 * K),
                _ => peak(0, (k + 1) * 8 * K, 0),
            })
            .collect();
        assert_eq!(p.view.as_slice(), view.as_slice(), "n={n}");
        assert_eq!(p.private[0], peak(0, 8 * K, 0));
        // the device: every core's private bytes, the shared bytes once. At 3: n × Y + 16 KiB
        // (a per-core sum would count the 16 KiB n times); at 0: every X
        let at0 = (1..=n as u64).map(|k| k * 8 * K).sum::<u64>();
        let at3 = n as u64 * 8 * K;
        let device = if at0 > at3 + 16 * K { peak(0, at0, 0) } else { peak(3, at3, 16 * K) };
        assert_eq!(p.device, device, "n={n}");
    }
    assert_eq!(run(&n_cores(2), &cfg()).unwrap().report.pressure.device, peak(3, 16 * K, 16 * K));
    assert_eq!(run(&n_cores(4), &cfg()).unwrap().report.pressure.device, peak(0, 80 * K, 0));
}

#[test]
fn the_hbm_budget_check_names_core_instruction_and_bytes_before_placement() {
    let c = |window| MultiConfig {
        plan: PlanConfig { window, cc: CcSize::Mib(0), strategy: Strategy::Seed },
        ..MultiConfig::default()
    };
    // both cores hold 24 KiB live at 3 (8 KiB private + 16 KiB shared): 20 KiB cannot fit
    let e = run(&n_cores(2), &c(20 * K)).unwrap_err();
    assert_eq!(e.pass, Pass::DramAllocation);
    assert_eq!(e.core, 0);
    assert_eq!(
        e.error,
        PlanError::OverBudget { instruction: 3, private_bytes: 8 * K, shared_bytes: 16 * K, budget: 20 * K }
    );
    // 24 KiB passes the budget (shared bytes counted once, not per core); the placement then
    // decides (the shared region stacks above core 1's 16 KiB private HWM: 32 KiB)
    let e = run(&n_cores(2), &c(24 * K)).unwrap_err();
    assert_eq!(e.pass, Pass::SharedDramAllocation);
    assert!(run(&n_cores(2), &c(32 * K)).is_ok());
    // slabs: a core's private bytes must fit its 1 MiB slab
    let mut progs = n_cores(2);
    progs[1].locs[0].bytes = 2 << 20;
    let slabs = MultiConfig { mode: SharedMode::Slabs { mb_per_core: 1 }, ..cfg() };
    let e = run(&progs, &slabs).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 1));
    assert_eq!(
        e.error,
        PlanError::OverBudget { instruction: 0, private_bytes: 2 << 20, shared_bytes: 0, budget: 1 << 20 }
    );
}

#[test]
fn slab_mode_puts_each_core_in_its_slab_and_shared_above() {
    let c = MultiConfig { mode: SharedMode::Slabs { mb_per_core: 1 }, ..cfg() };
    let r = run(&n_cores(4), &c).unwrap();
    for k in 0..4u64 {
        let x = r.addr(k as usize, "X").unwrap();
        assert!(x >= k << 20 && x < (k + 1) << 20, "core {k} X at {x}");
    }
    assert_eq!(r.report.shared_base, 4 << 20);
    assert_eq!(r.addr(3, "stage"), r.addr(0, "stage"));
}

#[test]
fn disable_gate_registers_no_dram_pass_and_leaves_spills_unaddressed() {
    let c = MultiConfig { disable_dram_allocation: true, ..cfg() };
    assert!(Pipeline::build(&c).passes().is_empty());
    let r = run(&n_cores(2), &c).unwrap();
    assert!(r.report.ran.is_empty());
    assert_eq!(r.report.unaddressed_spills, 8); // 4 spills on each of 2 cores
    assert!(r.addr.iter().flatten().all(Option::is_none));
    assert!(r.shared.iter().flatten().all(|s| !s), "no marking without the allocator");
    let on = run(&n_cores(2), &cfg()).unwrap();
    assert_eq!(
        on.report.ran.as_slice(),
        &[
            Pass::DramAllocation,
            Pass::DmaCleanup,
            Pass::BuildDependencies,
            Pass::AntiDependencyPostDram,
            Pass::SharedDramAllocation,
            Pass::SyncSharedAllocations,
            Pass::AntiDependencyPostSharedDram
        ]
    );
    assert_eq!(on.report.unaddressed_spills, 0);
    // fixed addresses are pre-placement, not the DRAM pass: they hold with the gate set
    let mut p = Prog::default();
    let x = p.spill("X", 4 * K, false);
    p.locs[x as usize] = Location::preplaced(4 * K, UsageClass::Input, 0);
    let pin = p.spill("pinned", 4 * K, false);
    p.locs[pin as usize] = Location::pinned(4 * K, 8 * K);
    let t = p.spill("T", 4 * K, false);
    p.at(0, &[Operand::use_(x), Operand::def(pin), Operand::def(t)], false);
    p.at(1, &[Operand::use_(pin), Operand::use_(t)], false);
    let r = run(&[p.clone(), p], &c).unwrap();
    for k in 0..2 {
        assert_eq!((r.addr(k, "X"), r.addr(k, "pinned"), r.addr(k, "T")), (Some(0), Some(8 * K), None));
    }
    assert_eq!(r.report.unaddressed_spills, 2);
}

#[test]
fn anti_dependency_edges_of_a_two_core_handoff_written_by_hand() {
    // core 0: 0 def H (shared handoff), 3 def G (shared, later, may reuse H's bytes)
    // core 1: 1 use H,                    4 use G
    let mut c0 = Prog::default();
    let h = c0.spill("H", 8 * K, true);
    let g = c0.spill("G", 8 * K, true);
    c0.at(0, &[Operand::def(h)], false);
    c0.at(3, &[Operand::def(g)], false);
    let mut c1 = Prog::default();
    let h1 = c1.spill("H", 8 * K, true);
    let g1 = c1.spill("G", 8 * K, true);
    c1.at(1, &[Operand::use_(h1)], false);
    c1.at(4, &[Operand::use_(g1)], false);
    let r = run(&[c0, c1], &cfg()).unwrap();
    // H lives [0,1], G [3,4]: they share bytes
    assert_eq!(r.addr(0, "H"), r.addr(0, "G"));
    let mut e: Vec<(u32, u32, u32, u32, DepKind)> = r
        .edges
        .iter()
        .map(|e| (e.from_core, e.from_instruction, e.to_core, e.to_instruction, e.kind()))
        .collect();
    e.sort_by_key(|x| (x.0, x.1, x.2, x.3));
    assert_eq!(
        e,
        vec![
            (0, 0, 1, 1, DepKind::Raw), // core 1 reads H after core 0 wrote it
            (0, 0, 1, 4, DepKind::Raw), // G's read touches bytes H's write touched (every pair is emitted)
            (0, 3, 1, 4, DepKind::Raw), // core 1 reads G after core 0 wrote it
            (1, 1, 0, 3, DepKind::War), // core 0 may overwrite H's bytes with G only after core 1 read H
        ]
    );
}

/// The pipeline's report on the two-core handoff, field by field, in each layout: windows
/// (the shared region above the larger private HWM, 16 KiB), slabs of 1 MiB (core k's private
/// tensors in slab k, the shared region at 2 MiB, the CC base above it at 3 MiB), and windows
/// with a 1 MiB CC region (the collective's 12 KiB staging buffer at its base, the handoff
/// alone in the shared region). Both handoffs are RAW edges core 0 -> core 1; X and Y share
/// address 0 on each core (one reuse pair, one private WAR edge a core).
#[test]
fn the_pipeline_reports_exactly_in_each_layout() {
    let slabs = MultiConfig { mode: SharedMode::Slabs { mb_per_core: 1 }, ..cfg() };
    let with_cc = MultiConfig { plan: PlanConfig { cc: CcSize::Mib(1), ..cfg().plan }, ..cfg() };
    let w = run(&n_cores(2), &cfg()).unwrap();
    let s = run(&n_cores(2), &slabs).unwrap();
    let c = run(&n_cores(2), &with_cc).unwrap();
    let fields = |r: &Run| {
        let p = &r.report;
        (p.shared_tensors, p.shared_base, p.shared_region_bytes, p.cc_base, p.cc_bytes, p.cc_tensors)
    };
    assert_eq!(fields(&w), (2, 16 * K, 16 * K, 1 << 30, 0, 0));
    assert_eq!(fields(&s), (2, 2 << 20, 16 * K, 3 << 20, 0, 0));
    assert_eq!(fields(&c), (2, 16 * K, 4 * K, (1 << 30) - (1 << 20), 1 << 20, 1));
    assert_eq!(
        (c.report.collective_base, c.report.collective_bytes, c.report.cc_used),
        ((1 << 30) - (1 << 20), 12 * K, 12 * K)
    );
    for r in [&w, &s, &c] {
        let p = &r.report;
        assert_eq!(
            (p.synced, p.edges, p.reuse_pairs, p.private_war_edges, p.operand_pairs_checked),
            (2, 2, 2, 2, 0)
        );
    }
    assert_eq!((w.addr(1, "X"), s.addr(1, "X"), s.addr(1, "Y")), (Some(0), Some(1 << 20), Some(1 << 20)));
    assert_eq!(
        (w.addr(0, "handoff"), s.addr(0, "handoff"), c.addr(0, "stage")),
        (Some(28 * K), Some((2 << 20) + 12 * K), Some((1 << 30) - (1 << 20)))
    );
    assert_eq!((w.hwm, s.hwm), (vec![8 * K, 16 * K], vec![8 * K, (1 << 20) + 16 * K]));
}

/// Two cores, each: A (`a_bytes`) defined at 0, read at 1 by the instruction that writes B
/// (4 KiB), B read at 2.
fn read_then_write(a_bytes: u64) -> Vec<Prog> {
    (0..2)
        .map(|_| {
            let mut p = Prog::default();
            let a = p.spill("A", a_bytes, false);
            let b = p.spill("B", 4 * K, false);
            p.at(0, &[Operand::def(a)], false);
            p.at(1, &[Operand::use_(a), Operand::def(b)], false);
            p.at(2, &[Operand::use_(b)], false);
            p
        })
        .collect()
}

/// The DMA clean-up pass counts the pairs of distinct addressed DRAM operands of one
/// instruction: a core whose instruction 1 reads A and writes B has one.
#[test]
fn the_dma_cleanup_counts_operand_pairs() {
    let progs = read_then_write(4 * K);
    let r = run(&progs, &cfg()).unwrap();
    assert_eq!((r.report.operand_pairs_checked, r.addr(0, "A"), r.addr(0, "B")), (2, Some(0), Some(4 * K)));
}

/// No modules is a bad core count; fewer states than modules is not (the count is
/// supported, the states slice is short): a capacity error of the module states. Both before
/// any pass runs.
#[test]
fn a_bad_core_count_and_too_few_states_are_errors() {
    let progs = b12();
    let names = names_of(&progs);
    let modules = modules_of(&progs, &names);
    let mut host = Box::new(Storage::new());
    let (mut storage, mut states) = host.split();
    let c = cfg();
    let pipeline = Pipeline::build(&c);
    let at_start = |error| MultiError { pass: Pass::DramAllocation, core: 0, error };
    let e = pipeline.run(&c, &[], &mut states, &mut storage).unwrap_err();
    assert_eq!(e, at_start(PlanError::BadCoreCount { cores: 0 }));
    assert_eq!(e.error.to_string(), "core count 0 is not supported");
    // fewer states than modules: the states are short, not the core count (a trial's 3
    // modules with 2 states said "core count 3 is not supported")
    let e = pipeline.run(&c, &modules, &mut states[..1], &mut storage).unwrap_err();
    let short = PlanError::Capacity { store: Store::ModuleStates, needed: 2, capacity: 1 };
    assert_eq!(e, at_start(short));
    assert_eq!(
        e.error.to_string(),
        "fixed-capacity store ModuleStates is full: 2 entries needed, capacity 1"
    );
    assert!(pipeline.run(&c, &modules, &mut states[..2], &mut storage).is_ok());
}

/// A module with fewer names than locations is the caller's input mistake, named with the
/// core and both counts (not a store that is full); a core's location states or name-index
/// slots shorter than its locations are the capacity of that store. All before any pass.
#[test]
fn too_few_names_and_short_location_states_name_their_cause() {
    let progs = b12();
    let names = names_of(&progs);
    let c = cfg();
    let pipeline = Pipeline::build(&c);
    // core 1 has locations P1 and S: give it one name
    let mut modules = modules_of(&progs, &names);
    modules[1].names = &names[1][..1];
    let mut host = Box::new(Storage::new());
    let (mut storage, mut states) = host.split();
    let e = pipeline.run(&c, &modules, &mut states[..2], &mut storage).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 1));
    assert_eq!(e.error, PlanError::TooFewNames { core: 1, names: 1, locations: 2 });
    assert_eq!(e.error.to_string(), "core 1: 1 names given for 2 locations (one name per location)");
    // core 1's location states, then its name index, one short
    let modules = modules_of(&progs, &names);
    for store in [Store::LocationStates, Store::NameIndex] {
        let mut host = Box::new(Storage::new());
        let (mut storage, mut states) = host.split();
        match store {
            Store::LocationStates => states[1].locations = &mut std::mem::take(&mut states[1].locations)[..1],
            _ => states[1].by_name = &mut std::mem::take(&mut states[1].by_name)[..1],
        }
        let e = pipeline.run(&c, &modules, &mut states[..2], &mut storage).unwrap_err();
        assert_eq!((e.pass, e.core), (Pass::DramAllocation, 1));
        assert_eq!(e.error, PlanError::Capacity { store, needed: 2, capacity: 1 });
        assert_eq!(
            e.error.to_string(),
            format!("fixed-capacity store {store:?} is full: 2 entries needed, capacity 1")
        );
    }
}

/// Reuse pairs and private WAR edges, counted exactly: on each of two cores A, B and C (4 KiB,
/// one after the other) share one address while D (8 KiB) lives throughout beside them: three
/// pairs a core, each with disjoint hulls, so three WAR edges a core.
#[test]
fn reuse_pairs_and_private_war_edges_exactly() {
    let progs: Vec<Prog> = (0..2)
        .map(|_| {
            let mut p = Prog::default();
            let d = p.spill("D", 8 * K, false);
            let [a, b, c] = ["A", "B", "C"].map(|n| p.spill(n, 4 * K, false));
            p.at(0, &[Operand::def(d), Operand::def(a)], false);
            p.at(1, &[Operand::use_(a)], false);
            p.at(2, &[Operand::def(b)], false);
            p.at(3, &[Operand::use_(b)], false);
            p.at(4, &[Operand::def(c)], false);
            p.at(5, &[Operand::use_(c), Operand::use_(d)], false);
            p
        })
        .collect();
    let r = run(&progs, &cfg()).unwrap();
    let at = |n| r.addr(0, n);
    assert_eq!((at("D"), at("A"), at("B"), at("C")), (Some(0), Some(8 * K), Some(8 * K), Some(8 * K)));
    assert_eq!((r.report.reuse_pairs, r.report.private_war_edges), (6, 6));
    // operand pairs: (D, A) at 0 and (C, D) at 5 on each core
    assert_eq!(r.report.operand_pairs_checked, 4);
}

/// Two operands of one instruction that overlap are the DMA clean-up's error, naming the
/// instruction and both locations. The planner never makes such a plan (the two interfere),
/// so the test moves B onto A after the DRAM pass, through the pipeline's observer.
#[test]
fn overlapping_operands_of_one_instruction_are_an_error() {
    let e = run_with(
        &read_then_write(8 * K),
        &cfg(),
        |_| {},
        |pass, st| {
            if pass == Pass::DramAllocation {
                st[1].locations[1].address = st[1].locations[0].address + 4 * K;
            }
        },
    )
    .unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DmaCleanup, 1));
    assert_eq!(e.error, PlanError::OperandOverlap { instruction: 1, a: 0, b: 1 });
}

/// The memory-pressure scratch must hold `scratch_len` words (3 × (instructions + 1)):
/// exactly that many run, one fewer is a capacity error before anything is placed.
#[test]
fn the_pressure_scratch_is_checked_exactly() {
    let progs = b12();
    let names = names_of(&progs);
    let need = dramalloc_core::multicore::pressure::scratch_len(&modules_of(&progs, &names));
    assert_eq!(need, 3 * (6 + 1));
    for (len, ok) in [(need, true), (need - 1, false)] {
        let r =
            run_with(&progs, &cfg(), |s| s.pressure = &mut std::mem::take(&mut s.pressure)[..len], |_, _| {});
        if ok {
            assert_eq!(r.map(|r| r.report.shared_base), Ok(24 * K));
        } else {
            let e = r.unwrap_err();
            assert_eq!((e.pass, e.core), (Pass::DramAllocation, 0));
            assert_eq!(
                e.error,
                PlanError::Capacity { store: Store::Pressure, needed: need, capacity: need - 1 }
            );
        }
    }
}

/// An operand naming a location past the function's list is an error, even where the state
/// has room for more locations.
#[test]
fn an_operand_past_the_location_list_is_an_error() {
    let mut progs = b12();
    progs[1].ops[0].location = 2; // core 1 has locations 0 and 1
    let e = run(&progs, &cfg()).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 1));
    assert_eq!(e.error, PlanError::UnknownLocation { instruction: 0, location: 2 });
}

/// In slabs, core k's private addresses are its plan's plus k slabs, and its HWM and
/// pre-placed floor are lifted by the slab start.
#[test]
fn slab_addresses_are_the_plan_plus_the_slab_start() {
    let progs: Vec<Prog> = (0..2)
        .map(|_| {
            let mut p = Prog::default();
            let d = p.spill("D", 8 * K, false);
            let a = p.spill("A", 4 * K, false);
            p.at(0, &[Operand::def(d), Operand::def(a)], false);
            p.at(1, &[Operand::use_(a), Operand::use_(d)], false);
            p
        })
        .collect();
    let c = MultiConfig { mode: SharedMode::Slabs { mb_per_core: 1 }, ..cfg() };
    let r = run(&progs, &c).unwrap();
    assert_eq!((r.addr(0, "D"), r.addr(0, "A")), (Some(0), Some(8 * K)));
    assert_eq!((r.addr(1, "D"), r.addr(1, "A")), (Some(1 << 20), Some((1 << 20) + 8 * K)));
    assert_eq!(r.hwm, vec![12 * K, (1 << 20) + 12 * K]);
    assert_eq!(r.reserved, vec![0, 1 << 20]);
}

/// The shared-entry table and the access records are checked to the entry: b12 has one
/// shared tensor with three accesses (core 0 writes it at 1 and reads it at 4, core 1 reads
/// it at 4). Each table that runs out is named by its own store (the access records were
/// once named `Edges`, which sent a user to enlarge the edge table).
#[test]
fn the_shared_tables_are_checked_exactly() {
    // (entries, accesses) kept, and the error (core, store, needed, capacity) if any
    let cases =
        [(1, 3, None), (0, 3, Some((0, Store::Shared, 1, 0))), (1, 2, Some((1, Store::Accesses, 3, 2)))];
    for (entries, accesses, want) in cases {
        let shrink = |s: &mut MultiStorage<'_>| {
            s.shared = &mut std::mem::take(&mut s.shared)[..entries];
            s.accesses = &mut std::mem::take(&mut s.accesses)[..accesses];
        };
        let r = run_with(&b12(), &cfg(), shrink, |_, _| {});
        match want {
            None => assert_eq!(r.map(|r| (r.report.shared_tensors, r.report.edges)), Ok((1, 1))),
            Some((core, store, needed, capacity)) => {
                let e = r.unwrap_err();
                assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, core));
                assert_eq!(e.error, PlanError::Capacity { store, needed, capacity });
                assert_eq!(
                    e.error.to_string(),
                    format!("fixed-capacity store {store:?} is full: {needed} entries needed, capacity {capacity}")
                );
            }
        }
    }
    let accesses = PlanError::Capacity { store: Store::Accesses, needed: 3, capacity: 2 };
    assert_eq!(accesses.to_string(), "fixed-capacity store Accesses is full: 3 entries needed, capacity 2");
}

/// The user trial's case: two cores, one shared spill, and a `StaticMulti` with one
/// shared-access record (`A = 1`) and room for eight edges: the error names the access
/// records, not the edges.
#[test]
fn one_access_record_is_named_as_accesses_not_edges() {
    let mut host = Box::new(StaticMulti::<2, 3, 6, 3, 1, 8, 12>::new());
    let (mut storage, mut states) = host.split();
    // core 0 writes S at 0 and reads it at 1; core 1 reads it at 1
    let progs: Vec<Prog> = (0..2)
        .map(|k| {
            let mut p = Prog::default();
            let s = p.spill("S", 4 * K, true);
            if k == 0 {
                p.at(0, &[Operand::def(s)], false);
            }
            p.at(1, &[Operand::use_(s)], false);
            p
        })
        .collect();
    let names = names_of(&progs);
    let modules = modules_of(&progs, &names);
    let c = cfg();
    let e = Pipeline::build(&c).run(&c, &modules, &mut states, &mut storage).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::SharedDramAllocation, 0));
    assert_eq!(e.error, PlanError::Capacity { store: Store::Accesses, needed: 2, capacity: 1 });
    // three records (the accesses of both cores) are enough, with the same eight edges
    let mut host = Box::new(StaticMulti::<2, 3, 6, 3, 3, 8, 12>::new());
    let (mut storage, mut states) = host.split();
    assert!(Pipeline::build(&c).run(&c, &modules, &mut states, &mut storage).is_ok());
}

/// A remote-local target dropped on core 2 of 3 after the shared allocation: the sync pass
/// fails with `MissingTwin` and the error is core 2's.
#[test]
fn a_dropped_remote_target_is_the_sync_error_of_its_core() {
    let e = run_with(
        &n_cores(3),
        &cfg(),
        |_| {},
        |pass, st| {
            if pass == Pass::SharedDramAllocation {
                st[2].locations[2].clear_remote_target(); // core 2's "handoff"
            }
        },
    )
    .unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::SyncSharedAllocations, 2));
    assert!(matches!(e.error, PlanError::MissingTwin { core: 2, location: 2, .. }), "{e}");
}

/// 64 cores (MAX_CORES) run; 65 are a bad core count.
#[test]
fn sixty_four_cores_run_and_sixty_five_do_not() {
    let progs = n_cores(65);
    let names = names_of(&progs);
    let modules = modules_of(&progs, &names);
    let mut host = Box::new(StaticMulti::<65, 8, 16, 8, 1024, 1024, 64>::new());
    let (mut storage, mut states) = host.split();
    let c = cfg();
    let pipeline = Pipeline::build(&c);
    let r = pipeline.run(&c, &modules[..64], &mut states[..64], &mut storage).unwrap();
    assert_eq!((r.shared_tensors, r.synced), (2, 2 * 63));
    let e = pipeline.run(&c, &modules, &mut states, &mut storage).unwrap_err();
    assert_eq!(e.error, PlanError::BadCoreCount { cores: 65 });
}

/// Slabs whose `cores + 1` copies overflow the address space are refused before anything is
/// placed: 2^63 - 2^20 bytes a slab fits twice in 64 bits, not three times (2 cores + the
/// shared slab).
#[test]
fn slabs_that_overflow_the_address_space_are_refused() {
    let c = MultiConfig { mode: SharedMode::Slabs { mb_per_core: (1 << 43) - 1 }, ..cfg() };
    let e = run(&n_cores(2), &c).unwrap_err();
    assert_eq!((e.pass, e.core), (Pass::DramAllocation, 0));
    assert_eq!(e.error, PlanError::SlabsOverflow { cores: 2, mb_per_core: (1 << 43) - 1, cc_bytes: 0 });
}
