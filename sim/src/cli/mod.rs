//! The `dramalloc` command line (clap derive): the commands and their dispatch.
//! Uses: its subcommand files and, through them, the sim's rooms and dramalloc-core; used by: main.rs, tests.
//!
//! The `dramalloc` command line (clap derive). `main.rs` only calls [`main_with`]. One file
//! per subcommand (`run.rs`, `import.rs`, `plan.rs`, `verify.rs`, `check_plan.rs`, `replay.rs`,
//! `quality.rs`); the value parsers and file readers they share are in `args.rs`.

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

mod args;
mod check_plan;
mod import;
mod plan;
mod quality;
mod replay;
mod run;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dramalloc_core::Strategy;

use args::{parse_input_shape, parse_strategy};
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
    /// Show the planner's milestone events on stderr (the seed allocator's log lines).
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan a program on N cores, execute it on the simulator, verify, print the summary.
    Run(RunArgs),
    /// Read an ONNX or TFLite model and write its program JSON.
    Import {
        /// The model: `.onnx` or `.tflite` (another name: by content).
        model: PathBuf,
        /// Shape of an input with symbolic dimensions, NAME=DIMS (e.g. x=1x3x224x224); repeatable.
        /// Other symbolic dimensions are 1.
        #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
        input_shape: Vec<(String, Vec<u64>)>,
        /// The program JSON to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Plan a minimalloc CSV, a program JSON or a model file and write the solution (CSV or
    /// plan.bin).
    Plan {
        /// Input: `.csv` (id,lower,upper,size; upper exclusive), `.json` (program), or a model
        /// file (`.onnx`, `.tflite`, imported first).
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
        /// File to write: the solution CSV (id,lower,upper,size,offset) or, for a `.bin` name
        /// or `--format bin`, the binary plan file (`plan.bin` format, one core).
        #[arg(short, long)]
        output: PathBuf,
        /// Output format (default: by the extension of `--output`: `.bin` is bin, else csv).
        #[arg(long, value_enum)]
        format: Option<plan::PlanFormat>,
        /// Print the summary as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Time limit of the `exact` strategy's search, seconds (anytime: the best plan
        /// found so far is written when it runs out).
        #[arg(long, default_value_t = 1.0)]
        time_limit: f64,
        /// Shape of a model input with symbolic dimensions, NAME=DIMS; repeatable.
        #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
        input_shape: Vec<(String, Vec<u64>)>,
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
    /// Decode and validate a plan file (plan.bin), run the verifier over it and, given the
    /// program, check it against the program: exit 0 valid, 1 a wrong plan, 2 a corrupt file.
    CheckPlan {
        /// The plan file.
        plan: PathBuf,
        /// The program JSON it plans (cores and split come from the plan file).
        program: Option<PathBuf>,
    },
    /// Peak / lower bound of every strategy on every file (default: the bundled sets).
    Quality {
        /// CSV, JSON or model files (default: bundled models, hard DSA set and large instances).
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
        /// Shape of a model input with symbolic dimensions, NAME=DIMS; repeatable; every model
        /// file given must have that input.
        #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
        input_shape: Vec<(String, Vec<u64>)>,
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
    if cli.verbose {
        // a second call (tests run main_with many times) keeps the first logger
        let _ = env_logger::Builder::new()
            .filter_level(log::LevelFilter::Off)
            .filter_module("dramalloc", log::LevelFilter::Info)
            .format_timestamp(None)
            .format_target(false)
            .try_init();
    }
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(a) => run::cmd_run(&a),
        Command::Import { model, input_shape, output } => import::cmd_import(&model, &input_shape, &output),
        Command::Plan { input, strategy, align, capacity, output, format, json, time_limit, input_shape } => {
            let format = format.unwrap_or_else(|| plan::PlanFormat::of(&output));
            plan::cmd_plan(&plan::PlanArgs {
                input,
                strategy,
                align,
                capacity,
                output,
                format,
                json,
                time_limit,
                input_shape,
            })
        }
        Command::Verify { input, solution, align, capacity } => {
            verify::cmd_verify(input, solution, align, capacity)
        }
        Command::Replay { script } => replay::cmd_replay(script),
        Command::CheckPlan { plan, program } => check_plan::cmd_check_plan(&plan, program.as_deref()),
        Command::Quality { paths, align, strategies, json, time_limit, generated, seed, input_shape } => {
            let sources =
                quality::Sources { paths: &paths, input_shapes: &input_shape, generated: &generated, seed };
            quality::cmd_quality(&sources, align, &strategies, json, time_limit)
        }
    }
}
