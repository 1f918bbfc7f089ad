//! `dramalloc verify PROGRAM.json plan.csv`: checks `run`'s multi-core plan file against its program.
//! Uses: input, model, run (split), plan_check, plan_csv_header, run_plan_error; used by: cli.
//!
//! The plan.csv (`tensor,core,address,bytes,aligned_bytes,def,last_use,shared`, one row per
//! addressed tensor of every core) is checked without the planner: the program is rebuilt for
//! the plan's core count (split `none`, or `tensor-parallel` when the plan names its staging
//! tensors; `--split` to say which), every tensor's accesses are recomputed from the
//! instructions, and then
//! 1. every row names a tensor of its core, once, and every column agrees with the program:
//!    `shared` is true exactly for the program's shared set (an intermediate flagged shared or
//!    written by a collective), `bytes` is the program's size, `aligned_bytes` that size
//!    rounded up to the planner's alignment (the 4096-byte DRAM page), `def,last_use` the
//!    core's first and last access recomputed from the instructions (both empty when the core
//!    never accesses it), a shared tensor's row too (`run` writes the core's own accesses;
//!    the hull over every core is rule 3's);
//! 2. every pre-placed tensor (input, weight, output) has a row at its pre-placed address, and
//!    every accessed intermediate has a row;
//! 3. a shared tensor has one address on every core that has it (it is one buffer, checked
//!    once, live over the hull of every core's accesses; the count printed is of these);
//! 4. each core's view passes the geometric verifier ([`crate::verify`]) at `align`.
//!
//! A plan of `run --mb-per-core MB` (per-core slabs in one address space) does not record its
//! slab in plan.csv, so the caller says it (`slab`, bytes): core `k`'s addresses are then its
//! core-local addresses plus `k * slab` (its pre-placed tensors too), each of its private rows
//! lies in `[k * slab, (k + 1) * slab)` and every shared row in the slab after the last core's.

pub use super::plan_csv_header::{looks_like_plan_csv, PLAN_CSV_COLUMNS};
pub use super::run_plan_error::RunPlanError;
use std::collections::HashMap;
use std::io::Read;

use csv::{ReaderBuilder, StringRecord};
use dramalloc_core::align::alignment_for;
use dramalloc_core::liveness::program::Location as Loc;

use crate::input::quoted::{name_of, RawKept};
use crate::input::{InputError, Location, Program};
use crate::model::{CoreProgram, SimModel};
use crate::run::{build_model, Split};
use crate::verify::plan_check::{check_view, ViewTensor};

/// One row of a plan file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    /// 1-based file line.
    pub line: u64,
    /// Tensor name.
    pub tensor: String,
    /// Core index.
    pub core: usize,
    /// Address, bytes.
    pub address: u64,
    /// Size, bytes.
    pub bytes: u64,
    /// The `aligned_bytes` column.
    pub aligned_bytes: u64,
    /// The `def` column (`None`: empty).
    pub def: Option<u64>,
    /// The `last_use` column (`None`: empty).
    pub last_use: Option<u64>,
    /// The `shared` column.
    pub shared: bool,
}

/// What a valid plan file held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlanReport {
    /// Rows (tensors over all cores).
    pub tensors: usize,
    /// Cores.
    pub cores: usize,
    /// The split the program was rebuilt with.
    pub split: Split,
    /// Distinct shared tensors: rows whose `shared` flag the program confirmed, each
    /// checked once.
    pub shared: usize,
    /// The highest byte used plus one over every core's view.
    pub peak: u64,
}

/// Reads a plan file. Cells are trimmed of surrounding whitespace, except a quoted tensor
/// name, which is the name verbatim (`"t "` is the tensor `t `, as `run` writes it).
///
/// # Errors
/// [`InputError`] naming file, line, column and value.
pub fn parse_plan_csv(reader: impl Read, file: &str) -> Result<Vec<PlanRow>, InputError> {
    let malformed = |e: csv::Error| InputError::MalformedCsv {
        file: file.to_owned(),
        line: e.position().map_or(0, csv::Position::line),
        message: e.to_string(),
    };
    // the `csv` crate's trimming would trim quoted names too: cells are trimmed here, and the
    // raw bytes kept to tell a quoted name (see `input::quoted`)
    let mut r = ReaderBuilder::new().from_reader(RawKept::new(reader));
    // (a byte-order mark before the first name is an editor's, not the name's)
    let header: Vec<String> = r
        .headers()
        .map_err(malformed)?
        .iter()
        .enumerate()
        .map(|(i, h)| if i == 0 { h.trim_start_matches('\u{feff}') } else { h }.trim().to_owned())
        .collect();
    // a column this reader does not know is refused, as the minimalloc reader refuses one
    if let Some(unknown) = header.iter().find(|h| !PLAN_CSV_COLUMNS.contains(&h.as_str())) {
        return Err(InputError::UnknownColumn {
            file: file.to_owned(),
            line: 1,
            column: unknown.clone(),
            hint: "known: tensor, core, address, bytes, aligned_bytes, def, last_use, shared",
        });
    }
    let col = |name: &'static str| {
        header.iter().position(|h| h == name).ok_or_else(|| InputError::MissingColumn {
            file: file.to_owned(),
            line: 1, // `dramalloc plan` writes the header first; this reader does not count lines
            column: name,
            header: header.join(","),
        })
    };
    let (t, c, a, b, s) = (col("tensor")?, col("core")?, col("address")?, col("bytes")?, col("shared")?);
    let (ab, d, u) = (col("aligned_bytes")?, col("def")?, col("last_use")?);
    let mut rows = Vec::new();
    let mut record = StringRecord::new();
    while r.read_record(&mut record).map_err(malformed)? {
        let (line, start) = record.position().map_or((0, 0), |p| (p.line(), p.byte()));
        r.get_mut().release(start);
        let name = record.get(t).unwrap_or("");
        let quoted = if name.trim().len() == name.len() { None } else { r.get_ref().quoted_tail(start, t) };
        // a quoted name loses ASCII bytes at its end only, so it stays UTF-8
        let tensor = match quoted {
            None => name.trim(),
            Some(_) => std::str::from_utf8(name_of(name.as_bytes(), quoted)).unwrap_or(name),
        };
        let num = |i: usize, column: &str| {
            let cell = record.get(i).unwrap_or("").trim();
            cell.parse::<u64>().map_err(|_| InputError::NotANumber {
                file: file.to_owned(),
                at: Location::Csv { line, column: column.to_owned() },
                value: format!("`{cell}`"),
            })
        };
        // an empty `def`/`last_use`: never accessed on the core
        let maybe = |i: usize, column: &str| match record.get(i).unwrap_or("").trim() {
            "" => Ok(None),
            _ => num(i, column).map(Some),
        };
        let shared = match record.get(s).unwrap_or("").trim() {
            "true" => true,
            "false" => false,
            other => {
                return Err(InputError::WrongType {
                    file: file.to_owned(),
                    at: Location::Csv { line, column: "shared".to_owned() },
                    expected: "true or false",
                    value: format!("`{other}`"),
                })
            }
        };
        rows.push(PlanRow {
            line,
            tensor: tensor.to_owned(),
            core: usize::try_from(num(c, "core")?).unwrap_or(usize::MAX),
            address: num(a, "address")?,
            bytes: num(b, "bytes")?,
            aligned_bytes: num(ab, "aligned_bytes")?,
            def: maybe(d, "def")?,
            last_use: maybe(u, "last_use")?,
            shared,
        });
    }
    Ok(rows)
}

/// Checks `rows` against `program` (see the module docs); `split` `None` finds it; `slab`
/// (bytes): the per-core slab of a `run --mb-per-core` plan, `None` for one window per core.
///
/// # Errors
/// The first [`RunPlanError`] in the order of the module docs.
pub fn verify_plan(
    program: &Program,
    rows: &[PlanRow],
    split: Option<Split>,
    align: u64,
    capacity: Option<u64>,
    slab: Option<u64>,
) -> Result<RunPlanReport, RunPlanError> {
    let cores = rows.iter().map(|r| r.core.saturating_add(1)).max().unwrap_or(1).clamp(1, 64);
    if let Some(r) = rows.iter().find(|r| r.core >= 64) {
        return Err(RunPlanError::UnknownTensor {
            line: r.line,
            core: r.core,
            tensor: r.tensor.clone(),
            split: "any (at most 64 cores)",
            guessed: false,
        });
    }
    let splits: &[Split] = match &split {
        Some(s) => std::slice::from_ref(s),
        None => &[Split::None, Split::TensorParallel],
    };
    // where no split explains every row, the error is the one of the split that explains the
    // most lines before its first bad row (ties: the first tried). A trial's tensor-parallel
    // plan with a row repeated at its end was said to have no tensor `r0/cc_slice0` at line
    // 86 under split none, the first tried, a valid row of that split
    let mut furthest: Option<RunPlanError> = None;
    for &s in splits {
        let model = build_model(program, cores, s)?;
        match index_rows(&model, rows, s, split.is_none()) {
            Ok(at) => return check(&model, rows, &at, s, (align, capacity, slab.unwrap_or(0))),
            Err(e) => {
                if furthest.as_ref().is_none_or(|f| row_line(&e) > row_line(f)) {
                    furthest = Some(e);
                }
            }
        }
    }
    Err(furthest.unwrap_or(RunPlanError::Missing { core: 0, tensor: String::new() }))
}

/// The line of the row an indexing error names (0 for another error).
fn row_line(e: &RunPlanError) -> u64 {
    match e {
        RunPlanError::UnknownTensor { line, .. } | RunPlanError::DuplicateRow { line, .. } => *line,
        _ => 0,
    }
}

/// `at[core][location]`: the row placing it; errors for unknown or repeated tensors.
fn index_rows(
    model: &SimModel,
    rows: &[PlanRow],
    split: Split,
    guessed: bool,
) -> Result<Vec<Vec<Option<usize>>>, RunPlanError> {
    let names: Vec<HashMap<&str, usize>> = model
        .cores
        .iter()
        .map(|c| c.names.iter().enumerate().map(|(l, n)| (n.as_str(), l)).collect())
        .collect();
    let mut at: Vec<Vec<Option<usize>>> = model.cores.iter().map(|c| vec![None; c.names.len()]).collect();
    for (i, r) in rows.iter().enumerate() {
        let Some(&l) = names[r.core].get(r.tensor.as_str()) else {
            return Err(RunPlanError::UnknownTensor {
                line: r.line,
                core: r.core,
                tensor: r.tensor.clone(),
                split: split.name(),
                guessed,
            });
        };
        if let Some(first) = at[r.core][l].replace(i) {
            return Err(RunPlanError::DuplicateRow {
                line: r.line,
                first: rows[first].line,
                core: r.core,
                tensor: r.tensor.clone(),
            });
        }
    }
    Ok(at)
}

/// `r`'s [`RunPlanError::OutsideSlab`] unless it lies in `[start, end)` (bytes).
fn in_slab(r: &PlanRow, start: u64, end: u64) -> Result<(), RunPlanError> {
    let top = r.address.saturating_add(r.bytes);
    if r.address < start || top > end {
        return Err(RunPlanError::OutsideSlab {
            line: r.line,
            core: r.core,
            tensor: r.tensor.clone(),
            address: r.address,
            end: top,
            slab_start: start,
            slab_end: end,
        });
    }
    Ok(())
}

/// Rule 1's sizes and lifetime of row `r` of core `k` for location `loc`: `bytes`,
/// `aligned_bytes` and `def,last_use` (`access`: the core's first and last access).
fn check_columns(r: &PlanRow, k: usize, loc: &Loc, access: Option<(u32, u32)>) -> Result<(), RunPlanError> {
    let tensor = || r.tensor.clone();
    if r.bytes != loc.bytes {
        return Err(RunPlanError::WrongSize {
            line: r.line,
            core: k,
            tensor: tensor(),
            bytes: r.bytes,
            expected: loc.bytes,
        });
    }
    // the planner's rule (`dramalloc_core::multicore::private_alloc::reset_state`)
    let align = alignment_for(loc.memory);
    let expected = loc.bytes.checked_next_multiple_of(align).unwrap_or(u64::MAX);
    if r.aligned_bytes != expected {
        return Err(RunPlanError::WrongAligned {
            line: r.line,
            core: k,
            tensor: tensor(),
            aligned: r.aligned_bytes,
            bytes: loc.bytes,
            align,
            expected,
        });
    }
    let want = access.map(|(a, b)| (u64::from(a), u64::from(b)));
    if (r.def, r.last_use) != (want.map(|w| w.0), want.map(|w| w.1)) {
        return Err(RunPlanError::WrongLifetime {
            line: r.line,
            core: k,
            tensor: tensor(),
            def: r.def,
            last_use: r.last_use,
            expected: access,
        });
    }
    Ok(())
}

/// A shared tensor as rule 3 sees it.
struct SharedSeen {
    /// The hull of its accesses over every core (`None`: never accessed).
    hull: Option<(u32, u32)>,
    /// The first row placing it (index into the rows).
    row: usize,
}

/// Rules 1–4 once every row is indexed; `(align, capacity, slab)` with `slab` 0 for windows.
fn check(
    model: &SimModel,
    rows: &[PlanRow],
    at: &[Vec<Option<usize>>],
    split: Split,
    (align, capacity, slab): (u64, Option<u64>, u64),
) -> Result<RunPlanReport, RunPlanError> {
    // accesses recomputed from the instructions, per core
    let (access, collective_def): (Vec<_>, Vec<_>) = model.cores.iter().map(CoreProgram::accesses).unzip();
    // per shared tensor: the hull of its accesses over every core (`None`: never accessed),
    // the first row placing it
    let mut hull: HashMap<&str, SharedSeen> = HashMap::new();
    for (k, c) in model.cores.iter().enumerate() {
        let base = slab * k as u64;
        for (l, loc) in c.locations.iter().enumerate() {
            let Some(i) = at[k][l] else {
                if loc.is_preplaced() {
                    return Err(RunPlanError::MissingPreplaced { core: k, tensor: c.names[l].clone() });
                } else if loc.is_candidate() && loc.bytes > 0 && access[k][l].is_some() {
                    return Err(RunPlanError::Missing { core: k, tensor: c.names[l].clone() });
                }
                continue;
            };
            let r = &rows[i];
            let shared = c.is_shared(l, &collective_def[k]);
            if r.shared != shared {
                return Err(RunPlanError::WrongShared {
                    line: r.line,
                    core: k,
                    tensor: r.tensor.clone(),
                    shared: r.shared,
                });
            }
            if slab > 0 {
                // a private row in its core's slab; a shared one in the shared slab after
                // the last core's or above it, in the CC region's collectives (which
                // starts where the shared slab ends)
                let n = model.cores.len() as u64;
                let (start, end) = if r.shared {
                    (slab.saturating_mul(n), u64::MAX)
                } else {
                    (slab.saturating_mul(k as u64), slab.saturating_mul(k as u64 + 1))
                };
                in_slab(r, start, end)?;
            }
            check_columns(r, k, loc, access[k][l])?;
            let expected = loc.address.map(|a| a.saturating_add(base));
            if let Some(expected) = expected.filter(|&e| loc.is_preplaced() && e != r.address) {
                return Err(RunPlanError::MovedPreplaced {
                    line: r.line,
                    core: k,
                    tensor: r.tensor.clone(),
                    address: r.address,
                    expected,
                });
            }
            if !shared {
                continue;
            }
            let e = hull.entry(c.names[l].as_str()).or_insert(SharedSeen { hull: None, row: i });
            let first = &rows[e.row];
            if first.address != r.address {
                return Err(RunPlanError::SharedMoved {
                    line: r.line,
                    core: k,
                    tensor: r.tensor.clone(),
                    address: r.address,
                    first: first.address,
                    first_core: first.core,
                });
            }
            if let Some((a, b)) = access[k][l] {
                e.hull = Some(e.hull.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
            }
        }
    }
    let mut peak = 0;
    for (k, c) in model.cores.iter().enumerate() {
        let tensors = (0..c.names.len()).filter_map(|l| {
            let r = &rows[at[k][l]?];
            Some(ViewTensor {
                name: &c.names[l],
                kind: c.kinds[l],
                bytes: r.bytes,
                address: r.address,
                shared: r.shared,
                access: access[k][l],
                hull: hull.get(c.names[l].as_str()).and_then(|h| h.hull),
            })
        });
        let report = check_view(c.instructions.len(), tensors, align, capacity)
            .map_err(|error| RunPlanError::Verify { core: k, error })?;
        peak = peak.max(report.peak);
    }
    Ok(RunPlanReport { tensors: rows.len(), cores: model.cores.len(), split, shared: hull.len(), peak })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quoted tensor name is the text between its quotes (what follows the closing quote
    /// trimmed), every other cell is trimmed, headers included.
    #[test]
    fn quoted_names_are_verbatim_and_other_cells_trimmed() {
        let text = " tensor , core,address,bytes,aligned_bytes,def,last_use, shared \n\
                    \"t \",0,0,8,8,0,1,false\n\" u\" , 0 ,8,8,8,0,1, true \n t ,1,0,8,8,,,false\n\
                    \"n\n\",0,16,8,8,1,2,false\n";
        let rows = parse_plan_csv(text.as_bytes(), "plan.csv").unwrap();
        let got: Vec<(&str, u64, usize, u64, bool)> =
            rows.iter().map(|r| (r.tensor.as_str(), r.line, r.core, r.address, r.shared)).collect();
        assert_eq!(
            got,
            [("t ", 2, 0, 0, false), (" u", 3, 0, 8, true), ("t", 4, 1, 0, false), ("n\n", 5, 0, 16, false)]
        );
    }
}
