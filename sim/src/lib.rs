//! dramalloc-sim: the simulator and command-line front end of dramalloc.
//!
//! Input readers ([`input`]), the simulated model ([`model`], [`tensor_parallel`]), planning
//! with the core's multi-core pipeline ([`planning`]), lazily committed HBM arenas ([`exec::arena`]),
//! the N-core executor with byte fingerprints ([`exec::executor`], [`exec::fingerprint`]), the independent
//! verifier ([`verify`], [`verify::plan_check`]), fault injection ([`exec::faults`]), reports ([`report`],
//! [`report::layout_svg`], [`report::banked`]), the banked-allocator replay ([`replay`]), planning
//! quality ([`quality`], [`quality::problem`], [`quality::generate`]) and the command line ([`cli`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod atomic_write;
pub mod cli;
pub mod exec;
pub mod host_storage;
pub mod input;
pub mod model;
pub mod planning;
pub mod quality;
pub mod replay;
pub mod report;
pub mod run;
pub mod tensor_parallel;
pub mod verify;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
