//! Program JSON text in the public traces' layout.
//! Uses: program_json (Program); used by: mod.rs.
//!
//! Writes an imported program as program JSON in the layout of the public traces: one tensor
//! and one op per line, header fields first.
//!
//! ```text
//! {
//!  "name": "...", "source": "...", "sha256": "...", ["input_shapes": {"x": [1, 3, 224, 224]},]
//!  "tensors": [
//!   {"name": "x", "bytes": 602112, "kind": "input"},
//!   ...
//!  ],
//!  "ops": [
//!   {"name": "Conv_0", "op": "Conv", "inputs": ["x", "w"], "outputs": ["y"]},
//!   ...
//!  ]
//! }
//! ```
//!
//! Every string goes through `serde_json`, so names with quotes or control characters stay
//! valid JSON. O(size of the output).

use std::fmt::Write;

use crate::input::Program;

/// Provenance written before the tensors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// Where the model came from (the path given to `import`).
    pub source: String,
    /// The model file's SHA-256, lower-case hex.
    pub sha256: String,
    /// Shapes fixed for inputs with symbolic dimensions, in input order.
    pub input_shapes: Vec<(String, Vec<u64>)>,
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// One `line(item)` per item, indented by two spaces, separated by commas.
fn lines<T>(out: &mut String, items: &[T], line: impl Fn(&T) -> String) {
    for (i, item) in items.iter().enumerate() {
        let sep = if i + 1 < items.len() { "," } else { "" };
        let _ = writeln!(out, "  {}{sep}", line(item));
    }
}

/// `p` as program JSON text (see the module docs), ending in a newline.
#[must_use]
pub fn program_text(p: &Program, prov: &Provenance) -> String {
    let mut out = String::with_capacity(64 * (p.tensors.len() + 2 * p.ops.len()) + 256);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{{\n \"name\": {},", quote(&p.name));
    let _ = writeln!(out, " \"source\": {},", quote(&prov.source));
    let _ = writeln!(out, " \"sha256\": {},", quote(&prov.sha256));
    if !prov.input_shapes.is_empty() {
        let shapes: Vec<String> = prov
            .input_shapes
            .iter()
            .map(|(name, dims)| {
                let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
                format!("{}: [{}]", quote(name), dims.join(", "))
            })
            .collect();
        let _ = writeln!(out, " \"input_shapes\": {{{}}},", shapes.join(", "));
    }
    out.push_str(" \"tensors\": [\n");
    lines(&mut out, &p.tensors, |t| {
        format!("{{\"name\": {}, \"bytes\": {}, \"kind\": \"{}\"}}", quote(&t.name), t.bytes, t.kind.as_str())
    });
    out.push_str(" ],\n \"ops\": [\n");
    let names = |list: &[u32]| -> String {
        list.iter().map(|&t| quote(&p.tensors[t as usize].name)).collect::<Vec<_>>().join(", ")
    };
    lines(&mut out, &p.ops, |op| {
        format!(
            "{{\"name\": {}, \"op\": {}, \"inputs\": [{}], \"outputs\": [{}]}}",
            quote(&op.name),
            quote(&op.op),
            names(&op.inputs),
            names(&op.outputs)
        )
    });
    out.push_str(" ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{parse_program, Op, Tensor, TensorKind};

    #[test]
    fn round_trips_through_the_program_reader() {
        let t =
            |name: &str, bytes, kind| Tensor { name: name.into(), bytes, kind, address: None, shared: false };
        let p = Program {
            name: "m\"1".into(),
            tensors: vec![t("x", 8, TensorKind::Input), t("y\n", 8, TensorKind::Output)],
            ops: vec![Op {
                name: "n".into(),
                op: "Relu".into(),
                inputs: vec![0],
                outputs: vec![1],
                collective: false,
            }],
        };
        let prov = Provenance {
            source: "m.onnx".into(),
            sha256: "ab".into(),
            input_shapes: vec![("x".into(), vec![1, 2])],
        };
        let text = program_text(&p, &prov);
        assert_eq!(
            text,
            "{\n \"name\": \"m\\\"1\",\n \"source\": \"m.onnx\",\n \"sha256\": \"ab\",\n \"input_shapes\": {\"x\": [1, 2]},\n \"tensors\": [\n  {\"name\": \"x\", \"bytes\": 8, \"kind\": \"input\"},\n  {\"name\": \"y\\n\", \"bytes\": 8, \"kind\": \"output\"}\n ],\n \"ops\": [\n  {\"name\": \"n\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\\n\"]}\n ]\n}\n"
        );
        assert_eq!(parse_program(&text, "t", 10).unwrap(), p);
    }
}
