//! x86_64 kernels: [`Kernel::Sse2`](super::Kernel::Sse2) (the x86_64 baseline) and
//! [`Kernel::Avx2Bmi2`](super::Kernel::Avx2Bmi2).
//!
//! **Lengths.** A varint is 1 byte plus one per threshold 2^7, 2^14, … its value reaches. Each
//! threshold is one signed compare on biased lanes (`x ^ 2^31` turns unsigned order into signed
//! order), 4 (SSE2) or 8 (AVX2) elements at a time. Length sums compare 64-bit values by their
//! 32-bit halves, since SSE2 has no 64-bit compare and 8 lanes beat 4 on AVX2; the AVX2 encoder,
//! which wants the lengths in its 64-bit lanes, uses 64-bit compares.
//!
//! **Encoding.** A step takes 4 (8 for 32-bit values on AVX2) elements: their lengths as above,
//! their bits spread 7 to a byte by vector shifts and masks, continuation bits from the lengths,
//! so each lane holds its varint laid out little-endian (then zeros). Each lane is stored whole
//! (8 bytes for 32-bit values, 16 for 64-bit) at its offset, the running sum of the lengths
//! before it, which one multiply computes for the whole step. Later stores overwrite the zeros.
//!
//! **Why not `pdep`.** `_pdep_u64(v, 0x7f7f_7f7f_7f7f_7f7f)` does the spread in one
//! instruction, and on the AMD EPYC (Zen 3, family 19h, 3.1 GHz) this was tuned on it is fast: a
//! dependent chain ran at 1.29 ns per `pdep` (3 cycles + the xor feeding it back), independent
//! ones at 0.33 ns (1 per cycle). But a one-varint-at-a-time `pdep` loop (lzcnt for the length,
//! `bzhi` for the continuation bits, one store) measured 1.9 ns per mixed-length u32 and 2.7 ns
//! per mixed-length u64, against 0.7 and 1.6 ns for the vector steps here (and prost's 4.6 and
//! 10.4 ns, all on the same, busy, machine). So no kernel uses `pdep`, which also keeps AMD Zen 1
//! and Zen 2, where it is microcoded (18 to ~300 cycles), on the fast path.

use core::arch::x86_64::*;

use super::scalar;
use super::Packed32;

/// Elements per length-sum block: lane counters grow by at most 9 per element, so blocks this
/// size keep every 32-bit lane far from overflow and the block sum within a `u32`.
const COUNT_BLOCK: usize = 1 << 16;

/// `2^k ^ 2^31` as an `i32`: the threshold `2^k` for signed compares on biased lanes.
const fn biased(power_of_two: u32) -> i32 {
    ((1u64 << power_of_two) as u32 ^ (1 << 31)) as i32
}

/// The length thresholds of a 32-bit value, 2^7k for k in 1..=4, less one and biased: a lane
/// compares greater than `BIASED_MAX_LEN[k - 1]` when its varint takes more than k bytes.
const BIASED_MAX_LEN: [i32; 4] = [
    biased(7) - 1,
    biased(14) - 1,
    biased(21) - 1,
    biased(28) - 1,
];

/// The length thresholds of a 64-bit value, 2^7k for k in 1..=9, less one and biased (^ 2^63).
const BIASED_MAX_LEN64: [i64; 9] = {
    let mut thresholds = [0; 9];
    let mut k = 0;
    while k < 9 {
        thresholds[k] = (((1u64 << (7 * (k + 1))) - 1) ^ (1 << 63)) as i64;
        k += 1;
    }
    thresholds
};

/// The thresholds 2^7k (k in 1..=4) for the low halves of 64-bit values, biased.
const BIASED_LOW_MIN: [i32; 4] = [biased(7), biased(14), biased(21), biased(28)];

/// The thresholds 2^7k (k in 5..=9) for the high halves of 64-bit values (2^(7k - 32)), biased.
const BIASED_HIGH_MIN: [i32; 5] = [biased(3), biased(10), biased(17), biased(24), biased(31)];

/// Eight 0x80 bytes: the continuation bits of a whole word.
const CONTINUATION_BITS: u64 = 0x8080_8080_8080_8080;

/// Bytes the store of one 32-bit element's varint (at most 5 bytes) reaches: an 8-byte word.
const REACH32: usize = 8;

/// Bytes the store of one 64-bit element's varint (at most 10 bytes) reaches: a 16-byte lane.
const REACH64: usize = 16;

/// Steps of `lanes` elements whose stores (`reach` bytes each) stay within the final output of
/// a successful call: those whose last element has at least `reach` elements (at least a byte
/// each) starting at it. The rest go to the scalar tail, so that a successful call never touches
/// `out` past the bytes it returns.
#[inline(always)]
const fn wide_steps(elements: usize, lanes: usize, reach: usize) -> usize {
    elements.saturating_sub(reach - 1) / lanes
}

/// The running offsets of a step's varints, from their lengths packed one per byte of `lens`
/// (first element lowest): byte k of the result is len0 + … + len(k-1), for k up to the number
/// of lengths (8 at most).
///
/// The multiply adds each length into every byte above its own. A step has 4 lengths of at
/// most 10 or 8 of at most 5, so no sum exceeds 40 and no byte carries into the next.
#[inline(always)]
const fn running_offsets(lens: u64) -> u64 {
    lens.wrapping_mul(0x0101_0101_0101_0100)
}

/// Byte `k` of `word`, as an offset.
#[inline(always)]
const fn byte(word: u64, k: u32) -> usize {
    (word >> (8 * k)) as u8 as usize
}

/// An element type that the 64-bit encoders load 4 at a time as 64-bit varint values.
trait Lanes64: Copy {
    /// Elements 0 and 1, and 2 and 3, of `elements` as 64-bit lanes.
    fn load_sse2(elements: &[Self; 4]) -> (__m128i, __m128i);

    /// The 4 elements of `elements` as 64-bit lanes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn load_avx2(elements: &[Self; 4]) -> __m256i;

    /// The scalar encoder, for the tail.
    fn encode_tail(values: &[Self], zigzag: bool, out: &mut [u8]) -> Option<usize>;
}

impl Lanes64 for u64 {
    #[inline(always)]
    fn load_sse2(elements: &[u64; 4]) -> (__m128i, __m128i) {
        // Safety: `elements` is 32 readable bytes, `loadu` takes any alignment, and SSE2 is
        // part of x86_64.
        unsafe {
            (
                _mm_loadu_si128(elements.as_ptr().cast()),
                _mm_loadu_si128(elements[2..].as_ptr().cast()),
            )
        }
    }

    #[inline(always)]
    unsafe fn load_avx2(elements: &[u64; 4]) -> __m256i {
        // Safety: `elements` is 32 readable bytes and `loadu` takes any alignment; the caller
        // guarantees AVX2.
        unsafe { _mm256_loadu_si256(elements.as_ptr().cast()) }
    }

    fn encode_tail(values: &[u64], zigzag: bool, out: &mut [u8]) -> Option<usize> {
        scalar::encode_packed64(values, zigzag, out)
    }
}

/// `int32` bit patterns, sign-extended to 64 bits as protobuf does for `int32` varints.
impl Lanes64 for u32 {
    #[inline(always)]
    fn load_sse2(elements: &[u32; 4]) -> (__m128i, __m128i) {
        // Safety: `elements` is 16 readable bytes, `loadu` takes any alignment, and SSE2 is
        // part of x86_64.
        let v = unsafe { _mm_loadu_si128(elements.as_ptr().cast()) };
        // SSE2 has no sign extension: pair each dword with its sign.
        // Safety: SSE2 is part of x86_64.
        unsafe {
            let sign = _mm_srai_epi32::<31>(v);
            (_mm_unpacklo_epi32(v, sign), _mm_unpackhi_epi32(v, sign))
        }
    }

    #[inline(always)]
    unsafe fn load_avx2(elements: &[u32; 4]) -> __m256i {
        // Safety: `elements` is 16 readable bytes and `loadu` takes any alignment; the caller
        // guarantees AVX2.
        unsafe { _mm256_cvtepi32_epi64(_mm_loadu_si128(elements.as_ptr().cast())) }
    }

    fn encode_tail(values: &[u32], zigzag: bool, out: &mut [u8]) -> Option<usize> {
        debug_assert!(!zigzag, "sint32 takes the 32-bit path");
        scalar::encode_packed32(values, Packed32::Int32, out)
    }
}

// ---------------------------------------------------------------------------------------------
// SSE2
// ---------------------------------------------------------------------------------------------

/// The sum of the four 32-bit lanes of `v` (wrapping).
#[target_feature(enable = "sse2")]
#[inline]
fn sum_sse2(v: __m128i) -> u32 {
    let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
    let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b10_11_00_01>(v));
    _mm_cvtsi128_si32(v) as u32
}

/// Zig-zag encodes the four 32-bit lanes of `v`.
#[target_feature(enable = "sse2")]
#[inline]
fn zigzag32_sse2(v: __m128i) -> __m128i {
    _mm_xor_si128(_mm_slli_epi32::<1>(v), _mm_srai_epi32::<31>(v))
}

/// Zig-zag encodes the two 64-bit lanes of `v`.
#[target_feature(enable = "sse2")]
#[inline]
fn zigzag64_sse2(v: __m128i) -> __m128i {
    // No 64-bit arithmetic shift: copy each high dword's sign to both dwords of its lane.
    let sign = _mm_shuffle_epi32::<0b11_11_01_01>(_mm_srai_epi32::<31>(v));
    _mm_xor_si128(_mm_slli_epi64::<1>(v), sign)
}

/// The varint lengths less one (0..=4) of the four 32-bit lanes of `v`.
#[target_feature(enable = "sse2")]
#[inline]
fn lens_less_one32_sse2(v: __m128i) -> __m128i {
    let x = _mm_xor_si128(v, _mm_set1_epi32(i32::MIN));
    let [t1, t2, t3, t4] = BIASED_MAX_LEN.map(|t| _mm_set1_epi32(t));
    // Each compare gives -1 where the lane reaches the next length.
    let minus = _mm_add_epi32(
        _mm_add_epi32(_mm_cmpgt_epi32(x, t1), _mm_cmpgt_epi32(x, t2)),
        _mm_add_epi32(_mm_cmpgt_epi32(x, t3), _mm_cmpgt_epi32(x, t4)),
    );
    _mm_sub_epi32(_mm_setzero_si128(), minus)
}

/// The varint lengths less one (0..=9) of the 64-bit lanes of `a` and `b`, as the 32-bit lanes
/// [a0, a1, b0, b1].
#[target_feature(enable = "sse2")]
#[inline]
fn lens_less_one64_sse2(a: __m128i, b: __m128i) -> __m128i {
    let (a, b) = (_mm_castsi128_ps(a), _mm_castsi128_ps(b));
    let low = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(a, b));
    let high = _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(a, b));
    let high_zero = _mm_cmpeq_epi32(high, _mm_setzero_si128());
    let bias = _mm_set1_epi32(i32::MIN);
    let (low, high) = (_mm_xor_si128(low, bias), _mm_xor_si128(high, bias));
    let [l1, l2, l3, l4] = BIASED_LOW_MIN.map(|t| _mm_set1_epi32(t));
    let [h1, h2, h3, h4, h5] = BIASED_HIGH_MIN.map(|t| _mm_set1_epi32(t));
    // -1 per threshold the value stays below: 2^7k for k <= 4 when the low half is below it
    // and the high half is 0, 2^7k for k >= 5 when the high half is below 2^(7k - 32).
    let low_below = _mm_add_epi32(
        _mm_add_epi32(_mm_cmpgt_epi32(l1, low), _mm_cmpgt_epi32(l2, low)),
        _mm_add_epi32(_mm_cmpgt_epi32(l3, low), _mm_cmpgt_epi32(l4, low)),
    );
    let high_below = _mm_add_epi32(
        _mm_add_epi32(_mm_cmpgt_epi32(h1, high), _mm_cmpgt_epi32(h2, high)),
        _mm_add_epi32(
            _mm_add_epi32(_mm_cmpgt_epi32(h3, high), _mm_cmpgt_epi32(h4, high)),
            _mm_cmpgt_epi32(h5, high),
        ),
    );
    let below = _mm_add_epi32(_mm_and_si128(low_below, high_zero), high_below);
    _mm_add_epi32(_mm_set1_epi32(9), below)
}

/// The low bytes of the four 32-bit lanes of `v` (each below 256) as a `u64`, lane 0 lowest.
#[target_feature(enable = "sse2")]
#[inline]
fn lane_bytes_sse2(v: __m128i) -> u64 {
    let packed = _mm_packs_epi32(v, v);
    u64::from(_mm_cvtsi128_si32(_mm_packus_epi16(packed, packed)) as u32)
}

/// The bits of each 64-bit lane of `v` below 2^56, spread 7 to a byte (byte g holds bits
/// 7g..7g + 7): 28-bit halves into 32-bit slots, then 14 bits into 16, then 7 into 8.
#[target_feature(enable = "sse2")]
#[inline]
fn spread7_64_sse2(v: __m128i) -> __m128i {
    let split = |v, shifted, low: i64, high: i64| {
        _mm_or_si128(
            _mm_and_si128(v, _mm_set1_epi64x(low)),
            _mm_and_si128(shifted, _mm_set1_epi64x(high)),
        )
    };
    let v = split(
        v,
        _mm_slli_epi64::<4>(v),
        0x0fff_ffff,
        0x0fff_ffff_0000_0000,
    );
    let v = split(
        v,
        _mm_slli_epi64::<2>(v),
        0x0000_3fff_0000_3fff,
        0x3fff_0000_3fff_0000,
    );
    split(
        v,
        _mm_slli_epi64::<1>(v),
        0x007f_007f_007f_007f,
        0x7f00_7f00_7f00_7f00,
    )
}

/// Bytes 8 and 9 of the varints of the 64-bit lanes of `v` (see `scalar::high_word`).
#[target_feature(enable = "sse2")]
#[inline]
fn high_words_sse2(v: __m128i) -> __m128i {
    _mm_or_si128(
        _mm_srli_epi64::<56>(v),
        _mm_slli_epi64::<8>(_mm_srli_epi64::<63>(v)),
    )
}

/// [`super::encoded_len_packed32`] with SSE2.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn encoded_len_packed32_sse2(values: &[u32], kind: Packed32) -> usize {
    let mut total = 0u64;
    for block in values.chunks(COUNT_BLOCK) {
        total += match kind {
            Packed32::Uint32 => len32_sse2::<false, false>(block),
            Packed32::Int32 => len32_sse2::<false, true>(block),
            Packed32::Sint32 => len32_sse2::<true, false>(block),
        };
    }
    scalar::saturate(total)
}

/// The [`Packed32`] that `ZIGZAG` and `INT32` stand for in the generic kernels.
const fn kind_of(zigzag: bool, int32: bool) -> Packed32 {
    match (zigzag, int32) {
        (true, _) => Packed32::Sint32,
        (false, true) => Packed32::Int32,
        (false, false) => Packed32::Uint32,
    }
}

/// Varint bytes of at most [`COUNT_BLOCK`] 32-bit elements, zig-zag encoded first if `ZIGZAG`,
/// negative ones taking 10 bytes if `INT32`.
#[target_feature(enable = "sse2")]
#[inline]
fn len32_sse2<const ZIGZAG: bool, const INT32: bool>(values: &[u32]) -> u64 {
    debug_assert!(values.len() <= COUNT_BLOCK);
    let (vectors, tail) = values.as_chunks::<4>();
    // A negative int32 reaches all four thresholds (5 bytes) and takes 5 more.
    let five = _mm_set1_epi32(5);
    let mut extra = _mm_setzero_si128();
    for vector in vectors {
        // Safety: `vector` is 16 readable bytes, and `loadu` takes any alignment.
        let v = unsafe { _mm_loadu_si128(vector.as_ptr().cast()) };
        let v = if ZIGZAG { zigzag32_sse2(v) } else { v };
        extra = _mm_add_epi32(extra, lens_less_one32_sse2(v));
        if INT32 {
            extra = _mm_add_epi32(extra, _mm_and_si128(_mm_srai_epi32::<31>(v), five));
        }
    }
    let vectored = (vectors.len() * 4) as u64 + u64::from(sum_sse2(extra));
    vectored + scalar::encoded_len_packed32(tail, kind_of(ZIGZAG, INT32)) as u64
}

/// [`super::encoded_len_packed64`] with SSE2.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn encoded_len_packed64_sse2(values: &[u64], zigzag: bool) -> usize {
    let mut total = 0u64;
    for block in values.chunks(COUNT_BLOCK) {
        total += if zigzag {
            len64_sse2::<true>(block)
        } else {
            len64_sse2::<false>(block)
        };
    }
    scalar::saturate(total)
}

/// Varint bytes of at most [`COUNT_BLOCK`] 64-bit elements, zig-zag encoded first if `ZIGZAG`.
#[target_feature(enable = "sse2")]
#[inline]
fn len64_sse2<const ZIGZAG: bool>(values: &[u64]) -> u64 {
    debug_assert!(values.len() <= COUNT_BLOCK);
    let (vectors, tail) = values.as_chunks::<4>();
    let mut extra = _mm_setzero_si128();
    for vector in vectors {
        let (a, b) = u64::load_sse2(vector);
        let (a, b) = if ZIGZAG {
            (zigzag64_sse2(a), zigzag64_sse2(b))
        } else {
            (a, b)
        };
        extra = _mm_add_epi32(extra, lens_less_one64_sse2(a, b));
    }
    let vectored = (vectors.len() * 4) as u64 + u64::from(sum_sse2(extra));
    vectored + scalar::encoded_len_packed64(tail, ZIGZAG) as u64
}

/// [`super::encode_packed32`] with SSE2.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn encode_packed32_sse2(
    values: &[u32],
    kind: Packed32,
    out: &mut [u8],
) -> Option<usize> {
    match kind {
        Packed32::Uint32 => encode32_sse2::<false>(values, out),
        Packed32::Sint32 => encode32_sse2::<true>(values, out),
        // Negative int32s take 10 bytes: the 64-bit path, on sign-extended lanes.
        Packed32::Int32 => encode64_sse2::<u32, false>(values, out),
    }
}

/// [`super::encode_packed64`] with SSE2.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn encode_packed64_sse2(
    values: &[u64],
    zigzag: bool,
    out: &mut [u8],
) -> Option<usize> {
    match zigzag {
        true => encode64_sse2::<u64, true>(values, out),
        false => encode64_sse2::<u64, false>(values, out),
    }
}

/// `uint32` (or, if `ZIGZAG`, `sint32`) varints of `values` at the start of `out`, 4 at a time:
/// lengths by compares, a vector spread, and one 8-byte store per element.
#[target_feature(enable = "sse2")]
#[inline]
fn encode32_sse2<const ZIGZAG: bool>(values: &[u32], out: &mut [u8]) -> Option<usize> {
    /// Elements per step.
    const LANES: usize = 4;
    /// Bytes one step's stores reach: the last element starts at most 3 * 5 bytes in.
    const STEP_REACH: usize = (LANES - 1) * 5 + REACH32;
    let steps = wide_steps(values.len(), LANES, REACH32);
    let (low14, high14) = (_mm_set1_epi32(0x3fff), _mm_set1_epi32(0x3fff_0000));
    let (low7, high7) = (_mm_set1_epi32(0x007f_007f), _mm_set1_epi32(0x7f00_7f00));
    // Continuation bits of bytes 0..=3, by how many bytes follow them (at least 1..=4).
    let [c1, c2, c3, c4] =
        [0x80, 0x8000, 0x80_0000, 0x8000_0000_u32].map(|c| _mm_set1_epi32(c as i32));

    let (vectors, _) = values.as_chunks::<LANES>();
    let mut pos = 0;
    let mut done = 0;
    for vector in vectors.iter().take(steps) {
        debug_assert!(pos <= out.len());
        if out.len() - pos < STEP_REACH {
            break;
        }
        // Safety: `pos <= out.len()`, so `dst` is in (or one past) `out`.
        let dst = unsafe { out.as_mut_ptr().add(pos) };
        // Safety: `vector` is 16 readable bytes, and `loadu` takes any alignment.
        let v = unsafe { _mm_loadu_si128(vector.as_ptr().cast()) };
        let v = if ZIGZAG { zigzag32_sse2(v) } else { v };
        // -1 where the value reaches 2^7k, so that byte k - 1 continues (as in
        // `lens_less_one32_sse2`, whose compares are needed here one by one).
        let x = _mm_xor_si128(v, _mm_set1_epi32(i32::MIN));
        let [m1, m2, m3, m4] = BIASED_MAX_LEN.map(|t| _mm_cmpgt_epi32(x, _mm_set1_epi32(t)));
        let cont = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(m1, c1), _mm_and_si128(m2, c2)),
            _mm_or_si128(_mm_and_si128(m3, c3), _mm_and_si128(m4, c4)),
        );
        let minus_lens = _mm_add_epi32(_mm_add_epi32(m1, m2), _mm_add_epi32(m3, m4));
        let lens_less_one = _mm_sub_epi32(_mm_setzero_si128(), minus_lens);
        if _mm_movemask_epi8(minus_lens) == 0 {
            // Every varint is one byte, the value itself (packed enums and bools).
            let bytes = lane_bytes_sse2(v) as u32;
            // Safety: 4 bytes at `dst`, within the STEP_REACH bytes checked above.
            unsafe { dst.cast::<u32>().write_unaligned(bytes.to_le()) };
            pos += LANES;
            done += LANES;
            continue;
        }
        // Bytes 0..=3: bits 0..28 spread 14 to 16, then 7 to 8; byte 4 is v >> 28.
        let s = _mm_or_si128(
            _mm_and_si128(v, low14),
            _mm_and_si128(_mm_slli_epi32::<2>(v), high14),
        );
        let s = _mm_or_si128(
            _mm_and_si128(s, low7),
            _mm_and_si128(_mm_slli_epi32::<1>(s), high7),
        );
        let low = _mm_or_si128(s, cont);
        let high = _mm_srli_epi32::<28>(v);
        let words01 = _mm_unpacklo_epi32(low, high);
        let words23 = _mm_unpackhi_epi32(low, high);
        let lens = lane_bytes_sse2(lens_less_one) + 0x0101_0101;
        let offsets = running_offsets(lens);
        // Safety: the stores start at offsets 0 and byte(offsets, 1..=3) <= 15 past `dst` and
        // write 8 bytes each, so they stay within the STEP_REACH bytes checked above; they take
        // any alignment.
        unsafe {
            _mm_storel_epi64(dst.cast(), words01);
            _mm_storeh_pd(dst.add(byte(offsets, 1)).cast(), _mm_castsi128_pd(words01));
            _mm_storel_epi64(dst.add(byte(offsets, 2)).cast(), words23);
            _mm_storeh_pd(dst.add(byte(offsets, 3)).cast(), _mm_castsi128_pd(words23));
        }
        pos += byte(offsets, 4);
        done += LANES;
    }
    let kind = kind_of(ZIGZAG, false);
    Some(pos + scalar::encode_packed32(values.get(done..)?, kind, out.get_mut(pos..)?)?)
}

/// 64-bit varints of `values` (zig-zag encoded first if `ZIGZAG`; `u32` elements are `int32`s,
/// sign-extended) at the start of `out`, 4 at a time: lengths by compares, a vector spread, and
/// one 16-byte store per element.
#[target_feature(enable = "sse2")]
#[inline]
fn encode64_sse2<T: Lanes64, const ZIGZAG: bool>(values: &[T], out: &mut [u8]) -> Option<usize> {
    /// Elements per step.
    const LANES: usize = 4;
    /// Bytes one step's stores reach: the last element starts at most 3 * 10 bytes in.
    const STEP_REACH: usize = (LANES - 1) * 10 + REACH64;
    let steps = wide_steps(values.len(), LANES, REACH64);
    let byte_index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
    let continuation = _mm_set1_epi64x(CONTINUATION_BITS as i64);
    // The low 8 bytes of each lane: spread bits, continuation bits where more bytes follow.
    let low_words = |v, lens_less_one: __m128i| {
        // No variable shifts in SSE2: copy len - 1 (capped at 8; `min_epi16` suffices on these
        // small lanes) into every byte and compare it with the byte's index.
        let continued = _mm_min_epi16(lens_less_one, _mm_set1_epi64x(8));
        let continued = _mm_mul_epu32(continued, _mm_set1_epi32(0x0101_0101));
        let continued = _mm_or_si128(continued, _mm_slli_epi64::<32>(continued));
        let cont = _mm_and_si128(_mm_cmpgt_epi8(continued, byte_index), continuation);
        _mm_or_si128(spread7_64_sse2(v), cont)
    };

    let (vectors, _) = values.as_chunks::<LANES>();
    let mut pos = 0;
    let mut done = 0;
    for vector in vectors.iter().take(steps) {
        debug_assert!(pos <= out.len());
        if out.len() - pos < STEP_REACH {
            break;
        }
        // Safety: `pos <= out.len()`, so `dst` is in (or one past) `out`.
        let dst = unsafe { out.as_mut_ptr().add(pos) };
        let (a, b) = T::load_sse2(vector);
        let (a, b) = if ZIGZAG {
            (zigzag64_sse2(a), zigzag64_sse2(b))
        } else {
            (a, b)
        };
        let lens_less_one = lens_less_one64_sse2(a, b);
        let zero = _mm_setzero_si128();
        if _mm_movemask_epi8(_mm_cmpeq_epi32(lens_less_one, zero)) == 0xffff {
            // Every varint is one byte, the value itself (packed enums and bools).
            let (a, b) = (_mm_castsi128_ps(a), _mm_castsi128_ps(b));
            let low_dwords = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(a, b));
            let bytes = lane_bytes_sse2(low_dwords) as u32;
            // Safety: 4 bytes at `dst`, within the STEP_REACH bytes checked above.
            unsafe { dst.cast::<u32>().write_unaligned(bytes.to_le()) };
            pos += LANES;
            done += LANES;
            continue;
        }
        let low_a = low_words(a, _mm_unpacklo_epi32(lens_less_one, zero));
        let low_b = low_words(b, _mm_unpackhi_epi32(lens_less_one, zero));
        let (high_a, high_b) = (high_words_sse2(a), high_words_sse2(b));
        let lens = lane_bytes_sse2(lens_less_one) + 0x0101_0101;
        let offsets = running_offsets(lens);
        // Safety: the stores start at offsets 0 and byte(offsets, 1..=3) <= 30 past `dst` and
        // write 16 bytes each, so they stay within the STEP_REACH bytes checked above; they take
        // any alignment.
        unsafe {
            _mm_storeu_si128(dst.cast(), _mm_unpacklo_epi64(low_a, high_a));
            _mm_storeu_si128(
                dst.add(byte(offsets, 1)).cast(),
                _mm_unpackhi_epi64(low_a, high_a),
            );
            _mm_storeu_si128(
                dst.add(byte(offsets, 2)).cast(),
                _mm_unpacklo_epi64(low_b, high_b),
            );
            _mm_storeu_si128(
                dst.add(byte(offsets, 3)).cast(),
                _mm_unpackhi_epi64(low_b, high_b),
            );
        }
        pos += byte(offsets, 4);
        done += LANES;
    }
    Some(pos + T::encode_tail(values.get(done..)?, ZIGZAG, out.get_mut(pos..)?)?)
}

// ---------------------------------------------------------------------------------------------
// AVX2 (+ BMI1, BMI2 and LZCNT for the scalar parts)
// ---------------------------------------------------------------------------------------------

/// The sum of the eight 32-bit lanes of `v` (wrapping).
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn sum_avx2(v: __m256i) -> u32 {
    sum_sse2(_mm_add_epi32(
        _mm256_castsi256_si128(v),
        _mm256_extracti128_si256::<1>(v),
    ))
}

/// Zig-zag encodes the eight 32-bit lanes of `v`.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn zigzag32_avx2(v: __m256i) -> __m256i {
    _mm256_xor_si256(_mm256_slli_epi32::<1>(v), _mm256_srai_epi32::<31>(v))
}

/// Zig-zag encodes the four 64-bit lanes of `v`.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn zigzag64_avx2(v: __m256i) -> __m256i {
    let sign = _mm256_shuffle_epi32::<0b11_11_01_01>(_mm256_srai_epi32::<31>(v));
    _mm256_xor_si256(_mm256_slli_epi64::<1>(v), sign)
}

/// [`lens_less_one32_sse2`] on eight lanes.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn lens_less_one32_avx2(v: __m256i) -> __m256i {
    let x = _mm256_xor_si256(v, _mm256_set1_epi32(i32::MIN));
    let [t1, t2, t3, t4] = BIASED_MAX_LEN.map(|t| _mm256_set1_epi32(t));
    let minus = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cmpgt_epi32(x, t1), _mm256_cmpgt_epi32(x, t2)),
        _mm256_add_epi32(_mm256_cmpgt_epi32(x, t3), _mm256_cmpgt_epi32(x, t4)),
    );
    _mm256_sub_epi32(_mm256_setzero_si256(), minus)
}

/// [`lens_less_one64_sse2`] on eight 64-bit lanes, as 32-bit lanes in the order
/// [a0, a1, b0, b1, a2, a3, b2, b3].
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn lens_less_one64x8_avx2(a: __m256i, b: __m256i) -> __m256i {
    let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
    let low = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b));
    let high = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b));
    let high_zero = _mm256_cmpeq_epi32(high, _mm256_setzero_si256());
    let bias = _mm256_set1_epi32(i32::MIN);
    let (low, high) = (_mm256_xor_si256(low, bias), _mm256_xor_si256(high, bias));
    let [l1, l2, l3, l4] = BIASED_LOW_MIN.map(|t| _mm256_set1_epi32(t));
    let [h1, h2, h3, h4, h5] = BIASED_HIGH_MIN.map(|t| _mm256_set1_epi32(t));
    let low_below = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cmpgt_epi32(l1, low), _mm256_cmpgt_epi32(l2, low)),
        _mm256_add_epi32(_mm256_cmpgt_epi32(l3, low), _mm256_cmpgt_epi32(l4, low)),
    );
    let high_below = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cmpgt_epi32(h1, high), _mm256_cmpgt_epi32(h2, high)),
        _mm256_add_epi32(
            _mm256_add_epi32(_mm256_cmpgt_epi32(h3, high), _mm256_cmpgt_epi32(h4, high)),
            _mm256_cmpgt_epi32(h5, high),
        ),
    );
    let below = _mm256_add_epi32(_mm256_and_si256(low_below, high_zero), high_below);
    _mm256_add_epi32(_mm256_set1_epi32(9), below)
}

/// The varint lengths less one (0..=9) of the four 64-bit lanes of `v`, in the same lanes.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn lens_less_one64_avx2(v: __m256i) -> __m256i {
    let x = _mm256_xor_si256(v, _mm256_set1_epi64x(i64::MIN));
    // Compares give -1 per threshold reached.
    let mut minus = _mm256_setzero_si256();
    for threshold in BIASED_MAX_LEN64 {
        minus = _mm256_add_epi64(minus, _mm256_cmpgt_epi64(x, _mm256_set1_epi64x(threshold)));
    }
    _mm256_sub_epi64(_mm256_setzero_si256(), minus)
}

/// The low bytes of the eight 32-bit lanes of `v` (each below 256) as a `u64`, lane 0 lowest.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn lane_bytes_avx2(v: __m256i) -> u64 {
    // The packs work within 128-bit halves: lanes 0..=3 end up in dword 0, 4..=7 in dword 4.
    let packed = _mm256_packs_epi32(v, v);
    let packed = _mm256_packus_epi16(packed, packed);
    let low = u64::from(_mm256_cvtsi256_si32(packed) as u32);
    low | u64::from(_mm256_extract_epi32::<4>(packed) as u32) << 32
}

/// [`spread7_64_sse2`] on four lanes.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn spread7_64_avx2(v: __m256i) -> __m256i {
    let split = |v, shifted, low: i64, high: i64| {
        _mm256_or_si256(
            _mm256_and_si256(v, _mm256_set1_epi64x(low)),
            _mm256_and_si256(shifted, _mm256_set1_epi64x(high)),
        )
    };
    let v = split(
        v,
        _mm256_slli_epi64::<4>(v),
        0x0fff_ffff,
        0x0fff_ffff_0000_0000,
    );
    let v = split(
        v,
        _mm256_slli_epi64::<2>(v),
        0x0000_3fff_0000_3fff,
        0x3fff_0000_3fff_0000,
    );
    split(
        v,
        _mm256_slli_epi64::<1>(v),
        0x007f_007f_007f_007f,
        0x7f00_7f00_7f00_7f00,
    )
}

/// [`super::encoded_len_packed32`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2 and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
pub(super) unsafe fn encoded_len_packed32_avx2(values: &[u32], kind: Packed32) -> usize {
    let mut total = 0u64;
    for block in values.chunks(COUNT_BLOCK) {
        total += match kind {
            Packed32::Uint32 => len32_avx2::<false, false>(block),
            Packed32::Int32 => len32_avx2::<false, true>(block),
            Packed32::Sint32 => len32_avx2::<true, false>(block),
        };
    }
    scalar::saturate(total)
}

/// [`len32_sse2`] 8 elements at a time.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn len32_avx2<const ZIGZAG: bool, const INT32: bool>(values: &[u32]) -> u64 {
    debug_assert!(values.len() <= COUNT_BLOCK);
    let (vectors, tail) = values.as_chunks::<8>();
    let five = _mm256_set1_epi32(5);
    let mut extra = _mm256_setzero_si256();
    for vector in vectors {
        // Safety: `vector` is 32 readable bytes, and `loadu` takes any alignment.
        let v = unsafe { _mm256_loadu_si256(vector.as_ptr().cast()) };
        let v = if ZIGZAG { zigzag32_avx2(v) } else { v };
        extra = _mm256_add_epi32(extra, lens_less_one32_avx2(v));
        if INT32 {
            extra = _mm256_add_epi32(extra, _mm256_and_si256(_mm256_srai_epi32::<31>(v), five));
        }
    }
    let vectored = (vectors.len() * 8) as u64 + u64::from(sum_avx2(extra));
    vectored + scalar::encoded_len_packed32(tail, kind_of(ZIGZAG, INT32)) as u64
}

/// [`super::encoded_len_packed64`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2 and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
pub(super) unsafe fn encoded_len_packed64_avx2(values: &[u64], zigzag: bool) -> usize {
    let mut total = 0u64;
    for block in values.chunks(COUNT_BLOCK) {
        total += if zigzag {
            len64_avx2::<true>(block)
        } else {
            len64_avx2::<false>(block)
        };
    }
    scalar::saturate(total)
}

/// [`len64_sse2`] 8 elements at a time.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn len64_avx2<const ZIGZAG: bool>(values: &[u64]) -> u64 {
    debug_assert!(values.len() <= COUNT_BLOCK);
    let (vectors, tail) = values.as_chunks::<8>();
    let mut extra = _mm256_setzero_si256();
    for vector in vectors {
        // Safety: `vector` is 64 readable bytes, and `loadu` takes any alignment.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(vector.as_ptr().cast()),
                _mm256_loadu_si256(vector[4..].as_ptr().cast()),
            )
        };
        let (a, b) = if ZIGZAG {
            (zigzag64_avx2(a), zigzag64_avx2(b))
        } else {
            (a, b)
        };
        extra = _mm256_add_epi32(extra, lens_less_one64x8_avx2(a, b));
    }
    let vectored = (vectors.len() * 8) as u64 + u64::from(sum_avx2(extra));
    vectored + scalar::encoded_len_packed64(tail, ZIGZAG) as u64
}

/// [`super::encode_packed32`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2 and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
pub(super) unsafe fn encode_packed32_avx2(
    values: &[u32],
    kind: Packed32,
    out: &mut [u8],
) -> Option<usize> {
    match kind {
        Packed32::Uint32 => encode32_avx2::<false>(values, out),
        Packed32::Sint32 => encode32_avx2::<true>(values, out),
        // Negative int32s take 10 bytes: the 64-bit path, on sign-extended lanes.
        Packed32::Int32 => encode64_avx2::<u32, false>(values, out),
    }
}

/// [`super::encode_packed64`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2 and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
pub(super) unsafe fn encode_packed64_avx2(
    values: &[u64],
    zigzag: bool,
    out: &mut [u8],
) -> Option<usize> {
    match zigzag {
        true => encode64_avx2::<u64, true>(values, out),
        false => encode64_avx2::<u64, false>(values, out),
    }
}

/// [`encode32_sse2`] 8 elements at a time, with variable shifts for the continuation bits.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn encode32_avx2<const ZIGZAG: bool>(values: &[u32], out: &mut [u8]) -> Option<usize> {
    /// Elements per step.
    const LANES: usize = 8;
    /// Bytes one step's stores reach: the last element starts at most 7 * 5 bytes in.
    const STEP_REACH: usize = (LANES - 1) * 5 + REACH32;
    let steps = wide_steps(values.len(), LANES, REACH32);
    let continuation = _mm256_set1_epi32(0x8080_8080_u32 as i32);
    let thirty_two = _mm256_set1_epi32(32);
    let (low14, high14) = (_mm256_set1_epi32(0x3fff), _mm256_set1_epi32(0x3fff_0000));
    let (low7, high7) = (
        _mm256_set1_epi32(0x007f_007f),
        _mm256_set1_epi32(0x7f00_7f00),
    );

    let (vectors, _) = values.as_chunks::<LANES>();
    let mut pos = 0;
    let mut done = 0;
    for vector in vectors.iter().take(steps) {
        debug_assert!(pos <= out.len());
        if out.len() - pos < STEP_REACH {
            break;
        }
        // Safety: `pos <= out.len()`, so `dst` is in (or one past) `out`.
        let dst = unsafe { out.as_mut_ptr().add(pos) };
        // Safety: `vector` is 32 readable bytes, and `loadu` takes any alignment.
        let v = unsafe { _mm256_loadu_si256(vector.as_ptr().cast()) };
        let v = if ZIGZAG { zigzag32_avx2(v) } else { v };
        let lens_less_one = lens_less_one32_avx2(v);
        if _mm256_testz_si256(lens_less_one, lens_less_one) != 0 {
            // Every varint is one byte, the value itself (packed enums and bools).
            let bytes = lane_bytes_avx2(v);
            // Safety: 8 bytes at `dst`, within the STEP_REACH bytes checked above.
            unsafe { dst.cast::<u64>().write_unaligned(bytes.to_le()) };
            pos += LANES;
            done += LANES;
            continue;
        }
        // 0x8080_8080 >> (32 - 8 * (len - 1)): a continuation bit on each byte before the last
        // (variable shifts of 32 or more give 0).
        let shift = _mm256_sub_epi32(thirty_two, _mm256_slli_epi32::<3>(lens_less_one));
        let cont = _mm256_srlv_epi32(continuation, shift);
        let s = _mm256_or_si256(
            _mm256_and_si256(v, low14),
            _mm256_and_si256(_mm256_slli_epi32::<2>(v), high14),
        );
        let s = _mm256_or_si256(
            _mm256_and_si256(s, low7),
            _mm256_and_si256(_mm256_slli_epi32::<1>(s), high7),
        );
        let low = _mm256_or_si256(s, cont);
        let high = _mm256_srli_epi32::<28>(v);
        // Words of elements [0, 1 | 4, 5] and [2, 3 | 6, 7].
        let words_a = _mm256_unpacklo_epi32(low, high);
        let words_b = _mm256_unpackhi_epi32(low, high);
        let lens = lane_bytes_avx2(lens_less_one) + 0x0101_0101_0101_0101;
        let offsets = running_offsets(lens);
        let (a_low, a_high) = (
            _mm256_castsi256_si128(words_a),
            _mm256_extracti128_si256::<1>(words_a),
        );
        let (b_low, b_high) = (
            _mm256_castsi256_si128(words_b),
            _mm256_extracti128_si256::<1>(words_b),
        );
        // Safety: the stores start at offsets 0 and byte(offsets, 1..=7) <= 35 past `dst` and
        // write 8 bytes each, so they stay within the STEP_REACH bytes checked above; they take
        // any alignment.
        unsafe {
            _mm_storel_epi64(dst.cast(), a_low);
            _mm_storeh_pd(dst.add(byte(offsets, 1)).cast(), _mm_castsi128_pd(a_low));
            _mm_storel_epi64(dst.add(byte(offsets, 2)).cast(), b_low);
            _mm_storeh_pd(dst.add(byte(offsets, 3)).cast(), _mm_castsi128_pd(b_low));
            _mm_storel_epi64(dst.add(byte(offsets, 4)).cast(), a_high);
            _mm_storeh_pd(dst.add(byte(offsets, 5)).cast(), _mm_castsi128_pd(a_high));
            _mm_storel_epi64(dst.add(byte(offsets, 6)).cast(), b_high);
            _mm_storeh_pd(dst.add(byte(offsets, 7)).cast(), _mm_castsi128_pd(b_high));
        }
        pos += byte(offsets, 7) + (lens >> 56) as usize;
        done += LANES;
    }
    let kind = kind_of(ZIGZAG, false);
    Some(pos + scalar::encode_packed32(values.get(done..)?, kind, out.get_mut(pos..)?)?)
}

/// [`encode64_sse2`] on 256-bit vectors, with variable shifts for the continuation bits.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline]
fn encode64_avx2<T: Lanes64, const ZIGZAG: bool>(values: &[T], out: &mut [u8]) -> Option<usize> {
    /// Elements per step.
    const LANES: usize = 4;
    /// Bytes one step's stores reach: the last element starts at most 3 * 10 bytes in.
    const STEP_REACH: usize = (LANES - 1) * 10 + REACH64;
    let steps = wide_steps(values.len(), LANES, REACH64);
    let continuation = _mm256_set1_epi64x(CONTINUATION_BITS as i64);
    let (eight, sixty_four) = (_mm256_set1_epi64x(8), _mm256_set1_epi64x(64));
    let even_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);

    let (vectors, _) = values.as_chunks::<LANES>();
    let mut pos = 0;
    let mut done = 0;
    for vector in vectors.iter().take(steps) {
        debug_assert!(pos <= out.len());
        if out.len() - pos < STEP_REACH {
            break;
        }
        // Safety: `pos <= out.len()`, so `dst` is in (or one past) `out`.
        let dst = unsafe { out.as_mut_ptr().add(pos) };
        // Safety: this function's target features include AVX2.
        let v = unsafe { T::load_avx2(vector) };
        let v = if ZIGZAG { zigzag64_avx2(v) } else { v };
        let lens_less_one = lens_less_one64_avx2(v);
        if _mm256_testz_si256(lens_less_one, lens_less_one) != 0 {
            // Every varint is one byte, the value itself (packed enums and bools).
            let low_dwords = _mm256_permutevar8x32_epi32(v, even_dwords);
            let bytes = lane_bytes_sse2(_mm256_castsi256_si128(low_dwords)) as u32;
            // Safety: 4 bytes at `dst`, within the STEP_REACH bytes checked above.
            unsafe { dst.cast::<u32>().write_unaligned(bytes.to_le()) };
            pos += LANES;
            done += LANES;
            continue;
        }
        // CONTINUATION_BITS >> (64 - 8 * min(len - 1, 8)): a continuation bit on each of the
        // first 8 bytes before the last (shifts of 64 give 0; a 32-bit min is a 64-bit min on
        // these small lanes).
        let continued = _mm256_min_epi32(lens_less_one, eight);
        let shift = _mm256_sub_epi64(sixty_four, _mm256_slli_epi64::<3>(continued));
        let low = _mm256_or_si256(spread7_64_avx2(v), _mm256_srlv_epi64(continuation, shift));
        // Bytes 8 and 9 (see `scalar::high_word`).
        let high = _mm256_or_si256(
            _mm256_srli_epi64::<56>(v),
            _mm256_slli_epi64::<8>(_mm256_srli_epi64::<63>(v)),
        );
        // Each element's 16 bytes: [0 | 2] and [1 | 3].
        let words_a = _mm256_unpacklo_epi64(low, high);
        let words_b = _mm256_unpackhi_epi64(low, high);
        let lens_less_one = _mm256_permutevar8x32_epi32(lens_less_one, even_dwords);
        let lens = lane_bytes_sse2(_mm256_castsi256_si128(lens_less_one)) + 0x0101_0101;
        let offsets = running_offsets(lens);
        // Safety: the stores start at offsets 0 and byte(offsets, 1..=3) <= 30 past `dst` and
        // write 16 bytes each, so they stay within the STEP_REACH bytes checked above; they take
        // any alignment.
        unsafe {
            _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(words_a));
            _mm_storeu_si128(
                dst.add(byte(offsets, 1)).cast(),
                _mm256_castsi256_si128(words_b),
            );
            _mm_storeu_si128(
                dst.add(byte(offsets, 2)).cast(),
                _mm256_extracti128_si256::<1>(words_a),
            );
            _mm_storeu_si128(
                dst.add(byte(offsets, 3)).cast(),
                _mm256_extracti128_si256::<1>(words_b),
            );
        }
        pos += byte(offsets, 4);
        done += LANES;
    }
    Some(pos + T::encode_tail(values.get(done..)?, ZIGZAG, out.get_mut(pos..)?)?)
}
