//! Slots and time sections of small interval sets, as the branch and bound and the skyline
//! take them: shared by `exact_search_paths.rs` and `skyline_paths.rs`.

use dramalloc_core::liveness::info::Info;
use dramalloc_core::place::exact::{branch_and_bound, Budget, Schedule};
use dramalloc_core::place::sections::prepare;
use dramalloc_core::workspace::Raise;
use dramalloc_core::workspace::{Section, Slot};

/// The candidates `iv` = (first, last instruction, size in bytes), candidate k at location
/// k, prepared with every floor at `start`: their slots, their sections, the candidates by
/// first and by last instruction, and the section count.
#[allow(dead_code)] // each test file reads the fields it needs
pub struct Prepared {
    pub slots: Vec<Slot>,
    pub sections: Vec<Section>,
    pub by_lo: Vec<u32>,
    pub by_hi: Vec<u32>,
    pub count: usize,
}

/// Prepares `iv` (see [`Prepared`]). Panics when `prepare` declines (an empty set).
pub fn prepared(iv: &[(u32, u32, u64)], start: u64) -> Prepared {
    let n = iv.len();
    let infos: Vec<Info> = iv
        .iter()
        .enumerate()
        .map(|(k, r)| Info { aligned: r.2, location: k as u32, ..Info::default() })
        .collect();
    let mut slots = vec![Slot::default(); n];
    let mut sections = vec![Section::default(); n];
    let (mut by_lo, mut by_hi) = (vec![0u32; n], vec![0u32; n]);
    let interval = |i: &Info| (iv[i.location as usize].0, iv[i.location as usize].1);
    let count = prepare(&infos, interval, start, &mut slots, &mut sections, &mut by_lo, &mut by_hi).unwrap();
    Prepared { slots, sections, by_lo, by_hi, count }
}

/// Checks the plan a search left in `slots` (`best`) for the candidates `iv`: every buffer
/// at or above `start` and ending at or below `peak`, no two time-overlapping buffers
/// overlapping in address; returns the addresses. Panics naming the buffer(s) otherwise.
#[allow(dead_code)] // not every test file checks plans
pub fn checked_plan(slots: &[Slot], iv: &[(u32, u32, u64)], start: u64, peak: u64) -> Vec<u64> {
    let n = iv.len();
    for a in 0..n {
        assert!(slots[a].best >= start && slots[a].best + iv[a].2 <= peak, "buffer {a}");
        for b in a + 1..n {
            if iv[a].0 <= iv[b].1 && iv[b].0 <= iv[a].1 {
                let (x, y) = (slots[a].best, slots[b].best);
                assert!(x + iv[a].2 <= y || y + iv[b].2 <= x, "buffers {a} and {b} overlap");
            }
        }
    }
    slots.iter().map(|s| s.best).collect()
}

/// (peak, nodes, optimal, improved, addresses) of a [`searched`] run.
#[allow(dead_code)]
pub type Run = (u64, u64, bool, bool, Vec<u64>);

/// Runs the branch and bound (`schedule`, at most 2,000 nodes, byte capacities, alignment 1)
/// on the candidates `iv` = (first, last instruction, size), candidate k at location k, from
/// `start` with `raises` undo records, the incumbent one byte above the sizes' sum and the
/// lower bound the max load less `weaken`; checks the plan it leaves ([`checked_plan`]).
#[allow(dead_code)] // not every test file searches
pub fn searched(iv: &[(u32, u32, u64)], raises: usize, start: u64, weaken: u64, schedule: Schedule) -> Run {
    let Prepared { mut slots, sections: mut secs, by_lo, by_hi: mut ids, count } = prepared(iv, start);
    let lb =
        (0..64).map(|t| iv.iter().filter(|x| x.0 <= t && t <= x.1).map(|x| x.2).sum::<u64>()).max().unwrap();
    let total: u64 = iv.iter().map(|x| x.2).sum();
    let mut go = || true;
    let mut budget = Budget::new(2_000, 0, &mut go);
    let out = branch_and_bound(
        &mut slots,
        &mut secs[..count],
        &by_lo,
        &mut ids,
        &mut vec![Raise::default(); raises],
        start,
        start + lb - weaken,
        start + total + 1,
        1,
        schedule,
        &mut budget,
    );
    let at = checked_plan(&slots, iv, start, out.peak);
    (out.peak, out.nodes, out.optimal, out.improved, at)
}
