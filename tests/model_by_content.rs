//! Model files where text was expected: `check-plan` takes a model file as its program (by
//! extension, with `--input-shape`, as `run`, `plan` and `verify` do), and a model given
//! without its extension, or on standard input, is named as one (`it looks like an ONNX
//! model: give it the .onnx extension`) instead of a bare "not valid UTF-8 text".

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_sim::cli::{run_with, Console};

/// What one command printed and returned.
struct Out {
    code: ExitCode,
    stdout: String,
    stderr: String,
}

/// `dramalloc ARGS` with `stdin` (bytes) as standard input.
fn dramalloc_in(args: &[&str], stdin: &[u8]) -> Out {
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let mut input = stdin;
    let mut con = Console { stdin: &mut input, stdout: &mut o, stderr: &mut e, progress: false };
    let code = run_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into), &mut con);
    Out { code, stdout: String::from_utf8(o).unwrap(), stderr: String::from_utf8(e).unwrap() }
}

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data").join(rel).display().to_string()
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-by-content-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn check_plan_takes_a_model_file_as_its_program() {
    let d = scratch("check");
    for (model, cores, split) in [
        (data("models/onnx_squeezenet.onnx"), "2", "tensor-parallel"),
        (data("models/mp_selfie_segmentation.tflite"), "1", "none"),
    ] {
        let rd = d.join("rd");
        let run =
            dramalloc_in(&["run", &model, "--cores", cores, "--split", split, "--report-dir", s(&rd)], b"");
        assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
        let bin = rd.join("plan.bin");
        let out = dramalloc_in(&["check-plan", s(&bin), &model], b"");
        assert_eq!(out.code, ExitCode::SUCCESS, "{}", out.stderr);
        let first = out.stdout.lines().next().unwrap().to_owned();
        assert!(first.starts_with(&format!("OK: {}: {cores} core(s), ", s(&bin))), "{first}");
        assert!(first.ends_with(" records, valid, matches the program"), "{first}");
    }
    // --input-shape is for model files, as in `run`
    let json = data("models/onnx_squeezenet.json");
    let bin = d.join("rd/plan.bin");
    let out = dramalloc_in(&["check-plan", s(&bin), &json, "--input-shape", "x=1"], b"");
    assert_eq!(out.code, ExitCode::from(2));
    assert_eq!(
        out.stderr,
        format!(
            "error: {json}: --input-shape x: --input-shape applies to model files (.onnx, .tflite) only\n"
        )
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_model_without_its_extension_or_on_stdin_is_named_as_one() {
    let d = scratch("named");
    let onnx = std::fs::read(data("models/onnx_squeezenet.onnx")).unwrap();
    let tflite = std::fs::read(data("models/mp_selfie_segmentation.tflite")).unwrap();
    let (m_onnx, m_tflite) = (d.join("squeezenet"), d.join("selfie.bin"));
    std::fs::write(&m_onnx, &onnx).unwrap();
    std::fs::write(&m_tflite, &tflite).unwrap();
    let file = |p: &Path, offset: usize, what: &str, ext: &str| {
        format!(
            "error: {}: not valid UTF-8 text (first bad byte at offset {offset}): it looks like {what} model: \
             give it the {ext} extension\n",
            s(p)
        )
    };
    let stdin = |offset: usize| {
        format!(
            "error: <stdin>: not valid UTF-8 text (first bad byte at offset {offset}): it looks like an ONNX \
             model: save it as a file with the .onnx extension and give that (a model is read by its \
             extension)\n"
        )
    };
    let sol = d.join("sol.csv");
    std::fs::write(&sol, "id,lower,upper,size,offset\n").unwrap();
    let bin = d.join("plan.bin");
    let planned = dramalloc_in(&["plan", &data("models/onnx_squeezenet.json"), "-o", s(&bin)], b"");
    assert_eq!(planned.code, ExitCode::SUCCESS, "{}", planned.stderr);
    for args in [
        vec!["run", s(&m_onnx)],
        vec!["plan", s(&m_onnx), "-o", s(&sol)],
        vec!["verify", s(&m_onnx), s(&sol)],
        vec!["quality", s(&m_onnx)],
        vec!["check-plan", s(&bin), s(&m_onnx)],
    ] {
        let out = dramalloc_in(&args, b"");
        assert_eq!(
            (out.code, out.stderr),
            (ExitCode::from(2), file(&m_onnx, 24, "an ONNX", ".onnx")),
            "{args:?}"
        );
    }
    let out = dramalloc_in(&["run", s(&m_tflite)], b"");
    assert_eq!((out.code, out.stderr), (ExitCode::from(2), file(&m_tflite, 48, "a TFLite", ".tflite")));
    let out = dramalloc_in(&["plan", s(&m_tflite), "-o", s(&sol)], b"");
    assert_eq!((out.code, out.stderr), (ExitCode::from(2), file(&m_tflite, 48, "a TFLite", ".tflite")));
    for args in [vec!["run", "-"], vec!["plan", "-", "-o", s(&sol)], vec!["check-plan", s(&bin), "-"]] {
        let out = dramalloc_in(&args, &onnx);
        assert_eq!((out.code, out.stderr), (ExitCode::from(2), stdin(24)), "{args:?}");
    }
    // bytes that are no model keep the plain message, and a CSV its line and column
    let junk = d.join("junk");
    std::fs::write(&junk, b"{\"name\": \"\xff\"}").unwrap();
    let out = dramalloc_in(&["run", s(&junk)], b"");
    let plain = format!("error: {}: not valid UTF-8 text (first bad byte at offset 10)\n", s(&junk));
    assert_eq!((out.code, out.stderr), (ExitCode::from(2), plain));
    let latin1 = b"id,lower,upper,size\nb\xe9,0,1,4096\n";
    let out = dramalloc_in(&["plan", "-", "-o", s(&sol)], latin1);
    assert_eq!(out.stderr, "error: <stdin>: line 2, column `id`: not valid UTF-8 text\n");
    // `check-plan` reads such a CSV as `plan` does, from a file or standard input (it named
    // only the byte offset before, a fresh-user trial)
    let csv = d.join("latin1.csv");
    std::fs::write(&csv, latin1).unwrap();
    let out = dramalloc_in(&["check-plan", s(&bin), s(&csv)], b"");
    let line = format!("error: {}: line 2, column `id`: not valid UTF-8 text\n", s(&csv));
    assert_eq!((out.code, out.stderr), (ExitCode::from(2), line));
    let out = dramalloc_in(&["check-plan", s(&bin), "-"], latin1);
    let line = "error: <stdin>: line 2, column `id`: not valid UTF-8 text\n".to_owned();
    assert_eq!((out.code, out.stderr), (ExitCode::from(2), line));
    std::fs::remove_dir_all(&d).unwrap();
}
