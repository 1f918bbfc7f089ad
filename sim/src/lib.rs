//! dramalloc-sim: the simulator and command-line front end of dramalloc.
#![forbid(unsafe_code)]

pub mod host_storage;
pub mod input;
pub mod atomic_write;
pub mod layout_svg;
pub mod verify;
pub mod banked_report;
pub mod replay;
pub mod arena;
pub mod executor;
pub mod fingerprint;
pub mod model;
pub mod planning;
pub mod tensor_parallel;
pub mod cli;
pub mod faults;
pub mod plan_check;
pub mod problem;
pub mod report;
pub mod run;
pub mod bundled;
pub mod quality;
pub mod generate;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
