//! `place::seed::search` (`place_in_gap`, `search`) and `select::place_one` at their
//! boundaries (issue 18): exact fits, the page-straddle rule at `size == align`, nested and
//! touching occupied ranges, best-fit ties, the ceiling clamp and the exact `DoesNotFit`
//! fields.

use dramalloc_core::place::seed::search::{place_in_gap, search, Fit, Found, Span};
use dramalloc_core::place::seed::select::{place_one, Regions};
use dramalloc_core::{Info, PlanError};

const P: u64 = 4096;

#[test]
fn place_in_gap_boundaries() {
    assert_eq!(place_in_gap(0, P, P, P), Some(0), "exact fit");
    assert_eq!(place_in_gap(0, P - 1, P, P), None, "one byte short");
    assert_eq!(place_in_gap(0, 10, 0, P), None, "zero size");
    assert_eq!(place_in_gap(0, 10, 1, 0), None, "zero alignment");
    assert_eq!(place_in_gap(10, 9, 1, P), None, "inverted gap");
    // size == align, not page aligned: straddles, bumped to the next boundary.
    assert_eq!(place_in_gap(5000, 20000, P, P), Some(8192));
    // size one over a page: placed at lo.
    assert_eq!(place_in_gap(5000, 20000, P + 1, P), Some(5000));
    // Bumped position fits exactly, then one byte short.
    assert_eq!(place_in_gap(5000, 12288, P, P), Some(8192));
    assert_eq!(place_in_gap(5000, 12287, P, P), None);
    // Ends on the last byte of its page: stays.
    assert_eq!(place_in_gap(4000, 5000, 96, P), Some(4000));
    assert_eq!(place_in_gap(4000, 4150, 97, P), None, "straddles, and 4096 + 97 > 4150");
    assert_eq!(place_in_gap(4000, 4193, 97, P), Some(4096));
    // A page-aligned lo with a page-sized object.
    assert_eq!(place_in_gap(8192, 12288, P, P), Some(8192));
    // Alignment 1: never straddles.
    assert_eq!(place_in_gap(3, 7, 4, 1), Some(3));
    // Other alignments: 100-byte pages.
    assert_eq!(place_in_gap(150, 400, 60, 100), Some(200));
    assert_eq!(place_in_gap(150, 400, 50, 100), Some(150));
}

#[test]
fn search_on_nested_and_touching_ranges() {
    // [0,10000) contains [100,200): the gap starts at 10000, not 200.
    let mut occ = [Span { lo: 100, hi: 200 }, Span { lo: 0, hi: 10000 }];
    let f = search(&mut occ, 100, 0, 1 << 20, 1, Fit::First);
    assert_eq!(f, Found { address: Some(10000), largest_gap: (1 << 20) - 10000 });
    assert_eq!(occ, [Span { lo: 0, hi: 10000 }, Span { lo: 100, hi: 200 }], "sorted in place");
    // Touching ranges leave no gap between them.
    let mut occ = [Span { lo: 0, hi: 50 }, Span { lo: 50, hi: 90 }, Span { lo: 100, hi: 120 }];
    let f = search(&mut occ, 10, 0, 200, 1, Fit::First);
    assert_eq!(f, Found { address: Some(90), largest_gap: 10 });
    let f = search(&mut occ, 11, 0, 200, 1, Fit::First);
    assert_eq!(f, Found { address: Some(120), largest_gap: 80 });
}

#[test]
fn search_largest_gap_and_ceiling() {
    let mut occ = [Span { lo: 10, hi: 20 }, Span { lo: 50, hi: 60 }];
    // Nothing fits 31 bytes below 80: gaps [0,10) [20,50) [60,80).
    assert_eq!(search(&mut occ, 31, 0, 80, 1, Fit::First), Found { address: None, largest_gap: 30 });
    // The last gap is clamped at the ceiling: exactly 20 bytes at 60.
    assert_eq!(search(&mut occ, 20, 55, 80, 1, Fit::First), Found { address: Some(60), largest_gap: 20 });
    assert_eq!(search(&mut occ, 21, 55, 80, 1, Fit::First), Found { address: None, largest_gap: 20 });
    // A range crossing the ceiling: the gap below it is clamped too.
    let mut occ = [Span { lo: 70, hi: 200 }];
    assert_eq!(search(&mut occ, 10, 65, 68, 1, Fit::First), Found { address: None, largest_gap: 3 });
    assert_eq!(search(&mut occ, 3, 65, 68, 1, Fit::First), Found { address: Some(65), largest_gap: 3 });
    // Start at or above the ceiling: no gap at all.
    assert_eq!(search(&mut occ, 1, 80, 80, 1, Fit::First), Found { address: None, largest_gap: 0 });
    let mut none: [Span; 0] = [];
    assert_eq!(search(&mut none, 1, 90, 80, 1, Fit::First), Found { address: None, largest_gap: 0 });
    assert_eq!(search(&mut none, 10, 70, 80, 1, Fit::First), Found { address: Some(70), largest_gap: 10 });
}

#[test]
fn first_fit_stops_at_the_first_gap_and_reports_only_what_it_saw() {
    let mut occ = [Span { lo: 10, hi: 20 }, Span { lo: 100, hi: 110 }];
    // [0,10) fits 5: largest seen is 10, the 80-byte gap after it is never looked at.
    assert_eq!(search(&mut occ, 5, 0, 1000, 1, Fit::First), Found { address: Some(0), largest_gap: 10 });
    // Best fit looks at every gap.
    assert_eq!(search(&mut occ, 5, 0, 1000, 1, Fit::Best), Found { address: Some(0), largest_gap: 890 });
}

#[test]
fn best_fit_ties_go_low_and_smaller_wins() {
    // Gaps [0,10) [20,30) [40,1000): two equal 10-byte gaps.
    let mut occ = [Span { lo: 10, hi: 20 }, Span { lo: 30, hi: 40 }];
    assert_eq!(search(&mut occ, 8, 0, 1000, 1, Fit::Best).address, Some(0));
    // Gaps [0,12) [20,30): the smaller, later one.
    let mut occ = [Span { lo: 12, hi: 20 }, Span { lo: 30, hi: 40 }];
    assert_eq!(search(&mut occ, 8, 0, 1000, 1, Fit::Best).address, Some(20));
    // The tail gap is the only fit.
    assert_eq!(search(&mut occ, 13, 0, 1000, 1, Fit::Best).address, Some(40));
}

fn info(location: u32, aligned: u64) -> Info {
    Info { location, aligned, bytes: aligned, ..Info::default() }
}

#[test]
fn place_one_general_then_cc_then_does_not_fit() {
    let regions = Regions { start: 100, general_ceiling: 200, window: 300, align: 1 };
    let mut occ = [Span { lo: 100, hi: 150 }];
    assert_eq!(place_one(&mut occ, &info(0, 50), regions, Fit::First), Ok(150));
    // 51 bytes: not in [150,200), so the CC region [200,300).
    assert_eq!(place_one(&mut occ, &info(0, 51), regions, Fit::First), Ok(200));
    // 101 bytes: neither; first fit unbounded from start would need 150 + 101.
    assert_eq!(
        place_one(&mut occ, &info(7, 101), regions, Fit::First),
        Err(PlanError::DoesNotFit { location: 7, size: 101, needed: 251, available: 200, largest_gap: 50 })
    );
    // No CC region (window == general ceiling).
    let tight = Regions { window: 200, ..regions };
    assert_eq!(
        place_one(&mut occ, &info(3, 51), tight, Fit::Best),
        Err(PlanError::DoesNotFit { location: 3, size: 51, needed: 201, available: 200, largest_gap: 50 })
    );
    // An occupied range in the CC region.
    let mut occ = [Span { lo: 100, hi: 200 }, Span { lo: 200, hi: 260 }];
    assert_eq!(place_one(&mut occ, &info(0, 40), regions, Fit::First), Ok(260));
    assert_eq!(
        place_one(&mut occ, &info(1, 41), regions, Fit::First),
        Err(PlanError::DoesNotFit { location: 1, size: 41, needed: 301, available: 200, largest_gap: 0 })
    );
}

#[test]
fn place_one_needed_saturates() {
    let regions = Regions { start: 0, general_ceiling: 10, window: 10, align: 1 };
    let mut occ = [Span { lo: 0, hi: u64::MAX - 5 }];
    assert_eq!(
        place_one(&mut occ, &info(2, 10), regions, Fit::First),
        Err(PlanError::DoesNotFit { location: 2, size: 10, needed: u64::MAX, available: 10, largest_gap: 0 })
    );
    let mut occ = [Span { lo: 0, hi: u64::MAX - 10 }];
    assert_eq!(
        place_one(&mut occ, &info(2, 4), regions, Fit::First),
        Err(PlanError::DoesNotFit {
            location: 2,
            size: 4,
            needed: u64::MAX - 6,
            available: 10,
            largest_gap: 0
        })
    );
}

#[test]
fn best_fit_compares_gap_lengths_not_ends() {
    // From 100: gaps [100,110) (10 bytes) then [120,140) (20 bytes); 8 bytes go in the first.
    let mut occ = [Span { lo: 110, hi: 120 }, Span { lo: 140, hi: 1000 }];
    assert_eq!(search(&mut occ, 8, 100, 1000, 1, Fit::Best), Found { address: Some(100), largest_gap: 20 });
    // The later, smaller gap wins over an earlier larger one that starts above 0.
    let mut occ = [Span { lo: 130, hi: 140 }, Span { lo: 150, hi: 1000 }];
    assert_eq!(search(&mut occ, 8, 100, 1000, 1, Fit::Best), Found { address: Some(140), largest_gap: 30 });
}
