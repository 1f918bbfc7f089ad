//! Fault injection: a correct plan corrupted on purpose, so the run must fail.
//! Uses: edge_order, executor, model, planning, quality, dramalloc-core (liveness, multicore); used by: campaign, cli, run.
//!
//! Fault injection: corrupt a correct plan on purpose so tests can prove the simulator and
//! the verifier catch it. Every fault is chosen by a seeded SplitMix64, so a seed reproduces
//! the same fault.

use std::fmt;

use dramalloc_core::multicore::{DepKind, Edge};

use crate::exec::edge_order::EdgeOrderError;
use crate::exec::executor::Collision;
use crate::model::SimModel;
use crate::planning::PlannedModel;
pub use crate::quality::generate::SplitMix64;

/// A kind of fault, with the seed that chooses where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Move one private tensor onto the address of a neighbour it interferes with.
    MoveOntoNeighbour(u64),
    /// Give one core's copy of a shared tensor a different address than its twins.
    TwinAddress(u64),
    /// Run one cross-core RAW or WAR edge backwards (every other edge kept).
    ReverseEdge(u64),
    /// Flip one byte of a live tensor between its def and a later use (at execution time).
    CorruptByte(u64),
}

impl Fault {
    /// Parses `move:SEED`, `twin:SEED`, `reverse:SEED`, `corrupt:SEED`, or a bare `SEED` (= move).
    pub fn parse(s: &str) -> Option<Fault> {
        let (kind, seed) = s.split_once(':').unwrap_or(("move", s));
        let seed = seed.parse().ok()?;
        match kind {
            "move" => Some(Fault::MoveOntoNeighbour(seed)),
            "twin" => Some(Fault::TwinAddress(seed)),
            "reverse" => Some(Fault::ReverseEdge(seed)),
            "corrupt" => Some(Fault::CorruptByte(seed)),
            _ => None,
        }
    }
}

/// `e` run backwards: its `to` access first, then its `from` access (entries swapped with them).
pub fn reversed(e: &Edge) -> Edge {
    Edge {
        from_core: e.to_core,
        from_instruction: e.to_instruction,
        to_core: e.from_core,
        to_instruction: e.from_instruction,
        from_entry: e.to_entry,
        to_entry: e.from_entry,
        ..*e
    }
}

/// What was injected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injected {
    /// `tensor` on `core` now sits at `onto`'s address.
    Moved {
        /// Core.
        core: usize,
        /// The moved tensor.
        tensor: String,
        /// The neighbour it was moved onto.
        onto: String,
        /// The new address.
        address: u64,
    },
    /// `tensor`'s copy on `core` moved from `from` to `to`.
    TwinMoved {
        /// Core.
        core: usize,
        /// The shared tensor.
        tensor: String,
        /// Its correct address.
        from: u64,
        /// Its wrong address.
        to: u64,
    },
    /// The plan's edge `edge` now runs backwards ([`reversed`]: its `from` op waits for its
    /// `to` op); every other edge is kept.
    Reversed {
        /// The original edge.
        edge: Edge,
    },
    /// One byte of `tensor` flips after instruction `after` (see [`Injected::corruption`]).
    Corrupt {
        /// Core.
        core: usize,
        /// The tensor hit.
        tensor: String,
        /// The instruction after which the byte flips.
        after: u32,
        /// The byte's address.
        address: u64,
    },
}

impl Injected {
    /// The execution-time corruption this fault needs, if it is one.
    pub fn corruption(&self) -> Option<crate::exec::executor::Corruption> {
        match self {
            Injected::Corrupt { core, after, address, .. } => Some(crate::exec::executor::Corruption {
                core: *core,
                after_instruction: *after,
                address: *address,
            }),
            _ => None,
        }
    }

    /// Whether the simulator failure `c` names this fault's culprit. For
    /// [`Injected::Reversed`]: `c` is the cycle error naming the reversed edge (the reversal
    /// closed a cycle with program order and the other edges), or `c` was found at the
    /// reversed edge's `from` or `to` op (a consumer ran before its producer, a writer before
    /// the last reader). The other kinds are not checked here: `true`.
    pub fn named_by(&self, c: &Collision) -> bool {
        let Injected::Reversed { edge } = self else { return true };
        match c {
            Collision::EdgeOrder(EdgeOrderError::Cycle(cycle)) => cycle.edge == reversed(edge),
            _ => c.site().is_some_and(|s| {
                s == (edge.from_core, edge.from_instruction) || s == (edge.to_core, edge.to_instruction)
            }),
        }
    }
}

impl fmt::Display for Injected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Injected::Moved { core, tensor, onto, address } => {
                write!(f, "moved `{tensor}` onto `{onto}` at {address:#x} on core {core}")
            }
            Injected::TwinMoved { core, tensor, from, to } => {
                write!(f, "moved core {core}'s twin of shared `{tensor}` from {from:#x} to {to:#x}")
            }
            Injected::Corrupt { core, tensor, after, address } => {
                write!(f, "flipped byte {address:#x} of `{tensor}` on core {core} after op {after}")
            }
            Injected::Reversed { edge } => write!(
                f,
                "reversed {:?} edge core {} op {} -> core {} op {} (the other edges kept)",
                edge.kind(),
                edge.from_core,
                edge.from_instruction,
                edge.to_core,
                edge.to_instruction
            ),
        }
    }
}

/// Injects `fault` into `plan`.
///
/// # Errors
/// A message when the model has no place for this fault (e.g. no shared tensor).
pub fn inject(model: &SimModel, plan: &mut PlannedModel, fault: Fault) -> Result<Injected, String> {
    match fault {
        Fault::MoveOntoNeighbour(seed) => move_onto_neighbour(model, plan, seed),
        Fault::TwinAddress(seed) => twin_address(model, plan, seed),
        Fault::ReverseEdge(seed) => reverse_edge(plan, seed),
        Fault::CorruptByte(seed) => corrupt_byte(model, plan, seed),
    }
}

fn corrupt_byte(model: &SimModel, plan: &PlannedModel, seed: u64) -> Result<Injected, String> {
    use dramalloc_core::liveness::program::Access;
    let mut rng = SplitMix64(seed);
    let n = model.cores.len();
    for _ in 0..10_000 {
        let k = rng.below(n);
        let c = &model.cores[k];
        // (tensor, def instruction, a later use) on this core
        let mut def_at = vec![None; c.locations.len()];
        let mut picks = Vec::new();
        for i in 0..c.instructions.len() {
            for o in c.operands_of(i) {
                let l = o.location as usize;
                match o.access {
                    Access::Use => {
                        if let Some(d) = def_at[l] {
                            if d < i as u32 {
                                picks.push((l, d));
                            }
                        }
                    }
                    Access::Def => def_at[l] = Some(i as u32),
                }
            }
        }
        if picks.is_empty() {
            continue;
        }
        let (l, d) = picks[rng.below(picks.len())];
        let p = plan.placements[k][l];
        let Some(a) = p.address else { continue };
        let address = a + rng.next_u64() % p.aligned.max(1);
        return Ok(Injected::Corrupt { core: k, tensor: c.names[l].clone(), after: d, address });
    }
    Err("no tensor is read after its def".into())
}

fn move_onto_neighbour(model: &SimModel, plan: &mut PlannedModel, seed: u64) -> Result<Injected, String> {
    let mut rng = SplitMix64(seed);
    let n = model.cores.len();
    for _ in 0..10_000 {
        let k = rng.below(n);
        let c = &model.cores[k];
        let pl = &plan.placements[k];
        let movable: Vec<usize> = (0..pl.len())
            .filter(|&l| {
                c.locations[l].is_candidate()
                    && !pl[l].shared
                    && pl[l].address.is_some()
                    && pl[l].first_access != u32::MAX
            })
            .collect();
        if movable.is_empty() {
            continue;
        }
        let t = movable[rng.below(movable.len())];
        let (ta, tf, tl) = (pl[t].address.unwrap_or(0), pl[t].first_access, pl[t].last_access);
        let neighbours: Vec<usize> = movable
            .iter()
            .copied()
            .filter(|&u| u != t && pl[u].first_access <= tl && tf <= pl[u].last_access)
            .filter(|&u| pl[u].address != Some(ta))
            .collect();
        if neighbours.is_empty() {
            continue;
        }
        let u = neighbours[rng.below(neighbours.len())];
        let address = pl[u].address.unwrap_or(0);
        plan.placements[k][t].address = Some(address);
        return Ok(Injected::Moved {
            core: k,
            tensor: c.names[t].clone(),
            onto: c.names[u].clone(),
            address,
        });
    }
    Err("no private tensor with an interfering neighbour".into())
}

fn twin_address(model: &SimModel, plan: &mut PlannedModel, seed: u64) -> Result<Injected, String> {
    let mut rng = SplitMix64(seed);
    let n = model.cores.len();
    if n < 2 || plan.shared.is_empty() {
        return Err("needs at least 2 cores and a shared tensor".into());
    }
    for _ in 0..10_000 {
        let k = 1 + rng.below(n - 1);
        let pl = &plan.placements[k];
        let shared: Vec<usize> = (0..pl.len())
            .filter(|&l| pl[l].shared && pl[l].address.is_some() && pl[l].first_access != u32::MAX)
            .collect();
        if shared.is_empty() {
            continue;
        }
        let t = shared[rng.below(shared.len())];
        let from = pl[t].address.unwrap_or(0);
        // shift by one to four pages, wrapping inside its range: the shared region, or the
        // CC region's collective buffers
        let r = &plan.report;
        let in_cc = r.collective_bytes > 0 && from >= r.collective_base;
        let (base, region) = if in_cc {
            (r.collective_base, r.collective_bytes.max(4096))
        } else {
            (r.shared_base, r.shared_region_bytes.max(4096))
        };
        let delta = 4096 * (1 + rng.below(4) as u64);
        let to = base + (from - base + delta) % region;
        let to = if to == from { base + (from - base + 4096) % (region + 4096) } else { to };
        plan.placements[k][t].address = Some(to);
        return Ok(Injected::TwinMoved { core: k, tensor: model.cores[k].names[t].clone(), from, to });
    }
    Err("no shared tensor accessed on cores 1..N-1".into())
}

fn reverse_edge(plan: &mut PlannedModel, seed: u64) -> Result<Injected, String> {
    let mut rng = SplitMix64(seed);
    let eligible: Vec<usize> = (0..plan.edges.len())
        .filter(|&j| matches!(plan.edges[j].kind(), DepKind::Raw | DepKind::War))
        .collect();
    if eligible.is_empty() {
        return Err("no cross-core RAW or WAR edge".into());
    }
    let j = eligible[rng.below(eligible.len())];
    let edge = plan.edges[j];
    plan.edges[j] = reversed(&edge);
    Ok(Injected::Reversed { edge })
}
