//! The rate `auto`'s rows ran at in this run, on the caller's clock: the work units charged
//! to the rows that ran against the nanoseconds the clock moved while they did, and whether a
//! row's estimate fits in the time left at that rate.
//! Uses: nothing else in the crate; used by: portfolio.
//!
//! The work budget ([`crate::place::exact::Budget::work`]) is a function of the input, so
//! the rows it admits are the same on every host; the units are about nanoseconds on the
//! development machine. A slower host, a busier one, or two time sections sharing its
//! cores runs them slower, and a row the budget admits may then not finish before the
//! clock: it is stopped, its plan is lost, and the repair after it gets no time either (10^6
//! generated `mixed` rows, two time sections: in two runs of four the second section's
//! `sweep-long/8` was stopped and the plan ended 1.0712 × the bound, against 1.0000–1.0094
//! where it finished). A host with a clock ([`crate::place::exact::Budget::nanos_left`])
//! lets the portfolio measure the rows' rate and skip a row whose estimate needs more than
//! the time left, so the repair gets it instead.

/// Work units charged to the rows that ran and the nanoseconds they took.
///
/// ```
/// use dramalloc_core::place::row_rate::RowRate;
/// let mut r = RowRate::default();
/// assert_eq!(r.nanos_for(1_000), None, "no row ran: no rate");
/// r.add(2_000, 1_000); // 2,000 units in 1 µs
/// r.add(0, 1_000); // a row charged nothing still took its time
/// assert_eq!(r.nanos_for(1_000), Some(1_000));
/// assert!(r.fits(1_000, 1_000) && !r.fits(1_001, 1_000));
/// assert!(RowRate::default().fits(u64::MAX, 0), "no rate: the budget alone decides");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowRate {
    /// Work units charged to the rows measured.
    pub units: u64,
    /// Nanoseconds those rows took on the caller's clock.
    pub nanos: u64,
}

impl RowRate {
    /// Adds a row that was charged `units` work units and took `nanos` nanoseconds.
    pub fn add(&mut self, units: u64, nanos: u64) {
        self.units = self.units.saturating_add(units);
        self.nanos = self.nanos.saturating_add(nanos);
    }

    /// Nanoseconds `cost` work units take at this rate (rounded up, saturating), or `None`
    /// before a row was charged any work or took any time (no rate yet).
    pub fn nanos_for(&self, cost: u64) -> Option<u64> {
        if self.units == 0 || self.nanos == 0 {
            return None;
        }
        let need = (u128::from(cost) * u128::from(self.nanos)).div_ceil(u128::from(self.units));
        Some(u64::try_from(need).unwrap_or(u64::MAX))
    }

    /// Whether a row estimated at `cost` units finishes within `left` nanoseconds at this
    /// rate (true without a rate: the budget alone decides then).
    pub fn fits(&self, cost: u64, left: u64) -> bool {
        self.nanos_for(cost).is_none_or(|need| need <= left)
    }
}
