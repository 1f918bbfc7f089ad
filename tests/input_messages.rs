//! The messages of a fresh-user trial's inputs, pinned to the exact text: an inclusive `end`
//! past the 32-bit instruction index is named as the file spells it, with the value given;
//! a number past `u64` is out of range; one wording for every end that overflows `u64`.
//! Runs `dramalloc` in-process (`cli::run_with`) on inputs written here.

use std::process::ExitCode;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::dramalloc_in;

/// `plan`'s error on `csv` (exit 2, nothing on standard output).
fn plan_error(csv: &str) -> String {
    let out = dramalloc_in(&["plan", "-", "-o", "-"], csv);
    assert_eq!((out.code, out.stdout.as_str()), (ExitCode::from(2), ""), "{}", out.stderr);
    out.stderr
}

/// MiniMalloc's inclusive `end` at `u32::MAX` implies the exclusive upper 2^32: the message
/// names the `end` column as the file writes it and the value the file gave, and says why;
/// an exclusive `upper` column is named as before.
#[test]
fn an_inclusive_end_past_32_bits_is_named_as_the_file_writes_it() {
    assert_eq!(
        plan_error("id,start,end,size\na,0,4294967295,5\n"),
        "error: <stdin>: buffer `a` (line 2): end 4294967295 is too late: `end` is inclusive, and the exclusive \
         upper it implies, 4294967296, is past the 32-bit instruction index (at most 4294967295)\n"
    );
    assert_eq!(
        plan_error("ID,Begin,End,Size\nx,1,4294967295,5\n"),
        "error: <stdin>: buffer `x` (line 2): End 4294967295 is too late: `End` is inclusive, and the exclusive \
         upper it implies, 4294967296, is past the 32-bit instruction index (at most 4294967295)\n"
    );
    assert_eq!(
        plan_error("id,lower,upper,size\na,0,4294967296,5\n"),
        "error: <stdin>: buffer `a` (line 2): upper 4294967296 exceeds the 32-bit instruction index\n"
    );
    // the largest inclusive end that fits plans
    let out = dramalloc_in(&["plan", "-", "-o", "-"], "id,start,end,size\na,0,4294967294,5\n");
    assert_eq!(out.code, ExitCode::from(0), "{}", out.stderr);
}

/// A size of 2^64 is a number, too large: out of range, with its line, column and value.
#[test]
fn a_size_past_u64_is_out_of_range() {
    assert_eq!(
        plan_error("id,lower,upper,size\na,0,5,18446744073709551616\n"),
        "error: <stdin>: line 2, column `size`: `18446744073709551616` is out of range: past u64's largest value, \
         18446744073709551615\n"
    );
    assert_eq!(
        plan_error("id,lower,upper,size\na,0,99999999999999999999999,5\n"),
        "error: <stdin>: line 2, column `upper`: `99999999999999999999999` is out of range: past u64's largest \
         value, 18446744073709551615\n"
    );
    // leading zeros do not make a number too large; a non-number is still one
    let out =
        dramalloc_in(&["plan", "-", "-o", "-"], "id,lower,upper,size\na,0,5,0000000000000000000000042\n");
    assert_eq!(out.code, ExitCode::from(0), "{}", out.stderr);
    assert_eq!(
        plan_error("id,lower,upper,size\na,0,5,1e30\n"),
        "error: <stdin>: line 2, column `size`: expected a non-negative integer, found `1e30`\n"
    );
}

/// A fixed offset plus the size past `u64`, found by the reader (the raw size) or by the
/// planner (the size rounded up to the alignment): one wording, naming the buffer, its size
/// and what overflows.
#[test]
fn an_end_past_u64_has_one_wording() {
    assert_eq!(
        plan_error("id,lower,upper,size,offset\na,0,5,4096,18446744073709551615\n"),
        "error: <stdin>: line 2, column `offset`: placing buffer `a` (4096 bytes) overflows the u64 address space: \
         its offset 18446744073709551615 plus its size ends past 18446744073709551615\n"
    );
    assert_eq!(
        plan_error("id,lower,upper,size,offset\na,0,5,100,18446744073709547520\n"),
        "error: <stdin>: placing buffer `a` (line 2) (100 bytes) overflows the u64 address space: its offset \
         18446744073709547520 plus its size rounded up to the alignment ends past 18446744073709551615\n"
    );
}

/// `plan`'s hint that a longer `--time-limit` may find a plan within `--capacity` is given
/// where the clock stopped `auto`: here at once (`--time-limit 0`), after the sweep's plan,
/// 4 bytes where 3 fit (`auto` finds them in its second member). Where every plan ends on
/// its own, whatever the time, there is no hint (`tests/strategies.rs`,
/// `a_missed_capacity_says_whether_the_clock_stopped_the_portfolio`).
#[test]
fn the_time_limit_hint_follows_the_clock() {
    let csv = "id,lower,upper,size\na,0,1,1\nb,0,2,1\nc,1,3,2\n";
    let plan = |limit: &str| {
        dramalloc_in(
            &[
                "plan",
                "-",
                "--align",
                "1",
                "--capacity",
                "3",
                "--threads",
                "1",
                "--time-limit",
                limit,
                "-o",
                "-",
            ],
            csv,
        )
    };
    let out = plan("0");
    assert_eq!(out.code, ExitCode::from(1), "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "error: <stdin>: no plan found within --capacity 3 bytes: the best plan found peaks at 4 bytes (the lower \
         bound is 3 bytes, so a plan may exist) (auto stops at --time-limit 0 s: a longer limit may find a plan)\n"
    );
    assert_eq!(plan("1").code, ExitCode::from(0));
}
