//! Time sections: `auto` plans a problem too large for its helper threads as one section of
//! the time axis per thread.
//! Uses: input, quality (problem, helpers, limits); used by: problem.rs (`solve_clocked`),
//! cli/plan.rs (the report).
//!
//! A plan's peak is the highest of its instants', so a problem cut at instants `c_1 < … <
//! c_{K-1}` falls into K sections that share only the buffers live across a cut (`lower < c <
//! upper`, minimalloc's exclusive `upper`). Those *crossing* buffers are planned first, alone,
//! and then pinned at their offsets in every section they reach; each section is then planned
//! by `auto` on a thread of its own, and the plan is their union, its peak the highest
//! section's. Any two buffers live at one instant are in one section or both crossing, so
//! the union is a valid plan.
//!
//! Why: at 10^6 rows `auto` runs its sweep and its repair on one core, and its helper threads
//! (single strategies on a workspace of their own) do not fit their memory
//! ([`crate::quality::helpers::helper_count`]), so the host's other cores are idle. The
//! sections' workspaces together are the size of the whole problem's, so the split spends
//! those cores without doubling the memory.
//!
//! Where the cuts go ([`choose_cuts`]): cut `k` of `K` goes where the `k/K` share of the buffers
//! has started, moved within [`BALANCE_SLACK`] of the buffers either way to the instant whose
//! crossing buffers are fewest in bytes. The split is refused where more than one buffer in
//! [`MAX_PINNED_SHARE`] crosses a cut (a training step's activations live from the forward
//! to the backward pass: there every cut crosses most of the peak, and pinning it first
//! fixes what the sections should place), where a buffer is fixed by the input or has its
//! own alignment above the plan's, and under `--capacity` (the whole problem's path handles
//! them). A section that fails leaves the whole problem to the usual path.
//!
//! Determinism: with a clock that does not bind, each section's plan is that of `auto` on it
//! (`--threads 1`), so the plan is that of the same sections planned one after another.

use std::time::Instant;

use dramalloc_core::place::report::Members;
use dramalloc_core::{Metrics, Strategy};

use crate::input::Problem;
use crate::quality::problem::{solve_limited, Limits, Solved};

/// At most one buffer in this many may cross a cut: past it the split is refused. A design
/// bound, not a fitted one: the crossing buffers are planned before the sections and fixed
/// in them, so they should be a small part of each section's freedom (at 10^6 rows of the
/// four generated shapes a cut crosses 51–235 buffers of the mixed, short and long-tail ones,
/// and 142,857 of the layered one).
pub const MAX_PINNED_SHARE: usize = 64;

/// How far a cut may move from its balanced place, as a share of the buffers: `1 / (8 K)`
/// either way, so no section holds more than `1/K + 1/(4K)` of them.
pub const BALANCE_SLACK: usize = 8;

/// Fewest buffers a section is cut for: below this many rows in all no split is tried.
pub const MIN_SECTION_ROWS: usize = 4096;

/// What the split did, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The cut instants, ascending.
    pub cuts: Vec<u64>,
    /// Buffers live across some cut, planned first and pinned in the sections.
    pub crossing: usize,
    /// The peak of the crossing buffers' own plan, bytes.
    pub crossing_hwm: u64,
    /// Each section, in time order.
    pub sections: Vec<Section>,
}

/// One time section's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// First instant of the section (0 for the first).
    pub from: u64,
    /// Its buffers (all their instants in the section).
    pub own: usize,
    /// Crossing buffers it holds at their pinned offsets.
    pub pinned: usize,
    /// Its plan's peak (pinned buffers included), bytes.
    pub hwm: u64,
    /// Its max-load bound (pinned buffers included), bytes.
    pub lower_bound: u64,
    /// What its `auto` ran and skipped.
    pub members: Members,
}

/// The cuts of `problem` into `sections` time sections ([`choose_cuts`] in the module docs):
/// ascending instants, `sections - 1` of them, each with a buffer starting before it and one
/// starting at or after it; empty where there are fewer than two instants to cut between.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::time_split::choose_cuts;
/// let mut p = Problem::default();
/// // sixteen short buffers, one a step, and a long one over the first half
/// for t in 0..16 {
///     p.push(&t.to_string(), Row { lower: t, upper: t + 1, size: 10 });
/// }
/// p.push("long", Row { lower: 0, upper: 8, size: 100 });
/// // half the 17 buffers have started before instant 7; a cut may move by 17 / 16 = 1 buffer,
/// // so to 6, 7 or 8: 6 and 7 cross the long buffer, 8 crosses nothing
/// assert_eq!(choose_cuts(&p, 2), vec![8]);
/// assert_eq!(choose_cuts(&p, 1), Vec::<u64>::new());
/// ```
pub fn choose_cuts(problem: &Problem, sections: usize) -> Vec<u64> {
    cuts_and_load(problem, sections, 1).0
}

/// [`choose_cuts`], and the max load of `problem` at `align` (sizes rounded up to it) where
/// its instants are dense enough to count one by one (`span <= 4 n`), else `None`.
fn cuts_and_load(problem: &Problem, sections: usize, align: u64) -> (Vec<u64>, Option<u64>) {
    let n = problem.len();
    let rows = problem.rows();
    let span = rows.iter().map(|r| r.upper).max().unwrap_or(0);
    if sections < 2 || n < 2 || span < 2 {
        return (Vec::new(), None);
    }
    // candidate cuts at multiples of `w`, at most about 4n of them
    let w = span.div_ceil(4 * n as u64).max(1);
    let slots = (span / w) as usize + 2;
    // per slot: the change of the crossing bytes at cut `b * w`, of the live bytes at instant
    // `b` (where `w` is 1) and the buffers starting just before it; every prefix sum is a
    // load (`check_load`: within u64), so wrapping sums are exact
    let mut cross = vec![0u64; slots + 1];
    let mut live = vec![0u64; if w == 1 { slots + 1 } else { 0 }];
    let mut starts = vec![0u32; slots + 1];
    let a = align.max(1);
    for r in rows {
        let first = (r.lower / w + 1) as usize;
        let last = ((r.upper - 1) / w) as usize;
        if first <= last {
            cross[first] = cross[first].wrapping_add(r.size);
            cross[last + 1] = cross[last + 1].wrapping_sub(r.size);
        }
        if w == 1 {
            let size = r.size.div_ceil(a).wrapping_mul(a);
            live[r.lower as usize] = live[r.lower as usize].wrapping_add(size);
            live[r.upper as usize] = live[r.upper as usize].wrapping_sub(size);
        }
        // `lower < b * w` from cut b = lower / w + 1 on
        starts[first] += 1;
    }
    let max_load = (w == 1).then(|| {
        let mut load = 0u64;
        live.iter()
            .map(|&d| {
                load = load.wrapping_add(d);
                load
            })
            .max()
            .unwrap_or(0)
    });
    let mut load = 0u64;
    let mut started = 0u64;
    // (crossing bytes, buffers started before it) at each cut
    let at: Vec<(u64, u64)> = (0..=slots)
        .map(|b| {
            load = load.wrapping_add(cross[b]);
            started += u64::from(starts[b]);
            (load, started)
        })
        .collect();
    let (n64, k64) = (n as u64, sections as u64);
    let slack = n64 / (BALANCE_SLACK as u64 * k64);
    let mut cuts = Vec::with_capacity(sections - 1);
    for k in 1..k64 {
        let ideal = n64 * k / k64;
        let (lo, hi) = (ideal.saturating_sub(slack).max(1), (ideal + slack).min(n64 - 1));
        let best = (1..=slots)
            .filter(|&b| (lo..=hi).contains(&at[b].1) && (b as u64) * w < span)
            .filter(|&b| cuts.last().is_none_or(|&c| (b as u64) * w > c))
            .min_by_key(|&b| (at[b].0, at[b].1.abs_diff(ideal)));
        if let Some(b) = best {
            cuts.push(b as u64 * w);
        }
    }
    (cuts, max_load)
}

/// Plans `problem` with `auto` as one time section per thread of `limits.threads` (module
/// docs), where that applies: at least two threads, at least [`MIN_SECTION_ROWS`] rows a section, no fixed buffer,
/// and at most one buffer in [`MAX_PINNED_SHARE`] crossing a cut. `None` where it does not
/// apply or a plan failed (the caller then plans the whole problem). The offsets are in
/// problem order; the metrics' `lower_bound` is the whole problem's at `align`.
pub fn solve_split(problem: &Problem, align: u64, limits: Limits, max_nodes: u64) -> Option<Solved> {
    let start = Instant::now();
    let n = problem.len();
    let k = limits.threads.min(n / MIN_SECTION_ROWS);
    if k < 2 || problem.has_fixed() || n > u32::MAX as usize {
        return None;
    }
    let (cuts, max_load) = cuts_and_load(problem, k, align);
    if cuts.is_empty() {
        return None;
    }
    let k = cuts.len() + 1;
    // each buffer's section: the number of cuts at or before its start; it crosses a cut
    // where the first cut after its start is before its end
    let section_of = |lower: u64| cuts.partition_point(|&c| c <= lower);
    let crosses = |i: usize| {
        let r = problem.row(i);
        cuts.get(section_of(r.lower)).is_some_and(|&c| c < r.upper)
    };
    let crossing: Vec<u32> = (0..n).filter(|&i| crosses(i)).map(|i| i as u32).collect();
    if crossing.len().saturating_mul(MAX_PINNED_SHARE) > n {
        return None;
    }
    // the crossing buffers first, alone, on their share of the work
    let mut first = Problem::with_capacity(crossing.len(), 0);
    for &i in &crossing {
        copy_row(problem, i as usize, &mut first);
    }
    let share = Limits {
        work: (u128::from(limits.work) * crossing.len() as u128 / n as u128) as u64,
        threads: 1,
        ..limits
    };
    let pinned = if crossing.is_empty() {
        Vec::new()
    } else {
        solve_limited(&first, align, None, Strategy::Auto, share, max_nodes).ok()?.offsets
    };
    let crossing_hwm = crate::quality::settle::peak_of(&first, &pinned, align);
    drop(first);
    let bounds: Vec<(u64, u64)> = (0..k)
        .map(|s| (if s == 0 { 0 } else { cuts[s - 1] }, cuts.get(s).copied().unwrap_or(u64::MAX)))
        .collect();
    // section `s`: its own buffers and the crossing ones it reaches, in problem order, each
    // with the offset it is pinned at (for a crossing one)
    let rows_of = |s: usize, mut each: Box<dyn FnMut(usize, Option<u64>) + '_>| {
        let (from, to) = bounds[s];
        let mut next = 0; // the next crossing buffer
        for i in 0..n {
            let row = problem.row(i);
            if crossing.get(next).is_some_and(|&c| c as usize == i) {
                next += 1;
                if row.lower < to && row.upper > from {
                    each(i, Some(pinned[next - 1]));
                }
            } else if section_of(row.lower) == s {
                each(i, None);
            }
        }
    };
    // every section built (ids left out: a section that fails leaves the whole problem to the
    // usual path, whose errors name them) and planned on a thread of its own (the last on
    // this one), on the whole clock
    let one = Limits { threads: 1, ..limits };
    let plan = |s: usize| {
        let mut p = Problem::with_capacity(n / k + n / (4 * k), 0);
        rows_of(
            s,
            Box::new(|i, pin| {
                let at = p.push_unnamed(problem.row(i));
                p.set_alignment(at, problem.alignment(i));
                p.set_fixed(at, pin);
            }),
        );
        let pinned = (0..p.len()).filter(|&j| p.fixed(j).is_some()).count();
        let sol = solve_limited(&p, align, None, Strategy::Auto, one, max_nodes).ok();
        (p.len(), pinned, sol)
    };
    let solved: Vec<Option<(usize, usize, Option<Solved>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..k - 1).map(|s| scope.spawn(move || plan(s))).collect();
        let mine = plan(k - 1);
        let mut out: Vec<_> = handles.into_iter().map(|h| h.join().ok()).collect();
        out.push(Some(mine));
        out
    });
    let mut offsets = vec![0u64; n];
    let mut sections = Vec::with_capacity(k);
    let mut top: Option<Metrics> = None;
    for (s, (part, &(from, _))) in solved.into_iter().zip(&bounds).enumerate() {
        let (rows, pinned, sol) = part?;
        let sol = sol?;
        let mut at = sol.offsets.iter();
        rows_of(s, Box::new(|i, _| offsets[i] = at.next().copied().unwrap_or(0)));
        let m = sol.metrics;
        sections.push(Section {
            from,
            own: rows - pinned,
            pinned,
            hwm: m.hwm,
            lower_bound: m.lower_bound,
            members: sol.members,
        });
        if top.is_none_or(|t| m.hwm > t.hwm) {
            top = Some(m);
        }
    }
    let lower_bound = max_load.unwrap_or_else(|| crate::quality::max_load(problem, align));
    let top = top?;
    let metrics = Metrics { lower_bound, candidates: n as u64, intervals: n as u64, pinned: 0, ..top };
    let split = Split { cuts, crossing: crossing.len(), crossing_hwm, sections };
    Some(Solved {
        offsets,
        metrics,
        time: start.elapsed(),
        members: Members::default(),
        both_ways: None,
        as_exact: false,
        padded: false,
        settled: None,
        over_pairs: false,
        alone: Vec::new(),
        aligned: None,
        searched: None,
        helped: Vec::new(),
        split: Some(Box::new(split)),
    })
}

/// Appends row `i` of `from` (id, numbers, own alignment) to `to`; returns its index there.
fn copy_row(from: &Problem, i: usize, to: &mut Problem) -> usize {
    let at = to.push(from.id(i), from.row(i));
    to.set_alignment(at, from.alignment(i));
    at
}

/// The report's lines of a split plan: the cuts and the crossing buffers, then per section
/// its buffers, peak and kept member, followed by its members' lines (indented).
///
/// ```
/// use dramalloc_core::place::report::Members;
/// use dramalloc_sim::quality::time_split::{split_lines, Section, Split};
/// let section = |from, own, hwm| Section { from, own, pinned: 3, hwm, lower_bound: 90, members: Members::default() };
/// let split = Split { cuts: vec![500], crossing: 3, crossing_hwm: 40, sections: vec![section(0, 480, 100), section(500, 517, 95)] };
/// let lines = split_lines(&split, 100);
/// assert_eq!(lines[0], "split in 2 time sections at instant 500, one per thread: 3 buffers cross a cut, \
///     planned first by auto (peak 40 bytes) and pinned in the sections they reach");
/// assert_eq!(lines[2], "section 2 from instant 500: 517 buffers and 3 pinned, peak 95 bytes (0.9500 x LB, \
///     its own LB 90), plan from its auto member");
/// ```
pub fn split_lines(split: &Split, lower_bound: u64) -> Vec<String> {
    let mut out = Vec::new();
    let cuts: Vec<String> = split.cuts.iter().map(u64::to_string).collect();
    out.push(format!(
        "split in {} time sections at instant{} {}, one per thread: {} buffers cross a cut, planned \
         first by auto (peak {} bytes) and pinned in the sections they reach",
        split.sections.len(),
        if split.cuts.len() == 1 { "" } else { "s" },
        cuts.join(", "),
        split.crossing,
        split.crossing_hwm
    ));
    for (s, sec) in split.sections.iter().enumerate() {
        let kept = sec.members.best.map_or("auto", |b| b.name());
        let improved: Vec<&str> = sec.members.improved_by.iter().flatten().map(|m| m.name()).collect();
        let improved = if improved.is_empty() {
            String::new()
        } else {
            format!(", improved by its {}", improved.join(" and its "))
        };
        out.push(format!(
            "section {} from instant {}: {} buffers and {} pinned, peak {} bytes ({:.4} x LB, its own LB {}), \
             plan from its {kept} member{improved}",
            s + 1,
            sec.from,
            sec.own,
            sec.pinned,
            sec.hwm,
            crate::quality::peak_ratio(sec.hwm, lower_bound),
            sec.lower_bound
        ));
        for line in crate::quality::member_lines::member_lines(&sec.members, sec.members.lower_bound, None) {
            out.push(format!("  {line}"));
        }
    }
    out
}
