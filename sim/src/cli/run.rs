//! `dramalloc run`: its options, the run itself and the summary table it prints.
//! Uses: args, console, exec, input, planning, report, run, dramalloc-core; used by: mod.rs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dramalloc_core::multicore::SharedMode;
use dramalloc_core::{CcSize, PlanError, Strategy};

use super::args::{self, parse_fault, parse_input_shape, read_text, strategy_parser, SIZES};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, MAX_TENSORS};
use crate::exec::faults::Fault;
use crate::input::import::ModelFormat;
use crate::input::{self, InputError, Program};
use crate::planning::PlanOptions;
use crate::report::FailedSummary;
use crate::run::{run, CoreSummary, RunError, RunOptions, Split, Summary};

/// `run --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 the run passed; 1 the plan does not fit, a DRAM spill is left unaddressed, a
collision or the injected fault was caught, an injected fault went undetected, or a report
cannot be written; 2 bad input or a bad flag (the report directory is checked first).
A run that fails once the program is read (exit 1; or 2 for a plan refused as bad input, a
fault with no place or too little host memory) still writes --report-dir, marked FAILED: see
--report-dir.";

/// Options of `dramalloc run`.
#[derive(Debug, Clone, clap::Args)]
#[command(allow_negative_numbers = true, after_help = format!("{AFTER}\n{SIZES}"))]
pub struct RunArgs {
    /// Program JSON, or a model file (`.onnx`, `.tflite`) imported first (default: the
    /// bundled ResNet-50); `-`: a program JSON on standard input.
    pub program: Option<PathBuf>,
    /// Logical cores (1..=64).
    #[arg(long, default_value = "2", value_parser = args::cores)]
    pub cores: u32,
    /// How a single-core model becomes N cores.
    #[arg(long, value_enum, default_value_t = Split::None)]
    pub split: Split,
    /// Per-core HBM window (a size; default: 24 GiB, one logical core of a Trainium2-class
    /// device).
    #[arg(long, default_value = "24GiB", value_parser = args::size)]
    pub hbm_window: u64,
    /// CC region size: MiB, or a size with a suffix (whole MiB), or -1 to size it from the
    /// collective operands (per operand its aligned size plus its bytes, every core's, rounded
    /// to 4 KiB). The region holds the collective staging buffers, one address on every core;
    /// private tensors that fit nowhere below it are retried in it. 0: no CC region.
    #[arg(long, default_value = "500", value_parser = args::mib_or_auto)]
    pub allreduce_buffer_size: i64,
    /// Switch the DRAM passes off (spills stay unaddressed; the run then fails on them).
    #[arg(long)]
    pub disable_dram_allocation: bool,
    /// Placement strategy.
    #[arg(long, default_value = "auto", value_parser = strategy_parser())]
    pub strategy: Strategy,
    /// Shared mode 1: per-core slabs of this many MiB (or a size with a suffix, whole MiB) in
    /// one address space; the shared region follows the N slabs, the CC region follows it
    /// (a slab has no CC region of its own, so it may be smaller than the CC region).
    #[arg(long, value_parser = args::mib)]
    pub mb_per_core: Option<u64>,
    /// Write plan.csv, summary.json, layout.svg, plan.bin and plan.h here (checked before
    /// planning). A failed run with a plan (a collision, a verifier finding, an unaddressed
    /// spill) writes the first three, verdict FAILED, and removes an earlier plan.bin and
    /// plan.h; one without (planning failed, ...) writes summary.json alone (model, cores,
    /// split, strategy, verdict `FAILED: <error>`) and removes the other four.
    #[arg(long)]
    pub report_dir: Option<PathBuf>,
    /// The core whose view layout.svg draws (needs --report-dir, where layout.svg goes).
    #[arg(long, default_value = "0", value_parser = args::core_index, requires = "report_dir")]
    pub svg_core: u32,
    /// Inject a fault (SEED, move:SEED, twin:SEED, reverse:SEED, corrupt:SEED); the run must fail.
    #[arg(long, value_parser = parse_fault)]
    pub inject_fault: Option<Fault>,
    /// Host memory the simulation may use (a size; default: what the host has available).
    #[arg(long, value_parser = args::size)]
    pub host_memory: Option<u64>,
    /// Shape of a model input with symbolic dimensions, NAME=DIMS (e.g. x=1x3x224x224); repeatable.
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
    /// Print the summary as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
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
            svg_core: 0,
            inject_fault: None,
            host_memory: None,
            input_shape: Vec::new(),
            json: false,
        }
    }
}

/// Reads the program of `run`: a model file (imported with `input_shapes`), or a JSON, with a
/// pointer to `plan` for a CSV.
fn read_run_program(
    path: &Path,
    input_shapes: &[(String, Vec<u64>)],
    con: &mut Console<'_>,
) -> Result<Program, String> {
    let model = !args::is_dash(path) && ModelFormat::from_path(path).is_some();
    if model || !input_shapes.is_empty() {
        // a model file, or `--input-shape` on one that is not (an error naming the file)
        return args::read_program_file(path, input_shapes, con).map_err(|e| e.to_string());
    }
    let (text, file) = read_text(path, con).map_err(|e| e.to_string())?;
    let csv_named = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let first = text.trim_start_matches('\u{feff}').trim_start();
    let csv_like = !first.starts_with('{') && first.lines().next().is_some_and(|l| l.contains(','));
    match input::parse_program(&text, &file, MAX_TENSORS) {
        Err(InputError::MalformedJson { .. }) if csv_named || csv_like => Err(format!(
            "{file}: `run` takes a program JSON (tensors and ops); this looks like a minimalloc CSV problem: \
             plan it with `dramalloc plan {file} -o solution.csv`"
        )),
        other => other.map_err(|e| e.to_string()),
    }
}

/// The report directory, made and probed before anything runs.
fn check_report_dir(dir: &Path) -> Result<(), String> {
    let name = dir.display();
    if dir.exists() && !dir.is_dir() {
        return Err(format!("--report-dir {name}: exists and is not a directory"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("--report-dir {name}: cannot create it: {e}"))?;
    let probe = dir.join(format!(".dramalloc-probe.{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| format!("--report-dir {name}: cannot write there: {e}"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// `dramalloc run` (also the default command).
pub(super) fn cmd_run(a: &RunArgs, con: &mut Console<'_>) -> ExitCode {
    if a.svg_core >= a.cores {
        let msg =
            format!("--svg-core {}: the run has cores 0..{} (--cores {})", a.svg_core, a.cores - 1, a.cores);
        return fail(con, msg, EXIT_BAD_INPUT);
    }
    if let Some(dir) = &a.report_dir {
        if let Err(e) = check_report_dir(dir) {
            return fail(con, e, EXIT_BAD_INPUT);
        }
        // a report named like the program would replace it (a trial's program saved as
        // `out/summary.json` was replaced by the run's summary, exit 0)
        let program = a.program.as_deref();
        let clash = crate::report::REPORT_FILES.iter().find_map(|name| {
            program.and_then(|p| args::overwrites_input("--report-dir", &dir.join(name), p))
        });
        if let Some(e) = clash {
            return fail(con, e, EXIT_BAD_INPUT);
        }
    }
    let source =
        a.program.as_ref().map_or("bundled:onnx_resnet50.json".to_string(), |p| p.display().to_string());
    let program: Program = match &a.program {
        Some(p) => match read_run_program(p, &a.input_shape, con) {
            Ok(p) => p,
            Err(e) => return fail(con, e, EXIT_BAD_INPUT),
        },
        None if !a.input_shape.is_empty() => {
            let e = args::no_shapes_for(std::path::Path::new("bundled:onnx_resnet50.json"), &a.input_shape);
            return fail(con, e.err().map_or_else(String::new, |e| e.to_string()), EXIT_BAD_INPUT);
        }
        None => match input::parse_program(
            crate::input::bundled::RESNET50_JSON,
            "bundled:onnx_resnet50.json",
            MAX_TENSORS,
        ) {
            Ok(p) => p,
            Err(e) => return fail(con, e, EXIT_BAD_INPUT),
        },
    };
    let Some(cc) = CcSize::from_knob(a.allreduce_buffer_size) else {
        let msg = format!(
            "--allreduce-buffer-size {}: use a size in MiB (>= 0) or -1 for auto",
            a.allreduce_buffer_size
        );
        return fail(con, msg, EXIT_BAD_INPUT);
    };
    if a.hbm_window == 0 {
        return fail(con, "--hbm-window 0: a core's HBM window holds at least one byte", EXIT_BAD_INPUT);
    }
    if let CcSize::Mib(m) = cc {
        if m.checked_mul(1 << 20).is_none_or(|b| b > a.hbm_window) {
            // the CC region is reserved in every window, collectives or not: say so where
            // the user did not ask for one (500 MiB is the default)
            let default = if a.allreduce_buffer_size == 500 { " (the default)" } else { "" };
            let msg = format!(
                "--allreduce-buffer-size {m} MiB{default} does not fit in the {}-byte --hbm-window{}",
                a.hbm_window,
                if default.is_empty() { "" } else { ": give a smaller one (0: no CC region)" }
            );
            return fail(con, msg, EXIT_BAD_INPUT);
        }
    }
    if let Some(mb) = a.mb_per_core {
        if mb == 0 || mb.checked_mul(1 << 20).is_none_or(|b| b > a.hbm_window) {
            let msg = format!(
                "--mb-per-core {mb}: a slab must be 1 MiB or more and fit in the {}-byte --hbm-window",
                a.hbm_window
            );
            return fail(con, msg, EXIT_BAD_INPUT);
        }
        // the device's slabs, the shared slab and the CC region after them must be
        // addressable (an auto CC region, sized by the planner, is checked there)
        let cc_bytes = if let CcSize::Mib(m) = cc { m << 20 } else { 0 };
        let end = (u128::from(a.cores) + 1) * u128::from(mb) * (1 << 20) + u128::from(cc_bytes);
        if end > u128::from(u64::MAX) {
            let e = PlanError::SlabsOverflow { cores: a.cores, mb_per_core: mb, cc_bytes };
            return fail(con, format!("--mb-per-core {mb}: {e}"), EXIT_BAD_INPUT);
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
        progress: con.progress,
        report_dir: a.report_dir.clone(),
        host_memory: a.host_memory,
    };
    let svg_core = a.svg_core as usize;
    match run(&program, &opts) {
        Ok(out) => {
            // the summary goes out whole at the end, checked: a lost summary is a failed run
            let mut text = Vec::new();
            show(&mut text, &out.summary, a.json);
            if let Some(dir) = &a.report_dir {
                if let Err(e) = crate::report::write_reports(
                    dir,
                    &out.model,
                    &out.plan,
                    &out.summary,
                    &opts.plan,
                    svg_core,
                ) {
                    return fail(con, format!("writing reports to {}: {e}", dir.display()), EXIT_FAILED);
                }
                if !a.json {
                    let _ = writeln!(text, "reports: {}", dir.display());
                }
            }
            if let Err(e) = con.write_out(|o| o.write_all(&text)) {
                return stdout_failed(con, &e);
            }
            if let Some(f) = &out.injected {
                return fail(con, format!("the injected fault {f} was not detected"), EXIT_FAILED);
            }
            ExitCode::from(EXIT_OK)
        }
        Err(e) => {
            let code = e.exit_code() as u8;
            let mut text = Vec::new();
            if let Some((summary, _)) = e.failed_run() {
                show(&mut text, summary, a.json);
            }
            if let Some(dir) = &a.report_dir {
                let written = match e.failed_run() {
                    Some((summary, failed)) => crate::report::write_failed_reports(
                        dir,
                        &failed.model,
                        &failed.plan,
                        summary,
                        svg_core,
                    ),
                    None => crate::report::write_unplanned_failure(
                        dir,
                        &FailedSummary {
                            model: program.name.clone(),
                            cores: opts.cores,
                            split: opts.split,
                            strategy: opts.plan.strategy.name().to_string(),
                            verdict: format!("FAILED: {e}"),
                        },
                    ),
                };
                match written {
                    Ok(()) if a.json => {}
                    Ok(()) => {
                        let _ = writeln!(text, "reports (of the failed run): {}", dir.display());
                    }
                    Err(w) => {
                        let _ = writeln!(con.stderr, "error: writing reports to {}: {w}", dir.display());
                    }
                }
            }
            if let Err(w) = con.write_out(|o| o.write_all(&text)) {
                let _ = stdout_failed(con, &w); // the run's own exit code stands
            }
            match &e {
                RunError::Input(_) | RunError::Plan(_) => fail(con, format!("{source}: {e}"), code),
                _ => fail(con, e, code),
            }
        }
    }
}

/// The summary as the table, or as JSON (`--json`), to `o`.
fn show(o: &mut dyn Write, s: &Summary, json: bool) {
    if json {
        let _ = writeln!(o, "{}", serde_json::to_string_pretty(s).unwrap_or_default());
    } else {
        print_summary(o, s);
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

/// Prints the summary table to `o`; cores with equal figures share one line (`0-63`).
pub fn print_summary(o: &mut dyn Write, s: &Summary) {
    let row = |o: &mut dyn Write, k: &str, v: String| {
        let _ = writeln!(o, "  {k:<28} {v}");
    };
    let _ = writeln!(
        o,
        "dramalloc run: {} on {}, split {}, strategy {}",
        s.model,
        super::args::count_of(s.cores, "core"),
        s.split.name(),
        s.strategy
    );
    row(o, "tensors", s.tensors.to_string());
    row(o, "liveness intervals", s.intervals.to_string());
    // without the DRAM pass (`--disable-dram-allocation`: no pressure measured) nothing was
    // placed in the shared or the CC region: `-` and why, not 0 (a trial read "shared tensors
    // 0" of a program with one)
    let no_pass = "- (no DRAM pass: --disable-dram-allocation)";
    row(
        o,
        "shared tensors",
        if s.pressure.is_some() { s.shared_tensors.to_string() } else { no_pass.into() },
    );
    row(o, "pre-placed bytes (per core)", format!("{} ({})", s.preplaced_bytes, mib(s.preplaced_bytes)));
    if s.shared_tensors > 0 {
        row(o, "shared region", format!("{} bytes at {:#x}", s.shared_bytes, s.shared_base));
        row(o, "cross-core edges", s.edges.to_string());
    }
    row(
        o,
        "CC region (limit / used)",
        if s.pressure.is_none() {
            no_pass.into()
        } else {
            format!(
                "{} / {} bytes{}",
                s.cc_limit,
                s.per_core.iter().map(|c| c.parts.cc.used).max().unwrap_or(0),
                if s.cc_collectives > 0 {
                    format!(" at {:#x}, {} collective buffers", s.cc_base, s.cc_collectives)
                } else {
                    String::new()
                }
            )
        },
    );
    if let Some(p) = &s.pressure {
        row(
            o,
            "peak live bytes (device)",
            // `at` is empty when the program has no op: there is no place to name
            if p.at.is_empty() {
                format!(
                    "{} ({} private on all cores + {} shared, counted once; the program has no op)",
                    p.bytes, p.private_bytes, p.shared_bytes
                )
            } else {
                format!(
                    "{} at {} ({} private on all cores + {} shared, counted once)",
                    p.bytes, p.at, p.private_bytes, p.shared_bytes
                )
            },
        );
    }
    // cores with equal figures share one row (`0-63`)
    let same = |a: &CoreSummary, b: &CoreSummary| {
        (a.hwm, a.lower_bound, a.parts, a.peak_live, a.unaddressed)
            == (b.hwm, b.lower_bound, b.parts, b.peak_live, b.unaddressed)
    };
    let groups: Vec<(String, &CoreSummary)> = s
        .per_core
        .chunk_by(|a, b| same(a, b))
        .map(|g| {
            let (c, last) = (&g[0], g[g.len() - 1].core);
            (if g.len() == 1 { c.core.to_string() } else { format!("{}-{last}", c.core) }, c)
        })
        .collect();
    let _ = writeln!(
        o,
        "  {:<8} {:>14} {:>14} {:>10} {:>14} {:>12}",
        "core", "used", "lower bound", "used/LB", "peak live", "unaddressed"
    );
    for (cores, c) in &groups {
        // without the DRAM pass (`--disable-dram-allocation`) the pressure was not measured:
        // `-`, not 0 (the pre-placed bytes alone are live)
        let live = if s.pressure.is_some() { c.peak_live.to_string() } else { "-".to_owned() };
        let _ = writeln!(
            o,
            "  {:<8} {:>14} {:>14} {:>10} {:>14} {:>12}",
            cores,
            c.hwm,
            c.lower_bound,
            ratio(c.hwm, c.lower_bound),
            live,
            c.unaddressed
        );
    }
    let _ = writeln!(
        o,
        "  {:<8} {:>29} {:>29} {:>29}",
        "parts", "private used / LB", "shared used / LB", "CC used / LB"
    );
    let part = |p: &crate::report::bounds::Part| format!("{} / {}", p.used, p.lower_bound);
    for (cores, c) in &groups {
        let _ = writeln!(
            o,
            "  {:<8} {:>29} {:>29} {:>29}",
            cores,
            part(&c.parts.private),
            part(&c.parts.shared),
            part(&c.parts.cc)
        );
    }
    row(o, "bytes written / verified", format!("{} / {}", s.bytes_written, s.bytes_verified));
    row(o, "arena bytes committed", format!("{} ({})", s.committed_bytes, mib(s.committed_bytes)));
    row(o, "plan time", format!("{:.2} ms", s.plan_seconds * 1e3));
    row(o, "simulation time", format!("{:.2} ms", s.sim_seconds * 1e3));
    if let Some(f) = &s.fault {
        row(o, "injected fault", f.clone());
    }
    row(o, "verdict", s.verdict.clone());
}
