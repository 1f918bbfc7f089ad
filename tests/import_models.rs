//! Model files in: the shipped ONNX and TFLite models import to exactly their programs, an
//! imported model runs verified on 4 cores tensor-parallel, symbolic input dimensions and
//! `--input-shape` (one dimension name, one size in every input), and the shape rules on a
//! small graph of common ops.

#[path = "support/model_builder.rs"]
mod model_builder;

use std::path::{Path, PathBuf};

use dramalloc_model_formats::onnx::{GraphProto, NodeProto};
use dramalloc_sim::input::import::{compare, import_bytes, import_model, ImportOptions, ModelFormat};
use dramalloc_sim::input::{read_program, TensorKind};
use dramalloc_sim::run::{run, RunOptions, Split};
use model_builder::*;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data").join(rel)
}

#[test]
fn shipped_onnx_and_tflite_models_import_exactly() {
    let cases = [
        ("models/onnx_resnet50.onnx", "models/onnx_resnet50.json", ModelFormat::Onnx, 176, 445),
        ("models/onnx_squeezenet.onnx", "models/onnx_squeezenet.json", ModelFormat::Onnx, 65, 118),
        (
            "models/mp_selfie_segmentation.tflite",
            "models/mp_selfie_segmentation.json",
            ModelFormat::Tflite,
            136,
            250,
        ),
    ];
    for (model, expected, format, ops, tensors) in cases {
        let got = import_model(&data(model), &ImportOptions::default()).unwrap();
        let want = read_program(&data(expected), 1_000_000).unwrap();
        assert_eq!(got.format, format);
        assert_eq!((got.program.ops.len(), got.program.tensors.len()), (ops, tensors), "{model}");
        let e = compare(&got.program, &want);
        assert!(e.is_equivalent() && e.same_names, "{model}: {:?}", e.differences);
        // Names, kinds, sizes and op lists too, not only the equivalence.
        assert_eq!(got.program, want, "{model}");
        assert!(!got.json.contains("input_shapes"), "{model}: no symbolic inputs");
    }
}

#[test]
fn the_json_carries_source_and_sha256() {
    let path = data("models/onnx_squeezenet.onnx");
    let got = import_model(&path, &ImportOptions::default()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&got.json).unwrap();
    assert_eq!(v["name"], "onnx_squeezenet");
    assert_eq!(v["source"], path.display().to_string());
    assert_eq!(v["sha256"], "770b0f3c8623e18bf58b53754d710051b4c268248422142980a132bbe6dfe908");
    // First tensor and first op, as in the public trace.
    assert_eq!(v["tensors"][0], serde_json::json!({"name": "data_0", "bytes": 602112, "kind": "input"}));
    assert_eq!(v["ops"][0]["op"], "Conv");
}

#[test]
fn an_imported_tflite_model_runs_verified_on_4_cores_tensor_parallel() {
    let got = import_model(&data("models/mp_selfie_segmentation.tflite"), &ImportOptions::default()).unwrap();
    let opts = RunOptions { cores: 4, split: Split::TensorParallel, ..RunOptions::default() };
    let out = run(&got.program, &opts).unwrap();
    assert_eq!(out.summary.verdict, "OK");
    assert_eq!(out.summary.cores, 4);
    assert!(out.summary.shared_tensors > 0);
    for c in &out.summary.per_core {
        assert_eq!(c.unaddressed, 0);
        assert!(c.hwm >= c.lower_bound);
    }
}

/// x [N, 3, H, 8] -> Reshape(x, Concat(Gather(Shape(x), [0]), [-1])) -> Relu -> y.
fn symbolic_graph() -> GraphProto {
    GraphProto {
        name: Some("g".into()),
        input: vec![value_info(
            "x",
            F32,
            Some(vec![sym("N"), dims(&[3])[0].clone(), sym("H"), dims(&[8])[0].clone()]),
        )],
        output: vec![value_info("y", F32, None)],
        initializer: vec![ints("zero", &[0]), ints("minus_one", &[-1])],
        node: vec![
            node("shape", "Shape", &["x"], &["s"]),
            with_int(node("batch", "Gather", &["s", "zero"], &["n"]), "axis", 0),
            with_int(node("target", "Concat", &["n", "minus_one"], &["t"]), "axis", 0),
            node("flat", "Reshape", &["x", "t"], &["r"]),
            node("relu", "Relu", &["r"], &["y"]),
        ],
        ..Default::default()
    }
}

#[test]
fn symbolic_dimensions_are_1_unless_given_and_shape_chains_fold() {
    let bytes = onnx_model(symbolic_graph());
    // (input shapes given, bytes of x, r and y, the recorded shape).
    let cases = [
        (Vec::new(), 96, "\"input_shapes\": {\"x\": [1, 3, 1, 8]},"),
        (vec![("x".into(), vec![2, 3, 5, 8])], 960, "\"input_shapes\": {\"x\": [2, 3, 5, 8]},"),
    ];
    for (input_shapes, b, recorded) in cases {
        let options = ImportOptions { input_shapes, ..ImportOptions::default() };
        let got = import_bytes(&bytes, "m.onnx", "m", ModelFormat::Onnx, &options).unwrap();
        let sizes: Vec<(&str, u64, TensorKind)> =
            got.program.tensors.iter().map(|t| (t.name.as_str(), t.bytes, t.kind)).collect();
        use TensorKind::*;
        assert_eq!(sizes, vec![("x", b, Input), ("t", 16, Weight), ("r", b, Intermediate), ("y", b, Output)]);
        let ops: Vec<&str> = got.program.ops.iter().map(|o| o.op.as_str()).collect();
        assert_eq!(ops, vec!["Reshape", "Relu"]);
        assert!(got.json.contains(recorded), "{}", got.json);
    }
}

#[test]
fn shape_rules_on_a_small_graph_of_common_ops() {
    let mut maxpool = with_ints(node("pool", "MaxPool", &["c"], &["p"]), "kernel_shape", &[2, 2]);
    maxpool = with_ints(maxpool, "strides", &[2, 2]);
    maxpool = with_int(maxpool, "ceil_mode", 1);
    let graph = GraphProto {
        name: Some("g".into()),
        input: vec![value_info("x", F32, Some(dims(&[2, 3, 9, 9])))],
        output: vec![value_info("z", F32, None)],
        initializer: vec![
            weight("w", &[4, 3, 3, 3]),
            weight("w2", &[50, 5]),
            ints("flat", &[2, -1]),
            ints("halves", &[50, 50]),
        ],
        node: vec![
            with_ints(node("conv", "Conv", &["x", "w"], &["c"]), "pads", &[1, 1, 1, 1]),
            maxpool,
            with_ints(node("nhwc", "Transpose", &["p"], &["t"]), "perm", &[0, 2, 3, 1]),
            node("reshape", "Reshape", &["t", "flat"], &["r"]),
            with_int(node("cut", "Split", &["r", "halves"], &["a", "b"]), "axis", 1),
            node("mm", "MatMul", &["a", "w2"], &["m"]),
            node("sm", "Softmax", &["m"], &["z"]),
        ],
        ..Default::default()
    };
    let got = import_bytes(&onnx_model(graph), "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default())
        .unwrap();
    let p = &got.program;
    let bytes = |name: &str| p.tensors.iter().find(|t| t.name == name).map(|t| t.bytes);
    // Conv [2,4,9,9]; MaxPool 2x2/2 with ceil_mode [2,4,5,5]; Transpose [2,5,5,4];
    // Reshape [2,100]; Split [2,50] x 2; MatMul [2,5]; Softmax [2,5]; float32.
    let expected = [
        ("c", 2 * 4 * 9 * 9),
        ("p", 200),
        ("t", 200),
        ("r", 200),
        ("a", 100),
        ("b", 100),
        ("m", 10),
        ("z", 10),
    ];
    for (name, elements) in expected {
        assert_eq!(bytes(name), Some(4 * elements), "{name}");
    }
    let ops: Vec<&str> = p.ops.iter().map(|o| o.op.as_str()).collect();
    assert_eq!(ops, vec!["Conv", "MaxPool", "Transpose", "Reshape", "Split", "MatMul", "Softmax"]);
}

/// a [N, 16] + b [N, 16] -> s -> an op of another domain, declared [N, 16] -> c.
fn two_inputs_one_dimension_name() -> GraphProto {
    let n16 = || Some(vec![sym("N"), dims(&[16])[0].clone()]);
    let custom = NodeProto { domain: Some("x.y".into()), ..node("custom", "Opaque", &["s"], &["c"]) };
    GraphProto {
        name: Some("g".into()),
        input: vec![value_info("a", F32, n16()), value_info("b", F32, n16())],
        output: vec![value_info("c", F32, n16())],
        node: vec![node("add", "Add", &["a", "b"], &["s"]), custom],
        ..Default::default()
    }
}

#[test]
fn a_dimension_name_given_for_one_input_sizes_every_input_and_declaration() {
    let bytes = onnx_model(two_inputs_one_dimension_name());
    // Either input given: N = 8 for both inputs, the sum and the declared output.
    for given in ["a", "b"] {
        let options =
            ImportOptions { input_shapes: vec![(given.into(), vec![8, 16])], ..ImportOptions::default() };
        let got = import_bytes(&bytes, "m.onnx", "m", ModelFormat::Onnx, &options).unwrap();
        let sizes: Vec<(&str, u64)> =
            got.program.tensors.iter().map(|t| (t.name.as_str(), t.bytes)).collect();
        assert_eq!(sizes, vec![("a", 512), ("b", 512), ("s", 512), ("c", 512)], "--input-shape {given}=8x16");
        assert!(got.json.contains("\"input_shapes\": {\"a\": [8, 16], \"b\": [8, 16]},"), "{}", got.json);
    }
    // Both given, with one value for N: accepted; with two: refused, naming both.
    let shapes = |b: u64| vec![("a".into(), vec![8, 16]), ("b".into(), vec![b, 16])];
    let options = ImportOptions { input_shapes: shapes(8), ..ImportOptions::default() };
    assert!(import_bytes(&bytes, "m.onnx", "m", ModelFormat::Onnx, &options).is_ok());
    let options = ImportOptions { input_shapes: shapes(4), ..ImportOptions::default() };
    let e = import_bytes(&bytes, "m.onnx", "m", ModelFormat::Onnx, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.onnx: symbolic dimension `N` is 8 in --input-shape a but 4 in --input-shape b (one name is one size in the whole model)"
    );
}
