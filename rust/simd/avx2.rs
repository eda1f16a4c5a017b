//! The AVX2 kernel (Intel since Haswell, AMD since Excavator): the algorithms of `vector.rs` on
//! 256-bit registers, 8 elements a step, with variable shifts for the continuation bits.
//!
//! **Why not `pdep`.** BMI2's `_pdep_u64(v, 0x7f7f_7f7f_7f7f_7f7f)` does the spread in one
//! instruction, and on the AMD EPYC (Zen 3, family 19h, 3.1 GHz) this was tuned on it is fast: a
//! dependent chain ran at 1.29 ns per `pdep` (3 cycles + the xor feeding it back), independent
//! ones at 0.33 ns (1 per cycle). But a one-varint-at-a-time `pdep` loop (lzcnt for the length,
//! `bzhi` for the continuation bits, one store) measured 1.9 ns per mixed-length u32 and 2.7 ns
//! per mixed-length u64, against 0.7 and 1.6 ns for the vector steps then (and prost's 4.6 and
//! 10.4 ns, all on the same, busy, machine; the steps now take about 0.6 and 1.1 ns, `cargo
//! bench --bench varint`). So this kernel needs AVX2 alone, and AMD Zen 1 and Zen 2, where
//! `pdep` is microcoded (18 to ~300 cycles), stay on the fast path.

use core::arch::x86_64::*;

use super::scalar::CONTINUATION_BITS;
use super::{Kernel, Words64};

/// A 256-bit register: eight 32-bit lanes or four 64-bit ones.
type R = __m256i;

/// 32-bit lanes in a register, and elements in a step.
const LANES: usize = 8;

primitives! { "avx2";
    fn splat(x: u32) -> R { _mm256_set1_epi32(x as i32) }
    fn splat64(x: u64) -> R { _mm256_set1_epi64x(x as i64) }
    fn add(a: R, b: R) -> R { _mm256_add_epi32(a, b) }
    fn sub(a: R, b: R) -> R { _mm256_sub_epi32(a, b) }
    fn and(a: R, b: R) -> R { _mm256_and_si256(a, b) }
    fn or(a: R, b: R) -> R { _mm256_or_si256(a, b) }
    fn xor(a: R, b: R) -> R { _mm256_xor_si256(a, b) }
    // As in sse2.rs: a signed compare, on flipped top bits.
    fn ordered(a: R) -> R { xor(a, splat(1 << 31)) }
    fn gt(a: R, b: R) -> R { _mm256_cmpgt_epi32(a, b) }
    fn eq(a: R, b: R) -> R { _mm256_cmpeq_epi32(a, b) }
    fn shl<const N: i32>(a: R) -> R { _mm256_slli_epi32::<N>(a) }
    fn shr<const N: i32>(a: R) -> R { _mm256_srli_epi32::<N>(a) }
    fn sra<const N: i32>(a: R) -> R { _mm256_srai_epi32::<N>(a) }
    fn shl64<const N: i32>(a: R) -> R { _mm256_slli_epi64::<N>(a) }
    fn shr64<const N: i32>(a: R) -> R { _mm256_srli_epi64::<N>(a) }
    // No 64-bit arithmetic shift: each high dword's sign, copied to both dwords of its lane.
    fn sign64(a: R) -> R { _mm256_shuffle_epi32::<0b11_11_01_01>(sra::<31>(a)) }
    fn sum(a: R) -> u32 {
        super::sse2::sum(_mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a)))
    }
    fn load(chunk: &[u32; LANES]) -> R {
        // Safety: `chunk` is 32 readable bytes, and `loadu` takes any alignment.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    }
    fn load_pairs(chunk: &[Words64; LANES]) -> (R, R) {
        let (a, b) = (chunk.as_ptr().cast(), chunk[4..].as_ptr().cast());
        // Safety: `a` and `b` start 32 readable bytes each, and `loadu` takes any alignment.
        unsafe { (_mm256_loadu_si256(a), _mm256_loadu_si256(b)) }
    }
    fn load_int32s(chunk: &[u32; LANES]) -> (R, R) {
        let (a, b) = (chunk.as_ptr().cast(), chunk[4..].as_ptr().cast());
        // Safety: `a` and `b` start 16 readable bytes each, and `loadu` takes any alignment.
        let (a, b) = unsafe { (_mm_loadu_si128(a), _mm_loadu_si128(b)) };
        (_mm256_cvtepi32_epi64(a), _mm256_cvtepi32_epi64(b))
    }
    // Within 128-bit halves, so the lanes come as [a0, a1, b0, b1 | a2, a3, b2, b3].
    fn halves(a: R, b: R) -> (R, R) {
        let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
        let low = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
        (_mm256_castps_si256(low), _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b)))
    }
    fn in_order(a: R) -> R {
        _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7))
    }
    fn unpacklo32(a: R, b: R) -> R { _mm256_unpacklo_epi32(a, b) }
    fn unpackhi32(a: R, b: R) -> R { _mm256_unpackhi_epi32(a, b) }
    fn unpacklo64(a: R, b: R) -> R { _mm256_unpacklo_epi64(a, b) }
    fn unpackhi64(a: R, b: R) -> R { _mm256_unpackhi_epi64(a, b) }
    fn all_zero(a: R) -> bool { _mm256_testz_si256(a, a) != 0 }
    // The packs work within 128-bit halves: lanes 0..=3 end up in dword 0, 4..=7 in dword 4.
    fn lane_bytes(a: R) -> u64 {
        let packed = _mm256_packs_epi32(a, a);
        let packed = _mm256_packus_epi16(packed, packed);
        let (low, high) = (_mm256_cvtsi256_si32(packed), _mm256_extract_epi32::<4>(packed));
        u64::from(low as u32) | u64::from(high as u32) << 32
    }
    fn pieces(pair: [R; 2]) -> [__m128i; 4] {
        let [x, y] = pair;
        let high = |v| _mm256_extracti128_si256::<1>(v);
        [_mm256_castsi256_si128(x), _mm256_castsi256_si128(y), high(x), high(y)]
    }
    // 0x8080_8080 >> (32 - 8 * (len - 1)): a continuation bit on each byte before the last
    // (variable shifts of 32 or more give 0).
    fn continuation32(_v: R, lens_less_one: R) -> R {
        _mm256_srlv_epi32(splat(0x8080_8080), sub(splat(32), shl::<3>(lens_less_one)))
    }
    // CONTINUATION_BITS >> (64 - 8 * min(len - 1, 8)): a continuation bit on each of the first
    // 8 bytes before the last (shifts of 64 give 0; a 32-bit min is a 64-bit min on these small
    // lanes).
    fn continuation64(lens_less_one: R) -> R {
        let continued = _mm256_min_epi32(lens_less_one, splat64(8));
        let shift = _mm256_sub_epi64(splat64(64), shl64::<3>(continued));
        _mm256_srlv_epi64(splat64(CONTINUATION_BITS), shift)
    }
}

length_sums!("avx2");
vector_encoders!("avx2");

/// The AVX2 kernel.
pub(super) static KERNEL: Kernel = Kernel {
    name: "AVX2",
    encoded_len_packed32: lengths::encoded_len_packed32,
    encoded_len_packed64: lengths::encoded_len_packed64,
    encode_packed32: encoders::encode_packed32,
    encode_packed64: encoders::encode_packed64,
};
