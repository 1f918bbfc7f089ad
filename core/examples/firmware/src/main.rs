//! dramalloc-core on a Cortex-M4F (QEMU `mps2-an386`): plans VGG-19, split tensor-parallel
//! over 2 cores, with all storage in `static`s taken once (no `unsafe` here), prints each
//! core's HWM and the address checksum (the host example prints the same two lines), then
//! validates the host's `plan.bin` (embedded with `include_bytes!`) with the core's reader
//! and checks that it holds the same addresses. The planner's milestone events (the core's
//! `log` feature) print as `milestone: …` lines. Exits through semihosting: 0 when all agree.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use dramalloc_core::multicore::digest::{address_checksum, view_hwm};
use dramalloc_core::multicore::{ModuleState, MultiConfig, Pipeline};
use dramalloc_core::plan_file::{scratch_for, PlanFile};
use dramalloc_core::static_storage::{StaticMulti, TakeOnce};
use panic_semihosting as _;

#[allow(dead_code)]
mod model {
    include!(concat!(env!("OUT_DIR"), "/model.rs"));
}

use model::{ACCESSES, CORES, EDGES, INTERVALS, LOCATIONS, PRESSURE};

/// The host's plan of the same model (`dramalloc run --report-dir` writes the same bytes).
static PLAN_BIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/plan.bin"));

type Storage = StaticMulti<CORES, LOCATIONS, INTERVALS, LOCATIONS, ACCESSES, EDGES, PRESSURE>;
static STORAGE: TakeOnce<Storage> = TakeOnce::new(StaticMulti::new());
/// The plan check's scratch: [`scratch_for`] a core's records (one per location at most).
static SCRATCH: TakeOnce<[u32; scratch_for(LOCATIONS)]> = TakeOnce::new([0; scratch_for(LOCATIONS)]);

/// Prints the core's milestone events (the `log` facade) through semihosting.
struct Semihosting;

impl log::Log for Semihosting {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Info
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            hprintln!("milestone: {}", r.args());
        }
    }
    fn flush(&self) {}
}

static LOGGER: Semihosting = Semihosting;

fn fail(what: &str) -> ! {
    hprintln!("FAILED: {}", what);
    debug::exit(debug::EXIT_FAILURE);
    idle()
}

/// Waits forever (after a semihosting exit, or in the `hold` build).
fn idle() -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}

/// Every addressed location of every core has the address the blob gives its tensor.
fn same_addresses(file: &PlanFile<'_>, states: &[ModuleState<'_>]) -> Result<usize, &'static str> {
    let mut n = 0;
    for (k, s) in states.iter().enumerate() {
        for (l, loc) in s.locations.iter().take(model::LOCATION_COUNTS[k]).enumerate() {
            if !loc.is_allocated() {
                continue;
            }
            let name = model::names(k)[l];
            let t = (0..file.names().len() as u32)
                .find(|&t| file.name(t) == Some(name))
                .ok_or("tensor missing")?;
            let (_, r) = file.find(k as u32, t).ok_or("record missing")?;
            if r.address.get() != loc.address {
                return Err("an address differs");
            }
            n += 1;
        }
    }
    if n == file.records().len() {
        Ok(n)
    } else {
        Err("record count differs")
    }
}

#[entry]
fn main() -> ! {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    let Some(storage) = STORAGE.take() else { fail("storage taken twice") };
    let (mut multi, mut states) = storage.split();
    let modules = model::modules();
    let cfg = MultiConfig::default();
    let report = match Pipeline::build(&cfg).run(&cfg, &modules, &mut states, &mut multi) {
        Ok(r) => r,
        Err(e) => {
            hprintln!("plan error: {}", e);
            fail("planning")
        }
    };
    hprintln!(
        "model {} on {} cores: {} shared tensors, {} cross-core edges",
        model::NAME,
        CORES,
        report.shared_tensors,
        report.edges
    );
    for (k, s) in states.iter().enumerate() {
        hprintln!("core {} hwm {}", k, view_hwm(s));
    }
    hprintln!("address checksum {:#018x}", address_checksum(&states, &model::LOCATION_COUNTS));

    let Some(scratch) = SCRATCH.take() else { fail("scratch taken twice") };
    match PlanFile::read(PLAN_BIN, scratch) {
        Ok(file) => match same_addresses(&file, &states) {
            Ok(n) => hprintln!("plan.bin: {} bytes, {} records, valid, same addresses", PLAN_BIN.len(), n),
            Err(e) => fail(e),
        },
        Err(e) => {
            hprintln!("plan.bin rejected: {}", e);
            fail("plan.bin")
        }
    }
    if cfg!(feature = "hold") {
        hprintln!("holding");
        idle()
    }
    debug::exit(debug::EXIT_SUCCESS);
    idle()
}
