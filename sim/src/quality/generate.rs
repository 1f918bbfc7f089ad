//! Seeded generators of planning problems in four shapes ([`Shape`]), for the scaling
//! measurements (`dramalloc quality --generated N --shape S`, `dramalloc generate`,
//! `benches/planner.rs`).
//! Uses: input; used by: cli, exec.
//!
//! The default shape, [`Shape::Mixed`] ([`problem`]), is a training/inference step of a deep
//! network unrolled over `n` instructions, one new buffer per instruction (the output of that
//! op):
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

/// `n` buffers (ids `0..n`, `upper` exclusive) of the [`Shape::Mixed`] model above, from
/// `seed`.
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

impl SplitMix64 {
    /// Log-uniform in `[lo, hi)`: `exp(ln lo + (ln hi - ln lo) u)`.
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }

    /// Geometric on `1, 2, ...` with the given mean (`mean > 1`): the number of trials up to
    /// and including the first success of probability `1 / mean`.
    pub fn geometric(&mut self, mean: f64) -> u64 {
        let u = self.unit().max(f64::MIN_POSITIVE);
        1 + (u.ln() / (1.0 - 1.0 / mean).ln()).floor() as u64
    }
}

/// The generated problem shapes. Each gives exactly `n` buffers with ids `0..n` and is
/// deterministic in `(n, seed)`. Times are instruction indices, `upper` exclusive; sizes bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Shape {
    /// [`problem`]: 80 % activations (geometric lifetime, mean 3), 15 % skip connections
    /// (10–200), 5 % long-lived (200–2,000); sizes log-uniform 1 KiB–4 MiB.
    #[default]
    Mixed,
    /// Buffer `t` defined at `t`; sizes log-uniform 256 B–4 MiB; 99.5 % short-lived
    /// (geometric lifetime, mean 8), 0.5 % long-lived (uniform 1,000–20,000), clamped to
    /// `n + 1`. Many small buffers: about 10 live at once plus the long-lived ones.
    Short,
    /// Buffer `t` defined at `t`; sizes log-uniform 1 KiB–4 MiB rounded up to 256 B;
    /// lifetime log-uniform 1–2,000 (no clamp: the last buffers outlive `n`). Every scale
    /// of lifetime at once, about 260 live.
    LongTail,
    /// A training step: `L = ceil(n / 7)` layers, forward then backward in reverse. Per layer
    /// two forward temporaries (lifetime 1–2), an activation defined in the forward pass and
    /// read by the same layer's backward step (nested: the first layer's lives longest), two
    /// backward temporaries, the gradient passed to the next backward step, and a weight
    /// gradient live to the end. Sizes shrink by halves over five stages from 4 MiB
    /// (activations 0.5–1 ×, temporaries 0.25–1 × the stage size; weight gradients log-uniform
    /// 4 KiB–1 MiB). Truncated to `n` buffers.
    Layered,
}

impl Shape {
    /// Every shape, in the order of the tables.
    pub const ALL: [Shape; 4] = [Shape::Mixed, Shape::Short, Shape::LongTail, Shape::Layered];

    /// The shape's name on the command line (`mixed`, `short`, `long-tail`, `layered`).
    pub fn name(self) -> &'static str {
        match self {
            Shape::Mixed => "mixed",
            Shape::Short => "short",
            Shape::LongTail => "long-tail",
            Shape::Layered => "layered",
        }
    }

    /// The shape named `name` (see [`Shape::name`]); `None` for any other string.
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// `n` buffers of this shape from `seed`.
    ///
    /// ```
    /// use dramalloc_sim::quality::generate::Shape;
    /// for shape in Shape::ALL {
    ///     let p = shape.generate(700, 3);
    ///     assert_eq!(p.len(), 700);
    ///     assert_eq!(p, shape.generate(700, 3)); // deterministic
    ///     assert!(p.rows().iter().all(|b| b.upper > b.lower && b.size >= 256));
    /// }
    /// ```
    pub fn generate(self, n: usize, seed: u64) -> Problem {
        let rows = match self {
            Shape::Mixed => return problem(n, seed),
            Shape::Short => short(n, seed),
            Shape::LongTail => long_tail(n, seed),
            Shape::Layered => layered(n, seed),
        };
        let mut out = Problem::with_capacity(n, n * 7);
        let mut id = itoa::Buffer::new();
        for (t, row) in rows.into_iter().enumerate() {
            out.push(id.format(t), row);
        }
        out
    }
}

/// [`Shape::Short`]'s rows.
fn short(n: usize, seed: u64) -> Vec<Row> {
    let mut r = SplitMix64(seed);
    (0..n as u64)
        .map(|lower| {
            let size = (r.log_uniform(256.0, 4_194_304.0) as u64).max(1);
            let life = if r.unit() < 0.005 { 1000 + r.next_u64() % 19_001 } else { r.geometric(8.0) };
            let upper = (lower + life).min(n as u64 + 1).max(lower + 1);
            Row { lower, upper, size }
        })
        .collect()
}

/// [`Shape::LongTail`]'s rows.
fn long_tail(n: usize, seed: u64) -> Vec<Row> {
    let mut r = SplitMix64(seed);
    (0..n as u64)
        .map(|lower| {
            let size = (r.log_uniform(1024.0, 4_194_304.0) as u64).div_ceil(256) * 256;
            let life = (r.log_uniform(1.0, 2000.0) as u64).max(1);
            Row { lower, upper: lower + life, size }
        })
        .collect()
}

/// [`Shape::Layered`]'s rows.
fn layered(n: usize, seed: u64) -> Vec<Row> {
    const TOP: f64 = 4_194_304.0;
    const STAGES: usize = 5;
    let mut r = SplitMix64(seed);
    let layers = n.div_ceil(7).max(1);
    let stage = |i: usize| TOP / 2f64.powi((i * STAGES / layers) as i32);
    let mut out = Vec::with_capacity(7 * layers);
    let mut t = 0u64;
    let temporaries = |r: &mut SplitMix64, t: &mut u64, base: f64, out: &mut Vec<Row>| {
        for _ in 0..2 {
            let size = ((base * r.log_uniform(0.25, 1.0)) as u64).max(256);
            out.push(Row { lower: *t, upper: *t + 1 + r.next_u64() % 2, size });
            *t += 1;
        }
    };
    // forward: two temporaries and one activation per layer
    let mut activations = Vec::with_capacity(layers);
    for i in 0..layers {
        let base = stage(i);
        temporaries(&mut r, &mut t, base, &mut out);
        activations.push((t, ((base * r.log_uniform(0.5, 1.0)) as u64).max(256)));
        t += 1;
    }
    // backward in reverse: two temporaries, the layer's activation read here, the gradient
    // from the step before, a new gradient, a weight gradient live to the end
    let mut gradient: Option<(u64, u64)> = None;
    let mut weight_grads = Vec::with_capacity(layers);
    for i in (0..layers).rev() {
        let base = stage(i);
        temporaries(&mut r, &mut t, base, &mut out);
        let (defined, size) = activations[i];
        out.push(Row { lower: defined, upper: t + 1, size });
        if let Some((defined, size)) = gradient {
            out.push(Row { lower: defined, upper: t + 1, size });
        }
        gradient = Some((t, (base * r.log_uniform(0.5, 1.0)) as u64 + 256));
        t += 1;
        weight_grads.push(out.len());
        out.push(Row { lower: t, upper: 0, size: r.log_uniform(4096.0, 1_048_576.0) as u64 });
        t += 1;
    }
    if let Some((defined, size)) = gradient {
        out.push(Row { lower: defined, upper: t + 1, size });
    }
    for j in weight_grads {
        out[j].upper = t + 2;
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest number of buffers live at one instant.
    fn max_live(p: &Problem) -> usize {
        let mut events: Vec<(u64, i32)> =
            p.rows().iter().flat_map(|b| [(b.lower, 1), (b.upper, -1)]).collect();
        events.sort_unstable_by_key(|&(t, d)| (t, d));
        let (mut live, mut peak) = (0i32, 0i32);
        for (_, d) in events {
            live += d;
            peak = peak.max(live);
        }
        peak as usize
    }

    #[test]
    fn shapes_have_their_first_rows_and_live_counts() {
        let short = Shape::Short.generate(20_000, 1);
        assert_eq!(short.len(), 20_000);
        assert_eq!(max_live(&short), 64);
        let long_tail = Shape::LongTail.generate(20_000, 1);
        assert_eq!(max_live(&long_tail), 302);
        let layered = Shape::Layered.generate(7_000, 1);
        assert_eq!(layered.len(), 7_000);
        // the first layer's activation is read by the last backward step: live throughout
        assert_eq!(max_live(&layered), 1_003);
        // layer 0's temporaries at 0 and 1, its activation at 2 (pushed with the backward
        // pass), layer 1's first temporary at 3
        assert_eq!(layered.rows()[2].lower, 3);
        assert_eq!(Shape::from_name("long-tail"), Some(Shape::LongTail));
        assert_eq!(Shape::from_name("tall"), None);
    }
}
