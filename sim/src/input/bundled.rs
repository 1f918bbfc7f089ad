//! Data compiled into the binary: the default model and the quality sets.
//! Uses: nothing else in the crate; used by: cli.
//!
//! Data compiled into the binary: the default model and the quality sets (see
//! `sim/data/README.md` for sources and licences).

/// The default model of `dramalloc run`: ResNet-50 as program JSON.
pub const RESNET50_JSON: &str = include_str!("../../data/models/onnx_resnet50.json");

/// A bundled program: `(name, program JSON text)`.
pub type BundledProgram = (&'static str, &'static str);

/// The program JSONs of the 15 real models (the `models` set of [`PROBLEMS`] is their
/// minimalloc form), in name order: the default inputs of `dramalloc faults` and the data of
/// the tests that run models.
pub const MODELS: &[BundledProgram] = &[
    ("ddddocr_ocr", include_str!("../../data/models/ddddocr_ocr.json")),
    ("magika_standard_v3_3", include_str!("../../data/models/magika_standard_v3_3.json")),
    ("mp_face_detection_short_range", include_str!("../../data/models/mp_face_detection_short_range.json")),
    ("mp_face_landmark", include_str!("../../data/models/mp_face_landmark.json")),
    ("mp_hand_landmark_full", include_str!("../../data/models/mp_hand_landmark_full.json")),
    ("mp_iris_landmark", include_str!("../../data/models/mp_iris_landmark.json")),
    ("mp_pose_detection", include_str!("../../data/models/mp_pose_detection.json")),
    ("mp_selfie_segmentation", include_str!("../../data/models/mp_selfie_segmentation.json")),
    ("onnx_inception_v1", include_str!("../../data/models/onnx_inception_v1.json")),
    ("onnx_resnet50", RESNET50_JSON),
    ("onnx_shufflenet", include_str!("../../data/models/onnx_shufflenet.json")),
    ("onnx_squeezenet", include_str!("../../data/models/onnx_squeezenet.json")),
    ("onnx_vgg19", include_str!("../../data/models/onnx_vgg19.json")),
    ("ppocrv6_det_small", include_str!("../../data/models/ppocrv6_det_small.json")),
    ("ppocrv6_rec_small", include_str!("../../data/models/ppocrv6_rec_small.json")),
];

/// `models/index.csv` of the traces (bundled as `sim/data/models_index.csv`, outside
/// `models/` so that `models/*.csv` globs only the models): `model,ops,intermediate_tensors,intermediate_bytes,
/// max_load_bytes,tensors,source`, one line per model of [`MODELS`] (written by the tool that
/// made the traces, so tests can check the readers against it).
pub const MODELS_INDEX_CSV: &str = include_str!("../../data/models_index.csv");

/// Parses every program of [`MODELS`] (each at most `max_tensors` tensors), in name order.
///
/// # Errors
/// The first [`crate::input::InputError`]; the bundled files parse (a test holds them to it).
pub fn models(max_tensors: usize) -> Result<Vec<crate::input::Program>, crate::input::InputError> {
    MODELS
        .iter()
        .map(|(name, text)| crate::input::parse_program(text, &format!("bundled:{name}.json"), max_tensors))
        .collect()
}

/// A bundled planning problem: `(set, name, minimalloc CSV text)`.
pub type Bundled = (&'static str, &'static str, &'static str);

/// Every bundled problem: the 15 real models, the 11 hard DSA instances, the 3 large ones.
pub const PROBLEMS: &[Bundled] = &[
    ("models", "ddddocr_ocr", include_str!("../../data/models/ddddocr_ocr.csv")),
    ("models", "magika_standard_v3_3", include_str!("../../data/models/magika_standard_v3_3.csv")),
    (
        "models",
        "mp_face_detection_short_range",
        include_str!("../../data/models/mp_face_detection_short_range.csv"),
    ),
    ("models", "mp_face_landmark", include_str!("../../data/models/mp_face_landmark.csv")),
    ("models", "mp_hand_landmark_full", include_str!("../../data/models/mp_hand_landmark_full.csv")),
    ("models", "mp_iris_landmark", include_str!("../../data/models/mp_iris_landmark.csv")),
    ("models", "mp_pose_detection", include_str!("../../data/models/mp_pose_detection.csv")),
    ("models", "mp_selfie_segmentation", include_str!("../../data/models/mp_selfie_segmentation.csv")),
    ("models", "onnx_inception_v1", include_str!("../../data/models/onnx_inception_v1.csv")),
    ("models", "onnx_resnet50", include_str!("../../data/models/onnx_resnet50.csv")),
    ("models", "onnx_shufflenet", include_str!("../../data/models/onnx_shufflenet.csv")),
    ("models", "onnx_squeezenet", include_str!("../../data/models/onnx_squeezenet.csv")),
    ("models", "onnx_vgg19", include_str!("../../data/models/onnx_vgg19.csv")),
    ("models", "ppocrv6_det_small", include_str!("../../data/models/ppocrv6_det_small.csv")),
    ("models", "ppocrv6_rec_small", include_str!("../../data/models/ppocrv6_rec_small.csv")),
    ("minimalloc", "A.1048576", include_str!("../../data/minimalloc/A.1048576.csv")),
    ("minimalloc", "B.1048576", include_str!("../../data/minimalloc/B.1048576.csv")),
    ("minimalloc", "C.1048576", include_str!("../../data/minimalloc/C.1048576.csv")),
    ("minimalloc", "D.1048576", include_str!("../../data/minimalloc/D.1048576.csv")),
    ("minimalloc", "E.1048576", include_str!("../../data/minimalloc/E.1048576.csv")),
    ("minimalloc", "F.1048576", include_str!("../../data/minimalloc/F.1048576.csv")),
    ("minimalloc", "G.1048576", include_str!("../../data/minimalloc/G.1048576.csv")),
    ("minimalloc", "H.1048576", include_str!("../../data/minimalloc/H.1048576.csv")),
    ("minimalloc", "I.1048576", include_str!("../../data/minimalloc/I.1048576.csv")),
    ("minimalloc", "J.1048576", include_str!("../../data/minimalloc/J.1048576.csv")),
    ("minimalloc", "K.1048576", include_str!("../../data/minimalloc/K.1048576.csv")),
    ("large", "iopddl_G_1", include_str!("../../data/large/iopddl_G_1.csv")),
    ("large", "iopddl_S_1", include_str!("../../data/large/iopddl_S_1.csv")),
    ("large", "somas_resnet50", include_str!("../../data/large/somas_resnet50.csv")),
];
