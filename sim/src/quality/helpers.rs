//! Helper threads of `auto` and `exact`: single strategies planned alone beside the portfolio.
//! Uses: host_storage, input, dramalloc-core; used by: problem.rs (`solve_limited`), cli/plan.rs.
//!
//! `auto` runs its members one after another on one core within one work budget, so at
//! scale it skips the members whose estimates no longer fit: on a dense graph of 57,052
//! buffers a greedy pass is estimated at 1.6 × 10^9 units (its bound), and none runs, though
//! `greedy-load` alone plans it at 1.0026 × LB in 0.3 s. The core stays single-threaded; the
//! host has more cores. While the portfolio plans, each helper thread takes the first strategy
//! of [`HELPER_STRATEGIES`] (the portfolio's single-strategy rows, in its table's order) that
//! nobody took yet and plans it alone on a workspace of its own, stopped by the same clock and
//! by the portfolio's end. Where the portfolio cannot afford all its rows it tells the helpers
//! which ones it takes as it reaches them (`Claims::claim`,
//! `dramalloc_core::place::exact::Budget::claim`), so a helper goes on to the rows it has not
//! reached or skipped for its budget; it never leaves a row to them, so its plan is that of
//! `--threads 1` unless a helper's is lower (or at the bound: the portfolio then skips what it
//! has left). [`crate::quality::problem::solve_limited`] keeps a helper's plan where its peak
//! is strictly lower than the portfolio's, so helpers never make a plan worse; they are told
//! to stop when the portfolio ends, and a plan they had not finished is dropped
//! (`dramalloc_core::PlanError::Stopped`).
//!
//! Memory: a helper holds a workspace of its own, about [`HELPER_BYTES_PER_ROW`] bytes a row,
//! so helpers start only while all of them fit in [`HELPER_MEMORY`] (at 10^6 rows, none: the
//! portfolio alone stays within its 256 MiB).

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use dramalloc_core::place::exact::{Ask, Budget, Claim};
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

/// Cores no other runnable task wants when planning starts, besides the calling thread's:
/// the host's threads ([`crate::quality::limits::default_threads`]) less the tasks running or
/// ready to run (Linux: `procs_running` of `/proc/stat`, the caller's thread among them);
/// where that count cannot be read, every other core. A helper starts only on such a core: on
/// a busy host a helper at the lowest priority gets too little time to finish what the
/// portfolio left it, and the process's exit waits for its threads to be scheduled (a
/// try-and-break run with two busy loops on this 2-core VM: `--threads 2` 1.0163 where
/// `--threads 1` reached 1.0000, and 0.2–0.3 s past `--time-limit` at exit).
///
/// The count is the least of [`RUNNING_SAMPLES`] reads 200 µs apart (1 ms in all): one read
/// catches tasks that run for a moment, so on an idle 2-core VM 3 of 10 single reads saw 2
/// tasks and the same command planned with and without its helpers or time sections from
/// run to run (a try-and-break run).
pub fn spare_cores() -> usize {
    let cores = crate::quality::limits::default_threads();
    let read = || {
        std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("procs_running "))
                .and_then(|v| v.trim().parse::<usize>().ok())
        })
    };
    let mut running = read();
    for _ in 1..RUNNING_SAMPLES {
        if running.is_none_or(|r| r <= 1) {
            break; // nothing else runs: no read can see fewer
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
        if let Some(r) = read() {
            running = Some(running.map_or(r, |x| x.min(r)));
        }
    }
    cores.saturating_sub(running.unwrap_or(1).max(1))
}

/// Reads of `procs_running` [`spare_cores`] takes the least of.
pub const RUNNING_SAMPLES: usize = 5;

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
    /// It planned, but its plan peaks at `hwm` bytes, above `--capacity`.
    AboveCapacity {
        /// The plan's peak, bytes.
        hwm: u64,
    },
    /// It failed (no plan).
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
/// stopped before its plan was complete`, `helper thread: peak P bytes (R x LB), above
/// --capacity` or `helper thread: failed`.
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
                HelperOutcome::AboveCapacity { hwm } => format!(
                    "peak {hwm} bytes ({:.4} x LB), above --capacity",
                    crate::quality::peak_ratio(hwm, lower_bound)
                ),
                HelperOutcome::Failed => "failed".to_owned(),
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

/// A strategy of [`HELPER_STRATEGIES`] nobody has taken yet.
const FREE: u8 = 0;
/// A strategy a helper thread took.
const HELPER: u8 = 1;
/// A strategy the portfolio's thread took ([`Claims::claim`]).
const PORTFOLIO: u8 = 2;

/// What the helper threads share with the portfolio's thread.
struct Shared {
    /// Who took each strategy of [`HELPER_STRATEGIES`]: [`FREE`], [`HELPER`] or [`PORTFOLIO`].
    taken: [AtomicU8; HELPER_STRATEGIES.len()],
    /// Set when the portfolio has its plan.
    stop: AtomicBool,
    /// Set when a helper's plan (within the capacity) is at the lower bound: the portfolio
    /// skips what it has left ([`Claim::Reached`]) and its end waits for nothing.
    reached: AtomicBool,
    /// The strategies finished so far, with their plans.
    done: Mutex<Vec<(Helped, Option<HelperPlan>)>>,
    /// The problem the helpers plan (the problem's buffers, sizes rounded up to `align`), its
    /// capacity, and the clock's end.
    buffers: Arc<[CoreBuffer]>,
    align: u64,
    capacity: Option<u64>,
    until: Instant,
}

/// The portfolio's side of the helpers: which single strategies it leaves to them
/// (`dramalloc_core::place::exact::Budget::claim`).
#[derive(Clone)]
pub(crate) struct Claims {
    shared: Arc<Shared>,
}

impl Claims {
    /// The host's answer to the portfolio (`dramalloc_core::place::exact::Budget::claim`):
    /// [`Claim::Reached`] once a helper's plan is at the lower bound (until the helpers are
    /// told to stop), else [`Claim::Here`]. The portfolio never leaves a row to the helpers:
    /// for [`Ask::Take`] it takes the strategy (a helper that has not started it then leaves
    /// it alone, and takes one the portfolio has not reached or skipped for its budget) and
    /// plans it itself even where a helper is planning it too, so its path, and its plan where
    /// no helper's is lower, are those of `--threads 1` (a first version left such rows to the
    /// helper: the portfolio's repair then started from another member's plan and could end
    /// higher than with one thread, 1.0224 against 1.0196 on a `mixed` 10^5 file).
    pub(crate) fn claim(&self, ask: Ask) -> Claim {
        let shared = &self.shared;
        if shared.stop.load(Ordering::Relaxed) {
            return Claim::Here;
        }
        if shared.reached.load(Ordering::Acquire) {
            return Claim::Reached;
        }
        if let Ask::Take(strategy) = ask {
            if let Some(k) = HELPER_STRATEGIES.iter().position(|&x| x == strategy) {
                // taken unless a helper has it already: either way the portfolio plans it
                let _ =
                    shared.taken[k].compare_exchange(FREE, PORTFOLIO, Ordering::AcqRel, Ordering::Acquire);
            }
        }
        Claim::Here
    }
}

/// Helper threads planning beside a portfolio. They are not joined when the portfolio ends:
/// a helper told to stop ends at its planner's next look at the clock (every 256 buffers
/// placed), and what it had not finished by then is dropped, so the caller never waits for
/// a helper's setup (building its interval tree and lower bound, unclocked); it waits only
/// for the strategies the portfolio left to the helpers, up to the clock ([`Helpers::finish`]).
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
            taken: std::array::from_fn(|_| AtomicU8::new(FREE)),
            stop: AtomicBool::new(false),
            reached: AtomicBool::new(false),
            done: Mutex::new(Vec::new()),
            buffers,
            align,
            capacity,
            until,
        });
        let threads = (0..count)
            .map(|_| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || work(&shared))
            })
            .collect();
        Helpers { shared, threads }
    }

    /// The portfolio's side: which single strategies it leaves to the helpers.
    pub(crate) fn claims(&self) -> Claims {
        Claims { shared: Arc::clone(&self.shared) }
    }

    /// Tells the helpers to stop and returns what they finished: every strategy a helper took,
    /// in the order of [`HELPER_STRATEGIES`] (one not finished yet: [`HelperOutcome::Stopped`]),
    /// and the lowest finished plan (ties: the earlier strategy). With `wait`, first lets every
    /// helper run to its end (tests), and joins them.
    pub(crate) fn finish(self, wait: bool) -> (Vec<Helped>, Option<HelperPlan>) {
        if wait {
            for t in self.threads {
                if let Err(e) = t.join() {
                    std::panic::resume_unwind(e);
                }
            }
        }
        let shared = &self.shared;
        let mut done = lock(&shared.done);
        shared.stop.store(true, Ordering::Relaxed);
        let mut done = std::mem::take(&mut *done);
        for (k, &strategy) in HELPER_STRATEGIES.iter().enumerate() {
            if shared.taken[k].load(Ordering::Acquire) == HELPER
                && !done.iter().any(|(h, _)| h.strategy == strategy)
            {
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

/// Gives the calling thread the host's lowest priority that still runs (Linux: `SCHED_OTHER`
/// at nice 19, about 1.5 % of a core shared with a thread at nice 0; elsewhere the lowest
/// priority), so a helper takes almost no time from the portfolio's thread or the host's other
/// work. Not `SCHED_IDLE`: a thread in that class runs only on a core nothing else wants, so on
/// a busy host it can sit preempted for seconds while it holds what the portfolio's thread
/// needs next (the address space's lock in a page fault, the list of finished strategies):
/// a try-and-break run on a loaded VM saw a 1,000-row `plan` (1.6 ms of planning) take 20 s,
/// and 6 of 45 runs spend 0.1–1.2 s outside their reported stages. `Err`: the host refused.
fn low_priority() -> Result<(), thread_priority::Error> {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
        };
        use thread_priority::{ThreadPriority, ThreadSchedulePolicy};
        let other = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other);
        set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, other)
    }
    #[cfg(not(target_os = "linux"))]
    {
        thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min)
    }
}

/// One helper's loop: the next strategy until none is left or it is told to stop; nothing
/// where the host refuses it the lowest priority ([`low_priority`]).
fn work(shared: &Shared) {
    let (buffers, align, capacity, until) =
        (&shared.buffers[..], shared.align, shared.capacity, shared.until);
    if low_priority().is_err() {
        return;
    }
    let stopped = || shared.stop.load(Ordering::Relaxed) || Instant::now() >= until;
    let rows = buffers.len().max(1);
    let mut host = None;
    while !stopped() {
        // the first strategy nobody took, in the table's order
        let free = |k: &usize| {
            shared.taken[*k].compare_exchange(FREE, HELPER, Ordering::AcqRel, Ordering::Acquire).is_ok()
        };
        let Some(strategy) = (0..HELPER_STRATEGIES.len()).find(free).map(|k| HELPER_STRATEGIES[k]) else {
            return;
        };
        let host = host.get_or_insert_with(|| HostWorkspace::new(rows, rows, 1));
        let mut keep_going = || !stopped();
        let (outcome, plan) = plan_alone(host, buffers, align, capacity, strategy, &mut keep_going);
        let mut done = lock(&shared.done);
        // a plan finished after the portfolio's end is not reported as kept-able
        if !shared.stop.load(Ordering::Relaxed) {
            if plan.as_ref().is_some_and(|p| p.metrics.hwm <= p.metrics.lower_bound) {
                shared.reached.store(true, Ordering::Release);
            }
            done.push((Helped { strategy, outcome, kept: false }, plan));
        }
    }
}

/// Plans `strategy` alone on `host` (a workspace of `buffers.len()` rows), stopped when
/// `keep_going` says so: its outcome and, when it ran within `capacity`, its plan.
fn plan_alone(
    host: &mut HostWorkspace,
    buffers: &[CoreBuffer],
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    keep_going: &mut dyn FnMut() -> bool,
) -> (HelperOutcome, Option<HelperPlan>) {
    let mut budget = Budget::new(0, 0, keep_going);
    let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy };
    match plan_buffer_iter_with(buffers.iter().copied(), align, &cfg, &mut host.workspace(), &mut budget) {
        Ok(p) if capacity.is_none_or(|c| p.metrics.hwm <= c) => {
            let offsets = host.infos()[..buffers.len()].iter().map(|i| i.address).collect();
            (
                HelperOutcome::Ran { hwm: p.metrics.hwm },
                Some(HelperPlan { strategy, metrics: p.metrics, offsets }),
            )
        }
        Ok(p) => (HelperOutcome::AboveCapacity { hwm: p.metrics.hwm }, None),
        Err(PlanError::Stopped) => (HelperOutcome::Stopped, None),
        Err(_) => (HelperOutcome::Failed, None),
    }
}

/// The list of finished strategies, whoever held it last (a panicking holder leaves it whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Past their deadline, helpers take nothing; a plan above the capacity is reported with
    /// its peak (the strategy's alone) and not returned.
    #[test]
    fn late_or_over_capacity_helpers_return_no_plan() {
        let p = Shape::Mixed.generate(300, 3);
        let far = Instant::now() + Duration::from_secs(600);
        let (helped, best) = run(&p, None, Instant::now());
        assert_eq!((helped.len(), best.is_none()), (0, true));
        let (helped, best) = run(&p, Some(1), far);
        assert_eq!(helped.len(), HELPER_STRATEGIES.len());
        let alone: Vec<HelperOutcome> = HELPER_STRATEGIES
            .iter()
            .map(|&s| HelperOutcome::AboveCapacity { hwm: solve(&p, 1, None, s).unwrap().metrics.hwm })
            .collect();
        assert_eq!(helped.iter().map(|h| h.outcome).collect::<Vec<_>>(), alone);
        assert!(helped.iter().all(|h| !h.kept));
        assert!(best.is_none());
    }

    /// The portfolio takes a strategy nobody took and plans every strategy it is asked about,
    /// one a helper took included; once a helper's plan is at the bound every question is
    /// answered `Reached`, and after the end `Here`.
    #[test]
    fn the_portfolio_plans_every_row_it_reaches() {
        let p = Shape::Mixed.generate(50, 1);
        let far = Instant::now() + Duration::from_secs(600);
        let helpers = Helpers::start(0, core_buffers(&p, true).collect(), 1, None, far);
        let claims = helpers.claims();
        assert_eq!(claims.claim(Ask::Take(Strategy::GreedyLoad)), Claim::Here);
        assert_eq!(helpers.shared.taken[0].load(Ordering::Acquire), PORTFOLIO);
        assert_eq!(claims.claim(Ask::Take(Strategy::GreedyLoad)), Claim::Here);
        helpers.shared.taken[1].store(HELPER, Ordering::Release);
        assert_eq!(claims.claim(Ask::Take(Strategy::GreedyClass)), Claim::Here);
        assert_eq!(helpers.shared.taken[1].load(Ordering::Acquire), HELPER);
        assert_eq!(claims.claim(Ask::Take(Strategy::Skyline)), Claim::Here);
        assert_eq!(claims.claim(Ask::Status), Claim::Here);
        assert_eq!(claims.claim(Ask::RowsDone), Claim::Here);
        helpers.shared.reached.store(true, Ordering::Release);
        assert_eq!(claims.claim(Ask::Status), Claim::Reached);
        assert_eq!(claims.claim(Ask::Take(Strategy::GreedySize)), Claim::Reached);
        let (helped, best) = helpers.finish(false);
        // the helper's strategy it never finished is reported stopped
        assert_eq!(
            helped,
            [Helped { strategy: Strategy::GreedyClass, outcome: HelperOutcome::Stopped, kept: false }]
        );
        assert!(best.is_none());
        assert_eq!(claims.claim(Ask::Take(Strategy::GreedySize)), Claim::Here);
    }

    /// A helper leaves the strategies the portfolio took and plans the others in the table's
    /// order, each as alone; one at the bound sets `reached`.
    #[test]
    fn a_helper_plans_only_what_the_portfolio_did_not_take() {
        let p = Shape::LongTail.generate(300, 5);
        let far = Instant::now() + Duration::from_secs(600);
        let helpers = Helpers::start(0, core_buffers(&p, true).collect(), 1, None, far);
        let claims = helpers.claims();
        for &s in HELPER_STRATEGIES.iter().filter(|&&s| s != Strategy::GreedySize) {
            assert_eq!(claims.claim(Ask::Take(s)), Claim::Here);
        }
        work(&helpers.shared);
        let alone = solve(&p, 1, None, Strategy::GreedySize).unwrap();
        let hwm = alone.metrics.hwm;
        assert_eq!(hwm, alone.metrics.lower_bound);
        assert!(helpers.shared.reached.load(Ordering::Acquire));
        let (helped, best) = helpers.finish(false);
        assert_eq!(
            helped,
            [Helped { strategy: Strategy::GreedySize, outcome: HelperOutcome::Ran { hwm }, kept: false }]
        );
        let best = best.unwrap();
        assert_eq!((best.strategy, best.metrics.hwm), (Strategy::GreedySize, hwm));
        assert_eq!(best.offsets, alone.offsets);
    }
}
