//! ONNX element types: names and bit widths.
//! Uses: import (SizeProblem); used by: onnx, infer, value.
//!
//! ONNX element types (`TensorProto.DataType`, onnx.proto of IR version 12): name and size.

use crate::input::import::SizeProblem;

/// `FLOAT` (float32), the default element type of `ConstantOfShape` and the random ops.
pub const FLOAT: i32 = 1;
/// `INT32`.
pub const INT32: i32 = 6;
/// `INT64`: shapes, indices and the outputs of `Shape`, `Size`, `ArgMax`, `NonZero`, ...
pub const INT64: i32 = 7;
/// `BOOL`: comparisons and logical ops.
pub const BOOL: i32 = 9;
/// `UINT8`.
pub const UINT8: i32 = 2;

/// Names of the element types with codes 1, 2, ... (`TensorProto.DataType`).
const NAMES: [&str; 26] = [
    "FLOAT",
    "UINT8",
    "INT8",
    "UINT16",
    "INT16",
    "INT32",
    "INT64",
    "STRING",
    "BOOL",
    "FLOAT16",
    "DOUBLE",
    "UINT32",
    "UINT64",
    "COMPLEX64",
    "COMPLEX128",
    "BFLOAT16",
    "FLOAT8E4M3FN",
    "FLOAT8E4M3FNUZ",
    "FLOAT8E5M2",
    "FLOAT8E5M2FNUZ",
    "UINT4",
    "INT4",
    "FLOAT4E2M1",
    "FLOAT8E8M0",
    "UINT2",
    "INT2",
];

/// Bits per element of the types in [`NAMES`]; 0 for `STRING` (no fixed size).
const BITS: [u32; 26] =
    [32, 8, 8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64, 64, 128, 16, 8, 8, 8, 8, 4, 4, 4, 8, 2, 2];

/// The name and bit width of an ONNX element type; `None` bits for types without a fixed
/// size (`STRING`) and `None` altogether for codes this table does not know (including 0,
/// `UNDEFINED`).
#[must_use]
pub fn describe(code: i32) -> Option<(&'static str, Option<u32>)> {
    let i = usize::try_from(code.checked_sub(1)?).ok()?;
    Some((*NAMES.get(i)?, Some(BITS[i]).filter(|&b| b > 0)))
}

/// The bit width of `code`, or why a tensor of that type has no byte size.
///
/// # Errors
/// [`SizeProblem::UnknownType`] for an unknown code, [`SizeProblem::UnsizedType`] for `STRING`.
pub fn bits(code: i32) -> Result<u32, SizeProblem> {
    match describe(code) {
        Some((_, Some(bits))) => Ok(bits),
        Some((name, None)) => Err(SizeProblem::UnsizedType(name)),
        None => Err(SizeProblem::UnknownType(i64::from(code))),
    }
}

/// Whether values of this type are integers (or booleans) that constant evaluation keeps
/// exactly as `i64`.
#[must_use]
pub fn is_integer(code: i32) -> bool {
    matches!(code, 2..=7 | 9 | 12 | 13 | 21 | 22 | 25 | 26)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_onnx_proto() {
        assert_eq!(describe(1), Some(("FLOAT", Some(32))));
        assert_eq!(describe(8), Some(("STRING", None)));
        assert_eq!(describe(16), Some(("BFLOAT16", Some(16))));
        assert_eq!(describe(22), Some(("INT4", Some(4))));
        assert_eq!(describe(26), Some(("INT2", Some(2))));
        assert_eq!((describe(0), describe(27), describe(-3)), (None, None, None));
    }
}
