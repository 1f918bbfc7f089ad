//! What a model file declares must agree with what it holds (a fresh-user trial found each
//! of these imported with exit 0): an ONNX graph input that is also an initializer declares
//! the initializer's type and shape; a TFLite file carries the "TFL3" identifier, its dense
//! data fills its shape, its subgraph lists an input once, and a shape signature fits its
//! shape.

#[path = "support/model_builder.rs"]
mod model_builder;

use dramalloc_model_formats::onnx::GraphProto;
use dramalloc_sim::input::import::{import_bytes, ImportError, ImportOptions, ModelFormat};
use model_builder::*;

const F32: i32 = 1;

fn import(bytes: &[u8], file: &str, format: ModelFormat) -> Result<Vec<(String, u64)>, ImportError> {
    let got = import_bytes(bytes, file, "m", format, &ImportOptions::default())?;
    Ok(got.program.tensors.iter().map(|t| (t.name.clone(), t.bytes)).collect())
}

/// `x` declared `FLOAT [4]` and given by an 8-element initializer: imported as a 32-byte
/// weight with its op folded away; now refused naming both. Declared `[8]`, or `[N]`, it is
/// the weight (IR < 4 lists every weight as an input), and `y`, folded from it, one too.
#[test]
fn an_onnx_input_that_contradicts_its_initializer_is_refused() {
    let g = |shape: Vec<dramalloc_model_formats::onnx::tensor_shape_proto::Dimension>| GraphProto {
        name: Some("g".into()),
        input: vec![value_info("x", F32, Some(shape))],
        output: vec![value_info("y", F32, None)],
        initializer: vec![weight("x", &[8])],
        node: vec![node("relu", "Relu", &["x"], &["y"])],
        ..Default::default()
    };
    let e = import(&onnx_model(g(dims(&[4]))), "m.onnx", ModelFormat::Onnx).unwrap_err();
    assert!(matches!(&e, ImportError::BadSize { tensor, .. } if tensor == "x"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.onnx: tensor `x`: graph input and initializer: declared FLOAT [4], its initializer is FLOAT [8]"
    );
    let weight_and_output = vec![("y".to_owned(), 32)];
    assert_eq!(import(&onnx_model(g(dims(&[8]))), "m.onnx", ModelFormat::Onnx).unwrap(), weight_and_output);
    assert_eq!(
        import(&onnx_model(g(vec![sym("N")])), "m.onnx", ModelFormat::Onnx).unwrap(),
        weight_and_output
    );
}

/// A one-ADD TFLite model: `in` [4] + `w` -> `out`, the weight `w` of `shape` FLOAT32 whose
/// buffer holds `data`; subgraph inputs `inputs`.
fn relu_with_weight(shape: &[i32], data: usize, inputs: &[i32]) -> Vec<u8> {
    let tensors =
        vec![tfl_tensor("in", &[4], 0, 0), tfl_tensor("out", &[4], 0, 0), tfl_tensor("w", shape, 0, 1)];
    tflite_model(&[(0, None)], tensors, vec![tfl_op(0, &[0, 2], &[1])], inputs, &[1], &[vec![0; data]])
}

fn tflite(bytes: &[u8]) -> Result<Vec<(String, u64)>, ImportError> {
    import(bytes, "m.tflite", ModelFormat::Tflite)
}

#[test]
fn a_tflite_file_without_its_identifier_is_malformed() {
    let mut bytes = relu_with_weight(&[16, 16], 1024, &[0]);
    assert_eq!(&bytes[4..8], b"TFL3");
    assert_eq!(tflite(&bytes).unwrap().len(), 3);
    bytes[4..8].copy_from_slice(b"XXXX");
    assert_eq!(
        tflite(&bytes).unwrap_err().to_string(),
        "m.tflite: malformed TFLite file: bytes 4-7 are \"XXXX\", not the file identifier \"TFL3\""
    );
}

/// `w` is [16, 16] FLOAT32, 1,024 bytes: a buffer of 10 bytes was imported as 1,024; now
/// refused, as an ONNX initializer that does not fill its shape is. 1,024 bytes import.
#[test]
fn tflite_dense_data_must_fill_its_shape() {
    let e = tflite(&relu_with_weight(&[16, 16], 10, &[0])).unwrap_err();
    assert!(matches!(&e, ImportError::BadSize { tensor, .. } if tensor == "w"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.tflite: tensor `w`: its shape [16, 16] is 1024 bytes, its buffer 1 holds 10"
    );
    let got = tflite(&relu_with_weight(&[16, 16], 1024, &[0])).unwrap();
    assert_eq!(got.iter().find(|(n, _)| n == "w").map(|(_, b)| *b), Some(1024));
}

#[test]
fn a_tflite_input_listed_twice_is_refused() {
    let e = tflite(&relu_with_weight(&[16, 16], 1024, &[0, 0])).unwrap_err();
    assert!(matches!(&e, ImportError::DuplicateInput { input, .. } if input == "in"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.tflite: graph input `in` is listed twice (a name defines one value in a graph)"
    );
}

/// A shape signature of another rank, or with a negative value other than -1, or another
/// fixed value, is refused; `[-1, 4]` for `[2, 4]` is a dynamic batch.
#[test]
fn a_tflite_shape_signature_must_fit_its_shape() {
    let with_sig = |sig: &[i32]| {
        let mut input = tfl_tensor("in", &[2, 4], 0, 0);
        input.shape_signature = Some(sig.to_vec());
        let tensors = vec![input, tfl_tensor("out", &[2, 4], 0, 0)];
        tflite(&tflite_model(&[(19, None)], tensors, vec![tfl_op(0, &[0], &[1])], &[0], &[1], &[]))
    };
    for (sig, shown) in [(&[-1, -1, 4][..], "[-1, -1, 4]"), (&[-7, 4], "[-7, 4]"), (&[3, 4], "[3, 4]")] {
        assert_eq!(
            with_sig(sig).unwrap_err().to_string(),
            format!(
                "m.tflite: tensor `in`: its shape signature {shown} does not fit its shape [2, 4] (-1 marks a \
                 dynamic dimension)"
            )
        );
    }
    assert_eq!(with_sig(&[-1, 4]).unwrap(), [("in".to_owned(), 32), ("out".to_owned(), 32)]);
}

/// `x` of `elem` with symbolic dims `[A, B]`, through `Identity` to `y`, imported with
/// `--input-shape x=DIMS`.
fn identity_of(elem: i32, given: Vec<u64>) -> Result<Vec<(String, u64)>, ImportError> {
    let g = GraphProto {
        name: Some("g".into()),
        input: vec![value_info("x", elem, Some(vec![sym("A"), sym("B")]))],
        output: vec![value_info("y", elem, None)],
        node: vec![node("id", "Identity", &["x"], &["y"])],
        ..Default::default()
    };
    let options = ImportOptions { input_shapes: vec![("x".into(), given)], ..ImportOptions::default() };
    let got = import_bytes(&onnx_model(g), "m.onnx", "m", ModelFormat::Onnx, &options)?;
    Ok(got.program.tensors.iter().map(|t| (t.name.clone(), t.bytes)).collect())
}

/// A byte size is judged in bytes, not elements: (2^63 - 1) × 3 INT4 values are more elements
/// than u64 counts but 13,835,058,055,282,163,711 bytes, which fit (a trial was told the byte
/// size overflowed). Twice as many BOOL bytes end within a page of 2^64: that is said of the
/// `--input-shape` that made them, not as `tensors[0].bytes` of a JSON file nobody wrote.
#[test]
fn sizes_near_u64_are_judged_in_bytes_and_named_by_the_input_shape() {
    const INT4: i32 = 22;
    const BOOL: i32 = 9;
    let max = i64::MAX as u64;
    let bytes = 13_835_058_055_282_163_711;
    assert_eq!(identity_of(INT4, vec![max, 3]).unwrap(), [("x".to_owned(), bytes), ("y".to_owned(), bytes)]);
    let e = identity_of(BOOL, vec![max, 2]).unwrap_err();
    assert!(matches!(&e, ImportError::BadInputShape { name, .. } if name == "x"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "m.onnx: --input-shape x: [9223372036854775807, 2] makes `x` 18446744073709551614 bytes, which overflows \
         u64 when rounded up to a 4096-byte page (every size must, whatever --align)"
    );
}

/// An op without a shape rule (`Foo` of domain `com.x`) whose output is declared `[M, 3]`,
/// `M` no input's dimension: the error names `M` and says no `--input-shape` can size it
/// (a trial was told the input's symbolic dimensions were taken as 1 and to give
/// `--input-shape`, which changed nothing). Declared `[N, 3]`, `N` sized by the input, it
/// imports.
#[test]
fn an_opaque_output_dimension_no_input_has_is_named() {
    let g = |out_dim: &str| {
        let mut foo = node("f", "Foo", &["x"], &["t"]);
        foo.domain = Some("com.x".into());
        GraphProto {
            name: Some("g".into()),
            input: vec![value_info("x", F32, Some(vec![sym("N")]))],
            output: vec![value_info("t", F32, Some(vec![sym(out_dim), dims(&[3])[0].clone()]))],
            node: vec![foo],
            ..Default::default()
        }
    };
    for given in [vec![], vec![("x".to_owned(), vec![5])]] {
        let options = ImportOptions { input_shapes: given, ..ImportOptions::default() };
        let e = import_bytes(&onnx_model(g("M")), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.onnx: node `f` (Foo): no shape rule for op `Foo` of domain `com.x`, and output `t` is declared \
             FLOAT [M, 3], whose dimension `M` no input has (no --input-shape can size it)"
        );
    }
    let options = ImportOptions { input_shapes: vec![("x".into(), vec![5])], ..ImportOptions::default() };
    let got = import_bytes(&onnx_model(g("N")), "m.onnx", "m", ModelFormat::Onnx, &options).unwrap();
    let sizes: Vec<(&str, u64)> = got.program.tensors.iter().map(|t| (t.name.as_str(), t.bytes)).collect();
    assert_eq!(sizes, [("x", 20), ("t", 60)]);
}
