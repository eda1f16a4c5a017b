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
 *   bytes (e.g. a `Float64Array` for `doubles`) and reach `settings.refMin` is referenced and
 *   copied once, into the result.
 */

const { P, RUN } = require('./tape');
const { RustWriter, isTypedArray } = require('./writer');
const { BITS, longBits } = require('./long');
const { putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble } = require('./varint');
const { NATIVE } = require('./native');
const settings = require('./settings');

/** Elements a JS loop converts between two checks for room: the room reserved is bounded, so
 * even a 100-million-element field needs no worst-case reservation. */
const CHUNK = 16384;
/** From this many elements, float fields from plain arrays are converted by a typed-array `set`
 * (one call, then a byte copy) rather than one element at a time (protobuf.js switches to a
 * DataView at 16). */
const BULK_FLOATS_MIN = 16;

/** Fields shorter than this are always written by JS, through a fast path whose element loop
 * is a direct (inlinable) call; `bench/probe-runs.js` finds no field this short that the native
 * encoder writes faster, from any source. */
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
 * @param {{length: *}} value A packed method's argument
 * @param {number} kind `VARINTS`, `FIXED` or `BOOLS`
 * @returns {number} Its element count
 */
function countOf(value, kind) {
  const n = value.length;
  return n === n >>> 0 ? n : oddLength(n, kind);
}

/**
 * Records a RUN entry of `count` elements from `src` at the write position.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number|bigint>} src Elements (kept until `finish()`)
 * @param {number} count Elements
 * @param {number} kind `P.RUN_*`
 * @returns {RustWriter} `w`
 */
function recordRun(w, src, count, kind) {
  let p = w._pos;
  if (p + 1 > w._end) p = w._grow(1); // a sealed writer moves before anything is recorded
  if (w._refs === null) w._refs = [];
  const r = w._refs.length;
  w._refs.push(src, count);
  w._lastRun = w._entry(p - w._start, RUN, r, kind);
  ++w._runs;
  return w;
}

/**
 * Opens a short varint field: reserves its length placeholder and `maxBytes` after it.
 * @param {RustWriter} w Writer
 * @param {number} maxBytes Most bytes the elements take
 * @returns {number} The placeholder's position
 */
function openShort(w, maxBytes) {
  let p = w._pos;
  if (p + 1 + maxBytes > w._end) p = w._grow(1 + maxBytes);
  w._pos = p + 1 + maxBytes; // reserve first: converting an element may run user code
  return p;
}

/**
 * Closes a short varint field opened at `at` whose elements end at `end`.
 * @param {RustWriter} w Writer
 * @param {number} at The placeholder's position
 * @param {number} end Position after the last element
 * @returns {RustWriter} `w`
 */
function closeShort(w, at, end) {
  w._pos = end;
  return w._delimit(at - w._start);
}

/**
 * Whether `value` has an array length below `limit` (the fast paths' precondition).
 * @param {{length: *}} value A packed method's argument
 * @param {number} limit Exclusive bound
 * @returns {boolean} Whether it has
 */
function isShort(value, limit) {
  const n = value.length;
  return n === n >>> 0 && n < limit;
}

/**
 * The bound of the varint fast paths: {@link SHORT}, or lower when the tests send shorter fields
 * to the native encoder (`settings.runMinTyped`).
 * @returns {number} Bound
 */
function shortVarints() {
  return SHORT < settings.runMinTyped ? SHORT : settings.runMinTyped;
}

/**
 * Writes the length prefix of a short fixed-size field of `len` bytes and reserves them.
 * @param {RustWriter} w Writer
 * @param {number} len Bytes of the elements (below 128 * 8)
 * @returns {number} Position of the first element
 */
function openFixed(w, len) {
  let p = w._pos;
  if (p + 2 + len > w._end) p = w._grow(2 + len);
  p = putVarint32(w._buf, p, len);
  w._pos = p + len;
  return p;
}

/**
 * Whether a varint field of `count` elements goes to the native encoder.
 * @param {RustWriter} w Writer
 * @param {number} count Elements
 * @returns {boolean} Whether it does
 */
function nativeRun(w, count, typed) {
  return count >= (typed ? settings.runMinTyped : settings.runMin) && w._runs < P.MAX_RUNS;
}

/**
 * Writes a packed 32-bit varint field: by the native encoder or by `loop`.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number>} value Elements
 * @param {number} kind `P.RUN_UINT32`, `P.RUN_INT32` or `P.RUN_SINT32`
 * @param {function(Uint8Array, number, ArrayLike<number>, number, number): number} loop Writes
 * elements `i..stop` at a position, returns the position after them
 * @param {number} perElement Most bytes an element takes
 * @returns {RustWriter} `w`
 */
function varints32(w, value, kind, loop, perElement) {
  const count = countOf(value, VARINTS);
  if (NATIVE && nativeRun(w, count, value instanceof Int32Array || value instanceof Uint32Array)) {
    let src = value;
    if (!(value instanceof Int32Array || value instanceof Uint32Array)) {
      src = new Int32Array(count); // the same ToInt32 bits as the loops' `>>> 0` and `| 0`
      if (value.length === count && (Array.isArray(value) || isTypedArray(value))) src.set(value);
      else for (let i = 0; i < count; ++i) src[i] = value[i];
    } else if (value.length !== count) {
      src = value.subarray(0, count);
    }
    return recordRun(w, src, count, kind);
  }
  return writeLoop(w, value, count, loop, perElement);
}

/**
 * Writes `count` elements of `value` with `loop` into a one-byte length placeholder, then closes
 * it, checking for room every {@link CHUNK} elements.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {number} count Elements
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Element writer
 * @param {number} perElement Most bytes an element takes
 * @returns {RustWriter} `w`
 */
function writeLoop(w, value, count, loop, perElement) {
  let p = w._pos;
  const first = count < CHUNK ? count : CHUNK;
  if (p + 1 + first * perElement > w._end) p = w._grow(1 + first * perElement);
  const at = p - w._start;
  w._buf[p++] = 0;
  for (let i = 0; i < count; i += CHUNK) {
    const stop = count - i < CHUNK ? count : i + CHUNK;
    const need = (stop - i) * perElement;
    if (p + need > w._end) {
      w._pos = p;
      p = w._grow(need);
    }
    w._pos = p + need; // reserve first: converting an element may run user code
    p = loop(w._buf, p, value, i, stop);
  }
  w._pos = p;
  return w._delimit(at);
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopUint32(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    let v = value[i] >>> 0;
    if (v < 128) {
      buf[p++] = v;
    } else if (v < 16384) {
      // One- and two-byte values (most of a vector tile's geometry) without the loop. A
      // Uint8Array store keeps the low 8 bits, so `v | 128` is the low 7 bits and the flag.
      buf[p] = v | 128;
      buf[p + 1] = v >>> 7;
      p += 2;
    } else {
      while (v > 127) {
        buf[p++] = v | 128;
        v >>>= 7;
      }
      buf[p++] = v;
    }
  }
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopInt32(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    const v = value[i] | 0;
    p = v < 0 ? putNegativeInt32(buf, p, v) : putVarint32(buf, p, v);
  }
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopSint32(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    // protobuf.js reads and converts the element twice; so does this.
    let v = ((value[i] << 1) ^ (value[i] >> 31)) >>> 0;
    while (v > 127) {
      buf[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[p++] = v;
  }
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<*>, number, number): number} */
function loopUint64(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    longBits(value[i]);
    p = putVarint64(buf, p, BITS[0] >>> 0, BITS[1] >>> 0);
  }
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<*>, number, number): number} */
function loopSint64(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    longBits(value[i]);
    p = putZigzag64(buf, p, BITS[0], BITS[1]);
  }
  return p;
}

/**
 * Writes a packed 64-bit varint field: BigInt arrays by the native encoder when long, everything
 * else by JS.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {number} kind `P.RUN_UINT64` or `P.RUN_SINT64`
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Element writer
 * @returns {RustWriter} `w`
 */
function varints64(w, value, kind, loop) {
  const count = countOf(value, VARINTS);
  if (NATIVE && (value instanceof BigInt64Array || value instanceof BigUint64Array) && nativeRun(w, count, true)) {
    return recordRun(w, value, count, kind);
  }
  return writeLoop(w, value, count, loop, 10);
}

/**
 * Writes a packed fixed-size field's length prefix, then its elements: from `bytes` when given
 * (by reference when they are the caller's array and large), else with `loop`.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} value Elements
 * @param {number} count Elements
 * @param {number} size Bytes per element
 * @param {Uint8Array|null} bytes The elements' wire bytes, if at hand
 * @param {boolean} theirs Whether `bytes` are `value`'s own (else a scratch buffer's, which must
 * be copied now)
 * @param {function(Uint8Array, number, ArrayLike<*>, number, number): number} loop Element writer
 * @returns {RustWriter} `w`
 */
function fixedSize(w, value, count, size, bytes, theirs, loop) {
  const len = count * size;
  if (theirs && bytes !== null && len >= settings.refMin) return w._reference(bytes, len, true);
  if (len > P.MAX_OUTPUT) w._grow(len); // throws the size RangeError
  let p = w._pos;
  if (p + 5 > w._end) p = w._grow(5);
  w._pos = putVarint32(w._buf, p, len);
  if (bytes !== null) {
    p = w._pos;
    if (p + len > w._end) p = w._grow(len);
    w._buf.set(bytes, p);
    w._pos = p + len;
    return w;
  }
  for (let i = 0; i < count; i += CHUNK) {
    const stop = count - i < CHUNK ? count : i + CHUNK;
    const need = (stop - i) * size;
    p = w._pos;
    if (p + need > w._end) p = w._grow(need);
    w._pos = p + need; // reserve first: converting an element may run user code
    loop(w._buf, p, value, i, stop);
  }
  return w;
}

/**
 * `value`'s bytes when it is one of `types` (so its bytes are the wire bytes), else null.
 * @param {*} value Elements
 * @param {number} count Elements to write
 * @param {Function[]} types Typed array classes whose bytes are the wire format
 * @returns {Uint8Array|null} Bytes
 */
function wireBytes(value, count, types) {
  for (const type of types) {
    if (value instanceof type) return new Uint8Array(value.buffer, value.byteOffset, count * type.BYTES_PER_ELEMENT);
  }
  return null;
}

/** The typed arrays whose bytes are each fixed-size method's wire bytes (module constants, so
 * no call allocates a list). */
const FIXED32_TYPES = [Int32Array, Uint32Array];
const FLOAT_TYPES = [Float32Array];
const DOUBLE_TYPES = [Float64Array];
const FIXED64_TYPES = [BigInt64Array, BigUint64Array];

/** Reused conversion buffers for float fields from plain arrays. */
let floatScratch = new Float32Array(0);
let doubleScratch = new Float64Array(0);

/**
 * `value`'s elements converted to the bytes of `Type` with one typed-array `set`, when that is
 * cheaper than a loop (a long plain array or a typed array of another type), else null.
 * @param {ArrayLike<number>} value Elements
 * @param {number} count Elements
 * @param {boolean} single Float32 (else Float64)
 * @returns {Uint8Array|null} Bytes
 */
function convertedFloats(value, count, single) {
  if (count < BULK_FLOATS_MIN || value.length !== count || !(Array.isArray(value) || isTypedArray(value))) return null;
  if (single) {
    if (floatScratch.length < count) floatScratch = new Float32Array(Math.max(count, 2 * floatScratch.length));
    floatScratch.set(value);
    return new Uint8Array(floatScratch.buffer, 0, count * 4);
  }
  if (doubleScratch.length < count) doubleScratch = new Float64Array(Math.max(count, 2 * doubleScratch.length));
  doubleScratch.set(value);
  return new Uint8Array(doubleScratch.buffer, 0, count * 8);
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopFixed32(buf, p, value, i, stop) {
  for (; i < stop; ++i) p = putFixed32(buf, p, value[i] >>> 0);
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopFloat(buf, p, value, i, stop) {
  for (; i < stop; ++i) p = putFloat(buf, p, value[i]);
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<number>, number, number): number} */
function loopDouble(buf, p, value, i, stop) {
  for (; i < stop; ++i) p = putDouble(buf, p, value[i]);
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<*>, number, number): number} */
function loopFixed64(buf, p, value, i, stop) {
  for (; i < stop; ++i) {
    longBits(value[i]);
    p = putFixed32(buf, p, BITS[0]);
    p = putFixed32(buf, p, BITS[1]);
  }
  return p;
}

/** @type {function(Uint8Array, number, ArrayLike<*>, number, number): number} */
function loopBool(buf, p, value, i, stop) {
  for (; i < stop; ++i) buf[p++] = value[i] ? 1 : 0;
  return p;
}

/**
 * Writes an array of unsigned 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint32s = function write_uint32s(value) {
  if (isShort(value, shortVarints())) {
    const at = openShort(this, 5 * value.length);
    return closeShort(this, at, loopUint32(this._buf, at + 1, value, 0, value.length));
  }
  return varints32(this, value, P.RUN_UINT32, loopUint32, 5);
};

/**
 * Writes an array of signed 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int32s = function write_int32s(value) {
  if (isShort(value, shortVarints())) {
    const at = openShort(this, 10 * value.length);
    return closeShort(this, at, loopInt32(this._buf, at + 1, value, 0, value.length));
  }
  return varints32(this, value, P.RUN_INT32, loopInt32, 10);
};

/**
 * Writes an array of 32 bit values as packed, zig-zag encoded varints.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint32s = function write_sint32s(value) {
  if (isShort(value, shortVarints())) {
    const at = openShort(this, 5 * value.length);
    return closeShort(this, at, loopSint32(this._buf, at + 1, value, 0, value.length));
  }
  return varints32(this, value, P.RUN_SINT32, loopSint32, 5);
};

/**
 * Writes an array of unsigned 64 bit values as a packed repeated field.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint64s = function write_uint64s(value) {
  return varints64(this, value, P.RUN_UINT64, loopUint64);
};

/**
 * Writes an array of signed 64 bit values as a packed repeated field.
 * @function
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int64s = RustWriter.prototype.uint64s;

/**
 * Writes an array of 64 bit values as packed, zig-zag encoded varints.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint64s = function write_sint64s(value) {
  return varints64(this, value, P.RUN_SINT64, loopSint64);
};

/**
 * Writes an array of unsigned 32 bit values as packed, fixed 32 bits.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed32s = function write_fixed32s(value) {
  if (isShort(value, SHORT)) {
    const p = openFixed(this, 4 * value.length); // may move the writer: read _buf after it
    loopFixed32(this._buf, p, value, 0, value.length);
    return this;
  }
  const count = countOf(value, FIXED);
  return fixedSize(this, value, count, 4, wireBytes(value, count, FIXED32_TYPES), true, loopFixed32);
};

/**
 * Writes an array of signed 32 bit values as packed, fixed 32 bits.
 * @function
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed32s = RustWriter.prototype.fixed32s;

/**
 * Writes an array of floats (32 bit) as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.floats = function write_floats(value) {
  if (isShort(value, BULK_FLOATS_MIN)) {
    const p = openFixed(this, 4 * value.length); // may move the writer: read _buf after it
    loopFloat(this._buf, p, value, 0, value.length);
    return this;
  }
  const count = countOf(value, FIXED);
  const own = wireBytes(value, count, FLOAT_TYPES);
  if (own !== null) return fixedSize(this, value, count, 4, own, true, loopFloat);
  return fixedSize(this, value, count, 4, convertedFloats(value, count, true), false, loopFloat);
};

/**
 * Writes an array of doubles (64 bit float) as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.doubles = function write_doubles(value) {
  if (isShort(value, BULK_FLOATS_MIN)) {
    const p = openFixed(this, 8 * value.length); // may move the writer: read _buf after it
    loopDouble(this._buf, p, value, 0, value.length);
    return this;
  }
  const count = countOf(value, FIXED);
  const own = wireBytes(value, count, DOUBLE_TYPES);
  if (own !== null) return fixedSize(this, value, count, 8, own, true, loopDouble);
  return fixedSize(this, value, count, 8, convertedFloats(value, count, false), false, loopDouble);
};

/**
 * Writes an array of unsigned 64 bit values as packed, fixed 64 bits.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed64s = function write_fixed64s(value) {
  const count = countOf(value, FIXED);
  return fixedSize(this, value, count, 8, wireBytes(value, count, FIXED64_TYPES), true, loopFixed64);
};

/**
 * Writes an array of signed 64 bit values as packed, fixed 64 bits.
 * @function
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed64s = RustWriter.prototype.fixed64s;

/**
 * Writes an array of boolish values as a packed repeated field.
 * @param {ArrayLike<boolean>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bools = function write_bools(value) {
  if (isShort(value, SHORT)) {
    const p = openFixed(this, value.length); // may move the writer: read _buf after it
    loopBool(this._buf, p, value, 0, value.length);
    return this;
  }
  return fixedSize(this, value, countOf(value, BOOLS), 1, null, false, loopBool);
};

