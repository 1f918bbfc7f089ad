//! The host way in: plans a bundled model through the core API with `Vec` storage and
//! prints the plan, then each core's HWM and the address checksum, in the firmware
//! example's words (`.ci/firmware` compares the two).
//!
//! `cargo run --release -p dramalloc-sim --example plan_model [PROGRAM.json]` (default: the
//! bundled VGG-19, 2 cores, tensor-parallel, the `dramalloc run` defaults).

use dramalloc_core::multicore::digest::{address_checksum, view_hwm};
use dramalloc_core::multicore::{MultiConfig, Pipeline};
use dramalloc_sim::host_storage::HostMulti;
use dramalloc_sim::input::parse_program;
use dramalloc_sim::run::{build_model, Split};

const VGG19: &str = include_str!("../data/models/onnx_vgg19.json");
const CORES: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (text, source) = match std::env::args().nth(1) {
        Some(p) => (std::fs::read_to_string(&p)?, p),
        None => (VGG19.to_string(), "bundled:onnx_vgg19.json".to_string()),
    };
    let program = parse_program(&text, &source, 1_000_000)?;
    let model = build_model(&program, CORES, Split::TensorParallel)?;
    let names = model.name_refs();
    let modules = model.modules(&names);
    let locations: Vec<usize> = model.cores.iter().map(|c| c.locations.len()).collect();
    // Vec storage the core borrows; edges grow until they fit
    let mut edges = 4096;
    loop {
        let mut host = HostMulti::new(&modules, edges);
        let (mut storage, mut states) = host.split();
        let cfg = MultiConfig::default();
        let report = match Pipeline::build(&cfg).run(&cfg, &modules, &mut states, &mut storage) {
            Ok(r) => r,
            Err(e) if matches!(e.error, dramalloc_core::PlanError::Capacity { .. }) && edges < 1 << 28 => {
                edges *= 8;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        println!("tensor,core,address,aligned_bytes,shared");
        for (k, s) in states.iter().enumerate() {
            for (l, loc) in s.locations.iter().enumerate().filter(|(_, l)| l.is_allocated()) {
                let shared = loc.is_shared_post_dram_alloc();
                println!("{},{k},{},{},{shared}", names[k][l], loc.address, loc.aligned);
            }
        }
        println!(
            "model {} on {} cores: {} shared tensors, {} cross-core edges",
            model.name, CORES, report.shared_tensors, report.edges
        );
        for (k, s) in states.iter().enumerate() {
            println!("core {k} hwm {}", view_hwm(s));
        }
        println!("address checksum {:#018x}", address_checksum(&states, &locations));
        return Ok(());
    }
}
