//! The `dramalloc` command line (clap derive). `main.rs` only calls [`main_with`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dramalloc_core::multicore::SharedMode;
use dramalloc_core::{CcSize, Strategy};

use crate::exec::faults::Fault;
use crate::input::{self, InputError, Program};
use crate::planning::PlanOptions;
use crate::run::{run, RunError, RunOptions, Split, Summary};

/// Largest tensor / buffer count accepted from a file.
pub const MAX_TENSORS: usize = 10_000_000;

/// dramalloc: plan DRAM tensors of ML programs, execute them on simulated cores, verify.
#[derive(Debug, Parser)]
#[command(name = "dramalloc", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command: `run` on the bundled ResNet-50 with 2 cores.
    #[command(subcommand)]
    pub command: Option<Command>,
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    Strategy::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        format!("unknown strategy `{s}` (one of: {})", names.join(", "))
    })
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    Fault::parse(s).ok_or_else(|| {
        format!("bad fault `{s}`: use SEED, move:SEED, twin:SEED, reverse:SEED or corrupt:SEED")
    })
}

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
        }
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan a program on N cores, execute it on the simulator, verify, print the summary.
    Run(RunArgs),
    /// Plan a minimalloc CSV or a program JSON and write the solution CSV.
    Plan {
        /// Input: `.csv` (id,lower,upper,size; upper exclusive) or `.json` (program).
        input: PathBuf,
        /// Placement strategy.
        #[arg(long, default_value = "auto", value_parser = parse_strategy)]
        strategy: Strategy,
        /// Alignment of sizes and offsets, bytes.
        #[arg(long, default_value_t = 4096)]
        align: u64,
        /// Capacity, bytes (default: unbounded).
        #[arg(long)]
        capacity: Option<u64>,
        /// Solution CSV to write (id,lower,upper,size,offset).
        #[arg(short, long)]
        output: PathBuf,
        /// Time limit of the `exact` strategy's search, seconds (anytime: the best plan
        /// found so far is written when it runs out).
        #[arg(long, default_value_t = 1.0)]
        time_limit: f64,
    },
    /// Check a solution independently of the planner (sweep line).
    Verify {
        /// The problem CSV.
        input: PathBuf,
        /// The solution CSV.
        solution: PathBuf,
        /// Required offset alignment, bytes.
        #[arg(long, default_value_t = 4096)]
        align: u64,
        /// Capacity, bytes.
        #[arg(long)]
        capacity: Option<u64>,
    },
    /// Execute a banked-allocator script (tt-metal style), one result line per operation.
    Replay {
        /// The script.
        script: PathBuf,
    },
    /// Peak / lower bound of every strategy on every file (default: the bundled sets).
    Quality {
        /// CSV or JSON files (default: bundled models, hard DSA set and large instances).
        paths: Vec<PathBuf>,
        /// Alignment, bytes.
        #[arg(long, default_value_t = 1)]
        align: u64,
        /// Comma-separated strategies (default: all).
        #[arg(long, value_delimiter = ',', value_parser = parse_strategy)]
        strategies: Vec<Strategy>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Time limit of the `exact` strategy per file, seconds.
        #[arg(long, default_value_t = 1.0)]
        time_limit: f64,
        /// Instead of files: generated problems (`dramalloc_sim::generate`) of these sizes,
        /// comma-separated, e.g. `1000,10000,100000,1000000`.
        #[arg(long, value_delimiter = ',', conflicts_with = "paths")]
        generated: Vec<usize>,
        /// Seed of the generated problems.
        #[arg(long, default_value_t = crate::quality::generate::DEFAULT_SEED)]
        seed: u64,
    },
}

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

fn err(msg: impl std::fmt::Display, code: u8) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(code)
}

/// Reads a program or a minimalloc problem, by extension.
///
/// A JSON program is validated as `run` validates it (pre-placement included) before it
/// becomes a problem.
fn read_problem(path: &Path) -> Result<Vec<input::Buffer>, InputError> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
        let program = input::read_program(path, MAX_TENSORS)?;
        input::pack_preplaced(&program, input::PAGE)?;
        Ok(crate::quality::problem::problem_from_program(&program))
    } else {
        input::read_buffers(path, MAX_TENSORS)
    }
}

/// Runs the command line on `args` (the first element is the program name); prints to
/// stdout/stderr and returns the exit code: 0 success, 1 a plan that does not fit or fails
/// verification, 2 bad input.
pub fn main_with(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(a) => cmd_run(&a),
        Command::Plan { input, strategy, align, capacity, output, time_limit } => {
            if align == 0 {
                return err("--align must be at least 1", 2);
            }
            let Some(limit) = seconds(time_limit) else {
                return err("--time-limit must be a non-negative number of seconds", 2);
            };
            let problem = match read_problem(&input) {
                Ok(p) => p,
                Err(e) => return err(e, 2),
            };
            match crate::quality::problem::solve_within(&problem, align, capacity, strategy, limit) {
                Ok(sol) => {
                    let text = input::write_solution(&sol.rows);
                    if let Err(e) = crate::atomic_write::write_atomic(&output, text.as_bytes()) {
                        return err(format!("{}: {e}", output.display()), 1);
                    }
                    let m = sol.metrics;
                    say!(
                        "{}: {} buffers, strategy {}{}, HWM {} bytes, lower bound {} bytes, ratio {:.4}, time {:.2} ms",
                        input.display(),
                        problem.len(),
                        strategy.name(),
                        match Strategy::ALL[m.strategy as usize] {
                            s if s == strategy => String::new(),
                            s => format!(" (plan from its {} member)", s.name()),
                        },
                        m.hwm,
                        m.lower_bound,
                        crate::quality::peak_ratio(m.hwm, m.lower_bound),
                        sol.time.as_secs_f64() * 1e3
                    );
                    ExitCode::SUCCESS
                }
                Err(
                    e @ crate::quality::problem::SolveError::Plan {
                        error: dramalloc_core::PlanError::DoesNotFit { .. },
                        ..
                    },
                ) => err(e, 1),
                Err(e) => err(e, 2),
            }
        }
        Command::Verify { input, solution, align, capacity } => {
            let problem = match read_problem(&input) {
                Ok(p) => p,
                Err(e) => return err(e, 2),
            };
            let sol = match input::read_solution(&solution, MAX_TENSORS) {
                Ok(s) => s,
                Err(e) => return err(e, 2),
            };
            if align == 0 {
                return err("--align must be at least 1", 2);
            }
            match crate::verify::verify(&problem, &sol, align, capacity) {
                Ok(r) => {
                    say!("OK: {} buffers, peak {} bytes", r.buffers, r.peak);
                    ExitCode::SUCCESS
                }
                Err(e) => err(format!("{} against {}: {e}", solution.display(), input.display()), 1),
            }
        }
        Command::Replay { script } => {
            let mut out = std::io::stdout().lock();
            match crate::replay::run_replay(&script, &mut out) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    let code = e.exit_code() as u8;
                    err(e, code)
                }
            }
        }
        Command::Quality { paths, align, strategies, json, time_limit, generated, seed } => {
            let Some(limit) = seconds(time_limit) else {
                return err("--time-limit must be a non-negative number of seconds", 2);
            };
            cmd_quality(&paths, align, &strategies, json, limit, &generated, seed)
        }
    }
}

fn seconds(s: f64) -> Option<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(s).ok()
}

fn cmd_quality(
    paths: &[PathBuf],
    align: u64,
    strategies: &[Strategy],
    json: bool,
    limit: std::time::Duration,
    generated: &[usize],
    seed: u64,
) -> ExitCode {
    if align == 0 {
        return err("--align must be at least 1", 2);
    }
    let strategies: Vec<Strategy> =
        if strategies.is_empty() { Strategy::ALL.to_vec() } else { strategies.to_vec() };
    let mut problems = Vec::new();
    if !generated.is_empty() {
        for &n in generated {
            if n == 0 || n > MAX_TENSORS {
                return err(format!("--generated {n}: use 1..={MAX_TENSORS}"), 2);
            }
            problems.push((
                "generated".to_string(),
                format!("n={n}"),
                crate::quality::generate::problem(n, seed),
            ));
        }
    } else if paths.is_empty() {
        for (set, name, text) in crate::input::bundled::PROBLEMS {
            match input::parse_buffers(text, name, MAX_TENSORS) {
                Ok(b) => problems.push((set.to_string(), name.to_string(), b)),
                Err(e) => return err(e, 2),
            }
        }
    } else {
        for p in paths {
            match read_problem(p) {
                Ok(b) => problems.push((
                    p.parent()
                        .and_then(|d| d.file_name())
                        .map_or(String::new(), |d| d.to_string_lossy().into()),
                    p.file_stem().map_or(String::new(), |s| s.to_string_lossy().into()),
                    b,
                )),
                Err(e) => return err(e, 2),
            }
        }
    }
    let rows = crate::quality::evaluate(&problems, align, &strategies, limit);
    let totals = crate::quality::totals(&rows, &strategies);
    if json {
        let v = serde_json::json!({ "align": align, "rows": rows, "totals": totals });
        say!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        let _ = write!(std::io::stdout().lock(), "{}", crate::quality::render(&rows, &totals));
    }
    ExitCode::SUCCESS
}

fn cmd_run(a: &RunArgs) -> ExitCode {
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
                RunError::Verify { summary, .. } | RunError::Collision { summary, .. } => {
                    print_summary(summary)
                }
                RunError::Input(_) | RunError::Plan(_) => return err(format!("{source}: {e}"), code),
                _ => {}
            }
            err(e, code)
        }
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
        format!("{} / {} bytes", s.cc_limit, s.per_core.iter().map(|c| c.cc_bytes).max().unwrap_or(0)),
    );
    let _ = writeln!(
        o,
        "  {:<6} {:>14} {:>14} {:>10} {:>12}",
        "core", "HWM", "lower bound", "HWM/LB", "unaddressed"
    );
    for c in &s.per_core {
        let ratio = if c.lower_bound > 0 {
            format!("{:.4}", c.hwm as f64 / c.lower_bound as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            o,
            "  {:<6} {:>14} {:>14} {:>10} {:>12}",
            c.core, c.hwm, c.lower_bound, ratio, c.unaddressed
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
