//! The replay of a tape equals prost's encoding of the same message.
//!
//! Each test builds prost messages (defined by hand below, proto3 semantics), records the writer
//! calls protobuf.js's generated encoder would make for them into a tape (see
//! `protobufjs_rustwriter::opcode` for the format), replays the tape, and compares the bytes with
//! `prost::Message::encode_to_vec`. Values come from a seeded xorshift generator that favours
//! the edges of every encoding (varint length steps, sign bits, NaN, -0.0, infinities).
//!
//! Where protobuf.js and prost legitimately choose different (equally valid) encodings, the tape
//! follows prost's choice, since the point is the replay and not the generated code: proto3
//! fields equal to their default are left out (prost compares floats with `!=`, so `-0.0` is left
//! out too), and map entries omit a default key or value.

use std::collections::BTreeMap;

use prost::Message;
use protobufjs_rustwriter::opcode::Op;
use protobufjs_rustwriter::replay::{forward_bound, Replay, WRITE_SLACK};

// ---------------------------------------------------------------------------------------------
// Tape builder
// ---------------------------------------------------------------------------------------------

/// Wire types, for tags.
const VARINT: u32 = 0;
const I64: u32 = 1;
const LEN: u32 = 2;
const I32: u32 = 5;

/// A tape under construction, with methods named after protobuf.js's `Writer`.
#[derive(Default)]
struct Tape {
    words: Vec<u32>,
    /// Word index of each open `FORK` record, innermost last (for the records' link operand).
    forks: Vec<usize>,
}

impl Tape {
    fn new() -> Self {
        Self::default()
    }

    /// A two-word record: `[op, operand]`.
    fn record(&mut self, op: Op, operand: u32) -> &mut Self {
        self.words.extend([op as u32, operand]);
        self
    }

    /// A four-word record: `[op, 0, lo, hi]`.
    fn record64(&mut self, op: Op, value: u64) -> &mut Self {
        self.words
            .extend([op as u32, 0, value as u32, (value >> 32) as u32]);
        self
    }

    /// `[op, len]`, then the payload zero-padded to a multiple of 8 bytes.
    fn payload(&mut self, op: Op, bytes: &[u8]) -> &mut Self {
        let len = u32::try_from(bytes.len()).expect("payload fits a tape word");
        self.record(op, len);
        for chunk in bytes.chunks(8) {
            let mut padded = [0u8; 8];
            padded[..chunk.len()].copy_from_slice(chunk);
            self.words.extend([
                u32::from_le_bytes([padded[0], padded[1], padded[2], padded[3]]),
                u32::from_le_bytes([padded[4], padded[5], padded[6], padded[7]]),
            ]);
        }
        self
    }

    /// `[op, count]`, then one word per value, then a zero word if `count` is odd.
    fn packed32(&mut self, op: Op, values: impl ExactSizeIterator<Item = u32>) -> &mut Self {
        let count = values.len();
        self.record(op, u32::try_from(count).expect("count fits a tape word"));
        self.words.extend(values);
        if count % 2 == 1 {
            self.words.push(0);
        }
        self
    }

    /// `[op, count]`, then a (lo, hi) pair per value.
    fn packed64(&mut self, op: Op, values: impl ExactSizeIterator<Item = u64>) -> &mut Self {
        let count = values.len();
        self.record(op, u32::try_from(count).expect("count fits a tape word"));
        for value in values {
            self.words.extend([value as u32, (value >> 32) as u32]);
        }
        self
    }

    fn tag(&mut self, field: u32, wire_type: u32) -> &mut Self {
        self.uint32(field << 3 | wire_type)
    }

    fn uint32(&mut self, value: u32) -> &mut Self {
        self.record(Op::Uint32, value)
    }

    fn int32(&mut self, value: i32) -> &mut Self {
        self.record(Op::Int32, value as u32)
    }

    fn sint32(&mut self, value: i32) -> &mut Self {
        self.record(Op::Sint32, value as u32)
    }

    fn fixed32(&mut self, value: u32) -> &mut Self {
        self.record(Op::Fixed32, value)
    }

    fn sfixed32(&mut self, value: i32) -> &mut Self {
        self.record(Op::Fixed32, value as u32)
    }

    fn float(&mut self, value: f32) -> &mut Self {
        self.record(Op::Fixed32, value.to_bits())
    }

    fn bool(&mut self, value: bool) -> &mut Self {
        self.record(Op::Uint32, u32::from(value))
    }

    fn uint64(&mut self, value: u64) -> &mut Self {
        self.record64(Op::Uint64, value)
    }

    fn int64(&mut self, value: i64) -> &mut Self {
        self.record64(Op::Uint64, value as u64)
    }

    fn sint64(&mut self, value: i64) -> &mut Self {
        self.record64(Op::Sint64, value as u64)
    }

    fn fixed64(&mut self, value: u64) -> &mut Self {
        self.record64(Op::Fixed64, value)
    }

    fn sfixed64(&mut self, value: i64) -> &mut Self {
        self.record64(Op::Fixed64, value as u64)
    }

    fn double(&mut self, value: f64) -> &mut Self {
        self.record64(Op::Fixed64, value.to_bits())
    }

    fn bytes(&mut self, value: &[u8]) -> &mut Self {
        self.payload(Op::Bytes, value)
    }

    fn string(&mut self, value: &str) -> &mut Self {
        self.payload(Op::Bytes, value.as_bytes())
    }

    fn raw(&mut self, value: &[u8]) -> &mut Self {
        self.payload(Op::Raw, value)
    }

    fn fork(&mut self) -> &mut Self {
        let link = self.forks.last().map_or(0, |&at| at as u32);
        self.forks.push(self.words.len());
        self.record(Op::Fork, link)
    }

    fn ldelim(&mut self) -> &mut Self {
        self.forks.pop();
        self.record(Op::Ldelim, 0)
    }

    fn uint32s(&mut self, values: &[u32]) -> &mut Self {
        self.packed32(Op::PackedUint32, values.iter().copied())
    }

    fn int32s(&mut self, values: &[i32]) -> &mut Self {
        self.packed32(Op::PackedInt32, values.iter().map(|&v| v as u32))
    }

    fn sint32s(&mut self, values: &[i32]) -> &mut Self {
        self.packed32(Op::PackedSint32, values.iter().map(|&v| v as u32))
    }

    fn fixed32s(&mut self, values: &[u32]) -> &mut Self {
        self.packed32(Op::PackedFixed32, values.iter().copied())
    }

    fn sfixed32s(&mut self, values: &[i32]) -> &mut Self {
        self.packed32(Op::PackedFixed32, values.iter().map(|&v| v as u32))
    }

    fn floats(&mut self, values: &[f32]) -> &mut Self {
        self.packed32(Op::PackedFixed32, values.iter().map(|v| v.to_bits()))
    }

    fn bools(&mut self, values: &[bool]) -> &mut Self {
        self.packed32(Op::PackedUint32, values.iter().map(|&v| u32::from(v)))
    }

    fn uint64s(&mut self, values: &[u64]) -> &mut Self {
        self.packed64(Op::PackedUint64, values.iter().copied())
    }

    fn int64s(&mut self, values: &[i64]) -> &mut Self {
        self.packed64(Op::PackedUint64, values.iter().map(|&v| v as u64))
    }

    fn sint64s(&mut self, values: &[i64]) -> &mut Self {
        self.packed64(Op::PackedSint64, values.iter().map(|&v| v as u64))
    }

    fn fixed64s(&mut self, values: &[u64]) -> &mut Self {
        self.packed64(Op::PackedFixed64, values.iter().copied())
    }

    fn sfixed64s(&mut self, values: &[i64]) -> &mut Self {
        self.packed64(Op::PackedFixed64, values.iter().map(|&v| v as u64))
    }

    fn doubles(&mut self, values: &[f64]) -> &mut Self {
        self.packed64(Op::PackedFixed64, values.iter().map(|v| v.to_bits()))
    }

    /// The tape as `Replay` reads it: the words as little-endian bytes.
    fn to_bytes(&self) -> Vec<u8> {
        assert!(
            self.words.len().is_multiple_of(2),
            "every record is an even number of words"
        );
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

#[test]
fn tape_builder_lays_out_records_as_the_format_describes() {
    let mut tape = Tape::new();
    tape.uint32(7)
        .double(-2.0)
        .string("abcdefghi")
        .int32s(&[1, -1, 3]);
    tape.fork().fork().ldelim().ldelim();
    let d = (-2.0f64).to_bits();
    let expected: Vec<u32> = vec![
        Op::Uint32 as u32,
        7,
        Op::Fixed64 as u32,
        0,
        d as u32,
        (d >> 32) as u32,
        Op::Bytes as u32,
        9,
        u32::from_le_bytes(*b"abcd"),
        u32::from_le_bytes(*b"efgh"),
        u32::from(b'i'),
        0,
        Op::PackedInt32 as u32,
        3,
        1,
        u32::MAX,
        3,
        0,
        Op::Fork as u32,
        0,
        Op::Fork as u32,
        18,
        Op::Ldelim as u32,
        0,
        Op::Ldelim as u32,
        0,
    ];
    assert_eq!(tape.words, expected);
    assert_eq!(tape.to_bytes().len(), expected.len() * 4);
}

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

/// One tape and the bytes it must replay to.
struct Case {
    name: String,
    tape: Vec<u8>,
    expected: Vec<u8>,
}

impl Case {
    fn new<M: Message>(name: impl Into<String>, message: &M, tape: &Tape) -> Case {
        let expected = message.encode_to_vec();
        assert_eq!(expected.len(), message.encoded_len());
        Case::from_bytes(name, tape, expected)
    }

    fn from_bytes(name: impl Into<String>, tape: &Tape, expected: Vec<u8>) -> Case {
        Case {
            name: name.into(),
            tape: tape.to_bytes(),
            expected,
        }
    }

    /// Replays with a fresh `Replay`.
    fn check(&self) {
        self.check_with(&mut Replay::new());
    }

    /// Replays with `replay` (measure, then encode) and compares with the expected bytes.
    fn check_with(&self, replay: &mut Replay) {
        let measured = replay
            .measure(&self.tape)
            .unwrap_or_else(|e| panic!("{}: measure failed: {e:?}\n{}", self.name, self.dump()));
        let got = replay
            .encode(&self.tape)
            .unwrap_or_else(|e| panic!("{}: encode failed: {e:?}\n{}", self.name, self.dump()));
        if got != self.expected {
            let at = got
                .iter()
                .zip(&self.expected)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(self.expected.len()));
            panic!(
                "{}: replay differs from prost at byte {at} (replay {} bytes, prost {} bytes)\n\
                 replay: {}\nprost:  {}\n{}",
                self.name,
                got.len(),
                self.expected.len(),
                hex_around(&got, at),
                hex_around(&self.expected, at),
                self.dump(),
            );
        }
        assert_eq!(
            measured,
            self.expected.len(),
            "{}: measured size",
            self.name
        );
        // The one-pass replay gives the same bytes within its bound, and writes nothing past it.
        // It gives up (for the two passes) only on the long chains of nested long sections.
        let bound = forward_bound(self.tape.len());
        let mut out = vec![0xa5; bound + 64];
        let Some(written) = replay
            .write_forward(&self.tape, &mut out[..bound])
            .unwrap_or_else(|e| panic!("{}: write_forward failed: {e:?}", self.name))
        else {
            assert!(
                ["chain 300x", "chain 2000x"]
                    .iter()
                    .any(|deep| self.name.starts_with(deep)),
                "{}: write_forward gave up on a shallow message",
                self.name
            );
            return;
        };
        assert!(
            written + WRITE_SLACK <= bound,
            "{}: bound too small",
            self.name
        );
        assert!(
            out[..written] == self.expected[..],
            "{}: write_forward differs from prost",
            self.name
        );
        assert!(
            out[bound..].iter().all(|&b| b == 0xa5),
            "{}: write_forward wrote past its output",
            self.name
        );
    }

    /// The tape's words, if it is short enough to read.
    fn dump(&self) -> String {
        if self.tape.len() > 512 {
            return format!("tape: {} words", self.tape.len() / 4);
        }
        let words: Vec<String> = self
            .tape
            .chunks_exact(4)
            .map(|w| format!("{:#x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
            .collect();
        format!("tape words: [{}]", words.join(", "))
    }
}

/// Up to 32 bytes of `bytes` around offset `at`, in hex.
fn hex_around(bytes: &[u8], at: usize) -> String {
    let start = at.saturating_sub(16);
    let end = (at + 16).min(bytes.len());
    let hex: Vec<String> = bytes
        .get(start..end)
        .unwrap_or(&[])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("[{start}..{end}] {}", hex.join(" "))
}

/// Writes `message` as a length-delimited field `field` the way generated code does:
/// `Type.encode(message, writer.uint32(tag).fork()).ldelim()`.
fn submessage<T>(t: &mut Tape, field: u32, message: &T, encode: fn(&T, &mut Tape)) {
    t.tag(field, LEN).fork();
    encode(message, t);
    t.ldelim();
}

// ---------------------------------------------------------------------------------------------
// Deterministic values
// ---------------------------------------------------------------------------------------------

const U32_EDGES: &[u32] = &[
    0,
    1,
    127,
    128,
    16_383,
    16_384,
    2_097_151,
    2_097_152,
    268_435_455,
    268_435_456,
    i32::MAX as u32,
    1 << 31,
    u32::MAX,
];

const I32_EDGES: &[i32] = &[
    0,
    1,
    -1,
    63,
    64,
    -64,
    -65,
    127,
    128,
    -128,
    16_383,
    16_384,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
];

const U64_EDGES: &[u64] = &[
    0,
    1,
    127,
    128,
    16_383,
    16_384,
    u32::MAX as u64,
    1 << 32,
    (1 << 35) - 1,
    1 << 35,
    (1 << 56) - 1,
    1 << 56,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX,
];

const I64_EDGES: &[i64] = &[
    0,
    1,
    -1,
    63,
    64,
    -64,
    -65,
    i32::MAX as i64,
    i32::MIN as i64,
    u32::MAX as i64,
    -(1 << 35),
    1 << 49,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];

const F32_EDGES: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    f32::EPSILON,
    f32::from_bits(1),
    f32::from_bits(0x7fc0_0001),
    f32::from_bits(0xffc0_0000),
];

const F64_EDGES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    f64::MAX,
    f64::MIN,
    f64::EPSILON,
    f64::from_bits(1),
    f64::from_bits(0x7ff8_0000_0000_0001),
    f64::from_bits(0xfff8_0000_0000_0000),
];

/// Pieces strings are made of: one of every UTF-8 length, and the edges of each.
const STRING_PIECES: &[&str] = &[
    "a",
    "protobuf",
    "\u{0}",
    "\u{7f}",
    "\u{80}",
    "é",
    "\u{7ff}",
    "\u{800}",
    "日本語",
    "\u{ffff}",
    "\u{10000}",
    "🦀",
    "\u{10ffff}",
];

/// xorshift64: small, seeded, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A random number of random bits, so every varint length is common.
    fn bits(&mut self) -> u64 {
        let shift = self.below(64);
        self.next_u64() >> shift
    }

    fn u32(&mut self) -> u32 {
        if self.one_in(3) {
            self.pick(U32_EDGES)
        } else {
            self.bits() as u32
        }
    }

    fn i32(&mut self) -> i32 {
        if self.one_in(3) {
            self.pick(I32_EDGES)
        } else if self.one_in(2) {
            (self.bits() as u32 as i32).wrapping_neg()
        } else {
            self.bits() as u32 as i32
        }
    }

    fn u64(&mut self) -> u64 {
        if self.one_in(3) {
            self.pick(U64_EDGES)
        } else {
            self.bits()
        }
    }

    fn i64(&mut self) -> i64 {
        if self.one_in(3) {
            self.pick(I64_EDGES)
        } else if self.one_in(2) {
            (self.bits() as i64).wrapping_neg()
        } else {
            self.bits() as i64
        }
    }

    fn f32(&mut self) -> f32 {
        if self.one_in(2) {
            self.pick(F32_EDGES)
        } else {
            f32::from_bits(self.next_u64() as u32)
        }
    }

    fn f64(&mut self) -> f64 {
        if self.one_in(2) {
            self.pick(F64_EDGES)
        } else {
            f64::from_bits(self.next_u64())
        }
    }

    fn bool(&mut self) -> bool {
        self.one_in(2)
    }

    /// An open-enum value: a known variant most of the time, any `int32` otherwise.
    fn kind(&mut self) -> i32 {
        if self.one_in(4) {
            self.i32()
        } else {
            self.pick(&[Kind::Zero, Kind::One, Kind::Big, Kind::Negative]) as i32
        }
    }

    /// Mostly short lengths, sometimes long enough to need a 2-byte length prefix.
    fn len(&mut self, max: usize) -> usize {
        if self.one_in(8) {
            self.below(max + 1)
        } else {
            self.below(max.min(6) + 1)
        }
    }

    fn string(&mut self, max_pieces: usize) -> String {
        let n = self.len(max_pieces);
        (0..n).map(|_| self.pick(STRING_PIECES)).collect()
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.len(max);
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    fn vec<T>(&mut self, max: usize, mut item: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        let n = self.len(max);
        (0..n).map(|_| item(self)).collect()
    }

    /// `value()` three times out of four, the type's default otherwise.
    fn maybe<T: Default>(&mut self, value: impl FnOnce(&mut Rng) -> T) -> T {
        if self.one_in(4) {
            T::default()
        } else {
            value(self)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
enum Kind {
    Zero = 0,
    One = 1,
    Big = 1000,
    Negative = -1,
}

/// Every scalar kind, plus proto3 `optional` fields, which are written even when default.
#[derive(Clone, PartialEq, prost::Message)]
struct Scalars {
    #[prost(double, tag = "1")]
    double: f64,
    #[prost(float, tag = "2")]
    float: f32,
    #[prost(int32, tag = "3")]
    int32: i32,
    #[prost(int64, tag = "4")]
    int64: i64,
    #[prost(uint32, tag = "5")]
    uint32: u32,
    #[prost(uint64, tag = "6")]
    uint64: u64,
    #[prost(sint32, tag = "7")]
    sint32: i32,
    #[prost(sint64, tag = "8")]
    sint64: i64,
    #[prost(fixed32, tag = "9")]
    fixed32: u32,
    #[prost(fixed64, tag = "10")]
    fixed64: u64,
    #[prost(sfixed32, tag = "11")]
    sfixed32: i32,
    #[prost(sfixed64, tag = "12")]
    sfixed64: i64,
    #[prost(bool, tag = "13")]
    boolean: bool,
    #[prost(string, tag = "14")]
    string: String,
    #[prost(bytes = "vec", tag = "15")]
    bytes: Vec<u8>,
    #[prost(enumeration = "Kind", tag = "16")]
    kind: i32,
    #[prost(double, optional, tag = "17")]
    opt_double: Option<f64>,
    #[prost(float, optional, tag = "18")]
    opt_float: Option<f32>,
    #[prost(int32, optional, tag = "19")]
    opt_int32: Option<i32>,
    #[prost(sint64, optional, tag = "20")]
    opt_sint64: Option<i64>,
    #[prost(bool, optional, tag = "21")]
    opt_bool: Option<bool>,
    #[prost(string, optional, tag = "22")]
    opt_string: Option<String>,
    #[prost(enumeration = "Kind", optional, tag = "23")]
    opt_kind: Option<i32>,
    /// A field number whose tag needs a 5-byte varint.
    #[prost(uint32, tag = "536870911")]
    last: u32,
}

fn scalars_to_tape(m: &Scalars, t: &mut Tape) {
    if m.double != 0.0 {
        t.tag(1, I64).double(m.double);
    }
    if m.float != 0.0 {
        t.tag(2, I32).float(m.float);
    }
    if m.int32 != 0 {
        t.tag(3, VARINT).int32(m.int32);
    }
    if m.int64 != 0 {
        t.tag(4, VARINT).int64(m.int64);
    }
    if m.uint32 != 0 {
        t.tag(5, VARINT).uint32(m.uint32);
    }
    if m.uint64 != 0 {
        t.tag(6, VARINT).uint64(m.uint64);
    }
    if m.sint32 != 0 {
        t.tag(7, VARINT).sint32(m.sint32);
    }
    if m.sint64 != 0 {
        t.tag(8, VARINT).sint64(m.sint64);
    }
    if m.fixed32 != 0 {
        t.tag(9, I32).fixed32(m.fixed32);
    }
    if m.fixed64 != 0 {
        t.tag(10, I64).fixed64(m.fixed64);
    }
    if m.sfixed32 != 0 {
        t.tag(11, I32).sfixed32(m.sfixed32);
    }
    if m.sfixed64 != 0 {
        t.tag(12, I64).sfixed64(m.sfixed64);
    }
    if m.boolean {
        t.tag(13, VARINT).bool(m.boolean);
    }
    if !m.string.is_empty() {
        t.tag(14, LEN).string(&m.string);
    }
    if !m.bytes.is_empty() {
        t.tag(15, LEN).bytes(&m.bytes);
    }
    if m.kind != 0 {
        t.tag(16, VARINT).int32(m.kind);
    }
    if let Some(v) = m.opt_double {
        t.tag(17, I64).double(v);
    }
    if let Some(v) = m.opt_float {
        t.tag(18, I32).float(v);
    }
    if let Some(v) = m.opt_int32 {
        t.tag(19, VARINT).int32(v);
    }
    if let Some(v) = m.opt_sint64 {
        t.tag(20, VARINT).sint64(v);
    }
    if let Some(v) = m.opt_bool {
        t.tag(21, VARINT).bool(v);
    }
    if let Some(v) = &m.opt_string {
        t.tag(22, LEN).string(v);
    }
    if let Some(v) = m.opt_kind {
        t.tag(23, VARINT).int32(v);
    }
    if m.last != 0 {
        t.tag(536_870_911, VARINT).uint32(m.last);
    }
}

fn random_scalars(r: &mut Rng) -> Scalars {
    Scalars {
        double: r.maybe(Rng::f64),
        float: r.maybe(Rng::f32),
        int32: r.maybe(Rng::i32),
        int64: r.maybe(Rng::i64),
        uint32: r.maybe(Rng::u32),
        uint64: r.maybe(Rng::u64),
        sint32: r.maybe(Rng::i32),
        sint64: r.maybe(Rng::i64),
        fixed32: r.maybe(Rng::u32),
        fixed64: r.maybe(Rng::u64),
        sfixed32: r.maybe(Rng::i32),
        sfixed64: r.maybe(Rng::i64),
        boolean: r.bool(),
        string: r.maybe(|r| r.string(40)),
        bytes: r.maybe(|r| r.bytes(200)),
        kind: r.maybe(Rng::kind),
        opt_double: r.bool().then(|| r.f64()),
        opt_float: r.bool().then(|| r.f32()),
        opt_int32: r.bool().then(|| r.i32()),
        opt_sint64: r.bool().then(|| r.i64()),
        opt_bool: r.bool().then(|| r.bool()),
        opt_string: r.bool().then(|| r.string(3)),
        opt_kind: r.bool().then(|| r.kind()),
        last: r.maybe(Rng::u32),
    }
}

fn scalar_cases() -> Vec<Case> {
    let mut r = Rng::new(1);
    let mut cases = vec![Case::new(
        "empty scalars",
        &Scalars::default(),
        &Tape::new(),
    )];
    for i in 0..300 {
        let m = random_scalars(&mut r);
        let mut t = Tape::new();
        scalars_to_tape(&m, &mut t);
        cases.push(Case::new(format!("scalars #{i}"), &m, &t));
    }
    cases
}

#[derive(Clone, PartialEq, prost::Message)]
struct Leaf {
    #[prost(int32, tag = "1")]
    id: i32,
    #[prost(string, tag = "2")]
    name: String,
    #[prost(sint64, repeated, tag = "3")]
    vals: Vec<i64>,
    #[prost(bool, tag = "4")]
    flag: bool,
}

fn leaf_to_tape(m: &Leaf, t: &mut Tape) {
    if m.id != 0 {
        t.tag(1, VARINT).int32(m.id);
    }
    if !m.name.is_empty() {
        t.tag(2, LEN).string(&m.name);
    }
    if !m.vals.is_empty() {
        t.tag(3, LEN).sint64s(&m.vals);
    }
    if m.flag {
        t.tag(4, VARINT).bool(m.flag);
    }
}

fn random_leaf(r: &mut Rng) -> Leaf {
    Leaf {
        id: r.maybe(Rng::i32),
        name: r.maybe(|r| r.string(30)),
        vals: r.vec(40, Rng::i64),
        flag: r.bool(),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
struct Middle {
    #[prost(message, optional, tag = "1")]
    leaf: Option<Leaf>,
    #[prost(message, repeated, tag = "2")]
    leaves: Vec<Leaf>,
    #[prost(uint64, tag = "3")]
    count: u64,
    #[prost(bytes = "vec", tag = "4")]
    blob: Vec<u8>,
}

fn middle_to_tape(m: &Middle, t: &mut Tape) {
    if let Some(leaf) = &m.leaf {
        submessage(t, 1, leaf, leaf_to_tape);
    }
    for leaf in &m.leaves {
        submessage(t, 2, leaf, leaf_to_tape);
    }
    if m.count != 0 {
        t.tag(3, VARINT).uint64(m.count);
    }
    if !m.blob.is_empty() {
        t.tag(4, LEN).bytes(&m.blob);
    }
}

fn random_middle(r: &mut Rng) -> Middle {
    Middle {
        leaf: r.bool().then(|| r.maybe(random_leaf)),
        leaves: r.vec(12, |r| r.maybe(random_leaf)),
        count: r.maybe(Rng::u64),
        blob: r.maybe(|r| r.bytes(300)),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
struct Outer {
    #[prost(message, optional, tag = "1")]
    middle: Option<Middle>,
    #[prost(message, repeated, tag = "2")]
    middles: Vec<Middle>,
    #[prost(string, tag = "3")]
    title: String,
    #[prost(message, optional, tag = "4")]
    leaf: Option<Leaf>,
    #[prost(fixed64, tag = "5")]
    stamp: u64,
}

fn outer_to_tape(m: &Outer, t: &mut Tape) {
    if let Some(middle) = &m.middle {
        submessage(t, 1, middle, middle_to_tape);
    }
    for middle in &m.middles {
        submessage(t, 2, middle, middle_to_tape);
    }
    if !m.title.is_empty() {
        t.tag(3, LEN).string(&m.title);
    }
    if let Some(leaf) = &m.leaf {
        submessage(t, 4, leaf, leaf_to_tape);
    }
    if m.stamp != 0 {
        t.tag(5, I64).fixed64(m.stamp);
    }
}

fn random_outer(r: &mut Rng) -> Outer {
    Outer {
        middle: r.bool().then(|| random_middle(r)),
        middles: r.vec(8, random_middle),
        title: r.maybe(|r| r.string(50)),
        leaf: r.bool().then(|| random_leaf(r)),
        stamp: r.maybe(Rng::u64),
    }
}

fn nested_cases() -> Vec<Case> {
    let mut r = Rng::new(2);
    let mut cases = Vec::new();
    // Present but empty sub-messages at every level: a tag and a zero length each.
    let empty = Outer {
        middle: Some(Middle {
            leaf: Some(Leaf::default()),
            leaves: vec![Leaf::default(); 3],
            ..Middle::default()
        }),
        middles: vec![Middle::default(); 2],
        leaf: Some(Leaf::default()),
        ..Outer::default()
    };
    let mut t = Tape::new();
    outer_to_tape(&empty, &mut t);
    cases.push(Case::new("empty sub-messages", &empty, &t));
    for i in 0..200 {
        let m = random_outer(&mut r);
        let mut t = Tape::new();
        outer_to_tape(&m, &mut t);
        cases.push(Case::new(format!("outer #{i}"), &m, &t));
    }
    cases
}

/// A recursive message, for trees deeper than any generated schema would be.
#[derive(Clone, PartialEq, prost::Message)]
struct Node {
    #[prost(sint32, tag = "1")]
    value: i32,
    #[prost(message, repeated, tag = "2")]
    children: Vec<Node>,
    #[prost(string, tag = "3")]
    label: String,
}

fn node_to_tape(m: &Node, t: &mut Tape) {
    if m.value != 0 {
        t.tag(1, VARINT).sint32(m.value);
    }
    for child in &m.children {
        submessage(t, 2, child, node_to_tape);
    }
    if !m.label.is_empty() {
        t.tag(3, LEN).string(&m.label);
    }
}

fn random_node(r: &mut Rng, depth: usize) -> Node {
    let children = if depth == 0 { 0 } else { r.below(4) };
    Node {
        value: r.maybe(Rng::i32),
        children: (0..children).map(|_| random_node(r, depth - 1)).collect(),
        label: r.maybe(|r| r.string(8)),
    }
}

/// A chain `depth` nodes deep, each with a label of `label_len` bytes.
fn chain(depth: usize, label_len: usize) -> Node {
    let mut node = Node {
        value: -1,
        children: Vec::new(),
        label: "x".repeat(label_len),
    };
    for value in 0..depth as i32 {
        node = Node {
            value,
            children: vec![node],
            label: "y".repeat(label_len),
        };
    }
    node
}

fn tree_cases() -> Vec<Case> {
    let mut r = Rng::new(3);
    let mut cases = Vec::new();
    for i in 0..60 {
        let m = random_node(&mut r, 6);
        let mut t = Tape::new();
        node_to_tape(&m, &mut t);
        cases.push(Case::new(format!("tree #{i}"), &m, &t));
    }
    for (depth, label_len) in [(1, 0), (10, 3), (300, 0), (300, 40), (2000, 1)] {
        let m = chain(depth, label_len);
        let mut t = Tape::new();
        node_to_tape(&m, &mut t);
        cases.push(Case::new(format!("chain {depth}x{label_len}"), &m, &t));
    }
    cases
}

/// Every packable type, packed (the proto3 default).
#[derive(Clone, PartialEq, prost::Message)]
struct Packed {
    #[prost(int32, repeated, tag = "1")]
    int32s: Vec<i32>,
    #[prost(int64, repeated, tag = "2")]
    int64s: Vec<i64>,
    #[prost(uint32, repeated, tag = "3")]
    uint32s: Vec<u32>,
    #[prost(uint64, repeated, tag = "4")]
    uint64s: Vec<u64>,
    #[prost(sint32, repeated, tag = "5")]
    sint32s: Vec<i32>,
    #[prost(sint64, repeated, tag = "6")]
    sint64s: Vec<i64>,
    #[prost(fixed32, repeated, tag = "7")]
    fixed32s: Vec<u32>,
    #[prost(fixed64, repeated, tag = "8")]
    fixed64s: Vec<u64>,
    #[prost(sfixed32, repeated, tag = "9")]
    sfixed32s: Vec<i32>,
    #[prost(sfixed64, repeated, tag = "10")]
    sfixed64s: Vec<i64>,
    #[prost(float, repeated, tag = "11")]
    floats: Vec<f32>,
    #[prost(double, repeated, tag = "12")]
    doubles: Vec<f64>,
    #[prost(bool, repeated, tag = "13")]
    bools: Vec<bool>,
    #[prost(enumeration = "Kind", repeated, tag = "14")]
    kinds: Vec<i32>,
}

/// The same fields, not packed, plus the repeated kinds that are never packed.
#[derive(Clone, PartialEq, prost::Message)]
struct Unpacked {
    #[prost(int32, repeated, packed = "false", tag = "1")]
    int32s: Vec<i32>,
    #[prost(int64, repeated, packed = "false", tag = "2")]
    int64s: Vec<i64>,
    #[prost(uint32, repeated, packed = "false", tag = "3")]
    uint32s: Vec<u32>,
    #[prost(uint64, repeated, packed = "false", tag = "4")]
    uint64s: Vec<u64>,
    #[prost(sint32, repeated, packed = "false", tag = "5")]
    sint32s: Vec<i32>,
    #[prost(sint64, repeated, packed = "false", tag = "6")]
    sint64s: Vec<i64>,
    #[prost(fixed32, repeated, packed = "false", tag = "7")]
    fixed32s: Vec<u32>,
    #[prost(fixed64, repeated, packed = "false", tag = "8")]
    fixed64s: Vec<u64>,
    #[prost(sfixed32, repeated, packed = "false", tag = "9")]
    sfixed32s: Vec<i32>,
    #[prost(sfixed64, repeated, packed = "false", tag = "10")]
    sfixed64s: Vec<i64>,
    #[prost(float, repeated, packed = "false", tag = "11")]
    floats: Vec<f32>,
    #[prost(double, repeated, packed = "false", tag = "12")]
    doubles: Vec<f64>,
    #[prost(bool, repeated, packed = "false", tag = "13")]
    bools: Vec<bool>,
    #[prost(enumeration = "Kind", repeated, packed = "false", tag = "14")]
    kinds: Vec<i32>,
    #[prost(string, repeated, tag = "15")]
    strings: Vec<String>,
    #[prost(bytes = "vec", repeated, tag = "16")]
    blobs: Vec<Vec<u8>>,
    #[prost(message, repeated, tag = "17")]
    leaves: Vec<Leaf>,
}

/// How a packed field is recorded.
#[derive(Clone, Copy, Debug)]
enum Style {
    /// `writer.uint32(tag).int32s(values)`: one packed record (this writer's fast path).
    Records,
    /// `writer.uint32(tag).fork(); for (v of values) writer.int32(v); writer.ldelim()`: what
    /// protobuf.js's generated code does.
    ForkLdelim,
    /// Not packed: `writer.uint32(tag).int32(v)` per value.
    Unpacked,
}

/// One repeated field in `style`; nothing for an empty list, as both protobuf.js and prost do.
fn repeated<T: Copy>(
    t: &mut Tape,
    style: Style,
    field: u32,
    wire_type: u32,
    values: &[T],
    packed: for<'t, 'v> fn(&'t mut Tape, &'v [T]) -> &'t mut Tape,
    single: fn(&mut Tape, T) -> &mut Tape,
) {
    if values.is_empty() {
        return;
    }
    match style {
        Style::Records => {
            packed(t.tag(field, LEN), values);
        }
        Style::ForkLdelim => {
            t.tag(field, LEN).fork();
            for &value in values {
                single(t, value);
            }
            t.ldelim();
        }
        Style::Unpacked => {
            for &value in values {
                single(t.tag(field, wire_type), value);
            }
        }
    }
}

/// The numeric fields 1..=14 of `Packed` / `Unpacked`.
struct Numbers {
    int32s: Vec<i32>,
    int64s: Vec<i64>,
    uint32s: Vec<u32>,
    uint64s: Vec<u64>,
    sint32s: Vec<i32>,
    sint64s: Vec<i64>,
    fixed32s: Vec<u32>,
    fixed64s: Vec<u64>,
    sfixed32s: Vec<i32>,
    sfixed64s: Vec<i64>,
    floats: Vec<f32>,
    doubles: Vec<f64>,
    bools: Vec<bool>,
    kinds: Vec<i32>,
}

fn random_numbers(r: &mut Rng) -> Numbers {
    // Up to 200 elements: long enough for 1-byte varints to cross a 128-byte length.
    Numbers {
        int32s: r.vec(200, Rng::i32),
        int64s: r.vec(200, Rng::i64),
        uint32s: r.vec(200, Rng::u32),
        uint64s: r.vec(200, Rng::u64),
        sint32s: r.vec(200, Rng::i32),
        sint64s: r.vec(200, Rng::i64),
        fixed32s: r.vec(200, Rng::u32),
        fixed64s: r.vec(200, Rng::u64),
        sfixed32s: r.vec(200, Rng::i32),
        sfixed64s: r.vec(200, Rng::i64),
        floats: r.vec(200, Rng::f32),
        doubles: r.vec(200, Rng::f64),
        bools: r.vec(200, Rng::bool),
        kinds: r.vec(200, Rng::kind),
    }
}

fn numbers_to_tape(n: &Numbers, style: Style, t: &mut Tape) {
    repeated(t, style, 1, VARINT, &n.int32s, Tape::int32s, Tape::int32);
    repeated(t, style, 2, VARINT, &n.int64s, Tape::int64s, Tape::int64);
    repeated(t, style, 3, VARINT, &n.uint32s, Tape::uint32s, Tape::uint32);
    repeated(t, style, 4, VARINT, &n.uint64s, Tape::uint64s, Tape::uint64);
    repeated(t, style, 5, VARINT, &n.sint32s, Tape::sint32s, Tape::sint32);
    repeated(t, style, 6, VARINT, &n.sint64s, Tape::sint64s, Tape::sint64);
    repeated(t, style, 7, I32, &n.fixed32s, Tape::fixed32s, Tape::fixed32);
    repeated(t, style, 8, I64, &n.fixed64s, Tape::fixed64s, Tape::fixed64);
    repeated(
        t,
        style,
        9,
        I32,
        &n.sfixed32s,
        Tape::sfixed32s,
        Tape::sfixed32,
    );
    repeated(
        t,
        style,
        10,
        I64,
        &n.sfixed64s,
        Tape::sfixed64s,
        Tape::sfixed64,
    );
    repeated(t, style, 11, I32, &n.floats, Tape::floats, Tape::float);
    repeated(t, style, 12, I64, &n.doubles, Tape::doubles, Tape::double);
    repeated(t, style, 13, VARINT, &n.bools, Tape::bools, Tape::bool);
    repeated(t, style, 14, VARINT, &n.kinds, Tape::int32s, Tape::int32);
}

fn packed_message(n: Numbers) -> Packed {
    Packed {
        int32s: n.int32s,
        int64s: n.int64s,
        uint32s: n.uint32s,
        uint64s: n.uint64s,
        sint32s: n.sint32s,
        sint64s: n.sint64s,
        fixed32s: n.fixed32s,
        fixed64s: n.fixed64s,
        sfixed32s: n.sfixed32s,
        sfixed64s: n.sfixed64s,
        floats: n.floats,
        doubles: n.doubles,
        bools: n.bools,
        kinds: n.kinds,
    }
}

fn packed_cases(style: Style, seed: u64) -> Vec<Case> {
    let mut r = Rng::new(seed);
    let mut cases = Vec::new();
    for i in 0..150 {
        let n = random_numbers(&mut r);
        let mut t = Tape::new();
        numbers_to_tape(&n, style, &mut t);
        cases.push(Case::new(
            format!("packed {style:?} #{i}"),
            &packed_message(n),
            &t,
        ));
    }
    // Every edge value in one field, and lengths of 1 and 2 elements (odd and even counts).
    let edges = Numbers {
        int32s: I32_EDGES.to_vec(),
        int64s: I64_EDGES.to_vec(),
        uint32s: U32_EDGES.to_vec(),
        uint64s: U64_EDGES.to_vec(),
        sint32s: I32_EDGES.to_vec(),
        sint64s: I64_EDGES.to_vec(),
        fixed32s: U32_EDGES.to_vec(),
        fixed64s: U64_EDGES.to_vec(),
        sfixed32s: I32_EDGES.to_vec(),
        sfixed64s: I64_EDGES.to_vec(),
        floats: F32_EDGES.to_vec(),
        doubles: F64_EDGES.to_vec(),
        bools: vec![true, false, true],
        kinds: vec![0, 1, 1000, -1, i32::MIN],
    };
    let short = Numbers {
        int32s: vec![-1],
        int64s: vec![i64::MIN, 0],
        uint32s: vec![0],
        uint64s: vec![u64::MAX, 0],
        sint32s: vec![i32::MIN],
        sint64s: vec![i64::MIN, i64::MAX],
        fixed32s: vec![7],
        fixed64s: vec![7, 8],
        sfixed32s: vec![-7],
        sfixed64s: vec![-7, -8],
        floats: vec![-0.0],
        doubles: vec![-0.0, f64::NAN],
        bools: vec![false],
        kinds: vec![0, 0],
    };
    for (name, n) in [("edges", edges), ("short", short)] {
        let mut t = Tape::new();
        numbers_to_tape(&n, style, &mut t);
        cases.push(Case::new(
            format!("packed {style:?} {name}"),
            &packed_message(n),
            &t,
        ));
    }
    cases
}

fn unpacked_to_tape(m: &Unpacked, t: &mut Tape) {
    let n = Numbers {
        int32s: m.int32s.clone(),
        int64s: m.int64s.clone(),
        uint32s: m.uint32s.clone(),
        uint64s: m.uint64s.clone(),
        sint32s: m.sint32s.clone(),
        sint64s: m.sint64s.clone(),
        fixed32s: m.fixed32s.clone(),
        fixed64s: m.fixed64s.clone(),
        sfixed32s: m.sfixed32s.clone(),
        sfixed64s: m.sfixed64s.clone(),
        floats: m.floats.clone(),
        doubles: m.doubles.clone(),
        bools: m.bools.clone(),
        kinds: m.kinds.clone(),
    };
    numbers_to_tape(&n, Style::Unpacked, t);
    for s in &m.strings {
        t.tag(15, LEN).string(s);
    }
    for b in &m.blobs {
        t.tag(16, LEN).bytes(b);
    }
    for leaf in &m.leaves {
        submessage(t, 17, leaf, leaf_to_tape);
    }
}

fn unpacked_cases() -> Vec<Case> {
    let mut r = Rng::new(6);
    let mut cases = Vec::new();
    for i in 0..150 {
        let n = random_numbers(&mut r);
        let m = Unpacked {
            int32s: n.int32s,
            int64s: n.int64s,
            uint32s: n.uint32s,
            uint64s: n.uint64s,
            sint32s: n.sint32s,
            sint64s: n.sint64s,
            fixed32s: n.fixed32s,
            fixed64s: n.fixed64s,
            sfixed32s: n.sfixed32s,
            sfixed64s: n.sfixed64s,
            floats: n.floats,
            doubles: n.doubles,
            bools: n.bools,
            kinds: n.kinds,
            // Empty strings and blobs are still written: repeated elements have no presence.
            strings: r.vec(10, |r| r.string(10)),
            blobs: r.vec(10, |r| r.bytes(20)),
            leaves: r.vec(10, random_leaf),
        };
        let mut t = Tape::new();
        unpacked_to_tape(&m, &mut t);
        cases.push(Case::new(format!("unpacked #{i}"), &m, &t));
    }
    cases
}

#[derive(Clone, PartialEq, prost::Message)]
struct Texts {
    #[prost(string, tag = "1")]
    text: String,
    #[prost(bytes = "vec", tag = "2")]
    blob: Vec<u8>,
    #[prost(string, repeated, tag = "3")]
    texts: Vec<String>,
    #[prost(bytes = "vec", repeated, tag = "4")]
    blobs: Vec<Vec<u8>>,
}

fn texts_to_tape(m: &Texts, t: &mut Tape) {
    if !m.text.is_empty() {
        t.tag(1, LEN).string(&m.text);
    }
    if !m.blob.is_empty() {
        t.tag(2, LEN).bytes(&m.blob);
    }
    for s in &m.texts {
        t.tag(3, LEN).string(s);
    }
    for b in &m.blobs {
        t.tag(4, LEN).bytes(b);
    }
}

fn text_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut push = |name: String, m: Texts| {
        let mut t = Tape::new();
        texts_to_tape(&m, &mut t);
        cases.push(Case::new(name, &m, &t));
    };
    // Every payload length around the 8-byte padding and the varint length steps, with bytes
    // that are all zero (like the padding) and all 0xff.
    let lengths = (0..=17).chain([127, 128, 129, 16_383, 16_384, 16_385]);
    for len in lengths {
        push(
            format!("ascii and zero bytes of {len}"),
            Texts {
                text: "z".repeat(len),
                blob: vec![0; len],
                texts: vec![String::new(), "q".repeat(len)],
                blobs: vec![Vec::new(), vec![0xff; len]],
            },
        );
    }
    // Multi-byte UTF-8 where the byte length (not the char count) crosses 127/128 and 16383/16384.
    for (piece, counts) in [
        ("é", [63, 64, 8191, 8192]),
        ("€", [42, 43, 5461, 5462]),
        ("🦀", [31, 32, 4095, 4096]),
    ] {
        for count in counts {
            let text = piece.repeat(count);
            let mixed = format!("{text}a");
            push(
                format!("{count} x {piece}"),
                Texts {
                    blob: mixed.clone().into_bytes(),
                    texts: vec![mixed, STRING_PIECES.concat()],
                    text,
                    blobs: Vec::new(),
                },
            );
        }
    }
    let mut r = Rng::new(7);
    for i in 0..150 {
        push(
            format!("texts #{i}"),
            Texts {
                text: r.maybe(|r| r.string(100)),
                blob: r.maybe(|r| r.bytes(400)),
                texts: r.vec(8, |r| r.string(60)),
                blobs: r.vec(8, |r| r.bytes(200)),
            },
        );
    }
    cases
}

#[derive(Clone, PartialEq, prost::Message)]
struct Maps {
    #[prost(btree_map = "string, int64", tag = "1")]
    counts: BTreeMap<String, i64>,
    #[prost(btree_map = "int32, message", tag = "2")]
    leaves: BTreeMap<i32, Leaf>,
    #[prost(string, tag = "3")]
    name: String,
}

fn maps_to_tape(m: &Maps, t: &mut Tape) {
    // Generated code: `writer.uint32(10).fork().uint32(10).string(k).uint32(16).int64(v).ldelim()`
    // (protobuf.js writes the key and value even when default; prost leaves them out).
    for (key, value) in &m.counts {
        t.tag(1, LEN).fork();
        if !key.is_empty() {
            t.tag(1, LEN).string(key);
        }
        if *value != 0 {
            t.tag(2, VARINT).int64(*value);
        }
        t.ldelim();
    }
    // `writer.uint32(18).fork().uint32(8).int32(k); Leaf.encode(v, writer.uint32(18).fork())
    //  .ldelim().ldelim()`
    for (key, value) in &m.leaves {
        t.tag(2, LEN).fork();
        if *key != 0 {
            t.tag(1, VARINT).int32(*key);
        }
        if *value != Leaf::default() {
            submessage(t, 2, value, leaf_to_tape);
        }
        t.ldelim();
    }
    if !m.name.is_empty() {
        t.tag(3, LEN).string(&m.name);
    }
}

fn map_cases() -> Vec<Case> {
    let mut r = Rng::new(8);
    let mut cases = Vec::new();
    for i in 0..150 {
        let n = r.len(30);
        let counts = (0..n).map(|_| (r.string(6), r.maybe(Rng::i64))).collect();
        let n = r.len(20);
        let leaves = (0..n)
            .map(|_| (r.maybe(Rng::i32), r.maybe(random_leaf)))
            .collect();
        let m = Maps {
            counts,
            leaves,
            name: r.maybe(|r| r.string(4)),
        };
        let mut t = Tape::new();
        maps_to_tape(&m, &mut t);
        cases.push(Case::new(format!("maps #{i}"), &m, &t));
    }
    // One entry per map, with and without default keys and values (empty entries).
    for (key, value) in [("", 0), ("", -1), ("k", 0), ("key", i64::MIN)] {
        let m = Maps {
            counts: BTreeMap::from([(key.to_owned(), value)]),
            leaves: BTreeMap::from([(value as i32, Leaf::default())]),
            name: String::new(),
        };
        let mut t = Tape::new();
        maps_to_tape(&m, &mut t);
        cases.push(Case::new(format!("map entry {key:?} => {value}"), &m, &t));
    }
    cases
}

#[derive(Clone, PartialEq, prost::Oneof)]
enum Choice {
    #[prost(int32, tag = "2")]
    Num(i32),
    #[prost(string, tag = "3")]
    Text(String),
    #[prost(message, tag = "4")]
    Leaf(Leaf),
    #[prost(double, tag = "5")]
    Real(f64),
    #[prost(bytes = "vec", tag = "6")]
    Blob(Vec<u8>),
    #[prost(sint64, tag = "7")]
    Zigzag(i64),
    #[prost(fixed32, tag = "8")]
    Fixed(u32),
}

#[derive(Clone, PartialEq, prost::Message)]
struct WithOneof {
    #[prost(int32, tag = "1")]
    before: i32,
    #[prost(oneof = "Choice", tags = "2, 3, 4, 5, 6, 7, 8")]
    choice: Option<Choice>,
    #[prost(uint32, tag = "9")]
    after: u32,
}

fn with_oneof_to_tape(m: &WithOneof, t: &mut Tape) {
    if m.before != 0 {
        t.tag(1, VARINT).int32(m.before);
    }
    // A set oneof member is written even when it holds its type's default.
    match &m.choice {
        None => {}
        Some(Choice::Num(v)) => {
            t.tag(2, VARINT).int32(*v);
        }
        Some(Choice::Text(v)) => {
            t.tag(3, LEN).string(v);
        }
        Some(Choice::Leaf(v)) => submessage(t, 4, v, leaf_to_tape),
        Some(Choice::Real(v)) => {
            t.tag(5, I64).double(*v);
        }
        Some(Choice::Blob(v)) => {
            t.tag(6, LEN).bytes(v);
        }
        Some(Choice::Zigzag(v)) => {
            t.tag(7, VARINT).sint64(*v);
        }
        Some(Choice::Fixed(v)) => {
            t.tag(8, I32).fixed32(*v);
        }
    }
    if m.after != 0 {
        t.tag(9, VARINT).uint32(m.after);
    }
}

fn oneof_cases() -> Vec<Case> {
    let mut r = Rng::new(9);
    let mut cases = Vec::new();
    let defaults = [
        None,
        Some(Choice::Num(0)),
        Some(Choice::Text(String::new())),
        Some(Choice::Leaf(Leaf::default())),
        Some(Choice::Real(0.0)),
        Some(Choice::Real(-0.0)),
        Some(Choice::Blob(Vec::new())),
        Some(Choice::Zigzag(0)),
        Some(Choice::Fixed(0)),
    ];
    for (i, choice) in defaults.into_iter().enumerate() {
        let m = WithOneof {
            before: 0,
            choice,
            after: 0,
        };
        let mut t = Tape::new();
        with_oneof_to_tape(&m, &mut t);
        cases.push(Case::new(format!("oneof default #{i}"), &m, &t));
    }
    for i in 0..200 {
        let choice = match r.below(8) {
            0 => None,
            1 => Some(Choice::Num(r.i32())),
            2 => Some(Choice::Text(r.string(20))),
            3 => Some(Choice::Leaf(random_leaf(&mut r))),
            4 => Some(Choice::Real(r.f64())),
            5 => Some(Choice::Blob(r.bytes(150))),
            6 => Some(Choice::Zigzag(r.i64())),
            _ => Some(Choice::Fixed(r.u32())),
        };
        let m = WithOneof {
            before: r.maybe(Rng::i32),
            choice,
            after: r.maybe(Rng::u32),
        };
        let mut t = Tape::new();
        with_oneof_to_tape(&m, &mut t);
        cases.push(Case::new(format!("oneof #{i}"), &m, &t));
    }
    cases
}

/// Three levels of length prefixes whose sizes are steered across the varint length steps.
#[derive(Clone, PartialEq, prost::Message)]
struct Pad {
    #[prost(bytes = "vec", tag = "1")]
    pad: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PadMid {
    #[prost(message, optional, tag = "1")]
    pad: Option<Pad>,
    #[prost(message, repeated, tag = "2")]
    pads: Vec<Pad>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PadTop {
    #[prost(message, optional, tag = "1")]
    mid: Option<PadMid>,
    #[prost(sint32, tag = "2")]
    after: i32,
}

fn pad_to_tape(m: &Pad, t: &mut Tape) {
    if !m.pad.is_empty() {
        t.tag(1, LEN).bytes(&m.pad);
    }
}

fn pad_mid_to_tape(m: &PadMid, t: &mut Tape) {
    if let Some(pad) = &m.pad {
        submessage(t, 1, pad, pad_to_tape);
    }
    for pad in &m.pads {
        submessage(t, 2, pad, pad_to_tape);
    }
}

fn pad_top_to_tape(m: &PadTop, t: &mut Tape) {
    if let Some(mid) = &m.mid {
        submessage(t, 1, mid, pad_mid_to_tape);
    }
    if m.after != 0 {
        t.tag(2, VARINT).sint32(m.after);
    }
}

/// The section lengths where a varint length prefix grows by a byte.
const LENGTH_STEPS: [usize; 6] = [127, 128, 16_383, 16_384, 2_097_151, 2_097_152];

/// Sections of every length a few bytes either side of each of `steps`, at two nesting levels.
fn boundary_cases(steps: &[usize]) -> Vec<Case> {
    let pattern: Vec<u8> = (0..=255).collect();
    let mut cases = Vec::new();
    let mut pad_lens = Vec::new();
    let mut mid_lens = Vec::new();
    for &step in steps {
        for n in step - 12..=step + 2 {
            let mut bytes = pattern.repeat(n / 256 + 1);
            bytes.truncate(n);
            let pad = Pad { pad: bytes };
            let m = PadTop {
                mid: Some(PadMid {
                    pad: Some(pad),
                    pads: vec![Pad::default()],
                }),
                after: -1,
            };
            let mid = m.mid.as_ref().unwrap();
            pad_lens.push(mid.pad.as_ref().unwrap().encoded_len());
            mid_lens.push(mid.encoded_len());
            let mut t = Tape::new();
            pad_top_to_tape(&m, &mut t);
            cases.push(Case::new(format!("pad {n}"), &m, &t));
        }
    }
    for step in steps {
        assert!(pad_lens.contains(step), "no inner section of {step} bytes");
        assert!(mid_lens.contains(step), "no middle section of {step} bytes");
    }
    cases
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn replay_matches_prost_for_every_scalar_type() {
    for case in scalar_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_every_edge_value_in_every_scalar_field() {
    let rows = I32_EDGES.len().max(U64_EDGES.len()).max(F64_EDGES.len());
    for i in 0..rows {
        let m = Scalars {
            double: F64_EDGES[i % F64_EDGES.len()],
            float: F32_EDGES[i % F32_EDGES.len()],
            int32: I32_EDGES[i % I32_EDGES.len()],
            int64: I64_EDGES[i % I64_EDGES.len()],
            uint32: U32_EDGES[i % U32_EDGES.len()],
            uint64: U64_EDGES[i % U64_EDGES.len()],
            sint32: I32_EDGES[i % I32_EDGES.len()],
            sint64: I64_EDGES[i % I64_EDGES.len()],
            fixed32: U32_EDGES[i % U32_EDGES.len()],
            fixed64: U64_EDGES[i % U64_EDGES.len()],
            sfixed32: I32_EDGES[i % I32_EDGES.len()],
            sfixed64: I64_EDGES[i % I64_EDGES.len()],
            boolean: i % 2 == 1,
            string: STRING_PIECES[i % STRING_PIECES.len()].to_owned(),
            bytes: vec![i as u8; i],
            kind: I32_EDGES[i % I32_EDGES.len()],
            opt_double: Some(F64_EDGES[i % F64_EDGES.len()]),
            opt_float: Some(F32_EDGES[i % F32_EDGES.len()]),
            opt_int32: Some(I32_EDGES[i % I32_EDGES.len()]),
            opt_sint64: Some(I64_EDGES[i % I64_EDGES.len()]),
            opt_bool: Some(i % 2 == 0),
            opt_string: Some(String::new()),
            opt_kind: Some(0),
            last: U32_EDGES[i % U32_EDGES.len()],
        };
        let mut t = Tape::new();
        scalars_to_tape(&m, &mut t);
        Case::new(format!("edge row {i}"), &m, &t).check();
    }
}

#[test]
fn replay_matches_prost_for_explicitly_present_default_values() {
    // proto3 `optional` fields are written when set, even to 0, -0.0, false or "".
    for (double, float) in [(0.0, 0.0), (-0.0, -0.0), (f64::NAN, f32::NAN)] {
        let m = Scalars {
            opt_double: Some(double),
            opt_float: Some(float),
            opt_int32: Some(0),
            opt_sint64: Some(0),
            opt_bool: Some(false),
            opt_string: Some(String::new()),
            opt_kind: Some(0),
            ..Scalars::default()
        };
        let mut t = Tape::new();
        scalars_to_tape(&m, &mut t);
        Case::new(format!("present defaults {double}"), &m, &t).check();
    }
}

#[test]
fn replay_matches_prost_for_nested_messages() {
    for case in nested_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_deep_and_wide_recursive_messages() {
    for case in tree_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_packed_records_of_every_packable_type() {
    for case in packed_cases(Style::Records, 4) {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_packed_fields_written_with_fork_and_ldelim() {
    for case in packed_cases(Style::ForkLdelim, 5) {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_unpacked_repeated_fields() {
    for case in unpacked_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_strings_and_bytes() {
    for case in text_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_maps() {
    for case in map_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_every_oneof_member() {
    for case in oneof_cases() {
        case.check();
    }
}

#[test]
fn replay_matches_prost_when_lengths_cross_varint_boundaries() {
    for case in boundary_cases(&LENGTH_STEPS) {
        case.check();
    }
}

#[test]
fn replay_matches_prost_for_length_delimited_messages() {
    // protobuf.js's `encodeDelimited(message)` on a fresh writer ends with an `ldelim()` that has
    // no fork to close: it prefixes everything written so far.
    let mut r = Rng::new(10);
    let messages: Vec<Outer> = (0..30).map(|_| random_outer(&mut r)).collect();
    for (i, m) in messages.iter().enumerate() {
        let mut t = Tape::new();
        outer_to_tape(m, &mut t);
        t.ldelim();
        Case::from_bytes(
            format!("delimited #{i}"),
            &t,
            m.encode_length_delimited_to_vec(),
        )
        .check();
    }
    // Several delimited messages into one writer: the first `ldelim()` closes no fork, the later
    // ones close the fork `encodeDelimited` opens because the writer is no longer empty.
    let mut t = Tape::new();
    let mut expected = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            t.fork();
        }
        outer_to_tape(m, &mut t);
        t.ldelim();
        expected.extend(m.encode_length_delimited_to_vec());
    }
    Case::from_bytes("delimited stream", &t, expected.clone()).check();
    // Another `ldelim()` with no fork open prefixes the whole stream, prefix included.
    t.ldelim();
    let mut wrapped = Vec::new();
    prost::encoding::encode_varint(expected.len() as u64, &mut wrapped);
    wrapped.extend(&expected);
    Case::from_bytes("delimited stream, wrapped", &t, wrapped.clone()).check();
    // And once more: each unmatched `ldelim()` wraps everything before it.
    t.ldelim();
    let mut twice = Vec::new();
    prost::encoding::encode_varint(wrapped.len() as u64, &mut twice);
    twice.extend(&wrapped);
    Case::from_bytes("delimited stream, wrapped twice", &t, twice).check();
}

#[test]
fn replay_matches_prost_when_parts_are_spliced_in_raw() {
    let mut r = Rng::new(11);
    for i in 0..60 {
        let m = random_outer(&mut r);
        // The first two fields pre-encoded by prost and written raw, the rest recorded.
        let head = Outer {
            middle: m.middle.clone(),
            middles: m.middles.clone(),
            ..Outer::default()
        };
        let mut t = Tape::new();
        t.raw(&head.encode_to_vec());
        let tail = Outer {
            middle: None,
            middles: Vec::new(),
            ..m.clone()
        };
        outer_to_tape(&tail, &mut t);
        Case::new(format!("raw head #{i}"), &m, &t).check();
        // Each sub-message's body written raw inside a recorded fork.
        let mut t = Tape::new();
        if let Some(middle) = &m.middle {
            t.tag(1, LEN).fork().raw(&middle.encode_to_vec()).ldelim();
        }
        for middle in &m.middles {
            t.tag(2, LEN).fork().raw(&middle.encode_to_vec()).ldelim();
        }
        outer_to_tape(&tail, &mut t);
        Case::new(format!("raw bodies #{i}"), &m, &t).check();
    }
}

/// Every case from every shape (without the multi-megabyte sections), in a shuffled order.
fn mixed_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        scalar_cases(),
        nested_cases(),
        tree_cases(),
        packed_cases(Style::Records, 12),
        packed_cases(Style::ForkLdelim, 13),
        unpacked_cases(),
        text_cases(),
        map_cases(),
        oneof_cases(),
        boundary_cases(&LENGTH_STEPS[..4]),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut r = Rng::new(14);
    for i in (1..cases.len()).rev() {
        cases.swap(i, r.below(i + 1));
    }
    cases
}

#[test]
fn one_replay_reused_across_many_tapes_matches_a_fresh_one() {
    let cases = mixed_cases();
    assert!(cases.len() > 1000);
    let mut reused = Replay::new();
    for case in &cases {
        let fresh = Replay::new().encode(&case.tape);
        assert_eq!(reused.encode(&case.tape), fresh, "{}", case.name);
        case.check_with(&mut reused);
    }
    // Backwards, so every case follows a different one than before.
    for case in cases.iter().rev() {
        case.check_with(&mut reused);
    }
}

#[test]
fn a_reused_replay_recovers_after_rejecting_a_tape() {
    let cases = mixed_cases();
    let mut reused = Replay::new();
    for (i, case) in cases.iter().enumerate().filter(|(_, c)| !c.tape.is_empty()) {
        // A tape cut short in its last record, then one ending in a zero word pair: both are
        // rejected part-way, after the scratch state has been filled.
        let mut bad = case.tape.clone();
        if i % 2 == 0 {
            bad.truncate(bad.len() - 4);
        } else {
            bad.extend([0; 8]);
        }
        assert!(
            reused.encode(&bad).is_err(),
            "{}: bad tape accepted",
            case.name
        );
        assert!(
            reused.measure(&bad).is_err(),
            "{}: bad tape measured",
            case.name
        );
        case.check_with(&mut reused);
    }
}
