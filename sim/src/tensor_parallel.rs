//! `--split tensor-parallel`: turns a single-core model into an N-core one.
//! Uses: input, model, dramalloc-core (liveness); used by: run.
//!
//! Exactly what it does, for N cores:
//! - Every core runs the whole model (its own copy of every tensor; pre-placed tensors at the
//!   same addresses on every core, in that core's private window).
//! - After every op whose type is one of [`SPLIT_OPS`] with output `T` (its first output),
//!   two ops are inserted on every core k:
//!   1. `<op>/allreduce_stage` — a **collective** op: reads `T` and writes
//!      `<T>/cc_slice<k>`, core k's slice of the staging buffer. Slices are
//!      `ceil(bytes(T) / N)` bytes each; slice j is flagged shared, so it is ONE buffer
//!      that all cores address identically.
//!   2. `<op>/allreduce_gather` — reads all N slices `<T>/cc_slice0 .. <T>/cc_slice<N-1>`
//!      (every core reads bytes that every other core wrote) and writes `<T>/reduced`, the
//!      core's private copy of the result, `bytes(T)` bytes.
//!
//!   Every later op that read `T` reads `<T>/reduced` instead.
//! - A pre-placed `T` (a graph output, at a fixed address that the program's caller reads
//!   after the program ends; no op writes an input or weight: the program reader refuses
//!   that, [`InputError::WritesPreloaded`]) must end holding the reduced
//!   value, so there the roles swap: the op writes `<T>/partial`, a private intermediate of
//!   `bytes(T)` bytes, the stage reads it, and the gather writes `T` itself. Later readers of
//!   `T` read `T`; no `<T>/reduced` is made.
//! - Core k defines only its own slice; the others are read-only on it. The anti-dependency
//!   edges order slice j's write on core j before its reads on every other core, and a later
//!   all-reduce's write into reused bytes after the earlier reads.

use dramalloc_core::liveness::program::{Location, UsageClass};

use crate::input::{InputError, Program, TensorKind};
use crate::model::{CoreProgram, SimModel};

/// Op types after which an all-reduce is inserted.
pub const SPLIT_OPS: [&str; 6] =
    ["Conv", "MatMul", "Gemm", "CONV_2D", "FULLY_CONNECTED", "DEPTHWISE_CONV_2D"];

/// Builds the N-core tensor-parallel model described in the module docs.
///
/// # Errors
/// The pre-placement errors of [`SimModel::core_from_program`].
pub fn split(p: &Program, cores: usize) -> Result<SimModel, InputError> {
    let n = cores.max(1);
    let base = SimModel::core_from_program(p)?;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        // generated names never clash with the model's own (or each other): `#2`, `#3`, … is
        // appended when taken; every core makes the same choices, so twins share names
        let mut taken: std::collections::HashSet<String> = base.names.iter().cloned().collect();
        let mut fresh = |name: String| -> String {
            if taken.insert(name.clone()) {
                return name;
            }
            let mut i = 2;
            loop {
                let candidate = format!("{name}#{i}");
                if taken.insert(candidate.clone()) {
                    return candidate;
                }
                i += 1;
            }
        };
        let mut c = CoreProgram::default();
        for (i, name) in base.names.iter().enumerate() {
            c.add_tensor(name.clone(), base.kinds[i], base.locations[i]);
        }
        // rename map: reads of T go to T/reduced after its all-reduce
        let mut read_as: Vec<u32> = (0..base.locations.len() as u32).collect();
        for (i, op) in p.ops.iter().enumerate() {
            let uses: Vec<u32> = op.inputs.iter().map(|&t| read_as[t as usize]).collect();
            let split_output = op.outputs.first().copied().filter(|_| SPLIT_OPS.contains(&op.op.as_str()));
            let Some(t) = split_output else {
                c.add_op(
                    base.op_names[i].clone(),
                    base.op_types[i].clone(),
                    &uses,
                    &op.outputs,
                    op.collective,
                );
                continue;
            };
            let tname = &base.names[t as usize];
            let bytes = base.locations[t as usize].bytes;
            // a pre-placed T is what the caller reads: the op writes a private partial and
            // the gather writes T (module docs)
            let preplaced = base.kinds[t as usize].is_preplaced();
            let partial = if preplaced {
                c.add_tensor(
                    fresh(format!("{tname}/partial")),
                    TensorKind::Intermediate,
                    Location::spill(bytes),
                )
            } else {
                t
            };
            let mut defs = op.outputs.clone();
            defs[0] = partial;
            c.add_op(base.op_names[i].clone(), base.op_types[i].clone(), &uses, &defs, op.collective);
            let slice = bytes.div_ceil(n as u64);
            let slices: Vec<u32> = (0..n)
                .map(|j| {
                    c.add_tensor(
                        fresh(format!("{tname}/cc_slice{j}")),
                        TensorKind::Intermediate,
                        Location { shared: true, ..Location::spill(slice) },
                    )
                })
                .collect();
            let reduced = if preplaced {
                t
            } else {
                c.add_tensor(
                    fresh(format!("{tname}/reduced")),
                    TensorKind::Intermediate,
                    Location { usage: UsageClass::Spill, ..Location::spill(bytes) },
                )
            };
            c.add_op(
                format!("{}/allreduce_stage", op.name),
                "AllReduceStage".into(),
                &[partial],
                &[slices[k]],
                true,
            );
            c.add_op(
                format!("{}/allreduce_gather", op.name),
                "AllReduceGather".into(),
                &slices,
                &[reduced],
                false,
            );
            read_as[t as usize] = reduced;
        }
        out.push(c);
    }
    Ok(SimModel { name: p.name.clone(), cores: out })
}
