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
/// // more elements than u64 counts, in fewer bytes than it does
/// assert_eq!(byte_size(&[i64::MAX, 3], 4), Ok(13_835_058_055_282_163_711));
/// assert!(byte_size(&[i64::MAX, 3], 8).is_err());
/// assert_eq!(byte_size(&[i64::MAX, i64::MAX, i64::MAX, 0], 8), Ok(0));
/// ```
pub fn byte_size(shape: &[i64], bits: u32) -> Result<u64, SizeProblem> {
    let bad = |why: &str| SizeProblem::BadShape(format!("shape {shape:?} {why}"));
    let dims: Vec<u64> = shape
        .iter()
        .map(|&d| u64::try_from(d).map_err(|_| bad("has a negative dimension")))
        .collect::<Result<_, _>>()?;
    if dims.contains(&0) {
        return Ok(0);
    }
    // the bytes, not the element count, must fit in u64: 2^64 4-bit values take 2^63 bytes (a
    // trial's INT4 [2^63 - 1, 3] was refused as overflowing u64 bytes)
    let overflow = || bad("overflows u64 bytes");
    let elements = dims.iter().try_fold(1u128, |e, &d| e.checked_mul(u128::from(d))).ok_or_else(overflow)?;
    let bits = elements.checked_mul(u128::from(bits)).ok_or_else(overflow)?;
    u64::try_from(bits.div_ceil(8)).map_err(|_| overflow())
}
