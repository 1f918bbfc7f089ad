//! The `dramalloc` command line (clap derive): the commands and their dispatch.
//! Uses: its subcommand files and, through them, the sim's rooms and dramalloc-core; used by: main.rs, tests.
//!
//! The `dramalloc` command line (clap derive). `main.rs` only calls [`main_with`]. One file
//! per subcommand (`run.rs`, `plan.rs`, `verify.rs`, `replay.rs`, `quality.rs`, `faults.rs`); the value
//! parsers they share are in `args.rs`.

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

mod args;
mod faults;
mod plan;
mod quality;
mod replay;
mod run;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dramalloc_core::Strategy;

use args::parse_strategy;
pub use faults::FaultsArgs;
pub use run::{print_summary, RunArgs};

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
    /// Inject every kind of fault N times over programs (default: the bundled models) and
    /// print one row per kind: KIND INJECTED DETECTED.
    Faults(FaultsArgs),
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

fn err(msg: impl std::fmt::Display, code: u8) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(code)
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
        Command::Run(a) => run::cmd_run(&a),
        Command::Plan { input, strategy, align, capacity, output, time_limit } => {
            plan::cmd_plan(input, strategy, align, capacity, output, time_limit)
        }
        Command::Verify { input, solution, align, capacity } => {
            verify::cmd_verify(input, solution, align, capacity)
        }
        Command::Replay { script } => replay::cmd_replay(script),
        Command::Faults(a) => faults::cmd_faults(&a),
        Command::Quality { paths, align, strategies, json, time_limit, generated, seed } => {
            quality::cmd_quality(&paths, align, &strategies, json, time_limit, &generated, seed)
        }
    }
}
