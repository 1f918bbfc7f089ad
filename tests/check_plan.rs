//! `dramalloc check-plan` and the plan-file outputs of the command line: `run --report-dir`
//! and `plan -o X.bin` / `--format bin` write files that check as valid (exit 0), a wrong
//! plan exits 1 naming the tensor, and every single-bit flip and every truncation of a small
//! blob exits 2 (never 0, never a panic).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_core::plan_file::{file_checksum, PlanFile, CHECKSUM_OFFSET};
use dramalloc_sim::input::parse_program;
use dramalloc_sim::verify::plan_file::{check_plan_file, CheckPlanError};

const TINY: &str = include_str!("support/tiny_tp.json");

fn cli(args: &[&str]) -> ExitCode {
    dramalloc_sim::cli::main_with(std::iter::once("dramalloc").chain(args.iter().copied()).map(Into::into))
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dramalloc-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `run` of the tiny program on 2 cores, tensor-parallel: its report directory.
fn tiny_run(d: &Path) -> PathBuf {
    let json = d.join("tiny.json");
    std::fs::write(&json, TINY).unwrap();
    let out = d.join("out");
    let args = ["run", s(&json), "--cores", "2", "--split", "tensor-parallel", "--report-dir", s(&out)];
    assert_eq!(cli(&args), ExitCode::SUCCESS);
    out
}

#[test]
fn a_run_s_plan_checks_alone_and_against_its_program() {
    let d = dir("run");
    let out = tiny_run(&d);
    let (bin, json) = (out.join("plan.bin"), d.join("tiny.json"));
    assert_eq!(cli(&["check-plan", s(&bin)]), ExitCode::SUCCESS);
    assert_eq!(cli(&["check-plan", s(&bin), s(&json)]), ExitCode::SUCCESS);
    // another program: exit 1 (wrong plan for it); a missing file or program: exit 2
    let other = d.join("other.json");
    std::fs::write(&other, TINY.replace("\"bytes\": 3000", "\"bytes\": 3001")).unwrap();
    assert_eq!(cli(&["check-plan", s(&bin), s(&other)]), ExitCode::from(1));
    let program = parse_program(&std::fs::read_to_string(&other).unwrap(), "other", 100).unwrap();
    let e = check_plan_file(&std::fs::read(&bin).unwrap(), Some(&program)).unwrap_err();
    assert_eq!(
        e,
        CheckPlanError::Invalid("record 3 (`b` on core 0): 3000 bytes, the program says 3001".into())
    );
    assert_eq!(cli(&["check-plan", s(&d.join("none.bin"))]), ExitCode::from(2));
    assert_eq!(cli(&["check-plan", s(&bin), s(&d.join("none.json"))]), ExitCode::from(2));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_wrong_plan_exits_1_and_names_the_tensors() {
    let d = dir("wrong");
    let bytes = std::fs::read(tiny_run(&d).join("plan.bin")).unwrap();
    let f = PlanFile::parse(&bytes).unwrap();
    let t = |n: &str| (0..f.names().len() as u32).find(|&t| f.name(t) == Some(n)).unwrap();
    // move `a` (core 0) onto the pre-placed `x` at 0, CRC fixed: a collision
    let (i, _) = f.find(0, t("a")).unwrap();
    let at = 88 + 2 * 56 + i as usize * 40 + 8;
    let mut bad = bytes.clone();
    bad[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    let crc = file_checksum(&bad);
    bad[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
    let path = d.join("bad.bin");
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(cli(&["check-plan", s(&path)]), ExitCode::from(1));
    let CheckPlanError::Invalid(msg) = check_plan_file(&bad, None).unwrap_err() else {
        panic!("not invalid")
    };
    assert!(msg.contains("(`x` on core 0)") && msg.contains("(`a` on core 0)"), "{msg}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn every_bit_flip_and_truncation_exits_2() {
    let d = dir("flip");
    let bytes = std::fs::read(tiny_run(&d).join("plan.bin")).unwrap();
    let path = d.join("flipped.bin");
    let mut flipped = bytes.clone();
    for bit in 0..bytes.len() * 8 {
        flipped[bit / 8] ^= 1 << (bit % 8);
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(cli(&["check-plan", s(&path)]), ExitCode::from(2), "bit {bit}");
        flipped[bit / 8] ^= 1 << (bit % 8);
    }
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        assert_eq!(cli(&["check-plan", s(&path)]), ExitCode::from(2), "{len} bytes");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn plan_writes_a_bin_by_extension_or_format() {
    let d = dir("plan");
    let csv = d.join("p.csv");
    std::fs::write(&csv, "id,lower,upper,size\na,0,2,4096\nb,1,3,100\nc,2,4,4096\n").unwrap();
    let bin = d.join("p.bin");
    assert_eq!(cli(&["plan", s(&csv), "-o", s(&bin)]), ExitCode::SUCCESS);
    let other = d.join("p.out");
    assert_eq!(cli(&["plan", s(&csv), "-o", s(&other), "--format", "bin", "--json"]), ExitCode::SUCCESS);
    assert_eq!(std::fs::read(&bin).unwrap(), std::fs::read(&other).unwrap());
    let bytes = std::fs::read(&bin).unwrap();
    let f = PlanFile::read(&bytes, &mut [0; 3]).unwrap();
    assert_eq!((f.records().len(), f.cores()[0].hwm.get()), (3, 8192)); // a and c never live together
    assert_eq!(cli(&["check-plan", s(&bin)]), ExitCode::SUCCESS);
    let solution = d.join("p.solution.csv");
    assert_eq!(cli(&["plan", s(&csv), "-o", s(&solution)]), ExitCode::SUCCESS);
    assert!(std::fs::read_to_string(&solution).unwrap().starts_with("id,lower,upper,size,offset"));
    std::fs::remove_dir_all(&d).unwrap();
}
