//! Time sections: `auto` plans a problem too large for its helper threads as one section of
//! the time axis per thread.
//! Uses: host_storage, input, quality (problem, limits, live_pairs, settle), dramalloc-core;
//! used by: problem.rs (`solve_clocked`), cli/plan.rs (the report).
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
//! sections are planned from the rows where they lie (no copy), and hold the interference
//! graph only where the whole problem would, so together they take about the whole
//! problem's storage.
//!
//! Each section stops at the whole problem's bound, not its own: a fixed marker ending at that
//! bound, after the last instant, raises the section's bound to it (`plan_section`), since a
//! section's peak below the whole's bound lowers nothing.
//!
//! Where the cuts go ([`choose_cuts`]): cut `k` of `K` goes where the `k/K` share of the buffers
//! has started, moved within [`BALANCE_SLACK`] of the buffers either way to the instant whose
//! crossing buffers are fewest in bytes. The split is refused where more than one buffer in
//! [`MAX_PINNED_SHARE`] crosses a cut, or the buffers crossing a cut carry more than half the
//! bound (a training step's activations live from the forward to the backward pass: there
//! every cut crosses most of the peak, and pinning it first fixes what the sections should
//! place), where a buffer is fixed by the input or has its
//! own alignment above the plan's, and under `--capacity` (the whole problem's path handles
//! them). A section that fails leaves the whole problem to the usual path.
//!
//! Determinism: with a clock that does not bind, each section's plan is that of `auto` on it
//! and its marker (`--threads 1`), so the plan is that of the same sections planned one after
//! another.

use std::time::Instant;

use dramalloc_core::place::exact::Budget;
use dramalloc_core::place::report::Members;
use dramalloc_core::{plan_buffer_iter_with, Buffer as CoreBuffer, CcSize, Metrics, PlanConfig, Strategy};

use crate::input::Problem;
use crate::quality::limits::nanos_until;
use crate::quality::live_pairs::{overlapping_pairs, overlapping_pairs_of};
use crate::quality::problem::{solve_limited, Limits, Solved};
use crate::quality::section_rows::SectionRows;
use crate::quality::storage::{front_end_storage, holds_adjacency};

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
    /// Its plan's bound, bytes: its own max load (pinned buffers included), raised to the
    /// whole problem's by the goal marker (`plan_section`).
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
    cuts_and_bytes(problem, sections).into_iter().map(|(cut, _)| cut).collect()
}

/// [`choose_cuts`], each cut with the bytes of the buffers crossing it.
fn cuts_and_bytes(problem: &Problem, sections: usize) -> Vec<(u64, u64)> {
    let n = problem.len();
    let rows = problem.rows();
    // instants relative to the first start: `x - t0`
    let t0 = rows.iter().map(|r| r.lower).min().unwrap_or(0);
    let span = rows.iter().map(|r| r.upper - t0).max().unwrap_or(0);
    if sections < 2 || n < 2 || span < 2 || n > u32::MAX as usize {
        return Vec::new();
    }
    // candidate cuts at `t0 + b w`, at most about 4n of them
    let w = span.div_ceil(4 * n as u64).max(1);
    let slots = (span / w) as usize + 2;
    // per slot: the change of the crossing bytes at cut `b` and the buffers starting just
    // before it; every prefix sum is a load (`check_load`: within u64), so wrapping sums are
    // exact
    let mut cross = vec![0u64; slots + 1];
    let mut starts = vec![0u32; slots + 1];
    for r in rows {
        let (lower, upper) = (r.lower - t0, r.upper - t0);
        let first = (lower / w + 1) as usize;
        let last = ((upper - 1) / w) as usize;
        if first <= last {
            cross[first] = cross[first].wrapping_add(r.size);
            cross[last + 1] = cross[last + 1].wrapping_sub(r.size);
        }
        // `lower < b w` from cut b = lower / w + 1 on
        starts[first] += 1;
    }
    // prefix sums in place: at cut `b` the crossing bytes and the buffers started before it
    // (both non-decreasing in `b` for the starts; n fits `u32`, checked above)
    let (mut load, mut started) = (0u64, 0u32);
    for (c, s) in cross.iter_mut().zip(starts.iter_mut()) {
        load = load.wrapping_add(*c);
        *c = load;
        started += *s;
        *s = started;
    }
    let (n64, k64) = (n as u64, sections as u64);
    let slack = n64 / (BALANCE_SLACK as u64 * k64);
    let mut cuts = Vec::with_capacity(sections - 1);
    for k in 1..k64 {
        let ideal = n64 * k / k64;
        let (lo, hi) = (ideal.saturating_sub(slack).max(1), (ideal + slack).min(n64 - 1));
        // the cuts whose started count is in `[lo, hi]`: one run of them, found by bisection
        let first = starts.partition_point(|&s| u64::from(s) < lo).max(1);
        let end = starts.partition_point(|&s| u64::from(s) <= hi).min(slots + 1);
        let best = (first..end)
            .filter(|&b| (b as u64) * w < span)
            .filter(|&b| cuts.last().is_none_or(|&(c, _)| t0 + (b as u64) * w > c))
            .min_by_key(|&b| (cross[b], u64::from(starts[b]).abs_diff(ideal)));
        if let Some(b) = best {
            cuts.push((t0 + b as u64 * w, cross[b]));
        }
    }
    cuts
}

/// Why [`solve_split`] did not split a problem (said in `plan`'s report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSplit {
    /// One thread: `--threads 1`, or no core spare when planning started.
    OneThread,
    /// Fewer than [`MIN_SECTION_ROWS`] rows a section (or more rows than `u32` numbers).
    FewRows,
    /// A buffer has a fixed offset.
    Fixed,
    /// No instant to cut at (every buffer starts at one instant).
    NoCut,
    /// More than one buffer in [`MAX_PINNED_SHARE`] crosses the cut: `buffers` of `of`.
    Crossing {
        /// Buffers crossing.
        buffers: usize,
        /// Buffers in all.
        of: usize,
    },
    /// The buffers crossing a cut carry `bytes`, more than half the bound `lower_bound`.
    CrossingBytes {
        /// Their bytes.
        bytes: u64,
        /// The whole problem's bound, bytes.
        lower_bound: u64,
    },
    /// A plan of the crossing buffers or of a section failed.
    Failed,
}

impl core::fmt::Display for NotSplit {
    /// ```
    /// use dramalloc_sim::quality::time_split::NotSplit;
    /// let why = NotSplit::Crossing { buffers: 142_857, of: 1_000_000 };
    /// assert_eq!(why.to_string(), "142857 of 1000000 buffers cross the cut, more than 1 in 64");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            NotSplit::OneThread => write!(f, "one thread (--threads 1, or no core spare)"),
            NotSplit::FewRows => write!(f, "fewer than {MIN_SECTION_ROWS} rows a section"),
            NotSplit::Fixed => write!(f, "a buffer has a fixed offset"),
            NotSplit::NoCut => write!(f, "no instant to cut at"),
            NotSplit::Crossing { buffers, of } => {
                write!(f, "{buffers} of {of} buffers cross the cut, more than 1 in {MAX_PINNED_SHARE}")
            }
            NotSplit::CrossingBytes { bytes, lower_bound } => write!(
                f,
                "the buffers crossing the cut carry {bytes} bytes, more than half the bound ({lower_bound})"
            ),
            NotSplit::Failed => write!(f, "a section's plan failed"),
        }
    }
}

/// Plans `problem` with `auto` as one time section per thread of `limits.threads` (module
/// docs), where that applies: at least two threads, at least [`MIN_SECTION_ROWS`] rows a
/// section, no fixed buffer, at most one buffer in [`MAX_PINNED_SHARE`] crossing a cut and
/// crossing bytes at most half the bound. The offsets are in problem order; the metrics'
/// `lower_bound` is the whole problem's at `align`.
///
/// # Errors
/// Why it was not split ([`NotSplit`]; the caller then plans the whole problem).
pub fn solve_split(
    problem: &Problem,
    align: u64,
    limits: Limits,
    max_nodes: u64,
) -> Result<Solved, NotSplit> {
    let start = Instant::now();
    let n = problem.len();
    if limits.threads < 2 {
        return Err(NotSplit::OneThread);
    }
    let k = limits.threads.min(n / MIN_SECTION_ROWS);
    if k < 2 || n > u32::MAX as usize {
        return Err(NotSplit::FewRows);
    }
    if problem.has_fixed() {
        return Err(NotSplit::Fixed);
    }
    let cuts = cuts_and_bytes(problem, k);
    if cuts.is_empty() {
        return Err(NotSplit::NoCut);
    }
    // refused where a cut's crossing buffers carry more than half the bound: their layout,
    // fixed first around the cut, would then decide the peak (a try-and-break run: every
    // buffer living 2,000-4,000 steps, 2,979 of 300,000 crossing with 81 % of the bound,
    // 1.1933-1.1991 split against 1.0622 whole)
    let lower_bound = crate::quality::max_load(problem, align);
    if let Some(&(_, bytes)) =
        cuts.iter().find(|&&(_, bytes)| u128::from(bytes) * 2 > u128::from(lower_bound))
    {
        return Err(NotSplit::CrossingBytes { bytes, lower_bound });
    }
    let cuts: Vec<u64> = cuts.into_iter().map(|(cut, _)| cut).collect();
    let first_start = problem.rows().iter().map(|r| r.lower).min().unwrap_or(0);
    let k = cuts.len() + 1;
    // each section's rows, listed once: its own (starting in it and ending before the next
    // cut) and the crossing ones live in it
    let rows = SectionRows::new(problem, &cuts);
    let crossing = rows.crossing();
    if crossing.len().saturating_mul(MAX_PINNED_SHARE) > n {
        return Err(NotSplit::Crossing { buffers: crossing.len(), of: n });
    }
    // the crossing buffers first, alone, on their share of the work
    let mut first = Problem::with_capacity(crossing.len(), 0);
    for &i in crossing {
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
        solve_limited(&first, align, None, Strategy::Auto, share, max_nodes)
            .map_err(|_| NotSplit::Failed)?
            .offsets
    };
    let crossing_hwm = crate::quality::settle::peak_of(&first, &pinned, align);
    drop(first);
    let bounds: Vec<u64> = (0..k).map(|s| if s == 0 { first_start } else { cuts[s - 1] }).collect();
    // section `s`: its rows in problem order, each crossing one with the offset it is pinned
    // at; not copied, read where they lie
    let (rows_ref, pinned_ref) = (&rows, &pinned);
    let rows_of = |s: usize| rows_ref.rows(s).map(move |(i, at)| (i, at.map(|a| pinned_ref[a])));
    // the sections hold the interference graph only where the whole problem would: together
    // they would hold as much, each on a budget of the whole's (a try-and-break run: 300,000
    // rows 265 MB resident split, 73 MB whole)
    let entries = n as u64 + 1 + 2 * overlapping_pairs(problem);
    let adjacency = holds_adjacency(Strategy::Auto, entries, limits.work);
    // the whole problem's bound, each section's goal: past it, a section's lower peak does not
    // lower the plan's
    let goal = Goal { bytes: lower_bound, at: rows_end(problem), align: align.max(1) };
    // every section planned on a thread of its own (the last on this one), on the whole clock
    let plan = &|s: usize| plan_section(problem, rows_of(s), goal, adjacency, align, limits, max_nodes);
    let solved: Vec<Option<Planned>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..k - 1).map(|s| scope.spawn(move || plan(s))).collect();
        let mine = plan(k - 1);
        let mut out: Vec<_> = handles.into_iter().map(|h| h.join().ok().flatten()).collect();
        out.push(mine);
        out
    });
    let mut offsets = vec![0u64; n];
    let mut sections = Vec::with_capacity(k);
    let mut top: Option<Metrics> = None;
    for (s, (part, &from)) in solved.into_iter().zip(&bounds).enumerate() {
        let sol = part.ok_or(NotSplit::Failed)?;
        for ((i, _), &at) in rows_of(s).zip(&sol.offsets) {
            offsets[i] = at;
        }
        let (rows, pinned, m) = (sol.offsets.len(), sol.pinned, sol.metrics);
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
    let top = top.ok_or(NotSplit::Failed)?;
    let metrics = Metrics { lower_bound, candidates: n as u64, intervals: n as u64, pinned: 0, ..top };
    let split = Split { cuts, crossing: rows.crossing().len(), crossing_hwm, sections };
    Ok(Solved {
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
        not_split: None,
    })
}

/// One section's plan: every row's offset in the section's order, how many were pinned, the
/// metrics and what its `auto` ran.
struct Planned {
    offsets: Vec<u64>,
    pinned: usize,
    metrics: Metrics,
    members: Members,
}

/// The goal of every section: the whole problem's bound, `bytes`, and where a section's plan
/// is told it: a fixed marker of `align` bytes ending at `bytes`, live at instant `at` (the
/// problem's last `upper`, after every row), raises the section's own bound (the core's bound
/// counts the highest end of a fixed buffer) to the whole's, so its portfolio stops where it
/// stops at its bound: members skipped, the repair ended.
#[derive(Debug, Clone, Copy)]
struct Goal {
    bytes: u64,
    at: u32,
    align: u64,
}

/// The last `upper` of `problem` (past every row's last instant), 0 for none; within `u32`
/// (`check_time_range`).
fn rows_end(problem: &Problem) -> u32 {
    problem.rows().iter().map(|r| r.upper).max().unwrap_or(0).min(u64::from(u32::MAX)) as u32
}

/// Plans the rows `rows` yields (`(row of problem, pinned offset)`, read twice or three
/// times) and `goal`'s marker with `auto`, as [`solve_limited`] plans a problem of them with
/// `limits` but one thread, no capacity and no padding (`tests/time_split.rs` checks that
/// the plans agree): the same storage, the interference graph where it fits and pays (and
/// `adjacency` allows), the sweep's index of the pinned buffers, the clock and the repair
/// unbounded past the work budget. Without a copy of the rows as a problem (the sections'
/// copies of 10^6 rows took 32 MB). `None` where the planner failed.
fn plan_section(
    problem: &Problem,
    rows: impl Iterator<Item = (usize, Option<u64>)> + Clone,
    goal: Goal,
    adjacency: bool,
    align: u64,
    limits: Limits,
    max_nodes: u64,
) -> Option<Planned> {
    let (len, pinned) =
        rows.clone().fold((0usize, 0usize), |(n, p), (_, pin)| (n + 1, p + usize::from(pin.is_some())));
    // the marker, where the goal is above nothing
    let marker = (goal.bytes >= goal.align).then(|| CoreBuffer {
        def: goal.at,
        last_use: goal.at,
        bytes: goal.align,
        address: Some(goal.bytes - goal.align),
        align: 1,
    });
    let all = len + usize::from(marker.is_some());
    let pairs = overlapping_pairs_of(rows.clone().map(|(i, _)| (problem.row(i).lower, problem.row(i).upper)));
    let fixed = pinned + usize::from(marker.is_some());
    let mut host = front_end_storage(all, fixed, pairs, Strategy::Auto, limits.work, adjacency);
    let buffers = rows
        .map(|(i, pin)| {
            let r = problem.row(i);
            CoreBuffer {
                def: r.lower as u32,
                last_use: (r.upper - 1) as u32,
                bytes: r.size,
                address: pin,
                align: problem.alignment(i),
            }
        })
        .chain(marker);
    let cfg = PlanConfig { window: u64::MAX, cc: CcSize::Mib(0), strategy: Strategy::Auto };
    let mut keep_going = || Instant::now() < limits.until;
    let mut left = || nanos_until(limits.until);
    let mut budget = Budget {
        max_nodes,
        work: limits.work,
        repair_work: u64::MAX,
        keep_going: &mut keep_going,
        claim: None,
        nanos_left: Some(&mut left),
    };
    let mut ws = host.workspace();
    let plan =
        plan_buffer_iter_with(Counted { inner: buffers, left: all }, align, &cfg, &mut ws, &mut budget)
            .ok()?;
    let offsets = host.infos()[..len].iter().map(|i| i.address).collect();
    Some(Planned { offsets, pinned, metrics: plan.metrics, members: plan.members })
}

/// An iterator that yields `left` items, as an exact-size one.
struct Counted<I> {
    inner: I,
    left: usize,
}

impl<I: Iterator> Iterator for Counted<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some(item)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator> ExactSizeIterator for Counted<I> {}

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
/// assert_eq!(lines[2], "section 2 from instant 500: 517 buffers and 3 pinned, peak 95 bytes (0.9500 x LB), \
///     plan from its auto member");
/// let alone = Split { crossing: 0, crossing_hwm: 0, ..split };
/// assert_eq!(split_lines(&alone, 100)[0], "split in 2 time sections at instant 500, one per thread: no buffer crosses a cut");
/// ```
pub fn split_lines(split: &Split, lower_bound: u64) -> Vec<String> {
    let mut out = Vec::new();
    let cuts: Vec<String> = split.cuts.iter().map(u64::to_string).collect();
    let crossing = match split.crossing {
        0 => "no buffer crosses a cut".to_owned(),
        c => format!(
            "{c} buffer{} cross{} a cut, planned first by auto (peak {} bytes) and pinned in the sections they reach",
            if c == 1 { "" } else { "s" },
            if c == 1 { "es" } else { "" },
            split.crossing_hwm
        ),
    };
    out.push(format!(
        "split in {} time sections at instant{} {}, one per thread: {crossing}",
        split.sections.len(),
        if split.cuts.len() == 1 { "" } else { "s" },
        cuts.join(", "),
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
            "section {} from instant {}: {} buffers and {} pinned, peak {} bytes ({:.4} x LB), plan from its \
             {kept} member{improved}",
            s + 1,
            sec.from,
            sec.own,
            sec.pinned,
            sec.hwm,
            crate::quality::peak_ratio(sec.hwm, lower_bound),
        ));
        for line in crate::quality::member_lines::member_lines(&sec.members, sec.members.lower_bound, None) {
            out.push(format!("  {line}"));
        }
    }
    out
}
