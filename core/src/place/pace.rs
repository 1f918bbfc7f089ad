//! A row's pace on the caller's clock: once it has placed half its buffers, whether the rest,
//! at the pace it has kept so far, would finish before the clock stops it.
//! Uses: nothing else in the crate; used by: clock, portfolio.
//!
//! The work budget ([`crate::place::exact::Budget::work`]) is a function of the input, so the
//! rows it admits are the same on every host, but how fast they run is not (a slower or busier
//! host; two time sections sharing the cores). A row the budget admits may then not finish
//! before the clock: it is stopped, its plan is lost, and the repair after it gets no time
//! either (10^6 generated `mixed` rows, two time sections: in two runs of four the second
//! section's `sweep-long/8` was stopped and the plan ended 1.0712 × the bound, against
//! 1.0000–1.0094 where it finished). Where the host lends its clock
//! ([`crate::place::exact::Budget::nanos_left`]) a row's [`crate::place::clock::Clock`] keeps
//! its pace, and stops the row once the projection says it cannot finish, so the time left goes
//! to the repair.
//!
//! Why its own pace, and why half: a rate measured on the rows before it overstated a row's
//! time 1.4–3.4× (the sweep runs 0.8–1.3 work units a nanosecond, `sweep-long/8` 1.8,
//! `sweep-hot/8` 1.7–2.4, `skyline-taw` 1.6), and skipped rows that would have finished (a
//! try-and-break run: long-tail 10^5 at `--time-limit 0.4`, 1.0680 against 1.0295). A row's
//! first buffers can cost more than its last (the sweeps around the long-lived and the hot place
//! that set first, by a greedy pass), so the projection waits for half of them: a row stopped
//! there has spent about half its time.

/// A row's start on the caller's clock and the steps it will take (one a buffer placed).
///
/// ```
/// use dramalloc_core::place::pace::Pace;
/// // 1,000 steps, started with 100 ms left
/// let p = Pace { start: 100_000_000, total: 1_000 };
/// assert_eq!(p.behind(60_000_000, 499), None, "before half: no projection");
/// // half done in 40 ms: the rest needs 40 ms, 60 ms are left
/// assert_eq!(p.behind(60_000_000, 500), None);
/// // half done in 60 ms: the rest needs 60 ms, 40 ms are left: behind, 120 ms needed in all
/// assert_eq!(p.behind(40_000_000, 500), Some((120_000_000, 100_000_000)));
/// // past the limit (a negative reading): behind whatever the pace
/// assert_eq!(p.behind(-1, 900), Some((111_111_113, 100_000_000)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    /// Nanoseconds left on the clock when the row started (negative: past the limit).
    pub start: i64,
    /// Steps the row takes in all.
    pub total: u64,
}

impl Pace {
    /// With `now` nanoseconds left (negative past the limit) after `done` steps: `None`
    /// before half the steps or where the rest, at the pace so far, fits in the time left;
    /// otherwise `Some((needs, left))`, the nanoseconds the whole row needs at that pace
    /// (rounded up) and those that were left at its start (0 where none were).
    pub fn behind(&self, now: i64, done: u64) -> Option<(u64, u64)> {
        if done == 0 || done.saturating_mul(2) < self.total {
            return None;
        }
        let elapsed = u128::try_from(i128::from(self.start) - i128::from(now)).unwrap_or(0);
        let needs = (elapsed * u128::from(self.total)).div_ceil(u128::from(done));
        let rest = needs - elapsed.min(needs);
        let left = u128::try_from(now).unwrap_or(0);
        let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
        (rest > left).then(|| (clamp(needs), u64::try_from(self.start).unwrap_or(0)))
    }
}
