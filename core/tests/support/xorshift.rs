//! A xorshift for the core's tests' generated problems (fixed seeds, no dependency).

/// A xorshift from `seed` (not 0): each call gives the next value modulo `m`.
pub fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}
