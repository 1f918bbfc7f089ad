//! Row-major multi-indices over the small shapes whose constants the rules evaluate.
//! Uses: value; used by: elementwise, layout, reduce, select.

use super::super::value;

/// `map(multi-index)` for every element of `shape`, in row-major order. O(elements × rank).
pub fn map_indices<T>(shape: &[u64], mut map: impl FnMut(&[u64]) -> T) -> Vec<T> {
    let total = value::elements(shape).unwrap_or(0) as usize;
    let mut idx = vec![0u64; shape.len()];
    let mut result = Vec::with_capacity(total);
    for _ in 0..total {
        result.push(map(&idx));
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    result
}

/// Row-major multi-index of flat position `flat` in `shape`.
#[must_use]
pub fn unravel(mut flat: usize, shape: &[u64]) -> Vec<usize> {
    let mut idx = vec![0usize; shape.len()];
    for d in (0..shape.len()).rev() {
        let s = shape[d].max(1) as usize;
        idx[d] = flat % s;
        flat /= s;
    }
    idx
}

/// Flat position of a multi-index in `shape`.
#[must_use]
pub fn ravel(idx: &[usize], shape: &[u64]) -> usize {
    idx.iter().zip(shape).fold(0usize, |acc, (&i, &d)| acc * d as usize + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_row_major() {
        assert_eq!(map_indices(&[2, 2], |i| (i[0], i[1])), vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(unravel(5, &[2, 3]), vec![1, 2]);
        assert_eq!(ravel(&[1, 2], &[2, 3]), 5);
        assert!(map_indices(&[3, 0], |_| 0).is_empty());
    }
}
