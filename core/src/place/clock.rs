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
}

impl<'c> Clock<'c> {
    /// A clock that asks `keep_going` every [`ASK_EVERY`] steps.
    pub fn new(keep_going: &'c mut dyn FnMut() -> bool) -> Clock<'c> {
        Clock { ask: Some(keep_going), steps: 0, stopped: false, work: 0 }
    }

    /// A clock that never stops (no time limit).
    pub fn none() -> Clock<'c> {
        Clock { ask: None, steps: 0, stopped: false, work: 0 }
    }

    /// Counts one step; false once the callback has said stop (asked on every
    /// [`ASK_EVERY`]-th step, the first stop kept).
    #[inline]
    pub fn tick(&mut self) -> bool {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(ASK_EVERY) {
            self.ask_now();
        }
        !self.stopped
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
