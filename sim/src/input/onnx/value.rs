//! Constant tensor values for shape inference (small integer and float tensors).
//! Uses: dtype, dramalloc-model-formats (TensorProto); used by: onnx, infer.
//!
//! Constant tensor values, as far as shape inference needs them: the small integer tensors of
//! `Shape -> Gather -> Concat -> Reshape` chains, `Slice` bounds, `Resize` scales, pads and
//! axes. Integers (and booleans) are kept exactly as `i64`, floats as `f64`.
//!
//! Only tensors of at most [`MAX_VALUE_ELEMENTS`] elements get a value; larger constants (the
//! weights) keep their shape only. Decoding follows onnx.proto: `raw_data` little-endian when
//! present, else the typed field of the element type.

use std::rc::Rc;

use dramalloc_model_formats::onnx::TensorProto;

use super::dtype;

/// Largest element count whose value is materialised.
pub const MAX_VALUE_ELEMENTS: u64 = 1 << 16;

/// Element storage of a [`Value`].
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Integer and boolean elements.
    Int(Vec<i64>),
    /// Floating-point elements.
    Float(Vec<f64>),
}

impl Data {
    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Data::Int(v) => v.len(),
            Data::Float(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as `f64`.
    #[must_use]
    pub fn f(&self, i: usize) -> f64 {
        match self {
            Data::Int(v) => v[i] as f64,
            Data::Float(v) => v[i],
        }
    }

    /// Element `i` as `i64` (floats truncated toward zero, saturating).
    #[must_use]
    pub fn i(&self, i: usize) -> i64 {
        match self {
            Data::Int(v) => v[i],
            Data::Float(v) => v[i] as i64,
        }
    }

    /// The elements at `indices`, in that order.
    #[must_use]
    pub fn pick(&self, indices: &[usize]) -> Data {
        match self {
            Data::Int(v) => Data::Int(indices.iter().map(|&i| v[i]).collect()),
            Data::Float(v) => Data::Float(indices.iter().map(|&i| v[i]).collect()),
        }
    }
}

/// A constant tensor: element type, shape and elements (row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// ONNX element type code.
    pub dtype: i32,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// `product(shape)` elements.
    pub data: Data,
}

impl Value {
    /// A value of `dtype` holding `data`, converted to the storage that `dtype` uses.
    #[must_use]
    pub fn new(dtype: i32, shape: Vec<u64>, data: Data) -> Value {
        let data = if dtype::is_integer(dtype) {
            match data {
                Data::Float(v) => Data::Int(v.into_iter().map(|x| x as i64).collect()),
                d => d,
            }
        } else {
            match data {
                Data::Int(v) => Data::Float(v.into_iter().map(|x| x as f64).collect()),
                d => d,
            }
        };
        let data = if dtype == dtype::BOOL {
            match data {
                Data::Int(v) => Data::Int(v.into_iter().map(|x| i64::from(x != 0)).collect()),
                d => d,
            }
        } else {
            data
        };
        Value { dtype, shape, data }
    }

    /// A one-dimensional `INT64` value.
    #[must_use]
    pub fn ints(v: Vec<i64>) -> Value {
        Value { dtype: dtype::INT64, shape: vec![v.len() as u64], data: Data::Int(v) }
    }

    /// The elements as integers.
    #[must_use]
    pub fn as_ints(&self) -> Vec<i64> {
        (0..self.data.len()).map(|i| self.data.i(i)).collect()
    }

    /// The elements as floats.
    #[must_use]
    pub fn as_floats(&self) -> Vec<f64> {
        (0..self.data.len()).map(|i| self.data.f(i)).collect()
    }
}

/// Element count of `shape`, if it fits `u64`.
#[must_use]
pub fn elements(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// Whether a tensor of `shape` is small enough to get a value.
#[must_use]
pub fn small(shape: &[u64]) -> bool {
    elements(shape).is_some_and(|n| n <= MAX_VALUE_ELEMENTS)
}

/// Converts an IEEE half-precision bit pattern to `f64`.
fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Decodes `raw` little-endian elements of `dtype`; `None` for types not decoded here or a
/// length that is not `count` elements.
fn decode_raw(dtype: i32, raw: &[u8], count: usize) -> Option<Data> {
    let width = match dtype {
        2 | 3 | 9 => 1,
        4 | 5 | 10 | 16 => 2,
        1 | 6 | 12 => 4,
        7 | 11 | 13 => 8,
        _ => return None,
    };
    if raw.len() != count.checked_mul(width)? {
        return None;
    }
    let chunks = raw.chunks_exact(width);
    let le = |c: &[u8]| -> u64 { c.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)) };
    Some(match dtype {
        1 => Data::Float(chunks.map(|c| f64::from(f32::from_bits(le(c) as u32))).collect()),
        11 => Data::Float(chunks.map(|c| f64::from_bits(le(c))).collect()),
        10 => Data::Float(chunks.map(|c| f16_to_f64(le(c) as u16)).collect()),
        16 => Data::Float(chunks.map(|c| f64::from(f32::from_bits((le(c) as u32) << 16))).collect()),
        2 | 9 => Data::Int(chunks.map(|c| le(c) as i64).collect()),
        3 => Data::Int(chunks.map(|c| i64::from(c[0] as i8)).collect()),
        4 => Data::Int(chunks.map(|c| le(c) as i64).collect()),
        5 => Data::Int(chunks.map(|c| i64::from(le(c) as u16 as i16)).collect()),
        6 => Data::Int(chunks.map(|c| i64::from(le(c) as u32 as i32)).collect()),
        12 => Data::Int(chunks.map(|c| le(c) as i64).collect()),
        _ => Data::Int(chunks.map(|c| le(c) as i64).collect()),
    })
}

/// Why the data stored in the file for tensor `t` (of shape `shape`) is not that shape's:
/// `raw_data` of another byte count, or a typed field (`float_data`, `int32_data`, ...) of
/// another element count, or no data at all for a shape with elements. `None` when it
/// agrees, when the data is external (`data_location` 1), and for types whose typed storage
/// packs elements (4- and 2-bit types), that have no fixed size (`STRING`, refused as such)
/// or that are unknown. A weight's size comes from its
/// shape, so a shape its data does not fill would be imported as bytes that are not in the
/// file (a trial's [1000, 1000] FLOAT with 16 bytes of data, which onnxruntime refuses).
#[must_use]
pub fn stored_mismatch(t: &TensorProto, shape: &[u64]) -> Option<String> {
    if t.data_location == Some(1) {
        return None;
    }
    let dtype = t.data_type.unwrap_or(0);
    let elements = shape.iter().try_fold(1u128, |n, &d| n.checked_mul(u128::from(d)))?;
    let (name, bits) = super::dtype::describe(dtype)?;
    let dims = format!("{shape:?}");
    if let Some(raw) = &t.raw_data {
        // (a shape past 2^128 bits is left to the byte-size check, which names it)
        let bytes = elements.checked_mul(u128::from(bits?))?.div_ceil(8);
        return (raw.len() as u128 != bytes).then(|| {
            format!(
                "its shape {dims} of {name} is {bytes} bytes, the file stores {} bytes of raw data",
                raw.len()
            )
        });
    }
    let stored = match dtype {
        1 => t.float_data.len(),
        11 => t.double_data.len(),
        7 => t.int64_data.len(),
        12 | 13 => t.uint64_data.len(),
        2..=6 | 9 | 10 | 16..=20 => t.int32_data.len(),
        14 => t.float_data.len() / 2,
        15 => t.double_data.len() / 2,
        _ => return None,
    } as u128;
    (stored != elements)
        .then(|| format!("its shape {dims} is {elements} {name} elements, the file stores {stored}"))
}

/// The value of an initializer or `Constant` tensor, when it is small, stored in the file
/// (not external) and of a decodable type; `None` otherwise (the shape is still known).
#[must_use]
pub fn from_proto(t: &TensorProto, shape: &[u64]) -> Option<Rc<Value>> {
    if !small(shape) || t.data_location == Some(1) {
        return None;
    }
    let dtype = t.data_type.unwrap_or(0);
    let count = elements(shape)? as usize;
    let data = if let Some(raw) = &t.raw_data {
        decode_raw(dtype, raw, count)?
    } else {
        match dtype {
            1 => Data::Float(t.float_data.iter().map(|&x| f64::from(x)).collect()),
            11 => Data::Float(t.double_data.clone()),
            7 => Data::Int(t.int64_data.clone()),
            12 | 13 => Data::Int(t.uint64_data.iter().map(|&x| x as i64).collect()),
            10 => Data::Float(t.int32_data.iter().map(|&x| f16_to_f64(x as u16)).collect()),
            16 => Data::Float(
                t.int32_data.iter().map(|&x| f64::from(f32::from_bits((x as u32) << 16))).collect(),
            ),
            2..=6 | 9 => Data::Int(t.int32_data.iter().map(|&x| i64::from(x)).collect()),
            _ => return None,
        }
    };
    (data.len() == count).then(|| Rc::new(Value::new(dtype, shape.to_vec(), data)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_raw_and_typed_fields() {
        let t = TensorProto {
            data_type: Some(7),
            raw_data: Some([2i64, -1].iter().flat_map(|v| v.to_le_bytes()).collect()),
            ..Default::default()
        };
        assert_eq!(from_proto(&t, &[2]).unwrap().as_ints(), vec![2, -1]);
        let t = TensorProto { data_type: Some(1), float_data: vec![0.5, 2.0], ..Default::default() };
        assert_eq!(from_proto(&t, &[2]).unwrap().as_floats(), vec![0.5, 2.0]);
        let t = TensorProto { data_type: Some(10), raw_data: Some(vec![0x00, 0x3c]), ..Default::default() };
        assert_eq!(from_proto(&t, &[]).unwrap().as_floats(), vec![1.0]);
        // Wrong length, external data and large tensors have no value.
        let t = TensorProto { data_type: Some(7), raw_data: Some(vec![1, 2, 3]), ..Default::default() };
        assert!(from_proto(&t, &[1]).is_none());
        let t = TensorProto { data_type: Some(7), data_location: Some(1), ..Default::default() };
        assert!(from_proto(&t, &[0]).is_none());
        assert!(from_proto(&TensorProto { data_type: Some(1), ..Default::default() }, &[1 << 20]).is_none());
    }
}
