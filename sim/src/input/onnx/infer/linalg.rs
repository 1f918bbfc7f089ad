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

/// One term of an Einsum equation: its letters in order, and the place of its ellipsis (`...`,
/// at most one) among them.
///
/// # Errors
/// A character that is neither an ASCII letter nor part of `...`, or a second ellipsis (a
/// trial's `....->` panicked the importer before).
fn einsum_term(term: &str, what: &str) -> R<(Vec<char>, Option<usize>)> {
    let (mut letters, mut ellipsis, mut rest) = (Vec::new(), None, term);
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if ellipsis.is_some() {
                return Err(format!("{what} `{term}` has two ellipses (`...`)"));
            }
            ellipsis = Some(letters.len());
            rest = after;
        } else if c.is_ascii_alphabetic() {
            letters.push(c);
            rest = &rest[1..];
        } else {
            return Err(format!("{what} `{term}`: `{c}` is neither a letter nor part of an ellipsis `...`"));
        }
    }
    Ok((letters, ellipsis))
}

/// `Einsum(equation)`: each operand's term names every dimension of it (its rank letters, or
/// fewer and one `...` for the rest, broadcast across operands); the output's letters are
/// distinct input letters.
///
/// # Errors
/// A malformed term ([`einsum_term`]), a term whose letters do not match its operand's rank,
/// a letter given two sizes (neither 1), an output letter repeated or not among the inputs'.
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
    let mut any_ellipsis = false;
    for (k, (term, x)) in terms.iter().zip(&inputs).enumerate() {
        let (letters, at) = einsum_term(term, &format!("operand {k}'s term"))?;
        let rank = x.shape.len();
        let fits = if at.is_some() { letters.len() <= rank } else { letters.len() == rank };
        if !fits {
            return Err(format!(
                "operand {k}'s term `{term}` names {} dimensions, its shape {:?} has {rank}",
                letters.len(),
                x.shape
            ));
        }
        // the ellipsis stands for the dimensions the letters leave
        let extra = rank - letters.len();
        let mut shape = x.shape.iter().copied();
        for (j, &c) in letters.iter().enumerate() {
            if at == Some(j) {
                let skipped: Vec<u64> = shape.by_ref().take(extra).collect();
                ellipsis = broadcast(&ellipsis, &skipped)?;
            }
            let d = shape.next().unwrap_or(1);
            *count.entry(c).or_insert(0) += 1;
            match dims.get(&c) {
                Some(&e) if e != d && e != 1 && d != 1 => return Err(format!("`{c}` is {e} and {d}")),
                Some(&e) if e != 1 => {}
                _ => {
                    dims.insert(c, d);
                }
            }
        }
        if at == Some(letters.len()) {
            ellipsis = broadcast(&ellipsis, &shape.collect::<Vec<u64>>())?;
        }
        any_ellipsis |= at.is_some();
    }
    let out: String = match rhs {
        Some(r) => r,
        None => {
            let once: String = count.iter().filter(|(_, &k)| k == 1).map(|(&c, _)| c).collect();
            if any_ellipsis {
                format!("...{once}")
            } else {
                once
            }
        }
    };
    let (letters, at) = einsum_term(&out, "the output")?;
    let mut shape = Vec::new();
    for (j, &c) in letters.iter().enumerate() {
        if at == Some(j) {
            shape.extend_from_slice(&ellipsis);
        }
        if letters[..j].contains(&c) {
            return Err(format!("output `{out}` names `{c}` twice"));
        }
        shape.push(*dims.get(&c).ok_or_else(|| format!("output letter `{c}` is not an input letter"))?);
    }
    if at == Some(letters.len()) {
        shape.extend_from_slice(&ellipsis);
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
