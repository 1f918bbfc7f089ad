//! Settling a plan with per-buffer alignments: every buffer moved down, in address order, to
//! the lowest offset its own alignment and the buffers below it allow.
//! Uses: input; used by: problem.rs (`solve_limited`).
//!
//! The core honours a buffer's own alignment by padding its footprint (`common_alignment.rs`
//! says why that can waste most of a plan), or the front end plans at the common alignment of
//! all buffers, which rounds every buffer up. Either plan is valid with the real footprints
//! and each buffer's own alignment, and leaves holes: two overlapping 7-byte and 5,000-byte
//! buffers, the first aligned to 4 KiB, in a plan aligned to 3 bytes, peak at 17,289 bytes
//! padded where 0 and 9 give 5,009.
//!
//! [`settle`] takes the buffers in the order of their offsets (ties by index) and moves each
//! free one to the lowest multiple of `lcm(align, its alignment)` where its footprint
//! `align_up(size, align)` meets no buffer already taken that is live with it (fixed buffers
//! stay where they are). It never raises a buffer, so it never raises the peak: a buffer's
//! old offset is still free when its turn comes, since every buffer taken before it started
//! at or below it, ended at or below it where they are live together, and only moved down.
//! It is first fit in address order over the time-overlapping pairs: O(E log E) for E pairs
//! of buffers live together, the pairs listed once (`2E + n` words).

use std::time::Instant;

use crate::input::Problem;
use crate::quality::common_alignment::lcm;
use crate::quality::live_pairs::overlapping_pairs;

/// What [`settle`] did: the peak before and after, bytes, and whether it stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// The peak (largest `offset + align_up(size, align)`) before.
    pub before: u64,
    /// The peak after.
    pub after: u64,
    /// True when the clock stopped it before the last buffer (the plan is valid either way:
    /// every move keeps it so).
    pub stopped: bool,
}

/// Settles `offsets` (a valid plan of `problem` aligned to `align`, every free buffer at a
/// multiple of `lcm(align, its own alignment)`) down in address order (module docs), until
/// `until`; returns the peaks before and after. `None`, with `offsets` unchanged, when the
/// pairs of buffers live together number more than `max_pairs` (the list would not pay).
///
/// ```
/// use std::time::{Duration, Instant};
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::settle::settle;
/// let mut p = Problem::default();
/// p.push("x", Row { lower: 0, upper: 1, size: 7 });
/// p.push("y", Row { lower: 0, upper: 1, size: 5000 });
/// p.set_alignment(0, 4096);
/// // a padded plan at alignment 3: x at 0, y above x's padding
/// let mut offsets = vec![0, 12288];
/// let s = settle(&p, &mut offsets, 3, u64::MAX, Instant::now() + Duration::from_secs(9)).unwrap();
/// assert_eq!((offsets, s.before, s.after, s.stopped), (vec![0, 9], 17289, 5010, false));
/// ```
pub fn settle(
    problem: &Problem,
    offsets: &mut [u64],
    align: u64,
    max_pairs: u64,
    until: Instant,
) -> Option<Settled> {
    let neighbours = pairs(problem, max_pairs)?;
    Some(settle_over(problem, offsets, align, &neighbours, until))
}

/// [`settle`] over the pair list `neighbours` of `problem` (as [`pairs`] lists them), which a
/// caller settling several plans of one problem lists once.
pub(crate) fn settle_over(
    problem: &Problem,
    offsets: &mut [u64],
    align: u64,
    neighbours: &Neighbours,
    until: Instant,
) -> Settled {
    let n = problem.len();
    let align = align.max(1);
    let rows = problem.rows();
    let foot = |k: usize| rows[k].size.div_ceil(align).saturating_mul(align);
    let before = peak_of(problem, offsets, align);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&k| (offsets[k as usize], k));
    let mut taken = vec![false; n];
    let mut below: Vec<(u64, u64)> = Vec::new();
    let mut stopped = false;
    for (step, &k) in order.iter().enumerate() {
        let k = k as usize;
        if step % 1024 == 1023 && Instant::now() >= until {
            stopped = true;
            break;
        }
        taken[k] = true;
        if problem.fixed(k).is_some() {
            continue;
        }
        let Some(own) = lcm(align, problem.alignment(k)) else { continue };
        let at = lowest_fit(neighbours, k, &taken, offsets, foot, own, &mut below);
        // never up (the old offset is free: module docs); the guard keeps it so on any input
        offsets[k] = at.min(offsets[k]);
    }
    Settled { before, after: peak_of(problem, offsets, align), stopped }
}

/// The peak of `offsets` for `problem` in a plan aligned to `align`: the largest
/// `offset + align_up(size, align)` (saturating), bytes; 0 for no buffer.
pub(crate) fn peak_of(problem: &Problem, offsets: &[u64], align: u64) -> u64 {
    let align = align.max(1);
    let up = |size: u64| size.div_ceil(align).saturating_mul(align);
    problem.rows().iter().zip(offsets).map(|(b, &o)| o.saturating_add(up(b.size))).max().unwrap_or(0)
}
/// The lowest multiple of `own` from 0 on where buffer `k`'s footprint `foot(k)` meets none of
/// its `neighbours` already `taken` (at `offsets`, footprints `foot`): first fit, past every
/// one it meets (`below` is scratch). `u64::MAX` where the next multiple past one overflows.
pub(crate) fn lowest_fit(
    neighbours: &Neighbours,
    k: usize,
    taken: &[bool],
    offsets: &[u64],
    foot: impl Fn(usize) -> u64,
    own: u64,
    below: &mut Vec<(u64, u64)>,
) -> u64 {
    below.clear();
    below.extend(neighbours.of(k).iter().filter(|&&v| taken[v as usize]).map(|&v| {
        let v = v as usize;
        (offsets[v], offsets[v].saturating_add(foot(v)))
    }));
    below.sort_unstable();
    let len = foot(k);
    let mut at = 0u64;
    for &(lo, hi) in below.iter() {
        if at.checked_add(len).is_some_and(|end| end <= lo) {
            break;
        }
        if hi > at {
            match hi.checked_next_multiple_of(own) {
                Some(next) => at = next,
                None => return u64::MAX,
            }
        }
    }
    at
}

/// Each buffer's buffers live with it (lifetimes `[lower, upper)` overlap), in one array.
pub(crate) struct Neighbours {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Neighbours {
    /// The buffers live with buffer `k`.
    pub(crate) fn of(&self, k: usize) -> &[u32] {
        &self.list[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// The pairs of buffers live together, each listed from both ends; `None` past `max_pairs`
/// pairs (or past the `u32` positions of the list).
pub(crate) fn pairs(problem: &Problem, max_pairs: u64) -> Option<Neighbours> {
    let rows = problem.rows();
    let n = rows.len();
    let mut by_lower: Vec<u32> = (0..n as u32).collect();
    by_lower.sort_unstable_by_key(|&k| rows[k as usize].lower);
    let each = |f: &mut dyn FnMut(usize, usize)| {
        for (i, &a) in by_lower.iter().enumerate() {
            let upper = rows[a as usize].upper;
            for &b in by_lower[i + 1..].iter().take_while(|&&b| rows[b as usize].lower < upper) {
                f(a as usize, b as usize);
            }
        }
    };
    // counted first without listing them (`overlapping_pairs`: O(n log n) or O(n + T)), so an
    // input past `max_pairs` costs no more than that, not its E (10^10 pairs took 44-51 s)
    let total = overlapping_pairs(problem);
    if total > max_pairs || 2 * total >= u32::MAX as u64 {
        return None;
    }
    let mut count = vec![0u32; n + 1];
    each(&mut |a, b| {
        count[a] += 1;
        count[b] += 1;
    });
    let mut start = vec![0u32; n + 1];
    for k in 0..n {
        start[k + 1] = start[k] + count[k];
    }
    let mut fill = start.clone();
    let mut list = vec![0u32; start[n] as usize];
    each(&mut |a, b| {
        list[fill[a] as usize] = b as u32;
        fill[a] += 1;
        list[fill[b] as usize] = a as u32;
        fill[b] += 1;
    });
    Some(Neighbours { start, list })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// Three 100-byte buffers live together, aligned to 4096, 12289 and 65537, placed apart:
    /// settled to 0, 4096 and 12289 (peak 12389).
    #[test]
    fn buffers_settle_to_their_own_alignments() {
        let mut p = Problem::default();
        for (k, a) in [65537u64, 4096, 12289].into_iter().enumerate() {
            p.push(&k.to_string(), Row { lower: 0, upper: 3, size: 100 });
            p.set_alignment(k, a);
        }
        let mut offsets = vec![0, 4096 * 40, 12289 * 30];
        let s = settle(&p, &mut offsets, 1, u64::MAX, later()).unwrap();
        assert_eq!(offsets, vec![0, 4096, 12289]);
        assert_eq!((s.before, s.after, s.stopped), (12289 * 30 + 100, 12389, false));
    }

    /// A fixed buffer stays and is an obstacle; buffers not live together share addresses;
    /// nothing moves up.
    #[test]
    fn fixed_buffers_stay_and_lifetimes_apart_share() {
        let mut p = Problem::default();
        p.push("f", Row { lower: 0, upper: 4, size: 10 });
        p.set_fixed(0, Some(20));
        p.push("a", Row { lower: 0, upper: 2, size: 30 });
        p.push("b", Row { lower: 2, upper: 4, size: 30 });
        p.push("c", Row { lower: 0, upper: 4, size: 5 });
        // a at 40 (above f), b at 100, c at 0
        let mut offsets = vec![20, 40, 100, 0];
        let s = settle(&p, &mut offsets, 1, u64::MAX, later()).unwrap();
        // c stays at 0; f at 20; a: [5, 35) meets f [20, 30) -> 30, b the same
        assert_eq!(offsets, vec![20, 30, 30, 0]);
        assert_eq!((s.before, s.after), (130, 60));
    }

    /// Past `max_pairs` nothing is done; a clock already stopped stops at the first check
    /// (after 1,023 buffers), with a valid plan.
    #[test]
    fn too_many_pairs_or_no_time() {
        let mut p = Problem::default();
        for k in 0..3 {
            p.push(&k.to_string(), Row { lower: 0, upper: 1, size: 8 });
        }
        let mut offsets = vec![0, 16, 32];
        assert_eq!(settle(&p, &mut offsets, 1, 2, later()), None);
        assert_eq!(offsets, vec![0, 16, 32]);
        assert_eq!(settle(&p, &mut offsets, 1, 3, later()).map(|s| s.after), Some(24));
        let mut q = Problem::default();
        for k in 0..2000u64 {
            q.push(&k.to_string(), Row { lower: k, upper: k + 1, size: 8 });
        }
        let mut offsets: Vec<u64> = (0..2000).map(|k| 8 * k).collect();
        let s = settle(&q, &mut offsets, 1, u64::MAX, Instant::now()).unwrap();
        assert!(s.stopped);
        assert_eq!(offsets.iter().filter(|&&o| o == 0).count(), 1023);
    }
}
