//! Shape rules of the quantisation ops.
//! Uses: node, dtype; used by: infer.
//!
//! Quantisation ops keep the input's shape and change its type: `QuantizeLinear` (the zero
//! point's type, or `output_dtype`, default `UINT8`), `DequantizeLinear` (the scale's type, or
//! `output_dtype`), `DynamicQuantizeLinear` (`UINT8` data, scalar `FLOAT` scale and `UINT8`
//! zero point).

use super::super::dtype;
use super::node::{Info, Node, R};

/// `QuantizeLinear(x, y_scale, y_zero_point)` (`typed_by` 2, default `UINT8`) and
/// `DequantizeLinear(x, x_scale, x_zero_point)` (`typed_by` 1, default `FLOAT`): input 0's
/// shape, typed by attribute `output_dtype` when set, else by input `typed_by`.
pub fn quantize(n: &Node, typed_by: usize, default: i32) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let t = match n.int("output_dtype", 0) as i32 {
        0 => n.opt(typed_by).map_or(default, |z| z.dtype),
        t => t,
    };
    Ok(vec![Info::new(t, x.shape.clone())])
}

/// `DynamicQuantizeLinear(x)`.
pub fn dynamic_quantize(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    Ok(vec![
        Info::new(dtype::UINT8, x.shape.clone()),
        Info::new(dtype::FLOAT, vec![]),
        Info::new(dtype::UINT8, vec![]),
    ])
}
