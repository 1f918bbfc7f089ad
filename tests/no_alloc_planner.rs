//! Zero heap allocations in the planner: building the interval tree, `simplify` and `select`
//! for a 10,000-tensor program, and the whole multi-core pipeline, counted with a counting
//! global allocator (per thread, so parallel tests do not mix).

use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand};
use dramalloc_core::multicore::{Module, MultiConfig, Pipeline};
use dramalloc_core::{plan_function, CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::{HostMulti, HostWorkspace};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs_during;

/// A seeded program: tensor t is defined at op t and read by 1..4 later ops.
fn program(n: usize, seed: u64) -> (Vec<Location>, Vec<Instruction>, Vec<Operand>) {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        s >> 33
    };
    let locs: Vec<Location> = (0..n).map(|_| Location::spill(1 + next() % (1 << 20))).collect();
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); n + 64];
    for t in 0..n {
        for _ in 0..1 + next() % 4 {
            uses[t + 1 + (next() % 48) as usize].push(t as u32);
        }
    }
    let (mut ins, mut ops) = (Vec::new(), Vec::new());
    for (i, u) in uses.iter().enumerate() {
        let first = ops.len() as u32;
        ops.extend(u.iter().map(|&t| Operand::use_(t)));
        if i < n {
            ops.push(Operand::def(i as u32));
        }
        ins.push(Instruction { first, count: ops.len() as u32 - first, collective: false });
    }
    (locs, ins, ops)
}

#[test]
fn counting_allocator_sees_allocations() {
    let (v, n) = allocs_during(|| vec![1u8; 10]);
    assert_eq!(v.len(), 10);
    assert!(n >= 1, "positive control");
}

#[test]
fn plan_function_10k_tensors_allocates_nothing() {
    let (locs, ins, ops) = program(10_000, 42);
    let f = Function { locations: &locs, instructions: &ins, operands: &ops };
    let mut host = HostWorkspace::new(locs.len(), ops.len(), locs.len());
    for strategy in Strategy::ALL {
        let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy };
        let (plan, n) = allocs_during(|| plan_function(&f, &cfg, &mut host.workspace()));
        let plan = plan.unwrap();
        assert_eq!(n, 0, "{strategy:?}: heap allocations");
        assert_eq!(plan.metrics.candidates, 10_000);
        assert!(plan.metrics.hwm >= plan.metrics.lower_bound);
    }
}

#[test]
fn multicore_pipeline_allocates_nothing() {
    let (locs, ins, ops) = program(2_000, 7);
    let mut shared_locs = locs.clone();
    for l in shared_locs.iter_mut().step_by(50) {
        l.shared = true;
    }
    let names: Vec<String> = (0..locs.len()).map(|i| format!("t{i}")).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let modules: Vec<Module> = (0..4)
        .map(|_| Module {
            function: Function { locations: &shared_locs, instructions: &ins, operands: &ops },
            names: &name_refs,
        })
        .collect();
    let mut host = HostMulti::new(&modules, 1 << 20);
    let cfg = MultiConfig {
        plan: PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Seed },
        ..MultiConfig::default()
    };
    let (mut storage, mut states) = host.split();
    let pipeline = Pipeline::build(&cfg);
    let (rep, n) = allocs_during(|| pipeline.run(&cfg, &modules, &mut states, &mut storage));
    let rep = rep.unwrap();
    assert_eq!(n, 0, "heap allocations in the multi-core pipeline");
    assert_eq!(rep.shared_tensors, 40);
    assert_eq!(rep.synced, 3 * 40);
}
