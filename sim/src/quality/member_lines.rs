//! `plan`'s report of the portfolio's members: one line per member, what it did.
//! Uses: dramalloc-core's report, quality (peak_ratio); used by: problem (re-exported), cli.

/// One line per portfolio member: its name and what happened (`ran: peak P (R x LB)`,
/// `skipped: over budget ...`) and, where the run was timed on the host's clock, the
/// milliseconds it took (`, 12.3 ms`), for `plan`'s report. Empty for a single strategy. `of`
/// names the sizes the members placed where they are not the problem's (`"the padded
/// sizes"`, `"the sizes rounded up to M"`): a peak is then said to be of those, against their
/// bound, given (`ran: peak P bytes of S (R x their LB L)`).
///
/// ```
/// use dramalloc_core::place::report::{Member, Members, Outcome};
/// let mut m = Members::default();
/// m.push(Member::Sweep, Outcome::Ran { peak: 150, work: 7 });
/// m.push(Member::Seed, Outcome::OverBudget { cost: 900, left: 40 });
/// m.push(Member::BranchAndBound, Outcome::Ran { peak: 120, work: 806 });
/// use dramalloc_sim::quality::problem::member_lines;
/// let lines = member_lines(&m, 100, None);
/// assert_eq!(lines[0], "sweep             ran: peak 150 bytes (1.5000 x LB), 7 work units");
/// assert_eq!(lines[1], "seed              skipped: estimated 900 work units, 40 left in the budget");
/// assert_eq!(lines[2], "branch-and-bound  ran: peak 120 bytes (1.2000 x LB), 806 search nodes");
/// m.time_last(2_345_678); // the branch and bound took 2.35 ms on the host's clock
/// assert_eq!(member_lines(&m, 100, None)[2], "branch-and-bound  ran: peak 120 bytes (1.2000 x LB), 806 search nodes, 2.3 ms");
/// let lines = member_lines(&m, 100, Some("the padded sizes"));
/// assert_eq!(lines[0], "sweep             ran: peak 150 bytes of the padded sizes (1.5000 x their LB 100), 7 work units");
/// ```
pub fn member_lines(
    members: &dramalloc_core::place::report::Members,
    lower_bound: u64,
    of: Option<&str>,
) -> Vec<String> {
    use dramalloc_core::place::report::Outcome;
    members
        .runs()
        .iter()
        .zip(members.nanos())
        .map(|(&(m, o), &nanos)| {
            let what = match o {
                Outcome::Ran { peak, work } => {
                    let ratio = crate::quality::peak_ratio(peak, lower_bound);
                    let unit = m.work_unit();
                    match of {
                        None => format!("ran: peak {peak} bytes ({ratio:.4} x LB), {work} {unit}"),
                        Some(of) => format!(
                            "ran: peak {peak} bytes of {of} ({ratio:.4} x their LB {lower_bound}), {work} {unit}"
                        ),
                    }
                }
                Outcome::Stopped => "stopped by its budget or the clock (--time-limit) before its plan was complete".to_string(),
                Outcome::Above { top, placed, work } => {
                    let ratio = crate::quality::peak_ratio(top, lower_bound);
                    let at = match of {
                        None => format!("{top} bytes ({ratio:.4} x LB)"),
                        Some(of) => format!("{top} bytes of {of} ({ratio:.4} x their LB {lower_bound})"),
                    };
                    format!(
                        "stopped after {placed} buffers: one ended at {at}, at or above the best plan's peak, so its plan could not be lower; {work} work units"
                    )
                }
                Outcome::Failed => "failed (no plan within the window)".to_string(),
                Outcome::NotApplicable => "not applicable to this input".to_string(),
                Outcome::NoLongSet => {
                    "skipped: no long-lived set of its own (its plan would be the sweep's or an earlier row's)"
                        .to_string()
                }
                Outcome::Covered => {
                    "skipped here: greedy-load's pass fits in the budget left (this row stands in for it, after it, where it is then over budget)".to_string()
                }
                Outcome::AtLowerBound => "skipped: an earlier member reached the lower bound".to_string(),
                Outcome::OverBudget { cost, left } => {
                    format!("skipped: estimated {cost} work units, {left} left in the budget")
                }
                Outcome::NoRoomForTheSweep { cost, sweep, left } => format!(
                    "skipped: estimated {cost} work units as the first plan, and the sweep after it {sweep}: more than the {left} left in the budget"
                ),
                Outcome::OutOfTime => "skipped: out of time (--time-limit)".to_string(),
                Outcome::Elsewhere => "skipped: planned on a helper thread (below)".to_string(),
                Outcome::ReachedElsewhere => {
                    "skipped: a helper thread's plan reached the lower bound (below)".to_string()
                }
            };
            // the time a run took on the clock, where it was timed
            let took = if nanos > 0 { format!(", {:.1} ms", nanos as f64 / 1e6) } else { String::new() };
            format!("{:<17} {what}{took}", m.name())
        })
        .collect()
}
