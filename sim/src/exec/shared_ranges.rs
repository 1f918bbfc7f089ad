//! The address ranges every core shares: the shared region and the CC region's collective buffers.
//! Uses: planning; used by: executor, host_memory.
//!
//! A shared tensor lies in one of two ranges, each one set of bytes for all cores: the shared
//! region `[shared_base, shared_base + shared bytes)` and the collective staging buffers in the
//! CC region `[collective_base, collective_base + collective bytes)`
//! ([`dramalloc_core::multicore::MultiReport`]). Every other address is a core's own.

use crate::planning::PlannedModel;

/// The shared ranges of a plan, sorted and disjoint (empty ranges dropped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedRanges(Vec<(u64, u64)>);

impl SharedRanges {
    /// The ranges of `plan` (none when it has no shared tensor).
    pub fn of(plan: &PlannedModel) -> SharedRanges {
        if plan.shared.is_empty() {
            return SharedRanges::default();
        }
        let r = &plan.report;
        let span = |base: u64, bytes: u64| (base, base.saturating_add(bytes));
        SharedRanges::new(&[
            span(r.shared_base, r.shared_region_bytes),
            span(r.collective_base, r.collective_bytes),
        ])
    }

    /// From `[start, end)` ranges (sorted here, empty ones dropped; they must not overlap).
    ///
    /// ```
    /// use dramalloc_sim::exec::shared_ranges::SharedRanges;
    /// let r = SharedRanges::new(&[(100, 200), (10, 20), (5, 5)]);
    /// assert!(r.contains(10) && !r.contains(20) && r.contains(199) && !r.contains(5));
    /// assert_eq!((r.run_end(0), r.run_end(15), r.run_end(50), r.run_end(300)), (10, 20, 100, u64::MAX));
    /// ```
    pub fn new(ranges: &[(u64, u64)]) -> SharedRanges {
        let mut v: Vec<(u64, u64)> = ranges.iter().copied().filter(|(a, b)| a < b).collect();
        v.sort_unstable();
        SharedRanges(v)
    }

    /// True when `addr` is shared.
    pub fn contains(&self, addr: u64) -> bool {
        self.0.iter().any(|&(a, b)| addr >= a && addr < b)
    }

    /// The end of the run of addresses from `addr` that are all shared or all private: the
    /// next range boundary above `addr` (`u64::MAX` past the last range).
    pub fn run_end(&self, addr: u64) -> u64 {
        self.0.iter().flat_map(|&(a, b)| [a, b]).find(|&x| x > addr).unwrap_or(u64::MAX)
    }

    /// Calls `f(lo, hi, shared)` for each piece of `[start, end)` split at the boundaries.
    pub fn split(&self, start: u64, end: u64, mut f: impl FnMut(u64, u64, bool)) {
        let mut a = start;
        while a < end {
            let hi = self.run_end(a).min(end);
            f(a, hi, self.contains(a));
            a = hi;
        }
    }
}
