//! Caller-provided storage for one planning run: the slices and the records they hold.
//! Uses: error, liveness, place; used by: liveness, multicore, place, planner, sim.
//!
//! Caller-provided storage for one planning run.
//!
//! **Storage design.** The planner never allocates: every array it needs is a slice the caller
//! lends it through a [`Workspace`]. The same code then serves a firmware image (slices of a
//! `static` [`StaticWorkspace`] sized by const generics) and a host planning a million
//! intervals (slices of `Vec`s, e.g. `dramalloc_sim::HostWorkspace`; never build a
//! multi-megabyte array on the stack). Capacities are the slice lengths; running out is
//! [`crate::PlanError::Capacity`], never a panic.
//!
//! Memory per candidate location: 40 B ([`Info`]) + 16 B ([`Scratch`]) + 3 × 4 B (order, heap,
//! neighbours) + 16 B ([`Span`]) = 84 B; per interval: 24 B ([`Node`]) + 4 B (CSR id) = 28 B;
//! per location of a [`crate::liveness::program::Function`]: 12 B ([`LocScratch`]). Linear in n.
//!
//! Optional per-candidate slices used by the faster and better strategies (each may be
//! shorter than the candidate count, even empty: a strategy that lacks its storage falls back
//! to the slower equivalent or is skipped, never an error): [`Placed`] (24 B, the
//! address-ordered scan of [`crate::place::scan`] and the live list of [`crate::place::sweep`]),
//! [`Slot`] (64 B, the branch and bound of [`crate::place::exact`] and the best plan kept by the
//! `auto` portfolio) and [`Section`] (32 B, up to one per candidate, [`crate::place::exact`]).

use bytemuck::{Pod, Zeroable};

use crate::error::{PlanError, Store};
use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;
use crate::place::seed::search::Span;

/// Per-candidate scratch used by `simplify` and neighbour de-duplication. Pod, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Scratch {
    /// Constraint key of `simplify` (bytes) or a strategy's sort key.
    pub key: u64,
    /// Visit stamp for de-duplicating neighbours.
    pub stamp: u32,
    /// Position in the simplify heap (`u32::MAX` = not in the heap).
    pub heap_pos: u32,
}

/// A placed buffer in address order: its closed instruction interval and byte range. Pod,
/// 24 bytes. Used by [`crate::place::scan`] and [`crate::place::sweep`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Placed {
    /// First instruction (inclusive).
    pub lo: u32,
    /// Last instruction (inclusive).
    pub hi: u32,
    /// First byte.
    pub addr: u64,
    /// One past the last byte.
    pub end: u64,
}

/// Per-candidate record of the branch and bound ([`crate::place::exact`], set up by
/// [`crate::place::sections::prepare`]) and of the `auto` portfolio (the best addresses found so
/// far). Pod, 64 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Slot {
    /// First section (inclusive) of the candidate's interval.
    pub lo: u32,
    /// Last section (inclusive).
    pub hi: u32,
    /// Lifetime, instructions (last − first + 1).
    pub width: u32,
    /// Position in the search's static preorder.
    pub rank: u32,
    /// Aligned size, bytes.
    pub size: u64,
    /// Highest section floor under the candidate (bytes): its lowest canonical offset.
    pub floor: u64,
    /// Address in the best plan found so far, bytes.
    pub best: u64,
    /// Current address while placed by the search, bytes (`u64::MAX` = unplaced).
    pub at: u64,
    /// Largest section total (bytes of buffers live together) the candidate touches: the
    /// preorder key of MiniMalloc.
    pub total: u64,
    /// Address in the plan being built by the current probe, bytes.
    pub sol: u64,
}

/// One time section of the branch and bound ([`crate::place::exact`]): the span between two
/// buffers live at one instant, a maximal clique ([`crate::place::sections`]). Pod, 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Section {
    /// The region's start after [`crate::place::sections::prepare`], bytes (its difference
    /// array's additions while it runs); not read by the search.
    pub floor: u64,
    /// Sum of the sizes of the unplaced buffers crossing the section, bytes.
    pub remaining: u64,
    /// Scratch of [`crate::place::sections::prepare`] (its difference array's removals),
    /// bytes; zero after it.
    pub low: u64,
    /// Unplaced buffers crossing the boundary to the next section (zero: the search splits).
    pub cuts: u32,
    /// Padding.
    pub pad: u32,
}

/// One record of the branch and bound's stack ([`crate::place::exact`]): the minimum offset a slot
/// had before a placement raised it, a listed child (slot, rank in `pad`, offset) or a rank
/// and total saved before a part was ranked anew. Pod, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Raise {
    /// The slot whose minimum offset was raised.
    pub slot: u32,
    /// Padding.
    pub pad: u32,
    /// Its minimum offset before, bytes.
    pub floor: u64,
}

/// Per-location scratch of the liveness pass. Pod, 12 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LocScratch {
    /// Info index of the location, `u32::MAX` when it is not a candidate.
    pub info: u32,
    /// Flat index of the reaching def, `u32::MAX` when none yet.
    pub last_def: u32,
    /// Node index of the interval the reaching def opened (`u32::MAX` when none yet); uses
    /// extend it.
    pub open: u32,
}

/// The slices one planning run works in. Lengths are capacities.
#[derive(Debug)]
pub struct Workspace<'a> {
    /// Interval-tree nodes: one per liveness interval.
    pub nodes: &'a mut [Node],
    /// CSR of node indices grouped by Info (same length as `nodes`).
    pub interval_ids: &'a mut [u32],
    /// Info records: one per candidate.
    pub infos: &'a mut [Info],
    /// Per-candidate scratch.
    pub scratch: &'a mut [Scratch],
    /// The placement order (elimination stack), one per candidate.
    pub order: &'a mut [u32],
    /// Heap of `simplify`, one per candidate.
    pub heap: &'a mut [u32],
    /// Neighbour list of one node, one per candidate.
    pub neighbours: &'a mut [u32],
    /// Occupied ranges of one `search`, one per candidate.
    pub occupied: &'a mut [Span],
    /// Per-location scratch of the liveness pass.
    pub locations: &'a mut [LocScratch],
    /// Optional: address-ordered placed list, one per candidate ([`crate::place::scan`],
    /// [`crate::place::sweep`]); shorter means those strategies fall back to `select`.
    pub placed: &'a mut [Placed],
    /// Optional: branch-and-bound records and the portfolio's best plan, one per candidate;
    /// shorter means no branch and bound and the portfolio re-runs its winner.
    pub slots: &'a mut [Slot],
    /// Optional: sections of the branch and bound, up to one per candidate; shorter means the
    /// branch and bound is skipped when it has fewer entries than candidates.
    pub sections: &'a mut [Section],
    /// Optional: undo records of the branch and bound (a few per placement on its search
    /// path, up to n² / 2); when full, a placement is undone by recomputation instead.
    pub raises: &'a mut [Raise],
    /// Optional: the interference graph as a CSR, `n + 1` offsets then every candidate's
    /// neighbours (`n + 1 + 2E` entries for E interfering pairs). When it is long enough the
    /// planner fills it once and every neighbour query reads it instead of walking the
    /// interval tree (the same neighbours in the same order, so the same plans, several
    /// times faster); shorter (or empty) means tree queries.
    pub adjacency: &'a mut [u32],
    /// Optional: the interval tree's block index
    /// ([`index_words`](crate::liveness::block_index::index_words)`(intervals)` words, about
    /// one byte per interval). When it is long enough the planner lends it to the tree, and
    /// every tree query finds its start in it and skips the blocks of a long window that hold
    /// no overlap (the same answers in the same order, so the same plans); shorter (or empty)
    /// means queries without it.
    pub tree_index: &'a mut [u32],
    /// Optional: words for the sweep's index of the fixed (pinned) buffers it looks ahead of
    /// ([`pinned_index_words`](crate::place::sweep::pinned_index_words)`(p)` for `p` pinned
    /// candidates: two per pinned buffer and level). The sweep builds the index in the longest
    /// of this and the storage it leaves unused; with too few words for enough levels a free
    /// buffer with many pinned ones ahead goes above them all. Shorter (or empty) means that
    /// unused storage alone.
    pub lookahead: &'a mut [u64],
    /// True when the buffers stand in for the caller's problem (a host's plan of its sizes
    /// rounded up to a common alignment, say), so reaching their max-load bound proves
    /// nothing about the caller's plan: `auto` and `exact` then skip no member for an earlier
    /// one at that bound, as with buffers padded for their own alignment. False by default.
    pub stand_in: bool,
}

impl Workspace<'_> {
    /// Candidates this workspace can hold (the shortest per-candidate slice).
    pub fn info_capacity(&self) -> usize {
        self.infos
            .len()
            .min(self.scratch.len())
            .min(self.order.len())
            .min(self.heap.len())
            .min(self.neighbours.len())
            .min(self.occupied.len())
    }

    /// Intervals this workspace can hold.
    pub fn node_capacity(&self) -> usize {
        self.nodes.len().min(self.interval_ids.len())
    }

    /// Checks that `infos` candidates and `nodes` intervals fit.
    ///
    /// # Errors
    /// [`PlanError::Capacity`] naming the store that is too small.
    pub fn ensure(&self, infos: usize, nodes: usize) -> Result<(), PlanError> {
        if infos > self.info_capacity() {
            return Err(PlanError::Capacity {
                store: Store::Infos,
                needed: infos,
                capacity: self.info_capacity(),
            });
        }
        if nodes > self.node_capacity() {
            return Err(PlanError::Capacity {
                store: Store::Nodes,
                needed: nodes,
                capacity: self.node_capacity(),
            });
        }
        Ok(())
    }
}

/// Fixed-capacity storage for firmware: `I` candidates, `N` intervals, `L` locations.
/// The optional slices get `I` placed entries, `I` slots and `N` sections (so the branch
/// and bound runs when the problem has at most `N` sections) and `N` undo records.
///
/// Size is about `172 * I + 76 * N + 12 * L` bytes: keep it in a `static` (behind the
/// firmware's own cell or mutex) or in a caller's buffer, not on a small stack.
///
/// ```
/// use dramalloc_core::workspace::StaticWorkspace;
/// let mut storage: StaticWorkspace<16, 32, 16> = StaticWorkspace::new();
/// let ws = storage.workspace();
/// assert_eq!((ws.info_capacity(), ws.node_capacity()), (16, 32));
/// ```
#[derive(Debug)]
pub struct StaticWorkspace<const I: usize, const N: usize, const L: usize> {
    nodes: [Node; N],
    interval_ids: [u32; N],
    infos: [Info; I],
    scratch: [Scratch; I],
    order: [u32; I],
    heap: [u32; I],
    neighbours: [u32; I],
    occupied: [Span; I],
    locations: [LocScratch; L],
    placed: [Placed; I],
    slots: [Slot; I],
    sections: [Section; N],
    raises: [Raise; N],
}

impl<const I: usize, const N: usize, const L: usize> Default for StaticWorkspace<I, N, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const I: usize, const N: usize, const L: usize> StaticWorkspace<I, N, L> {
    /// Zeroed storage; `const`, so it can initialise a `static`.
    pub const fn new() -> Self {
        const Z_NODE: Node = Node { hi: 0, lo: 0, max: 0, payload: 0, left: -1, right: -1 };
        const Z_INFO: Info = Info {
            aligned: 0,
            address: 0,
            bytes: 0,
            location: 0,
            first_interval: 0,
            interval_count: 0,
            allocated: 0,
            pinned: 0,
            shared: 0,
            collective: 0,
        };
        const Z_SCRATCH: Scratch = Scratch { key: 0, stamp: 0, heap_pos: 0 };
        const Z_SPAN: Span = Span { lo: 0, hi: 0 };
        const Z_LOC: LocScratch = LocScratch { info: 0, last_def: 0, open: 0 };
        const Z_PLACED: Placed = Placed { lo: 0, hi: 0, addr: 0, end: 0 };
        const Z_SLOT: Slot =
            Slot { lo: 0, hi: 0, width: 0, rank: 0, size: 0, floor: 0, best: 0, at: 0, total: 0, sol: 0 };
        const Z_RAISE: Raise = Raise { slot: 0, pad: 0, floor: 0 };
        const Z_SECTION: Section = Section { floor: 0, remaining: 0, low: 0, cuts: 0, pad: 0 };
        StaticWorkspace {
            nodes: [Z_NODE; N],
            interval_ids: [0; N],
            infos: [Z_INFO; I],
            scratch: [Z_SCRATCH; I],
            order: [0; I],
            heap: [0; I],
            neighbours: [0; I],
            occupied: [Z_SPAN; I],
            locations: [Z_LOC; L],
            placed: [Z_PLACED; I],
            slots: [Z_SLOT; I],
            sections: [Z_SECTION; N],
            raises: [Z_RAISE; N],
        }
    }

    /// Borrows the storage as a [`Workspace`].
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
            adjacency: &mut [],
            tree_index: &mut [],
            lookahead: &mut [],
            stand_in: false,
        }
    }
}
