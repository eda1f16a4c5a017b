'use strict';

/**
 * protobufjs-rustwriter: a drop-in replacement for protobuf.js's `Writer`.
 *
 * Each write method stores an opcode and its raw operand into a tape (typed-array views of
 * memory the native side owns); `finish()` makes one native call without arguments that replays
 * the tape into the result. The tape format is defined once, in `rust/opcode.rs`; the opcode
 * numbers come from the binding at load time.
 *
 * Tapes are append-only arenas shared by the writers of this module instance. A writer records
 * into a region of the current arena; a new writer starts its region where the last one ended
 * and takes over the arena's top by setting the previous owner's capacity (`_c`) to 0. So a
 * finished writer keeps its bytes (`finish()` twice, writing after `finish()` work as in
 * protobuf.js), and only a writer that writes again after losing the top moves, once, to an
 * arena of its own.
 */

const { markAsUntransferable } = require('worker_threads');
const Long = require('long');
const binding = require('./binding.js');

const P = binding.protocol();
const OP_UINT32 = P.UINT32;
const OP_INT32 = P.INT32;
const OP_SINT32 = P.SINT32;
const OP_FIXED32 = P.FIXED32;
const OP_UINT64 = P.UINT64;
const OP_SINT64 = P.SINT64;
const OP_FIXED64 = P.FIXED64;
const OP_FORK = P.FORK;
const OP_LDELIM = P.LDELIM;
const OP_BYTES = P.BYTES;
const OP_RAW = P.RAW;
const OP_PACKED_UINT32 = P.PACKED_UINT32;
const OP_PACKED_INT32 = P.PACKED_INT32;
const OP_PACKED_SINT32 = P.PACKED_SINT32;
const OP_PACKED_FIXED32 = P.PACKED_FIXED32;
const OP_PACKED_UINT64 = P.PACKED_UINT64;
const OP_PACKED_SINT64 = P.PACKED_SINT64;
const OP_PACKED_FIXED64 = P.PACKED_FIXED64;
const CTL_START = P.CTL_START;
const CTL_END = P.CTL_END;
const CTL_OFFSET = P.CTL_OFFSET;
const CTL_SLAB = P.CTL_SLAB;

for (const name of Object.keys(P)) {
  if (typeof P[name] !== 'number') throw new Error(`protobufjs-rustwriter: binding protocol has no number for ${name}`);
}

/** Bytes of a shared arena. Large enough that a new one (~3 µs) is needed rarely. */
const ARENA_BYTES = 256 * 1024;
/** A writer whose region would exceed this many words records into an arena of its own. */
const SHARED_MAX_WORDS = ARENA_BYTES / 4 / 4;
/** Strings shorter than this are UTF-8 encoded by a JS loop (WTF-8 for lone surrogates), longer
 * ones by `Buffer#utf8Write` (U+FFFD), exactly where protobuf.js's BufferWriter switches. */
const UTF8_LOOP_MAX = 40;
/** Largest Int32Array index + 1 an arena can have. */
const MAX_ARENA_WORDS = 0x3fffffff;

const engine = binding.createEngine();
const ctl = new Int32Array(engine.control.buffer, engine.control.byteOffset, P.CTL_WORDS);

/**
 * A `Uint8Array` with `Buffer.prototype`: how Node itself makes `Buffer`s (its internal
 * `FastBuffer`), at the cost of a typed-array view (~50 ns) instead of `Buffer.from(ab, off, n)`
 * (~100 ns).
 */
class ResultBuffer extends Uint8Array {}
Object.setPrototypeOf(ResultBuffer.prototype, Buffer.prototype);
Object.defineProperty(ResultBuffer.prototype, 'constructor', { value: Buffer, writable: true, configurable: true });

let slabGeneration = 0;
/** The current slab's ArrayBuffer and byte offset, cached: `.buffer` of an external Buffer costs
 * ~45 ns per read. */
let slabArrayBuffer = null;
let slabOffset = 0;

/** An arena: one native tape block and its views. */
class Arena {
  constructor(bytes, shared) {
    const u8 = engine.tape(bytes, shared);
    markAsUntransferable(u8.buffer);
    /** @type {Buffer} */
    this.u8 = u8;
    this.i32 = new Int32Array(u8.buffer, u8.byteOffset, u8.length >>> 2);
    this.f32 = new Float32Array(u8.buffer, u8.byteOffset, u8.length >>> 2);
    this.f64 = new Float64Array(u8.buffer, u8.byteOffset, u8.length >>> 3);
    this.words = u8.length >>> 2;
    /** Whether `finish()` replays it without passing it (the engine's current tape). */
    this.shared = shared;
    /** @type {RustWriter|null} the writer recording at the top */
    this.owner = null;
    /** First free word when no writer owns the top. */
    this.top = 0;
  }
}

let current = new Arena(ARENA_BYTES, true);

const EMPTY_ARENA = { i32: new Int32Array(0), f32: new Float32Array(0), f64: new Float64Array(0), u8: Buffer.alloc(0) };

/**
 * Constructs a new writer.
 * @classdesc Wire format writer that records into a tape and encodes it natively on `finish()`.
 * Same API and bytes as protobuf.js's `BufferWriter` (8.8.1).
 * @constructor
 */
function RustWriter() {
  /** @type {Arena|null} */
  this._t = null;
  this._i32 = EMPTY_ARENA.i32;
  this._f32 = EMPTY_ARENA.f32;
  this._f64 = EMPTY_ARENA.f64;
  this._u8 = EMPTY_ARENA.u8;
  /** first word of this writer's region */
  this._s = 0;
  /** next free word */
  this._n = 0;
  /** words this writer may use before `_claim` (0 when it does not own an arena top) */
  this._c = 0;
  /** innermost open fork, relative to `_s`, or -1 */
  this._f = -1;
  /** word index of the payload record being written */
  this._r = 0;
}

/**
 * Creates a new writer.
 * @returns {RustWriter} A new writer
 */
RustWriter.create = function create() {
  return new RustWriter();
};

/**
 * Allocates a buffer of the specified size.
 * @param {number} size Buffer size
 * @returns {Buffer} Buffer
 */
RustWriter.alloc = function alloc(size) {
  return Buffer.allocUnsafe(size);
};

/**
 * Makes room for `need` more words and returns the cursor: takes the top of the shared arena, or
 * moves this writer's region to an arena where it fits.
 * @param {number} need Words the caller is about to write
 * @returns {number} The new `_n`
 * @private
 */
RustWriter.prototype._claim = function _claim(need) {
  const used = this._n - this._s;
  const arena = current;
  if (used === 0 && arena.owner !== this && need <= SHARED_MAX_WORDS) {
    // The common case: a writer with nothing recorded takes the top of the shared arena.
    const owner = arena.owner;
    if (owner !== null) {
      arena.top = owner._n;
      owner._c = 0;
    }
    const at = arena.top;
    if (at + need <= arena.words) {
      arena.owner = this;
      this._t = arena;
      this._i32 = arena.i32;
      this._f32 = arena.f32;
      this._f64 = arena.f64;
      this._u8 = arena.u8;
      this._s = this._n = at;
      this._c = arena.words;
      return at;
    }
  }
  return this._claimSlow(need);
};

/**
 * `_claim` for everything but a fresh writer on a shared arena with room.
 * @param {number} need Words the caller is about to write
 * @returns {number} The new `_n`
 * @private
 */
RustWriter.prototype._claimSlow = function _claimSlow(need) {
  const used = this._n - this._s;
  const words = used + need;
  if (!(words <= MAX_ARENA_WORDS)) throw new RangeError(`protobufjs-rustwriter: message too large for a tape (${words} words)`);
  const from = this._t;
  let arena = current;
  let at;
  if (words > SHARED_MAX_WORDS || (used !== 0 && from !== null && !(from === arena && arena.owner === this))) {
    // Large, or its region lost the top to another writer: record into an arena of its own from
    // now on, so it never moves again because of others. Doubling keeps growth amortized.
    if (from !== null && from.owner === this && from.shared) {
      from.top = this._s;
      from.owner = null;
    }
    arena = new Arena(Math.min(Math.max(words * 2, 1024), MAX_ARENA_WORDS) * 4, false);
    at = 0;
  } else {
    const owner = arena.owner;
    if (owner === this) {
      at = this._s; // owns the top but the arena is full
    } else {
      if (owner !== null) {
        arena.top = owner._n;
        owner._c = 0;
      }
      at = arena.top;
    }
    if (at + words > arena.words) {
      arena.owner = null;
      arena = current = new Arena(ARENA_BYTES, true);
      at = 0;
    }
  }
  if (used !== 0 && (from !== arena || this._s !== at)) arena.i32.set(from.i32.subarray(this._s, this._n), at);
  arena.owner = this;
  this._t = arena;
  this._i32 = arena.i32;
  this._f32 = arena.f32;
  this._f64 = arena.f64;
  this._u8 = arena.u8;
  this._s = at;
  this._n = at + used;
  this._c = arena.words;
  return this._n;
};

/**
 * Writes an unsigned 32 bit value as a varint.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint32 = function write_uint32(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2; // reserve first: the store below may run user code (valueOf)
  const t = this._i32;
  t[n] = OP_UINT32;
  t[n + 1] = value; // ToInt32 has the bits of protobuf.js's `value >>> 0`
  return this;
};

/**
 * Writes a signed 32 bit value as a varint.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int32 = function write_int32(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2; // reserve first: the store below may run user code (valueOf)
  const t = this._i32;
  t[n] = OP_INT32;
  t[n + 1] = value;
  return this;
};

/**
 * Writes a 32 bit value as a varint, zig-zag encoded.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint32 = function write_sint32(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2; // reserve first: the store below may run user code (valueOf)
  const t = this._i32;
  t[n] = OP_SINT32;
  t[n + 1] = value;
  return this;
};

/**
 * Writes a boolish value as a varint.
 * @param {boolean} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bool = function write_bool(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2; // reserve first: the store below may run user code (valueOf)
  const t = this._i32;
  t[n] = OP_UINT32;
  t[n + 1] = value ? 1 : 0;
  return this;
};

/**
 * Writes an unsigned 32 bit value as fixed 32 bits.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed32 = function write_fixed32(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2; // reserve first: the store below may run user code (valueOf)
  const t = this._i32;
  t[n] = OP_FIXED32;
  t[n + 1] = value;
  return this;
};

/**
 * Writes a signed 32 bit value as fixed 32 bits.
 * @function
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed32 = RustWriter.prototype.fixed32;

/**
 * Writes a float (32 bit).
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.float = function write_float(value) {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._n = n + 2;
  this._i32[n] = OP_FIXED32;
  this._f32[n + 1] = value;
  return this;
};

/**
 * Writes a double (64 bit float).
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.double = function write_double(value) {
  let n = this._n;
  if (n + 4 > this._c) n = this._claim(4);
  this._n = n + 4;
  this._i32[n] = OP_FIXED64;
  this._f64[(n >>> 1) + 1] = value;
  return this;
};

/** Low and high words of the last {@link longBits} result (module scratch: no allocation). */
let LO = 0;
let HI = 0;

/**
 * Sets {@link LO} and {@link HI} to the two's-complement 64 bits of `value`, with protobuf.js's
 * `LongBits.from` coercions, and BigInt as an extension. Runs before anything is written, since
 * reading `low`/`high` can run user code.
 * @param {Long|number|string|bigint|{low: number, high: number}} value Value
 * @returns {undefined}
 */
function longBits(value) {
  if (typeof value === 'number') {
    // LongBits.fromNumber: truncate toward zero, magnitude mod 2^64, negate if negative;
    // NaN and ±Infinity give 0.
    const negative = value < 0;
    if (negative) value = -value;
    const lo = value >>> 0;
    const hi = ((value - lo) / 4294967296) >>> 0;
    if (negative) {
      HI = lo === 0 ? -hi | 0 : ~hi;
      LO = -lo | 0;
    } else {
      LO = lo | 0;
      HI = hi | 0;
    }
  } else if (typeof value === 'bigint') {
    LO = Number(BigInt.asIntN(32, value));
    HI = Number(BigInt.asIntN(32, value >> 32n));
  } else {
    if (typeof value === 'string' || value instanceof String) value = Long.fromString(value);
    if (value.low || value.high) {
      LO = value.low | 0;
      HI = value.high | 0;
    } else {
      LO = 0;
      HI = 0;
    }
  }
}

/**
 * Writes a 64-bit record of `op` for `value`.
 * @param {RustWriter} w Writer
 * @param {number} op Opcode
 * @param {Long|number|string|bigint} value Value
 * @returns {RustWriter} `w`
 */
function write64(w, op, value) {
  longBits(value);
  let n = w._n;
  if (n + 4 > w._c) n = w._claim(4);
  const t = w._i32;
  t[n] = op;
  t[n + 2] = LO;
  t[n + 3] = HI;
  w._n = n + 4;
  return w;
}

/**
 * Writes an unsigned 64 bit value as a varint.
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint64 = function write_uint64(value) {
  return write64(this, OP_UINT64, value);
};

/**
 * Writes a signed 64 bit value as a varint.
 * @function
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int64 = RustWriter.prototype.uint64;

/**
 * Writes a signed 64 bit value as a varint, zig-zag encoded.
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint64 = function write_sint64(value) {
  return write64(this, OP_SINT64, value);
};

/**
 * Writes an unsigned 64 bit value as fixed 64 bits.
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed64 = function write_fixed64(value) {
  return write64(this, OP_FIXED64, value);
};

/**
 * Writes a signed 64 bit value as fixed 64 bits.
 * @function
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed64 = RustWriter.prototype.fixed64;

/**
 * Reserves a payload record of up to `bytes` bytes and returns its first byte's index; the
 * caller copies the payload there and calls `_endPayload` with the actual length. The whole
 * reservation is taken before the copy, which may run user code.
 * @param {number} op Opcode
 * @param {number} bytes Payload bytes to reserve
 * @returns {number} Byte index of the payload
 * @private
 */
RustWriter.prototype._payload = function _payload(op, bytes) {
  let n = this._n;
  const words = 2 + ((bytes + 7) >>> 3) * 2;
  if (!(n + words <= this._c)) n = this._claim(words);
  this._i32[n] = op;
  this._r = n;
  this._n = n + words;
  return (n + 2) << 2;
};

/**
 * Completes the payload record started by `_payload` with its actual length.
 * @param {number} len Payload bytes written
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._endPayload = function _endPayload(len) {
  const r = this._r;
  this._i32[r + 1] = len;
  this._n = r + 2 + ((len + 7) >>> 3) * 2;
  return this;
};

/**
 * Copies `len` elements of `value` as bytes (ToUint8, like `Uint8Array#set`) to `u8[at]`.
 * Typed arrays go through `set`; other array-likes are read element by element up to the
 * length already reserved, so a `length` getter cannot make the copy overrun.
 * @param {Uint8Array} u8 Destination
 * @param {number} at Byte index
 * @param {ArrayLike<number>} value Source
 * @param {number} len Elements to copy
 * @returns {undefined}
 */
function copyBytes(u8, at, value, len) {
  if (ArrayBuffer.isView(value)) {
    u8.set(value.length === len ? value : value.subarray(0, len), at);
  } else {
    for (let i = 0; i < len; ++i) u8[at + i] = value[i];
  }
}

/**
 * Writes a sequence of bytes.
 * @param {Uint8Array|string} value Buffer or base64 encoded string to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bytes = function write_bytes(value) {
  if (typeof value === 'string' || value instanceof String) value = Buffer.from(value, 'base64');
  const len = value.length >>> 0;
  const at = this._payload(OP_BYTES, len);
  if (len) copyBytes(this._u8, at, value, len);
  return this._endPayload(len);
};

/**
 * Writes raw bytes without a tag or length prefix.
 * @param {Uint8Array} value Raw bytes
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.raw = function write_raw(value) {
  const len = value.length >>> 0;
  if (!len) return this;
  const at = this._payload(OP_RAW, len); // may move this writer to another arena: read _u8 after
  copyBytes(this._u8, at, value, len);
  return this._endPayload(len);
};

/**
 * protobuf.js's `utf8.write`: UTF-8, with lone surrogates as 3-byte (WTF-8) sequences.
 * @param {string} string Source
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @returns {number} Bytes written
 */
function utf8Write(string, buf, pos) {
  const start = pos;
  for (let i = 0; i < string.length; ++i) {
    let c1 = string.charCodeAt(i);
    let c2;
    if (c1 < 128) {
      buf[pos++] = c1;
    } else if (c1 < 2048) {
      buf[pos++] = (c1 >> 6) | 192;
      buf[pos++] = (c1 & 63) | 128;
    } else if ((c1 & 0xfc00) === 0xd800 && ((c2 = string.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
      c1 = 0x10000 + ((c1 & 0x03ff) << 10) + (c2 & 0x03ff);
      ++i;
      buf[pos++] = (c1 >> 18) | 240;
      buf[pos++] = ((c1 >> 12) & 63) | 128;
      buf[pos++] = ((c1 >> 6) & 63) | 128;
      buf[pos++] = (c1 & 63) | 128;
    } else {
      buf[pos++] = (c1 >> 12) | 224;
      buf[pos++] = ((c1 >> 6) & 63) | 128;
      buf[pos++] = (c1 & 63) | 128;
    }
  }
  return pos - start;
}

/**
 * Writes a string.
 * @param {string} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.string = function write_string(value) {
  const n = value.length;
  if (!n) {
    this._payload(OP_BYTES, 0);
    return this._endPayload(0);
  }
  const at = this._payload(OP_BYTES, n * 3);
  const u8 = this._u8;
  return this._endPayload(n < UTF8_LOOP_MAX ? utf8Write(value, u8, at) : u8.utf8Write(value, at));
};

/**
 * Starts a packed record of `count` elements of `wordsPer` words each; returns the word index
 * of the first element.
 * @param {number} op Opcode
 * @param {number} count Elements
 * @param {number} wordsPer Words per element (1 or 2)
 * @returns {number} Word index of the first element
 * @private
 */
RustWriter.prototype._packed = function _packed(op, count, wordsPer) {
  let n = this._n;
  const body = count * wordsPer;
  const words = 2 + body + (body & 1);
  if (!(n + words <= this._c)) n = this._claim(words);
  this._n = n + words; // reserve first: reading the elements may run user code
  const t = this._i32;
  t[n] = op;
  t[n + 1] = count;
  return n + 2;
};

/**
 * Writes a packed run of 32-bit elements stored with their typed array's own conversion.
 * @param {RustWriter} w Writer
 * @param {number} op Opcode
 * @param {ArrayLike<number>} value Elements
 * @param {boolean} float Whether to store them as float32
 * @returns {RustWriter} `w`
 */
function packed32(w, op, value, float) {
  const count = value.length >>> 0;
  const at = w._packed(op, count, 1);
  const dst = float ? w._f32 : w._i32;
  if (ArrayBuffer.isView(value)) {
    dst.set(value.length === count ? value : value.subarray(0, count), at);
  } else {
    for (let i = 0; i < count; ++i) dst[at + i] = value[i];
  }
  return w;
}

/**
 * Writes a packed run of 64-bit elements (`LongBits.from` coercions per element).
 * @param {RustWriter} w Writer
 * @param {number} op Opcode
 * @param {ArrayLike<Long|number|string|bigint>} value Elements
 * @returns {RustWriter} `w`
 */
function packed64(w, op, value) {
  const count = value.length >>> 0;
  const at = w._packed(op, count, 2);
  const t = w._i32;
  for (let i = 0; i < count; ++i) {
    longBits(value[i]);
    t[at + 2 * i] = LO;
    t[at + 2 * i + 1] = HI;
  }
  return w;
}

/**
 * Writes an array of unsigned 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint32s = function write_uint32s(value) {
  return packed32(this, OP_PACKED_UINT32, value, false);
};

/**
 * Writes an array of signed 32 bit values as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int32s = function write_int32s(value) {
  return packed32(this, OP_PACKED_INT32, value, false);
};

/**
 * Writes an array of 32 bit values as packed, zig-zag encoded varints.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint32s = function write_sint32s(value) {
  return packed32(this, OP_PACKED_SINT32, value, false);
};

/**
 * Writes an array of unsigned 32 bit values as packed, fixed 32 bits.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed32s = function write_fixed32s(value) {
  return packed32(this, OP_PACKED_FIXED32, value, false);
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
  return packed32(this, OP_PACKED_FIXED32, value, true);
};

/**
 * Writes an array of boolish values as a packed repeated field.
 * @param {ArrayLike<boolean>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bools = function write_bools(value) {
  const count = value.length >>> 0;
  const at = this._packed(OP_PACKED_UINT32, count, 1);
  const t = this._i32;
  for (let i = 0; i < count; ++i) t[at + i] = value[i] ? 1 : 0;
  return this;
};

/**
 * Writes an array of doubles (64 bit float) as a packed repeated field.
 * @param {ArrayLike<number>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.doubles = function write_doubles(value) {
  const count = value.length >>> 0;
  const at = this._packed(OP_PACKED_FIXED64, count, 2) >>> 1;
  const f64 = this._f64;
  if (ArrayBuffer.isView(value)) {
    f64.set(value.length === count ? value : value.subarray(0, count), at);
  } else {
    for (let i = 0; i < count; ++i) f64[at + i] = value[i];
  }
  return this;
};

/**
 * Writes an array of unsigned 64 bit values as a packed repeated field.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint64s = function write_uint64s(value) {
  return packed64(this, OP_PACKED_UINT64, value);
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
  return packed64(this, OP_PACKED_SINT64, value);
};

/**
 * Writes an array of unsigned 64 bit values as packed, fixed 64 bits.
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed64s = function write_fixed64s(value) {
  return packed64(this, OP_PACKED_FIXED64, value);
};

/**
 * Writes an array of signed 64 bit values as packed, fixed 64 bits.
 * @function
 * @param {ArrayLike<Long|number|string|bigint>} value Values to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed64s = RustWriter.prototype.fixed64s;

/**
 * Forks this writer's state: what follows up to the matching `ldelim()` becomes a
 * length-delimited section.
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fork = function fork() {
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  const t = this._i32;
  t[n] = OP_FORK;
  t[n + 1] = this._f; // link to the enclosing fork, for ldelim() and reset()
  this._f = n - this._s;
  this._n = n + 2;
  return this;
};

/**
 * Resets this instance to the last state: drops what was written since the last `fork()`, or
 * everything if no fork is open.
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.reset = function reset() {
  const f = this._f;
  if (f >= 0) {
    this._n = this._s + f;
    this._f = this._i32[this._n + 1];
  } else {
    this._n = this._s;
  }
  return this;
};

/**
 * Closes the innermost fork, prefixing its content with its length. With no fork open, prefixes
 * everything written so far with its length (as protobuf.js does for older generated code).
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.ldelim = function ldelim() {
  const f = this._f;
  if (f >= 0) this._f = this._i32[this._s + f + 1];
  let n = this._n;
  if (n + 2 > this._c) n = this._claim(2);
  this._i32[n] = OP_LDELIM;
  this._i32[n + 1] = 0;
  this._n = n + 2;
  return this;
};

/**
 * Replays this writer's region; returns the result's length and leaves its place in `ctl`.
 * @param {RustWriter} w Writer
 * @param {boolean} measureOnly Whether to only measure
 * @returns {number} Bytes
 */
function replay(w, measureOnly) {
  const arena = w._t;
  ctl[CTL_START] = w._s;
  ctl[CTL_END] = w._n;
  try {
    if (arena.shared && arena === current) return measureOnly ? engine.measure() : engine.finish();
    return measureOnly ? engine.measureTape(arena.u8) : engine.finishTape(arena.u8);
  } catch (err) {
    throw err.code === 'ERR_OUT_OF_RANGE' ? new RangeError(`protobufjs-rustwriter: ${err.message}`) : err;
  }
}

/**
 * Finishes the write operation.
 * The result is a new `Buffer` the caller owns: later writes to this or any other writer never
 * change it. `finish()` does not reset the writer (as in protobuf.js).
 * @param {boolean} [shared] Accepted for protobuf.js 8.x compatibility; the result is never
 * shared with the writer.
 * @returns {Buffer} Finished buffer
 */
RustWriter.prototype.finish = function finish() {
  if (this._n === this._s) return Buffer.alloc(0);
  if (slabArrayBuffer !== null && slabArrayBuffer.byteLength === 0) {
    // Someone detached the slab's ArrayBuffer: never write there again.
    engine.retireSlab();
    slabArrayBuffer = null;
    slabGeneration = 0;
  }
  const len = replay(this, false);
  const offset = ctl[CTL_OFFSET];
  if (offset < 0) return engine.takeOutput();
  if (ctl[CTL_SLAB] !== slabGeneration) {
    const slab = engine.slab();
    slabArrayBuffer = slab.buffer;
    slabOffset = slab.byteOffset;
    markAsUntransferable(slabArrayBuffer);
    slabGeneration = ctl[CTL_SLAB];
  }
  return new ResultBuffer(slabArrayBuffer, slabOffset + offset, len);
};

/**
 * Finishes the write operation, writing into the provided buffer.
 * @template {Uint8Array} T
 * @param {T} buf Target buffer, with room for {@link RustWriter#pos} bytes after `offset`
 * @param {number} [offset=0] Offset to start writing at
 * @returns {T} The provided buffer
 */
RustWriter.prototype.finishInto = function finishInto(buf, offset) {
  buf.set(this.finish(), offset === undefined ? 0 : offset);
  return buf;
};

Object.defineProperties(RustWriter.prototype, {
  /**
   * Bytes `finish()` would return now (protobuf.js 8.x `pos`: an open fork counts its one
   * placeholder byte).
   * @name RustWriter#pos
   * @type {number}
   * @readonly
   */
  pos: {
    configurable: true,
    enumerable: true,
    get: function get_pos() {
      return this._n === this._s ? 0 : replay(this, true);
    },
  },
  /**
   * Same as {@link RustWriter#pos} (protobuf.js 8.x's deprecated alias).
   * @name RustWriter#len
   * @type {number}
   * @readonly
   */
  len: {
    configurable: true,
    enumerable: true,
    get: function get_len() {
      return this._n === this._s ? 0 : replay(this, true);
    },
  },
});

const INSTALLED = Symbol.for('protobufjs-rustwriter.installed');

/**
 * `Writer.create` while installed.
 * @returns {RustWriter} A new writer
 */
function create_rust() {
  return new RustWriter();
}

/**
 * Makes every `Type.encode` / `encodeDelimited` of this protobufjs instance (reflection and
 * static generated code, protobufjs 7.x and 8.x) write through {@link RustWriter}. Idempotent;
 * survives `protobuf.configure()`.
 * @param {object} protobuf The protobufjs module (`protobufjs`, `/light` or `/minimal`)
 * @returns {object} `protobuf`
 */
function install(protobuf) {
  const Writer = protobuf && protobuf.Writer;
  if (typeof Writer !== 'function' || typeof Writer.create !== 'function') {
    throw new TypeError('protobufjs-rustwriter: install() expects the protobufjs module (with a Writer)');
  }
  if (Object.prototype.hasOwnProperty.call(Writer, INSTALLED)) return protobuf;
  const original = { create: Writer.create, configure: Writer._configure };
  Object.defineProperty(Writer, INSTALLED, { value: original, configurable: true });
  Writer.create = create_rust;
  if (typeof original.configure === 'function') {
    // protobuf.configure() resets Writer.create through Writer._configure: re-apply after it.
    Writer._configure = function _configure() {
      const result = original.configure.apply(this, arguments);
      Writer.create = create_rust;
      return result;
    };
  }
  return protobuf;
}

/**
 * Undoes {@link install}: `Writer.create` and `Writer._configure` are protobufjs's own again.
 * @param {object} protobuf The protobufjs module passed to `install`
 * @returns {object} `protobuf`
 */
function uninstall(protobuf) {
  const Writer = protobuf && protobuf.Writer;
  const original = Writer && Object.prototype.hasOwnProperty.call(Writer, INSTALLED) ? Writer[INSTALLED] : null;
  if (original === null) return protobuf;
  Writer.create = original.create;
  if (typeof original.configure === 'function') {
    Writer._configure = original.configure;
    // create() may have been reset by configure() while installed; configure again to be sure.
    Writer.create = original.create;
  }
  delete Writer[INSTALLED];
  return protobuf;
}

module.exports = { RustWriter, install, uninstall, _protocol: P };
