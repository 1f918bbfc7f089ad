//! Identical rows with a few per-row alignments (a fresh-user trial's `mid_identical.csv`, 40
//! rows here): the plan at the common alignment is kept, and its members' lines say their
//! peaks are of the sizes rounded up to it, against that bound; a member at that bound no
//! longer skips the others ("an earlier member reached the lower bound"): that bound proves
//! nothing about the real plan (`dramalloc_core::Workspace::stand_in`).

use std::process::ExitCode;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{dramalloc_in, untimed};

/// 40 rows live over [5, 17), 12,345 bytes, alignments 5 and 7 on two of every nine (with
/// 3, 5 and 7 in another pattern the padded plan now ties the common one at 790,528 bytes
/// settled and is kept: its members are ranked by their unpadded peaks since 2026-12-06).
fn identical() -> String {
    let mut s = String::from("id,lower,upper,size,alignment\n");
    for i in 0..40 {
        let al = ["5", "7", "", "", "", "", "", "", ""][i % 9];
        s.push_str(&format!("{i},5,17,12345,{al}\n"));
    }
    s
}

#[test]
fn members_of_the_common_alignment_plan_say_so_and_none_is_skipped_at_its_bound() {
    // a limit the plan does not reach: `auto`'s searches end at their work caps
    let out = dramalloc_in(&["plan", "-", "-o", "-", "--time-limit", "60"], &identical());
    assert_eq!(out.code, ExitCode::from(0), "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 41, "the header and 40 rows");
    let text = untimed(&out.stderr);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split("; read ").next(),
        Some(
            "<stdin>: 40 buffers, strategy auto (plan from its sweep member), lowered by the branch and bound \
             with each buffer's own alignment, HWM 663552 bytes, lower bound 655360 bytes, ratio 1.0125"
        )
    );
    assert_eq!(
        lines[3],
        "  sweep             ran: peak 5734400 bytes of the sizes rounded up to 143360 (1.0000 x their LB \
         5734400), 4800 work units"
    );
    assert_eq!(
        lines[17],
        "  (members' peaks are of the buffers at the common alignment 143360, x LB of their sizes rounded up to \
         it: 5734400 bytes; the plan's lower bound is of the real sizes)"
    );
    // every member with a plan of its own ran (before: the sweep alone, the rest skipped)
    let ran =
        lines.iter().filter(|l| l.contains(" ran: peak 5734400 bytes of the sizes rounded up to 143360 "));
    assert_eq!(ran.count(), 12, "{}", out.stderr);
    assert!(!out.stderr.contains("reached the lower bound"), "{}", out.stderr);
}
