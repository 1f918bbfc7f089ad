//! dramalloc-core: a heap-free (`no_std`, no `alloc`) DRAM planner and banked device allocator.
//! Uses: its rooms (declares them, re-exports the planner's entry points); used by: dramalloc-sim.
//!
//! The planner follows the AWS Neuron compiler's `DRAM_Allocator` as described in the seed
//! "The DRAM Allocator — Interval Tree and Shared-DRAM Partitioning": liveness intervals over
//! a flat instruction index ([`liveness`]), a static balanced max-augmented interval tree in
//! one array ([`liveness::interval_tree`]), the Briggs elimination order
//! ([`place::seed::simplify`]), first-fit placement with page-straddle avoidance
//! ([`place::seed::search`], [`place::seed::select`]), the HWM floor, the CC region
//! ([`cc_region`]) and metrics ([`metrics`]). All storage is lent by the caller
//! ([`workspace`]).
//!
//! The rooms, in the order data goes through them:
//! - [`liveness`]: the program model, numbering and intervals, the interval input, the
//!   interval tree, interference and the Info records;
//! - [`place`]: the seed's order and first fit ([`place::seed`]), our strategies (greedy,
//!   scan, sweep, skyline, exact), their shared pieces and the `auto` portfolio
//!   ([`place::portfolio`]);
//! - [`planner`]: the driver around the placement (floor, CC limit, pinned checks, lower
//!   bound, metrics), with [`strategy`], [`cc_region`] and [`metrics`];
//! - [`multicore`]: N logical cores, shared DRAM and the pass pipeline;
//! - [`banked`]: the runtime banked device allocator (tt-metal style), on its own.
//! - [`plan_file`]: the binary plan file a loader maps, and its zero-copy validating reader;
//! - [`static_storage`]: storage firmware keeps in a `static` and takes once.
//!
//! [`error`], [`align`] and [`workspace`] serve them all.
//!
//! ```
//! use dramalloc_core::{plan_buffers, Buffer, PlanConfig, CcSize, StaticWorkspace, Strategy};
//! // B01 of the planner cases: touching live ranges interfere (the seed's order).
//! let bufs = [Buffer::new(0, 9, 4096), Buffer::new(3, 5, 8192), Buffer::new(5, 8, 8192)];
//! let mut st: StaticWorkspace<3, 3, 0> = StaticWorkspace::new();
//! let mut ws = st.workspace();
//! let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Seed };
//! plan_buffers(&bufs, 4096, &cfg, &mut ws)?;
//! let addr: Vec<u64> = ws.infos.iter().map(|i| i.address).collect();
//! assert_eq!(addr, [0, 4096, 12288]);
//! # Ok::<(), dramalloc_core::PlanError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// first: the macro is used by the rooms declared below
#[macro_use]
mod logging;

pub mod align;
pub mod banked;
pub mod cc_region;
pub mod error;
pub mod liveness;
pub mod metrics;
pub mod multicore;
pub mod place;
pub mod plan_file;
pub mod planner;
pub mod static_storage;
pub mod strategy;
pub mod workspace;

#[cfg(test)]
mod test_problem;
#[cfg(test)]
mod test_rng;

pub use cc_region::CcSize;
pub use error::{PlanError, Store};
pub use liveness::buffers::Buffer;
pub use liveness::info::Info;
pub use metrics::Metrics;
pub use planner::{
    plan_buffer_iter, plan_buffer_iter_with, plan_buffers, plan_buffers_with, plan_function,
    plan_function_excluding, Plan, PlanConfig, Status, DEFAULT_HBM_WINDOW,
};
pub use strategy::Strategy;
pub use workspace::{StaticWorkspace, Workspace};
