//! The ratio pass every bench prints before its criterion groups: dramalloc and its peers,
//! timed in turns (one run each per round, best of the rounds, so a burst of load on a shared
//! machine falls on all of them), and the ratio dramalloc / best peer per case (below 1:
//! dramalloc is faster).
//! Included by each bench with `#[path]`; a bench that uses only part of it does not warn.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::Instant;

/// Rounds of the ratio pass: 1 under `--test` (the smoke run), else `full`.
pub fn rounds(full: u32) -> u32 {
    if std::env::args().any(|a| a == "--test") {
        1
    } else {
        full
    }
}

/// One contender of a case: its name and one run, which returns the seconds of its timed part
/// (set-up such as building a fresh allocator stays outside: see [`timed`]).
pub type Run<'a> = (&'static str, Box<dyn FnMut() -> f64 + 'a>);

/// The seconds `f` takes; its result is kept observable.
pub fn timed<R>(f: impl FnOnce() -> R) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

/// Runs each contender once per round, in turns, for `rounds` rounds, and returns each one's
/// best time in seconds, in the order given. The first contender is dramalloc.
pub fn best_in_turns(rounds: u32, runs: &mut [Run<'_>]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; runs.len()];
    for _ in 0..rounds.max(1) {
        for (b, (_, run)) in best.iter_mut().zip(runs.iter_mut()) {
            *b = b.min(run());
        }
    }
    best
}

/// Prints one case: every contender's time (seconds times `scale`, in `unit`) and the ratio
/// dramalloc (the first) / best peer, with the target it is held to. Returns the ratio.
pub fn report(case: &str, names: &[&str], secs: &[f64], scale: f64, unit: &str, target: &str) -> f64 {
    let mut line = format!("{case:<22}");
    for (name, s) in names.iter().zip(secs) {
        line += &format!("  {name} {:>10.1}", s * scale);
    }
    let (best_name, best) =
        names
            .iter()
            .zip(secs)
            .skip(1)
            .fold(("-", f64::INFINITY), |acc, (n, &s)| if s < acc.1 { (n, s) } else { acc });
    let ratio = secs.first().copied().unwrap_or(f64::NAN) / best;
    println!("{line}  {unit}   dramalloc / best peer ({best_name}) = {ratio:.2}  (target {target})");
    ratio
}

/// [`best_in_turns`] and then [`report`] for one case.
pub fn case(case: &str, rounds: u32, runs: &mut [Run<'_>], scale: f64, unit: &str, target: &str) -> f64 {
    let secs = best_in_turns(rounds, runs);
    let names: Vec<&str> = runs.iter().map(|(n, _)| *n).collect();
    report(case, &names, &secs, scale, unit, target)
}
