//! Runs the independent verifier over every core's plan of a model.
//! Uses: input, model, planning; used by: run, run_plan.
//!
//! Runs the independent geometric verifier ([`crate::verify`]) over every core's plan: each
//! core's view (its pre-placed, private and shared tensors) becomes a minimalloc solution,
//! tensors live over `[first access, last access + 1)` (shared ones over the hull of every
//! core's accesses; loaded inputs and weights over the whole program).

use dramalloc_core::align::DRAM_PAGE;

use crate::input::{Problem, Row, TensorKind};
use crate::model::SimModel;
use crate::planning::PlannedModel;
use crate::verify::{verify, VerifyError, VerifyReport};

/// One addressed tensor of a core's view.
pub(crate) struct ViewTensor<'a> {
    /// Its name.
    pub(crate) name: &'a str,
    /// Its kind.
    pub(crate) kind: TensorKind,
    /// Size, bytes.
    pub(crate) bytes: u64,
    /// Address, bytes.
    pub(crate) address: u64,
    /// In the shared set.
    pub(crate) shared: bool,
    /// First and last instruction accessing it on this core.
    pub(crate) access: Option<(u32, u32)>,
    /// For a shared tensor: first and last access over every core.
    pub(crate) hull: Option<(u32, u32)>,
}

/// Checks one core's view of `instructions` instructions (see the module docs); tensors that
/// take no bytes or are never accessed occupy nothing and are left out.
///
/// # Errors
/// The verifier's first finding.
pub(crate) fn check_view<'a>(
    instructions: usize,
    tensors: impl Iterator<Item = ViewTensor<'a>>,
    align: u64,
    capacity: Option<u64>,
) -> Result<VerifyReport, VerifyError> {
    let n = instructions as u64;
    let mut problem = Problem::default();
    let mut addrs = Vec::new();
    for t in tensors {
        let (lower, upper) = if t.kind.is_loaded() || t.kind.is_preplaced() {
            (0, n.max(1))
        } else if t.shared {
            match t.hull {
                Some((a, b)) => (a as u64, b as u64 + 1),
                None => continue,
            }
        } else {
            match t.access {
                Some((a, b)) => (a as u64, b as u64 + 1),
                None => continue,
            }
        };
        if t.bytes == 0 {
            continue;
        }
        problem.push(t.name, Row { lower, upper, size: t.bytes });
        addrs.push(t.address);
    }
    verify(&problem, &problem.with_offsets(&addrs), align, capacity)
}

/// Verifies every core; returns the per-core reports. Every address must be a multiple of
/// the DRAM page (4096 bytes), as `check-plan` and `verify` ask of the plan's reports, so
/// `run` cannot call a plan OK that those reject.
///
/// # Errors
/// `(core, error)` for the first core whose plan fails.
pub fn check_plans(model: &SimModel, plan: &PlannedModel) -> Result<Vec<VerifyReport>, (usize, VerifyError)> {
    let mut hull0 = std::collections::HashMap::new();
    for e in &plan.shared {
        hull0.insert(model.cores[0].names[e.location as usize].as_str(), (e.first_access, e.last_access));
    }
    let mut out = Vec::with_capacity(model.cores.len());
    for (k, c) in model.cores.iter().enumerate() {
        let tensors = plan.placements[k].iter().enumerate().filter_map(|(l, p)| {
            Some(ViewTensor {
                name: &c.names[l],
                kind: c.kinds[l],
                bytes: c.locations[l].bytes,
                address: p.address?,
                shared: p.shared,
                access: (p.first_access != u32::MAX).then_some((p.first_access, p.last_access)),
                hull: hull0.get(c.names[l].as_str()).copied(),
            })
        });
        out.push(check_view(c.instructions.len(), tensors, DRAM_PAGE, None).map_err(|e| (k, e))?);
    }
    Ok(out)
}
