//! The unit tests' random cases: a seeded xorshift64 generator (Marsaglia, "Xorshift RNGs",
//! 2003), the same stream on every machine.
//! Uses: nothing else in the crate; used by: the unit tests of place::seed, sweep and sweep_hot.

/// A xorshift64 state; a seed of 0 stays 0, so seed it with any other value.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next value of the stream below `m` (`m > 0`).
    pub(crate) fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}
