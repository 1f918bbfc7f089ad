//! Schedule jitter for the multi-core executor: shuffled thread start order and random yield points.
//! Uses: quality (SplitMix64); used by: executor, tests, .ci/soak.
//!
//! The executor's cores are threads that wait on cross-core edges; on an idle machine they
//! tend to run in the same interleaving every time, so an ordering bug (a missing edge, a
//! wait on the wrong counter) could hide behind lucky timing. With a jitter seed the
//! executor starts the core threads in a seeded random order, each after a short random
//! sleep, and every core yields (`std::thread::yield_now`) or sleeps for a few microseconds
//! before a seeded random subset of its instructions. The plan and the checks are
//! unchanged: a correct plan must still pass and a faulty one must still fail, whatever the
//! interleaving (`tests/exec_jitter.rs`, `.ci/soak`).
//!
//! The seed comes from [`crate::exec::executor::execute_jittered`] or, for
//! [`crate::exec::executor::execute`] (and so the command line), from the environment
//! variable `DRAMALLOC_EXEC_JITTER` (a `u64`); unset or unparsable means no jitter.

use std::time::Duration;

use crate::quality::generate::SplitMix64;

/// The environment variable that turns jitter on for [`crate::exec::executor::execute`].
pub const ENV: &str = "DRAMALLOC_EXEC_JITTER";

/// The jitter seed from [`ENV`], if set to a `u64`.
pub fn seed_from_env() -> Option<u64> {
    std::env::var(ENV).ok()?.trim().parse().ok()
}

/// The order in which to start `n` core threads: `0..n` without a seed, else a seeded
/// Fisher–Yates permutation of it. O(n).
pub fn start_order(seed: Option<u64>, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    if let Some(s) = seed {
        let mut rng = SplitMix64(s);
        for i in (1..n).rev() {
            order.swap(i, rng.below(i + 1));
        }
    }
    order
}

/// One core's yield points: deterministic for a (seed, core) pair.
#[derive(Debug, Clone)]
pub struct Jitter(Option<SplitMix64>);

impl Jitter {
    /// The jitter of `core` under `seed` (`None`: no jitter, every call is free).
    pub fn new(seed: Option<u64>, core: usize) -> Jitter {
        Jitter(seed.map(|s| SplitMix64(s ^ (core as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))))
    }

    /// Before the thread's first instruction: a random sleep of 0–200 µs.
    pub fn start(&mut self) {
        if let Some(r) = &mut self.0 {
            std::thread::sleep(Duration::from_micros(r.below(201) as u64));
        }
    }

    /// Before an instruction: nothing (1/2), a yield (3/8) or a 1–20 µs sleep (1/8).
    pub fn point(&mut self) {
        if let Some(r) = &mut self.0 {
            match r.below(8) {
                0..=3 => {}
                4..=6 => std::thread::yield_now(),
                _ => std::thread::sleep(Duration::from_micros(1 + r.below(20) as u64)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_order_is_a_seeded_permutation() {
        assert_eq!(start_order(None, 4), [0, 1, 2, 3]);
        let a = start_order(Some(7), 8);
        assert_eq!(a, start_order(Some(7), 8), "same seed, same order");
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        let distinct: std::collections::HashSet<Vec<usize>> =
            (0..20).map(|s| start_order(Some(s), 8)).collect();
        assert!(distinct.len() > 10, "{} distinct orders of 20 seeds", distinct.len());
        assert_eq!(start_order(Some(3), 1), [0]);
        assert_eq!(start_order(Some(3), 0), Vec::<usize>::new());
    }
}
