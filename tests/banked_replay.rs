//! Runs every `tests/replay/*.replay` script through `dramalloc_sim::replay` and compares the
//! output with `tests/replay/*.expected` (byte for byte). `report.replay` also compares the
//! three CSV reports with `tests/replay/report/*.csv`.
//! Set `DRAMALLOC_BLESS=1` to (re)write the expected files after reviewing a change.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_sim::cli::{run_with, Console};
use dramalloc_sim::replay::{replay_str, run_replay, ReplayError};

fn replay_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("replay")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-banked-replay-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn bless() -> bool {
    std::env::var_os("DRAMALLOC_BLESS").is_some()
}

fn check_text(expected_path: &Path, actual: &str) -> Result<(), String> {
    if bless() {
        fs::write(expected_path, actual).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected =
        fs::read_to_string(expected_path).map_err(|e| format!("{}: {e}", expected_path.display()))?;
    if expected != actual {
        return Err(format!(
            "{} differs:\n--- expected\n{expected}--- actual\n{actual}",
            expected_path.display()
        ));
    }
    Ok(())
}

#[test]
fn every_script_matches_its_expected_output() -> Result<(), String> {
    let mut scripts: Vec<PathBuf> = fs::read_dir(replay_dir())
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "replay"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 40, "expected every public scenario, found {}", scripts.len());
    let mut failures = Vec::new();
    for script in &scripts {
        let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("script").to_string();
        let text = fs::read_to_string(script).map_err(|e| e.to_string())?;
        let dir = scratch(&stem);
        let outcome = replay_str(&text, Some(&dir)).map_err(|e| format!("{stem}: {e}"))?;
        let mut actual = outcome.lines.join("\n");
        actual.push('\n');
        if let Err(e) = check_text(&script.with_extension("expected"), &actual) {
            failures.push(e);
        }
        if stem == "report" {
            for f in ["memory_usage_summary.csv", "l1_usage_summary.csv", "detailed_memory_usage.csv"] {
                let got = fs::read_to_string(dir.join("out").join(format!("test_{f}")))
                    .map_err(|e| e.to_string())?;
                if let Err(e) = check_text(&replay_dir().join("report").join(f), &got) {
                    failures.push(e);
                }
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn malformed_script_is_exit_code_2_and_prints_nothing() -> Result<(), String> {
    let dir = scratch("malformed");
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("bad.replay");
    fs::write(&script, "device wormhole\nbuffer a dram 24K 2048\nreport out\nbuffer b dram 24K\n")
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let r = run_replay(&script, false, &mut out);
    match r {
        Err(e @ ReplayError::Parse { line: 4, .. }) => {
            assert_eq!(e.exit_code(), 2);
            assert_eq!(
                e.to_string(),
                format!("{}:4: `buffer` takes 4 argument(s), got 3: `buffer b dram 24K`", script.display())
            );
        }
        other => return Err(format!("expected a parse error on line 4, got {other:?}")),
    }
    assert!(out.is_empty());
    assert!(!dir.join("out").exists(), "nothing may be written before the parse succeeds");
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn run_replay_prints_one_line_per_operation() -> Result<(), String> {
    let dir = scratch("ok");
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("ok.replay");
    fs::write(&script, "# comment\nallocator 1G min=1K align=1K\n\nalloc a 1K\nfree a\nfree a\n")
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let o = run_replay(&script, false, &mut out).map_err(|e| e.to_string())?;
    assert_eq!(o.errors, 1);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "allocator 1073741824 offset=0 min=1024 align=1024 policy=first\na 0\nfree a\n\
         error free a : double free: address 0 is not allocated (it lies in free memory)\n"
    );
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn unreadable_script_is_exit_code_2() {
    let mut out = Vec::new();
    let r = run_replay(Path::new("/nonexistent/dramalloc.replay"), false, &mut out);
    assert!(matches!(&r, Err(e @ ReplayError::Read { .. }) if e.exit_code() == 2));
}

/// A replay far past the old 512-block tables: 3000 live allocations with a hole between
/// each pair (6000 blocks), then 3000 live buffers on a device, in this (debug-buildable,
/// 2 MiB) test thread.
#[test]
fn replay_holds_thousands_of_live_blocks() -> Result<(), ReplayError> {
    const N: usize = 3000;
    let mut script = String::from("allocator 1G min=1K align=1K\n");
    for i in 0..N {
        script.push_str(&format!("alloc a{i} 1K\nalloc h{i} 1K\n"));
    }
    for i in 0..N {
        script.push_str(&format!("free h{i}\n"));
    }
    script.push_str("stats\nlowest\n");
    let out = replay_str(&script, None)?;
    assert_eq!(out.errors, 0, "{:?}", out.lines.iter().find(|l| l.starts_with("error")));
    assert_eq!(out.lines[2 * N], format!("h{} {}", N - 1, (2 * N - 1) * 1024));
    let stats = format!(
        "stats total={} allocated={} free={} largest={}",
        1u64 << 30,
        N * 1024,
        (1 << 30) - N * 1024,
        (1 << 30) - 2 * N * 1024 + 1024
    );
    assert_eq!(out.lines[3 * N + 1], stats);
    assert_eq!(out.lines[3 * N + 2], "lowest 0");

    let mut script = String::from("device wormhole\n");
    for i in 0..N {
        script.push_str(&format!("buffer b{i} dram 12K 1K\n"));
    }
    let out = replay_str(&script, None)?;
    assert_eq!(out.errors, 0, "{:?}", out.lines.iter().find(|l| l.starts_with("error")));
    assert!(out.lines[N].starts_with(&format!("b{} ", N - 1)), "{}", out.lines[N]);
    Ok(())
}

/// A trial found `allocator 18446744073709551615 offset=1 align=1` and `allocator 1G
/// offset=18446744073709551615` both said `offset + size = 18446744073709551615` (the real
/// sum overflows), and a size past 2^57 at offset 0 the same text, which did not say why.
#[test]
fn allocator_range_errors_state_the_true_reason() -> Result<(), ReplayError> {
    let script =
        "allocator 18446744073709551615 offset=1 align=1\nallocator 1G offset=18446744073709551615\n\
                  allocator 18446744073709551615 align=1\nallocator 131072T offset=1\nallocator 131072T\n";
    let out = replay_str(script, None)?;
    assert_eq!(
        out.lines,
        [
            "error allocator 18446744073709551615 offset=1 align=1 : invalid configuration: offset 1 + size \
             18446744073709551615 overflows 64 bits",
            "error allocator 1G offset=18446744073709551615 : invalid configuration: offset \
             18446744073709551615 + size 1073741824 overflows 64 bits",
            "error allocator 18446744073709551615 align=1 : invalid configuration: offset 0 + size \
             18446744073709551615 = 18446744073709551615 is beyond the address limit 144115188075855872 (2^57)",
            "error allocator 131072T offset=1 : invalid configuration: offset 1 + size 144115188075855872 = \
             144115188075855873 is beyond the address limit 144115188075855872 (2^57)",
            // exactly 2^57 is allowed
            "allocator 144115188075855872 offset=0 min=1 align=1 policy=first",
        ]
    );
    assert_eq!(out.errors, 4);
    Ok(())
}

/// `dram_align=0` was refused but `l1_align=0` accepted; both are malformed lines now.
#[test]
fn a_zero_alignment_is_malformed_for_dram_and_l1() {
    let device = "device dram_banks=2 dram_bank_size=1M dram_align=32 dram_reserved=32 l1_banks=4 \
                  l1_size=1M l1_base=64K l1_align=16";
    assert!(replay_str(device, None).is_ok());
    for (key, good) in [("dram_align", "dram_align=32"), ("l1_align", "l1_align=16")] {
        let bad = device.replace(good, &format!("{key}=0"));
        let e = replay_str(&format!("# a device\n{bad}\n"), None).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.to_string(), format!("<script>:2: {key} must be positive: `{bad}`"));
    }
}

/// A UTF-8 byte-order mark at the start of a script is skipped (it was read as part of the
/// first operation: ``unknown operation `\u{feff}allocator` ``); anywhere else it is not.
#[test]
fn a_byte_order_mark_at_the_start_is_skipped() -> Result<(), ReplayError> {
    let out = replay_str("\u{feff}allocator 1M\nalloc a 1K\n", None)?;
    assert_eq!(out.lines, ["allocator 1048576 offset=0 min=1 align=1 policy=first", "a 0"]);
    let out = replay_str("\u{feff}# a comment first\nallocator 1M\n", None)?;
    assert_eq!(out.lines, ["allocator 1048576 offset=0 min=1 align=1 policy=first"]);
    let e = replay_str("allocator 1M\n\u{feff}alloc a 1K\n", None).unwrap_err();
    assert_eq!(e.to_string(), "<script>:2: unknown operation `\u{feff}alloc`: `\u{feff}alloc a 1K`");
    Ok(())
}

/// A script that is not UTF-8 names the script and its first line with a bad byte (it named
/// no line), exit code 2, nothing printed.
#[test]
fn a_non_utf8_script_names_its_first_bad_line() -> Result<(), String> {
    let dir = scratch("utf8");
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("latin1.replay");
    for (bytes, line) in [
        (&b"allocator 1M\nalloc a 1K\n# caf\xe9 \xff\nalloc b 1K\n"[..], 3),
        (&b"\xffallocator 1M\n"[..], 1),
        (&b"allocator 1M\r\n\r\nalloc \xc3 1K\n"[..], 3),
    ] {
        fs::write(&script, bytes).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        match run_replay(&script, false, &mut out) {
            Err(e @ ReplayError::NotUtf8 { .. }) => {
                assert_eq!(e.exit_code(), 2);
                assert_eq!(e.to_string(), format!("{}:{line}: not valid UTF-8 text", script.display()));
            }
            other => return Err(format!("expected NotUtf8 on line {line}, got {other:?}")),
        }
        assert!(out.is_empty());
    }
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

/// `dramalloc replay -` (in-process): standard input with a byte-order mark runs; one that is
/// not UTF-8 names `<stdin>` and the line, exit code 2.
#[test]
fn replay_from_stdin_skips_a_bom_and_names_a_non_utf8_line() {
    let run = |stdin: &[u8]| {
        let (mut input, mut o, mut e) = (stdin, Vec::new(), Vec::new());
        let mut con = Console { stdin: &mut input, stdout: &mut o, stderr: &mut e, progress: false };
        let code = run_with(["dramalloc", "replay", "-"].map(Into::into), &mut con);
        (code, String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
    };
    let (code, out, err) = run("\u{feff}allocator 1M\nalloc a 1K\n".as_bytes());
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (ExitCode::from(0), "allocator 1048576 offset=0 min=1 align=1 policy=first\na 0\n", "")
    );
    let (code, out, err) = run(b"allocator 1M\n# caf\xe9\nalloc a 1K\n");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (ExitCode::from(2), "", "error: <stdin>:2: not valid UTF-8 text\n")
    );
}

/// The user trial's scripts, exactly: an `l1_size` or `dram_reserved` off the DRAM-alignment
/// grid makes the `device` line an error line naming the key, its value and the alignment (the
/// buffers after it find no device); on the grid every address is a multiple of it. The L1
/// base is rounded up and printed rounded.
#[test]
fn device_bounds_off_the_grid_are_error_lines() -> Result<(), ReplayError> {
    let grid = "(every address the allocator hands out is on its alignment grid)";
    let script = "device dram_banks=2 dram_bank_size=1M dram_align=32 dram_reserved=0 l1_banks=2 l1_size=1000 l1_base=100 l1_align=16\n\
                  buffer x l1 64 32\nbuffer y l1 64 32\n";
    let out = replay_str(script, None)?;
    assert_eq!(
        out.lines,
        [
            format!(
                "error device dram_banks=2 dram_bank_size=1M dram_align=32 dram_reserved=0 l1_banks=2 l1_size=1000 l1_base=100 l1_align=16 : \
                 invalid configuration: l1_size = 1000 is not a multiple of the alignment 32 {grid}"
            ),
            "error buffer x l1 64 32 : no device".to_string(),
            "error buffer y l1 64 32 : no device".to_string(),
        ]
    );
    assert_eq!(out.errors, 3);
    let script = "device dram_banks=2 dram_bank_size=48K dram_align=48 dram_reserved=5 l1_banks=2 l1_size=48K l1_base=100 l1_align=16\n\
                  buffer a dram 96 48\n";
    let out = replay_str(script, None)?;
    assert_eq!(
        out.lines[0],
        format!(
            "error device dram_banks=2 dram_bank_size=48K dram_align=48 dram_reserved=5 l1_banks=2 l1_size=48K l1_base=100 l1_align=16 : \
             invalid configuration: dram_reserved = 5 is not a multiple of the alignment 48 {grid}"
        )
    );
    // on the grid: the base 100 is printed rounded to 128, addresses are multiples of 32 / 48
    let script = "device dram_banks=2 dram_bank_size=1M dram_align=32 dram_reserved=0 l1_banks=2 l1_size=1024 l1_base=100 l1_align=16\n\
                  buffer x l1 64 32\nbuffer y l1 64 32\n\
                  device dram_banks=2 dram_bank_size=48K dram_align=48 dram_reserved=48 l1_banks=2 l1_size=48K l1_base=100 l1_align=16\n\
                  buffer a dram 96 48\nbuffer b dram 96 48\n";
    let out = replay_str(script, None)?;
    assert_eq!(
        out.lines,
        [
            "device dram_banks=2 dram_bank_size=1048576 l1_banks=2 l1_size=1024 l1_base=128",
            "x 992 per_bank=32",
            "y 960 per_bank=32",
            "device dram_banks=2 dram_bank_size=49152 l1_banks=2 l1_size=49152 l1_base=144",
            "a 48 per_bank=48",
            "b 96 per_bank=48",
        ]
    );
    // a single free list: offset and size on the `align` grid
    let out = replay_str("allocator 1000 align=32\nallocator 1M offset=5 align=4\n", None)?;
    assert_eq!(
        out.lines,
        [
            format!(
                "error allocator 1000 align=32 : invalid configuration: size = 1000 is not a multiple of the alignment 32 {grid}"
            ),
            format!(
                "error allocator 1M offset=5 align=4 : invalid configuration: offset = 5 is not a multiple of the alignment 4 {grid}"
            ),
        ]
    );
    Ok(())
}

/// The trial's zero-size buffers: an error line naming the buffer, nothing allocated (they
/// took 32 bytes a bank and printed `per_bank=0`); the same for `alloc` and `at` on a single
/// free list (`alloc a 0` printed `a 0` with `allocated=1`). `sharded=0` says what is wrong
/// (it said "0 shard cores requested but only 4 banks exist"). Error lines leave the exit
/// code 0 (`run_replay_text` returns `Ok`) unless `--strict`.
#[test]
fn zero_sizes_and_zero_shards_are_error_lines_naming_the_buffer() -> Result<(), ReplayError> {
    let script = "device dram_banks=2 dram_bank_size=1M dram_align=32 dram_reserved=32 l1_banks=4 l1_size=1M l1_base=100 l1_align=16\n\
                  buffer zero dram 0 100\nbuffer zero2 dram 0 100\nbuffer big dram 400 100\nstats dram\n\
                  buffer lz l1 0 32\nstats l1\nbuffer s l1 64 32 sharded=0\nbuffer s5 l1 64 32 sharded=5\n";
    let mut out = Vec::new();
    let o = dramalloc_sim::replay::run_replay_text(script, "<trial>", None, false, &mut out)?;
    assert_eq!(o.errors, 5);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "device dram_banks=2 dram_bank_size=1048576 l1_banks=4 l1_size=1048576 l1_base=128\n\
         error buffer zero dram 0 100 : buffer `zero`: size 0 B: a DRAM buffer holds at least one byte\n\
         error buffer zero2 dram 0 100 : buffer `zero2`: size 0 B: a DRAM buffer holds at least one byte\n\
         big 32 per_bank=256\n\
         stats dram total=1048544 allocated=256 free=1048288 largest=1048288\n\
         error buffer lz l1 0 32 : buffer `lz`: size 0 B: an L1 buffer holds at least one byte\n\
         stats l1 total=1048448 allocated=0 free=1048448 largest=1048448\n\
         error buffer s l1 64 32 sharded=0 : 0 shard cores requested: a sharded buffer needs 1 to 4 shard cores (one per bank at most)\n\
         error buffer s5 l1 64 32 sharded=5 : 5 shard cores requested but only 4 banks exist\n"
    );
    let out = replay_str("allocator 1M\nalloc a 0\nat b 0 0\nstats\nalloc a 1\n", None)?;
    assert_eq!(
        out.lines,
        [
            "allocator 1048576 offset=0 min=1 align=1 policy=first",
            "error alloc a 0 : allocation `a`: size 0 B: an allocation holds at least one byte",
            "error at b 0 0 : allocation `b`: size 0 B: an allocation holds at least one byte",
            "stats total=1048576 allocated=0 free=1048576 largest=1048576",
            "a 0",
        ]
    );
    Ok(())
}
