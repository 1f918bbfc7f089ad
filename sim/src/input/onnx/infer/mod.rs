//! ONNX shape inference: the rule of every op family and its dispatch.
//! Uses: its rule files, dtype, value; used by: onnx.
//!
//! Static shape inference for ONNX nodes of the default domain: element type and shape of
//! every output from the inputs' types, shapes and (for small constants) values, one rule per
//! op family, with constant evaluation of the small integer tensors that shape computations
//! pass around.
//!
//! [`infer`] returns `None` for an op it has no rule for (control flow, sequences, most other
//! domains): the reader then takes the shapes the file declares (`value_info`, graph outputs)
//! and keeps the op opaque. [`infer_contrib`] covers the onnxruntime contrib ops
//! (`com.microsoft`) that quantisation and fusion tools write and whose shapes follow a
//! standard op's rule. Rules follow the operator specification of onnx 1.23
//! (opsets 1–23); where a rule changed between opsets the node's opset picks it.

mod conv_pool;
mod elementwise;
mod generate;
mod index;
mod layout;
mod linalg;
mod node;
mod normalize;
mod quantize;
mod recurrent;
mod reduce;
mod resize;
mod select;

pub use node::{Info, Node, R};

use super::dtype;

/// Element-wise ops with one tensor input whose output has its shape and type.
const UNARY: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Ceil",
    "Celu",
    "Clip",
    "Cos",
    "Cosh",
    "CumSum",
    "Elu",
    "Erf",
    "Exp",
    "Floor",
    "Gelu",
    "GroupNormalization",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "LRN",
    "LeakyRelu",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Mish",
    "Neg",
    "Not",
    "Reciprocal",
    "Relu",
    "ReverseSequence",
    "RMSNormalization",
    "Round",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softmax",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Swish",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Trilu",
    "BitwiseNot",
    "ImageScaler",
];

/// Broadcasting binary and variadic ops.
const BROADCASTING: &[&str] = &[
    "Add",
    "And",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "Div",
    "Equal",
    "Greater",
    "GreaterOrEqual",
    "Less",
    "LessOrEqual",
    "Max",
    "Mean",
    "Min",
    "Mod",
    "Mul",
    "Or",
    "PRelu",
    "Pow",
    "Sub",
    "Sum",
    "Xor",
];

/// The output [`Info`]s of `n` (one per declared output), or `None` when there is no rule
/// for `op` (an op of another domain must be passed as such by the caller).
///
/// # Errors
/// The rule's message, naming the input or attribute at fault.
pub fn infer(op: &str, n: &Node) -> Option<R<Vec<Info>>> {
    use dtype::BOOL;
    let result = match op {
        // (the default axis moved from 1 to -1 in opset 13)
        "Softmax" | "LogSoftmax" | "Hardmax" => {
            elementwise::along_axis(n, if n.opset >= 13 { -1 } else { 1 })
        }
        "LpNormalization" => elementwise::along_axis(n, -1),
        _ if UNARY.contains(&op) => elementwise::unary(n, elementwise::unary_eval(op)),
        _ if BROADCASTING.contains(&op) => elementwise::broadcasting(n, op),
        "IsNaN" | "IsInf" => elementwise::same_shape(n, &[Some(BOOL)]),
        "Dropout" => elementwise::same_shape(n, &[None, Some(BOOL)]),
        "Where" => elementwise::where_(n),
        "Cast" => elementwise::cast(n, false),
        "CastLike" => elementwise::cast(n, true),
        "Reshape" => layout::reshape(n),
        "Flatten" => layout::flatten(n),
        "Squeeze" => layout::squeeze(n),
        "Unsqueeze" => layout::unsqueeze(n),
        "Transpose" => layout::transpose(n),
        "Expand" => layout::expand(n),
        "Tile" => layout::tile(n),
        "Pad" => layout::pad(n),
        "DepthToSpace" => layout::depth_space(n, true),
        "SpaceToDepth" => layout::depth_space(n, false),
        "Shape" => layout::shape_of(n, false),
        "Size" => layout::shape_of(n, true),
        "Concat" => select::concat(n),
        "Split" => select::split(n),
        "Slice" => select::slice(n),
        "Gather" => select::gather(n),
        "GatherElements" => select::gather_elements(n),
        "GatherND" => select::gather_nd(n),
        "TopK" => select::top_k(n),
        "OneHot" => select::one_hot(n),
        "NonZero" => select::non_zero(n),
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2"
        | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => reduce::reduce(n, op),
        "ArgMax" | "ArgMin" => reduce::arg(n),
        "Conv" | "DeformConv" => conv_pool::conv(n, 0, 1, None),
        "ConvInteger" => conv_pool::conv(n, 0, 1, Some(dtype::INT32)),
        "QLinearConv" => conv_pool::conv(n, 0, 3, n.opt(7).map(|z| z.dtype)),
        "ConvTranspose" => conv_pool::conv_transpose(n),
        "MaxPool" | "AveragePool" | "LpPool" => conv_pool::pool(n),
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => conv_pool::global_pool(n),
        "MaxUnpool" => conv_pool::max_unpool(n),
        "RoiAlign" => conv_pool::roi(n, false),
        "MaxRoiPool" => conv_pool::roi(n, true),
        "GridSample" => conv_pool::grid_sample(n),
        "MatMul" => linalg::matmul(n, 0, 1, None),
        "MatMulInteger" => linalg::matmul(n, 0, 1, Some(dtype::INT32)),
        "QLinearMatMul" => linalg::matmul(n, 0, 3, n.opt(7).map(|z| z.dtype)),
        "Gemm" => linalg::gemm(n),
        "Einsum" => linalg::einsum(n),
        "Det" => linalg::det(n),
        "BatchNormalization" => normalize::batch_norm(n),
        "LayerNormalization" => normalize::layer_norm(n),
        "LSTM" => recurrent::recurrent(n, true),
        "GRU" | "RNN" => recurrent::recurrent(n, false),
        "QuantizeLinear" => quantize::quantize(n, 2, dtype::UINT8),
        "DequantizeLinear" => quantize::quantize(n, 1, dtype::FLOAT),
        "DynamicQuantizeLinear" => quantize::dynamic_quantize(n),
        "Resize" => resize::resize(n),
        "Upsample" => resize::upsample(n),
        "Constant" => generate::constant(n),
        "ConstantOfShape" => generate::constant_of_shape(n),
        "Range" => generate::range(n),
        "EyeLike" | "RandomNormalLike" | "RandomUniformLike" | "Bernoulli" => generate::like(n),
        "RandomNormal" | "RandomUniform" => generate::random(n),
        "Multinomial" => generate::multinomial(n),
        _ => return None,
    };
    Some(result.and_then(|outs| declared_outputs(n, outs)))
}

/// Whether a rule's error `why` says it needs what the file does not give here (an input's
/// value computed at run time, an input absent) rather than that the node contradicts its
/// op: only then may a shape the file declares for an output stand in for the rule's.
///
/// ```
/// use dramalloc_sim::input::onnx::infer::needs_runtime_data;
/// assert!(needs_runtime_data("the output shape depends on the value of input 1 (`s`), which is not a constant"));
/// assert!(needs_runtime_data("input 1 is missing"));
/// assert!(!needs_runtime_data("inner dimensions differ: [2, 8] @ [5, 16]"));
/// ```
#[must_use]
pub fn needs_runtime_data(why: &str) -> bool {
    why.contains(node::NOT_CONSTANT) || why.contains(node::MISSING)
}

/// Rules produce every output the op can have; a node may declare fewer (trailing optional
/// outputs left out), never more.
fn declared_outputs(n: &Node, mut outs: Vec<Info>) -> R<Vec<Info>> {
    if outs.len() < n.outputs() {
        return Err(format!("declares {} outputs, the op has {}", n.outputs(), outs.len()));
    }
    outs.truncate(n.outputs());
    Ok(outs)
}

/// The output [`Info`]s of an onnxruntime contrib op (domain `com.microsoft`) whose shapes
/// follow a standard rule, or `None`.
///
/// # Errors
/// As [`infer`].
pub fn infer_contrib(op: &str, n: &Node) -> Option<R<Vec<Info>>> {
    let result = match op {
        "DynamicQuantizeLSTM" => recurrent::recurrent(n, true),
        "FusedConv" => conv_pool::conv(n, 0, 1, None),
        "FusedGemm" => linalg::gemm(n),
        "Gelu" | "FastGelu" | "BiasGelu" | "QuickGelu" | "QLinearSigmoid" | "QLinearLeakyRelu" => {
            elementwise::unary(n, None)
        }
        "DynamicQuantizeMatMul" | "MatMulIntegerToFloat" => {
            linalg::matmul(n, 0, 1, Some(dtype::FLOAT)).map(|mut o| {
                // The output is typed as the scale (float or float16) when it is given.
                if let (Some(first), Some(scale)) = (o.first_mut(), n.opt(2)) {
                    first.dtype = scale.dtype;
                }
                o
            })
        }
        "QuantizeLinear" => quantize::quantize(n, 2, dtype::UINT8),
        "DequantizeLinear" => quantize::quantize(n, 1, dtype::FLOAT),
        _ => return None,
    };
    Some(result.and_then(|outs| declared_outputs(n, outs)))
}
