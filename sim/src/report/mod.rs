//! Reports: the files of `run --report-dir` (plan.csv, summary.json, layout.svg), SVG, the summary's bounds, banked reports.
//! Uses: atomic_write, host_storage, model, planning, run, dramalloc-core (banked, liveness); used by: cli, replay, run.
//!
//! The report files of `dramalloc run --report-dir DIR`: `plan.csv`, `summary.json` and
//! `layout.svg`, each written whole (temp file + rename) or not at all.
//! [`layout_svg`](mod@layout_svg) draws the picture; [`bounds`] computes the summary's parts and
//! bounds; [`banked`] writes the banked allocator's three memory reports (`replay`).

pub mod banked;
pub mod bounds;
pub mod layout_svg;

use std::io;
use std::path::Path;

use crate::atomic_write::write_atomic;
use crate::model::SimModel;
use crate::planning::PlannedModel;
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
    // the HWM line: the highest end below the CC region (CC tensors are drawn in their region)
    let cc_start = if m.cc_limit > 0 { m.window - m.cc_limit } else { u64::MAX };
    let top = plan.placements[0]
        .iter()
        .enumerate()
        .filter(|(l, _)| !c.kinds[*l].is_preplaced())
        .filter_map(|(_, p)| {
            p.address.filter(|&a| a < cc_start).map(|a| (a + p.aligned).saturating_sub(floor))
        })
        .max();
    let opts = LayoutOptions {
        title: format!(
            "{}: core 0 of {}, {} planned tensors above the {} pre-placed floor, HWM {}",
            summary.model,
            summary.cores,
            rects.len(),
            crate::report::layout_svg::human_bytes(floor),
            crate::report::layout_svg::human_bytes(top.unwrap_or(0) + floor)
        ),
        cc_region: cc,
        hwm: top,
        window: None,
    };
    render_layout(&rects, &opts)
}

/// Writes the three files into `dir` (created if missing).
///
/// # Errors
/// Any I/O error; a file either holds its complete new content or its previous one.
pub fn write_reports(dir: &Path, model: &SimModel, plan: &PlannedModel, summary: &Summary) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let csv = plan_csv(model, plan).map_err(io::Error::other)?;
    let json = serde_json::to_vec_pretty(summary).map_err(io::Error::other)?;
    let svg = layout_svg(model, plan, summary);
    write_atomic(&dir.join("plan.csv"), &csv)?;
    write_atomic(&dir.join("summary.json"), &json)?;
    write_atomic(&dir.join("layout.svg"), svg.as_bytes())?;
    Ok(())
}
