//! The whole-process figures of `dramalloc plan` against the planning-at-scale targets
//! (issue 12): what one `plan` process reported and took, the targets, and the table
//! `dramalloc scale` prints.
//! Uses: quality (peak_ratio), serde_json; used by: cli (scale).
//!
//! A user of a planner waits for the whole process: reading the file, planning, writing the
//! solution, starting and ending the process. `dramalloc scale` runs `plan` as a child process
//! per input and run, times it from spawn to exit, reads the figures `plan --json` prints
//! (peak, bound, stage times, the process's peak resident set, Linux `VmHWM`) and checks
//! every solution with the independent verifier. This module holds the parts that do not
//! start a process: [`ProcessRun::from_plan_json`], [`Targets`] and [`table`].

use std::fmt::Write as _;
use std::time::Duration;

/// What one `plan` process reported (`--json`) and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessRun {
    /// Buffers in the input.
    pub buffers: u64,
    /// The plan's high-water mark, bytes.
    pub hwm: u64,
    /// The max-load lower bound, bytes.
    pub lower_bound: u64,
    /// Read, plan and write stage times `plan` measured, milliseconds.
    pub read_ms: f64,
    /// See `read_ms`.
    pub plan_ms: f64,
    /// See `read_ms`.
    pub write_ms: f64,
    /// The whole process, spawn to exit, on the parent's clock.
    pub whole: Duration,
    /// The process's peak resident set, bytes (`None` where its kernel does not say).
    pub peak_resident: Option<u64>,
}

impl ProcessRun {
    /// The run of a `plan --json` process whose standard output was `stdout` and that took
    /// `whole`.
    ///
    /// # Errors
    /// A message naming the first field that is missing or not of its type, or saying the
    /// output is not JSON.
    ///
    /// ```
    /// use dramalloc_sim::quality::scale::ProcessRun;
    /// use std::time::Duration;
    /// let out = br#"{"buffers": 3, "hwm": 120, "lower_bound": 100, "read_ms": 0.5,
    ///   "time_ms": 2.0, "write_ms": 0.25, "peak_resident_bytes": 4096}"#;
    /// let run = ProcessRun::from_plan_json(out, Duration::from_millis(9))?;
    /// assert_eq!((run.hwm, run.lower_bound, run.peak_resident), (120, 100, Some(4096)));
    /// assert_eq!(run.ratio(), 1.2);
    /// let err = ProcessRun::from_plan_json(br#"{"buffers": 3}"#, Duration::ZERO).unwrap_err();
    /// assert_eq!(err, "plan --json printed no `hwm` (a whole number)");
    /// # Ok::<(), String>(())
    /// ```
    pub fn from_plan_json(stdout: &[u8], whole: Duration) -> Result<ProcessRun, String> {
        let v: serde_json::Value =
            serde_json::from_slice(stdout).map_err(|e| format!("plan --json printed no JSON object: {e}"))?;
        let missing = |k: &str, what: &str| format!("plan --json printed no `{k}` ({what})");
        let whole_number = |k: &str| {
            v.get(k).and_then(serde_json::Value::as_u64).ok_or_else(|| missing(k, "a whole number"))
        };
        let number =
            |k: &str| v.get(k).and_then(serde_json::Value::as_f64).ok_or_else(|| missing(k, "a number"));
        let peak_resident = match v.get("peak_resident_bytes") {
            None | Some(serde_json::Value::Null) => None,
            Some(x) => {
                Some(x.as_u64().ok_or_else(|| missing("peak_resident_bytes", "a whole number or null"))?)
            }
        };
        Ok(ProcessRun {
            buffers: whole_number("buffers")?,
            hwm: whole_number("hwm")?,
            lower_bound: whole_number("lower_bound")?,
            read_ms: number("read_ms")?,
            plan_ms: number("time_ms")?,
            write_ms: number("write_ms")?,
            whole,
            peak_resident,
        })
    }

    /// Peak / lower bound ([`crate::quality::peak_ratio`]).
    pub fn ratio(&self) -> f64 {
        crate::quality::peak_ratio(self.hwm, self.lower_bound)
    }
}

/// The targets a run is judged against: a peak at most `ratio` × the lower bound, a whole
/// process under `time`, a peak resident set under `resident` bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Targets {
    /// Largest peak / lower bound that meets the target.
    pub ratio: f64,
    /// The whole process must end before this.
    pub time: Duration,
    /// The peak resident set must stay under this many bytes.
    pub resident: u64,
}

impl Targets {
    /// Issue 12's targets at 10^6 buffers: ≤ 1.01 × LB, under 1 s, under 256 MiB.
    pub const ISSUE_12: Targets = Targets { ratio: 1.01, time: Duration::from_secs(1), resident: 256 << 20 };

    /// `whole process under T s` with T as given (not rounded).
    fn time_words(&self) -> String {
        format!("whole process under {} s", self.time.as_secs_f64())
    }

    /// `peak resident under B bytes (M MiB)`: the bytes exactly, the MiB to two decimals.
    fn resident_words(&self) -> String {
        format!("peak resident under {} bytes ({:.2} MiB)", self.resident, mib(self.resident))
    }

    /// The time and memory targets in words, for the table's header.
    fn words(&self) -> String {
        format!("{}, {}", self.time_words(), self.resident_words())
    }

    /// Which targets `run` misses.
    ///
    /// ```
    /// use dramalloc_sim::quality::scale::{Missed, ProcessRun, Targets};
    /// use std::time::Duration;
    /// let t = Targets::ISSUE_12;
    /// let run = ProcessRun { buffers: 1, hwm: 101, lower_bound: 100, read_ms: 0.0, plan_ms: 0.0,
    ///     write_ms: 0.0, whole: Duration::from_millis(999), peak_resident: Some((256 << 20) - 1) };
    /// assert_eq!(t.missed(&run), Missed { ratio: false, time: false, resident: Some(false) });
    /// let slow = ProcessRun { whole: Duration::from_secs(1), peak_resident: None, ..run.clone() };
    /// assert_eq!(t.missed(&slow), Missed { ratio: false, time: true, resident: None });
    /// let high = ProcessRun { hwm: 102, peak_resident: Some(256 << 20), ..run };
    /// assert_eq!(t.missed(&high), Missed { ratio: true, time: false, resident: Some(true) });
    /// ```
    pub fn missed(&self, run: &ProcessRun) -> Missed {
        Missed {
            ratio: run.ratio() > self.ratio,
            time: run.whole >= self.time,
            resident: run.peak_resident.map(|b| b >= self.resident),
        }
    }
}

/// The targets a run missed; `resident` is `None` where the run's peak resident set is not
/// known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Missed {
    /// Its peak is above the ratio target.
    pub ratio: bool,
    /// Its whole process took the time target or longer.
    pub time: bool,
    /// Its peak resident set reached the memory target (`None`: not known).
    pub resident: Option<bool>,
}

impl Missed {
    /// Every target met (a resident set not known does not meet its target).
    pub fn none(self) -> bool {
        !self.ratio && !self.time && self.resident == Some(false)
    }

    /// The missed targets of several runs together: missed where any run missed.
    fn or(self, other: Missed) -> Missed {
        Missed {
            ratio: self.ratio || other.ratio,
            time: self.time || other.time,
            resident: match (self.resident, other.resident) {
                (Some(a), Some(b)) => Some(a || b),
                _ => None,
            },
        }
    }

    /// The table's last column: `met`, or what was missed.
    fn describe(self) -> String {
        if self.none() {
            return "met".to_owned();
        }
        let mut what = Vec::new();
        if self.ratio {
            what.push("ratio");
        }
        if self.time {
            what.push("time");
        }
        match self.resident {
            Some(true) => what.push("memory"),
            None => what.push("memory not known"),
            Some(false) => {}
        }
        format!("missed: {}", what.join(", "))
    }
}

/// One input and its runs.
#[derive(Debug, Clone)]
pub struct Case {
    /// The input as the table names it (a path, or `generated SHAPE n=N seed K`).
    pub input: String,
    /// Its runs, in order (at least one).
    pub runs: Vec<ProcessRun>,
}

impl Case {
    /// The targets missed by any of its runs.
    pub fn missed(&self, t: &Targets) -> Missed {
        self.runs
            .iter()
            .map(|r| t.missed(r))
            .fold(Missed { resident: Some(false), ..Missed::default() }, Missed::or)
    }
}

/// The text table of `cases` against `targets` (`runs` runs of each input asked for): a header, one row per case (its input named in
/// a column as wide as the longest name, at least 36 characters) with the worst of
/// its runs (the highest ratio, the slowest whole process and its stages, the largest resident
/// set), then how many cases met each target and all of them.
///
/// ```
/// use dramalloc_sim::quality::scale::{table, Case, ProcessRun, Targets};
/// use std::time::Duration;
/// let run = ProcessRun { buffers: 1000, hwm: 1_005, lower_bound: 1_000, read_ms: 1.5, plan_ms: 20.25,
///     write_ms: 0.75, whole: Duration::from_millis(31), peak_resident: Some(12 << 20) };
/// let slow = ProcessRun { hwm: 1_020, whole: Duration::from_millis(1_250), ..run.clone() };
/// // just over the targets: more decimals, so that the figure does not read as met
/// let close = ProcessRun { hwm: 10_100_304, lower_bound: 10_000_000, whole: Duration::from_micros(1_000_400),
///     ..run.clone() };
/// let cases = [Case { input: "a.csv".into(), runs: vec![run.clone()] },
///              Case { input: "b.csv".into(), runs: vec![run, slow] },
///              Case { input: "c.csv".into(), runs: vec![close] }];
/// let text = table(&cases, &Targets::ISSUE_12, 1);
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "a.csv                                     1000          1000  1.0050    0.031      1.5     20.2      0.8      12.0  met");
/// assert_eq!(lines[3], "b.csv                                     1000          1000  1.0200    1.250      1.5     20.2      0.8      12.0  missed: ratio, time");
/// assert_eq!(lines[4], "c.csv                                     1000      10000000 1.01003   1.0004      1.5     20.2      0.8      12.0  missed: ratio, time");
/// assert_eq!(lines[6], "within 1.01 x LB: 1 of 3; whole process under 1 s: 1 of 3; peak resident under 268435456 bytes (256.00 MiB): 3 of 3; all three: 1 of 3");
/// ```
pub fn table(cases: &[Case], targets: &Targets, runs: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "whole-process figures of `plan`, the worst of {runs} run{} each (targets: peak <= {} x LB, {})",
        if runs == 1 { "" } else { "s" },
        targets.ratio,
        targets.words()
    );
    // the input column as wide as the longest name, at least 36
    let w = cases.iter().map(|c| c.input.chars().count()).max().unwrap_or(0).max(36);
    let _ = writeln!(
        out,
        "{:<w$} {:>9} {:>13} {:>7} {:>8} {:>8} {:>8} {:>8} {:>9}  targets",
        "input", "n", "LB", "ratio", "whole s", "read ms", "plan ms", "write ms", "peak MiB"
    );
    let (mut ratio, mut time, mut resident, mut all) = (0, 0, 0, 0);
    for case in cases {
        let worst = |f: fn(&ProcessRun) -> f64| case.runs.iter().map(f).fold(f64::NAN, f64::max);
        let slowest = case.runs.iter().max_by_key(|r| r.whole);
        let Some(slowest) = slowest else { continue };
        let peak = case.runs.iter().map(|r| r.peak_resident).try_fold(0u64, |m, r| r.map(|r| m.max(r)));
        let missed = case.missed(targets);
        ratio += usize::from(!missed.ratio);
        time += usize::from(!missed.time);
        resident += usize::from(missed.resident == Some(false));
        all += usize::from(missed.none());
        let resident_target = mib(targets.resident);
        let _ = writeln!(
            out,
            "{:<w$} {:>9} {:>13} {:>7} {:>8} {:>8.1} {:>8.1} {:>8.1} {:>9}  {}",
            case.input,
            slowest.buffers,
            slowest.lower_bound,
            figure(worst(ProcessRun::ratio), 4, targets.ratio, Bound::AtMost),
            figure(slowest.whole.as_secs_f64(), 3, targets.time.as_secs_f64(), Bound::Under),
            slowest.read_ms,
            slowest.plan_ms,
            slowest.write_ms,
            peak.map_or_else(|| "-".to_owned(), |b| figure(mib(b), 1, resident_target, Bound::Under)),
            missed.describe()
        );
    }
    let n = cases.len();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "within {} x LB: {ratio} of {n}; {}: {time} of {n}; {}: {resident} of {n}; all three: {all} of {n}",
        targets.ratio,
        targets.time_words(),
        targets.resident_words()
    );
    out
}

/// Bytes in MiB.
/// How a figure meets its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// At or below the target (the ratio: `peak <= 1.01 x LB`).
    AtMost,
    /// Strictly below the target (the whole process and the resident set: "under 1 s").
    Under,
}

/// `value` with `decimals` decimals, or as many more as it takes for the printed figure to
/// be on the same side of `target` as `value`, and not equal to it unless `value` is (so a
/// figure never reads as met where it missed, nor the reverse): a ratio of 1.0100304 against at most 1.01 prints `1.01003`, not
/// `1.0100`; 1.00006 against at most 1.00007 prints `1.00006`, not `1.0001`. Past 12
/// decimals, the shortest text that reads back as `value`. A value equal to the target prints
/// as the target (a time of exactly 1 s, missed against "under 1 s", reads `1.000`).
///
/// ```
/// use dramalloc_sim::quality::scale::{figure, Bound};
/// assert_eq!(figure(1.0100304, 4, 1.01, Bound::AtMost), "1.01003"); // missed
/// assert_eq!(figure(1.0234, 4, 1.01, Bound::AtMost), "1.0234");
/// assert_eq!(figure(1.00006, 4, 1.00007, Bound::AtMost), "1.00006"); // met
/// assert_eq!(figure(1.0100000001, 4, 1.01, Bound::AtMost), "1.0100000001");
/// assert_eq!(figure(1.0004, 3, 1.0, Bound::Under), "1.0004"); // missed
/// assert_eq!(figure(0.9996, 3, 1.0, Bound::Under), "0.9996"); // met
/// assert_eq!(figure(1.0, 3, 1.0, Bound::Under), "1.000"); // missed, and equal
/// ```
pub fn figure(value: f64, decimals: usize, target: f64, bound: Bound) -> String {
    let met = |v: f64| match bound {
        Bound::AtMost => v <= target,
        Bound::Under => v < target,
    };
    let side = met(value);
    (decimals..=12)
        .map(|d| format!("{value:.d$}"))
        .find(|t| t.parse::<f64>().is_ok_and(|p| met(p) == side && (p != target || value == target)))
        .unwrap_or_else(|| format!("{value}"))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}
