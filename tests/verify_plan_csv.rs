//! `dramalloc verify PROGRAM.json plan.csv`: `run`'s plan.csv checked against its program,
//! every column of every row (split from `cli.rs`, whose style it keeps: exact messages and
//! exit codes). Runs `dramalloc` in-process on the bundled data only.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{data, dramalloc, dramalloc_line};

/// A fresh scratch directory under the system temp dir.
fn scratch(tag: &str) -> PathBuf {
    in_process::scratch_in("plancsv", tag)
}

const CODE_OK: u8 = 0;
const CODE_FAILED: u8 = 1;
const CODE_BAD: u8 = 2;

#[test]
fn verify_checks_runs_plan_csv_per_core_with_shared_tensors_once() {
    let dir = scratch("plancsv");
    let json = data("models/onnx_resnet50.json");
    let reports = dir.join("r");
    let out = dramalloc(&[
        "run",
        &json,
        "--cores",
        "2",
        "--split",
        "tensor-parallel",
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let plan = reports.join("plan.csv");
    let out = dramalloc(&["verify", &json, plan.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    // the peak is the top of the collective slices in the CC region at the window's top:
    // 24 GiB - 500 MiB + 3,211,264 bytes
    assert_eq!(out.stdout, "OK: 1214 tensor rows on 2 cores, split tensor-parallel, 108 shared tensors checked once, peak 25248727040 bytes\n");
    // one core's twin of a shared tensor moved: caught, exit 1
    let text = std::fs::read_to_string(&plan).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let k = lines.iter().rposition(|l| l.ends_with(",true") && l.split(',').nth(1) == Some("1")).unwrap();
    let mut f: Vec<String> = lines[k].split(',').map(str::to_owned).collect();
    f[2] = (f[2].parse::<u64>().unwrap() + 4096).to_string();
    lines[k] = f.join(",");
    std::fs::write(&plan, lines.join("\n") + "\n").unwrap();
    let out = dramalloc(&["verify", &json, plan.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert!(out.stderr.contains(&format!("line {}: shared `{}` is at", k + 1, f[0])), "{}", out.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run`'s plan.csv with the rows `keep` rejects removed, written next to it as `name`.
fn without_rows(plan: &Path, name: &str, keep: impl Fn(&str) -> bool) -> PathBuf {
    let text = std::fs::read_to_string(plan).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| keep(l)).collect();
    assert_eq!(kept.len() + 1, text.lines().count(), "exactly one row removed");
    let out = plan.with_file_name(name);
    std::fs::write(&out, kept.join("\n") + "\n").unwrap();
    out
}

#[test]
fn verify_names_a_pre_placed_tensor_whose_row_was_deleted() {
    let dir = scratch("plancsv-preplaced");
    let json = data("models/onnx_squeezenet.json");
    let reports = dir.join("r");
    let out = dramalloc(&["run", &json, "--cores", "2", "--report-dir", reports.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let plan = reports.join("plan.csv");
    // the input, a weight (on core 1) and the output
    for (tensor, core) in [("data_0", 0), ("conv1_w_0", 1), ("softmaxout_1", 0)] {
        let prefix = format!("{tensor},{core},");
        let edited = without_rows(&plan, &format!("no-{tensor}.csv"), |l| !l.starts_with(&prefix));
        let out = dramalloc(&["verify", &json, edited.to_str().unwrap()]);
        assert_eq!(out.code, ExitCode::from(CODE_FAILED), "{tensor}: {}", out.stdout);
        assert_eq!(
            out.stderr,
            format!(
                "error: {} against {json}: pre-placed `{tensor}` on core {core} has no row in the plan\n",
                edited.display()
            )
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_takes_the_slab_of_a_mb_per_core_plan_and_still_catches_a_moved_input() {
    let dir = scratch("plancsv-slabs");
    let json = data("models/onnx_squeezenet.json");
    let reports = dir.join("r");
    let out = dramalloc_line(&format!(
        "run {json} --mb-per-core 32 --cores 4 --split tensor-parallel --allreduce-buffer-size -1 --report-dir {}",
        reports.display()
    ));
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let plan = reports.join("plan.csv");
    let p = plan.to_str().unwrap();
    let out = dramalloc(&["verify", &json, p, "--mb-per-core", "32"]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    // the slices are collectives: in the CC region, which starts above the shared (5th) slab
    assert_eq!(out.stdout, "OK: 992 tensor rows on 4 cores, split tensor-parallel, 104 shared tensors checked once, peak 170932288 bytes\n");
    // without the slab, core 1's input is not where the program puts it
    let text = std::fs::read_to_string(&plan).unwrap();
    let line = text.lines().position(|l| l.starts_with("data_0,1,")).unwrap() + 1;
    let out = dramalloc(&["verify", &json, p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line {line}: pre-placed `data_0` on core 1 is at 33554432 but the program places it at 0\n"
        )
    );
    // core 1's input moved by a page inside its slab: caught
    let moved = text.replace("data_0,1,33554432,", "data_0,1,33558528,");
    assert_ne!(moved, text);
    let edited = dir.join("moved.csv");
    std::fs::write(&edited, moved).unwrap();
    let out = dramalloc(&["verify", &json, edited.to_str().unwrap(), "--mb-per-core", "32"]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(
        out.stderr,
        format!(
            "error: {} against {json}: line {line}: pre-placed `data_0` on core 1 is at 33558528 but the program places it at 33554432\n",
            edited.display()
        )
    );
    // a private intermediate of core 1 moved into core 2's slab: caught
    let line = text.lines().position(|l| l.starts_with("r0,1,")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut f: Vec<String> = lines[line].split(',').map(str::to_owned).collect();
    assert_eq!(f[7], "false");
    f[2] = "67108864".into();
    lines[line] = f.join(",");
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let out = dramalloc(&["verify", &json, edited.to_str().unwrap(), "--mb-per-core", "32"]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    let end = 67108864 + f[3].parse::<u64>().unwrap();
    assert_eq!(
        out.stderr,
        format!(
            "error: {} against {json}: line {}: `r0` on core 1 occupies [67108864, {end}) outside its slab [33554432, 67108864)\n",
            edited.display(),
            line + 1
        )
    );
    // a slab past u64 bytes is refused (it saturated into a slab every tensor fell outside)
    let out = dramalloc(&["verify", &json, p, "--mb-per-core", "17592186044416"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            ExitCode::from(CODE_BAD),
            "error: --mb-per-core 17592186044416: 17592186044416 MiB is past the u64 address space (18446744073709551615 bytes)\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The squeezenet program and the plan.csv of `run --cores 2 --split tensor-parallel` in a
/// fresh scratch directory `tag`: (directory, program, plan.csv's text).
fn squeezenet_plan(tag: &str) -> (PathBuf, String, String) {
    let dir = scratch(tag);
    let json = data("models/onnx_squeezenet.json");
    let reports = dir.join("r");
    let out = dramalloc_line(&format!(
        "run {json} --cores 2 --split tensor-parallel --report-dir {}",
        reports.display()
    ));
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let text = std::fs::read_to_string(reports.join("plan.csv")).unwrap();
    assert!(text.starts_with("tensor,core,address,bytes,aligned_bytes,def,last_use,shared\n"));
    (dir, json, text)
}

/// `text` with the row of `tensor` on `core` given `edits` (`(column index, from, to)`: the
/// cell must hold `from`), written to `dir/name`: (the file, the row's 1-based line).
fn edited(
    dir: &Path,
    name: &str,
    text: &str,
    (tensor, core): (&str, u32),
    edits: &[(usize, &str, &str)],
) -> (String, usize) {
    let prefix = format!("{tensor},{core},");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let k = lines.iter().position(|l| l.starts_with(&prefix)).unwrap();
    let mut f: Vec<String> = lines[k].split(',').map(str::to_owned).collect();
    for &(column, from, to) in edits {
        assert_eq!(f[column], from, "{tensor} on core {core}, column {column}");
        f[column] = to.to_owned();
    }
    lines[k] = f.join(",");
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (path.display().to_string(), k + 1)
}

/// The columns of plan.csv edited below.
const ALIGNED: usize = 4;
const DEF: usize = 5;
const LAST_USE: usize = 6;
const SHARED: usize = 7;

/// The unedited plan: exit 0, and the shared count is the program's (52 staging slices of the
/// tensor-parallel split, each with a row on both cores: 104 rows flagged `true`), not a count
/// of a column.
#[test]
fn verify_passes_an_unedited_plan_csv_with_the_programs_shared_count() {
    let (dir, json, text) = squeezenet_plan("unedited");
    let plan = dir.join("r/plan.csv");
    let out = dramalloc(&["verify", &json, plan.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "OK: 392 tensor rows on 2 cores, split tensor-parallel, 52 shared tensors checked once, peak 25248673920 bytes\n"
    );
    assert_eq!(text.lines().filter(|l| l.ends_with(",true")).count(), 104);
    let _ = std::fs::remove_dir_all(&dir);
}

/// def/last_use are the core's first and last access recomputed from the ops: a changed pair
/// and an emptied one (which says "never accessed") are each named with the expected pair.
#[test]
fn verify_names_a_row_whose_def_last_use_is_not_the_recomputed_access() {
    let (dir, json, text) = squeezenet_plan("lifetime");
    let (p, line) = edited(&dir, "moved.csv", &text, ("r5", 0), &[(DEF, "9", "500"), (LAST_USE, "10", "3")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(line, 14);
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line 14: `r5` on core 0 has def,last_use 500,3 but its first and last access on core 0 are 9,10\n"
        )
    );
    let (p, _) = edited(&dir, "empty.csv", &text, ("r5", 0), &[(DEF, "9", ""), (LAST_USE, "10", "")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line 14: `r5` on core 0 has def,last_use empty but its first and last access on core 0 are 9,10\n"
        )
    );
    // a shared slice's row holds its own core's accesses too (its hull over both cores is 1,2)
    let (p, line) = edited(&dir, "slice.csv", &text, ("r0/cc_slice0", 1), &[(DEF, "2", "1")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line {line}: `r0/cc_slice0` on core 1 has def,last_use 1,2 but its first and last access on core 1 are 2,2\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// aligned_bytes is the row's size rounded up to the 4096-byte DRAM page, as the planner does.
#[test]
fn verify_names_a_row_whose_aligned_bytes_is_not_its_size_rounded_up() {
    let (dir, json, text) = squeezenet_plan("aligned");
    let (p, line) = edited(&dir, "aligned.csv", &text, ("conv1_w_0", 0), &[(ALIGNED, "8192", "4096")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(line, 3);
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line 3: `conv1_w_0` on core 0 has aligned_bytes 4096 but its 6912 bytes rounded up to 4096 are 8192\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shared flag is checked against the program's shared set both ways: a private tensor
/// flagged `true` (which made the OK line count 53 shared tensors) and a staging slice flagged
/// `false`.
#[test]
fn verify_names_a_row_whose_shared_flag_disagrees_with_the_program() {
    let (dir, json, text) = squeezenet_plan("shared");
    let (p, line) = edited(&dir, "private.csv", &text, ("r5", 0), &[(SHARED, "false", "true")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(CODE_FAILED), ""));
    assert_eq!(line, 14);
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line 14: `r5` on core 0 has shared true but the program's shared set does not have it (a private tensor)\n"
        )
    );
    let (p, line) = edited(&dir, "slice.csv", &text, ("r0/cc_slice0", 0), &[(SHARED, "true", "false")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_FAILED));
    assert_eq!(line, 120);
    assert_eq!(
        out.stderr,
        format!(
            "error: {p} against {json}: line 120: `r0/cc_slice0` on core 0 has shared false but it is in the program's shared set (flagged shared or written by a collective)\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The columns are read, so a malformed one is a malformed file (exit 2), and a plan.csv
/// without them too.
#[test]
fn verify_rejects_a_plan_csv_with_a_malformed_or_missing_column() {
    let (dir, json, text) = squeezenet_plan("malformed");
    let (p, _) = edited(&dir, "def.csv", &text, ("r5", 0), &[(DEF, "9", "x")]);
    let out = dramalloc(&["verify", &json, &p]);
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert_eq!(
        out.stderr,
        format!("error: {p}: line 14, column `def`: expected a non-negative integer, found `x`\n")
    );
    let cut: String = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!("{},{}\n", f[..ALIGNED + 1].join(","), f[SHARED])
        })
        .collect();
    let p = dir.join("cut.csv");
    std::fs::write(&p, cut).unwrap();
    let out = dramalloc(&["verify", &json, p.to_str().unwrap()]);
    assert_eq!(out.code, ExitCode::from(CODE_BAD));
    assert_eq!(
        out.stderr,
        format!(
            "error: {}: line 1: missing column `def` in header `tensor,core,address,bytes,aligned_bytes,shared`\n",
            p.display()
        )
    );
    // a trial's: a byte-order mark or the columns in another order were read as a minimalloc
    // solution (``unknown column `tensor` ``); a column of its own passed, exit 0
    let ok = "OK: 392 tensor rows on 2 cores, split tensor-parallel, 52 shared tensors checked once, peak 25248673920 bytes\n";
    let swapped: String = text
        .lines()
        .map(|l| {
            let (name, rest) = l.split_once(',').unwrap();
            let (core, rest) = rest.split_once(',').unwrap();
            format!("{core},{name},{rest}\n")
        })
        .collect();
    for (name, body) in [("bom.csv", format!("\u{feff}{text}")), ("swapped.csv", swapped)] {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        let out = dramalloc(&["verify", &json, p.to_str().unwrap()]);
        assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(CODE_OK), ok), "{name}: {}", out.stderr);
    }
    let noted: String = text
        .lines()
        .enumerate()
        .map(|(k, l)| format!("{l},{}\n", if k == 0 { "note" } else { "x" }))
        .collect();
    let p = dir.join("noted.csv");
    std::fs::write(&p, noted).unwrap();
    let out = dramalloc(&["verify", &json, p.to_str().unwrap()]);
    assert_eq!(
        (out.code, out.stderr),
        (
            ExitCode::from(CODE_BAD),
            format!(
                "error: {}: line 1: unknown column `note` (known: tensor, core, address, bytes, aligned_bytes, def, last_use, shared)\n",
                p.display()
            )
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tensor names with whitespace at an edge (`t ` beside `t`, ` u`) or a line break round-trip:
/// `plan`'s solution and `run`'s plan.csv write them quoted, and `verify` reads a quoted name
/// verbatim, so it accepts both files (it said `core 0 has no tensor `t`` and `id `t` is not
/// in the problem`). A hand-written file with spaces around unquoted cells is still trimmed.
#[test]
fn names_with_edge_whitespace_round_trip_through_plan_run_and_verify() {
    let dir = scratch("edges");
    let json = dir.join("space.json");
    std::fs::write(
        &json,
        r#"{"name": "space", "tensors": [{"name": "x", "bytes": 4096, "kind": "input"},
            {"name": "t ", "bytes": 8192, "kind": "intermediate"},
            {"name": " u", "bytes": 8192, "kind": "intermediate"},
            {"name": "t", "bytes": 8192, "kind": "intermediate"},
            {"name": "n\n", "bytes": 4096, "kind": "intermediate"},
            {"name": "y", "bytes": 4096, "kind": "output"}],
          "ops": [{"name": "a", "op": "Relu", "inputs": ["x"], "outputs": ["t "]},
            {"name": "b", "op": "Relu", "inputs": ["t "], "outputs": [" u"]},
            {"name": "c", "op": "Add", "inputs": [" u", "t "], "outputs": ["t"]},
            {"name": "d", "op": "Relu", "inputs": ["t"], "outputs": ["n\n"]},
            {"name": "e", "op": "Relu", "inputs": ["n\n"], "outputs": ["y"]}]}"#,
    )
    .unwrap();
    let (json, sol, reports) = (json.to_str().unwrap(), dir.join("sol.csv"), dir.join("r"));
    let sol = sol.to_str().unwrap();
    let out = dramalloc(&["plan", json, "-o", sol, "--strategy", "sweep"]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(sol).unwrap(),
        "id,lower,upper,size,offset,align\n\"t \",0,3,8192,0,4096\n\" u\",1,3,8192,8192,4096\n\
         t,2,4,8192,16384,4096\n\"n\n\",3,5,4096,0,4096\ny,4,5,4096,4096,4096\n"
    );
    let out = dramalloc(&["verify", json, sol]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            ExitCode::from(CODE_OK),
            "OK: 5 buffers, peak 24576 bytes, offsets aligned to 4096 (the solution's align column)\n",
            ""
        )
    );
    let r = reports.to_str().unwrap();
    let out = dramalloc(&["run", json, "--cores", "1", "--strategy", "sweep", "--report-dir", r]);
    assert_eq!(out.code, ExitCode::from(CODE_OK), "{}", out.stderr);
    let plan = reports.join("plan.csv");
    let text = std::fs::read_to_string(&plan).unwrap();
    assert_eq!(
        text,
        "tensor,core,address,bytes,aligned_bytes,def,last_use,shared\nx,0,0,4096,4096,0,0,false\n\
         \"t \",0,8192,8192,8192,0,2,false\n\" u\",0,16384,8192,8192,1,2,false\n\
         t,0,24576,8192,8192,2,3,false\n\"n\n\",0,8192,4096,4096,3,4,false\ny,0,4096,4096,4096,4,4,false\n"
    );
    let ok = "OK: 6 tensor rows on 1 core, split none, 0 shared tensors checked once, peak 32768 bytes\n";
    let out = dramalloc(&["verify", json, plan.to_str().unwrap()]);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (ExitCode::from(CODE_OK), ok, ""));
    // spaces around the unquoted cells of a hand-edited plan.csv are trimmed, as before
    let spaced = dir.join("spaced.csv");
    std::fs::write(&spaced, text.replace(",0,", " , 0 , ").replace("\ny,", "\n  y ,")).unwrap();
    let out = dramalloc(&["verify", json, spaced.to_str().unwrap()]);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (ExitCode::from(CODE_OK), ok, ""));
    // and of a hand-written problem; a quoted id there is kept whole
    let p = dir.join("hand.csv");
    std::fs::write(&p, "id , lower, upper , size\n a , 0 , 4 , 5\n\" b \",1,3, 8 \n").unwrap();
    let out = dramalloc(&["plan", p.to_str().unwrap(), "-o", "-", "--strategy", "sweep"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            ExitCode::from(CODE_OK),
            "id,lower,upper,size,offset,align\na,0,4,5,0,4096\n\" b \",1,3,8,4096,4096\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A binary plan file given to `verify` is pointed at `check-plan` (it was read as a CSV: "not
/// valid UTF-8 text"); `faults --cores 0` words its refusal as `run` does.
#[test]
fn verify_points_a_binary_plan_at_check_plan() {
    let (dir, json, _) = squeezenet_plan("binary");
    let bin = dir.join("r").join("plan.bin");
    let b = bin.to_str().unwrap();
    let out = dramalloc(&["verify", &json, b]);
    assert_eq!(
        (out.code, out.stderr),
        (
            ExitCode::from(CODE_BAD),
            format!("error: {b}: a binary plan file (plan.bin), not a solution CSV: check it with `dramalloc check-plan {b} [PROGRAM]`\n")
        )
    );
    for cmd in ["faults", "run"] {
        let out = dramalloc(&[cmd, "--cores", "0"]);
        assert!(
            out.stderr.starts_with(
                "error: invalid value '0' for '--cores <CORES>': expected a core count from 1 to 64"
            ),
            "{cmd}: {}",
            out.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without `--split` the error is the one of the split that explains the most of the file: a
/// tensor-parallel plan with its first row repeated at its end, or a row of no tensor there,
/// is named at that last line (a trial got `line 86: core 0 has no tensor `r0/cc_slice0`
/// (split none; try --split)`, split none being tried first, at a valid row of the file's
/// split). With `--split` given the message suggests none.
#[test]
fn verify_without_split_names_the_bad_row_of_the_split_that_explains_more() {
    let (dir, json, text) = squeezenet_plan("split-guess");
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len() + 1;
    let first = lines[1];
    let tensor = first.split(',').next().unwrap();
    let core = first.split(',').nth(1).unwrap();
    let dup = dir.join("dup.csv");
    std::fs::write(&dup, format!("{text}{first}\n")).unwrap();
    let ghost = dir.join("ghost.csv");
    std::fs::write(&ghost, format!("{text}ghost,0,0,4096,4096,0,0,false\n")).unwrap();
    let (dup, ghost) = (dup.to_str().unwrap(), ghost.to_str().unwrap());
    let cases = [
        (
            vec!["verify", &json, dup],
            format!("line {last}: `{tensor}` on core {core} appears again (first at line 2)"),
        ),
        (
            vec!["verify", &json, ghost],
            format!("line {last}: core 0 has no tensor `ghost` (split tensor-parallel; try --split)"),
        ),
        (
            vec!["verify", &json, ghost, "--split", "tensor-parallel"],
            format!("line {last}: core 0 has no tensor `ghost` (split tensor-parallel)"),
        ),
    ];
    for (args, want) in cases {
        let out = dramalloc(&args);
        assert_eq!(out.code, ExitCode::from(CODE_FAILED), "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr, format!("error: {} against {json}: {want}\n", args[2]), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
