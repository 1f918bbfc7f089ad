//! Lower-bound probes shared between threads (`place::exact::SharedProbes`), played out on one
//! thread: a helper's run records the probes it claims, then a lead skips the ones that ended
//! at their limit. On MiniMalloc's D (bundled in `sim/data/minimalloc/`), whose probes at the
//! lower bound end at their limits, the lead's plan, node count and outcome must be those of
//! the search alone, with probes skipped; a helper's outcomes for another problem are never
//! taken.

use dramalloc_core::liveness::info::Info;
use dramalloc_core::place::exact::{
    branch_and_bound, prepare, Budget, Claim, ExactOutcome, ProbeKey, Schedule, SharedProbes,
};
use dramalloc_core::workspace::{Raise, Section, Slot};

/// `(lower, upper, size)` rows of a MiniMalloc CSV (`id,lower,upper,size`, times half-open).
fn rows(csv: &str) -> Vec<(u32, u32, u64)> {
    csv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            (f[1] as u32, f[2] as u32 - 1, f[3])
        })
        .collect()
}

/// A helper that claims the probes of preorders 1 and 2 of rounds up to `last_round`, and
/// records how each ended.
struct Recorder {
    last_round: u32,
    done: Vec<(ProbeKey, bool, u64)>,
}

impl SharedProbes for Recorder {
    fn helper(&self) -> bool {
        true
    }
    fn lead(&mut self, _: ProbeKey) -> Option<u64> {
        unreachable!("a helper is never asked as the lead")
    }
    fn claim(&mut self, key: ProbeKey) -> Claim {
        match key {
            k if k.round > self.last_round => Claim::Stop,
            k if k.preorder == 0 => Claim::Taken,
            _ => Claim::Run,
        }
    }
    fn done(&mut self, key: ProbeKey, at_limit: bool, nodes: u64) {
        self.done.push((key, at_limit, nodes));
    }
    fn finished(&mut self) {}
}

/// A lead answered from a helper's record.
struct Replay<'r> {
    record: &'r [(ProbeKey, bool, u64)],
    asked: u32,
    skipped: u32,
    finished: bool,
}

impl SharedProbes for Replay<'_> {
    fn helper(&self) -> bool {
        false
    }
    fn lead(&mut self, key: ProbeKey) -> Option<u64> {
        self.asked += 1;
        let hit = self.record.iter().find(|r| r.0 == key && r.1).map(|r| r.2);
        self.skipped += hit.is_some() as u32;
        hit
    }
    fn claim(&mut self, _: ProbeKey) -> Claim {
        unreachable!("the lead never claims")
    }
    fn done(&mut self, _: ProbeKey, _: bool, _: u64) {
        unreachable!("the lead reports nothing")
    }
    fn finished(&mut self) {
        self.finished = true;
    }
}

/// Runs the search on `rows` (max-load bound, incumbent the sizes' sum, byte capacities) with
/// the planner's schedule, `max_nodes` and `shared`; returns its outcome and the plan's
/// addresses.
fn run(
    rows: &[(u32, u32, u64)],
    max_nodes: u64,
    shared: Option<&mut dyn SharedProbes>,
) -> (ExactOutcome, Vec<u64>) {
    let n = rows.len();
    let infos: Vec<Info> = rows.iter().map(|r| Info { aligned: r.2, ..Info::default() }).collect();
    let mut slots = vec![Slot::default(); n];
    let mut secs = vec![Section::default(); n];
    let (mut by_lo, mut ids) = (vec![0u32; n], vec![0u32; n]);
    let base = infos.as_ptr() as usize;
    let at = |i: &Info| (i as *const Info as usize - base) / core::mem::size_of::<Info>();
    let count =
        prepare(&infos, |i| (rows[at(i)].0, rows[at(i)].1), 0, &mut slots, &mut secs, &mut by_lo, &mut ids)
            .unwrap();
    let lb = (0..=rows.iter().map(|r| r.1).max().unwrap())
        .map(|t| rows.iter().filter(|r| r.0 <= t && t <= r.1).map(|r| r.2).sum::<u64>())
        .max()
        .unwrap();
    let total: u64 = rows.iter().map(|r| r.2).sum();
    let mut go = || true;
    let shared = shared.map(|s| -> &mut dyn SharedProbes { s });
    let mut budget = Budget { max_nodes, work: 0, repair_work: 0, keep_going: &mut go, shared };
    let out = branch_and_bound(
        &mut slots,
        &mut secs[..count],
        &by_lo,
        &mut ids,
        &mut vec![Raise::default(); 4 * n],
        0,
        lb,
        total,
        1,
        Schedule::planner(max_nodes),
        &mut budget,
    );
    (out, slots.iter().map(|s| s.best).collect())
}

/// The helper runs preorders 1 and 2 of rounds 0–2 (all end at their limits on D); the lead,
/// answered from its record, skips those it reaches, expands only the rest, and ends exactly as the
/// search alone: same peak, node count (skipped nodes counted), outcome and addresses.
#[test]
fn a_lead_skipping_a_helpers_probes_plans_as_alone() {
    let d = rows(include_str!("../../sim/data/minimalloc/D.1048576.csv"));
    let alone = run(&d, 6_000, None);
    let mut helper = Recorder { last_round: 2, done: Vec::new() };
    let (helped, _) = run(&d, u64::MAX, Some(&mut helper));
    assert!(helped.stopped && !helped.improved, "{helped:?}");
    let keys: Vec<(u32, u8, bool)> = helper.done.iter().map(|r| (r.0.round, r.0.preorder, r.1)).collect();
    assert_eq!(keys, [(0, 1, true), (0, 2, true), (1, 1, true), (1, 2, true), (2, 1, true), (2, 2, true)]);
    // limits 2n << round, every probe of them expanded to its limit
    let n = d.len() as u64;
    assert!(helper.done.iter().all(|r| r.2 == r.0.limit && r.0.limit == (2 * n) << r.0.round));
    assert_eq!(helped.nodes, helper.done.iter().map(|r| r.2).sum::<u64>());
    let mut lead = Replay { record: &helper.done, asked: 0, skipped: 0, finished: false };
    let led = run(&d, 6_000, Some(&mut lead));
    assert_eq!(led, alone);
    assert!(!alone.0.optimal && alone.0.nodes == 6_000, "{:?}", alone.0);
    // asked before each of its six lower-bound probes (rounds 0 and 1; the 6,000th node comes
    // before round 2's), it skips the four of preorders 1 and 2
    assert_eq!((lead.asked, lead.skipped, lead.finished), (6, 4, true));
}

/// A record of another problem (J) gives the lead on D nothing to skip: the probes' keys
/// carry the problem's fingerprint.
#[test]
fn another_problems_probes_are_not_taken() {
    let d = rows(include_str!("../../sim/data/minimalloc/D.1048576.csv"));
    let j = rows(include_str!("../../sim/data/minimalloc/J.1048576.csv"));
    let mut helper = Recorder { last_round: 1, done: Vec::new() };
    run(&j, u64::MAX, Some(&mut helper));
    assert_eq!(helper.done.len(), 4);
    let mut lead = Replay { record: &helper.done, asked: 0, skipped: 0, finished: false };
    assert_eq!(run(&d, 2_000, Some(&mut lead)), run(&d, 2_000, None));
    assert!(lead.asked > 0 && lead.skipped == 0);
}
