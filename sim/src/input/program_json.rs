//! Program JSON reader: the format of `../shared/traces/models/*.json`.
//! Uses: error; used by: cli, model, quality, run, tensor_parallel.
//!
//! ```text
//! {"name": "...",
//!  "tensors": [{"name", "bytes", "kind": "input|output|weight|intermediate",
//!               optional "address", optional "shared": bool}, ...],
//!  "ops": [{"name", "op", "inputs": [tensor names], "outputs": [tensor names],
//!           optional "collective": bool}, ...]}
//! ```
//!
//! Ops are listed in execution order. Fields not listed above are ignored; a UTF-8 byte-order
//! mark before the text is skipped. Parsing is
//! O(T + Σ|inputs| + Σ|outputs|) with one hash map of tensor names.
//!
//! # Rules checked (each a distinct [`InputError`] naming the JSON path and the value)
//! - `bytes` is a non-negative integer whose round-up to 4096 bytes fits in `u64`.
//! - Zero-byte tensors: allowed for `input` and `weight` (real models have empty constant
//!   tensors; they occupy no memory), rejected for `intermediate` and `output` (a planned or
//!   written tensor must hold at least one byte) with [`InputError::ZeroSize`].
//! - Tensor names are non-empty and unique; at most `max_tensors` tensors.
//! - Every name in `ops[i].inputs` / `ops[i].outputs` is a known tensor.
//! - Definition order: the loader defines every `input` and `weight` before the first op.
//!   An `intermediate` or `output` tensor is defined by the (single) op that lists it in its
//!   `outputs`; reading it before that op is [`InputError::ReadBeforeDef`], a second writer
//!   is [`InputError::Redefined`], an op writing an input or weight is
//!   [`InputError::WritesPreloaded`], and an intermediate or output that no op writes is
//!   [`InputError::NeverDefined`].
//! - `address` is allowed only on inputs, outputs and weights (the pre-placed kinds);
//!   on an intermediate it is [`InputError::AddressOnIntermediate`].

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::error::{InputError, Location};
use super::{align_up, read_text, PAGE};

/// A whole program: tensors and the ops that read and write them, in execution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The model's name (`name` field).
    pub name: String,
    /// All tensors, in file order; ops refer to them by index.
    pub tensors: Vec<Tensor>,
    /// The ops in execution order.
    pub ops: Vec<Op>,
}

/// One tensor of a [`Program`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    /// Unique name.
    pub name: String,
    /// Size in bytes (unaligned; its round-up to 4096 fits in `u64`).
    pub bytes: u64,
    /// Who defines it and whether the planner places it.
    pub kind: TensorKind,
    /// Explicit address in bytes (only on inputs, outputs and weights).
    pub address: Option<u64>,
    /// Whether the tensor lives in the region shared by all cores.
    pub shared: bool,
}

/// The role of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensorKind {
    /// A graph input: pre-placed and written by the loader.
    Input,
    /// A graph output: pre-placed, written by an op.
    Output,
    /// A constant: pre-placed and written by the loader.
    Weight,
    /// A temporary written by one op and read by later ones: the planner's candidates.
    Intermediate,
}

impl TensorKind {
    /// The word used in the JSON file (`input`, `output`, `weight`, `intermediate`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TensorKind::Input => "input",
            TensorKind::Output => "output",
            TensorKind::Weight => "weight",
            TensorKind::Intermediate => "intermediate",
        }
    }

    /// Whether the tensor is placed before planning (inputs, outputs, weights).
    #[must_use]
    pub fn is_preplaced(self) -> bool {
        !matches!(self, TensorKind::Intermediate)
    }

    /// Whether the loader writes it before the first op (inputs and weights).
    #[must_use]
    pub fn is_loaded(self) -> bool {
        matches!(self, TensorKind::Input | TensorKind::Weight)
    }
}

/// One op of a [`Program`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The op's name.
    pub name: String,
    /// The op type (`ONNX` op type or `TFLite` builtin name).
    pub op: String,
    /// Tensors read, as indices into [`Program::tensors`], in file order (repeats kept).
    pub inputs: Vec<u32>,
    /// Tensors written, as indices into [`Program::tensors`].
    pub outputs: Vec<u32>,
    /// Whether the op is a collective (all cores take part); `false` when absent.
    pub collective: bool,
}

/// Parses program JSON text; `source` names the text in error messages (usually the path).
///
/// # Errors
/// An [`InputError`] naming `source`, the JSON path and the value for every rule in the
/// module docs; more than `max_tensors` tensors is [`InputError::TooMany`].
///
/// ```
/// use dramalloc_sim::input::{parse_program, TensorKind};
/// let text = r#"{"name": "m",
///   "tensors": [{"name": "x", "bytes": 16, "kind": "input"},
///               {"name": "y", "bytes": 16, "kind": "output"}],
///   "ops": [{"name": "n0", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}]}"#;
/// let p = parse_program(text, "m.json", 1000)?;
/// assert_eq!(p.tensors[1].kind, TensorKind::Output);
/// assert_eq!(p.ops[0].inputs, vec![0]);
/// # Ok::<(), dramalloc_sim::input::InputError>(())
/// ```
pub fn parse_program(text: &str, source: &str, max_tensors: usize) -> Result<Program, InputError> {
    // a UTF-8 byte-order mark is not JSON, but editors write one
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // (an object with a key twice is refused: serde_json's `Value` would keep the last)
    let root: Value = super::strict_json::parse(text).map_err(|e| InputError::MalformedJson {
        file: source.to_owned(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    Parser { file: source }.program(&root, max_tensors)
}

/// Reads and parses a program JSON file, for a command that takes program JSON only (no
/// model file: `faults`).
///
/// # Errors
/// [`InputError::Io`] or [`InputError::NotUtf8`] when the file cannot be read as text,
/// [`InputError::ModelNeedsImport`] when it holds a model (whatever its extension), otherwise
/// as [`parse_program`] with the path as the source name.
pub fn read_program(path: &Path, max_tensors: usize) -> Result<Program, InputError> {
    let (text, source) = read_text(path).map_err(|e| match e {
        InputError::ModelNotText { file, offset, format, .. } => {
            InputError::ModelNeedsImport { file, offset, format }
        }
        other => other,
    })?;
    parse_program(&text, &source, max_tensors)
}

/// Pre-places inputs, weights and outputs; returns one address per tensor (bytes).
///
/// Tensors with an explicit `address` keep it. The others are packed from address 0 in file
/// order, each start aligned to `align`, each occupying its size rounded up to `align`, and
/// skipping over the explicit ones so that no two pre-placed tensors overlap. Intermediates
/// get `None`. Zero-byte tensors get an aligned address that lies outside every explicit
/// tensor and take no space. O(T log T).
///
/// # Errors
/// [`InputError::BadAlign`] when `align` is not a power of two;
/// [`InputError::MisalignedAddress`] for an explicit address that is not a multiple of
/// `align`; [`InputError::PreplacedOverlap`] when two explicit tensors overlap;
/// [`InputError::AddressOverflow`] when an address range passes `u64::MAX`. The `file` of
/// these errors is the program's name.
pub fn pack_preplaced(program: &Program, align: u64) -> Result<Vec<Option<u64>>, InputError> {
    if !align.is_power_of_two() {
        return Err(InputError::BadAlign { align });
    }
    let file = || program.name.clone();
    let at = |i: usize, field: &str| Location::Json(format!("tensors[{i}]{field}"));
    let extent = |i: usize, t: &Tensor| {
        align_up(t.bytes, align).ok_or_else(|| InputError::AddressOverflow {
            file: file(),
            at: at(i, ""),
            noun: "tensor",
            name: t.name.clone(),
            bytes: t.bytes,
            what: format!("its size rounded up to {align}").into(),
        })
    };
    let mut out = vec![None; program.tensors.len()];
    // Explicit tensors as (start, end, index), sorted by start.
    let mut explicit: Vec<(u64, u64, usize)> = Vec::new();
    for (i, t) in program.tensors.iter().enumerate() {
        if let (true, Some(address)) = (t.kind.is_preplaced(), t.address) {
            if address % align != 0 {
                return Err(InputError::MisalignedAddress {
                    file: file(),
                    at: at(i, ".address"),
                    name: t.name.clone(),
                    address,
                    align,
                });
            }
            let end = address.checked_add(extent(i, t)?).ok_or_else(|| InputError::AddressOverflow {
                file: file(),
                at: at(i, ""),
                noun: "tensor",
                name: t.name.clone(),
                bytes: t.bytes,
                what: format!("its address {address} plus its size rounded up to {align}").into(),
            })?;
            explicit.push((address, end, i));
            out[i] = Some(address);
        }
    }
    explicit.sort_unstable();
    for pair in explicit.windows(2) {
        let ((s0, e0, i0), (s1, e1, i1)) = (pair[0], pair[1]);
        // Zero-length extents overlap nothing.
        if s1 < e0 && e1 > s1 {
            return Err(InputError::PreplacedOverlap {
                file: file(),
                first: program.tensors[i0].name.clone(),
                first_start: s0,
                first_end: e0,
                second: program.tensors[i1].name.clone(),
                second_start: s1,
                second_end: e1,
            });
        }
    }
    let mut cursor = 0u64; // always a multiple of `align`
    let mut next = 0usize; // first explicit extent that may still lie at or above `cursor`
    for (i, t) in program.tensors.iter().enumerate() {
        if !t.kind.is_preplaced() || t.address.is_some() {
            continue;
        }
        let size = extent(i, t)?;
        let overflow = || InputError::AddressOverflow {
            file: file(),
            at: at(i, ""),
            noun: "tensor",
            name: t.name.clone(),
            bytes: t.bytes,
            what: format!(
                "its address past the tensors packed before it plus its size rounded up to {align}"
            )
            .into(),
        };
        let mut start = cursor;
        loop {
            while next < explicit.len() && explicit[next].1 <= start {
                next += 1;
            }
            let probe_end = start.checked_add(size.max(1)).ok_or_else(overflow)?;
            match explicit.get(next) {
                Some(&(s, e, _)) if s < probe_end && s < e => start = e,
                _ => break,
            }
        }
        cursor = start.checked_add(size).ok_or_else(overflow)?;
        out[i] = Some(start);
    }
    Ok(out)
}

/// Walks a parsed JSON value, producing errors that name `file`.
struct Parser<'a> {
    file: &'a str,
}

impl Parser<'_> {
    fn err_type(&self, path: String, expected: &'static str, value: &Value) -> InputError {
        InputError::WrongType {
            file: self.file.to_owned(),
            at: Location::Json(path),
            expected,
            value: show(value),
        }
    }

    fn object<'v>(&self, path: &str, v: &'v Value) -> Result<&'v Map<String, Value>, InputError> {
        v.as_object().ok_or_else(|| self.err_type(path.to_owned(), "an object", v))
    }

    fn field<'v>(&self, obj: &'v Map<String, Value>, path: &str, key: &str) -> Result<&'v Value, InputError> {
        obj.get(key).ok_or_else(|| InputError::MissingField {
            file: self.file.to_owned(),
            at: Location::Json(join(path, key)),
        })
    }

    fn string<'v>(&self, obj: &'v Map<String, Value>, path: &str, key: &str) -> Result<&'v str, InputError> {
        let v = self.field(obj, path, key)?;
        v.as_str().ok_or_else(|| self.err_type(join(path, key), "a string", v))
    }

    fn array<'v>(
        &self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Result<&'v [Value], InputError> {
        let v = self.field(obj, path, key)?;
        v.as_array().map(Vec::as_slice).ok_or_else(|| self.err_type(join(path, key), "an array", v))
    }

    fn flag(&self, obj: &Map<String, Value>, path: &str, key: &str) -> Result<bool, InputError> {
        match obj.get(key) {
            None => Ok(false),
            Some(v) => v.as_bool().ok_or_else(|| self.err_type(join(path, key), "true or false", v)),
        }
    }

    fn unsigned(&self, v: &Value, path: String) -> Result<u64, InputError> {
        if let Some(n) = v.as_u64() {
            return Ok(n);
        }
        let negative = v.as_f64().is_some_and(|x| x < 0.0);
        // a whole number past u64, which serde_json keeps as a float (a trial's
        // 18446744073709551616 was "expected a non-negative integer, found 1.8446744073709552e19")
        let past_u64 = v.as_f64().is_some_and(|x| x >= 18_446_744_073_709_551_616.0 && x.fract() == 0.0);
        let (file, at, value) = (self.file.to_owned(), Location::Json(path), show(v));
        Err(if negative {
            InputError::Negative { file, at, value }
        } else if past_u64 {
            InputError::OutOfRange { file, at, value }
        } else {
            InputError::NotANumber { file, at, value }
        })
    }

    fn program(&self, root: &Value, max_tensors: usize) -> Result<Program, InputError> {
        let obj = self.object("<root>", root)?;
        let name = self.string(obj, "", "name")?.to_owned();
        let raw_tensors = self.array(obj, "", "tensors")?;
        let raw_ops = self.array(obj, "", "ops")?;
        let max = max_tensors.min(u32::MAX as usize);
        if raw_tensors.len() > max {
            return Err(InputError::TooMany {
                file: self.file.to_owned(),
                at: Location::Json(format!("tensors[{max}]")),
                what: "tensors",
                max,
            });
        }
        let mut tensors = Vec::with_capacity(raw_tensors.len());
        let mut by_name: HashMap<&str, u32> = HashMap::with_capacity(raw_tensors.len());
        for (i, raw) in raw_tensors.iter().enumerate() {
            let path = format!("tensors[{i}]");
            let t = self.object(&path, raw)?;
            let tname = self.string(t, &path, "name")?;
            if tname.is_empty() {
                return Err(InputError::EmptyName {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "name")),
                });
            }
            let bytes = self.unsigned(self.field(t, &path, "bytes")?, join(&path, "bytes"))?;
            if align_up(bytes, PAGE).is_none() {
                return Err(InputError::SizeOverflow {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "bytes")),
                    value: bytes,
                });
            }
            let kind_value = self.field(t, &path, "kind")?;
            let kind = match kind_value.as_str() {
                Some("input") => TensorKind::Input,
                Some("output") => TensorKind::Output,
                Some("weight") => TensorKind::Weight,
                Some("intermediate") => TensorKind::Intermediate,
                _ => {
                    return Err(self.err_type(
                        join(&path, "kind"),
                        "one of input|output|weight|intermediate",
                        kind_value,
                    ))
                }
            };
            if bytes == 0 && !kind.is_loaded() {
                return Err(InputError::ZeroSize {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "bytes")),
                    name: tname.to_owned(),
                });
            }
            let address = match t.get("address") {
                None | Some(Value::Null) => None,
                Some(v) => Some(self.unsigned(v, join(&path, "address"))?),
            };
            if let (TensorKind::Intermediate, Some(address)) = (kind, address) {
                return Err(InputError::AddressOnIntermediate {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "address")),
                    name: tname.to_owned(),
                    address,
                });
            }
            let shared = self.flag(t, &path, "shared")?;
            if shared && kind != TensorKind::Intermediate {
                return Err(InputError::SharedPreplaced {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "shared")),
                    name: tname.to_owned(),
                    kind: kind.as_str(),
                });
            }
            // `i < max <= u32::MAX`, so the index fits.
            if let Some(first) = by_name.insert(tname, i as u32) {
                return Err(InputError::Duplicate {
                    file: self.file.to_owned(),
                    at: Location::Json(join(&path, "name")),
                    name: tname.to_owned(),
                    first: Location::Json(format!("tensors[{first}].name")),
                });
            }
            tensors.push(Tensor { name: tname.to_owned(), bytes, kind, address, shared });
        }

        // Where each tensor was first written (op index, position in its outputs).
        let mut defined: Vec<Option<(usize, usize)>> = vec![None; tensors.len()];
        let mut ops = Vec::with_capacity(raw_ops.len());
        for (i, raw) in raw_ops.iter().enumerate() {
            let path = format!("ops[{i}]");
            let o = self.object(&path, raw)?;
            let oname = self.string(o, &path, "name")?.to_owned();
            let optype = self.string(o, &path, "op")?.to_owned();
            let collective = self.flag(o, &path, "collective")?;
            let inputs = self.names(o, &path, "inputs", &by_name)?;
            for (k, &t) in inputs.iter().enumerate() {
                let tensor = &tensors[t as usize];
                if !tensor.kind.is_loaded() && defined[t as usize].is_none() {
                    return Err(InputError::ReadBeforeDef {
                        file: self.file.to_owned(),
                        at: Location::Json(format!("{path}.inputs[{k}]")),
                        name: tensor.name.clone(),
                        kind: tensor.kind.as_str(),
                    });
                }
            }
            let outputs = self.names(o, &path, "outputs", &by_name)?;
            for (k, &t) in outputs.iter().enumerate() {
                let tensor = &tensors[t as usize];
                let at = Location::Json(format!("{path}.outputs[{k}]"));
                if tensor.kind.is_loaded() {
                    return Err(InputError::WritesPreloaded {
                        file: self.file.to_owned(),
                        at,
                        name: tensor.name.clone(),
                        kind: tensor.kind.as_str(),
                    });
                }
                if let Some((op0, k0)) = defined[t as usize] {
                    return Err(InputError::Redefined {
                        file: self.file.to_owned(),
                        at,
                        name: tensor.name.clone(),
                        first: Location::Json(format!("ops[{op0}].outputs[{k0}]")),
                    });
                }
                defined[t as usize] = Some((i, k));
            }
            ops.push(Op { name: oname, op: optype, inputs, outputs, collective });
        }
        for (i, t) in tensors.iter().enumerate() {
            if !t.kind.is_loaded() && defined[i].is_none() {
                return Err(InputError::NeverDefined {
                    file: self.file.to_owned(),
                    at: Location::Json(format!("tensors[{i}]")),
                    name: t.name.clone(),
                    kind: t.kind.as_str(),
                });
            }
        }
        Ok(Program { name, tensors, ops })
    }

    /// Resolves `obj[key]`, an array of tensor names, to tensor indices.
    fn names(
        &self,
        obj: &Map<String, Value>,
        path: &str,
        key: &str,
        by_name: &HashMap<&str, u32>,
    ) -> Result<Vec<u32>, InputError> {
        let list = self.array(obj, path, key)?;
        let mut out = Vec::with_capacity(list.len());
        for (k, v) in list.iter().enumerate() {
            let here = format!("{path}.{key}[{k}]");
            let name = v.as_str().ok_or_else(|| self.err_type(here.clone(), "a tensor name (string)", v))?;
            let index = by_name.get(name).ok_or_else(|| InputError::UnknownTensor {
                file: self.file.to_owned(),
                at: Location::Json(here),
                name: name.to_owned(),
            })?;
            out.push(*index);
        }
        Ok(out)
    }
}

/// `path.key`, or `key` at the root.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Most characters of a JSON value (compact text, perhaps a whole object) an error repeats.
const MAX_JSON_CHARS: usize = 80;

/// A JSON value as compact text, shortened to [`MAX_JSON_CHARS`] characters
/// ([`super::error::shorten_to`]).
fn show(v: &Value) -> String {
    super::error::shorten_to(&v.to_string(), MAX_JSON_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(tensors: &[(&str, u64, TensorKind, Option<u64>)]) -> Program {
        Program {
            name: "p".into(),
            tensors: tensors
                .iter()
                .map(|&(name, bytes, kind, address)| Tensor {
                    name: name.into(),
                    bytes,
                    kind,
                    address,
                    shared: false,
                })
                .collect(),
            ops: Vec::new(),
        }
    }

    #[test]
    fn packs_in_file_order_aligned() {
        use TensorKind::*;
        let p = program(&[
            ("a", 100, Input, None),
            ("t", 5000, Intermediate, None),
            ("w", 4096, Weight, None),
            ("z", 0, Weight, None),
            ("o", 4097, Output, None),
        ]);
        assert_eq!(
            pack_preplaced(&p, 4096).unwrap(),
            vec![Some(0), None, Some(4096), Some(8192), Some(8192)]
        );
    }

    #[test]
    fn packed_tensors_skip_explicit_ones() {
        use TensorKind::*;
        let p = program(&[
            ("a", 4096, Input, None),
            ("e", 8192, Weight, Some(8192)),
            ("b", 8192, Weight, None),
            ("c", 4096, Weight, None),
            ("z", 0, Weight, None),
        ]);
        // a: [0,4K); b needs 8K: [4K,12K) would hit e [8K,16K) -> 16K; c -> 24K; z -> 28K.
        assert_eq!(
            pack_preplaced(&p, 4096).unwrap(),
            vec![Some(0), Some(8192), Some(16384), Some(24576), Some(28672)]
        );
    }

    #[test]
    fn zero_byte_tensor_is_not_put_inside_an_explicit_one() {
        use TensorKind::*;
        let p = program(&[("e", 4096, Weight, Some(0)), ("z", 0, Weight, None)]);
        assert_eq!(pack_preplaced(&p, 4096).unwrap(), vec![Some(0), Some(4096)]);
    }

    #[test]
    fn pack_rejects_bad_explicit_addresses() {
        use TensorKind::*;
        let p = program(&[("e", 10, Weight, Some(100))]);
        let e = pack_preplaced(&p, 4096).unwrap_err();
        assert_eq!(e.to_string(), "p: tensors[0].address: address 100 of `e` is not a multiple of 4096");
        let p = program(&[("e", 5000, Weight, Some(0)), ("f", 1, Input, Some(4096))]);
        let e = pack_preplaced(&p, 4096).unwrap_err();
        assert_eq!(e.to_string(), "p: pre-placed `e` at bytes [0, 8192) overlaps `f` at bytes [4096, 8192)");
        let p = program(&[("e", 1, Weight, Some(u64::MAX - 4095))]);
        assert!(matches!(pack_preplaced(&p, 4096), Err(InputError::AddressOverflow { bytes: 1, .. })));
        assert!(matches!(pack_preplaced(&p, 3000), Err(InputError::BadAlign { align: 3000 })));
    }

    #[test]
    fn ignores_extra_fields_and_reads_flags() {
        let text = r#"{"name": "m", "extra": [1],
          "tensors": [{"name": "x", "bytes": 8, "kind": "input", "address": 4096, "dtype": "f32"},
                      {"name": "y", "bytes": 8, "kind": "intermediate", "shared": true}],
          "ops": [{"name": "n0", "op": "AllReduce", "inputs": ["x", "x"], "outputs": ["y"],
                   "collective": true, "attrs": {}}]}"#;
        let p = parse_program(text, "m.json", 10).unwrap();
        assert_eq!(p.tensors[0].address, Some(4096));
        assert!(p.tensors[1].shared);
        assert_eq!(
            p.ops[0],
            Op {
                name: "n0".into(),
                op: "AllReduce".into(),
                inputs: vec![0, 0],
                outputs: vec![1],
                collective: true
            }
        );
    }

    /// `"shared": true` is for intermediates: on an input, output or weight (pre-placed on
    /// each core) it is refused naming the tensor and the flag (a trial: dropped silently).
    #[test]
    fn a_shared_flag_on_a_pre_placed_kind_is_refused() {
        for kind in ["input", "weight", "output"] {
            let text = format!(
                r#"{{"name": "m", "tensors": [{{"name": "x", "bytes": 8, "kind": "input"}},
                    {{"name": "t", "bytes": 8, "kind": "{kind}", "shared": true}}],
                  "ops": [{{"name": "n0", "op": "Relu", "inputs": ["x"], "outputs": ["t"]}}]}}"#
            );
            let e = parse_program(&text, "m.json", 10).unwrap_err();
            assert!(matches!(&e, InputError::SharedPreplaced { name, .. } if name == "t"), "{e:?}");
            assert_eq!(
                e.to_string(),
                format!(
                    "m.json: tensors[1].shared: {kind} tensor `t` is flagged shared (only intermediates are placed in \
                     the shared region; inputs, outputs and weights are pre-placed on each core)"
                )
            );
        }
    }
}
