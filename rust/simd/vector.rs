//! The vector kernels' algorithms, each written once for every instruction set.
//!
//! An instruction-set module (`sse2.rs`, `avx2.rs`, `neon.rs`) defines a register type `R`, the
//! number `LANES` of 32-bit lanes it holds, and its primitives: one to a few instructions each,
//! written with [`primitives!`]. Then it expands [`length_sums!`] and, on x86_64,
//! [`vector_encoders!`], which write the kernel functions over those primitives with the module's
//! `#[target_feature]`, as simdutf8's `algorithm_simd!` does. An instruction set differs from
//! another only in its primitives; the macros list the ones they use.
//!
//! **Lengths.** A varint is 1 byte plus one per threshold 2^7, 2^14, … its value reaches. Each
//! threshold is one unsigned compare, giving -1 (all ones) where it is reached; the compares of
//! `LANES` elements at a time are summed in 32-bit lane counters. A 64-bit element is compared by
//! its 32-bit halves: SSE2 has no 64-bit compare, and 32-bit lanes hold twice the elements.
//!
//! **Encoding** (x86_64). A step takes `LANES` elements: their lengths as above, their bits
//! spread 7 to a byte by shifts and masks, continuation bits from the lengths, so that each lane
//! holds its varint laid out little-endian (then zeros). Each element's lane is stored whole (8
//! bytes for a 32-bit value, 16 for a 64-bit one) at its offset, the running sum of the lengths
//! before it, which one multiply computes for the whole step; later stores overwrite the zeros. A
//! step whose varints all take one byte (packed enums and bools) stores its lanes' low bytes.
//!
//! **Bounds.** The encoders store whole lanes only while `out` has room for the whole step and
//! enough elements follow (see [`wide_steps`]), then finish with the scalar encoder: they never
//! write past `out.len()`, and when they succeed never past the length they return.

/// Elements per length-sum block: lane counters grow by at most 9 per element, so blocks this
/// size keep every 32-bit lane far from overflow and the block sum within a `u32`.
pub(super) const COUNT_BLOCK: usize = 1 << 16;

/// The largest value of each varint length up to 4 bytes, 2^7k - 1 for k in 1..=4: a 32-bit
/// value above `MAX_LEN32[k - 1]` takes more than k bytes.
pub(super) const MAX_LEN32: [u32; 4] = [(1 << 7) - 1, (1 << 14) - 1, (1 << 21) - 1, (1 << 28) - 1];

/// Bytes the store of one 32-bit element's varint (at most 5 bytes) reaches: an 8-byte word.
#[cfg(target_arch = "x86_64")]
pub(super) const REACH32: usize = 8;

/// Bytes the store of one 64-bit element's varint (at most 10 bytes) reaches: a 16-byte lane.
#[cfg(target_arch = "x86_64")]
pub(super) const REACH64: usize = 16;

/// A one in each of the low `lanes` bytes: added to lengths less one, it gives the lengths.
#[cfg(target_arch = "x86_64")]
pub(super) const fn ones(lanes: usize) -> u64 {
    (u64::MAX / 0xff) >> (64 - 8 * lanes)
}

/// Steps of `lanes` elements whose stores (`reach` bytes each) stay within the final output of
/// a successful call: those whose last element has at least `reach` elements (at least a byte
/// each) starting at it. The rest go to the scalar tail, so that a successful call never touches
/// `out` past the bytes it returns.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) const fn wide_steps(elements: usize, lanes: usize, reach: usize) -> usize {
    elements.saturating_sub(reach - 1) / lanes
}

/// The running offsets of a step's varints, from their lengths packed one per byte of `lens`
/// (first element lowest): byte k of the result is len0 + … + len(k-1), for k up to the number
/// of lengths (8 at most).
///
/// The multiply adds each length into every byte above its own. A step has at most 8 lengths of
/// at most 10, so no sum exceeds 80 and no byte carries into the next.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) const fn running_offsets(lens: u64) -> u64 {
    lens.wrapping_mul(0x0101_0101_0101_0100)
}

/// Byte `k` of `word`, as an offset.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) const fn byte(word: u64, k: usize) -> usize {
    (word >> (8 * k)) as u8 as usize
}

/// The [`Packed32`](super::Packed32) that the `ZIGZAG` and `INT32` parameters of the generic
/// kernels stand for.
pub(super) const fn packed32(zigzag: bool, int32: bool) -> super::Packed32 {
    match (zigzag, int32) {
        (true, _) => super::Packed32::Sint32,
        (false, true) => super::Packed32::Int32,
        (false, false) => super::Packed32::Uint32,
    }
}

/// Writes each function with `#[target_feature(enable = $feature)]` and `#[inline]`, so that an
/// instruction set's primitives take a line each.
macro_rules! primitives {
    ($feature:literal; $(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $(<const $n:ident: $t:ty>)?
            ($($arg:ident: $ty:ty),*) -> $ret:ty $body:block
    )*) => {
        $(
            $(#[$attr])*
            #[target_feature(enable = $feature)]
            #[inline]
            $vis fn $name $(<const $n: $t>)? ($($arg: $ty),*) -> $ret $body
        )*
    };
}

/// A module `lengths` with the length sums, `encoded_len_packed32` and `encoded_len_packed64`,
/// over the primitives of the module it is expanded in: `R`, `LANES`, and
///
/// - `splat(u32)`, and on 32-bit lanes `add`, `sub`, `and`, `xor`, `eq`, `shl::<N>`, `sra::<N>`
///   (arithmetic shift right), and `gt`, -1 where `a > b` for operands passed through `ordered`
///   (x86's compares are signed: `ordered` flips the top bits; NEON's are not: it does nothing);
/// - on 64-bit lanes `shl64::<N>` and `sign64` (each lane's sign bit copied to all 64 bits);
/// - `sum` (of the 32-bit lanes, wrapping), `load` (`LANES` u32s), `load_pairs` (`LANES` 64-bit
///   elements as word pairs, into two registers), and `halves(a, b)`: the low and the high
///   32-bit halves of the 64-bit lanes of `a` and `b`, each in `LANES` lanes, in an order that
///   is the same for both.
macro_rules! length_sums {
    ($feature:literal) => {
        /// The length sums over this module's primitives (see `simd/vector.rs`).
        mod lengths {
            use super::*;
            use $crate::simd::vector::{packed32, COUNT_BLOCK, MAX_LEN32};
            use $crate::simd::{scalar, Packed32, Words64};

            /// Zig-zag encodes the 32-bit lanes of `v`.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(super) fn zigzag32(v: R) -> R {
                xor(shl::<1>(v), sra::<31>(v))
            }

            /// The 64-bit lanes of `a` and `b`, zig-zag encoded if `ZIGZAG`.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(super) fn zigzag64<const ZIGZAG: bool>((a, b): (R, R)) -> (R, R) {
                let zigzag = |v| xor(shl64::<1>(v), sign64(v));
                if ZIGZAG {
                    (zigzag(a), zigzag(b))
                } else {
                    (a, b)
                }
            }

            /// Minus the varint lengths less one (-4..=0) of the 32-bit lanes of `v`: the sum of
            /// its threshold compares.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(super) fn minus_lens32(v: R) -> R {
                let [t1, t2, t3, t4] = MAX_LEN32.map(|max| gt(ordered(v), ordered(splat(max))));
                add(add(t1, t2), add(t3, t4))
            }

            /// The varint lengths less one (0..=9) of 64-bit values given by their 32-bit halves,
            /// less 9: minus the thresholds 2^7k they stay below.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(super) fn below64(low: R, high: R) -> R {
                // A value stays below 2^7k for k <= 4 when its low half is below 2^7k and its high
                // half is 0, for k >= 5 when its high half is below 2^(7k - 32).
                let high_zero = eq(high, splat(0));
                let (low, high) = (ordered(low), ordered(high));
                let [l1, l2, l3, l4] =
                    [7, 14, 21, 28].map(|bits| gt(ordered(splat(1 << bits)), low));
                let low_below = and(add(add(l1, l2), add(l3, l4)), high_zero);
                let [h1, h2, h3, h4, h5] =
                    [3, 10, 17, 24, 31].map(|bits| gt(ordered(splat(1 << bits)), high));
                add(low_below, add(add(h1, h2), add(add(h3, h4), h5)))
            }

            /// Varint bytes of at most [`COUNT_BLOCK`] 32-bit elements, zig-zag encoded first if
            /// `ZIGZAG`, negative ones taking 10 bytes if `INT32`.
            #[target_feature(enable = $feature)]
            #[inline]
            fn len32<const ZIGZAG: bool, const INT32: bool>(values: &[u32]) -> u64 {
                debug_assert!(values.len() <= COUNT_BLOCK);
                let (steps, tail) = values.as_chunks::<LANES>();
                let mut extra = splat(0);
                for step in steps {
                    let v = load(step);
                    let v = if ZIGZAG { zigzag32(v) } else { v };
                    extra = sub(extra, minus_lens32(v));
                    if INT32 {
                        // A negative int32 reaches all four thresholds (5 bytes) and takes 5 more.
                        extra = add(extra, and(sra::<31>(v), splat(5)));
                    }
                }
                let vectored = (steps.len() * LANES) as u64 + u64::from(sum(extra));
                vectored + scalar::encoded_len_packed32(tail, packed32(ZIGZAG, INT32)) as u64
            }

            /// Varint bytes of at most [`COUNT_BLOCK`] 64-bit elements, zig-zag encoded first if
            /// `ZIGZAG`.
            #[target_feature(enable = $feature)]
            #[inline]
            fn len64<const ZIGZAG: bool>(values: &[Words64]) -> u64 {
                debug_assert!(values.len() <= COUNT_BLOCK);
                let (steps, tail) = values.as_chunks::<LANES>();
                let mut extra = splat(0);
                for step in steps {
                    let (a, b) = zigzag64::<ZIGZAG>(load_pairs(step));
                    let (low, high) = halves(a, b);
                    extra = add(extra, below64(low, high));
                }
                // An element takes 10 bytes plus its `below64`, which is 0 or negative.
                let vectored =
                    (steps.len() * LANES * 10) as u64 - u64::from(sum(sub(splat(0), extra)));
                vectored + scalar::encoded_len_packed64(tail, ZIGZAG) as u64
            }

            /// [`Kernel::encoded_len_packed32`](crate::simd::Kernel::encoded_len_packed32).
            #[target_feature(enable = $feature)]
            pub(super) fn encoded_len_packed32(values: &[u32], kind: Packed32) -> usize {
                let blocks = values.chunks(COUNT_BLOCK);
                scalar::saturate(match kind {
                    Packed32::Uint32 => blocks.map(|block| len32::<false, false>(block)).sum(),
                    Packed32::Int32 => blocks.map(|block| len32::<false, true>(block)).sum(),
                    Packed32::Sint32 => blocks.map(|block| len32::<true, false>(block)).sum(),
                })
            }

            /// [`Kernel::encoded_len_packed64`](crate::simd::Kernel::encoded_len_packed64).
            #[target_feature(enable = $feature)]
            pub(super) fn encoded_len_packed64(values: &[Words64], zigzag: bool) -> usize {
                let blocks = values.chunks(COUNT_BLOCK);
                scalar::saturate(match zigzag {
                    false => blocks.map(|block| len64::<false>(block)).sum(),
                    true => blocks.map(|block| len64::<true>(block)).sum(),
                })
            }
        }
    };
}

/// A module `encoders` with the encoders, `encode_packed32` and `encode_packed64`, over the
/// primitives of [`length_sums!`] (which it expects expanded beside it) and these x86_64 ones:
///
/// - `splat64(u64)`, `or`, `shr::<N>` and `shr64::<N>` (logical shifts right);
/// - `unpacklo32`, `unpackhi32`, `unpacklo64`, `unpackhi64`: x86's interleaves, within each
///   128-bit half;
/// - `all_zero` (whether every lane is 0, given lanes that are 0 or negative), `lane_bytes`
///   (the low bytes of the 32-bit lanes, lane 0 lowest, as a `u64`), and `in_order`, which puts
///   the lanes `halves` returned in the order of the elements;
/// - `pieces([x, y])`: the 128-bit halves of `x` and `y` in the order of the elements when `x`
///   and `y` are the low and high interleaves of the same lanes;
/// - `continuation32(v, lens_less_one)` and `continuation64(lens_less_one)`: the continuation
///   bits of the first 4 (32-bit lanes) or 8 (64-bit lanes) bytes of each varint;
/// - `load_int32s`: `LANES` u32s as sign-extended 64-bit lanes, into two registers.
///
/// Here `halves(a, b)` must give the lanes of `a` where `unpacklo32` takes its lanes from, and
/// those of `b` where `unpackhi32` does.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_encoders {
    ($feature:literal) => {
        /// The encoders over this module's primitives (see `simd/vector.rs`).
        mod encoders {
            use super::lengths::{below64, minus_lens32, zigzag32, zigzag64};
            use super::*;
            use core::arch::x86_64::{
                _mm_castsi128_pd, _mm_storeh_pd, _mm_storel_epi64, _mm_storeu_si128,
            };
            use $crate::simd::vector::{
                byte, ones, packed32, running_offsets, wide_steps, REACH32, REACH64,
            };
            use $crate::simd::{scalar, Packed32, Words64};

            /// Bits 0..28 of each 32-bit lane spread 7 to a byte (byte g holds bits 7g..7g + 7):
            /// 14-bit halves into 16-bit slots, then 7 bits into 8.
            #[target_feature(enable = $feature)]
            #[inline]
            fn spread7_32(v: R) -> R {
                let v = or(and(v, splat(0x3fff)), and(shl::<2>(v), splat(0x3fff_0000)));
                or(
                    and(v, splat(0x007f_007f)),
                    and(shl::<1>(v), splat(0x7f00_7f00)),
                )
            }

            /// Bits 0..56 of each 64-bit lane spread 7 to a byte: 28-bit halves into 32-bit slots,
            /// then as [`spread7_32`] (whose masks keep bits from crossing between the halves).
            #[target_feature(enable = $feature)]
            #[inline]
            fn spread7_64(v: R) -> R {
                let low = and(v, splat64(0x0fff_ffff));
                spread7_32(or(low, and(shl64::<4>(v), splat64(0x0fff_ffff_0000_0000))))
            }

            /// Bytes 8 and 9 of the varints of the 64-bit lanes of `v` (see `scalar::words`).
            #[target_feature(enable = $feature)]
            #[inline]
            fn high_words(v: R) -> R {
                or(shr64::<56>(v), shl64::<8>(shr64::<63>(v)))
            }

            /// The varint lengths less one (0..=9) of 64-bit values given by their 32-bit halves.
            #[target_feature(enable = $feature)]
            #[inline]
            fn lens_less_one64(low: R, high: R) -> R {
                add(splat(9), below64(low, high))
            }

            /// The varints of the 64-bit lanes of `v`, whose lengths less one `lens_less_one`
            /// holds in the same lanes: 16 bytes each, in the order of the lanes.
            #[target_feature(enable = $feature)]
            #[inline]
            fn varints64(v: R, lens_less_one: R) -> [__m128i; LANES / 2] {
                let low = or(spread7_64(v), continuation64(lens_less_one));
                let high = high_words(v);
                pieces([unpacklo64(low, high), unpackhi64(low, high)])
            }

            /// Encodes `values` at the start of `out` a step of `LANES` elements at a time, then
            /// the rest with `tail`. `step` writes the varints of its elements at the start of a
            /// window of `WINDOW` bytes of `out` and returns their length; the steps stop where
            /// `out` has no window left or [`wide_steps`] (with `reach`) ends them.
            #[target_feature(enable = $feature)]
            #[inline]
            fn encode_steps<T, const WINDOW: usize>(
                values: &[T],
                out: &mut [u8],
                reach: usize,
                step: impl Fn(&[T; LANES], &mut [u8; WINDOW]) -> usize,
                tail: impl FnOnce(&[T], &mut [u8]) -> Option<usize>,
            ) -> Option<usize> {
                let wide = values.get(..wide_steps(values.len(), LANES, reach) * LANES);
                let (chunks, _) = wide.unwrap_or_default().as_chunks::<LANES>();
                let mut pos = 0;
                let mut done = 0;
                for chunk in chunks {
                    let Some(window) = out.get_mut(pos..).and_then(<[u8]>::first_chunk_mut) else {
                        break;
                    };
                    pos += step(chunk, window);
                    done += LANES;
                }
                Some(pos + tail(values.get(done..)?, out.get_mut(pos..)?)?)
            }

            /// `uint32` (or, if `ZIGZAG`, `sint32`) varints of `values` at the start of `out`, one
            /// 8-byte store per element.
            #[target_feature(enable = $feature)]
            #[inline]
            fn encode32<const ZIGZAG: bool>(values: &[u32], out: &mut [u8]) -> Option<usize> {
                /// Bytes a step's stores reach: `LANES - 1` varints of at most 5 bytes, then the
                /// last element's store.
                const WINDOW: usize = (LANES - 1) * 5 + REACH32;
                let step = |chunk: &[u32; LANES], window: &mut [u8; WINDOW]| {
                    let v = load(chunk);
                    let v = if ZIGZAG { zigzag32(v) } else { v };
                    let minus_lens = minus_lens32(v);
                    if all_zero(minus_lens) {
                        window[..8].copy_from_slice(&lane_bytes(v).to_le_bytes());
                        return LANES;
                    }
                    // Bytes 0..=3 of each varint in the low word of its lane, byte 4 in the high.
                    let lens_less_one = sub(splat(0), minus_lens);
                    let low = or(spread7_32(v), continuation32(v, lens_less_one));
                    let high = shr::<28>(v);
                    let lens = lane_bytes(lens_less_one) + ones(LANES);
                    let offsets = running_offsets(lens);
                    let words = pieces([unpacklo32(low, high), unpackhi32(low, high)]);
                    let dst = window.as_mut_ptr();
                    for i in 0..LANES / 2 {
                        // Safety: the stores start at running offsets of at most (LANES - 1) * 5
                        // and write 8 bytes each, within the window; they take any alignment.
                        unsafe {
                            _mm_storel_epi64(dst.add(byte(offsets, 2 * i)).cast(), words[i]);
                            let second = dst.add(byte(offsets, 2 * i + 1));
                            _mm_storeh_pd(second.cast(), _mm_castsi128_pd(words[i]));
                        }
                    }
                    byte(offsets, LANES - 1) + byte(lens, LANES - 1)
                };
                let kind = packed32(ZIGZAG, false);
                let tail = |rest: &_, out: &mut _| scalar::encode_packed32(rest, kind, out);
                encode_steps(values, out, REACH32, step, tail)
            }

            /// 64-bit varints of `values` at the start of `out` (`load` gives their 64-bit
            /// values, zig-zag encoded next if `ZIGZAG`), one 16-byte store per element; `tail`
            /// encodes the last elements.
            #[target_feature(enable = $feature)]
            #[inline]
            fn encode64<T, const ZIGZAG: bool>(
                values: &[T],
                out: &mut [u8],
                load: impl Fn(&[T; LANES]) -> (R, R),
                tail: impl FnOnce(&[T], &mut [u8]) -> Option<usize>,
            ) -> Option<usize> {
                /// Bytes a step's stores reach: `LANES - 1` varints of at most 10 bytes, then the
                /// last element's store.
                const WINDOW: usize = (LANES - 1) * 10 + REACH64;
                let step = |chunk: &[T; LANES], window: &mut [u8; WINDOW]| {
                    let (a, b) = zigzag64::<ZIGZAG>(load(chunk));
                    let (low, high) = halves(a, b);
                    let lens_less_one = lens_less_one64(low, high);
                    if all_zero(sub(splat(0), lens_less_one)) {
                        window[..8].copy_from_slice(&lane_bytes(in_order(low)).to_le_bytes());
                        return LANES;
                    }
                    // Widened by the interleaves, the lengths line up with the 64-bit lanes of `a`
                    // and `b` they came from (see `halves`).
                    let zero = splat(0);
                    let first = varints64(a, unpacklo32(lens_less_one, zero));
                    let second = varints64(b, unpackhi32(lens_less_one, zero));
                    let lens = lane_bytes(in_order(lens_less_one)) + ones(LANES);
                    let offsets = running_offsets(lens);
                    let dst = window.as_mut_ptr();
                    // In the order of the elements, each store overwriting the zeros after the
                    // varint before it.
                    for (half, elements) in [first, second].into_iter().enumerate() {
                        for i in 0..LANES / 2 {
                            let at = byte(offsets, half * LANES / 2 + i);
                            // Safety: the stores start at running offsets of at most
                            // (LANES - 1) * 10 and write 16 bytes each, within the window; they
                            // take any alignment.
                            unsafe { _mm_storeu_si128(dst.add(at).cast(), elements[i]) };
                        }
                    }
                    byte(offsets, LANES - 1) + byte(lens, LANES - 1)
                };
                encode_steps(values, out, REACH64, step, tail)
            }

            /// [`Kernel::encode_packed32`](crate::simd::Kernel::encode_packed32).
            #[target_feature(enable = $feature)]
            pub(super) fn encode_packed32(
                values: &[u32],
                kind: Packed32,
                out: &mut [u8],
            ) -> Option<usize> {
                match kind {
                    Packed32::Uint32 => encode32::<false>(values, out),
                    Packed32::Sint32 => encode32::<true>(values, out),
                    // Negative int32s take 10 bytes: the 64-bit encoder, on sign-extended lanes.
                    Packed32::Int32 => encode64::<_, false>(
                        values,
                        out,
                        |chunk| load_int32s(chunk),
                        |rest, out| scalar::encode_packed32(rest, Packed32::Int32, out),
                    ),
                }
            }

            /// [`Kernel::encode_packed64`](crate::simd::Kernel::encode_packed64).
            #[target_feature(enable = $feature)]
            pub(super) fn encode_packed64(
                values: &[Words64],
                zigzag: bool,
                out: &mut [u8],
            ) -> Option<usize> {
                let load = |chunk: &_| load_pairs(chunk);
                let tail = |rest: &_, out: &mut _| scalar::encode_packed64(rest, zigzag, out);
                match zigzag {
                    false => encode64::<_, false>(values, out, load, tail),
                    true => encode64::<_, true>(values, out, load, tail),
                }
            }
        }
    };
}
