//! Runs the independent verifier over every core's plan of a model.
//! Uses: input, model, planning; used by: run.
//!
//! Runs the independent geometric verifier ([`crate::verify`]) over every core's plan: each
//! core's view (its pre-placed, private and shared tensors) becomes a minimalloc solution,
//! tensors live over `[first access, last access + 1)` (shared ones over the hull of every
//! core's accesses; loaded inputs and weights over the whole program).

use crate::input::{Buffer, SolutionRow};
use crate::model::SimModel;
use crate::planning::PlannedModel;
use crate::verify::{verify, VerifyError, VerifyReport};

/// Verifies every core; returns the per-core reports.
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
        let n = c.instructions.len() as u64;
        let mut problem = Vec::new();
        let mut solution = Vec::new();
        for (l, p) in plan.placements[k].iter().enumerate() {
            let Some(addr) = p.address else { continue };
            let (lower, upper) = if c.kinds[l].is_loaded() || c.kinds[l].is_preplaced() {
                (0, n.max(1))
            } else if p.shared {
                match hull0.get(c.names[l].as_str()) {
                    Some(&(a, b)) => (a as u64, b as u64 + 1),
                    None => continue,
                }
            } else if p.first_access == u32::MAX {
                continue;
            } else {
                (p.first_access as u64, p.last_access as u64 + 1)
            };
            let size = c.locations[l].bytes;
            if size == 0 {
                continue;
            }
            let id = c.names[l].clone();
            problem.push(Buffer { id: id.clone(), lower, upper, size });
            solution.push(SolutionRow { id, lower, upper, size, offset: addr });
        }
        out.push(verify(&problem, &solution, 1, None).map_err(|e| (k, e))?);
    }
    Ok(out)
}
