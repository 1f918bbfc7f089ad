//! The planner's milestone events (the seed allocator's log lines) through the `log` facade:
//! the exact lines one multi-core run logs, in order. The sim turns on the core's `log`
//! feature; this test binary's logger collects them.

use std::sync::Mutex;

use dramalloc_core::multicore::{MultiConfig, Pipeline};
use dramalloc_core::{CcSize, PlanConfig, Strategy};
use dramalloc_sim::host_storage::HostMulti;
use dramalloc_sim::input::parse_program;
use dramalloc_sim::run::{build_model, Split};

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Collect;

impl log::Log for Collect {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.target() == "dramalloc"
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            LINES.lock().unwrap().push(format!("{} {}", r.level(), r.args()));
        }
    }
    fn flush(&self) {}
}

static LOGGER: Collect = Collect;

const TINY: &str = r#"{"name": "tiny", "tensors": [
  {"name": "x", "bytes": 5000, "kind": "input"},
  {"name": "a", "bytes": 8192, "kind": "intermediate"},
  {"name": "y", "bytes": 4096, "kind": "output"}],
 "ops": [
  {"name": "c0", "op": "Conv", "inputs": ["x"], "outputs": ["a"]},
  {"name": "o0", "op": "Relu", "inputs": ["a"], "outputs": ["y"]}]}"#;

#[test]
fn a_two_core_run_logs_the_seed_s_milestones() {
    log::set_logger(&LOGGER).unwrap();
    log::set_max_level(log::LevelFilter::Info);
    let program = parse_program(TINY, "tiny", 100).unwrap();
    let model = build_model(&program, 2, Split::TensorParallel).unwrap();
    let names = model.name_refs();
    let modules = model.modules(&names);
    let mut host = HostMulti::new(&modules, 64);
    let (mut storage, mut states) = host.split();
    let plan = PlanConfig { window: 1 << 30, cc: CcSize::Auto, strategy: Strategy::Seed };
    let cfg = MultiConfig { plan, ..MultiConfig::default() };
    Pipeline::build(&cfg).run(&cfg, &modules, &mut states, &mut storage).unwrap();
    let slice = |k: usize| {
        states[0].locations[model.cores[0].names.iter().position(|n| *n == format!("a/cc_slice{k}")).unwrap()]
            .address
    };
    let (s0, s1) = (slice(0), slice(1));
    // x: 5000 B at 0 and y: 4096 B at 8192 are pre-placed (hwm = 12287); each core's stage op
    // is collective over `a` (8192 B) and its slice (4096 B): the seed's sum over both cores,
    // each operand's Info size plus its bytes, 2 x (8192 + 8192 + 4096 + 4096) = 49152,
    // logged once by the pipeline for the device's region
    let private = [
        "INFO Already used DRAM hwm: 12287",
        // `a` [c0, stage] and `a/reduced` [gather, o0]: one interval each
        "INFO Num intervals 2 Num locations 2",
        "INFO Real CC buffer size 0",
        "INFO DRAM allocation successful",
    ];
    let mut expected = vec!["INFO CC buffer size limit 49152".to_string()];
    expected.extend(private.iter().chain(&private).map(|s| s.to_string()));
    // the shared set (the two slices, collective buffers) placed once by core 0 in the CC
    // region, 2 x 4096 bytes of it used, then equalized on core 1
    expected.extend(
        [
            "INFO Num intervals 2 Num locations 2",
            "INFO Real CC buffer size 0",
            "INFO DRAM allocation successful",
            "INFO Real CC buffer size 8192",
        ]
        .map(String::from),
    );
    expected
        .push(format!("INFO Assigned memloc a/cc_slice0 to address {s0} based on its remote local target"));
    expected
        .push(format!("INFO Assigned memloc a/cc_slice1 to address {s1} based on its remote local target"));
    assert_eq!(*LINES.lock().unwrap(), expected);
}
