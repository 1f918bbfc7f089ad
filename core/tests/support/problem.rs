//! Generated problems shared by the portfolio tests (`portfolio_report.rs`,
//! `portfolio_paths.rs`): one xorshift stream, so their pinned values come from one generator.

use dramalloc_core::Buffer;

/// `n` buffers from a fixed xorshift stream: defs uniform over `span` instructions, a
/// lifetime of up to `short` instructions (one buffer in `long_every` up to `span / 2`),
/// sizes of 1 to 64 units of 256 bytes, about one in eight a multiple of 4 KiB.
pub fn problem(seed: u64, n: usize, span: u32, short: u32, long_every: u64) -> Vec<Buffer> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let def = (next() % u64::from(span)) as u32;
            let long = long_every > 0 && next() % long_every == 0;
            let life = (next() % u64::from(if long { span / 2 } else { short })) as u32;
            let size = if next() % 8 == 0 { 4096 * (1 + next() % 8) } else { 256 * (1 + next() % 64) };
            Buffer::new(def, def + life, size)
        })
        .collect()
}
