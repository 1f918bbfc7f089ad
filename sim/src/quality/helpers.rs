//! Helper threads of `auto` and `exact`: single strategies planned alone beside the portfolio.
//! Uses: host_storage, input, dramalloc-core; used by: problem.rs (`solve_limited`), cli/plan.rs.
//!
//! `auto` runs its members one after another on one core within one work budget, so at
//! scale it skips the members whose estimates no longer fit: on a dense graph of 57,052
//! buffers a greedy pass is estimated at 1.6 × 10^9 units (its bound), and none runs, though
//! `greedy-load` alone plans it at 1.0026 × LB in 0.3 s. The core stays single-threaded; the
//! host has more cores. While the portfolio plans, each helper thread takes the next strategy
//! of [`HELPER_STRATEGIES`] (the portfolio's greedy rows, in its table's order) and plans it
//! alone on a workspace of its own, stopped by the same clock and by the portfolio's end.
//! [`crate::quality::problem::solve_limited`] keeps a helper's plan where its peak is strictly
//! lower than the portfolio's, so helpers never make a plan worse; and they never make the
//! caller wait: when the portfolio ends they are told to stop, and a plan they had not
//! finished is dropped (`dramalloc_core::PlanError::Stopped`). Where the portfolio ran the same
//! strategy as a member (small inputs), the helper's plan is that member's, so not lower:
//! the plan is the portfolio's, whatever the threads' timing.
//!
//! Memory: a helper holds a workspace of its own, about [`HELPER_BYTES_PER_ROW`] bytes a row,
//! so helpers start only while all of them fit in [`HELPER_MEMORY`] (at 10^6 rows, none: the
//! portfolio alone stays within its 256 MiB).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use dramalloc_core::place::exact::Budget;
use dramalloc_core::{
    plan_buffer_iter_with, Buffer as CoreBuffer, CcSize, Metrics, PlanConfig, PlanError, Strategy,
};

use crate::host_storage::HostWorkspace;

/// What the helpers plan, in this order: the `auto` portfolio's greedy rows in its table's
/// order (`dramalloc_core::place::portfolio::PORTFOLIO`), the rows it skips first at scale.
pub const HELPER_STRATEGIES: [Strategy; 7] = [
    Strategy::GreedyLoad,
    Strategy::GreedyClass,
    Strategy::GreedySize,
    Strategy::GreedyStart,
    Strategy::BestFit,
    Strategy::BestFitStart,
    Strategy::Seed,
];

/// Memory all helpers together may hold, bytes (64 MiB).
pub const HELPER_MEMORY: u64 = 64 << 20;

/// A helper's memory per row, bytes: the whole `dramalloc plan --strategy greedy-load`
/// process on 10^6 `mixed` rows reaches 251 MB resident (reading included, so a bound).
pub const HELPER_BYTES_PER_ROW: u64 = 256;

/// How many helper threads `rows` rows get with `threads` threads in all (the portfolio's
/// included): one thread fewer than that, at most one per strategy of [`HELPER_STRATEGIES`],
/// and no more than [`HELPER_MEMORY`] holds; none for no rows.
///
/// ```
/// use dramalloc_sim::quality::helpers::helper_count;
/// assert_eq!(helper_count(100_000, 2), 1);
/// assert_eq!(helper_count(100_000, 1), 0);
/// assert_eq!(helper_count(100, 64), 7);
/// assert_eq!(helper_count(1_000_000, 8), 0); // 256 MB a helper: over the 64 MiB
/// assert_eq!(helper_count(0, 8), 0);
/// ```
pub fn helper_count(rows: usize, threads: usize) -> usize {
    if rows == 0 {
        return 0;
    }
    let each = (rows as u64).max(1).saturating_mul(HELPER_BYTES_PER_ROW);
    let by_memory = (HELPER_MEMORY / each) as usize;
    threads.saturating_sub(1).min(by_memory).min(HELPER_STRATEGIES.len())
}

/// What became of one strategy a helper took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelperOutcome {
    /// It planned, with this peak (bytes).
    Ran {
        /// The plan's peak, bytes.
        hwm: u64,
    },
    /// It was stopped, by the portfolio's end or the clock, before its plan was complete.
    Stopped,
    /// Its plan was above `--capacity`, or it failed.
    Failed,
}

/// One strategy a helper thread took, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Helped {
    /// The strategy.
    pub strategy: Strategy,
    /// What became of it.
    pub outcome: HelperOutcome,
    /// True when its plan is the one kept.
    pub kept: bool,
}

/// One line per strategy a helper thread took, in `plan`'s member format: its name, then
/// `helper thread: peak P bytes (R x LB)` (`, kept` for the plan kept), `helper thread:
/// stopped before its plan was complete` or `helper thread: failed or above --capacity`.
///
/// ```
/// use dramalloc_core::Strategy;
/// use dramalloc_sim::quality::helpers::{helper_lines, Helped, HelperOutcome};
/// let h = [
///     Helped { strategy: Strategy::GreedyLoad, outcome: HelperOutcome::Ran { hwm: 150 }, kept: true },
///     Helped { strategy: Strategy::GreedyClass, outcome: HelperOutcome::Stopped, kept: false },
/// ];
/// let lines = helper_lines(&h, 100);
/// assert_eq!(lines[0], "greedy-load       helper thread: peak 150 bytes (1.5000 x LB), kept");
/// assert_eq!(lines[1], "greedy-class      helper thread: stopped before its plan was complete");
/// ```
pub fn helper_lines(helped: &[Helped], lower_bound: u64) -> Vec<String> {
    helped
        .iter()
        .map(|h| {
            let what = match h.outcome {
                HelperOutcome::Ran { hwm } => format!(
                    "peak {hwm} bytes ({:.4} x LB){}",
                    crate::quality::peak_ratio(hwm, lower_bound),
                    if h.kept { ", kept" } else { "" }
                ),
                HelperOutcome::Stopped => "stopped before its plan was complete".to_owned(),
                HelperOutcome::Failed => "failed or above --capacity".to_owned(),
            };
            format!("{:<17} helper thread: {what}", h.strategy.name())
        })
        .collect()
}

/// A finished helper plan: its metrics and every buffer's offset (problem order).
pub(crate) struct HelperPlan {
    pub(crate) strategy: Strategy,
    pub(crate) metrics: Metrics,
    pub(crate) offsets: Vec<u64>,
}

/// What the helper threads share with the portfolio's thread.
struct Shared {
    /// Index of the next strategy of [`HELPER_STRATEGIES`] to take.
    next: AtomicUsize,
    /// Set when the portfolio has its plan.
    stop: AtomicBool,
    /// The strategies finished so far, with their plans.
    done: Mutex<Vec<(Helped, Option<HelperPlan>)>>,
}

/// Helper threads planning beside a portfolio. They are not joined when the portfolio ends:
/// a helper told to stop ends at its planner's next look at the clock (every 256 buffers
/// placed), and what it had not finished by then is dropped, so the caller never waits for
/// a helper's setup (building its interval tree and lower bound, unclocked).
pub(crate) struct Helpers {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Helpers {
    /// Starts `count` helper threads on `buffers` (the problem's, in problem order; sizes
    /// rounded up to `align`), whose plans above `capacity` are dropped, each stopped at
    /// `until` or by [`Helpers::finish`].
    pub(crate) fn start(
        count: usize,
        buffers: Arc<[CoreBuffer]>,
        align: u64,
        capacity: Option<u64>,
        until: Instant,
    ) -> Helpers {
        let shared = Arc::new(Shared {
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            done: Mutex::new(Vec::new()),
        });
        let threads = (0..count)
            .map(|_| {
                let (shared, buffers) = (Arc::clone(&shared), Arc::clone(&buffers));
                std::thread::spawn(move || work(&shared, &buffers, align, capacity, until))
            })
            .collect();
        Helpers { shared, threads }
    }

    /// Tells the helpers to stop and returns what they finished: every strategy taken, in the
    /// order of [`HELPER_STRATEGIES`] (one not finished yet: [`HelperOutcome::Stopped`]), and
    /// the lowest finished plan (ties: the earlier strategy). With `wait`, first lets every
    /// helper run to its end (tests), and joins them.
    pub(crate) fn finish(self, wait: bool) -> (Vec<Helped>, Option<HelperPlan>) {
        if wait {
            for t in self.threads {
                if let Err(e) = t.join() {
                    std::panic::resume_unwind(e);
                }
            }
        }
        self.shared.stop.store(true, Ordering::Relaxed);
        let taken = self.shared.next.load(Ordering::Relaxed).min(HELPER_STRATEGIES.len());
        let mut done = std::mem::take(&mut *self.shared.done.lock().unwrap_or_else(|e| e.into_inner()));
        for &strategy in &HELPER_STRATEGIES[..taken] {
            if !done.iter().any(|(h, _)| h.strategy == strategy) {
                done.push((Helped { strategy, outcome: HelperOutcome::Stopped, kept: false }, None));
            }
        }
        let rank = |s: Strategy| HELPER_STRATEGIES.iter().position(|&x| x == s);
        done.sort_by_key(|(h, _)| rank(h.strategy));
        let mut best: Option<HelperPlan> = None;
        let mut helped = Vec::with_capacity(done.len());
        for (h, plan) in done {
            helped.push(h);
            if let Some(p) = plan {
                if best.as_ref().is_none_or(|b| p.metrics.hwm < b.metrics.hwm) {
                    best = Some(p);
                }
            }
        }
        (helped, best)
    }
}

/// Puts the calling thread in the host's lowest scheduling class (Linux: `SCHED_IDLE`, which
/// runs a thread only on a core nothing else wants; elsewhere the lowest priority), so a
/// helper takes no time from the portfolio's thread or the host's other work. `Err`: the
/// host refused.
fn idle_priority() -> Result<(), thread_priority::Error> {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
        };
        use thread_priority::{ThreadPriority, ThreadSchedulePolicy};
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle)
    }
    #[cfg(not(target_os = "linux"))]
    {
        thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min)
    }
}

/// One helper's loop: the next strategy until none is left or it is told to stop; nothing
/// where the host refuses it the lowest scheduling class ([`idle_priority`]).
fn work(shared: &Shared, buffers: &[CoreBuffer], align: u64, capacity: Option<u64>, until: Instant) {
    if idle_priority().is_err() {
        return;
    }
    let stopped = || shared.stop.load(Ordering::Relaxed) || Instant::now() >= until;
    let rows = buffers.len().max(1);
    let mut host = None;
    while !stopped() {
        let Some(&strategy) = HELPER_STRATEGIES.get(shared.next.fetch_add(1, Ordering::Relaxed)) else {
            return;
        };
        let host = host.get_or_insert_with(|| HostWorkspace::new(rows, rows, 1));
        let mut keep_going = || !stopped();
        let mut budget = Budget { max_nodes: 0, work: 0, repair_work: 0, keep_going: &mut keep_going };
        let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy };
        let run =
            plan_buffer_iter_with(buffers.iter().copied(), align, &cfg, &mut host.workspace(), &mut budget);
        let (outcome, plan) = match run {
            Ok(p) if capacity.is_none_or(|c| p.metrics.hwm <= c) => {
                let offsets = host.infos()[..buffers.len()].iter().map(|i| i.address).collect();
                (
                    HelperOutcome::Ran { hwm: p.metrics.hwm },
                    Some(HelperPlan { strategy, metrics: p.metrics, offsets }),
                )
            }
            Err(PlanError::Stopped) => (HelperOutcome::Stopped, None),
            _ => (HelperOutcome::Failed, None),
        };
        let mut done = shared.done.lock().unwrap_or_else(|e| e.into_inner());
        // a plan finished after the portfolio's end is not reported as kept-able
        if !shared.stop.load(Ordering::Relaxed) {
            done.push((Helped { strategy, outcome, kept: false }, plan));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Problem;
    use crate::quality::generate::Shape;
    use crate::quality::problem::{core_buffers, solve};
    use std::time::Duration;

    /// Runs two helpers on `problem` to their end, until `until`.
    fn run(problem: &Problem, capacity: Option<u64>, until: Instant) -> (Vec<Helped>, Option<HelperPlan>) {
        let buffers: Arc<[CoreBuffer]> = core_buffers(problem, true).collect();
        Helpers::start(2, buffers, 1, capacity, until).finish(true)
    }

    /// Two helpers left to finish take every strategy once, reported in the table's order,
    /// each with the peak of the same strategy planned alone, and the lowest plan (the earlier
    /// strategy on ties) comes back whole: its offsets are that strategy's.
    #[test]
    fn helpers_left_to_finish_plan_every_strategy_as_alone() {
        let p = Shape::LongTail.generate(400, 7);
        let (helped, best) = run(&p, None, Instant::now() + Duration::from_secs(600));
        let alone: Vec<(Strategy, u64)> =
            HELPER_STRATEGIES.iter().map(|&s| (s, solve(&p, 1, None, s).unwrap().metrics.hwm)).collect();
        let got: Vec<(Strategy, u64)> = helped
            .iter()
            .map(|h| match h.outcome {
                HelperOutcome::Ran { hwm } => (h.strategy, hwm),
                o => panic!("{:?}: {o:?}", h.strategy),
            })
            .collect();
        assert_eq!(got, alone);
        let lowest = alone.iter().min_by_key(|x| x.1).unwrap();
        let best = best.unwrap();
        assert_eq!((best.strategy, best.metrics.hwm), *lowest);
        assert_eq!(best.offsets, solve(&p, 1, None, lowest.0).unwrap().offsets);
    }

    /// Past their deadline, helpers take nothing; a plan above the capacity is reported
    /// failed and not returned.
    #[test]
    fn late_or_over_capacity_helpers_return_no_plan() {
        let p = Shape::Mixed.generate(300, 3);
        let far = Instant::now() + Duration::from_secs(600);
        let (helped, best) = run(&p, None, Instant::now());
        assert_eq!((helped.len(), best.is_none()), (0, true));
        let (helped, best) = run(&p, Some(1), far);
        assert_eq!(helped.len(), HELPER_STRATEGIES.len());
        assert!(helped.iter().all(|h| h.outcome == HelperOutcome::Failed && !h.kept));
        assert!(best.is_none());
    }
}
