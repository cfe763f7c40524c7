//! The one deterministic pseudo-random number generator of the tests: a 64-bit linear
//! congruential generator (Knuth's MMIX constants), high bits out. Fixed seeds make every
//! "random" game the same on every run.

/// A seeded generator; [`Lcg::below`] draws.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}
