//! The aarch64 kernel, [`Kernel::Neon`](super::Kernel::Neon): NEON length sums (unsigned
//! compares against the thresholds 2^7k, 4 or 2 elements at a time) and the branchless
//! word-at-a-time encoder of `scalar::words`.
//!
//! Kept deliberately small: it was written on an x86_64 machine without the aarch64 target, so
//! only aarch64 builds compile it. The encoders are plain Rust that the tests run on every
//! machine; only the length sums are NEON-specific.

use core::arch::aarch64::*;

use super::scalar::{self, words};
use super::Packed32;

/// Elements per length-sum block: lane counters grow by at most 9 per element, so blocks this
/// size keep every 32-bit lane far from overflow and the block sum within a `u32`.
const COUNT_BLOCK: usize = 1 << 16;

/// [`super::encoded_len_packed32`] with NEON.
///
/// # Safety
/// The CPU must support NEON (every aarch64 CPU that runs Node.js does).
#[target_feature(enable = "neon")]
pub(super) unsafe fn encoded_len_packed32_neon(values: &[u32], kind: Packed32) -> usize {
    let mut total = 0u64;
    for block in values.chunks(COUNT_BLOCK) {
        total += len32_neon(block, kind);
    }
    scalar::saturate(total)
}

/// Varint bytes of at most [`COUNT_BLOCK`] 32-bit elements read as `kind`.
#[target_feature(enable = "neon")]
#[inline]
fn len32_neon(values: &[u32], kind: Packed32) -> u64 {
    debug_assert!(values.len() <= COUNT_BLOCK);
    let (vectors, tail) = values.as_chunks::<4>();
    let thresholds = [7, 14, 21, 28].map(|bits| vdupq_n_u32((1 << bits) - 1));
    let five = vdupq_n_u32(5);
    let mut extra = vdupq_n_u32(0);
    for vector in vectors {
        // Safety: `vector` is 4 readable u32s.
        let v = unsafe { vld1q_u32(vector.as_ptr()) };
        let sign = vreinterpretq_u32_s32(vshrq_n_s32::<31>(vreinterpretq_s32_u32(v)));
        let v = if kind == Packed32::Sint32 {
            veorq_u32(vshlq_n_u32::<1>(v), sign)
        } else {
            v
        };
        // Compares give all ones (-1) per threshold exceeded.
        for threshold in thresholds {
            extra = vsubq_u32(extra, vcgtq_u32(v, threshold));
        }
        if kind == Packed32::Int32 {
            // A negative int32 exceeds all four thresholds (5 bytes) and takes 5 more.
            extra = vaddq_u32(extra, vandq_u32(sign, five));
        }
    }
    let vectored = (vectors.len() * 4) as u64 + u64::from(vaddvq_u32(extra));
    vectored + scalar::encoded_len_packed32(tail, kind) as u64
}

/// [`super::encoded_len_packed64`] with NEON.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn encoded_len_packed64_neon(values: &[u64], zigzag: bool) -> usize {
    let (vectors, tail) = values.as_chunks::<2>();
    let thresholds = [7, 14, 21, 28, 35, 42, 49, 56, 63].map(|bits| vdupq_n_u64((1 << bits) - 1));
    // 64-bit lane counters cannot overflow.
    let mut extra = vdupq_n_u64(0);
    for vector in vectors {
        // Safety: `vector` is 2 readable u64s.
        let v = unsafe { vld1q_u64(vector.as_ptr()) };
        let v = if zigzag {
            let sign = vreinterpretq_u64_s64(vshrq_n_s64::<63>(vreinterpretq_s64_u64(v)));
            veorq_u64(vshlq_n_u64::<1>(v), sign)
        } else {
            v
        };
        for threshold in thresholds {
            extra = vsubq_u64(extra, vcgtq_u64(v, threshold));
        }
    }
    let vectored = (vectors.len() as u64 * 2).wrapping_add(vaddvq_u64(extra));
    scalar::saturate(vectored + scalar::encoded_len_packed64(tail, zigzag) as u64)
}

/// [`super::encode_packed32`] with branchless words.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn encode_packed32_neon(
    values: &[u32],
    kind: Packed32,
    out: &mut [u8],
) -> Option<usize> {
    words::encode_packed32_words(values, kind, out)
}

/// [`super::encode_packed64`] with branchless words.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn encode_packed64_neon(
    values: &[u64],
    zigzag: bool,
    out: &mut [u8],
) -> Option<usize> {
    words::encode_packed64_words(values, zigzag, out)
}
