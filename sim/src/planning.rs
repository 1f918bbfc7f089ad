//! Plans a [`SimModel`] with the core's multi-core pipeline, core errors turned into named messages.
//! Uses: host_storage, model, dramalloc-core; used by: cli, exec, report, run, verify.
//!
//! Plans a [`SimModel`] with the core's multi-core pipeline and keeps what the simulator,
//! the verifier and the reports need, with core errors turned into messages that name
//! tensors.

use std::time::{Duration, Instant};

use dramalloc_core::metrics::Metrics;
use dramalloc_core::multicore::pipeline::MultiError;
use dramalloc_core::multicore::{Edge, MultiConfig, MultiReport, Pipeline, SharedEntry, SharedMode};
use dramalloc_core::{CcSize, PlanConfig, PlanError, Store, Strategy};

use crate::host_storage::HostMulti;
use crate::model::SimModel;

/// Planning options of `dramalloc run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// Per-core HBM window, bytes.
    pub window: u64,
    /// CC region size.
    pub cc: CcSize,
    /// Strategy.
    pub strategy: Strategy,
    /// The `--disable-dram-allocation` gate.
    pub disable_dram_allocation: bool,
    /// Address-space layout.
    pub mode: SharedMode,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            window: dramalloc_core::DEFAULT_HBM_WINDOW,
            cc: CcSize::default(),
            strategy: Strategy::default(),
            disable_dram_allocation: false,
            mode: SharedMode::Windows,
        }
    }
}

/// One placed tensor of one core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Address in the core's view, bytes (`None`: unaddressed).
    pub address: Option<u64>,
    /// Aligned size, bytes.
    pub aligned: u64,
    /// In the shared set (`is_shared_post_dram_alloc`).
    pub shared: bool,
    /// First instruction accessing it on this core (`u32::MAX`: never).
    pub first_access: u32,
    /// Last instruction accessing it on this core.
    pub last_access: u32,
}

/// The planned model.
#[derive(Debug, Clone)]
pub struct PlannedModel {
    /// `placements[core][tensor]`.
    pub placements: Vec<Vec<Placement>>,
    /// Per-core metrics of the private plans.
    pub metrics: Vec<Metrics>,
    /// The pipeline's report.
    pub report: MultiReport,
    /// Cross-core ordering edges.
    pub edges: Vec<Edge>,
    /// The shared set.
    pub shared: Vec<SharedEntry>,
    /// Wall time of planning.
    pub plan_time: Duration,
}

/// A planning failure: the message names the tensors; `does_not_fit` selects exit code 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PlanFailure {
    /// Human-readable message naming pass, core and tensors.
    pub message: String,
    /// True when the plan does not fit its window (exit 1); false for bad input (exit 2).
    pub does_not_fit: bool,
    /// The underlying error.
    pub error: PlanError,
}

/// Plans `model` (see [`PlanOptions`]).
///
/// # Errors
/// [`PlanFailure`] naming the pass, core and tensors.
pub fn plan_model(model: &SimModel, opts: &PlanOptions) -> Result<PlannedModel, PlanFailure> {
    let start = Instant::now();
    let names = model.name_refs();
    let modules = model.modules(&names);
    let cfg = MultiConfig {
        plan: PlanConfig { window: opts.window, cc: opts.cc, strategy: opts.strategy },
        mode: opts.mode,
        disable_dram_allocation: opts.disable_dram_allocation,
    };
    let locs: Vec<usize> = model.cores.iter().map(|c| c.locations.len()).collect();
    let mut edge_cap = 4096usize;
    loop {
        let mut host = HostMulti::new(&modules, edge_cap);
        let (mut storage, mut states) = host.split();
        let pipeline = Pipeline::build(&cfg);
        match pipeline.run(&cfg, &modules, &mut states, &mut storage) {
            Ok(report) => {
                let placements = states
                    .iter()
                    .zip(&locs)
                    .map(|(s, &n)| {
                        s.locations[..n]
                            .iter()
                            .map(|l| Placement {
                                address: l.is_allocated().then_some(l.address),
                                aligned: l.aligned,
                                shared: l.is_shared_post_dram_alloc(),
                                first_access: l.first_access,
                                last_access: l.last_access,
                            })
                            .collect()
                    })
                    .collect();
                let metrics = states.iter().map(|s| s.metrics).collect();
                let shared = storage.shared[..report.shared_tensors as usize].to_vec();
                let edges = storage.edges[..report.edges].to_vec();
                return Ok(PlannedModel {
                    placements,
                    metrics,
                    report,
                    edges,
                    shared,
                    plan_time: start.elapsed(),
                });
            }
            Err(MultiError { error: PlanError::Capacity { store: Store::Edges, .. }, .. })
                if edge_cap < (1 << 28) =>
            {
                edge_cap *= 8;
            }
            Err(e) => return Err(describe(model, &e)),
        }
    }
}

/// Turns a pipeline error into a message with tensor names.
pub fn describe(model: &SimModel, e: &MultiError) -> PlanFailure {
    let core = e.core as usize;
    let name = |c: usize, l: u32| -> String {
        model
            .cores
            .get(c)
            .and_then(|p| p.names.get(l as usize))
            .map_or_else(|| format!("#{l}"), |n| format!("`{n}`"))
    };
    let op = |c: usize, i: u32| -> String {
        model
            .cores
            .get(c)
            .and_then(|p| p.op_names.get(i as usize))
            .map_or_else(|| format!("#{i}"), |n| format!("op {i} `{n}`"))
    };
    let what = match e.error {
        // `needed` is u64::MAX where the end first fit needs overflows u64 (the core's wording)
        PlanError::DoesNotFit { location, size, needed: u64::MAX, available, largest_gap } => format!(
            "tensor {} ({size} bytes aligned) does not fit: its end overflows u64, {available} bytes available (largest free gap {largest_gap} bytes)",
            name(core, location)
        ),
        PlanError::DoesNotFit { location, size, needed, available, largest_gap } => format!(
            "tensor {} ({size} bytes aligned) does not fit: {needed} bytes needed, {available} available (largest free gap {largest_gap} bytes)",
            name(core, location)
        ),
        PlanError::UseBeforeDef { location, instruction } => {
            format!("tensor {} is read by {} before any op defines it", name(core, location), op(core, instruction))
        }
        PlanError::ZeroSize { location } => format!("tensor {} has 0 bytes", name(core, location)),
        PlanError::SizeOverflow { location, bytes } => {
            format!("tensor {} ({bytes} bytes): size overflows u64 when aligned", name(core, location))
        }
        PlanError::OutsideWindow { location, end, window } => {
            format!("tensor {} ends at {end}, past the {window}-byte window", name(core, location))
        }
        PlanError::MissingTwin { core: c, location, target_core, .. } => format!(
            "shared tensor {} on core {c} has no twin on core {target_core}",
            name(c as usize, location)
        ),
        PlanError::TwinSizeMismatch { core: c, location, bytes, target_core, target_bytes, .. } => format!(
            "shared tensor {} has {bytes} bytes on core {c} but {target_bytes} on core {target_core}",
            name(c as usize, location)
        ),
        PlanError::SharedMismatch { core: c, location, target_core, .. } => format!(
            "tensor {} is shared on core {c} but private on core {target_core}",
            name(c as usize, location)
        ),
        PlanError::PinnedOverlap { a, b } => {
            format!("pinned tensors {} and {} interfere and overlap", name(core, a), name(core, b))
        }
        PlanError::OperandOverlap { instruction, a, b } => format!(
            "{} reads/writes {} and {} at overlapping bytes",
            op(core, instruction),
            name(core, a),
            name(core, b)
        ),
        PlanError::OverBudget { instruction, private_bytes, shared_bytes, budget } => format!(
            "HBM budget: at {} {} live DRAM bytes ({private_bytes} private + {shared_bytes} shared, counted once) do not fit the {budget}-byte budget",
            op(core, instruction),
            private_bytes.saturating_add(shared_bytes)
        ),
        other => other.to_string(),
    };
    let does_not_fit = matches!(
        e.error,
        PlanError::DoesNotFit { .. }
            | PlanError::OverBudget { .. }
            | PlanError::OutsideWindow { .. }
            | PlanError::CcRegionTooLarge { .. }
            | PlanError::CcRegionOverlapsPreplaced { .. }
    );
    PlanFailure { message: format!("{:?} on core {}: {what}", e.pass, e.core), does_not_fit, error: e.error }
}
