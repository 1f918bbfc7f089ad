//! Fixed-capacity storage of a multi-core pipeline run.
//! Uses: multicore (pressure too), workspace; used by: firmware.
//!
//! Fixed-capacity storage of a multi-core pipeline run, for a `static`.

use crate::multicore::{Edge, LocState, ModuleState, MultiStorage, SharedAccess, SharedEntry};
use crate::workspace::StaticWorkspace;

/// Storage of a [`crate::multicore::Pipeline`] run over `C` cores: a planner workspace for
/// `I` candidates, `N` intervals and `L` locations per core (see [`StaticWorkspace`]), `L`
/// shared entries, `A` shared-access records (all cores), `E` cross-core edges, `P` entries
/// of live-byte scratch for the memory-pressure pass (at least
/// [`crate::multicore::pressure::scratch_len`]: 3 × (largest instruction count + 1)), and per
/// core `L` location states and name-index slots. A run that needs more fails with
/// [`crate::PlanError::Capacity`] naming the store: [`crate::Store::Shared`] (`L` entries),
/// [`crate::Store::Accesses`] (`A`), [`crate::Store::Edges`] (`E`), [`crate::Store::Pressure`] (`P`),
/// [`crate::Store::ModuleStates`] (`C`), [`crate::Store::LocationStates`] / [`crate::Store::NameIndex`] (`L` per
/// core), or one of the workspace's.
///
/// Size: the workspace's `172 I + 76 N + 12 L` bytes, plus `56 L + 4 L + 16 A + 32 E + 8 P`
/// and `44 L` per core. Keep it in a `static` through [`super::TakeOnce`], never on a small
/// stack.
///
/// ```
/// use dramalloc_core::static_storage::{StaticMulti, TakeOnce};
/// static STORAGE: TakeOnce<StaticMulti<2, 8, 16, 8, 32, 16, 27>> = TakeOnce::new(StaticMulti::new());
/// let (storage, states) = STORAGE.take().unwrap().split();
/// assert_eq!((storage.edges.len(), storage.pressure.len(), states.len(), states[1].locations.len()), (16, 27, 2, 8));
/// ```
#[derive(Debug)]
pub struct StaticMulti<
    const C: usize,
    const I: usize,
    const N: usize,
    const L: usize,
    const A: usize,
    const E: usize,
    const P: usize,
> {
    ws: StaticWorkspace<I, N, L>,
    shared: [SharedEntry; L],
    accesses: [SharedAccess; A],
    edges: [Edge; E],
    index: [u32; L],
    pressure: [u64; P],
    states: [[LocState; L]; C],
    by_name: [[u32; L]; C],
}

impl<
        const C: usize,
        const I: usize,
        const N: usize,
        const L: usize,
        const A: usize,
        const E: usize,
        const P: usize,
    > Default for StaticMulti<C, I, N, L, A, E, P>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const C: usize,
        const I: usize,
        const N: usize,
        const L: usize,
        const A: usize,
        const E: usize,
        const P: usize,
    > StaticMulti<C, I, N, L, A, E, P>
{
    /// Zeroed storage; `const`, so it can initialise a `static`.
    pub const fn new() -> Self {
        const Z_SHARED: SharedEntry = SharedEntry {
            address: 0,
            bytes: 0,
            aligned: 0,
            location: 0,
            first_def: 0,
            first_use: 0,
            first_access: 0,
            last_access: 0,
            first_record: 0,
            record_count: 0,
            collective: 0,
        };
        const Z_ACCESS: SharedAccess = SharedAccess { entry: 0, core: 0, instruction: 0, is_def: 0 };
        const Z_EDGE: Edge = Edge {
            from_core: 0,
            from_instruction: 0,
            to_core: 0,
            to_instruction: 0,
            from_entry: 0,
            to_entry: 0,
            kind_code: 0,
            reserved: 0,
        };
        StaticMulti {
            ws: StaticWorkspace::new(),
            shared: [Z_SHARED; L],
            accesses: [Z_ACCESS; A],
            edges: [Z_EDGE; E],
            index: [0; L],
            pressure: [0; P],
            states: [[LocState::EMPTY; L]; C],
            by_name: [[0; L]; C],
        }
    }

    /// Borrows the storage as the pipeline's [`MultiStorage`] and one [`ModuleState`] per
    /// core.
    pub fn split(&mut self) -> (MultiStorage<'_>, [ModuleState<'_>; C]) {
        let StaticMulti { ws, shared, accesses, edges, index, pressure, states, by_name } = self;
        let mut by_name = by_name.iter_mut();
        let states = states.each_mut().map(|l| {
            let names: &mut [u32] = by_name.next().map_or(&mut [], |b| b);
            ModuleState::new(l, names)
        });
        let storage = MultiStorage { ws: ws.workspace(), shared, accesses, edges, index, pressure };
        (storage, states)
    }
}
