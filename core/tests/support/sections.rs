//! Slots and time sections of small interval sets, as the branch and bound and the skyline
//! take them: shared by `exact_search_paths.rs` and `skyline_paths.rs`.

use dramalloc_core::liveness::info::Info;
use dramalloc_core::place::sections::prepare;
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
