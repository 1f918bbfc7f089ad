//! Execution: lazily committed HBM arenas, byte fingerprints, the N-core executor, fault injection.
//! Uses: model, planning, quality, dramalloc-core (liveness, multicore); used by: cli, run.
//!
//! [`executor`] runs a planned model on N simulated cores over [`arena`]s, writing and checking
//! [`fingerprint`]s; [`faults`] corrupts a correct plan on purpose (the run must then fail); [`jitter`]
//! shuffles the cores' start order and adds yield points (soak runs).

pub mod arena;
pub mod executor;
pub mod faults;
pub mod fingerprint;
pub mod jitter;
