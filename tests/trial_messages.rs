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
