//! dramalloc-sim: the simulator and command-line front end of dramalloc.
#![forbid(unsafe_code)]

pub mod input;
pub mod atomic_write;
pub mod layout_svg;
pub mod verify;
pub mod banked_report;
pub mod replay;
