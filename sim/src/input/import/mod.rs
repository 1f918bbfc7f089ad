//! Import: ONNX and TFLite model files become programs by the public traces' conventions.
//! Uses: onnx, tflite, program_json, sha2; used by: cli (import, run, plan, quality), tests, fuzz, the import_equivalence example.
//!
//! Model files in: an ONNX or TFLite file becomes a program (the format of
//! `../shared/traces/models/*.json`) by the conventions of the public traces.
//!
//! The readers ([`crate::input::onnx`], [`crate::input::tflite`]) produce a format-neutral
//! [`ModelGraph`] with byte sizes; [`to_program`] folds constants, removes renames and lists
//! the tensors; the result is written as program JSON ([`program_text`]) and read back by the
//! program reader, so that an imported model passes every check a program file passes.
//! [`compare`] is the equivalence used to check imports against the public traces.
//!
//! ```no_run
//! use dramalloc_sim::input::import::{import_model, ImportOptions};
//! let imported = import_model("model.tflite".as_ref(), &ImportOptions::default())?;
//! println!("{} ops", imported.program.ops.len());
//! std::fs::write("model.json", imported.json)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod equivalence;
mod error;
mod graph;
mod order;
mod program_text;
mod size;
mod to_program;

use std::path::Path;

use sha2::{Digest, Sha256};

pub use equivalence::{compare, Equivalence};
pub use error::ImportError;
pub use graph::{GraphNode, GraphTensor, ModelGraph, ModelSource, NodeRole, SizeProblem};
pub use order::check_order;
pub use program_text::{program_text, Provenance};
pub use size::byte_size;
pub use to_program::to_program;

use crate::input::{align_up, parse_program, Program, TensorKind, PAGE};

/// Largest tensor count accepted from a model (as for program files).
pub const DEFAULT_MAX_TENSORS: usize = 10_000_000;

/// A model file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFormat {
    /// ONNX protobuf (`.onnx`).
    Onnx,
    /// TensorFlow Lite flatbuffer (`.tflite`).
    Tflite,
}

impl ModelFormat {
    /// The format named by a path's extension (`.onnx`, `.tflite`, any case).
    #[must_use]
    pub fn from_path(path: &Path) -> Option<ModelFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "onnx" => Some(ModelFormat::Onnx),
            "tflite" => Some(ModelFormat::Tflite),
            _ => None,
        }
    }

    /// The format of file contents: TFLite carries the identifier `TFL3` at byte 4; anything
    /// else is tried as ONNX.
    #[must_use]
    pub fn sniff(bytes: &[u8]) -> ModelFormat {
        if bytes.get(4..8) == Some(b"TFL3") {
            ModelFormat::Tflite
        } else {
            ModelFormat::Onnx
        }
    }

    /// The format `bytes` hold by content alone, `None` when neither: a TFLite flatbuffer
    /// (identifier `TFL3` at byte 4) or an ONNX protobuf that decodes as a `ModelProto` with a
    /// graph (decoded whole: O(bytes); for telling a model given where text was expected).
    #[must_use]
    pub fn recognise(bytes: &[u8]) -> Option<ModelFormat> {
        use prost::Message;
        if bytes.get(4..8) == Some(b"TFL3") {
            return Some(ModelFormat::Tflite);
        }
        let model = dramalloc_model_formats::onnx::ModelProto::decode(bytes).ok()?;
        model.graph.is_some().then_some(ModelFormat::Onnx)
    }

    /// The format's name in messages: `ONNX`, `TFLite`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ModelFormat::Onnx => "ONNX",
            ModelFormat::Tflite => "TFLite",
        }
    }

    /// The extension that makes a file read as this format: `.onnx`, `.tflite`.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            ModelFormat::Onnx => ".onnx",
            ModelFormat::Tflite => ".tflite",
        }
    }
}

/// Options of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Shapes for graph inputs (`--input-shape NAME=DIMS`): ONNX inputs with symbolic
    /// dimensions take them instead of 1s; TFLite inputs must already have them.
    pub input_shapes: Vec<(String, Vec<u64>)>,
    /// Largest tensor count accepted.
    pub max_tensors: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { input_shapes: Vec::new(), max_tensors: DEFAULT_MAX_TENSORS }
    }
}

/// An imported model: the checked program and its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The program, as the program reader returns it for [`Imported::json`].
    pub program: Program,
    /// Program JSON in the public traces' layout, with `source`, `sha256` and
    /// `input_shapes` (when an input had symbolic dimensions or was given a shape).
    pub json: String,
    /// The format read.
    pub format: ModelFormat,
}

/// The largest dimension `--input-shape` takes: ONNX stores dimensions as `int64`.
pub const MAX_DIMENSION: u64 = i64::MAX as u64;

/// Parses `NAME=D1xD2x...` (the `--input-shape` syntax; `NAME=` alone is a scalar).
///
/// # Errors
/// A message naming the part that is not `NAME=DIMS`, not a number, or a number above
/// [`MAX_DIMENSION`].
///
/// ```
/// use dramalloc_sim::input::import::parse_input_shape;
/// assert_eq!(parse_input_shape("x=1x3x224x224"), Ok(("x".to_string(), vec![1, 3, 224, 224])));
/// assert!(parse_input_shape("x=1x-3").is_err());
/// assert!(parse_input_shape("x=99999999999999999999").unwrap_err().contains("too large"));
/// ```
pub fn parse_input_shape(text: &str) -> Result<(String, Vec<u64>), String> {
    let (name, dims) =
        text.rsplit_once('=').ok_or_else(|| format!("`{text}`: expected NAME=DIMS, e.g. x=1x3x224x224"))?;
    if name.is_empty() {
        return Err(format!("`{text}`: the input name is empty"));
    }
    let dims = if dims.is_empty() {
        Vec::new()
    } else {
        dims.split(['x', 'X', ','])
            .map(|d| match d.trim().parse::<u64>() {
                Ok(v) if v <= MAX_DIMENSION => Ok(v),
                Ok(_) => Err(too_large(text, d)),
                Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(too_large(text, d)),
                Err(_) => Err(format!("`{text}`: dimension `{d}` is not a non-negative integer")),
            })
            .collect::<Result<_, _>>()?
    };
    Ok((name.to_owned(), dims))
}

/// The message for dimension `d` of `text` above [`MAX_DIMENSION`].
fn too_large(text: &str, d: &str) -> String {
    format!("`{text}`: dimension `{}` is too large (the largest is {MAX_DIMENSION})", d.trim())
}

/// Imports a model file: format by extension, else by content (see [`ModelFormat::sniff`]).
/// The program is named after the file stem; `source` is the path as given.
///
/// # Errors
/// [`ImportError::Io`] when the file cannot be read, [`ImportError::UnknownFormat`] when a file
/// without a model extension is neither format, and otherwise as [`import_bytes`] (a
/// [`ImportError::Malformed`] file that holds the other format says so: `it looks like a
/// TFLite model: give it the .tflite extension`).
pub fn import_model(path: &Path, options: &ImportOptions) -> Result<Imported, ImportError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io { file: file.clone(), source })?;
    let name = path.file_stem().map_or_else(|| "model".to_owned(), |s| s.to_string_lossy().into_owned());
    match ModelFormat::from_path(path) {
        // a file of the other format under this extension: said so, after the decoder's words
        Some(format) => import_bytes(&bytes, &file, &name, format, options).map_err(|e| match e {
            ImportError::Malformed { file, format: f, detail } => {
                let detail = match ModelFormat::recognise(&bytes).filter(|&other| other != format) {
                    Some(other) => format!(
                        "{detail}: it looks like {} {} model: give it the {} extension",
                        if other == ModelFormat::Onnx { "an" } else { "a" },
                        other.name(),
                        other.extension()
                    ),
                    None => detail,
                };
                ImportError::Malformed { file, format: f, detail }
            }
            e => e,
        }),
        None => import_sniffed(&bytes, &file, &name, options),
    }
}

/// Imports model bytes whose format no file extension tells (a file without one, standard
/// input): the format is told by the content ([`ModelFormat::sniff`]); `file` names them in
/// errors and becomes the `source`, `name` the program's name.
///
/// # Errors
/// As [`import_bytes`]; bytes that read as neither format: [`ImportError::UnknownFormat`].
pub fn import_sniffed(
    bytes: &[u8],
    file: &str,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    import_bytes(bytes, file, name, ModelFormat::sniff(bytes), options).map_err(|e| match e {
        ImportError::Malformed { detail, .. } | ImportError::UnknownFormat { detail, .. } => {
            ImportError::UnknownFormat { file: file.to_owned(), detail }
        }
        ImportError::NoGraph { .. } => {
            ImportError::UnknownFormat { file: file.to_owned(), detail: "no model graph in it".into() }
        }
        e => e,
    })
}

/// Imports model bytes of `format`: `file` names them in errors and becomes the `source`,
/// `name` the program's name.
///
/// # Errors
/// The reader's errors ([`crate::input::onnx::read_onnx`], [`crate::input::tflite::read_tflite`]),
/// those of [`to_program`], [`ImportError::RepeatedInputShape`] for an input named by two
/// `--input-shape`s, [`ImportError::BadInputShape`] (a zero-sized input given) or
/// [`ImportError::BadSize`] for an op's output of 0 bytes, and [`ImportError::Program`] when
/// the program breaks another rule of the program reader.
pub fn import_bytes(
    bytes: &[u8],
    file: &str,
    name: &str,
    format: ModelFormat,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    check_repeated(file, &options.input_shapes)?;
    let source = ModelSource { bytes, file, name, input_shapes: &options.input_shapes };
    let graph = match format {
        ModelFormat::Onnx => crate::input::onnx::read_onnx(&source)?,
        ModelFormat::Tflite => crate::input::tflite::read_tflite(&source)?,
    };
    let program = to_program(&graph, file)?;
    check_written_not_empty(&program, file, &options.input_shapes)?;
    check_page_rounding(&program, file, &options.input_shapes)?;
    let sha256 = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    let prov = Provenance { source: file.to_owned(), sha256, input_shapes: graph.input_shapes.clone() };
    let json = program_text(&program, &prov);
    let program = parse_program(&json, file, options.max_tensors)?;
    Ok(Imported { program, json, format })
}

/// Refuses an input named by two `--input-shape`s (which one would win is a guess).
fn check_repeated(file: &str, shapes: &[(String, Vec<u64>)]) -> Result<(), ImportError> {
    for (k, (name, second)) in shapes.iter().enumerate() {
        if let Some((_, first)) = shapes[..k].iter().find(|(n, _)| n == name) {
            return Err(ImportError::RepeatedInputShape {
                file: file.to_owned(),
                name: name.clone(),
                first: first.clone(),
                second: second.clone(),
            });
        }
    }
    Ok(())
}

/// Refuses an intermediate or output of 0 bytes (the program reader's rule) in the model's
/// terms: the `--input-shape` with a 0 dimension that made it so, else the tensor and its
/// writer.
fn check_written_not_empty(
    program: &Program,
    file: &str,
    shapes: &[(String, Vec<u64>)],
) -> Result<(), ImportError> {
    let Some((t, empty)) =
        program.tensors.iter().enumerate().find(|(_, t)| t.bytes == 0 && !t.kind.is_loaded())
    else {
        return Ok(());
    };
    let writer = program.ops.iter().find(|op| op.outputs.contains(&(t as u32))).map(|op| op.name.as_str());
    let written = writer.map_or_else(String::new, |w| format!(" (written by node `{w}`)"));
    let given = shapes.iter().find(|(name, dims)| {
        dims.contains(&0) && program.tensors.iter().any(|t| t.kind == TensorKind::Input && &t.name == name)
    });
    Err(match given {
        Some((name, dims)) => ImportError::BadInputShape {
            file: file.to_owned(),
            name: name.clone(),
            detail: format!(
                "{dims:?} makes `{name}` a zero-sized tensor, and with it tensor `{}`{written}, which must hold a byte (only inputs and weights may be empty)",
                empty.name
            ),
        },
        None => ImportError::BadSize {
            file: file.to_owned(),
            tensor: empty.name.clone(),
            detail: format!("holds 0 bytes{written}; only inputs and weights may be empty"),
        },
    })
}

/// Refuses a tensor whose size overflows `u64` when rounded up to a 4096-byte page (the
/// program reader's rule) in the model's terms: the `--input-shape` that made it so, else the
/// tensor (a trial's `--input-shape x=9223372036854775807x2` of BOOL was told
/// `tensors[0].bytes: ...`, a path in a JSON file the user never wrote).
fn check_page_rounding(
    program: &Program,
    file: &str,
    shapes: &[(String, Vec<u64>)],
) -> Result<(), ImportError> {
    let Some(big) = program.tensors.iter().find(|t| align_up(t.bytes, PAGE).is_none()) else {
        return Ok(());
    };
    let why = format!(
        "{} bytes, which overflows u64 when rounded up to a {PAGE}-byte page (every size must, whatever --align)",
        big.bytes
    );
    Err(match shapes.iter().find(|(name, _)| name == &big.name) {
        Some((name, dims)) => ImportError::BadInputShape {
            file: file.to_owned(),
            name: name.clone(),
            detail: format!("{dims:?} makes `{name}` {why}"),
        },
        None => ImportError::BadSize {
            file: file.to_owned(),
            tensor: big.name.clone(),
            detail: format!("holds {why}"),
        },
    })
}
