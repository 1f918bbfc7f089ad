//! Helper threads running the branch and bound's lower-bound probes ahead of `auto` and
//! `exact`, so the same search ends sooner on a host with a spare core.
//! Uses: host_storage, dramalloc-core (`place::exact::SharedProbes`); used by: problem.rs
//! (`solve_limited`), cli/plan.rs.
//!
//! On inputs the branch and bound takes (up to `EXACT_MAX_BUFFERS` buffers), most of
//! `auto`'s time is its search, and three quarters of its nodes are probes at the lower bound,
//! one per static preorder a round, each depending only on the problem, its preorder and its
//! node limit (`dramalloc_core::place::exact::SharedProbes`). A helper plans the same buffers
//! as `exact` with a helper side: its members run as the portfolio's do, then its branch
//! and bound claims the lower-bound probes in round and preorder order and posts how each
//! ended on a shared board. The portfolio's search (the lead, with a [`Lead`] side) asks the
//! board before each of its own: a probe a helper ran to its limit is skipped (its nodes
//! counted), one a helper is running is waited for, any other it runs itself. So the plan and
//! every figure `plan` prints are those of the portfolio alone, node for node; only the time
//! changes. Where the greedy helpers of `helpers.rs` would only repeat members (small inputs),
//! these take their place.
//!
//! Measured (`dramalloc plan F --align 1`, D and J of the hard DSA set, 2-core VM,
//! 2026-12-05): see the README's hard-set entry.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dramalloc_core::place::exact::{Budget, Claim, ProbeKey, SharedProbes};
use dramalloc_core::{plan_buffer_iter_with, Buffer as CoreBuffer, CcSize, PlanConfig, Strategy};

use crate::host_storage::HostWorkspace;

/// How long the lead waits for a helper's probe at a time. A helper's search reports every
/// `CHECK_EVERY` (256) nodes, about 1 ms at the hard set's 4–5 µs a node; a step with no
/// report means the helper is not getting a core (it runs in the host's idle class), and the
/// lead runs the probe itself.
const WAIT_STEP: Duration = Duration::from_millis(3);

/// One probe on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// The lead runs it.
    Lead,
    /// A helper runs it.
    Helper,
    /// A helper ran it: at its node limit or not, after `nodes` nodes.
    Done { at_limit: bool, nodes: u64 },
}

/// The shared board.
#[derive(Default)]
struct Board {
    probes: HashMap<ProbeKey, Entry>,
    stop: bool,
    /// Probes the lead skipped, and their nodes.
    skipped: (u64, u64),
    /// Probes the helpers ran.
    ran: u64,
    /// Helper threads joined.
    threads: usize,
}

#[derive(Default)]
struct Shared {
    board: Mutex<Board>,
    changed: Condvar,
    /// The helpers' searches' reports (one per `CHECK_EVERY` nodes).
    ticks: AtomicU64,
}

impl Shared {
    fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the helpers did for one plan, for `plan`'s report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProbeHelp {
    /// Helper threads.
    pub threads: usize,
    /// Lower-bound probes the helpers ran.
    pub ran: u64,
    /// Probes the lead skipped because a helper had run them to their limit.
    pub skipped: u64,
    /// The search nodes of those probes.
    pub skipped_nodes: u64,
}

/// Helper threads of one plan (module docs).
pub struct ProbeHelpers {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl ProbeHelpers {
    /// Starts `count` helpers planning `buffers` (aligned to `align`, as `exact` with no
    /// window, no CC region) until the lead's search ends, [`ProbeHelpers::finish`] or `until`.
    pub fn start(count: usize, buffers: Arc<[CoreBuffer]>, align: u64, until: Instant) -> ProbeHelpers {
        let shared = Arc::new(Shared::default());
        let threads = (0..count)
            .filter_map(|k| {
                let (shared, buffers) = (Arc::clone(&shared), Arc::clone(&buffers));
                std::thread::Builder::new()
                    .name(format!("probe-helper-{k}"))
                    .spawn(move || help(&shared, &buffers, align, until))
                    .ok()
            })
            .collect();
        ProbeHelpers { shared, threads: Mutex::new(threads) }
    }

    /// The lead's side of the board, for the portfolio's budget.
    pub fn lead(&self, until: Instant) -> Lead {
        Lead { shared: Arc::clone(&self.shared), until }
    }

    /// Stops the helpers, waits for them, and says what they did (again: the same figures).
    pub fn finish(&self) -> ProbeHelp {
        self.shared.board().stop = true;
        self.shared.changed.notify_all();
        let handles: Vec<JoinHandle<()>> =
            self.threads.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
        let mut b = self.shared.board();
        b.threads += handles.len();
        drop(b);
        for t in handles {
            let _ = t.join();
        }
        let b = self.shared.board();
        ProbeHelp { threads: b.threads, ran: b.ran, skipped: b.skipped.0, skipped_nodes: b.skipped.1 }
    }
}

/// One helper: plans the buffers as `exact`, its branch and bound in helper mode.
fn help(shared: &Arc<Shared>, buffers: &[CoreBuffer], align: u64, until: Instant) {
    // the idle class: a helper takes no core the portfolio or the host's other work wants
    if crate::quality::helpers::idle_priority().is_err() {
        return;
    }
    let rows = buffers.len().max(1);
    let mut host = HostWorkspace::new(rows, rows, 1);
    let mut side = Helper { shared: Arc::clone(shared) };
    let stopped = || shared.board().stop || Instant::now() >= until;
    let mut keep_going = || {
        shared.ticks.fetch_add(1, Ordering::Relaxed);
        !stopped()
    };
    let mut budget = Budget {
        max_nodes: u64::MAX,
        work: dramalloc_core::place::portfolio::AUTO_WORK_BUDGET,
        repair_work: 0,
        keep_going: &mut keep_going,
        shared: Some(&mut side),
    };
    let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: Strategy::Exact };
    let _ = plan_buffer_iter_with(buffers.iter().copied(), align, &cfg, &mut host.workspace(), &mut budget);
}

/// A helper's side of the board.
struct Helper {
    shared: Arc<Shared>,
}

impl SharedProbes for Helper {
    fn helper(&self) -> bool {
        true
    }
    fn lead(&mut self, _: ProbeKey) -> Option<u64> {
        None
    }
    fn claim(&mut self, key: ProbeKey) -> Claim {
        let mut b = self.shared.board();
        if b.stop {
            return Claim::Stop;
        }
        if b.probes.contains_key(&key) {
            return Claim::Taken;
        }
        b.probes.insert(key, Entry::Helper);
        Claim::Run
    }
    fn done(&mut self, key: ProbeKey, at_limit: bool, nodes: u64) {
        let mut b = self.shared.board();
        b.probes.insert(key, Entry::Done { at_limit, nodes });
        b.ran += 1;
        drop(b);
        self.shared.changed.notify_all();
    }
    fn finished(&mut self) {}
}

/// The lead's side of the board ([`ProbeHelpers::lead`]).
pub struct Lead {
    shared: Arc<Shared>,
    until: Instant,
}

impl Lead {
    fn ticks(&self) -> u64 {
        self.shared.ticks.load(Ordering::Relaxed)
    }
}

impl SharedProbes for Lead {
    fn helper(&self) -> bool {
        false
    }
    fn lead(&mut self, key: ProbeKey) -> Option<u64> {
        let mut b = self.shared.board();
        let mut ticks = None;
        loop {
            match b.probes.get(&key).copied() {
                None => {
                    b.probes.insert(key, Entry::Lead);
                    return None;
                }
                Some(Entry::Done { at_limit: true, nodes }) => {
                    b.skipped.0 += 1;
                    b.skipped.1 += nodes;
                    return Some(nodes);
                }
                Some(Entry::Helper) if Instant::now() < self.until && ticks != Some(self.ticks()) => {
                    ticks = Some(self.ticks());
                    b = self.shared.changed.wait_timeout(b, WAIT_STEP).unwrap_or_else(|e| e.into_inner()).0;
                }
                // a helper that made no progress in a step: the lead's now
                Some(Entry::Helper) => {
                    b.probes.insert(key, Entry::Lead);
                    return None;
                }
                // found a plan, proved the bound, stopped; or the clock is out: run it here
                _ => return None,
            }
        }
    }
    fn claim(&mut self, _: ProbeKey) -> Claim {
        Claim::Stop
    }
    fn done(&mut self, _: ProbeKey, _: bool, _: u64) {}
    fn finished(&mut self) {
        self.shared.board().stop = true;
        self.shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Problem;
    use crate::quality::limits::Limits;
    use crate::quality::problem::solve_limited;
    use dramalloc_core::Strategy;

    fn key(round: u32, preorder: u8) -> ProbeKey {
        ProbeKey { problem: 7, round, preorder, limit: 100 << round }
    }

    /// The board's protocol: a probe goes to whoever asks first; the lead skips one a helper
    /// ran to its limit (counted), runs one a helper ended otherwise, and after the lead's
    /// `finished` helpers are told to stop.
    #[test]
    fn the_board_gives_each_probe_once_and_the_lead_skips_finished_ones() {
        let shared = Arc::new(Shared::default());
        let mut helper = Helper { shared: Arc::clone(&shared) };
        let far = Instant::now() + Duration::from_secs(600);
        let mut lead = Lead { shared: Arc::clone(&shared), until: far };
        assert_eq!(helper.claim(key(0, 1)), Claim::Run);
        assert_eq!(helper.claim(key(0, 1)), Claim::Taken);
        helper.done(key(0, 1), true, 100);
        assert_eq!(helper.claim(key(0, 2)), Claim::Run);
        helper.done(key(0, 2), false, 40);
        // the lead: its own first probe, then the helper's two
        assert_eq!(lead.lead(key(0, 0)), None);
        assert_eq!(helper.claim(key(0, 0)), Claim::Taken);
        assert_eq!(lead.lead(key(0, 1)), Some(100));
        assert_eq!(lead.lead(key(0, 2)), None);
        // a probe a helper holds but makes no progress on: the lead takes it after one step
        assert_eq!(helper.claim(key(1, 0)), Claim::Run);
        assert_eq!(lead.lead(key(1, 0)), None);
        lead.finished();
        assert_eq!(helper.claim(key(1, 1)), Claim::Stop);
        let b = shared.board();
        assert_eq!((b.ran, b.skipped, b.probes.get(&key(1, 0))), (2, (1, 100), Some(&Entry::Lead)));
    }

    /// MiniMalloc's J with a probe helper and without: the same plan, offset for offset, and
    /// the same node count (the report says what the helper did).
    #[test]
    fn a_plan_with_probe_helpers_is_the_plan_without() {
        let csv = include_str!("../../data/minimalloc/J.1048576.csv");
        let p: Problem = crate::input::minimalloc_csv::parse_buffers(csv, "J", usize::MAX).unwrap();
        let limits = |threads| Limits::within(Duration::from_secs(60)).with_threads(threads);
        let alone = solve_limited(&p, 1, None, Strategy::Auto, limits(1), u64::MAX).unwrap();
        let helped = solve_limited(&p, 1, None, Strategy::Auto, limits(2), u64::MAX).unwrap();
        assert_eq!(
            (alone.offsets, alone.metrics.hwm, alone.probed),
            (helped.offsets, helped.metrics.hwm, None)
        );
        assert_eq!(helped.probed.map(|h| h.threads), Some(1));
        assert_eq!(alone.members.runs(), helped.members.runs());
    }
}
