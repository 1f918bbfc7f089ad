//! Flat numbering and liveness intervals of a function (the seed's `build_interval_tree`).
//! Uses: align, error, info, interval_tree, program, workspace; used by: buffers, planner.
//!
//! Flat numbering and liveness intervals (seed section "The Interval-Tree Liveness Model",
//! `build_interval_tree` steps A, B and D).
//!
//! Instruction `i` of the function gets flat index `i` (unique and monotone; the seed numbers
//! with a backward walk, only monotonicity matters). The seed emits one closed interval
//! `[def, use]` per def→use edge, each use paired with its reaching def; a def that is never
//! read gets `[def, def]` (it is still written, so it interferes at its def). Within one
//! instruction, uses are read before defs are written. A use with no reaching def is
//! [`PlanError::UseBeforeDef`].
//!
//! **Deviation, stated:** the edges of one def all start at the def, so their union is the
//! single interval `[def, last use]`; and a def in the instruction that last read the previous
//! def (`x = f(x)`) touches that interval. This builder emits the union: one interval per
//! connected run of a location's liveness (a location written again after a gap gets one
//! interval per run). Every overlap query answers exactly as over the seed's per-edge
//! intervals, so interference is unchanged; but a tensor read by several ops is one interval,
//! not several, and the one-interval placers (skyline, sweep, the branch and bound of
//! [`crate::place::exact`]) apply to it. With per-edge intervals every such tensor made them
//! step aside, and `dramalloc run` planned real models worse than `dramalloc plan` (which
//! builds one interval per tensor) did.

use crate::align::{align_up, alignment_for};
use crate::error::{PlanError, Store};
use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;
use crate::liveness::program::{Access, Function};
use crate::workspace::{LocScratch, Workspace};

const NONE: u32 = u32::MAX;

/// What the liveness pass found, besides the Info records and nodes it wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Built {
    /// Candidate (Info) records written.
    pub infos: u32,
    /// Liveness intervals (tree nodes) written.
    pub intervals: u32,
    /// Seed HWM of the pre-placed DRAM locations: `max(addr + aligned - 1)`, `None` if none.
    pub preplaced_hwm: Option<u64>,
    /// Location index of the pre-placed location that sets `preplaced_hwm`.
    pub preplaced_top: u32,
    /// Bytes of pre-placed DRAM locations.
    pub preplaced_bytes: u64,
    /// Bytes of candidates without a fixed address (seed "spill").
    pub spill_bytes: u64,
    /// The same, each rounded up to the page (seed "aligned spill").
    pub aligned_spill_bytes: u64,
    /// The seed's `cc_buffer_size`: for every operand of every collective instruction (each
    /// occurrence counts) its Info size plus its access-pattern footprint
    /// ([`crate::cc_region::operand_cc_bytes`]), the input of the auto-sized CC region.
    pub collective_bytes: u64,
}

/// Builds Info records and liveness intervals for `f` into `ws`.
///
/// Candidates are the DRAM spills, numbered in location order; a spill with an address is
/// pinned there. Pre-placed DRAM locations (inputs, outputs, weights) must carry an address
/// and set the HWM floor; they get no interval; a zero-byte one takes no space and is
/// skipped. Non-DRAM locations are ignored.
///
/// # Errors
/// [`PlanError::ZeroSize`], [`PlanError::SizeOverflow`], [`PlanError::MisalignedFixed`],
/// [`PlanError::UnplacedPreplaced`], [`PlanError::UnknownLocation`],
/// [`PlanError::OperandRange`], [`PlanError::UseBeforeDef`], [`PlanError::NoInterval`], or
/// [`PlanError::Capacity`] when the workspace is too small.
pub fn build_from_function(f: &Function<'_>, ws: &mut Workspace<'_>) -> Result<Built, PlanError> {
    build_from_function_excluding(f, ws, |_| false)
}

/// As [`build_from_function`], but locations for which `exclude(location)` is true are not
/// candidates (the multi-core passes exclude the shared set from each core's private plan):
/// they get no Info record and no interval, and reading them before a def is not an error.
///
/// # Errors
/// As [`build_from_function`].
pub fn build_from_function_excluding(
    f: &Function<'_>,
    ws: &mut Workspace<'_>,
    exclude: impl Fn(u32) -> bool,
) -> Result<Built, PlanError> {
    let nloc = f.locations.len();
    if nloc > ws.locations.len() {
        return Err(PlanError::Capacity {
            store: Store::Locations,
            needed: nloc,
            capacity: ws.locations.len(),
        });
    }
    let cap = ws.info_capacity();
    let mut b = Built::default();
    let mut ninfo = 0usize;
    for (l, loc) in f.locations.iter().enumerate() {
        let li = l as u32;
        ws.locations[l] = LocScratch { info: NONE, last_def: NONE, open: NONE };
        if loc.memory != crate::liveness::program::MemoryType::Dram {
            continue;
        }
        if loc.bytes == 0 {
            if loc.is_preplaced() {
                continue; // an empty input/weight/output takes no space
            }
            return Err(PlanError::ZeroSize { location: li });
        }
        let align = alignment_for(loc.memory);
        let aligned =
            align_up(loc.bytes, align).ok_or(PlanError::SizeOverflow { location: li, bytes: loc.bytes })?;
        if loc.is_preplaced() {
            let addr = loc.address.ok_or(PlanError::UnplacedPreplaced { location: li })?;
            let end = addr
                .checked_add(aligned)
                .ok_or(PlanError::SizeOverflow { location: li, bytes: loc.bytes })?;
            if b.preplaced_hwm.is_none_or(|h| end - 1 > h) {
                b.preplaced_hwm = Some(end - 1);
                b.preplaced_top = li;
            }
            b.preplaced_bytes = b.preplaced_bytes.saturating_add(loc.bytes);
            continue;
        }
        if exclude(li) {
            continue;
        }
        if ninfo >= cap {
            return Err(PlanError::Capacity { store: Store::Infos, needed: ninfo + 1, capacity: cap });
        }
        let mut info = candidate_info(&mut b, li, loc.bytes, aligned, loc.address, align)?;
        info.shared = loc.shared as u8;
        ws.infos[ninfo] = info;
        ws.locations[l].info = ninfo as u32;
        ninfo += 1;
    }
    b.infos = ninfo as u32;

    let mut nodes = 0usize;
    for i in 0..f.instructions.len() {
        let ins = f.instructions[i];
        let flat = i as u32;
        let ops = f
            .operands
            .get(ins.first as usize..ins.first as usize + ins.count as usize)
            .ok_or(PlanError::OperandRange { instruction: flat, first: ins.first, count: ins.count })?;
        for op in ops {
            if op.location as usize >= nloc {
                return Err(PlanError::UnknownLocation { instruction: flat, location: op.location });
            }
            if ins.collective {
                let term = crate::cc_region::operand_cc_bytes(&f.locations[op.location as usize]);
                b.collective_bytes = b.collective_bytes.saturating_add(term);
                let info = ws.locations[op.location as usize].info;
                if info != NONE {
                    ws.infos[info as usize].collective = 1;
                }
            }
        }
        for op in ops.iter().filter(|o| o.access == Access::Use) {
            let ls = ws.locations[op.location as usize];
            if ls.info == NONE {
                continue;
            }
            if ls.last_def == NONE {
                return Err(PlanError::UseBeforeDef { location: op.location, instruction: flat });
            }
            // the reaching def's interval (opened at the def) now lasts to this use
            ws.nodes[ls.open as usize].hi = flat;
        }
        for op in ops.iter().filter(|o| o.access == Access::Def) {
            let ls = ws.locations[op.location as usize];
            if ls.info == NONE {
                continue;
            }
            // a def in the instruction that ended the open interval continues it
            let touching = ls.open != NONE && ws.nodes[ls.open as usize].hi == flat;
            if !touching {
                push(ws, &mut nodes, Node::new(flat, flat, ls.info))?;
                ws.locations[op.location as usize].open = (nodes - 1) as u32;
            }
            ws.locations[op.location as usize].last_def = flat;
        }
    }
    for info in ws.infos[..ninfo].iter() {
        if info.interval_count == 0 && info.pinned == 0 {
            return Err(PlanError::NoInterval { location: info.location });
        }
    }
    b.intervals = nodes as u32;
    Ok(b)
}

/// The Info record of a candidate of `bytes` bytes (`aligned` after rounding to `align`),
/// pinned at `address` when it has one; adds a free candidate's bytes to `b`'s spill totals.
///
/// # Errors
/// [`PlanError::MisalignedFixed`] for a fixed address that is not a multiple of `align`;
/// [`PlanError::SizeOverflow`] when `address + aligned` overflows.
pub(crate) fn candidate_info(
    b: &mut Built,
    location: u32,
    bytes: u64,
    aligned: u64,
    address: Option<u64>,
    align: u64,
) -> Result<Info, PlanError> {
    let mut info = Info { aligned, bytes, location, ..Info::default() };
    match address {
        Some(addr) => {
            if addr % align.max(1) != 0 {
                return Err(PlanError::MisalignedFixed { location, address: addr, align });
            }
            addr.checked_add(aligned).ok_or(PlanError::SizeOverflow { location, bytes })?;
            info.address = addr;
            info.pinned = 1;
            info.allocated = 1;
        }
        None => {
            // saturating: totals past u64 cannot fit a window, and placing them fails with
            // `DoesNotFit` (a wrapped total would be a wrong figure, a debug build's panic)
            b.spill_bytes = b.spill_bytes.saturating_add(bytes);
            b.aligned_spill_bytes = b.aligned_spill_bytes.saturating_add(aligned);
        }
    }
    Ok(info)
}

fn push(ws: &mut Workspace<'_>, nodes: &mut usize, node: Node) -> Result<(), PlanError> {
    let cap = ws.node_capacity();
    if *nodes >= cap {
        return Err(PlanError::Capacity { store: Store::Nodes, needed: *nodes + 1, capacity: cap });
    }
    ws.nodes[*nodes] = node;
    ws.infos[node.payload as usize].interval_count += 1;
    *nodes += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::program::{Instruction, Location, Operand, UsageClass};
    use crate::workspace::StaticWorkspace;

    fn ins(first: u32, count: u32) -> Instruction {
        Instruction { first, count, collective: false }
    }

    #[test]
    fn one_interval_per_def_to_last_use_and_unread_def() {
        // 0: def A; 1: use A, def B; 2: use A; 3: def C (never read). The seed's edges of A,
        // [0, 1] and [0, 2], are the one interval [0, 2].
        let locs = [Location::spill(100), Location::spill(5000), Location::spill(1)];
        let ops = [Operand::def(0), Operand::use_(0), Operand::def(1), Operand::use_(0), Operand::def(2)];
        let instrs = [ins(0, 1), ins(1, 2), ins(3, 1), ins(4, 1)];
        let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
        let mut st: StaticWorkspace<8, 16, 8> = StaticWorkspace::new();
        let mut ws = st.workspace();
        let b = build_from_function(&f, &mut ws).unwrap();
        assert_eq!((b.infos, b.intervals), (3, 3));
        assert_eq!(&ws.nodes[..3], &[Node::new(0, 2, 0), Node::new(1, 1, 1), Node::new(3, 3, 2)]);
        assert_eq!(ws.infos[1].aligned, 8192);
        assert_eq!((b.spill_bytes, b.aligned_spill_bytes), (5101, 4096 + 8192 + 4096));
    }

    #[test]
    fn a_redefinition_after_a_gap_is_a_second_interval_and_in_place_continues() {
        // A: def 0, use 1, def 3, use 4 -> [0, 1] and [3, 4]. B: def 0, `B = f(B)` at 2
        // (use and def), use 4 -> one run [0, 4].
        let locs = [Location::spill(4096), Location::spill(4096)];
        let (d, u) = (Operand::def, Operand::use_);
        let ops = [d(0), d(1), u(0), u(1), d(1), d(0), u(0), u(1)];
        let instrs = [ins(0, 2), ins(2, 1), ins(3, 2), ins(5, 1), ins(6, 2)];
        let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
        let mut st: StaticWorkspace<4, 8, 4> = StaticWorkspace::new();
        let mut ws = st.workspace();
        let b = build_from_function(&f, &mut ws).unwrap();
        assert_eq!(b.intervals, 3);
        assert_eq!(&ws.nodes[..3], &[Node::new(0, 1, 0), Node::new(0, 4, 1), Node::new(3, 4, 0)]);
        assert_eq!((ws.infos[0].interval_count, ws.infos[1].interval_count), (2, 1));
    }

    #[test]
    fn use_before_def_names_location_and_instruction() {
        let locs = [Location::spill(100)];
        let ops = [Operand::use_(0)];
        let instrs = [ins(0, 0), ins(0, 1)];
        let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
        let mut st: StaticWorkspace<4, 4, 4> = StaticWorkspace::new();
        assert_eq!(
            build_from_function(&f, &mut st.workspace()),
            Err(PlanError::UseBeforeDef { location: 0, instruction: 1 })
        );
    }

    #[test]
    fn preplaced_sets_hwm_and_needs_an_address() {
        let locs = [Location::preplaced(5000, UsageClass::Input, 0), Location::spill(10)];
        let ops = [Operand::use_(0), Operand::def(1)];
        let instrs = [ins(0, 2)];
        let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
        let mut st: StaticWorkspace<4, 4, 4> = StaticWorkspace::new();
        let b = build_from_function(&f, &mut st.workspace()).unwrap();
        assert_eq!(b.preplaced_hwm, Some(8191));
        let mut locs2 = locs;
        locs2[0].address = None;
        let f2 = Function { locations: &locs2, instructions: &instrs, operands: &ops };
        assert_eq!(
            build_from_function(&f2, &mut st.workspace()),
            Err(PlanError::UnplacedPreplaced { location: 0 })
        );
    }

    #[test]
    fn capacity_exhaustion_is_an_error() {
        let locs = [Location::spill(1), Location::spill(1)];
        let ops = [Operand::def(0), Operand::def(1)];
        let instrs = [ins(0, 2)];
        let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
        let mut st: StaticWorkspace<1, 4, 4> = StaticWorkspace::new();
        assert_eq!(
            build_from_function(&f, &mut st.workspace()),
            Err(PlanError::Capacity { store: Store::Infos, needed: 2, capacity: 1 })
        );
    }
}
