//! Byte size of a tensor from its shape and element width.
//! Uses: graph (SizeProblem); used by: onnx, tflite.
//!
//! Byte size of a tensor: product of the shape × element size, a scalar counting as one
//! element, no padding or alignment (the public traces' rule). Sub-byte element types (4-bit
//! and 2-bit integers and floats) are packed, rounded up to whole bytes.

use super::graph::SizeProblem;

/// `ceil(product(shape) × bits / 8)` bytes.
///
/// # Errors
/// [`SizeProblem::BadShape`] for a negative dimension or a product that overflows `u64`.
///
/// ```
/// use dramalloc_sim::input::import::byte_size;
/// assert_eq!(byte_size(&[1, 3, 224, 224], 32), Ok(602_112));
/// assert_eq!(byte_size(&[], 64), Ok(8)); // a scalar is one element
/// assert_eq!(byte_size(&[3], 4), Ok(2)); // three 4-bit values take two bytes
/// assert!(byte_size(&[2, -1], 32).is_err());
/// ```
pub fn byte_size(shape: &[i64], bits: u32) -> Result<u64, SizeProblem> {
    let bad = |why: &str| SizeProblem::BadShape(format!("shape {shape:?} {why}"));
    let mut elements: u128 = 1;
    for &d in shape {
        let d = u64::try_from(d).map_err(|_| bad("has a negative dimension"))?;
        elements = elements.checked_mul(u128::from(d)).ok_or_else(|| bad("overflows u64 bytes"))?;
        if elements > u128::from(u64::MAX) {
            return Err(bad("overflows u64 bytes"));
        }
    }
    let bytes = (elements * u128::from(bits)).div_ceil(8);
    u64::try_from(bytes).map_err(|_| bad("overflows u64 bytes"))
}
