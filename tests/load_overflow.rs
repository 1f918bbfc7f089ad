//! A live load past `u64::MAX` (twenty buffers of 2^60 bytes live together, a fresh-user
//! trial's file): a proof that no plan exists in a `u64` address space, said the same way by
//! every strategy, with or without `--capacity`, and `quality`'s bound is the true load, not
//! `u64::MAX`.

use std::process::ExitCode;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::dramalloc_in;

/// The trial's `ovf20.csv`: rows 0–19 live over [0, 10), 2^60 bytes each (20 × 2^60 bytes).
fn ovf20() -> String {
    let mut s = String::from("id,lower,upper,size\n");
    for i in 0..20 {
        s.push_str(&format!("{i},0,10,{}\n", 1u64 << 60));
    }
    s
}

const MESSAGE: &str = "no plan exists: at instant 0 the buffers live need 23058430092136939520 bytes (sizes \
                       rounded up to the alignment), more than the 18446744073709551615 bytes of a u64 address space";

/// `plan` with every strategy, with and without `--capacity`: one message, exit 1 (no plan).
#[test]
fn every_strategy_says_no_plan_exists_with_the_load() {
    let input = ovf20();
    for strategy in ["sweep", "greedy-size", "skyline", "auto", "exact"] {
        for capacity in [None, Some("1T")] {
            let mut args = vec!["plan", "-", "-o", "-", "--strategy", strategy];
            args.extend(capacity.iter().flat_map(|c| ["--capacity", *c]));
            let out = dramalloc_in(&args, &input);
            assert_eq!(out.code, ExitCode::from(1), "{strategy} {capacity:?}: {}", out.stderr);
            assert_eq!(out.stderr, format!("error: <stdin>: {MESSAGE}\n"), "{strategy} {capacity:?}");
        }
    }
}

/// The load at a later instant, with `--align`: its instant and the sizes rounded up.
#[test]
fn the_message_names_the_instant_where_the_load_passes_u64() {
    // b rounds up to 2^64 - 8192 bytes, c to 12,288 at instant 7: 2^64 + 4096 (unrounded,
    // 2^64 - 9 would fit)
    let rows = format!("id,lower,upper,size\na,0,3,5\nb,3,9,{}\nc,7,8,8193\n", u64::MAX - 8191 - 10);
    let out = dramalloc_in(&["plan", "-", "-o", "-", "--align", "4096"], &rows);
    assert_eq!(out.code, ExitCode::from(1), "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "error: <stdin>: no plan exists: at instant 7 the buffers live need 18446744073709555712 bytes (sizes \
         rounded up to the alignment), more than the 18446744073709551615 bytes of a u64 address space\n"
    );
}

/// `quality` shows the true load as the bound (table and `--json`, where past `u64` it is a
/// string of its digits), and each strategy's error cell has the same message.
#[test]
fn quality_shows_the_true_load_as_the_bound() {
    let input = ovf20();
    let out = dramalloc_in(&["quality", "-", "--strategies", "sweep,auto"], &input);
    assert_eq!(out.code, ExitCode::from(1), "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().nth(1),
        Some("<stdin>  20  23058430092136939520     error     error"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("18446744073709551615"), "{}", out.stdout);
    assert_eq!(
        out.stderr.lines().take(2).collect::<Vec<_>>(),
        [format!("error: <stdin>, sweep: {MESSAGE}"), format!("error: <stdin>, auto: {MESSAGE}")]
    );
    let out = dramalloc_in(&["quality", "-", "--strategies", "sweep", "--json"], &input);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["lower_bound"], "23058430092136939520");
    assert_eq!(v["rows"][0]["results"][0]["error"], MESSAGE);
    // a failed plan has no peak: null, not 0 (a trial read the 0 as a plan)
    assert_eq!(v["rows"][0]["results"][0]["peak"], serde_json::Value::Null);
    // and a strategy that planned no file has no mean: null (it was -0.0, an empty f64 sum)
    assert_eq!(
        (v["totals"][0]["files"].as_u64(), &v["totals"][0]["mean_ratio"]),
        (Some(0), &serde_json::Value::Null)
    );
}
