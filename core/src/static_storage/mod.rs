//! Storage firmware keeps in a `static` and takes once.
//! Uses: multicore, workspace, static_cell; used by: firmware, doctests.
//!
//! Planner storage that firmware keeps in a `static` and takes once, with no `unsafe` in
//! the firmware: [`TakeOnce`] hands out the `&'static mut` exactly once, and
//! [`StaticMulti`] is the fixed-capacity storage of a multi-core
//! [`crate::multicore::Pipeline`] run (the single-core one is
//! [`crate::workspace::StaticWorkspace`]).

mod multi;
mod take_once;

pub use multi::StaticMulti;
pub use take_once::TakeOnce;
