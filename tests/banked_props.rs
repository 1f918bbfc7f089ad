//! Property tests of the banked free list: after any random sequence of operations the
//! statistics add up (allocated + free == total, largest <= free), no block is empty, the
//! blocks tile the range, and every result equals that of a simple reference allocator (a
//! plain address-ordered segment list with the same documented policies). A zero-size request
//! is refused.
//!
//! Cases: `DRAMALLOC_PROPTEST_CASES` (default 2,000).

use dramalloc_core::banked::{BankedError, BlockInfo, FreeList, FreeListConfig, Policy};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("DRAMALLOC_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000)
}

#[derive(Clone, Debug)]
enum Action {
    Alloc {
        size: u64,
        down: bool,
    },
    At {
        addr: u64,
        size: u64,
    },
    /// Free the `i % live`-th live allocation (or an arbitrary address when none is live).
    FreeLive(usize),
    FreeAddr(u64),
    Shrink(u64),
    Reset,
    Clear,
}

fn action(space: u64) -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (0..space / 4, any::<bool>()).prop_map(|(size, down)| Action::Alloc { size, down }),
        2 => (0..space + 4096, 0..space / 8).prop_map(|(a, size)| Action::At { addr: a / 32 * 32, size }),
        5 => any::<usize>().prop_map(Action::FreeLive),
        1 => (0..space + 4096).prop_map(Action::FreeAddr),
        1 => (0..space / 2).prop_map(|n| Action::Shrink(n / 32 * 32)),
        1 => Just(Action::Reset),
        1 => Just(Action::Clear),
    ]
}

/// The reference: segments `(start, len, allocated)` covering `[base, size)`, relative.
#[derive(Clone, Debug)]
struct Model {
    cfg: FreeListConfig,
    base: u64,
    segs: Vec<(u64, u64, bool)>,
}

impl Model {
    fn new(cfg: FreeListConfig) -> Self {
        Self { cfg, base: 0, segs: vec![(0, cfg.size, false)] }
    }

    fn round(&self, size: u64) -> u64 {
        let a = self.cfg.alignment;
        size.max(self.cfg.min_allocation).max(1).div_ceil(a) * a
    }

    fn merge(&mut self) {
        let mut out: Vec<(u64, u64, bool)> = Vec::new();
        for s in self.segs.drain(..) {
            match out.last_mut() {
                Some(l) if !l.2 && !s.2 => l.1 += s.1,
                _ => out.push(s),
            }
        }
        self.segs = out;
    }

    fn place(&mut self, i: usize, start: u64, s: u64) {
        let (a, len, _) = self.segs[i];
        let mut repl = Vec::new();
        if start > a {
            repl.push((a, start - a, false));
        }
        repl.push((start, s, true));
        if start + s < a + len {
            repl.push((start + s, a + len - start - s, false));
        }
        self.segs.splice(i..=i, repl);
    }

    fn alloc(&mut self, size: u64, bottom_up: bool) -> Option<u64> {
        let s = self.round(size);
        let fits = self.segs.iter().enumerate().filter(|(_, g)| !g.2 && g.1 >= s);
        let pick = match (self.cfg.policy, bottom_up) {
            (Policy::First, true) => fits.min_by_key(|(_, g)| g.0),
            (Policy::First, false) => fits.max_by_key(|(_, g)| g.0),
            (Policy::Best, true) => fits.min_by_key(|(_, g)| (g.1, g.0)),
            (Policy::Best, false) => fits.min_by_key(|(_, g)| (g.1, u64::MAX - g.0)),
        };
        let (i, &(a, len, _)) = pick?;
        let start = if bottom_up { a } else { a + len - s };
        self.place(i, start, s);
        Some(start + self.cfg.offset)
    }

    fn at(&mut self, abs: u64, size: u64) -> Result<u64, &'static str> {
        if size == 0 {
            return Err("zero");
        }
        let s = self.round(size);
        let Some(rel) = abs.checked_sub(self.cfg.offset) else {
            return Err("range");
        };
        if rel < self.base || rel + s > self.cfg.size {
            return Err("range");
        }
        if self.segs.iter().any(|g| g.2 && g.0 < rel + s && rel < g.0 + g.1) {
            return Err("overlap");
        }
        // a block off the grid would put later allocations above it off the grid
        if !rel.is_multiple_of(self.cfg.alignment) {
            return Err("off the grid");
        }
        let i = self.segs.iter().position(|g| g.0 <= rel && rel + s <= g.0 + g.1).ok_or("internal")?;
        self.place(i, rel, s);
        Ok(abs)
    }

    fn free(&mut self, abs: u64) -> Result<u64, &'static str> {
        let rel = abs.wrapping_sub(self.cfg.offset);
        if abs >= self.cfg.offset {
            if let Some(g) = self.segs.iter_mut().find(|g| g.2 && g.0 == rel) {
                g.2 = false;
                let n = g.1;
                self.merge();
                return Ok(n);
            }
        }
        if abs < self.cfg.offset || rel < self.base || rel >= self.cfg.size {
            return Err("unknown");
        }
        if self.segs.iter().any(|g| g.2 && g.0 <= rel && rel < g.0 + g.1) {
            Err("unknown")
        } else {
            Err("double")
        }
    }

    fn shrink(&mut self, n: u64) -> Result<(), &'static str> {
        if n == 0 {
            return Ok(());
        }
        // the new start must stay on the grid every address is on
        if !n.is_multiple_of(self.cfg.alignment) {
            return Err("off the grid");
        }
        if n >= self.cfg.size - self.base {
            return Err("too large");
        }
        let nb = self.base + n;
        if self.segs.iter().any(|g| g.2 && g.0 < nb) {
            return Err("past");
        }
        let first = &mut self.segs[0];
        first.0 += n;
        first.1 -= n;
        if first.1 == 0 {
            self.segs.remove(0);
        }
        self.base = nb;
        Ok(())
    }

    fn reset(&mut self) {
        if self.base == 0 {
            return;
        }
        self.segs.insert(0, (0, self.base, false));
        self.base = 0;
        self.merge();
    }

    fn blocks(&self) -> Vec<BlockInfo> {
        self.segs
            .iter()
            .map(|&(a, len, al)| BlockInfo { address: a + self.cfg.offset, size: len, allocated: al })
            .collect()
    }
}

fn kind(e: &BankedError) -> &'static str {
    match e {
        BankedError::OutOfRange { .. } => "range",
        BankedError::Overlap { .. } => "overlap",
        BankedError::UnknownFree { .. } => "unknown",
        BankedError::DoubleFree { .. } => "double",
        BankedError::ShrinkTooLarge { .. } => "too large",
        BankedError::ShrinkPastAllocation { .. } => "past",
        BankedError::MisalignedConfig { what: "shrink" | "address", .. } => "off the grid",
        BankedError::OutOfMemory(_) => "oom",
        BankedError::ZeroSize { buffer_type: None } => "zero",
        _ => "other",
    }
}

fn config() -> impl Strategy<Value = FreeListConfig> {
    (
        1u64..=64,
        prop::sample::select(vec![0u64, 2048, 32]),
        prop::sample::select(vec![1u64, 32, 1024]),
        prop::sample::select(vec![1u64, 32, 1024]),
        prop::bool::ANY,
    )
        .prop_map(|(kib, offset, min, align, best)| {
            FreeListConfig::new(
                kib * 1024,
                // on the alignment grid, as the allocator requires
                offset.div_ceil(align) * align,
                min,
                align,
                if best { Policy::Best } else { Policy::First },
            )
        })
}

fn scenario() -> impl Strategy<Value = (FreeListConfig, Vec<Action>)> {
    config().prop_flat_map(|cfg| (Just(cfg), prop::collection::vec(action(cfg.size), 1..150)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn matches_the_reference_and_keeps_invariants((cfg, actions) in scenario()) {
        let mut fl = FreeList::<512>::new(cfg).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut model = Model::new(cfg);
        let mut live: Vec<u64> = Vec::new();
        for act in &actions {
            match *act {
                Action::Alloc { size: 0, down } => {
                    prop_assert_eq!(fl.allocate(0, !down).map_err(|e| kind(&e)), Err("zero"));
                }
                Action::Alloc { size, down } => {
                    let got = fl.allocate(size, !down);
                    let want = model.alloc(size, !down);
                    match (&got, want) {
                        (Ok(a), Some(b)) => { prop_assert_eq!(*a, b); live.push(b); }
                        (Err(e), None) => prop_assert_eq!(kind(e), "oom"),
                        _ => prop_assert!(false, "alloc {:?}: got {:?}, model {:?}", act, got, want),
                    }
                }
                Action::At { addr, size } => {
                    let got = fl.allocate_at(addr, size).map_err(|e| kind(&e));
                    let want = model.at(addr, size);
                    prop_assert_eq!(got, want, "{:?}", act);
                    if let Ok(a) = got { live.push(a); }
                }
                Action::FreeLive(i) => {
                    let addr = if live.is_empty() { cfg.offset } else { live.swap_remove(i % live.len()) };
                    let got = fl.free(addr).map_err(|e| kind(&e));
                    prop_assert_eq!(got, model.free(addr), "{:?}", act);
                }
                Action::FreeAddr(addr) => {
                    let got = fl.free(addr).map_err(|e| kind(&e));
                    prop_assert_eq!(got, model.free(addr), "{:?}", act);
                    live.retain(|&x| x != addr);
                }
                Action::Shrink(n) => {
                    let got = fl.shrink(n).map_err(|e| kind(&e));
                    prop_assert_eq!(got, model.shrink(n), "{:?}", act);
                }
                Action::Reset => {
                    fl.reset().map_err(|e| TestCaseError::fail(e.to_string()))?;
                    model.reset();
                }
                Action::Clear => {
                    fl.clear();
                    model = Model::new(cfg);
                    live.clear();
                }
            }
            if let Err(e) = fl.check_invariants() {
                prop_assert!(false, "invariant after {:?}: {}", act, e);
            }
            let st = fl.statistics();
            prop_assert_eq!(st.allocated + st.free, st.total);
            prop_assert!(st.largest_free <= st.free);
            let blocks: Vec<BlockInfo> = fl.blocks().collect();
            prop_assert!(blocks.iter().all(|b| b.size > 0));
            prop_assert_eq!(blocks.iter().map(|b| b.size).sum::<u64>(), st.total);
            prop_assert_eq!(blocks.first().map(|b| b.address), Some(fl.start()));
            prop_assert!(blocks.windows(2).all(|w| w[0].address + w[0].size == w[1].address));
            prop_assert_eq!(&blocks, &model.blocks());
            let free_sum: u64 = blocks.iter().filter(|b| !b.allocated).map(|b| b.size).sum();
            prop_assert_eq!(free_sum, st.free);
            let largest = blocks.iter().filter(|b| !b.allocated).map(|b| b.size).max().unwrap_or(0);
            prop_assert_eq!(largest, st.largest_free);
            let lowest = blocks.iter().find(|b| b.allocated).map(|b| b.address);
            prop_assert_eq!(lowest, fl.lowest_occupied_address());
            let avail: Vec<(u64, u64)> = fl.available_addresses(1).collect();
            let want: Vec<(u64, u64)> = blocks.iter().filter(|b| !b.allocated && b.size >= fl.alloc_size(1).unwrap_or(1))
                .map(|b| (b.address, b.address + b.size)).collect();
            prop_assert_eq!(avail, want);
        }
    }
}
