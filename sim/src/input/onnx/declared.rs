//! Shapes the ONNX file declares: graph inputs fixed, value_info for opaque ops.
//! Uses: import (ImportError), dramalloc-model-formats; used by: onnx.
//!
//! Shapes the file declares: graph inputs (fixed by `--input-shape`, symbolic dimensions set to
//! 1 otherwise) and, for ops without a shape rule, `value_info` and graph outputs (symbolic
//! dimensions resolved through the names the inputs fixed).
//!
//! One `dim_param` name is one value in the whole model (ONNX's rule): a name bound by one
//! input's `--input-shape` sizes that dimension of every other input and declaration too
//! ([`Symbols`]); only a name no given input binds is 1.

use std::collections::HashMap;

use dramalloc_model_formats::onnx::tensor_shape_proto::dimension::Value as DimValue;
use dramalloc_model_formats::onnx::type_proto::Value as TypeValue;
use dramalloc_model_formats::onnx::ValueInfoProto;

use crate::input::import::{byte_size, ImportError};

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

impl core::fmt::Display for Declared {
    /// `FLOAT [3, N, ?]`: the element type's name (or its code) and the dimensions (a number,
    /// a symbol, `?` for neither; `[...]` for an unknown rank).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match super::dtype::describe(self.dtype) {
            Some((name, _)) => write!(f, "{name} ")?,
            None => write!(f, "type {} ", self.dtype)?,
        }
        let Some(dims) = &self.dims else { return write!(f, "[...]") };
        let dims: Vec<String> = dims
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => n.to_string(),
                Dim::Symbolic(Some(s)) => s.clone(),
                Dim::Symbolic(None) => "?".to_owned(),
                Dim::Negative(v) => v.to_string(),
            })
            .collect();
        write!(f, "[{}]", dims.join(", "))
    }
}

/// What a graph input that is also an initializer (IR < 4 lists every weight as an input; from
/// IR 4 such an input is one with a default) declares that its initializer does not hold:
/// another element type, another rank, or a fixed dimension of another size (a symbolic one
/// matches any); `None` where they agree. The initializer is what is read, so a declaration
/// it contradicts is an error, not folded away silently (a trial: an input declared `[4]`
/// with an 8-element initializer became a 32-byte weight, and its op folded).
///
/// ```
/// use dramalloc_sim::input::onnx::declared::{initializer_conflict, Declared, Dim};
/// let d = Declared { dtype: 1, dims: Some(vec![Dim::Fixed(4)]) };
/// assert_eq!(initializer_conflict(&d, 1, &[8]).as_deref(), Some("declared FLOAT [4], its initializer is FLOAT [8]"));
/// assert_eq!(initializer_conflict(&d, 1, &[4]), None);
/// let n = Declared { dtype: 0, dims: Some(vec![Dim::Symbolic(Some("N".into()))]) };
/// assert_eq!(initializer_conflict(&n, 7, &[8]), None);
/// ```
pub fn initializer_conflict(d: &Declared, dtype: i32, shape: &[u64]) -> Option<String> {
    let held = Declared { dtype, dims: Some(shape.iter().map(|&n| Dim::Fixed(n)).collect()) };
    let other_type = d.dtype != 0 && d.dtype != dtype;
    let other_shape = d.dims.as_ref().is_some_and(|dims| {
        dims.len() != shape.len()
            || dims.iter().zip(shape).any(|(dim, &n)| match dim {
                Dim::Fixed(m) => *m != n,
                Dim::Negative(_) => true,
                Dim::Symbolic(_) => false,
            })
    });
    (other_type || other_shape).then(|| format!("declared {d}, its initializer is {held}"))
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

/// The kind of a value whose declared type is not a tensor (`optional`, `sequence`, `map`,
/// `sparse tensor`, `opaque`); `None` for a tensor or a value without a type.
#[must_use]
pub fn non_tensor_kind(v: &ValueInfoProto) -> Option<&'static str> {
    match v.r#type.as_ref()?.value.as_ref()? {
        TypeValue::TensorType(_) => None,
        TypeValue::OptionalType(_) => Some("optional"),
        TypeValue::SequenceType(_) => Some("sequence"),
        TypeValue::MapType(_) => Some("map"),
        TypeValue::SparseTensorType(_) => Some("sparse tensor"),
        TypeValue::OpaqueType(_) => Some("opaque"),
    }
}

/// The values of the symbolic dimensions (`dim_param` names) of a model: one name, one value.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    /// Name -> value and the input whose `--input-shape` gave it (`None`: 1 by default).
    values: HashMap<String, (u64, Option<String>)>,
}

impl Symbols {
    /// The value of dimension name `name`, once an input has bound it.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<u64> {
        self.values.get(name).map(|&(v, _)| v)
    }
}

/// A fixed input: its shape and whether it goes into the program's `input_shapes`.
pub struct FixedInput {
    /// The static shape.
    pub shape: Vec<u64>,
    /// It had a symbolic dimension or was given by `--input-shape`.
    pub recorded: bool,
    /// A symbolic dimension of it took 1 for want of a value (neither given by
    /// `--input-shape` nor bound by another input's).
    pub defaulted: bool,
}

/// Fixes the shape of graph input `name` declared as `d`: `given` (from `--input-shape`)
/// must match the rank and the fixed dimensions and binds the names of its symbolic
/// dimensions in `symbols`; without `given` a symbolic dimension takes its name's value in
/// `symbols`, else 1 (and an unbound name is bound to 1). Fix every input with `given`
/// before those without, so that a name given for one input sizes all.
///
/// # Errors
/// [`ImportError::DynamicInput`] for an input of unknown rank without `given`;
/// [`ImportError::BadInputShape`] when `given` contradicts the declaration;
/// [`ImportError::ConflictingDimension`] when `given` gives a name another value than an
/// earlier `--input-shape` did; [`ImportError::BadSize`] for a negative dimension, naming the
/// axis and the value; a shape whose byte size overflows `u64`, as
/// [`ImportError::BadInputShape`] when given, else [`ImportError::BadSize`].
pub fn fix_input(
    file: &str,
    name: &str,
    d: Option<&Declared>,
    given: Option<&[u64]>,
    symbols: &mut Symbols,
) -> Result<FixedInput, ImportError> {
    let dims = d.and_then(|d| d.dims.as_ref());
    let bad =
        |detail: String| ImportError::BadInputShape { file: file.to_owned(), name: name.to_owned(), detail };
    let Some(dims) = dims else {
        return match given {
            Some(g) => {
                check_bytes(file, name, d.map_or(0, |d| d.dtype), g, true)?;
                Ok(FixedInput { shape: g.to_vec(), recorded: true, defaulted: false })
            }
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
    let (mut symbolic, mut defaulted) = (false, false);
    // The names `given` binds, entered once the whole shape is checked.
    let mut binds = Vec::new();
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
            (Dim::Symbolic(s), Some(g)) => {
                symbolic = true;
                if let Some(s) = s {
                    binds.push((s, g[i]));
                }
                g[i]
            }
            (Dim::Symbolic(s), None) => {
                symbolic = true;
                // (a value no `--input-shape` gave is the default 1)
                let (v, by) = match s {
                    Some(s) => symbols.values.entry(s.clone()).or_insert((1, None)).clone(),
                    None => (1, None),
                };
                defaulted |= by.is_none();
                v
            }
        };
        shape.push(v);
    }
    for (s, v) in binds {
        bind(file, symbols, s, v, name)?;
    }
    check_bytes(file, name, d.map_or(0, |d| d.dtype), &shape, given.is_some())?;
    Ok(FixedInput { shape, recorded: symbolic || given.is_some(), defaulted })
}

/// Refuses input `name` of element type `dtype` when its `shape` makes a byte size past
/// `u64` (checked when the shape is fixed, so the error names the input and not a later op
/// that reads it); a type without a known size is left to the tensor's own error.
///
/// # Errors
/// [`ImportError::BadInputShape`] when the shape was `given`, else [`ImportError::BadSize`].
fn check_bytes(file: &str, name: &str, dtype: i32, shape: &[u64], given: bool) -> Result<(), ImportError> {
    let Ok(bits) = super::dtype::bits(dtype) else { return Ok(()) };
    let signed: Vec<i64> = shape.iter().map(|&v| i64::try_from(v).unwrap_or(i64::MAX)).collect();
    if byte_size(&signed, bits).is_ok() {
        return Ok(());
    }
    let ty = super::dtype::describe(dtype).map_or("?", |(ty, _)| ty);
    let (file, name) = (file.to_owned(), name.to_owned());
    Err(if given {
        let detail = format!("{shape:?} of {ty} ({bits} bits each): the byte size of `{name}` overflows u64");
        ImportError::BadInputShape { file, name, detail }
    } else {
        let detail = format!("shape {shape:?} of {ty} ({bits} bits each): the byte size overflows u64");
        ImportError::BadSize { file, tensor: name, detail }
    })
}

/// Binds dimension name `symbol` to `value`, given by `--input-shape` of `input`.
///
/// # Errors
/// [`ImportError::ConflictingDimension`] when an `--input-shape` gave it another value.
fn bind(file: &str, symbols: &mut Symbols, symbol: &str, value: u64, input: &str) -> Result<(), ImportError> {
    match symbols.values.get(symbol) {
        Some(&(first, Some(ref by))) if first != value => Err(ImportError::ConflictingDimension {
            file: file.to_owned(),
            symbol: symbol.to_owned(),
            first_input: by.clone(),
            first_value: first,
            second_input: input.to_owned(),
            second_value: value,
        }),
        Some((_, Some(_))) => Ok(()),
        _ => {
            symbols.values.insert(symbol.to_owned(), (value, Some(input.to_owned())));
            Ok(())
        }
    }
}

/// The static shape of a declaration, its symbolic dimensions looked up in `symbols`.
#[must_use]
pub fn static_shape(d: &Declared, symbols: &Symbols) -> Option<Vec<u64>> {
    d.dims
        .as_ref()?
        .iter()
        .map(|dim| match dim {
            Dim::Fixed(f) => Some(*f),
            Dim::Symbolic(Some(s)) => symbols.get(s),
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
        let mut sym = Symbols::default();
        let f = fix_input("m", "x", Some(&d), None, &mut sym).unwrap();
        assert_eq!((f.shape, f.recorded), (vec![1, 3, 1], true));
        assert_eq!(sym.get("N"), Some(1));
        let f = fix_input("m", "x", Some(&d), Some(&[2, 3, 7]), &mut Symbols::default()).unwrap();
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

    #[test]
    fn a_dimension_name_has_one_value() {
        let nn = decl(vec![Dim::Symbolic(Some("N".into())), Dim::Symbolic(Some("N".into()))]);
        let e = fix_input("m", "x", Some(&nn), Some(&[3, 4]), &mut Symbols::default()).err().unwrap();
        assert_eq!(
            e.to_string(),
            "m: symbolic dimension `N` is 3 in --input-shape x but 4 in --input-shape x (one name is one size in the whole model)"
        );
        // Given for x, N sizes y, which is not given, and a declaration.
        let mut sym = Symbols::default();
        assert_eq!(fix_input("m", "x", Some(&nn), Some(&[3, 3]), &mut sym).unwrap().shape, vec![3, 3]);
        assert_eq!(fix_input("m", "y", Some(&nn), None, &mut sym).unwrap().shape, vec![3, 3]);
        assert_eq!(static_shape(&nn, &sym), Some(vec![3, 3]));
    }

    #[test]
    fn an_input_whose_bytes_overflow_u64_is_refused_when_fixed() {
        let big = decl(vec![Dim::Fixed(1 << 62), Dim::Symbolic(Some("N".into()))]);
        let e = fix_input("m", "x", Some(&big), None, &mut Symbols::default()).err().unwrap();
        assert_eq!(
            e.to_string(),
            "m: tensor `x`: shape [4611686018427387904, 1] of FLOAT (32 bits each): the byte size overflows u64"
        );
        let e = fix_input("m", "x", Some(&big), Some(&[1 << 62, 2]), &mut Symbols::default()).err().unwrap();
        assert_eq!(
            e.to_string(),
            "m: --input-shape x: [4611686018427387904, 2] of FLOAT (32 bits each): the byte size of `x` overflows u64"
        );
    }
}
