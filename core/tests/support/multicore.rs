//! The program builder and pipeline runner shared by the multi-core tests
//! (`multicore_passes.rs`, `multicore_paths.rs`): programs built instruction by instruction,
//! run through the public pipeline on the core's own [`StaticMulti`] storage.
#![allow(dead_code)] // each test file uses part of it

use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand};
use dramalloc_core::multicore::pipeline::MultiError;
use dramalloc_core::multicore::pressure::Peak;
use dramalloc_core::multicore::{
    DepKind, Edge, Module, ModuleState, MultiConfig, MultiReport, MultiStorage, Pass, Pipeline,
};
use dramalloc_core::static_storage::StaticMulti;
use dramalloc_core::Metrics;

/// The pipeline's storage for every program here: 8 cores; 64 candidates, 256 intervals and
/// 64 locations a core; 1,024 shared-access records; 10,000 edges; 1,024 words of pressure
/// scratch.
pub type Storage = StaticMulti<8, 64, 256, 64, 1024, 10_000, 1024>;

/// A tiny program builder: instructions are appended in flat-index order.
#[derive(Default, Clone)]
pub struct Prog {
    pub names: Vec<String>,
    pub locs: Vec<Location>,
    pub ins: Vec<Instruction>,
    pub ops: Vec<Operand>,
}

impl Prog {
    /// Adds location `loc` named `name`; returns its index.
    pub fn add(&mut self, name: &str, loc: Location) -> u32 {
        self.names.push(name.to_string());
        self.locs.push(loc);
        (self.locs.len() - 1) as u32
    }
    /// Adds a DRAM spill of `bytes`, shared across cores or not; returns its index.
    pub fn spill(&mut self, name: &str, bytes: u64, shared: bool) -> u32 {
        self.add(name, Location { shared, ..Location::spill(bytes) })
    }
    /// The index of the location named `name`.
    pub fn id(&self, name: &str) -> u32 {
        self.names.iter().position(|n| n == name).unwrap() as u32
    }
    /// Instruction at flat index `i` (earlier missing indices become empty instructions).
    pub fn at(&mut self, i: usize, ops: &[Operand], collective: bool) {
        while self.ins.len() < i {
            self.ins.push(Instruction { first: self.ops.len() as u32, count: 0, collective: false });
        }
        assert_eq!(self.ins.len(), i, "instructions must be appended in order");
        self.ins.push(Instruction { first: self.ops.len() as u32, count: ops.len() as u32, collective });
        self.ops.extend_from_slice(ops);
    }
}

/// Every program's location names, as the modules borrow them.
pub fn names_of(progs: &[Prog]) -> Vec<Vec<&str>> {
    progs.iter().map(|p| p.names.iter().map(String::as_str).collect()).collect()
}

/// The modules of `progs`, borrowing their names from `names`.
pub fn modules_of<'a>(progs: &'a [Prog], names: &'a [Vec<&'a str>]) -> Vec<Module<'a>> {
    progs
        .iter()
        .zip(names)
        .map(|(p, n)| Module {
            function: Function { locations: &p.locs, instructions: &p.ins, operands: &p.ops },
            names: n,
        })
        .collect()
}

/// What a run left: the report, every location's address (`None`: unaddressed) and sharing
/// after the DRAM pass, every core's metrics, and the edges.
#[derive(Debug)]
pub struct Run {
    pub names: Vec<Vec<String>>,
    pub addr: Vec<Vec<Option<u64>>>,
    pub shared: Vec<Vec<bool>>,
    pub report: MultiReport,
    pub edges: Vec<Edge>,
    pub metrics: Vec<Metrics>,
    pub hwm: Vec<u64>,
    /// Each core's pre-placed floor (`metrics.reserved_space`).
    pub reserved: Vec<u64>,
}

impl Run {
    /// The address of `name` on `core`.
    pub fn addr(&self, core: usize, name: &str) -> Option<u64> {
        let l = self.names[core].iter().position(|n| n == name).unwrap();
        self.addr[core][l]
    }
    /// The edges as (from core, from instruction, to core, to instruction, kind).
    pub fn edge_tuples(&self) -> Vec<(u32, u32, u32, u32, DepKind)> {
        self.edges
            .iter()
            .map(|e| (e.from_core, e.from_instruction, e.to_core, e.to_instruction, e.kind()))
            .collect()
    }
}

/// Runs the pipeline of `cfg` over `progs`.
pub fn run(progs: &[Prog], cfg: &MultiConfig) -> Result<Run, MultiError> {
    run_with(progs, cfg, |_| {}, |_, _| {})
}

/// As [`run`], with the storage cut down by `shrink` first and `observe` called after every
/// pass (it may corrupt the states, as a fault would).
pub fn run_with(
    progs: &[Prog],
    cfg: &MultiConfig,
    shrink: impl FnOnce(&mut MultiStorage<'_>),
    observe: impl FnMut(Pass, &mut [ModuleState<'_>]),
) -> Result<Run, MultiError> {
    let names = names_of(progs);
    let modules = modules_of(progs, &names);
    let mut host = Box::new(Storage::new());
    let (mut storage, mut all_states) = host.split();
    shrink(&mut storage);
    let states = &mut all_states[..modules.len()];
    let report = Pipeline::build(cfg).run_observed(cfg, &modules, states, &mut storage, observe)?;
    Ok(Run {
        names: progs.iter().map(|p| p.names.clone()).collect(),
        addr: states
            .iter()
            .zip(progs)
            .map(|(s, p)| {
                s.locations[..p.locs.len()].iter().map(|l| l.is_allocated().then_some(l.address)).collect()
            })
            .collect(),
        shared: states
            .iter()
            .zip(progs)
            .map(|(s, p)| s.locations[..p.locs.len()].iter().map(|l| l.is_shared_post_dram_alloc()).collect())
            .collect(),
        edges: storage.edges[..report.edges].to_vec(),
        metrics: states.iter().map(|s| s.metrics).collect(),
        hwm: states.iter().map(|s| s.metrics.hwm).collect(),
        reserved: states.iter().map(|s| s.metrics.reserved_space).collect(),
        report,
    })
}

/// A memory-pressure peak.
pub fn peak(instruction: u32, private_bytes: u64, shared_bytes: u64) -> Peak {
    Peak { instruction, private_bytes, shared_bytes }
}
