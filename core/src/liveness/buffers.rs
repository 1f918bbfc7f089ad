//! Interval input: buffers that already carry one closed liveness interval each.
//! Uses: align, error, interval_tree, intervals, workspace; used by: multicore, planner.
//!
//! Interval input: buffers that already carry one closed liveness interval each (the
//! minimalloc / DSA form, or any planner front end that computed liveness itself).

use crate::align::align_up;
use crate::error::PlanError;
use crate::liveness::interval_tree::Node;
use crate::liveness::intervals::{candidate_info, Built};
use crate::workspace::Workspace;

/// A buffer live over the closed interval `[def, last_use]` (instruction indices) needing
/// `bytes` bytes, optionally pinned at `address`.
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
}

impl Buffer {
    /// A free (unpinned) buffer.
    pub const fn new(def: u32, last_use: u32, bytes: u64) -> Buffer {
        Buffer { def, last_use, bytes, address: None }
    }
    /// A buffer pinned at `address`.
    pub const fn pinned(def: u32, last_use: u32, bytes: u64, address: u64) -> Buffer {
        Buffer { def, last_use, bytes, address: Some(address) }
    }
}

/// Writes one Info record and one interval per buffer into `ws`; sizes are rounded up to
/// `align` bytes. Buffer `k` becomes Info `k` with `location = k`.
///
/// # Errors
/// [`PlanError::ZeroSize`], [`PlanError::BadInterval`] (`last_use < def`),
/// [`PlanError::SizeOverflow`], [`PlanError::MisalignedFixed`], [`PlanError::Capacity`].
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
/// As [`build_from_buffers`].
pub fn build_from_buffer_iter(
    buffers: impl ExactSizeIterator<Item = Buffer>,
    align: u64,
    ws: &mut Workspace<'_>,
) -> Result<Built, PlanError> {
    let n = buffers.len();
    ws.ensure(n, n)?;
    let mut b = Built { infos: n as u32, intervals: n as u32, ..Built::default() };
    for (k, buf) in buffers.enumerate() {
        let location = k as u32;
        if buf.bytes == 0 {
            return Err(PlanError::ZeroSize { location });
        }
        if buf.last_use < buf.def {
            return Err(PlanError::BadInterval { location, def: buf.def, last_use: buf.last_use });
        }
        let aligned =
            align_up(buf.bytes, align).ok_or(PlanError::SizeOverflow { location, bytes: buf.bytes })?;
        let mut info = candidate_info(&mut b, location, buf.bytes, aligned, buf.address, align)?;
        info.interval_count = 1;
        ws.infos[k] = info;
        ws.nodes[k] = Node::new(buf.def, buf.last_use, location);
    }
    Ok(b)
}
