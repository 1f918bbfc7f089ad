//! Shape rules of reshape-like, transpose, expand, tile, pad and shape ops.
//! Uses: node, elementwise, dtype, value; used by: infer, reduce.
//!
//! Ops that rearrange or repeat elements: `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`,
//! `Transpose`, `Expand`, `Tile`, `Pad`, `DepthToSpace`, `SpaceToDepth`. Reshape-like ops
//! pass a constant's elements through; `Transpose`, `Expand` and `Tile` move them.

use super::super::dtype;
use super::super::value::{self, Data, Value};
use super::elementwise::{broadcast, broadcast_source};
use super::index::map_indices;
use super::node::{dim, norm_axis, Info, Node, R};

/// Input 0 with a new shape, its value (if any) carried over unchanged.
fn reshaped(x: &Info, shape: Vec<u64>) -> Info {
    let data = x.value.as_ref().map(|v| v.data.clone());
    Info::new(x.dtype, shape).with(data)
}

/// Element count of a shape, for the checks of reshape-like ops.
fn count(shape: &[u64]) -> R<u64> {
    value::elements(shape).ok_or_else(|| format!("shape {shape:?} has too many elements"))
}

/// `Reshape(data, shape)` (opset ≥ 5; before, attribute `shape`): `0` copies the input
/// dimension (unless `allowzero`), one `-1` takes what is left.
pub fn reshape(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let target = n.moved_required("shape", 1, 5)?.as_ints();
    let allow_zero = n.int("allowzero", 0) != 0;
    let total = count(&x.shape)?;
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(1);
            }
            -1 => return Err(format!("shape {target:?} has more than one -1")),
            0 if !allow_zero => out.push(
                *x.shape
                    .get(i)
                    .ok_or_else(|| format!("shape {target:?}: 0 at {i} copies no input dimension"))?,
            ),
            d => out.push(dim(d, &format!("shape element {i}"))?),
        }
    }
    if let Some(i) = infer_at {
        let rest = count(&out)?;
        if rest == 0 || total % rest != 0 {
            return Err(format!("cannot reshape {:?} ({total} elements) to {target:?}", x.shape));
        }
        out[i] = total / rest;
    }
    if count(&out)? != total {
        return Err(format!("cannot reshape {:?} ({total} elements) to {out:?}", x.shape));
    }
    Ok(vec![reshaped(x, out)])
}

/// `Flatten(axis = 1)`: `[prod(dims[..axis]), prod(dims[axis..])]`.
pub fn flatten(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let a = n.int("axis", 1);
    let axis = if a < 0 { a + r as i64 } else { a };
    if !(0..=r as i64).contains(&axis) {
        return Err(format!("attribute `axis`: {a} is out of range for rank {r}"));
    }
    let axis = axis as usize;
    Ok(vec![reshaped(x, vec![count(&x.shape[..axis])?, count(&x.shape[axis..])?])])
}

/// The `axes` of `Squeeze`/`Unsqueeze`/reductions: input 1 from `from_opset` on, else the
/// attribute; `None` when neither is given.
pub fn axes(n: &Node, from_opset: i64, input: usize) -> R<Option<Vec<i64>>> {
    Ok(n.moved("axes", input, from_opset)?.map(|v| v.as_ints()))
}

/// `Squeeze(axes)`: removes the listed dimensions (all 1s when none are listed).
pub fn squeeze(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let drop: Vec<usize> = match axes(n, 13, 1)? {
        Some(a) => a.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?,
        None => (0..r).filter(|&i| x.shape[i] == 1).collect(),
    };
    if let Some(&i) = drop.iter().find(|&&i| x.shape[i] != 1) {
        return Err(format!("cannot squeeze dimension {i} of size {}", x.shape[i]));
    }
    let shape = (0..r).filter(|i| !drop.contains(i)).map(|i| x.shape[i]).collect();
    Ok(vec![reshaped(x, shape)])
}

/// `Unsqueeze(axes)`: inserts 1s at the listed positions of the output.
pub fn unsqueeze(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let a = axes(n, 13, 1)?.ok_or("axes are missing")?;
    let r = x.shape.len() + a.len();
    let mut at: Vec<usize> = a.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?;
    at.sort_unstable();
    if at.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("axes {a:?} repeat a position"));
    }
    let mut src = x.shape.iter();
    let shape = (0..r)
        .map(|i| if at.binary_search(&i).is_ok() { 1 } else { src.next().copied().unwrap_or(1) })
        .collect();
    Ok(vec![reshaped(x, shape)])
}

/// Row-major strides of `shape`.
fn strides(shape: &[u64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as usize;
    }
    s
}

/// Input 0's value rearranged into `shape` by `map`, when both are small.
fn moved(x: &Info, shape: Vec<u64>, map: impl Fn(&[u64]) -> usize) -> Info {
    let data = match &x.value {
        Some(v) if value::small(&shape) => Some(v.data.pick(&map_indices(&shape, map))),
        _ => None,
    };
    Info::new(x.dtype, shape).with(data)
}

/// `Transpose(perm)` (default: reversed dimensions).
pub fn transpose(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let perm: Vec<usize> = match n.ints("perm") {
        Some(p) => p.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?,
        None => (0..r).rev().collect(),
    };
    let mut seen = vec![false; r];
    if perm.len() != r || perm.iter().any(|&p| std::mem::replace(&mut seen[p], true)) {
        return Err(format!("perm {perm:?} is not a permutation of {r} dimensions"));
    }
    let shape: Vec<u64> = perm.iter().map(|&p| x.shape[p]).collect();
    let st = strides(&x.shape);
    Ok(vec![moved(x, shape, |o| o.iter().zip(&perm).map(|(&i, &p)| i as usize * st[p]).sum())])
}

/// `Expand(input, shape)`: the broadcast of the input's shape and `shape`.
pub fn expand(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let target: Vec<u64> =
        n.value(1)?.as_ints().iter().map(|&d| dim(d, "shape element")).collect::<R<_>>()?;
    let shape = broadcast(&x.shape, &target)?;
    let src = broadcast_source(&shape, &x.shape);
    let data = match &x.value {
        Some(v) if value::small(&shape) => Some(v.data.pick(&src)),
        _ => None,
    };
    Ok(vec![Info::new(x.dtype, shape).with(data)])
}

/// `Tile(input, repeats)`: every dimension times its repeat count.
pub fn tile(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let reps = n.value(1)?.as_ints();
    if reps.len() != x.shape.len() {
        return Err(format!("repeats {reps:?} do not match rank {}", x.shape.len()));
    }
    let shape: Vec<u64> = x
        .shape
        .iter()
        .zip(&reps)
        .map(|(&d, &r)| d.checked_mul(dim(r, "repeat")?).ok_or_else(|| "dimension overflows".to_owned()))
        .collect::<R<_>>()?;
    let st = strides(&x.shape);
    let dims = x.shape.clone();
    Ok(vec![moved(x, shape, |o| {
        o.iter().enumerate().map(|(k, &i)| (i % dims[k].max(1)) as usize * st[k]).sum()
    })])
}

/// `Pad`: pads from attribute `pads` (opset < 11) or input 1, for the axes of input 3
/// (opset ≥ 18) or all; `[begin..., end...]`, negative pads crop.
pub fn pad(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let pads = n.moved_required("pads", 1, 11)?.as_ints();
    let axes: Vec<usize> = match n.opt_ints(3)? {
        Some(a) if n.opset >= 18 => a.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?,
        _ => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!("{} pads for {} axes", pads.len(), axes.len()));
    }
    let mut shape = x.shape.clone();
    for (k, &a) in axes.iter().enumerate() {
        let d = i128::from(shape[a]) + i128::from(pads[k]) + i128::from(pads[k + axes.len()]);
        shape[a] = u64::try_from(d).map_err(|_| format!("padded dimension {a} is {d}"))?;
    }
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `DepthToSpace` (`to_space`) and `SpaceToDepth` with `blocksize`, on NCHW.
pub fn depth_space(n: &Node, to_space: bool) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let b = dim(n.int("blocksize", 0), "blocksize")?;
    let [batch, c, h, w] = x.shape[..] else {
        return Err(format!("input 0 has rank {}, expected 4", x.shape.len()));
    };
    if b == 0 {
        return Err("blocksize is 0".into());
    }
    let big = || "blocksize overflows".to_owned();
    let bb = b.checked_mul(b).ok_or_else(big)?;
    let shape = if to_space {
        if c % bb != 0 {
            return Err(format!("{c} channels are not a multiple of blocksize² = {bb}"));
        }
        vec![batch, c / bb, h.checked_mul(b).ok_or_else(big)?, w.checked_mul(b).ok_or_else(big)?]
    } else {
        if h % b != 0 || w % b != 0 {
            return Err(format!("spatial size {h}x{w} is not a multiple of blocksize {b}"));
        }
        vec![batch, c.checked_mul(bb).ok_or_else(big)?, h / b, w / b]
    };
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `Shape(start, end)`: the dimensions as an `INT64` vector; `Size`: their product.
pub fn shape_of(n: &Node, size: bool) -> R<Vec<Info>> {
    let x = n.input(0)?;
    if size {
        let total = count(&x.shape)? as i64;
        return Ok(vec![Info::of(Value {
            dtype: dtype::INT64,
            shape: vec![],
            data: Data::Int(vec![total]),
        })]);
    }
    let r = x.shape.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let (start, end) = (clamp(n.int("start", 0)), clamp(n.int("end", r)));
    let dims: Vec<i64> = x.shape[start..end.max(start)].iter().map(|&d| d as i64).collect();
    Ok(vec![Info::of(Value::ints(dims))])
}
