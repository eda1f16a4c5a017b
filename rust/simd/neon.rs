//! The aarch64 kernel: the length sums of `vector.rs` on NEON registers, 4 elements a step, and
//! the branchless word-at-a-time encoder of `scalar::words` (plain Rust, which the tests run on
//! every machine).

use core::arch::aarch64::*;

use super::scalar::words;
use super::{Kernel, Words64};

/// A NEON register as four 32-bit lanes (or two 64-bit ones, reinterpreted).
type R = uint32x4_t;

/// 32-bit lanes in a register, and elements in a step.
const LANES: usize = 4;

primitives! { "neon";
    fn splat(x: u32) -> R { vdupq_n_u32(x) }
    fn add(a: R, b: R) -> R { vaddq_u32(a, b) }
    fn sub(a: R, b: R) -> R { vsubq_u32(a, b) }
    fn and(a: R, b: R) -> R { vandq_u32(a, b) }
    fn xor(a: R, b: R) -> R { veorq_u32(a, b) }
    fn ordered(a: R) -> R { a }
    fn gt(a: R, b: R) -> R { vcgtq_u32(a, b) }
    fn eq(a: R, b: R) -> R { vceqq_u32(a, b) }
    fn shl<const N: i32>(a: R) -> R { vshlq_n_u32::<N>(a) }
    fn sra<const N: i32>(a: R) -> R {
        vreinterpretq_u32_s32(vshrq_n_s32::<N>(vreinterpretq_s32_u32(a)))
    }
    fn shl64<const N: i32>(a: R) -> R {
        vreinterpretq_u32_u64(vshlq_n_u64::<N>(vreinterpretq_u64_u32(a)))
    }
    fn sign64(a: R) -> R { vreinterpretq_u32_s64(vshrq_n_s64::<63>(vreinterpretq_s64_u32(a))) }
    fn sum(a: R) -> u32 { vaddvq_u32(a) }
    fn load(chunk: &[u32; LANES]) -> R {
        // Safety: `chunk` is 4 readable u32s.
        unsafe { vld1q_u32(chunk.as_ptr()) }
    }
    fn load_pairs(chunk: &[Words64; LANES]) -> (R, R) {
        let words = chunk.as_flattened();
        // Safety: `words` is 8 readable u32s.
        unsafe { (vld1q_u32(words.as_ptr()), vld1q_u32(words[4..].as_ptr())) }
    }
    fn halves(a: R, b: R) -> (R, R) { (vuzp1q_u32(a, b), vuzp2q_u32(a, b)) }
}

length_sums!("neon");

/// The NEON kernel.
pub(super) static KERNEL: Kernel = Kernel {
    name: "NEON",
    encoded_len_packed32: lengths::encoded_len_packed32,
    encoded_len_packed64: lengths::encoded_len_packed64,
    encode_packed32: words::encode_packed32_words,
    encode_packed64: words::encode_packed64_words,
};
