//! Shape rules of the quantisation ops.
//! Uses: node, dtype; used by: infer.
//!
//! Quantisation ops keep the input's shape and change its type: `QuantizeLinear` (the zero
//! point's type, or `output_dtype`, default `UINT8`), `DequantizeLinear` (the scale's type, or
//! `output_dtype`), `DynamicQuantizeLinear` (`UINT8` data, scalar `FLOAT` scale and `UINT8`
//! zero point).

use super::super::dtype;
use super::node::{Info, Node, R};

/// `QuantizeLinear(x, y_scale, y_zero_point)`.
pub fn quantize(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let t = match n.int("output_dtype", 0) as i32 {
        0 => n.opt(2).map_or(dtype::UINT8, |z| z.dtype),
        t => t,
    };
    Ok(vec![Info::new(t, x.shape.clone())])
}

/// `DequantizeLinear(x, x_scale, x_zero_point)`.
pub fn dequantize(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let t = match n.int("output_dtype", 0) as i32 {
        0 => n.opt(1).map_or(dtype::FLOAT, |s| s.dtype),
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
