//! The caller's clock as a placer consults it: a step counter that asks the caller's
//! `keep_going` callback every [`ASK_EVERY`] steps and remembers the first "stop".
//! Uses: nothing else in the crate; used by: sweep, sweep_long, scan, class_index, seed, portfolio.
//!
//! The core has no clock of its own (`no_std`): a time limit reaches it as a callback
//! (`Budget::keep_going`, [`crate::place::exact::Budget`]). The branch and bound, the skyline
//! and the repair ask it in their loops; the placers of the other members (the sweeps, the
//! greedy placers) ask it through a [`Clock`] once per buffer placed, so every member of
//! `auto` stops within [`ASK_EVERY`] buffers of the caller's "stop" and a time limit holds on
//! a host slower than the one the work estimates were measured on.
//!
//! A clock also counts the work a placer reports ([`Clock::charge`]): the address-ordered
//! scan, whose cost is bounded (n²/2 entries walked) but often far lower, charges the entries
//! it really walks, and `auto` charges its budget that count instead of the bound.

/// How often (in steps, one step a buffer placed) a [`Clock`] asks its callback.
pub const ASK_EVERY: u32 = 256;

/// A step counter over the caller's `keep_going` callback (or none: never stops).
///
/// ```
/// use dramalloc_core::place::clock::{Clock, ASK_EVERY};
/// let mut asked = 0u32;
/// let mut stop_on_second_ask = || { asked += 1; asked < 2 };
/// let mut clock = Clock::new(&mut stop_on_second_ask);
/// let steps = (0..10 * ASK_EVERY).take_while(|_| clock.tick()).count() as u32;
/// assert_eq!((steps, clock.stopped()), (2 * ASK_EVERY - 1, true));
/// assert!(!clock.tick(), "a stop is remembered");
///
/// let mut never = Clock::none();
/// assert!((0..10 * ASK_EVERY).all(|_| never.tick()) && !never.stopped());
/// ```
pub struct Clock<'c> {
    ask: Option<&'c mut dyn FnMut() -> bool>,
    steps: u32,
    stopped: bool,
    /// Work units charged so far.
    work: u64,
    /// Buffers placed so far ([`Clock::placed`]).
    placed: u64,
    /// A top (bytes) at or past which the plan cannot win ([`Clock::with_ceiling`]); `None`:
    /// no plan to beat (a top of `u64::MAX` does not stop the placer then: a trial's input
    /// whose optimum is `u64::MAX` had every member stopped "at or above the best plan's peak"
    /// before any plan existed).
    ceiling: Option<u64>,
    /// The first top at or past `ceiling`.
    above: Option<u64>,
}

impl<'c> Clock<'c> {
    /// A clock that asks `keep_going` every [`ASK_EVERY`] steps.
    pub fn new(keep_going: &'c mut dyn FnMut() -> bool) -> Clock<'c> {
        Clock { ask: Some(keep_going), ..Clock::none() }
    }

    /// A clock that never stops (no time limit).
    pub fn none() -> Clock<'c> {
        Clock { ask: None, steps: 0, stopped: false, work: 0, placed: 0, ceiling: None, above: None }
    }

    /// The same clock, which also stops the placer once a buffer it places ends at or above
    /// `ceiling` bytes ([`Clock::placed`]): a placer never moves a buffer it placed, so its
    /// plan's peak can only grow from there, and a plan peaking at or above the best one so
    /// far cannot replace it (`auto` keeps the earlier of equal peaks).
    ///
    /// ```
    /// use dramalloc_core::place::clock::Clock;
    /// let mut clock = Clock::none().with_ceiling(100);
    /// let tops = [40, 99, 100, 30];
    /// let placed = tops.iter().take_while(|&&t| clock.tick() && { clock.placed(t); true }).count();
    /// assert_eq!((placed, clock.above(), clock.placed_count()), (3, Some(100), 3));
    /// assert!(!clock.stopped(), "the caller's clock did not say stop");
    /// ```
    #[must_use]
    pub fn with_ceiling(mut self, ceiling: u64) -> Clock<'c> {
        self.ceiling = Some(ceiling);
        self
    }

    /// Counts one buffer placed, ending at `top` bytes; from the first top at or above the
    /// ceiling ([`Clock::with_ceiling`]) on, [`Clock::tick`] says stop.
    #[inline]
    pub fn placed(&mut self, top: u64) {
        self.placed += 1;
        if self.ceiling.is_some_and(|c| top >= c) && self.above.is_none() {
            self.above = Some(top);
        }
    }

    /// The first top placed at or above the ceiling (bytes), `None` while every top is below it.
    pub fn above(&self) -> Option<u64> {
        self.above
    }

    /// Buffers placed so far ([`Clock::placed`]).
    pub fn placed_count(&self) -> u64 {
        self.placed
    }

    /// Counts one step; false once the callback has said stop (asked on every
    /// [`ASK_EVERY`]-th step, the first stop kept) or a buffer has ended at or above the
    /// ceiling ([`Clock::placed`]).
    #[inline]
    pub fn tick(&mut self) -> bool {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(ASK_EVERY) {
            self.ask_now();
        }
        !self.stopped && self.above.is_none()
    }

    /// Asks the callback now (unless a stop is already known); false once it has said stop.
    pub fn ask_now(&mut self) -> bool {
        if !self.stopped {
            if let Some(ask) = self.ask.as_mut() {
                self.stopped = !ask();
            }
        }
        !self.stopped
    }

    /// Counts `units` of work (saturating). The count never stops the clock: the caller reads
    /// it ([`Clock::work`]) and decides.
    ///
    /// ```
    /// use dramalloc_core::place::clock::Clock;
    /// let mut clock = Clock::none();
    /// clock.charge(60);
    /// clock.charge(u64::MAX);
    /// assert_eq!(clock.work(), u64::MAX);
    /// ```
    #[inline]
    pub fn charge(&mut self, units: u64) {
        self.work = self.work.saturating_add(units);
    }

    /// Work units charged so far ([`Clock::charge`]).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Whether the callback has said stop.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether the placer stopped: the callback said stop, or a buffer ended at or above
    /// the ceiling ([`Clock::above`]). A placer that halts leaves the rest unplaced.
    pub fn halted(&self) -> bool {
        self.stopped || self.above.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no ceiling (no plan to beat) a top of `u64::MAX` does not stop the placer; with a
    /// ceiling of `u64::MAX` (a plan peaking there) it does, the earlier of equal peaks kept.
    #[test]
    fn only_a_ceiling_stops_the_placer_at_u64_max() {
        let mut free = Clock::none();
        free.placed(u64::MAX);
        assert!(free.tick() && free.above().is_none() && !free.halted());
        let mut capped = Clock::none().with_ceiling(u64::MAX);
        capped.placed(u64::MAX - 1);
        assert!(capped.tick());
        capped.placed(u64::MAX);
        assert!(!capped.tick() && capped.above() == Some(u64::MAX) && capped.halted() && !capped.stopped());
    }

    /// `ask_now` asks at once and answers as `tick` would; without a callback it never stops.
    #[test]
    fn ask_now_asks_at_once() {
        let mut calls = 0u32;
        let mut once = || {
            calls += 1;
            calls < 2
        };
        {
            let mut clock = Clock::new(&mut once);
            assert!(clock.ask_now() && !clock.stopped());
            assert!(!clock.ask_now() && clock.stopped());
            assert!(!clock.ask_now() && !clock.tick(), "a stop is kept and the callback not asked again");
        }
        assert_eq!(calls, 2);
        let mut never = Clock::none();
        assert!(never.ask_now() && never.tick() && !never.stopped());
    }
}
