//! The equivalence of an imported program and a reference program (issue 15).
//! Uses: program_json (Program); used by: the import_equivalence example, tests.
//!
//! Whether an imported program equals a reference program in everything the planner sees
//! (issue 15's definition of "the imported program equals the shared JSON"):
//!
//! 1. the same op sequence: for op `i`, the same op type, the same bytes of its
//!    intermediate inputs (inputs of kind `intermediate` or `output`, in order) and the same
//!    bytes of its outputs (in order);
//! 2. for every tensor kind, the same sorted list of tensor sizes;
//! 3. the same total weight bytes.
//!
//! Names are not part of it; [`Equivalence::same_names`] reports in addition whether every
//! tensor and op name and the tensor order agree too. O((T + E) log T).

use crate::input::{Program, TensorKind};

/// The outcome of [`compare`]: the differences, first ones first (empty when equivalent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Equivalence {
    /// One line per difference, naming the op index or the kind and both values.
    pub differences: Vec<String>,
    /// Whether tensor names, their order and op names agree as well.
    pub same_names: bool,
}

impl Equivalence {
    /// No difference.
    #[must_use]
    pub fn is_equivalent(&self) -> bool {
        self.differences.is_empty()
    }
}

/// At most this many op differences are listed.
const MAX_OP_DIFFERENCES: usize = 5;

const KINDS: [TensorKind; 4] =
    [TensorKind::Input, TensorKind::Output, TensorKind::Weight, TensorKind::Intermediate];

/// Compares `got` with the reference `want` (see the module docs).
///
/// ```
/// use dramalloc_sim::input::import::compare;
/// use dramalloc_sim::input::parse_program;
/// let a = parse_program(r#"{"name": "a", "tensors": [{"name": "x", "bytes": 8, "kind": "input"},
///   {"name": "y", "bytes": 8, "kind": "output"}],
///   "ops": [{"name": "r", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}]}"#, "a", 10)?;
/// let mut b = a.clone();
/// assert!(compare(&a, &b).is_equivalent());
/// b.tensors[1].bytes = 4;
/// assert_eq!(compare(&a, &b).differences[0], "op 0 (r, Relu): output bytes [8] vs [4]");
/// # Ok::<(), dramalloc_sim::input::InputError>(())
/// ```
#[must_use]
pub fn compare(got: &Program, want: &Program) -> Equivalence {
    let mut differences = Vec::new();
    if got.ops.len() != want.ops.len() {
        differences.push(format!("{} ops vs {}", got.ops.len(), want.ops.len()));
    }
    let planned = |p: &Program, list: &[u32]| -> Vec<u64> {
        list.iter()
            .map(|&t| &p.tensors[t as usize])
            .filter(|t| !t.kind.is_loaded())
            .map(|t| t.bytes)
            .collect()
    };
    let bytes = |p: &Program, list: &[u32]| -> Vec<u64> {
        list.iter().map(|&t| p.tensors[t as usize].bytes).collect()
    };
    let mut op_diffs = 0usize;
    for (i, (a, b)) in got.ops.iter().zip(&want.ops).enumerate() {
        let mut here = Vec::new();
        if a.op != b.op {
            here.push(format!("op type {} vs {}", a.op, b.op));
        }
        let (ia, ib) = (planned(got, &a.inputs), planned(want, &b.inputs));
        if ia != ib {
            here.push(format!("intermediate input bytes {ia:?} vs {ib:?}"));
        }
        let (oa, ob) = (bytes(got, &a.outputs), bytes(want, &b.outputs));
        if oa != ob {
            here.push(format!("output bytes {oa:?} vs {ob:?}"));
        }
        if !here.is_empty() {
            op_diffs += 1;
            if op_diffs <= MAX_OP_DIFFERENCES {
                differences.push(format!("op {i} ({}, {}): {}", a.name, a.op, here.join("; ")));
            }
        }
    }
    if op_diffs > MAX_OP_DIFFERENCES {
        differences.push(format!("... {} more ops differ", op_diffs - MAX_OP_DIFFERENCES));
    }
    for kind in KINDS {
        let sorted = |p: &Program| -> Vec<u64> {
            let mut v: Vec<u64> = p.tensors.iter().filter(|t| t.kind == kind).map(|t| t.bytes).collect();
            v.sort_unstable();
            v
        };
        let (a, b) = (sorted(got), sorted(want));
        if a != b {
            differences.push(format!("{} tensors: {}", kind.as_str(), first_difference(&a, &b)));
        }
    }
    let weight_total = |p: &Program| -> u128 {
        p.tensors.iter().filter(|t| t.kind == TensorKind::Weight).map(|t| u128::from(t.bytes)).sum()
    };
    let (wa, wb) = (weight_total(got), weight_total(want));
    if wa != wb {
        differences.push(format!("total weight bytes {wa} vs {wb}"));
    }
    let same_names = got.tensors.len() == want.tensors.len()
        && got.tensors.iter().zip(&want.tensors).all(|(a, b)| a.name == b.name)
        && got.ops.len() == want.ops.len()
        && got.ops.iter().zip(&want.ops).all(|(a, b)| a.name == b.name);
    Equivalence { differences, same_names }
}

/// How two sorted size lists differ: their lengths, and the first differing position.
fn first_difference(a: &[u64], b: &[u64]) -> String {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    format!(
        "{} vs {} tensors, sorted sizes first differ at position {at}: {} vs {}",
        a.len(),
        b.len(),
        a.get(at).map_or("none".to_owned(), u64::to_string),
        b.get(at).map_or("none".to_owned(), u64::to_string)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_program;

    fn program(weight: u64, mid: u64, op: &str) -> Program {
        let text = format!(
            r#"{{"name": "p", "tensors": [{{"name": "x", "bytes": 8, "kind": "input"}},
              {{"name": "w", "bytes": {weight}, "kind": "weight"}},
              {{"name": "t", "bytes": {mid}, "kind": "intermediate"}},
              {{"name": "y", "bytes": 8, "kind": "output"}}],
              "ops": [{{"name": "a", "op": "Conv", "inputs": ["x", "w"], "outputs": ["t"]}},
                      {{"name": "b", "op": "{op}", "inputs": ["t"], "outputs": ["y"]}}]}}"#
        );
        parse_program(&text, "p", 10).unwrap()
    }

    #[test]
    fn names_every_kind_of_difference() {
        assert!(compare(&program(4, 16, "Relu"), &program(4, 16, "Relu")).is_equivalent());
        let e = compare(&program(4, 16, "Relu"), &program(12, 32, "Sigmoid"));
        assert_eq!(
            e.differences,
            vec![
                "op 0 (a, Conv): output bytes [16] vs [32]",
                "op 1 (b, Relu): op type Relu vs Sigmoid; intermediate input bytes [16] vs [32]",
                "weight tensors: 1 vs 1 tensors, sorted sizes first differ at position 0: 4 vs 12",
                "intermediate tensors: 1 vs 1 tensors, sorted sizes first differ at position 0: 16 vs 32",
                "total weight bytes 4 vs 12",
            ]
        );
        assert!(e.same_names);
    }

    #[test]
    fn other_names_are_reported_but_not_a_difference() {
        let mut b = program(4, 16, "Relu");
        b.tensors[2].name = "renamed".into();
        let e = compare(&program(4, 16, "Relu"), &b);
        assert!(e.is_equivalent());
        assert!(!e.same_names);
    }
}
