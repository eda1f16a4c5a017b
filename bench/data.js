'use strict';

/**
 * Seeded sample messages of `npm run bench`, one builder per message shape of
 * bench/fixtures/bench.proto. Every builder takes a `prng` (tools/seeded.js) and returns plain
 * objects, never `fromObject` results: `fromObject` would turn 64-bit numbers into `Long`s and
 * typed arrays into arrays, and the benchmark measures exactly those inputs.
 *
 * No singular field is ever at its proto3 default (0, "", false, enum 0): protobufjs 7.6.6's
 * reflection code writes such fields and 8.8.1's skips them, and every contender must produce the
 * same bytes.
 */

const Long = require('long');

/** Words the text generators draw from. */
const WORDS = [
  'lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do', 'eiusmod',
  'tempor', 'incididunt', 'ut', 'labore', 'et', 'dolore', 'magna', 'aliqua', 'enim', 'minim', 'veniam',
];
/** Characters of short ASCII strings. */
const ASCII = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_. '];
/** Characters of 2 UTF-8 bytes (Latin-1 supplement, Greek, Cyrillic, Hebrew). */
const TWO_BYTE = [...'éñüßçøåÆΩπλЖжДא'];
/** Characters of 3 UTF-8 bytes (CJK, Hangul, symbols). */
const THREE_BYTE = [...'€中文字日本語한국어…→✓'];
/** Characters outside the BMP: a surrogate pair in UTF-16, 4 UTF-8 bytes. */
const ASTRAL = [...'😀🚀𝄞🎉𠜎'];
/** Enum values of bench.Kind other than the default 0. */
const KINDS = [1, 2, 3];

const TWO_32 = 2 ** 32;

/**
 * A uniform integer in [1, n]: never 0, so a singular field is always written.
 * @param {Function} r prng
 * @param {number} n Upper bound
 * @returns {number} Integer
 */
function nonZero(r, n) {
  return 1 + r.int(n);
}

/**
 * An integer of a random bit length (0 to `maxBits`), so varints of every length occur.
 * @param {Function} r prng
 * @param {number} maxBits Largest bit length (at most 53)
 * @returns {number} Non-negative integer
 */
function spreadInt(r, maxBits) {
  const bits = r.int(maxBits + 1);
  if (bits <= 32) return Math.floor(r() * 2 ** bits);
  // one prng draw has 32 random bits: draw the high and the low part separately
  return Math.floor(r() * 2 ** (bits - 32)) * TWO_32 + Math.floor(r() * TWO_32);
}

/**
 * Words joined by spaces.
 * @param {Function} r prng
 * @param {number} count Number of words
 * @returns {string} Text
 */
function words(r, count) {
  return Array.from({ length: count }, () => r.pick(WORDS)).join(' ');
}

/**
 * ASCII text of exactly `length` characters.
 * @param {Function} r prng
 * @param {number} length Length
 * @returns {string} Text
 */
function text(r, length) {
  let out = '';
  while (out.length < length) out += `${words(r, 8)}. `;
  return out.slice(0, length);
}

/**
 * bench.Tiny.
 * @param {Function} r prng
 * @returns {object} Message
 */
function tiny(r) {
  return { id: nonZero(r, 1e6), name: `user-${nonZero(r, 1e4)}` };
}

/**
 * bench.Small: three levels, ~100 bytes, with strings, enums and ints.
 * @param {Function} r prng
 * @returns {object} Message
 */
function small(r) {
  return {
    name: words(r, 4),
    id: nonZero(r, 1e5),
    inner: {
      count: nonZero(r, 2 ** 30) * (r() < 0.5 ? -1 : 1),
      leaf: {
        stamp: 1.7e12 + r.int(1e10), // an int64 millisecond timestamp, given as a number
        kind: r.pick(KINDS),
        delta: nonZero(r, 5000) * (r() < 0.5 ? -1 : 1),
        label: r.pick(WORDS),
      },
      outer: { flags: Array.from({ length: 7 }, () => r() < 0.5), score: nonZero(r, 1e6) / 128 },
      kind: r.pick(KINDS),
    },
    ratio: Math.fround(nonZero(r, 1000) / 1024),
    tags: Array.from({ length: 2 + r.int(3) }, () => r.pick(WORDS)),
  };
}

/**
 * A string mixing ASCII with 2-byte, 3-byte and astral (surrogate pair) characters.
 * @param {Function} r prng
 * @returns {string} Text
 */
function unicodeString(r) {
  const pools = [TWO_BYTE, THREE_BYTE, ASTRAL, ASCII];
  const length = 8 + r.int(40);
  let out = '';
  for (let i = 0; i < length; ++i) out += r.pick(pools[i % pools.length]);
  return out;
}

/**
 * bench.Strings: 200 short ASCII strings, 20 non-ASCII strings, 5 strings of 10 KB.
 * @param {Function} r prng
 * @returns {object} Message
 */
function strings(r) {
  const ascii = Array.from({ length: 200 }, () =>
    Array.from({ length: 4 + r.int(21) }, () => r.pick(ASCII)).join(''));
  return {
    ascii,
    unicode: Array.from({ length: 20 }, () => unicodeString(r)),
    large: Array.from({ length: 5 }, () => text(r, 10 * 1024)),
  };
}

/**
 * A random 64-bit `Long` of a random bit length, negated now and then if signed.
 * @param {Function} r prng
 * @param {boolean} unsigned Unsigned
 * @returns {Long} Value
 */
function randomLong(r, unsigned) {
  const bits = 1 + r.int(64);
  const lo = Math.floor(r() * TWO_32);
  const hi = Math.floor(r() * TWO_32);
  const value = Long.fromBits(lo, hi, true).shiftRightUnsigned(64 - bits);
  if (unsigned) return value;
  return r() < 0.3 ? value.toSigned().negate() : value.toSigned();
}

/**
 * A random safe integer of a random bit length, negated now and then if signed.
 * @param {Function} r prng
 * @param {boolean} unsigned Unsigned
 * @returns {number} Value
 */
function randomNumber(r, unsigned) {
  const value = spreadInt(r, 53);
  return !unsigned && r() < 0.3 ? -value : value;
}

/** Fields of bench.Longs and whether each is unsigned. */
const LONG_FIELDS = { int64s: false, uint64s: true, sint64s: false, fixed64s: true };
/** Values per field of bench.Longs: 4 × 125 = 500. */
const LONGS_PER_FIELD = 125;

/**
 * bench.Longs with 500 values given as `Long`s or as numbers.
 * @param {Function} r prng
 * @param {'long'|'number'} form How values are given
 * @returns {object} Message
 */
function longs(r, form) {
  const make = form === 'long' ? randomLong : randomNumber;
  const message = {};
  for (const [field, unsigned] of Object.entries(LONG_FIELDS)) {
    message[field] = Array.from({ length: LONGS_PER_FIELD }, () => make(r, unsigned));
  }
  return message;
}

/**
 * The same bench.Longs message with every `Long` replaced by the equal `BigInt`.
 * @param {object} message Message of `Long`s
 * @returns {object} Message of BigInts
 */
function toBigInts(message) {
  const out = {};
  for (const [field, values] of Object.entries(message)) out[field] = values.map((v) => BigInt(v.toString()));
  return out;
}

/** Elements per field of bench.Packed. */
const PACKED_LENGTH = 10000;

/**
 * bench.Packed with plain arrays, or with typed arrays of the same values.
 * @param {Function} r prng
 * @param {boolean} typed Typed arrays (Uint32Array, Int32Array, Float64Array, Float32Array)
 * @returns {object} Message
 */
function packed(r, typed) {
  const make = (fn) => Array.from({ length: PACKED_LENGTH }, fn);
  const doubles = make(() => (r() - 0.5) * 10 ** (r.int(13) - 6));
  const message = {
    uint32s: make(() => spreadInt(r, 32)),
    sint32s: make(() => spreadInt(r, 31) * (r() < 0.5 ? -1 : 1)),
    doubles,
    floats: doubles.map(Math.fround),
  };
  if (!typed) return message;
  return {
    uint32s: Uint32Array.from(message.uint32s),
    sint32s: Int32Array.from(message.sint32s),
    doubles: Float64Array.from(message.doubles),
    floats: Float32Array.from(message.floats),
  };
}

/** Blobs of bench.Blobs, and the size of each. */
const BLOB_COUNT = 10;
const BLOB_SIZE = 64 * 1024;

/**
 * bench.Blobs: 10 blobs of 64 KB, alternately `Buffer`s and plain `Uint8Array`s.
 * @param {Function} r prng
 * @returns {object} Message
 */
function blobs(r) {
  return {
    blobs: Array.from({ length: BLOB_COUNT }, (_, i) => {
      const blob = new Uint8Array(BLOB_SIZE);
      const words32 = new Uint32Array(blob.buffer);
      for (let k = 0; k < words32.length; ++k) words32[k] = Math.floor(r() * TWO_32);
      return i % 2 ? blob : Buffer.from(blob.buffer);
    }),
  };
}

/** Approximate encoded size of bench.Large. */
const LARGE_TARGET_BYTES = 1000000;
/** Field overhead of a bench.Item besides its text: tags, id, value, weight, kind, length prefix. */
const ITEM_OVERHEAD = 24;

/**
 * bench.Item: 30 to 230 bytes, so item lengths fall on both sides of 127.
 * @param {Function} r prng
 * @param {number} id Id
 * @returns {object} Message
 */
function item(r, id) {
  return {
    id,
    text: text(r, 10 + r.int(200)),
    value: nonZero(r, 2 ** 40) * (r() < 0.5 ? -1 : 1),
    weight: nonZero(r, 1e6) / 1000,
    kind: r.pick(KINDS),
  };
}

/**
 * bench.Large: ~1 MB, four levels (Large > Section > Chunk > Item); chunks hold 1 to 200 items,
 * so chunk lengths fall on both sides of 16383.
 * @param {Function} r prng
 * @returns {object} Message
 */
function large(r) {
  const sections = [];
  let size = 0;
  let id = 1;
  while (size < LARGE_TARGET_BYTES) {
    const chunks = Array.from({ length: 1 + r.int(6) }, () => {
      const items = Array.from({ length: 1 + r.int(200) }, () => item(r, id++));
      for (const { text: t } of items) size += t.length + ITEM_OVERHEAD;
      const digest = Uint8Array.from({ length: 32 }, () => r.int(256));
      return { id: id++, items, digest };
    });
    sections.push({ id: id++, name: words(r, 3), chunks });
  }
  return { title: words(r, 6), sections };
}

/** Messages per op of the stream case. */
const STREAM_LENGTH = 1000;

/**
 * 1,000 different bench.Small messages.
 * @param {Function} r prng
 * @returns {object[]} Messages
 */
function stream(r) {
  return Array.from({ length: STREAM_LENGTH }, () => small(r));
}

module.exports = {
  tiny, small, strings, longs, toBigInts, packed, blobs, large, stream, STREAM_LENGTH, nonZero, words, text,
};
