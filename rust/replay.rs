//! Tape → protobuf wire bytes.
//!
//! Two passes over the same tape: [`Replay::measure`] computes the exact output size and the
//! length of every length-delimited section (so prefixes never need shifting), then
//! [`Replay::write`] writes the bytes. Every read from the tape is bounds-checked and every
//! problem is an [`Error`]: no tape, however malformed, makes the replay panic, loop, or touch
//! memory outside the slices it was given. Nesting is tracked with heap stacks, never recursion.
//!
//! Both passes are one `match` on the opcode word per record, with no intermediate record value:
//! a replay costs a few nanoseconds per record, so that the native call, not the replay, is the
//! fixed cost of a `finish()` (see `bench/probe-replay.js`).

use crate::error::{Error, Result};
use crate::opcode::{payload_words, Op, WORD_BYTES};
use crate::simd::{self, Packed32};
use crate::varint::{encode_varint, encoded_len_varint, zigzag32, zigzag64};

/// Largest message the replay produces, in bytes: every length and offset then fits the `int32`
/// words of the JS side's views.
pub const MAX_OUTPUT: usize = i32::MAX as usize;

/// Bytes past the measured size that let [`Replay::write`] store a varint without checking the
/// room for each byte. An output with less slack still works, on a slower checked path.
pub const WRITE_SLACK: usize = MAX_VARINT_LEN;

/// The byte a fork that was never closed leaves in the output. protobuf.js 8.x emits an
/// uninitialized placeholder byte there; this writer emits a zero so the output is deterministic.
pub const OPEN_FORK_PLACEHOLDER: u8 = 0;

/// Longest varint (a 64-bit value).
const MAX_VARINT_LEN: usize = 10;

/// Marks a fork that was still open at the end of the tape.
const OPEN: u32 = u32::MAX;

const UINT32: u32 = Op::Uint32 as u32;
const INT32: u32 = Op::Int32 as u32;
const SINT32: u32 = Op::Sint32 as u32;
const FIXED32: u32 = Op::Fixed32 as u32;
const UINT64: u32 = Op::Uint64 as u32;
const SINT64: u32 = Op::Sint64 as u32;
const FIXED64: u32 = Op::Fixed64 as u32;
const FORK: u32 = Op::Fork as u32;
const LDELIM: u32 = Op::Ldelim as u32;
const BYTES: u32 = Op::Bytes as u32;
const RAW: u32 = Op::Raw as u32;
const PACKED_UINT32: u32 = Op::PackedUint32 as u32;
const PACKED_INT32: u32 = Op::PackedInt32 as u32;
const PACKED_SINT32: u32 = Op::PackedSint32 as u32;
const PACKED_FIXED32: u32 = Op::PackedFixed32 as u32;
const PACKED_UINT64: u32 = Op::PackedUint64 as u32;
const PACKED_SINT64: u32 = Op::PackedSint64 as u32;
const PACKED_FIXED64: u32 = Op::PackedFixed64 as u32;
const BYTES_REF: u32 = Op::BytesRef as u32;

/// The 64-bit operand of the record at `at` (words `at + 2` and `at + 3`).
#[inline(always)]
fn operand64(tape: &[u8], at: usize) -> Result<u64> {
    let bytes = tape
        .get((at + 2) * WORD_BYTES..)
        .and_then(|rest| rest.first_chunk::<8>())
        .ok_or(Error::Truncated { at })?;
    Ok(u64::from_le_bytes(*bytes))
}

/// The body of the record at `at` whose header says it holds `body_words` more words, and the
/// word after the record.
#[inline(always)]
fn body(
    tape: &[u8],
    at: usize,
    body_words: Option<usize>,
    body_bytes: usize,
) -> Result<(&[u8], usize)> {
    let next = body_words
        .and_then(|words| words.checked_add(at + 2))
        .ok_or(Error::Truncated { at })?;
    let start = (at + 2) * WORD_BYTES;
    let bytes = start
        .checked_add(body_bytes)
        .filter(|_| {
            next.checked_mul(WORD_BYTES)
                .is_some_and(|end| end <= tape.len())
        })
        .and_then(|end| tape.get(start..end))
        .ok_or(Error::Truncated { at })?;
    Ok((bytes, next))
}

/// Words of the body of a packed 32-bit record of `count` elements (padded to even).
#[inline(always)]
fn packed32_words(count: usize) -> Option<usize> {
    count.checked_add(count & 1)
}

/// Bytes of a 32-bit varint (1..=5).
#[inline(always)]
fn len32(value: u32) -> u64 {
    encoded_len_varint(u64::from(value)) as u64
}

/// How the elements of a packed varint record become varints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Packed {
    Uint32,
    Int32,
    Sint32,
    Uint64,
    Sint64,
}

impl Packed {
    /// Bytes per element in the tape.
    const fn stride(self) -> usize {
        match self {
            Packed::Uint32 | Packed::Int32 | Packed::Sint32 => 4,
            Packed::Uint64 | Packed::Sint64 => 8,
        }
    }

    /// The varint value of one element (`stride` bytes).
    #[inline(always)]
    fn value(self, element: &[u8]) -> u64 {
        match self {
            Packed::Uint32 => u64::from(le32(element)),
            Packed::Int32 => le32(element) as i32 as i64 as u64,
            Packed::Sint32 => u64::from(zigzag32(le32(element) as i32)),
            Packed::Uint64 => le64(element),
            Packed::Sint64 => zigzag64(le64(element) as i64),
        }
    }

    /// Sum of the varint lengths of `body`'s elements: through the vectorised kernel when the
    /// elements are aligned (they are in every tape `index.js` records), else element by
    /// element.
    fn encoded_len(self, body: &[u8]) -> u64 {
        match self.elements(body) {
            Elements::U32(values, kind) => simd::encoded_len_packed32(values, kind) as u64,
            Elements::U64(values, zigzag) => simd::encoded_len_packed64(values, zigzag) as u64,
            Elements::Unaligned => body
                .chunks_exact(self.stride())
                .map(|e| encoded_len_varint(self.value(e)) as u64)
                .sum(),
        }
    }

    /// Writes the varints of `body`'s elements at the start of `out`; returns the bytes
    /// written, or `None` if `out` is too short.
    fn encode(self, body: &[u8], out: &mut [u8]) -> Option<usize> {
        match self.elements(body) {
            Elements::U32(values, kind) => simd::encode_packed32(values, kind, out),
            Elements::U64(values, zigzag) => simd::encode_packed64(values, zigzag, out),
            Elements::Unaligned => {
                let mut sink = Sink { out, pos: 0 };
                for element in body.chunks_exact(self.stride()) {
                    sink.varint(self.value(element)).ok()?;
                }
                Some(sink.pos)
            }
        }
    }

    /// `body` as a slice of elements, if it is aligned for them.
    fn elements(self, body: &[u8]) -> Elements<'_> {
        match self {
            Packed::Uint32 | Packed::Int32 | Packed::Sint32 => {
                // Safety: every bit pattern is a valid `u32`.
                let (head, words, tail) = unsafe { body.align_to::<u32>() };
                if !head.is_empty() || !tail.is_empty() {
                    return Elements::Unaligned;
                }
                let kind = match self {
                    Packed::Uint32 => Packed32::Uint32,
                    Packed::Int32 => Packed32::Int32,
                    _ => Packed32::Sint32,
                };
                Elements::U32(words, kind)
            }
            Packed::Uint64 | Packed::Sint64 => {
                // Safety: every bit pattern is a valid `u64`.
                let (head, words, tail) = unsafe { body.align_to::<u64>() };
                if !head.is_empty() || !tail.is_empty() {
                    return Elements::Unaligned;
                }
                Elements::U64(words, self == Packed::Sint64)
            }
        }
    }
}

/// The elements of a packed varint record, as the vectorised kernel takes them.
enum Elements<'t> {
    U32(&'t [u32], Packed32),
    U64(&'t [u64], bool),
    Unaligned,
}

/// An 8-byte chunk as a little-endian 64-bit value.
#[inline(always)]
fn le64(chunk: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&chunk[..8]);
    u64::from_le_bytes(le)
}

/// A 4-byte chunk as a little-endian word.
#[inline(always)]
fn le32(chunk: &[u8]) -> u32 {
    let mut le = [0u8; 4];
    le.copy_from_slice(&chunk[..4]);
    u32::from_le_bytes(le)
}

/// What a pass does with each record; [`walk`] decodes the tape and calls these in tape order.
trait Pass {
    /// A varint of at most 32 bits (`uint32`, `bool`, non-negative `int32`, zig-zagged `sint32`).
    fn varint32(&mut self, value: u32) -> Result<()>;
    /// A varint of up to 64 bits.
    fn varint64(&mut self, value: u64) -> Result<()>;
    /// Bytes copied as they are: `fixed32`/`float` (4), `fixed64`/`double` (8), `raw`.
    fn fixed(&mut self, bytes: &[u8]) -> Result<()>;
    /// A length prefix, then the bytes: `bytes`, `string`, packed fixed-width elements.
    fn delimited(&mut self, bytes: &[u8]) -> Result<()>;
    /// A length prefix, then the elements of `body` as varints.
    fn packed(&mut self, kind: Packed, body: &[u8]) -> Result<()>;
    /// Opens a length-delimited section.
    fn fork(&mut self) -> Result<()>;
    /// Closes the innermost open section, or with none open prefixes everything before it.
    fn ldelim(&mut self) -> Result<()>;
    /// A length prefix, then a hole of `len` bytes for JS to fill with its `reference`-th
    /// referenced array.
    fn hole(&mut self, len: u32, reference: u32) -> Result<()>;
}

/// Decodes `tape` record by record and hands each to `pass`. The only place that knows the
/// record layout (see [`crate::opcode`]); every read is bounds-checked.
#[inline(always)]
fn walk<P: Pass>(tape: &[u8], pass: &mut P) -> Result<()> {
    let words = tape.len() / WORD_BYTES;
    let mut at = 0;
    while at < words {
        // `at` < `words`, so `at * WORD_BYTES` is within the tape.
        let head = tape[at * WORD_BYTES..]
            .first_chunk::<8>()
            .ok_or(Error::Truncated { at })?;
        let head = u64::from_le_bytes(*head);
        let (op, operand) = (head as u32, (head >> 32) as u32);
        match op {
            UINT32 => pass.varint32(operand)?,
            INT32 if (operand as i32) < 0 => pass.varint64(operand as i32 as i64 as u64)?,
            INT32 => pass.varint32(operand)?,
            SINT32 => pass.varint32(zigzag32(operand as i32))?,
            FORK => pass.fork()?,
            LDELIM => pass.ldelim()?,
            FIXED32 => pass.fixed(&operand.to_le_bytes())?,
            UINT64 | SINT64 | FIXED64 => {
                let value = operand64(tape, at)?;
                match op {
                    UINT64 => pass.varint64(value)?,
                    SINT64 => pass.varint64(zigzag64(value as i64))?,
                    _ => pass.fixed(&value.to_le_bytes())?,
                }
                at += 4;
                continue;
            }
            BYTES_REF => {
                let (reference, next) = body(tape, at, Some(2), 8)?;
                pass.hole(operand, le32(reference))?;
                at = next;
                continue;
            }
            BYTES | RAW => {
                let len = operand as usize;
                let (payload, next) = body(tape, at, Some(payload_words(len)), len)?;
                if op == BYTES {
                    pass.delimited(payload)?;
                } else {
                    pass.fixed(payload)?;
                }
                at = next;
                continue;
            }
            PACKED_FIXED32 | PACKED_FIXED64 => {
                let count = operand as usize;
                let (body_words, body_bytes) = if op == PACKED_FIXED32 {
                    (packed32_words(count), count.wrapping_mul(4))
                } else {
                    (count.checked_mul(2), count.wrapping_mul(8))
                };
                let (bytes, next) = body(tape, at, body_words, body_bytes)?;
                pass.delimited(bytes)?;
                at = next;
                continue;
            }
            PACKED_UINT32 | PACKED_INT32 | PACKED_SINT32 | PACKED_UINT64 | PACKED_SINT64 => {
                let (kind, next, bytes) = packed_varint(tape, at, op, operand)?;
                pass.packed(kind, bytes)?;
                at = next;
                continue;
            }
            _ => return Err(Error::UnknownOpcode { at, word: op }),
        }
        at += 2;
    }
    Ok(())
}

/// Reusable state of the passes. Keep one per thread and reuse it: after warm-up a replay
/// allocates nothing.
#[derive(Debug, Default)]
pub struct Replay {
    /// Content length of each fork and varint-packed record, in tape order (`OPEN` for a fork
    /// never closed). Filled by `measure`, read by `write`.
    lens: Vec<u32>,
    /// Forks open during `measure`: their index in `lens` and the output size when they opened.
    /// During `write_forward`: the output position of their placeholder byte.
    open: Vec<(usize, u64)>,
    /// Lengths of the `LDELIM`s that found no open fork, in tape order.
    wraps: Vec<u32>,
    /// Each hole `write` left: the reference JS fills it with, and its output offset.
    holes: Vec<(u32, u32)>,
    /// The size `measure` returned.
    size: usize,
}

impl Replay {
    /// Creates an empty replay state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pass 1: the exact number of bytes `tape` encodes to. Remembers the section lengths for a
    /// following [`Replay::write`] of the same tape.
    pub fn measure(&mut self, tape: &[u8]) -> Result<usize> {
        self.lens.clear();
        self.open.clear();
        self.wraps.clear();
        self.size = 0;
        let mut measure = Measure {
            replay: self,
            size: 0,
        };
        walk(tape, &mut measure)?;
        // Each fork left open leaves its placeholder byte.
        let size = measure.size + self.open.len() as u64;
        if size > MAX_OUTPUT as u64 {
            return Err(Error::TooLarge { size });
        }
        self.size = size as usize;
        Ok(self.size)
    }

    /// Pass 2: writes `tape`, which must be the tape just given to [`Replay::measure`], at the
    /// start of `out`, which must hold at least the measured size (with [`WRITE_SLACK`] more
    /// bytes it is faster). Returns the bytes written, the measured size. Anything else is an
    /// error, never a panic or a write past `out`.
    pub fn write(&mut self, tape: &[u8], out: &mut [u8]) -> Result<usize> {
        if out.len() < self.size {
            return Err(Error::Inconsistent);
        }
        self.holes.clear();
        let mut write = Write {
            sink: Sink { out, pos: 0 },
            sections: self.lens.iter(),
            holes: &mut self.holes,
        };
        // LDELIMs without an open fork prefix everything before them, so the last one's prefix
        // comes first.
        for &len in self.wraps.iter().rev() {
            write.sink.varint(u64::from(len))?;
        }
        walk(tape, &mut write)?;
        if write.sink.pos != self.size {
            return Err(Error::Inconsistent);
        }
        Ok(write.sink.pos)
    }

    /// One pass instead of two: writes `tape` at the start of `out` and returns the bytes
    /// written. A fork writes a one-byte placeholder that its `LDELIM` back-fills, shifting the
    /// section right when its length needs more than one byte (as protobuf.js 8 does). Each
    /// such shift copies the section, so deep nesting of long sections would cost time
    /// quadratic in the depth: once the shifts have moved more than [`SHIFT_BUDGET`] times
    /// `out.len()` bytes the pass gives up and returns `Ok(None)`, and the caller uses
    /// [`Replay::measure`] + [`Replay::write`], which never shift. `out` must hold at least
    /// [`forward_bound`]`(tape.len())` bytes, or the replay may stop with
    /// [`Error::Inconsistent`] (never write past `out`). The bytes equal those of the two
    /// passes. Leaves nothing for [`Replay::write`].
    pub fn write_forward(&mut self, tape: &[u8], out: &mut [u8]) -> Result<Option<usize>> {
        self.open.clear();
        self.size = 0;
        let budget = out.len().saturating_mul(SHIFT_BUDGET);
        let mut forward = Forward {
            sink: Sink { out, pos: 0 },
            open: &mut self.open,
            budget,
        };
        match walk(tape, &mut forward) {
            Ok(()) => Ok(Some(forward.sink.pos)),
            Err(Error::Inconsistent) if forward.budget == OVER_BUDGET => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The size the last [`Replay::measure`] returned.
    pub fn measured(&self) -> usize {
        self.size
    }

    /// The holes the last [`Replay::write`] left for JS to fill: `(reference, offset)` pairs in
    /// tape order.
    pub fn holes(&self) -> &[(u32, u32)] {
        &self.holes
    }

    /// Both passes into a new `Vec`: for tests and Rust callers.
    pub fn encode(&mut self, tape: &[u8]) -> Result<Vec<u8>> {
        let size = self.measure(tape)?;
        let mut out = vec![0; size];
        self.write(tape, &mut out)?;
        Ok(out)
    }
}

/// Pass 1 of [`Replay::measure`].
struct Measure<'r> {
    replay: &'r mut Replay,
    size: u64,
}

impl Pass for Measure<'_> {
    #[inline(always)]
    fn hole(&mut self, len: u32, _reference: u32) -> Result<()> {
        let len = section_len(u64::from(len))?;
        self.size += len32(len) + u64::from(len);
        Ok(())
    }

    #[inline(always)]
    fn varint32(&mut self, value: u32) -> Result<()> {
        self.size += len32(value);
        Ok(())
    }

    #[inline(always)]
    fn varint64(&mut self, value: u64) -> Result<()> {
        self.size += encoded_len_varint(value) as u64;
        Ok(())
    }

    #[inline(always)]
    fn fixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.size += bytes.len() as u64;
        Ok(())
    }

    #[inline(always)]
    fn delimited(&mut self, bytes: &[u8]) -> Result<()> {
        let len = section_len(bytes.len() as u64)?;
        self.size += len32(len) + u64::from(len);
        Ok(())
    }

    #[inline(always)]
    fn packed(&mut self, kind: Packed, body: &[u8]) -> Result<()> {
        let len = section_len(kind.encoded_len(body))?;
        self.replay.lens.push(len);
        self.size += len32(len) + u64::from(len);
        Ok(())
    }

    #[inline(always)]
    fn fork(&mut self) -> Result<()> {
        let replay = &mut *self.replay;
        replay.open.push((replay.lens.len(), self.size));
        replay.lens.push(OPEN);
        Ok(())
    }

    #[inline(always)]
    fn ldelim(&mut self) -> Result<()> {
        let replay = &mut *self.replay;
        let (start, fork) = match replay.open.pop() {
            Some((index, start)) => (start, Some(index)),
            None => (0, None),
        };
        let len = section_len(self.size - start)?;
        match fork {
            Some(index) => replay.lens[index] = len,
            None => replay.wraps.push(len),
        }
        self.size += len32(len);
        Ok(())
    }
}

/// Pass 2 of [`Replay::write`].
struct Write<'o, 'r> {
    sink: Sink<'o>,
    sections: std::slice::Iter<'r, u32>,
    holes: &'r mut Vec<(u32, u32)>,
}

impl Pass for Write<'_, '_> {
    #[inline]
    fn hole(&mut self, len: u32, reference: u32) -> Result<()> {
        self.sink.varint32(len)?;
        let at = u32::try_from(self.sink.pos).map_err(|_| Error::Inconsistent)?;
        self.sink.skip(len as usize)?;
        self.holes.push((reference, at));
        Ok(())
    }

    #[inline(always)]
    fn varint32(&mut self, value: u32) -> Result<()> {
        self.sink.varint32(value)
    }

    #[inline(always)]
    fn varint64(&mut self, value: u64) -> Result<()> {
        self.sink.varint(value)
    }

    #[inline(always)]
    fn fixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.bytes(bytes)
    }

    #[inline(always)]
    fn delimited(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.varint(bytes.len() as u64)?;
        self.sink.bytes(bytes)
    }

    #[inline(always)]
    fn packed(&mut self, kind: Packed, body: &[u8]) -> Result<()> {
        let len = *self.sections.next().ok_or(Error::Inconsistent)?;
        self.sink.varint32(len)?;
        self.sink.packed(kind, body, len)
    }

    #[inline(always)]
    fn fork(&mut self) -> Result<()> {
        match *self.sections.next().ok_or(Error::Inconsistent)? {
            OPEN => self.sink.bytes(&[OPEN_FORK_PLACEHOLDER]),
            len => self.sink.varint32(len),
        }
    }

    #[inline(always)]
    fn ldelim(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The most bytes a tape of `tape_bytes` bytes encodes to, plus [`WRITE_SLACK`]: room enough
/// for [`Replay::write_forward`]. The densest record is a packed `int32` element: 4 tape bytes,
/// 10 output bytes; every other record gives at most 10 output bytes per 8 tape bytes.
pub const fn forward_bound(tape_bytes: usize) -> usize {
    tape_bytes.saturating_mul(5) / 2 + WRITE_SLACK
}

/// How many times its output size [`Replay::write_forward`] may move in shifts before it gives
/// up: enough for any realistic nesting, and it keeps the pass linear in its output.
pub const SHIFT_BUDGET: usize = 8;

/// [`Forward::budget`] once the shifts went past it.
const OVER_BUDGET: usize = usize::MAX;

/// The pass of [`Replay::write_forward`].
struct Forward<'o, 'r> {
    sink: Sink<'o>,
    /// Output position of each open fork's placeholder byte (the `u64` is unused).
    open: &'r mut Vec<(usize, u64)>,
    /// Bytes the shifts may still move; `OVER_BUDGET` once they would have moved more.
    budget: usize,
}

impl Forward<'_, '_> {
    /// Replaces the byte at `at` (a placeholder, or nothing when `at` is the position of a
    /// section without fork) with the varint of the `len` bytes that follow it.
    #[inline]
    fn prefix(&mut self, at: usize, placeholder: usize, len: u64) -> Result<()> {
        let len = section_len(len)?;
        if len < 0x80 && placeholder == 1 {
            // The common case: a short section fits its placeholder.
            *self.sink.out.get_mut(at).ok_or(Error::Inconsistent)? = len as u8;
            return Ok(());
        }
        let grow = encoded_len_varint(u64::from(len)) - placeholder;
        let end = self.sink.pos + grow;
        if end > self.sink.out.len() {
            return Err(Error::Inconsistent);
        }
        let moved = self.sink.pos - at - placeholder;
        if moved > self.budget {
            self.budget = OVER_BUDGET;
            return Err(Error::Inconsistent);
        }
        self.budget -= moved;
        self.sink
            .out
            .copy_within(at + placeholder..self.sink.pos, at + placeholder + grow);
        let mut varint = Sink {
            out: &mut self.sink.out[at..],
            pos: 0,
        };
        varint.varint32(len)?;
        self.sink.pos = end;
        Ok(())
    }
}

impl Pass for Forward<'_, '_> {
    /// The one-pass replay moves content after it is written, so it cannot tell JS where a
    /// hole ends up: tapes with references go through the two passes.
    fn hole(&mut self, _len: u32, _reference: u32) -> Result<()> {
        Err(Error::Binding(
            "a tape with references must be replayed in two passes",
        ))
    }

    #[inline(always)]
    fn varint32(&mut self, value: u32) -> Result<()> {
        self.sink.varint32(value)
    }

    #[inline(always)]
    fn varint64(&mut self, value: u64) -> Result<()> {
        self.sink.varint(value)
    }

    #[inline(always)]
    fn fixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.bytes(bytes)
    }

    #[inline(always)]
    fn delimited(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.varint(bytes.len() as u64)?;
        self.sink.bytes(bytes)
    }

    #[inline(always)]
    fn packed(&mut self, kind: Packed, body: &[u8]) -> Result<()> {
        let len = section_len(kind.encoded_len(body))?;
        self.sink.varint32(len)?;
        self.sink.packed(kind, body, len)
    }

    #[inline(always)]
    fn fork(&mut self) -> Result<()> {
        self.open.push((self.sink.pos, 0));
        self.sink.bytes(&[OPEN_FORK_PLACEHOLDER])
    }

    #[inline(always)]
    fn ldelim(&mut self) -> Result<()> {
        match self.open.pop() {
            Some((at, _)) => self.prefix(at, 1, (self.sink.pos - at - 1) as u64),
            None => self.prefix(0, 0, self.sink.pos as u64),
        }
    }
}

/// The kind, next record and body of the packed varint record `op` at `at` with `count`
/// elements.
#[inline(always)]
fn packed_varint(tape: &[u8], at: usize, op: u32, count: u32) -> Result<(Packed, usize, &[u8])> {
    let count = count as usize;
    let kind = match op {
        PACKED_UINT32 => Packed::Uint32,
        PACKED_INT32 => Packed::Int32,
        PACKED_SINT32 => Packed::Sint32,
        PACKED_UINT64 => Packed::Uint64,
        _ => Packed::Sint64,
    };
    let body_words = if kind.stride() == 4 {
        packed32_words(count)
    } else {
        count.checked_mul(2)
    };
    let (bytes, next) = body(tape, at, body_words, count.wrapping_mul(kind.stride()))?;
    Ok((kind, next, bytes))
}

/// A section length as protobuf writes it (a uint32 varint).
#[inline]
fn section_len(len: u64) -> Result<u32> {
    u32::try_from(len)
        .ok()
        .filter(|&len| len as usize <= MAX_OUTPUT)
        .ok_or(Error::TooLarge { size: len })
}

/// The output cursor of pass 2.
struct Sink<'o> {
    out: &'o mut [u8],
    pos: usize,
}

impl Sink<'_> {
    /// Writes a varint; when [`MAX_VARINT_LEN`] bytes are free, without a check per byte.
    #[inline(always)]
    fn varint(&mut self, mut value: u64) -> Result<()> {
        match self.out.get_mut(self.pos..self.pos + MAX_VARINT_LEN) {
            Some(dst) => {
                let mut i = 0;
                while value >= 0x80 {
                    // Safety: a u64 has at most 9 groups of 7 bits before the last one, so
                    // `i` < 9 < `dst.len()` here.
                    unsafe { *dst.get_unchecked_mut(i) = value as u8 | 0x80 };
                    value >>= 7;
                    i += 1;
                }
                // Safety: `i` <= 9 < `dst.len()`, as above.
                unsafe { *dst.get_unchecked_mut(i) = value as u8 };
                self.pos += i + 1;
                Ok(())
            }
            None => self.varint_checked(value),
        }
    }

    /// [`Sink::varint`] for 32-bit values.
    #[inline(always)]
    fn varint32(&mut self, value: u32) -> Result<()> {
        if value < 0x80 {
            if let Some(dst) = self.out.get_mut(self.pos) {
                *dst = value as u8;
                self.pos += 1;
                return Ok(());
            }
        }
        self.varint(u64::from(value))
    }

    /// Writes the elements of a packed record, which must take exactly `len` bytes.
    #[inline]
    fn packed(&mut self, kind: Packed, body: &[u8], len: u32) -> Result<()> {
        let rest = self.out.get_mut(self.pos..).ok_or(Error::Inconsistent)?;
        let written = kind.encode(body, rest).ok_or(Error::Inconsistent)?;
        if written != len as usize {
            return Err(Error::Inconsistent);
        }
        self.pos += written;
        Ok(())
    }

    #[cold]
    fn varint_checked(&mut self, value: u64) -> Result<()> {
        let rest = self.out.get_mut(self.pos..).ok_or(Error::Inconsistent)?;
        self.pos += encode_varint(value, rest).ok_or(Error::Inconsistent)?;
        Ok(())
    }

    /// Leaves `len` bytes as they are, for JS to fill.
    #[inline]
    fn skip(&mut self, len: usize) -> Result<()> {
        let end = self
            .pos
            .checked_add(len)
            .filter(|&end| end <= self.out.len());
        self.pos = end.ok_or(Error::Inconsistent)?;
        Ok(())
    }

    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.pos + bytes.len();
        self.out
            .get_mut(self.pos..end)
            .ok_or(Error::Inconsistent)?
            .copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn write_with_slack_and_without_gives_the_same_bytes() {
        let t = tape(&[
            UINT64,
            0,
            u32::MAX,
            u32::MAX,
            FORK,
            0,
            INT32,
            u32::MAX,
            LDELIM,
            0,
        ]);
        let mut replay = Replay::new();
        let size = replay.measure(&t).unwrap();
        assert_eq!(size, 10 + 1 + 10);
        let mut exact = vec![0; size];
        let mut slack = vec![0xaa; size + WRITE_SLACK];
        assert_eq!(replay.write(&t, &mut exact), Ok(size));
        assert_eq!(replay.write(&t, &mut slack), Ok(size));
        assert_eq!(&slack[..size], &exact[..]);
        assert!(
            slack[size..].iter().all(|&b| b == 0xaa),
            "nothing written past the size"
        );
    }

    #[test]
    fn a_reference_leaves_a_hole_behind_its_length_prefix_and_reports_where() {
        // 10 | fork [ 18 | ref 0 (200 bytes) ] | ref 1 (3 bytes)
        let t = tape(&[
            UINT32, 10, FORK, 0, UINT32, 18, BYTES_REF, 200, 0, 0, LDELIM, 0, BYTES_REF, 3, 1, 0,
        ]);
        let mut replay = Replay::new();
        let size = replay.measure(&t).unwrap();
        assert_eq!(size, 1 + 2 + 1 + 2 + 200 + 1 + 3);
        let mut out = vec![0xee; size];
        assert_eq!(replay.write(&t, &mut out), Ok(size));
        assert_eq!(replay.holes(), &[(0, 6), (1, 207)]);
        assert_eq!(&out[..6], &[10, 0xcb, 0x01, 18, 0xc8, 0x01]);
        assert!(
            out[6..206].iter().all(|&b| b == 0xee),
            "the hole is left alone"
        );
        assert_eq!(&out[206..207], &[3]);
        let mut forward = vec![0; forward_bound(t.len()) + 300];
        assert!(replay.write_forward(&t, &mut forward).is_err());
    }

    #[test]
    fn write_forward_gives_up_on_deep_nesting_of_long_sections_and_two_passes_agree() {
        // 2,000 nested sections around 200 bytes: every level shifts everything inside it.
        let mut words = Vec::new();
        for _ in 0..2000 {
            words.extend_from_slice(&[UINT32, 10, FORK, 0]);
        }
        for _ in 0..200 {
            words.extend_from_slice(&[UINT32, 1]);
        }
        for _ in 0..2000 {
            words.extend_from_slice(&[LDELIM, 0]);
        }
        let t = tape(&words);
        let mut replay = Replay::new();
        let mut out = vec![0; forward_bound(t.len())];
        assert_eq!(replay.write_forward(&t, &mut out), Ok(None));
        let mut expected = vec![1u8; 200];
        for _ in 0..2000 {
            let mut level = vec![10u8];
            let mut len = expected.len();
            while len >= 0x80 {
                level.push(len as u8 | 0x80);
                len >>= 7;
            }
            level.push(len as u8);
            level.extend_from_slice(&expected);
            expected = level;
        }
        assert_eq!(replay.encode(&t).unwrap(), expected);
        // A few levels fit the budget and match the two passes.
        let shallow = [
            tape(&[UINT32, 10, FORK, 0, BYTES, 300]),
            vec![7; 304], // payloads fill whole records of 8 bytes
            tape(&[LDELIM, 0]),
        ]
        .concat();
        let mut out = vec![0; forward_bound(shallow.len())];
        let n = replay.write_forward(&shallow, &mut out).unwrap().unwrap();
        assert_eq!(&out[..n], &replay.encode(&shallow).unwrap()[..]);
    }

    #[test]
    fn write_refuses_an_output_shorter_than_the_measured_size() {
        let t = tape(&[UINT32, 300]);
        let mut replay = Replay::new();
        assert_eq!(replay.measure(&t), Ok(2));
        assert_eq!(replay.write(&t, &mut [0; 1]), Err(Error::Inconsistent));
    }

    #[test]
    fn a_length_past_the_end_of_the_tape_is_truncated_not_a_panic() {
        for op in [
            BYTES,
            RAW,
            PACKED_UINT32,
            PACKED_FIXED32,
            PACKED_UINT64,
            PACKED_FIXED64,
        ] {
            for count in [9, 17, u32::MAX / 4, u32::MAX / 2, u32::MAX] {
                let t = tape(&[op, count, 0, 0]);
                let err = Replay::new().measure(&t).unwrap_err();
                assert!(
                    matches!(err, Error::Truncated { at: 0 }),
                    "{op} {count}: {err:?}"
                );
            }
        }
    }
}
