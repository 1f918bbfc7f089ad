//! Reports: the files of `run --report-dir` (plan.csv, summary.json, layout.svg, plan.bin, plan.h), SVG, the summary's bounds, banked reports.
//! Uses: atomic_write, host_storage, input, model, planning, run, dramalloc-core (banked, liveness, plan_file); used by: cli, replay, run.
//!
//! The report files of `dramalloc run --report-dir DIR`: `plan.csv`, `summary.json`,
//! `layout.svg`, `plan.bin` and `plan.h`, each written whole (temp file + rename) or not at all.
//! [`layout_svg`](mod@layout_svg) draws the picture; [`bounds`] computes the summary's parts and
//! bounds; [`banked`] writes the banked allocator's three memory reports (`replay`); [`plan_bin`]
//! the binary plan file and [`plan_h`] its C header; [`solution_csv`] writes `plan`'s solution.

pub mod banked;
pub mod bounds;
pub mod layout_density;
pub mod layout_svg;
pub mod plan_bin;
pub mod plan_h;
pub mod solution_csv;

use std::io;
use std::path::Path;

use dramalloc_core::Metrics;

use crate::atomic_write::{commit_all, commit_all_removing, stage, Staged};
use crate::input::quoted::push_name;
use crate::input::Problem;
use crate::model::SimModel;
use crate::planning::{PlanOptions, PlannedModel};
use crate::report::layout_svg::{render_layout, LayoutOptions, LayoutRect};
use crate::run::Summary;

/// `plan.csv`: `tensor,core,address,bytes,aligned_bytes,def,last_use,shared`, one row per
/// addressed DRAM tensor of every core (def/last_use: first and last instruction accessing it
/// on that core, both empty when none does; addresses and sizes in bytes), `\n` line ends. A
/// tensor name with a comma, a quote, a line break or whitespace at either end is quoted
/// (RFC 4180), so every name reads back as itself ([`crate::verify::run_plan`]).
pub fn plan_csv(model: &SimModel, plan: &PlannedModel) -> Vec<u8> {
    let mut out = b"tensor,core,address,bytes,aligned_bytes,def,last_use,shared\n".to_vec();
    let mut num = itoa::Buffer::new();
    for (k, c) in model.cores.iter().enumerate() {
        for (l, p) in plan.placements[k].iter().enumerate() {
            let Some(a) = p.address else { continue };
            push_name(&mut out, &c.names[l]);
            for v in [k as u64, a, c.locations[l].bytes, p.aligned] {
                out.push(b',');
                out.extend_from_slice(num.format(v).as_bytes());
            }
            if p.first_access == u32::MAX {
                out.extend_from_slice(b",,");
            } else {
                for v in [p.first_access, p.last_access] {
                    out.push(b',');
                    out.extend_from_slice(num.format(v).as_bytes());
                }
            }
            out.extend_from_slice(if p.shared { b",true\n" } else { b",false\n" });
        }
    }
    out
}

/// The layout picture of core `core`'s view: the planned (private and shared) tensors, with
/// addresses drawn relative to the pre-placed floor (inputs, weights and outputs sit below
/// it and are left out, or they would fill the picture). A shared tensor spans the hull of
/// every core's accesses (it occupies its bytes that long). A failed run says so in the title.
///
/// # Panics
/// When `core` is not a core of the model.
pub fn layout_svg(model: &SimModel, plan: &PlannedModel, summary: &Summary, core: usize) -> String {
    let c = &model.cores[core];
    let n = c.instructions.len() as u32;
    let floor = plan.metrics[core].reserved_space;
    let hull: std::collections::HashMap<&str, (u32, u32)> = plan
        .shared
        .iter()
        .map(|e| (model.cores[0].names[e.location as usize].as_str(), (e.first_access, e.last_access)))
        .collect();
    let rects: Vec<LayoutRect> = plan.placements[core]
        .iter()
        .enumerate()
        .filter(|(l, _)| !c.kinds[*l].is_preplaced())
        .filter_map(|(l, p)| {
            let a = p.address?.saturating_sub(floor);
            let (def, last) = match hull.get(c.names[l].as_str()) {
                Some(&h) if p.shared => h,
                _ if p.first_access == u32::MAX => (0, n.saturating_sub(1)),
                _ => (p.first_access, p.last_access),
            };
            Some(LayoutRect {
                label: c.names[l].clone(),
                core: core as u32,
                def,
                last_use: last,
                address: a,
                bytes: c.locations[l].bytes,
                shared: p.shared,
            })
        })
        .collect();
    let m = &plan.metrics[core];
    let cc = (m.cc_limit > 0 && m.real_cc_bytes > 0)
        .then(|| (m.cc_base.saturating_sub(floor), (m.cc_base + m.cc_limit).saturating_sub(floor)));
    // the HWM line: the highest end below the CC region (CC tensors are drawn in their region)
    let cc_start = if m.cc_limit > 0 { m.cc_base } else { u64::MAX };
    let top = plan.placements[core]
        .iter()
        .enumerate()
        .filter(|(l, _)| !c.kinds[*l].is_preplaced())
        .filter_map(|(_, p)| {
            p.address.filter(|&a| a < cc_start).map(|a| (a + p.aligned).saturating_sub(floor))
        })
        .max();
    let failed = if summary.verdict == "OK" { String::new() } else { "FAILED RUN: ".to_owned() };
    let opts = LayoutOptions {
        title: format!(
            "{failed}{}: core {core} of {}, {} planned tensors above the {} pre-placed floor, HWM {}",
            summary.model,
            summary.cores,
            rects.len(),
            crate::report::layout_svg::human_bytes(floor),
            crate::report::layout_svg::human_bytes(top.unwrap_or(0) + floor)
        ),
        cc_region: cc,
        hwm: top,
        window: None,
        y_label: "offset above the pre-placed floor".to_owned(),
    };
    render_layout(&rects, &opts)
}

/// The picture of a solved minimalloc problem (`plan --svg`): one rectangle per buffer over
/// `[lower, upper)` at its offset, the planner's HWM dashed.
pub fn problem_svg(problem: &Problem, offsets: &[u64], metrics: &Metrics, input: &str) -> String {
    let rects: Vec<LayoutRect> = problem
        .iter()
        .zip(offsets)
        .map(|((id, r), &address)| LayoutRect {
            label: id.to_owned(),
            core: 0,
            def: u32::try_from(r.lower).unwrap_or(u32::MAX),
            last_use: u32::try_from(r.upper.saturating_sub(1)).unwrap_or(u32::MAX),
            address,
            bytes: r.size,
            shared: false,
        })
        .collect();
    let opts = LayoutOptions {
        title: format!(
            "{input}: {} buffers, HWM {}, lower bound {}",
            problem.len(),
            crate::report::layout_svg::human_bytes(metrics.hwm),
            crate::report::layout_svg::human_bytes(metrics.lower_bound)
        ),
        cc_region: None,
        hwm: Some(metrics.hwm),
        window: None,
        y_label: "offset".to_owned(),
    };
    render_layout(&rects, &opts)
}

/// Writes the five files into `dir` (created if missing): `plan.csv`, `summary.json`,
/// `layout.svg` (the picture of core `svg_core`), `plan.bin` ([`plan_bin`], the plan of `opts`;
/// tensor-parallel per the summary's split) and `plan.h` ([`plan_h`], read back from those
/// bytes).
///
/// # Errors
/// Any I/O error, or a plan the binary format cannot hold (as `InvalidData`); a file either
/// holds its complete new content or its previous one.
///
/// # Panics
/// When `svg_core` is not a core of the model.
pub fn write_reports(
    dir: &Path,
    model: &SimModel,
    plan: &PlannedModel,
    summary: &Summary,
    opts: &PlanOptions,
    svg_core: usize,
) -> io::Result<()> {
    let tp = summary.split == crate::run::Split::TensorParallel;
    let bin = plan_bin::PlanBlob::from_run(model, plan, opts, tp)
        .and_then(|b| b.encode())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let file = dramalloc_core::plan_file::PlanFile::parse(&bin)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let header = plan_h::render(&file, &format!("{} ({} cores)", summary.model, summary.cores));
    // the five are staged first and put in place as one step, so neither a failure nor a
    // signal leaves one run's plan file beside another run's views (a trial's SIGINT 0.1 s
    // into a run left a 2-core summary beside a 4-core plan.bin)
    let mut staged = stage_views(dir, (model, plan, summary), svg_core)?;
    staged.push(stage(&dir.join("plan.bin"), |w| w.write_all(&bin))?);
    staged.push(stage(&dir.join("plan.h"), |w| w.write_all(header.as_bytes()))?);
    commit_all(staged).map_err(|(_, e)| e)
}

/// The files a run's reports may write in their directory ([`write_reports`]).
pub const REPORT_FILES: [&str; 5] = ["plan.csv", "summary.json", "layout.svg", "plan.bin", "plan.h"];

/// The reports of a run that failed after planning (a collision, a verifier finding, a DRAM
/// spill left unaddressed): `plan.csv`, `summary.json` (its verdict says FAILED) and
/// `layout.svg` of core `svg_core`, as [`write_reports`] writes them. A failed plan is not one
/// to embed: no `plan.bin` or `plan.h` is written, and those of an earlier run in `dir` are
/// removed, so the directory never pairs a failed run's picture with another run's plan file.
///
/// # Errors
/// Any I/O error; a file either holds its complete new content or its previous one.
///
/// # Panics
/// When `svg_core` is not a core of the model.
pub fn write_failed_reports(
    dir: &Path,
    model: &SimModel,
    plan: &PlannedModel,
    summary: &Summary,
    svg_core: usize,
) -> io::Result<()> {
    let staged = stage_views(dir, (model, plan, summary), svg_core)?;
    commit_all_removing(staged, &[dir.join("plan.bin"), dir.join("plan.h")]).map_err(|(_, e)| e)
}

/// The summary of a run that failed with no plan to show (planning failed, a fault with no
/// place, too little host memory): `summary` is [`FailedSummary`] written as `summary.json`,
/// and the `plan.csv`, `layout.svg`, `plan.bin` and `plan.h` of an earlier run in `dir` are
/// removed, so nothing in the directory describes another run.
///
/// # Errors
/// Any I/O error; `summary.json` either holds its complete new content or its previous one.
pub fn write_unplanned_failure(dir: &Path, summary: &FailedSummary) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_vec_pretty(summary).map_err(io::Error::other)?;
    let staged = vec![stage(&dir.join("summary.json"), |w| w.write_all(&json))?];
    let stale = ["plan.csv", "layout.svg", "plan.bin", "plan.h"].map(|name| dir.join(name));
    commit_all_removing(staged, &stale).map_err(|(_, e)| e)
}

/// `summary.json` of a run that failed before it had a plan to report: what was run and the
/// verdict `FAILED: <the error>`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FailedSummary {
    /// The program's name.
    pub model: String,
    /// Logical cores asked for.
    pub cores: usize,
    /// The split.
    pub split: crate::run::Split,
    /// The placement strategy's name.
    pub strategy: String,
    /// `FAILED: ` and the error.
    pub verdict: String,
}

/// `plan.csv`, `summary.json` and `layout.svg` (of core `svg_core`) of a run's model, plan and
/// summary staged in `dir` (created if missing), not yet in place.
fn stage_views(
    dir: &Path,
    run: (&SimModel, &PlannedModel, &Summary),
    svg_core: usize,
) -> io::Result<Vec<Staged>> {
    let (model, plan, summary) = run;
    std::fs::create_dir_all(dir)?;
    let csv = plan_csv(model, plan);
    let json = serde_json::to_vec_pretty(summary).map_err(io::Error::other)?;
    let svg = layout_svg(model, plan, summary, svg_core);
    Ok(vec![
        stage(&dir.join("plan.csv"), |w| w.write_all(&csv))?,
        stage(&dir.join("summary.json"), |w| w.write_all(&json))?,
        stage(&dir.join("layout.svg"), |w| w.write_all(svg.as_bytes()))?,
    ])
}
