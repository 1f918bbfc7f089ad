//! ONNX nodes that contradict their op are refused naming the node, whatever shape the file
//! declares for their outputs; a declared shape stands in only where the rule needs a value
//! known at run time. Each case is one a fresh-user trial (2026-12-08) built with the `onnx`
//! package and got imported with exit 0 (the Einsum ellipses: a panic, exit 101).

#[path = "support/model_builder.rs"]
mod model_builder;

use dramalloc_model_formats::onnx::{GraphProto, NodeProto, TensorProto};
use dramalloc_sim::input::import::{import_bytes, ImportOptions, ModelFormat};
use model_builder::*;

/// One node `n` reading graph input `x` (f32 of `shape`) and weights `init`, writing `y`,
/// whose shape the file declares as `declared` (none: `None`).
fn model(n: NodeProto, shape: &[i64], init: Vec<TensorProto>, declared: Option<&[i64]>) -> GraphProto {
    GraphProto {
        name: Some("g".into()),
        input: vec![value_info("x", F32, Some(dims(shape)))],
        output: vec![value_info("y", F32, declared.map(dims))],
        initializer: init,
        node: vec![n],
        ..Default::default()
    }
}

/// The import's error message, or the bytes of tensor `y` where it succeeds.
fn import(g: GraphProto) -> Result<u64, String> {
    let got = import_bytes(&onnx_model(g), "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(got.program.tensors.iter().find(|t| t.name == "y").map_or(0, |t| t.bytes))
}

fn einsum(equation: &str, shape: &[i64]) -> Result<u64, String> {
    let n = with_string(node("e", "Einsum", &["x"], &["y"]), "equation", equation);
    import(model(n, shape, vec![], None))
}

#[test]
fn einsum_terms_must_name_every_dimension_once() {
    let x = [2, 3, 4, 5];
    // valid: a transpose, a sum, a diagonal-free reduction, ellipses in front, behind, alone
    assert_eq!(einsum("abcd->dcba", &x), Ok(2 * 3 * 4 * 5 * 4));
    assert_eq!(einsum("abcd->", &x), Ok(4));
    assert_eq!(einsum("...d->d", &x), Ok(5 * 4));
    assert_eq!(einsum("a...->...", &x), Ok(3 * 4 * 5 * 4));
    assert_eq!(einsum("ab...", &x), Ok(4 * 5 * 2 * 3 * 4)); // implicit: `...ab`
    assert_eq!(einsum("...->...", &x), Ok(2 * 3 * 4 * 5 * 4));
    // a term with fewer letters than the rank and no ellipsis, or more letters
    assert_eq!(
        einsum("ab->", &x),
        Err("m.onnx: node `e` (Einsum): operand 0's term `ab` names 2 dimensions, its shape [2, 3, 4, 5] has 4".into())
    );
    assert_eq!(
        einsum("abcde...->", &x),
        Err("m.onnx: node `e` (Einsum): operand 0's term `abcde...` names 5 dimensions, its shape [2, 3, 4, 5] has 4"
            .into())
    );
    // malformed ellipses (these panicked: "range end index 8 out of range for slice of length 4")
    for eq in ["....->", "....->.", "a.b.->"] {
        let e = einsum(eq, &x).unwrap_err();
        assert!(e.starts_with("m.onnx: node `e` (Einsum): "), "{eq}: {e}");
        assert!(e.contains("neither a letter nor part of an ellipsis `...`"), "{eq}: {e}");
    }
    assert_eq!(
        einsum("......->", &x),
        Err("m.onnx: node `e` (Einsum): operand 0's term `......` has two ellipses (`...`)".into())
    );
    // an output letter twice (sized [4, 4] before), or not an input's
    assert_eq!(einsum("abcd->aa", &x), Err("m.onnx: node `e` (Einsum): output `aa` names `a` twice".into()));
    assert_eq!(
        einsum("abcd->z", &x),
        Err("m.onnx: node `e` (Einsum): output letter `z` is not an input letter".into())
    );
}

#[test]
fn a_declared_output_does_not_make_a_contradicting_node_valid() {
    // MatMul [2, 8] x [5, 16]: declared [2, 16], imported as 128 bytes before
    let mm = model(
        node("mm", "MatMul", &["x", "w"], &["y"]),
        &[2, 8],
        vec![weight("w", &[5, 16])],
        Some(&[2, 16]),
    );
    assert_eq!(
        import(mm),
        Err("m.onnx: node `mm` (MatMul): inner dimensions differ: [2, 8] @ [5, 16]".into())
    );
    let ok = model(
        node("mm", "MatMul", &["x", "w"], &["y"]),
        &[2, 8],
        vec![weight("w", &[8, 16])],
        Some(&[2, 16]),
    );
    assert_eq!(import(ok), Ok(2 * 16 * 4));
    // Conv with dilations 0: sized as if its window were one element before
    let conv = |d: i64| {
        let n = with_ints(node("c", "Conv", &["x", "w"], &["y"]), "dilations", &[d, d]);
        model(n, &[1, 3, 8, 8], vec![weight("w", &[4, 3, 3, 3])], Some(&[1, 4, 8, 8]))
    };
    assert_eq!(
        import(conv(0)),
        Err("m.onnx: node `c` (Conv): kernel 3, stride 1 and dilation 0 must be positive".into())
    );
    assert_eq!(import(conv(1)), Ok(4 * 6 * 6 * 4));
    // Softmax along an axis the input does not have
    let softmax = |axis: i64| with_int(node("s", "Softmax", &["x"], &["y"]), "axis", axis);
    assert_eq!(
        import(model(softmax(-9), &[1, 2, 3, 4], vec![], Some(&[1, 2, 3, 4]))),
        Err("m.onnx: node `s` (Softmax): attribute `axis`: axis -9 is out of range for rank 4".into())
    );
    assert_eq!(import(model(softmax(-4), &[1, 2, 3, 4], vec![], None)), Ok(24 * 4));
}
