//! Shape rules of concat, split, slice, gather, top-k, one-hot, non-zero.
//! Uses: node, dtype, value; used by: infer.
//!
//! Ops that join, cut or pick: `Concat`, `Split`, `Slice`, `Gather`, `GatherElements`,
//! `GatherND`, `TopK`, `OneHot`, `NonZero`. `Concat`, `Slice`, `Gather` and `NonZero` of
//! constants are evaluated (the `Shape -> Gather -> Concat` chains of exported models).

use super::super::dtype;
use super::super::value::{self, Data, Value};
use super::index::{ravel, unravel};
use super::node::{dim, norm_axis, Info, Node, R};

/// `Concat(axis)`: dimensions along `axis` add up, the others must agree.
pub fn concat(n: &Node) -> R<Vec<Info>> {
    let inputs: Vec<&Info> = n.inputs.iter().flatten().copied().collect();
    let first = inputs.first().ok_or("needs at least one input")?;
    let r = first.shape.len();
    let axis = n.axis("axis", 0, r)?;
    let mut shape = first.shape.clone();
    shape[axis] = 0;
    for (k, x) in inputs.iter().enumerate() {
        if x.shape.len() != r || (0..r).any(|d| d != axis && x.shape[d] != first.shape[d]) {
            return Err(format!(
                "input {k} has shape {:?}, which does not concatenate with {:?} on axis {axis}",
                x.shape, first.shape
            ));
        }
        shape[axis] = shape[axis].checked_add(x.shape[axis]).ok_or("the concatenated dimension overflows")?;
    }
    let out = Info::new(first.dtype, shape);
    if !value::small(&out.shape) || inputs.iter().any(|x| x.value.is_none()) {
        return Ok(vec![out]);
    }
    // Walk the output; each position comes from the input whose slice covers it.
    let mut data = Vec::new();
    let total = value::elements(&out.shape).unwrap_or(0) as usize;
    for flat in 0..total {
        let mut idx = unravel(flat, &out.shape);
        let mut k = 0;
        while idx[axis] >= inputs[k].shape[axis] as usize {
            idx[axis] -= inputs[k].shape[axis] as usize;
            k += 1;
        }
        let v = inputs[k].value.as_deref().map_or(0.0, |v| v.data.f(ravel(&idx, &inputs[k].shape)));
        data.push(v);
    }
    Ok(vec![out.with(Some(Data::Float(data)))])
}

/// `Split(axis)`: sizes from input 1 (opset ≥ 13) or attribute `split`, else equal parts
/// (the last one smaller, opset ≥ 18 `num_outputs`).
pub fn split(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let axis = n.axis("axis", 0, x.shape.len())?;
    let total = x.shape[axis];
    let parts = n.outputs() as u64;
    let sizes: Vec<u64> = match n.moved("split", 1, 13)?.map(|v| v.as_ints()) {
        Some(s) if !s.is_empty() => s.iter().map(|&d| dim(d, "split size")).collect::<R<_>>()?,
        _ => {
            if parts == 0 {
                return Err("has no outputs".into());
            }
            let each = total.div_ceil(parts);
            (0..parts).map(|k| each.min(total.saturating_sub(k * each))).collect()
        }
    };
    let sum = sizes.iter().try_fold(0u64, |a, &s| a.checked_add(s));
    if sum != Some(total) || sizes.len() as u64 != parts {
        return Err(format!(
            "split sizes {sizes:?} do not cut dimension {axis} of size {total} into {parts} outputs"
        ));
    }
    Ok(sizes
        .iter()
        .map(|&s| {
            let mut shape = x.shape.clone();
            shape[axis] = s;
            Info::new(x.dtype, shape)
        })
        .collect())
}

/// The clamped `(start, count, step)` of one sliced dimension of size `d`.
fn slice_dim(d: u64, start: i64, end: i64, step: i64) -> R<(i64, u64, i64)> {
    if step == 0 {
        return Err("a slice step is 0".into());
    }
    let d = i128::from(d);
    let fix = |v: i64| if v < 0 { i128::from(v) + d } else { i128::from(v) };
    let (s, e) = (fix(start), fix(end));
    let (s, e) =
        if step > 0 { (s.clamp(0, d), e.clamp(0, d)) } else { (s.clamp(0, d - 1), e.clamp(-1, d - 1)) };
    let st = i128::from(step);
    let len = if step > 0 { (e - s + st - 1) / st } else { (s - e - st - 1) / -st };
    // `s` lies in [0, d) or is 0 for an empty dimension: it fits i64 for dimensions < 2^63.
    Ok((i64::try_from(s).unwrap_or(i64::MAX), u64::try_from(len.max(0)).unwrap_or(u64::MAX), step))
}

/// `Slice`: bounds from attributes (opset < 10) or inputs 1–4 (starts, ends, axes, steps).
pub fn slice(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let (starts, ends, axes, steps) = if n.opset < 10 {
        (
            n.ints("starts").ok_or("attribute `starts` is missing")?,
            n.ints("ends").ok_or("attribute `ends` is missing")?,
            n.ints("axes"),
            None,
        )
    } else {
        (n.value(1)?.as_ints(), n.value(2)?.as_ints(), n.opt_ints(3)?, n.opt_ints(4)?)
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(format!(
            "starts {starts:?}, ends {ends:?}, axes {axes:?} and steps {steps:?} differ in length"
        ));
    }
    let mut shape = x.shape.clone();
    let mut plan: Vec<(i64, i64)> = (0..r).map(|_| (0, 1)).collect();
    for k in 0..starts.len() {
        let a = norm_axis(axes[k], r)?;
        let (s, len, step) = slice_dim(x.shape[a], starts[k], ends[k], steps[k])?;
        shape[a] = len;
        plan[a] = (s, step);
    }
    let out = Info::new(x.dtype, shape);
    let data = match &x.value {
        Some(v) if value::small(&out.shape) => {
            let total = value::elements(&out.shape).unwrap_or(0) as usize;
            let picks: Vec<usize> = (0..total)
                .map(|flat| {
                    let idx: Vec<usize> = unravel(flat, &out.shape)
                        .iter()
                        .zip(&plan)
                        .map(|(&i, &(s, step))| (s + i as i64 * step) as usize)
                        .collect();
                    ravel(&idx, &x.shape)
                })
                .collect();
            Some(v.data.pick(&picks))
        }
        _ => None,
    };
    Ok(vec![out.with(data)])
}

/// `Gather(axis)`: `data[:axis] + indices.shape + data[axis+1:]`; evaluated for constants.
pub fn gather(n: &Node) -> R<Vec<Info>> {
    let (x, ind) = (n.input(0)?, n.input(1)?);
    let axis = n.axis("axis", 0, x.shape.len())?;
    let mut shape = x.shape[..axis].to_vec();
    shape.extend_from_slice(&ind.shape);
    shape.extend_from_slice(&x.shape[axis + 1..]);
    let out = Info::new(x.dtype, shape);
    let (Some(xv), Some(iv)) = (&x.value, &ind.value) else { return Ok(vec![out]) };
    if !value::small(&out.shape) {
        return Ok(vec![out]);
    }
    let d = i64::try_from(x.shape[axis]).unwrap_or(i64::MAX);
    let indices: Vec<i64> =
        iv.as_ints().iter().map(|&i| if i < 0 { i.saturating_add(d) } else { i }).collect();
    if let Some(bad) = indices.iter().find(|&&i| !(0..d).contains(&i)) {
        return Err(format!("index {bad} is out of range for dimension {axis} of size {d}"));
    }
    let total = value::elements(&out.shape).unwrap_or(0) as usize;
    let ir = ind.shape.len();
    let picks: Vec<usize> = (0..total)
        .map(|flat| {
            let o = unravel(flat, &out.shape);
            let which = ravel(&o[axis..axis + ir], &ind.shape);
            let mut idx = o[..axis].to_vec();
            idx.push(indices[which] as usize);
            idx.extend_from_slice(&o[axis + ir..]);
            ravel(&idx, &x.shape)
        })
        .collect();
    Ok(vec![out.with(Some(xv.data.pick(&picks)))])
}

/// `GatherElements`: the indices' shape, the data's type.
pub fn gather_elements(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    Ok(vec![Info::new(x.dtype, n.shape(1)?.to_vec())])
}

/// `GatherND(batch_dims)`: `data[:b] + indices[b:-1] + data[b + indices[-1]:]`.
pub fn gather_nd(n: &Node) -> R<Vec<Info>> {
    let (x, ind) = (n.input(0)?, n.input(1)?);
    let b = dim(n.int("batch_dims", 0), "batch_dims")? as usize;
    let last = *ind.shape.last().ok_or("indices are a scalar")? as usize;
    if b >= ind.shape.len() || b + last > x.shape.len() {
        return Err(format!("indices {:?} do not index data {:?} with batch_dims {b}", ind.shape, x.shape));
    }
    let mut shape = x.shape[..b].to_vec();
    shape.extend_from_slice(&ind.shape[b..ind.shape.len() - 1]);
    shape.extend_from_slice(&x.shape[b + last..]);
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `TopK(k)`: input 0 with `k` (input 1, or attribute before opset 10) along `axis`;
/// outputs the values and `INT64` indices. `k` past the axis's length is an error.
pub fn top_k(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let axis = n.axis("axis", -1, x.shape.len())?;
    let k = if n.opset < 10 { n.int("k", 0) } else { *n.value(1)?.as_ints().first().ok_or("k is empty")? };
    let mut shape = x.shape.clone();
    let k = dim(k, "k")?;
    // (onnxruntime refuses such a model; clamped, the outputs were sized for an invalid model)
    if k > shape[axis] {
        return Err(format!("k {k} is more than the {} elements of axis {axis}", shape[axis]));
    }
    shape[axis] = k;
    Ok(vec![Info::new(x.dtype, shape.clone()), Info::new(dtype::INT64, shape)])
}

/// `OneHot(indices, depth, values; axis = -1)`: a new dimension of size `depth` at `axis`,
/// typed as `values`.
pub fn one_hot(n: &Node) -> R<Vec<Info>> {
    let ind = n.input(0)?;
    let depth = n.value(1)?.data.f(0);
    let values = n.input(2)?;
    let r = ind.shape.len() + 1;
    let axis = n.axis("axis", -1, r)?;
    let mut shape = ind.shape.clone();
    shape.insert(axis, dim(depth as i64, "depth")?);
    Ok(vec![Info::new(values.dtype, shape)])
}

/// `NonZero`: `[rank, count]` of `INT64`; the count needs the input's value.
pub fn non_zero(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let v = n.value(0)?;
    let hits: Vec<usize> = (0..v.data.len()).filter(|&i| v.data.f(i) != 0.0).collect();
    let r = x.shape.len();
    let mut data = vec![0i64; r * hits.len()];
    for (j, &flat) in hits.iter().enumerate() {
        for (d, i) in unravel(flat, &x.shape).into_iter().enumerate() {
            data[d * hits.len() + j] = i as i64;
        }
    }
    Ok(vec![Info::of(Value {
        dtype: dtype::INT64,
        shape: vec![r as u64, hits.len() as u64],
        data: Data::Int(data),
    })])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_clamp_like_numpy() {
        assert_eq!(slice_dim(10, 0, i64::MAX, 1).unwrap(), (0, 10, 1));
        assert_eq!(slice_dim(10, -3, -1, 1).unwrap(), (7, 2, 1));
        assert_eq!(slice_dim(10, -1, i64::MIN, -1).unwrap(), (9, 10, -1));
        assert_eq!(slice_dim(10, 8, 2, 2).unwrap(), (8, 0, 2));
        assert_eq!(slice_dim(5, 4, 0, -2).unwrap(), (4, 2, -2));
        assert!(slice_dim(5, 0, 1, 0).is_err());
    }
}
