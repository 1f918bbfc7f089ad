//! `auto`'s time sections (`dramalloc_sim::quality::time_split`): where the cuts go, which
//! buffers cross them, that the union of the sections' plans is valid and is each section
//! planned alone by `auto`, and where the split is refused.

use std::time::{Duration, Instant};

use dramalloc_core::Strategy;
use dramalloc_sim::input::{Problem, Row};
use dramalloc_sim::quality::generate::Shape;
use dramalloc_sim::quality::problem::{solve_limited, Limits};
use dramalloc_sim::quality::time_split::{choose_cuts, solve_split, MAX_PINNED_SHARE};
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
    assert!(solve_split(&p, 1, limits(1), u64::MAX).is_none());
    let small = Shape::Mixed.generate(8_191, 5);
    assert!(solve_split(&small, 1, limits(2), u64::MAX).is_none());
    let mut fixed = p.clone();
    fixed.set_fixed(3, Some(0));
    assert!(solve_split(&fixed, 1, limits(2), u64::MAX).is_none());
    let layered = Shape::Layered.generate(12_000, 5);
    let c = choose_cuts(&layered, 2)[0];
    let crossing = layered.rows().iter().filter(|r| r.lower < c && c < r.upper).count();
    assert!(crossing * MAX_PINNED_SHARE > layered.len(), "{crossing}");
    assert!(solve_split(&layered, 1, limits(2), u64::MAX).is_none());
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

/// The long-lived buffers are planned first too where they carry most of the bound: 20,000
/// `short` buffers (seed 3; 0.5 % live up to 20,000 steps): the 156 longest-lived (20,000 /
/// 128) are those living 44 steps or more, 160 with the ties, and alone they need 33,622,793
/// of the bound's 42,300,525 bytes. On 12,000 `mixed` buffers (seed 5) the 93 longest-lived
/// need 15,972,096 of 57,896,192: none.
#[test]
fn the_long_lived_go_first_where_they_carry_most_of_the_bound() {
    use dramalloc_sim::quality::max_load;
    use dramalloc_sim::quality::time_split::long_lived;
    let p = Shape::Short.generate(20_000, 3);
    let bound = max_load(&p, 1);
    assert_eq!(bound, 42_300_525);
    let long = long_lived(&p, 1, bound);
    assert_eq!(long.len(), 160);
    assert!(long.iter().all(|&i| p.row(i as usize).upper - p.row(i as usize).lower >= 44));
    let mut set = Problem::default();
    for &i in &long {
        set.push(p.id(i as usize), p.row(i as usize));
    }
    assert_eq!(max_load(&set, 1), 33_622_793);
    let sol = solve_split(&p, 1, limits(2), u64::MAX).expect("two sections");
    let split = sol.split.as_deref().expect("the split's report");
    assert_eq!(split.long, 160);
    // every crossing buffer is pinned in both sections, every other long-lived one in its own
    let c = split.cuts[0];
    let crosses = |i: usize| p.row(i).lower < c && c < p.row(i).upper;
    let long_alone = long.iter().filter(|&&i| !crosses(i as usize)).count();
    assert_eq!(split.crossing, (0..p.len()).filter(|&i| crosses(i)).count());
    let pinned: usize = split.sections.iter().map(|s| s.pinned).sum();
    assert_eq!(pinned, 2 * split.crossing + long_alone);
    let report = verify(&p, &p.with_offsets(&sol.offsets), 1, None).expect("a valid plan");
    assert_eq!(report.peak, sol.metrics.hwm);
    let mixed = Shape::Mixed.generate(12_000, 5);
    assert!(long_lived(&mixed, 1, max_load(&mixed, 1)).is_empty());
}
