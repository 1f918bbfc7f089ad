//! Property test of the whole multi-core path: random programs of up to 5,000 tensors on 1–8
//! cores, with shared tensors (written on one core, read on others), pinned tensors and
//! collective ops, through every strategy. The independent verifier must find no collision,
//! every shared tensor must have one address on all cores, pinned tensors keep their address,
//! every address is 4096-aligned, nothing ends past the window, and small programs execute
//! on the simulator with every byte verified.
//!
//! Cases: `DRAMALLOC_PROPTEST_CASES` (default 2,000).

use dramalloc_core::liveness::program::Location;
use dramalloc_core::Strategy as PlanStrategy;
use dramalloc_sim::exec::executor::{execute, ExecOptions};
use dramalloc_sim::input::TensorKind;
use dramalloc_sim::model::{CoreProgram, SimModel};
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::verify::plan_check::check_plans;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("DRAMALLOC_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000)
}

#[derive(Debug, Clone)]
struct Private {
    size: u64,
    def: u32,
    uses: Vec<u32>,
    pinned: bool,
}

#[derive(Debug, Clone)]
struct Shared {
    size: u64,
    owner: usize,
    def: u32,
    /// (core, delay after def)
    readers: Vec<(usize, u32)>,
}

#[derive(Debug, Clone)]
struct Spec {
    cores: usize,
    private: Vec<Vec<Private>>,
    shared: Vec<Shared>,
}

fn private() -> impl Strategy<Value = Private> {
    (
        prop_oneof![1u64..=4096, 1u64..=(1 << 20)],
        0u32..300,
        prop::collection::vec(1u32..30, 0..3),
        prop::bool::weighted(0.03),
    )
        .prop_map(|(size, def, uses, pinned)| Private { size, def, uses, pinned })
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..=8).prop_flat_map(|cores| {
        let per_core = prop_oneof![
            4 => prop::collection::vec(private(), 1..60),
            1 => prop::collection::vec(private(), 1..(5000 / cores).max(2)),
        ];
        let shared =
            (1u64..=(256 << 10), 0..cores, 0u32..300, prop::collection::vec((0..cores, 1u32..20), 0..4))
                .prop_map(|(size, owner, def, readers)| Shared { size, owner, def, readers });
        (prop::collection::vec(per_core, cores), prop::collection::vec(shared, 0..12))
            .prop_map(move |(private, shared)| Spec { cores, private, shared })
    })
}

/// Builds the model: core k's instruction i defines/reads what the spec says; a shared
/// tensor is written by a collective op on its owner and read on its readers' cores.
fn build(s: &Spec) -> SimModel {
    let horizon = 300 + 40;
    let mut cores = Vec::new();
    for k in 0..s.cores {
        let mut c = CoreProgram::default();
        let mut at: Vec<(Vec<u32>, Vec<u32>, bool)> = vec![(Vec::new(), Vec::new(), false); horizon];
        for (i, p) in s.private[k].iter().enumerate() {
            let mut loc = Location::spill(p.size);
            if p.pinned {
                loc = Location::pinned(p.size, (1 << 32) + (i as u64) * (1 << 20));
            }
            let l = c.add_tensor(format!("c{k}_t{i}"), TensorKind::Intermediate, loc);
            at[p.def as usize].1.push(l);
            for u in &p.uses {
                at[(p.def + u) as usize].0.push(l);
            }
        }
        for (j, sh) in s.shared.iter().enumerate() {
            let reads: Vec<u32> = sh.readers.iter().filter(|r| r.0 == k).map(|r| sh.def + r.1).collect();
            if sh.owner != k && reads.is_empty() {
                continue;
            }
            let l = c.add_tensor(
                format!("shared{j}"),
                TensorKind::Intermediate,
                Location { shared: true, ..Location::spill(sh.size) },
            );
            if sh.owner == k {
                at[sh.def as usize].1.push(l);
                at[sh.def as usize].2 = true; // a collective writes the staging buffer
            }
            for r in reads {
                at[r as usize].0.push(l);
            }
        }
        for (i, (uses, defs, collective)) in at.into_iter().enumerate() {
            c.add_op(format!("op{i}"), "Op".into(), &uses, &defs, collective);
        }
        cores.push(c);
    }
    SimModel { name: "prop".into(), cores }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 100, ..ProptestConfig::default() })]

    #[test]
    fn random_multicore_programs(s in spec(), strategy in prop::sample::select(PlanStrategy::ALL.to_vec())) {
        let mut s = s;
        // make core 0 hold a twin of every shared tensor (it places the shared set)
        for sh in s.shared.iter_mut() {
            if sh.owner != 0 && !sh.readers.iter().any(|r| r.0 == 0) {
                sh.readers.push((0, 1));
            }
        }
        // collective ops define only shared tensors: move private defs off those instructions
        let shared_defs: Vec<(usize, u32)> = s.shared.iter().map(|x| (x.owner, x.def)).collect();
        for (k, ps) in s.private.iter_mut().enumerate() {
            for p in ps.iter_mut() {
                if shared_defs.contains(&(k, p.def)) {
                    p.def = (p.def + 1) % 300;
                    if shared_defs.contains(&(k, p.def)) {
                        p.def = (p.def + 1) % 300;
                    }
                }
            }
            ps.retain(|p| !shared_defs.contains(&(k, p.def)));
            if ps.is_empty() {
                ps.push(Private { size: 1, def: 299, uses: vec![], pinned: false });
            }
        }
        let model = build(&s);
        let opts = PlanOptions { strategy, window: 1 << 40, ..PlanOptions::default() };
        let plan = plan_model(&model, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Err((core, e)) = check_plans(&model, &plan) {
            return Err(TestCaseError::fail(format!("verifier, core {core}: {e}")));
        }
        for (k, c) in model.cores.iter().enumerate() {
            prop_assert!(plan.metrics[k].hwm <= opts.window);
            for (l, p) in plan.placements[k].iter().enumerate() {
                let a = p.address.expect("every tensor is addressed");
                prop_assert_eq!(a % 4096, 0, "unaligned address");
                prop_assert!(a + p.aligned <= opts.window);
                if let Some(fixed) = c.locations[l].address {
                    prop_assert_eq!(a, fixed, "pinned moved");
                }
                if p.shared {
                    let l0 = model.cores[0].names.iter().position(|n| *n == c.names[l]).unwrap();
                    prop_assert_eq!(Some(a), plan.placements[0][l0].address, "twin address differs");
                }
            }
        }
        if model.tensor_count() <= 200 {
            execute(&model, &plan, &ExecOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}
