//! Planning quality: peak versus the max-load lower bound, per file and strategy; problems, generator.
//! Uses: host_storage, input, dramalloc-core; used by: cli, exec.
//!
//! `dramalloc quality`: this file plans every problem with every strategy and renders the
//! table; [`problem`] plans one problem with the core planner, [`generate`] makes seeded ones.

pub mod aligned_exact;
pub mod aligned_fit;
pub mod common_alignment;
pub mod generate;
pub mod helpers;
pub mod input_checks;
pub mod limits;
pub mod live_pairs;
pub mod member_lines;
pub mod problem;
pub mod program_problem;
pub mod scale;
pub mod section_rows;
pub mod settle;
pub mod solve_error;
pub mod solved;
pub mod storage;
pub mod time_split;

use serde::Serialize;

use dramalloc_core::Strategy;

use crate::input::Problem;
use std::time::Duration;

use crate::quality::problem::{solve_limited, Limits};

/// One strategy's result on one file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyResult {
    /// Strategy name.
    pub strategy: String,
    /// Peak (max offset + aligned size), bytes; `None` (JSON `null`) when it failed.
    pub peak: Option<u64>,
    /// Peak / lower bound.
    pub ratio: f64,
    /// Plan time, seconds.
    pub seconds: f64,
    /// The error, if the plan failed.
    pub error: Option<String>,
    /// The strategy whose plan a helper thread made and `auto` or `exact` kept
    /// ([`helpers`]); `None` where the portfolio's own plan was kept.
    pub helper: Option<String>,
    /// How many time sections `auto` planned the file as, one per thread
    /// ([`time_split`]); `None` where it planned the whole problem.
    pub time_sections: Option<usize>,
    /// True when the failure is the input's (a time past the 32-bit index, overlapping or
    /// misaligned fixed buffers: what `plan` exits 2 for), not a plan that was not found.
    #[serde(skip)]
    pub bad_input: bool,
}

/// One file's line.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QualityRow {
    /// Set (folder) name.
    pub set: String,
    /// File name.
    pub name: String,
    /// Buffers.
    pub n: usize,
    /// Max-load lower bound with aligned sizes, bytes: in `u128`, so a load past `u64::MAX`
    /// (no plan exists) shows its true value ([`max_load_wide`]); in JSON a number, or past
    /// `u64::MAX` a string of its digits (JSON readers lose integers that large).
    #[serde(serialize_with = "wide_number")]
    pub lower_bound: u128,
    /// Per strategy.
    pub results: Vec<StrategyResult>,
}

/// A `u128` as a JSON number where it fits `u64`, else as a string of its decimal digits.
fn wide_number<S: serde::Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*v) {
        Ok(n) => s.serialize_u64(n),
        Err(_) => s.serialize_str(&v.to_string()),
    }
}

/// Closing line per strategy.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QualityTotal {
    /// Strategy name.
    pub strategy: String,
    /// Mean peak / LB over the files planned; `None` (JSON `null`) where none was.
    pub mean_ratio: Option<f64>,
    /// Files whose peak equals the LB.
    pub at_bound: usize,
    /// Files planned.
    pub files: usize,
    /// Largest plan time, seconds.
    pub max_seconds: f64,
}

/// Plans every problem with every strategy (unbounded capacity, sizes aligned to `align`),
/// `auto` and `exact` within `time_limit` per file on at most `threads` threads
/// ([`Limits::with_threads`]; `None`: the host's).
pub fn evaluate(
    problems: &[(String, String, Problem)],
    align: u64,
    strategies: &[Strategy],
    time_limit: Duration,
    threads: Option<usize>,
) -> Vec<QualityRow> {
    problems
        .iter()
        .map(|(set, name, bufs)| {
            let mut lb = 0;
            let results = strategies
                .iter()
                .map(|&s| {
                    let limits = Limits::within(time_limit);
                    let limits = threads.map_or(limits, |t| limits.with_threads(t));
                    (s, solve_limited(bufs, align, None, s, limits, u64::MAX))
                })
                .map(|(s, r)| match r {
                    Ok(sol) => {
                        lb = u128::from(sol.metrics.lower_bound);
                        StrategyResult {
                            strategy: s.name().into(),
                            peak: Some(sol.metrics.hwm),
                            ratio: peak_ratio(sol.metrics.hwm, sol.metrics.lower_bound),
                            seconds: sol.time.as_secs_f64(),
                            error: None,
                            helper: sol.helped.iter().find(|h| h.kept).map(|h| h.strategy.name().into()),
                            time_sections: sol.split.as_ref().map(|x| x.sections.len()),
                            bad_input: false,
                        }
                    }
                    Err(e) => StrategyResult {
                        strategy: s.name().into(),
                        peak: None,
                        ratio: f64::NAN,
                        seconds: 0.0,
                        error: Some(e.to_string()),
                        helper: None,
                        time_sections: None,
                        bad_input: e.is_bad_input(),
                    },
                })
                .collect();
            if lb == 0 {
                lb = max_load_wide(bufs, align).0; // every strategy failed: the bound still stands
            }
            QualityRow { set: set.clone(), name: name.clone(), n: bufs.len(), lower_bound: lb, results }
        })
        .collect()
}

/// Peak / lower bound; 1 when both are 0 (nothing to place is optimal).
///
/// ```
/// assert_eq!(dramalloc_sim::quality::peak_ratio(0, 0), 1.0);
/// assert_eq!(dramalloc_sim::quality::peak_ratio(12, 8), 1.5);
/// ```
pub fn peak_ratio(peak: u64, lower_bound: u64) -> f64 {
    if peak == 0 && lower_bound == 0 {
        1.0
    } else {
        peak as f64 / lower_bound.max(1) as f64
    }
}

/// The max-load lower bound of `problem` (half-open lifetimes) with sizes rounded up to
/// `align` bytes (saturating at `u64::MAX`; [`max_load_wide`] has the true value): O(n + T)
/// where the T instants are few enough to count one by one, else O(n log n).
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem};
/// let b = |lower, upper, size| Buffer { id: String::new(), lower, upper, size };
/// // [0,2) and [1,3) overlap; [2,4) only touches [0,2) (half-open)
/// let p: Problem = [b(0, 2, 3), b(1, 3, 5), b(2, 4, 1)].into_iter().collect();
/// assert_eq!(dramalloc_sim::quality::max_load(&p, 1), 8);
/// assert_eq!(dramalloc_sim::quality::max_load(&p, 4), 12);
/// ```
pub fn max_load(problem: &Problem, align: u64) -> u64 {
    u64::try_from(max_load_wide(problem, align).0).unwrap_or(u64::MAX)
}

/// The max-load lower bound of `problem` as [`max_load`], in `u128` (never saturated: 2^32
/// rows of at most 2^64 bytes each stay below 2^96), and the first instant it is reached (0
/// for no row). A load past `u64::MAX` proves that no plan fits a `u64` address space.
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem};
/// let b = |lower, upper, size| Buffer { id: String::new(), lower, upper, size };
/// let p: Problem = [b(0, 2, 3), b(4, 9, 1 << 63), b(5, 6, 1 << 63)].into_iter().collect();
/// assert_eq!(dramalloc_sim::quality::max_load_wide(&p, 1), (1 << 64, 5));
/// ```
pub fn max_load_wide(problem: &Problem, align: u64) -> (u128, u64) {
    max_load_counted(problem, align).unwrap_or_else(|| max_load_sorted(problem, align))
}

/// [`max_load_wide`] by a sweep over the sorted ends, in `u128`: O(n log n).
fn max_load_sorted(problem: &Problem, align: u64) -> (u128, u64) {
    let align = u128::from(align.max(1));
    let size = |s: u64| u128::from(s).div_ceil(align) * align;
    // (time, 0 = end before 1 = start at the same time, size)
    let mut events: Vec<(u64, u8, u128)> = problem
        .rows()
        .iter()
        .flat_map(|b| [(b.lower, 1, size(b.size)), (b.upper, 0, size(b.size))])
        .collect();
    events.sort_unstable();
    let (mut load, mut best, mut at) = (0u128, 0u128, 0u64);
    for (time, kind, s) in events {
        if kind == 1 {
            load += s;
            if load > best {
                (best, at) = (load, time);
            }
        } else {
            load -= s;
        }
    }
    (best, at)
}

/// [`max_load_wide`] with a table of the load's changes per instant, where that is exact and
/// small: every lifetime not empty, the instants from the first start spanning at most
/// [`COUNT_SPAN_PER_BUFFER`] a row (or 2^16), and all the rounded sizes together within
/// `u64` (so every running sum, a load, is too, and wrapping sums are exact); `None` otherwise.
fn max_load_counted(problem: &Problem, align: u64) -> Option<(u128, u64)> {
    use crate::quality::live_pairs::COUNT_SPAN_PER_BUFFER;
    let rows = problem.rows();
    let a = align.max(1);
    let t0 = rows.iter().map(|r| r.lower).min()?;
    let span = rows.iter().map(|r| r.upper.max(r.lower) - t0).max().unwrap_or(0);
    let counted = span <= (rows.len() as u64).saturating_mul(COUNT_SPAN_PER_BUFFER).max(1 << 16);
    let total: u128 = rows.iter().map(|r| u128::from(r.size).div_ceil(u128::from(a)) * u128::from(a)).sum();
    if !counted || total > u128::from(u64::MAX) || rows.iter().any(|r| r.upper <= r.lower) {
        return None;
    }
    let mut change = vec![0u64; span as usize + 1];
    for r in rows {
        let size = r.size.div_ceil(a).wrapping_mul(a);
        let (lower, upper) = ((r.lower - t0) as usize, (r.upper - t0) as usize);
        change[lower] = change[lower].wrapping_add(size);
        change[upper] = change[upper].wrapping_sub(size);
    }
    let (mut load, mut best, mut at) = (0u64, 0u64, 0u64);
    for (t, d) in change.into_iter().enumerate() {
        load = load.wrapping_add(d);
        if load > best {
            (best, at) = (load, t0 + t as u64);
        }
    }
    Some((u128::from(best), at))
}

/// The closing line per strategy.
pub fn totals(rows: &[QualityRow], strategies: &[Strategy]) -> Vec<QualityTotal> {
    strategies
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ok: Vec<&StrategyResult> =
                rows.iter().map(|r| &r.results[i]).filter(|r| r.error.is_none()).collect();
            let files = ok.len();
            QualityTotal {
                strategy: s.name().into(),
                // (not `sum() / max(files, 1)`: an empty f64 sum is -0.0, which a trial's
                // `--json` showed for a strategy that planned no file)
                mean_ratio: (files > 0).then(|| ok.iter().map(|r| r.ratio).sum::<f64>() / files as f64),
                at_bound: rows
                    .iter()
                    .filter(|r| {
                        r.results[i].error.is_none()
                            && r.results[i].peak.map(u128::from) == Some(r.lower_bound)
                    })
                    .count(),
                files,
                max_seconds: ok.iter().map(|r| r.seconds).fold(0.0, f64::max),
            }
        })
        .collect()
}

/// The table as text: one line per file with its peak / lower bound under each strategy, then
/// the same lines with the plan times (ms), then one closing line per strategy, then, where a
/// plan kept is not the portfolio's own, one line each saying whose it is (a helper thread's
/// strategy, or time sections: as `plan` says, and `--json`'s `helper` and `time_sections`).
/// Every column is
/// as wide as its widest cell, so long set or file names never shift the others, and the width
/// does not grow with peaks in bytes (they are in `--json`): about 60 + 12 × strategies columns.
pub fn render(rows: &[QualityRow], totals: &[QualityTotal]) -> String {
    use std::fmt::Write;
    let names: Vec<String> = rows
        .iter()
        .map(|r| if r.set.is_empty() { r.name.clone() } else { format!("{}/{}", r.set, r.name) })
        .collect();
    let file_w = names.iter().map(String::len).chain([4]).max().unwrap_or(4);
    let n_w = rows.iter().map(|r| r.n.to_string().len()).chain([1]).max().unwrap_or(1);
    let lb_w = rows.iter().map(|r| r.lower_bound.to_string().len()).chain([2]).max().unwrap_or(2);
    let widths: Vec<usize> = totals.iter().map(|t| t.strategy.len().max(8)).collect();
    let mut s = String::new();
    let table = |s: &mut String, title: &str, cell: &dyn Fn(&StrategyResult) -> String| {
        let _ = write!(s, "{:<file_w$}  {:>n_w$}  {:>lb_w$}", title, "n", "LB");
        for (t, w) in totals.iter().zip(&widths) {
            let _ = write!(s, "  {:>w$}", t.strategy);
        }
        s.push('\n');
        for (r, name) in rows.iter().zip(&names) {
            let _ = write!(s, "{:<file_w$}  {:>n_w$}  {:>lb_w$}", name, r.n, r.lower_bound);
            for (x, w) in r.results.iter().zip(&widths) {
                let text = if x.error.is_some() { "error".to_owned() } else { cell(x) };
                let _ = write!(s, "  {text:>w$}");
            }
            s.push('\n');
        }
    };
    table(&mut s, "peak / LB", &|x| format!("{:.4}", x.ratio));
    s.push('\n');
    table(&mut s, "plan ms", &|x| format!("{:.1}", x.seconds * 1e3));
    s.push('\n');
    for t in totals {
        if t.files == 0 {
            let _ = writeln!(s, "{}: no file planned", t.strategy);
            continue;
        }
        let _ = writeln!(
            s,
            "{}: mean peak/LB {:.4} over {} file{}, {} at the LB, slowest {:.1} ms",
            t.strategy,
            t.mean_ratio.unwrap_or(f64::NAN),
            t.files,
            if t.files == 1 { "" } else { "s" },
            t.at_bound,
            t.max_seconds * 1e3
        );
    }
    let notes: Vec<String> = rows
        .iter()
        .zip(&names)
        .flat_map(|(r, name)| {
            r.results.iter().filter(|x| x.error.is_none()).filter_map(move |x| {
                let how = match (&x.helper, x.time_sections) {
                    (Some(h), _) => format!("plan from {h}, run alone on a helper thread"),
                    (None, Some(k)) => format!("planned as {k} time sections, one per thread"),
                    (None, None) => return None,
                };
                Some(format!("  {name}, {}: {how}", x.strategy))
            })
        })
        .collect();
    if !notes.is_empty() {
        s.push_str("\nplans not the portfolio's own:\n");
        for line in &notes {
            s.push_str(line);
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{max_load_counted, max_load_sorted, render, totals, QualityRow, StrategyResult};
    use crate::input::Row;
    use dramalloc_core::Strategy;

    /// The text table names whose plan was kept where it is not the portfolio's own: a helper
    /// thread's strategy, or the time sections (it said neither before 2026-12-06; `--json`
    /// did).
    #[test]
    fn the_table_says_whose_plan_was_kept() {
        let result = |helper: Option<&str>, time_sections| StrategyResult {
            strategy: "auto".into(),
            peak: Some(100),
            ratio: 1.0,
            seconds: 0.5,
            error: None,
            helper: helper.map(Into::into),
            time_sections,
            bad_input: false,
        };
        let row = |name: &str, r| QualityRow {
            set: "g".into(),
            name: name.into(),
            n: 3,
            lower_bound: 100,
            results: vec![r],
        };
        let rows = vec![
            row("a", result(None, None)),
            row("b", result(Some("greedy-load"), None)),
            row("c", result(None, Some(2))),
        ];
        let text = render(&rows, &totals(&rows, &[Strategy::Auto]));
        let tail: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("plans not")).collect();
        assert_eq!(
            tail,
            [
                "plans not the portfolio's own:",
                "  g/b, auto: plan from greedy-load, run alone on a helper thread",
                "  g/c, auto: planned as 2 time sections, one per thread",
            ]
        );
        let plain = render(&rows[..1], &totals(&rows[..1], &[Strategy::Auto]));
        assert!(!plain.contains("plans not"), "{plain}");
    }

    /// The counted max load and its instant are the sorted sweep's, where it applies.
    #[test]
    fn the_counted_max_load_is_the_sorted_one() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..200u64 {
            let mut p = Problem::default();
            let shift = if case % 3 == 0 { 1 << 31 } else { 0 };
            for k in 0..1 + next(50) {
                let lower = shift + next(30);
                p.push(&k.to_string(), Row { lower, upper: lower + 1 + next(9), size: next(5000) });
            }
            let align = [1, 3, 64, 4096][case as usize % 4];
            assert_eq!(max_load_counted(&p, align), Some(max_load_sorted(&p, align)), "case {case}");
        }
    }

    use super::*;

    #[test]
    fn the_table_is_as_wide_as_its_cells() {
        let result = |strategy: &str, ratio: f64, error: Option<String>| StrategyResult {
            strategy: strategy.into(),
            peak: None,
            ratio,
            seconds: 0.0125,
            error,
            helper: None,
            time_sections: None,
            bad_input: false,
        };
        let rows = vec![
            QualityRow {
                set: "a-rather-long-set-name".into(),
                name: "f".into(),
                n: 3,
                lower_bound: 1024,
                results: vec![result("greedy-size", 1.0, None), result("auto", 1.5, Some("x".into()))],
            },
            QualityRow {
                set: String::new(),
                name: "g".into(),
                n: 12,
                lower_bound: 8,
                results: vec![result("greedy-size", 1.25, None), result("auto", 1.0, None)],
            },
        ];
        let totals = totals(&rows, &[Strategy::GreedySize, Strategy::Auto]);
        let text = render(&rows, &totals);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "peak / LB                  n    LB  greedy-size      auto");
        assert_eq!(lines[1], "a-rather-long-set-name/f   3  1024       1.0000     error");
        assert_eq!(lines[2], "g                         12     8       1.2500    1.0000");
        assert_eq!(lines[5], "a-rather-long-set-name/f   3  1024         12.5     error");
        assert_eq!(lines[8], "greedy-size: mean peak/LB 1.1250 over 2 files, 0 at the LB, slowest 12.5 ms");
    }

    #[test]
    fn the_bound_is_reported_when_every_strategy_fails() {
        // a lifetime past u32::MAX instructions: every strategy fails with TimeRange
        let far = u32::MAX as u64 + 5;
        let bufs: Problem = [
            crate::input::Buffer { id: "a".into(), lower: 0, upper: far, size: 100 },
            crate::input::Buffer { id: "b".into(), lower: 1, upper: 2, size: 28 },
        ]
        .into_iter()
        .collect();
        let problems = vec![("set".to_string(), "far".to_string(), bufs)];
        let rows =
            evaluate(&problems, 64, &[Strategy::GreedySize, Strategy::Auto], Duration::from_secs(1), None);
        assert_eq!(rows[0].lower_bound, 128 + 64);
        for r in &rows[0].results {
            let e = r.error.as_deref().unwrap();
            assert_eq!(e, "buffer `a`: upper 4294967300 exceeds the 32-bit instruction index");
        }
        assert_eq!(totals(&rows, &[Strategy::GreedySize, Strategy::Auto])[0].files, 0);
    }
}
