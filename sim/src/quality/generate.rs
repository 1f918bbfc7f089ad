//! A seeded generator of planning problems with realistic size and lifetime distributions.
//! Uses: input; used by: cli, exec.
//!
//! A seeded generator of planning problems with realistic size and lifetime distributions,
//! for the scaling measurements (`dramalloc quality --generated N`, `benches/planner.rs`).
//!
//! The model is a training/inference step of a deep network unrolled over `n` instructions,
//! one new buffer per instruction (the output of that op):
//! - **size**: log-uniform between 1 KiB and 4 MiB (`2^(10 + 12u)` bytes, rounded up to 256
//!   bytes), the spread of activation tensors in the bundled real models;
//! - **lifetime** (instructions, closed interval `[t, t + life]`): 80 % *activations* read by
//!   the next few ops (`life` geometric, mean 3), 15 % *skip connections* (uniform 10..200),
//!   5 % *long-lived* tensors such as saved activations (uniform 200..2000), clamped to `n`.
//!
//! About 80 buffers are live at once whatever `n`, so the max load (the lower bound) grows
//! slowly with `n` while the number of buffers and interfering pairs grows linearly.
//! Randomness: SplitMix64 (`+0x9E3779B97F4A7C15`, mixers `0xBF58476D1CE4E5B9`,
//! `0x94D049BB133111EB`), so a seed gives the same problem on every machine.

use crate::input::{Problem, Row};

/// The SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; modulo bias is below 2^-40 for the sizes used here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Default seed of the scaling table.
pub const DEFAULT_SEED: u64 = 0x0D7A_A110_C000_0001;

/// `n` buffers (ids `0..n`, `upper` exclusive) of the model above, from `seed`.
///
/// ```
/// let a = dramalloc_sim::quality::generate::problem(1000, 1);
/// assert_eq!(a.len(), 1000);
/// assert_eq!(a, dramalloc_sim::quality::generate::problem(1000, 1)); // deterministic
/// assert!(a.rows().iter().all(|b| b.upper > b.lower && b.size >= 1024));
/// ```
pub fn problem(n: usize, seed: u64) -> Problem {
    let mut r = SplitMix64(seed);
    let mut out = Problem::with_capacity(n, n * 7);
    let mut id = itoa::Buffer::new();
    for t in 0..n {
        let size = ((2f64.powf(10.0 + 12.0 * r.unit())) as u64).div_ceil(256) * 256;
        let kind = r.unit();
        let life = if kind < 0.80 {
            // geometric with mean 3 (at least 1)
            let mut l = 1u64;
            while r.unit() < 2.0 / 3.0 && l < 64 {
                l += 1;
            }
            l
        } else if kind < 0.95 {
            10 + r.next_u64() % 191
        } else {
            200 + r.next_u64() % 1801
        };
        let lower = t as u64;
        let upper = (lower + life + 1).min(n as u64 + 1);
        out.push(id.format(t), Row { lower, upper, size });
    }
    out
}
