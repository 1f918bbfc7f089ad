//! First fit with each buffer's own alignment, unpadded: the plans padding and the common
//! alignment miss.
//! Uses: input, settle, common_alignment; used by: problem.rs (`solve_limited`), cli/plan.rs.
//!
//! The core honours a buffer's own alignment by padding its footprint, or the front end plans
//! at the common alignment of all buffers (`common_alignment.rs`); [`crate::quality::settle`]
//! then moves buffers down, in address order only. Both lose where the padding or the
//! rounding is large next to the sizes, and most where fixed buffers leave holes the padded
//! footprint no longer fits: three buffers, one of 11 bytes aligned to 100 and one fixed at
//! byte 48, peak at 111 bytes padded and settled, where 58 is possible (the 11 bytes at 0).
//!
//! [`aligned_first_fit`] places the free buffers one after another in each of [`ORDERS`] at
//! the lowest multiple of `lcm(align, own alignment)` where the buffer's footprint
//! `align_up(size, align)` meets no fixed or already placed buffer live with it (first fit
//! over the pairs of buffers live together, as `settle` lists them), settles each result and
//! returns the lowest. On 1,200 random 2–5-buffer cases with alignments up to 100 and up to
//! two fixed rows (a try-and-break script against an exhaustive search, 2026-12-05), `auto`'s
//! plan was above the optimum in 53 of 800 before, worst 2.2 ×; with these plans kept where
//! lower, see the README's per-buffer alignment entry for the figures.
//!
//! Cost per order: O(E log E) for E pairs of buffers live together, the pairs listed once
//! (`2E + n` words, at most `max_pairs` pairs).

use std::time::{Duration, Instant};

use crate::input::Problem;
use crate::quality::common_alignment::offset_alignment;
use crate::quality::settle::{lowest_fit, pairs, settle_over};

/// Nanoseconds a pair of buffers live together costs the settle, the pair list included
/// (measured 25–36 on 90,000 to 7.1 million pairs, `--strategy sweep` on aligned inputs).
pub const SETTLE_NS_PER_PAIR: u64 = 40;

/// The time a portfolio's clock leaves, before `until`, for the steps after it on a padded
/// plan: the settle, and first fit with each buffer's own alignment in its four orders, each
/// settled (about eight settles more): `9 ·` [`SETTLE_NS_PER_PAIR`] a pair live together, at
/// most half the time left (where it is more, the settle still runs, and the first fit when
/// the clock allows).
pub(crate) fn post_reserve(pairs: u64, until: Instant) -> Duration {
    let left = until.saturating_duration_since(Instant::now());
    Duration::from_nanos(pairs.saturating_mul(9 * SETTLE_NS_PER_PAIR)).min(left / 2)
}

/// The order in which [`aligned_first_fit`] places the free buffers (each descending in its
/// keys, ties by row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlignedOrder {
    /// Size, then the longer lifetime (`greedy-size`'s order).
    Size,
    /// Size, then the earlier start (`greedy-start`'s order).
    SizeStart,
    /// Size plus the padding its own alignment may cost (`lcm(align, alignment) - align`), then
    /// the longer lifetime.
    Padded,
    /// The own alignment, then size.
    Alignment,
}

/// Every order [`aligned_first_fit`] tries, in turn.
pub const ORDERS: [AlignedOrder; 4] =
    [AlignedOrder::Size, AlignedOrder::SizeStart, AlignedOrder::Padded, AlignedOrder::Alignment];

impl AlignedOrder {
    /// The order's name in `plan`'s report.
    pub fn name(self) -> &'static str {
        match self {
            AlignedOrder::Size => "size",
            AlignedOrder::SizeStart => "size-start",
            AlignedOrder::Padded => "padded size",
            AlignedOrder::Alignment => "alignment",
        }
    }
}

/// The lowest plan [`aligned_first_fit`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedFit {
    /// Each buffer's offset, bytes, in problem order.
    pub offsets: Vec<u64>,
    /// Its peak: the largest `offset + align_up(size, align)`, bytes.
    pub hwm: u64,
    /// The order that gave it.
    pub order: AlignedOrder,
    /// How many of [`ORDERS`] were planned whole before `until` (the rest were dropped, not
    /// tried or stopped, and left out).
    pub orders: usize,
    /// How many of [`ORDERS`] were dropped because some buffer had no offset below 2^64 in
    /// them (one that can only go at 0 where 0 was taken).
    pub dropped: usize,
}

/// The free buffers of `problem` placed by first fit in each of [`ORDERS`], each at a multiple
/// of `lcm(align, its own alignment)` with its footprint rounded up to `align` bytes, fixed
/// buffers where they are; each plan settled ([`crate::quality::settle::settle`]); the lowest kept (the first order on
/// ties). A buffer whose `lcm(align, alignment)` is past `u64` can only go at offset 0. `None`
/// where the pairs of buffers live together number more than `max_pairs`, every order met an
/// end past `u64`, or `until` passed before the first plan was whole (a plan is only returned
/// whole).
///
/// ```
/// use std::time::{Duration, Instant};
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::aligned_fit::{aligned_first_fit, AlignedOrder};
/// let mut p = Problem::default();
/// p.push("a", Row { lower: 0, upper: 5, size: 10 });
/// p.push("b", Row { lower: 4, upper: 7, size: 11 });
/// p.push("f", Row { lower: 3, upper: 7, size: 10 });
/// p.set_alignment(0, 8);
/// p.set_alignment(1, 100);
/// p.set_fixed(2, Some(48));
/// let fit = aligned_first_fit(&p, 1, u64::MAX, Instant::now() + Duration::from_secs(9)).unwrap();
/// // b (the largest) at 0, a at the next multiple of 8 past it, f where it is fixed
/// assert_eq!((fit.offsets, fit.hwm, fit.order, fit.orders), (vec![16, 0, 48], 58, AlignedOrder::Size, 4));
/// ```
pub fn aligned_first_fit(
    problem: &Problem,
    align: u64,
    max_pairs: u64,
    until: Instant,
) -> Option<AlignedFit> {
    let n = problem.len();
    let align = align.max(1);
    let rows = problem.rows();
    let foot = |k: usize| rows[k].size.div_ceil(align).saturating_mul(align);
    let own = |k: usize| offset_alignment(align, problem.alignment(k));
    let neighbours = pairs(problem, max_pairs)?;
    let free: Vec<u32> = (0..n as u32).filter(|&k| problem.fixed(k as usize).is_none()).collect();
    let mut best: Option<AlignedFit> = None;
    let (mut done, mut dropped) = (0, 0);
    let mut below: Vec<(u64, u64)> = Vec::new();
    'orders: for order in ORDERS {
        if Instant::now() >= until {
            break;
        }
        let mut seq = free.clone();
        let life = |k: u32| rows[k as usize].upper - rows[k as usize].lower;
        let padded = |k: u32| foot(k as usize).saturating_add(own(k as usize) - align);
        match order {
            AlignedOrder::Size => {
                seq.sort_unstable_by_key(|&k| (u64::MAX - foot(k as usize), u64::MAX - life(k), k))
            }
            AlignedOrder::SizeStart => {
                seq.sort_unstable_by_key(|&k| (u64::MAX - foot(k as usize), rows[k as usize].lower, k))
            }
            AlignedOrder::Padded => {
                seq.sort_unstable_by_key(|&k| (u64::MAX - padded(k), u64::MAX - life(k), k))
            }
            AlignedOrder::Alignment => seq.sort_unstable_by_key(|&k| {
                (u64::MAX - problem.alignment(k as usize), u64::MAX - foot(k as usize), k)
            }),
        }
        let mut offsets: Vec<u64> = (0..n).map(|k| problem.fixed(k).unwrap_or(0)).collect();
        let mut taken: Vec<bool> = (0..n).map(|k| problem.fixed(k).is_some()).collect();
        for (step, &k) in seq.iter().enumerate() {
            let k = k as usize;
            if step % 1024 == 1023 && Instant::now() >= until {
                break 'orders;
            }
            let at = lowest_fit(&neighbours, k, &taken, &offsets, foot, own(k), &mut below);
            // no offset below 2^64 in this order: the next order
            if at.checked_add(foot(k)).is_none() {
                dropped += 1;
                continue 'orders;
            }
            offsets[k] = at;
            taken[k] = true;
        }
        let hwm = settle_over(problem, &mut offsets, align, &neighbours, until).after;
        done += 1;
        if best.as_ref().is_none_or(|b| hwm < b.hwm) {
            best = Some(AlignedFit { offsets, hwm, order, orders: 0, dropped: 0 });
        }
    }
    best.map(|b| AlignedFit { orders: done, dropped, ..b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// A buffer aligned to 4096 among small ones: the size order puts the 5,000-byte one at 0
    /// and the 7-byte one aligned to 4096 above it at 8192; the alignment order puts the 7 bytes
    /// at 0 and the 5,000 bytes right past them at 7 (alignment 1), peak 5,007.
    #[test]
    fn the_lowest_order_is_kept() {
        let mut p = Problem::default();
        p.push("small", Row { lower: 0, upper: 2, size: 7 });
        p.push("large", Row { lower: 0, upper: 2, size: 5000 });
        p.set_alignment(0, 4096);
        let fit = aligned_first_fit(&p, 1, u64::MAX, later()).unwrap();
        assert_eq!((fit.offsets, fit.hwm, fit.order), (vec![0, 7], 5007, AlignedOrder::Alignment));
    }

    /// Fixed buffers stay and are obstacles from the start, whatever the order; buffers not
    /// live together share addresses; footprints round up to `align`.
    #[test]
    fn fixed_buffers_are_obstacles_from_the_start() {
        let mut p = Problem::default();
        p.push("f", Row { lower: 0, upper: 4, size: 10 });
        p.set_fixed(0, Some(0));
        p.push("a", Row { lower: 0, upper: 2, size: 30 });
        p.push("b", Row { lower: 2, upper: 4, size: 30 });
        p.set_alignment(2, 64);
        let fit = aligned_first_fit(&p, 4, u64::MAX, later()).unwrap();
        // f [0, 12) (10 rounded up to 4); a at 12; b at 64 (its own alignment past f)
        assert_eq!((fit.offsets, fit.hwm), (vec![0, 12, 64], 96));
    }

    /// An alignment whose multiple with `align` is past `u64` (a fresh-user trial's 2^61 − 1 at
    /// `--align 4096`, refused before as a size overflow) leaves offset 0 alone: one such
    /// buffer goes there, the others above it; two of them live together have no plan.
    #[test]
    fn an_alignment_past_u64_leaves_offset_zero() {
        let mut p = Problem::default();
        p.push("a", Row { lower: 0, upper: 1, size: 24 });
        p.set_alignment(0, (1 << 61) - 1);
        p.push("b", Row { lower: 0, upper: 1, size: 5000 });
        let fit = aligned_first_fit(&p, 4096, u64::MAX, later()).unwrap();
        // the size orders: b (5000 -> 8192) first takes 0, a fits nowhere: dropped; the
        // padded-size and alignment orders put a at 0 and b above it (the first kept on ties)
        assert_eq!(
            (fit.offsets, fit.hwm, fit.order, fit.orders, fit.dropped),
            (vec![0, 4096], 12_288, AlignedOrder::Padded, 2, 2)
        );
        p.set_alignment(1, (1 << 61) - 1);
        assert_eq!(aligned_first_fit(&p, 4096, u64::MAX, later()), None);
    }

    /// Past `max_pairs`, or with no time left, no plan; an alignment whose multiple past a
    /// buffer overflows gives none either.
    #[test]
    fn no_plan_past_the_pairs_the_clock_or_u64() {
        let mut p = Problem::default();
        for k in 0..3 {
            p.push(&k.to_string(), Row { lower: 0, upper: 1, size: 8 });
        }
        assert_eq!(aligned_first_fit(&p, 1, 2, later()), None);
        assert_eq!(aligned_first_fit(&p, 1, 3, Instant::now()), None);
        assert_eq!(aligned_first_fit(&p, 1, 3, later()).map(|f| f.hwm), Some(24));
        // fixed buffers at every multiple of 2^62 below 2^64: the next one past them overflows
        let mut q = Problem::default();
        for k in 0..4u64 {
            q.push(&k.to_string(), Row { lower: 0, upper: 1, size: 8 });
            q.set_fixed(k as usize, Some(k << 62));
        }
        q.push("a", Row { lower: 0, upper: 1, size: 200 });
        q.set_alignment(4, 1 << 62);
        assert_eq!(aligned_first_fit(&q, 1, 10, later()), None);
        q.set_fixed(3, None);
        // freed, the fourth goes first (size order: equal sizes, longer first, then row)
        assert_eq!(
            aligned_first_fit(&q, 1, 10, later()).map(|f| f.offsets[3..].to_vec()),
            Some(vec![8, 3 << 62])
        );
    }
}
