//! The liveness builder (`liveness::intervals::build_from_function[_excluding]`) on its error
//! and edge paths, at the core level (issue 18: its comparisons were left alive by mutation
//! testing). Every test asserts exact records, counts or error variants.

use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::liveness::intervals::{build_from_function, build_from_function_excluding, Built};
use dramalloc_core::liveness::program::{Function, Instruction, Location, MemoryType, Operand, UsageClass};
use dramalloc_core::{PlanError, StaticWorkspace, Store};

fn ins(first: u32, count: u32) -> Instruction {
    Instruction { first, count, collective: false }
}

fn coll(first: u32, count: u32) -> Instruction {
    Instruction { first, count, collective: true }
}

type Ws = StaticWorkspace<8, 16, 8>;

fn build(
    locs: &[Location],
    instrs: &[Instruction],
    ops: &[Operand],
) -> Result<(Built, Vec<Node>), PlanError> {
    let f = Function { locations: locs, instructions: instrs, operands: ops };
    let mut st = Ws::new();
    let mut ws = st.workspace();
    let b = build_from_function(&f, &mut ws)?;
    Ok((b, ws.nodes[..b.intervals as usize].to_vec()))
}

#[test]
fn zero_byte_spill_is_an_error_but_a_zero_byte_input_is_skipped() {
    let ops = [Operand::def(0)];
    assert_eq!(build(&[Location::spill(0)], &[ins(0, 1)], &ops), Err(PlanError::ZeroSize { location: 0 }));
    let locs = [Location::preplaced(0, UsageClass::Input, 0), Location::spill(1)];
    let (b, nodes) = build(&locs, &[ins(0, 2)], &[Operand::use_(0), Operand::def(1)]).unwrap();
    assert_eq!((b.infos, b.preplaced_hwm, b.preplaced_bytes), (1, None, 0));
    assert_eq!(nodes, [Node::new(0, 0, 0)]);
}

#[test]
fn size_overflow_on_rounding_and_on_the_preplaced_end() {
    let ops = [Operand::def(0)];
    let huge = u64::MAX - 4094; // rounds past u64::MAX
    assert_eq!(
        build(&[Location::spill(huge)], &[ins(0, 1)], &ops),
        Err(PlanError::SizeOverflow { location: 0, bytes: huge })
    );
    let locs = [Location::spill(1), Location::preplaced(4096, UsageClass::Weight, u64::MAX - 4095)];
    assert_eq!(build(&locs, &[ins(0, 1)], &ops), Err(PlanError::SizeOverflow { location: 1, bytes: 4096 }));
    // Exactly at the top: addr + aligned == u64::MAX + 1 overflows, one page lower fits.
    let locs = [Location::spill(1), Location::preplaced(4096, UsageClass::Weight, u64::MAX - 8191)];
    let (b, _) = build(&locs, &[ins(0, 1)], &ops).unwrap();
    assert_eq!((b.preplaced_hwm, b.preplaced_top, b.preplaced_bytes), (Some(u64::MAX - 4096), 1, 4096));
}

#[test]
fn pinned_spill_errors() {
    let ops = [Operand::def(0)];
    assert_eq!(
        build(&[Location::pinned(10, 4097)], &[ins(0, 1)], &ops),
        Err(PlanError::MisalignedFixed { location: 0, address: 4097, align: 4096 })
    );
    assert_eq!(
        build(&[Location::pinned(10, u64::MAX - 4095)], &[ins(0, 1)], &ops),
        Err(PlanError::SizeOverflow { location: 0, bytes: 10 })
    );
    // A pinned spill needs no interval; it is not spill bytes.
    let (b, nodes) =
        build(&[Location::pinned(10, 8192), Location::spill(3)], &[ins(0, 1)], &[Operand::def(1)]).unwrap();
    assert_eq!((b.infos, b.intervals, b.spill_bytes, b.aligned_spill_bytes), (2, 1, 3, 4096));
    assert_eq!(nodes, [Node::new(0, 0, 1)]);
}

#[test]
fn preplaced_hwm_keeps_the_first_of_equal_tops_and_sums_bytes() {
    let locs = [
        Location::preplaced(100, UsageClass::Input, 0),      // ends 4095
        Location::preplaced(4096, UsageClass::Output, 8192), // ends 12287
        Location::preplaced(1, UsageClass::Weight, 12288 - 4096), // ends 12287 too
        Location::preplaced(5, UsageClass::Weight, 4096),    // ends 8191
        Location::spill(1),
    ];
    let (b, _) = build(&locs, &[ins(0, 1)], &[Operand::def(4)]).unwrap();
    assert_eq!((b.preplaced_hwm, b.preplaced_top, b.preplaced_bytes), (Some(12287), 1, 4202));
    // The single input at address 0 of one page: hwm 4095, top 0.
    let (b, _) = build(&locs[..1], &[], &[]).unwrap();
    assert_eq!((b.preplaced_hwm, b.preplaced_top, b.infos), (Some(4095), 0, 0));
}

#[test]
fn non_dram_locations_are_ignored() {
    let sbuf = Location { memory: MemoryType::Sbuf, ..Location::spill(0) };
    let psum = Location { memory: MemoryType::Psum, ..Location::preplaced(64, UsageClass::Input, 3) };
    let locs = [sbuf, psum, Location::spill(8)];
    let ops = [Operand::use_(0), Operand::use_(1), Operand::def(2), Operand::use_(2)];
    let (b, nodes) = build(&locs, &[coll(0, 3), ins(3, 1)], &ops).unwrap();
    // The DRAM operand adds its bytes plus a 4096-byte footprint (`cc_region::operand_cc_bytes`);
    // the SBUF and PSUM operands add nothing.
    assert_eq!((b.infos, b.intervals, b.preplaced_hwm, b.collective_bytes), (1, 1, None, 8 + 4096));
    assert_eq!(nodes, [Node::new(0, 1, 0)]);
}

#[test]
fn operand_range_and_unknown_location() {
    let locs = [Location::spill(1)];
    let ops = [Operand::def(0), Operand::use_(0)];
    assert_eq!(
        build(&locs, &[ins(0, 1), ins(1, 2)], &ops),
        Err(PlanError::OperandRange { instruction: 1, first: 1, count: 2 })
    );
    // Exactly the last operand: in range.
    let (b, nodes) = build(&locs, &[ins(0, 1), ins(1, 1)], &ops).unwrap();
    assert_eq!((b.intervals, nodes), (1, vec![Node::new(0, 1, 0)]));
    assert_eq!(
        build(&locs, &[ins(0, 1), ins(1, 1)], &[Operand::def(0), Operand::use_(1)]),
        Err(PlanError::UnknownLocation { instruction: 1, location: 1 })
    );
}

#[test]
fn uses_are_read_before_defs_within_an_instruction() {
    // 0: def A; 1: use A and def A (`A = f(A)`); 2: use A. The in-place def continues the run
    // its own use ended: one interval [0, 2].
    let ops = [Operand::def(0), Operand::def(0), Operand::use_(0), Operand::use_(0)];
    let (b, nodes) = build(&[Location::spill(1)], &[ins(0, 1), ins(1, 2), ins(3, 1)], &ops).unwrap();
    assert_eq!(b.intervals, 1);
    assert_eq!(nodes, [Node::new(0, 2, 0)]);
    // A use and a def in the first instruction is a use before def.
    assert_eq!(
        build(&[Location::spill(1)], &[ins(0, 2)], &[Operand::def(0), Operand::use_(0)]),
        Err(PlanError::UseBeforeDef { location: 0, instruction: 0 })
    );
    // A def one instruction after the last use (not in it) starts a new run.
    let ops = [Operand::def(0), Operand::use_(0), Operand::def(0), Operand::use_(0)];
    let (_, nodes) =
        build(&[Location::spill(1)], &[ins(0, 1), ins(1, 1), ins(2, 1), ins(3, 1)], &ops).unwrap();
    assert_eq!(nodes, [Node::new(0, 1, 0), Node::new(2, 3, 0)]);
    // Several uses of one def: one interval to the last use.
    let ops = [Operand::def(0), Operand::use_(0), Operand::use_(0), Operand::use_(0)];
    let (_, nodes) =
        build(&[Location::spill(1)], &[ins(0, 1), ins(1, 1), ins(2, 1), ins(3, 1)], &ops).unwrap();
    assert_eq!(nodes, [Node::new(0, 3, 0)]);
}

#[test]
fn an_unread_def_overwritten_gets_a_point_interval() {
    // def A at 0, def A at 1 (the first never read), use at 2.
    let ops = [Operand::def(0), Operand::def(0), Operand::use_(0)];
    let (_, nodes) = build(&[Location::spill(1)], &[ins(0, 1), ins(1, 1), ins(2, 1)], &ops).unwrap();
    assert_eq!(nodes, [Node::new(0, 0, 0), Node::new(1, 2, 0)]);
    // Read, then redefined: no point interval for the first def.
    let ops = [Operand::def(0), Operand::use_(0), Operand::def(0), Operand::use_(0)];
    let (_, nodes) =
        build(&[Location::spill(1)], &[ins(0, 1), ins(1, 1), ins(2, 1), ins(3, 1)], &ops).unwrap();
    assert_eq!(nodes, [Node::new(0, 1, 0), Node::new(2, 3, 0)]);
    // The last def unread at the end: a point interval at it.
    let ops = [Operand::def(0), Operand::use_(0), Operand::def(0)];
    let (_, nodes) = build(&[Location::spill(1)], &[ins(0, 1), ins(1, 1), ins(2, 1)], &ops).unwrap();
    assert_eq!(nodes, [Node::new(0, 1, 0), Node::new(2, 2, 0)]);
}

#[test]
fn a_candidate_never_touched_has_no_interval() {
    let locs = [Location::spill(1), Location::spill(2)];
    assert_eq!(build(&locs, &[ins(0, 1)], &[Operand::def(0)]), Err(PlanError::NoInterval { location: 1 }));
}

#[test]
fn collective_bytes_count_every_dram_operand_occurrence() {
    let locs = [Location::spill(100), Location::preplaced(7, UsageClass::Input, 0), Location::spill(5)];
    let ops = [
        Operand::def(0),
        Operand::use_(0),
        Operand::use_(1),
        Operand::use_(1),
        Operand::def(2),
        Operand::use_(2),
    ];
    let f = Function { locations: &locs, instructions: &[ins(0, 1), coll(1, 4), ins(5, 1)], operands: &ops };
    let mut st = Ws::new();
    let mut ws = st.workspace();
    let b = build_from_function(&f, &mut ws).unwrap();
    // Each occurrence: its bytes plus a 4096-byte footprint (`cc_region::operand_cc_bytes`).
    assert_eq!(b.collective_bytes, 100 + 7 + 7 + 5 + 4 * 4096);
    assert_eq!((ws.infos[0].collective, ws.infos[1].collective), (1, 1));
    // Not collective: zero.
    let f = Function { locations: &locs, instructions: &[ins(0, 1), ins(1, 4), ins(5, 1)], operands: &ops };
    let mut ws = st.workspace();
    let b = build_from_function(&f, &mut ws).unwrap();
    assert_eq!((b.collective_bytes, ws.infos[0].collective, ws.infos[1].collective), (0, 0, 0));
    // Saturates instead of overflowing.
    let big = [Location::preplaced(u64::MAX / 2, UsageClass::Input, 0), Location::spill(1)];
    let ops = [Operand::use_(0), Operand::use_(0), Operand::use_(0), Operand::def(1)];
    let f = Function { locations: &big, instructions: &[coll(0, 4)], operands: &ops };
    let b = build_from_function(&f, &mut st.workspace()).unwrap();
    assert_eq!(b.collective_bytes, u64::MAX);
}

#[test]
fn shared_flag_and_spill_totals_are_recorded() {
    let locs = [Location { shared: true, ..Location::spill(4097) }, Location::spill(1)];
    let f = Function {
        locations: &locs,
        instructions: &[ins(0, 2)],
        operands: &[Operand::def(0), Operand::def(1)],
    };
    let mut st = Ws::new();
    let mut ws = st.workspace();
    let b = build_from_function(&f, &mut ws).unwrap();
    assert_eq!((b.spill_bytes, b.aligned_spill_bytes), (4098, 8192 + 4096));
    assert_eq!((ws.infos[0].shared, ws.infos[1].shared), (1, 0));
    assert_eq!((ws.infos[0].aligned, ws.infos[0].bytes, ws.infos[0].location), (8192, 4097, 0));
    assert_eq!((ws.infos[1].location, ws.infos[0].interval_count, ws.infos[1].interval_count), (1, 1, 1));
}

#[test]
fn excluded_locations_get_no_record_and_may_be_read_first() {
    let locs = [Location::spill(1), Location::spill(2), Location::spill(3)];
    let ops = [Operand::use_(1), Operand::def(0), Operand::def(2), Operand::use_(0), Operand::use_(2)];
    let f = Function { locations: &locs, instructions: &[ins(0, 3), ins(3, 2)], operands: &ops };
    let mut st = Ws::new();
    let mut ws = st.workspace();
    let b = build_from_function_excluding(&f, &mut ws, |l| l == 1).unwrap();
    assert_eq!((b.infos, b.intervals, b.spill_bytes), (2, 2, 4));
    assert_eq!((ws.infos[0].location, ws.infos[1].location), (0, 2));
    assert_eq!(&ws.nodes[..2], &[Node::new(0, 1, 0), Node::new(0, 1, 1)]);
    assert_eq!(
        build_from_function(&f, &mut st.workspace()),
        Err(PlanError::UseBeforeDef { location: 1, instruction: 0 })
    );
}

#[test]
fn capacities_are_exact() {
    let locs = [Location::spill(1), Location::spill(1), Location::spill(1)];
    let ops = [Operand::def(0), Operand::def(1), Operand::def(2)];
    let f = Function { locations: &locs, instructions: &[ins(0, 3)], operands: &ops };
    // Locations: 3 needed, 2 slots.
    let mut st: StaticWorkspace<8, 8, 2> = StaticWorkspace::new();
    assert_eq!(
        build_from_function(&f, &mut st.workspace()),
        Err(PlanError::Capacity { store: Store::Locations, needed: 3, capacity: 2 })
    );
    // Exactly three of each fits.
    let mut st: StaticWorkspace<3, 3, 3> = StaticWorkspace::new();
    let b = build_from_function(&f, &mut st.workspace()).unwrap();
    assert_eq!((b.infos, b.intervals), (3, 3));
    // Nodes: the third point interval has no room.
    let mut st: StaticWorkspace<3, 2, 3> = StaticWorkspace::new();
    assert_eq!(
        build_from_function(&f, &mut st.workspace()),
        Err(PlanError::Capacity { store: Store::Nodes, needed: 3, capacity: 2 })
    );
    // Infos: the third candidate has no room.
    let mut st: StaticWorkspace<2, 8, 3> = StaticWorkspace::new();
    assert_eq!(
        build_from_function(&f, &mut st.workspace()),
        Err(PlanError::Capacity { store: Store::Infos, needed: 3, capacity: 2 })
    );
}
