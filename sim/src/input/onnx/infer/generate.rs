//! Shape rules of ops that make tensors: Constant, ConstantOfShape, Range, random.
//! Uses: node, dtype, value; used by: infer.
//!
//! Ops that make tensors: `Constant`, `ConstantOfShape`, `Range`, `EyeLike`, and the random
//! generators (`RandomNormal`, `RandomUniform`, their `*Like` forms, `Bernoulli`,
//! `Multinomial`). `Constant`, small `ConstantOfShape` and `Range` outputs get values.

use super::super::dtype;
use super::super::value::{self, Data, Value};
use super::node::{dim, Info, Node, R};

/// `Constant`: `value` (tensor), `value_float(s)`, `value_int(s)`, `value_string(s)`,
/// `sparse_value` (its dense shape).
pub fn constant(n: &Node) -> R<Vec<Info>> {
    if let Some(t) = n.tensor("value") {
        let shape: Vec<u64> = t.dims.iter().map(|&d| dim(d, "a dimension of `value`")).collect::<R<_>>()?;
        let dt = t.data_type.unwrap_or(0);
        return Ok(vec![match value::from_proto(t, &shape) {
            Some(v) => Info { dtype: dt, shape, value: Some(v) },
            None => Info::new(dt, shape),
        }]);
    }
    if let Some(a) = n.attr("value_float").and_then(|a| a.f) {
        return Ok(vec![Info::of(Value {
            dtype: dtype::FLOAT,
            shape: vec![],
            data: Data::Float(vec![f64::from(a)]),
        })]);
    }
    if let Some(a) = n.attr("value_int").and_then(|a| a.i) {
        return Ok(vec![Info::of(Value { dtype: dtype::INT64, shape: vec![], data: Data::Int(vec![a]) })]);
    }
    if let Some(v) = n.floats("value_floats") {
        return Ok(vec![Info::of(Value {
            dtype: dtype::FLOAT,
            shape: vec![v.len() as u64],
            data: Data::Float(v),
        })]);
    }
    if let Some(v) = n.ints("value_ints") {
        return Ok(vec![Info::of(Value::ints(v))]);
    }
    if n.attr("value_string").is_some() {
        return Ok(vec![Info::new(8, vec![])]);
    }
    if let Some(a) = n.attr("value_strings") {
        return Ok(vec![Info::new(8, vec![a.strings.len() as u64])]);
    }
    if let Some(s) = n.attr("sparse_value").and_then(|a| a.sparse_tensor.as_ref()) {
        let shape = s.dims.iter().map(|&d| dim(d, "a dimension of `sparse_value`")).collect::<R<_>>()?;
        let dt = s.values.as_ref().and_then(|v| v.data_type).unwrap_or(dtype::FLOAT);
        return Ok(vec![Info::new(dt, shape)]);
    }
    Err("no value attribute".into())
}

/// A shape from the integer value of input `i`.
fn shape_input(n: &Node, i: usize) -> R<Vec<u64>> {
    n.value(i)?.as_ints().iter().map(|&d| dim(d, "shape element")).collect()
}

/// `ConstantOfShape(shape; value = float 0)`.
pub fn constant_of_shape(n: &Node) -> R<Vec<Info>> {
    let shape = shape_input(n, 0)?;
    let (dt, fill) = match n.tensor("value") {
        Some(t) => (t.data_type.unwrap_or(dtype::FLOAT), value::from_proto(t, &[1]).map(|v| v.data.f(0))),
        None => (dtype::FLOAT, Some(0.0)),
    };
    let out = Info::new(dt, shape);
    let data = match (fill, value::elements(&out.shape)) {
        (Some(f), Some(count)) if value::small(&out.shape) => Some(Data::Float(vec![f; count as usize])),
        _ => None,
    };
    Ok(vec![out.with(data)])
}

/// `Range(start, limit, delta)`: `max(ceil((limit − start) / delta), 0)` elements.
pub fn range(n: &Node) -> R<Vec<Info>> {
    let start = n.value(0)?;
    let (s, l, d) = (start.data.f(0), n.value(1)?.data.f(0), n.value(2)?.data.f(0));
    if d == 0.0 {
        return Err("delta is 0".into());
    }
    let len = ((l - s) / d).ceil().max(0.0);
    if len > value::MAX_VALUE_ELEMENTS as f64 * 1024.0 {
        return Err(format!("range of {len} elements"));
    }
    let len = len as u64;
    let out = Info::new(start.dtype, vec![len]);
    let data = value::small(&out.shape).then(|| Data::Float((0..len).map(|k| s + k as f64 * d).collect()));
    Ok(vec![out.with(data)])
}

/// `EyeLike`, `RandomNormalLike`, `RandomUniformLike`, `Bernoulli`: input 0's shape, type
/// `dtype` when given.
pub fn like(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let t = n.attr("dtype").and_then(|a| a.i).map_or(x.dtype, |t| t as i32);
    Ok(vec![Info::new(t, x.shape.clone())])
}

/// `RandomNormal`, `RandomUniform`: attribute `shape`, type `dtype` (default `FLOAT`).
pub fn random(n: &Node) -> R<Vec<Info>> {
    let shape = n.ints("shape").ok_or("attribute `shape` is missing")?;
    let shape = shape.iter().map(|&d| dim(d, "attribute `shape`")).collect::<R<_>>()?;
    Ok(vec![Info::new(n.int("dtype", i64::from(dtype::FLOAT)) as i32, shape)])
}

/// `Multinomial(input [batch, classes]; sample_size = 1, dtype = INT32)`.
pub fn multinomial(n: &Node) -> R<Vec<Info>> {
    let batch = *n.shape(0)?.first().ok_or("input 0 is a scalar")?;
    let samples = dim(n.int("sample_size", 1), "attribute `sample_size`")?;
    Ok(vec![Info::new(n.int("dtype", i64::from(dtype::INT32)) as i32, vec![batch, samples])])
}
