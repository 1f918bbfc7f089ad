//! Lower-bound probes of the branch and bound shared between threads, so that a host with
//! more cores finishes the same search sooner.
//! Uses: budget, search, workspace; used by: mod.rs, sim.
//!
//! Each round of [`super::branch_and_bound`] first probes the lower bound once per static
//! preorder ([`super::PREORDERS`]), with a node limit set by the round alone. Such a probe
//! depends only on the prepared problem (slots and sections), its preorder and its limit, not
//! on anything found before it: the search restores every slot it touches. So another thread
//! that prepared the same problem can run those probes ahead, and the search that keeps the
//! plan (the *lead*) skips each one the other thread saw end at its node limit, counting its
//! nodes as if it had expanded them. Every other outcome (a plan found, the capacity proven
//! infeasible) the lead finds again itself. The plan, the node count and every decision are
//! those of the lead alone, node for node; only the wall time changes (with a clock that
//! binds, as always, where the clock stops it). The core stays single-threaded: the host
//! owns the threads and implements [`SharedProbes`] (the simulator's `probe_helper.rs`).
//!
//! A probe is named by a [`ProbeKey`], which carries a fingerprint of the prepared problem,
//! so a helper's outcome is never taken for another problem.

use crate::workspace::Slot;

/// One lower-bound probe of one prepared problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProbeKey {
    /// [`fingerprint`] of the prepared problem (candidates, sizes, sections, start, bound).
    pub problem: u64,
    /// The round (0 first; the node limit doubles each round).
    pub round: u32,
    /// The static preorder (`0..PREORDERS`).
    pub preorder: u8,
    /// The probe's node limit.
    pub limit: u64,
}

/// What a helper may do with the next probe it asks for ([`SharedProbes::claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Claim {
    /// Run it: it is this thread's now.
    Run,
    /// Another thread has it: go on to the next.
    Taken,
    /// Stop: the lead is done.
    Stop,
}

/// The host's side of shared lower-bound probes (module docs). One value per thread: the
/// lead's ([`SharedProbes::helper`] false) is asked before each of its lower-bound probes; a
/// helper's ([`SharedProbes::helper`] true) makes [`super::branch_and_bound`] run only
/// lower-bound probes, in round and preorder order, each claimed first and reported after.
pub trait SharedProbes {
    /// True for a helper: its branch and bound runs probes for the lead and keeps no plan.
    fn helper(&self) -> bool;
    /// Lead: before its probe `key`. `Some(nodes)`: another thread ran it and it ended at its
    /// node limit after `nodes` nodes (the lead skips it); `None`: the lead runs it (the host
    /// may wait here for a helper that is running it, then answer).
    fn lead(&mut self, key: ProbeKey) -> Option<u64>;
    /// Helper: may it run probe `key`?
    fn claim(&mut self, key: ProbeKey) -> Claim;
    /// Helper: probe `key`, claimed, ended after `nodes` nodes, at its node limit or not
    /// (a plan found, the capacity proven infeasible, or stopped).
    fn done(&mut self, key: ProbeKey, at_limit: bool, nodes: u64);
    /// Lead: its branch and bound is over (helpers may stop).
    fn finished(&mut self);
}

/// A fingerprint of a prepared problem: FNV-1a over each slot's size, first and last
/// section, then `start`, the lower bound and the section count. Equal problems prepared the
/// same way give equal fingerprints; O(n).
pub fn fingerprint(slots: &[Slot], sections: usize, start: u64, lower_bound: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for s in slots {
        mix(s.size);
        mix(((s.lo as u64) << 32) | s.hi as u64);
    }
    mix(start);
    mix(lower_bound);
    mix(sections as u64);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any change of a size, a section or the bound changes the fingerprint.
    #[test]
    fn fingerprints_tell_problems_apart() {
        let slot = |lo: u32, hi: u32, size: u64| Slot { lo, hi, size, ..Slot::default() };
        let a = [slot(0, 1, 64), slot(1, 2, 32)];
        let base = fingerprint(&a, 3, 0, 96);
        assert_eq!(base, fingerprint(&a, 3, 0, 96));
        assert_ne!(base, fingerprint(&[slot(0, 1, 64), slot(1, 2, 33)], 3, 0, 96));
        assert_ne!(base, fingerprint(&[slot(0, 1, 64), slot(1, 3, 32)], 3, 0, 96));
        assert_ne!(base, fingerprint(&a, 4, 0, 96));
        assert_ne!(base, fingerprint(&a, 3, 64, 96));
        assert_ne!(base, fingerprint(&a, 3, 0, 97));
    }
}
