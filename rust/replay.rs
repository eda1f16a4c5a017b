//! Tape → protobuf wire bytes.
//!
//! Two passes over the same tape: [`Replay::measure`] computes the exact output size and the
//! length of every length-delimited section (so prefixes never need shifting), then
//! [`Replay::write`] writes the bytes. Every read from the tape is bounds-checked and every
//! problem is an [`Error`]: no tape, however malformed, makes the replay panic, loop, or touch
//! memory outside the slices it was given. Nesting is tracked with heap stacks, never recursion.

use crate::error::{Error, Result};
use crate::opcode::{payload_words, Op, WORD_BYTES};
use crate::varint::{encode_varint, encoded_len_varint, int32_to_varint, zigzag32, zigzag64};

/// Largest message the replay produces, in bytes: every length and offset then fits the `int32`
/// words of the JS side's views.
pub const MAX_OUTPUT: usize = i32::MAX as usize;

/// The byte a fork that was never closed leaves in the output. protobuf.js 8.x emits an
/// uninitialized placeholder byte there; this writer emits a zero so the output is deterministic.
pub const OPEN_FORK_PLACEHOLDER: u8 = 0;

/// Marks a fork that was still open at the end of the tape.
const OPEN: u32 = u32::MAX;

/// How the elements of a packed record are encoded.
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

    /// The varint value of one element.
    #[inline]
    fn value(self, element: &[u8]) -> u64 {
        match self {
            Packed::Uint32 => u64::from(word(element)),
            Packed::Int32 => int32_to_varint(word(element) as i32),
            Packed::Sint32 => u64::from(zigzag32(word(element) as i32)),
            Packed::Uint64 => dword(element),
            Packed::Sint64 => zigzag64(dword(element) as i64),
        }
    }
}

/// One decoded tape record.
#[derive(Debug)]
enum Record<'t> {
    /// A varint, already zig-zagged or sign-extended.
    Varint(u64),
    /// Little-endian bytes copied as they are (`fixed32`, `float`, `fixed64`, `double`).
    Fixed(&'t [u8]),
    Fork,
    Ldelim,
    /// Length prefix, then the payload.
    Bytes(&'t [u8]),
    /// The payload only.
    Raw(&'t [u8]),
    /// Length prefix, then the elements as varints.
    PackedVarint(Packed, &'t [u8]),
    /// Length prefix, then the elements' bytes as they are.
    PackedFixed(&'t [u8]),
}

#[inline]
fn word(bytes: &[u8]) -> u32 {
    let mut le = [0u8; 4];
    le.copy_from_slice(&bytes[..4]);
    u32::from_le_bytes(le)
}

#[inline]
fn dword(bytes: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(le)
}

/// The bytes of `count` words of `tape` starting at word `at`, if they all lie within it.
#[inline]
fn span(tape: &[u8], at: usize, count: usize) -> Result<&[u8]> {
    at.checked_add(count)
        .and_then(|end| end.checked_mul(WORD_BYTES))
        .and_then(|end| tape.get(at * WORD_BYTES..end))
        .ok_or(Error::Truncated { at })
}

/// Words of a record with a 2-word header and `payload` more words; `None` if that overflows.
#[inline]
fn record_words(payload: Option<usize>) -> Option<usize> {
    payload?.checked_add(2)
}

/// Decodes the record starting at word `at` of `tape`; returns it and the word after it.
#[inline]
fn decode(tape: &[u8], at: usize) -> Result<(Record<'_>, usize)> {
    let head = span(tape, at, 2)?;
    let (opcode, operand) = (word(head), word(&head[4..]));
    let op = Op::from_word(opcode).ok_or(Error::UnknownOpcode { at, word: opcode })?;
    let count = operand as usize;
    // The record's words and the part of them holding its payload or elements.
    let (total, body_len) = match op {
        Op::Uint32 | Op::Int32 | Op::Sint32 | Op::Fixed32 | Op::Fork | Op::Ldelim => (Some(2), 0),
        Op::Uint64 | Op::Sint64 | Op::Fixed64 => (Some(4), 8),
        Op::Bytes | Op::Raw => (record_words(Some(payload_words(count))), count),
        Op::PackedUint32 | Op::PackedInt32 | Op::PackedSint32 | Op::PackedFixed32 => (
            record_words(count.checked_add(count & 1)),
            count.wrapping_mul(4),
        ),
        Op::PackedUint64 | Op::PackedSint64 | Op::PackedFixed64 => {
            (record_words(count.checked_mul(2)), count.wrapping_mul(8))
        }
    };
    let total = total.ok_or(Error::Truncated { at })?;
    let bytes = span(tape, at, total)?;
    // The words span is at least 8 + body_len bytes whenever the arithmetic above did not
    // overflow, which `span` has just confirmed.
    let body = bytes.get(8..8 + body_len).ok_or(Error::Truncated { at })?;
    let record = match op {
        Op::Uint32 => Record::Varint(u64::from(operand)),
        Op::Int32 => Record::Varint(int32_to_varint(operand as i32)),
        Op::Sint32 => Record::Varint(u64::from(zigzag32(operand as i32))),
        Op::Fixed32 => Record::Fixed(&head[4..8]),
        Op::Uint64 => Record::Varint(dword(body)),
        Op::Sint64 => Record::Varint(zigzag64(dword(body) as i64)),
        Op::Fixed64 => Record::Fixed(body),
        Op::Fork => Record::Fork,
        Op::Ldelim => Record::Ldelim,
        Op::Bytes => Record::Bytes(body),
        Op::Raw => Record::Raw(body),
        Op::PackedUint32 => Record::PackedVarint(Packed::Uint32, body),
        Op::PackedInt32 => Record::PackedVarint(Packed::Int32, body),
        Op::PackedSint32 => Record::PackedVarint(Packed::Sint32, body),
        Op::PackedUint64 => Record::PackedVarint(Packed::Uint64, body),
        Op::PackedSint64 => Record::PackedVarint(Packed::Sint64, body),
        Op::PackedFixed32 | Op::PackedFixed64 => Record::PackedFixed(body),
    };
    Ok((record, at + total))
}

/// Sum of the varint lengths of a packed body's elements.
#[inline]
fn packed_varint_len(kind: Packed, body: &[u8]) -> u64 {
    body.chunks_exact(kind.stride())
        .map(|element| encoded_len_varint(kind.value(element)) as u64)
        .sum()
}

/// Reusable state of the two passes. Keep one per thread and reuse it: after warm-up a replay
/// allocates nothing.
#[derive(Debug, Default)]
pub struct Replay {
    /// Content length of each fork and varint-packed record, in tape order (`OPEN` for a fork
    /// never closed). Filled by `measure`, read by `write`.
    lens: Vec<u32>,
    /// Forks open during `measure`: their index in `lens` and the output size when they opened.
    open: Vec<(usize, u64)>,
    /// Lengths of the `LDELIM`s that found no open fork, in tape order.
    wraps: Vec<u32>,
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
        let words = tape.len() / WORD_BYTES;
        let mut size: u64 = 0;
        let mut at = 0;
        while at < words {
            let (record, next) = decode(tape, at)?;
            size += match record {
                Record::Varint(value) => encoded_len_varint(value) as u64,
                Record::Fixed(bytes) | Record::Raw(bytes) => bytes.len() as u64,
                Record::Fork => {
                    self.open.push((self.lens.len(), size));
                    self.lens.push(OPEN);
                    0
                }
                Record::Ldelim => {
                    let (start, wrap) = match self.open.pop() {
                        Some((index, start)) => (start, Some(index)),
                        None => (0, None),
                    };
                    let len = section_len(size - start)?;
                    match wrap {
                        Some(index) => self.lens[index] = len,
                        None => self.wraps.push(len),
                    }
                    encoded_len_varint(u64::from(len)) as u64
                }
                Record::Bytes(payload) | Record::PackedFixed(payload) => {
                    let len = section_len(payload.len() as u64)?;
                    (encoded_len_varint(u64::from(len)) + payload.len()) as u64
                }
                Record::PackedVarint(kind, body) => {
                    let len = section_len(packed_varint_len(kind, body))?;
                    self.lens.push(len);
                    encoded_len_varint(u64::from(len)) as u64 + u64::from(len)
                }
            };
            if size > MAX_OUTPUT as u64 {
                return Err(Error::TooLarge { size });
            }
            at = next;
        }
        // Each fork left open leaves its placeholder byte.
        size += self.open.len() as u64;
        if size > MAX_OUTPUT as u64 {
            return Err(Error::TooLarge { size });
        }
        Ok(size as usize)
    }

    /// Pass 2: writes `tape`, which must be the tape just given to [`Replay::measure`], into
    /// `out`, which must be exactly the measured size. Anything else is an error, never a panic.
    pub fn write(&self, tape: &[u8], out: &mut [u8]) -> Result<()> {
        let mut sink = Sink { out, pos: 0 };
        // LDELIMs without an open fork prefix everything before them, so the last one's prefix
        // comes first.
        for &len in self.wraps.iter().rev() {
            sink.varint(u64::from(len))?;
        }
        let words = tape.len() / WORD_BYTES;
        let mut sections = self.lens.iter();
        let mut depth = 0usize;
        let mut at = 0;
        while at < words {
            let (record, next) = decode(tape, at)?;
            match record {
                Record::Varint(value) => sink.varint(value)?,
                Record::Fixed(bytes) | Record::Raw(bytes) => sink.bytes(bytes)?,
                Record::Fork => {
                    depth += 1;
                    match *sections.next().ok_or(Error::Inconsistent)? {
                        OPEN => sink.bytes(&[OPEN_FORK_PLACEHOLDER])?,
                        len => sink.varint(u64::from(len))?,
                    }
                }
                Record::Ldelim => depth = depth.saturating_sub(1),
                Record::Bytes(payload) | Record::PackedFixed(payload) => {
                    sink.varint(payload.len() as u64)?;
                    sink.bytes(payload)?;
                }
                Record::PackedVarint(kind, body) => {
                    let len = *sections.next().ok_or(Error::Inconsistent)?;
                    sink.varint(u64::from(len))?;
                    let end = sink.pos + len as usize;
                    for element in body.chunks_exact(kind.stride()) {
                        sink.varint(kind.value(element))?;
                    }
                    if sink.pos != end {
                        return Err(Error::Inconsistent);
                    }
                }
            }
            at = next;
        }
        if sink.pos != sink.out.len() {
            return Err(Error::Inconsistent);
        }
        Ok(())
    }

    /// Both passes into a new `Vec`: for tests and Rust callers.
    pub fn encode(&mut self, tape: &[u8]) -> Result<Vec<u8>> {
        let size = self.measure(tape)?;
        let mut out = vec![0; size];
        self.write(tape, &mut out)?;
        Ok(out)
    }
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
    #[inline]
    fn varint(&mut self, value: u64) -> Result<()> {
        let rest = self.out.get_mut(self.pos..).ok_or(Error::Inconsistent)?;
        self.pos += encode_varint(value, rest).ok_or(Error::Inconsistent)?;
        Ok(())
    }

    #[inline]
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
