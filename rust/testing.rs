//! Test support shared by the unit tests, `rust/tests/` and `benches/`: compiled for `cargo test`
//! and, through the `testing` feature (which the crate's dev-dependency on itself turns on), for
//! the integration tests and benches. Never part of the addon.

/// Splitmix64: a small seeded generator, so every run sees the same values and a failure
/// reproduces.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `bound` (0 if `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound.max(1) as u64) as usize
    }

    /// A value with exactly `bits` significant bits (0 for 0 bits).
    pub fn with_bits(&mut self, bits: u32) -> u64 {
        match bits {
            0 => 0,
            _ => (self.next_u64() >> (64 - bits)) | (1 << (bits - 1)),
        }
    }

    /// A value whose varint takes exactly `len` bytes (1..=10).
    pub fn of_len(&mut self, len: u32) -> u64 {
        let (min_bits, max_bits) = (7 * (len - 1), (7 * len).min(64));
        let bits = min_bits + self.below((max_bits - min_bits + 1) as usize) as u32;
        self.with_bits(bits)
    }

    /// A value whose varint length is uniform over 1..=`max_len`.
    pub fn mixed(&mut self, max_len: u32) -> u64 {
        let len = 1 + self.below(max_len as usize) as u32;
        self.of_len(len)
    }
}

/// A 64-bit value as the value block holds it: its low word, then its high word.
pub fn words_of(value: u64) -> crate::simd::Words64 {
    [value as u32, (value >> 32) as u32]
}
