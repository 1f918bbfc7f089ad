//! Every bad input to the core API gets a typed error naming the culprit, and nothing is
//! changed by it: for the planner, the same workspace re-plans the good input to the very same
//! addresses and metrics after the error; for the allocator, statistics and block table are
//! equal before and after. (Input-file errors are in `tests/inputs.rs`.)

use dramalloc_core::banked::{size_per_bank, BankedError, FreeList, FreeListConfig, Policy};
use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand, UsageClass};
use dramalloc_core::multicore::{Module, MultiConfig, Pipeline};
use dramalloc_core::{
    plan_buffers, plan_function, Buffer, CcSize, PlanConfig, PlanError, StaticWorkspace, Store, Strategy,
};
use dramalloc_sim::host_storage::HostMulti;

const K: u64 = 1024;

fn cfg(window: u64) -> PlanConfig {
    PlanConfig { window, cc: CcSize::Mib(0), strategy: Strategy::Seed }
}

/// Plans the good input, then the bad one (must fail with `want`), then the good one again:
/// the result must not change.
fn bad_buffers(bad: &[Buffer], window: u64, want: PlanError) {
    let good = [Buffer::new(0, 9, 4 * K), Buffer::new(3, 5, 8 * K), Buffer::new(5, 8, 8 * K)];
    let mut st: StaticWorkspace<8, 8, 8> = StaticWorkspace::new();
    let mut ws = st.workspace();
    let before = plan_buffers(&good, 4096, &cfg(1 << 30), &mut ws).unwrap();
    let addr_before: Vec<u64> = ws.infos[..3].iter().map(|i| i.address).collect();
    assert_eq!(plan_buffers(bad, 4096, &cfg(window), &mut ws), Err(want));
    let after = plan_buffers(&good, 4096, &cfg(1 << 30), &mut ws).unwrap();
    let addr_after: Vec<u64> = ws.infos[..3].iter().map(|i| i.address).collect();
    assert_eq!((before, addr_before), (after, addr_after));
}

#[test]
fn zero_size_tensor() {
    bad_buffers(
        &[Buffer::new(0, 1, 4096), Buffer::new(0, 1, 0)],
        1 << 30,
        PlanError::ZeroSize { location: 1 },
    );
}

#[test]
fn interval_with_use_before_def() {
    bad_buffers(
        &[Buffer::new(5, 3, 4096)],
        1 << 30,
        PlanError::BadInterval { location: 0, def: 5, last_use: 3 },
    );
}

#[test]
fn fixed_address_not_aligned() {
    bad_buffers(
        &[Buffer::pinned(0, 3, 4096, 100)],
        1 << 30,
        PlanError::MisalignedFixed { location: 0, address: 100, align: 4096 },
    );
}

#[test]
fn two_interfering_pinned_tensors_overlapping() {
    bad_buffers(
        &[Buffer::new(0, 9, 4096), Buffer::pinned(0, 3, 8192, 0), Buffer::pinned(3, 5, 4096, 4096)],
        1 << 30,
        PlanError::PinnedOverlap { a: 1, b: 2 },
    );
}

#[test]
fn tensor_larger_than_the_window() {
    bad_buffers(
        &[Buffer::new(0, 3, 2 << 20)],
        1 << 20,
        PlanError::DoesNotFit {
            location: 0,
            size: 2 << 20,
            needed: 2 << 20,
            available: 1 << 20,
            largest_gap: 1 << 20,
        },
    );
    bad_buffers(
        &[Buffer::pinned(0, 3, 8192, 1 << 20)],
        1 << 20,
        PlanError::OutsideWindow { location: 0, end: (1 << 20) + 8192, window: 1 << 20 },
    );
}

#[test]
fn u64_overflow_in_address_plus_size() {
    bad_buffers(
        &[Buffer::new(0, 3, u64::MAX - 10)],
        1 << 30,
        PlanError::SizeOverflow { location: 0, bytes: u64::MAX - 10 },
    );
    let top = u64::MAX - 4095; // 4096-aligned, address + 8192 overflows
    bad_buffers(
        &[Buffer::pinned(0, 3, 8192, top)],
        1 << 30,
        PlanError::SizeOverflow { location: 0, bytes: 8192 },
    );
}

#[test]
fn capacity_of_a_fixed_capacity_store_exceeded() {
    let bufs: Vec<Buffer> = (0..9).map(|i| Buffer::new(i, i + 1, 4096)).collect();
    bad_buffers(&bufs, 1 << 30, PlanError::Capacity { store: Store::Infos, needed: 9, capacity: 8 });
}

#[test]
fn use_before_any_def_names_location_and_instruction() {
    let locs = [Location::spill(4096), Location::spill(4096)];
    let ops = [Operand::def(0), Operand::use_(1), Operand::use_(0)];
    let ins = [
        Instruction { first: 0, count: 1, collective: false },
        Instruction { first: 1, count: 2, collective: false },
    ];
    let f = Function { locations: &locs, instructions: &ins, operands: &ops };
    let mut st: StaticWorkspace<4, 4, 4> = StaticWorkspace::new();
    assert_eq!(
        plan_function(&f, &cfg(1 << 30), &mut st.workspace()),
        Err(PlanError::UseBeforeDef { location: 1, instruction: 1 })
    );
    let unknown = [Operand::def(0), Operand::use_(7)];
    let f = Function { locations: &locs, instructions: &ins[..1], operands: &unknown };
    let ins2 = [Instruction { first: 0, count: 2, collective: false }];
    let f = Function { instructions: &ins2, ..f };
    assert_eq!(
        plan_function(&f, &cfg(1 << 30), &mut st.workspace()),
        Err(PlanError::UnknownLocation { instruction: 0, location: 7 })
    );
    let pre = [Location { address: None, ..Location::preplaced(64, UsageClass::Weight, 0) }];
    let f = Function { locations: &pre, instructions: &[], operands: &[] };
    assert_eq!(
        plan_function(&f, &cfg(1 << 30), &mut st.workspace()),
        Err(PlanError::UnplacedPreplaced { location: 0 })
    );
}

#[test]
fn shared_tensor_with_a_missing_twin() {
    // core 1 shares `S`, core 0 has no tensor of that name
    let l0 = [Location::spill(4096)];
    let l1 = [Location { shared: true, ..Location::spill(4096) }];
    let ops = [Operand::def(0), Operand::use_(0)];
    let ins = [
        Instruction { first: 0, count: 1, collective: false },
        Instruction { first: 1, count: 1, collective: false },
    ];
    let (n0, n1) = (["P"], ["S"]);
    let modules = [
        Module { function: Function { locations: &l0, instructions: &ins, operands: &ops }, names: &n0 },
        Module { function: Function { locations: &l1, instructions: &ins, operands: &ops }, names: &n1 },
    ];
    let mut host = HostMulti::new(&modules, 16);
    let (mut storage, mut states) = host.split();
    let c = MultiConfig { plan: cfg(1 << 30), ..MultiConfig::default() };
    let e = Pipeline::build(&c).run(&c, &modules, &mut states, &mut storage).unwrap_err();
    assert_eq!(e.core, 1);
    assert_eq!(
        e.error,
        PlanError::MissingTwin { core: 1, location: 0, target_core: 0, target_location: u32::MAX }
    );
}

// ---- the allocator: the state before and after a failing call is equal ----

type Fl = FreeList<64>;

fn snapshot(f: &Fl) -> (dramalloc_core::banked::Statistics, Vec<dramalloc_core::banked::BlockInfo>) {
    (f.statistics(), f.blocks().collect())
}

fn allocator() -> Fl {
    let mut f = Fl::new(FreeListConfig::new(1 << 20, 0, 1024, 1024, Policy::First)).unwrap();
    assert_eq!(f.allocate(4 * K, true), Ok(0));
    assert_eq!(f.allocate(4 * K, true), Ok(4 * K));
    assert_eq!(f.allocate(4 * K, true), Ok(8 * K));
    f.free(4 * K).unwrap();
    f
}

fn unchanged(op: impl FnOnce(&mut Fl) -> Result<u64, BankedError>, want: BankedError) {
    let mut f = allocator();
    let before = snapshot(&f);
    assert_eq!(op(&mut f), Err(want));
    assert_eq!(snapshot(&f), before);
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn free_of_an_unknown_address() {
    unchanged(|f| f.free(2 * K), BankedError::UnknownFree { address: 2 * K });
}

#[test]
fn double_free() {
    unchanged(|f| f.free(4 * K), BankedError::DoubleFree { address: 4 * K });
}

#[test]
fn allocate_at_over_a_live_block() {
    unchanged(
        |f| f.allocate_at(6 * K, 4 * K),
        BankedError::Overlap { address: 6 * K, size: 4 * K, conflict_address: 8 * K, conflict_size: 4 * K },
    );
}

#[test]
fn shrink_past_an_allocated_block() {
    unchanged(|f| f.shrink(2 * K).map(|_| 0), BankedError::ShrinkPastAllocation { bytes: 2 * K, address: 0 });
}

#[test]
fn page_size_not_dividing_the_buffer_size() {
    assert_eq!(
        size_per_bank(100, 64, 12, 32),
        Err(BankedError::PageSizeMismatch { size: 100, page_size: 64 })
    );
    assert_eq!(
        size_per_bank(4096, 0, 12, 32),
        Err(BankedError::PageSizeMismatch { size: 4096, page_size: 0 })
    );
}

#[test]
fn cc_region_reaching_into_the_preplaced_tensors() {
    // a 3 MiB pre-placed weight at 0 and a 2 MiB CC region at the top of a 4 MiB window: the
    // region [2 MiB, 4 MiB) would overlap the weight (found by a fresh-user run, where it
    // surfaced as a DMA overlap during execution)
    let locs = [Location::preplaced(3 << 20, UsageClass::Weight, 0), Location::spill(4096)];
    let ops = [Operand::use_(0), Operand::def(1)];
    let ins = [Instruction { first: 0, count: 2, collective: false }];
    let f = Function { locations: &locs, instructions: &ins, operands: &ops };
    let mut st: StaticWorkspace<4, 4, 4> = StaticWorkspace::new();
    let cfg = PlanConfig { window: 4 << 20, cc: CcSize::Mib(2), strategy: Strategy::Seed };
    assert_eq!(
        plan_function(&f, &cfg, &mut st.workspace()),
        Err(PlanError::CcRegionOverlapsPreplaced { cc_bytes: 2 << 20, floor: 3 << 20, window: 4 << 20 })
    );
    // one more MiB of window and the region sits just above the weight
    let cfg = PlanConfig { window: 5 << 20, ..cfg };
    assert!(plan_function(&f, &cfg, &mut st.workspace()).is_ok());
}
