//! Anti-dependencies after shared placement: the cross-core RAW/WAR/WAW edges.
//! Uses: error, shared_set; used by: pipeline, sim.
//!
//! Anti-dependencies after shared placement (seed "Why anti-deps re-run after shared
//! placement").
//!
//! Once shared tensors have addresses, accesses on different cores may touch the same
//! physical bytes. For every pair of accesses (core a, instruction i) and (core b,
//! instruction j), `a != b`, whose shared tensors' byte ranges overlap and at least one of
//! which writes, an edge orders them: the earlier one by `(instruction, core, def before
//! use)` must complete before the later one starts. RAW = write then read, WAR = read then
//! write, WAW = write then write. Accesses on one core are already ordered by program order.
//! Edges go from a smaller to a larger flat index (or, at equal index, a smaller core), so
//! together with program order they never form a cycle.

use bytemuck::{Pod, Zeroable};

use crate::error::{PlanError, Store};

use super::shared_set::{SharedAccess, SharedEntry};

/// Dependency kind of an [`Edge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DepKind {
    /// Read after write.
    Raw,
    /// Write after read (the anti-dependency).
    War,
    /// Write after write.
    Waw,
}

/// An ordering edge a runtime must honour: `(from_core, from_instruction)` completes before
/// `(to_core, to_instruction)` starts. Pod, 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Edge {
    /// Core of the earlier access.
    pub from_core: u32,
    /// Flat index of the earlier access.
    pub from_instruction: u32,
    /// Core of the later access.
    pub to_core: u32,
    /// Flat index of the later access.
    pub to_instruction: u32,
    /// Shared entry of the earlier access.
    pub from_entry: u32,
    /// Shared entry of the later access.
    pub to_entry: u32,
    /// 0 = RAW, 1 = WAR, 2 = WAW (see [`Edge::kind`]).
    pub kind_code: u32,
    /// Reserved (keeps the record free of padding).
    pub reserved: u32,
}

impl Edge {
    /// The dependency kind.
    pub const fn kind(&self) -> DepKind {
        match self.kind_code {
            0 => DepKind::Raw,
            1 => DepKind::War,
            _ => DepKind::Waw,
        }
    }
}

#[inline]
fn order_key(a: &SharedAccess) -> (u32, u32, u32) {
    (a.instruction, a.core, 1 - a.is_def)
}

/// Builds the cross-core edges over the placed shared region into `edges`; returns the
/// count. Sorts `accesses` by (entry, instruction, core) and fills each entry's
/// `first_record` / `record_count`. O(a log a + S² + pairs) for a accesses, S entries.
///
/// # Errors
/// [`PlanError::Capacity`] (store `Edges`) when `edges` is too short.
pub fn build_edges(
    entries: &mut [SharedEntry],
    accesses: &mut [SharedAccess],
    edges: &mut [Edge],
) -> Result<usize, PlanError> {
    accesses.sort_unstable_by_key(|a| (a.entry, a.instruction, a.core, a.is_def));
    for e in entries.iter_mut() {
        e.record_count = 0;
    }
    for (i, a) in accesses.iter().enumerate().rev() {
        let e = &mut entries[a.entry as usize];
        e.first_record = i as u32;
        e.record_count += 1;
    }
    let mut n = 0usize;
    let edge_cap = edges.len();
    let mut push = |x: &SharedAccess, y: &SharedAccess, n: &mut usize| -> Result<(), PlanError> {
        if x.core == y.core || (x.is_def == 0 && y.is_def == 0) {
            return Ok(());
        }
        let (a, b) = if order_key(x) <= order_key(y) { (x, y) } else { (y, x) };
        let kind_code = match (a.is_def, b.is_def) {
            (1, 0) => 0,
            (0, 1) => 1,
            _ => 2,
        };
        let slot = edges.get_mut(*n).ok_or(PlanError::Capacity {
            store: Store::Edges,
            needed: *n + 1,
            capacity: 0,
        })?;
        *slot = Edge {
            from_core: a.core,
            from_instruction: a.instruction,
            to_core: b.core,
            to_instruction: b.instruction,
            from_entry: a.entry,
            to_entry: b.entry,
            kind_code,
            reserved: 0,
        };
        *n += 1;
        Ok(())
    };
    for x in 0..entries.len() {
        let ex = entries[x];
        let rx = &accesses[ex.first_record as usize..(ex.first_record + ex.record_count) as usize];
        for (y, ey) in entries.iter().enumerate().skip(x) {
            if ex.address >= ey.address + ey.aligned || ey.address >= ex.address + ex.aligned {
                continue;
            }
            let ry = &accesses[ey.first_record as usize..(ey.first_record + ey.record_count) as usize];
            if x == y {
                for (i, a) in rx.iter().enumerate() {
                    for b in &rx[i + 1..] {
                        push(a, b, &mut n).map_err(|_| cap(edge_cap))?;
                    }
                }
            } else {
                for a in rx {
                    for b in ry {
                        push(a, b, &mut n).map_err(|_| cap(edge_cap))?;
                    }
                }
            }
        }
    }
    Ok(n)
}

fn cap(capacity: usize) -> PlanError {
    PlanError::Capacity { store: Store::Edges, needed: capacity + 1, capacity }
}
