//! Small, Miri-sized runs of the two halves of the core (issue 18, part 3): the banked free
//! list on pseudo-random operation sequences checked against a reference model after every
//! step, and every strategy on small generated problems checked by an independent verifier.
//! Sizes shrink under `cfg(miri)` (`.ci/miri`); natively the same tests run larger.

use std::collections::BTreeMap;

use dramalloc_core::banked::{BankedError, FreeList, FreeListConfig, Policy};
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, StaticWorkspace, Strategy};

/// Knuth's MMIX LCG: deterministic, no dependency.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Free gaps `(start, end)` of `[0, size)` around the live blocks.
fn gaps(live: &BTreeMap<u64, u64>, size: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (&a, &s) in live {
        if a > at {
            out.push((at, a));
        }
        at = a + s;
    }
    if size > at {
        out.push((at, size));
    }
    out
}

/// Where first/best fit must put `s` bytes.
fn model_place(live: &BTreeMap<u64, u64>, size: u64, s: u64, bottom_up: bool, policy: Policy) -> Option<u64> {
    let fits: Vec<(u64, u64)> = gaps(live, size).into_iter().filter(|&(a, e)| e - a >= s).collect();
    let (a, e) = match policy {
        Policy::First if bottom_up => *fits.first()?,
        Policy::First => *fits.last()?,
        Policy::Best => {
            let best = fits.iter().map(|&(a, e)| e - a).min()?;
            let same: Vec<_> = fits.iter().filter(|&&(a, e)| e - a == best).collect();
            if bottom_up {
                **same.first()?
            } else {
                **same.last()?
            }
        }
    };
    Some(if bottom_up { a } else { e - s })
}

fn run_sequence(policy: Policy, seed: u64, steps: usize) -> (usize, usize) {
    const SIZE: u64 = 64 * 1024;
    let mut fl = FreeList::<24>::new(FreeListConfig::new(SIZE, 0, 64, 64, policy)).unwrap();
    let mut live = BTreeMap::<u64, u64>::new();
    let mut rng = Lcg(seed);
    let (mut allocs, mut frees) = (0, 0);
    for step in 0..steps {
        match rng.below(10) {
            0..=4 => {
                let req = 1 + rng.below(6000);
                let bottom_up = rng.below(2) == 0;
                let s = fl.alloc_size(req).unwrap();
                assert_eq!(s, req.div_ceil(64) * 64);
                let want = model_place(&live, SIZE, s, bottom_up, policy);
                match fl.allocate(req, bottom_up) {
                    Ok(a) => {
                        assert_eq!(Some(a), want, "step {step}: allocate({req}, {bottom_up})");
                        live.insert(a, s);
                        allocs += 1;
                    }
                    Err(BankedError::OutOfMemory(_)) => assert_eq!(want, None, "step {step}"),
                    Err(BankedError::CapacityExhausted { capacity: 24, .. }) => {}
                    Err(e) => panic!("step {step}: {e:?}"),
                }
            }
            5..=8 if !live.is_empty() => {
                let k = rng.below(live.len() as u64) as usize;
                let a = *live.keys().nth(k).unwrap();
                let s = live.remove(&a).unwrap();
                assert_eq!(fl.free(a), Ok(s), "step {step}");
                assert!(fl.free(a).is_err(), "step {step}: double free accepted");
                frees += 1;
            }
            _ => {
                // An allocation at a fixed address, accepted exactly when its range is free.
                let a = rng.below(SIZE / 64) * 64;
                let s = 64 * (1 + rng.below(8));
                let free = a + s <= SIZE && live.iter().all(|(&b, &bs)| b + bs <= a || a + s <= b);
                match fl.allocate_at(a, s) {
                    Ok(got) => {
                        assert!(free, "step {step}: allocate_at({a}, {s}) over a live block");
                        assert_eq!(got, a);
                        live.insert(a, s);
                    }
                    Err(BankedError::CapacityExhausted { .. }) => {}
                    Err(e) => assert!(!free, "step {step}: allocate_at({a}, {s}) refused: {e:?}"),
                }
            }
        }
        assert_eq!(fl.check_invariants(), Ok(()), "step {step}");
        let st = fl.statistics();
        assert_eq!(st.allocated, live.values().sum::<u64>(), "step {step}");
        assert_eq!(st.allocated_blocks as usize, live.len(), "step {step}");
        let g = gaps(&live, SIZE);
        assert_eq!(st.free_blocks as usize, g.len(), "step {step}");
        assert_eq!(st.largest_free, g.iter().map(|&(a, e)| e - a).max().unwrap_or(0), "step {step}");
        assert_eq!(fl.lowest_occupied_address(), live.keys().next().copied(), "step {step}");
        let blocks: Vec<(u64, u64)> = fl.allocated_addresses().collect();
        assert_eq!(blocks, live.iter().map(|(&a, &s)| (a, a + s)).collect::<Vec<_>>(), "step {step}");
    }
    (allocs, frees)
}

#[test]
fn free_list_sequences_agree_with_the_model() {
    let steps = if cfg!(miri) { 120 } else { 3000 };
    for policy in [Policy::First, Policy::Best] {
        for seed in [1, 2] {
            let (allocs, frees) = run_sequence(policy, seed, steps);
            // Both kinds of step happened: the sequence is not trivially empty.
            assert!(allocs > steps / 10 && frees > steps / 10, "{policy:?} seed {seed}: {allocs} / {frees}");
        }
    }
}

#[test]
fn free_list_shrink_reset_and_clear_sequence() {
    let mut fl = FreeList::<8>::new(FreeListConfig::new(4096, 1 << 20, 64, 64, Policy::Best)).unwrap();
    assert_eq!(fl.allocate(100, false), Ok((1 << 20) + 4096 - 128));
    assert_eq!(fl.shrink(1024), Ok(()));
    assert_eq!((fl.start(), fl.end()), ((1 << 20) + 1024, (1 << 20) + 4096));
    assert_eq!(fl.allocate(64, true), Ok((1 << 20) + 1024));
    assert!(fl.shrink(64).is_err(), "a live block at the new start");
    assert_eq!(fl.check_invariants(), Ok(()));
    assert!(fl.reset().is_ok());
    assert_eq!(fl.start(), 1 << 20);
    assert_eq!(fl.check_invariants(), Ok(()));
    fl.clear();
    assert_eq!(fl.check_invariants(), Ok(()));
    assert_eq!(fl.statistics().allocated_blocks, 0);
    assert_eq!(fl.allocate(4096, true), Ok(1 << 20));
}

/// Independent check of a plan: every buffer placed once, aligned, inside the hwm, and no two
/// buffers whose closed lifetimes meet overlap in memory.
fn verify(bufs: &[Buffer], infos: &[dramalloc_core::Info], hwm: u64, align: u64, s: Strategy) {
    let mut at = vec![None; bufs.len()];
    for info in &infos[..bufs.len()] {
        assert!(info.is_allocated(), "{s:?}");
        assert!(at[info.location as usize].replace((info.address, info.aligned)).is_none(), "{s:?}");
    }
    let at: Vec<(u64, u64)> = at.into_iter().map(|x| x.unwrap()).collect();
    for (i, b) in bufs.iter().enumerate() {
        assert_eq!(at[i].1, b.bytes.div_ceil(align) * align, "{s:?}: aligned size of {i}");
        assert_eq!(at[i].0 % align, 0, "{s:?}: {i} misaligned");
        assert!(at[i].0 + at[i].1 <= hwm, "{s:?}: {i} above hwm {hwm}");
        for (j, c) in bufs.iter().enumerate().skip(i + 1) {
            if b.def <= c.last_use && c.def <= b.last_use {
                let ((a, sa), (bb, sb)) = (at[i], at[j]);
                assert!(a + sa <= bb || bb + sb <= a, "{s:?}: {i} and {j} overlap");
            }
        }
    }
}

#[test]
fn every_strategy_on_small_problems() {
    let (problems, n) = if cfg!(miri) { (2, 12) } else { (20, 40) };
    let mut rng = Lcg(99);
    let mut st: StaticWorkspace<40, 40, 0> = StaticWorkspace::new();
    for p in 0..problems {
        let bufs: Vec<Buffer> = (0..n)
            .map(|_| {
                let def = rng.below(30) as u32;
                Buffer::new(def, def + rng.below(8) as u32, 1 + rng.below(10_000))
            })
            .collect();
        let align = if p % 2 == 0 { 1 } else { 4096 };
        for s in Strategy::ALL {
            let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: s };
            let mut ws = st.workspace();
            let plan = plan_buffers(&bufs, align, &cfg, &mut ws).unwrap_or_else(|e| panic!("{s:?}: {e}"));
            assert!(plan.metrics.lower_bound <= plan.metrics.hwm, "{s:?}");
            verify(&bufs, ws.infos, plan.metrics.hwm, align, s);
        }
    }
}

#[test]
fn every_strategy_gives_the_forced_peak_when_all_buffers_meet() {
    // All three live at instruction 5: any valid plan stacks them, 4096 + 8192 + 8192 bytes.
    let bufs = [Buffer::new(0, 5, 100), Buffer::new(5, 9, 5000), Buffer::new(2, 7, 8192)];
    let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
    for s in Strategy::ALL {
        let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: s };
        let plan = plan_buffers(&bufs, 4096, &cfg, &mut st.workspace()).unwrap();
        assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (20480, 20480), "{s:?}");
    }
    // Two disjoint lifetimes share: the peak is the larger one, for every strategy.
    let bufs = [Buffer::new(0, 3, 4096), Buffer::new(4, 9, 8192)];
    for s in Strategy::ALL {
        let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: s };
        let plan = plan_buffers(&bufs, 4096, &cfg, &mut st.workspace()).unwrap();
        assert_eq!(plan.metrics.hwm, 8192, "{s:?}");
    }
}

/// A pinned page at 0 live over [0, 9]; two free buffers live with it, one after it.
const PINNED: [Buffer; 4] = [
    Buffer::pinned(0, 9, 4096, 0),
    Buffer::new(0, 4, 100),
    Buffer::new(5, 9, 5000),
    Buffer::new(10, 12, 4096),
];

#[test]
fn every_strategy_keeps_a_pin_and_places_around_it() {
    // A pinned page at 0 live over [0, 9]; two free buffers live with it, one after it.
    let bufs = PINNED;
    let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
    for s in Strategy::ALL {
        let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: s };
        let mut ws = st.workspace();
        let plan = plan_buffers(&bufs, 4096, &cfg, &mut ws).unwrap();
        assert_eq!(plan.metrics.hwm, 12288, "{s:?}");
        let pin = ws.infos[..4].iter().find(|i| i.location == 0).unwrap();
        assert_eq!((pin.address, pin.is_pinned()), (0, true), "{s:?}");
        verify(&bufs, ws.infos, plan.metrics.hwm, 4096, s);
    }
}

#[test]
fn without_the_placed_list_the_strategies_fall_back_to_select() {
    // `Workspace::placed` empty: the scan is unavailable and `select` places (portfolio).
    let bufs = PINNED;
    let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
    for s in [Strategy::Seed, Strategy::GreedySize, Strategy::BestFit] {
        let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: s };
        let mut ws = st.workspace();
        ws.placed = &mut [];
        let plan = plan_buffers(&bufs, 4096, &cfg, &mut ws).unwrap();
        assert_eq!(plan.metrics.hwm, 12288, "{s:?}");
        let mut at = [0; 4];
        ws.infos[..4].iter().for_each(|i| at[i.location as usize] = i.address);
        assert_eq!(at, [0, 4096, 4096, 0], "{s:?}");
        verify(&bufs, ws.infos, plan.metrics.hwm, 4096, s);
    }
}
