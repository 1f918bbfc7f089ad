//! The `run` pipeline: plan a program on N cores, verify every plan, execute it, summarise.
//! Uses: exec, input, model, planning, report (bounds), tensor_parallel, verify; used by: cli, report.
//!
//! `dramalloc run`: plan a program on N cores, verify every plan geometrically, execute it on
//! the simulator, and summarise.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::exec::edge_order::check_edge_order;
use crate::exec::executor::{execute, Collision, ExecFailure, ExecOptions, ExecReport};
use crate::exec::faults::{inject, Fault, Injected};
use crate::exec::host_memory::{available, over_limit, HostEstimate};
use crate::input::{InputError, Program};
use crate::model::SimModel;
use crate::planning::{plan_model, PlanFailure, PlanOptions, PlannedModel};
use crate::report::bounds::{core_bounds, CoreBounds};
use crate::tensor_parallel;
use crate::verify::plan_check::check_plans;
use crate::verify::VerifyError;

/// How a single-core model becomes N cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// Every core runs its own copy; nothing is shared (unless the JSON flags it).
    #[default]
    None,
    /// Every core runs the model; an all-reduce over a shared staging buffer follows every
    /// Conv/MatMul/Gemm (see the README).
    TensorParallel,
}

impl Split {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Split::None => "none",
            Split::TensorParallel => "tensor-parallel",
        }
    }
}

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Core count (1..=64).
    pub cores: usize,
    /// Split.
    pub split: Split,
    /// Planner options.
    pub plan: PlanOptions,
    /// A fault to inject after planning (tests and `--inject-fault`).
    pub fault: Option<Fault>,
    /// Show a progress bar (only drawn on a terminal).
    pub progress: bool,
    /// Where the caller will write `plan.csv`, `summary.json`, `layout.svg`, `plan.bin`, `plan.h` (see
    /// [`crate::report::write_reports`]); `run` itself writes nothing.
    pub report_dir: Option<PathBuf>,
    /// Host memory the execution may use, bytes; `None`: what the host has available
    /// ([`crate::exec::host_memory::available`]; no check where that cannot be read).
    pub host_memory: Option<u64>,
}

/// One core's line of the summary.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CoreSummary {
    /// Core index.
    pub core: usize,
    /// Bytes the layout spends on the core: private, shared and CC together
    /// ([`crate::report::bounds`]).
    pub hwm: u64,
    /// A lower bound on `hwm` that holds whatever goes where: the shared bound plus the most
    /// private and CC bytes live at once (`report::bounds`).
    pub lower_bound: u64,
    /// The parts (private, shared, CC) and their total (`hwm`, `lower_bound`).
    pub parts: CoreBounds,
    /// Peak memory pressure of the core's view: the most private + shared bytes live at one
    /// instruction (0 when the DRAM pass did not run).
    pub peak_live: u64,
    /// Where: `op I `NAME`` (empty when the DRAM pass did not run or the core has no op).
    pub peak_live_at: String,
    /// Spills left unaddressed.
    pub unaddressed: u64,
}

/// The device's peak memory pressure: every core's private bytes and the shared bytes once.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct DevicePressure {
    /// All bytes live at the peak.
    pub bytes: u64,
    /// Private bytes of all cores there.
    pub private_bytes: u64,
    /// Shared bytes there, counted once.
    pub shared_bytes: u64,
    /// Where: `op I `NAME`` of core 0 (empty when core 0 has no op).
    pub at: String,
    /// The most shared bytes live at one instruction.
    pub shared_peak: u64,
}

/// The summary of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Model name.
    pub model: String,
    /// Cores.
    pub cores: usize,
    /// Split.
    pub split: Split,
    /// Strategy name.
    pub strategy: String,
    /// Tensors over all cores.
    pub tensors: usize,
    /// Liveness intervals over all cores.
    pub intervals: u64,
    /// Shared tensors.
    pub shared_tensors: u32,
    /// Pre-placed bytes (core 0).
    pub preplaced_bytes: u64,
    /// Shared region start and bytes.
    pub shared_base: u64,
    /// Shared region bytes in use.
    pub shared_bytes: u64,
    /// Cross-core edges.
    pub edges: usize,
    /// Per-core lines.
    pub per_core: Vec<CoreSummary>,
    /// Peak memory pressure of the device (`None` when the DRAM pass did not run).
    pub pressure: Option<DevicePressure>,
    /// CC region limit, bytes.
    pub cc_limit: u64,
    /// First byte of the CC region.
    pub cc_base: u64,
    /// Collective staging buffers placed in the CC region (shared by every core).
    pub cc_collectives: u32,
    /// Bytes written by the simulator.
    pub bytes_written: u64,
    /// Bytes read back and verified.
    pub bytes_verified: u64,
    /// Arena bytes committed.
    pub committed_bytes: u64,
    /// Planning time, seconds.
    pub plan_seconds: f64,
    /// Simulation time, seconds.
    pub sim_seconds: f64,
    /// Passes that ran.
    pub passes: Vec<String>,
    /// The fault injected, if any.
    pub fault: Option<String>,
    /// "OK" or the failure.
    pub verdict: String,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad input file (exit 2).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The planner failed (exit 1 when it does not fit, else 2).
    #[error("plan failed: {0}")]
    Plan(#[from] PlanFailure),
    /// The geometric verifier found a collision in a plan (exit 1).
    #[error("verifier: core {core}: {error}")]
    Verify {
        /// Core.
        core: usize,
        /// The finding.
        error: Box<VerifyError>,
        /// The summary up to the failure.
        summary: Box<Summary>,
        /// The model and its plan, for the reports of the failed run.
        failed: Box<FailedRun>,
    },
    /// The simulator detected a collision (exit 1).
    #[error("simulator: {error}")]
    Collision {
        /// The finding.
        error: Collision,
        /// The summary up to the failure.
        summary: Box<Summary>,
        /// The model and its plan, for the reports of the failed run.
        failed: Box<FailedRun>,
    },
    /// A fault could not be injected: the model has no place for it (exit 2).
    #[error("cannot inject fault: {0}")]
    Fault(String),
    /// The execution would need more host memory than there is (exit 2): the estimate of
    /// [`crate::exec::host_memory::estimate`], made before anything executes.
    #[error(
        "the simulation needs about {} bytes of host memory ({} arena pages of 4 KiB, fingerprints written and checked in place), more than the {available} bytes available",
        needed.total(),
        needed.arena_pages
    )]
    HostMemory {
        /// The estimate.
        needed: HostEstimate,
        /// Host bytes available (or given by `--host-memory`).
        available: u64,
    },
    /// A DRAM spill survived without an address (`--disable-dram-allocation`; seed "The
    /// disable_dram_allocation Gate": "an error is raised if a DRAM spill survives"), exit 1.
    /// Names the first one: on the lowest core that has one, the one accessed first.
    #[error(
        "core {core}: DRAM spill `{tensor}` has no address ({first_access}); {count} spill(s) left unaddressed on {cores} core(s)"
    )]
    UnaddressedSpill {
        /// Core.
        core: usize,
        /// The spill.
        tensor: String,
        /// `first accessed by op I `NAME``, or `never accessed`.
        first_access: String,
        /// Unaddressed spills over all cores.
        count: u64,
        /// Cores with at least one.
        cores: usize,
        /// The summary (its `unaddressed` column filled).
        summary: Box<Summary>,
        /// The model and its plan (the spills unaddressed), for the reports of the failed run.
        failed: Box<FailedRun>,
    },
}

impl RunError {
    /// The summary and the failed run (model and plan) of an error after planning, `None` for
    /// one that has no plan to report.
    pub fn failed_run(&self) -> Option<(&Summary, &FailedRun)> {
        match self {
            RunError::Verify { summary, failed, .. }
            | RunError::Collision { summary, failed, .. }
            | RunError::UnaddressedSpill { summary, failed, .. } => Some((summary, failed)),
            _ => None,
        }
    }

    /// Process exit code: 2 for bad input or a run the host cannot hold, 1 for a plan that
    /// does not fit or fails.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) | RunError::Fault(_) | RunError::HostMemory { .. } => 2,
            RunError::Plan(p) if !p.does_not_fit => 2,
            _ => 1,
        }
    }
}

/// What a run that failed after planning leaves for its reports.
#[derive(Debug)]
pub struct FailedRun {
    /// The simulated model.
    pub model: SimModel,
    /// The plan (with the injected fault, if any).
    pub plan: PlannedModel,
}

/// A run that completed: the model, the plan, the execution and the summary.
#[derive(Debug)]
pub struct RunOutcome {
    /// The simulated model.
    pub model: SimModel,
    /// The plan.
    pub plan: PlannedModel,
    /// The execution.
    pub exec: ExecReport,
    /// The summary.
    pub summary: Summary,
    /// The fault that was injected (it was NOT detected if this is `Some` and we got here).
    pub injected: Option<Injected>,
}

/// Builds the N-core model of `program`.
///
/// # Errors
/// Pre-placement errors.
pub fn build_model(program: &Program, cores: usize, split: Split) -> Result<SimModel, InputError> {
    match split {
        Split::None => SimModel::replicated(program, cores),
        Split::TensorParallel => tensor_parallel::split(program, cores),
    }
}

/// Runs `program`. See the module docs.
///
/// # Errors
/// [`RunError`]; a collision or a verifier finding carries the summary.
pub fn run(program: &Program, opts: &RunOptions) -> Result<RunOutcome, RunError> {
    let model = build_model(program, opts.cores.max(1), opts.split)?;
    let planning = (opts.progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_message(format!("planning {} on {} core(s)", model.name, model.cores.len()));
        pb.enable_steady_tick(Duration::from_millis(120));
        pb
    });
    let plan = plan_model(&model, &opts.plan);
    if let Some(pb) = planning {
        pb.finish_and_clear();
    }
    let (model, mut plan) = surviving_spill(model, plan?, opts)?;
    let injected = match opts.fault {
        Some(f) => Some(inject(&model, &mut plan, f).map_err(RunError::Fault)?),
        None => None,
    };
    let mut summary = summarize(&model, &plan, &ExecReport::default(), opts, injected.as_ref());
    if let Err((core, error)) = check_plans(&model, &plan) {
        summary.verdict = format!("FAILED: verifier: core {core}: {error}");
        return Err(RunError::Verify {
            core,
            error: Box::new(error),
            summary: Box::new(summary),
            failed: Box::new(FailedRun { model, plan }),
        });
    }
    // edges that cannot run fail here, before the host-memory estimate: nothing executes
    if let Err(e) = check_edge_order(&model, &plan.edges) {
        let failure = ExecFailure { collision: e.into(), partial: ExecReport::default() };
        return Err(simulator_failure(model, plan, failure, opts, injected.as_ref()));
    }
    if let Some(available) = opts.host_memory.or_else(available) {
        if let Some(needed) = over_limit(&model, &plan, available) {
            return Err(RunError::HostMemory { needed, available });
        }
    }
    let total: u64 = model.cores.iter().map(|c| c.instructions.len() as u64).sum();
    let bar = (opts.progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
        let pb = indicatif::ProgressBar::new(total);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} simulating {pos}/{len} instructions {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let exec_opts =
        ExecOptions { progress: bar.clone(), corrupt: injected.as_ref().and_then(Injected::corruption) };
    let exec = execute(&model, &plan, &exec_opts);
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    let exec = match exec {
        Ok(e) => e,
        Err(failure) => return Err(simulator_failure(model, plan, *failure, opts, injected.as_ref())),
    };
    let summary = summarize(&model, &plan, &exec, opts, injected.as_ref());
    Ok(RunOutcome { model, plan, exec, summary, injected })
}

/// The [`RunError::Collision`] of a failed execution (or of edges that cannot run), with its
/// summary, verdict `FAILED: <collision>`.
fn simulator_failure(
    model: SimModel,
    plan: PlannedModel,
    failure: ExecFailure,
    opts: &RunOptions,
    injected: Option<&Injected>,
) -> RunError {
    let mut summary = summarize(&model, &plan, &failure.partial, opts, injected);
    summary.verdict = format!("FAILED: {}", failure.collision);
    RunError::Collision {
        error: failure.collision,
        summary: Box::new(summary),
        failed: Box::new(FailedRun { model, plan }),
    }
}

/// The model and plan back, or the [`RunError::UnaddressedSpill`] for the first DRAM spill
/// without an address (carrying both, for the failed run's reports).
fn surviving_spill(
    model: SimModel,
    plan: PlannedModel,
    opts: &RunOptions,
) -> Result<(SimModel, PlannedModel), RunError> {
    let (m, p) = (&model, &plan);
    let unaddressed = |k: usize| {
        let c = &m.cores[k];
        (0..c.locations.len())
            .filter(move |&l| c.locations[l].is_candidate() && p.placements[k][l].address.is_none())
    };
    let first = (0..model.cores.len()).find_map(|k| {
        unaddressed(k).min_by_key(|&l| (plan.placements[k][l].first_access, l)).map(|l| (k, l))
    });
    let Some((core, l)) = first else { return Ok((model, plan)) };
    let c = &model.cores[core];
    let first = plan.placements[core][l].first_access;
    let first_access = match c.op_names.get(first as usize) {
        Some(op) => format!("first accessed by op {first} `{op}`"),
        None => "never accessed".to_string(),
    };
    let mut summary = summarize(&model, &plan, &ExecReport::default(), opts, None);
    let count: u64 = summary.per_core.iter().map(|c| c.unaddressed).sum();
    let cores = summary.per_core.iter().filter(|c| c.unaddressed > 0).count();
    let tensor = c.names[l].clone();
    summary.verdict = format!("FAILED: DRAM spill `{tensor}` on core {core} has no address");
    let (summary, failed) = (Box::new(summary), Box::new(FailedRun { model, plan }));
    Err(RunError::UnaddressedSpill { core, tensor, first_access, count, cores, summary, failed })
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Builds the summary of a planned (and possibly executed) model.
pub fn summarize(
    model: &SimModel,
    plan: &PlannedModel,
    exec: &ExecReport,
    opts: &RunOptions,
    injected: Option<&Injected>,
) -> Summary {
    let bounds = core_bounds(model, plan, &opts.plan);
    let pressure = &plan.report.pressure;
    let at = |k: usize, i: u32| {
        model.cores[k].op_names.get(i as usize).map_or_else(String::new, |n| format!("op {i} `{n}`"))
    };
    let per_core = (0..model.cores.len())
        .map(|k| {
            let peak = pressure.view.get(k);
            CoreSummary {
                core: k,
                hwm: bounds[k].total.used,
                lower_bound: bounds[k].total.lower_bound,
                parts: bounds[k],
                peak_live: peak.map_or(0, |p| p.bytes()),
                peak_live_at: peak.map_or_else(String::new, |p| at(k, p.instruction)),
                unaddressed: model.cores[k]
                    .locations
                    .iter()
                    .zip(&plan.placements[k])
                    .filter(|(l, p)| l.is_candidate() && p.address.is_none())
                    .count() as u64,
            }
        })
        .collect();
    let device = (!pressure.view.is_empty()).then(|| DevicePressure {
        bytes: pressure.device.bytes(),
        private_bytes: pressure.device.private_bytes,
        shared_bytes: pressure.device.shared_bytes,
        at: at(0, pressure.device.instruction),
        shared_peak: pressure.shared.bytes(),
    });
    let c0 = model.cores.first();
    Summary {
        model: model.name.clone(),
        cores: model.cores.len(),
        split: opts.split,
        strategy: opts.plan.strategy.name().to_string(),
        tensors: model.tensor_count(),
        intervals: plan.metrics.iter().map(|m| m.intervals).sum(),
        shared_tensors: plan.report.shared_tensors,
        preplaced_bytes: c0
            .map_or(0, |c| c.locations.iter().filter(|l| l.is_preplaced()).map(|l| l.bytes).sum()),
        shared_base: plan.report.shared_base,
        shared_bytes: plan.report.shared_region_bytes,
        edges: plan.report.edges,
        per_core,
        pressure: device,
        cc_limit: plan.metrics.first().map_or(0, |m| m.cc_limit),
        cc_base: plan.metrics.first().map_or(0, |m| m.cc_base),
        cc_collectives: plan.report.cc_tensors,
        bytes_written: exec.bytes_written,
        bytes_verified: exec.bytes_verified,
        committed_bytes: exec.committed_bytes,
        plan_seconds: secs(plan.plan_time),
        sim_seconds: secs(exec.sim_time),
        passes: plan.report.ran.iter().map(|p| format!("{p:?}")).collect(),
        fault: injected.map(|f| f.to_string()),
        verdict: "OK".to_string(),
    }
}
