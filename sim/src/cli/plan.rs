//! `dramalloc plan`: plans a minimalloc CSV, a program JSON or a model file and writes the
//! solution CSV or the binary plan file.
//! Uses: args, console, atomic_write, input, quality, report (plan_bin, solution_csv), dramalloc-core (error, strategy); used by: mod.rs.
//!
//! The summary line ends with the wall time of each stage (read, plan, write: the whole
//! process minus start-up), so `plan` is its own I/O benchmark; the portfolio's members
//! follow, one line each. With `DRAMALLOC_TIMING=1` it also prints each stage's CPU time
//! (Linux: the thread's `schedstat`), which a loaded machine does not inflate. With `-o -`
//! the solution (CSV or plan.bin) goes to standard output and the summary (or `--json`) to
//! standard error.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use dramalloc_core::Strategy;

use super::args::{
    self, count_of, is_stdout, overwrites_input, parse_input_shape, read_problem, same_file, strategy_parser,
    SIZES,
};
use super::console::{stdout_failed, Console, Progress};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use crate::quality::aligned_fit::ORDERS;
use crate::quality::helpers::helper_lines;
use crate::quality::problem::{member_lines, solve_limited, Limits, SolveError, Solved};
use crate::quality::time_split::split_lines;
use crate::report::solution_csv::write_solution;

/// `plan --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 planned and written; 1 no plan found within --capacity (auto goes on as exact
until --time-limit; not a proof that none exists), or the solution or picture cannot be written; 2 bad input (a plan the binary format cannot hold too) or a bad flag.";

/// What `dramalloc plan` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanFormat {
    /// The minimalloc solution CSV `id,lower,upper,size,offset,align`.
    Csv,
    /// The binary plan file (`dramalloc_core::plan_file`), one core.
    Bin,
}

impl PlanFormat {
    /// The format an output name asks for: `.bin` is [`PlanFormat::Bin`], anything else
    /// (`-` too) CSV.
    pub fn of(path: &Path) -> PlanFormat {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("bin")) {
            PlanFormat::Bin
        } else {
            PlanFormat::Csv
        }
    }
}

/// Options of `dramalloc plan`.
#[derive(Debug, Clone, clap::Args)]
#[command(allow_negative_numbers = true, after_help = format!("{AFTER}\n{SIZES}"))]
pub struct PlanArgs {
    /// Input: `.json` (a program), a model file (`.onnx`, `.tflite`, imported first), anything
    /// else a minimalloc CSV (id,lower,upper,size, upper exclusive; optional offset = fixed,
    /// alignment = the buffer's own); `-`: standard input (JSON when it starts with `{`).
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
    /// File to write: the solution CSV (id,lower,upper,size,offset,align) or, for a `.bin`
    /// name or `--format bin`, the binary plan file (`plan.bin` format, one core); `-`:
    /// standard output.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output format (default: by the extension of `--output`: `.bin` is bin, else csv).
    #[arg(long, value_enum)]
    pub format: Option<PlanFormat>,
    /// Print the summary as JSON (on standard output; standard error with `-o -`).
    #[arg(long)]
    pub json: bool,
    /// Also draw the plan as an SVG picture (x = time, y = offset).
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Time limit of the whole process with the `auto` and `exact` strategies, seconds:
    /// reading, planning and writing (anytime: planning stops early enough to write the best
    /// plan found so far).
    #[arg(long, default_value = "1", value_parser = args::seconds)]
    pub time_limit: Duration,
    /// Threads `auto` and `exact` may use (default and most: the host's): the portfolio on
    /// one, and single strategies planned alone beside it on the others, where their memory
    /// fits (`dramalloc_sim::quality::helpers`); 1: the portfolio alone. Also the most that
    /// read the CSV and write the solution (`dramalloc_sim::io_threads`).
    #[arg(long, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// Shape of a model input with symbolic dimensions, NAME=DIMS; repeatable.
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shape: Vec<(String, Vec<u64>)>,
}

/// `dramalloc plan`.
pub(super) fn cmd_plan(a: &PlanArgs, con: &mut Console<'_>) -> ExitCode {
    let t0 = Instant::now();
    let c0 = cpu_time();
    if let Some(t) = a.threads {
        crate::io_threads::set_io_threads(t);
    }
    let format = a.format.unwrap_or_else(|| PlanFormat::of(&a.output));
    if let Some(svg) = &a.svg {
        if is_stdout(svg) {
            let svg = svg.display();
            let why = "the picture goes to a file (standard output carries the summary or the solution)";
            return fail(con, format!("--svg {svg}: {why}"), EXIT_BAD_INPUT);
        }
        if !is_stdout(&a.output) && same_file(svg, &a.output) {
            return fail(con, format!("--svg {}: the same file as -o", svg.display()), EXIT_BAD_INPUT);
        }
    }
    // an output over the input would destroy it (the model or CSV the plan came from)
    for (flag, out) in [("-o", Some(&a.output)), ("--svg", a.svg.as_ref())] {
        if let Some(e) = out.and_then(|out| overwrites_input(flag, out, &a.input)) {
            return fail(con, e, EXIT_BAD_INPUT);
        }
    }
    // an output that cannot be written fails now, not after the planning
    for (flag, out) in [("-o", Some(&a.output)), ("--svg", a.svg.as_ref())] {
        if let Some(Err(e)) = out.map(|out| args::probe_output(flag, out)) {
            return fail(con, e, EXIT_FAILED);
        }
    }
    // the plan file holds a power-of-two alignment only: refused before any planning
    if format == PlanFormat::Bin && !a.align.max(1).is_power_of_two() {
        let e = crate::report::plan_bin::BlobError::BadAlign { align: a.align };
        return fail(con, format!("{}: {e}", a.output.display()), EXIT_BAD_INPUT);
    }
    let spin = Progress::spinner(con, &format!("reading {}", a.input.display()));
    let problem = match read_problem(&a.input, &a.input_shape, con) {
        Ok(p) => p,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let read = t0.elapsed();
    let c1 = cpu_time();
    spin.message(&format!("planning {} with {}", count_of(problem.len(), "buffer"), a.strategy.name()));
    // the limit is the whole process's: what reading took is gone, writing is kept free
    let mut limits = Limits::whole_process(t0, a.time_limit, problem.len());
    if a.svg.is_some() {
        limits = limits.with_picture(problem.len());
    }
    if format == PlanFormat::Bin {
        limits = limits.with_binary_plan(problem.len());
    }
    if let Some(t) = a.threads {
        limits = limits.with_threads(t);
    }
    let sol = match solve_limited(&problem, a.align, a.capacity, a.strategy, limits, u64::MAX) {
        Ok(s) => s,
        Err(e) => {
            let input = args::display(&a.input);
            // a portfolio that found no plan within the capacity and was stopped by the clock
            // (a member or its search stopped or skipped for time): a longer limit may find
            // one. Where every plan ended on its own, whatever the time, it would not.
            let stopped = matches!(e, SolveError::AboveCapacity { stopped: true, .. });
            let hint = if stopped && matches!(a.strategy, Strategy::Auto | Strategy::Exact) {
                format!(
                    " ({} stops at --time-limit {} s: a longer limit may find a plan)",
                    a.strategy.name(),
                    a.time_limit.as_secs_f64()
                )
            } else {
                String::new()
            };
            return fail(
                con,
                format!("{input}: {e}{hint}"),
                if e.is_bad_input() { EXIT_BAD_INPUT } else { EXIT_FAILED },
            );
        }
    };
    spin.message("writing the solution");
    let t1 = Instant::now();
    let c2 = cpu_time();
    let bin = match format {
        PlanFormat::Csv => None,
        PlanFormat::Bin => {
            match crate::report::plan_bin::encode_solution(&problem, &sol.offsets, a.align, a.capacity) {
                Ok(b) => Some(b),
                Err(e) => return fail(con, format!("{}: {e}", a.output.display()), EXIT_BAD_INPUT),
            }
        }
    };
    // the picture and the solution are staged (written whole under temp names), then put in
    // place together: a failure of either leaves neither, and a signal waits for both renames
    let picture = match &a.svg {
        Some(svg) => {
            let drawing =
                crate::report::problem_svg(&problem, &sol.offsets, &sol.metrics, &args::display(&a.input));
            match crate::atomic_write::stage(svg, |w| w.write_all(drawing.as_bytes())) {
                Ok(staged) => Some((svg.as_path(), staged)),
                Err(e) => return fail(con, format!("{}: {e}", svg.display()), EXIT_FAILED),
            }
        }
        None => None,
    };
    let stage = |fill: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        crate::atomic_write::stage(&a.output, fill).map(|s| Some((a.output.as_path(), s)))
    };
    let written = match (&bin, is_stdout(&a.output)) {
        (Some(bytes), true) => con.write_out(|o| o.write_all(bytes)).map(|()| None),
        // a MiB a write call, as the CSV: one call of a 10^6-row file's 54 MB stalled in the
        // kernel's copy 3 times in 12 runs here (333-569 ms), 1 MiB calls in none of 12
        (Some(bytes), false) => stage(&|w| bytes.chunks(1 << 20).try_for_each(|c| w.write_all(c))),
        (None, true) => con
            .write_out(|o| {
                let mut out = BufWriter::with_capacity(1 << 20, o);
                write_solution(&problem, &sol.offsets, a.align, &mut out).and_then(|()| out.flush())
            })
            .map(|()| None),
        (None, false) => stage(&|w| write_solution(&problem, &sol.offsets, a.align, w)),
    };
    let solution = match written {
        Err(e) if is_stdout(&a.output) => return stdout_failed(con, &e),
        Err(e) => return fail(con, format!("{}: {e}", a.output.display()), EXIT_FAILED),
        Ok(solution) => solution,
    };
    let (paths, staged): (Vec<_>, Vec<_>) = solution.into_iter().chain(picture).unzip();
    if let Err((k, e)) = crate::atomic_write::commit_all(staged) {
        return fail(con, format!("{}: {e}", paths[k].display()), EXIT_FAILED);
    }
    let write = t1.elapsed();
    let c3 = cpu_time();
    drop(spin);
    let stages = Stages { read, plan: sol.time, write };
    let mut summary = Vec::new();
    report(&mut summary, a, format, problem.len(), &sol, stages);
    if is_stdout(&a.output) {
        let _ = con.stderr.write_all(&summary);
    } else if let Err(e) = con.write_out(|o| o.write_all(&summary)) {
        // the plan file is whole; the summary, the command's report, is lost: say so
        return stdout_failed(con, &e);
    }
    // the limit is kept by the clock of the portfolio's members; what it cannot stop (reading,
    // the member that makes the first plan, a padded plan's settle's list of the buffers live
    // together, writing, drawing) can take the command past it: say so
    let took = t0.elapsed();
    if matches!(a.strategy, Strategy::Auto | Strategy::Exact) && took > a.time_limit {
        let mut what = vec!["reading", "the member that makes the first plan"];
        if sol.settled.is_some() {
            what.push(
                "the list of the buffers live together that settles the padded plan (per-buffer alignments)",
            );
        }
        let last = if a.svg.is_some() { ", writing and drawing the picture" } else { " and writing" };
        let _ = writeln!(
            con.stderr,
            "note: the command took {:.2} s, over its --time-limit of {} s ({}{last} are not stopped by the clock)",
            took.as_secs_f64(),
            a.time_limit.as_secs_f64(),
            what.join(", ")
        );
    }
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

/// Wall times of `plan`'s stages.
#[derive(Debug, Clone, Copy)]
struct Stages {
    read: Duration,
    plan: Duration,
    write: Duration,
}

/// The summary of a plan to `o`: the summary line and one line per portfolio member, or the
/// same as one JSON object (`--json`).
fn report(o: &mut dyn Write, a: &PlanArgs, format: PlanFormat, buffers: usize, sol: &Solved, t: Stages) {
    let m = sol.metrics;
    let member = Strategy::ALL[m.strategy as usize];
    // the portfolio's row whose plan was kept names it more exactly than its strategy
    // (the sweep around the long-lived is a `sweep` plan)
    let member_name = sol.members.best.filter(|_| member != a.strategy).map_or(member.name(), |b| b.name());
    // the steps that lowered the kept plan's peak after it (the branch and bound, the repair)
    let improvers: Vec<&str> = sol.members.improved_by.iter().flatten().map(|m| m.name()).collect();
    let member_name = match sol.members.best {
        Some(b) if !improvers.is_empty() => b.name(),
        _ => member_name,
    };
    let ratio = crate::quality::peak_ratio(m.hwm, m.lower_bound);
    let helper = sol.helped.iter().find(|h| h.kept).map(|h| h.strategy.name());
    // the order of first fit with each buffer's own alignment, where its plan was kept
    let aligned = sol.aligned.filter(|x| x.kept).map(|x| x.order.name());
    // the plan so far lowered by the branch and bound with each buffer's own alignment
    let searched = sol.searched.as_ref().is_some_and(|x| x.improved);
    // members at the common alignment are judged on the sizes they placed (rounded up to it),
    // so each line says its peak is of those, against their bound, and a note says so too;
    // members padded to each buffer's own alignment are ranked, and said, by their plans'
    // peaks once unpadded (the core's portfolio), against the plan's own bound
    let common = sol.both_ways.filter(|b| b.kept_common());
    let of = common.map(|b| format!("the sizes rounded up to {}", b.common_align));
    let members_lb = if sol.padded && common.is_none() { m.lower_bound } else { sol.members.lower_bound };
    let mut members = member_lines(&sol.members, members_lb, of.as_deref());
    if let Some(b) = common.filter(|_| !members.is_empty()) {
        members.push(format!(
            "(members' peaks are of the buffers at the common alignment {}, x LB of their sizes \
             rounded up to it: {} bytes; the plan's lower bound is of the real sizes)",
            b.common_align, sol.members.lower_bound
        ));
    }
    if let Some(st) = sol.settled.filter(|st| st.after < st.before) {
        members.push(format!(
            "(per-buffer alignments: the plan with each buffer padded to its own alignment settled down from HWM {} \
             to {} bytes{})",
            st.before,
            st.after,
            if st.stopped { ", stopped by the clock" } else { "" }
        ));
    }
    if sol.over_pairs {
        members.push(format!(
            "(per-buffer alignments: the padded plan was not settled down and no first fit with each buffer's own \
             alignment ran: more than {} pairs of buffers live together, the limit of both)",
            crate::quality::problem::SETTLE_MAX_PAIRS
        ));
    }
    if let Some(b) = sol.both_ways {
        members.push(b.describe());
    }
    if !sol.alone.is_empty() {
        let each: Vec<String> = sol
            .alone
            .iter()
            .map(|x| {
                let kept = if x.kept { ", kept" } else { "" };
                match x.hwm {
                    Some(h) => format!("{} {h}{kept}", x.strategy.name()),
                    None => format!(
                        "{} not run (its members' work past the time limit, stopped by it, or failed)",
                        x.strategy.name()
                    ),
                }
            })
            .collect();
        let settled = if sol.over_pairs { "not settled: too many pairs" } else { "settled" };
        members.push(format!(
            "(per-buffer alignments: a portfolio's members place padded or rounded sizes (its own plan is then settled), so the \
             strategies that ran on the padded sizes were also run alone (padded, {settled}, at the common \
             alignment), HWM bytes: {})",
            each.join("; ")
        ));
    }
    if let Some(x) = sol.aligned {
        members.push(format!(
            "(per-buffer alignments: also first fit with each buffer's own alignment, unpadded, in {} \
             (sizes, sizes then starts, padded sizes, alignments{}), settled: the {} order's HWM {} bytes{})",
            if x.orders == ORDERS.len() {
                "four orders".to_owned()
            } else {
                format!("{} of four orders", x.orders)
            },
            match (ORDERS.len() - x.orders - x.dropped, x.dropped) {
                (0, 0) => String::new(),
                (0, d) => format!("; {d} dropped: a buffer had no offset below 2^64 in them"),
                (_, 0) => "; the rest stopped by the clock".to_owned(),
                (_, d) => format!(
                    "; {d} dropped (a buffer had no offset below 2^64), the rest stopped by the clock"
                ),
            },
            x.order.name(),
            x.hwm,
            if x.kept { ", kept" } else { ", not lower" }
        ));
    }
    if let Some(x) = &sol.searched {
        members.push(format!(
            "(per-buffer alignments: also the branch and bound with each buffer's own alignment, unpadded, from \
             the plan above: HWM {} bytes in {} nodes, {})",
            x.hwm,
            x.nodes,
            match (x.improved, x.optimal, x.stopped) {
                (true, true, _) => "kept, proven optimal",
                (true, false, true) => "kept, stopped by the clock or its node limit",
                (true, false, false) => "kept",
                (false, true, _) => "none lower: the plan above is proven optimal",
                (false, false, true) => "none lower before the clock or its node limit",
                (false, false, false) => "none lower",
            }
        ));
    }
    members.extend(helper_lines(&sol.helped, m.lower_bound));
    if let Some(split) = &sol.split {
        members.extend(split_lines(split, m.lower_bound));
    }
    if let Some(why) = sol.not_split {
        members.push(format!("(not planned as time sections: {why})"));
    }
    if sol.as_exact {
        members.push(
            "(auto's plan did not meet --capacity: it went on as exact, whose members and branch and \
             bound on the clock made this plan; the lines above are exact's)"
                .to_owned(),
        );
    }
    if a.json {
        let output =
            if is_stdout(&a.output) { "<stdout>".to_owned() } else { a.output.display().to_string() };
        let v = serde_json::json!({
            "input": args::display(&a.input),
            "buffers": buffers,
            "strategy": a.strategy.name(),
            // the portfolio's member whose plan was kept; none where a helper's was
            "member": if helper.is_some() || aligned.is_some() || sol.split.is_some() { None } else { Some(member_name) },
            // the time sections `auto` planned the problem as (one per thread), where it split it
            "time_sections": sol.split.as_ref().map(|x| x.sections.len()),
            "helper": helper,
            // the order of first fit with each buffer's own alignment, where its plan was kept
            "aligned_order": aligned,
            "improved_by": improvers,
            // the branch and bound with each buffer's own alignment lowered that plan
            "aligned_search": searched,
            "hwm": m.hwm,
            "lower_bound": m.lower_bound,
            "ratio": ratio,
            "time_ms": t.plan.as_secs_f64() * 1e3,
            "read_ms": t.read.as_secs_f64() * 1e3,
            "write_ms": t.write.as_secs_f64() * 1e3,
            // the process's peak resident set so far (Linux `VmHWM`; null elsewhere)
            "peak_resident_bytes": crate::peak_resident::peak_resident_bytes(),
            "output": output,
            "format": format,
            "members": members,
        });
        let _ = writeln!(o, "{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    let chosen = if let Some(split) = &sol.split {
        format!(" (planned as {} time sections, each by auto on a thread of its own)", split.sections.len())
    } else if let Some(order) = aligned {
        format!(" (plan from first fit with each buffer's own alignment, in {order} order)")
    } else if let Some(h) = helper {
        format!(" (plan from {h}, run alone on a helper thread)")
    } else if !improvers.is_empty() {
        format!(" (plan from its {member_name} member, improved by its {})", improvers.join(" and its "))
    } else if member == a.strategy {
        String::new()
    } else {
        format!(" (plan from its {member_name} member)")
    };
    let chosen = if searched {
        format!("{chosen}, lowered by the branch and bound with each buffer's own alignment")
    } else {
        chosen
    };
    let _ = writeln!(
        o,
        "{}: {}, strategy {}{chosen}, HWM {} bytes, lower bound {} bytes, ratio {:.4}; read {}, plan {}, write {}",
        args::display(&a.input),
        count_of(buffers, "buffer"),
        a.strategy.name(),
        m.hwm,
        m.lower_bound,
        ratio,
        ms(t.read),
        ms(t.plan),
        ms(t.write),
    );
    for line in members {
        let _ = writeln!(o, "  {line}");
    }
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
