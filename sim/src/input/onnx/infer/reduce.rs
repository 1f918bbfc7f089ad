//! Shape rules of reductions and arg-max/min.
//! Uses: node, layout (axes), dtype, value; used by: infer.
//!
//! Reductions: `ReduceSum`, `ReduceMean`, `ReduceMax`, ... (`axes` from the attribute, or from
//! input 1 from opset 13 for `ReduceSum` and opset 18 for the others; `keepdims`,
//! `noop_with_empty_axes`) and `ArgMax`/`ArgMin` (one `axis`, `INT64`). Reductions of constants
//! are evaluated for `ReduceProd`, `ReduceSum`, `ReduceMax`, `ReduceMin`.

use super::super::dtype;
use super::super::value::{self, Data};
use super::index::map_indices;
use super::layout::axes;
use super::node::{norm_axis, Info, Node, R};

/// Reduced shape of `shape` over `axes` (sorted, unique).
fn reduced(shape: &[u64], axes: &[usize], keep: bool) -> Vec<u64> {
    (0..shape.len())
        .filter_map(|i| match (axes.contains(&i), keep) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(shape[i]),
        })
        .collect()
}

/// `Reduce*` ops.
pub fn reduce(n: &Node, op: &str) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let from_opset = if op == "ReduceSum" { 13 } else { 18 };
    let listed = axes(n, from_opset, 1)?.unwrap_or_default();
    let keep = n.int("keepdims", 1) != 0;
    if listed.is_empty() && n.int("noop_with_empty_axes", 0) != 0 {
        return Ok(vec![Info::new(x.dtype, x.shape.clone()).with(x.value.as_ref().map(|v| v.data.clone()))]);
    }
    let mut over: Vec<usize> = if listed.is_empty() {
        (0..r).collect()
    } else {
        listed.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?
    };
    over.sort_unstable();
    over.dedup();
    let out = Info::new(x.dtype, reduced(&x.shape, &over, keep));
    let data = match (&x.value, op) {
        (Some(v), "ReduceProd" | "ReduceSum" | "ReduceMax" | "ReduceMin") if value::small(&out.shape) => {
            let kept: Vec<usize> = (0..r).filter(|i| !over.contains(i)).collect();
            let kept_shape: Vec<u64> = kept.iter().map(|&i| x.shape[i]).collect();
            let mut acc: Vec<Option<f64>> = vec![None; value::elements(&kept_shape).unwrap_or(0) as usize];
            let slots = map_indices(&x.shape, |idx| {
                kept.iter().fold(0usize, |a, &i| a * x.shape[i] as usize + idx[i] as usize)
            });
            for (flat, &slot) in slots.iter().enumerate() {
                let e = v.data.f(flat);
                acc[slot] = Some(match (acc[slot], op) {
                    (None, _) => e,
                    (Some(a), "ReduceProd") => a * e,
                    (Some(a), "ReduceSum") => a + e,
                    (Some(a), "ReduceMax") => a.max(e),
                    (Some(a), _) => a.min(e),
                });
            }
            let empty = if op == "ReduceProd" { 1.0 } else { 0.0 };
            Some(Data::Float(acc.into_iter().map(|a| a.unwrap_or(empty)).collect()))
        }
        _ => None,
    };
    Ok(vec![out.with(data)])
}

/// `ArgMax` / `ArgMin(axis = 0, keepdims = 1)`: `INT64` indices.
pub fn arg(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let axis = n.axis("axis", 0, x.shape.len())?;
    let keep = n.int("keepdims", 1) != 0;
    Ok(vec![Info::new(dtype::INT64, reduced(&x.shape, &[axis], keep))])
}
