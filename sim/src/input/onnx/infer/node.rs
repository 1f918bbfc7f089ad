//! What a shape rule sees of a node: input infos, attributes, opset.
//! Uses: value, dramalloc-model-formats; used by: every rule file.
//!
//! What a shape rule sees of one node: its inputs' [`Info`] (element type, static shape,
//! value when constant and small), its attributes, and the opset version; plus the
//! accessors every rule shares, whose errors name the input or attribute.

use std::rc::Rc;

use dramalloc_model_formats::onnx::{AttributeProto, NodeProto, TensorProto};

use super::super::value::{self, Data, Value};

/// A rule's error text (the caller adds file, node and op).
pub type R<T> = Result<T, String>;

/// What is known of a tensor after inference: element type, static shape, and its value when
/// it is a small constant.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// ONNX element type code.
    pub dtype: i32,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// The elements, for small constants ([`value::MAX_VALUE_ELEMENTS`]).
    pub value: Option<Rc<Value>>,
}

impl Info {
    /// A tensor of `dtype` and `shape` without a value.
    #[must_use]
    pub fn new(dtype: i32, shape: Vec<u64>) -> Info {
        Info { dtype, shape, value: None }
    }

    /// A tensor holding `v` (its type and shape are `v`'s); the value is dropped when large.
    #[must_use]
    pub fn of(v: Value) -> Info {
        let keep = value::small(&v.shape);
        Info { dtype: v.dtype, shape: v.shape.clone(), value: keep.then(|| Rc::new(v)) }
    }

    /// `self` with `data` as its value (same type and shape), when small.
    #[must_use]
    pub fn with(self, data: Option<Data>) -> Info {
        match data {
            Some(d)
                if value::small(&self.shape)
                    && d.len() as u64 == value::elements(&self.shape).unwrap_or(0) =>
            {
                let v = Value::new(self.dtype, self.shape.clone(), d);
                Info { dtype: v.dtype, shape: self.shape, value: Some(Rc::new(v)) }
            }
            _ => self,
        }
    }
}

/// One node under inference.
pub struct Node<'a> {
    /// The node.
    pub proto: &'a NodeProto,
    /// One entry per input position; `None` for an omitted optional input.
    pub inputs: Vec<Option<&'a Info>>,
    /// The opset version of the node's domain.
    pub opset: i64,
}

impl<'a> Node<'a> {
    /// Number of outputs the node declares (empty names included).
    #[must_use]
    pub fn outputs(&self) -> usize {
        self.proto.output.len()
    }

    /// Input `i`, which the op requires.
    ///
    /// # Errors
    /// When it is absent.
    pub fn input(&self, i: usize) -> R<&'a Info> {
        self.inputs.get(i).copied().flatten().ok_or_else(|| format!("input {i} {MISSING}"))
    }

    /// Input `i` when given.
    #[must_use]
    pub fn opt(&self, i: usize) -> Option<&'a Info> {
        self.inputs.get(i).copied().flatten()
    }

    /// The shape of input `i`.
    ///
    /// # Errors
    /// When it is absent.
    pub fn shape(&self, i: usize) -> R<&'a [u64]> {
        Ok(&self.input(i)?.shape)
    }

    /// The value of input `i` (a constant).
    ///
    /// # Errors
    /// When the input is absent, or computed at run time (or too large to evaluate).
    pub fn value(&self, i: usize) -> R<&'a Value> {
        let name = self.proto.input.get(i).map_or("", String::as_str);
        self.input(i)?.value.as_deref().ok_or_else(|| {
            format!("the output shape depends on the value of input {i} (`{name}`), {NOT_CONSTANT}")
        })
    }

    /// The integer elements of input `i`, when given.
    ///
    /// # Errors
    /// As [`Node::value`] when the input is given.
    pub fn opt_ints(&self, i: usize) -> R<Option<Vec<i64>>> {
        match self.opt(i) {
            None => Ok(None),
            Some(_) => Ok(Some(self.value(i)?.as_ints())),
        }
    }

    /// A list that later opsets moved from attribute `attr` to input `input`: from opset
    /// `since` on the input's value, before it the attribute (integers or floats); `None` when
    /// the one that applies is absent.
    ///
    /// # Errors
    /// As [`Node::value`] when the input applies and is given.
    pub fn moved(&self, attr: &str, input: usize, since: i64) -> R<Option<Value>> {
        if self.opset >= since {
            return Ok(match self.opt(input) {
                Some(_) => Some(self.value(input)?.clone()),
                None => None,
            });
        }
        Ok(self.attr(attr).map(|a| {
            if a.floats.is_empty() {
                Value::ints(a.ints.clone())
            } else {
                let v: Vec<f64> = a.floats.iter().map(|&f| f64::from(f)).collect();
                Value { dtype: super::super::dtype::FLOAT, shape: vec![v.len() as u64], data: Data::Float(v) }
            }
        }))
    }

    /// [`Node::moved`] when the op needs the list.
    ///
    /// # Errors
    /// As [`Node::moved`], and when the list is absent.
    pub fn moved_required(&self, attr: &str, input: usize, since: i64) -> R<Value> {
        self.moved(attr, input, since)?.ok_or_else(|| {
            if self.opset >= since {
                format!("input {input} is missing")
            } else {
                format!("attribute `{attr}` is missing")
            }
        })
    }

    /// The attribute `name`.
    #[must_use]
    pub fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.proto.attribute.iter().find(|a| a.name.as_deref() == Some(name))
    }

    /// Integer attribute `name`, or `default`.
    #[must_use]
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attr(name).and_then(|a| a.i).unwrap_or(default)
    }

    /// Float attribute `name`, or `default`.
    #[must_use]
    pub fn float(&self, name: &str, default: f64) -> f64 {
        self.attr(name).and_then(|a| a.f).map_or(default, f64::from)
    }

    /// Integer-list attribute `name`, when present.
    #[must_use]
    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).map(|a| a.ints.clone())
    }

    /// Float-list attribute `name`, when present.
    #[must_use]
    pub fn floats(&self, name: &str) -> Option<Vec<f64>> {
        self.attr(name).map(|a| a.floats.iter().map(|&f| f64::from(f)).collect())
    }

    /// String attribute `name` (lossy UTF-8), when present.
    #[must_use]
    pub fn string(&self, name: &str) -> Option<String> {
        self.attr(name).and_then(|a| a.s.as_ref()).map(|s| String::from_utf8_lossy(s).into_owned())
    }

    /// Tensor attribute `name`, when present.
    #[must_use]
    pub fn tensor(&self, name: &str) -> Option<&'a TensorProto> {
        self.attr(name).and_then(|a| a.t.as_ref())
    }

    /// Axis attribute `name` (default `default`) normalised into `0..rank`.
    ///
    /// # Errors
    /// When it lies outside `-rank..rank`.
    pub fn axis(&self, name: &str, default: i64, rank: usize) -> R<usize> {
        norm_axis(self.int(name, default), rank).map_err(|e| format!("attribute `{name}`: {e}"))
    }
}

/// The end of a rule's message where an input it reads is absent (left out, or nothing
/// defines it before this node).
pub const MISSING: &str = "is missing";

/// The end of a rule's message where the output shape depends on an input's value that is
/// computed at run time (or too large to evaluate here).
pub const NOT_CONSTANT: &str = "which is not a constant";

/// `axis` (negative counts from the end) as an index into `0..rank`.
///
/// # Errors
/// When it lies outside `-rank..rank`.
pub fn norm_axis(axis: i64, rank: usize) -> R<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if (0..r).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!("axis {axis} is out of range for rank {rank}"))
    }
}

/// A dimension from a signed value.
///
/// # Errors
/// When it is negative.
pub fn dim(v: i64, what: &str) -> R<u64> {
    u64::try_from(v).map_err(|_| format!("{what} is negative ({v})"))
}
