//! Planning problems in the minimalloc form, planned with the core planner (`plan`, `quality`).
//! Uses: host_storage, input, dramalloc-core; used by: mod.rs, cli.
//!
//! Planning problems in the minimalloc form (`id, lower, upper, size`, `upper` exclusive) and
//! planning them with the core planner: the engine behind `dramalloc plan` and
//! `dramalloc quality`.

use std::time::{Duration, Instant};

use dramalloc_core::place::exact::Budget;
use dramalloc_core::{
    plan_buffer_iter_with, Buffer as CoreBuffer, CcSize, Metrics, PlanConfig, PlanError, Strategy,
};

use crate::host_storage::HostWorkspace;
use crate::input::{Buffer, Program, SolutionRow, TensorKind};

/// The problem of a program JSON, as the shared traces' CSVs define it: one row per
/// intermediate or output tensor (in tensor order), live over `[def op, 1 + last reading
/// op)`; a graph output lives to the end (`upper = ops`); a tensor nothing reads gets
/// `upper = lower + 1`. Tensors never written are left out.
pub fn problem_from_program(p: &Program) -> Vec<Buffer> {
    let n = p.tensors.len();
    let (mut def, mut last) = (vec![None::<u64>; n], vec![None::<u64>; n]);
    for (i, op) in p.ops.iter().enumerate() {
        for &t in &op.inputs {
            last[t as usize] = Some(i as u64);
        }
        for &t in &op.outputs {
            def[t as usize].get_or_insert(i as u64);
        }
    }
    let ops = p.ops.len() as u64;
    p.tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(t.kind, TensorKind::Intermediate | TensorKind::Output))
        .filter_map(|(k, t)| {
            let lower = def[k]?;
            let upper = if t.kind == TensorKind::Output {
                ops
            } else {
                last[k].filter(|&l| l >= lower).map_or(lower + 1, |l| l + 1)
            };
            Some(Buffer { id: t.name.clone(), lower, upper: upper.max(lower + 1), size: t.bytes })
        })
        .collect()
}

/// A solved problem.
#[derive(Debug, Clone)]
pub struct Solved {
    /// One row per buffer, in problem order, with its offset.
    pub rows: Vec<SolutionRow>,
    /// The planner's metrics (`hwm` = peak, `lower_bound` = max load).
    pub metrics: Metrics,
    /// Wall time of the plan.
    pub time: Duration,
}

/// Why a problem could not be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// A time index does not fit the planner's 32-bit instruction index.
    #[error("buffer `{id}` (row {} of the problem, line {} of a CSV): upper {upper} exceeds the 32-bit instruction index", index + 1, index + 2)]
    TimeRange {
        /// Position of the buffer in the problem (0-based).
        index: usize,
        /// Buffer id.
        id: String,
        /// The value.
        upper: u64,
    },
    /// The planner failed; `id` names the buffer when the error names one.
    #[error("{}{error}", id.as_ref().map(|i| format!("buffer `{i}`: ")).unwrap_or_default())]
    Plan {
        /// Buffer named by the error.
        id: Option<String>,
        /// The error.
        error: PlanError,
    },
}

/// Plans `problem` with `strategy`, sizes rounded up to `align` bytes, within `capacity`
/// bytes (`None`: unbounded). No CC region.
///
/// # Errors
/// [`SolveError::TimeRange`], or [`SolveError::Plan`] (e.g. `DoesNotFit` naming the buffer).
pub fn solve(
    problem: &[Buffer],
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
) -> Result<Solved, SolveError> {
    solve_within(problem, align, capacity, strategy, DEFAULT_TIME_LIMIT)
}

/// Default time limit of the `exact` strategy's search: 1 s.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(1);

/// As [`solve`], with the `exact` strategy's search stopped after `time_limit` (measured from
/// the start of the plan with [`Instant`], checked every few hundred search nodes; the best
/// plan found so far is returned). Other strategies ignore it.
///
/// # Errors
/// As [`solve`].
pub fn solve_within(
    problem: &[Buffer],
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    time_limit: Duration,
) -> Result<Solved, SolveError> {
    for (index, b) in problem.iter().enumerate() {
        if b.upper > u32::MAX as u64 {
            return Err(SolveError::TimeRange { index, id: b.id.clone(), upper: b.upper });
        }
    }
    let mut host = HostWorkspace::new(problem.len().max(1), problem.len().max(1), 1);
    let start = Instant::now();
    let name = |error: PlanError| {
        let id = match error {
            PlanError::DoesNotFit { location, .. }
            | PlanError::ZeroSize { location }
            | PlanError::BadInterval { location, .. }
            | PlanError::SizeOverflow { location, .. } => {
                problem.get(location as usize).map(|b| b.id.clone())
            }
            _ => None,
        };
        SolveError::Plan { id, error }
    };
    let run = |window: u64, host: &mut HostWorkspace| {
        let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
        let bufs = problem.iter().map(|b| CoreBuffer::new(b.lower as u32, (b.upper - 1) as u32, b.size));
        let mut keep_going = || start.elapsed() < time_limit;
        let mut budget = Budget { max_nodes: u64::MAX, keep_going: &mut keep_going };
        plan_buffer_iter_with(bufs, align, &cfg, &mut host.workspace(), &mut budget)
    };
    // Within a capacity, the greedy members of a portfolio stop at the first buffer that does
    // not fit, while an unbounded plan of the same strategy may still end below the capacity:
    // try bounded first (its error names the buffer), then unbounded, and keep whichever fits.
    let plan = match run(capacity.unwrap_or(u64::MAX), &mut host) {
        Ok(p) => p,
        Err(bounded @ PlanError::DoesNotFit { .. }) => match run(u64::MAX, &mut host) {
            Ok(p) if capacity.is_none_or(|c| p.metrics.hwm <= c) => p,
            _ => return Err(name(bounded)),
        },
        Err(e) => return Err(name(e)),
    };
    let time = start.elapsed();
    let rows = problem
        .iter()
        .zip(host.infos())
        .map(|(b, i)| SolutionRow {
            id: b.id.clone(),
            lower: b.lower,
            upper: b.upper,
            size: b.size,
            offset: i.address,
        })
        .collect();
    Ok(Solved { rows, metrics: plan.metrics, time })
}
