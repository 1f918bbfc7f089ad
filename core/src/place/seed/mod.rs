//! The seed's placement: the Briggs elimination order, then first fit with page-straddle avoidance.
//! Uses: error, liveness, workspace; used by: planner, portfolio, scan, sweep, workspace, sim.
//!
//! Seed sections "The simplify elimination order" ([`simplify`]), "select and select_impl"
//! ([`select`]) and "First-Fit Placement — search" ([`search`]): `simplify` orders the
//! candidates, `select` queries each one's placed neighbours and `search` picks the gap.

pub mod ascending;
pub mod search;
pub mod select;
pub mod simplify;
