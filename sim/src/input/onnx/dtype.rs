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

/// The name and bit width of an ONNX element type; `None` bits for types without a fixed
/// size (`STRING`) and `None` altogether for codes this table does not know (including 0,
/// `UNDEFINED`).
#[must_use]
pub fn describe(code: i32) -> Option<(&'static str, Option<u32>)> {
    Some(match code {
        1 => ("FLOAT", Some(32)),
        2 => ("UINT8", Some(8)),
        3 => ("INT8", Some(8)),
        4 => ("UINT16", Some(16)),
        5 => ("INT16", Some(16)),
        6 => ("INT32", Some(32)),
        7 => ("INT64", Some(64)),
        8 => ("STRING", None),
        9 => ("BOOL", Some(8)),
        10 => ("FLOAT16", Some(16)),
        11 => ("DOUBLE", Some(64)),
        12 => ("UINT32", Some(32)),
        13 => ("UINT64", Some(64)),
        14 => ("COMPLEX64", Some(64)),
        15 => ("COMPLEX128", Some(128)),
        16 => ("BFLOAT16", Some(16)),
        17 => ("FLOAT8E4M3FN", Some(8)),
        18 => ("FLOAT8E4M3FNUZ", Some(8)),
        19 => ("FLOAT8E5M2", Some(8)),
        20 => ("FLOAT8E5M2FNUZ", Some(8)),
        21 => ("UINT4", Some(4)),
        22 => ("INT4", Some(4)),
        23 => ("FLOAT4E2M1", Some(4)),
        24 => ("FLOAT8E8M0", Some(8)),
        25 => ("UINT2", Some(2)),
        26 => ("INT2", Some(2)),
        _ => return None,
    })
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
