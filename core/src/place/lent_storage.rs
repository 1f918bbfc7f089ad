//! Test support: a portfolio [`Storage`] lent from fixed arrays of `N` entries each, for the
//! unit tests of the pieces that take one (the settle, the two-ended sweep's row).
//! Uses: portfolio (Storage), workspace, seed (Span); used by: settle, sweep_two_ended (tests).

use crate::place::portfolio::Storage;
use crate::place::seed::search::Span;
use crate::workspace::{Placed, Raise, Scratch, Section, Slot};

/// Every slice of a [`Storage`], `N` entries each (no lookahead words, not a stand-in).
pub(crate) struct Lent<const N: usize> {
    scratch: [Scratch; N],
    order: [u32; N],
    heap: [u32; N],
    neighbours: [u32; N],
    occupied: [Span; N],
    placed: [Placed; N],
    slots: [Slot; N],
    sections: [Section; N],
    raises: [Raise; N],
}

impl<const N: usize> Lent<N> {
    /// Zeroed arrays.
    pub(crate) fn new() -> Lent<N> {
        Lent {
            scratch: [Scratch::default(); N],
            order: [0; N],
            heap: [0; N],
            neighbours: [0; N],
            occupied: [Span::default(); N],
            placed: [Placed::default(); N],
            slots: [Slot::default(); N],
            sections: [Section::default(); N],
            raises: [Raise::default(); N],
        }
    }

    /// Runs `f` with the arrays lent as a [`Storage`].
    pub(crate) fn with<R>(&mut self, f: impl FnOnce(&mut Storage<'_, '_>) -> R) -> R {
        let (mut order, mut heap) = (&mut self.order[..], &mut self.heap[..]);
        let (mut neighbours, mut occupied) = (&mut self.neighbours[..], &mut self.occupied[..]);
        let (mut placed, mut slots) = (&mut self.placed[..], &mut self.slots[..]);
        let (mut sections, mut raises) = (&mut self.sections[..], &mut self.raises[..]);
        let mut st = Storage {
            scratch: &mut self.scratch,
            order: &mut order,
            heap: &mut heap,
            neighbours: &mut neighbours,
            occupied: &mut occupied,
            placed: &mut placed,
            slots: &mut slots,
            sections: &mut sections,
            raises: &mut raises,
            lookahead: &mut &mut [][..],
            stand_in: false,
        };
        f(&mut st)
    }
}
