//! The collision check of a plan file: no two records of a core live together share a byte.
//! Uses: rank_set, record, header; used by: validate.
//!
//! Two ways, the same answer on a plan with at most one colliding pair:
//! - [`sweep_collisions`], O(n log n), with [`scratch_for`]`(n)` lent `u32`s: the records
//!   sorted by address give each its rank; the ranks sorted by first instruction are swept
//!   in that order, with the records already met kept in a [`RankSet`]. A record collides
//!   with some earlier one live at its first instruction exactly when it collides with the
//!   nearest live one below or above it in address order, because the live records met so
//!   far are pairwise disjoint (else the sweep had stopped). Records whose last use is
//!   before the current instruction are dropped from the set when a query meets them, so
//!   each leaves once.
//! - [`pairwise_collisions`], O(n²), no storage: every pair.
//!
//! A record occupies its aligned bytes `[address, address + aligned)` over its closed
//! lifetime `[def, last_use]` (a pre-placed one every instruction of its core); a record of
//! 0 aligned bytes, or without a lifetime, occupies nothing and collides with nothing.

use super::header::NO_ACCESS;
use super::rank_set::RankSet;
use super::record::{Record, FLAG_PREPLACED};

/// `u32` scratch entries the O(n log n) collision check of [`super::PlanFile::validate`]
/// needs for a core of `records` records: two per record (address order, sweep order) and a
/// rank bitmap of about one word per 31 records. What [`super::PlanFile::scratch_len`] asks
/// for its largest core; a `const fn`, so firmware can size a `static` with it.
///
/// ```
/// use dramalloc_core::plan_file::scratch_for;
/// assert_eq!(scratch_for(0), 1);
/// assert_eq!(scratch_for(1000), 2000 + 32 + 1);
/// ```
pub const fn scratch_for(records: usize) -> usize {
    // saturating: on a 32-bit target a count past 2^31 asks for more than any slice holds
    // (the sweep then declines, and the pairwise check runs), never for a wrapped small length
    records.saturating_mul(2).saturating_add(RankSet::words_for(records))
}

/// Closed lifetime `[first, last]` a record occupies, `None` when it occupies nothing (no
/// lifetime, or no bytes).
pub(super) fn lifetime(r: &Record, instructions: u32) -> Option<(u32, u32)> {
    if r.aligned.get() == 0 {
        return None;
    }
    if r.has(FLAG_PREPLACED) {
        return instructions.checked_sub(1).map(|last| (0, last));
    }
    match (r.def.get(), r.last_use.get()) {
        (NO_ACCESS, _) | (_, NO_ACCESS) => None,
        (d, u) => Some((d, u)),
    }
}

/// True when `x` and `y` are live together and share a byte.
fn overlaps(x: &Record, y: &Record, instructions: u32) -> bool {
    let (Some((a0, a1)), Some((b0, b1))) = (lifetime(x, instructions), lifetime(y, instructions)) else {
        return false;
    };
    let (xs, ys) = (x.address.get(), y.address.get());
    let (xe, ye) = (xs.saturating_add(x.aligned.get()), ys.saturating_add(y.aligned.get()));
    a0 <= b1 && b0 <= a1 && xs < ye && ys < xe
}

/// The first colliding pair `(i, j)` (`i < j`, indices into `recs`) of every pair, `None`
/// when there is none. O(n²).
pub(super) fn pairwise_collisions(recs: &[Record], instructions: u32) -> Option<(usize, usize)> {
    let n = recs.len();
    (0..n).find_map(|i| (i + 1..n).find(|&j| overlaps(&recs[i], &recs[j], instructions)).map(|j| (i, j)))
}

/// A colliding pair (indices into `recs`) found by the sweep (see the module docs):
/// `Some(None)` when there is none, `None` when `scratch` is shorter than
/// [`scratch_for`]`(recs.len())`. Of several colliding pairs, the sweep names one whose
/// later-defined record has the lowest first instruction. Record ends must not overflow
/// (the records' check runs first).
pub(super) fn sweep_collisions(
    recs: &[Record],
    instructions: u32,
    scratch: &mut [u32],
) -> Option<Option<(usize, usize)>> {
    let n = recs.len();
    let (order, rest) = scratch.get_mut(..scratch_for(n))?.split_at_mut(n);
    let (by_def, words) = rest.split_at_mut(n);
    for (i, s) in order.iter_mut().enumerate() {
        *s = i as u32;
    }
    order.sort_unstable_by_key(|&i| (recs[i as usize].address.get(), i));
    let live = |r: u32| lifetime(&recs[order[r as usize] as usize], instructions);
    let mut m = 0;
    for r in 0..n as u32 {
        if live(r).is_some() {
            by_def[m] = r;
            m += 1;
        }
    }
    let by_def = &mut by_def[..m];
    by_def.sort_unstable_by_key(|&r| (live(r).map_or(0, |(d, _)| d), r));
    let mut set = RankSet::new(words, n)?;
    for &r in by_def.iter() {
        let i = order[r as usize] as usize;
        let def = live(r).map_or(0, |(d, _)| d);
        let (start, end) =
            (recs[i].address.get(), recs[i].address.get().saturating_add(recs[i].aligned.get()));
        // the nearest live record below and above, dropping the dead ones met on the way
        let mut below = set.pred(r);
        while let Some(q) = below.filter(|&q| live(q).is_some_and(|(_, u)| u < def)) {
            set.remove(q);
            below = set.pred(q);
        }
        let mut above = set.succ(r);
        while let Some(q) = above.filter(|&q| live(q).is_some_and(|(_, u)| u < def)) {
            set.remove(q);
            above = set.succ(q);
        }
        let hit = |q: u32, clash: bool| clash.then_some((order[q as usize] as usize, i));
        let b = below.and_then(|q| {
            let other = &recs[order[q as usize] as usize];
            hit(q, other.address.get().saturating_add(other.aligned.get()) > start)
        });
        let a = above.and_then(|q| hit(q, recs[order[q as usize] as usize].address.get() < end));
        if let Some((x, y)) = b.or(a) {
            return Some(Some((x.min(y), x.max(y))));
        }
        set.insert(r);
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::{overlaps, pairwise_collisions, scratch_for, sweep_collisions};
    use crate::plan_file::header::NO_ACCESS;
    use crate::plan_file::record::{Record, FLAG_PREPLACED};
    use crate::plan_file::{U16Le, U32Le, U64Le};

    fn rec(address: u64, aligned: u64, def: u32, last_use: u32, flags: u16) -> Record {
        Record {
            tensor: U32Le::new(0),
            core: U16Le::new(0),
            flags: U16Le::new(flags),
            address: U64Le::new(address),
            bytes: U64Le::new(aligned),
            aligned: U64Le::new(aligned),
            def: U32Le::new(def),
            last_use: U32Le::new(last_use),
        }
    }

    fn sweep(recs: &[Record], instructions: u32) -> Option<(usize, usize)> {
        let mut scratch = [0u32; scratch_for(64)];
        sweep_collisions(recs, instructions, &mut scratch).expect("scratch for 64 records")
    }

    #[test]
    fn a_scratch_length_past_usize_saturates() {
        assert_eq!(scratch_for(usize::MAX / 2 + 1), usize::MAX);
    }

    #[test]
    fn short_scratch_declines_and_an_exact_fit_sweeps() {
        let recs = [rec(0, 8, 0, 1, 0), rec(4, 8, 1, 2, 0)];
        let mut scratch = [0u32; scratch_for(2)];
        assert_eq!(sweep_collisions(&recs, 3, &mut scratch), Some(Some((0, 1))));
        assert_eq!(sweep_collisions(&recs, 3, &mut scratch[..scratch_for(2) - 1]), None);
    }

    #[test]
    fn touching_in_time_or_address_is_no_collision() {
        // end to end in address (live together), and one instruction apart at one address
        let recs = [rec(0, 8, 0, 5, 0), rec(8, 8, 0, 5, 0), rec(16, 8, 0, 2, 0), rec(16, 8, 3, 5, 0)];
        assert_eq!((sweep(&recs, 6), pairwise_collisions(&recs, 6)), (None, None));
        // sharing the instruction 2: the closed lifetimes meet
        let recs = [rec(16, 8, 0, 2, 0), rec(16, 8, 2, 5, 0)];
        assert_eq!((sweep(&recs, 6), pairwise_collisions(&recs, 6)), (Some((0, 1)), Some((0, 1))));
    }

    #[test]
    fn nothing_or_no_bytes_collides_with_nothing() {
        // a zero-byte record inside a live one, a record never accessed, a pre-placed one in
        // a core of no instructions
        let recs = [
            rec(0, 64, 0, 9, 0),
            rec(8, 0, 0, 9, 0),
            rec(0, 64, NO_ACCESS, NO_ACCESS, 0),
            rec(0, 64, NO_ACCESS, NO_ACCESS, FLAG_PREPLACED),
        ];
        assert_eq!((sweep(&recs[..3], 10), pairwise_collisions(&recs[..3], 10)), (None, None));
        assert_eq!((sweep(&recs[1..], 0), pairwise_collisions(&recs[1..], 0)), (None, None));
        // the pre-placed record lives at every instruction of a core that has some
        assert_eq!((sweep(&recs, 10), pairwise_collisions(&recs, 10)), (Some((0, 3)), Some((0, 3))));
    }

    #[test]
    fn a_dead_neighbour_does_not_hide_a_live_one() {
        // address order: a [0, 100) live 0..9, b [10, 20) dead after 1, c [50, 60) defined
        // at 5: its nearest record below is b (dead), the live a below it collides
        let recs = [rec(0, 100, 0, 9, 0), rec(10, 10, 0, 1, 0), rec(50, 10, 5, 6, 0)];
        // a and b collide too (live together at 0..1): the sweep meets that pair first
        assert_eq!(sweep(&recs, 10), Some((0, 1)));
        let recs = [rec(0, 100, 2, 9, 0), rec(10, 10, 0, 1, 0), rec(50, 10, 5, 6, 0)];
        assert_eq!((sweep(&recs, 10), pairwise_collisions(&recs, 10)), (Some((0, 2)), Some((0, 2))));
        // above: d [70, 80) dead, then e [90, 200) live; f [60, 95) defined at 5
        let recs = [rec(70, 10, 0, 1, 0), rec(90, 110, 2, 9, 0), rec(60, 35, 5, 6, 0)];
        assert_eq!((sweep(&recs, 10), pairwise_collisions(&recs, 10)), (Some((1, 2)), Some((1, 2))));
    }

    #[test]
    fn the_sweep_agrees_with_every_pair_on_generated_plans() {
        // 2,000 small plans from a fixed LCG: the sweep finds a pair exactly when one exists,
        // and the pair it names collides
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        let (mut collided, mut clean) = (0, 0);
        for _ in 0..2000 {
            let n = 1 + next(40) as usize;
            let mut recs = [rec(0, 0, 0, 0, 0); 40];
            for r in recs.iter_mut().take(n) {
                let def = next(12) as u32;
                let flags = if next(20) == 0 { FLAG_PREPLACED } else { 0 };
                *r = rec(next(16) * 8, next(5) * 8, def, def + next(4) as u32, flags);
            }
            let recs = &recs[..n];
            let (s, p) = (sweep(recs, 16), pairwise_collisions(recs, 16));
            assert_eq!(s.is_some(), p.is_some(), "{recs:?}");
            if let Some((a, b)) = s {
                assert!(a < b && overlaps(&recs[a], &recs[b], 16), "{recs:?}");
                collided += 1;
            } else {
                clean += 1;
            }
        }
        // both outcomes were exercised
        assert!(collided > 100 && clean > 100, "{collided} {clean}");
    }
}
