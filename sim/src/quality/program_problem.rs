//! The minimalloc problem of a program JSON (`plan` and `quality` of a `.json` input).
//! Uses: input; used by: problem.rs (re-exported there).

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
