//! `auto`'s time sections (`dramalloc_sim::quality::time_split`): where the cuts go, which
//! buffers cross them, that the union of the sections' plans is valid and is each section
//! planned alone by `auto`, and where the split is refused.

use std::time::{Duration, Instant};

use dramalloc_core::Strategy;
use dramalloc_sim::input::{Problem, Row};
use dramalloc_sim::quality::generate::Shape;
use dramalloc_sim::quality::problem::{solve_limited, Limits};
use dramalloc_sim::quality::time_split::{choose_cuts, solve_split, NotSplit, MAX_PINNED_SHARE};
use dramalloc_sim::verify::verify;

/// A budget that affords the sweep and a short repair, with a clock a minute away: the plans
/// do not depend on the machine.
fn limits(threads: usize) -> Limits {
    Limits { work: 20 * 12_000 * 13 + 3_000_000, until: Instant::now() + Duration::from_secs(60), threads }
}

/// The rows of `p` (ids, numbers) that `keep` selects, in order, the ones `pin` names fixed at
/// its offset.
fn section(
    p: &Problem,
    keep: impl Fn(Row) -> bool,
    pin: impl Fn(usize) -> Option<u64>,
) -> (Problem, Vec<usize>) {
    let mut out = Problem::default();
    let mut index = Vec::new();
    for k in 0..p.len() {
        if keep(p.row(k)) || pin(k).is_some() {
            let at = out.push(p.id(k), p.row(k));
            out.set_fixed(at, pin(k));
            index.push(k);
        }
    }
    (out, index)
}

/// 12,000 `mixed` buffers (seed 5) in two sections: the cut (the fewest bytes crossing, 26,524,160,
/// among the instants where 5,250 to 6,750 buffers have started), the buffers crossing it, a valid
/// union, its peak that of the higher section, and each section's plan that of `auto` on the
/// section alone, the crossing buffers pinned where the split planned them, with the goal's
/// marker, which raises each section's bound to the whole problem's.
#[test]
fn two_sections_make_the_plans_of_auto_on_each() {
    let p = Shape::Mixed.generate(12_000, 5);
    let cuts = choose_cuts(&p, 2);
    assert_eq!(cuts, vec![5_304]);
    let c = cuts[0];
    let crossing: Vec<usize> = (0..p.len()).filter(|&k| p.row(k).lower < c && c < p.row(k).upper).collect();
    assert_eq!(crossing.len(), 64);
    let sol = solve_split(&p, 1, limits(2), u64::MAX).expect("two sections");
    let split = sol.split.as_deref().expect("the split's report");
    assert_eq!((split.cuts.clone(), split.crossing, split.sections.len()), (vec![5_304], 64, 2));
    assert_eq!(
        split.sections.iter().map(|s| (s.from, s.own, s.pinned)).collect::<Vec<_>>(),
        [(0, 5_240, 64), (5_304, 6_696, 64)]
    );
    let report = verify(&p, &p.with_offsets(&sol.offsets), 1, None).expect("a valid plan");
    assert_eq!(report.peak, sol.metrics.hwm);
    assert_eq!(sol.metrics.lower_bound, dramalloc_sim::quality::max_load(&p, 1));
    assert_eq!(sol.metrics.hwm, split.sections.iter().map(|s| s.hwm).max().unwrap());
    // each section alone, with the goal's marker (a fixed 1-byte row ending at the whole
    // problem's bound, after the last instant): the same offsets
    let pinned = |k: usize| crossing.contains(&k).then(|| sol.offsets[k]);
    let bound = sol.metrics.lower_bound;
    let end = p.rows().iter().map(|r| r.upper).max().unwrap();
    let mut own_bounds = Vec::new();
    for s in 0..2 {
        let (mut alone, index) =
            section(&p, |r: Row| if s == 0 { r.upper <= c } else { r.lower >= c }, pinned);
        own_bounds.push(dramalloc_sim::quality::max_load(&alone, 1));
        let marker = alone.push("goal", Row { lower: end, upper: end + 1, size: 1 });
        alone.set_fixed(marker, Some(bound - 1));
        let solo = solve_limited(&alone, 1, None, Strategy::Auto, limits(1), u64::MAX).unwrap();
        let theirs: Vec<u64> = index.iter().map(|&k| sol.offsets[k]).collect();
        assert_eq!(solo.offsets[..index.len()], theirs, "section {s}");
        assert_eq!(solo.metrics.hwm, split.sections[s].hwm, "section {s}");
    }
    // the second section's own bound is below the whole's; the goal raised it
    assert_eq!((own_bounds[0], own_bounds[1], bound), (57_896_192, 56_814_080, 57_896_192));
    assert_eq!(split.sections.iter().map(|s| s.lower_bound).collect::<Vec<_>>(), [bound, bound]);
}

/// Refused: one thread, too few rows for two sections, a fixed buffer, and cuts that cross
/// more than one buffer in `MAX_PINNED_SHARE` (a layered training step: the activations live
/// from the forward pass to the backward one).
#[test]
fn the_split_is_refused_where_it_does_not_apply() {
    let p = Shape::Mixed.generate(12_000, 5);
    assert_eq!(solve_split(&p, 1, limits(1), u64::MAX).err(), Some(NotSplit::OneThread));
    let small = Shape::Mixed.generate(8_191, 5);
    assert_eq!(solve_split(&small, 1, limits(2), u64::MAX).err(), Some(NotSplit::FewRows));
    let mut fixed = p.clone();
    fixed.set_fixed(3, Some(0));
    assert_eq!(solve_split(&fixed, 1, limits(2), u64::MAX).err(), Some(NotSplit::Fixed));
    let layered = Shape::Layered.generate(12_000, 5);
    let c = choose_cuts(&layered, 2)[0];
    let crossing = layered.rows().iter().filter(|r| r.lower < c && c < r.upper).count();
    assert!(crossing * MAX_PINNED_SHARE > layered.len(), "{crossing}");
    // (its crossing bytes are past half the bound too, and that is tested first)
    let bound = dramalloc_sim::quality::max_load(&layered, 1);
    let bytes: u64 = layered.rows().iter().filter(|r| r.lower < c && c < r.upper).map(|r| r.size).sum();
    assert!(bytes * 2 > bound, "{bytes} of {bound}");
    assert_eq!(
        solve_split(&layered, 1, limits(2), u64::MAX).err(),
        Some(NotSplit::CrossingBytes { bytes, lower_bound: bound })
    );
}

/// A cut never leaves a section empty, and with instants sparser than four a buffer the
/// cuts stay on the coarser grid they are chosen on and still split the buffers in halves.
#[test]
fn cuts_on_sparse_instants() {
    let mut p = Problem::default();
    for t in 0..100u64 {
        p.push(&t.to_string(), Row { lower: t * 1000, upper: t * 1000 + 10, size: 8 });
    }
    // the span is 99,010 instants: cuts at multiples of 248 (400 slots); half the buffers
    // started at the first multiple past 49,000 (the 50th's start), and it crosses none
    let cuts = choose_cuts(&p, 2);
    assert_eq!(cuts, vec![49_104]);
    assert_eq!(p.rows().iter().filter(|r| r.lower < cuts[0]).count(), 50);
    assert_eq!(choose_cuts(&p, 4), vec![24_056, 49_104, 74_152]);
    // the grid starts at the first start: the same rows moved near the end of the 32-bit
    // instants get the same cuts, moved
    let shift = (1u64 << 32) - 200_000;
    let mut far = Problem::default();
    for (id, r) in p.iter() {
        far.push(id, Row { lower: r.lower + shift, upper: r.upper + shift, size: r.size });
    }
    assert_eq!(choose_cuts(&far, 2), vec![shift + 49_104]);
}

/// Refused where a cut's crossing buffers carry more than half the bound, however few they
/// are: 10,000 one-step buffers of 1 byte and three of 10^6 bytes over all 10,000 steps (3
/// crossing buffers, within the 1 in 64; 3,000,000 of the bound's 3,000,001 bytes); and
/// where more than 1 in 64 cross, however small.
#[test]
fn the_split_is_refused_where_the_crossing_bytes_are_most_of_the_bound() {
    let mut p = Problem::default();
    for t in 0..10_000u64 {
        p.push(&t.to_string(), Row { lower: t, upper: t + 1, size: 1 });
    }
    for k in 0..3 {
        p.push(&format!("long{k}"), Row { lower: 0, upper: 10_000, size: 1_000_000 });
    }
    assert_eq!(dramalloc_sim::quality::max_load(&p, 1), 3_000_001);
    let cuts = choose_cuts(&p, 2);
    assert_eq!(cuts.len(), 1);
    assert_eq!(p.rows().iter().filter(|r| r.lower < cuts[0] && cuts[0] < r.upper).count(), 3);
    assert_eq!(
        solve_split(&p, 1, limits(2), u64::MAX).err(),
        Some(NotSplit::CrossingBytes { bytes: 3_000_000, lower_bound: 3_000_001 })
    );
    // the long buffers of 1 byte and the others of 10 (3 of the bound's 13 bytes cross): split
    let mut q = Problem::default();
    for (id, r) in p.iter() {
        q.push(id, Row { size: if r.size == 1 { 10 } else { 1 }, ..r });
    }
    assert!(solve_split(&q, 1, limits(2), u64::MAX).is_ok());
    // 200 long buffers of 1 byte: few bytes, but more than 1 in 64 of the 10,200 buffers
    let mut many = Problem::default();
    for t in 0..10_000u64 {
        many.push(&t.to_string(), Row { lower: t, upper: t + 1, size: 1000 });
    }
    for k in 0..200 {
        many.push(&format!("long{k}"), Row { lower: 0, upper: 10_000, size: 1 });
    }
    assert_eq!(
        solve_split(&many, 1, limits(2), u64::MAX).err(),
        Some(NotSplit::Crossing { buffers: 200, of: 10_200 })
    );
}

/// The cuts as chosen before 2026-12-07, written plainly: every candidate instant scanned for
/// each cut, O(K × instants) (the choice now scans only the run of instants each cut may take,
/// found by bisection).
fn cuts_plain(problem: &Problem, sections: usize) -> Vec<u64> {
    let rows = problem.rows();
    let n = rows.len() as u64;
    let t0 = rows.iter().map(|r| r.lower).min().unwrap();
    let span = rows.iter().map(|r| r.upper - t0).max().unwrap();
    let w = span.div_ceil(4 * n).max(1);
    let slots = (span / w) as usize + 2;
    // (crossing bytes, buffers started before) at each candidate `t0 + b w`
    let at: Vec<(u64, u64)> = (0..=slots as u64)
        .map(|b| {
            let c = t0 + b * w;
            let crossing = rows.iter().filter(|r| r.lower < c && c < r.upper).map(|r| r.size).sum();
            (crossing, rows.iter().filter(|r| r.lower < c).count() as u64)
        })
        .collect();
    let k64 = sections as u64;
    let slack = n / (8 * k64);
    let mut cuts: Vec<u64> = Vec::new();
    for k in 1..k64 {
        let ideal = n * k / k64;
        let (lo, hi) = (ideal.saturating_sub(slack).max(1), (ideal + slack).min(n - 1));
        let best = (1..=slots)
            .filter(|&b| (lo..=hi).contains(&at[b].1) && (b as u64) * w < span)
            .filter(|&b| cuts.last().is_none_or(|&c| t0 + (b as u64) * w > c))
            .min_by_key(|&b| (at[b].0, at[b].1.abs_diff(ideal)));
        if let Some(b) = best {
            cuts.push(t0 + b as u64 * w);
        }
    }
    cuts
}

/// The cuts are those of the plain scan of every candidate for every cut, for 2 to 9 sections
/// of 3,000 buffers of every generated shape, on dense instants and on instants spread 37
/// apart (a coarser grid).
#[test]
fn the_cuts_are_those_of_the_plain_scan() {
    let mut checked = 0;
    for shape in Shape::ALL {
        let dense = shape.generate(3_000, 7);
        let mut sparse = Problem::default();
        for (id, r) in dense.iter() {
            sparse.push(id, Row { lower: r.lower * 37 + 5, upper: r.upper * 37 + 5, size: r.size });
        }
        for p in [&dense, &sparse] {
            for k in 2..10 {
                let cuts = choose_cuts(p, k);
                assert_eq!(cuts, cuts_plain(p, k), "{} with {k} sections", shape.name());
                checked += cuts.len();
            }
        }
    }
    // (every shape gets all its cuts: 8 shapes-and-spacings x (1 + ... + 8) cuts)
    assert_eq!(checked, 8 * 36);
}
