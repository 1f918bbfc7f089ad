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
use crate::input::{Problem, Program, Row, TensorKind};

/// The problem of a program JSON, as the shared traces' CSVs define it: one row per
/// intermediate or output tensor (in tensor order), live over `[def op, 1 + last reading
/// op)`; a graph output lives to the end (`upper = ops`); a tensor nothing reads gets
/// `upper = lower + 1`. Tensors never written are left out.
pub fn problem_from_program(p: &Program) -> Problem {
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
    let mut out = Problem::with_capacity(n, 0);
    for (k, t) in p.tensors.iter().enumerate() {
        if !matches!(t.kind, TensorKind::Intermediate | TensorKind::Output) {
            continue;
        }
        let Some(lower) = def[k] else { continue };
        let upper = if t.kind == TensorKind::Output {
            ops
        } else {
            last[k].filter(|&l| l >= lower).map_or(lower + 1, |l| l + 1)
        };
        out.push(&t.name, Row { lower, upper: upper.max(lower + 1), size: t.bytes });
    }
    out
}

/// A solved problem.
#[derive(Debug, Clone)]
pub struct Solved {
    /// The offset of every buffer, bytes, in problem order.
    pub offsets: Vec<u64>,
    /// The planner's metrics (`hwm` = peak, `lower_bound` = max load).
    pub metrics: Metrics,
    /// Wall time of the plan.
    pub time: Duration,
}

impl Solved {
    /// The solution of `problem` (the one solved): every buffer fixed at its offset.
    pub fn solution(&self, problem: &Problem) -> Problem {
        problem.with_offsets(&self.offsets)
    }
}

/// Why a problem could not be planned; the message names the buffer and its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// A time index does not fit the planner's 32-bit instruction index.
    #[error("buffer `{id}`{}: upper {upper} exceeds the 32-bit instruction index", at(*line))]
    TimeRange {
        /// Position of the buffer in the problem (0-based).
        index: usize,
        /// Buffer id.
        id: String,
        /// Its file line, when read from a file.
        line: Option<u64>,
        /// The value.
        upper: u64,
    },
    /// The planner failed; `id` names the buffer when the error names one.
    #[error("{message}")]
    Plan {
        /// Buffer named by the error.
        id: Option<String>,
        /// The error.
        error: PlanError,
        /// The error in words, naming buffers by id and line.
        message: String,
    },
}

/// ` (line N)` when the line is known.
fn at(line: Option<u64>) -> String {
    line.map_or_else(String::new, |l| format!(" (line {l})"))
}

/// A planner error in words: buffers named by id and file line, not by index.
pub fn describe(problem: &Problem, error: &PlanError) -> String {
    let name = |k: u32| {
        let k = k as usize;
        if k < problem.len() {
            format!("buffer `{}`{}", problem.id(k), at(problem.line(k)))
        } else {
            format!("buffer #{k}")
        }
    };
    match *error {
        PlanError::DoesNotFit { location, size, needed, available, largest_gap } => {
            let needed = if needed == u64::MAX {
                "its end overflows u64".to_owned()
            } else {
                format!("{needed} bytes needed")
            };
            format!(
                "{} ({size} bytes aligned) does not fit: {needed}, {available} available (largest free gap {largest_gap} bytes)",
                name(location)
            )
        }
        PlanError::ZeroSize { location } => format!("{} has size 0 bytes", name(location)),
        PlanError::SizeOverflow { location, bytes } => {
            format!(
                "{}: size {bytes} bytes overflows u64 when aligned or added to its offset",
                name(location)
            )
        }
        PlanError::BadInterval { location, def, last_use } => {
            format!("{}: lifetime [{def}, {last_use}] ends before it starts", name(location))
        }
        PlanError::MisalignedFixed { location, address, align } => {
            format!("{}: fixed offset {address} is not a multiple of its alignment {align}", name(location))
        }
        PlanError::PinnedOverlap { a, b } => {
            let range = |k: u32| {
                let k = k as usize;
                let start = problem.fixed(k).unwrap_or(0);
                format!("[{start}, {})", start.saturating_add(problem.row(k).size))
            };
            format!(
                "fixed {} at bytes {} and fixed {} at bytes {} are live at the same time and overlap",
                name(a),
                range(a),
                name(b),
                range(b)
            )
        }
        PlanError::OutsideWindow { location, end, window } => {
            format!("fixed {} ends at byte {end}, past the capacity of {window} bytes", name(location))
        }
        ref other => other.to_string(),
    }
}

/// Plans `problem` with `strategy`, sizes rounded up to `align` bytes, within `capacity`
/// bytes (`None`: unbounded). No CC region. Fixed buffers stay at their offsets; a buffer's
/// own alignment is honoured (`dramalloc_core::Buffer::aligned_to`).
///
/// # Errors
/// [`SolveError::TimeRange`], or [`SolveError::Plan`] (e.g. `DoesNotFit` naming the buffer).
pub fn solve(
    problem: &Problem,
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
    problem: &Problem,
    align: u64,
    capacity: Option<u64>,
    strategy: Strategy,
    time_limit: Duration,
) -> Result<Solved, SolveError> {
    for (index, b) in problem.rows().iter().enumerate() {
        if b.upper > u32::MAX as u64 {
            return Err(SolveError::TimeRange {
                index,
                id: problem.id(index).to_owned(),
                line: problem.line(index),
                upper: b.upper,
            });
        }
    }
    let mut host = HostWorkspace::new(problem.len().max(1), problem.len().max(1), 1);
    let start = Instant::now();
    let name = |error: PlanError| {
        let id = located(&error).filter(|&k| k < problem.len()).map(|k| problem.id(k).to_owned());
        SolveError::Plan { id, message: describe(problem, &error), error }
    };
    let run = |window: u64, host: &mut HostWorkspace| {
        let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
        let bufs = problem.rows().iter().enumerate().map(|(k, b)| CoreBuffer {
            def: b.lower as u32,
            last_use: (b.upper - 1) as u32,
            bytes: b.size,
            address: problem.fixed(k),
            align: problem.alignment(k),
        });
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
    let offsets = host.infos()[..problem.len()].iter().map(|i| i.address).collect();
    Ok(Solved { offsets, metrics: plan.metrics, time })
}

/// The buffer a planner error names by its location, if any.
fn located(error: &PlanError) -> Option<usize> {
    match *error {
        PlanError::DoesNotFit { location, .. }
        | PlanError::ZeroSize { location }
        | PlanError::BadInterval { location, .. }
        | PlanError::SizeOverflow { location, .. }
        | PlanError::MisalignedFixed { location, .. }
        | PlanError::OutsideWindow { location, .. } => Some(location as usize),
        PlanError::PinnedOverlap { a, .. } => Some(a as usize),
        _ => None,
    }
}
