//! `dramalloc quality`: peak / lower bound of every strategy on every file or generated problem.
//! Uses: args, console, input (import too), quality, dramalloc-core (strategy); used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use dramalloc_core::Strategy;

use super::args::{self, parse_input_shape, read_problem, strategy_parser, STDIN};
use super::console::{stdout_failed, Console, Progress};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, MAX_TENSORS};
use crate::input::{self, Problem};

/// `quality --help`'s closing lines.
const AFTER: &str = "Exit codes: 0 the table was printed, every plan made; 1 the table was printed and some \
     plan was not found (its `error` cell; standard error names each and why); 2 bad input or a bad flag \
     (also an input a plan failed on, as `plan` says: fixed buffers that overlap, a time past 32 bits).";

/// Options of `dramalloc quality`.
#[derive(Debug, Clone, clap::Args)]
#[command(allow_negative_numbers = true, after_help = format!("{AFTER}\n{}", super::args::SIZES))]
pub struct QualityArgs {
    /// CSV, JSON or model files (default: bundled models, hard DSA set and large instances);
    /// `-`: standard input.
    pub paths: Vec<PathBuf>,
    /// Alignment (a size, at least 1).
    #[arg(long, default_value = "1", value_parser = args::align)]
    pub align: u64,
    /// Comma-separated strategies (default: all).
    #[arg(long, value_delimiter = ',', value_parser = strategy_parser())]
    pub strategies: Vec<Strategy>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Time limit of the `auto` and `exact` strategies per file, seconds.
    #[arg(long, default_value = "1", value_parser = args::seconds)]
    pub time_limit: Duration,
    /// Threads `auto` and `exact` may use per file (default: the host's; see `plan --threads`),
    /// and the most that read each file.
    #[arg(long, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// Instead of files: generated problems (`dramalloc_sim::quality::generate`) of these
    /// sizes, comma-separated, e.g. `1000,10000,100000,1000000`.
    #[arg(long, value_delimiter = ',', conflicts_with = "paths", value_parser = args::count)]
    pub generated: Vec<usize>,
    /// Shape of the generated problems: mixed (the default), short, long-tail or layered; only
    /// with `--generated`.
    #[arg(long, value_parser = super::generate::shape, requires = "generated", conflicts_with = "paths")]
    pub shape: Option<crate::quality::generate::Shape>,
    /// Seed of the generated problems; only with `--generated`.
    #[arg(
        long,
        default_value_t = crate::quality::generate::DEFAULT_SEED,
        value_parser = args::seed,
        requires = "generated",
        conflicts_with = "paths"
    )]
    pub seed: u64,
    /// Shape of a model input with symbolic dimensions, NAME=DIMS; repeatable; every model
    /// file given must have that input.
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
}

/// `dramalloc quality`.
pub(super) fn cmd_quality(a: &QualityArgs, con: &mut Console<'_>) -> ExitCode {
    if let Some(t) = a.threads {
        crate::io_threads::set_io_threads(t);
    }
    let strategies: Vec<Strategy> =
        if a.strategies.is_empty() { Strategy::ALL.to_vec() } else { a.strategies.clone() };
    // a strategy twice would be two columns and two totals of one strategy (a trial's `auto,auto`)
    if let Some((_, s)) = strategies.iter().enumerate().find(|(k, s)| strategies[..*k].contains(s)) {
        return fail(con, format!("--strategies: `{}` is named twice", s.name()), EXIT_BAD_INPUT);
    }
    let mut problems: Vec<(String, String, Problem)> = Vec::new();
    let shape = a.shape.unwrap_or(crate::quality::generate::Shape::Mixed);
    if !a.generated.is_empty() {
        for &n in &a.generated {
            problems.push((
                format!("generated {}", shape.name()),
                format!("n={n}"),
                shape.generate(n, a.seed),
            ));
        }
    } else if a.paths.is_empty() {
        for (set, name, text) in crate::input::bundled::PROBLEMS {
            match input::parse_buffers(text, name, MAX_TENSORS) {
                Ok(b) => problems.push((set.to_string(), name.to_string(), b)),
                Err(e) => return fail(con, e, EXIT_BAD_INPUT),
            }
        }
    } else {
        if a.paths.iter().filter(|p| args::is_dash(p)).count() > 1 {
            return fail(con, "`-` (standard input) can be given once", EXIT_BAD_INPUT);
        }
        for p in &a.paths {
            match read_problem(p, &a.input_shape, con) {
                Ok(b) if args::is_dash(p) => problems.push((String::new(), STDIN.to_owned(), b)),
                Ok(b) => problems.push((
                    p.parent()
                        .and_then(|d| d.file_name())
                        .map_or(String::new(), |d| d.to_string_lossy().into()),
                    p.file_stem().map_or(String::new(), |s| s.to_string_lossy().into()),
                    b,
                )),
                Err(e) => return fail(con, e, EXIT_BAD_INPUT),
            }
        }
        // a row is named by its folder and stem; where two files would share a name (`m.json`
        // and `m.csv`, or one folder name in two places) each of them is named by its path as
        // given (a trial: two rows both `models/onnx_vgg19`)
        let mut uses: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
        for (set, name, _) in &problems {
            *uses.entry((set.as_str(), name.as_str())).or_default() += 1;
        }
        let clash: Vec<bool> =
            problems.iter().map(|(set, name, _)| uses[&(set.as_str(), name.as_str())] > 1).collect();
        for ((row, p), clash) in problems.iter_mut().zip(&a.paths).zip(clash) {
            if clash && !args::is_dash(p) {
                (row.0, row.1) = (String::new(), p.display().to_string());
            }
        }
    }
    // one file at a time, so that the bar moves
    let bar = Progress::bar(con, problems.len() as u64, "planning");
    let mut rows = Vec::with_capacity(problems.len());
    for p in problems.chunks(1) {
        bar.message(&format!("{} {}", p[0].0, p[0].1));
        rows.extend(crate::quality::evaluate(p, a.align, &strategies, a.time_limit, a.threads));
        bar.step();
    }
    drop(bar);
    let totals = crate::quality::totals(&rows, &strategies);
    let text = if a.json {
        let v = serde_json::json!({ "align": a.align, "rows": rows, "totals": totals });
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
    } else {
        crate::quality::render(&rows, &totals)
    };
    if let Err(e) = con.write_out(|o| o.write_all(text.as_bytes())) {
        return stdout_failed(con, &e);
    }
    let plans = rows.iter().map(|r| r.results.len()).sum::<usize>();
    let failed = rows.iter().flat_map(|r| &r.results).filter(|r| r.error.is_some()).count();
    if failed == 0 {
        return ExitCode::from(EXIT_OK);
    }
    for r in &rows {
        for (s, e) in r.results.iter().filter_map(|x| Some((&x.strategy, x.error.as_ref()?))) {
            let file = if r.set.is_empty() { r.name.clone() } else { format!("{}/{}", r.set, r.name) };
            let _ = writeln!(con.stderr, "error: {file}, {s}: {e}");
        }
    }
    let _ = writeln!(con.stderr, "error: {failed} of {plans} plans failed (the `error` cells)");
    // as `plan`: 2 where the input is at fault, 1 where a plan was not found
    let bad = rows.iter().flat_map(|r| &r.results).any(|r| r.bad_input);
    ExitCode::from(if bad { EXIT_BAD_INPUT } else { EXIT_FAILED })
}
