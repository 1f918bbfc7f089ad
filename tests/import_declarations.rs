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
