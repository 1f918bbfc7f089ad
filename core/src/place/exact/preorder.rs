//! The static preorders of the branch and bound (MiniMalloc's "WAT", "TAW", "TWA").
//! Uses: workspace; used by: search, skyline.

use crate::workspace::Slot;

/// Number of static preorders tried in turn ([`preorder`]).
pub const PREORDERS: usize = 3;

/// The sort key (descending) of static preorder `h` (see [`preorder`]).
pub(super) fn preorder_key(s: &Slot, h: usize) -> (u64, u64, u64) {
    let area = s.size.saturating_mul(s.width as u64);
    let w = s.width as u64;
    match h % PREORDERS {
        0 => (w, area, s.total),
        1 => (s.total, area, w),
        _ => (s.total, w, area),
    }
}

/// Sorts `ids` by static preorder `h` (0: lifetime, area, section total — MiniMalloc's
/// "WAT"; 1: total, area, lifetime; 2: total, lifetime, area; all descending, ties by
/// index) and writes the ranks; `ids` (at least `slots.len()` entries) is overwritten with
/// the order.
pub fn preorder(slots: &mut [Slot], ids: &mut [u32], h: usize) {
    for (k, id) in ids.iter_mut().enumerate() {
        *id = k as u32;
    }
    ids.sort_unstable_by(|&a, &b| {
        preorder_key(&slots[b as usize], h).cmp(&preorder_key(&slots[a as usize], h)).then(a.cmp(&b))
    });
    for (r, &c) in ids.iter().enumerate() {
        slots[c as usize].rank = r as u32;
    }
}
