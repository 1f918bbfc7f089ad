//! Placement strategies: which order candidates are placed in and how a gap is chosen.

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
    /// The default: runs a portfolio (seed, greedy-size, best-fit) and keeps the lowest peak
    /// (ties: the first in that list), so it is never worse than any of them.
    #[default]
    Auto,
}

impl Strategy {
    /// Every strategy, in portfolio order.
    pub const ALL: [Strategy; 4] = [Strategy::Seed, Strategy::GreedySize, Strategy::BestFit, Strategy::Auto];

    /// The command-line name (`seed`, `greedy-size`, `best-fit`, `auto`).
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Seed => "seed",
            Strategy::GreedySize => "greedy-size",
            Strategy::BestFit => "best-fit",
            Strategy::Auto => "auto",
        }
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
