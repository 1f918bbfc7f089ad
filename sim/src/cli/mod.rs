//! The `dramalloc` command line (clap derive): the commands, their dispatch and the exit codes.
//! Uses: its subcommand files and, through them, the sim's rooms and dramalloc-core; used by: main.rs, tests.
//!
//! `main.rs` only calls [`main_with`], which runs [`run_with`] on the process's standard
//! streams; tests call [`run_with`] on buffers and read what it printed. One file per
//! subcommand (`run.rs`, `import.rs`, `plan.rs`, `verify.rs`, `check_plan.rs`, `replay.rs`,
//! `quality.rs`, `faults.rs`, `generate.rs`, `scale.rs`), each holding its options (`…Args`) and its `cmd_…` function; `args.rs` has
//! the value parsers and input readers they share, `console.rs` the streams and the progress
//! bars. A new subcommand is a new file, a variant of [`Command`] and a line of [`run_with`].
//!
//! **Exit codes** (every subcommand's `--help` lists its own): 0 success; 1 the plan does not
//! fit or fails verification, a run fails, an output cannot be written, or (replay
//! `--strict`) an error line; 2 bad input (a corrupt plan file too) or a bad flag.

mod args;
mod check_plan;
mod console;
mod faults;
mod generate;
mod import;
mod plan;
mod quality;
mod replay;
mod run;
mod scale;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use check_plan::CheckPlanArgs;
pub use console::Console;
pub use faults::FaultsArgs;
pub use generate::GenerateArgs;
pub use import::ImportArgs;
pub use plan::PlanArgs;
pub use quality::QualityArgs;
pub use replay::ReplayArgs;
pub use run::{print_summary, RunArgs};
pub use scale::ScaleArgs;
pub use verify::VerifyArgs;

/// Largest tensor / buffer count accepted from a file.
pub const MAX_TENSORS: usize = 10_000_000;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: the plan does not fit or is invalid, the run failed, an output could not be
/// written, or a `--strict` replay printed an error line.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad input or a bad flag.
pub const EXIT_BAD_INPUT: u8 = 2;

/// The top-level help's closing lines.
const TOP_HELP: &str = "\
Exit codes: 0 success; 1 the plan does not fit or is invalid, the run failed, or an output
cannot be written; 2 bad input or a bad flag. Sizes take K, M, G, T (powers of 1024: K = KiB).
`-` as an input reads standard input; `-o -` writes the solution to standard output.";

/// dramalloc: plan DRAM tensors of ML programs, execute them on simulated cores, verify.
#[derive(Debug, Parser)]
#[command(name = "dramalloc", version, about, long_about = None, after_help = TOP_HELP)]
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
    Import(ImportArgs),
    /// Plan a minimalloc CSV, a program JSON or a model file and write the solution (CSV or
    /// plan.bin).
    Plan(PlanArgs),
    /// Check a solution (or `run`'s plan.csv) independently of the planner (sweep line).
    Verify(VerifyArgs),
    /// Inject every kind of fault N times over programs (default: the bundled models) and
    /// print one row per kind: KIND INJECTED DETECTED BY.
    Faults(FaultsArgs),
    /// Execute a banked-allocator script (tt-metal style), one result line per operation.
    Replay(ReplayArgs),
    /// Decode and validate a plan file (plan.bin), run the verifier over it and, given the
    /// program, check it against the program: exit 0 valid, 1 a wrong plan, 2 a corrupt file.
    CheckPlan(CheckPlanArgs),
    /// Peak / lower bound of every strategy on every file (default: the bundled sets).
    Quality(QualityArgs),
    /// Write a generated planning problem (mixed, short, long-tail or layered shape) as a
    /// minimalloc CSV, to plan with `plan` or a peer planner.
    Generate(GenerateArgs),
    /// Run `plan` as a process on each file or generated problem and print its whole-process
    /// figures (peak / LB, seconds, peak resident memory) against the planning-at-scale targets.
    Scale(ScaleArgs),
}

/// Prints `error: {msg}` to the console's stderr and returns `code`.
fn fail(con: &mut Console<'_>, msg: impl std::fmt::Display, code: u8) -> ExitCode {
    let _ = writeln!(con.stderr, "error: {msg}");
    ExitCode::from(code)
}

/// Runs the command line on `args` (the first element is the program name) with the
/// process's standard streams; see [`run_with`].
pub fn main_with(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let (stdin, stdout, mut stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    let progress = std::io::IsTerminal::is_terminal(&stderr);
    // standard error stays unlocked (each write locks it for itself): the progress bars draw
    // on it from other threads (the executor's cores, the spinner's tick thread), and a
    // lock held here for the whole command deadlocked them against the joins that wait for
    // those threads
    let (mut i, mut o) = (stdin.lock(), stdout.lock());
    run_with(args, &mut Console { stdin: &mut i, stdout: &mut o, stderr: &mut stderr, progress })
}

/// Runs the command line on `args` (the first element is the program name), printing to the
/// console's streams; returns the exit code ([`EXIT_OK`], [`EXIT_FAILED`],
/// [`EXIT_BAD_INPUT`]; `--help` and `--version` are 0).
///
/// ```
/// use dramalloc_sim::cli::{run_with, Console};
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let mut con = Console { stdin: &mut std::io::empty(), stdout: &mut out, stderr: &mut err, progress: false };
/// let code = run_with(["dramalloc", "plan", "x.csv", "-o", "y.csv", "--align", "-4"].map(Into::into), &mut con);
/// assert_eq!(code, std::process::ExitCode::from(2));
/// assert!(String::from_utf8(err).unwrap().contains("sizes are not negative"));
/// ```
pub fn run_with(args: impl IntoIterator<Item = std::ffi::OsString>, con: &mut Console<'_>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let text = if con.progress { e.render().ansi().to_string() } else { e.render().to_string() };
            let to_err = e.use_stderr();
            let sink: &mut dyn std::io::Write = if to_err { con.stderr } else { con.stdout };
            let _ = writeln!(sink, "{}", text.trim_end());
            return ExitCode::from(if to_err { EXIT_BAD_INPUT } else { EXIT_OK });
        }
    };
    if cli.verbose {
        // a second call (tests run run_with many times) keeps the first logger
        let _ = env_logger::Builder::new()
            .filter_level(log::LevelFilter::Off)
            .filter_module("dramalloc", log::LevelFilter::Info)
            .format_timestamp(None)
            .format_target(false)
            .try_init();
    }
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(a) => run::cmd_run(&a, con),
        Command::Import(a) => import::cmd_import(&a, con),
        Command::Plan(a) => plan::cmd_plan(&a, con),
        Command::Verify(a) => verify::cmd_verify(&a, con),
        Command::Faults(a) => faults::cmd_faults(&a, con),
        Command::Replay(a) => replay::cmd_replay(&a, con),
        Command::CheckPlan(a) => check_plan::cmd_check_plan(&a, con),
        Command::Quality(a) => quality::cmd_quality(&a, con),
        Command::Generate(a) => generate::cmd_generate(&a, con),
        Command::Scale(a) => scale::cmd_scale(&a, cli.verbose, con),
    }
}
