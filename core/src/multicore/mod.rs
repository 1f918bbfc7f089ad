//! Multi-core: N logical cores, shared DRAM, remote-local targets, equalization, the pass pipeline.
//! Uses: align, cc_region, error, liveness, metrics, planner, strategy, workspace; used by: sim.
//!
//! Multi-core: N logical NeuronCores, shared DRAM, remote-local targets, address
//! equalization and the pass pipeline (seed section "Cross-LNC Shared-DRAM Partitioning" and
//! "The disable_dram_allocation Gate").
//!
//! One [`Module`] per core holds that core's function and location names; one
//! [`ModuleState`] per core holds what the passes decide (addresses, the
//! `is_shared_post_dram_alloc` flag, remote-local targets). A [`Pipeline`] lists the passes in
//! order and runs them over all modules with caller-provided [`MultiStorage`]; nothing
//! allocates.

pub mod antidep;
pub mod digest;
pub mod marking;
pub mod module;
pub mod pipeline;
pub mod pressure;
pub mod private_alloc;
mod reuse;
pub mod shared_alloc;
pub mod shared_set;
pub mod sync;

pub use antidep::{DepKind, Edge};
pub use module::{LocState, Module, ModuleState, RemoteLocalTarget, MAX_CORES};
pub use pipeline::{MultiConfig, MultiReport, MultiStorage, Pass, Pipeline, SharedMode};
pub use shared_set::{SharedAccess, SharedEntry};
