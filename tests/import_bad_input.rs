//! Bad model files: each kind gets its typed error, whose one-line message names the file and
//! the node or tensor (truncated and non-model files, unknown data types, dynamic shapes
//! without `--input-shape`, cycles, out-of-range indices); an unknown op stays opaque.

#[path = "support/model_builder.rs"]
mod model_builder;

use std::path::{Path, PathBuf};

use dramalloc_model_formats::onnx::{GraphProto, TensorProto};
use dramalloc_sim::input::import::{import_bytes, import_model, ImportError, ImportOptions, ModelFormat};
use model_builder::*;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data").join(rel)
}

fn onnx(graph: GraphProto) -> Result<dramalloc_sim::input::import::Imported, ImportError> {
    import_bytes(&onnx_model(graph), "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default())
}

fn onnx_err(graph: GraphProto) -> String {
    onnx(graph).expect_err("the import must fail").to_string()
}

/// A file in the temp folder with `bytes`, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let p = std::env::temp_dir().join(format!("dramalloc-import-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        TempFile(p)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// x [1, 4] -> Relu -> y, plus `extra` nodes, inputs and initializers.
fn graph(nodes: Vec<dramalloc_model_formats::onnx::NodeProto>, init: Vec<TensorProto>) -> GraphProto {
    GraphProto {
        name: Some("g".into()),
        input: vec![value_info("x", F32, Some(dims(&[1, 4])))],
        output: vec![value_info("y", F32, None)],
        initializer: init,
        node: nodes,
        ..Default::default()
    }
}

#[test]
fn truncated_onnx_and_tflite_files_are_malformed() {
    let onnx = std::fs::read(data("models/onnx_squeezenet.onnx")).unwrap();
    let f = TempFile::new("cut.onnx", &onnx[..onnx.len() / 2]);
    let e = import_model(&f.0, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, ImportError::Malformed { format: "ONNX", .. }), "{e}");
    assert!(e.to_string().starts_with(&format!("{}: malformed ONNX file: ", f.0.display())), "{e}");

    let tfl = std::fs::read(data("models/mp_selfie_segmentation.tflite")).unwrap();
    let f = TempFile::new("cut.tflite", &tfl[..4096]);
    let e = import_model(&f.0, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, ImportError::Malformed { format: "TFLite", .. }), "{e}");

    let f = TempFile::new("empty.tflite", b"");
    let e = import_model(&f.0, &ImportOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: malformed TFLite file: 0 bytes is too short for a flatbuffer", f.0.display())
    );
    // an empty .onnx decodes as a model with nothing in it: said as empty, not "no graph"
    let f = TempFile::new("empty.onnx", b"");
    let e = import_model(&f.0, &ImportOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), format!("{}: malformed ONNX file: the file is empty", f.0.display()));
}

#[test]
fn a_file_that_is_no_model_is_named_as_such() {
    let f = TempFile::new("notes.txt", b"not a model\n");
    let e = import_model(&f.0, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, ImportError::UnknownFormat { .. }), "{e}");
    assert!(e
        .to_string()
        .starts_with(&format!("{}: not an ONNX (.onnx) or TFLite (.tflite) model: ", f.0.display())));
    // The same bytes named .onnx are a malformed ONNX file.
    let f = TempFile::new("notes.onnx", b"not a model\n");
    assert!(matches!(
        import_model(&f.0, &ImportOptions::default()),
        Err(ImportError::Malformed { format: "ONNX", .. })
    ));
    // A valid protobuf that holds no graph (an empty file is said to be empty: above).
    use prost::Message;
    let no_graph = dramalloc_model_formats::onnx::ModelProto { ir_version: Some(8), ..Default::default() };
    let e =
        import_bytes(&no_graph.encode_to_vec(), "m.onnx", "m", ModelFormat::Onnx, &ImportOptions::default())
            .unwrap_err();
    assert_eq!(e.to_string(), "m.onnx: the model has no graph");
    let missing = Path::new("/nonexistent/model.onnx");
    assert!(matches!(import_model(missing, &ImportOptions::default()), Err(ImportError::Io { .. })));
}

#[test]
fn unknown_and_unsized_data_types_name_the_tensor() {
    let mut w = weight("w", &[1, 4]);
    w.data_type = Some(99);
    let e = onnx_err(graph(vec![node("add", "Add", &["x", "w"], &["y"])], vec![w]));
    assert_eq!(e, "m.onnx: tensor `w`: unknown data type 99");
    let s = TensorProto { name: Some("s".into()), dims: vec![1], data_type: Some(8), ..Default::default() };
    let e = onnx_err(graph(vec![node("add", "Add", &["x", "s"], &["y"])], vec![s]));
    assert_eq!(e, "m.onnx: tensor `s`: data type STRING has no fixed element size");

    // TFLite: tensor type 42 does not exist.
    let bytes = tflite_model(
        &[(19, None)],
        vec![tfl_tensor("in", &[1, 4], 0, 0), tfl_tensor("out", &[1, 4], 42, 0)],
        vec![tfl_op(0, &[0], &[1])],
        &[0],
        &[1],
        &[],
    );
    let e =
        import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "m.tflite: tensor `out`: unknown data type 42");
}

#[test]
fn a_dynamic_shape_needs_input_shape() {
    let g = GraphProto {
        input: vec![value_info("x", F32, None)],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    assert_eq!(
        onnx_err(g.clone()),
        "m.onnx: input `x`: the file gives no shape; give --input-shape x=DIMS (e.g. 1x3x224x224)"
    );
    let options = ImportOptions { input_shapes: vec![("x".into(), vec![2, 8])], ..ImportOptions::default() };
    let got = import_bytes(&onnx_model(g.clone()), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap();
    assert_eq!(got.program.tensors[1].bytes, 64);
    let options = ImportOptions { input_shapes: vec![("z".into(), vec![2])], ..ImportOptions::default() };
    let e = import_bytes(&onnx_model(g), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap_err();
    assert_eq!(e.to_string(), "m.onnx: --input-shape z: the model has no such input (inputs: x)");
}

/// A shape rule that fails where an input's symbolic dimensions took 1 (no `--input-shape`)
/// says so (a trial: a model imported without its input's shape failed with "window 2 is
/// larger than padded input 1", which did not say where the 1 came from); with the shape
/// given, the same model imports.
#[test]
fn a_shape_rule_failing_on_defaulted_dimensions_says_so() {
    let pool = |n: dramalloc_model_formats::onnx::NodeProto| with_ints(n, "kernel_shape", &[2, 2]);
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(vec![sym("N"), dims(&[3])[0].clone(), sym("H"), sym("W")]))],
        ..graph(vec![pool(node("pool", "MaxPool", &["x"], &["y"]))], vec![])
    };
    assert_eq!(
        onnx_err(g.clone()),
        "m.onnx: node `pool` (MaxPool): window 2 is larger than padded input 1, and the file declares no static \
         shape for output `y` (the symbolic dimensions of input `x` were taken as 1: give --input-shape)"
    );
    let options =
        ImportOptions { input_shapes: vec![("x".into(), vec![1, 3, 8, 8])], ..ImportOptions::default() };
    let got = import_bytes(&onnx_model(g), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap();
    assert_eq!(got.program.tensors[1].bytes, 3 * 7 * 7 * 4);
}

#[test]
fn a_shape_that_needs_runtime_data_names_the_node_and_input() {
    // Reshape(x, s) with s a graph input: the output shape is known only at run time.
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(dims(&[1, 4]))), value_info("s", I64, Some(dims(&[2])))],
        ..graph(vec![node("view", "Reshape", &["x", "s"], &["y"])], vec![])
    };
    assert_eq!(
        onnx_err(g),
        "m.onnx: node `view` (Reshape): the output shape depends on the value of input 1 (`s`), which is not a constant, and the file declares no static shape for output `y`"
    );
}

#[test]
fn cycles_and_unsorted_graphs_name_the_nodes() {
    let g = graph(vec![node("a", "Add", &["x", "t2"], &["t1"]), node("b", "Relu", &["t1"], &["t2"])], vec![]);
    assert_eq!(
        onnx_err(GraphProto { output: vec![value_info("t2", F32, None)], ..g }),
        "m.onnx: the graph has a cycle: node `a` reads tensor `t2`, written by node `b`, which depends on `a`"
    );
    let g = graph(vec![node("b", "Relu", &["t"], &["y"]), node("a", "Relu", &["x"], &["t"])], vec![]);
    assert_eq!(
        onnx_err(g),
        "m.onnx: node `b` reads tensor `t` before node `a` writes it (nodes are not in topological order)"
    );
    let g = graph(vec![node("a", "Relu", &["nowhere"], &["y"])], vec![]);
    assert_eq!(onnx_err(g), "m.onnx: node `a` reads tensor `nowhere`, which nothing defines");

    // TFLite: op 0 reads tensor 2, which op 1 writes from op 0's output.
    let bytes = tflite_model(
        &[(0, None), (19, None)],
        vec![tfl_tensor("in", &[4], 0, 0), tfl_tensor("a", &[4], 0, 0), tfl_tensor("b", &[4], 0, 0)],
        vec![tfl_op(0, &[0, 2], &[1]), tfl_op(1, &[1], &[2])],
        &[0],
        &[2],
        &[],
    );
    let e =
        import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.tflite: the graph has a cycle: node `add_0` reads tensor `b`, written by node `relu_1`, which depends on `add_0`"
    );
}

#[test]
fn an_unknown_op_stays_opaque_with_its_tensors() {
    let mut custom = node("mine", "MyOp", &["x"], &["y"]);
    custom.domain = Some("example.custom".into());
    let g = GraphProto {
        output: vec![value_info("y", F32, Some(dims(&[2, 3])))],
        ..graph(vec![custom.clone()], vec![])
    };
    let got = onnx(g).unwrap();
    let op = &got.program.ops[0];
    assert_eq!((op.name.as_str(), op.op.as_str()), ("mine", "MyOp"));
    assert_eq!(got.program.tensors[1].bytes, 24);
    // Without a declared shape its output size is unknown: the error names node and tensor.
    assert_eq!(
        onnx_err(graph(vec![custom], vec![])),
        "m.onnx: node `mine` (MyOp): no shape rule for op `MyOp` of domain `example.custom`, and the file declares no static shape for output `y`"
    );

    // TFLite: a builtin code newer than the table, and a custom op.
    let bytes = tflite_model(
        &[(5000, None), (32, Some("MyFusedOp"))],
        vec![tfl_tensor("in", &[4], 0, 0), tfl_tensor("a", &[4], 0, 0), tfl_tensor("b", &[2, 4], 0, 0)],
        vec![tfl_op(0, &[0], &[1]), tfl_op(1, &[1, -1], &[2])],
        &[0],
        &[2],
        &[],
    );
    let got = import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default()).unwrap();
    let ops: Vec<(&str, &str)> = got.program.ops.iter().map(|o| (o.name.as_str(), o.op.as_str())).collect();
    assert_eq!(ops, vec![("builtin_5000_0", "BUILTIN_5000"), ("myfusedop_1", "MyFusedOp")]);
    assert_eq!(got.program.ops[1].inputs, vec![1]);
    assert_eq!(got.program.tensors[2].bytes, 32);
}

/// The message of importing a one-RELU TFLite model with these tensors and operator.
fn tflite_error(
    tensors: Vec<dramalloc_model_formats::tflite::Tensor>,
    op: dramalloc_model_formats::tflite::Operator,
) -> String {
    let bytes = tflite_model(&[(19, None)], tensors, vec![op], &[0], &[0], &[]);
    import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn tflite_indices_beyond_their_tables_are_named() {
    let two = |out_buffer| vec![tfl_tensor("in", &[4], 0, 0), tfl_tensor("out", &[4], 0, out_buffer)];
    assert_eq!(
        tflite_error(two(0), tfl_op(0, &[7], &[1])),
        "m.tflite: operator 0 (RELU) input 0: index 7 is out of range (the table has 2 entries)"
    );
    assert_eq!(
        tflite_error(two(3), tfl_op(0, &[0], &[1])),
        "m.tflite: tensor `out` buffer: index 3 is out of range (the table has 1 entries)"
    );
    assert_eq!(
        tflite_error(two(0), tfl_op(4, &[0], &[1])),
        "m.tflite: operator 0 opcode_index: index 4 is out of range (the table has 1 entries)"
    );
    // -1 is an optional input left out; any other negative index is refused (a trial's -5
    // was dropped like -1, leaving the op without its input)
    assert_eq!(
        tflite_error(two(0), tfl_op(0, &[-5], &[1])),
        "m.tflite: operator 0 (RELU) input 0: index -5 is out of range (the table has 2 entries)"
    );
}

/// An op's first input left out (`-1`) is refused, naming the op: left out, the op read only
/// constants and folded (a trial's first `CONV_2D` with input 0 = -1 folded the whole network
/// into one weight, and `run` said OK), where ONNX refuses the same with `input 0 is
/// missing`. A later input left out (the bias) stays optional.
#[test]
fn a_tflite_op_whose_first_input_is_left_out_is_refused() {
    let model = |inputs: &[i32]| {
        tflite_model(
            &[(3, None)],
            vec![
                tfl_tensor("in", &[1, 4, 4, 2], 0, 0),
                tfl_tensor("w", &[3, 1, 1, 2], 0, 1),
                tfl_tensor("out", &[1, 4, 4, 3], 0, 0),
            ],
            vec![tfl_op(0, inputs, &[2])],
            &[0],
            &[2],
            &[vec![0; 24]],
        )
    };
    let e =
        import_bytes(&model(&[-1, 1, -1]), "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default())
            .unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.tflite: node `conv_2d_0` (CONV_2D): input 0 is left out (-1), and an op's first input is never optional"
    );
    let got =
        import_bytes(&model(&[0, 1, -1]), "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default())
            .unwrap();
    assert_eq!(got.program.ops.len(), 1);
}

#[test]
fn tflite_weights_are_tensors_with_data_and_constant_ops_fold() {
    // DEQUANTIZE(w16) -> w32 folds; CONV_2D(in, w32) -> out is kept.
    let bytes = tflite_model(
        &[(6, None), (3, None)],
        vec![
            tfl_tensor("in", &[1, 4, 4, 2], 0, 0),
            tfl_tensor("w16", &[3, 1, 1, 2], 1, 1),
            tfl_tensor("w32", &[3, 1, 1, 2], 0, 0),
            tfl_tensor("out", &[1, 4, 4, 3], 0, 0),
        ],
        vec![tfl_op(0, &[1], &[2]), tfl_op(1, &[0, 2, -1], &[3])],
        &[0],
        &[3],
        &[vec![0; 12]],
    );
    let got = import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &ImportOptions::default()).unwrap();
    let listed: Vec<(&str, u64, &str)> =
        got.program.tensors.iter().map(|t| (t.name.as_str(), t.bytes, t.kind.as_str())).collect();
    assert_eq!(listed, vec![("in", 128, "input"), ("w32", 24, "weight"), ("out", 192, "output")]);
    assert_eq!(got.program.ops.len(), 1);
    assert_eq!(got.program.ops[0].name, "conv_2d_1");
    // --input-shape may only restate a TFLite input.
    let options =
        ImportOptions { input_shapes: vec![("in".into(), vec![1, 8, 8, 2])], ..ImportOptions::default() };
    let e = import_bytes(&bytes, "m.tflite", "m", ModelFormat::Tflite, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.tflite: --input-shape in: a TFLite file fixes every shape; this input is [1, 4, 4, 2] in the file, [1, 8, 8, 2] given"
    );
}

/// `import_bytes` of `bytes` (`m.onnx` or `m.tflite`) with these `--input-shape`s.
fn with_shapes(
    bytes: &[u8],
    format: ModelFormat,
    shapes: &[(&str, &[u64])],
) -> Result<dramalloc_sim::input::import::Imported, ImportError> {
    let input_shapes = shapes.iter().map(|&(n, d)| (n.to_owned(), d.to_vec())).collect();
    let file = if format == ModelFormat::Onnx { "m.onnx" } else { "m.tflite" };
    import_bytes(bytes, file, "m", format, &ImportOptions { input_shapes, ..ImportOptions::default() })
}

#[test]
fn an_input_shape_given_twice_is_refused_naming_both() {
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(vec![sym("N"), dims(&[4]).remove(0)]))],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    let bytes = onnx_model(g);
    let e = with_shapes(&bytes, ModelFormat::Onnx, &[("x", &[2, 4]), ("x", &[3, 4])]).unwrap_err();
    assert!(
        matches!(&e, ImportError::RepeatedInputShape { name, first, second, .. }
            if name == "x" && first == &[2, 4] && second == &[3, 4]),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "m.onnx: --input-shape x is given twice: [2, 4] and [3, 4]");
    // the same value twice too, and after another input's
    let e =
        with_shapes(&bytes, ModelFormat::Onnx, &[("x", &[2, 4]), ("z", &[1]), ("x", &[2, 4])]).unwrap_err();
    assert_eq!(e.to_string(), "m.onnx: --input-shape x is given twice: [2, 4] and [2, 4]");
    // once, it fixes the input
    let got = with_shapes(&bytes, ModelFormat::Onnx, &[("x", &[3, 4])]).unwrap();
    assert_eq!(got.program.tensors[0].bytes, 48);
    // TFLite inputs too
    let tfl = tflite_model(
        &[(19, None)],
        vec![tfl_tensor("in", &[4], 0, 0), tfl_tensor("out", &[4], 0, 0)],
        vec![tfl_op(0, &[0], &[1])],
        &[0],
        &[1],
        &[],
    );
    let e = with_shapes(&tfl, ModelFormat::Tflite, &[("in", &[4]), ("in", &[4])]).unwrap_err();
    assert_eq!(e.to_string(), "m.tflite: --input-shape in is given twice: [4] and [4]");
}

#[test]
fn two_graph_inputs_of_one_name_are_refused() {
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(dims(&[2, 4]))), value_info("x", F32, Some(dims(&[3, 4])))],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    let e = onnx(g).unwrap_err();
    assert!(matches!(&e, ImportError::DuplicateInput { input, .. } if input == "x"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.onnx: graph input `x` is listed twice (a name defines one value in a graph)"
    );
    // an initializer listed once among the inputs (IR < 4) is no repeat
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(dims(&[1, 4]))), value_info("w", F32, Some(dims(&[1, 4])))],
        ..graph(vec![node("add", "Add", &["x", "w"], &["y"])], vec![weight("w", &[1, 4])])
    };
    let got = onnx(g).unwrap();
    let kinds: Vec<(&str, &str)> =
        got.program.tensors.iter().map(|t| (t.name.as_str(), t.kind.as_str())).collect();
    assert_eq!(kinds, [("x", "input"), ("w", "weight"), ("y", "output")]);
}

/// Two initializers of one name (a trial's `w` as [1, 4] and as [8, 8]: imported with exit 0,
/// `w` 256 bytes while `y` was sized from the [1, 4] copy; onnxruntime refuses the file) are
/// refused, whether their shapes differ or not.
#[test]
fn two_initializers_of_one_name_are_refused() {
    let add = || vec![node("add", "Add", &["x", "w"], &["y"])];
    for second in [&[8i64, 8][..], &[1, 4]] {
        let e = onnx(graph(add(), vec![weight("w", &[1, 4]), weight("w", second)])).unwrap_err();
        assert!(matches!(&e, ImportError::DuplicateInitializer { name, .. } if name == "w"), "{e:?}");
        assert_eq!(
            e.to_string(),
            "m.onnx: initializer `w` is given twice (a name defines one value in a graph)"
        );
    }
    // once, it is the weight
    let got = onnx(graph(add(), vec![weight("w", &[1, 4])])).unwrap();
    assert_eq!(got.program.tensors.iter().find(|t| t.name == "w").map(|t| t.bytes), Some(16));
}

/// `TopK` with `k` past its axis's length is refused naming the node (a trial's k = 5 on x
/// [1, 4] was clamped to 4 and imported with exit 0; onnxruntime refuses the model); k equal
/// to the length is the whole axis.
#[test]
fn a_top_k_past_its_axis_is_refused() {
    let top_k = |k: i64| GraphProto {
        output: vec![value_info("v", F32, None), value_info("i", 7, None)],
        ..graph(vec![node("tk", "TopK", &["x", "k"], &["v", "i"])], vec![ints("k", &[k])])
    };
    assert_eq!(onnx_err(top_k(5)), "m.onnx: node `tk` (TopK): k 5 is more than the 4 elements of axis 1");
    let got = onnx(top_k(4)).unwrap();
    let sizes: Vec<(&str, u64)> = got.program.tensors.iter().map(|t| (t.name.as_str(), t.bytes)).collect();
    assert_eq!(sizes, [("x", 16), ("k", 8), ("v", 16), ("i", 32)]);
}

/// An initializer whose stored data does not fill its shape is refused naming it: its size
/// comes from the shape, so it would be imported as bytes the file does not hold (a trial's
/// [1000, 1000] FLOAT with 16 bytes of raw data became a 4,000,000-byte weight; onnxruntime
/// refuses the file). Raw data and typed fields both; external data is not checked.
#[test]
fn an_initializer_whose_data_does_not_fill_its_shape_is_refused() {
    let add = || vec![node("add", "Add", &["x", "w"], &["y"])];
    let short = TensorProto { raw_data: Some(vec![0; 12]), ..weight("w", &[1, 4]) };
    assert_eq!(
        onnx_err(graph(add(), vec![short])),
        "m.onnx: tensor `w`: its shape [1, 4] of FLOAT is 16 bytes, the file stores 12 bytes of raw data"
    );
    let typed = TensorProto { raw_data: None, float_data: vec![1.0; 5], ..weight("w", &[1, 4]) };
    assert_eq!(
        onnx_err(graph(add(), vec![typed])),
        "m.onnx: tensor `w`: its shape [1, 4] is 4 FLOAT elements, the file stores 5"
    );
    let empty = TensorProto { raw_data: None, ..weight("w", &[1, 4]) };
    assert_eq!(
        onnx_err(graph(add(), vec![empty])),
        "m.onnx: tensor `w`: its shape [1, 4] is 4 FLOAT elements, the file stores 0"
    );
    // in typed fields or external, as the shape says: imported
    let typed = TensorProto { raw_data: None, float_data: vec![1.0; 4], ..weight("w", &[1, 4]) };
    let external = TensorProto { raw_data: None, data_location: Some(1), ..weight("w", &[1, 4]) };
    for w in [typed, external] {
        let got = onnx(graph(add(), vec![w])).unwrap();
        assert_eq!(got.program.tensors.iter().find(|t| t.name == "w").map(|t| t.bytes), Some(16));
    }
}

/// Two declarations of one value that differ are refused naming both (a trial's opaque op's
/// output declared [3, 3] and [300, 300] in `value_info`: the last silently won); the same
/// declaration twice (an output also listed in `value_info`) is fine.
#[test]
fn two_different_declarations_of_one_value_are_refused() {
    let opaque = |second: &[i64]| GraphProto {
        value_info: vec![value_info("a", F32, Some(dims(&[3, 3]))), value_info("a", F32, Some(dims(second)))],
        ..graph(vec![node("f", "MyOp", &["x"], &["a"]), node("relu", "Relu", &["a"], &["y"])], vec![])
    };
    assert_eq!(
        onnx_err(opaque(&[300, 300])),
        "m.onnx: value `a` is declared twice, differently: FLOAT [3, 3] and FLOAT [300, 300]"
    );
    let got = onnx(opaque(&[3, 3])).unwrap();
    assert_eq!(got.program.tensors.iter().find(|t| t.name == "a").map(|t| t.bytes), Some(36));
}

#[test]
fn a_negative_dimension_is_refused_naming_tensor_axis_and_value() {
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(dims(&[1, -3])))],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    let e = onnx(g).unwrap_err();
    assert!(matches!(&e, ImportError::BadSize { tensor, .. } if tensor == "x"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.onnx: tensor `x`: dimension 1 is -3 in the file; a dimension cannot be negative"
    );
    // an initializer's the same way
    let mut w = weight("w", &[1, 4]);
    w.dims = vec![-1, 4];
    let e = onnx_err(graph(vec![node("add", "Add", &["x", "w"], &["y"])], vec![w]));
    assert_eq!(e, "m.onnx: tensor `w`: dimension 0 is -1 in the file; a dimension cannot be negative");
    // a named dimension, and one with neither a value nor a name, stay symbolic: 1
    let open = dramalloc_model_formats::onnx::tensor_shape_proto::Dimension::default();
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(vec![sym("N"), open]))],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    let got = onnx(g).unwrap();
    assert_eq!((got.program.tensors[0].bytes, got.program.tensors[1].bytes), (4, 4));
}

#[test]
fn a_zero_sized_input_names_the_input_and_the_empty_tensor() {
    let g = |x| GraphProto {
        input: vec![value_info("x", F32, Some(x))],
        ..graph(vec![node("relu", "Relu", &["x"], &["y"])], vec![])
    };
    let bytes = onnx_model(g(vec![sym("N"), dims(&[4]).remove(0)]));
    let e = with_shapes(&bytes, ModelFormat::Onnx, &[("x", &[0, 4])]).unwrap_err();
    assert!(matches!(&e, ImportError::BadInputShape { name, .. } if name == "x"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.onnx: --input-shape x: [0, 4] makes `x` a zero-sized tensor, and with it tensor `y` (written by node `relu`), which must hold a byte (only inputs and weights may be empty)"
    );
    // a zero the file declares: the empty tensor in the model's terms, not the program's JSON
    assert_eq!(
        onnx_err(g(dims(&[0, 4]))),
        "m.onnx: tensor `y`: holds 0 bytes (written by node `relu`); only inputs and weights may be empty"
    );
}

#[test]
fn an_input_shape_dimension_too_large_says_so() {
    use dramalloc_sim::input::import::{parse_input_shape, MAX_DIMENSION};
    assert_eq!(
        parse_input_shape("x=99999999999999999999x4"),
        Err("`x=99999999999999999999x4`: dimension `99999999999999999999` is too large (the largest is 9223372036854775807)".into())
    );
    assert_eq!(
        parse_input_shape("x=9223372036854775808"),
        Err("`x=9223372036854775808`: dimension `9223372036854775808` is too large (the largest is 9223372036854775807)".into())
    );
    assert_eq!(parse_input_shape("x=9223372036854775807"), Ok(("x".into(), vec![MAX_DIMENSION])));
    assert_eq!(
        parse_input_shape("x=1x-3"),
        Err("`x=1x-3`: dimension `-3` is not a non-negative integer".into())
    );
}

#[test]
fn an_optional_or_sequence_typed_input_is_named_as_unsupported() {
    use dramalloc_model_formats::onnx::{type_proto, TypeProto};
    // onnx's node test `test_optional_has_element_tensor_input`: input optional(tensor [4]).
    let wrap = |kind: fn(Box<TypeProto>) -> type_proto::Value| {
        let tensor = value_info("t", F32, Some(dims(&[4]))).r#type.unwrap();
        Some(TypeProto { denotation: None, value: Some(kind(Box::new(tensor))) })
    };
    let optional = |t| type_proto::Value::OptionalType(Box::new(type_proto::Optional { elem_type: Some(t) }));
    let sequence = |t| type_proto::Value::SequenceType(Box::new(type_proto::Sequence { elem_type: Some(t) }));
    for (kind, ty) in [("optional", wrap(optional)), ("sequence", wrap(sequence))] {
        let mut input = value_info("optional_input", F32, None);
        input.r#type = ty;
        let g = GraphProto {
            input: vec![input],
            output: vec![value_info("output", 9, Some(dims(&[])))],
            node: vec![node("has", "OptionalHasElement", &["optional_input"], &["output"])],
            ..Default::default()
        };
        let options =
            ImportOptions { input_shapes: vec![("optional_input".into(), vec![4])], ..Default::default() };
        for options in [ImportOptions::default(), options] {
            let e =
                import_bytes(&onnx_model(g.clone()), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "m.onnx: input `optional_input`: {kind}-typed graph inputs are not supported (only tensor inputs are)"
                )
            );
        }
    }
}

#[test]
fn a_byte_size_past_u64_is_named_where_it_first_shows() {
    let two32 = 1i64 << 32;
    // An input given a shape of 2^64 INT64 elements: the input, when the shape is applied,
    // not the op that reads it first (a fresh-user trial: the Reshape two ops on, with a
    // hint that the file declares no static shape).
    let g = GraphProto {
        input: vec![value_info("ids", I64, Some(vec![sym("B"), sym("S")]))],
        initializer: vec![ints("flat", &[-1])],
        ..graph(vec![node("view", "Reshape", &["ids", "flat"], &["y"])], vec![])
    };
    let options =
        ImportOptions { input_shapes: vec![("ids".into(), vec![1 << 32, 1 << 32])], ..Default::default() };
    let e = import_bytes(&onnx_model(g), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.onnx: --input-shape ids: [4294967296, 4294967296] of INT64 (64 bits each): the byte size of `ids` overflows u64"
    );
    // An op whose output overflows: that op, not its reader. (An initializer with external
    // data: w's zeros would take 16 GiB.)
    let mut w = weight("w", &[1, 1]);
    w.dims = vec![1, two32];
    (w.raw_data, w.data_location) = (None, Some(1));
    let g = GraphProto {
        input: vec![value_info("x", F32, Some(dims(&[two32, 1])))],
        ..graph(
            vec![node("mm", "MatMul", &["x", "w"], &["m"]), node("view", "Reshape", &["m", "flat"], &["y"])],
            vec![w, ints("flat", &[-1])],
        )
    };
    assert_eq!(
        onnx_err(g),
        "m.onnx: node `mm` (MatMul): output `m` has shape [4294967296, 4294967296] of FLOAT: its byte size overflows u64"
    );
    // A rule that fails on such an input (an initializer) says so, without the hint that
    // the file declares no static shape.
    let mut w = weight("w", &[1, 1]);
    w.dims = vec![two32, two32];
    (w.raw_data, w.data_location) = (None, Some(1));
    let g = graph(vec![node("view", "Reshape", &["w", "flat"], &["y"])], vec![w, ints("flat", &[-1])]);
    assert_eq!(
        onnx_err(g),
        "m.onnx: node `view` (Reshape): shape [4294967296, 4294967296] has too many elements; input `w` has shape [4294967296, 4294967296] of FLOAT: its byte size overflows u64"
    );
}
