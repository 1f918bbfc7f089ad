//! `check-plan`: a plan file through the core's reader, then the independent verifier over
//! every core, and, given the program, against the program's tensors.
//! Uses: input, model, run (build_model), verify, dramalloc-core (plan_file); used by: cli.
//!
//! A [`CheckPlanError::Corrupt`] file cannot be read (`dramalloc check-plan` exit 2); a
//! [`CheckPlanError::Invalid`] one holds a wrong plan (exit 1), and its message names the
//! records by tensor name and core.

use std::collections::HashMap;

use dramalloc_core::plan_file::{
    PlanFile, PlanFileError, Record, FLAG_PINNED, FLAG_PREPLACED, FLAG_PROBLEM, FLAG_SHARED, FLAG_SLABS,
    FLAG_TENSOR_PARALLEL, NO_ACCESS,
};

use crate::input::{Problem, Program, Row};
use crate::quality::problem::problem_from_program;
use crate::run::{build_model, Split};
use crate::verify::{verify, VerifyReport};

/// Why a plan file was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckPlanError {
    /// The file cannot be read as a plan file (exit 2).
    #[error("corrupt plan file: {0}")]
    Corrupt(PlanFileError),
    /// The file reads but its plan is wrong (exit 1).
    #[error("{0}")]
    Invalid(String),
    /// Two entries of the name table hold one name (exit 2): a loader that finds a tensor's
    /// records by its name could not tell the two apart (a trial's edited name entry gave
    /// "problem lists id `x` twice", exit 1).
    #[error("corrupt plan file: name table entries {first} and {second} are both `{name}` (a loader could not tell their tensors apart)")]
    DuplicateName {
        /// The name.
        name: String,
        /// The first entry holding it.
        first: u32,
        /// The second.
        second: u32,
    },
}

impl CheckPlanError {
    /// 2 for a corrupt file, 1 for a wrong plan.
    pub fn exit_code(&self) -> u8 {
        match self {
            CheckPlanError::Corrupt(_) | CheckPlanError::DuplicateName { .. } => 2,
            CheckPlanError::Invalid(_) => 1,
        }
    }
}

/// What a successful check saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// Cores.
    pub cores: u32,
    /// Records over all cores.
    pub records: usize,
    /// Per core: the stored HWM and the verifier's report.
    pub per_core: Vec<(u64, VerifyReport)>,
    /// Whether the records were also checked against a program.
    pub against_program: bool,
}

/// `` `name` on core k`` for a record index (`None`: no such record).
fn on_core(file: &PlanFile<'_>, record: u32) -> Option<String> {
    let r = file.records().get(record as usize)?;
    Some(format!("`{}` on core {}", file.name(r.tensor.get()).unwrap_or("?"), r.core.get()))
}

/// `record R (`name` on core k)` for a record index.
fn named(file: &PlanFile<'_>, record: u32) -> String {
    match on_core(file, record) {
        Some(name) => format!("record {record} ({name})"),
        None => format!("record {record}"),
    }
}

/// The records a plan error names.
fn records_of(e: &PlanFileError) -> Vec<u32> {
    use PlanFileError::*;
    match *e {
        OutsideWindow { record, .. }
        | Misaligned { record, .. }
        | AlignedTooSmall { record, .. }
        | AlignedMismatch { record, .. }
        | SharedOutsideRegion { record, .. }
        | BadLifetime { record, .. }
        | CcFlagMismatch { record, .. }
        | MissingTwin { record, .. } => vec![record],
        TwinMismatch { record, twin, .. } => vec![record, twin],
        Collision { a, b, .. } => vec![a, b],
        _ => Vec::new(),
    }
}

/// `e`'s message with the tensor names of the records it names: where the message says
/// `R (tensor T)`, the name takes the index's place (`record 2 (`r0` on core 0): ...`, each
/// record named once); other records are listed after the message (`...: record 5 (`w` on
/// core 1)`).
pub fn describe(file: &PlanFile<'_>, e: &PlanFileError) -> String {
    let mut msg = e.to_string();
    let mut rest = Vec::new();
    for record in records_of(e) {
        let name = on_core(file, record);
        let index =
            file.records().get(record as usize).map(|r| format!(" {record} (tensor {})", r.tensor.get()));
        match (name, index) {
            (Some(name), Some(index)) if msg.contains(&index) => {
                msg = msg.replacen(&index, &format!(" {record} ({name})"), 1);
            }
            (Some(name), _) => rest.push(format!("record {record} ({name})")),
            (None, _) => rest.push(format!("record {record}")),
        }
    }
    if rest.is_empty() {
        msg
    } else {
        format!("{msg}: {}", rest.join(", "))
    }
}

/// The closed-open lifetime `[lower, upper)` the verifier sees for a record.
fn span(r: &Record, instructions: u32) -> Option<(u64, u64)> {
    if r.has(FLAG_PREPLACED) {
        return (instructions > 0).then_some((0, u64::from(instructions)));
    }
    (r.def.get() != NO_ACCESS).then(|| (u64::from(r.def.get()), u64::from(r.last_use.get()) + 1))
}

/// Runs the verifier of [`crate::verify`] over each core's records (aligned sizes, the
/// header's alignment, the window as capacity).
fn verify_cores(file: &PlanFile<'_>) -> Result<Vec<(u64, VerifyReport)>, CheckPlanError> {
    let h = file.header();
    let mut out = Vec::new();
    for (k, c) in file.cores().iter().enumerate() {
        let (mut problem, mut solution) = (Problem::default(), Problem::default());
        for r in file.core_records(k as u32) {
            let Some((lower, upper)) = span(r, c.instructions.get()) else { continue };
            let id = file.name(r.tensor.get()).unwrap_or("?");
            let size = r.aligned.get();
            if size == 0 {
                continue;
            }
            problem.push(id, Row { lower, upper, size });
            let placed = solution.push(id, Row { lower, upper, size });
            solution.set_fixed(placed, Some(r.address.get()));
        }
        let report = verify(&problem, &solution, h.align.get().max(1), Some(h.window.get()))
            .map_err(|e| CheckPlanError::Invalid(format!("verifier: core {k}: {e}")))?;
        out.push((c.hwm.get(), report));
    }
    Ok(out)
}

/// Checks every core's records against `program` (split as the header says): each
/// pre-placed and planned tensor of the core has one record with its size, the flags the
/// program gives it (pre-placed: an input, weight or output; pinned: an intermediate with an
/// address; shared: an intermediate flagged shared or written by a collective), pre-placed
/// and pinned tensors their address (in the core's slab with [`FLAG_SLABS`]), private
/// tensors (pre-placed ones too) their first and last access, shared ones the hull of
/// every core's accesses (what the shared region was planned with; before 2026-12-05 any
/// lifetime covering the core's own passed, a trial's edits of 190 of 798 shared and CC
/// records among them); no record names a tensor the core lacks.
fn against(file: &PlanFile<'_>, program: &Program) -> Result<(), CheckPlanError> {
    let bad = |m: String| CheckPlanError::Invalid(m);
    let h = file.header();
    let split = if h.flags.get() & FLAG_TENSOR_PARALLEL != 0 { Split::TensorParallel } else { Split::None };
    let model = build_model(program, h.core_count.get() as usize, split).map_err(|e| bad(e.to_string()))?;
    let index: HashMap<&str, u32> =
        (0..file.names().len() as u32).filter_map(|t| file.name(t).map(|n| (n, t))).collect();
    // every core's accesses, and per shared tensor (by name) the hull of its accesses over
    // every core: the lifetime the shared region was planned with, which its records carry
    let accesses: Vec<_> = model.cores.iter().map(|c| c.accesses()).collect();
    let mut hull: HashMap<&str, (u32, u32)> = HashMap::new();
    for (c, (access, collective_def)) in model.cores.iter().zip(&accesses) {
        for (l, &span) in access.iter().enumerate() {
            if let (true, Some((a, b))) = (c.is_shared(l, collective_def), span) {
                let h = hull.entry(c.names[l].as_str()).or_insert((a, b));
                *h = (h.0.min(a), h.1.max(b));
            }
        }
    }
    for (k, c) in model.cores.iter().enumerate() {
        let k32 = k as u32;
        // the core's slab (FLAG_SLABS: below the CC region), else 0
        let base = file.core_space(k32).0;
        if file.cores()[k].instructions.get() as usize != c.instructions.len() {
            return Err(bad(format!(
                "core {k}: the plan has {} instructions, the program {}",
                file.cores()[k].instructions.get(),
                c.instructions.len()
            )));
        }
        let (access, collective_def) = (&accesses[k].0, &accesses[k].1);
        let mut expected = 0;
        for (l, loc) in c.locations.iter().enumerate() {
            if !(loc.is_preplaced() || loc.is_candidate()) {
                continue;
            }
            expected += 1;
            let name = c.names[l].as_str();
            let Some((i, r)) = index.get(name).and_then(|&t| file.find(k32, t)) else {
                return Err(bad(format!("tensor `{name}` of core {k} has no record")));
            };
            if r.bytes.get() != loc.bytes {
                return Err(bad(format!(
                    "{}: {} bytes, the program says {}",
                    named(file, i),
                    r.bytes.get(),
                    loc.bytes
                )));
            }
            let shared = c.is_shared(l, collective_def);
            let flags = [
                ("pre-placed", FLAG_PREPLACED, loc.is_preplaced()),
                ("pinned", FLAG_PINNED, loc.is_candidate() && loc.address.is_some()),
                ("shared", FLAG_SHARED, shared),
            ];
            if let Some((what, _, want)) = flags.iter().find(|(_, f, want)| r.has(*f) != *want) {
                let is = if *want { "is" } else { "is not" };
                return Err(bad(format!(
                    "{}: the program says it {is} {what}, the record says otherwise",
                    named(file, i)
                )));
            }
            if let Some(a) = loc.address.map(|a| a + base).filter(|&a| a != r.address.get()) {
                return Err(bad(format!(
                    "{}: at {}, the program fixes it at {a}",
                    named(file, i),
                    r.address.get()
                )));
            }
            // a private record: the core's own first and last access; a shared one: the hull
            // over every core (both `NO_ACCESS` where never accessed)
            let (want, over) = if shared {
                (hull.get(name).copied(), "every core accesses it over")
            } else {
                (access[l], "the program accesses it over")
            };
            let (d, u) = (r.def.get(), r.last_use.get());
            if (d, u) != want.unwrap_or((NO_ACCESS, NO_ACCESS)) {
                let want =
                    want.map_or("no instruction (never accessed)".to_owned(), |(a, b)| format!("[{a}, {b}]"));
                return Err(bad(format!("{}: lifetime [{d}, {u}], {over} {want}", named(file, i))));
            }
        }
        if file.core_records(k32).len() != expected {
            let extra = file
                .core_records(k32)
                .iter()
                .position(|r| !file.name(r.tensor.get()).is_some_and(|n| c.names.iter().any(|m| m == n)));
            let what = extra
                .map_or(String::new(), |p| format!(": {}", named(file, file.first_record(k32) + p as u32)));
            return Err(bad(format!(
                "core {k}: {} records, the program has {expected} tensors to place{what}",
                file.core_records(k32).len()
            )));
        }
    }
    Ok(())
}

/// Checks a [`FLAG_PROBLEM`] file (`dramalloc plan -o X.bin` of a program) against the
/// program's problem ([`problem_from_program`], what `plan` planned); see [`against_rows`].
fn against_problem(file: &PlanFile<'_>, program: &Program) -> Result<(), CheckPlanError> {
    against_rows(file, &problem_from_program(program), "the program's problem")
}

/// Checks a [`FLAG_PROBLEM`] file against `problem` (`what` names it in messages): one
/// record per buffer, by name, with its size and lifetime `[lower, upper - 1]`, a fixed
/// buffer's record at its fixed offset and flagged [`FLAG_PINNED`] (and no free buffer's
/// flagged), every record at a multiple of its buffer's own alignment, no other record, no
/// shared region in the header, and the core's instruction count the largest `upper`.
fn against_rows(file: &PlanFile<'_>, problem: &Problem, what: &str) -> Result<(), CheckPlanError> {
    let bad = |m: String| CheckPlanError::Invalid(m);
    let index: HashMap<&str, u32> =
        (0..file.names().len() as u32).filter_map(|t| file.name(t).map(|n| (n, t))).collect();
    for (k, (id, row)) in problem.iter().enumerate() {
        let Some((i, r)) = index.get(id).and_then(|&t| file.find(0, t)) else {
            return Err(bad(format!("buffer `{id}` of {what} has no record")));
        };
        if r.bytes.get() != row.size {
            return Err(bad(format!(
                "{}: {} bytes, {what} says {}",
                named(file, i),
                r.bytes.get(),
                row.size
            )));
        }
        let want = (row.lower, row.upper - 1);
        if (u64::from(r.def.get()), u64::from(r.last_use.get())) != want {
            return Err(bad(format!(
                "{}: lifetime [{}, {}], {what} says [{}, {}]",
                named(file, i),
                r.def.get(),
                r.last_use.get(),
                want.0,
                want.1
            )));
        }
        if let Some(offset) = problem.fixed(k) {
            if r.address.get() != offset || !r.has(FLAG_PINNED) {
                return Err(bad(format!(
                    "{}: at {}{}, {what} fixes it at {offset}",
                    named(file, i),
                    r.address.get(),
                    if r.has(FLAG_PINNED) { "" } else { " (not flagged pinned)" },
                )));
            }
        } else if r.has(FLAG_PINNED) {
            return Err(bad(format!("{}: flagged pinned, {what} leaves it free", named(file, i))));
        }
        let own = problem.alignment(k);
        if own > 1 && r.address.get() % own != 0 {
            return Err(bad(format!(
                "{}: at {}, not a multiple of its own alignment {own} ({what}'s `alignment`)",
                named(file, i),
                r.address.get()
            )));
        }
    }
    if file.records().len() != problem.len() {
        return Err(bad(format!("{} records, {what} has {} buffers", file.records().len(), problem.len())));
    }
    // a problem's plan has no shared region: its header says none, at 0 (a trial set the base
    // to 2^64 - 1, which passed while the region was empty)
    let h = file.header();
    if (h.shared_base.get(), h.shared_bytes.get()) != (0, 0) {
        return Err(bad(format!(
            "header: shared region of {} bytes at {}, {what} has none (0 bytes at 0)",
            h.shared_bytes.get(),
            h.shared_base.get()
        )));
    }
    // the core's instruction count is the largest `upper` (a loader sizes per-instruction
    // tables by it); `plan` writes no other
    let upper = problem.iter().map(|(_, row)| row.upper).max().unwrap_or(0);
    let stored = file.cores().first().map_or(0, |c| c.instructions.get());
    if u64::from(stored) != upper {
        return Err(bad(format!(
            "core 0: the plan has {stored} instructions, {what} {upper} (its largest upper)"
        )));
    }
    Ok(())
}

/// Every entry of `file`'s name table holds a name no other does.
///
/// # Errors
/// [`CheckPlanError::DuplicateName`] naming the first repeat.
fn distinct_names(file: &PlanFile<'_>) -> Result<(), CheckPlanError> {
    let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for t in 0..file.names().len() as u32 {
        // (validate has checked every name's bounds and UTF-8)
        let Some(name) = file.name(t) else { continue };
        if let Some(&first) = seen.get(name) {
            return Err(CheckPlanError::DuplicateName { name: name.to_owned(), first, second: t });
        }
        seen.insert(name, t);
    }
    Ok(())
}

/// Checks the plan file `bytes`: the core's reader ([`PlanFile::parse`], then
/// [`PlanFile::validate`]), the independent verifier over every core, and, with `program`,
/// the records against the program (see the module docs; a [`FLAG_PROBLEM`] file against
/// the program's problem).
///
/// # Errors
/// [`CheckPlanError::Corrupt`], [`CheckPlanError::DuplicateName`] or
/// [`CheckPlanError::Invalid`] (naming records by tensor).
pub fn check_plan_file(bytes: &[u8], program: Option<&Program>) -> Result<CheckReport, CheckPlanError> {
    let file = PlanFile::parse(bytes).map_err(CheckPlanError::Corrupt)?;
    let mut scratch = vec![0u32; file.scratch_len()];
    file.validate(&mut scratch).map_err(|e| CheckPlanError::Invalid(describe(&file, &e)))?;
    distinct_names(&file)?;
    let per_core = verify_cores(&file)?;
    match program {
        Some(p) if file.header().flags.get() & FLAG_PROBLEM != 0 => against_problem(&file, p)?,
        Some(p) => against(&file, p)?,
        None => {}
    }
    Ok(CheckReport {
        cores: file.header().core_count.get(),
        records: file.records().len(),
        per_core,
        against_program: program.is_some(),
    })
}

/// As [`check_plan_file`], checked against a minimalloc `problem` instead of a program: the
/// file must be one `dramalloc plan -o X.bin` wrote ([`FLAG_PROBLEM`]), and each record
/// match its buffer (name, size, lifetime `[lower, upper - 1]`, a fixed buffer's offset),
/// with no other record.
///
/// # Errors
/// As [`check_plan_file`]; [`CheckPlanError::Invalid`] for a file without [`FLAG_PROBLEM`]
/// (a `run` plan, checked against its program instead) or a record that does not match.
pub fn check_plan_file_against_problem(
    bytes: &[u8],
    problem: &Problem,
) -> Result<CheckReport, CheckPlanError> {
    let report = check_plan_file(bytes, None)?;
    let file = PlanFile::parse(bytes).map_err(CheckPlanError::Corrupt)?;
    if file.header().flags.get() & FLAG_PROBLEM == 0 {
        return Err(CheckPlanError::Invalid(
            "the file is a plan of a program (`dramalloc run`), not of a minimalloc problem: check it against its \
             program JSON"
                .to_owned(),
        ));
    }
    // `plan` writes one core and no other flag: a problem's plan split or sliced is not its plan
    let (flags, cores) = (file.header().flags.get(), file.header().core_count.get());
    if flags & (FLAG_SLABS | FLAG_TENSOR_PARALLEL) != 0 || cores != 1 {
        return Err(CheckPlanError::Invalid(format!(
            "the file has {cores} core(s) and header flags {flags:#x}: `dramalloc plan` writes one core and \
             only the problem flag ({FLAG_PROBLEM:#x})"
        )));
    }
    against_rows(&file, problem, "the problem")?;
    Ok(CheckReport { against_program: true, ..report })
}
