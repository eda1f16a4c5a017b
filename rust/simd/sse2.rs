//! The SSE2 kernel, the x86_64 baseline: the algorithms of `vector.rs` on 128-bit registers,
//! 4 elements a step.

use core::arch::x86_64::*;

use super::scalar::CONTINUATION_BITS;
use super::vector::MAX_LEN32;
use super::{Kernel, Words64};

/// A 128-bit register: four 32-bit lanes or two 64-bit ones.
type R = __m128i;

/// 32-bit lanes in a register, and elements in a step.
const LANES: usize = 4;

primitives! { "sse2";
    fn splat(x: u32) -> R { _mm_set1_epi32(x as i32) }
    fn splat64(x: u64) -> R { _mm_set1_epi64x(x as i64) }
    fn add(a: R, b: R) -> R { _mm_add_epi32(a, b) }
    fn sub(a: R, b: R) -> R { _mm_sub_epi32(a, b) }
    fn and(a: R, b: R) -> R { _mm_and_si128(a, b) }
    fn or(a: R, b: R) -> R { _mm_or_si128(a, b) }
    fn xor(a: R, b: R) -> R { _mm_xor_si128(a, b) }
    // The compare is signed: flipping the top bits first makes it unsigned.
    fn ordered(a: R) -> R { xor(a, splat(1 << 31)) }
    fn gt(a: R, b: R) -> R { _mm_cmpgt_epi32(a, b) }
    fn eq(a: R, b: R) -> R { _mm_cmpeq_epi32(a, b) }
    fn shl<const N: i32>(a: R) -> R { _mm_slli_epi32::<N>(a) }
    fn shr<const N: i32>(a: R) -> R { _mm_srli_epi32::<N>(a) }
    fn sra<const N: i32>(a: R) -> R { _mm_srai_epi32::<N>(a) }
    fn shl64<const N: i32>(a: R) -> R { _mm_slli_epi64::<N>(a) }
    fn shr64<const N: i32>(a: R) -> R { _mm_srli_epi64::<N>(a) }
    // No 64-bit arithmetic shift: each high dword's sign, copied to both dwords of its lane.
    fn sign64(a: R) -> R { _mm_shuffle_epi32::<0b11_11_01_01>(sra::<31>(a)) }
    pub(super) fn sum(a: R) -> u32 {
        let a = add(a, _mm_shuffle_epi32::<0b01_00_11_10>(a));
        let a = add(a, _mm_shuffle_epi32::<0b10_11_00_01>(a));
        _mm_cvtsi128_si32(a) as u32
    }
    fn load(chunk: &[u32; LANES]) -> R {
        // Safety: `chunk` is 16 readable bytes, and `loadu` takes any alignment.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }
    fn load_pairs(chunk: &[Words64; LANES]) -> (R, R) {
        let (a, b) = (chunk.as_ptr().cast(), chunk[2..].as_ptr().cast());
        // Safety: `a` and `b` start 16 readable bytes each, and `loadu` takes any alignment.
        unsafe { (_mm_loadu_si128(a), _mm_loadu_si128(b)) }
    }
    // No sign extension: each dword paired with its sign.
    fn load_int32s(chunk: &[u32; LANES]) -> (R, R) {
        let v = load(chunk);
        (unpacklo32(v, sra::<31>(v)), unpackhi32(v, sra::<31>(v)))
    }
    fn halves(a: R, b: R) -> (R, R) {
        let (a, b) = (_mm_castsi128_ps(a), _mm_castsi128_ps(b));
        let low = _mm_shuffle_ps::<0b10_00_10_00>(a, b);
        (_mm_castps_si128(low), _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(a, b)))
    }
    fn unpacklo32(a: R, b: R) -> R { _mm_unpacklo_epi32(a, b) }
    fn unpackhi32(a: R, b: R) -> R { _mm_unpackhi_epi32(a, b) }
    fn unpacklo64(a: R, b: R) -> R { _mm_unpacklo_epi64(a, b) }
    fn unpackhi64(a: R, b: R) -> R { _mm_unpackhi_epi64(a, b) }
    // A lane that is not 0 is negative: its sign bits are set.
    fn all_zero(a: R) -> bool { _mm_movemask_epi8(a) == 0 }
    fn lane_bytes(a: R) -> u64 {
        let packed = _mm_packs_epi32(a, a);
        u64::from(_mm_cvtsi128_si32(_mm_packus_epi16(packed, packed)) as u32)
    }
    fn in_order(a: R) -> R { a }
    fn pieces(pair: [R; 2]) -> [__m128i; 2] { pair }
    // No variable shifts: the compares of `minus_lens32`, which the compiler shares, each set
    // the continuation bit of one byte.
    fn continuation32(v: R, _lens_less_one: R) -> R {
        let [m1, m2, m3, m4] = MAX_LEN32.map(|max| gt(ordered(v), ordered(splat(max))));
        let [c1, c2, c3, c4] = [0x80, 0x8000, 0x80_0000, 0x8000_0000].map(|bit| splat(bit));
        or(or(and(m1, c1), and(m2, c2)), or(and(m3, c3), and(m4, c4)))
    }
    // No variable shifts: len - 1, at most 8, copied into every byte of its lane (`min_epi16`
    // suffices on these small lanes) and compared with each byte's index.
    fn continuation64(lens_less_one: R) -> R {
        let continued = _mm_min_epi16(lens_less_one, splat64(8));
        let continued = _mm_mul_epu32(continued, splat(0x0101_0101));
        let continued = or(continued, shl64::<32>(continued));
        let index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
        and(_mm_cmpgt_epi8(continued, index), splat64(CONTINUATION_BITS))
    }
}

length_sums!("sse2");
vector_encoders!("sse2");

/// The SSE2 kernel.
pub(super) static KERNEL: Kernel = Kernel {
    name: "SSE2",
    encoded_len_packed32: lengths::encoded_len_packed32,
    encoded_len_packed64: lengths::encoded_len_packed64,
    encode_packed32: encoders::encode_packed32,
    encode_packed64: encoders::encode_packed64,
};
