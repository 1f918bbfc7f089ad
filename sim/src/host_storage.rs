//! Heap-backed storage for the core planner on a host: the `Vec`s behind its workspaces.
//! Uses: dramalloc-core (liveness, multicore, place, workspace); used by: planning, quality.
//!
//! Heap-backed storage for the core planner on a host: the `Vec`s behind a
//! [`dramalloc_core::Workspace`] and a [`dramalloc_core::multicore::MultiStorage`]. The core
//! itself never allocates; this is where a std program gets the slices it lends it.

use dramalloc_core::liveness::block_index::index_words;
use dramalloc_core::liveness::info::Info;
use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::multicore::{
    pressure, Edge, LocState, Module, ModuleState, MultiStorage, SharedAccess, SharedEntry,
};
use dramalloc_core::place::seed::search::Span;
use dramalloc_core::workspace::{LocScratch, Placed, Raise, Scratch, Section, Slot};
use dramalloc_core::Workspace;

/// Vectors sized for `infos` candidates, `nodes` intervals and `locations` locations, plus
/// the optional slices of every strategy (placed list, slots, `infos` sections, the branch and bound's undo records): about
/// `212 * infos + 29 * nodes + 12 * locations` bytes (the tree's block index is about one byte a node) plus at most 4 MiB of address space.
///
/// Every vector is allocated zeroed (the records are `Pod`, their default is all zero bytes),
/// so the operating system commits a page only when the planner first writes it: a slice a
/// strategy never touches (the branch and bound's slots and sections under `sweep`, the undo
/// records of a search that does not run) costs no resident memory. `dramalloc plan --strategy
/// sweep` on 10^6 buffers: about 88 bytes a buffer resident of the 212.
#[derive(Debug, Default)]
pub struct HostWorkspace {
    nodes: Vec<Node>,
    interval_ids: Vec<u32>,
    infos: Vec<Info>,
    scratch: Vec<Scratch>,
    order: Vec<u32>,
    heap: Vec<u32>,
    neighbours: Vec<u32>,
    occupied: Vec<Span>,
    locations: Vec<LocScratch>,
    placed: Vec<Placed>,
    slots: Vec<Slot>,
    sections: Vec<Section>,
    raises: Vec<Raise>,
    adjacency: Vec<u32>,
    tree_index: Vec<u32>,
    lookahead: Vec<u64>,
}

/// `n` zeroed records, allocated zeroed (pages committed on first write).
fn zeroed<T: bytemuck::Zeroable>(n: usize) -> Vec<T> {
    bytemuck::zeroed_vec(n)
}

/// Undo records lent to the branch and bound: `n² / 2 + n` up to 2^22 (64 MiB of address
/// space, committed only as deep as the search goes), none above
/// [`dramalloc_core::place::exact::EXACT_MAX_BUFFERS`] candidates (it does not run there).
/// A search deeper than its undo stack rebuilds minimum offsets from every placed buffer at
/// each undo, O(n) a buffer: with 2^18 records the whole `plan` of 2,000 layered buffers
/// (`generate --shape layered -n 2000 --seed 3`, 3,214 nodes) took 0.38 s, with 2^22 0.15 s
/// (14.5 → 27.5 MB resident), the same plan.
fn raise_capacity(infos: usize) -> usize {
    if infos > dramalloc_core::place::exact::EXACT_MAX_BUFFERS {
        0
    } else {
        (infos * infos / 2 + infos).min(1 << 22)
    }
}

impl HostWorkspace {
    /// Storage for up to `infos` candidates, `nodes` intervals and `locations` locations.
    pub fn new(infos: usize, nodes: usize, locations: usize) -> HostWorkspace {
        HostWorkspace {
            placed: zeroed(infos),
            slots: zeroed(infos),
            sections: zeroed(infos),
            raises: zeroed(raise_capacity(infos)),
            ..HostWorkspace::minimal(infos, nodes, locations)
        }
    }

    /// Vectors for up to `infos` candidates, `nodes` intervals and `locations` locations
    /// without the optional slices (placed list, slots, sections, undo records, adjacency):
    /// enough for the liveness pass and the greedy strategies, about `84 * infos + 29 * nodes
    /// + 12 * locations` bytes.
    pub fn minimal(infos: usize, nodes: usize, locations: usize) -> HostWorkspace {
        HostWorkspace {
            nodes: zeroed(nodes),
            interval_ids: zeroed(nodes),
            infos: zeroed(infos),
            scratch: zeroed(infos),
            order: zeroed(infos),
            heap: zeroed(infos),
            neighbours: zeroed(infos),
            occupied: zeroed(infos),
            locations: zeroed(locations),
            tree_index: zeroed(index_words(nodes)),
            ..HostWorkspace::default()
        }
    }

    /// Also lends the planner `entries` `u32`s for the interference graph
    /// ([`Workspace::adjacency`]: `n + 1 + 2E` for n candidates and E interfering pairs).
    pub fn with_adjacency(mut self, entries: usize) -> HostWorkspace {
        self.adjacency = zeroed(entries);
        self
    }

    /// Also lends the sweep `words` `u64`s for its index of the fixed buffers it looks ahead of
    /// ([`Workspace::lookahead`]).
    pub fn with_lookahead(mut self, words: usize) -> HostWorkspace {
        self.lookahead = zeroed(words);
        self
    }

    /// Borrows the vectors as a workspace.
    pub fn workspace(&mut self) -> Workspace<'_> {
        Workspace {
            nodes: &mut self.nodes,
            interval_ids: &mut self.interval_ids,
            infos: &mut self.infos,
            scratch: &mut self.scratch,
            order: &mut self.order,
            heap: &mut self.heap,
            neighbours: &mut self.neighbours,
            occupied: &mut self.occupied,
            locations: &mut self.locations,
            placed: &mut self.placed,
            slots: &mut self.slots,
            sections: &mut self.sections,
            raises: &mut self.raises,
            adjacency: &mut self.adjacency,
            tree_index: &mut self.tree_index,
            lookahead: &mut self.lookahead,
            stand_in: false,
        }
    }

    /// The Info records (addresses after a plan).
    pub fn infos(&self) -> &[Info] {
        &self.infos
    }
}

/// Storage for a multi-core pipeline run over `cores` cores.
#[derive(Debug, Default)]
pub struct HostMulti {
    /// Planner workspace.
    pub ws: HostWorkspace,
    /// Shared-set table.
    pub shared: Vec<SharedEntry>,
    /// Shared access records.
    pub accesses: Vec<SharedAccess>,
    /// Cross-core edges.
    pub edges: Vec<Edge>,
    /// Index scratch.
    pub index: Vec<u32>,
    /// Live-byte scratch of the memory-pressure pass.
    pub pressure: Vec<u64>,
    /// Per-core location states.
    pub states: Vec<Vec<LocState>>,
    /// Per-core name indices.
    pub by_name: Vec<Vec<u32>>,
}

impl HostMulti {
    /// Sizes everything for `modules` (one per core: their locations, instructions and
    /// operands) and `edges` cross-core edges.
    pub fn new(modules: &[Module<'_>], edges: usize) -> HostMulti {
        let locations: Vec<usize> = modules.iter().map(|m| m.function.locations.len()).collect();
        let max_loc = locations.iter().copied().max().unwrap_or(0);
        let max_ops = modules.iter().map(|m| m.function.operands.len()).max().unwrap_or(0);
        let all_ops: usize = modules.iter().map(|m| m.function.operands.len()).sum();
        HostMulti {
            ws: HostWorkspace::new(max_loc.max(1), max_ops.max(max_loc).max(1), max_loc.max(1)),
            shared: zeroed(max_loc.max(1)),
            accesses: zeroed(all_ops.max(1)),
            edges: zeroed(edges.max(1)),
            index: zeroed(max_loc.max(1)),
            pressure: zeroed(pressure::scratch_len(modules)),
            states: locations.iter().map(|&n| zeroed(n)).collect(),
            by_name: locations.iter().map(|&n| zeroed(n)).collect(),
        }
    }

    /// Splits into the pipeline's storage and per-core states.
    pub fn split(&mut self) -> (MultiStorage<'_>, Vec<ModuleState<'_>>) {
        let storage = MultiStorage {
            ws: self.ws.workspace(),
            shared: &mut self.shared,
            accesses: &mut self.accesses,
            edges: &mut self.edges,
            index: &mut self.index,
            pressure: &mut self.pressure,
        };
        let states = self
            .states
            .iter_mut()
            .zip(self.by_name.iter_mut())
            .map(|(l, b)| ModuleState::new(l, b))
            .collect();
        (storage, states)
    }
}
