//! The core's small value mappings, tested at the core level (issue 18: mutation testing left
//! them alive, because only the simulator's suite used them): the CC region's knob and its
//! auto size, the strategy names, and the `Display` of the errors and buffer types. Every
//! test asserts exact values.

use dramalloc_core::banked::BufferType;
use dramalloc_core::cc_region::{cc_buffer_size, CcSize};
use dramalloc_core::liveness::program::{Function, Instruction, Location, MemoryType, Operand, UsageClass};
use dramalloc_core::{PlanError, Strategy};

/// Seed "CC-Buffer Auto-Sizing": every operand of every collective instruction counts (each
/// occurrence), the others do not, and an operand naming no location is skipped. A spill
/// of 5,000 bytes is 8,192 + 5,000; one of 100 bytes is 4,096 + 100.
#[test]
fn cc_buffer_size_sums_the_operands_of_collectives_only() {
    let locations = [Location::spill(5000), Location::spill(100)];
    let instructions = [
        Instruction { first: 0, count: 2, collective: true },
        Instruction { first: 2, count: 1, collective: false },
        Instruction { first: 3, count: 2, collective: true },
    ];
    let operands = [Operand::use_(0), Operand::def(1), Operand::use_(0), Operand::use_(0), Operand::use_(9)];
    let f = Function { locations: &locations, instructions: &instructions, operands: &operands };
    assert_eq!(cc_buffer_size(&f), 13_192 + 4_196 + 13_192);
    let none = [Instruction { first: 0, count: 3, collective: false }];
    let f = Function { locations: &locations, instructions: &none, operands: &operands };
    assert_eq!(cc_buffer_size(&f), 0);
}

/// `--allreduce-buffer-size`: -1 is auto, 0 and up are MiB, anything below -1 is refused.
#[test]
fn the_cc_knob() {
    assert_eq!(CcSize::from_knob(-1), Some(CcSize::Auto));
    assert_eq!(CcSize::from_knob(0), Some(CcSize::Mib(0)));
    assert_eq!(CcSize::from_knob(7), Some(CcSize::Mib(7)));
    assert_eq!(CcSize::from_knob(-2), None);
    assert_eq!(CcSize::from_knob(i64::MIN), None);
}

/// A region as large as the window fits; one byte more, or a size that overflows, is
/// `CcRegionTooLarge` with the bytes asked for.
#[test]
fn a_cc_region_larger_than_the_window_is_refused() {
    assert_eq!(CcSize::Mib(1).bytes(0, 1 << 20), Ok(1 << 20));
    assert_eq!(
        CcSize::Bytes((1 << 20) + 1).bytes(0, 1 << 20),
        Err(PlanError::CcRegionTooLarge { cc_bytes: (1 << 20) + 1, window: 1 << 20 })
    );
    assert_eq!(
        CcSize::Mib(2).bytes(0, 1 << 20),
        Err(PlanError::CcRegionTooLarge { cc_bytes: 2 << 20, window: 1 << 20 })
    );
    assert_eq!(
        CcSize::Mib(u64::MAX).bytes(0, 1 << 20),
        Err(PlanError::CcRegionTooLarge { cc_bytes: u64::MAX, window: 1 << 20 })
    );
    assert_eq!(CcSize::Auto.bytes(4097, 1 << 20), Ok(8192));
}

/// Every strategy's command-line name, and the way back.
#[test]
fn strategy_names_round_trip() {
    let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "seed",
            "greedy-size",
            "best-fit",
            "skyline",
            "sweep",
            "exact",
            "auto",
            "greedy-start",
            "greedy-load",
            "greedy-class",
            "best-fit-start"
        ]
    );
    for s in Strategy::ALL {
        assert_eq!(Strategy::from_name(s.name()), Some(s));
    }
    assert_eq!(Strategy::from_name("Seed"), None);
    assert_eq!(Strategy::from_name(""), None);
}

/// What a user reads: the error's and the buffer type's text.
#[test]
fn errors_and_buffer_types_display_their_text() {
    assert_eq!(PlanError::ZeroSize { location: 3 }.to_string(), "location 3 has size 0 bytes");
    assert_eq!(
        PlanError::BadInterval { location: 2, def: 9, last_use: 4 }.to_string(),
        "location 2: liveness interval [9, 4] has use < def"
    );
    assert_eq!(BufferType::Dram.to_string(), "DRAM");
    assert_eq!(BufferType::L1.to_string(), "L1");
}

/// A planner candidate is a DRAM spill, nothing else: not a pre-placed input, not an SBUF
/// spill.
#[test]
fn only_dram_spills_are_candidates() {
    assert!(Location::spill(8).is_candidate());
    assert!(Location::pinned(8, 4096).is_candidate());
    assert!(!Location::preplaced(8, UsageClass::Input, 0).is_candidate());
    let sbuf = Location { memory: MemoryType::Sbuf, ..Location::spill(8) };
    assert!(!sbuf.is_candidate());
}

/// The names `plan` prints for the portfolio's members.
#[test]
fn member_names() {
    use dramalloc_core::place::report::Member as M;
    let all = [
        M::Sweep,
        M::SweepLong(7),
        M::SweepLong(3),
        M::SweepLong(1),
        M::SweepHot(3),
        M::Skyline(0),
        M::Skyline(1),
        M::Skyline(2),
        M::GreedyLoad,
        M::GreedySize,
        M::GreedyStart,
        M::GreedyClass,
        M::BestFit,
        M::BestFitStart,
        M::Seed,
        M::BranchAndBound,
        M::Repair,
        M::SkylineTimed,
    ];
    let names: Vec<&str> = all.iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        [
            "sweep",
            "sweep-long/128",
            "sweep-long/8",
            "sweep-long/2",
            "sweep-hot/8",
            "skyline-wat",
            "skyline-taw",
            "skyline-twa",
            "greedy-load",
            "greedy-size",
            "greedy-start",
            "greedy-class",
            "best-fit",
            "best-fit-start",
            "seed",
            "branch-and-bound",
            "repair",
            "skyline (timed)"
        ]
    );
}

/// The `Debug` text of the search budget (its callbacks left out, whether it has a host claim) and of a `TakeOnce`, and a
/// `TakeOnce` hands its value out once.
#[test]
fn budget_and_take_once_debug_and_take() {
    use dramalloc_core::place::exact::Budget;
    use dramalloc_core::static_storage::TakeOnce;
    let mut go = || true;
    let budget = Budget::new(7, 9, &mut go);
    assert_eq!(
        format!("{budget:?}"),
        "Budget { max_nodes: 7, work: 9, repair_work: 0, claim: false, nanos_left: false, .. }"
    );
    static CELL: TakeOnce<u32> = TakeOnce::new(5);
    assert_eq!(format!("{CELL:?}"), "TakeOnce");
    assert_eq!(CELL.take().map(|v| *v), Some(5));
    assert_eq!(CELL.take(), None);
}
