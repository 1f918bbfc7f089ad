//! What the `auto` portfolio did: each member, whether it ran and what it gave, or why it
//! was skipped.
//! Uses: nothing else in the crate; used by: portfolio, planner, sim.
//!
//! A fixed-capacity record (no heap) carried in every [`crate::Plan`], so a front end can
//! print which members ran and which were skipped, and why (issue "planning at compiler
//! scale": `plan` prints it).

/// A member of the `auto` portfolio (see [`crate::place::portfolio`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Member {
    /// The time sweep ([`crate::place::sweep`]).
    Sweep,
    /// The sweep around the long-lived ([`crate::place::sweep_long`]): at most `n >> s`
    /// longest-lived buffers placed first by size-ordered first fit (`s` = 7, 3, 1).
    SweepLong(u8),
    /// The sweep around the hot ([`crate::place::sweep_hot`]): the `n >> s` buffers with the
    /// largest loads over their lifetimes placed first in `greedy-load`'s order (`s` = 3; 4 to
    /// [`crate::place::sweep_hot::MAX_HOT_SHARE`] where it makes the first plan and the 1/8
    /// does not fit in the budget: `auto` sizes the hot set to it).
    SweepHot(u8),
    /// The two-ended sweep ([`crate::place::sweep_two_ended`]): each buffer at the bottom of
    /// the lowest gap or the top of the highest below the lower bound, against the longer-lived
    /// side.
    SweepTwoEnded,
    /// The skyline with one static preorder (0 "WAT", 1 "TAW", 2 "TWA",
    /// [`crate::place::exact::preorder`]), within a re-key budget ([`crate::place::skyline`]).
    Skyline(u8),
    /// First fit in load order ([`crate::place::greedy::Order::LoadLife`]).
    GreedyLoad,
    /// First fit in size order, ties by lifetime (`greedy-size`).
    GreedySize,
    /// First fit in size order, ties by start (`greedy-start`).
    GreedyStart,
    /// First fit by size class, then start (`greedy-class`).
    GreedyClass,
    /// Best fit in size order (`best-fit`).
    BestFit,
    /// Best fit in size order, ties by start (`best-fit-start`).
    BestFitStart,
    /// The seed's simplify order with first fit (`seed`).
    Seed,
    /// The branch and bound from the best plan ([`crate::place::exact`]).
    BranchAndBound,
    /// The peak repair of the best plan ([`crate::place::repair`]).
    Repair,
    /// `exact` only: the skyline preorders a budgeted run could not finish, on the clock.
    SkylineTimed,
}

impl Member {
    /// The single strategy whose plan this member's is (`sweep` for the sweep around the
    /// long-lived, `skyline` for each preorder, `exact` for the branch and bound and the
    /// repair).
    ///
    /// ```
    /// use dramalloc_core::place::report::Member;
    /// use dramalloc_core::Strategy;
    /// assert_eq!(Member::SweepLong(3).strategy(), Strategy::Sweep);
    /// assert_eq!(Member::Skyline(2).strategy(), Strategy::Skyline);
    /// assert_eq!(Member::Repair.strategy(), Strategy::Exact);
    /// ```
    pub const fn strategy(self) -> crate::Strategy {
        use crate::Strategy;
        match self {
            Member::Sweep | Member::SweepLong(_) | Member::SweepHot(_) | Member::SweepTwoEnded => {
                Strategy::Sweep
            }
            Member::Skyline(_) | Member::SkylineTimed => Strategy::Skyline,
            Member::GreedyLoad => Strategy::GreedyLoad,
            Member::GreedySize => Strategy::GreedySize,
            Member::GreedyStart => Strategy::GreedyStart,
            Member::GreedyClass => Strategy::GreedyClass,
            Member::BestFit => Strategy::BestFit,
            Member::BestFitStart => Strategy::BestFitStart,
            Member::Seed => Strategy::Seed,
            Member::BranchAndBound | Member::Repair => Strategy::Exact,
        }
    }

    /// True for the rows that are a single strategy planned alone (the greedy and best-fit
    /// orders and the seed's), which a host may plan on a thread of its own
    /// ([`crate::place::exact::Budget::claim`]).
    pub const fn is_single(self) -> bool {
        matches!(
            self,
            Member::GreedyLoad
                | Member::GreedySize
                | Member::GreedyStart
                | Member::GreedyClass
                | Member::BestFit
                | Member::BestFitStart
                | Member::Seed
        )
    }

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Member::Sweep => "sweep",
            Member::SweepLong(7) => "sweep-long/128",
            Member::SweepLong(3) => "sweep-long/8",
            Member::SweepLong(_) => "sweep-long/2",
            Member::SweepHot(3) => "sweep-hot/8",
            Member::SweepHot(4) => "sweep-hot/16",
            Member::SweepHot(5) => "sweep-hot/32",
            Member::SweepHot(6) => "sweep-hot/64",
            Member::SweepHot(_) => "sweep-hot",
            Member::SweepTwoEnded => "sweep-two-ended",
            Member::Skyline(0) => "skyline-wat",
            Member::Skyline(1) => "skyline-taw",
            Member::Skyline(_) => "skyline-twa",
            Member::GreedyLoad => "greedy-load",
            Member::GreedySize => "greedy-size",
            Member::GreedyStart => "greedy-start",
            Member::GreedyClass => "greedy-class",
            Member::BestFit => "best-fit",
            Member::BestFitStart => "best-fit-start",
            Member::Seed => "seed",
            Member::BranchAndBound => "branch-and-bound",
            Member::Repair => "repair",
            Member::SkylineTimed => "skyline (timed)",
        }
    }

    /// What the `work` of its [`Outcome::Ran`] counts: search nodes for the branch and
    /// bound, work units (about a neighbour visited or a heap step) for every other member.
    ///
    /// ```
    /// use dramalloc_core::place::report::Member;
    /// assert_eq!(Member::BranchAndBound.work_unit(), "search nodes");
    /// assert_eq!(Member::Sweep.work_unit(), "work units");
    /// ```
    pub const fn work_unit(self) -> &'static str {
        match self {
            Member::BranchAndBound => "search nodes",
            _ => "work units",
        }
    }
}

/// What happened to one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Outcome {
    /// It ran and its plan peaked at `peak` bytes (for the branch and bound and the repair:
    /// the peak after them); `work` units of the budget were charged for it (the sweep that
    /// runs because no row before it made a plan: its estimate, even where the budget had
    /// less left).
    Ran {
        /// Peak of its plan, bytes.
        peak: u64,
        /// Work charged, in [`Member::work_unit`]s: units (about one neighbour visited or one
        /// heap step), or for [`Member::BranchAndBound`] the search nodes it expanded.
        work: u64,
    },
    /// It started and was stopped by its budget or the clock before it finished a plan.
    Stopped,
    /// It was stopped once a buffer it placed ended at or above the best plan's peak so far:
    /// a placer never moves what it placed, so its plan could only have peaked there or
    /// higher, and could not have replaced the best (the earlier of equal peaks is kept).
    Above {
        /// The end of that buffer, bytes (at least the best plan's peak).
        top: u64,
        /// Buffers it had placed, that one included.
        placed: u64,
        /// Work charged, units: its estimate in proportion to the buffers placed (the
        /// entries walked on the address-ordered scan).
        work: u64,
    },
    /// It failed (e.g. a buffer fits nowhere below the window); other members may still fit.
    Failed,
    /// It does not apply to this input (several intervals per candidate, pinned candidates,
    /// an unaligned floor, too little storage, more buffers than it handles).
    NotApplicable,
    /// Skipped: a sweep around the long-lived with no long set of its own, so its plan would
    /// be another row's (with no long set, the plain sweep's; with an earlier row's long
    /// set, that row's).
    NoLongSet,
    /// Skipped at its row: the sweep around the hot ([`Member::SweepHot`]) stands in for
    /// `greedy-load`, whose order it follows for less work, and a greedy pass fits in the
    /// budget left there. Where the rows between then leave `greedy-load` over budget, it
    /// runs right after it (a second row of its own in the report).
    Covered,
    /// Skipped: an earlier member already reached the lower bound.
    AtLowerBound,
    /// Skipped: its estimated cost is more than the budget left, in work units.
    OverBudget {
        /// Its estimated cost.
        cost: u64,
        /// The budget left.
        left: u64,
    },
    /// Skipped: the sweep around the hot ([`Member::SweepHot`]) would make the first plan,
    /// which the clock does not stop, and its estimate and the sweep's (the row after it, which
    /// makes a plan if it is stopped) together are more than the budget left, in work units:
    /// before it starts, or once it has counted its hot set's pairs (`cost` is then that
    /// estimate; it was charged its set-up).
    NoRoomForTheSweep {
        /// Its estimated cost.
        cost: u64,
        /// The sweep's estimated cost.
        sweep: u64,
        /// The budget left.
        left: u64,
    },
    /// Skipped: the caller's clock (a time limit) said stop.
    OutOfTime,
    /// Skipped: the host plans this strategy on another thread (it said so through
    /// [`crate::place::exact::Budget::claim`]; the host keeps that plan where it is lower).
    Elsewhere,
    /// Skipped: a plan of the host's other threads is at the lower bound
    /// ([`crate::place::exact::Claim::Reached`]).
    ReachedElsewhere,
}

/// Most members one portfolio reports: the 16 rows of `auto`'s table, the sweep around the
/// hot's second place (after `greedy-load`, where it stands in for it), `exact`'s timed
/// skyline, the branch and bound, the repair and `exact`'s second branch-and-bound row
/// (checked against the table at compile time in `place::portfolio`; before 2026-12-07 the
/// second branch-and-bound row was not counted, and a run with all of them lost its last row).
pub const MAX_MEMBERS: usize = 21;

/// The members of one portfolio run, in the order they were considered, and the one whose
/// plan was kept. Empty for a single strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Members {
    runs: [(Member, Outcome); MAX_MEMBERS],
    len: u8,
    /// The member whose plan was kept (before the branch and bound and the repair improved
    /// it, when they did), `None` for a single strategy.
    pub best: Option<Member>,
    /// The steps after the members that lowered the kept plan's peak, in the order they ran:
    /// `[0]` [`Member::BranchAndBound`], `[1]` [`Member::Repair`]; `None` where the step did
    /// not run or did not lower the peak.
    pub improved_by: [Option<Member>; 2],
    /// The lower bound (bytes) the members' peaks were judged against: the max load of the
    /// sizes as the members placed them, each padded to its own alignment. Above the plan's
    /// final [`crate::Metrics::lower_bound`] when a buffer's alignment pads it (the final
    /// plan and bound use the real footprints); 0 for a single strategy.
    pub lower_bound: u64,
    /// Nanoseconds each run took on the host's clock, by the index of [`Members::runs`]; 0
    /// where it was not timed (no clock, [`crate::place::exact::Budget::nanos_left`], or a
    /// skipped row).
    nanos: [u64; MAX_MEMBERS],
}

impl Default for Members {
    fn default() -> Self {
        Members {
            runs: [(Member::Sweep, Outcome::NotApplicable); MAX_MEMBERS],
            len: 0,
            best: None,
            improved_by: [None; 2],
            lower_bound: 0,
            nanos: [0; MAX_MEMBERS],
        }
    }
}

impl Members {
    /// Records `member`'s outcome (ignored past [`MAX_MEMBERS`]).
    pub fn push(&mut self, member: Member, outcome: Outcome) {
        if let Some(slot) = self.runs.get_mut(self.len as usize) {
            *slot = (member, outcome);
            self.len += 1;
        }
    }

    /// The members considered, in order, with their outcomes.
    ///
    /// ```
    /// use dramalloc_core::place::report::{Member, Members, Outcome};
    /// let mut m = Members::default();
    /// m.push(Member::Sweep, Outcome::Ran { peak: 4096, work: 10 });
    /// m.push(Member::Seed, Outcome::AtLowerBound);
    /// assert_eq!(m.runs().len(), 2);
    /// assert_eq!(m.runs()[1], (Member::Seed, Outcome::AtLowerBound));
    /// ```
    pub fn runs(&self) -> &[(Member, Outcome)] {
        &self.runs[..self.len as usize]
    }

    /// Records that the last run pushed took `nanos` nanoseconds on the host's clock
    /// (nothing before the first push).
    pub fn time_last(&mut self, nanos: u64) {
        if let Some(slot) = (self.len as usize).checked_sub(1).and_then(|i| self.nanos.get_mut(i)) {
            *slot = nanos;
        }
    }

    /// Nanoseconds each of [`Members::runs`] took on the host's clock, index for index
    /// (0: not timed).
    ///
    /// ```
    /// use dramalloc_core::place::report::{Member, Members, Outcome};
    /// let mut m = Members::default();
    /// m.time_last(5); // nothing pushed yet: nothing to time
    /// m.push(Member::Sweep, Outcome::Ran { peak: 4096, work: 10 });
    /// m.time_last(1_500_000);
    /// m.push(Member::Seed, Outcome::AtLowerBound);
    /// assert_eq!(m.nanos(), [1_500_000, 0]);
    /// ```
    pub fn nanos(&self) -> &[u64] {
        &self.nanos[..self.len as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the branch and bound counts search nodes; every other member, work units.
    #[test]
    fn the_branch_and_bound_alone_counts_nodes() {
        assert_eq!(Member::BranchAndBound.work_unit(), "search nodes");
        for m in [Member::Sweep, Member::SweepLong(7), Member::Skyline(1), Member::Seed, Member::Repair] {
            assert_eq!(m.work_unit(), "work units", "{}", m.name());
        }
    }
}
