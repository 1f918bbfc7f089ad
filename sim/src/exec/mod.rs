//! Execution: lazily committed HBM arenas, byte fingerprints, the N-core executor, fault injection.
//! Uses: model, planning, quality, dramalloc-core (liveness, multicore); used by: cli, run.
//!
//! [`executor`] runs a planned model on N simulated cores over [`arena`]s, writing and checking
//! [`fingerprint`]s; [`host_memory`] estimates the host memory an execution needs before it
//! runs; [`faults`] corrupts a correct plan on purpose (the run must then fail).

pub mod arena;
pub mod executor;
pub mod faults;
pub mod fingerprint;
pub mod host_memory;
