//! Execution: lazily committed HBM arenas, byte fingerprints, the N-core executor, fault injection.
//! Uses: host_storage, input, model, planning, quality, run, verify, dramalloc-core (liveness, multicore); used by: cli, run.
//!
//! [`executor`] runs a planned model on N simulated cores over [`arena`]s, writing and checking
//! [`fingerprint`]s, once [`edge_order`] has found its edges runnable (no cycle with program
//! order); [`host_memory`] estimates the host memory an execution needs before it
//! runs ([`shared_ranges`]: which addresses all cores share); [`faults`] corrupts a correct
//! plan on purpose (the run must then fail), and [`campaign`] injects every kind of fault many
//! times and counts what was caught; [`jitter`] shuffles the cores' start order and adds yield
//! points (soak runs).

pub mod arena;
pub mod campaign;
pub mod collision;
pub mod edge_order;
pub mod executor;
pub mod faults;
pub mod fingerprint;
pub mod host_memory;
pub mod jitter;
pub mod shared_ranges;
