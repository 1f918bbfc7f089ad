//! `dramalloc run`: its options, the run itself and the summary table it prints.
//! Uses: args, exec, input, planning, report, run, dramalloc-core; used by: mod.rs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use dramalloc_core::multicore::SharedMode;
use dramalloc_core::{CcSize, Strategy};

use super::args::{parse_fault, parse_strategy};
use super::{err, MAX_TENSORS};
use crate::exec::faults::Fault;
use crate::input::{self, Program};
use crate::planning::PlanOptions;
use crate::run::{run, RunError, RunOptions, Split, Summary};

/// Options of `dramalloc run`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Program JSON (default: the bundled ResNet-50).
    pub program: Option<PathBuf>,
    /// Logical cores (1..=64).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub cores: u32,
    /// How a single-core model becomes N cores.
    #[arg(long, value_enum, default_value_t = Split::None)]
    pub split: Split,
    /// Per-core HBM window, bytes (default: 24 GiB, one logical core of a Trainium2-class device).
    #[arg(long, default_value_t = dramalloc_core::DEFAULT_HBM_WINDOW)]
    pub hbm_window: u64,
    /// CC region size in MiB, or -1 to size it from the collective operands.
    #[arg(long, default_value_t = 500, allow_negative_numbers = true)]
    pub allreduce_buffer_size: i64,
    /// Switch the DRAM passes off (spills stay unaddressed; the run then fails on them).
    #[arg(long)]
    pub disable_dram_allocation: bool,
    /// Placement strategy.
    #[arg(long, default_value = "auto", value_parser = parse_strategy)]
    pub strategy: Strategy,
    /// Shared mode 1: per-core slabs of this many MiB in one address space.
    #[arg(long)]
    pub mb_per_core: Option<u64>,
    /// Write plan.csv, summary.json and layout.svg here.
    #[arg(long)]
    pub report_dir: Option<PathBuf>,
    /// Inject a fault (SEED, move:SEED, twin:SEED, reverse:SEED, corrupt:SEED); the run must fail.
    #[arg(long, value_parser = parse_fault)]
    pub inject_fault: Option<Fault>,
    /// Host memory the simulation may use, bytes (default: what the host has available).
    #[arg(long)]
    pub host_memory: Option<u64>,
}

impl Default for RunArgs {
    fn default() -> Self {
        RunArgs {
            program: None,
            cores: 2,
            split: Split::None,
            hbm_window: dramalloc_core::DEFAULT_HBM_WINDOW,
            allreduce_buffer_size: 500,
            disable_dram_allocation: false,
            strategy: Strategy::Auto,
            mb_per_core: None,
            report_dir: None,
            inject_fault: None,
            host_memory: None,
        }
    }
}

/// `dramalloc run` (also the default command).
pub(super) fn cmd_run(a: &RunArgs) -> ExitCode {
    let source =
        a.program.as_ref().map_or("bundled:onnx_resnet50.json".to_string(), |p| p.display().to_string());
    let program: Program = match &a.program {
        Some(p) => match input::read_program(p, MAX_TENSORS) {
            Ok(p) => p,
            Err(e) => return err(e, 2),
        },
        None => match input::parse_program(
            crate::input::bundled::RESNET50_JSON,
            "bundled:onnx_resnet50.json",
            MAX_TENSORS,
        ) {
            Ok(p) => p,
            Err(e) => return err(e, 2),
        },
    };
    let Some(cc) = CcSize::from_knob(a.allreduce_buffer_size) else {
        return err(
            format!(
                "--allreduce-buffer-size {}: use a size in MiB (>= 0) or -1 for auto",
                a.allreduce_buffer_size
            ),
            2,
        );
    };
    if let CcSize::Mib(m) = cc {
        if m.checked_mul(1 << 20).is_none_or(|b| b > a.hbm_window) {
            return err(
                format!(
                    "--allreduce-buffer-size {m} MiB does not fit in the {}-byte --hbm-window",
                    a.hbm_window
                ),
                2,
            );
        }
    }
    if let Some(mb) = a.mb_per_core {
        if mb == 0 || mb.checked_mul(1 << 20).is_none_or(|b| b > a.hbm_window) {
            return err(
                format!(
                    "--mb-per-core {mb}: a slab must be 1 MiB or more and fit in the {}-byte --hbm-window",
                    a.hbm_window
                ),
                2,
            );
        }
    }
    let opts = RunOptions {
        cores: a.cores as usize,
        split: a.split,
        plan: PlanOptions {
            window: a.hbm_window,
            cc,
            strategy: a.strategy,
            disable_dram_allocation: a.disable_dram_allocation,
            mode: a.mb_per_core.map_or(SharedMode::Windows, |mb_per_core| SharedMode::Slabs { mb_per_core }),
        },
        fault: a.inject_fault,
        progress: true,
        report_dir: a.report_dir.clone(),
        host_memory: a.host_memory,
    };
    match run(&program, &opts) {
        Ok(out) => {
            print_summary(&out.summary);
            if let Some(dir) = &a.report_dir {
                if let Err(e) = crate::report::write_reports(dir, &out.model, &out.plan, &out.summary) {
                    return err(format!("writing reports to {}: {e}", dir.display()), 1);
                }
                say!("reports: {}", dir.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            let code = e.exit_code() as u8;
            match &e {
                RunError::Verify { summary, .. }
                | RunError::Collision { summary, .. }
                | RunError::UnaddressedSpill { summary, .. } => print_summary(summary),
                RunError::Input(_) | RunError::Plan(_) => return err(format!("{source}: {e}"), code),
                _ => {}
            }
            err(e, code)
        }
    }
}

fn ratio(used: u64, lower_bound: u64) -> String {
    if lower_bound > 0 {
        format!("{:.4}", used as f64 / lower_bound as f64)
    } else {
        "-".into()
    }
}

fn mib(b: u64) -> String {
    format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64)
}

/// Prints the summary table.
pub fn print_summary(s: &Summary) {
    let mut o = std::io::stdout().lock();
    let row = |o: &mut std::io::StdoutLock, k: &str, v: String| {
        let _ = writeln!(o, "  {k:<28} {v}");
    };
    let _ = writeln!(
        o,
        "dramalloc run: {} on {} core(s), split {}, strategy {}",
        s.model,
        s.cores,
        s.split.name(),
        s.strategy
    );
    row(&mut o, "tensors", s.tensors.to_string());
    row(&mut o, "liveness intervals", s.intervals.to_string());
    row(&mut o, "shared tensors", s.shared_tensors.to_string());
    row(&mut o, "pre-placed bytes (per core)", format!("{} ({})", s.preplaced_bytes, mib(s.preplaced_bytes)));
    if s.shared_tensors > 0 {
        row(&mut o, "shared region", format!("{} bytes at {:#x}", s.shared_bytes, s.shared_base));
        row(&mut o, "cross-core edges", s.edges.to_string());
    }
    row(
        &mut o,
        "CC region (limit / used)",
        format!("{} / {} bytes", s.cc_limit, s.per_core.iter().map(|c| c.parts.cc.used).max().unwrap_or(0)),
    );
    if let Some(p) = &s.pressure {
        row(
            &mut o,
            "peak live bytes (device)",
            format!(
                "{} at {} ({} private on all cores + {} shared, counted once)",
                p.bytes, p.at, p.private_bytes, p.shared_bytes
            ),
        );
    }
    let _ = writeln!(
        o,
        "  {:<6} {:>14} {:>14} {:>10} {:>14} {:>12}",
        "core", "HWM", "lower bound", "HWM/LB", "peak live", "unaddressed"
    );
    for c in &s.per_core {
        let _ = writeln!(
            o,
            "  {:<6} {:>14} {:>14} {:>10} {:>14} {:>12}",
            c.core,
            c.hwm,
            c.lower_bound,
            ratio(c.hwm, c.lower_bound),
            c.peak_live,
            c.unaddressed
        );
    }
    let _ = writeln!(
        o,
        "  {:<6} {:>29} {:>29} {:>29}",
        "parts", "private used / LB", "shared used / LB", "CC used / LB"
    );
    for c in &s.per_core {
        let part = |p: &crate::report::bounds::Part| format!("{} / {}", p.used, p.lower_bound);
        let _ = writeln!(
            o,
            "  {:<6} {:>29} {:>29} {:>29}",
            c.core,
            part(&c.parts.private),
            part(&c.parts.shared),
            part(&c.parts.cc)
        );
    }
    row(&mut o, "bytes written / verified", format!("{} / {}", s.bytes_written, s.bytes_verified));
    row(&mut o, "arena bytes committed", format!("{} ({})", s.committed_bytes, mib(s.committed_bytes)));
    row(&mut o, "plan time", format!("{:.2} ms", s.plan_seconds * 1e3));
    row(&mut o, "simulation time", format!("{:.2} ms", s.sim_seconds * 1e3));
    if let Some(f) = &s.fault {
        row(&mut o, "injected fault", f.clone());
    }
    row(&mut o, "verdict", s.verdict.clone());
}
