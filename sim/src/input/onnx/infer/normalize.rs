//! Shape rules of BatchNormalization and LayerNormalization.
//! Uses: node, dtype; used by: infer.
//!
//! Normalisations whose extra outputs have their own shapes: `BatchNormalization` (training
//! outputs: running mean and variance `[C]`) and `LayerNormalization` (`Mean`, `InvStdDev`:
//! the input's leading dimensions up to `axis`, then 1s). The others keep the input's shape
//! and are element-wise rules.

use super::super::dtype;
use super::node::{Info, Node, R};

/// `BatchNormalization`: `Y` like `X`; outputs 1 and 2 (and the older 3 and 4) are `[C]`.
pub fn batch_norm(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let c = *x.shape.get(1).unwrap_or(&1);
    let mut out = vec![Info::new(x.dtype, x.shape.clone())];
    out.extend((1..n.outputs()).map(|_| Info::new(x.dtype, vec![c])));
    Ok(out)
}

/// `LayerNormalization(axis = -1, stash_type = FLOAT)`.
pub fn layer_norm(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let axis = n.axis("axis", -1, r)?;
    let stats: Vec<u64> = (0..r).map(|i| if i < axis { x.shape[i] } else { 1 }).collect();
    let stash = n.int("stash_type", i64::from(dtype::FLOAT)) as i32;
    Ok(vec![Info::new(x.dtype, x.shape.clone()), Info::new(stash, stats.clone()), Info::new(stash, stats)])
}
