//! The host memory an execution needs, estimated before it runs, and the memory the host has.
//! Uses: arena, shared_ranges, model, planning; used by: run.
//!
//! [`estimate`] counts what [`crate::exec::executor::execute`] will allocate:
//! - **arena pages**: every 4 KiB page a write touches, committed on first touch
//!   ([`crate::exec::arena`]). The loader writes every input and weight, each op every tensor
//!   it defines, each over its aligned footprint; a page inside the shared region
//!   `[shared_base, shared_base + shared bytes)` or among the CC region's collective buffers
//!   ([`crate::exec::shared_ranges`]) is committed once in the shared arena, any
//!   other in the writing core's own arena. Each page costs [`ARENA_PAGE`] bytes of its slab
//!   plus [`PAGE_OVERHEAD`] for its page-table entry.
//! - **slab rounding**: an arena hands its pages out of 64 MiB slabs in first-touch order,
//!   which the kernel commits as they are touched, in 2 MiB huge pages where it can: each
//!   arena (every core's and the shared one) commits at most [`HUGE_PAGE`] bytes past its
//!   pages. Slabs an earlier execution in the same process left in the reuse pool (at most
//!   16) are not counted: `dramalloc run` executes once.
//! - no fingerprint buffer: the executor writes and checks fingerprints in place in the
//!   arena's pages (`SparseArena::fill_with`, `find_in`), so a tensor of any size costs only
//!   its pages.
//! - **bookkeeping**: [`BOOKKEEPING_PER_ITEM`] bytes per instruction, location and cross-core
//!   edge (the executor's wait lists, def tables and shared-entry maps).
//!
//! [`available`] reads what the host can give: `MemAvailable` of `/proc/meminfo`, lowered to
//! the cgroup v2 limit minus its usage when one is set (`/sys/fs/cgroup/memory.max`,
//! `memory.current`). Elsewhere it returns `None` and the caller cannot check.

use crate::exec::arena::ARENA_PAGE;
use crate::exec::shared_ranges::SharedRanges;
use crate::model::SimModel;
use crate::planning::PlannedModel;

/// Host bytes per committed arena page beyond its 4096 data bytes: the page-table entry (an
/// 8-byte page number and a 4-byte slot, 16 bytes with padding and a control byte, at a hash
/// table's load factor, which after a growth can be as low as 7/16). An upper estimate.
pub const PAGE_OVERHEAD: u64 = 64;

/// The kernel's transparent huge page, bytes: the most an arena's last slab commits past its
/// pages (the arena asks for huge pages; without them the kernel commits 4 KiB pages).
pub const HUGE_PAGE: u64 = 2 << 20;

/// Host bytes per instruction, location and cross-core edge for the executor's tables.
pub const BOOKKEEPING_PER_ITEM: u64 = 32;

/// What an execution will need, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostEstimate {
    /// Arena pages that will be committed (private arenas of all cores and the shared arena).
    pub arena_pages: u64,
    /// Host bytes of those pages, their overhead included.
    pub arena_bytes: u64,
    /// Slab rounding of all arenas: at most one [`HUGE_PAGE`] each.
    pub slab_slack_bytes: u64,
    /// The executor's tables.
    pub bookkeeping_bytes: u64,
}

impl HostEstimate {
    /// Everything, bytes (saturating).
    pub fn total(&self) -> u64 {
        self.arena_bytes.saturating_add(self.slab_slack_bytes).saturating_add(self.bookkeeping_bytes)
    }
}

/// Pages in the union of inclusive page ranges (sorted here). O(n log n).
fn union_pages(ranges: &mut [(u64, u64)]) -> u64 {
    ranges.sort_unstable();
    let (mut pages, mut end) = (0u64, None::<u64>);
    for &(a, b) in ranges.iter() {
        let from = match end {
            Some(e) if a <= e => e + 1,
            _ => a,
        };
        if b >= from {
            pages += b - from + 1;
        }
        end = Some(end.map_or(b, |e| e.max(b)));
    }
    pages
}

/// The check made before an execution (`dramalloc run`, the fault campaign): the estimate of
/// executing `plan` when it needs more than `limit` bytes, else `None`.
pub fn over_limit(model: &SimModel, plan: &PlannedModel, limit: u64) -> Option<HostEstimate> {
    let needed = estimate(model, plan);
    (needed.total() > limit).then_some(needed)
}

/// Estimates the host memory [`crate::exec::executor::execute`] needs for `plan` (see the
/// module docs). Unaddressed tensors are left out (the executor stops at the first one).
/// O(operands + tensors log tensors).
pub fn estimate(model: &SimModel, plan: &PlannedModel) -> HostEstimate {
    let region = SharedRanges::of(plan);
    let page = |a: u64| a / ARENA_PAGE;
    let mut shared: Vec<(u64, u64)> = Vec::new();
    let (mut pages, mut items) = (0u64, plan.edges.len() as u64);
    for (k, c) in model.cores.iter().enumerate() {
        let pl = &plan.placements[k];
        let mut written = vec![false; c.locations.len()];
        for (l, kind) in c.kinds.iter().enumerate() {
            written[l] |= kind.is_loaded();
        }
        for o in &c.operands {
            if o.access == dramalloc_core::liveness::program::Access::Def {
                if let Some(w) = written.get_mut(o.location as usize) {
                    *w = true;
                }
            }
        }
        let mut private: Vec<(u64, u64)> = Vec::new();
        for (l, p) in pl.iter().enumerate() {
            let (Some(a), true) = (p.address, written[l] && p.aligned > 0) else { continue };
            let end = a.saturating_add(p.aligned);
            // split at the shared ranges, as the executor's writes are
            region.split(a, end, |lo, hi, is_shared| {
                let v = if is_shared { &mut shared } else { &mut private };
                v.push((page(lo), page(hi - 1)));
            });
        }
        pages = pages.saturating_add(union_pages(&mut private));
        items += (c.instructions.len() + c.locations.len()) as u64;
    }
    pages = pages.saturating_add(union_pages(&mut shared));
    HostEstimate {
        arena_pages: pages,
        arena_bytes: pages.saturating_mul(ARENA_PAGE + PAGE_OVERHEAD),
        // every core's arena and the shared one
        slab_slack_bytes: (model.cores.len() as u64 + 1).saturating_mul(HUGE_PAGE),
        bookkeeping_bytes: items.saturating_mul(BOOKKEEPING_PER_ITEM),
    }
}

/// Bytes of a `/proc/meminfo` field (`NAME:  N kB`).
fn meminfo_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.split(':').next() == Some(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Host memory available to this process, bytes: `MemAvailable` of `/proc/meminfo`, or
/// less when a cgroup v2 limit leaves less; `None` where neither can be read (not Linux).
pub fn available() -> Option<u64> {
    let meminfo =
        std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| meminfo_field(&t, "MemAvailable"));
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|t| t.trim().parse::<u64>().ok());
    let cgroup = read("/sys/fs/cgroup/memory.max")
        .map(|max| max.saturating_sub(read("/sys/fs/cgroup/memory.current").unwrap_or(0)));
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_union_counts_each_page_once() {
        assert_eq!(union_pages(&mut []), 0);
        assert_eq!(union_pages(&mut [(5, 9), (0, 1), (8, 12), (12, 12), (20, 20)]), 2 + 8 + 1);
    }

    #[test]
    fn meminfo_reads_kilobytes() {
        let t = "MemTotal:       24576000 kB\nMemAvailable:   1000 kB\n";
        assert_eq!(meminfo_field(t, "MemAvailable"), Some(1_024_000));
        assert_eq!(meminfo_field(t, "SwapFree"), None);
    }
}
