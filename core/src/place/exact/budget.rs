//! The budget of one branch-and-bound run: node limit, the caller's callback, the node count.
//! Uses: nothing else in the crate; used by: mod.rs, planner, portfolio, search, sim.

/// How often (in nodes) the `keep_going` callback is consulted.
pub const CHECK_EVERY: u64 = 256;

/// Limits of one planning run: the branch and bound's nodes, the `auto` portfolio's work and
/// the caller's clock.
pub struct Budget<'a> {
    /// Most search nodes the branch and bound of `exact` expands.
    pub max_nodes: u64,
    /// Work units the `auto` and `exact` portfolios may spend on their members and the peak
    /// repair (about nanoseconds on the development machine; see
    /// [`crate::place::portfolio`]); [`crate::place::portfolio::AUTO_WORK_BUDGET`] by default.
    pub work: u64,
    /// Work units the peak repair of `auto` and `exact` may spend past what their members left
    /// of `work`, while `keep_going` says go on and the repair keeps lowering the peak
    /// ([`crate::place::repair::Work::with_extension`]). A host with a clock passes `u64::MAX`:
    /// the repair is anytime, so it may use the time left instead of stopping at a unit count
    /// that the members' estimates, upper bounds, reached early. 0 keeps the whole run within
    /// `work`.
    pub repair_work: u64,
    /// Called every [`CHECK_EVERY`] nodes; returning false stops the search.
    pub keep_going: &'a mut dyn FnMut() -> bool,
}

impl core::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Budget")
            .field("max_nodes", &self.max_nodes)
            .field("work", &self.work)
            .field("repair_work", &self.repair_work)
            .finish_non_exhaustive()
    }
}

/// Node accounting over all probes of one run.
pub(super) struct Meter<'b, 'a> {
    pub(super) budget: &'b mut Budget<'a>,
    pub(super) nodes: u64,
    pub(super) stopped: bool,
}

impl Meter<'_, '_> {
    /// Counts one node; false when the run must end.
    #[inline]
    pub(super) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) && !(self.budget.keep_going)() {
            self.stopped = true;
        }
        if self.nodes >= self.budget.max_nodes {
            self.stopped = true;
        }
        !self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The callback is asked on every `CHECK_EVERY`-th node only, and its first "stop" ends
    /// the run on that node; the node limit ends it on the `max_nodes`-th node.
    #[test]
    fn the_meter_asks_every_check_and_stops_at_the_limit() {
        let mut asks = 0u32;
        let mut stop_on_second_ask = || {
            asks += 1;
            asks < 2
        };
        let mut budget =
            Budget { max_nodes: u64::MAX, work: 0, repair_work: 0, keep_going: &mut stop_on_second_ask };
        let mut meter = Meter { budget: &mut budget, nodes: 0, stopped: false };
        let going = (0..10 * CHECK_EVERY).take_while(|_| meter.tick()).count() as u64;
        assert_eq!((going, meter.nodes, meter.stopped), (2 * CHECK_EVERY - 1, 2 * CHECK_EVERY, true));
        assert_eq!(asks, 2);
        let mut go = || true;
        let mut budget = Budget { max_nodes: 5, work: 0, repair_work: 0, keep_going: &mut go };
        let mut meter = Meter { budget: &mut budget, nodes: 0, stopped: false };
        let going = (0..10).take_while(|_| meter.tick()).count();
        assert_eq!((going, meter.nodes), (4, 5));
    }
}
