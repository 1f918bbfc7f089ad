//! The whole multi-core path on arbitrary *programs* (issue 18: structured inputs, so the
//! fuzzer explores meaning, not syntax): 1–8 logical cores, each with up to 64 private
//! tensors (size, def, up to 3 reads, optionally pinned), up to 8 shared tensors written by
//! a collective op on their owner core and read on others, a window from tight to 1 TiB, a
//! CC region and every strategy but `exact` (seconds per input). Built as `tests/multicore_props.rs`
//! builds its programs, so every program is well formed; what varies is its meaning.
//!
//! A plan that `plan_model` returns must pass the independent verifier (`check_plans`), keep
//! every pinned tensor at its address, give every shared tensor one address on all cores,
//! align every address to 4096 and end inside the window; programs of up to 200 tensors are
//! then executed on the simulator with every byte written and read back. An error is fine
//! (a tight window, a pinned tensor past it); a panic is a bug.
#![no_main]

use arbitrary::Arbitrary;
use dramalloc_core::liveness::program::Location;
use dramalloc_core::{CcSize, Strategy};
use dramalloc_sim::exec::executor::{execute, ExecOptions};
use dramalloc_sim::input::TensorKind;
use dramalloc_sim::model::{CoreProgram, SimModel};
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::verify::plan_check::check_plans;
use libfuzzer_sys::fuzz_target;

/// Instructions per core: defs at `0..HORIZON`, reads up to 32 later.
const HORIZON: u32 = 64;

#[derive(Arbitrary, Debug)]
struct Private {
    /// Bytes, 1..=2^20 (`size % 2^20 + 1`).
    size: u32,
    def: u8,
    reads: Vec<u8>,
    /// Pinned at `2^32 + slot · 2^20` (a distinct MiB per tensor), else planned.
    pinned: bool,
}

#[derive(Arbitrary, Debug)]
struct Shared {
    /// Bytes, 1..=2^18.
    size: u32,
    owner: u8,
    def: u8,
    /// (core, delay after the def).
    readers: Vec<(u8, u8)>,
}

#[derive(Arbitrary, Debug)]
enum Window {
    /// 1 TiB: everything fits.
    Large,
    /// `n` MiB (from tight to roomy).
    Mib(u16),
}

#[derive(Arbitrary, Debug)]
struct Input {
    cores: u8,
    window: Window,
    cc_mib: Option<u8>,
    strategy: u8,
    private: Vec<Vec<Private>>,
    shared: Vec<Shared>,
}

fuzz_target!(|input: Input| {
    let cores = usize::from(input.cores % 8) + 1;
    let strategies: Vec<Strategy> = Strategy::ALL.into_iter().filter(|s| s.name() != "exact").collect();
    let strategy = strategies[usize::from(input.strategy) % strategies.len()];
    let model = build(cores, &input);
    let window = match input.window {
        Window::Large => 1 << 40,
        Window::Mib(m) => (u64::from(m) + 1) << 20,
    };
    let cc = input.cc_mib.map_or(CcSize::Auto, |m| CcSize::Mib(u64::from(m % 4)));
    let opts = PlanOptions { strategy, window, cc, ..PlanOptions::default() };
    let Ok(plan) = plan_model(&model, &opts) else { return };
    if let Err((core, e)) = check_plans(&model, &plan) {
        panic!("{strategy:?}: the verifier rejects core {core}: {e}");
    }
    for (k, c) in model.cores.iter().enumerate() {
        assert!(plan.metrics[k].hwm <= window, "{strategy:?}: core {k} HWM past the window");
        for (l, p) in plan.placements[k].iter().enumerate() {
            let a = p.address.expect("every tensor of a returned plan is addressed");
            assert_eq!(a % 4096, 0, "{strategy:?}: core {k} tensor {l} unaligned");
            assert!(a + p.aligned <= window, "{strategy:?}: core {k} tensor {l} past the window");
            if let Some(fixed) = c.locations[l].address {
                assert_eq!(a, fixed, "{strategy:?}: core {k} pinned tensor {l} moved");
            }
            if p.shared {
                let l0 = model.cores[0]
                    .names
                    .iter()
                    .position(|n| *n == c.names[l])
                    .expect("core 0 holds every twin");
                assert_eq!(
                    Some(a),
                    plan.placements[0][l0].address,
                    "{strategy:?}: twin `{}` differs",
                    c.names[l]
                );
            }
        }
    }
    if model.tensor_count() <= 200 {
        if let Err(e) = execute(&model, &plan, &ExecOptions::default()) {
            panic!("{strategy:?}: a verified plan failed on the simulator: {e}");
        }
    }
});

/// The program: core k's instruction i defines and reads what the input says; a shared tensor
/// is written by a collective op on its owner and read on its readers' cores (core 0 reads
/// every shared tensor, so it holds the twin the shared set is placed from); private defs
/// move off the collective instructions, which define shared tensors only.
fn build(cores: usize, input: &Input) -> SimModel {
    let horizon = (HORIZON + 32 + 1) as usize;
    let shared: Vec<(u64, usize, u32, Vec<(usize, u32)>)> = input
        .shared
        .iter()
        .take(8)
        .map(|s| {
            let owner = usize::from(s.owner) % cores;
            let def = u32::from(s.def) % HORIZON;
            let mut readers: Vec<(usize, u32)> = s
                .readers
                .iter()
                .take(4)
                .map(|&(c, d)| (usize::from(c) % cores, u32::from(d % 32) + 1))
                .collect();
            if owner != 0 && !readers.iter().any(|r| r.0 == 0) {
                readers.push((0, 1));
            }
            (u64::from(s.size) % (1 << 18) + 1, owner, def, readers)
        })
        .collect();
    let mut out = Vec::with_capacity(cores);
    for k in 0..cores {
        let mut c = CoreProgram::default();
        let mut at: Vec<(Vec<u32>, Vec<u32>, bool)> = vec![(Vec::new(), Vec::new(), false); horizon];
        let collective_at: Vec<u32> = shared.iter().filter(|s| s.1 == k).map(|s| s.2).collect();
        let none = Vec::new();
        let private = input.private.get(k).unwrap_or(&none);
        for (i, p) in private.iter().take(64).enumerate() {
            let mut def = u32::from(p.def) % HORIZON;
            while collective_at.contains(&def) {
                def = (def + 1) % HORIZON;
                if collective_at.len() as u32 >= HORIZON {
                    break;
                }
            }
            if collective_at.contains(&def) {
                continue;
            }
            let size = u64::from(p.size) % (1 << 20) + 1;
            let loc = if p.pinned {
                Location::pinned(size, (1 << 32) + (i as u64) * (1 << 20))
            } else {
                Location::spill(size)
            };
            let l = c.add_tensor(format!("c{k}_t{i}"), TensorKind::Intermediate, loc);
            at[def as usize].1.push(l);
            for &r in p.reads.iter().take(3) {
                at[(def + u32::from(r % 32) + 1) as usize].0.push(l);
            }
        }
        for (j, (size, owner, def, readers)) in shared.iter().enumerate() {
            let reads: Vec<u32> = readers.iter().filter(|r| r.0 == k).map(|r| def + r.1).collect();
            if *owner != k && reads.is_empty() {
                continue;
            }
            let l = c.add_tensor(
                format!("shared{j}"),
                TensorKind::Intermediate,
                Location { shared: true, ..Location::spill(*size) },
            );
            if *owner == k {
                at[*def as usize].1.push(l);
                at[*def as usize].2 = true;
            }
            for r in reads {
                at[r as usize].0.push(l);
            }
        }
        if c.names.is_empty() {
            let l = c.add_tensor(format!("c{k}_pad"), TensorKind::Intermediate, Location::spill(1));
            at[horizon - 1].1.push(l);
        }
        for (i, (uses, defs, collective)) in at.into_iter().enumerate() {
            c.add_op(format!("op{i}"), "Op".into(), &uses, &defs, collective);
        }
        out.push(c);
    }
    SimModel { name: "fuzz".into(), cores: out }
}
