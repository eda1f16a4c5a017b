'use strict';

/**
 * A seeded reflective filler: a plain object for any protobufjs Type, built field by field from
 * its reflection (protobufjs 7.x or 8.x), as an app holds a message before it encodes it: int64
 * values as JS numbers, `bytes` as Uint8Arrays, enums as numbers, map fields as plain objects.
 * The real-workload cases (bench/real/) fill the parts of their messages they do not shape by hand
 * with it; anything a schema needs shaped otherwise (Temporal's Payloads) is an override by Type.
 *
 * What it makes, so that every contender writes the same bytes: no singular field is ever at its
 * default value (zero, empty, false, the enum's 0), which protobufjs 7.6.6 would write for proto3
 * and 8.8.1 would not; at most one member of each oneof is set; every number is in the range of its
 * type (int64 values within ±2^53, so that a number holds them exactly).
 *
 * The shapes: a field is set with probability `presence` (each oneof, as a whole, likewise), a
 * nested message only above `maxDepth`; repeated fields get 1 to 3 elements, map fields 1 or 2
 * entries; strings are mostly short identifiers and names (6 to 24 characters), a quarter 25 to 64,
 * one in twenty a sentence of 65 to 400 (messages, stack traces), one in thirty with non-ASCII
 * characters; `bytes` 8 to 48 random bytes; integers spread over every varint length, small ones
 * most often, a few negative where the type is signed.
 */

/** Defaults of fill's options. */
const DEFAULTS = {
  /** Nesting levels of messages below the Type filled (the Type itself is level 0). */
  maxDepth: 4,
  /** Probability that a field (or a oneof) is set. */
  presence: 0.6,
  /** Elements of a repeated field, entries of a map field: [least, most]. */
  repeated: [1, 3],
  mapEntries: [1, 2],
};

/** Characters of generated ASCII text, and words with multi-byte UTF-8 characters. */
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const WORDS = ['order', 'payment', 'worker', 'queue', 'timeout', 'retry', 'signal', 'customer', 'invoice', 'shipment',
  'activity', 'workflow', 'update', 'failed', 'completed', 'pending', 'scheduled', 'region', 'tenant', 'batch'];
const NON_ASCII = ['café', 'naïve', 'Größe', '東京', 'данные', 'مرحبا', '✓ done', '🚀 launch'];
/** Field names that hold identifiers, which apps fill with UUIDs (36 characters). */
const ID_NAME = /(?:Id|_id|^id|Token|RequestId)$/;
/** A Timestamp near today, as seconds since the epoch. */
const EPOCH_SECONDS = 1.76e9;
const TWO_31 = 2 ** 31;
const TWO_32 = 2 ** 32;
const TWO_53 = 2 ** 53;

/**
 * An integer in [lo, hi].
 * @param {Function} rnd prng (tools/seeded.js)
 * @param {number} lo Least
 * @param {number} hi Most
 * @returns {number} Integer
 */
function between(rnd, lo, hi) {
  return lo + rnd.int(hi - lo + 1);
}

/**
 * A positive integer below `limit` whose size is spread over the varint lengths: log-uniform, so
 * that small values (counters, ids, sizes) come most often and a few reach the top of the range.
 * @param {Function} rnd prng
 * @param {number} limit Exclusive upper bound (at most 2^53)
 * @returns {number} Integer ≥ 1
 */
function magnitude(rnd, limit) {
  return Math.max(1, Math.floor(Math.exp(rnd() * Math.log(limit - 1))));
}

/**
 * ASCII text of `length` characters.
 * @param {Function} rnd prng
 * @param {number} length Characters
 * @returns {string} Text
 */
function ascii(rnd, length) {
  let s = '';
  for (let i = 0; i < length; ++i) s += ALNUM[rnd.int(ALNUM.length)];
  return s;
}

/**
 * A UUID-shaped identifier.
 * @param {Function} rnd prng
 * @returns {string} 36 characters
 */
function uuid(rnd) {
  const hex = () => (256 + rnd.int(256)).toString(16).slice(1);
  const group = (bytes) => Array.from({ length: bytes }, hex).join('');
  return `${group(4)}-${group(2)}-${group(2)}-${group(2)}-${group(6)}`;
}

/**
 * Words joined by spaces, `length` characters at least.
 * @param {Function} rnd prng
 * @param {number} length Characters
 * @param {boolean} unicode Whether to mix in non-ASCII words
 * @returns {string} Text
 */
function sentence(rnd, length, unicode) {
  const words = [];
  let n = 0;
  while (n < length) {
    const word = unicode && rnd() < 0.3 ? rnd.pick(NON_ASCII) : rnd.pick(WORDS);
    words.push(word);
    n += word.length + 1;
  }
  return words.join(' ');
}

/**
 * A string for a field, never empty.
 * @param {Function} rnd prng
 * @param {string} name Field name (identifiers get UUIDs)
 * @returns {string} Text
 */
function string(rnd, name) {
  if (ID_NAME.test(name)) return uuid(rnd);
  const unicode = rnd() < 1 / 30;
  const pick = rnd();
  if (pick < 0.05) return sentence(rnd, between(rnd, 65, 400), unicode);
  if (pick < 0.3) return unicode ? sentence(rnd, between(rnd, 25, 64), true) : `${rnd.pick(WORDS)}-${ascii(rnd, between(rnd, 18, 56))}`;
  return unicode ? sentence(rnd, between(rnd, 6, 24), true) : `${rnd.pick(WORDS)}-${ascii(rnd, between(rnd, 1, 16))}`;
}

/**
 * Random bytes.
 * @param {Function} rnd prng
 * @param {number} length Bytes
 * @returns {Uint8Array} Bytes
 */
function randomBytes(rnd, length) {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; ++i) bytes[i] = rnd.int(256);
  return bytes;
}

/** Scalar makers by protobuf type: never the type's default. */
const SCALARS = {
  double: (rnd) => (rnd() - 0.25) * 10 ** between(rnd, 0, 6) || 0.5,
  float: (rnd) => Math.fround((rnd() - 0.25) * 10 ** between(rnd, 0, 4)) || 0.5,
  int32: (rnd) => (rnd() < 0.05 ? -1 : 1) * magnitude(rnd, TWO_31),
  sint32: (rnd) => (rnd() < 0.2 ? -1 : 1) * magnitude(rnd, TWO_31),
  sfixed32: (rnd) => (rnd() < 0.05 ? -1 : 1) * magnitude(rnd, TWO_31),
  uint32: (rnd) => magnitude(rnd, TWO_32),
  fixed32: (rnd) => magnitude(rnd, TWO_32),
  int64: (rnd) => (rnd() < 0.05 ? -1 : 1) * magnitude(rnd, TWO_53),
  sint64: (rnd) => (rnd() < 0.2 ? -1 : 1) * magnitude(rnd, TWO_53),
  sfixed64: (rnd) => (rnd() < 0.05 ? -1 : 1) * magnitude(rnd, TWO_53),
  uint64: (rnd) => magnitude(rnd, TWO_53),
  fixed64: (rnd) => magnitude(rnd, TWO_53),
  bool: () => true,
  string: (rnd, name) => string(rnd, name),
  bytes: (rnd) => randomBytes(rnd, between(rnd, 8, 48)),
};

/** Well-known Types shaped as apps fill them, whatever the schema. */
const WELL_KNOWN = {
  '.google.protobuf.Timestamp': ({ rnd }) => ({ seconds: EPOCH_SECONDS + rnd.int(1e7), nanos: 1 + rnd.int(999999999) }),
  '.google.protobuf.Duration': ({ rnd }) => (rnd() < 0.5 ? { seconds: 1 + rnd.int(3600) }
    : { seconds: 1 + rnd.int(60), nanos: 1e6 * (1 + rnd.int(999)) }),
};

/**
 * Makes plain objects of a schema's Types from one seeded generator.
 */
class Filler {
  /**
   * @param {Function} rnd prng (tools/seeded.js)
   * @param {object} [options] DEFAULTS' keys, and `overrides`: by Type full name (`.pkg.Name`), a
   *   function `({rnd, filler, depth}) => object` that makes that Type's value (the well-known
   *   Timestamp and Duration have one)
   */
  constructor(rnd, options = {}) {
    this.rnd = rnd;
    this.options = { ...DEFAULTS, ...options };
    this.overrides = { ...WELL_KNOWN, ...options.overrides };
  }

  /**
   * A value of `type` at nesting level `depth`: every field considered, each set or not.
   * @param {object} type protobufjs Type (resolved)
   * @param {number} [depth] Its nesting level
   * @returns {object} Plain object
   */
  message(type, depth = 0) {
    const override = this.overrides[type.fullName];
    if (override) return override({ rnd: this.rnd, filler: this, depth });
    const { rnd } = this;
    const out = {};
    const oneofsDone = new Set();
    for (const field of type.fieldsArray) {
      const oneof = field.partOf;
      if (oneof && !isSynthetic(oneof)) {
        if (oneofsDone.has(oneof)) continue;
        oneofsDone.add(oneof);
        if (rnd() >= this.options.presence) continue;
        const member = this.settable(rnd.pick(oneof.fieldsArray), depth);
        if (member) out[member.name] = this.value(member, depth);
        continue;
      }
      if (rnd() >= this.options.presence || !this.settable(field, depth)) continue;
      out[field.name] = this.value(field, depth);
    }
    return out;
  }

  /**
   * The field if a value of it can be made at `depth` (a message field only above maxDepth, an enum
   * field only if the enum has a value besides 0), else null.
   * @param {object} field protobufjs Field (resolved)
   * @param {number} depth Nesting level of its Type
   * @returns {object|null} The field or null
   */
  settable(field, depth) {
    const resolved = field.resolvedType;
    if (resolved && resolved.fields !== undefined) {
      return depth < this.options.maxDepth || this.overrides[resolved.fullName] ? field : null;
    }
    if (resolved && !Object.values(resolved.values).some((v) => v !== 0)) return null;
    return field;
  }

  /**
   * A value of a field: its one value, its elements, or its map entries.
   * @param {object} field protobufjs Field (resolved)
   * @param {number} depth Nesting level of its Type
   * @returns {*} Value
   */
  value(field, depth) {
    const { rnd } = this;
    if (field.map) {
      const entries = {};
      const count = between(rnd, ...this.options.mapEntries);
      for (let i = 0; i < count; ++i) entries[this.mapKey(field, i)] = this.single(field, depth);
      return entries;
    }
    if (!field.repeated) return this.single(field, depth);
    return Array.from({ length: between(rnd, ...this.options.repeated) }, () => this.single(field, depth));
  }

  /**
   * A map key: a short name, or a number as its decimal string (what `Object.keys` gives).
   * @param {object} field Map field
   * @param {number} i Index of the entry (keys are distinct)
   * @returns {string} Key
   */
  mapKey(field, i) {
    if (field.keyType === 'string') return i === 0 ? `${this.rnd.pick(WORDS)}` : `${this.rnd.pick(WORDS)}_${i}`;
    if (field.keyType === 'bool') return i === 0 ? 'true' : 'false';
    return String(i + 1 + this.rnd.int(1000) * 2);
  }

  /**
   * One value of the field's type (an element, for a repeated or map field).
   * @param {object} field protobufjs Field (resolved)
   * @param {number} depth Nesting level of its Type
   * @returns {*} Value
   */
  single(field, depth) {
    const resolved = field.resolvedType;
    if (resolved && resolved.fields !== undefined) return this.message(resolved, depth + 1);
    if (resolved) return this.rnd.pick(Object.values(resolved.values).filter((v) => v !== 0));
    const make = SCALARS[field.type];
    if (!make) throw new Error(`fill: no maker for ${field.type} (${field.fullName})`);
    return make(this.rnd, field.name);
  }
}

/**
 * Whether a oneof is proto3 `optional`'s synthetic one (one member, its name `_` + the field's).
 * @param {object} oneof protobufjs OneOf
 * @returns {boolean} Synthetic
 */
function isSynthetic(oneof) {
  return oneof.fieldsArray.length === 1 && oneof.name === `_${oneof.fieldsArray[0].name}`;
}

module.exports = { Filler, ascii, uuid, sentence, randomBytes, between, magnitude, EPOCH_SECONDS };
