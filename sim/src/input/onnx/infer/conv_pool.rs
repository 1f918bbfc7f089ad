//! Shape rules of convolutions and pooling.
//! Uses: node, dtype; used by: infer.
//!
//! Convolutions and pooling on `[N, C, D1, D2, ...]`: `Conv` (and `ConvInteger`,
//! `QLinearConv`, `DeformConv`), `ConvTranspose`, `MaxPool`/`AveragePool`/`LpPool`, the global
//! pools, `MaxUnpool`, `RoiAlign`, `MaxRoiPool`, `GridSample`. The window arithmetic is ONNX's
//! (`auto_pad`, `pads = [begins..., ends...]`, `strides`, `dilations`, `ceil_mode`).

use super::super::dtype;
use super::node::{dim, Info, Node, R};

/// One spatial output size of a sliding window over `input` (padding already known).
fn window(
    input: u64,
    kernel: u64,
    stride: u64,
    dilation: u64,
    pads: (u64, u64),
    auto_pad: &str,
    ceil: bool,
) -> R<u64> {
    if stride == 0 || kernel == 0 || dilation == 0 {
        return Err(format!("kernel {kernel}, stride {stride} and dilation {dilation} must be positive"));
    }
    let eff_k = (kernel - 1).saturating_mul(dilation).saturating_add(1);
    match auto_pad {
        "SAME_UPPER" | "SAME_LOWER" => Ok(input.div_ceil(stride)),
        "VALID" => {
            let span = input
                .checked_sub(eff_k)
                .ok_or_else(|| format!("window {eff_k} is larger than input {input}"))?;
            Ok(span / stride + 1)
        }
        _ => {
            let padded = input.saturating_add(pads.0).saturating_add(pads.1);
            let span = padded
                .checked_sub(eff_k)
                .ok_or_else(|| format!("window {eff_k} is larger than padded input {padded}"))?;
            let mut steps = if ceil { span.div_ceil(stride) } else { span / stride };
            // With ceil_mode, a last window that would start in the end padding is dropped.
            if ceil && steps.saturating_mul(stride) >= input.saturating_add(pads.0) {
                steps -= 1;
            }
            Ok(steps + 1)
        }
    }
}

/// The window attributes of a node for `spatial` dimensions.
struct Windows {
    kernel: Vec<u64>,
    strides: Vec<u64>,
    dilations: Vec<u64>,
    pads: Vec<u64>,
    auto_pad: String,
}

impl Windows {
    fn read(n: &Node, spatial: usize, kernel: Option<Vec<u64>>) -> R<Windows> {
        let list = |name: &str, default: u64| -> R<Vec<u64>> {
            match n.ints(name) {
                Some(v) if !v.is_empty() => {
                    v.iter().map(|&d| dim(d, &format!("attribute `{name}`"))).collect()
                }
                _ => Ok(vec![default; spatial]),
            }
        };
        let kernel = match n.ints("kernel_shape") {
            Some(k) if !k.is_empty() => {
                k.iter().map(|&d| dim(d, "attribute `kernel_shape`")).collect::<R<_>>()?
            }
            _ => kernel.ok_or("attribute `kernel_shape` is missing")?,
        };
        let w = Windows {
            kernel,
            strides: list("strides", 1)?,
            dilations: list("dilations", 1)?,
            pads: match n.ints("pads") {
                Some(v) if !v.is_empty() => {
                    v.iter().map(|&d| dim(d, "attribute `pads`")).collect::<R<_>>()?
                }
                _ => vec![0; 2 * spatial],
            },
            auto_pad: n.string("auto_pad").unwrap_or_else(|| "NOTSET".into()),
        };
        if w.kernel.len() != spatial
            || w.strides.len() != spatial
            || w.dilations.len() != spatial
            || w.pads.len() != 2 * spatial
        {
            return Err(format!(
                "kernel_shape {:?}, strides {:?}, dilations {:?}, pads {:?} do not fit {spatial} spatial dimensions",
                w.kernel, w.strides, w.dilations, w.pads
            ));
        }
        Ok(w)
    }

    fn out(&self, input: &[u64], ceil: bool) -> R<Vec<u64>> {
        (0..input.len())
            .map(|i| {
                let pads = (self.pads[i], self.pads[i + input.len()]);
                window(
                    input[i],
                    self.kernel[i],
                    self.strides[i],
                    self.dilations[i],
                    pads,
                    &self.auto_pad,
                    ceil,
                )
            })
            .collect()
    }
}

/// Splits `[N, C, spatial...]`.
fn nc(shape: &[u64], what: &str) -> R<(u64, u64, Vec<u64>)> {
    match shape {
        [n, c, rest @ ..] => Ok((*n, *c, rest.to_vec())),
        _ => Err(format!("{what} has rank {}, expected at least 2 ([N, C, ...])", shape.len())),
    }
}

/// `Conv` family: input `x_at`, weight `w_at` (`[M, C/group, k...]`); `out_type` overrides
/// the input's type (`ConvInteger`: `INT32`; `QLinearConv`: the output zero point's).
pub fn conv(n: &Node, x_at: usize, w_at: usize, out_type: Option<i32>) -> R<Vec<Info>> {
    let x = n.input(x_at)?;
    let w = n.shape(w_at)?;
    let (batch, _, spatial) = nc(&x.shape, "input 0")?;
    let m = *w.first().ok_or("the weight is a scalar")?;
    let win = Windows::read(n, spatial.len(), Some(w.get(2..).unwrap_or_default().to_vec()))?;
    let mut shape = vec![batch, m];
    shape.extend(win.out(&spatial, false)?);
    Ok(vec![Info::new(out_type.unwrap_or(x.dtype), shape)])
}

/// `ConvTranspose`: `output_shape` when given, else
/// `stride·(in−1) + output_padding + (k−1)·dilation + 1 − pads`; channels `W[1]·group`.
pub fn conv_transpose(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let w = n.shape(1)?;
    let (batch, _, spatial) = nc(&x.shape, "input 0")?;
    let s = spatial.len();
    let group = dim(n.int("group", 1), "attribute `group`")?;
    let m = w.get(1).ok_or("the weight has rank < 2")?.checked_mul(group).ok_or("W[1] × group overflows")?;
    let win = Windows::read(n, s, Some(w.get(2..).unwrap_or_default().to_vec()))?;
    let out_pad = match n.ints("output_padding") {
        Some(v) if !v.is_empty() => {
            v.iter().map(|&d| dim(d, "attribute `output_padding`")).collect::<R<Vec<_>>>()?
        }
        _ => vec![0; s],
    };
    let mut shape = vec![batch, m];
    match n.ints("output_shape") {
        Some(o) if !o.is_empty() => {
            let o = &o[o.len().saturating_sub(s)..];
            shape.extend(o.iter().map(|&d| dim(d, "attribute `output_shape`")).collect::<R<Vec<_>>>()?);
        }
        _ => {
            for (i, &d_in) in spatial.iter().enumerate() {
                let full = win.strides[i]
                    .saturating_mul(d_in.saturating_sub(1))
                    .saturating_add(out_pad.get(i).copied().unwrap_or(0))
                    .saturating_add(win.kernel[i].saturating_sub(1).saturating_mul(win.dilations[i]))
                    .saturating_add(1);
                let d = match win.auto_pad.as_str() {
                    "SAME_UPPER" | "SAME_LOWER" => d_in.saturating_mul(win.strides[i]),
                    "VALID" => full,
                    _ => full
                        .checked_sub(win.pads[i].saturating_add(win.pads[i + s]))
                        .ok_or_else(|| format!("pads {:?} exceed output dimension {i}", win.pads))?,
                };
                shape.push(d);
            }
        }
    }
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `MaxPool` (and its `INT64` indices), `AveragePool`, `LpPool`.
pub fn pool(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let (batch, c, spatial) = nc(&x.shape, "input 0")?;
    let win = Windows::read(n, spatial.len(), None)?;
    let mut shape = vec![batch, c];
    shape.extend(win.out(&spatial, n.int("ceil_mode", 0) != 0)?);
    Ok(vec![Info::new(x.dtype, shape.clone()), Info::new(dtype::INT64, shape)])
}

/// `GlobalAveragePool`, `GlobalMaxPool`, `GlobalLpPool`: `[N, C, 1, ...]`.
pub fn global_pool(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let (batch, c, spatial) = nc(&x.shape, "input 0")?;
    let mut shape = vec![batch, c];
    shape.extend(spatial.iter().map(|_| 1));
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `MaxUnpool`: `output_shape` (input 2) when given, else `(in−1)·stride + k − pads`.
pub fn max_unpool(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    if let Some(o) = n.opt_ints(2)? {
        let shape = o.iter().map(|&d| dim(d, "output_shape")).collect::<R<_>>()?;
        return Ok(vec![Info::new(x.dtype, shape)]);
    }
    let (batch, c, spatial) = nc(&x.shape, "input 0")?;
    let s = spatial.len();
    let win = Windows::read(n, s, None)?;
    let mut shape = vec![batch, c];
    for (i, &d_in) in spatial.iter().enumerate() {
        let full = d_in.saturating_sub(1).saturating_mul(win.strides[i]).saturating_add(win.kernel[i]);
        shape.push(
            full.checked_sub(win.pads[i].saturating_add(win.pads[i + s])).ok_or("pads exceed the output")?,
        );
    }
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `RoiAlign` (`[rois, C, output_height, output_width]`) and `MaxRoiPool`
/// (`[rois, C, pooled_shape...]`).
pub fn roi(n: &Node, max_pool: bool) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let rois = *n.shape(1)?.first().ok_or("rois are a scalar")?;
    let (_, c, _) = nc(&x.shape, "input 0")?;
    let mut shape = vec![rois, c];
    if max_pool {
        let p = n.ints("pooled_shape").ok_or("attribute `pooled_shape` is missing")?;
        shape.extend(p.iter().map(|&d| dim(d, "attribute `pooled_shape`")).collect::<R<Vec<_>>>()?);
    } else {
        shape.push(dim(n.int("output_height", 1), "attribute `output_height`")?);
        shape.push(dim(n.int("output_width", 1), "attribute `output_width`")?);
    }
    Ok(vec![Info::new(x.dtype, shape)])
}

/// `GridSample(X [N, C, ...], grid [N, D_out..., r])`: `[N, C, D_out...]`.
pub fn grid_sample(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let grid = n.shape(1)?;
    let (batch, c, _) = nc(&x.shape, "input 0")?;
    if grid.len() < 2 {
        return Err(format!("grid has rank {}", grid.len()));
    }
    let mut shape = vec![batch, c];
    shape.extend_from_slice(&grid[1..grid.len() - 1]);
    Ok(vec![Info::new(x.dtype, shape)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_onnx() {
        // 224 input, 7x7 kernel, stride 2, pad 3: 112.
        assert_eq!(window(224, 7, 2, 1, (3, 3), "NOTSET", false).unwrap(), 112);
        // 112, 3x3 max pool, stride 2, pad 1: 56.
        assert_eq!(window(112, 3, 2, 1, (1, 1), "NOTSET", false).unwrap(), 56);
        // ceil_mode: 55 -> 27 with floor, 27 with ceil (3x3 stride 2, no pad).
        assert_eq!(window(55, 3, 2, 1, (0, 0), "NOTSET", true).unwrap(), 27);
        assert_eq!(window(56, 3, 2, 1, (0, 0), "NOTSET", false).unwrap(), 27);
        // a dilation of 0 (a trial's Conv was sized as if its window were one element)
        assert_eq!(
            window(8, 3, 1, 0, (0, 0), "NOTSET", false).unwrap_err(),
            "kernel 3, stride 1 and dilation 0 must be positive"
        );
        assert_eq!(window(56, 3, 2, 1, (0, 0), "NOTSET", true).unwrap(), 28);
        assert_eq!(window(5, 2, 2, 1, (1, 1), "NOTSET", true).unwrap(), 3);
        assert_eq!(window(5, 3, 2, 1, (0, 0), "SAME_UPPER", false).unwrap(), 3);
        assert_eq!(window(5, 3, 2, 2, (0, 0), "VALID", false).unwrap(), 1);
        assert!(window(2, 5, 1, 1, (0, 0), "NOTSET", false).is_err());
    }
}
