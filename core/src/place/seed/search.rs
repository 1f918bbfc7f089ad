//! `search`: first fit into the gaps between occupied byte ranges, with page-straddle avoidance.
//! Uses: ascending; used by: portfolio, scan, select, sweep, workspace, sim.
//!
//! `search`: first-fit placement into the gaps between occupied byte ranges, with 4 KiB
//! page-straddle avoidance (seed section "First-Fit Placement — search").
//!
//! The occupied ranges (the `[address, address + aligned)` of a node's already-placed
//! interfering neighbours) are sorted by start in place (first fit: only as far as it reads); the free gaps from `start` up to the
//! region ceiling are walked in address order (streamed, not stored: the same gaps, in the
//! same order, as the seed's free list). In a gap `[lo, hi)` that is large enough, the object
//! goes at `lo` when it stays inside one page (`lo / align == (lo + size - 1) / align`) or is
//! larger than a page (`size > align`); otherwise at the next page boundary
//! `align * endPage` when `hi - align * endPage >= size`; otherwise the next gap is tried.
//! Addresses are never rounded up unconditionally.
//!
//! [`Fit::Best`] (used by the `best-fit` strategy) takes the smallest gap that fits, the lowest
//! address among equal gaps, with the same in-gap rule.
//!
//! Complexity: O(k log k) for k occupied ranges (the sort), no heap; first fit O(k + j log j)
//! expected when its walk stops after j ranges.

use crate::place::seed::ascending::Ascending;
use bytemuck::{Pod, Zeroable};

/// A byte range `[lo, hi)`. Seed: `DRAM_Allocator::Interval { u64 lo, u64 hi }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Span {
    /// First byte.
    pub lo: u64,
    /// One past the last byte.
    pub hi: u64,
}

/// Gap choice within `search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fit {
    /// The lowest gap that fits (the seed's rule).
    #[default]
    First,
    /// The smallest gap that fits; ties go to the lowest address.
    Best,
}

/// What one `search` call found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Found {
    /// The chosen address, bytes, or `None` when no gap below the ceiling fits.
    pub address: Option<u64>,
    /// The largest gap seen between `start` and the ceiling, bytes.
    pub largest_gap: u64,
}

/// Where an object of `size` bytes goes inside the free gap `[lo, hi)`, by the page-straddle
/// rule, or `None` when it does not fit there.
///
/// ```
/// use dramalloc_core::place::seed::search::place_in_gap;
/// assert_eq!(place_in_gap(5000, 20000, 4096, 4096), Some(8192)); // would straddle: bumped
/// assert_eq!(place_in_gap(5000, 20000, 8192, 4096), Some(5000)); // larger than a page
/// assert_eq!(place_in_gap(100, 200, 50, 4096), Some(100));      // inside one page
/// ```
#[inline]
pub const fn place_in_gap(lo: u64, hi: u64, size: u64, align: u64) -> Option<u64> {
    if hi < lo || hi - lo < size || size == 0 || align == 0 {
        return None;
    }
    let end_page = (lo + size - 1) / align;
    if lo / align == end_page || size > align {
        Some(lo)
    } else {
        let boundary = align * end_page;
        if hi - boundary >= size {
            Some(boundary)
        } else {
            None
        }
    }
}

/// Finds an address for `size` bytes among the gaps left by `occupied` in
/// `[start, ceiling)`. Reorders `occupied` in place: [`Fit::Best`] sorts it by start;
/// [`Fit::First`] orders it by start only as far as its walk reads
/// ([`crate::place::seed::ascending::Ascending`]).
///
/// ```
/// use dramalloc_core::place::seed::search::{search, Fit, Span};
/// let mut occ = [Span { lo: 8192, hi: 12288 }, Span { lo: 0, hi: 4096 }];
/// let f = search(&mut occ, 4096, 0, 1 << 20, 4096, Fit::First);
/// assert_eq!(f.address, Some(4096));
/// ```
pub fn search(occupied: &mut [Span], size: u64, start: u64, ceiling: u64, align: u64, fit: Fit) -> Found {
    // by start only: the walk keeps the running maximum end, so the order of equal starts
    // does not change the gaps (and a key compare is cheaper than a pair compare); first fit
    // usually stops well before the last range, so it orders them only as far as it reads
    let ranges = if fit == Fit::Best {
        occupied.sort_unstable_by_key(|s| s.lo);
        Ascending::sorted(occupied)
    } else {
        Ascending::new(occupied)
    };
    let mut best: Option<(u64, u64)> = None; // (gap length, address)
    let mut largest = 0u64;
    let mut prev_end = start;
    let mut consider = |lo: u64, hi: u64, best: &mut Option<(u64, u64)>| -> bool {
        let hi = hi.min(ceiling);
        if hi <= lo {
            return false;
        }
        largest = largest.max(hi - lo);
        if let Some(a) = place_in_gap(lo, hi, size, align) {
            match fit {
                Fit::First => {
                    *best = Some((hi - lo, a));
                    return true;
                }
                Fit::Best => {
                    if best.is_none_or(|(len, _)| hi - lo < len) {
                        *best = Some((hi - lo, a));
                    }
                }
            }
        }
        false
    };
    for s in ranges {
        if prev_end >= ceiling {
            break;
        }
        if s.lo > prev_end && consider(prev_end, s.lo, &mut best) {
            return Found { address: best.map(|b| b.1), largest_gap: largest };
        }
        prev_end = prev_end.max(s.hi);
    }
    if prev_end < ceiling {
        consider(prev_end, ceiling, &mut best);
    }
    Found { address: best.map(|b| b.1), largest_gap: largest }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_straddle_rule_of_the_seed() {
        let mut none: [Span; 0] = [];
        // gap [5000, 20000): 4096-byte object straddles -> 8192; 8192-byte object -> 5000
        assert_eq!(search(&mut none, 4096, 5000, 20000, 4096, Fit::First).address, Some(8192));
        assert_eq!(search(&mut none, 8192, 5000, 20000, 4096, Fit::First).address, Some(5000));
        // sub-page object inside one page stays at the raw start
        assert_eq!(search(&mut none, 96, 5000, 20000, 4096, Fit::First).address, Some(5000));
        // straddling object whose bumped position does not fit: next gap
        let mut occ = [Span { lo: 8200, hi: 16384 }];
        assert_eq!(search(&mut occ, 4096, 5000, 20480, 4096, Fit::First).address, Some(16384));
    }

    #[test]
    fn first_fit_takes_lowest_gap_best_fit_smallest() {
        let mut occ =
            [Span { lo: 4096, hi: 8192 }, Span { lo: 16384, hi: 20480 }, Span { lo: 24576, hi: 28672 }];
        // gaps: [0,4096) [8192,16384) [20480,24576) [28672,ceil)
        let f = search(&mut occ, 4096, 0, 1 << 20, 4096, Fit::First);
        assert_eq!(f.address, Some(0));
        let f = search(&mut occ, 8192, 0, 1 << 20, 4096, Fit::First);
        assert_eq!(f.address, Some(8192));
        let mut occ2 = [Span { lo: 4096, hi: 8192 }, Span { lo: 16384, hi: 20480 }];
        // gaps [1024? no: start 0] [0,4096) len 4096, [8192,16384) len 8192, [20480, 1M)
        let f = search(&mut occ2, 4096, 0, 1 << 20, 4096, Fit::Best);
        assert_eq!(f.address, Some(0));
        let mut occ3 = [Span { lo: 16384, hi: 20480 }, Span { lo: 24576, hi: 28672 }];
        // gaps [0,16384) len 16384, [20480,24576) len 4096, [28672, 1M)
        let f = search(&mut occ3, 4096, 0, 1 << 20, 4096, Fit::Best);
        assert_eq!(f.address, Some(20480));
    }

    #[test]
    fn nothing_fits_reports_largest_gap() {
        let mut occ = [Span { lo: 0, hi: 4096 }, Span { lo: 8192, hi: 12288 }];
        let f = search(&mut occ, 8192, 0, 16384, 4096, Fit::First);
        assert_eq!(f, Found { address: None, largest_gap: 4096 });
    }

    #[test]
    fn ranges_below_start_are_skipped() {
        let mut occ = [Span { lo: 0, hi: 10000 }];
        let f = search(&mut occ, 4096, 4096, 1 << 20, 4096, Fit::First);
        // prev_end = max(4096, 10000) = 10000; 4096 bytes from 10000 straddles -> 12288
        assert_eq!(f.address, Some(12288));
    }
}
