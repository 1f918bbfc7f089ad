//! dramalloc-sim: the simulator and command-line front end of dramalloc.
//! Uses: dramalloc-core and its own rooms (declares them); used by: main.rs, tests, benches, fuzz.
//!
//! The rooms, in the order data goes through them: [`input`] (program JSON, minimalloc CSV,
//! the bundled data) → [`model`] and [`tensor_parallel`] (the simulated program) →
//! [`planning`] (the core's multi-core pipeline, on [`host_storage`]) → [`verify`] (the
//! independent verifier) → [`exec`] (arenas, fingerprints, the N-core executor, faults) →
//! [`report`] (`plan.csv`, `summary.json`, `layout.svg`, the banked memory reports); [`run`]
//! drives that path for `dramalloc run`. Beside it: [`replay`] (banked-allocator scripts),
//! [`quality`] (problems planned with the core, the quality table, the generator), [`cli`]
//! (one file per subcommand) and [`atomic_write`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod atomic_write;
pub mod child_process;
pub mod cli;
pub mod exec;
pub mod host_storage;
pub mod input;
pub mod io_threads;
pub mod model;
pub mod peak_resident;
pub mod planning;
pub mod quality;
pub mod replay;
pub mod report;
pub mod run;
pub mod scratch_dir;
pub mod size;
pub mod sync_ahead;
pub mod tensor_parallel;
pub mod verify;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
