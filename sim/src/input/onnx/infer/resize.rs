//! Shape rules of Resize and Upsample.
//! Uses: node; used by: infer.
//!
//! `Resize` (opset 10: `scales`; 11+: `roi`, `scales`, `sizes`; 18+: `axes`,
//! `keep_aspect_ratio_policy`) and `Upsample` (`scales` attribute before opset 9, input after).
//! A scaled dimension is `floor(d × scale)` computed in `f32`, as ONNX's shape inference does.

use super::node::{dim, norm_axis, Info, Node, R};

/// `floor(d × scale)` in single precision.
fn scaled(d: u64, scale: f64) -> R<u64> {
    let v = (d as f32 * scale as f32).floor();
    if v.is_finite() && v >= 0.0 {
        Ok(v as u64)
    } else {
        Err(format!("scale {scale} of dimension {d} gives {v}"))
    }
}

/// `Upsample`.
pub fn upsample(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let scales = n.moved_required("scales", 1, 9)?.as_floats();
    if scales.len() != x.shape.len() {
        return Err(format!("{} scales for rank {}", scales.len(), x.shape.len()));
    }
    let shape = x.shape.iter().zip(&scales).map(|(&d, &s)| scaled(d, s)).collect::<R<_>>()?;
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `Resize`.
pub fn resize(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len();
    let (scales_at, sizes_at) = if n.opset < 11 { (1, usize::MAX) } else { (2, 3) };
    let axes: Vec<usize> = match n.ints("axes") {
        Some(a) if n.opset >= 18 && !a.is_empty() => a.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?,
        _ => (0..r).collect(),
    };
    let mut shape = x.shape.clone();
    let sizes = if sizes_at == usize::MAX { None } else { n.opt_ints(sizes_at)?.filter(|s| !s.is_empty()) };
    if let Some(sizes) = sizes {
        if sizes.len() != axes.len() {
            return Err(format!("{} sizes for {} axes", sizes.len(), axes.len()));
        }
        let policy = n.string("keep_aspect_ratio_policy").unwrap_or_else(|| "stretch".into());
        let ratios: Vec<f64> = axes.iter().zip(&sizes).map(|(&a, &s)| s as f64 / x.shape[a] as f64).collect();
        let keep = match policy.as_str() {
            "not_larger" => Some(ratios.iter().copied().fold(f64::INFINITY, f64::min)),
            "not_smaller" => Some(ratios.iter().copied().fold(0.0, f64::max)),
            _ => None,
        };
        for (k, &a) in axes.iter().enumerate() {
            shape[a] = match keep {
                Some(scale) => (scale * x.shape[a] as f64 + 0.5).floor() as u64,
                None => dim(sizes[k], "sizes element")?,
            };
        }
    } else {
        let scales = n.value(scales_at)?.as_floats();
        if scales.len() != axes.len() {
            return Err(format!("{} scales for {} axes (and no sizes)", scales.len(), axes.len()));
        }
        for (k, &a) in axes.iter().enumerate() {
            shape[a] = scaled(x.shape[a], scales[k])?;
        }
    }
    Ok(vec![Info::new(x.dtype, shape)])
}
