//! Varint kernels for runs of varints (protobuf packed repeated fields), vectorised where the CPU
//! allows.
//!
//! Shaped like simdutf8: the scalar kernel (`simd/scalar.rs`) is always compiled and is the
//! reference every other kernel is tested against; the vector kernels (`simd/x86.rs`,
//! `simd/aarch64.rs`) are `#[target_feature] unsafe fn`s, chosen once at run time by CPU
//! detection ([`kernel`]) and cached in an atomic. Nothing here depends on build flags such as
//! `target-cpu=native`. Runs shorter than a few elements skip the vector kernels.
//!
//! Every entry point is plain Rust over slices: no allocation, and no panic reachable from any
//! input. The encoders store whole words (8 to 16 bytes) while both the buffer and the elements
//! still to come guarantee room, and finish with the scalar encoder, so they never write past
//! `out.len()` and, when they succeed, never touch a byte of `out` past the length they return.

mod scalar;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::atomic::{AtomicU8, Ordering};

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

/// A varint kernel: the instruction set one implementation of this module's functions uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kernel {
    /// Portable Rust, one varint at a time; always available, and the reference for the others.
    Scalar = 1,
    /// x86_64 baseline: SSE2, 4 elements per step.
    Sse2 = 2,
    /// x86_64 with AVX2, BMI1, BMI2 and LZCNT (Intel since Haswell, AMD since Excavator): AVX2,
    /// 8 elements per step for lengths and 32-bit encoding, 4 for 64-bit encoding.
    Avx2Bmi2 = 3,
    /// aarch64: NEON length sums and a branchless word-at-a-time encoder.
    Neon = 4,
}

/// Below this many elements the dispatched functions use the scalar kernel: the vector kernels'
/// setup (constants, and `vzeroupper` on AVX2) outweighs what they save on so few. Measured on
/// an AMD EPYC (Zen 3), length then encoding of mixed-length u32s: at 6 elements AVX2 took 6.0
/// ns per element against scalar's 5.3, at 8 they crossed (4.1 and 5.1), at 16 AVX2 took 2.6
/// against 4.7 (u64s alike).
const VECTOR_MIN_LEN: usize = 8;

/// The detected kernel as its `repr(u8)` value; 0 until the first call to [`kernel`].
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The kernel the dispatched functions use on this CPU: the fastest available one, detected on
/// the first call and cached (a relaxed atomic: detection is idempotent, so a race only repeats it).
#[inline]
pub fn kernel() -> Kernel {
    match DETECTED.load(Ordering::Relaxed) {
        1 => Kernel::Scalar,
        2 => Kernel::Sse2,
        3 => Kernel::Avx2Bmi2,
        4 => Kernel::Neon,
        _ => detect_and_cache(),
    }
}

#[cold]
fn detect_and_cache() -> Kernel {
    let best = best_kernel();
    DETECTED.store(best as u8, Ordering::Relaxed);
    best
}

/// The fastest kernel this CPU runs well.
fn best_kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        if is_available(Kernel::Avx2Bmi2) {
            return Kernel::Avx2Bmi2;
        }
        Kernel::Sse2
    }
    #[cfg(target_arch = "aarch64")]
    {
        if is_available(Kernel::Neon) {
            return Kernel::Neon;
        }
        Kernel::Scalar
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Kernel::Scalar
    }
}

/// Whether this CPU can run `kernel`.
fn is_available(kernel: Kernel) -> bool {
    match kernel {
        Kernel::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => std::arch::is_x86_feature_detected!("sse2"),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Bmi2 => {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("lzcnt")
        }
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => std::arch::is_aarch64_feature_detected!("neon"),
        // The other architecture's kernels.
        _ => false,
    }
}

/// Every kernel this CPU can run, [`Kernel::Scalar`] first (for tests and benches).
pub fn available_kernels() -> Vec<Kernel> {
    [Kernel::Scalar, Kernel::Sse2, Kernel::Avx2Bmi2, Kernel::Neon]
        .into_iter()
        .filter(|&kernel| is_available(kernel))
        .collect()
}

/// Total bytes of the varints of `values` read as `kind` (the payload of a packed field).
///
/// Saturates at `usize::MAX`, which only a 32-bit target can reach (over 400 million negative
/// `int32`s), where no buffer can be that long and the encoder then reports a short buffer.
#[inline]
pub fn encoded_len_packed32(values: &[u32], kind: Packed32) -> usize {
    if values.len() < VECTOR_MIN_LEN {
        return scalar::encoded_len_packed32(values, kind);
    }
    // Safety: `kernel()` only returns kernels this CPU runs.
    unsafe { encoded_len_packed32_on(kernel(), values, kind) }
}

/// Total bytes of the varints of `values` (zig-zag encoded first if `zigzag`, as `sint64` is).
///
/// Saturates at `usize::MAX` like [`encoded_len_packed32`].
#[inline]
pub fn encoded_len_packed64(values: &[u64], zigzag: bool) -> usize {
    if values.len() < VECTOR_MIN_LEN {
        return scalar::encoded_len_packed64(values, zigzag);
    }
    // Safety: `kernel()` only returns kernels this CPU runs.
    unsafe { encoded_len_packed64_on(kernel(), values, zigzag) }
}

/// Writes the varints of `values` read as `kind` at the start of `out` and returns the bytes
/// written, which equal [`encoded_len_packed32`]`(values, kind)`.
///
/// `out` should be at least that long (exactly that long is the normal case: measure first). If
/// it is shorter, returns `None`, possibly after writing part of `out`. Never writes past
/// `out.len()`, and on success never modifies `out` past the returned length.
#[inline]
pub fn encode_packed32(values: &[u32], kind: Packed32, out: &mut [u8]) -> Option<usize> {
    if values.len() < VECTOR_MIN_LEN {
        return scalar::encode_packed32(values, kind, out);
    }
    // Safety: `kernel()` only returns kernels this CPU runs.
    unsafe { encode_packed32_on(kernel(), values, kind, out) }
}

/// Writes the varints of `values` (zig-zag encoded first if `zigzag`) at the start of `out` and
/// returns the bytes written, which equal [`encoded_len_packed64`]`(values, zigzag)`.
///
/// The contract on `out` is that of [`encode_packed32`].
#[inline]
pub fn encode_packed64(values: &[u64], zigzag: bool, out: &mut [u8]) -> Option<usize> {
    if values.len() < VECTOR_MIN_LEN {
        return scalar::encode_packed64(values, zigzag, out);
    }
    // Safety: `kernel()` only returns kernels this CPU runs.
    unsafe { encode_packed64_on(kernel(), values, zigzag, out) }
}

/// [`encoded_len_packed32`] through `kernel`, whatever the input length; `None` if this CPU
/// cannot run `kernel` (see [`available_kernels`]). For tests and benches.
pub fn encoded_len_packed32_with(kernel: Kernel, values: &[u32], kind: Packed32) -> Option<usize> {
    // Safety: checked just before.
    is_available(kernel).then(|| unsafe { encoded_len_packed32_on(kernel, values, kind) })
}

/// [`encoded_len_packed64`] through `kernel`, whatever the input length; `None` if this CPU
/// cannot run `kernel`. For tests and benches.
pub fn encoded_len_packed64_with(kernel: Kernel, values: &[u64], zigzag: bool) -> Option<usize> {
    // Safety: checked just before.
    is_available(kernel).then(|| unsafe { encoded_len_packed64_on(kernel, values, zigzag) })
}

/// [`encode_packed32`] through `kernel`, whatever the input length; `None` if this CPU cannot
/// run `kernel`, or if `out` is too short. For tests and benches.
pub fn encode_packed32_with(
    kernel: Kernel,
    values: &[u32],
    kind: Packed32,
    out: &mut [u8],
) -> Option<usize> {
    if !is_available(kernel) {
        return None;
    }
    // Safety: checked just before.
    unsafe { encode_packed32_on(kernel, values, kind, out) }
}

/// [`encode_packed64`] through `kernel`, whatever the input length; `None` if this CPU cannot
/// run `kernel`, or if `out` is too short. For tests and benches.
pub fn encode_packed64_with(
    kernel: Kernel,
    values: &[u64],
    zigzag: bool,
    out: &mut [u8],
) -> Option<usize> {
    if !is_available(kernel) {
        return None;
    }
    // Safety: checked just before.
    unsafe { encode_packed64_on(kernel, values, zigzag, out) }
}

/// # Safety
/// This CPU must be able to run `kernel` ([`is_available`]).
unsafe fn encoded_len_packed32_on(kernel: Kernel, values: &[u32], kind: Packed32) -> usize {
    match kernel {
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => unsafe { x86::encoded_len_packed32_sse2(values, kind) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Bmi2 => unsafe { x86::encoded_len_packed32_avx2(values, kind) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => unsafe { aarch64::encoded_len_packed32_neon(values, kind) },
        _ => scalar::encoded_len_packed32(values, kind),
    }
}

/// # Safety
/// This CPU must be able to run `kernel` ([`is_available`]).
unsafe fn encoded_len_packed64_on(kernel: Kernel, values: &[u64], zigzag: bool) -> usize {
    match kernel {
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => unsafe { x86::encoded_len_packed64_sse2(values, zigzag) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Bmi2 => unsafe { x86::encoded_len_packed64_avx2(values, zigzag) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => unsafe { aarch64::encoded_len_packed64_neon(values, zigzag) },
        _ => scalar::encoded_len_packed64(values, zigzag),
    }
}

/// # Safety
/// This CPU must be able to run `kernel` ([`is_available`]).
unsafe fn encode_packed32_on(
    kernel: Kernel,
    values: &[u32],
    kind: Packed32,
    out: &mut [u8],
) -> Option<usize> {
    match kernel {
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => unsafe { x86::encode_packed32_sse2(values, kind, out) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Bmi2 => unsafe { x86::encode_packed32_avx2(values, kind, out) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => unsafe { aarch64::encode_packed32_neon(values, kind, out) },
        _ => scalar::encode_packed32(values, kind, out),
    }
}

/// # Safety
/// This CPU must be able to run `kernel` ([`is_available`]).
unsafe fn encode_packed64_on(
    kernel: Kernel,
    values: &[u64],
    zigzag: bool,
    out: &mut [u8],
) -> Option<usize> {
    match kernel {
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => unsafe { x86::encode_packed64_sse2(values, zigzag, out) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Bmi2 => unsafe { x86::encode_packed64_avx2(values, zigzag, out) },
        // Safety: the caller guarantees this kernel's CPU features.
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => unsafe { aarch64::encode_packed64_neon(values, zigzag, out) },
        _ => scalar::encode_packed64(values, zigzag, out),
    }
}

#[cfg(test)]
mod tests {
    use super::scalar::{self, words};
    use super::*;
    use crate::testing::Rng;

    const KINDS: [Packed32; 3] = [Packed32::Uint32, Packed32::Int32, Packed32::Sint32];

    /// Bytes after a short buffer that no encoder may touch.
    const GUARD: usize = 32;
    /// What the guard region holds (a byte no run of these tests writes at its offset by chance).
    const GUARD_BYTE: u8 = 0xa5;

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

    /// One way through this module: a kernel forced with `*_with`, the dispatched functions, or
    /// the portable word loop alone (the NEON encoder, run here on any machine).
    #[derive(Clone, Copy, Debug)]
    enum Path {
        Kernel(Kernel),
        Dispatched,
        PortableWords,
    }

    fn paths() -> Vec<Path> {
        let mut paths: Vec<Path> = available_kernels().into_iter().map(Path::Kernel).collect();
        paths.extend([Path::Dispatched, Path::PortableWords]);
        paths
    }

    impl Path {
        fn len32(self, values: &[u32], kind: Packed32) -> Option<usize> {
            match self {
                Path::Kernel(kernel) => encoded_len_packed32_with(kernel, values, kind),
                Path::Dispatched => Some(encoded_len_packed32(values, kind)),
                Path::PortableWords => Some(scalar::encoded_len_packed32(values, kind)),
            }
        }

        fn len64(self, values: &[u64], zigzag: bool) -> Option<usize> {
            match self {
                Path::Kernel(kernel) => encoded_len_packed64_with(kernel, values, zigzag),
                Path::Dispatched => Some(encoded_len_packed64(values, zigzag)),
                Path::PortableWords => Some(scalar::encoded_len_packed64(values, zigzag)),
            }
        }

        fn encode32(self, values: &[u32], kind: Packed32, out: &mut [u8]) -> Option<usize> {
            match self {
                Path::Kernel(kernel) => encode_packed32_with(kernel, values, kind, out),
                Path::Dispatched => encode_packed32(values, kind, out),
                Path::PortableWords => words::encode_packed32_words(values, kind, out),
            }
        }

        fn encode64(self, values: &[u64], zigzag: bool, out: &mut [u8]) -> Option<usize> {
            match self {
                Path::Kernel(kernel) => encode_packed64_with(kernel, values, zigzag, out),
                Path::Dispatched => encode_packed64(values, zigzag, out),
                Path::PortableWords => words::encode_packed64_words(values, zigzag, out),
            }
        }
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

    /// Every path, every kind: lengths and bytes equal prost's; `all_short` tries every short
    /// buffer length, else a few.
    fn check32(values: &[u32], all_short: bool) {
        for kind in KINDS {
            let expected = prost_bytes(values.iter().map(|&v| reference_varint32(v, kind)));
            let len = expected.len();
            for path in paths() {
                let what = format!("{path:?} {kind:?} on {} elements", values.len());
                assert_eq!(path.len32(values, kind), Some(len), "{what}: encoded_len");
                let short_lens: Vec<usize> = match all_short {
                    true => (0..len).collect(),
                    false => vec![0, 1, len / 2, len.saturating_sub(11), len.saturating_sub(1)],
                };
                check_encoder(&what, &expected, short_lens.into_iter(), |out| {
                    path.encode32(values, kind, out)
                });
            }
        }
    }

    /// [`check32`] for 64-bit elements, plain and zig-zag.
    fn check64(values: &[u64], all_short: bool) {
        for zigzag in [false, true] {
            let expected = prost_bytes(values.iter().map(|&v| reference_varint64(v, zigzag)));
            let len = expected.len();
            for path in paths() {
                let what = format!("{path:?} zigzag={zigzag} on {} elements", values.len());
                assert_eq!(path.len64(values, zigzag), Some(len), "{what}: encoded_len");
                let short_lens: Vec<usize> = match all_short {
                    true => (0..len).collect(),
                    false => vec![0, 1, len / 2, len.saturating_sub(11), len.saturating_sub(1)],
                };
                check_encoder(&what, &expected, short_lens.into_iter(), |out| {
                    path.encode64(values, zigzag, out)
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
        let negative = vec![u32::MAX; 140_001];
        for path in paths() {
            for kind in KINDS {
                for values in [&mixed32, &negative] {
                    let expected: usize = values
                        .iter()
                        .map(|&v| prost::encoding::encoded_len_varint(reference_varint32(v, kind)))
                        .sum();
                    assert_eq!(
                        path.len32(values, kind),
                        Some(expected),
                        "{path:?} {kind:?}"
                    );
                }
            }
            for zigzag in [false, true] {
                let expected: usize = mixed64
                    .iter()
                    .map(|&v| prost::encoding::encoded_len_varint(reference_varint64(v, zigzag)))
                    .sum();
                assert_eq!(
                    path.len64(&mixed64, zigzag),
                    Some(expected),
                    "{path:?} {zigzag}"
                );
            }
        }
    }

    #[test]
    fn the_detected_kernel_is_available_cached_and_vectorised_where_possible() {
        let detected = kernel();
        assert_eq!(kernel(), detected);
        assert!(available_kernels().contains(&detected));
        assert_eq!(available_kernels()[0], Kernel::Scalar);
        #[cfg(target_arch = "x86_64")]
        assert!(matches!(detected, Kernel::Sse2 | Kernel::Avx2Bmi2));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(detected, Kernel::Neon);
    }

    #[test]
    fn forcing_a_kernel_this_cpu_lacks_gives_none() {
        let missing = [Kernel::Sse2, Kernel::Avx2Bmi2, Kernel::Neon]
            .into_iter()
            .filter(|kernel| !available_kernels().contains(kernel));
        for kernel in missing {
            assert_eq!(
                encoded_len_packed32_with(kernel, &[1], Packed32::Uint32),
                None
            );
            assert_eq!(encoded_len_packed64_with(kernel, &[1], false), None);
            assert_eq!(
                encode_packed32_with(kernel, &[1], Packed32::Uint32, &mut [0; 8]),
                None
            );
            assert_eq!(encode_packed64_with(kernel, &[1], false, &mut [0; 8]), None);
        }
    }
}
