//! Placement strategies: which order candidates are placed in and how a gap is chosen.
//! Uses: nothing else in the crate; used by: multicore, place, planner, sim.

/// A placement strategy. All share the interval tree, `search` and `select`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Strategy {
    /// The seed's reference behaviour: `simplify` (Briggs order) + first-fit `search`.
    Seed,
    /// Size-descending first-fit (the TensorFlow Lite Micro greedy planner's order): largest
    /// aligned size first, then longest lifetime, then lowest index.
    GreedySize,
    /// Size-descending best-fit (XLA heap simulator style): the same order, smallest gap.
    BestFit,
    /// Size-descending first-fit, equal sizes in start order
    /// ([`crate::place::greedy::Order::SizeStart`]).
    GreedyStart,
    /// Size-descending best-fit, equal sizes in start order
    /// ([`crate::place::greedy::Order::SizeStart`]; XLA's rule with start-time ties).
    BestFitStart,
    /// First fit, buffers living through the highest load first
    /// ([`crate::place::greedy::Order::LoadLife`]; falls back to `GreedySize` without the
    /// section totals, e.g. with pinned candidates).
    GreedyLoad,
    /// First fit by quarter-octave size class, then start
    /// ([`crate::place::greedy::Order::ClassStart`]).
    GreedyClass,
    /// Lowest-offset first ([`crate::place::skyline`]): the exact search's placement rule without
    /// backtracking, the best of its three preorders; O(n log n) for short lifetimes,
    /// quadratic at worst (see the module). Falls back to
    /// `GreedySize` where the skyline does not apply (several intervals per candidate, missing
    /// storage, sizes whose sum passes `u64`, or a pinned candidate so high that a buffer
    /// above it could end past `u64::MAX`).
    Skyline,
    /// Time sweep ([`crate::place::sweep`]): place in def order among the live buffers, like a
    /// run-time allocator; O(n log n + n·d), for millions of short-lived buffers.
    Sweep,
    /// The portfolio of `auto`, then the anytime branch and bound of [`crate::place::exact`] (after
    /// MiniMalloc) with the caller's budget (`plan_*_with`) or
    /// [`crate::place::portfolio::EXACT_DEFAULT_NODES`] nodes, for up to
    /// [`crate::place::exact::EXACT_MAX_BUFFERS`] buffers. Its search is auto's search continued
    /// (auto's, to its work cap, then on from the repaired plan with the nodes left), so it is
    /// never worse than `auto`.
    Exact,
    /// The default: the portfolio of [`crate::place::portfolio`]: the sweep, the skyline,
    /// the greedy orders, seed and best-fit as the work budget allows, then the branch and
    /// bound on small inputs and the peak repair, keeping the lowest peak (ties: the
    /// earlier member; the rest is skipped once a member reaches the lower bound). Never
    /// worse than any member it runs; the plan's [`crate::place::report::Members`] says
    /// which ran and which were skipped, and why.
    #[default]
    Auto,
}

impl Strategy {
    /// Every strategy (the position is the `strategy` metric's value).
    pub const ALL: [Strategy; 11] = [
        Strategy::Seed,
        Strategy::GreedySize,
        Strategy::BestFit,
        Strategy::Skyline,
        Strategy::Sweep,
        Strategy::Exact,
        Strategy::Auto,
        Strategy::GreedyStart,
        Strategy::GreedyLoad,
        Strategy::GreedyClass,
        Strategy::BestFitStart,
    ];

    /// The command-line name (`seed`, `greedy-size`, `best-fit`, `skyline`, `sweep`, `exact`,
    /// `auto`, `greedy-start`, `greedy-load`, `greedy-class`, `best-fit-start`).
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Seed => "seed",
            Strategy::GreedySize => "greedy-size",
            Strategy::BestFit => "best-fit",
            Strategy::Skyline => "skyline",
            Strategy::Sweep => "sweep",
            Strategy::Exact => "exact",
            Strategy::Auto => "auto",
            Strategy::GreedyStart => "greedy-start",
            Strategy::GreedyLoad => "greedy-load",
            Strategy::GreedyClass => "greedy-class",
            Strategy::BestFitStart => "best-fit-start",
        }
    }

    /// Whether the strategy may ask for a candidate's interfering neighbours, so that the
    /// stored adjacency ([`crate::Workspace::adjacency`]) can pay for itself: every strategy
    /// but the time sweep, which finds the live buffers by its own sweep over the defs (it
    /// falls back to `greedy-size` only where it does not apply, and that pass then asks the
    /// interval tree). The planner builds the adjacency only for a strategy where this holds.
    ///
    /// ```
    /// use dramalloc_core::Strategy;
    /// assert!(!Strategy::Sweep.reads_neighbours());
    /// assert!(Strategy::Auto.reads_neighbours() && Strategy::Seed.reads_neighbours());
    /// ```
    pub const fn reads_neighbours(self) -> bool {
        !matches!(self, Strategy::Sweep)
    }

    /// Parses a command-line name.
    ///
    /// ```
    /// use dramalloc_core::Strategy;
    /// assert_eq!(Strategy::from_name("best-fit"), Some(Strategy::BestFit));
    /// assert_eq!(Strategy::from_name("nope"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}
