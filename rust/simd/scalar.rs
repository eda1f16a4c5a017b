//! The scalar kernel, and the branchless word loop of the NEON kernel.
//!
//! [`KERNEL`]: one varint at a time through [`crate::varint`], always compiled, obviously
//! correct, and the reference the tests hold every other kernel to. The vector kernels also
//! finish their last few elements with it.
//!
//! The `words` module (compiled for aarch64, and for tests everywhere) is the encoder of the NEON
//! kernel: each element becomes one 8-byte word (plus 2 bytes for varints longer than 8) by
//! shifts and masks, stored whole while there is room, with the write position advanced by the
//! varint's length, so mixed lengths cost no mispredicted branches (prost's per-byte loop
//! mispredicts about once per element).

use super::{Kernel, Packed32, Words64};
use crate::varint::{encode_varint, encoded_len_varint, int32_to_varint, zigzag32, zigzag64};

/// The scalar kernel.
pub(super) static KERNEL: Kernel = Kernel {
    name: "scalar",
    encoded_len_packed32,
    encoded_len_packed64,
    encode_packed32,
    encode_packed64,
};

/// Eight 0x80 bytes: the continuation bits of a whole word (for the encoders that store them
/// whole: `words` and the x86_64 kernels).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64", test))]
pub(super) const CONTINUATION_BITS: u64 = 0x8080_8080_8080_8080;

/// The varint value protobuf writes for a `kind` element (an `i32` bit pattern for the signed
/// kinds).
#[inline(always)]
pub(super) const fn varint32(value: u32, kind: Packed32) -> u64 {
    match kind {
        Packed32::Uint32 => value as u64,
        Packed32::Int32 => int32_to_varint(value as i32),
        Packed32::Sint32 => zigzag32(value as i32) as u64,
    }
}

/// The varint value of a 64-bit element (its low word first): zig-zag encoded (`sint64`) if
/// `zigzag`.
#[inline(always)]
pub(super) const fn varint64([low, high]: Words64, zigzag: bool) -> u64 {
    let value = low as u64 | (high as u64) << 32;
    if zigzag {
        zigzag64(value as i64)
    } else {
        value
    }
}

/// A byte count summed in `u64` as a `usize`, saturating on 32-bit targets (see
/// [`super::encoded_len_packed32`]).
#[inline]
pub(super) fn saturate(total: u64) -> usize {
    usize::try_from(total).unwrap_or(usize::MAX)
}

/// Total varint bytes of `values` read as `kind`.
pub(super) fn encoded_len_packed32(values: &[u32], kind: Packed32) -> usize {
    // A loop per kind: the compiler does not take the match out of one loop by itself.
    match kind {
        Packed32::Uint32 => total_len(values, |v| varint32(v, Packed32::Uint32)),
        Packed32::Int32 => total_len(values, |v| varint32(v, Packed32::Int32)),
        Packed32::Sint32 => total_len(values, |v| varint32(v, Packed32::Sint32)),
    }
}

/// Total varint bytes of `values`, zig-zag encoded first if `zigzag`.
pub(super) fn encoded_len_packed64(values: &[Words64], zigzag: bool) -> usize {
    match zigzag {
        false => total_len(values, |v| varint64(v, false)),
        true => total_len(values, |v| varint64(v, true)),
    }
}

/// Writes the varints of `values` read as `kind` at the start of `out`; the bytes written, or
/// `None` (after writing a prefix) if `out` is too short. Writes nothing past the varints.
pub(super) fn encode_packed32(values: &[u32], kind: Packed32, out: &mut [u8]) -> Option<usize> {
    match kind {
        Packed32::Uint32 => encode_each(values, out, |v| varint32(v, Packed32::Uint32)),
        Packed32::Int32 => encode_each(values, out, |v| varint32(v, Packed32::Int32)),
        Packed32::Sint32 => encode_each(values, out, |v| varint32(v, Packed32::Sint32)),
    }
}

/// Writes the varints of `values` (zig-zag encoded first if `zigzag`) like [`encode_packed32`].
pub(super) fn encode_packed64(values: &[Words64], zigzag: bool, out: &mut [u8]) -> Option<usize> {
    match zigzag {
        false => encode_each(values, out, |v| varint64(v, false)),
        true => encode_each(values, out, |v| varint64(v, true)),
    }
}

/// Total bytes of the varints `varint(value)` of `values`.
#[inline(always)]
fn total_len<T: Copy>(values: &[T], varint: impl Fn(T) -> u64) -> usize {
    saturate(
        values
            .iter()
            .map(|&v| encoded_len_varint(varint(v)) as u64)
            .sum(),
    )
}

/// Writes the varints `varint(value)` of `values` at the start of `out`, one at a time.
#[inline(always)]
fn encode_each<T: Copy>(values: &[T], out: &mut [u8], varint: impl Fn(T) -> u64) -> Option<usize> {
    let mut pos = 0;
    for &value in values {
        pos += encode_varint(varint(value), out.get_mut(pos..)?)?;
    }
    Some(pos)
}

/// The branchless word-at-a-time encoder (see the module documentation).
#[cfg(any(target_arch = "aarch64", test))]
pub(super) mod words {
    use super::CONTINUATION_BITS;
    use super::{encode_packed32, encode_packed64, varint32, varint64, Packed32, Words64};
    use crate::varint::encoded_len_varint;

    /// `CONTINUATION[len]` holds the continuation bits of the first 8 bytes of a `len`-byte
    /// varint (every byte but its last). 16 entries, so that `len & 15` needs no bounds check.
    const CONTINUATION: [u64; 16] = {
        let mut table = [0; 16];
        let mut len = 1;
        while len < 16 {
            let continued = if len - 1 < 8 { len - 1 } else { 8 };
            table[len] = if continued == 8 {
                CONTINUATION_BITS
            } else {
                CONTINUATION_BITS & ((1 << (8 * continued)) - 1)
            };
            len += 1;
        }
        table
    };

    /// Bytes one element's stores reach for varints of at most 5 bytes: one 8-byte word.
    const REACH32: usize = 8;

    /// Bytes one element's stores reach for varints of up to 10 bytes: the 8-byte word, then
    /// the 2-byte high word.
    const REACH64: usize = 10;

    /// Bits 0..56 of `value` spread 7 to a byte (byte `g` holds bits `7g..7g + 7`, top bit
    /// clear), in 12 shifts and masks: 28-bit halves into 32-bit slots, 14 into 16, 7 into 8.
    #[inline(always)]
    const fn spread7(value: u64) -> u64 {
        let v = (value & 0x0fff_ffff) | ((value << 4) & 0x0fff_ffff_0000_0000);
        let v = (v & 0x0000_3fff_0000_3fff) | ((v << 2) & 0x3fff_0000_3fff_0000);
        (v & 0x007f_007f_007f_007f) | ((v << 1) & 0x7f00_7f00_7f00_7f00)
    }

    /// Bytes 8 and 9 of the varint of `value` when it is longer than 8 bytes (else 0): byte 8
    /// is bits 56..63 as they stand (bit 63 doubles as its continuation bit), byte 9 is bit 63.
    #[inline(always)]
    const fn high_word(value: u64) -> u16 {
        ((value >> 56) | (value >> 63) << 8) as u16
    }

    /// The varint of `value` laid out for whole-word stores: its first 8 bytes (little-endian,
    /// continuation bits set), bytes 8 and 9 (see [`high_word`]), and its length. Bytes past
    /// the length are zero.
    #[inline(always)]
    const fn layout(value: u64) -> (u64, u16, usize) {
        let len = encoded_len_varint(value);
        debug_assert!(len >= 1 && len <= 10);
        (
            spread7(value) | CONTINUATION[len & 15],
            high_word(value),
            len,
        )
    }

    /// Writes the varints `varint(value)` of `values` at the start of `out` with whole-word
    /// stores, `REACH` bytes each (10 if a varint may be longer than 8 bytes, else 8), then the
    /// last elements with `encode_tail`. Returns the bytes written, or `None` (after writing a
    /// prefix) if `out` is too short.
    ///
    /// Never writes past `out.len()`, and on success never past the returned length: an element
    /// is stored whole only while `out` has `REACH` bytes left and at least `REACH` elements (a
    /// byte or more each) start at it.
    #[inline(always)]
    fn encode<T: Copy, const REACH: usize>(
        values: &[T],
        out: &mut [u8],
        varint: impl Fn(T) -> u64,
        encode_tail: impl FnOnce(&[T], &mut [u8]) -> Option<usize>,
    ) -> Option<usize> {
        let wide = values.len().saturating_sub(REACH - 1);
        let mut pos = 0;
        let mut done = 0;
        for &value in values.iter().take(wide) {
            let Some(dst) = out
                .get_mut(pos..)
                .and_then(<[u8]>::first_chunk_mut::<REACH>)
            else {
                break;
            };
            let (low, high, len) = layout(varint(value));
            debug_assert!(REACH == REACH64 || high == 0);
            dst[..8].copy_from_slice(&low.to_le_bytes());
            if let Some(dst_high) = dst.get_mut(8..10) {
                dst_high.copy_from_slice(&high.to_le_bytes());
            }
            pos += len;
            done += 1;
        }
        debug_assert!(pos <= out.len());
        Some(pos + encode_tail(values.get(done..)?, out.get_mut(pos..)?)?)
    }

    /// [`super::encode_packed32`] with whole-word stores.
    #[inline]
    pub(in crate::simd) fn encode_packed32_words(
        values: &[u32],
        kind: Packed32,
        out: &mut [u8],
    ) -> Option<usize> {
        // A loop per kind, as in `super::encode_packed32`.
        let tail = |rest: &[u32], out: &mut [u8]| encode_packed32(rest, kind, out);
        match kind {
            Packed32::Uint32 => {
                encode::<_, REACH32>(values, out, |v| varint32(v, Packed32::Uint32), tail)
            }
            Packed32::Sint32 => {
                encode::<_, REACH32>(values, out, |v| varint32(v, Packed32::Sint32), tail)
            }
            Packed32::Int32 => {
                encode::<_, REACH64>(values, out, |v| varint32(v, Packed32::Int32), tail)
            }
        }
    }

    /// [`super::encode_packed64`] with whole-word stores.
    #[inline]
    pub(in crate::simd) fn encode_packed64_words(
        values: &[Words64],
        zigzag: bool,
        out: &mut [u8],
    ) -> Option<usize> {
        let tail = |rest: &[Words64], out: &mut [u8]| encode_packed64(rest, zigzag, out);
        match zigzag {
            false => encode::<_, REACH64>(values, out, |v| varint64(v, false), tail),
            true => encode::<_, REACH64>(values, out, |v| varint64(v, true), tail),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Every length boundary, both sides, plus the extremes.
        fn boundaries() -> Vec<u64> {
            let mut values = vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 63];
            for k in 1..=9 {
                values.push((1 << (7 * k)) - 1);
                values.push(1 << (7 * k));
            }
            values
        }

        #[test]
        fn a_layout_holds_the_varint_bytes_and_zeros_after_them() {
            for value in boundaries() {
                let (low, high, len) = layout(value);
                let mut bytes = [0u8; 10];
                bytes[..8].copy_from_slice(&low.to_le_bytes());
                bytes[8..].copy_from_slice(&high.to_le_bytes());
                let mut expected = Vec::new();
                prost::encoding::encode_varint(value, &mut expected);
                assert_eq!(len, expected.len(), "{value:#x}");
                assert_eq!(&bytes[..len], &expected[..], "{value:#x}");
                assert!(bytes[len..].iter().all(|&b| b == 0), "{value:#x}");
            }
        }

        #[test]
        fn spread7_moves_each_7_bit_group_to_its_own_byte() {
            for group in 0..8 {
                let value = 0x7fu64 << (7 * group);
                assert_eq!(spread7(value), 0x7fu64 << (8 * group), "group {group}");
            }
            assert_eq!(spread7(1 << 56), 0, "bits past 56 are dropped");
        }
    }
}
