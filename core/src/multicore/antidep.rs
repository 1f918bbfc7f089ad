//! Anti-dependencies after shared placement: the cross-core RAW/WAR/WAW edges.
//! Uses: error, shared_set; used by: pipeline, sim.
//!
//! Anti-dependencies after shared placement (seed "Why anti-deps re-run after shared
//! placement").
//!
//! Once shared tensors have addresses, accesses on different cores may touch the same
//! physical bytes. For every pair of accesses (core a, instruction i) and (core b,
//! instruction j), `a != b`, whose shared tensors' byte ranges overlap and at least one of
//! which writes, an edge orders them: the earlier one by `(instruction, core)` must complete
//! before the later one starts. RAW = write then read, WAR = read then
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

/// The order of two accesses on different cores: flat index, then core (accesses on one core
/// never get an edge, so their def-before-use order never has to decide).
#[inline]
fn order_key(a: &SharedAccess) -> (u32, u32) {
    (a.instruction, a.core)
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
        let slot = edges.get_mut(*n).ok_or(cap(edge_cap))?;
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
                        push(a, b, &mut n)?;
                    }
                }
            } else {
                for a in rx {
                    for b in ry {
                        push(a, b, &mut n)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(address: u64) -> SharedEntry {
        SharedEntry { address, bytes: 4096, aligned: 4096, ..SharedEntry::default() }
    }

    fn access(entry: u32, core: u32, instruction: u32, is_def: u32) -> SharedAccess {
        SharedAccess { entry, core, instruction, is_def }
    }

    fn edge(from: (u32, u32, u32), to: (u32, u32, u32), kind_code: u32) -> Edge {
        Edge {
            from_core: from.0,
            from_instruction: from.1,
            from_entry: from.2,
            to_core: to.0,
            to_instruction: to.1,
            to_entry: to.2,
            kind_code,
            reserved: 0,
        }
    }

    /// E0 `[0, 4096)`, E1 `[4096, 8192)` (touching E0, not overlapping), E2 `[6144, 10240)`
    /// (overlapping E1). Every cross-core pair with a write gets exactly one edge, from the
    /// earlier `(instruction, core)` to the later, of the right kind; same-core pairs, read
    /// pairs and the touching entries get none; the records are grouped per entry.
    #[test]
    fn edges_of_overlapping_entries_exactly() {
        let mut entries = [entry(0), entry(4096), entry(6144)];
        let mut accesses = [
            access(0, 1, 5, 1), // E0: core 1 writes at 5
            access(0, 0, 1, 1), // E0: core 0 writes at 1
            access(0, 1, 3, 0), // E0: core 1 reads at 3
            access(0, 0, 2, 0), // E0: core 0 reads at 2
            access(1, 1, 4, 1), // E1: core 1 writes at 4
            access(1, 0, 4, 0), // E1: core 0 reads at 4 (same instruction, lower core)
            access(2, 0, 0, 1), // E2: core 0 writes at 0, over E1's bytes
            access(2, 1, 9, 0), // E2: core 1 reads at 9
        ];
        let mut edges = [Edge::default(); 16];
        let n = build_edges(&mut entries, &mut accesses, &mut edges).unwrap();
        let got = &mut edges[..n];
        got.sort_unstable();
        let mut want = [
            edge((0, 1, 0), (1, 3, 0), 0), // RAW on E0
            edge((0, 1, 0), (1, 5, 0), 2), // WAW on E0
            edge((0, 2, 0), (1, 5, 0), 1), // WAR on E0
            edge((0, 4, 1), (1, 4, 1), 1), // WAR on E1: core 0 first at an equal index
            edge((0, 0, 2), (1, 4, 1), 2), // WAW across E2 (the earlier access) and E1
            edge((0, 0, 2), (1, 9, 2), 0), // RAW on E2
        ];
        want.sort_unstable();
        assert_eq!(got, &want[..]);
        let kinds = want.map(|e| e.kind());
        let k = [DepKind::Waw, DepKind::Raw, DepKind::Raw, DepKind::Waw, DepKind::War, DepKind::War];
        assert_eq!(kinds, k);
        // records grouped per entry, sorted by (entry, instruction, core, def)
        let groups = [0, 1, 2].map(|k: usize| (entries[k].first_record, entries[k].record_count));
        assert_eq!(groups, [(0, 4), (4, 2), (6, 2)]);
        assert_eq!((accesses[0], accesses[4]), (access(0, 0, 1, 1), access(1, 0, 4, 0)));
    }

    /// An edge list one short is a capacity error naming what was needed; an exact one is not.
    #[test]
    fn too_few_edge_slots_is_a_capacity_error() {
        let mut entries = [entry(0)];
        let mut accesses = [access(0, 0, 1, 1), access(0, 1, 2, 0), access(0, 2, 3, 0)];
        let mut edges = [Edge::default(); 1];
        assert_eq!(
            build_edges(&mut entries, &mut accesses, &mut edges),
            Err(PlanError::Capacity { store: Store::Edges, needed: 2, capacity: 1 })
        );
        let mut edges = [Edge::default(); 2];
        assert_eq!(build_edges(&mut entries, &mut accesses, &mut edges), Ok(2));
        assert_eq!(edges[1], edge((0, 1, 0), (2, 3, 0), 0));
        assert_eq!(Edge { kind_code: 7, ..edges[1] }.kind(), DepKind::Waw);
    }
}
