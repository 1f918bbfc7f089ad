//! The address-reuse pairs of one core and the WAR edges they imply, counted in
//! O(n log n + min(pairs, H)) (H: pairs of locations whose access hulls overlap), not by
//! visiting every pair that shares bytes.
//! Uses: module; used by: pipeline.
//!
//! Passes [`super::Pass::BuildDependencies`] and [`super::Pass::AntiDependencyPostDram`] count,
//! among a core's private allocated locations, the pairs that share bytes (one ordering
//! dependency each for a runtime) and, of those, the pairs whose access hulls
//! `[first_access, last_access]` are disjoint (one WAR edge each: last access of the earlier
//! → first access of the later). A location whose bytes many others reuse over time (a
//! chain of N operators ping-ponging between two addresses) has O(N²) such pairs: counting
//! them one by one made `dramalloc run` quadratic (a trial: 200,000 tensors, 45 s, 78 % in
//! this count). Now the pairs are counted by binary search in address order, and so are the
//! pairs whose access hulls overlap (H); the pairs that are both are then met along the
//! shorter of the two walks, in O(n log n + min(pairs, H)): in a valid plan few pairs are
//! both, so one of the two is small unless many tensors share bytes while live together.

use super::module::LocState;

/// `(pairs, war)` over the locations `idx` (indices into `loc`): `pairs` counts the pairs
/// that share bytes, `war` (computed only with `war_too`, else 0) those of them whose access
/// hulls are disjoint.
///
/// Two locations share bytes when, ordered by `(address, index)`, the later one starts
/// before the earlier one ends (`address + aligned`, bytes): the rule of the earlier
/// all-pairs scan, kept exactly (an empty later range at the earlier one's start counts).
/// Hulls are disjoint when `a.last_access < b.first_access || b.last_access <
/// a.first_access` (instruction indices; a location no instruction accesses has
/// `first_access = u32::MAX`, `last_access = 0`, disjoint from every other).
///
/// `idx` is reordered. O(n log n + min(pairs, H)), H the pairs whose hulls overlap. Panics only
/// where an index of `idx` is outside what `loc` accepts, or where `address + aligned`
/// overflows `u64` (addresses come from a plan inside the device window).
pub(crate) fn count_reuse(idx: &mut [u32], loc: impl Fn(u32) -> LocState, war_too: bool) -> (u64, u64) {
    let (pairs, war, _) = reuse_walked(idx, loc, war_too);
    (pairs, war)
}

/// [`count_reuse`] and the number of pairs its walk visited (`min(pairs, H)` by the choice of
/// walk, 0 without `war_too`): the tests' view of the cost.
fn reuse_walked(idx: &mut [u32], loc: impl Fn(u32) -> LocState, war_too: bool) -> (u64, u64, u64) {
    idx.sort_unstable_by_key(|&l| (loc(l).address, l));
    let mut pairs = 0u64;
    for i in 0..idx.len() {
        let a = loc(idx[i]);
        let end = a.address + a.aligned;
        // the later ones (by address) that start before `end`: a prefix of the rest
        pairs += idx[i + 1..].partition_point(|&b| loc(b).address < end) as u64;
    }
    if !war_too {
        return (pairs, 0, 0);
    }
    // the pairs both sharing bytes and live together (rare in a valid plan), met along the
    // shorter of two walks: the `h` pairs whose hulls overlap, in order of first access, or
    // the `pairs` sharing bytes, in address order (a chain reusing two addresses has O(n²)
    // of the latter, an op reading thousands of tensors live together O(n²) of the former)
    idx.sort_unstable_by_key(|&l| (loc(l).first_access, l));
    let mut h = 0u64;
    for i in 0..idx.len() {
        let last = loc(idx[i]).last_access;
        h += idx[i + 1..].partition_point(|&b| loc(b).first_access <= last) as u64;
    }
    let (mut together, mut walked) = (0u64, 0u64);
    if h <= pairs {
        for i in 0..idx.len() {
            let (x, a) = (idx[i], loc(idx[i]));
            for &y in &idx[i + 1..] {
                let b = loc(y);
                if b.first_access > a.last_access {
                    break; // every later one starts after a's hull too
                }
                walked += 1;
                // b starts inside a's hull (a.first <= b.first <= a.last): the hulls are
                // disjoint only where b's is empty (never accessed: first u32::MAX, last 0)
                let overlap = a.first_access <= b.last_access;
                let (p, q) = if (a.address, x) < (b.address, y) { (a, b) } else { (b, a) };
                together += u64::from(overlap && q.address < p.address + p.aligned);
            }
        }
    } else {
        idx.sort_unstable_by_key(|&l| (loc(l).address, l));
        for i in 0..idx.len() {
            let a = loc(idx[i]);
            let end = a.address + a.aligned;
            for &y in idx[i + 1..].iter().take_while(|&&y| loc(y).address < end) {
                let b = loc(y);
                walked += 1;
                together += u64::from(a.last_access >= b.first_access && b.last_access >= a.first_access);
            }
        }
    }
    (pairs, pairs - together, walked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    fn at(address: u64, aligned: u64, first_access: u32, last_access: u32) -> LocState {
        let mut l = LocState::EMPTY;
        (l.address, l.aligned, l.first_access, l.last_access) = (address, aligned, first_access, last_access);
        l
    }

    /// The all-pairs scan this replaced (the definition).
    fn brute(locs: &[LocState]) -> (u64, u64) {
        let mut idx: [u32; 64] = core::array::from_fn(|k| k as u32);
        let idx = &mut idx[..locs.len()];
        idx.sort_unstable_by_key(|&l| (locs[l as usize].address, l));
        let (mut pairs, mut war) = (0, 0);
        for (i, &a) in idx.iter().enumerate() {
            let sa = locs[a as usize];
            for &b in &idx[i + 1..] {
                let sb = locs[b as usize];
                if sb.address >= sa.address + sa.aligned {
                    break;
                }
                pairs += 1;
                war += u64::from(sa.last_access < sb.first_access || sb.last_access < sa.first_access);
            }
        }
        (pairs, war)
    }

    #[test]
    fn counts_as_the_all_pairs_scan_did() {
        let mut r = XorShift(0x5EED_4E05);
        let (mut total, mut overlapping_hulls, mut walks) = ((0, 0), 0, [0u32; 2]);
        for case in 0..2000 {
            let n = r.below(40) as usize;
            let mut locs = [LocState::default(); 64];
            for l in &mut locs[..n] {
                let first = r.below(30) as u32;
                let (first, last) = match r.below(8) {
                    0 => (u32::MAX, 0), // never accessed
                    _ => (first, first + r.below(6) as u32),
                };
                let address = r.below(8) * 4096;
                let aligned = r.below(4) * 4096;
                *l = at(address, aligned, first, last);
            }
            let locs = &locs[..n];
            let mut idx: [u32; 64] = core::array::from_fn(|k| k as u32);
            let (pairs, war, walked) = reuse_walked(&mut idx[..n], |l| locs[l as usize], true);
            let expected = brute(locs);
            assert_eq!((pairs, war), expected, "case {case}");
            // the shorter walk: H, the pairs of which the later-starting one starts inside the
            // other's hull, or the pairs sharing bytes
            let mut by_first: [u32; 64] = core::array::from_fn(|k| k as u32);
            by_first[..n].sort_unstable_by_key(|&l| (locs[l as usize].first_access, l));
            let h = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| {
                    locs[by_first[j] as usize].first_access <= locs[by_first[i] as usize].last_access
                })
                .count() as u64;
            assert_eq!(walked, h.min(pairs), "case {case}");
            walks[usize::from(h <= pairs)] += 1;
            assert_eq!(count_reuse(&mut idx[..n], |l| locs[l as usize], false), (expected.0, 0));
            total = (total.0 + pairs, total.1 + war);
            overlapping_hulls += pairs - war;
        }
        // the cases reach every branch: pairs, WAR edges and pairs live together
        assert_eq!((total, overlapping_hulls), ((123_351, 105_410), 17_941));
        // both walks taken: by address, by first access
        assert_eq!(walks, [147, 1853]);
    }

    #[test]
    fn many_live_together_are_walked_in_address_order() {
        // 2,000 locations live together (one op reading them all): H = C(2000, 2), no pair
        // shares bytes; then the same at one address (no valid plan, but the count holds)
        let apart: [LocState; 2000] = core::array::from_fn(|k| at(k as u64 * 4096, 4096, 0, 10));
        let mut idx: [u32; 2000] = core::array::from_fn(|k| k as u32);
        // (pairs, war, pairs walked): the address walk, which visits none
        assert_eq!(reuse_walked(&mut idx, |l| apart[l as usize], true), (0, 0, 0));
        let stacked: [LocState; 2000] = core::array::from_fn(|_| at(0, 4096, 0, 10));
        // as many of each kind: the walk by first access, every pair once
        assert_eq!(reuse_walked(&mut idx, |l| stacked[l as usize], true), (1_999_000, 0, 1_999_000));
    }

    #[test]
    fn a_ping_pong_chain_has_quadratic_pairs_counted_in_a_sweep() {
        // 2,000 locations alternating between two addresses, each live for two instructions
        let locs: [LocState; 2000] =
            core::array::from_fn(|k| at((k as u64 % 2) * 4096, 4096, k as u32, k as u32 + 1));
        let mut idx: [u32; 2000] = core::array::from_fn(|k| k as u32);
        // 2 × C(1000, 2) pairs share bytes, none of them live together; the walk by first
        // access visits the 1,999 neighbours in time (hulls [k, k + 1] and [k + 1, k + 2])
        assert_eq!(reuse_walked(&mut idx, |l| locs[l as usize], true), (999_000, 999_000, 1_999));
        assert_eq!(reuse_walked(&mut idx, |l| locs[l as usize], false), (999_000, 0, 0));
    }
}
