'use strict';

/**
 * Seeded sample messages for `protobufjs-rustwriter measure` without `--data`: plain objects for
 * `Type.fromObject`, generated from a reflected message type of any protobufjs 7.x or 8.x copy.
 *
 * Every field is set, to a value that is not its default (so that an encoder writes it): each
 * scalar kind over its range of encoded lengths (negative int32s take 10 bytes), enums, nested
 * messages, maps, packed and unpacked repeated fields, and one member of each oneof. Sample `k`
 * gives every repeated field and map `SIZES[k]` elements, so one schema yields messages of a few
 * sizes. The same type and seed give the same samples.
 */

/** Elements of every repeated field and map, per sample: one, a short run (the Mapbox vector
 * tile's packed fields average ~13), and a longer one. (An empty one would leave a message of
 * only repeated fields empty: zero bytes, timing nothing but the writer's creation.) */
const SIZES = [1, 10, 100];
/** The seed of every sample set. */
const SEED = 1;
/** Nesting below which message fields are left unset (recursive schemas end here). */
const MAX_DEPTH = 4;
/** Repeated message fields below the top level hold at most this many elements, and once a
 * sample holds MAX_MESSAGES messages, further ones get no message fields: a schema that nests
 * repeated messages three deep would otherwise make 100^3 of them. Fields are filled in order, so
 * leaving the later ones out instead would leave a sample's last fields empty. */
const NESTED_REPEAT_MAX = 3;
const MAX_MESSAGES = 1000;
/** Characters strings are drawn from: ASCII and 2-, 3- and 4-byte UTF-8 (one surrogate pair). */
const ALPHABET = [...'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 'é', 'ß', '€', '中', '😀'];
const TWO_32 = 2 ** 32;

/**
 * A seeded generator of numbers in [0, 1) (mulberry32), with `int(n)` in [0, n).
 * @param {number} seed Seed
 * @returns {{(): number, int: (n: number) => number}} Generator
 */
function mulberry32(seed) {
  let state = seed >>> 0;
  const next = function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_32;
  };
  next.int = (n) => Math.floor(next() * n);
  return next;
}

/**
 * A non-zero unsigned integer of 1 to `maxBits` bits, its bit length drawn evenly, so that every
 * varint length is as likely as every other.
 * @param {Function} r Generator
 * @param {number} maxBits Largest bit length (≤ 53)
 * @returns {number} Value
 */
function unsignedOfBits(r, maxBits) {
  const bits = 1 + r.int(maxBits);
  return 2 ** (bits - 1) + r.int(2 ** (bits - 1));
}

/**
 * A non-zero 64-bit value as a decimal string, as JSON carries one.
 * @param {Function} r Generator
 * @param {boolean} signed May be negative
 * @returns {string} Decimal
 */
function decimal64(r, signed) {
  const bits = 1 + r.int(signed ? 63 : 64);
  let value = (1n << BigInt(bits - 1)) + BigInt(r.int(TWO_32)) * BigInt(r.int(TWO_32));
  value %= 1n << BigInt(bits);
  if (value === 0n) value = 1n;
  return String(signed && r() < 0.3 ? -value : value);
}

/**
 * A string of 1 to 40 characters from {@link ALPHABET}.
 * @param {Function} r Generator
 * @returns {string} Text
 */
function text(r) {
  let s = '';
  for (let n = 1 + r.int(40); n > 0; --n) s += ALPHABET[r.int(ALPHABET.length)];
  return s;
}

/** A non-zero value of each scalar kind, as `Type.fromObject` takes it from JSON. */
const SCALARS = {
  double: (r) => (r() - 0.5) * 10 ** r.int(12) || 0.5,
  float: (r) => Math.fround((r() - 0.5) * 10 ** r.int(6)) || 0.5,
  int32: (r) => (r() < 0.2 ? -unsignedOfBits(r, 31) : unsignedOfBits(r, 31)),
  uint32: (r) => unsignedOfBits(r, 32),
  sint32: (r) => (r() < 0.5 ? -unsignedOfBits(r, 31) : unsignedOfBits(r, 31)),
  fixed32: (r) => unsignedOfBits(r, 32),
  sfixed32: (r) => (r() < 0.5 ? -unsignedOfBits(r, 31) : unsignedOfBits(r, 31)),
  int64: (r) => decimal64(r, true),
  uint64: (r) => decimal64(r, false),
  sint64: (r) => decimal64(r, true),
  fixed64: (r) => decimal64(r, false),
  sfixed64: (r) => decimal64(r, true),
  bool: () => true,
  string: text,
  bytes: (r) => Buffer.from(Array.from({ length: 1 + r.int(64) }, () => r.int(256))).toString('base64'),
};

/** Map key kinds, as the object keys `Type.fromObject` takes: the `i`-th distinct key. */
const KEYS = {
  string: (i) => `key${i}`,
  bool: (i) => (i === 0 ? 'true' : 'false'),
  signed: (i) => String(i % 2 ? -(i + 1) : i + 1),
  unsigned: (i) => String(i + 1),
};
const SIGNED_KEYS = new Set(['int32', 'sint32', 'sfixed32', 'int64', 'sint64', 'sfixed64']);

/**
 * The `i`-th key of a map whose keys are of `keyType`.
 * @param {string} keyType Key type
 * @param {number} i Index
 * @returns {string} Object key
 */
function mapKey(keyType, i) {
  if (keyType === 'string' || keyType === 'bool') return KEYS[keyType](i);
  return SIGNED_KEYS.has(keyType) ? KEYS.signed(i) : KEYS.unsigned(i);
}

/**
 * Generates samples of one type: see the file's comment.
 */
class SampleGenerator {
  /**
   * @param {number} seed Seed
   * @param {number} size Elements of every repeated field and map
   */
  constructor(seed, size) {
    this._r = mulberry32(seed);
    this._size = size;
    this._messages = 0;
  }

  /**
   * One value of a field's type: a scalar, an enum's value, or a message.
   * @param {object} field Reflected field (resolved)
   * @param {number} depth Nesting of the message holding the field
   * @returns {*} Value
   */
  value(field, depth) {
    const resolved = field.resolvedType;
    if (resolved && resolved.fieldsArray) return this.message(resolved, depth + 1);
    if (resolved) {
      const numbers = Object.values(resolved.values);
      const nonZero = numbers.filter((n) => n !== 0);
      return (nonZero.length ? nonZero : numbers)[this._r.int(nonZero.length || numbers.length)];
    }
    return SCALARS[field.type](this._r);
  }

  /**
   * The value of one field: one value, an array, or a map object; undefined to leave it unset.
   * @param {object} field Reflected field (resolved)
   * @param {number} depth Nesting of the message holding the field
   * @returns {*} Value
   */
  field(field, depth) {
    const isMessage = Boolean(field.resolvedType && field.resolvedType.fieldsArray);
    if (isMessage && depth + 1 >= MAX_DEPTH) return undefined;
    if (!field.map && !field.repeated) return this.value(field, depth);
    let count = isMessage && depth > 0 ? Math.min(this._size, NESTED_REPEAT_MAX) : this._size;
    if (field.map && field.keyType === 'bool') count = Math.min(count, 2); // two distinct keys only
    const values = Array.from({ length: count }, () => this.value(field, depth));
    if (!field.map) return values;
    const object = {};
    values.forEach((v, i) => {
      object[mapKey(field.keyType, i)] = v;
    });
    return object;
  }

  /**
   * A message of `type`: every field set (message fields only within the depth and message
   * budget), one member of each oneof.
   * @param {object} type Reflected type
   * @param {number} [depth] Nesting (0 for the top level)
   * @returns {object} Plain object for `type.fromObject`
   */
  message(type, depth = 0) {
    const leaf = ++this._messages > MAX_MESSAGES;
    const object = {};
    const skip = new Set();
    for (const oneof of type.oneofsArray) {
      const members = oneof.fieldsArray;
      const chosen = members[this._r.int(members.length)];
      for (const member of members) if (member !== chosen) skip.add(member);
    }
    for (const field of type.fieldsArray) {
      if (skip.has(field)) continue;
      field.resolve();
      if (leaf && field.resolvedType && field.resolvedType.fieldsArray) continue;
      const v = this.field(field, depth);
      if (v !== undefined) object[field.name] = v;
    }
    return object;
  }
}

/**
 * The sample messages of `type`: one per entry of {@link SIZES}.
 * @param {object} type Reflected message type (protobufjs 7.x or 8.x)
 * @param {number} [seed] Seed (default SEED)
 * @returns {object[]} Plain objects for `type.fromObject`
 */
function samples(type, seed = SEED) {
  return SIZES.map((size, i) => new SampleGenerator(seed + i, size).message(type));
}

module.exports = { samples, SIZES, SEED };
