//! Input readers: one test per bad-input kind (the message must name the file, the JSON path
//! or CSV line/column, and the value), and every bundled trace (`sim/data/`) must parse.

#[path = "support/bundled_data.rs"]
mod bundled_data;

use std::collections::HashMap;
use std::path::Path;

use dramalloc_sim::input::{
    pack_preplaced, parse_buffers, parse_program, parse_solution, read_buffers, read_program, Buffer,
    InputError, Location, SolutionRow, TensorKind, PAGE,
};
use serde_json::{json, Value};

const MAX: usize = 1 << 20;

/// A small valid program: x (input), w (weight) -> t (intermediate) -> y (output).
fn good() -> Value {
    json!({
        "name": "m",
        "tensors": [
            {"name": "x", "bytes": 16, "kind": "input"},
            {"name": "w", "bytes": 32, "kind": "weight"},
            {"name": "t", "bytes": 64, "kind": "intermediate"},
            {"name": "y", "bytes": 16, "kind": "output"}
        ],
        "ops": [
            {"name": "n0", "op": "Conv", "inputs": ["x", "w"], "outputs": ["t"]},
            {"name": "n1", "op": "Relu", "inputs": ["t"], "outputs": ["y"]}
        ]
    })
}

/// The error message for `good()` changed by `edit`.
fn json_error(edit: impl FnOnce(&mut Value)) -> String {
    json_error_max(edit, MAX)
}

fn json_error_max(edit: impl FnOnce(&mut Value), max: usize) -> String {
    let mut v = good();
    edit(&mut v);
    match parse_program(&v.to_string(), "bad.json", max) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => e.to_string(),
    }
}

fn csv_error(text: &str) -> String {
    match parse_buffers(text, "bad.csv", MAX) {
        Ok(rows) => panic!("accepted: {rows:?}"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------- program JSON: good input

#[test]
fn json_good_program_parses() {
    let p = parse_program(&good().to_string(), "good.json", MAX).unwrap();
    assert_eq!(p.name, "m");
    let kinds: Vec<_> = p.tensors.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, [TensorKind::Input, TensorKind::Weight, TensorKind::Intermediate, TensorKind::Output]);
    assert_eq!(p.ops[0].inputs, [0, 1]);
    assert_eq!(p.ops[0].outputs, [2]);
    assert_eq!(p.ops[1].inputs, [2]);
    assert_eq!(p.ops[1].outputs, [3]);
    assert!(!p.ops[0].collective);
    assert_eq!(pack_preplaced(&p, PAGE).unwrap(), [Some(0), Some(4096), None, Some(8192)]);
}

#[test]
fn json_zero_byte_weight_and_largest_size_are_accepted() {
    let mut v = good();
    v["tensors"][1]["bytes"] = json!(0);
    v["tensors"][2]["bytes"] = json!(u64::MAX - 4095);
    let p = parse_program(&v.to_string(), "ok.json", MAX).unwrap();
    assert_eq!(p.tensors[1].bytes, 0);
    assert_eq!(p.tensors[2].bytes, 18_446_744_073_709_547_520);
}

// ---------------------------------------------------------------- program JSON: bad input

#[test]
fn json_malformed_names_line_and_column() {
    let text = "{\n  \"name\": \"m\",\n  \"tensors\": [1,]\n}";
    let e = parse_program(text, "bad.json", MAX).unwrap_err();
    let InputError::MalformedJson { line, column, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!((*line, *column), (3, 17));
    assert!(e.to_string().starts_with("bad.json:3:17: malformed JSON: "), "{e}");
}

#[test]
fn json_key_given_twice_is_refused_at_its_second_place() {
    // serde_json's `Value` kept the last `bytes` (128) silently; the planner planned it
    let text = "{\"name\": \"m\", \"tensors\": [\n {\"name\": \"x\", \"bytes\": 64, \"bytes\": 128, \"kind\": \"input\"}],\n \"ops\": []}";
    let e = parse_program(text, "twice.json", MAX).unwrap_err();
    let InputError::MalformedJson { line, column, message, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!((*line, *column, message.as_str()), (2, 35, "duplicate key `bytes` at line 2 column 35"));
}

#[test]
fn json_missing_field() {
    assert_eq!(
        json_error(|v| {
            v["tensors"][2].as_object_mut().unwrap().remove("bytes");
        }),
        "bad.json: tensors[2].bytes: missing field"
    );
    assert_eq!(
        json_error(|v| {
            v["ops"][1].as_object_mut().unwrap().remove("outputs");
        }),
        "bad.json: ops[1].outputs: missing field"
    );
    assert_eq!(
        json_error(|v| {
            v.as_object_mut().unwrap().remove("ops");
        }),
        "bad.json: ops: missing field"
    );
}

#[test]
fn json_non_numeric_bytes() {
    assert_eq!(
        json_error(|v| v["tensors"][2]["bytes"] = json!("64")),
        "bad.json: tensors[2].bytes: expected a non-negative integer, found \"64\""
    );
    assert_eq!(
        json_error(|v| v["tensors"][0]["bytes"] = json!(1.5)),
        "bad.json: tensors[0].bytes: expected a non-negative integer, found 1.5"
    );
    // a whole number past u64 (JSON keeps it as a float): out of range, as in a CSV
    let mut v = good();
    v["tensors"][2]["bytes"] = json!(987_654_321u64);
    let text = v.to_string().replace("987654321", "18446744073709551616");
    assert_eq!(
        parse_program(&text, "bad.json", MAX).unwrap_err().to_string(),
        "bad.json: tensors[2].bytes: 1.8446744073709552e+19 is out of range: past u64's largest value, \
         18446744073709551615"
    );
}

#[test]
fn json_negative_bytes() {
    assert_eq!(
        json_error(|v| v["tensors"][2]["bytes"] = json!(-64)),
        "bad.json: tensors[2].bytes: negative value -64 (sizes, bounds and addresses are unsigned)"
    );
}

#[test]
fn json_bytes_overflowing_page_round_up() {
    assert_eq!(
        json_error(|v| v["tensors"][3]["bytes"] = json!(u64::MAX - 4094)),
        "bad.json: tensors[3].bytes: size 18446744073709547521 bytes overflows u64 when rounded up to a 4096-byte page (every size must, whatever --align, so any alignment up to a page can plan it)"
    );
}

#[test]
fn json_duplicate_tensor_name() {
    assert_eq!(
        json_error(|v| v["tensors"][3]["name"] = json!("t")),
        "bad.json: tensors[3].name: duplicate name `t` (first at tensors[2].name)"
    );
}

#[test]
fn json_op_names_unknown_tensor() {
    assert_eq!(
        json_error(|v| v["ops"][1]["inputs"] = json!(["t", "nope"])),
        "bad.json: ops[1].inputs[1]: unknown tensor `nope`"
    );
    assert_eq!(
        json_error(|v| v["ops"][0]["outputs"] = json!(["ghost"])),
        "bad.json: ops[0].outputs[0]: unknown tensor `ghost`"
    );
}

#[test]
fn json_intermediate_read_before_def() {
    assert_eq!(
        json_error(|v| v["ops"][0]["inputs"] = json!(["x", "t"])),
        "bad.json: ops[0].inputs[1]: op reads intermediate tensor `t` before any op defines it"
    );
}

#[test]
fn json_output_read_before_def() {
    assert_eq!(
        json_error(|v| v["ops"][0]["inputs"] = json!(["y"])),
        "bad.json: ops[0].inputs[0]: op reads output tensor `y` before any op defines it"
    );
}

#[test]
fn json_too_many_tensors() {
    assert_eq!(json_error_max(|_| {}, 3), "bad.json: tensors[3]: more than 3 tensors");
    // Exactly at the capacity is fine.
    assert!(parse_program(&good().to_string(), "m.json", 4).is_ok());
}

#[test]
fn json_zero_byte_intermediate_or_output() {
    assert_eq!(
        json_error(|v| v["tensors"][2]["bytes"] = json!(0)),
        "bad.json: tensors[2].bytes: `t` has size 0 bytes (only inputs and weights may be empty)"
    );
    assert_eq!(
        json_error(|v| v["tensors"][3]["bytes"] = json!(0)),
        "bad.json: tensors[3].bytes: `y` has size 0 bytes (only inputs and weights may be empty)"
    );
}

#[test]
fn json_wrong_types() {
    assert_eq!(
        json_error(|v| v["tensors"][1]["kind"] = json!("const")),
        "bad.json: tensors[1].kind: expected one of input|output|weight|intermediate, found \"const\""
    );
    assert_eq!(
        json_error(|v| v["ops"][0]["inputs"][1] = json!(1)),
        "bad.json: ops[0].inputs[1]: expected a tensor name (string), found 1"
    );
    assert_eq!(
        json_error(|v| v["tensors"][2]["shared"] = json!("yes")),
        "bad.json: tensors[2].shared: expected true or false, found \"yes\""
    );
    assert_eq!(json_error(|v| v["tensors"] = json!({})), "bad.json: tensors: expected an array, found {}");
    assert_eq!(
        parse_program("[]", "bad.json", MAX).unwrap_err().to_string(),
        "bad.json: <root>: expected an object, found []"
    );
}

#[test]
fn json_empty_tensor_name() {
    assert_eq!(json_error(|v| v["tensors"][0]["name"] = json!("")), "bad.json: tensors[0].name: empty name");
}

#[test]
fn json_tensor_written_twice() {
    assert_eq!(
        json_error(|v| v["ops"][1]["outputs"] = json!(["y", "t"])),
        "bad.json: ops[1].outputs[1]: tensor `t` is written again (first defined at ops[0].outputs[0])"
    );
}

#[test]
fn json_op_writes_weight() {
    assert_eq!(
        json_error(|v| v["ops"][1]["outputs"] = json!(["y", "w"])),
        "bad.json: ops[1].outputs[1]: op writes weight tensor `w` (inputs and weights are read-only)"
    );
}

#[test]
fn json_tensor_never_defined() {
    assert_eq!(
        json_error(|v| v["ops"][1]["outputs"] = json!([])),
        "bad.json: tensors[3]: output tensor `y` is never written by any op"
    );
}

#[test]
fn json_address_on_intermediate() {
    assert_eq!(
        json_error(|v| v["tensors"][2]["address"] = json!(4096)),
        "bad.json: tensors[2].address: intermediate tensor `t` has an explicit address 4096 (only inputs, outputs and weights are pre-placed)"
    );
    assert_eq!(
        json_error(|v| v["tensors"][0]["address"] = json!(-4096)),
        "bad.json: tensors[0].address: negative value -4096 (sizes, bounds and addresses are unsigned)"
    );
}

#[test]
fn json_missing_file_names_the_path() {
    let path = Path::new("/nonexistent/dramalloc/model.json");
    let e = read_program(path, MAX).unwrap_err();
    assert!(matches!(e, InputError::Io { .. }), "{e:?}");
    assert!(e.to_string().starts_with("/nonexistent/dramalloc/model.json: cannot read: "), "{e}");
}

#[test]
fn explicit_addresses_are_kept_and_skipped() {
    let mut v = good();
    v["tensors"][1]["address"] = json!(0); // w pinned at 0, x must move past it
    v["tensors"][1]["bytes"] = json!(5000); // two pages
    let p = parse_program(&v.to_string(), "m.json", MAX).unwrap();
    assert_eq!(pack_preplaced(&p, PAGE).unwrap(), [Some(8192), Some(0), None, Some(12288)]);
}

// ---------------------------------------------------------------- minimalloc CSV

#[test]
fn csv_columns_in_any_order_and_unknown_columns_rejected() {
    let rows = parse_buffers("size,upper,lower,id\n4,3,0,b1\n8,9,3,b2\n", "p", 2).unwrap();
    assert_eq!(
        rows.to_buffers(),
        [
            Buffer { id: "b1".into(), lower: 0, upper: 3, size: 4 },
            Buffer { id: "b2".into(), lower: 3, upper: 9, size: 8 }
        ]
    );
    assert_eq!(
        csv_error("size,upper,note,lower,id\n4,3,x,0,b1\n"),
        "bad.csv: line 1: unknown column `note` (known: id, lower, upper, size, offset, alignment, align; aliases buffer, buffer_id, start, begin, end)"
    );
    assert_eq!(
        csv_error("id,lower,upper,size,gaps\na,0,3,4,\n"),
        "bad.csv: line 1: unknown column `gaps` (MiniMalloc's lifetime gaps are not supported)"
    );
}

#[test]
fn csv_malformed_names_the_line() {
    let e = parse_buffers("id,lower,upper,size\na,0,3,4\nb,0,3\n", "bad.csv", MAX).unwrap_err();
    let InputError::MalformedCsv { line, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*line, 3);
    assert!(e.to_string().starts_with("bad.csv: line 3: malformed CSV: "), "{e}");
}

#[test]
fn csv_missing_column() {
    assert_eq!(
        csv_error("id,lower,upper\na,0,3\n"),
        "bad.csv: line 1: missing column `size` in header `id,lower,upper`"
    );
    assert_eq!(
        csv_error(""),
        "bad.csv: the file is empty: a CSV starts with its header line, `id,lower,upper,size`"
    );
    assert_eq!(
        parse_solution("id,lower,upper,size\na,0,3,4\n", "sol.csv", MAX).unwrap_err().to_string(),
        "sol.csv: line 1: missing column `offset` in header `id,lower,upper,size`"
    );
}

#[test]
fn csv_repeated_column() {
    assert_eq!(
        csv_error("id,lower,upper,size,Size\na,0,3,4,4\n"),
        "bad.csv: line 1: column `size` appears twice in the header (as `size` and `Size`)"
    );
    assert_eq!(
        csv_error("id,lower,size,size\na,0,3,4,4\n"),
        "bad.csv: line 1: column `size` appears twice in the header"
    );
    // an alias names the column it stands for, and both cells are told
    assert_eq!(
        csv_error("id,lower,upper,end,size\na,0,3,2,4\n"),
        "bad.csv: line 1: column `upper` appears twice in the header (as `upper` and `end`)"
    );
}

#[test]
fn csv_non_numeric_value() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,0,3,4\nb,0,3,4k\n"),
        "bad.csv: line 3, column `size`: expected a non-negative integer, found `4k`"
    );
    assert_eq!(
        csv_error("id,lower,upper,size\na,,3,4\n"),
        "bad.csv: line 2, column `lower`: expected a non-negative integer, found ``"
    );
}

#[test]
fn csv_negative_value() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,-1,3,4\n"),
        "bad.csv: line 2, column `lower`: negative value `-1` (sizes, bounds and addresses are unsigned)"
    );
}

#[test]
fn csv_upper_not_above_lower() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,5,5,4\n"),
        "bad.csv: line 2: buffer `a` has upper 5 <= lower 5 (upper is exclusive)"
    );
    assert!(matches!(
        parse_buffers("id,lower,upper,size\na,7,3,4\n", "bad.csv", MAX),
        Err(InputError::EmptyLifetime { line: 2, lower: 7, upper: 3, .. })
    ));
}

#[test]
fn csv_duplicate_id() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,0,3,4\nb,0,3,4\na,5,6,4\n"),
        "bad.csv: line 4, column `id`: duplicate name `a` (first at line 2, column `id`)"
    );
}

#[test]
fn csv_zero_size() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,0,3,0\n"),
        "bad.csv: line 2, column `size`: `a` has size 0 bytes (a buffer of a minimalloc CSV holds at least one byte)"
    );
}

#[test]
fn csv_size_overflowing_page_round_up() {
    assert_eq!(
        csv_error("id,lower,upper,size\na,0,3,18446744073709551615\n"),
        "bad.csv: line 2, column `size`: size 18446744073709551615 bytes overflows u64 when rounded up to a 4096-byte page (every size must, whatever --align, so any alignment up to a page can plan it)"
    );
}

/// A header that is not text (a binary file given as a CSV) is said so, naming the field,
/// not echoed as an unknown column of replacement characters.
#[test]
fn csv_header_not_utf8() {
    let bytes: &[u8] = b"id,lower,\xff\xfeup,size\na,0,3,4\n";
    let e = dramalloc_sim::input::read_buffers_from(bytes, "bin.csv", MAX).unwrap_err();
    assert_eq!(e.to_string(), "bin.csv: line 1, column `header field 3`: not valid UTF-8 text");
    assert!(matches!(e, InputError::CellNotUtf8 { .. }));
}

#[test]
fn csv_empty_id() {
    assert_eq!(csv_error("id,lower,upper,size\n,0,3,4\n"), "bad.csv: line 2, column `id`: empty name");
}

#[test]
fn csv_too_many_rows() {
    let text = "id,lower,upper,size\na,0,3,4\nb,0,3,4\nc,0,3,4\n";
    assert_eq!(
        parse_buffers(text, "bad.csv", 2).unwrap_err().to_string(),
        "bad.csv: line 4, column `id`: more than 2 rows"
    );
    assert_eq!(parse_buffers(text, "ok.csv", 3).unwrap().len(), 3);
}

#[test]
fn csv_solution_parses_and_names_bad_offset() {
    let rows = parse_solution("id,lower,upper,size,offset\nb1,0,3,4,8\n", "s.csv", MAX).unwrap();
    assert_eq!(
        rows.to_solution_rows(),
        [SolutionRow { id: "b1".into(), lower: 0, upper: 3, size: 4, offset: 8 }]
    );
    let e = parse_solution("id,lower,upper,size,offset\nb1,0,3,4,x\n", "s.csv", MAX).unwrap_err();
    assert!(matches!(
        &e,
        InputError::NotANumber { at: Location::Csv { line: 2, column }, value, .. }
            if column == "offset" && value == "`x`"
    ));
}

// ---------------------------------------------------------------- the bundled traces

use bundled_data::{data_dir, files};

/// The problem the models README derives from a program: one row per intermediate or
/// output tensor, live `[def, 1 + last read)`, outputs to the end, unread ones one op.
fn derived_rows(p: &dramalloc_sim::input::Program) -> Vec<Buffer> {
    let mut def = vec![None; p.tensors.len()];
    let mut last = vec![None; p.tensors.len()];
    for (i, op) in p.ops.iter().enumerate() {
        for &t in &op.inputs {
            last[t as usize] = Some(i as u64);
        }
        for &t in &op.outputs {
            def[t as usize].get_or_insert(i as u64);
        }
    }
    let mut rows = Vec::new();
    for (i, t) in p.tensors.iter().enumerate() {
        if t.kind.is_loaded() {
            continue;
        }
        let lower = def[i].unwrap();
        let upper = match (t.kind, last[i]) {
            (TensorKind::Output, _) => p.ops.len() as u64,
            (_, Some(l)) => l + 1,
            (_, None) => lower + 1,
        };
        rows.push(Buffer { id: rows.len().to_string(), lower, upper, size: t.bytes });
    }
    rows
}

#[test]
fn every_model_json_parses_and_matches_its_csv() {
    let dir = data_dir();
    let index = std::fs::read_to_string(dir.join("models_index.csv")).unwrap();
    // model -> (ops, csv rows, tensors)
    let mut expected: HashMap<String, (usize, usize, usize)> = HashMap::new();
    for line in index.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        expected
            .insert(f[0].to_owned(), (f[1].parse().unwrap(), f[2].parse().unwrap(), f[5].parse().unwrap()));
    }
    let models = files(&dir.join("models"), ".json");
    assert_eq!(models.len(), expected.len());
    for path in models {
        let p = read_program(&path, MAX).unwrap_or_else(|e| panic!("{e}"));
        let (ops, rows, tensors) = expected[&p.name];
        assert_eq!((p.ops.len(), p.tensors.len()), (ops, tensors), "{}", p.name);
        let placed = pack_preplaced(&p, PAGE).unwrap();
        for (t, a) in p.tensors.iter().zip(&placed) {
            assert_eq!(a.is_some(), t.kind.is_preplaced(), "{}", t.name);
        }
        let csv = read_buffers(&path.with_extension("csv"), MAX).unwrap();
        assert_eq!(csv.len(), rows, "{}", p.name);
        assert_eq!(derived_rows(&p), csv.to_buffers(), "{}", p.name);
    }
}

#[test]
fn every_minimalloc_csv_parses() {
    let dir = data_dir();
    let known: HashMap<&str, usize> = [
        ("A.1048576.csv", 154),
        ("B.1048576.csv", 170),
        ("C.1048576.csv", 203),
        ("D.1048576.csv", 213),
        ("E.1048576.csv", 215),
        ("F.1048576.csv", 296),
        ("G.1048576.csv", 308),
        ("H.1048576.csv", 316),
        ("I.1048576.csv", 374),
        ("J.1048576.csv", 409),
        ("K.1048576.csv", 454),
        ("input.12.csv", 5),
        ("somas_resnet50.csv", 1042),
        ("iopddl_G_1.csv", 816),
        ("iopddl_S_1.csv", 28526),
    ]
    .into_iter()
    .collect();
    let mut checked = 0;
    let all = files(&dir, ".csv");
    assert_eq!(all.len(), 15 + 15, "15 known files and the 15 model CSVs");
    for path in all {
        let rows = read_buffers(&path, MAX).unwrap_or_else(|e| panic!("{e}"));
        assert!(!rows.is_empty(), "{}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        if let Some(&n) = known.get(name.as_ref()) {
            assert_eq!(rows.len(), n, "{}", path.display());
            checked += 1;
        }
    }
    assert_eq!(checked, known.len(), "every known file is bundled");
}

/// A value an error repeats is cut at 1,024 characters, with its length in bytes: a 5 MB id
/// must not make a 5 MB message. Ids, numbers and header columns alike.
#[test]
fn csv_long_values_are_shortened_in_messages() {
    let (x, nines) = ("x".repeat(3000), "9".repeat(3000));
    let cut = |c: &str| format!("{}… (3000 bytes)", c.repeat(1024));
    assert_eq!(
        csv_error(&format!("id,lower,upper,size\n{x},0,5,10\n{x},1,4,10\n")),
        format!("bad.csv: line 3, column `id`: duplicate name `{}` (first at line 2, column `id`)", cut("x"))
    );
    assert_eq!(
        csv_error(&format!("id,lower,upper,size\na,0,5,{nines}\n")),
        format!(
            "bad.csv: line 2, column `size`: `{}` is out of range: past u64's largest value, 18446744073709551615",
            cut("9")
        )
    );
    let e = csv_error(&format!("id,lower,upper,size,{x}\na,0,5,10,1\n"));
    assert!(e.starts_with(&format!("bad.csv: line 1: unknown column `{}` (", cut("x"))), "{e}");
    // exactly 1,024 characters are repeated whole; multi-byte characters are cut on a boundary
    let whole = "é".repeat(1024);
    assert_eq!(
        csv_error(&format!("id,lower,upper,size\n{whole},3,3,10\n")),
        format!("bad.csv: line 2: buffer `{whole}` has upper 3 <= lower 3 (upper is exclusive)")
    );
    // control characters are escaped, not sent to the terminal
    assert_eq!(
        csv_error("id,lower,upper,size\na\x1b[31m,0,3,1\na\x1b[31m,0,3,1\n"),
        "bad.csv: line 3, column `id`: duplicate name `a\\u{1b}[31m` (first at line 2, column `id`)"
    );
    assert_eq!(
        csv_error("id,lower,upper,size\na,0,3,1\0\n"),
        "bad.csv: line 2, column `size`: expected a non-negative integer, found `1\\0`"
    );
    let over = "é".repeat(1025);
    let e = csv_error(&format!("id,lower,upper,size\n{over},3,3,10\n"));
    assert!(e.contains(&format!("`{whole}… (2050 bytes)`")), "{e}");
}

/// A solution's `align` of 0 is the file's error, named by line and column (it was the
/// verifier's `alignment must be at least 1 byte`, exit 1, with no place).
#[test]
fn csv_solution_align_zero_names_the_cell() {
    let e = parse_solution("id,lower,upper,size,offset,align\na,0,10,100,0,0\n", "s.csv", MAX).unwrap_err();
    assert_eq!(
        e.to_string(),
        "s.csv: line 2, column `align`: align 0 (a solution's alignment is at least 1 byte)"
    );
}
