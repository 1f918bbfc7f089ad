//! The peak repair's work budget: neighbour visits, a caller's clock, and the patience past
//! the base budget that lasts while the peak keeps going down.
//! Uses: nothing else in the crate; used by: repair, settle, portfolio (re-exported from repair).

/// A deterministic work budget in neighbour visits, with an optional clock asked once a
/// window and inside one (see [`ASK_EVERY_VISITS`]).
pub struct Work<'a> {
    /// Visits still allowed.
    pub left: u64,
    /// Asked before each window; `false` stops the repair (a caller's time limit).
    pub keep_going: &'a mut dyn FnMut() -> bool,
    /// `left` when the clock was last asked inside a window.
    asked_at: u64,
    /// The clock said stop: nothing more is started (a window's remaining orders, the settle).
    stopped: bool,
    /// `left` at the start.
    start: u64,
    /// Visits spent unconditionally; past them the repair goes on only while it keeps
    /// lowering the peak ([`Work::stalled`]).
    base: u64,
    /// Visits spent when the peak last went down.
    gain_at: u64,
}

impl<'a> Work<'a> {
    /// `left` visits, with `keep_going` as the clock.
    pub fn new(left: u64, keep_going: &'a mut dyn FnMut() -> bool) -> Work<'a> {
        Work::with_extension(left, 0, keep_going)
    }

    /// `base` visits and up to `extra` more while the repair keeps lowering the peak: past
    /// `base` it stops once the visits spent since the peak last went down exceed
    /// [`STALL_FACTOR`] times the larger of `base` and the visits spent before that (its
    /// patience grows with its progress). A
    /// host with a clock passes `extra = u64::MAX`: the repair then ends at the clock, at the
    /// bound, where no window lowers the peak, or where it stalls.
    pub fn with_extension(base: u64, extra: u64, keep_going: &'a mut dyn FnMut() -> bool) -> Work<'a> {
        let left = base.saturating_add(extra);
        Work { left, keep_going, asked_at: left, stopped: false, start: left, base, gain_at: 0 }
    }

    /// Visits spent so far.
    pub fn used(&self) -> u64 {
        self.start - self.left
    }

    /// True past `base` once the visits since the peak last went down exceed
    /// [`STALL_FACTOR`] times the larger of `base` and the visits before that
    /// ([`Work::with_extension`]).
    pub(crate) fn stalled(&self) -> bool {
        // (this implies spending past `base`: gain_at <= used, and the bound is at least 2 base)
        self.used() - self.gain_at > STALL_FACTOR.saturating_mul(self.base.max(self.gain_at))
    }

    /// True once the clock said stop.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Asks the clock; once it says stop, it stays stopped and answers false.
    pub(crate) fn go(&mut self) -> bool {
        self.stopped = self.stopped || !(self.keep_going)();
        !self.stopped
    }

    /// True when nothing more may start: no work left, the clock said stop, or past `base`
    /// the repair stalled ([`Work::stalled`]).
    pub(crate) fn done(&self) -> bool {
        self.left == 0 || self.stopped || self.stalled()
    }
}

/// How many times the visits spent up to its last gain (or its base budget) the repair may
/// spend past its base budget without lowering the peak again. Its windows double their margin
/// around a peak buffer that resists, so each next gain tends to cost about what all the
/// earlier ones did: on 5,000 generated `mixed` buffers (`tests/strategies.rs`) the peak went
/// down at about 13, 23, 43, 83, 163 and 323 × 10^6 visits, each about twice the one
/// before, so a patience of once the spend stops at a plateau a doubling would end; twice
/// leaves room for a gap of three.
pub const STALL_FACTOR: u64 = 2;

/// Inside a window the clock is asked every 256 buffers, or sooner once this many neighbour
/// visits were spent since it was last asked (about 0.1 ms): one buffer with a long neighbour
/// list (a layered graph's long-lived tensors) costs thousands, and 256 of them ran a
/// 300,000-row plan 0.4 s past its limit.
pub const ASK_EVERY_VISITS: u64 = 1 << 16;

impl Work<'_> {
    /// The budget the repair plans its set-up by, in visits: all it may spend, or, with an
    /// unbounded allowance past the base (a host's clock), the base, which then stands for
    /// the time left (the units being about nanoseconds).
    pub(crate) fn planning_budget(&self) -> u64 {
        if self.start == u64::MAX {
            self.base
        } else {
            self.start
        }
    }

    /// Records a gain now: the patience past the base counts from here ([`Work::stalled`]).
    pub(crate) fn gained(&mut self) {
        self.gain_at = self.used();
    }
}

/// Whether the repair must stop inside a window: no work left, or (every 256 buffers, or
/// after [`ASK_EVERY_VISITS`] visits) the caller's clock says so.
pub(crate) fn out_of_work(work: &mut Work<'_>, done: usize) -> bool {
    if work.done() {
        return true;
    }
    if done % 256 == 255 || work.asked_at.saturating_sub(work.left) >= ASK_EVERY_VISITS {
        work.asked_at = work.left;
        return !work.go();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock's first "stop" latches: later questions get stop without asking it again,
    /// and every check inside a window (not only every 256th buffer) says stop from then on;
    /// before it, a check asks only every 256th buffer, and work running out stops too.
    #[test]
    fn a_clocks_stop_latches() {
        let mut calls = 0u32;
        let mut clock = || {
            calls += 1;
            calls != 2 // go, stop, then go again if it were asked
        };
        let mut w = Work::new(1_000, &mut clock);
        assert!(!out_of_work(&mut w, 0)); // not asked at buffer 0
        assert!(w.go()); // asked: go
        assert!(out_of_work(&mut w, 255)); // asked (the 256th buffer): stop
        let stopped = (w.done(), out_of_work(&mut w, 0), w.go(), out_of_work(&mut w, 1));
        assert_eq!(stopped, (true, true, false, true));
        assert_eq!(calls, 2);
        let mut go = || true;
        let mut w = Work::new(0, &mut go);
        assert_eq!((w.done(), out_of_work(&mut w, 3)), (true, true));
    }

    /// Past its base budget the allowance lasts while the peak keeps going down: with a base
    /// of 100 and no gain the repair stalls past 200 spent (`STALL_FACTOR` × 100 since its last
    /// gain, at 0); a gain at 201 gives it 2 × 201 more, up to 603; without an allowance it
    /// never stalls (its base is all it has). `used` counts from the start.
    #[test]
    fn the_allowance_past_the_base_lasts_while_the_peak_goes_down() {
        let mut go = || true;
        let mut w = Work::with_extension(100, 10_000, &mut go);
        assert_eq!((w.left, w.used(), w.stalled()), (10_100, 0, false));
        w.left -= 200;
        assert_eq!((w.used(), w.stalled(), w.done()), (200, false, false));
        w.left -= 1;
        assert_eq!((w.used(), w.stalled(), w.done()), (201, true, true));
        w.gain_at = 201;
        assert!(!w.stalled());
        w.left -= 402;
        assert_eq!((w.used(), w.stalled()), (603, false));
        w.left -= 1;
        assert!(w.stalled());
        let mut go = || true;
        let mut w = Work::new(100, &mut go);
        w.left = 0;
        assert_eq!((w.used(), w.stalled(), w.done()), (100, false, true));
    }
}
