//! `dramalloc scale`: runs `plan` as a process per input and run, and prints its whole-process
//! figures against the planning-at-scale targets (issue 12).
//! Uses: args, console, generate (its CSV writer), input, quality (generate, scale), verify;
//! used by: mod.rs.
//!
//! Each input (a file, or a generated problem written to a scratch directory first) is planned
//! `--runs` times by `PLANNER plan INPUT --strategy S --align A --time-limit T [--threads N]
//! --json -o SOLUTION` (PLANNER: this executable, or `--planner`, e.g. another build to
//! compare with), timed from spawn to exit. Every solution is then read back and checked by
//! the independent verifier ([`crate::verify::verify`]), whose peak must be the HWM the
//! process printed. The scratch directory (`dramalloc-scale-PID` under the system's temp
//! directory, [`ScratchDir`]) is removed at the end, whatever happened, also on SIGINT, SIGTERM
//! or SIGHUP, which also end a `plan` child then running ([`crate::child_process`]).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use dramalloc_core::Strategy;

use super::args::{self, read_problem, read_solution, strategy_parser};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use crate::quality::generate::{Shape, DEFAULT_SEED};
use crate::quality::scale::{table, Case, ProcessRun, Targets};
use crate::quality::settle::peak_of;
use crate::scratch_dir::ScratchDir;

/// `scale --help`'s closing lines.
const AFTER: &str = "\
Each run is timed from spawn to exit on this process's clock; the plan's peak resident set is
what the planner process reports (Linux VmHWM, `-` elsewhere). Targets met or missed are
reported, not an error.
Exit codes: 0 every run planned and verified (whatever the targets); 1 a run failed, or its
solution did not verify or disagreed with the HWM it printed; 2 bad input or a bad flag (also an
input the planner refused as bad, with its message).";

/// Options of `dramalloc scale`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = format!("{AFTER}\n{}", super::args::SIZES))]
pub struct ScaleArgs {
    /// Minimalloc CSV, program JSON or model files to plan (or `--generated`).
    pub paths: Vec<PathBuf>,
    /// Instead of files: generated problems of these sizes, comma-separated, e.g.
    /// `100000,1000000`, of every shape of `--shapes` and seed of `--seeds`.
    #[arg(long, value_delimiter = ',', conflicts_with = "paths", value_parser = args::count)]
    pub generated: Vec<usize>,
    /// Shapes of the generated problems, comma-separated (default: mixed, short, long-tail,
    /// layered).
    #[arg(long, value_delimiter = ',', value_parser = super::generate::shape, requires = "generated")]
    pub shapes: Vec<Shape>,
    /// Seeds of the generated problems, comma-separated (default: `generate`'s default seed).
    #[arg(long, value_delimiter = ',', value_parser = args::seed, requires = "generated")]
    pub seeds: Vec<u64>,
    /// The strategy `plan` is given.
    #[arg(long, default_value = "auto", value_parser = strategy_parser())]
    pub strategy: Strategy,
    /// Alignment `plan` is given (a size, at least 1).
    #[arg(long, default_value = "1", value_parser = args::align)]
    pub align: u64,
    /// `plan`'s `--time-limit`, seconds.
    #[arg(long, default_value = "1", value_parser = args::seconds)]
    pub time_limit: Duration,
    /// `plan`'s `--threads` (default: not given, the planner's default).
    #[arg(long, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// Runs of each input (the table shows the worst of them).
    #[arg(long, default_value = "1", value_parser = runs)]
    pub runs: usize,
    /// The planner executable to run (default: this one), e.g. another build to compare.
    #[arg(long)]
    pub planner: Option<PathBuf>,
    /// Target: the largest peak / lower bound that meets it.
    #[arg(long, default_value = "1.01", value_parser = ratio)]
    pub max_ratio: f64,
    /// Target: the whole process ends before this many seconds.
    #[arg(long, default_value = "1", value_parser = target_seconds)]
    pub max_seconds: Duration,
    /// Target: the planner's peak resident set stays under this size.
    #[arg(long, default_value = "256M", value_parser = resident)]
    pub max_resident: u64,
    /// A run still going after this many seconds is killed and counted as failed (a hung
    /// planner; default: ten times `--time-limit` plus 60 s).
    #[arg(long, value_parser = target_seconds)]
    pub run_timeout: Option<Duration>,
    /// Print JSON (every run of every input) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// A run count, 1..=1000.
fn runs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ 1..=1000) => Ok(n),
        _ => Err("expected a run count from 1 to 1000".to_owned()),
    }
}

/// A time target: a positive, finite number of seconds.
fn target_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1e9 => Ok(Duration::from_secs_f64(x)),
        _ => {
            Err("expected a time target in seconds, more than 0 and less than 10^9, e.g. 1 or 0.5".to_owned())
        }
    }
}

/// A memory target: a size of at least 1 byte.
fn resident(s: &str) -> Result<u64, String> {
    match args::size(s)? {
        0 => Err("a memory target is at least 1 byte (no process stays under 0)".to_owned()),
        b => Ok(b),
    }
}

/// A ratio target: a finite number of at least 1.
fn ratio(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 1.0 => Ok(x),
        _ => Err("expected a peak / lower bound ratio of at least 1, e.g. 1.01".to_owned()),
    }
}

/// Why a case could not be measured, and the exit code it gives.
struct Failure {
    message: String,
    code: u8,
}

/// `dramalloc scale`; `verbose` (`-v`): each `plan` child runs with `-v` too, and what it
/// prints on standard error is passed on, each line after the input's name.
pub(super) fn cmd_scale(a: &ScaleArgs, verbose: bool, con: &mut Console<'_>) -> ExitCode {
    if a.paths.is_empty() && a.generated.is_empty() {
        return fail(con, "give the files to plan, or --generated N[,N...]", EXIT_BAD_INPUT);
    }
    if !a.paths.is_empty() && (!a.shapes.is_empty() || !a.seeds.is_empty()) {
        return fail(con, "--shapes and --seeds are of --generated problems, not of files", EXIT_BAD_INPUT);
    }
    // every input is read by each run and then by the verifier: a pipe would be empty after
    // the first (a trial's `scale <(cat f.csv)` said "the file is empty")
    if let Some(p) = a.paths.iter().find(|p| args::is_dash(p) || real_file(p).is_err_and(|m| m.is_some())) {
        let why = "`scale` reads each input several times: give a regular file, not standard input, a pipe or a directory";
        return fail(con, format!("{}: {why}", args::display(p)), EXIT_BAD_INPUT);
    }
    let planner = match &a.planner {
        Some(p) => p.clone(),
        None => match std::env::current_exe() {
            Ok(p) => p,
            Err(e) => {
                return fail(
                    con,
                    format!("cannot find this executable to run `plan` ({e}): give --planner"),
                    EXIT_FAILED,
                )
            }
        },
    };
    let scratch = match ScratchDir::new("scale") {
        Ok(d) => d,
        Err(e) => {
            let tmp = std::env::temp_dir();
            return fail(
                con,
                format!("cannot make a scratch directory under {}: {e}", tmp.display()),
                EXIT_FAILED,
            );
        }
    };
    let targets = Targets { ratio: a.max_ratio, time: a.max_seconds, resident: a.max_resident };
    let (mut cases, mut failures) = (Vec::new(), Vec::new());
    for (name, input) in inputs(a) {
        let measured = match input {
            Input::File(path) => {
                // (a descriptor's path, `/dev/stdin` redirected from a file, is given to the
                // child as that file: the child's own would be its empty standard input)
                let described = path.starts_with("/dev") || path.starts_with("/proc");
                let path = if described { real_file(&path).unwrap_or(path) } else { path };
                measure(a, &planner, &path, scratch.path(), &name, verbose, con)
            }
            Input::Generated(shape, n, seed) => {
                let path = scratch.path().join(format!("{}-{n}-seed{seed}.csv", shape.name()));
                let problem = shape.generate(n, seed);
                let written = crate::atomic_write::write_atomic_with(&path, |w| {
                    super::generate::write_csv(&problem, w)
                });
                let measured = match written {
                    Ok(()) => measure(a, &planner, &path, scratch.path(), &name, verbose, con),
                    Err(e) => Err(Failure { message: format!("{}: {e}", path.display()), code: EXIT_FAILED }),
                };
                // (one generated input at a time in the scratch directory: 10^6 rows are 27-28 MB)
                let _ = std::fs::remove_file(&path);
                measured
            }
        };
        match measured {
            Ok(case) => cases.push(case),
            Err(f) => failures.push((f, name)),
        }
        // a signal is ending the process: its handler killed the child and exits; nothing
        // more is run or printed (a trial saw an empty table and "cannot run it")
        if crate::child_process::ending() {
            return ExitCode::from(EXIT_FAILED);
        }
    }
    // the inputs measured are reported whatever became of the others, which are named after
    let text = if a.json { json(&cases, &failures, &targets) } else { table(&cases, &targets, a.runs) };
    if let Err(e) = con.write_out(|o| o.write_all(text.as_bytes())) {
        return stdout_failed(con, &e);
    }
    let mut code = EXIT_OK;
    for (f, _) in failures {
        let _ = writeln!(con.stderr, "error: {}", f.message);
        code = code.max(f.code);
    }
    ExitCode::from(code)
}

/// The regular file `path` names, resolved (`/dev/stdin` redirected from a file is that file);
/// `Err(None)` where it cannot be resolved (the child says why), `Err(Some(()))` where it is
/// not a regular file.
fn real_file(path: &Path) -> Result<PathBuf, Option<()>> {
    let real = std::fs::canonicalize(path).map_err(|_| None)?;
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() => Ok(real),
        Ok(_) => Err(Some(())),
        Err(_) => Err(None),
    }
}

/// One input of the command.
enum Input {
    /// A file named on the command line.
    File(PathBuf),
    /// A generated problem: shape, buffers, seed.
    Generated(Shape, usize, u64),
}

/// The inputs of `a` with the names the table gives them, in order: the files, or every size
/// of `--generated` × shape × seed.
fn inputs(a: &ScaleArgs) -> Vec<(String, Input)> {
    if !a.paths.is_empty() {
        return a.paths.iter().map(|p| (args::display(p), Input::File(p.clone()))).collect();
    }
    let shapes = if a.shapes.is_empty() { Shape::ALL.to_vec() } else { a.shapes.clone() };
    let seeds = if a.seeds.is_empty() { vec![DEFAULT_SEED] } else { a.seeds.clone() };
    let mut out = Vec::new();
    for &n in &a.generated {
        for &shape in &shapes {
            for &seed in &seeds {
                let seed_name = if seed == DEFAULT_SEED { String::new() } else { format!(" seed {seed}") };
                out.push((format!("{} n={n}{seed_name}", shape.name()), Input::Generated(shape, n, seed)));
            }
        }
    }
    out
}

/// The runs of `input` by `planner`, each solution verified (`verbose`: see [`cmd_scale`]).
fn measure(
    a: &ScaleArgs,
    planner: &Path,
    input: &Path,
    scratch: &Path,
    name: &str,
    verbose: bool,
    con: &mut Console<'_>,
) -> Result<Case, Failure> {
    let solution = scratch.join("solution.csv");
    let mut runs = Vec::with_capacity(a.runs);
    let mut problem = None;
    for k in 0..a.runs {
        let run = run_plan(a, planner, input, &solution, (name, k), verbose, con)?;
        // the problem as the verifier reads it, once per input
        let problem = match &mut problem {
            Some(p) => p,
            None => problem.insert(
                read_problem(input, &[], con)
                    .map_err(|e| Failure { message: e.to_string(), code: EXIT_BAD_INPUT })?,
            ),
        };
        // (the read error names the file)
        let sol = read_solution(&solution, con)
            .map_err(|e| Failure { message: format!("{name}: its solution: {e}"), code: EXIT_FAILED })?;
        crate::verify::verify(problem, &sol, a.align, None).map_err(|e| Failure {
            message: format!("{name}: the plan does not verify: {e}"),
            code: EXIT_FAILED,
        })?;
        // the peak as `plan` counts its HWM: offset plus size rounded up to `--align`
        let offsets: Vec<u64> = (0..sol.len()).map(|i| sol.fixed(i).unwrap_or(0)).collect();
        if let Some(wrong) = untrue(&run, problem.len() as u64, peak_of(&sol, &offsets, a.align)) {
            return Err(Failure { message: format!("{name}: {wrong}"), code: EXIT_FAILED });
        }
        runs.push(run);
    }
    Ok(Case { input: name.to_owned(), runs })
}

/// What in `run`'s printed figures is not true of its verified solution (`buffers` rows,
/// footprint peak `peak`): the first of its HWM, its buffer count, a resident set of 0 bytes, a
/// bound above the peak, a negative stage time; `None` where all hold. The bound is otherwise
/// the planner's own figure (`plan`'s counts fixed rows' ends too): not recomputed here.
fn untrue(run: &ProcessRun, buffers: u64, peak: u64) -> Option<String> {
    if run.hwm != peak {
        return Some(format!(
            "the planner printed HWM {} bytes, its solution's peak (offset + size rounded up to --align) is {peak}",
            run.hwm
        ));
    }
    if run.buffers != buffers {
        return Some(format!("the planner printed {} buffers, the input has {buffers}", run.buffers));
    }
    if run.peak_resident == Some(0) {
        return Some("the planner printed a peak resident set of 0 bytes".to_owned());
    }
    if run.lower_bound > run.hwm {
        return Some(format!(
            "the planner printed a lower bound of {} bytes, above its HWM {}",
            run.lower_bound, run.hwm
        ));
    }
    let stages = [("read", run.read_ms), ("plan", run.plan_ms), ("write", run.write_ms)];
    stages
        .iter()
        .find(|(_, ms)| ms.is_nan() || *ms < 0.0)
        .map(|(stage, ms)| format!("the planner printed a {stage} time of {ms} ms"))
}

/// Run `run` (from 0) of the `plan` process on `input` (named `name`), writing `solution`,
/// timed from spawn to exit; `verbose`: run with `-v`, its standard error passed on to
/// `con`'s, each line after `name`. A run that fails is named with its run where there are
/// several, and with what the planner said from its first `error` line on (where `verbose`
/// did not pass it on already).
fn run_plan(
    a: &ScaleArgs,
    planner: &Path,
    input: &Path,
    solution: &Path,
    (name, run): (&str, usize),
    verbose: bool,
    con: &mut Console<'_>,
) -> Result<ProcessRun, Failure> {
    let mut cmd = Command::new(planner);
    if verbose {
        cmd.arg("-v");
    }
    cmd.arg("plan").arg(input).args(["--strategy", a.strategy.name()]);
    cmd.args(["--align", &a.align.to_string(), "--time-limit", &a.time_limit.as_secs_f64().to_string()]);
    if let Some(t) = a.threads {
        cmd.args(["--threads", &t.to_string()]);
    }
    cmd.arg("--json").arg("-o").arg(solution);
    let deadline =
        a.run_timeout.unwrap_or(a.time_limit.saturating_mul(10).saturating_add(Duration::from_secs(60)));
    let ran = crate::child_process::run_timed(&mut cmd, deadline);
    // (a hung run is a failed run; a planner that cannot be started, a bad flag)
    if let Err(e) = &ran {
        if e.kind() == std::io::ErrorKind::TimedOut {
            return Err(Failure { message: format!("{name}: `plan`: {e}"), code: EXIT_FAILED });
        }
    }
    // (a bad --planner is a bad flag; a name without a `/` is looked up in PATH)
    let (out, whole) = ran.map_err(|e| Failure {
        message: format!(
            "--planner {}: cannot run it: {e}{}",
            planner.display(),
            if planner.to_str().is_some_and(|p| !p.contains('/') && p != "." && p != "..") {
                " (a name without a `/` is looked up in PATH: give ./NAME)"
            } else {
                ""
            }
        ),
        code: EXIT_BAD_INPUT,
    })?;
    let said = String::from_utf8_lossy(&out.stderr);
    if verbose {
        for line in said.lines() {
            let _ = writeln!(con.stderr, "{name}: {line}");
        }
    }
    if !out.status.success() {
        // the planner's bad input is this command's bad input; anything else is a failed run
        let code =
            if out.status.code() == Some(i32::from(EXIT_BAD_INPUT)) { EXIT_BAD_INPUT } else { EXIT_FAILED };
        let which = if a.runs > 1 { format!(" (run {} of {})", run + 1, a.runs) } else { String::new() };
        let said = if verbose {
            // passed on above, line by line (and a planner that does not take `-v` fails so)
            " (its standard error is above: it ran with -v, as `scale` did)".to_owned()
        } else {
            // from its first `error` line on (the error and what follows it, such as a hint)
            let from = said.lines().position(|l| l.starts_with("error")).unwrap_or(0);
            let lines: Vec<&str> =
                said.lines().skip(from).map(str::trim_end).filter(|l| !l.is_empty()).collect();
            if lines.is_empty() {
                String::new()
            } else {
                format!(": {}", lines.join("\n  "))
            }
        };
        let message = format!("{name}: `plan`{which} exited with {}{said}", out.status);
        return Err(Failure { message, code });
    }
    ProcessRun::from_plan_json(&out.stdout, whole)
        .map_err(|e| Failure { message: format!("{name}: {e}"), code: EXIT_FAILED })
}

/// `--json`: the targets and every run of every case, with what each case missed, and each
/// input that failed with its error (also on standard error).
fn json(cases: &[Case], failures: &[(Failure, String)], t: &Targets) -> String {
    let cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            let m = c.missed(t);
            let runs: Vec<serde_json::Value> = c
                .runs
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "buffers": r.buffers,
                        "hwm": r.hwm,
                        "lower_bound": r.lower_bound,
                        "ratio": r.ratio(),
                        "whole_s": r.whole.as_secs_f64(),
                        "read_ms": r.read_ms,
                        "plan_ms": r.plan_ms,
                        "write_ms": r.write_ms,
                        "peak_resident_bytes": r.peak_resident,
                    })
                })
                .collect();
            serde_json::json!({
                "input": c.input,
                "runs": runs,
                "missed": { "ratio": m.ratio, "time": m.time, "resident": m.resident },
                "met": m.none(),
            })
        })
        .collect();
    let failed: Vec<serde_json::Value> =
        failures.iter().map(|(f, input)| serde_json::json!({ "input": input, "error": f.message })).collect();
    let v = serde_json::json!({
        "targets": { "ratio": t.ratio, "whole_s": t.time.as_secs_f64(), "resident_bytes": t.resident },
        "cases": cases,
        "failed": failed,
    });
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}
