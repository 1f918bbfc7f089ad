//! `plan.h` in C: `dramalloc run --report-dir` writes plan.csv, plan.bin and plan.h; the
//! system compiler (`cc`) builds a program that reads `plan.bin` through
//! the header's structs and reader, and one that checks every generated address constant;
//! both agree with `plan.csv`. Needs `cc` on PATH (CI's Debian image has it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use dramalloc_core::plan_file::{
    file_checksum_wide, CoreEntry, PlanFile, PlanHeader, Record, CHECKSUM_OFFSET,
};
use dramalloc_sim::report::plan_h::{address_macro, stems};
use std::mem::size_of;

const VGG19: &str = include_str!("../sim/data/models/onnx_vgg19.json");

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cc(dir: &Path, source: &Path, out: &str) {
    let status = Command::new("cc")
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(dir)
        .arg("-o")
        .arg(dir.join(out))
        .arg(source)
        .status()
        .expect("the system C compiler `cc` must be on PATH");
    assert!(status.success(), "cc failed on {}", source.display());
}

/// `(name, core, address, bytes, aligned, shared)` rows of `plan.csv`.
fn csv_rows(csv: &[u8]) -> BTreeSet<String> {
    let mut r = csv::Reader::from_reader(csv);
    r.records()
        .map(|row| {
            let row = row.unwrap();
            format!("{},{},{},{},{},{}", &row[0], &row[1], &row[2], &row[3], &row[4], &row[7])
        })
        .collect()
}

#[test]
fn plan_h_reads_plan_bin_in_c_with_the_addresses_of_plan_csv() {
    // what `dramalloc run --report-dir` writes: plan.csv, plan.bin, plan.h
    let dir = scratch_dir("plan-h");
    let json = dir.join("onnx_vgg19.json");
    std::fs::write(&json, VGG19).unwrap();
    let args = ["run", json.to_str().unwrap(), "--cores", "2", "--split", "tensor-parallel", "--report-dir"];
    let code = dramalloc_sim::cli::main_with(
        std::iter::once("dramalloc").chain(args).chain([dir.to_str().unwrap()]).map(std::ffi::OsString::from),
    );
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let bytes = std::fs::read(dir.join("plan.bin")).unwrap();
    let file = PlanFile::parse(&bytes).unwrap();
    let expected = csv_rows(&std::fs::read(dir.join("plan.csv")).unwrap());
    assert_eq!(expected.len(), file.records().len());
    assert!(std::fs::read_to_string(dir.join("plan.h")).unwrap().contains("DRAMALLOC_ADDR_R0_CORE1"));

    let reader = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/read_plan.c");
    cc(&dir, &reader, "read_plan");
    let out = Command::new(dir.join("read_plan")).arg(dir.join("plan.bin")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let got: BTreeSet<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    assert_eq!(got, expected);

    // one flipped byte: the header's reader rejects it with its checksum code
    let mut bad = bytes.clone();
    bad[200] ^= 0x10;
    std::fs::write(dir.join("bad.bin"), &bad).unwrap();
    let out = Command::new(dir.join("read_plan")).arg(dir.join("bad.bin")).output().unwrap();
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).trim()), (Some(3), "rejected -6"));

    // tables corrupt under a valid checksum (a trial: each crashed read_plan with SIGSEGV, the
    // reader then indexing past its tables): a record's tensor index, a name's string offset,
    // core 1's record count; rejected with -7, as the Rust reader rejects them
    let h = file.header();
    let (cores, records) = (h.core_count.get() as usize, h.record_count.get() as usize);
    let core_table = size_of::<PlanHeader>();
    let record_table = core_table + cores * size_of::<CoreEntry>();
    let name_table = record_table + records * size_of::<Record>();
    let core1_count = core_table + size_of::<CoreEntry>() + std::mem::offset_of!(CoreEntry, record_count);
    for (at, value) in [
        (record_table + 3 * size_of::<Record>(), 0xffff_fff0u32),
        (name_table, 0xffff_ff00),
        (core1_count, 0x1000_0000),
    ] {
        let mut corrupt = bytes.clone();
        corrupt[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let crc = file_checksum_wide(&corrupt);
        corrupt[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
        assert!(PlanFile::parse(&corrupt).is_err(), "byte {at}");
        std::fs::write(dir.join("corrupt.bin"), &corrupt).unwrap();
        let out = Command::new(dir.join("read_plan")).arg(dir.join("corrupt.bin")).output().unwrap();
        let got = (out.status.code(), String::from_utf8_lossy(&out.stdout).trim().to_string());
        assert_eq!(got, (Some(3), "rejected -7".to_string()), "byte {at}");
    }

    // every named constant equals the CSV's address
    let stems = stems((0..file.names().len() as u32).map(|t| file.name(t).unwrap()));
    let mut checks =
        String::from("#include <stdio.h>\n#include \"plan.h\"\nint main(void) {\n    int bad = 0;\n");
    for r in file.records() {
        let (t, k) = (r.tensor.get(), u32::from(r.core.get()));
        let addr: u64 = expected
            .iter()
            .find_map(|row| {
                let f: Vec<&str> = row.rsplitn(6, ',').collect();
                (f[5] == file.name(t).unwrap() && f[4] == k.to_string()).then(|| f[3].parse().unwrap())
            })
            .unwrap();
        let m = address_macro(&stems[t as usize], k);
        checks.push_str(&format!("    if ({m} != {addr}ULL) {{ printf(\"{m}\\n\"); bad++; }}\n"));
    }
    checks.push_str(&format!(
        "    if (DRAMALLOC_PLAN_RECORDS != {}u || DRAMALLOC_PLAN_FILE_CHECKSUM != {:#x}u) bad++;\n",
        file.records().len(),
        file.header().checksum.get()
    ));
    checks.push_str("    printf(\"%d\\n\", bad);\n    return bad != 0;\n}\n");
    std::fs::write(dir.join("check_consts.c"), checks).unwrap();
    cc(&dir, &dir.join("check_consts.c"), "check_consts");
    let out = Command::new(dir.join("check_consts")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
    assert!(out.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Names that do not make C identifiers or comments as they are: the header compiles with the
/// README's flags (a trial's `x/*y` and `a??/` + a line end broke `-Wall -Werror -std=c11`,
/// a later one's `t` + U+202E, a bidirectional override, under gcc's `-Wbidi-chars`),
/// a name whose natural stem no other name shares has its macro under that stem with its own
/// address (`a_b_1`, `y`), and names that share one (`a.b` and `a_b`, `W` and `w`) leave that
/// stem undefined instead of giving it to one of them (a trial: `DRAMALLOC_ADDR_A_B_CORE0`
/// held `a.b`'s address, and `a_b`'s suffixed stem was `a_b_1`'s natural one); each of those
/// has its stem and `_t<index>` with its own address, and no `_<index>` spelling compiles (a
/// trial: the rule spelled `a.b` as `A_B_1`, `a_b_1`'s).
#[test]
fn hostile_names_compile_and_no_name_s_macro_holds_another_tensor() {
    let dir = scratch_dir("plan-h-names");
    let names = ["x/*y", "a??/\nb", "a.b", "a_b", "a_b_1", "W", "w", "t\u{202e}", "\u{1}c\u{0}"];
    let tensors: Vec<String> = names
        .iter()
        .map(|n| format!(r#"{{"name": {}, "bytes": 64, "kind": "weight"}}"#, serde_json::json!(n)))
        .collect();
    let inputs: Vec<String> = names.iter().map(|n| serde_json::json!(n).to_string()).collect();
    let json = format!(
        r#"{{"name": "names", "tensors": [{}, {{"name": "y", "bytes": 8, "kind": "output"}}],
           "ops": [{{"name": "n0", "op": "Concat", "inputs": [{}], "outputs": ["y"]}}]}}"#,
        tensors.join(", "),
        inputs.join(", ")
    );
    let path = dir.join("names.json");
    std::fs::write(&path, json).unwrap();
    let args = ["run", path.to_str().unwrap(), "--cores", "1", "--report-dir", dir.to_str().unwrap()];
    let code =
        dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args).map(std::ffi::OsString::from));
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let reader = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/read_plan.c");
    cc(&dir, &reader, "read_plan");
    // name -> core 0 address, from plan.csv
    let mut r = csv::Reader::from_path(dir.join("plan.csv")).unwrap();
    let addr: std::collections::HashMap<String, String> =
        r.records().map(|row| row.unwrap()).map(|row| (row[0].to_owned(), row[2].to_owned())).collect();
    // a clashing name's macro is its stem and `_t<index>` (indices: the names' order, `y` last)
    let unique = [
        ("a_b_1", "A_B_1"),
        ("y", "Y"),
        ("x/*y", "X__Y"),
        ("a??/\nb", "A____B"),
        ("a.b", "A_B_t2"),
        ("a_b", "A_B_t3"),
        ("W", "W_t5"),
        ("w", "W_t6"),
    ];
    let shared = ["A_B", "W", "A_B_2", "A_B_3", "A_B_1_1"];
    let mut checks =
        String::from("#include <stdio.h>\n#include \"plan.h\"\nint main(void) {\n    int bad = 0;\n");
    for (name, stem) in unique {
        let m = address_macro(stem, 0);
        let a = &addr[name];
        checks.push_str(&format!(
            "#if !defined({m}) || {m} != {a}ULL\n    bad++; printf(\"{m}\\n\");\n#endif\n"
        ));
    }
    for stem in shared {
        let m = address_macro(stem, 0);
        checks.push_str(&format!("#ifdef {m}\n    bad++; printf(\"{m}\\n\");\n#endif\n"));
    }
    checks.push_str("    printf(\"%d\\n\", bad);\n    return bad != 0;\n}\n");
    std::fs::write(dir.join("check_names.c"), checks).unwrap();
    cc(&dir, &dir.join("check_names.c"), "check_names");
    let out = Command::new(dir.join("check_names")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
    std::fs::remove_dir_all(&dir).unwrap();
}
