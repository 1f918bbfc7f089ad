//! Placement: the seed's order and first fit, our strategies, their shared pieces, the `auto` portfolio.
//! Uses: error, liveness, metrics, strategy, workspace; used by: planner, workspace, sim.
//!
//! [`seed`] is the seed's algorithm (simplify + select + search); the strategies added to it
//! each have a file: [`greedy`] (the size orders of `greedy-size` and `best-fit`), [`scan`]
//! (their address-ordered placer), [`sweep`], [`skyline`] and [`exact`]. Shared pieces:
//! [`sections`] (time sections), [`min_heap`] and [`lower_bound`] (the max-load bound).

pub mod class_index;
pub mod clock;
pub mod cost_model;
pub mod exact;
mod exact_member;
mod first_set;
mod gather;
pub mod greedy;
#[cfg(test)]
mod lent_storage;
pub mod live_set;
pub mod lower_bound;
pub mod min_heap;
pub mod pinned_clash;
mod pinned_index;
pub mod placed_list;
pub mod portfolio;
pub mod repair;
pub mod repair_work;
pub mod report;
pub mod scan;
pub mod sections;
pub mod seed;
mod settle;
mod single;
pub mod skyline;
mod skyline_member;
mod skyline_queue;
pub mod sweep;
mod sweep_ahead;
pub mod sweep_hot;
pub mod sweep_long;
pub mod sweep_two_ended;
