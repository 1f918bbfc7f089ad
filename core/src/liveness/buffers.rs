//! Interval input: buffers that already carry one closed liveness interval each.
//! Uses: align, error, info, interval_tree, intervals, workspace; used by: multicore, planner.
//!
//! Interval input: buffers that already carry one closed liveness interval each (the
//! minimalloc / DSA form, or any planner front end that computed liveness itself).
//!
//! **Fixed offsets** are the planner's pinned candidates: an obstacle at its address, checked
//! against every other pinned buffer it interferes with ([`PlanError::PinnedOverlap`]).
//!
//! **Per-buffer alignment** (MiniMalloc's `alignment` column): a buffer whose own alignment
//! `a` asks for more than the plan's `align` must start at a multiple of
//! `A = lcm(align, a)`. The strategies only know the plan's alignment, so such a free buffer
//! is planned with a footprint padded by `A - align` bytes; every offset a strategy assigns is
//! a multiple of `align`, so the first multiple of `A` at or above it, plus the buffer's own
//! footprint, lies inside the padded one. `unpad` moves it there and restores its footprint
//! after placement (the planner then recomputes the peak and the lower bound with the real
//! footprints). The cost is at most `A - align` bytes per such buffer, the over-allocation a
//! run-time allocator makes for an aligned request.

use crate::align::align_up;
use crate::error::PlanError;
use crate::liveness::info::Info;
use crate::liveness::interval_tree::Node;
use crate::liveness::intervals::{candidate_info, Built};
use crate::workspace::Workspace;

/// A buffer live over the closed interval `[def, last_use]` (instruction indices) needing
/// `bytes` bytes, optionally pinned at `address`, optionally with its own offset alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Buffer {
    /// First instruction at which the buffer is live (its def).
    pub def: u32,
    /// Last instruction at which it is live (its last use), inclusive.
    pub last_use: u32,
    /// Size, bytes.
    pub bytes: u64,
    /// Fixed address (bytes), if pinned.
    pub address: Option<u64>,
    /// The buffer's own offset alignment, bytes (0 or 1: only the plan's alignment). Its
    /// address is a multiple of `lcm(plan alignment, align)`; see the module docs.
    pub align: u64,
}

impl Buffer {
    /// A free (unpinned) buffer.
    pub const fn new(def: u32, last_use: u32, bytes: u64) -> Buffer {
        Buffer { def, last_use, bytes, address: None, align: 0 }
    }
    /// A buffer pinned at `address`.
    pub const fn pinned(def: u32, last_use: u32, bytes: u64, address: u64) -> Buffer {
        Buffer { def, last_use, bytes, address: Some(address), align: 0 }
    }
    /// The same buffer with its own offset alignment `align` bytes (see the module docs).
    ///
    /// ```
    /// use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, StaticWorkspace};
    /// // b must start at a multiple of 64; a (40 bytes) is fixed at 0 below it.
    /// let bufs = [Buffer::pinned(0, 3, 40, 0), Buffer::new(1, 2, 8).aligned_to(64)];
    /// let mut st: StaticWorkspace<2, 2, 0> = StaticWorkspace::new();
    /// let mut ws = st.workspace();
    /// let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), ..PlanConfig::default() };
    /// let plan = plan_buffers(&bufs, 8, &cfg, &mut ws)?;
    /// assert_eq!(ws.infos[1].address, 64);
    /// assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (72, 48));
    /// # Ok::<(), dramalloc_core::PlanError>(())
    /// ```
    #[must_use]
    pub const fn aligned_to(self, align: u64) -> Buffer {
        Buffer { align, ..self }
    }
}

/// Greatest common divisor (`gcd(0, b) = b`).
const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The offset alignment of a buffer with its own alignment `own` in a plan aligned to
/// `align` (at least 1: [`build_from_buffer_iter`] refuses 0 first): `lcm(align, own)`
/// (`align` when `own` is 0 or 1, the buffer's "none"), `None` on `u64` overflow.
const fn offset_alignment(align: u64, own: u64) -> Option<u64> {
    if own <= 1 {
        return Some(align);
    }
    (align / gcd(align, own)).checked_mul(own)
}

/// Writes one Info record and one interval per buffer into `ws`; sizes are rounded up to
/// `align` bytes. Buffer `k` becomes Info `k` with `location = k`. A free buffer with its own
/// alignment above `align` gets a padded footprint (module docs).
///
/// # Errors
/// [`PlanError::BadAlignment`] when `align` is 0 (an alignment is at least 1 byte; pass 1 for
/// none), before anything else; [`PlanError::ZeroSize`], [`PlanError::BadInterval`] (`last_use < def`),
/// [`PlanError::SizeOverflow`] (also when the padded footprint or `lcm(align, buffer align)`
/// overflows), [`PlanError::MisalignedFixed`] (a fixed address that is not a multiple of
/// `lcm(align, buffer align)`), [`PlanError::Capacity`].
pub fn build_from_buffers(
    buffers: &[Buffer],
    align: u64,
    ws: &mut Workspace<'_>,
) -> Result<Built, PlanError> {
    build_from_buffer_iter(buffers.iter().copied(), align, ws)
}

/// As [`build_from_buffers`], from any exact-size iterator of buffers.
///
/// # Errors
/// As [`build_from_buffers`]; [`PlanError::IteratorLength`] when the iterator yields another
/// count than its `len()` (the workspace is sized by `len()`).
pub fn build_from_buffer_iter(
    mut buffers: impl ExactSizeIterator<Item = Buffer>,
    align: u64,
    ws: &mut Workspace<'_>,
) -> Result<Built, PlanError> {
    if align == 0 {
        return Err(PlanError::BadAlignment { align });
    }
    let n = buffers.len();
    ws.ensure(n, n)?;
    let mut b = Built { infos: n as u32, intervals: n as u32, ..Built::default() };
    let mut yielded = 0usize;
    for (k, buf) in buffers.by_ref().take(n).enumerate() {
        yielded = k + 1;
        let location = k as u32;
        if buf.bytes == 0 {
            return Err(PlanError::ZeroSize { location });
        }
        if buf.last_use < buf.def {
            return Err(PlanError::BadInterval { location, def: buf.def, last_use: buf.last_use });
        }
        let overflow = PlanError::SizeOverflow { location, bytes: buf.bytes };
        let aligned = align_up(buf.bytes, align).ok_or(overflow)?;
        let own = offset_alignment(align, buf.align).ok_or(overflow)?;
        let mut info = candidate_info(&mut b, location, buf.bytes, aligned, buf.address, own)?;
        if buf.address.is_none() && own > align {
            info.aligned = aligned.checked_add(own - align).ok_or(overflow)?;
        }
        info.interval_count = 1;
        ws.infos[k] = info;
        ws.nodes[k] = Node::new(buf.def, buf.last_use, location);
    }
    // `len()` is a promise the iterator may break: fewer or more buffers plan nothing
    if yielded < n || buffers.next().is_some() {
        let yielded = if yielded < n { yielded } else { n + 1 };
        return Err(PlanError::IteratorLength { reported: n as u64, yielded: yielded as u64 });
    }
    Ok(b)
}

/// After placement: moves every free candidate padded for its own alignment (module docs) to
/// the first multiple of that alignment at or above its address and gives it back its
/// footprint `align_up(bytes, align)`. Returns whether any candidate was padded. O(n).
///
/// Candidates of a [`crate::liveness::program::Function`] are never padded (their footprint is
/// always `align_up(bytes, align)`), so this is a no-op for them.
pub(crate) fn unpad(infos: &mut [Info], align: u64) -> bool {
    let mut padded = false;
    for info in infos.iter_mut() {
        if let Some((address, real)) = unpadded(info, align) {
            info.address = address;
            info.aligned = real;
            padded = true;
        }
    }
    padded
}

/// Where [`unpad`] would move a placed free candidate padded for its own alignment: its
/// address and footprint (bytes); `None` for one that is not padded (or pinned).
fn unpadded(info: &Info, align: u64) -> Option<(u64, u64)> {
    if info.is_pinned() {
        return None;
    }
    let real = align_up(info.bytes, align)?;
    if info.aligned <= real {
        return None;
    }
    let own = info.aligned - real + align.max(1);
    // `address` is a multiple of `align`, so the shift is at most `own - align`: the
    // moved footprint stays inside the padded one (and below the region's ceiling).
    let moved = align_up(info.address, own).unwrap_or(info.address);
    debug_assert!(moved - info.address <= own - align.max(1));
    Some((moved, real))
}

/// The peak (bytes, the highest end) the placed candidates will have once [`unpad`] has
/// moved them, without moving them: what the portfolio ranks plans of padded candidates by
/// (their padded peaks do not rank the real plans: a fresh-user trial found `auto` keeping a
/// plan that unpadded to 11,912 bytes over a member's 11,910). O(n).
pub(crate) fn unpadded_peak(infos: &[Info], align: u64) -> u64 {
    let end = |i: &Info| unpadded(i, align).map_or_else(|| i.end(), |(at, real)| at.saturating_add(real));
    infos.iter().map(end).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_alignment_is_the_lcm() {
        assert_eq!(offset_alignment(4096, 0), Some(4096));
        assert_eq!(offset_alignment(1, 64), Some(64));
        assert_eq!(offset_alignment(64, 16), Some(64));
        assert_eq!(offset_alignment(4, 6), Some(12));
        assert_eq!(offset_alignment(1 << 63, 3), None);
    }
}
