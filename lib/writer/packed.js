'use strict';

/**
 * protobuf.js 8.x's packed array methods (`uint32s` … `doubles`), which its generated code calls
 * as `w.uint32(tag).<type>s(array)`: each writes its own length prefix and the elements.
 *
 * - Varint fields (`uint32s`, `int32s`, `sint32s`; `uint64s`, `sint64s`) of at least
 *   `settings.runMin` elements become a RUN entry for the native encoder: a plain array is
 *   converted once into an `Int32Array`, an `Int32Array`/`Uint32Array` (or a BigInt array for
 *   64-bit fields) is referenced. Shorter ones, and every field on the JS-only path, are written
 *   by JS into a one-byte length placeholder, closed like a fork.
 * - Fixed-size fields (`fixed32s`, `floats`, `doubles`, `fixed64s`, `bools`) have a known length:
 *   JS writes the prefix, then the elements; a typed array whose bytes already are the wire
 *   bytes (e.g. a `Float64Array` for `doubles`) is copied as bytes, and referenced (copied once,
 *   into the result) when it reaches `settings.refMin` bytes.
 *
 * Each method reads its argument's `length` once, as protobuf.js does, and converts the elements
 * with the writer held (lib/writer/region.js): if a conversion throws, the writer is left as
 * protobuf.js leaves it (unchanged for varint fields, with the length prefix for fixed-size ones).
 */

const PROTOCOL = require('../../protocol.json');
const { grow, room, hold, release, released, growHeld } = require('./region');
const entries = require('./entries');
const { reference } = require('./bytes');
const { putVarint32, quietNaNs } = require('./varint');
const { loopUint32, loopInt32, loopSint32, loopUint64, loopSint64 } = require('./loops');
const { loopFixed32, loopFloat, loopDouble, loopFixed64, loopBool } = require('./loops');
const { typedName, lengthOf, viewOf, bytesOf } = require('./typed');
const { nativeAvailable } = require('./native');
const settings = require('./settings');
const { isProxy } = require('util').types;

/** Elements a JS loop converts between two checks for room: the room reserved is bounded, so
 * even a 100-million-element field needs no worst-case reservation. */
const CHUNK = 16384;
/** From this many elements, float fields from plain arrays are converted by a typed-array `set`
 * (one call, then a byte copy) rather than one element at a time (protobuf.js switches to a
 * DataView at 16). */
const BULK_FLOATS_MIN = 16;

/** Fields shorter than this are always written by JS, and fixed-size ones at the call, on the
 * short path below: `bench/probes/runs.js` finds no field this short that the native encoder writes
 * faster, from any source. */
const SHORT = 128;

/** How a packed method treats an odd `length`: see `oddLength`. */
const VARINTS = 0;
const FIXED = 1;
const BOOLS = 2;

/**
 * The element count of a packed method's `value` whose `length` is not an array length
 * (missing, negative, fractional, a string...), as protobufjs 8.8.1 treats it: `n * 1` throws
 * the TypeError its `n * 5` (or `n * 4`) throws for a BigInt or Symbol. The varint methods then
 * write what protobufjs's `for (i = 0; i < n; ++i)` loop visits (nothing for a missing
 * length), and the fixed-size ones accept a length that converts to an array length (as
 * protobufjs does). Otherwise, and for `bools` unless the length is a number, protobufjs writes
 * a length prefix from `n` itself and leaves its writer broken (a NaN, fractional or string
 * position, garbage bytes), which no caller can want: RustWriter throws a RangeError instead.
 * @param {*} n The `length` found
 * @param {number} kind `VARINTS`, `FIXED` or `BOOLS`
 * @returns {number} Elements to write
 */
function oddLength(n, kind) {
  const x = n * 1;
  if (kind === VARINTS) return x > 0 ? Math.ceil(x) : 0;
  if (x === x >>> 0 && (kind === FIXED || typeof n === 'number')) return x;
  throw new RangeError(`protobufjs-rustwriter: a packed field needs an array or typed array, got a length of ${String(n)}`);
}

/**
 * @param {*} n A packed method's argument's `length`, read once
 * @param {number} kind `VARINTS`, `FIXED` or `BOOLS`
 * @returns {number} Its element count
 */
function countOf(n, kind) {
  return n === n >>> 0 ? n : oddLength(n, kind);
}

/**
 * Records a RUN entry of `count` elements from `src` at the write position.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number|bigint>} src Elements (kept until `finish()`)
 * @param {number} count Elements
 * @param {number} kind `PROTOCOL.RUN_*`
 * @returns {RustWriter} `w`
 */
function recordRun(w, src, count, kind) {
  const p = room(w, 1); // a finished writer moves before anything is recorded
  entries.run(w, p - w._start, src, count, kind);
  return w;
}

/**
 * Whether a varint field of `count` elements goes to the native encoder.
 * @param {RustWriter} w Writer
 * @param {number} count Elements
 * @param {boolean} typed Whether they come from a typed array (no conversion needed)
 * @returns {boolean} Whether it does
 */
function nativeRun(w, count, typed) {
  // The addon is loaded here, at the first field that would use it (lib/writer/native.js).
  return count >= (typed ? settings.runMinTyped : settings.runMin) && w._runCount < PROTOCOL.MAX_RUNS
    && nativeAvailable();
}

/**
 * Writes `count` elements of `value` with `loop` after a one-byte length placeholder, closed
 * like a fork; in chunks of {@link CHUNK} elements, each with room for its worst case.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {number} count Elements
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Writes
 * elements `i..stop` at a position, returns the position after them
 * @param {number} perElement Most bytes an element takes
 * @returns {RustWriter} `w`
 */
function writeVarints(w, value, count, loop, perElement) {
  const first = count < CHUNK ? count : CHUNK;
  let p = room(w, 1 + first * perElement);
  const at = p - w._start;
  w._buf[p++] = 0;
  hold(w, at);
  try {
    for (let i = 0; i < count; i += CHUNK) {
      const stop = count - i < CHUNK ? count : i + CHUNK;
      p = growHeld(w, p, (stop - i) * perElement);
      p = loop(w._buf, p, value, i, stop);
    }
  } catch (err) {
    throw released(w, err);
  }
  release(w);
  w._pos = p;
  entries.delimit(w, at);
  return w;
}

/**
 * Writes a packed 32-bit varint field: by the native encoder when long enough, else by `loop`.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number>} value Elements
 * @param {number} count Elements (its `length`)
 * @param {number} kind `PROTOCOL.RUN_UINT32`, `PROTOCOL.RUN_INT32` or `PROTOCOL.RUN_SINT32`
 * @param {function(Uint8Array, number, ArrayLike<number>, number, number): number} loop Element writer
 * @param {number} perElement Most bytes an element takes
 * @returns {RustWriter} `w`
 */
function varints32(w, value, count, kind, loop, perElement) {
  const name = typedName(value);
  const typed = (name === 'Int32Array' || name === 'Uint32Array') && lengthOf(value) >= count;
  if (!nativeRun(w, count, typed)) return writeVarints(w, value, count, loop, perElement);
  if (typed) return recordRun(w, value, count, kind);
  // Converted once into an Int32Array (the same ToInt32 bits as the loops' `>>> 0` and `| 0`),
  // with the writer held. sint32 elements are read twice and zig-zag encoded here, as protobuf.js
  // reads them, then encoded as uint32.
  const src = new Int32Array(count);
  hold(w, w._pos - w._start);
  try {
    if (kind === PROTOCOL.RUN_SINT32) {
      for (let i = 0; i < count; ++i) src[i] = (value[i] << 1) ^ (value[i] >> 31);
    } else if (name !== undefined && lengthOf(value) >= count) {
      src.set(lengthOf(value) === count ? value : viewOf(value, count));
    } else if (Array.isArray(value) && !isProxy(value) && value.length === count) {
      src.set(value); // ~0.75 ns an element, against ~2.2 ns for the loop below
    } else {
      for (let i = 0; i < count; ++i) src[i] = value[i];
    }
  } catch (err) {
    throw released(w, err);
  }
  release(w);
  return recordRun(w, src, count, kind === PROTOCOL.RUN_SINT32 ? PROTOCOL.RUN_UINT32 : kind);
}

/**
 * Writes a packed 64-bit varint field: BigInt arrays by the native encoder when long, everything
 * else by JS.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {*} n Its `length`, read once
 * @param {number} kind `PROTOCOL.RUN_UINT64` or `PROTOCOL.RUN_SINT64`
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Element writer
 * @returns {RustWriter} `w`
 */
function varints64(w, value, n, kind, loop) {
  const count = countOf(n, VARINTS);
  const name = typedName(value);
  if ((name === 'BigInt64Array' || name === 'BigUint64Array') && lengthOf(value) >= count && nativeRun(w, count, true)) {
    return recordRun(w, value, count, kind);
  }
  return writeVarints(w, value, count, loop, 10);
}

/**
 * Writes a packed fixed-size field's length prefix, then its elements: from `wire`, a typed
 * array whose bytes are the wire bytes, when given (by reference when large), else converted
 * with `loop`.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {number} count Elements
 * @param {number} size Bytes per element
 * @param {ArrayBufferView|null} wire `value` itself if its bytes are the wire bytes, else null
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Element writer
 * @returns {RustWriter} `w`
 */
function fixedSize(w, value, count, size, wire, loop) {
  const len = count * size;
  if (wire !== null && len >= settings.refMin) return reference(w, wire, count, len);
  writePrefix(w, len);
  if (wire !== null) return copyWire(w, wire, count, len, typedName(wire) === 'Float32Array');
  let p = w._pos;
  hold(w, p - w._start); // protobuf.js keeps the prefix when an element throws
  try {
    for (let i = 0; i < count; i += CHUNK) {
      const stop = count - i < CHUNK ? count : i + CHUNK;
      p = growHeld(w, p, (stop - i) * size);
      p = loop(w._buf, p, value, i, stop);
    }
  } catch (err) {
    throw released(w, err);
  }
  release(w);
  w._pos = p;
  return w;
}

/**
 * Writes `len` bytes of `wire`, a typed array whose bytes are the wire bytes, at the write
 * position (after the field's prefix).
 * @param {RustWriter} w Writer
 * @param {ArrayBufferView} wire Elements
 * @param {number} count Elements to write
 * @param {number} len Their bytes
 * @param {boolean} quiet Whether they are a caller's `Float32Array`'s, whose signalling NaNs
 * protobuf.js writes quiet
 * @returns {RustWriter} `w`
 */
function copyWire(w, wire, count, len, quiet) {
  if (len === 0) return w; // a detached array holds nothing, and no view of its buffer can be made
  const p = room(w, len);
  w._buf.set(bytesOf(wire, len), p);
  if (quiet) quietNaNs(w._buf, p, count);
  w._pos = p + len;
  return w;
}

/**
 * Writes the length prefix of a fixed-size field of `len` bytes.
 * @param {RustWriter} w Writer
 * @param {number} len Bytes
 * @returns {undefined}
 */
function writePrefix(w, len) {
  if (len > PROTOCOL.MAX_OUTPUT) grow(w, len); // throws the size RangeError
  const p = room(w, 5); // may move the writer: read _buf after it
  w._pos = putVarint32(w._buf, p, len);
}

/**
 * `value` when it is a typed array of one of `names` holding `count` elements (its bytes are
 * then the wire bytes), else null.
 * @param {*} value Elements
 * @param {number} count Elements to write
 * @param {string} a A typed array class name
 * @param {string} [b] Another
 * @returns {ArrayBufferView|null} `value` or null
 */
function ownWire(value, count, a, b) {
  const name = typedName(value);
  return name !== undefined && (name === a || name === b) && lengthOf(value) >= count ? value : null;
}

/** Reused conversion buffers for float fields from plain arrays; taken (replaced by an empty
 * one) while in use, so that a conversion that encodes floats itself gets its own. */
const NO_FLOATS = new Float32Array(0);
const NO_DOUBLES = new Float64Array(0);
let floatScratch = NO_FLOATS;
let doubleScratch = NO_DOUBLES;

/**
 * Writes a float field from a long plain array (or a typed array of another type) by converting
 * its elements with one typed-array `set` into `Float32Array` or `Float64Array` scratch, then
 * copying their bytes: cheaper than a loop from {@link BULK_FLOATS_MIN} elements. As protobuf.js,
 * it writes the length prefix first, and converts with the writer held.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number>} value Elements
 * @param {number} count Elements
 * @param {boolean} single Float32 (else Float64)
 * @returns {RustWriter|null} `w`, or null when the field is not one for this (a loop writes it)
 */
function bulkFloats(w, value, count, single) {
  if (count < BULK_FLOATS_MIN) return null;
  const typed = typedName(value) !== undefined;
  // `set` reads `length` itself: only where that runs no user code (not a Proxy).
  const whole = typed ? lengthOf(value) === count : Array.isArray(value) && !isProxy(value) && value.length === count;
  if (!whole) return null;
  let scratch = single ? floatScratch : doubleScratch;
  if (single) floatScratch = NO_FLOATS;
  else doubleScratch = NO_DOUBLES;
  if (scratch.length < count) {
    const size = Math.max(count, 2 * scratch.length);
    scratch = single ? new Float32Array(size) : new Float64Array(size);
  }
  const len = count * scratch.BYTES_PER_ELEMENT;
  writePrefix(w, len);
  hold(w, w._pos - w._start);
  try {
    scratch.set(value);
  } catch (err) {
    throw released(w, err);
  }
  release(w);
  copyWire(w, scratch, count, len, false);
  if (single) floatScratch = scratch;
  else doubleScratch = scratch;
  return w;
}

/**
 * The bound below which varint fields skip the native checks: {@link SHORT}, or lower when the
 * tests send shorter fields to the native encoder (`settings.runMinTyped`).
 * @returns {number} Bound
 */
function shortVarints() {
  return SHORT < settings.runMinTyped ? SHORT : settings.runMinTyped;
}

// Short fixed-size fields, the usual ones (a message's few flags or coordinates), take a fast
// path that each method spells out: `shortFixed`, then the hold around a direct call of its own
// element loop, which V8 then inlines into the method. Through `fixedSize`, whose `loop` argument
// is one of five functions and so is not inlined, the ~80-byte message with its 7 packed bools took
// 10–14% longer (`node bench/probes/ab.js <before> <after> common`).

/**
 * Starts a short fixed-size field: its length prefix, then room for its `len` bytes.
 * @param {RustWriter} w Writer
 * @param {number} len Bytes of the elements
 * @returns {number} Position of the first element
 */
function shortFixed(w, len) {
  writePrefix(w, len);
  return room(w, len);
}

/**
 * Writes an array of unsigned 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_uint32s(value) {
  const n = value.length;
  if (n === n >>> 0 && n < shortVarints()) return writeVarints(this, value, n, loopUint32, 5);
  return longUint32s(this, value, n);
}

/**
 * Writes an array of signed 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_int32s(value) {
  const n = value.length;
  if (n === n >>> 0 && n < shortVarints()) return writeVarints(this, value, n, loopInt32, 10);
  return longInt32s(this, value, n);
}

/**
 * Writes an array of 32 bit values as packed, zig-zag encoded varints.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_sint32s(value) {
  const n = value.length;
  if (n === n >>> 0 && n < shortVarints()) return writeVarints(this, value, n, loopSint32, 5);
  return longSint32s(this, value, n);
}

/**
 * Writes an array of unsigned 64 bit values as a packed repeated field.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_uint64s(value) {
  return longUint64s(this, value, value.length);
}

/**
 * Writes an array of 64 bit values as packed, zig-zag encoded varints.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_sint64s(value) {
  return longSint64s(this, value, value.length);
}

/**
 * Writes an array of unsigned 32 bit values as packed, fixed 32 bits.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_fixed32s(value) {
  const n = value.length;
  if (n === n >>> 0 && n < SHORT) {
    const p = shortFixed(this, 4 * n);
    hold(this, p - this._start); // protobuf.js keeps the prefix when an element throws
    try {
      loopFixed32(this._buf, p, value, 0, n);
    } catch (err) {
      throw released(this, err);
    }
    release(this);
    this._pos = p + 4 * n;
    return this;
  }
  return longFixed32s(this, value, n);
}

/**
 * Writes an array of floats (32 bit) as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_floats(value) {
  const n = value.length;
  if (n === n >>> 0 && n < BULK_FLOATS_MIN) {
    const p = shortFixed(this, 4 * n);
    hold(this, p - this._start); // protobuf.js keeps the prefix when an element throws
    try {
      loopFloat(this._buf, p, value, 0, n);
    } catch (err) {
      throw released(this, err);
    }
    release(this);
    this._pos = p + 4 * n;
    return this;
  }
  return longFloats(this, value, n);
}

/**
 * Writes an array of doubles (64 bit float) as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_doubles(value) {
  const n = value.length;
  if (n === n >>> 0 && n < BULK_FLOATS_MIN) {
    const p = shortFixed(this, 8 * n);
    hold(this, p - this._start); // protobuf.js keeps the prefix when an element throws
    try {
      loopDouble(this._buf, p, value, 0, n);
    } catch (err) {
      throw released(this, err);
    }
    release(this);
    this._pos = p + 8 * n;
    return this;
  }
  return longDoubles(this, value, n);
}

/**
 * Writes an array of unsigned 64 bit values as packed, fixed 64 bits.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_fixed64s(value) {
  return longFixed64s(this, value, value.length);
}

/**
 * Writes an array of boolish values as a packed repeated field.
 * @param {ArrayLike<boolean>} value Values to write
 * @this {RustWriter}
 * @returns {RustWriter} `this`
 */
function write_bools(value) {
  const n = value.length;
  if (n === n >>> 0 && n < SHORT) {
    const p = shortFixed(this, n);
    hold(this, p - this._start); // protobuf.js keeps the prefix when an element throws
    try {
      loopBool(this._buf, p, value, 0, n);
    } catch (err) {
      throw released(this, err);
    }
    release(this);
    this._pos = p + n;
    return this;
  }
  return longBools(this, value, n);
}

// What each method does past its short path, given the `length` it read: also a compiled encoder's
// way to write a packed field it does not write inline (through lib/encoders/runtime.js `via`). Each
// writes any count correctly; only the method's short path is faster.

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longUint32s(w, value, n) {
  return varints32(w, value, countOf(n, VARINTS), PROTOCOL.RUN_UINT32, loopUint32, 5);
}

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longInt32s(w, value, n) {
  return varints32(w, value, countOf(n, VARINTS), PROTOCOL.RUN_INT32, loopInt32, 10);
}

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longSint32s(w, value, n) {
  return varints32(w, value, countOf(n, VARINTS), PROTOCOL.RUN_SINT32, loopSint32, 5);
}

/** @type {function(RustWriter, ArrayLike<*>, *): RustWriter} */
function longUint64s(w, value, n) {
  return varints64(w, value, n, PROTOCOL.RUN_UINT64, loopUint64);
}

/** @type {function(RustWriter, ArrayLike<*>, *): RustWriter} */
function longSint64s(w, value, n) {
  return varints64(w, value, n, PROTOCOL.RUN_SINT64, loopSint64);
}

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longFixed32s(w, value, n) {
  const count = countOf(n, FIXED);
  return fixedSize(w, value, count, 4, ownWire(value, count, 'Int32Array', 'Uint32Array'), loopFixed32);
}

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longFloats(w, value, n) {
  const count = countOf(n, FIXED);
  const own = ownWire(value, count, 'Float32Array');
  if (own !== null) return fixedSize(w, value, count, 4, own, loopFloat);
  return bulkFloats(w, value, count, true) || fixedSize(w, value, count, 4, null, loopFloat);
}

/** @type {function(RustWriter, ArrayLike<number>, *): RustWriter} */
function longDoubles(w, value, n) {
  const count = countOf(n, FIXED);
  const own = ownWire(value, count, 'Float64Array');
  if (own !== null) return fixedSize(w, value, count, 8, own, loopDouble);
  return bulkFloats(w, value, count, false) || fixedSize(w, value, count, 8, null, loopDouble);
}

/** @type {function(RustWriter, ArrayLike<*>, *): RustWriter} */
function longFixed64s(w, value, n) {
  const count = countOf(n, FIXED);
  return fixedSize(w, value, count, 8, ownWire(value, count, 'BigInt64Array', 'BigUint64Array'), loopFixed64);
}

/** @type {function(RustWriter, ArrayLike<boolean>, *): RustWriter} */
function longBools(w, value, n) {
  return fixedSize(w, value, countOf(n, BOOLS), 1, null, loopBool);
}

/**
 * RustWriter's packed methods. `int64s`, `sfixed32s` and `sfixed64s` are the same functions as
 * `uint64s`, `fixed32s` and `fixed64s`, as in protobuf.js.
 */
const packedMethods = {
  uint32s: write_uint32s, int32s: write_int32s, sint32s: write_sint32s,
  uint64s: write_uint64s, int64s: write_uint64s, sint64s: write_sint64s,
  fixed32s: write_fixed32s, sfixed32s: write_fixed32s, fixed64s: write_fixed64s, sfixed64s: write_fixed64s,
  floats: write_floats, doubles: write_doubles, bools: write_bools,
};

/** The paths past the short ones, by method name (the same functions for the same methods). */
const longPacked = {
  uint32s: longUint32s, int32s: longInt32s, sint32s: longSint32s,
  uint64s: longUint64s, int64s: longUint64s, sint64s: longSint64s,
  fixed32s: longFixed32s, sfixed32s: longFixed32s, fixed64s: longFixed64s, sfixed64s: longFixed64s,
  floats: longFloats, doubles: longDoubles, bools: longBools,
};

module.exports = { packedMethods, longPacked, shortVarints, SHORT, BULK_FLOATS_MIN };
