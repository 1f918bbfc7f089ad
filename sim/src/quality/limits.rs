//! What bounds `auto` and `exact` in the front end: the default time limit, the work budget
//! a time limit buys, and the deadline of a whole `dramalloc plan` process.
//! Uses: dramalloc-core (the portfolio's work units); used by: problem.rs (re-exported
//! there), cli (plan, quality), helpers.

use std::time::{Duration, Instant};

/// Default time limit of `auto` and `exact`: 1 s.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(1);

/// Work units of the core's portfolio per second of a time limit: its units are about
/// nanoseconds on the development machine ([`dramalloc_core::place::portfolio`]), and 80 %
/// of the limit is given as work, the rest left for the front end and slower machines.
pub const WORK_UNITS_PER_SECOND: f64 = 0.8e9;

/// The portfolio's work budget for a time limit ([`WORK_UNITS_PER_SECOND`]).
///
/// ```
/// use std::time::Duration;
/// assert_eq!(dramalloc_sim::quality::problem::work_for(Duration::from_secs(1)), 800_000_000);
/// ```
pub fn work_for(time_limit: Duration) -> u64 {
    (time_limit.as_secs_f64() * WORK_UNITS_PER_SECOND).min(u64::MAX as f64) as u64
}

/// What bounds `auto` and `exact`: a work budget (deterministic) and a deadline on the wall
/// clock (stops whatever still runs).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Work units of the portfolio ([`work_for`] a time limit).
    pub work: u64,
    /// When the clock stops the members still running.
    pub until: Instant,
    /// Threads `auto` and `exact` may use, the portfolio's included (the others are helper
    /// threads, [`crate::quality::helpers`]); [`default_threads`] unless set with
    /// [`Limits::with_threads`]; never more than [`default_threads`] are used.
    pub threads: usize,
}

/// The threads a host offers (`std::thread::available_parallelism`, 1 where unknown).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Work units a row costs the front end's reading and writing of a problem, charged against
/// a whole-process limit ([`Limits::whole_process`]): reading a minimalloc CSV and writing its
/// solution take about 0.25 µs a row on the development machine (10^6 rows: read 0.11–0.18 s,
/// write with its `fsync` 0.09–0.10 s), at [`WORK_UNITS_PER_SECOND`].
pub const IO_UNITS_PER_ROW: u64 = 200;

/// Time a row takes after the planner's clock stops, kept free at the end of a
/// whole-process limit: the planner's finish (its last window and settle, unpadding, the
/// metrics; 10^6 rows: 10–80 ms past the clock) and writing the solution (format, write and
/// `fsync`; 10^6 rows: 0.09–0.10 s), both on the development machine.
pub const TAIL_NANOS_PER_ROW: u64 = 160;

/// Time kept free at the end of a whole-process limit whatever the rows: creating, writing,
/// `fsync`ing and renaming the output file and the process's exit (measured 8–38 ms for
/// 28,526 rows on the 2026-12-02 Intel host, where the plan of `iopddl_S_1` ended 11 ms past
/// a clock with no fixed part and the whole process took 1.06 s of 1 s).
pub const TAIL_FIXED: Duration = Duration::from_millis(40);

/// Time a row's picture takes after the planner's clock stops when `plan --svg` draws the
/// plan, kept free at the end of a whole-process limit besides [`TAIL_NANOS_PER_ROW`]
/// (10^6 rows: the write stage 330 ms with the picture against 85 ms without, a fresh-user
/// trial on the development machine, 2026-12-05).
pub const PICTURE_NANOS_PER_ROW: u64 = 250;

/// Time a row of a binary plan file (`plan -o X.bin`) takes after the planner's clock stops,
/// kept free besides [`TAIL_NANOS_PER_ROW`] (which is a CSV solution's): the file is built
/// whole in memory and checksummed on one thread, and it is half as large again (10^6 rows:
/// 54 MB against 36 MB). Measured on the development machine, 10^6 rows of `generate
/// --shape mixed`, `--strategy sweep`, five runs each alternated: the write stage 145–194 ms
/// in three runs and 434–730 ms in two against 61–74 ms for the CSV (84–120 ms more in the
/// three: this constant covers them); a try-and-break run had the whole `auto` process at
/// 1.04–1.34 s of 1 s with `-o X.bin`, 0.92–0.94 s with CSV. The slow runs wait on the file
/// system (writing a 54 MB file right after the last one was replaced took 300 ms once in
/// four on this VM's ext4, mounted with `discard`, against 14 ms), which no reserve fixed in
/// advance covers. Those runs wrote the file in one call; written a MiB a call (as the CSV
/// is), 12 runs of the write stage took 155–210 ms, against 142–569 ms (three stalls) for 12
/// in one call, alternated, with another job on the VM.
pub const BINARY_NANOS_PER_ROW: u64 = 150;

impl Limits {
    /// The limits of a plan alone: [`work_for`] `time_limit`, and the clock from now (a
    /// whole process of no rows started now).
    pub fn within(time_limit: Duration) -> Limits {
        let now = Instant::now();
        Limits {
            work: work_for(time_limit),
            until: now.checked_add(time_limit).unwrap_or(now + FAR),
            threads: default_threads(),
        }
    }

    /// These limits with the clock stopped earlier by the time a picture of `rows` rows
    /// takes to draw ([`PICTURE_NANOS_PER_ROW`]; the work budget, a function of the input,
    /// stays).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use dramalloc_sim::quality::problem::Limits;
    /// let t0 = Instant::now();
    /// let l = Limits::whole_process(t0, Duration::from_secs(1), 1_000_000).with_picture(1_000_000);
    /// assert_eq!((l.work, l.until), (600_000_000, t0 + Duration::from_millis(550)));
    /// ```
    pub fn with_picture(self, rows: usize) -> Limits {
        self.stopping_earlier(rows, PICTURE_NANOS_PER_ROW)
    }

    /// These limits with the clock stopped earlier by the time a binary plan file of `rows`
    /// rows takes beyond a CSV solution ([`BINARY_NANOS_PER_ROW`]; the work budget stays).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use dramalloc_sim::quality::problem::Limits;
    /// let t0 = Instant::now();
    /// let l = Limits::whole_process(t0, Duration::from_secs(1), 1_000_000).with_binary_plan(1_000_000);
    /// assert_eq!((l.work, l.until), (600_000_000, t0 + Duration::from_millis(650)));
    /// ```
    pub fn with_binary_plan(self, rows: usize) -> Limits {
        self.stopping_earlier(rows, BINARY_NANOS_PER_ROW)
    }

    /// These limits with the clock stopped `nanos_per_row` earlier a row (kept as it is where
    /// that reaches before the clock's origin); the work budget stays.
    fn stopping_earlier(self, rows: usize, nanos_per_row: u64) -> Limits {
        let kept = Duration::from_nanos((rows as u64).saturating_mul(nanos_per_row));
        Limits { until: self.until.checked_sub(kept).unwrap_or(self.until), ..self }
    }

    /// These limits with `threads` threads in all (1: no helper thread).
    pub fn with_threads(self, threads: usize) -> Limits {
        Limits { threads: threads.max(1), ..self }
    }

    /// The limits of a whole `dramalloc plan` process started at `started` that must end
    /// within `time_limit` with `rows` rows read and written: the work budget is
    /// [`work_for`] the limit less [`IO_UNITS_PER_ROW`] a row (a function of the input alone,
    /// so the plan stays deterministic), and the clock stops the planning [`TAIL_FIXED`] plus
    /// [`TAIL_NANOS_PER_ROW`] a row before the limit, leaving the time to finish and write.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use dramalloc_sim::quality::problem::Limits;
    /// let t0 = Instant::now();
    /// let l = Limits::whole_process(t0, Duration::from_secs(1), 1_000_000);
    /// assert_eq!(l.work, 600_000_000);
    /// assert_eq!(l.until, t0 + Duration::from_millis(800));
    /// ```
    pub fn whole_process(started: Instant, time_limit: Duration, rows: usize) -> Limits {
        let io = (rows as u64).saturating_mul(IO_UNITS_PER_ROW);
        let tail = TAIL_FIXED + Duration::from_nanos((rows as u64).saturating_mul(TAIL_NANOS_PER_ROW));
        let end = started.checked_add(time_limit).unwrap_or(started + FAR);
        Limits {
            work: work_for(time_limit).saturating_sub(io),
            until: end.checked_sub(tail).unwrap_or(started),
            threads: default_threads(),
        }
    }
}

/// Nanoseconds from now to `until`, negative once it has passed (saturating at the ends of
/// `i64`, about 292 years): the clock reading the core's portfolio asks of its host
/// ([`dramalloc_core::place::exact::Budget::nanos_left`]), whose differences time its rows.
///
/// ```
/// use std::time::{Duration, Instant};
/// use dramalloc_sim::quality::limits::nanos_until;
/// let past = Instant::now();
/// std::thread::sleep(Duration::from_millis(2));
/// assert!(nanos_until(past) <= -2_000_000);
/// let left = nanos_until(Instant::now() + Duration::from_secs(1));
/// assert!(left > 900_000_000 && left <= 1_000_000_000);
/// ```
pub fn nanos_until(until: Instant) -> i64 {
    let now = Instant::now();
    let sat = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    match until.checked_duration_since(now) {
        Some(ahead) => sat(ahead),
        None => -sat(now.duration_since(until)),
    }
}

/// A deadline past any run (about 31 years), for limits whose end does not fit an `Instant`.
const FAR: Duration = Duration::from_secs(1 << 30);
