//! `dramalloc check-plan` and the plan-file outputs of the command line: `run --report-dir`
//! and `plan -o X.bin` / `--format bin` write files that check as valid (exit 0), a wrong
//! plan exits 1 naming the tensor, and every single-bit flip and every truncation of a small
//! blob exits 2 (never 0, never a panic).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_core::plan_file::{
    file_checksum, CoreEntry, PlanFile, PlanFileError, PlanHeader, Record, CHECKSUM_OFFSET, FLAG_PREPLACED,
    FLAG_PROBLEM, FLAG_SHARED, FLAG_SLABS,
};
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

/// What an edit of one field must be rejected with.
enum Expect {
    /// The core's validator, this error.
    Core(PlanFileError),
    /// The check against the program, this message.
    Program(String),
}

/// A copy of `bytes` with `value` (little-endian, its width) at `at`, the CRC recomputed.
fn edit(bytes: &[u8], at: usize, value: u64, width: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
    let crc = file_checksum(&out);
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn an_edit_of_any_single_field_of_a_real_plan_is_rejected() {
    use std::mem::{offset_of, size_of};
    let d = dir("fields");
    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/models/onnx_vgg19.json");
    let out = d.join("vgg");
    let args = ["run", s(&json), "--cores", "2", "--split", "tensor-parallel", "--report-dir", s(&out)];
    assert_eq!(cli(&args), ExitCode::SUCCESS);
    let bytes = std::fs::read(out.join("plan.bin")).unwrap();
    let program = parse_program(&std::fs::read_to_string(&json).unwrap(), "vgg", 100_000).unwrap();
    assert!(check_plan_file(&bytes, Some(&program)).is_ok());
    let f = PlanFile::parse(&bytes).unwrap();
    let h = *f.header();
    let (base, bytes_shared, window) = (h.shared_base.get(), h.shared_bytes.get(), h.window.get());
    // the tensor-parallel slices are collectives: they live in the CC region, and the shared
    // region is empty
    assert_eq!((base, bytes_shared, h.align.get()), (601_014_272, 0, 4096));
    let c0 = f.cores()[0];
    assert_eq!(
        (c0.floor.get(), c0.cc_base.get(), c0.cc_bytes.get()),
        (575_324_160, 25_245_515_776, 524_288_000)
    );
    let header = |field: usize| field;
    let core0 = |field: usize| size_of::<PlanHeader>() + field;
    let records = size_of::<PlanHeader>() + std::mem::size_of_val(f.cores());
    let rec = |i: usize, field: usize| records + i * size_of::<Record>() + field;
    let name = |i: usize| f.name(f.records()[i].tensor.get()).unwrap().to_owned();
    let named = |i: usize| format!("record {i} (`{}` on core {})", name(i), f.records()[i].core.get());
    let all = f.records();
    // a shared record of core 1, a pre-placed record that is
    // not the floor's top and is accessed after instruction 0, a record of 4096 aligned bytes
    let shared1 = all.iter().position(|r| r.has(FLAG_SHARED) && r.core.get() == 1).unwrap();
    let pre = all
        .iter()
        .position(|r| {
            r.has(FLAG_PREPLACED) && r.core.get() == 0 && r.def.get() > 0 && r.end() != Some(c0.floor.get())
        })
        .unwrap();
    let page = all.iter().position(|r| r.aligned.get() == 4096 && r.bytes.get() < 4096).unwrap();
    let (pr, pg) = (&all[pre], &all[page]);
    let aligned = |to: u64| PlanFileError::AlignedMismatch {
        record: page as u32,
        tensor: pg.tensor.get(),
        bytes: pg.bytes.get(),
        aligned: to,
        expected: 4096,
    };
    let (def, last) = (pr.def.get(), pr.last_use.get());
    let lifetime = |d: u32, u: u32| {
        Expect::Program(format!(
            "{}: lifetime [{d}, {u}], the program accesses it over [{def}, {last}]",
            named(pre)
        ))
    };
    // a shared record's lifetime is the hull of every core's accesses, exactly: widened or
    // narrowed by one, it is refused (before 2026-12-05 any lifetime covering the core's own
    // accesses passed: a trial's edits of 190 of 798 shared and CC records)
    let sh = &all[shared1];
    let (sdef, slast) = (sh.def.get(), sh.last_use.get());
    assert!(slast > sdef && sdef > 0, "a shared record live over two instructions or more, after the first");
    let hull = |d: u32, u: u32| {
        Expect::Program(format!(
            "{}: lifetime [{d}, {u}], every core accesses it over [{sdef}, {slast}]",
            named(shared1)
        ))
    };
    let flags = |i: usize, what: &str| {
        Expect::Program(format!("{}: the program says it is {what}, the record says otherwise", named(i)))
    };
    let (flag_off, def_off, last_off) =
        (offset_of!(Record, flags), offset_of!(Record, def), offset_of!(Record, last_use));
    let cases: Vec<(&str, usize, u64, usize, Expect)> = vec![
        (
            "shared_bytes + 1",
            header(offset_of!(PlanHeader, shared_bytes)),
            bytes_shared + 1,
            8,
            Expect::Core(PlanFileError::SharedBytesMismatch {
                stored: bytes_shared + 1,
                computed: bytes_shared,
            }),
        ),
        (
            "shared_base past the window (the region empty)",
            header(offset_of!(PlanHeader, shared_base)),
            window + 4096,
            8,
            Expect::Core(PlanFileError::SharedRegionOutsideWindow { base: window + 4096, bytes: 0, window }),
        ),
        (
            "align 0",
            header(offset_of!(PlanHeader, align)),
            0,
            8,
            Expect::Core(PlanFileError::BadAlign { align: 0 }),
        ),
        (
            "floor 0",
            core0(offset_of!(CoreEntry, floor)),
            0,
            8,
            Expect::Core(PlanFileError::FloorMismatch { core: 0, stored: 0, computed: c0.floor.get() }),
        ),
        (
            "cc_bytes 0",
            core0(offset_of!(CoreEntry, cc_bytes)),
            0,
            8,
            Expect::Core(PlanFileError::CcRegionNotAtTop {
                core: 0,
                cc_base: c0.cc_base.get(),
                cc_bytes: 0,
                top: window,
            }),
        ),
        ("aligned 4097", rec(page, offset_of!(Record, aligned)), 4097, 8, Expect::Core(aligned(4097))),
        ("aligned 8192", rec(page, offset_of!(Record, aligned)), 8192, 8, Expect::Core(aligned(8192))),
        (
            "pre-placed flag cleared",
            rec(pre, flag_off),
            u64::from(pr.flags.get() & !FLAG_PREPLACED),
            2,
            flags(pre, "pre-placed"),
        ),
        (
            "shared flag cleared on core 1",
            rec(shared1, flag_off),
            u64::from(all[shared1].flags.get() & !FLAG_SHARED),
            2,
            flags(shared1, "shared"),
        ),
        ("pre-placed def - 1", rec(pre, def_off), u64::from(def - 1), 4, lifetime(def - 1, last)),
        ("pre-placed last_use + 1", rec(pre, last_off), u64::from(last + 1), 4, lifetime(def, last + 1)),
        ("shared def - 1", rec(shared1, def_off), u64::from(sdef - 1), 4, hull(sdef - 1, slast)),
        ("shared last_use - 1", rec(shared1, last_off), u64::from(slast - 1), 4, hull(sdef, slast - 1)),
    ];
    for (what, at, value, width, expect) in cases {
        let bad = edit(&bytes, at, value, width);
        let got = check_plan_file(&bad, Some(&program)).unwrap_err();
        match expect {
            Expect::Core(e) => {
                let file = PlanFile::parse(&bad).unwrap();
                assert_eq!(file.validate(&mut vec![0; file.scratch_len()]), Err(e), "{what}");
                let msg = dramalloc_sim::verify::plan_file::describe(&file, &e);
                assert_eq!(got, CheckPlanError::Invalid(msg), "{what}");
            }
            Expect::Program(m) => assert_eq!(got, CheckPlanError::Invalid(m), "{what}"),
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn plan_s_bin_of_a_program_checks_against_that_program_s_problem() {
    let d = dir("problem");
    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/models/mp_selfie_segmentation.json");
    let bin = d.join("self.bin");
    assert_eq!(cli(&["plan", s(&json), "-o", s(&bin)]), ExitCode::SUCCESS);
    assert_eq!(cli(&["check-plan", s(&bin), s(&json)]), ExitCode::SUCCESS);
    let bytes = std::fs::read(&bin).unwrap();
    let program = parse_program(&std::fs::read_to_string(&json).unwrap(), "self", 100_000).unwrap();
    let r = check_plan_file(&bytes, Some(&program)).unwrap();
    assert_eq!((r.cores, r.records, r.against_program), (1, 136, true));
    // one buffer's last use moved earlier (still valid alone): the program's problem disagrees
    let f = PlanFile::parse(&bytes).unwrap();
    let i = f.records().iter().position(|r| r.last_use.get() > r.def.get()).unwrap();
    let rec = &f.records()[i];
    let (def, last) = (rec.def.get(), rec.last_use.get());
    let name = f.name(rec.tensor.get()).unwrap();
    let at = std::mem::size_of::<PlanHeader>() + std::mem::size_of::<CoreEntry>() + i * 40 + 36;
    let bad = edit(&bytes, at, u64::from(def), 4);
    assert!(check_plan_file(&bad, None).is_ok());
    assert_eq!(
        check_plan_file(&bad, Some(&program)).unwrap_err(),
        CheckPlanError::Invalid(format!(
            "record {i} (`{name}` on core 0): lifetime [{def}, {def}], the program's problem says [{def}, {last}]"
        ))
    );
    // the core's instruction count: the largest upper, 136 here (a trial set 4,000,000,000 in
    // a ResNet-50 plan, which passed)
    let at = std::mem::size_of::<PlanHeader>() + std::mem::offset_of!(CoreEntry, instructions);
    assert_eq!(f.cores()[0].instructions.get(), 136);
    let bad = edit(&bytes, at, 4_000_000_000, 4);
    assert_eq!(
        check_plan_file(&bad, Some(&program)).unwrap_err(),
        CheckPlanError::Invalid(
            "core 0: the plan has 4000000000 instructions, the program's problem 136 (its largest upper)"
                .into()
        )
    );
    // no shared region: a base other than 0 is refused, though the region is empty
    let at = std::mem::offset_of!(PlanHeader, shared_base);
    assert_eq!((f.header().shared_base.get(), f.header().shared_bytes.get()), (0, 0));
    let bad = edit(&bytes, at, u64::MAX, 8);
    assert_eq!(
        check_plan_file(&bad, Some(&program)).unwrap_err(),
        CheckPlanError::Invalid(
            "header: shared region of 0 bytes at 18446744073709551615, the program's problem has none (0 bytes at 0)"
                .into()
        )
    );
    // another program's problem: its first buffer has no record
    let other = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data/models/onnx_squeezenet.json");
    assert_eq!(cli(&["check-plan", s(&bin), s(&other)]), ExitCode::from(1));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `plan -o X.bin` of a minimalloc CSV checks against that CSV: a fixed buffer's record at
/// its offset and flagged pinned; the same file against the CSV without the fixed offset
/// (its record flagged pinned, the problem leaving it free), a moved fixed record, and a
/// `run` plan against a CSV are wrong plans (exit 1, named).
#[test]
fn plan_s_bin_of_a_csv_checks_against_that_csv() {
    use dramalloc_sim::input::parse_buffers;
    use dramalloc_sim::verify::plan_file::check_plan_file_against_problem;
    let d = dir("csv");
    let csv = "id,lower,upper,size,offset\na,0,4,4096,8192\nb,2,6,4096,\nc,5,9,8192,\n";
    let free = "id,lower,upper,size,offset\na,0,4,4096,\nb,2,6,4096,\nc,5,9,8192,\n";
    let (path, bin) = (d.join("p.csv"), d.join("p.bin"));
    std::fs::write(&path, csv).unwrap();
    assert_eq!(cli(&["plan", s(&path), "-o", s(&bin)]), ExitCode::SUCCESS);
    assert_eq!(cli(&["check-plan", s(&bin), s(&path)]), ExitCode::SUCCESS);
    let bytes = std::fs::read(&bin).unwrap();
    let problem = parse_buffers(csv, "p.csv", 10).unwrap();
    let r = check_plan_file_against_problem(&bytes, &problem).unwrap();
    assert_eq!((r.cores, r.records, r.against_program), (1, 3, true));
    assert_eq!(
        check_plan_file_against_problem(&bytes, &parse_buffers(free, "free.csv", 10).unwrap()).unwrap_err(),
        CheckPlanError::Invalid(
            "record 0 (`a` on core 0): flagged pinned, the problem leaves it free".into()
        )
    );
    // `a` (record 0) moved from 8192 to 4096 (c there is live only after it): still a valid
    // plan alone, not the problem's
    let at = std::mem::size_of::<PlanHeader>() + std::mem::size_of::<CoreEntry>() + 8;
    let moved = edit(&bytes, at, 4096, 8);
    assert!(check_plan_file(&moved, None).is_ok());
    assert_eq!(
        check_plan_file_against_problem(&moved, &problem).unwrap_err(),
        CheckPlanError::Invalid("record 0 (`a` on core 0): at 4096, the problem fixes it at 8192".into())
    );
    // `plan` writes one core and only the problem flag: the same file marked sliced into slabs
    // (still a valid plan alone, its floors at 0) is not the problem's plan
    let at = std::mem::offset_of!(PlanHeader, flags);
    let slabs = edit(&bytes, at, u64::from(FLAG_PROBLEM | FLAG_SLABS), 4);
    assert!(check_plan_file(&slabs, None).is_ok());
    assert_eq!(
        check_plan_file_against_problem(&slabs, &problem).unwrap_err(),
        CheckPlanError::Invalid(
            "the file has 1 core(s) and header flags 0x6: `dramalloc plan` writes one core and only the problem \
             flag (0x4)"
                .into()
        )
    );
    // a buffer's own alignment (the `alignment` column) holds too: `c` at 4096 is not 8192-aligned
    let aligned = "id,lower,upper,size,offset,alignment\na,0,4,4096,8192,\nb,2,6,4096,,\nc,5,9,8192,,8192\n";
    assert_eq!(
        check_plan_file_against_problem(&bytes, &parse_buffers(aligned, "al.csv", 10).unwrap()).unwrap_err(),
        CheckPlanError::Invalid(
            "record 2 (`c` on core 0): at 4096, not a multiple of its own alignment 8192 (the problem's \
             `alignment`)"
                .into()
        )
    );
    // the CSV is told by its text, not its name (as `plan` reads it): `.txt` checks too
    let txt = d.join("p.txt");
    std::fs::write(&txt, csv).unwrap();
    assert_eq!(cli(&["check-plan", s(&bin), s(&txt)]), ExitCode::SUCCESS);
    let run_bin = tiny_run(&d).join("plan.bin");
    assert_eq!(cli(&["check-plan", s(&run_bin), s(&path)]), ExitCode::from(1));
    // a CSV no plan can be made of (an exclusive upper past 32 bits) is bad input, exit 2 as
    // in `plan`, not a wrong plan (exit 1)
    let past = d.join("past.csv");
    std::fs::write(&past, "id,lower,upper,size\na,0,4294967296,4096\nb,2,6,4096\nc,5,9,8192\n").unwrap();
    assert_eq!(cli(&["plan", s(&past), "-o", s(&d.join("past.bin"))]), ExitCode::from(2));
    assert_eq!(cli(&["check-plan", s(&bin), s(&past)]), ExitCode::from(2));
    // so is a CSV whose fixed rows overlap, or break their own alignment (`plan` refuses
    // both, exit 2); a CSV that is only not this plan's stays a wrong plan (exit 1)
    for (name, text, code) in [
        ("clash.csv", "id,lower,upper,size,offset\na,0,4,4096,8192\nb,2,6,4096,8192\nc,5,9,8192,\n", 2),
        (
            "align.csv",
            "id,lower,upper,size,offset,alignment\na,0,4,4096,8192,16384\nb,2,6,4096,,\nc,5,9,8192,,\n",
            2,
        ),
        ("other.csv", "id,lower,upper,size,offset\na,0,4,4096,8192\nb,2,6,4097,\nc,5,9,8192,\n", 1),
    ] {
        let f = d.join(name);
        std::fs::write(&f, text).unwrap();
        assert_eq!(
            cli(&["plan", s(&f), "-o", s(&d.join("x.bin"))]) == ExitCode::from(2),
            code == 2,
            "{name}"
        );
        assert_eq!(cli(&["check-plan", s(&bin), s(&f)]), ExitCode::from(code), "{name}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// `run --mb-per-core` with the default CC region (500 MiB above the slabs): core k's
/// pre-placed tensors lie k slabs up, and `check-plan` against the program finds them there
/// (a trial found it took the slab as `window / (cores + 1)`, past the CC region, and
/// rejected core 1's input: "at 33554432, the program fixes it at 208317098").
#[test]
fn a_slab_run_with_its_cc_region_checks_against_its_program() {
    let d = dir("slabs");
    let json = d.join("squeezenet.json");
    let models = dramalloc_sim::input::bundled::MODELS;
    let (_, squeezenet) = models.iter().find(|(name, _)| *name == "onnx_squeezenet").unwrap();
    std::fs::write(&json, squeezenet).unwrap();
    let out = d.join("out");
    let args = ["run", s(&json), "--cores", "2", "--mb-per-core", "32", "--report-dir", s(&out)];
    assert_eq!(cli(&args), ExitCode::SUCCESS);
    let bin = out.join("plan.bin");
    let bytes = std::fs::read(&bin).unwrap();
    let file = PlanFile::parse(&bytes).unwrap();
    let (slab, cc) = (32u64 << 20, 500u64 << 20);
    assert_eq!(file.header().flags.get() & FLAG_SLABS, FLAG_SLABS);
    assert_eq!(file.header().window.get(), 3 * slab + cc);
    assert_eq!((file.core_space(0), file.core_space(1)), ((0, slab), (slab, 2 * slab)));
    assert_eq!(cli(&["check-plan", s(&bin), s(&json)]), ExitCode::SUCCESS);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_preplaced_record_never_accessed_still_occupies_its_bytes() {
    // `u`: a graph input no op reads; its record's def and last use are NO_ACCESS, and it
    // still holds its bytes over the whole program
    let d = dir("unused");
    let json = d.join("unused.json");
    let program = TINY.replace(
        r#"{"name": "w", "bytes": 100, "kind": "weight"},"#,
        r#"{"name": "w", "bytes": 100, "kind": "weight"}, {"name": "u", "bytes": 8192, "kind": "input"},"#,
    );
    std::fs::write(&json, &program).unwrap();
    let out = d.join("out");
    assert_eq!(cli(&["run", s(&json), "--cores", "1", "--report-dir", s(&out)]), ExitCode::SUCCESS);
    let header = std::fs::read_to_string(out.join("plan.h")).unwrap();
    let line = "#define DRAMALLOC_FLAG_PREPLACED 8u /* occupies its bytes the whole program, whatever \
                def/last_use say */\n";
    assert!(header.contains(line), "{header}");
    let bytes = std::fs::read(out.join("plan.bin")).unwrap();
    let f = PlanFile::parse(&bytes).unwrap();
    let t = |n: &str| (0..f.names().len() as u32).find(|&t| f.name(t) == Some(n)).unwrap();
    let (iu, u) = f.find(0, t("u")).unwrap();
    let (u, no) = (*u, dramalloc_core::plan_file::NO_ACCESS);
    assert_eq!(
        (u.flags.get(), u.address.get(), u.def.get(), u.last_use.get()),
        (FLAG_PREPLACED, 12288, no, no)
    );
    // `a` (live over instructions 0..2) moved onto `u`: a collision at any instruction
    let (ia, _) = f.find(0, t("a")).unwrap();
    let bad = edit(&bytes, 88 + 56 + ia as usize * 40 + 8, 12288, 8);
    let path = d.join("bad.bin");
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(cli(&["check-plan", s(&path)]), ExitCode::from(1));
    assert_eq!((iu, ia), (2, 3));
    assert_eq!(
        check_plan_file(&bad, None).unwrap_err(),
        CheckPlanError::Invalid(
            "core 0: records 2 (`u` on core 0) and 3 (`a` on core 0) are live together and share bytes"
                .into()
        )
    );
    // one byte off the page: the record named once, by name, where the index was
    let bad = edit(&bytes, 88 + 56 + ia as usize * 40 + 8, 12289, 8);
    assert_eq!(
        check_plan_file(&bad, None).unwrap_err(),
        CheckPlanError::Invalid("record 3 (`a` on core 0): address 12289 is not a multiple of 4096".into())
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A name-table entry pointed at another's string: two tensors of one name. `check-plan`
/// said "problem lists id `x` twice" and exited 1, as for a wrong plan; the file is corrupt
/// (a loader finding records by name could not tell the two apart): exit 2, naming both
/// entries (a fresh-user trial).
#[test]
fn two_name_entries_of_one_name_are_a_corrupt_file() {
    use std::mem::size_of;
    let d = dir("names");
    let bytes = std::fs::read(tiny_run(&d).join("plan.bin")).unwrap();
    let f = PlanFile::parse(&bytes).unwrap();
    let names =
        size_of::<PlanHeader>() + std::mem::size_of_val(f.cores()) + std::mem::size_of_val(f.records());
    let (first, second) = (f.name(0).unwrap().to_owned(), f.name(1).unwrap().to_owned());
    assert_ne!(first, second);
    // entry 1 = entry 0 (offset and length, 8 bytes)
    let entry0 = u64::from_le_bytes(bytes[names..names + 8].try_into().unwrap());
    let bad = edit(&bytes, names + 8, entry0, 8);
    let e = check_plan_file(&bad, None).unwrap_err();
    assert_eq!(
        (e.exit_code(), e.clone()),
        (2, CheckPlanError::DuplicateName { name: first.clone(), first: 0, second: 1 })
    );
    assert_eq!(
        e.to_string(),
        format!(
            "corrupt plan file: name table entries 0 and 1 are both `{first}` (a loader could not tell their tensors apart)"
        )
    );
    let path = d.join("bad.bin");
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(cli(&["check-plan", s(&path)]), ExitCode::from(2));
    std::fs::remove_dir_all(&d).unwrap();
}
