//! Model files on the command line: `dramalloc import` writes the program, `run`, `plan`,
//! `verify` and `quality` take model files directly, and every bad model or option exits 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_sim::input::read_program;

fn cli(args: &[&str]) -> ExitCode {
    dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into))
}

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data").join(rel).display().to_string()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dramalloc-import-cli-{}-{name}", std::process::id()))
}

#[test]
fn import_writes_the_program_of_the_model() {
    let out = temp("squeezenet.json");
    assert_eq!(
        cli(&["import", &data("models/onnx_squeezenet.onnx"), "-o", out.to_str().unwrap()]),
        ExitCode::SUCCESS
    );
    let got = read_program(&out, 1_000_000).unwrap();
    let want = read_program(Path::new(&data("models/onnx_squeezenet.json")), 1_000_000).unwrap();
    assert_eq!(got, want);
    std::fs::remove_file(&out).unwrap();
}

#[test]
fn run_plan_verify_and_quality_take_model_files() {
    let tflite = data("models/mp_selfie_segmentation.tflite");
    assert_eq!(cli(&["run", &tflite, "--cores", "4", "--split", "tensor-parallel"]), ExitCode::SUCCESS);
    let onnx = data("models/onnx_squeezenet.onnx");
    let solution = temp("squeezenet.csv");
    assert_eq!(cli(&["plan", &onnx, "-o", solution.to_str().unwrap()]), ExitCode::SUCCESS);
    // 65 rows (intermediates and the output) and the header.
    assert_eq!(std::fs::read_to_string(&solution).unwrap().lines().count(), 66);
    assert_eq!(cli(&["verify", &onnx, solution.to_str().unwrap()]), ExitCode::SUCCESS);
    assert_eq!(cli(&["quality", &onnx, &tflite, "--strategies", "seed"]), ExitCode::SUCCESS);
    std::fs::remove_file(&solution).unwrap();
}

#[test]
fn bad_models_and_options_exit_2_and_write_nothing() {
    let bytes = std::fs::read(data("models/onnx_squeezenet.onnx")).unwrap();
    let cut = temp("cut.onnx");
    std::fs::write(&cut, &bytes[..100]).unwrap();
    let out = temp("never.json");
    let out_s = out.to_str().unwrap();
    assert_eq!(cli(&["import", cut.to_str().unwrap(), "-o", out_s]), ExitCode::from(2));
    assert_eq!(cli(&["run", cut.to_str().unwrap()]), ExitCode::from(2));
    assert_eq!(cli(&["plan", cut.to_str().unwrap(), "-o", out_s]), ExitCode::from(2));
    assert_eq!(cli(&["quality", cut.to_str().unwrap()]), ExitCode::from(2));
    let onnx = data("models/onnx_squeezenet.onnx");
    assert_eq!(cli(&["import", &onnx, "--input-shape", "nope=1x3", "-o", out_s]), ExitCode::from(2));
    assert_eq!(cli(&["import", &onnx, "--input-shape", "data_0=1xA", "-o", out_s]), ExitCode::from(2));
    assert_eq!(cli(&["run", &data("models/onnx_resnet50.json"), "--input-shape", "x=1"]), ExitCode::from(2));
    // an input named twice, in every command that takes --input-shape; a dimension too large
    let twice = ["--input-shape", "data_0=1x3x224x224", "--input-shape", "data_0=2x3x224x224"];
    assert_eq!(cli(&[&["import", &onnx, "-o", out_s][..], &twice].concat()), ExitCode::from(2));
    assert_eq!(cli(&[&["run", &onnx][..], &twice].concat()), ExitCode::from(2));
    assert_eq!(cli(&[&["plan", &onnx, "-o", out_s][..], &twice].concat()), ExitCode::from(2));
    let huge = "data_0=99999999999999999999x3x224x224";
    assert_eq!(cli(&["import", &onnx, "--input-shape", huge, "-o", out_s]), ExitCode::from(2));
    assert_eq!(cli(&["import", &data("README.md"), "-o", out_s]), ExitCode::from(2));
    assert!(!out.exists());
    // An output that cannot be written is exit 1.
    assert_eq!(cli(&["import", &onnx, "-o", "/nonexistent-dir/x.json"]), ExitCode::from(1));
    std::fs::remove_file(&cut).unwrap();
}
