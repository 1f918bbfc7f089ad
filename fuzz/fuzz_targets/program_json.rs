//! Program JSON reader on arbitrary UTF-8: `parse_program`, then on success the
//! pre-placement, the problem derivation and (up to 256 buffers) a plan of that problem.
//! Never panics.
#![no_main]

use dramalloc_core::Strategy;
use dramalloc_sim::input::{pack_preplaced, parse_program, PAGE};
use dramalloc_sim::quality::problem::{problem_from_program, solve};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(program) = parse_program(text, "fuzz", 100_000) else { return };
    // Every index an op holds names a tensor (the reader's promise).
    for op in &program.ops {
        for &t in op.inputs.iter().chain(&op.outputs) {
            assert!(
                (t as usize) < program.tensors.len(),
                "op `{}` names tensor {t} of {}",
                op.name,
                program.tensors.len()
            );
        }
    }
    if let Ok(addresses) = pack_preplaced(&program, PAGE) {
        assert_eq!(addresses.len(), program.tensors.len());
    }
    let problem = problem_from_program(&program);
    for (id, b) in problem.iter() {
        assert!(b.lower < b.upper, "buffer `{id}`: lower {} >= upper {}", b.lower, b.upper);
    }
    // The default strategy on small problems (the planner itself is `planner_intervals`).
    if problem.len() <= 256 {
        let _ = solve(&problem, PAGE, None, Strategy::default());
    }
});
