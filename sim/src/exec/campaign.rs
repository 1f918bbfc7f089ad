//! A fault campaign: every fault kind injected N times over a set of models, each caught or not.
//! Uses: edge_order, executor, faults, host_storage, input, model, planning, run, verify, dramalloc-core (multicore); used by: cli (faults).
//!
//! What `dramalloc faults` runs. Every model is split tensor-parallel over the given cores and
//! planned once; injection `i` of a kind goes to model `i mod models` with seed `i`, on a copy
//! of the correct plan. A fault counts as **detected** when the run fails on it:
//! - `move`, `twin`, `corrupt` ([`Fault`]): the independent geometric verifier
//!   ([`check_plans`]) rejects the plan, or else the simulator ([`execute`]) reports a
//!   collision;
//! - `reverse`: the run fails **naming the culprit** ([`Injected::named_by`]): the simulator's
//!   edge check ([`crate::exec::edge_order`]) reports the cycle the reversed edge closes,
//!   naming that edge (counted under [`Row::by_cycle`]), or the simulator fails at the
//!   reversed edge's `from` or `to` op (a consumer ran before its producer, a writer before the
//!   last reader). A failure anywhere else is not a detection;
//! - `drop-target`: a shared tensor's remote-local target on a core k ≥ 1 is dropped after
//!   `coloring_allocator_dram_shared`; `sync_shared_allocations` must fail with exactly
//!   [`PlanError::MissingTwin`] naming that core and location.
//!
//! A model on which a kind has no place (no shared tensor, no cross-core edge, ...) is passed
//! over for that kind; a kind no model can take is reported with 0 injected.
//!
//! A fault the verifier does not catch must be executed, unless the simulator's edge check
//! fails it first (a reversal that closes a cycle: nothing executes). Before that execution
//! the campaign estimates the host memory it needs ([`crate::exec::host_memory::estimate`]); when that is
//! more than the host has (the `host_memory` given to [`run_campaign`]), the model is passed
//! over for the kind and named in the row's [`Row::passed_over`], instead of the process
//! being killed by the kernel half-way (a 64-core VGG-19 needs about 38 GB).

use dramalloc_core::multicore::{MultiConfig, Pass, Pipeline};
use dramalloc_core::PlanError;

use crate::exec::edge_order::check_edge_order;
use crate::exec::executor::{execute, Collision, ExecOptions};
use crate::exec::faults::{inject, Fault, Injected, SplitMix64};
use crate::exec::host_memory::over_limit;
use crate::host_storage::HostMulti;
use crate::input::Program;
use crate::model::SimModel;
use crate::planning::{plan_model, PlanFailure, PlanOptions, PlannedModel};
use crate::run::{build_model, Split};
use crate::verify::plan_check::check_plans;

/// A kind of fault of the campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A private tensor moved onto an interfering neighbour's address ([`Fault::MoveOntoNeighbour`]).
    Move,
    /// One core's twin of a shared tensor given another address ([`Fault::TwinAddress`]).
    Twin,
    /// One cross-core RAW/WAR edge run backwards ([`Fault::ReverseEdge`]).
    Reverse,
    /// One byte of a live tensor flipped between its def and a later use ([`Fault::CorruptByte`]).
    Corrupt,
    /// A shared tensor's remote-local target dropped before `sync_shared_allocations`.
    DropTarget,
}

impl Kind {
    /// Every kind, in the order of the campaign's rows.
    pub const ALL: [Kind; 5] = [Kind::Move, Kind::Twin, Kind::Reverse, Kind::Corrupt, Kind::DropTarget];

    /// The row's name (the `--inject-fault` prefix where there is one).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Move => "move",
            Kind::Twin => "twin",
            Kind::Reverse => "reverse",
            Kind::Corrupt => "corrupt",
            Kind::DropTarget => "drop-target",
        }
    }

    fn fault(self, seed: u64) -> Option<Fault> {
        match self {
            Kind::Move => Some(Fault::MoveOntoNeighbour(seed)),
            Kind::Twin => Some(Fault::TwinAddress(seed)),
            Kind::Reverse => Some(Fault::ReverseEdge(seed)),
            Kind::Corrupt => Some(Fault::CorruptByte(seed)),
            Kind::DropTarget => None,
        }
    }
}

/// A model passed over for a kind because executing it needs more host memory than there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    /// The model's name.
    pub model: String,
    /// Host bytes its execution would need ([`crate::exec::host_memory::HostEstimate::total`]).
    pub needed: u64,
}

/// One row of the campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The kind.
    pub kind: Kind,
    /// Faults injected.
    pub injected: usize,
    /// Faults detected (the sum of the four below).
    pub detected: usize,
    /// Detected by the geometric verifier.
    pub by_verifier: usize,
    /// Detected by the simulator's edge check before execution: the edges closed a cycle
    /// with program order, named by the faulty edge ([`crate::exec::edge_order`]).
    pub by_cycle: usize,
    /// Detected by the simulator's execution.
    pub by_simulator: usize,
    /// Detected by `sync_shared_allocations`.
    pub by_sync: usize,
    /// Models passed over for this kind because a fault on them would have to be executed
    /// and the execution needs more host memory than there is (in the order met).
    pub passed_over: Vec<PassedOver>,
}

impl Row {
    /// Who caught them, e.g. `verifier 12, simulator 988` or `cycle 700, simulator 300`.
    pub fn caught_by(&self) -> String {
        let parts: Vec<String> = [
            ("verifier", self.by_verifier),
            ("cycle", self.by_cycle),
            ("simulator", self.by_simulator),
            ("sync", self.by_sync),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(who, n)| format!("{who} {n}"))
        .collect();
        if parts.is_empty() {
            "-".into()
        } else {
            parts.join(", ")
        }
    }
}

/// How one injection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The model has no place for this fault.
    NoPlace,
    /// Injected; the geometric verifier caught it.
    Verifier,
    /// Injected; the simulator's edge check found the cycle it closed.
    Cycle,
    /// Injected; the simulator caught it.
    Simulator,
    /// Injected; `sync_shared_allocations` caught it.
    Sync,
    /// Placed and not caught by the verifier, but too large to execute: the host would need
    /// this many bytes, more than it has (not counted as injected).
    NoHost(u64),
    /// Injected and not caught.
    Missed,
}

/// A model planned for the campaign.
#[derive(Debug)]
pub struct Planned {
    /// The model's name.
    pub name: String,
    /// Its N-core tensor-parallel form.
    pub model: SimModel,
    /// Its correct plan.
    pub plan: PlannedModel,
}

/// Splits every program tensor-parallel over `cores` cores and plans it with the default options.
///
/// # Errors
/// The program's name and the first pre-placement or planning failure.
pub fn plan_all(programs: &[Program], cores: usize) -> Result<Vec<Planned>, (String, String)> {
    programs
        .iter()
        .map(|p| {
            let fail = |e: String| (p.name.clone(), e);
            let model = build_model(p, cores, Split::TensorParallel).map_err(|e| fail(e.to_string()))?;
            let plan =
                plan_model(&model, &PlanOptions::default()).map_err(|e: PlanFailure| fail(e.to_string()))?;
            Ok(Planned { name: p.name.clone(), model, plan })
        })
        .collect()
}

/// Injects `count` faults of `kind` over `models` (see the module docs). An execution that
/// would need more than `host_memory` bytes (`None`: no limit) is not run: its model is passed
/// over for the kind ([`Row::passed_over`]) and the injection is not counted.
pub fn run_kind(kind: Kind, models: &[Planned], count: usize, host_memory: Option<u64>) -> Row {
    let mut row = Row {
        kind,
        injected: 0,
        detected: 0,
        by_verifier: 0,
        by_cycle: 0,
        by_simulator: 0,
        by_sync: 0,
        passed_over: Vec::new(),
    };
    if models.is_empty() {
        return row;
    }
    let mut place = vec![true; models.len()];
    let mut i = 0usize;
    while row.injected < count && place.iter().any(|&p| p) {
        let m = i % models.len();
        i += 1;
        if !place[m] {
            continue;
        }
        let outcome = match kind.fault(i as u64 - 1) {
            Some(f) => inject_plan_fault(&models[m], f, host_memory),
            None => drop_remote_target(&models[m].model, i as u64 - 1),
        };
        match outcome {
            Outcome::NoPlace => place[m] = false,
            Outcome::NoHost(needed) => {
                place[m] = false;
                row.passed_over.push(PassedOver { model: models[m].name.clone(), needed });
            }
            Outcome::Verifier => row.by_verifier += 1,
            Outcome::Cycle => row.by_cycle += 1,
            Outcome::Simulator => row.by_simulator += 1,
            Outcome::Sync => row.by_sync += 1,
            Outcome::Missed => {}
        }
        if !matches!(outcome, Outcome::NoPlace | Outcome::NoHost(_)) {
            row.injected += 1;
        }
    }
    row.detected = row.by_verifier + row.by_cycle + row.by_simulator + row.by_sync;
    row
}

/// Every kind of [`Kind::ALL`], `count` times each, no execution above `host_memory` bytes
/// (see [`run_kind`]).
pub fn run_campaign(models: &[Planned], count: usize, host_memory: Option<u64>) -> Vec<Row> {
    Kind::ALL.iter().map(|&k| run_kind(k, models, count, host_memory)).collect()
}

fn inject_plan_fault(p: &Planned, fault: Fault, host_memory: Option<u64>) -> Outcome {
    let mut bad = p.plan.clone();
    let Ok(what) = inject(&p.model, &mut bad, fault) else { return Outcome::NoPlace };
    if check_plans(&p.model, &bad).is_err() {
        return Outcome::Verifier;
    }
    // edges that cannot run fail before anything executes: no host memory needed
    if let Err(e) = check_edge_order(&p.model, &bad.edges) {
        return outcome_of(&what, &e.into());
    }
    if let Some(needed) = host_memory.and_then(|limit| over_limit(&p.model, &bad, limit)) {
        return Outcome::NoHost(needed.total());
    }
    let opts = ExecOptions { corrupt: what.corruption(), ..ExecOptions::default() };
    match execute(&p.model, &bad, &opts) {
        Err(f) => outcome_of(&what, &f.collision),
        Ok(_) => Outcome::Missed,
    }
}

/// A failed execution of a plan with fault `what`: detected when it names the culprit
/// ([`Injected::named_by`]), by the edge check or by the execution.
fn outcome_of(what: &Injected, c: &Collision) -> Outcome {
    match c {
        _ if !what.named_by(c) => Outcome::Missed,
        Collision::EdgeOrder(_) => Outcome::Cycle,
        _ => Outcome::Simulator,
    }
}

/// Runs the pipeline of `model`, dropping one remote-local target (chosen by `seed`) after the
/// shared allocation; caught only by exactly `MissingTwin` on that core and location.
fn drop_remote_target(model: &SimModel, seed: u64) -> Outcome {
    let names = model.name_refs();
    let modules = model.modules(&names);
    if modules.len() < 2 {
        return Outcome::NoPlace;
    }
    let locs: Vec<usize> = model.cores.iter().map(|c| c.locations.len()).collect();
    let mut host = HostMulti::new(&modules, 1 << 12);
    let mut rng = SplitMix64(seed);
    let mut dropped = None;
    let cfg = MultiConfig::default();
    let res = {
        let (mut storage, mut states) = host.split();
        Pipeline::build(&cfg).run_observed(&cfg, &modules, &mut states, &mut storage, |pass, st| {
            if pass != Pass::SharedDramAllocation {
                return;
            }
            let k = 1 + rng.below(st.len() - 1);
            let shared: Vec<usize> =
                (0..locs[k]).filter(|&l| st[k].locations[l].is_shared_post_dram_alloc()).collect();
            if let Some(&l) = shared.get(rng.below(shared.len().max(1))) {
                st[k].locations[l].clear_remote_target();
                dropped = Some((k as u32, l as u32));
            }
        })
    };
    let Some((k, l)) = dropped else { return Outcome::NoPlace };
    match res {
        Err(e)
            if e.pass == Pass::SyncSharedAllocations
                && e.error
                    == PlanError::MissingTwin {
                        core: k,
                        location: l,
                        target_core: u32::MAX,
                        target_location: u32::MAX,
                    } =>
        {
            Outcome::Sync
        }
        // anything else (no error, another error) missed the fault: sync runs before the
        // edge pass, so the edge capacity cannot hide it
        _ => Outcome::Missed,
    }
}
