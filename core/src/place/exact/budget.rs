//! The budget of one branch-and-bound run: node limit, the caller's callback, the node count
//! and the work spent.
//! Uses: nothing else in the crate; used by: mod.rs, planner, portfolio, search, sim.

/// How often (in nodes) the `keep_going` callback is consulted.
pub const CHECK_EVERY: u64 = 256;

/// The callback is also consulted once the search has spent this many slot visits since it
/// last asked (a few milliseconds; [`crate::place::exact::Schedule::max_work`] says what
/// counts): a node tries its children one by
/// one, and each that fails its feasibility test costs a placement, a sweep over its sections
/// and an undo (which, without room on the undo stack, rebuilds minimum offsets from every
/// placed buffer, O(n) a buffer it lowers) without a node of its own. On 2,000 layered
/// buffers 256 nodes took up to 0.1 s that way, and a 0.2 s limit ran 0.13 s over (a
/// fresh-user trial, 2026-12-05).
pub const ASK_EVERY_SPENT: u64 = 1 << 20;

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
    /// A host that plans single strategies on threads of its own beside the portfolio (the
    /// sim's helper threads) answers here, only where the `auto`/`exact` portfolio's rows
    /// together are estimated past [`Budget::work`] (it could not run them all; below that
    /// every row runs here, as without a host, and this is never called). Before a row that is
    /// a single strategy (the greedy and best-fit orders and the seed's) the portfolio asks
    /// [`Ask::Take`]: [`Claim::Here`] takes it (the host's threads will not), and
    /// [`Claim::Elsewhere`] skips the row ([`crate::place::report::Outcome::Elsewhere`]: the
    /// host plans it and keeps that plan where it is lower). Once its rows are done it asks
    /// [`Ask::RowsDone`] (the host may finish the rows it took, on this thread, before the
    /// repair spends the clock); before every other row, the branch and bound and the repair
    /// it asks [`Ask::Status`]. [`Claim::Reached`] (a plan of the host's is at the lower
    /// bound) skips what is left ([`crate::place::report::Outcome::ReachedElsewhere`]).
    /// `None` here: every row runs.
    pub claim: Option<&'a mut dyn FnMut(Ask) -> Claim>,
    /// A host with a clock answers here the nanoseconds left before its time limit (negative
    /// once it has passed, so the time between two readings is their difference). `auto` and
    /// `exact` read it around each row, the branch and bound and the repair, and report the
    /// time each took ([`crate::place::report::Members::nanos`]); the readings decide nothing.
    /// `None`: nothing is timed.
    pub nanos_left: Option<&'a mut dyn FnMut() -> i64>,
}

/// What the portfolio asks its host ([`Budget::claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Before a single-strategy row: may the portfolio plan this strategy itself?
    Take(crate::Strategy),
    /// Before any other row, the branch and bound or the repair: is a plan of the host's at
    /// the lower bound? Takes nothing.
    Status,
    /// Once, after the rows and before the branch and bound and the repair: the host may now
    /// finish, on the portfolio's thread, the rows it took and has not finished; then as
    /// [`Ask::Status`].
    RowsDone,
}

/// A host's answer to the portfolio about a row ([`Budget::claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The portfolio runs the row (a single strategy: the host's threads leave it alone).
    Here,
    /// The host's threads plan this single strategy; the portfolio skips it.
    Elsewhere,
    /// A plan of the host's threads is at the lower bound: the portfolio skips what is left.
    Reached,
}

impl<'a> Budget<'a> {
    /// A budget of at most `max_nodes` search nodes and `work` work units, on the caller's
    /// clock `keep_going`: no repair allowance past `work` ([`Budget::repair_work`] 0), no
    /// host threads ([`Budget::claim`] `None`) and no clock reading ([`Budget::nanos_left`]
    /// `None`, so the plan depends on the input alone where `keep_going` does not stop it).
    ///
    /// ```
    /// use dramalloc_core::place::exact::Budget;
    /// let mut go = || true;
    /// let b = Budget::new(1_000, 5_000_000, &mut go);
    /// assert_eq!((b.max_nodes, b.work, b.repair_work), (1_000, 5_000_000, 0));
    /// assert!(b.claim.is_none() && b.nanos_left.is_none());
    /// ```
    pub fn new(max_nodes: u64, work: u64, keep_going: &'a mut dyn FnMut() -> bool) -> Budget<'a> {
        Budget { max_nodes, work, repair_work: 0, keep_going, claim: None, nanos_left: None }
    }
}

impl core::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Budget")
            .field("max_nodes", &self.max_nodes)
            .field("work", &self.work)
            .field("repair_work", &self.repair_work)
            .field("claim", &self.claim.is_some())
            .field("nanos_left", &self.nanos_left.is_some())
            .finish_non_exhaustive()
    }
}

/// Node and work accounting over all probes of one run.
pub(super) struct Meter<'b, 'a> {
    pub(super) budget: &'b mut Budget<'a>,
    pub(super) nodes: u64,
    pub(super) stopped: bool,
    /// Slot visits charged since the callback was last asked.
    pub(super) spent: u64,
    /// Slot visits charged in all ([`crate::place::exact::ExactOutcome::work`]).
    pub(super) work: u64,
    /// The run ends once `work` reaches this ([`crate::place::exact::Schedule::max_work`]).
    pub(super) max_work: u64,
}

impl<'b, 'a> Meter<'b, 'a> {
    /// A meter of no nodes and no work over `budget`, ending the run at `max_work` visits.
    pub(super) fn new(budget: &'b mut Budget<'a>, max_work: u64) -> Meter<'b, 'a> {
        Meter { budget, nodes: 0, stopped: false, spent: 0, work: 0, max_work }
    }

    /// Counts one node with no work between nodes; false when the run must end.
    #[cfg(test)]
    pub(super) fn tick(&mut self) -> bool {
        self.tick_after(0)
    }

    /// Charges `spent` slot visits of work between nodes (a node's children that fail before
    /// their own node); asks the callback once [`ASK_EVERY_SPENT`] visits were spent since it
    /// was last asked. False when the run must end.
    #[inline]
    pub(super) fn charge(&mut self, spent: u64) -> bool {
        self.add(spent, false);
        !self.stopped
    }

    /// Counts one node after `spent` slot visits outside the nodes' own work; the callback is
    /// asked every [`CHECK_EVERY`] nodes, and sooner once [`ASK_EVERY_SPENT`] visits were
    /// spent since it was last asked. False when the run must end.
    #[inline]
    pub(super) fn tick_after(&mut self, spent: u64) -> bool {
        self.nodes += 1;
        self.add(spent, self.nodes.is_multiple_of(CHECK_EVERY));
        if self.nodes >= self.budget.max_nodes {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Adds `spent` visits, ends the run once its work reaches `max_work`, and asks the
    /// callback when `due` or past [`ASK_EVERY_SPENT`] (the count starts again from 0); a
    /// "stop" latches.
    #[inline]
    fn add(&mut self, spent: u64, due: bool) {
        self.work = self.work.saturating_add(spent);
        if self.work >= self.max_work {
            self.stopped = true;
        }
        self.spent = self.spent.saturating_add(spent);
        if due || self.spent >= ASK_EVERY_SPENT {
            self.spent = 0;
            if !(self.budget.keep_going)() {
                self.stopped = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    /// Runs `check` on a meter of no node limit whose callback says go `go` times, then stop;
    /// returns how many times the callback was asked.
    fn asked(go: u32, check: impl FnOnce(&mut Meter<'_, '_>)) -> u32 {
        let asks = Cell::new(0u32);
        let mut keep_going = || {
            asks.set(asks.get() + 1);
            asks.get() <= go
        };
        let mut budget = Budget::new(u64::MAX, 0, &mut keep_going);
        check(&mut Meter::new(&mut budget, u64::MAX));
        asks.get()
    }

    /// The callback is asked on every `CHECK_EVERY`-th node only, and its first "stop" ends
    /// the run on that node; the node limit ends it on the `max_nodes`-th node.
    #[test]
    fn the_meter_asks_every_check_and_stops_at_the_limit() {
        let asks = asked(1, |meter| {
            let going = (0..10 * CHECK_EVERY).take_while(|_| meter.tick()).count() as u64;
            assert_eq!((going, meter.nodes, meter.stopped), (2 * CHECK_EVERY - 1, 2 * CHECK_EVERY, true));
        });
        assert_eq!(asks, 2);
        let mut go = || true;
        let mut budget = Budget::new(5, 0, &mut go);
        let mut meter = Meter::new(&mut budget, u64::MAX);
        let going = (0..10).take_while(|_| meter.tick()).count();
        assert_eq!((going, meter.nodes), (4, 5));
    }

    /// Work spent outside the nodes brings the question forward: asked at the node after
    /// `ASK_EVERY_SPENT` visits (not the 256th), the count starting again from there; a stop
    /// ends the run on that node. Between nodes, the charge asks at the same threshold and
    /// counts no node.
    #[test]
    fn work_outside_the_nodes_asks_sooner() {
        let asks = asked(2, |meter| {
            assert!(meter.tick_after(ASK_EVERY_SPENT - 1)); // node 1: not yet
            assert!(meter.tick_after(1)); // node 2: asked (1)
            assert_eq!(meter.spent, 0);
            assert!(meter.tick_after(ASK_EVERY_SPENT / 2)); // node 3: not yet
            let going = (4..CHECK_EVERY).take_while(|_| meter.tick()).count() as u64;
            assert_eq!((going, meter.nodes), (CHECK_EVERY - 4, CHECK_EVERY - 1)); // no ask on the way
            assert!(meter.tick()); // node 256: asked (2), the spent count cleared
            assert_eq!(meter.spent, 0);
            assert!(!meter.tick_after(ASK_EVERY_SPENT)); // node 257: asked (3), stop
        });
        assert_eq!(asks, 3);
        let asks = asked(1, |meter| {
            assert!(meter.charge(ASK_EVERY_SPENT - 1) && meter.charge(1)); // asked (1): go
            assert!(meter.charge(ASK_EVERY_SPENT - 1));
            assert!(!meter.charge(1)); // asked (2): stop
            assert!(!meter.charge(0) && !meter.tick());
            assert_eq!(meter.nodes, 1);
        });
        assert_eq!(asks, 2);
    }

    /// The work cap: charges and nodes add up their visits, and the charge that brings the
    /// work to `max_work` ends the run (the one before it does not).
    #[test]
    fn the_meter_stops_at_its_work_cap() {
        let mut go = || true;
        let mut budget = Budget::new(u64::MAX, 0, &mut go);
        let mut meter = Meter::new(&mut budget, 100);
        assert!(meter.charge(60) && meter.tick_after(39));
        assert_eq!((meter.work, meter.nodes, meter.stopped), (99, 1, false));
        assert!(!meter.charge(1));
        assert_eq!((meter.work, meter.stopped), (100, true));
        assert!(!meter.tick_after(0)); // latched
    }
}
