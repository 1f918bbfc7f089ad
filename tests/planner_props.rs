//! Property tests of the planner on random programs (issue: planner core; reliability).
//!
//! Random single-core programs of up to 2,000 tensors (pinned spills, pre-placed inputs at
//! aligned or unaligned addresses, collective ops) through every strategy:
//! - every pair of interfering tensors has disjoint `[address, address + aligned)`;
//! - pinned tensors keep their address; nothing ends past the window;
//! - when every pre-placed and pinned tensor sits on a page boundary, every address is
//!   4096-aligned; otherwise each address follows the page-straddle rule exactly: a
//!   4096-byte tensor sits on a page boundary, a larger one at the floor, at the end of an
//!   interfering neighbour or on a page boundary.
//! - a window too small gives `DoesNotFit`, never a plan past the window.
//!
//! Cases: `DRAMALLOC_PROPTEST_CASES` (default 2,000).

use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand, UsageClass};
use dramalloc_core::{plan_function, CcSize, PlanConfig, PlanError, Strategy as PlanStrategy};
use dramalloc_sim::host_storage::HostWorkspace;
use proptest::prelude::*;

const PAGE: u64 = 4096;

fn cases() -> u32 {
    std::env::var("DRAMALLOC_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000)
}

#[derive(Debug, Clone)]
struct Spec {
    /// (size, def, uses after def (offsets), pinned slot)
    tensors: Vec<(u64, u32, Vec<u32>, Option<u32>)>,
    /// address of the pre-placed input (its low bits make the floor unaligned)
    input_address: u64,
    collective_every: u32,
}

fn spec() -> impl Strategy<Value = Spec> {
    let tensor = (
        prop_oneof![1u64..=4096, 4097u64..=65_536, 1u64..=(1 << 20)],
        0u32..400,
        prop::collection::vec(0u32..40, 0..4),
        prop::option::weighted(0.05, 0u32..64),
    );
    (prop_oneof![3 => prop::collection::vec(tensor.clone(), 1..200), 1 => prop::collection::vec(tensor, 1..2000)], prop_oneof![Just(0u64), 1u64..100_000], 0u32..20).prop_map(
        |(tensors, input_address, collective_every)| Spec { tensors, input_address, collective_every },
    )
}

struct Built {
    locs: Vec<Location>,
    ins: Vec<Instruction>,
    ops: Vec<Operand>,
    /// closed live hull per location (candidates only)
    live: Vec<Option<(u32, u32)>>,
}

fn build(s: &Spec) -> Built {
    let horizon = 400 + 41;
    let mut at: Vec<(Vec<u32>, Vec<u32>)> = vec![(Vec::new(), Vec::new()); horizon];
    let mut locs = vec![Location::preplaced(10_000, UsageClass::Input, s.input_address)];
    let mut live = vec![None];
    at[0].0.push(0); // op 0 reads the input
    for (k, (size, def, uses, pin)) in s.tensors.iter().enumerate() {
        let l = (k + 1) as u32;
        let mut loc = Location::spill(*size);
        // pinned tensors get their own 1 MiB slot above 64 MiB, so pinned never overlap
        if pin.is_some() {
            loc = Location::pinned(*size, (64 << 20) + (k as u64) * (1 << 20));
        }
        locs.push(loc);
        at[*def as usize].1.push(l);
        let mut last = *def;
        for u in uses {
            let t = def + 1 + u;
            at[t as usize].0.push(l);
            last = last.max(t);
        }
        live.push(Some((*def, last)));
    }
    let (mut ins, mut ops) = (Vec::new(), Vec::new());
    for (i, (uses, defs)) in at.iter().enumerate() {
        let first = ops.len() as u32;
        ops.extend(uses.iter().map(|&l| Operand::use_(l)));
        ops.extend(defs.iter().map(|&l| Operand::def(l)));
        let collective = s.collective_every > 0 && (i as u32).is_multiple_of(s.collective_every);
        ins.push(Instruction { first, count: ops.len() as u32 - first, collective });
    }
    Built { locs, ins, ops, live }
}

fn check(b: &Built, s: &Spec, strategy: PlanStrategy, window: u64) -> Result<(), TestCaseError> {
    let f = Function { locations: &b.locs, instructions: &b.ins, operands: &b.ops };
    let mut host = HostWorkspace::new(b.locs.len(), b.ops.len().max(1), b.locs.len());
    let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
    let res = plan_function(&f, &cfg, &mut host.workspace());
    let plan = match res {
        Ok(p) => p,
        Err(PlanError::DoesNotFit { needed, available, .. }) => {
            prop_assert!(needed > available);
            return Ok(());
        }
        Err(PlanError::OutsideWindow { end, window: w, .. }) => {
            prop_assert!(end > w);
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("unexpected error {e}"))),
    };
    let n = plan.metrics.candidates as usize;
    let infos = &host.infos()[..n];
    let floor = plan.metrics.reserved_space;
    let aligned_world = s.input_address.is_multiple_of(PAGE);
    // interfering pairs by a sweep over defs: O(n log n + pairs)
    let hull = |i: usize| b.live[infos[i].location as usize].unwrap();
    let mut by_def: Vec<usize> = (0..n).collect();
    by_def.sort_by_key(|&i| hull(i).0);
    let mut ends: Vec<Vec<u64>> = vec![Vec::new(); n];
    for (x, &i) in by_def.iter().enumerate() {
        let (_, u1) = hull(i);
        for &j in &by_def[x + 1..] {
            if hull(j).0 > u1 {
                break;
            }
            let (a, c) = (&infos[i], &infos[j]);
            prop_assert!(
                a.end() <= c.address || c.end() <= a.address,
                "interfering {} [{}, {}) and {} [{}, {})",
                a.location,
                a.address,
                a.end(),
                c.location,
                c.address,
                c.end()
            );
            ends[i].push(c.end());
            ends[j].push(a.end());
        }
    }
    for (i, a) in infos.iter().enumerate() {
        let loc = &b.locs[a.location as usize];
        prop_assert!(a.end() <= window, "past the window");
        if let Some(p) = loc.address {
            prop_assert_eq!(a.address, p, "pinned moved");
            continue;
        }
        prop_assert!(a.address >= floor);
        if aligned_world {
            prop_assert_eq!(a.address % PAGE, 0, "unaligned address with an aligned floor");
        } else if a.aligned == PAGE {
            prop_assert_eq!(a.address % PAGE, 0, "a one-page tensor straddles a page");
        } else {
            prop_assert!(
                a.address == floor || ends[i].contains(&a.address) || a.address % PAGE == 0,
                "address {} is not the floor, a neighbour's end or a page boundary",
                a.address
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_plan_correctly(s in spec(), strategy in prop::sample::select(PlanStrategy::ALL.to_vec())) {
        let b = build(&s);
        check(&b, &s, strategy, 1 << 40)?;
    }

    #[test]
    fn small_windows_fail_cleanly(s in spec(), window in (1u64 << 20)..(64u64 << 20)) {
        let b = build(&s);
        check(&b, &s, PlanStrategy::Seed, window)?;
    }
}
