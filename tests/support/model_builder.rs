//! Small ONNX and TFLite models built in memory for the importer's tests: prost encodes the
//! ONNX messages, planus builds the TFLite flatbuffer, both from the generated bindings of
//! `dramalloc-model-formats`.
#![allow(dead_code)]

use dramalloc_model_formats::onnx::tensor_shape_proto::{dimension, Dimension};
use dramalloc_model_formats::onnx::{
    attribute_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use dramalloc_model_formats::tflite;
use prost::Message;

/// ONNX `FLOAT`.
pub const F32: i32 = 1;
/// ONNX `INT64`.
pub const I64: i32 = 7;
/// ONNX `BOOL`.
pub const BOOL: i32 = 9;

/// Numeric dimensions (see [`sym`] for a named one).
pub fn dims(d: &[i64]) -> Vec<Dimension> {
    d.iter().map(|&v| Dimension { value: Some(dimension::Value::DimValue(v)), denotation: None }).collect()
}

/// A symbolic dimension.
pub fn sym(name: &str) -> Dimension {
    Dimension { value: Some(dimension::Value::DimParam(name.into())), denotation: None }
}

/// A tensor value info of `elem` with `shape` (`None`: no shape at all).
pub fn value_info(name: &str, elem: i32, shape: Option<Vec<Dimension>>) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            denotation: None,
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: shape.map(|dim| TensorShapeProto { dim }),
            })),
        }),
        ..Default::default()
    }
}

/// An `INT64` initializer.
pub fn ints(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![v.len() as i64],
        data_type: Some(I64),
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

/// A `FLOAT` initializer of `shape` (zeros, in `raw_data`).
pub fn weight(name: &str, shape: &[i64]) -> TensorProto {
    let n: i64 = shape.iter().product();
    TensorProto {
        name: Some(name.into()),
        dims: shape.to_vec(),
        data_type: Some(F32),
        raw_data: Some(vec![0; 4 * n as usize]),
        ..Default::default()
    }
}

/// A node.
pub fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        name: Some(name.into()),
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// `node` with integer attributes.
pub fn with_int(mut n: NodeProto, name: &str, v: i64) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    });
    n
}

/// `node` with an integer-list attribute.
pub fn with_ints(mut n: NodeProto, name: &str, v: &[i64]) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    });
    n
}

/// `node` with a string attribute (`Einsum`'s `equation`).
pub fn with_string(mut n: NodeProto, name: &str, v: &str) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    });
    n
}

/// `node` with a graph attribute (`If`'s `then_branch`/`else_branch`, `Loop`'s `body`).
pub fn with_graph(mut n: NodeProto, name: &str, g: GraphProto) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Graph as i32),
        g: Some(g),
        ..Default::default()
    });
    n
}

/// An ONNX model (opset 17) of `graph`, encoded.
pub fn onnx_model(graph: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
}

/// A TFLite tensor.
pub fn tfl_tensor(name: &str, shape: &[i32], type_: i8, buffer: u32) -> tflite::Tensor {
    tflite::Tensor {
        shape: Some(shape.to_vec()),
        type_,
        buffer,
        name: Some(name.into()),
        is_variable: false,
        sparsity: None,
        shape_signature: None,
        has_rank: true,
    }
}

/// A TFLite operator.
pub fn tfl_op(opcode_index: u32, inputs: &[i32], outputs: &[i32]) -> tflite::Operator {
    tflite::Operator { opcode_index, inputs: Some(inputs.to_vec()), outputs: Some(outputs.to_vec()) }
}

/// A TFLite model of one subgraph; `codes` are builtin codes (or `(32, custom name)`),
/// `buffers` the data of buffers 1.. (buffer 0 is the empty sentinel).
pub fn tflite_model(
    codes: &[(i32, Option<&str>)],
    tensors: Vec<tflite::Tensor>,
    ops: Vec<tflite::Operator>,
    inputs: &[i32],
    outputs: &[i32],
    buffers: &[Vec<u8>],
) -> Vec<u8> {
    let mut all = vec![tflite::Buffer { data: None, offset: 0, size: 0 }];
    all.extend(buffers.iter().map(|b| tflite::Buffer { data: Some(b.clone()), offset: 0, size: 0 }));
    let model = tflite::Model {
        version: 3,
        operator_codes: Some(
            codes
                .iter()
                .map(|&(code, custom)| tflite::OperatorCode {
                    deprecated_builtin_code: code.min(127) as i8,
                    custom_code: custom.map(str::to_owned),
                    version: 1,
                    builtin_code: code,
                })
                .collect(),
        ),
        subgraphs: Some(vec![tflite::SubGraph {
            tensors: Some(tensors),
            inputs: Some(inputs.to_vec()),
            outputs: Some(outputs.to_vec()),
            operators: Some(ops),
            name: Some("main".into()),
        }]),
        description: None,
        buffers: Some(all),
    };
    with_identifier(planus::Builder::new().finish(&model, None))
}

/// A finished flatbuffer with the "TFL3" file identifier at bytes 4–7, where TFLite readers
/// look for it (planus 1.3's `finish` writes an identifier before the root offset instead):
/// the body moves 4 bytes on, its offsets are relative to their own places, and the root
/// offset grows by 4.
pub fn with_identifier(body: &[u8]) -> Vec<u8> {
    let root = u32::from_le_bytes(body[..4].try_into().unwrap()) + 4;
    let mut out = root.to_le_bytes().to_vec();
    out.extend_from_slice(b"TFL3");
    out.extend_from_slice(&body[4..]);
    out
}
