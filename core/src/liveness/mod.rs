//! Liveness: the program model, numbering and intervals, interval input, interval tree, interference, Info.
//! Uses: align, error, workspace; used by: align, multicore, place, planner, workspace, sim.
//!
//! Seed section "The Interval-Tree Liveness Model": a function ([`program`]) is numbered
//! flat and every candidate gets its closed liveness intervals ([`intervals`]); buffers that
//! already carry an interval enter here too ([`buffers`]). The intervals go into one static
//! max-augmented tree ([`interval_tree`]), which answers "who interferes with whom"
//! ([`interference`]) for the per-candidate [`info::Info`] records. A sorted tree's query
//! finds its start through sampled starts ([`sorted_search`]) and scans its window
//! ([`window_scan`]), or, with storage lent for it, through a block index ([`block_index`]).

pub mod block_index;
pub mod buffers;
pub mod info;
pub mod interference;
pub mod interval_tree;
pub mod intervals;
pub mod program;
pub mod sorted_search;
pub mod window_scan;

pub use intervals::{build_from_function, build_from_function_excluding, Built};
