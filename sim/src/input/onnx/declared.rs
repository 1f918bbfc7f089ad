//! Shapes the ONNX file declares: graph inputs fixed, value_info for opaque ops.
//! Uses: import (ImportError), dramalloc-model-formats; used by: onnx.
//!
//! Shapes the file declares: graph inputs (fixed by `--input-shape`, symbolic dimensions set to
//! 1 otherwise) and, for ops without a shape rule, `value_info` and graph outputs (symbolic
//! dimensions resolved through the names the inputs fixed).

use std::collections::HashMap;

use dramalloc_model_formats::onnx::tensor_shape_proto::dimension::Value as DimValue;
use dramalloc_model_formats::onnx::type_proto::Value as TypeValue;
use dramalloc_model_formats::onnx::ValueInfoProto;

use crate::input::import::ImportError;

/// A declared dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    /// A number.
    Fixed(u64),
    /// A name (`dim_param`), or `None` for a dimension that is neither.
    Symbolic(Option<String>),
    /// A negative `dim_value`: invalid (a graph input's is refused; elsewhere the dimension
    /// is not known).
    Negative(i64),
}

/// A declared tensor type: element type and shape (`None`: unknown rank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// ONNX element type code (0 when absent).
    pub dtype: i32,
    /// Dimensions, when the rank is known.
    pub dims: Option<Vec<Dim>>,
}

/// The declared type of a value, when it is a tensor.
#[must_use]
pub fn declared(v: &ValueInfoProto) -> Option<Declared> {
    let Some(TypeValue::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        return None;
    };
    let dims = t.shape.as_ref().map(|s| {
        s.dim
            .iter()
            .map(|d| match &d.value {
                Some(DimValue::DimValue(v)) => u64::try_from(*v).map_or(Dim::Negative(*v), Dim::Fixed),
                Some(DimValue::DimParam(p)) if !p.is_empty() => Dim::Symbolic(Some(p.clone())),
                _ => Dim::Symbolic(None),
            })
            .collect()
    });
    Some(Declared { dtype: t.elem_type.unwrap_or(0), dims })
}

/// A fixed input: its shape and whether it goes into the program's `input_shapes`.
pub struct FixedInput {
    /// The static shape.
    pub shape: Vec<u64>,
    /// It had a symbolic dimension or was given by `--input-shape`.
    pub recorded: bool,
}

/// Fixes the shape of graph input `name` declared as `d`: `given` (from `--input-shape`)
/// must match the rank and the fixed dimensions; otherwise symbolic dimensions become 1.
/// Names of symbolic dimensions are entered into `symbols` with their value.
///
/// # Errors
/// [`ImportError::DynamicInput`] for an input of unknown rank without `given`;
/// [`ImportError::BadInputShape`] when `given` contradicts the declaration;
/// [`ImportError::BadSize`] for a negative dimension, naming the axis and the value.
pub fn fix_input(
    file: &str,
    name: &str,
    d: Option<&Declared>,
    given: Option<&[u64]>,
    symbols: &mut HashMap<String, u64>,
) -> Result<FixedInput, ImportError> {
    let dims = d.and_then(|d| d.dims.as_ref());
    let bad =
        |detail: String| ImportError::BadInputShape { file: file.to_owned(), name: name.to_owned(), detail };
    let Some(dims) = dims else {
        return match given {
            Some(g) => Ok(FixedInput { shape: g.to_vec(), recorded: true }),
            None => Err(ImportError::DynamicInput {
                file: file.to_owned(),
                input: name.to_owned(),
                detail: "the file gives no shape".into(),
            }),
        };
    };
    if let Some(g) = given {
        if g.len() != dims.len() {
            return Err(bad(format!("{} dimensions given, the input has {}", g.len(), dims.len())));
        }
    }
    let mut shape = Vec::with_capacity(dims.len());
    let mut symbolic = false;
    for (i, dim) in dims.iter().enumerate() {
        let v = match (dim, given) {
            (Dim::Fixed(f), Some(g)) if g[i] != *f => {
                return Err(bad(format!("dimension {i} is {f} in the file, {} given", g[i])));
            }
            (Dim::Fixed(f), _) => *f,
            (Dim::Negative(v), _) => {
                return Err(ImportError::BadSize {
                    file: file.to_owned(),
                    tensor: name.to_owned(),
                    detail: format!("dimension {i} is {v} in the file; a dimension cannot be negative"),
                });
            }
            (Dim::Symbolic(s), g) => {
                symbolic = true;
                let v = g.map_or(1, |g| g[i]);
                if let Some(s) = s {
                    symbols.entry(s.clone()).or_insert(v);
                }
                v
            }
        };
        shape.push(v);
    }
    Ok(FixedInput { shape, recorded: symbolic || given.is_some() })
}

/// The static shape of a declaration, its symbolic dimensions looked up in `symbols`.
#[must_use]
pub fn static_shape(d: &Declared, symbols: &HashMap<String, u64>) -> Option<Vec<u64>> {
    d.dims
        .as_ref()?
        .iter()
        .map(|dim| match dim {
            Dim::Fixed(f) => Some(*f),
            Dim::Symbolic(Some(s)) => symbols.get(s).copied(),
            Dim::Symbolic(None) | Dim::Negative(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(dims: Vec<Dim>) -> Declared {
        Declared { dtype: 1, dims: Some(dims) }
    }

    #[test]
    fn fixes_symbolic_dimensions_and_checks_given_shapes() {
        let d = decl(vec![Dim::Symbolic(Some("N".into())), Dim::Fixed(3), Dim::Symbolic(None)]);
        let mut sym = HashMap::new();
        let f = fix_input("m", "x", Some(&d), None, &mut sym).unwrap();
        assert_eq!((f.shape, f.recorded), (vec![1, 3, 1], true));
        assert_eq!(sym.get("N"), Some(&1));
        let f = fix_input("m", "x", Some(&d), Some(&[2, 3, 7]), &mut HashMap::new()).unwrap();
        assert_eq!(f.shape, vec![2, 3, 7]);
        let e = fix_input("m", "x", Some(&d), Some(&[2, 4, 7]), &mut sym).err().unwrap();
        assert_eq!(e.to_string(), "m: --input-shape x: dimension 1 is 3 in the file, 4 given");
        let e = fix_input("m", "x", Some(&d), Some(&[2, 3]), &mut sym).err().unwrap();
        assert_eq!(e.to_string(), "m: --input-shape x: 2 dimensions given, the input has 3");
        let e = fix_input("m", "x", Some(&Declared { dtype: 1, dims: None }), None, &mut sym).err().unwrap();
        assert_eq!(
            e.to_string(),
            "m: input `x`: the file gives no shape; give --input-shape x=DIMS (e.g. 1x3x224x224)"
        );
        let fixed = fix_input("m", "y", Some(&decl(vec![Dim::Fixed(5)])), None, &mut sym).unwrap();
        assert!(!fixed.recorded);
        assert_eq!(
            static_shape(&decl(vec![Dim::Symbolic(Some("N".into())), Dim::Fixed(2)]), &sym),
            Some(vec![1, 2])
        );
        assert_eq!(static_shape(&decl(vec![Dim::Symbolic(Some("M".into()))]), &sym), None);
        // a negative dimension: refused for an input, given or not; unknown elsewhere
        let neg = decl(vec![Dim::Fixed(1), Dim::Negative(-3)]);
        for given in [None, Some(&[1, 3][..])] {
            let e = fix_input("m", "x", Some(&neg), given, &mut sym).err().unwrap();
            assert_eq!(
                e.to_string(),
                "m: tensor `x`: dimension 1 is -3 in the file; a dimension cannot be negative"
            );
        }
        assert_eq!(static_shape(&neg, &sym), None);
    }
}
