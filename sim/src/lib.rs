//! dramalloc-sim: the simulator and command-line front end of dramalloc.
#![forbid(unsafe_code)]

pub mod input;
