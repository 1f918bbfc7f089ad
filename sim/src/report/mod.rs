//! Reports: the files of `run --report-dir` (plan.csv, summary.json, layout.svg, plan.bin, plan.h), SVG, banked reports.
//! Uses: atomic_write, input, model, planning, run, dramalloc-core (banked, plan_file); used by: cli, replay.
//!
//! The report files of `dramalloc run --report-dir DIR`: `plan.csv`, `summary.json`,
//! `layout.svg`, `plan.bin` and `plan.h`, each written whole (temp file + rename) or not at all.
//! [`layout_svg`](mod@layout_svg) draws the picture; [`banked`] writes the banked allocator's
//! three memory reports (`replay`); [`plan_bin`] the binary plan file and [`plan_h`] its C
//! header.

pub mod banked;
pub mod layout_svg;
pub mod plan_bin;
pub mod plan_h;

use std::io;
use std::path::Path;

use crate::atomic_write::write_atomic;
use crate::model::SimModel;
use crate::planning::{PlanOptions, PlannedModel};
use crate::report::layout_svg::{render_layout, LayoutOptions, LayoutRect};
use crate::run::Summary;

/// `plan.csv`: `tensor,core,address,bytes,aligned_bytes,def,last_use,shared`, one row per
/// addressed DRAM tensor of every core (def/last_use: first and last instruction accessing it
/// on that core).
pub fn plan_csv(model: &SimModel, plan: &PlannedModel) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["tensor", "core", "address", "bytes", "aligned_bytes", "def", "last_use", "shared"])?;
    for (k, c) in model.cores.iter().enumerate() {
        for (l, p) in plan.placements[k].iter().enumerate() {
            let Some(a) = p.address else { continue };
            let (d, u) = if p.first_access == u32::MAX {
                (String::new(), String::new())
            } else {
                (p.first_access.to_string(), p.last_access.to_string())
            };
            w.write_record([
                c.names[l].as_str(),
                &k.to_string(),
                &a.to_string(),
                &c.locations[l].bytes.to_string(),
                &p.aligned.to_string(),
                &d,
                &u,
                if p.shared { "true" } else { "false" },
            ])?;
        }
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// The layout picture of core 0's view: the planned (private and shared) tensors, with
/// addresses drawn relative to the pre-placed floor (inputs, weights and outputs sit below
/// it and are left out, or they would fill the picture).
pub fn layout_svg(model: &SimModel, plan: &PlannedModel, summary: &Summary) -> String {
    let c = &model.cores[0];
    let n = c.instructions.len() as u32;
    let floor = plan.metrics[0].reserved_space;
    let rects: Vec<LayoutRect> = plan.placements[0]
        .iter()
        .enumerate()
        .filter(|(l, _)| !c.kinds[*l].is_preplaced())
        .filter_map(|(l, p)| {
            let a = p.address?.saturating_sub(floor);
            let (def, last) = if c.kinds[l].is_preplaced() || p.first_access == u32::MAX {
                (0, n.saturating_sub(1))
            } else {
                (p.first_access, p.last_access)
            };
            Some(LayoutRect {
                label: c.names[l].clone(),
                core: 0,
                def,
                last_use: last,
                address: a,
                bytes: c.locations[l].bytes,
                shared: p.shared,
            })
        })
        .collect();
    let m = &plan.metrics[0];
    let cc = (m.cc_limit > 0 && m.real_cc_bytes > 0)
        .then(|| ((m.window - m.cc_limit).saturating_sub(floor), m.window.saturating_sub(floor)));
    let opts = LayoutOptions {
        title: format!(
            "{}: core 0 of {}, {} planned tensors above the {} pre-placed floor, HWM {}",
            summary.model,
            summary.cores,
            rects.len(),
            crate::report::layout_svg::human_bytes(floor),
            crate::report::layout_svg::human_bytes(summary.per_core[0].hwm)
        ),
        cc_region: cc,
        hwm: Some(summary.per_core[0].hwm.saturating_sub(floor)),
        window: None,
    };
    render_layout(&rects, &opts)
}

/// Writes the five files into `dir` (created if missing): `plan.csv`, `summary.json`,
/// `layout.svg`, `plan.bin` ([`plan_bin`], the plan of `opts`; tensor-parallel per the
/// summary's split) and `plan.h` ([`plan_h`], read back from those bytes).
///
/// # Errors
/// Any I/O error, or a plan the binary format cannot hold (as `InvalidData`); a file either
/// holds its complete new content or its previous one.
pub fn write_reports(
    dir: &Path,
    model: &SimModel,
    plan: &PlannedModel,
    summary: &Summary,
    opts: &PlanOptions,
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let csv = plan_csv(model, plan).map_err(io::Error::other)?;
    let json = serde_json::to_vec_pretty(summary).map_err(io::Error::other)?;
    let svg = layout_svg(model, plan, summary);
    let tp = summary.split == crate::run::Split::TensorParallel;
    let bin = plan_bin::PlanBlob::from_run(model, plan, opts, tp)
        .and_then(|b| b.encode())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let file = dramalloc_core::plan_file::PlanFile::parse(&bin)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let header = plan_h::render(&file, &format!("{} ({} cores)", summary.model, summary.cores));
    write_atomic(&dir.join("plan.csv"), &csv)?;
    write_atomic(&dir.join("summary.json"), &json)?;
    write_atomic(&dir.join("layout.svg"), svg.as_bytes())?;
    write_atomic(&dir.join("plan.bin"), &bin)?;
    write_atomic(&dir.join("plan.h"), header.as_bytes())?;
    Ok(())
}
