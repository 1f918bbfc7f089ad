//! Shape rules of matrix products: MatMul, Gemm, Einsum, Det.
//! Uses: node, elementwise (broadcast); used by: infer.
//!
//! Matrix products: `MatMul` (numpy semantics: 1-D operands promoted, batch dimensions
//! broadcast), `MatMulInteger`, `QLinearMatMul`, `Gemm` (`transA`, `transB`) and
//! `Einsum` (explicit and implicit output, `...`).

use std::collections::BTreeMap;

use super::elementwise::broadcast;
use super::node::{Info, Node, R};

/// The shape of `a @ b` in numpy's rules.
///
/// # Errors
/// Scalars, mismatched inner dimensions, or batch dimensions that do not broadcast.
pub fn matmul_shape(a: &[u64], b: &[u64]) -> R<Vec<u64>> {
    if a.is_empty() || b.is_empty() {
        return Err("MatMul of a scalar".into());
    }
    let (a2, drop_row) = if a.len() == 1 { (vec![1, a[0]], true) } else { (a.to_vec(), false) };
    let (b2, drop_col) = if b.len() == 1 { (vec![b[0], 1], true) } else { (b.to_vec(), false) };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, nn) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k != k2 {
        return Err(format!("inner dimensions differ: {a:?} @ {b:?}"));
    }
    let mut shape = broadcast(&a2[..a2.len() - 2], &b2[..b2.len() - 2])?;
    if !drop_row {
        shape.push(m);
    }
    if !drop_col {
        shape.push(nn);
    }
    Ok(shape)
}

/// `MatMul` family: operands at `a_at`, `b_at`; `out_type` overrides A's type.
pub fn matmul(n: &Node, a_at: usize, b_at: usize, out_type: Option<i32>) -> R<Vec<Info>> {
    let a = n.input(a_at)?;
    let shape = matmul_shape(&a.shape, n.shape(b_at)?)?;
    Ok(vec![Info::new(out_type.unwrap_or(a.dtype), shape)])
}

/// `Gemm(A, B, C)`: `[M, N]` with `transA`, `transB`.
pub fn gemm(n: &Node) -> R<Vec<Info>> {
    let a = n.input(0)?;
    let b = n.shape(1)?;
    let (&[a0, a1], &[b0, b1]) = (a.shape.as_slice(), b) else {
        return Err(format!("operands {:?} and {b:?} are not matrices", a.shape));
    };
    let (m, k) = if n.int("transA", 0) != 0 { (a1, a0) } else { (a0, a1) };
    let (k2, nn) = if n.int("transB", 0) != 0 { (b1, b0) } else { (b0, b1) };
    if k != k2 {
        return Err(format!("inner dimensions differ: {:?} and {b:?} (transA/transB applied)", a.shape));
    }
    Ok(vec![Info::new(a.dtype, vec![m, nn])])
}

/// `Det`: the input without its two matrix dimensions.
pub fn det(n: &Node) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let r = x.shape.len().checked_sub(2).ok_or("input 0 has rank < 2")?;
    Ok(vec![Info::new(x.dtype, x.shape[..r].to_vec())])
}

/// `Einsum(equation)`.
pub fn einsum(n: &Node) -> R<Vec<Info>> {
    let eq: String = n
        .string("equation")
        .ok_or("attribute `equation` is missing")?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_owned(), Some(r.to_owned())),
        None => (eq.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    let inputs: Vec<&Info> = n.inputs.iter().flatten().copied().collect();
    if terms.len() != inputs.len() {
        return Err(format!("equation `{eq}` has {} operands, the node {}", terms.len(), inputs.len()));
    }
    let mut dims: BTreeMap<char, u64> = BTreeMap::new();
    let mut count: BTreeMap<char, usize> = BTreeMap::new();
    let mut ellipsis: Vec<u64> = Vec::new();
    for (term, x) in terms.iter().zip(&inputs) {
        let letters: Vec<char> = term.replace("...", ".").chars().collect();
        let named = letters.iter().filter(|&&c| c != '.').count();
        let extra = x
            .shape
            .len()
            .checked_sub(named)
            .ok_or_else(|| format!("term `{term}` has more letters than {:?} has dimensions", x.shape))?;
        let mut at = 0;
        for c in letters {
            if c == '.' {
                ellipsis = broadcast(&ellipsis, &x.shape[at..at + extra])?;
                at += extra;
                continue;
            }
            let d = x.shape[at];
            at += 1;
            *count.entry(c).or_insert(0) += 1;
            match dims.get(&c) {
                Some(&e) if e != d && e != 1 && d != 1 => return Err(format!("`{c}` is {e} and {d}")),
                Some(&e) if e != 1 => {}
                _ => {
                    dims.insert(c, d);
                }
            }
        }
    }
    let out: String = match rhs {
        Some(r) => r,
        None => {
            let once: String = count.iter().filter(|(_, &k)| k == 1).map(|(&c, _)| c).collect();
            if lhs.contains("...") {
                format!("...{once}")
            } else {
                once
            }
        }
    };
    let mut shape = Vec::new();
    for c in out.replace("...", ".").chars() {
        if c == '.' {
            shape.extend_from_slice(&ellipsis);
        } else {
            shape.push(*dims.get(&c).ok_or_else(|| format!("output letter `{c}` is not an input letter"))?);
        }
    }
    Ok(vec![Info::new(inputs[0].dtype, shape)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_promotes_and_broadcasts() {
        assert_eq!(matmul_shape(&[2, 3, 4], &[4, 5]).unwrap(), vec![2, 3, 5]);
        assert_eq!(matmul_shape(&[4], &[2, 4, 5]).unwrap(), vec![2, 5]);
        assert_eq!(matmul_shape(&[3, 4], &[4]).unwrap(), vec![3]);
        assert_eq!(matmul_shape(&[1, 3, 4], &[7, 4, 2]).unwrap(), vec![7, 3, 2]);
        assert!(matmul_shape(&[3, 4], &[5, 2]).is_err());
    }
}
