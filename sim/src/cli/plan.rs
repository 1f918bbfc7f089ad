//! `dramalloc plan`: plans a minimalloc CSV or a program JSON and writes the solution CSV.
//! Uses: args, console, atomic_write, input, quality, report, dramalloc-core (error, strategy); used by: mod.rs.
//!
//! The summary line ends with the wall time of each stage (read, plan, write: the whole
//! process minus start-up), so `plan` is its own I/O benchmark. With `DRAMALLOC_TIMING=1` it
//! also prints each stage's CPU time (Linux: the thread's `schedstat`), which a loaded machine
//! does not inflate. With `-o -` the solution goes to standard output and the summary to
//! standard error.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use dramalloc_core::{PlanError, Strategy};

use super::args::{self, count_of, is_dash, read_problem, strategy_parser, SIZES};
use super::console::{Console, Progress};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use crate::quality::problem::{solve_within, SolveError};
use crate::report::solution_csv::write_solution;

/// `plan --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 planned and written; 1 the problem does not fit --capacity, or the solution or
picture cannot be written; 2 bad input or a bad flag.";

/// Options of `dramalloc plan`.
#[derive(Debug, Clone, clap::Args)]
#[command(allow_negative_numbers = true, after_help = format!("{AFTER}\n{SIZES}"))]
pub struct PlanArgs {
    /// Input: `.json` (a program), anything else a minimalloc CSV (id,lower,upper,size, upper
    /// exclusive; optional offset = fixed, alignment = the buffer's own); `-`: standard input
    /// (JSON when it starts with `{`).
    pub input: PathBuf,
    /// Placement strategy.
    #[arg(long, default_value = "auto", value_parser = strategy_parser())]
    pub strategy: Strategy,
    /// Alignment of sizes and offsets (a size, at least 1).
    #[arg(long, default_value = "4096", value_parser = args::align)]
    pub align: u64,
    /// Capacity (a size; default: unbounded).
    #[arg(long, value_parser = args::size)]
    pub capacity: Option<u64>,
    /// Solution CSV to write (id,lower,upper,size,offset,align); `-`: standard output.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Also draw the plan as an SVG picture (x = time, y = offset).
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Time limit of the `exact` strategy's search, seconds (anytime: the best plan
    /// found so far is written when it runs out).
    #[arg(long, default_value = "1", value_parser = args::seconds)]
    pub time_limit: Duration,
}

/// `dramalloc plan`.
pub(super) fn cmd_plan(a: &PlanArgs, con: &mut Console<'_>) -> ExitCode {
    let t0 = Instant::now();
    let c0 = cpu_time();
    let spin = Progress::spinner(con, &format!("reading {}", a.input.display()));
    let problem = match read_problem(&a.input, con) {
        Ok(p) => p,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let read = t0.elapsed();
    let c1 = cpu_time();
    spin.message(&format!("planning {} with {}", count_of(problem.len(), "buffer"), a.strategy.name()));
    let sol = match solve_within(&problem, a.align, a.capacity, a.strategy, a.time_limit) {
        Ok(s) => s,
        Err(e) => {
            let fits = !matches!(e, SolveError::Plan { error: PlanError::DoesNotFit { .. }, .. });
            let input = args::display(&a.input);
            return fail(con, format!("{input}: {e}"), if fits { EXIT_BAD_INPUT } else { EXIT_FAILED });
        }
    };
    spin.message("writing the solution");
    let t1 = Instant::now();
    let c2 = cpu_time();
    let written = if is_dash(&a.output) {
        let mut out = BufWriter::with_capacity(1 << 20, &mut *con.stdout);
        write_solution(&problem, &sol.offsets, a.align, &mut out)
    } else {
        crate::atomic_write::write_atomic_with(&a.output, |w| {
            write_solution(&problem, &sol.offsets, a.align, w)
        })
    };
    if let Err(e) = written {
        return fail(con, format!("{}: {e}", a.output.display()), EXIT_FAILED);
    }
    let write = t1.elapsed();
    let c3 = cpu_time();
    if let Some(svg) = &a.svg {
        let picture =
            crate::report::problem_svg(&problem, &sol.offsets, &sol.metrics, &args::display(&a.input));
        if let Err(e) = crate::atomic_write::write_atomic(svg, picture.as_bytes()) {
            return fail(con, format!("{}: {e}", svg.display()), EXIT_FAILED);
        }
    }
    drop(spin);
    let m = sol.metrics;
    let chosen = match Strategy::ALL[m.strategy as usize] {
        s if s == a.strategy => String::new(),
        s => format!(" (plan from its {} member)", s.name()),
    };
    let line = format!(
        "{}: {}, strategy {}{chosen}, HWM {} bytes, lower bound {} bytes, ratio {:.4}; read {}, plan {}, write {}",
        args::display(&a.input),
        count_of(problem.len(), "buffer"),
        a.strategy.name(),
        m.hwm,
        m.lower_bound,
        crate::quality::peak_ratio(m.hwm, m.lower_bound),
        ms(read),
        ms(sol.time),
        ms(write),
    );
    let sink: &mut dyn Write = if is_dash(&a.output) { con.stderr } else { con.stdout };
    let _ = writeln!(sink, "{line}");
    if std::env::var_os("DRAMALLOC_TIMING").is_some_and(|v| v == "1") {
        if let (Some(c0), Some(c1), Some(c2), Some(c3)) = (c0, c1, c2, c3) {
            let _ = writeln!(
                con.stderr,
                "cpu: read {}, plan {}, write {}",
                ms(c1 - c0),
                ms(c2 - c1),
                ms(c3 - c2)
            );
        }
    }
    ExitCode::from(EXIT_OK)
}

/// CPU time of this thread so far (Linux `/proc/thread-self/schedstat`), `None` elsewhere.
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(text.split_whitespace().next()?.parse().ok()?))
}

/// A duration in milliseconds, two decimals.
fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}
