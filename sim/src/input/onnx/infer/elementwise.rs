//! Shape rules of element-wise, broadcasting, comparison and cast ops.
//! Uses: node, dtype, value; used by: infer, layout, linalg.
//!
//! Element-wise ops: unary ops keep the shape, binary and variadic ops broadcast the numpy
//! way (ONNX "multidirectional broadcasting"), comparisons and logical ops give `BOOL`, `Cast`
//! takes its `to` type. Constant inputs give constant outputs for the arithmetic that shape
//! computations use.

use super::super::dtype;
use super::super::value::{self, Data};
use super::index::map_indices;
use super::node::{Info, Node, R};

/// The broadcast of two shapes.
///
/// # Errors
/// When two aligned dimensions differ and neither is 1.
pub fn broadcast(a: &[u64], b: &[u64]) -> R<Vec<u64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[u64], i: usize| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            (x, y) => Err(format!("shapes {a:?} and {b:?} do not broadcast (dimension {x} vs {y})")),
        })
        .collect()
}

/// For every element of `out` (row-major), the flat index of the element of `input` that
/// broadcasting reads.
#[must_use]
pub fn broadcast_source(out: &[u64], input: &[u64]) -> Vec<usize> {
    let offset = out.len() - input.len();
    // Row-major strides of `input`, 0 along broadcast dimensions.
    let mut strides = vec![0usize; out.len()];
    let mut s = 1usize;
    for i in (0..input.len()).rev() {
        if input[i] != 1 {
            strides[i + offset] = s;
        }
        s *= input[i] as usize;
    }
    map_indices(out, |idx| idx.iter().zip(&strides).map(|(&i, &st)| i as usize * st).sum())
}

/// Unary op: same type and shape; `value` computes the constant output when there is one.
pub fn unary(n: &Node, eval: Option<fn(f64) -> f64>) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let out = Info::new(x.dtype, x.shape.clone());
    let data = match (&x.value, eval) {
        (Some(v), Some(f)) => Some(match &v.data {
            Data::Int(d) => Data::Int(d.iter().map(|&e| f(e as f64) as i64).collect()),
            Data::Float(d) => Data::Float(d.iter().map(|&e| f(e)).collect()),
        }),
        _ => None,
    };
    Ok(vec![out.with(data)])
}

/// A same-shape op along attribute `axis` (`Softmax`, `LogSoftmax`, `Hardmax`,
/// `LpNormalization`; `default` where the node gives none): the input's shape, once the axis
/// is in `-rank..rank`.
///
/// # Errors
/// An absent input, or an axis out of range for the input's rank (a trial's `Softmax` with
/// axis -9 on a rank-4 input was imported; onnx's checker refuses it).
pub fn along_axis(n: &Node, default: i64) -> R<Vec<Info>> {
    let x = n.input(0)?;
    n.axis("axis", default, x.shape.len())?;
    unary(n, None)
}

/// The constant-folding function of a unary op, if it has one here.
#[must_use]
pub fn unary_eval(op: &str) -> Option<fn(f64) -> f64> {
    Some(match op {
        "Identity" => |x| x,
        "Neg" => |x: f64| -x,
        "Abs" => f64::abs,
        "Floor" => f64::floor,
        "Ceil" => f64::ceil,
        "Round" => |x: f64| {
            let r = x.round();
            // Round half to even.
            if (x - x.trunc()).abs() == 0.5 {
                2.0 * (x / 2.0).round()
            } else {
                r
            }
        },
        "Sqrt" => f64::sqrt,
        "Reciprocal" => |x: f64| 1.0 / x,
        "Relu" => |x: f64| x.max(0.0),
        "Sign" => |x: f64| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        },
        "Not" => |x: f64| if x == 0.0 { 1.0 } else { 0.0 },
        "Exp" => f64::exp,
        "Log" => f64::ln,
        _ => return None,
    })
}

/// The element function of a broadcasting op: two elements and whether all inputs are
/// integers, to the result, or `None` when there is none (division by zero).
pub type Combine = fn(f64, f64, bool) -> Option<f64>;

/// Output type, shape and (for constants) value of a broadcasting op over `inputs` (at least
/// one). `eval` combines two elements (the flag: all inputs are integers; `None`: no
/// constant result, e.g. division by zero); `out_type` overrides the type of input 0.
fn fold_broadcast(inputs: &[&Info], out_type: Option<i32>, eval: Option<Combine>) -> R<Info> {
    let mut shape = inputs[0].shape.clone();
    for x in &inputs[1..] {
        shape = broadcast(&shape, &x.shape)?;
    }
    let out = Info::new(out_type.unwrap_or(inputs[0].dtype), shape);
    let (Some(f), true) = (eval, inputs.iter().all(|x| x.value.is_some()) && value::small(&out.shape)) else {
        return Ok(out);
    };
    let integer = inputs.iter().all(|x| dtype::is_integer(x.dtype));
    let mut acc: Option<Vec<f64>> = None;
    for x in inputs {
        let Some(v) = x.value.as_deref() else { return Ok(out) };
        let src = broadcast_source(&out.shape, &x.shape);
        let vals: Vec<f64> = src.iter().map(|&i| v.data.f(i)).collect();
        acc = Some(match acc {
            None => vals,
            Some(a) => {
                let mut r = Vec::with_capacity(a.len());
                for (p, q) in a.into_iter().zip(vals) {
                    match f(p, q, integer) {
                        Some(e) => r.push(e),
                        None => return Ok(out),
                    }
                }
                r
            }
        });
    }
    Ok(out.with(acc.map(Data::Float)))
}

/// The element function of a binary arithmetic, comparison or logical op.
#[must_use]
pub fn binary_eval(op: &str, fmod: bool) -> Option<Combine> {
    Some(match op {
        "Add" | "Sum" => |x, y, _| Some(x + y),
        "Sub" => |x, y, _| Some(x - y),
        "Mul" => |x, y, _| Some(x * y),
        "Div" => |x, y, int| {
            if int {
                (y != 0.0).then(|| (x / y).trunc())
            } else {
                Some(x / y)
            }
        },
        "Mod" if fmod => |x: f64, y: f64, _| (y != 0.0).then(|| x % y),
        "Mod" => |x: f64, y: f64, _| (y != 0.0).then(|| x - y * (x / y).floor()),
        "Pow" => |x: f64, y: f64, _| Some(x.powf(y)),
        "Max" => |x: f64, y: f64, _| Some(x.max(y)),
        "Min" => |x: f64, y: f64, _| Some(x.min(y)),
        "Equal" => |x, y, _| Some(if x == y { 1.0 } else { 0.0 }),
        "Less" => |x, y, _| Some(if x < y { 1.0 } else { 0.0 }),
        "Greater" => |x, y, _| Some(if x > y { 1.0 } else { 0.0 }),
        "LessOrEqual" => |x, y, _| Some(if x <= y { 1.0 } else { 0.0 }),
        "GreaterOrEqual" => |x, y, _| Some(if x >= y { 1.0 } else { 0.0 }),
        "And" => |x, y, _| Some(if x != 0.0 && y != 0.0 { 1.0 } else { 0.0 }),
        "Or" => |x, y, _| Some(if x != 0.0 || y != 0.0 { 1.0 } else { 0.0 }),
        "Xor" => |x, y, _| Some(if (x != 0.0) != (y != 0.0) { 1.0 } else { 0.0 }),
        _ => return None,
    })
}

/// Binary and variadic broadcasting ops (`Add`, `Sum`, `Equal`, `PRelu`, ...).
pub fn broadcasting(n: &Node, op: &str) -> R<Vec<Info>> {
    let inputs: Vec<&Info> = n.inputs.iter().flatten().copied().collect();
    if inputs.is_empty() {
        return Err("needs at least one input".into());
    }
    let out_type = match op {
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or" | "Xor" => {
            Some(dtype::BOOL)
        }
        _ => None,
    };
    let fmod = n.int("fmod", 0) != 0;
    // Integer precision: exact for |x| < 2^53, which covers shape arithmetic.
    Ok(vec![fold_broadcast(&inputs, out_type, binary_eval(op, fmod))?])
}

/// `Where(condition, X, Y)`: the broadcast of all three, typed as `X`.
pub fn where_(n: &Node) -> R<Vec<Info>> {
    let (c, x, y) = (n.input(0)?, n.input(1)?, n.input(2)?);
    let shape = broadcast(&broadcast(&c.shape, &x.shape)?, &y.shape)?;
    let out = Info::new(x.dtype, shape);
    let (Some(cv), Some(xv), Some(yv)) = (&c.value, &x.value, &y.value) else { return Ok(vec![out]) };
    if !value::small(&out.shape) {
        return Ok(vec![out]);
    }
    let (sc, sx, sy) = (
        broadcast_source(&out.shape, &c.shape),
        broadcast_source(&out.shape, &x.shape),
        broadcast_source(&out.shape, &y.shape),
    );
    let vals: Vec<usize> = (0..sc.len()).collect();
    let data = Data::Float(
        vals.iter()
            .map(|&i| if cv.data.f(sc[i]) != 0.0 { xv.data.f(sx[i]) } else { yv.data.f(sy[i]) })
            .collect(),
    );
    Ok(vec![out.with(Some(data))])
}

/// `Cast` (type `to`) and `CastLike` (type of input 1): same shape, value converted.
pub fn cast(n: &Node, like: bool) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let to = if like { n.input(1)?.dtype } else { n.int("to", 0) as i32 };
    if dtype::describe(to).is_none() {
        return Err(format!("unknown target data type {to}"));
    }
    let data = x.value.as_ref().map(|v| v.data.clone());
    Ok(vec![Info::new(to, x.shape.clone()).with(data)])
}

/// Ops whose outputs all have input 0's shape; `types` gives each output's type (`None`:
/// input 0's). `Dropout`'s mask, `IsNaN`, ...
pub fn same_shape(n: &Node, types: &[Option<i32>]) -> R<Vec<Info>> {
    let x = n.input(0)?;
    Ok((0..n.outputs())
        .map(|k| Info::new(types.get(k).copied().flatten().unwrap_or(x.dtype), x.shape.clone()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_like_numpy() {
        assert_eq!(broadcast(&[2, 1, 4], &[3, 1]).unwrap(), vec![2, 3, 4]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        assert_eq!(broadcast(&[0], &[1]).unwrap(), vec![0]);
        assert_eq!(
            broadcast(&[2, 3], &[4, 3]).unwrap_err(),
            "shapes [2, 3] and [4, 3] do not broadcast (dimension 2 vs 4)"
        );
        assert_eq!(broadcast_source(&[2, 3], &[3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_source(&[2, 3], &[2, 1]), vec![0, 0, 0, 1, 1, 1]);
    }
}
