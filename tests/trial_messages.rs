//! The messages of a fresh-user trial of `run`, `faults`, `verify` and `import`, pinned to
//! the exact text and exit code: a slab layout past `u64` named with its slabs, a model file
//! given where only program JSON goes, and the small wording fixes. Runs `dramalloc`
//! in-process (`cli::run_with`), on the bundled data and inputs written here.

use std::process::ExitCode;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{data, dramalloc, scratch_in};

/// `--mb-per-core` slabs that, with the shared slab and the CC region after them, end past
/// `u64` are a bad flag (exit 2) named with the cores, the slab size and the bytes needed; the
/// trial was told its 500 MiB CC region was 18446744073709551615 bytes (exit 1). An auto CC
/// region, sized by the planner, is named the same way when it is what overflows.
#[test]
fn slabs_past_u64_are_a_bad_flag_named_with_their_sizes() {
    let max = "18446744073709551615";
    let out = dramalloc(&["run", "--cores", "2", "--mb-per-core", "6000000000000", "--hbm-window", max]);
    assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(2), ""));
    assert_eq!(
        out.stderr,
        "error: --mb-per-core 6000000000000: 2 slabs of 6000000000000 MiB (one per core), the shared slab of the \
         same size and the 524288000-byte CC region after them need 18874368000524288000 bytes of address space, \
         more than a u64 address reaches (18446744073709551615)\n"
    );
    let args = ["run", "--cores", "2", "--mb-per-core", "6000000000000", "--hbm-window", max];
    let out = dramalloc(&[&args[..], &["--allreduce-buffer-size", "0"]].concat());
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        "error: --mb-per-core 6000000000000: 2 slabs of 6000000000000 MiB (one per core) and the shared slab of \
         the same size need 18874368000000000000 bytes of address space, more than a u64 address reaches \
         (18446744073709551615)\n"
    );
    // 3 slabs of 5864062014805 MiB leave 1 MiB - 1 byte: the auto region (266862592 bytes for
    // ResNet-50 on 2 cores) does not fit after them
    let args = ["run", "--cores", "2", "--split", "tensor-parallel", "--mb-per-core", "5864062014805"];
    let out = dramalloc(&[&args[..], &["--allreduce-buffer-size", "-1", "--hbm-window", max]].concat());
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        "error: bundled:onnx_resnet50.json: plan failed: DramAllocation on core 0: 2 slabs of 5864062014805 MiB \
         (one per core), the shared slab of the same size and the 266862592-byte CC region after them need \
         18446744073975365632 bytes of address space, more than a u64 address reaches (18446744073709551615)\n"
    );
}

/// `faults` takes program JSON only: a model file, with its extension or without, is named
/// as one and the user told to convert it with `dramalloc import` first (the trial was told
/// to give `conv.onnx` the .onnx extension it had).
#[test]
fn faults_says_to_import_a_model_first() {
    let d = scratch_in("trial", "faults");
    let bare = d.join("squeezenet");
    std::fs::copy(data("models/onnx_squeezenet.onnx"), &bare).unwrap();
    let said = |file: &str, offset: u32, what: &str| {
        format!(
            "error: {file}: not valid UTF-8 text (first bad byte at offset {offset}): it looks like {what} model, and \
             this command reads program JSON only: convert it first with `dramalloc import {file} -o PROGRAM.json`\n"
        )
    };
    for (file, offset, what) in [
        (data("models/onnx_squeezenet.onnx"), 24, "an ONNX"),
        (bare.display().to_string(), 24, "an ONNX"),
        (data("models/mp_selfie_segmentation.tflite"), 48, "a TFLite"),
    ] {
        let out = dramalloc(&["faults", &file, "--count", "1"]);
        assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(2), ""), "{file}");
        assert_eq!(out.stderr, said(&file, offset, what));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The small wording fixes of the trial: `faults` counts in the singular where there is one
/// (`1 model, 1 core`, not `1 cores`); `run --help` has no stray comma; `verify` of a
/// tensor-parallel run whose program has no op to split says both splits give that plan, not
/// `split none`; an empty CSV is said to be empty, not a header missing `id`; a TFLite file
/// named `.onnx` (and an ONNX one named `.tflite`) is named as the other format.
#[test]
fn the_small_wording_fixes() {
    let d = scratch_in("trial", "words");
    let relu = d.join("relu.json");
    std::fs::write(
        &relu,
        r#"{"name": "relu", "tensors": [{"name": "x", "bytes": 64, "kind": "input"},
            {"name": "y", "bytes": 64, "kind": "output"}],
            "ops": [{"name": "a", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}]}"#,
    )
    .unwrap();
    let relu = relu.to_str().unwrap();
    let out = dramalloc(&["faults", relu, "--cores", "1", "--count", "1"]);
    assert_eq!(out.code, ExitCode::from(1));
    assert_eq!(
        out.stdout.lines().next(),
        Some("dramalloc faults: 1 model, 1 core, tensor-parallel, 1 of each kind")
    );
    let out = dramalloc(&["run", "--help"]);
    assert!(out.stdout.contains("Host memory the simulation may use (a size; default:"), "{}", out.stdout);
    let r = d.join("R");
    let out = dramalloc(&[
        "run",
        relu,
        "--cores",
        "2",
        "--split",
        "tensor-parallel",
        "--report-dir",
        r.to_str().unwrap(),
    ]);
    assert_eq!(out.code, ExitCode::SUCCESS, "{}", out.stderr);
    let csv = r.join("plan.csv");
    let out = dramalloc(&["verify", relu, csv.to_str().unwrap()]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            ExitCode::SUCCESS,
            "OK: 4 tensor rows on 2 cores, split none or tensor-parallel (the program has no op tensor-parallel \
             splits: the same plan), 0 shared tensors checked once, peak 4160 bytes\n"
        )
    );
    // with --split given, or a program with ops to split, the split is named as before
    let out = dramalloc(&["verify", relu, csv.to_str().unwrap(), "--split", "tensor-parallel"]);
    assert!(
        out.stdout.starts_with("OK: 4 tensor rows on 2 cores, split tensor-parallel, "),
        "{}",
        out.stdout
    );
    let empty = d.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let out = dramalloc(&["plan", empty.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        format!(
            "error: {}: the file is empty: a CSV starts with its header line, `id,lower,upper,size`\n",
            empty.display()
        )
    );
    let (onnx, tflite) = (d.join("selfie.onnx"), d.join("squeezenet.tflite"));
    std::fs::copy(data("models/mp_selfie_segmentation.tflite"), &onnx).unwrap();
    std::fs::copy(data("models/onnx_squeezenet.onnx"), &tflite).unwrap();
    let out = dramalloc(&["run", onnx.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        format!(
            "error: {}: malformed ONNX file: failed to decode Protobuf message: ModelProto.producer_version: \
             invalid wire type: EndGroup (expected LengthDelimited): it looks like a TFLite model: give it the \
             .tflite extension\n",
            onnx.display()
        )
    );
    let out = dramalloc(&["import", tflite.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        format!(
            "error: {}: malformed TFLite file: bytes 4-7 are \"onnx\", not the file identifier \"TFL3\": it looks \
             like an ONNX model: give it the .onnx extension\n",
            tflite.display()
        )
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A fixed row whose own alignment has no common multiple with `--align` below 2^64 but 0 can
/// only be at offset 0: at 4096 it is a bad input (exit 2, no file written) naming the row,
/// its offset and both alignments, with every strategy and with `--align` near 2^64 too. The
/// trial's `plan` exited 0 with the misaligned offset and a false HWM (the core refused the
/// row as a size overflow, and the first fit with own alignments after it took fixed offsets
/// as given). At offset 0 it plans.
#[test]
fn a_fixed_row_past_every_common_multiple_but_zero_is_refused() {
    let d = scratch_in("trial", "fixed-align");
    let csv = d.join("a.csv");
    let out_csv = d.join("o.csv");
    std::fs::write(&csv, "id,lower,upper,size,alignment,offset\nb1,0,1,4096,9223372036854775807,4096\n")
        .unwrap();
    let (f, o) = (csv.to_str().unwrap(), out_csv.to_str().unwrap());
    for (align, strategy) in [("4096", "auto"), ("4096", "greedy-size"), ("9223372036854775808", "sweep")] {
        let out = dramalloc(&["plan", f, "--align", align, "--strategy", strategy, "-o", o]);
        assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(2), ""), "{align} {strategy}");
        assert_eq!(
            out.stderr,
            format!(
                "error: {f}: buffer `b1` (line 2): fixed offset 4096 is not a multiple of both --align {align} and \
                 its alignment 9223372036854775807, which have no common multiple below 2^64 but 0\n"
            )
        );
        assert!(!out_csv.exists(), "a file was written for {align} {strategy}");
    }
    std::fs::write(&csv, "id,lower,upper,size,alignment,offset\nb1,0,1,4096,9223372036854775807,0\n")
        .unwrap();
    let out = dramalloc(&["plan", f, "-o", o]);
    assert_eq!(out.code, ExitCode::SUCCESS, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&out_csv).unwrap(),
        "id,lower,upper,size,alignment,offset,align\nb1,0,1,4096,9223372036854775807,0,4096\n"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
