//! Varint kernels for runs of varints (protobuf packed repeated fields), vectorised where the CPU
//! allows.
//!
//! Shaped like simdutf8: the scalar kernel (`simd/scalar.rs`) is always compiled and is the
//! reference every other kernel is tested against; each vector kernel (`sse2.rs`, `avx2.rs`,
//! `neon.rs`) is the algorithms of `vector.rs`, written once, instantiated over one instruction
//! set's primitives as `#[target_feature]` functions. A [`Kernel`] is the table of one kernel's
//! four functions; the fastest one this CPU runs is chosen by run-time detection on first use
//! and cached as one pointer. Nothing here depends on build flags such as `target-cpu=native`.
//! Runs shorter than a few elements skip the vector kernels ([`kernel_for`]).
//!
//! Every function is plain Rust over slices: no allocation, and no panic reachable from any
//! input. A 64-bit element comes as the two words the value block holds it in ([`Words64`]), so
//! no slice needs 8-byte alignment.

mod scalar;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[macro_use]
mod vector;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod sse2;

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

/// How the 32-bit elements of a packed field become varint values.
///
/// The elements of `int32` and `sint32` fields are passed as their two's-complement bit patterns
/// (`value as u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packed32 {
    /// `uint32`: the value itself (1 to 5 bytes).
    Uint32,
    /// `int32`: negative values are sign-extended to 64 bits, so they always take 10 bytes.
    Int32,
    /// `sint32`: zig-zag encoded (1 to 5 bytes).
    Sint32,
}

/// A 64-bit element as the value block holds it: its low 32-bit word, then its high one.
pub type Words64 = [u32; 2];

/// One kernel: the table of its four functions, for one instruction set.
///
/// The only `&Kernel`s handed out are of kernels this CPU runs ([`kernel_for`], and `available`
/// for tests), which is what makes calling their functions safe.
#[derive(Debug)]
pub struct Kernel {
    /// Its name, for test messages and bench labels.
    pub name: &'static str,
    encoded_len_packed32: unsafe fn(&[u32], Packed32) -> usize,
    encoded_len_packed64: unsafe fn(&[Words64], bool) -> usize,
    encode_packed32: unsafe fn(&[u32], Packed32, &mut [u8]) -> Option<usize>,
    encode_packed64: unsafe fn(&[Words64], bool, &mut [u8]) -> Option<usize>,
}

impl Kernel {
    /// Total bytes of the varints of `values` read as `kind` (the payload of a packed field).
    ///
    /// Saturates at `usize::MAX`, which only a 32-bit target can reach (over 400 million
    /// negative `int32`s), where no buffer can be that long and the encoder then reports a short
    /// buffer.
    #[inline]
    pub fn encoded_len_packed32(&self, values: &[u32], kind: Packed32) -> usize {
        // Safety: this CPU runs this kernel (see the type's documentation).
        unsafe { (self.encoded_len_packed32)(values, kind) }
    }

    /// Total bytes of the varints of the 64-bit `values` (zig-zag encoded first if `zigzag`, as
    /// `sint64` is). Saturates like [`Kernel::encoded_len_packed32`].
    #[inline]
    pub fn encoded_len_packed64(&self, values: &[Words64], zigzag: bool) -> usize {
        // Safety: this CPU runs this kernel (see the type's documentation).
        unsafe { (self.encoded_len_packed64)(values, zigzag) }
    }

    /// Writes the varints of `values` read as `kind` at the start of `out` and returns the bytes
    /// written, which equal [`Kernel::encoded_len_packed32`]`(values, kind)`.
    ///
    /// `out` should be at least that long (exactly that long is the normal case: measure first).
    /// If it is shorter, returns `None`, possibly after writing part of `out`. Never writes past
    /// `out.len()`, and on success never modifies `out` past the returned length.
    #[inline]
    pub fn encode_packed32(&self, values: &[u32], kind: Packed32, out: &mut [u8]) -> Option<usize> {
        // Safety: this CPU runs this kernel (see the type's documentation).
        unsafe { (self.encode_packed32)(values, kind, out) }
    }

    /// Writes the varints of the 64-bit `values` (zig-zag encoded first if `zigzag`) at the
    /// start of `out` and returns the bytes written, which equal
    /// [`Kernel::encoded_len_packed64`]`(values, zigzag)`. The contract on `out` is that of
    /// [`Kernel::encode_packed32`].
    #[inline]
    pub fn encode_packed64(
        &self,
        values: &[Words64],
        zigzag: bool,
        out: &mut [u8],
    ) -> Option<usize> {
        // Safety: this CPU runs this kernel (see the type's documentation).
        unsafe { (self.encode_packed64)(values, zigzag, out) }
    }
}

/// Below this many elements [`kernel_for`] gives the scalar kernel: the vector kernels' setup
/// (constants, and `vzeroupper` on AVX2) outweighs what they save on so few. Measured on an AMD
/// EPYC (Zen 3), length then encoding of mixed-length u32s: at 6 elements AVX2 took 6.0 ns per
/// element against scalar's 5.3, at 8 they crossed (4.1 and 5.1), at 16 AVX2 took 2.6 against
/// 4.7. (JS hands over runs of a hundred elements or more, so this matters to other callers.)
const VECTOR_MIN_LEN: usize = 8;

/// The kernel for a run of `elements` elements: the scalar one for short runs, else the fastest
/// one this CPU runs.
#[inline]
pub fn kernel_for(elements: usize) -> &'static Kernel {
    if elements < VECTOR_MIN_LEN {
        return &scalar::KERNEL;
    }
    let cached = DETECTED.load(Ordering::Relaxed);
    if cached.is_null() {
        return detect();
    }
    // Safety: `detect` is the only writer, and it stores a `&'static Kernel`.
    unsafe { &*cached }
}

/// The fastest kernel this CPU runs, once detected; null before.
static DETECTED: AtomicPtr<Kernel> = AtomicPtr::new(ptr::null_mut());

/// Detects the fastest kernel this CPU runs and caches it (relaxed: the kernels are statics, and
/// detection is idempotent, so a race only repeats it).
#[cold]
fn detect() -> &'static Kernel {
    let fastest = runnable().last().unwrap_or(&scalar::KERNEL);
    // The pointer is only ever read back as a shared reference.
    DETECTED.store(ptr::from_ref(fastest).cast_mut(), Ordering::Relaxed);
    fastest
}

/// The kernels this CPU runs, slowest first: the scalar one, then those of this architecture
/// whose CPU features it has.
fn runnable() -> impl Iterator<Item = &'static Kernel> {
    #[cfg(target_arch = "x86_64")]
    let vector = [
        (&sse2::KERNEL, std::arch::is_x86_feature_detected!("sse2")),
        (&avx2::KERNEL, std::arch::is_x86_feature_detected!("avx2")),
    ];
    #[cfg(target_arch = "aarch64")]
    let vector = [(
        &neon::KERNEL,
        std::arch::is_aarch64_feature_detected!("neon"),
    )];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let vector: [(&Kernel, bool); 0] = [];
    let vector = vector
        .into_iter()
        .filter_map(|(kernel, runs)| runs.then_some(kernel));
    std::iter::once(&scalar::KERNEL).chain(vector)
}

/// Every kernel this CPU runs, the scalar one first and the fastest last (for tests and
/// benches).
#[cfg(any(test, feature = "testing"))]
pub fn available() -> Vec<&'static Kernel> {
    runnable().collect()
}

#[cfg(test)]
mod tests {
    use super::scalar::{self, words};
    use super::*;
    use crate::testing::{words_of, Rng};

    const KINDS: [Packed32; 3] = [Packed32::Uint32, Packed32::Int32, Packed32::Sint32];

    /// Bytes after a short buffer that no encoder may touch.
    const GUARD: usize = 32;
    /// What the guard region holds (a byte no run of these tests writes at its offset by chance).
    const GUARD_BYTE: u8 = 0xa5;

    /// The portable word loop alone with the scalar lengths: the NEON encoders, run here on any
    /// machine.
    static PORTABLE_WORDS: Kernel = Kernel {
        name: "portable words",
        encoded_len_packed32: scalar::encoded_len_packed32,
        encoded_len_packed64: scalar::encoded_len_packed64,
        encode_packed32: words::encode_packed32_words,
        encode_packed64: words::encode_packed64_words,
    };

    /// Every way through this module for a run of `len` elements: each kernel this CPU runs,
    /// the one [`kernel_for`] picks, and the portable word loop.
    fn kernels(len: usize) -> Vec<&'static Kernel> {
        let mut kernels = available();
        kernels.extend([kernel_for(len), &PORTABLE_WORDS]);
        kernels
    }

    /// An i32 bit pattern: a positive value of any bit length, or a negative one near zero or
    /// near `i32::MIN`, so every kind sees every length it has.
    fn mixed32(rng: &mut Rng) -> u32 {
        let bits = rng.below(32) as u32;
        let magnitude = rng.with_bits(bits) as u32;
        match rng.below(4) {
            0 => magnitude.wrapping_neg(),
            1 => magnitude | (1 << 31),
            _ => magnitude,
        }
    }

    /// The varint protobuf writes for a `kind` element, computed independently of the crate.
    fn reference_varint32(value: u32, kind: Packed32) -> u64 {
        let signed = i64::from(value as i32);
        match kind {
            Packed32::Uint32 => u64::from(value),
            Packed32::Int32 => signed as u64,
            Packed32::Sint32 => {
                (if signed >= 0 {
                    2 * signed
                } else {
                    -2 * signed - 1
                }) as u64
            }
        }
    }

    fn reference_varint64(value: u64, zigzag: bool) -> u64 {
        match zigzag {
            false => value,
            true => ((value << 1) as i64 ^ ((value as i64) >> 63)) as u64,
        }
    }

    fn prost_bytes(varints: impl Iterator<Item = u64>) -> Vec<u8> {
        let mut bytes = Vec::new();
        for varint in varints {
            prost::encoding::encode_varint(varint, &mut bytes);
        }
        bytes
    }

    /// Runs `encode` into an exact buffer and into a longer one, and into short ones of each
    /// length in `short_lens`, checking the bytes against `expected` and the guard regions.
    fn check_encoder(
        what: &str,
        expected: &[u8],
        short_lens: impl Iterator<Item = usize>,
        mut encode: impl FnMut(&mut [u8]) -> Option<usize>,
    ) {
        let len = expected.len();
        let mut out = vec![0; len];
        assert_eq!(encode(&mut out), Some(len), "{what}: exact buffer");
        assert_eq!(out, expected, "{what}: exact buffer");

        let mut out = vec![GUARD_BYTE; len + GUARD];
        assert_eq!(encode(&mut out), Some(len), "{what}: longer buffer");
        assert_eq!(&out[..len], expected, "{what}: longer buffer");
        assert!(
            out[len..].iter().all(|&b| b == GUARD_BYTE),
            "{what}: wrote past its length"
        );

        for short in short_lens.filter(|&short| short < len) {
            let mut out = vec![GUARD_BYTE; short + GUARD];
            assert_eq!(
                encode(&mut out[..short]),
                None,
                "{what}: {short}-byte buffer"
            );
            assert!(
                out[short..].iter().all(|&b| b == GUARD_BYTE),
                "{what}: wrote past a {short}-byte buffer"
            );
        }
    }

    /// The short buffer lengths to try: every one if `all_short`, else a few.
    fn short_lens(len: usize, all_short: bool) -> Vec<usize> {
        match all_short {
            true => (0..len).collect(),
            false => vec![0, 1, len / 2, len.saturating_sub(11), len.saturating_sub(1)],
        }
    }

    /// Every kernel, every kind: lengths and bytes equal prost's; `all_short` tries every short
    /// buffer length, else a few.
    fn check32(values: &[u32], all_short: bool) {
        for kind in KINDS {
            let expected = prost_bytes(values.iter().map(|&v| reference_varint32(v, kind)));
            let len = expected.len();
            for kernel in kernels(values.len()) {
                let what = format!("{} {kind:?} on {} elements", kernel.name, values.len());
                let measured = kernel.encoded_len_packed32(values, kind);
                assert_eq!(measured, len, "{what}: encoded_len");
                let shorts = short_lens(len, all_short).into_iter();
                check_encoder(&what, &expected, shorts, |out| {
                    kernel.encode_packed32(values, kind, out)
                });
            }
        }
    }

    /// [`check32`] for 64-bit elements, plain and zig-zag.
    fn check64(values: &[u64], all_short: bool) {
        let pairs: Vec<Words64> = values.iter().map(|&v| words_of(v)).collect();
        for zigzag in [false, true] {
            let expected = prost_bytes(values.iter().map(|&v| reference_varint64(v, zigzag)));
            let len = expected.len();
            for kernel in kernels(values.len()) {
                let what = format!(
                    "{} zigzag={zigzag} on {} elements",
                    kernel.name,
                    values.len()
                );
                let measured = kernel.encoded_len_packed64(&pairs, zigzag);
                assert_eq!(measured, len, "{what}: encoded_len");
                let shorts = short_lens(len, all_short).into_iter();
                check_encoder(&what, &expected, shorts, |out| {
                    kernel.encode_packed64(&pairs, zigzag, out)
                });
            }
        }
    }

    /// 0, 1, 2^7k - 1 and 2^7k for every k that fits, and the extremes of every kind.
    fn boundaries32() -> Vec<u32> {
        let mut values = vec![0, 1, u32::MAX, u32::MAX - 1];
        for k in 1..=4 {
            values.extend([(1 << (7 * k)) - 1, 1 << (7 * k)]);
        }
        for signed in [i32::MIN, i32::MIN + 1, i32::MAX, -1, -64, -65, 63, 64] {
            values.push(signed as u32);
        }
        values
    }

    fn boundaries64() -> Vec<u64> {
        let mut values = vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 63];
        for k in 1..=9 {
            values.extend([(1 << (7 * k)) - 1, 1 << (7 * k)]);
        }
        for signed in [i64::MIN, i64::MIN + 1, i64::MAX, -1, -64, -65, 63, 64] {
            values.push(signed as u64);
        }
        values
    }

    #[test]
    fn every_kernel_matches_prost_on_boundaries_and_extremes() {
        let (table32, table64) = (boundaries32(), boundaries64());
        check32(&table32, true);
        check64(&table64, true);
        // Each value alone in a run long enough for the vector loops, and the table repeated,
        // rotated so each value meets every lane.
        for &value in &table32 {
            check32(&[value; 40], false);
        }
        for &value in &table64 {
            check64(&[value; 40], false);
        }
        let rotations32: Vec<u32> = (0..8)
            .flat_map(|r| table32.iter().cycle().skip(r).take(table32.len()))
            .copied()
            .collect();
        let rotations64: Vec<u64> = (0..8)
            .flat_map(|r| table64.iter().cycle().skip(r).take(table64.len()))
            .copied()
            .collect();
        check32(&rotations32, false);
        check64(&rotations64, false);
    }

    #[test]
    fn every_kernel_matches_prost_at_every_length_from_0_to_70_elements() {
        let mut rng = Rng(70);
        for len in 0..=70 {
            let mixed32: Vec<u32> = (0..len).map(|_| mixed32(&mut rng)).collect();
            let mixed64: Vec<u64> = (0..len).map(|_| rng.mixed(10)).collect();
            check32(&mixed32, true);
            check64(&mixed64, true);
            // Uniform runs: the shortest and longest varints of each kind.
            for value in [0, u32::MAX, (1 << 28) - 1] {
                check32(&vec![value; len], false);
            }
            for value in [0, u64::MAX, (1 << 63) - 1] {
                check64(&vec![value; len], false);
            }
        }
    }

    #[test]
    fn every_kernel_matches_prost_on_thousands_of_random_mixed_lengths() {
        let mut rng = Rng(0x5eed);
        let mixed32: Vec<u32> = (0..5000).map(|_| mixed32(&mut rng)).collect();
        let mixed64: Vec<u64> = (0..5000).map(|_| rng.mixed(10)).collect();
        // Sub-slices from every offset within a vector, so loads and tails see every alignment.
        for skip in 0..8 {
            check32(&mixed32[skip..], false);
            check64(&mixed64[skip..], false);
        }
    }

    #[test]
    fn every_kernel_refuses_a_short_buffer_at_every_length_of_a_long_run() {
        let mut rng = Rng(0x5407);
        let mixed32: Vec<u32> = (0..300).map(|_| mixed32(&mut rng)).collect();
        let mixed64: Vec<u64> = (0..300).map(|_| rng.mixed(10)).collect();
        check32(&mixed32, true);
        check64(&mixed64, true);
    }

    #[test]
    fn length_sums_agree_across_many_count_blocks() {
        // The vector length sums flush their lane counters every 2^16 elements.
        let mut rng = Rng(0xb10c);
        let mixed32: Vec<u32> = (0..140_001).map(|_| mixed32(&mut rng)).collect();
        let mixed64: Vec<u64> = (0..140_001).map(|_| rng.mixed(10)).collect();
        let pairs64: Vec<Words64> = mixed64.iter().map(|&v| words_of(v)).collect();
        let negative = vec![u32::MAX; 140_001];
        for kernel in kernels(140_001) {
            let name = kernel.name;
            for kind in KINDS {
                for values in [&mixed32, &negative] {
                    let expected: usize = values
                        .iter()
                        .map(|&v| prost::encoding::encoded_len_varint(reference_varint32(v, kind)))
                        .sum();
                    let measured = kernel.encoded_len_packed32(values, kind);
                    assert_eq!(measured, expected, "{name} {kind:?}");
                }
            }
            for zigzag in [false, true] {
                let expected: usize = mixed64
                    .iter()
                    .map(|&v| prost::encoding::encoded_len_varint(reference_varint64(v, zigzag)))
                    .sum();
                let measured = kernel.encoded_len_packed64(&pairs64, zigzag);
                assert_eq!(measured, expected, "{name} {zigzag}");
            }
        }
    }

    #[test]
    fn the_detected_kernel_is_the_fastest_available_cached_and_vectorised_where_possible() {
        let detected = kernel_for(VECTOR_MIN_LEN);
        assert!(ptr::eq(kernel_for(usize::MAX), detected));
        assert!(ptr::eq(*available().last().unwrap(), detected));
        assert!(ptr::eq(kernel_for(VECTOR_MIN_LEN - 1), &scalar::KERNEL));
        #[cfg(target_arch = "x86_64")]
        assert!(["SSE2", "AVX2"].contains(&detected.name));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(detected.name, "NEON");
    }

    #[test]
    fn only_the_kernels_this_cpu_runs_are_handed_out() {
        let names: Vec<&str> = available().iter().map(|kernel| kernel.name).collect();
        #[cfg(target_arch = "x86_64")]
        match std::arch::is_x86_feature_detected!("avx2") {
            true => assert_eq!(names, ["scalar", "SSE2", "AVX2"]),
            false => assert_eq!(names, ["scalar", "SSE2"]),
        }
        #[cfg(target_arch = "aarch64")]
        assert_eq!(names, ["scalar", "NEON"]);
    }
}
