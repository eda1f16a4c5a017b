'use strict';

/**
 * protobufjs-rustwriter: a drop-in replacement for protobuf.js's `Writer`.
 *
 * Each write method stores an opcode and its raw operand into a tape (typed-array views of
 * memory the native side owns); `finish()` replays the tape into the result: a short tape in JS
 * (cheaper than a native call), a longer one with one native call without arguments. The tape
 * format is defined once, in `rust/opcode.rs`; the opcode numbers come from the binding at load
 * time.
 *
 * Tapes live in a ring shared by the writers of this module instance. A writer records into a
 * region at the ring's top; `finish()` hands the region back (the returned bytes are then the
 * writer's content, re-recorded if it is written again), so the next writer records into the
 * same, already cached memory. A writer that loses the top while it still needs its region
 * (nested or interleaved writers) keeps it: the ring is then replaced rather than reused, and the
 * writer moves, once, to an arena of its own when it writes again.
 */

const { markAsUntransferable } = require('worker_threads');
const Long = require('long');

/** The tape format's numbers, generated from `rust/opcode.rs` and the binding (a test and a
 * cargo test fail if they drift), so that the JS-only path has them without the addon. */
const P = require('./protocol.json');

/** Environment variable that forces a path: `js` (never load the addon) or `native` (fail when
 * it cannot be loaded). Unset: the addon when it loads, else JS with one warning. */
const FORCE_ENV = 'PROTOBUFJS_RUSTWRITER';
/** The platforms with a prebuilt addon package (package.json `napi.targets`). */
const PREBUILT = ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc'];

/**
 * The native engine, or `null` for the JS-only path.
 * @returns {object|null} Engine
 */
function loadEngine() {
  const force = process.env[FORCE_ENV];
  if (force === 'js') return null;
  if (force !== undefined && force !== 'native' && force !== '') {
    throw new Error(`protobufjs-rustwriter: ${FORCE_ENV} must be "js" or "native", not ${JSON.stringify(force)}`);
  }
  let binding;
  try {
    binding = require('./binding.js');
  } catch (err) {
    const platform = `${process.platform}-${process.arch}`;
    if (force === 'native') {
      throw new Error(`protobufjs-rustwriter: no native addon for ${platform} (${FORCE_ENV}=native): ${err.message}`, { cause: err });
    }
    process.emitWarning(`no native addon for ${platform}, so RustWriter encodes in JavaScript (same bytes, slower). ` +
      `Prebuilt addons for ${PREBUILT.join(', ')} are optional dependencies: install without --omit=optional. ` +
      'Elsewhere, npm install in a git clone of protobufjs-rustwriter builds the addon with a Rust toolchain (cargo). ' +
      `Set ${FORCE_ENV}=js to choose the JS path without this warning.`,
    { code: 'PROTOBUFJS_RUSTWRITER_NO_NATIVE', type: 'ProtobufjsRustwriterWarning' });
    return null;
  }
  const actual = binding.protocol();
  for (const name of new Set([...Object.keys(P), ...Object.keys(actual)])) {
    if (P[name] !== actual[name]) {
      throw new Error(`protobufjs-rustwriter: the native addon does not match this version of index.js (${name}); reinstall the package`);
    }
  }
  return binding.createEngine();
}

const engine = loadEngine();
/** Whether the native addon is in use. */
const NATIVE = engine !== null;

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
const CTL_REFS = P.CTL_REFS;
const CTL_HOLES = P.CTL_HOLES;
const MAX_REFS = P.MAX_REFS;
const OP_BYTES_REF = P.BYTES_REF;

/** Bytes of the shared tape ring. Writers reuse it from the start whenever nothing there is
 * still needed, so it stays in cache and never costs fresh pages (a fresh page costs ~0.5-1.7 µs
 * on the 2-core machines this was measured on: `perf` of `bench/probe-case.js`). */
const RING_BYTES = 256 * 1024;
/** A writer whose region would exceed this many words records into an arena of its own. */
const SHARED_MAX_WORDS = RING_BYTES / 4 / 4;
/** Length of the displaced-writers list at which it is pruned. */
const DISPLACED_PRUNE = 64;
/** Largest private arena kept for the next large writer instead of being given back. */
const SPARE_MAX_BYTES = 64 * 1024 * 1024;
/** A `Uint8Array` of at least this many bytes given to `bytes()` is not copied into the tape: the
 * writer keeps a reference and copies it once, straight into the result, after the native replay
 * (as protobufjs 7 does). Below it, copying into the tape costs less than the bookkeeping. The
 * JS-only path always copies. */
const BYTES_REF_MIN = NATIVE ? 4096 : Infinity;
/** Strings shorter than this are UTF-8 encoded by a JS loop (WTF-8 for lone surrogates), longer
 * ones by `Buffer#utf8Write` (U+FFFD), exactly where protobuf.js's BufferWriter switches. */
const UTF8_LOOP_MAX = 40;
/** Largest Int32Array index + 1 an arena can have. */
const MAX_ARENA_WORDS = 0x3fffffff;

const ctl = NATIVE ? new Int32Array(engine.control.buffer, engine.control.byteOffset, P.CTL_WORDS) : new Int32Array(P.CTL_WORDS);

/**
 * A `Uint8Array` with `Buffer.prototype`: how Node itself makes `Buffer`s (its internal
 * `FastBuffer`), at the cost of a typed-array view (~50 ns) instead of `Buffer.from(ab, off, n)`
 * (~100 ns).
 */
class ResultBuffer extends Uint8Array {}
Object.setPrototypeOf(ResultBuffer.prototype, Buffer.prototype);
Object.defineProperty(ResultBuffer.prototype, 'constructor', { value: Buffer, writable: true, configurable: true });

let slabGeneration = 0;
/** The native side's current result slab (an ArrayBuffer). */
let slabArrayBuffer = null;

/** An arena: one native tape block and its views. */
class Arena {
  constructor(bytes, shared) {
    const u8 = Buffer.from(NATIVE ? engine.tape(bytes, shared) : new ArrayBuffer(Math.ceil(bytes / 8) * 8));
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

/** The shared ring. Replaced (not wrapped) only when a writer that lost its top still needs
 * its region there, so a region is never overwritten while its writer may use it. */
let ring = new Arena(RING_BYTES, true);
/** Writers that lost the ring's top with a region they may still need. */
const displaced = [];
/** A private arena no writer uses, kept for the next large writer. */
let spare = null;

const EMPTY_ARENA = { i32: new Int32Array(0), f32: new Float32Array(0), f64: new Float64Array(0), u8: Buffer.alloc(0) };

/**
 * Constructs a new writer.
 * @classdesc Wire format writer that records into a tape and encodes it on `finish()`.
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
  /** After `finish()` released the region: the result, which is then this writer's content. */
  this._out = null;
  /** `_out`'s length when it was returned (to notice a detached result). */
  this._ol = 0;
  /** Arrays `bytes()` referenced instead of copying, and their lengths: `[array, length, …]`. */
  this._refs = null;
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
 * Records into `arena` from word `at`, where `used` words of this writer's region already are.
 * @param {Arena} arena Arena
 * @param {number} at First word of the region
 * @param {number} used Words recorded
 * @returns {number} The new `_n`
 * @private
 */
RustWriter.prototype._adopt = function _adopt(arena, at, used) {
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
 * Takes the ring's top from its owner; an owner with a region it may still need is remembered.
 * @returns {undefined}
 */
function takeTop() {
  const owner = ring.owner;
  if (owner !== null) {
    ring.top = owner._n;
    owner._c = 0;
    ring.owner = null;
    if (owner._n !== owner._s) {
      // Writers that finished since they were displaced need nothing: drop them now and then,
      // so the list stays short even when the ring rarely wraps.
      if (displaced.length >= DISPLACED_PRUNE) pruneDisplaced();
      displaced.push(owner);
    }
  }
}

/**
 * Drops the writers that no longer hold a region of the ring from `displaced`.
 * @returns {undefined}
 */
function pruneDisplaced() {
  let kept = 0;
  for (const w of displaced) if (holdsRegion(w)) displaced[kept++] = w;
  displaced.length = kept;
}

/**
 * Makes room for `need` more words and returns the cursor: takes the top of the ring, or moves
 * this writer's region to where it fits.
 * @param {number} need Words the caller is about to write
 * @returns {number} The new `_n`
 * @private
 */
RustWriter.prototype._claim = function _claim(need) {
  if (this._n === this._s && this._out === null && ring.owner !== this && need <= SHARED_MAX_WORDS) {
    // The common case: a writer with nothing recorded takes the top of the ring.
    takeTop();
    if (ring.top + need <= ring.words) return this._adopt(ring, ring.top, 0);
  }
  return this._claimSlow(need);
};

/**
 * `_claim` for everything but a fresh writer with room at the ring's top.
 * @param {number} need Words the caller is about to write
 * @returns {number} The new `_n`
 * @private
 */
RustWriter.prototype._claimSlow = function _claimSlow(need) {
  if (this._out !== null) this._restore();
  const used = this._n - this._s;
  const words = used + need;
  if (!(words <= MAX_ARENA_WORDS)) {
    throw new RangeError(`protobufjs-rustwriter: message too large: its tape would exceed the limit of ${MAX_ARENA_WORDS * 4} bytes`);
  }
  const from = this._t;
  if (words > SHARED_MAX_WORDS || (used !== 0 && !(from === ring && ring.owner === this))) {
    // Large, on a private arena already, or its ring region lost the top: record into an arena
    // of its own from now on, so it never moves again because of others. Doubling keeps growth
    // amortized.
    if (from === ring && ring.owner === this) {
      ring.top = this._s;
      ring.owner = null;
    }
    const arena = privateArena(Math.min(Math.max(words * 2, 1024), MAX_ARENA_WORDS));
    if (used !== 0) arena.i32.set(from.i32.subarray(this._s, this._n), 0);
    if (from !== null && from !== ring && from !== arena) keepSpare(from);
    return this._adopt(arena, 0, used);
  }
  if (ring.owner !== this) takeTop();
  let at = ring.owner === this ? this._s : ring.top;
  if (at + words > ring.words) {
    at = 0;
    if (displaced.some(holdsRegion)) {
      // Someone may still use its region here: leave the ring to them and start a new one.
      const old = ring;
      ring = new Arena(RING_BYTES, true);
      if (used !== 0) ring.i32.set(old.i32.subarray(this._s, this._n), 0);
      old.owner = null;
    } else if (used !== 0) {
      ring.i32.copyWithin(0, this._s, this._n);
    }
    displaced.length = 0;
  }
  return this._adopt(ring, at, used);
};

/**
 * Whether `w` may still use its region of the ring.
 * @param {RustWriter} w Writer
 * @returns {boolean} Whether it does
 */
function holdsRegion(w) {
  return w._t === ring && w._n !== w._s;
}

/**
 * A private arena of at least `words` words: the spare one if it is large enough.
 * @param {number} words Words
 * @returns {Arena} Arena
 */
function privateArena(words) {
  if (spare !== null && spare.words >= words) {
    const arena = spare;
    spare = null;
    return arena;
  }
  return new Arena(words * 4, false);
}

/**
 * Keeps `arena`, which no writer uses any more, for the next large writer if it is the largest.
 * @param {Arena} arena Arena this writer left
 * @returns {undefined}
 */
function keepSpare(arena) {
  // A ring (even a replaced one) may hold other writers' regions: only private arenas are kept.
  if (arena.shared) return;
  if (arena.words * 4 <= SPARE_MAX_BYTES && (spare === null || arena.words > spare.words)) spare = arena;
}

/**
 * Gives up this writer's region after `finish()` returned `result`: from then on `result` is
 * its content. The region goes back to the ring (or the private arena to the spare), so the
 * next writer records in memory that is already in cache.
 * @param {Buffer} result What `finish()` returns
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._release = function _release(result) {
  const arena = this._t;
  if (arena === ring) {
    if (ring.owner === this) {
      ring.top = this._s;
      ring.owner = null;
    }
  } else if (arena !== null) {
    keepSpare(arena);
  }
  this._out = result;
  this._ol = result.length;
  this._refs = null;
  this._t = null;
  this._i32 = EMPTY_ARENA.i32;
  this._f32 = EMPTY_ARENA.f32;
  this._f64 = EMPTY_ARENA.f64;
  this._u8 = EMPTY_ARENA.u8;
  this._s = this._n = this._c = 0;
};

/**
 * Turns a released writer's content (the bytes its last `finish()` returned) back into a tape
 * region, before it is written again.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._restore = function _restore() {
  const out = this._out;
  this._out = null;
  if (out.length !== this._ol) {
    throw new Error('protobufjs-rustwriter: cannot continue this writer: the Buffer its finish() returned was detached');
  }
  this.raw(out);
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

/** One 64-bit scratch slot: a BigInt view, and the low and high words of the last
 * {@link longBits} result. Typed-array slots hold any int32 without allocating, where a module
 * variable boxes every value outside the small-integer range (~8 bytes per 64-bit value). */
const BIG = new BigInt64Array(1);
const BITS = new Int32Array(BIG.buffer);

/**
 * Sets {@link BITS} to the two's-complement 64 bits of `value`, with protobuf.js's
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
      BITS[1] = lo === 0 ? -hi | 0 : ~hi;
      BITS[0] = -lo | 0;
    } else {
      BITS[0] = lo;
      BITS[1] = hi;
    }
  } else if (typeof value === 'bigint') {
    // A BigInt64Array store wraps mod 2^64 without allocating (BigInt arithmetic allocates a
    // BigInt per operation, ~90 bytes per value).
    BIG[0] = value;
  } else {
    if (typeof value === 'string' || value instanceof String) value = Long.fromString(value);
    if (value.low || value.high) {
      BITS[0] = value.low;
      BITS[1] = value.high;
    } else {
      BITS[0] = 0;
      BITS[1] = 0;
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
  t[n + 2] = BITS[0];
  t[n + 3] = BITS[1];
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
  // No tape holds 2 GiB: a larger `bytes` (up to 2^32 - 1, from `length >>> 0`) must not wrap
  // around in `>>> 3`; `_claim` refuses it with a RangeError.
  const words = bytes < 0x80000000 ? 2 + ((bytes + 7) >>> 3) * 2 : Infinity;
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
 * @param {*} value Anything
 * @returns {boolean} Whether `value` is a typed array (of any realm; not a `DataView`)
 */
function isTypedArray(value) {
  return ArrayBuffer.isView(value) && value.BYTES_PER_ELEMENT !== undefined;
}

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
  if (isTypedArray(value)) {
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
  if (len >= BYTES_REF_MIN && value instanceof Uint8Array && (this._refs === null || this._refs.length < 2 * MAX_REFS)) {
    return this._reference(value, len);
  }
  const at = this._payload(OP_BYTES, len);
  if (len) copyBytes(this._u8, at, value, len);
  return this._endPayload(len);
};

/**
 * Records a `BYTES_REF` record for `value`, which is kept by reference until `finish()`.
 * @param {Uint8Array} value Bytes
 * @param {number} len Its length
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._reference = function _reference(value, len) {
  let n = this._n;
  if (n + 4 > this._c) n = this._claim(4);
  if (this._refs === null) this._refs = [];
  const t = this._i32;
  t[n] = OP_BYTES_REF;
  t[n + 1] = len;
  t[n + 2] = this._refs.length >>> 1;
  t[n + 3] = 0;
  this._n = n + 4;
  this._refs.push(value, len);
  return this;
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
  const n = value.length;
  const count = n === n >>> 0 ? n : oddLength(n, op === OP_PACKED_FIXED32 ? FIXED : VARINTS);
  const at = w._packed(op, count, 1);
  const dst = float ? w._f32 : w._i32;
  if (isTypedArray(value)) {
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
  const n = value.length;
  const count = n === n >>> 0 ? n : oddLength(n, op === OP_PACKED_FIXED64 ? FIXED : VARINTS);
  const at = w._packed(op, count, 2);
  const t = w._i32;
  for (let i = 0; i < count; ++i) {
    longBits(value[i]);
    t[at + 2 * i] = BITS[0];
    t[at + 2 * i + 1] = BITS[1];
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
  const n = value.length;
  const count = n === n >>> 0 ? n : oddLength(n, BOOLS);
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
  const n = value.length;
  const count = n === n >>> 0 ? n : oddLength(n, FIXED);
  const at = this._packed(OP_PACKED_FIXED64, count, 2) >>> 1;
  const f64 = this._f64;
  if (isTypedArray(value)) {
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
    this._out = null;
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
 * Replays this writer's region natively; returns the result's length and leaves its place in
 * `ctl`.
 * @param {RustWriter} w Writer
 * @param {boolean} measureOnly Whether to only measure
 * @returns {number} Bytes
 */
function replay(w, measureOnly) {
  if (!NATIVE) return measureJs(w._i32, w._s, w._n);
  const arena = w._t;
  ctl[CTL_START] = w._s;
  ctl[CTL_END] = w._n;
  ctl[CTL_REFS] = w._refs === null ? 0 : w._refs.length >>> 1;
  try {
    if (arena === ring) return measureOnly ? engine.measure() : engine.finish();
    return measureOnly ? engine.measureTape(arena.u8) : engine.finishTape(arena.u8);
  } catch (err) {
    throw err.code === 'ERR_OUT_OF_RANGE' ? new RangeError(`protobufjs-rustwriter: ${err.message}`) : err;
  }
}

/**
 * The result of `w`'s region, replayed by the native side into its result slab (or, when large,
 * into a `Buffer` of its own).
 * @param {RustWriter} w Writer
 * @returns {Buffer} Result
 */
function finishNative(w) {
  if (slabArrayBuffer !== null && slabArrayBuffer.byteLength === 0) {
    // Someone detached the slab's ArrayBuffer: never write there again.
    engine.retireSlab();
    slabArrayBuffer = null;
    slabGeneration = 0;
  }
  const refs = w._refs;
  if (refs !== null) checkRefs(refs);
  const len = replay(w, false);
  let result;
  if (ctl[CTL_OFFSET] < 0) {
    // Large: a Buffer of its own, allocated here (uninitialized) and written natively.
    result = Buffer.allocUnsafe(len);
    const arena = w._t;
    engine.writeInto(result, arena === ring ? undefined : arena.u8);
  } else {
    if (ctl[CTL_SLAB] !== slabGeneration) {
      slabArrayBuffer = engine.slab();
      markAsUntransferable(slabArrayBuffer);
      slabGeneration = ctl[CTL_SLAB];
    }
    result = new ResultBuffer(slabArrayBuffer, ctl[CTL_OFFSET], len);
  }
  if (refs !== null) {
    // Copy each referenced array into the hole the replay left for it.
    const holes = ctl[CTL_REFS];
    for (let i = 0; i < holes; ++i) result.set(refs[2 * ctl[CTL_HOLES + 2 * i]], ctl[CTL_HOLES + 2 * i + 1]);
  }
  return result;
}

/**
 * Throws if an array `bytes()` kept by reference no longer has the length it was recorded with
 * (detached, or a view of a resized buffer): its hole could not be filled.
 * @param {Array<Uint8Array|number>} refs `[array, length, …]`
 * @returns {undefined}
 */
function checkRefs(refs) {
  for (let i = 0; i < refs.length; i += 2) {
    if (refs[i].length !== refs[i + 1]) {
      throw new Error('protobufjs-rustwriter: a Uint8Array given to bytes() was detached or resized before finish()');
    }
  }
}

/**
 * Tapes of at most this many words are replayed in JS: below it the native call (~45 ns plus
 * ~40 ns of argument-free N-API work) costs more than the JS replay of the whole tape.
 * `node bench/probe-replay.js` (2-core AMD EPYC, Node 20), whole encode + finish: 22 words JS
 * 370 ns / native 434 ns, 30 words 377 / 455, 36 words 515 / 475, 54 words 706 / 673.
 * Both replays give the same bytes (test/differential.test.js runs every sequence through each).
 */
let jsReplayMaxWords = 32;
/** Bytes of a JS result pool, carved like Node's `Buffer` pool carves `allocUnsafe` results. */
const POOL_BYTES = 16 * 1024;
let pool = null;
let poolU8 = EMPTY_ARENA.u8;
let poolUsed = POOL_BYTES;
/** Output positions of the open forks' placeholder bytes during a JS replay. */
let jsForks = new Int32Array(jsReplayMaxWords >>> 1);

/**
 * The result of `w`'s (short) region, replayed in JS into the JS result pool: the same
 * one-pass algorithm as `Replay::write_forward` in `rust/replay.rs`. A region that might not fit
 * a pool goes to the native replay.
 * @param {RustWriter} w Writer
 * @returns {Buffer} Result
 */
function finishJs(w) {
  const words = w._n - w._s;
  // The most a tape encodes to: 10 bytes per 4 tape bytes (a packed negative int32), plus the
  // slack of a varint (see `forward_bound` in rust/replay.rs).
  const bound = words * 10 + 16;
  if (bound > POOL_BYTES) return NATIVE ? finishNative(w) : finishLargeJs(w);
  if (poolUsed + bound > POOL_BYTES) {
    pool = new ArrayBuffer(POOL_BYTES);
    markAsUntransferable(pool);
    poolU8 = new Uint8Array(pool);
    poolUsed = 0;
  }
  // Forks open at once are at most half the words (the JS-only path sends any tape here).
  if (jsForks.length < words >>> 1) jsForks = new Int32Array(words >>> 1);
  const start = poolUsed;
  const end = replayJs(w._i32, w._u8, w._s, w._n, poolU8, start, words >>> 1);
  poolUsed = (end + 7) & ~7;
  return new ResultBuffer(pool, start, end - start);
}

/**
 * The JS-only path's result for a region too large for a pool: measured exactly first, then
 * written straight into a `Buffer` of that size (the one-pass replay never writes past the final
 * size: a fork's placeholder byte is never more than its prefix).
 * @param {RustWriter} w Writer
 * @returns {Buffer} Result
 */
function finishLargeJs(w) {
  const size = measureJs(w._i32, w._s, w._n);
  const result = Buffer.allocUnsafe(size);
  const end = replayJs(w._i32, w._u8, w._s, w._n, result, 0, jsForkTotal);
  if (end !== size) throw new Error(`protobufjs-rustwriter: internal error: measured ${size} bytes, wrote ${end}`);
  return result;
}

/** Forks in the tape `measureJs` measured last. */
let jsForkTotal = 0;

/**
 * Throws the `RangeError` for a message over `P.MAX_OUTPUT` bytes (the native side's text).
 * @param {number} size Bytes the message would have (at least)
 * @returns {never} Throws
 */
function tooLarge(size) {
  throw new RangeError(`protobufjs-rustwriter: message too large: ${size} bytes exceeds the limit of ${P.MAX_OUTPUT} bytes`);
}

/**
 * Bytes the replay of the tape words `s..e` gives: the JS twin of `Replay::measure` in
 * rust/replay.rs, for the JS-only path (large results and `pos`). Grows `jsForks` to the deepest
 * nesting and leaves the number of forks in `jsForkTotal`.
 * @param {Int32Array} t Tape words
 * @param {number} s First word
 * @param {number} e End word
 * @returns {number} Bytes
 */
function measureJs(t, s, e) {
  let size = 0;
  let depth = 0;
  let forks = 0;
  let n = s;
  while (n < e) {
    const op = t[n];
    const operand = t[n + 1];
    n += 2;
    switch (op) {
      case OP_UINT32:
        size += varint32Len(operand >>> 0);
        break;
      case OP_INT32:
        size += operand < 0 ? 10 : varint32Len(operand);
        break;
      case OP_SINT32:
        size += varint32Len(((operand << 1) ^ (operand >> 31)) >>> 0);
        break;
      case OP_FIXED32:
        size += 4;
        break;
      case OP_UINT64:
        size += varint64Len(t[n + 1], t[n]);
        n += 2;
        break;
      case OP_SINT64: {
        const lo = t[n];
        const hi = t[n + 1];
        size += varint64Len(((hi << 1) | (lo >>> 31)) ^ (hi >> 31), (lo << 1) ^ (hi >> 31));
        n += 2;
        break;
      }
      case OP_FIXED64:
        size += 8;
        n += 2;
        break;
      case OP_FORK:
        // Section starts are kept as int32: past the limit the message is refused here.
        if (size > P.MAX_OUTPUT) tooLarge(size);
        if (depth === jsForks.length) {
          const grown = new Int32Array(2 * depth + 16);
          grown.set(jsForks);
          jsForks = grown;
        }
        jsForks[depth++] = size;
        ++forks;
        break;
      case OP_LDELIM:
        size += varint32Len(depth > 0 ? size - jsForks[--depth] : size);
        break;
      case OP_BYTES:
        size += varint32Len(operand) + operand;
        n += ((operand + 7) >>> 3) * 2;
        break;
      case OP_RAW:
        size += operand;
        n += ((operand + 7) >>> 3) * 2;
        break;
      case OP_PACKED_FIXED32:
        size += varint32Len(operand * 4) + operand * 4;
        n += operand + (operand & 1);
        break;
      case OP_PACKED_FIXED64:
        size += varint32Len(operand * 8) + operand * 8;
        n += operand * 2;
        break;
      default: {
        const len = packedLen(op, operand, t, n);
        size += varint32Len(len) + len;
        n += op === OP_PACKED_UINT64 || op === OP_PACKED_SINT64 ? operand * 2 : operand + (operand & 1);
      }
    }
  }
  // Each fork left open leaves its placeholder byte.
  size += depth;
  if (size > P.MAX_OUTPUT) tooLarge(size);
  jsForkTotal = forks;
  return size;
}

/**
 * Writes `value` as a varint.
 * @param {Uint8Array} out Output
 * @param {number} pos Position
 * @param {number} value Unsigned 32-bit value
 * @returns {number} Position after it
 */
function putVarint32(out, pos, value) {
  while (value > 127) {
    out[pos++] = (value & 127) | 128;
    value >>>= 7;
  }
  out[pos++] = value;
  return pos;
}

/**
 * Writes a 64-bit value as a varint (protobuf.js's `writeVarint64`).
 * @param {Uint8Array} out Output
 * @param {number} pos Position
 * @param {number} lo Low 32 bits (unsigned)
 * @param {number} hi High 32 bits (unsigned)
 * @returns {number} Position after it
 */
function putVarint64(out, pos, lo, hi) {
  while (hi) {
    out[pos++] = (lo & 127) | 128;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  return putVarint32(out, pos, lo);
}

/**
 * Bytes of `value` as a varint.
 * @param {number} value Unsigned 32-bit value
 * @returns {number} 1 to 5
 */
function varint32Len(value) {
  return value < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : value < 268435456 ? 4 : 5;
}

/**
 * Bytes of a 64-bit value as a varint.
 * @param {number} hi High 32 bits
 * @param {number} lo Low 32 bits
 * @returns {number} 1 to 10
 */
function varint64Len(hi, lo) {
  return hi === 0 ? varint32Len(lo >>> 0) : Math.ceil((64 - Math.clz32(hi)) / 7);
}

/**
 * Copies `len` bytes.
 * @param {Uint8Array} out Output
 * @param {number} pos Position in `out`
 * @param {Uint8Array} src Source
 * @param {number} from Position in `src`
 * @param {number} len Bytes
 * @returns {number} Position after them in `out`
 */
function putBytes(out, pos, src, from, len) {
  if (len < 32) {
    for (let i = 0; i < len; ++i) out[pos + i] = src[from + i];
  } else {
    out.set(src.subarray(from, from + len), pos);
  }
  return pos + len;
}

/**
 * Replaces the `placeholder` bytes at `at` (1 for a fork, 0 for an `ldelim()` without one) with
 * the varint length of what follows up to `pos`, shifting it right if the varint is longer.
 * @param {Uint8Array} out Output
 * @param {number} at Position of the placeholder
 * @param {number} placeholder Bytes reserved there
 * @param {number} pos End of the section
 * @returns {number} The new end
 */
function putPrefix(out, at, placeholder, pos) {
  const len = pos - at - placeholder;
  if (placeholder === 1 && len < 128) {
    out[at] = len;
    return pos;
  }
  shiftBudget -= len;
  const grow = varint32Len(len) - placeholder;
  out.copyWithin(at + placeholder + grow, at + placeholder, pos);
  putVarint32(out, at, len);
  return pos + grow;
}

/** How many times its bound a one-pass JS replay may move in shifts: `SHIFT_BUDGET` in rust/replay.rs. */
const SHIFT_BUDGET = 8;
/** Bytes the shifts of the current one-pass JS replay may still move. */
let shiftBudget = 0;
/** `writeJs` modes: one pass with back-filled prefixes; lengths only; bytes with known lengths. */
const FORWARD = 0;
const LENGTHS = 1;
const PREFIXED = 2;
/** During `LENGTHS`: each open fork's index in `jsLens` and the prefix bytes beyond one byte before it. */
let jsForkSeq = new Int32Array(0);
let jsForkExtra = new Int32Array(0);
/** Each fork's section length in tape order (`LENGTHS` writes, `PREFIXED` reads), and those of the `LDELIM`s without fork. */
let jsLens = new Int32Array(0);
const jsWraps = [];

/**
 * Replays the tape words `s..e` into `out` from `pos`, which must have room for the bound
 * `finishJs` reserves: in one pass (`Replay::write_forward` in rust/replay.rs) unless its shifts
 * for deep nesting would move more than `SHIFT_BUDGET` times that bound, then in two (lengths
 * first, so no prefix is ever shifted), keeping the time linear however deep the nesting.
 * @param {Int32Array} t Tape words
 * @param {Uint8Array} u8 Tape bytes
 * @param {number} s First word
 * @param {number} e End word
 * @param {Uint8Array} out Output
 * @param {number} pos Position in `out`
 * @param {number} forks At least the number of forks in the tape (`jsForks` must hold the deepest nesting)
 * @returns {number} Position after the result
 */
function replayJs(t, u8, s, e, out, pos, forks) {
  shiftBudget = SHIFT_BUDGET * ((e - s) * 10 + 16);
  const end = writeJs(t, u8, s, e, out, pos, FORWARD);
  if (end >= 0) return end;
  if (jsLens.length < forks) {
    jsLens = new Int32Array(forks);
    jsForkSeq = new Int32Array(forks);
    jsForkExtra = new Int32Array(forks);
  }
  jsWraps.length = 0;
  writeJs(t, u8, s, e, out, pos, LENGTHS);
  // Each LDELIM without fork wraps all before it: their prefixes lead, the last one first.
  for (let i = jsWraps.length - 1; i >= 0; --i) pos = putVarint32(out, pos, jsWraps[i]);
  return writeJs(t, u8, s, e, out, pos, PREFIXED);
}

/**
 * Replays the tape words `s..e` into `out` from `pos` in `mode` (see `replayJs`, its only
 * caller). The JS twin of the passes in rust/replay.rs.
 * @param {Int32Array} t Tape words
 * @param {Uint8Array} u8 Tape bytes
 * @param {number} s First word
 * @param {number} e End word
 * @param {Uint8Array} out Output
 * @param {number} pos Position in `out`
 * @param {number} mode `FORWARD`, `LENGTHS` or `PREFIXED`
 * @returns {number} Position after the result; -1 when `FORWARD` ran out of shift budget
 */
function writeJs(t, u8, s, e, out, pos, mode) {
  const start = pos;
  let depth = 0;
  let seq = 0;
  let extra = 0;
  let n = s;
  while (n < e) {
    const op = t[n];
    const operand = t[n + 1];
    n += 2;
    switch (op) {
      case OP_UINT32:
        pos = putVarint32(out, pos, operand >>> 0);
        break;
      case OP_INT32:
        pos = operand < 0 ? putVarint64(out, pos, operand >>> 0, 0xffffffff) : putVarint32(out, pos, operand);
        break;
      case OP_SINT32:
        pos = putVarint32(out, pos, ((operand << 1) ^ (operand >> 31)) >>> 0);
        break;
      case OP_FIXED32:
        pos = putBytes(out, pos, u8, (n - 1) << 2, 4);
        break;
      case OP_UINT64:
        pos = putVarint64(out, pos, t[n] >>> 0, t[n + 1] >>> 0);
        n += 2;
        break;
      case OP_SINT64: {
        const lo = t[n];
        const hi = t[n + 1];
        const mask = hi >> 31;
        pos = putVarint64(out, pos, ((lo << 1) ^ mask) >>> 0, (((hi << 1) | (lo >>> 31)) ^ mask) >>> 0);
        n += 2;
        break;
      }
      case OP_FIXED64:
        pos = putBytes(out, pos, u8, n << 2, 8);
        n += 2;
        break;
      case OP_FORK:
        if (mode === PREFIXED) {
          pos = putVarint32(out, pos, jsLens[seq++]);
          break;
        }
        if (mode === LENGTHS) {
          jsForkSeq[depth] = seq;
          jsForkExtra[depth] = extra;
          jsLens[seq++] = 0; // a fork never closed leaves a zero byte
        }
        jsForks[depth++] = pos;
        out[pos++] = 0;
        break;
      case OP_LDELIM:
        if (mode === FORWARD) {
          pos = depth > 0 ? putPrefix(out, jsForks[--depth], 1, pos) : putPrefix(out, start, 0, pos);
          if (shiftBudget < 0) return -1;
        } else if (mode === LENGTHS) {
          if (depth > 0) {
            --depth;
            const len = pos - jsForks[depth] - 1 + extra - jsForkExtra[depth];
            jsLens[jsForkSeq[depth]] = len;
            extra += varint32Len(len) - 1;
          } else {
            const len = pos - start + extra;
            jsWraps.push(len);
            extra += varint32Len(len);
          }
        }
        break;
      case OP_BYTES:
        pos = putBytes(out, putVarint32(out, pos, operand), u8, n << 2, operand);
        n += ((operand + 7) >>> 3) * 2;
        break;
      case OP_RAW:
        pos = putBytes(out, pos, u8, n << 2, operand);
        n += ((operand + 7) >>> 3) * 2;
        break;
      case OP_PACKED_FIXED32:
        pos = putBytes(out, putVarint32(out, pos, operand * 4), u8, n << 2, operand * 4);
        n += operand + (operand & 1);
        break;
      case OP_PACKED_FIXED64:
        pos = putBytes(out, putVarint32(out, pos, operand * 8), u8, n << 2, operand * 8);
        n += operand * 2;
        break;
      default:
        pos = writePackedJs(op, operand, t, n, out, pos);
        n += op === OP_PACKED_UINT64 || op === OP_PACKED_SINT64 ? operand * 2 : operand + (operand & 1);
    }
  }
  return pos;
}

/**
 * Bytes of the body of a packed varint record of `count` elements starting at word `n` of `t`.
 * @param {number} op Opcode
 * @param {number} count Elements
 * @param {Int32Array} t Tape words
 * @param {number} n Word of the first element
 * @returns {number} Bytes
 */
function packedLen(op, count, t, n) {
  let len = 0;
  if (op === OP_PACKED_UINT64 || op === OP_PACKED_SINT64) {
    const zigzag = op === OP_PACKED_SINT64;
    const end = n + 2 * count;
    for (let i = n; i < end; i += 2) {
      const hi = t[i + 1];
      len += varint64Len(zigzag ? ((hi << 1) | (t[i] >>> 31)) ^ (hi >> 31) : hi, zigzag ? (t[i] << 1) ^ (hi >> 31) : t[i]);
    }
    return len;
  }
  if (op !== OP_PACKED_UINT32 && op !== OP_PACKED_INT32 && op !== OP_PACKED_SINT32) {
    throw new Error(`protobufjs-rustwriter: invalid tape: unknown opcode ${op}`);
  }
  for (let i = n; i < n + count; ++i) {
    const v = t[i];
    len += op === OP_PACKED_UINT32 ? varint32Len(v >>> 0) : op === OP_PACKED_INT32 ? (v < 0 ? 10 : varint32Len(v)) : varint32Len(((v << 1) ^ (v >> 31)) >>> 0);
  }
  return len;
}

/**
 * Writes a packed varint record of `count` elements starting at word `n` of `t`.
 * @param {number} op Opcode
 * @param {number} count Elements
 * @param {Int32Array} t Tape words
 * @param {number} n Word of the first element
 * @param {Uint8Array} out Output
 * @param {number} pos Position in `out`
 * @returns {number} Position after the record
 */
function writePackedJs(op, count, t, n, out, pos) {
  pos = putVarint32(out, pos, packedLen(op, count, t, n));
  if (op === OP_PACKED_UINT64 || op === OP_PACKED_SINT64) {
    const zigzag = op === OP_PACKED_SINT64;
    const end = n + 2 * count;
    for (let i = n; i < end; i += 2) {
      const lo = t[i];
      const hi = t[i + 1];
      if (zigzag) {
        const mask = hi >> 31;
        pos = putVarint64(out, pos, ((lo << 1) ^ mask) >>> 0, (((hi << 1) | (lo >>> 31)) ^ mask) >>> 0);
      } else {
        pos = putVarint64(out, pos, lo >>> 0, hi >>> 0);
      }
    }
    return pos;
  }
  for (let i = n; i < n + count; ++i) {
    const v = t[i];
    if (op === OP_PACKED_UINT32) pos = putVarint32(out, pos, v >>> 0);
    else if (op === OP_PACKED_SINT32) pos = putVarint32(out, pos, ((v << 1) ^ (v >> 31)) >>> 0);
    else pos = v < 0 ? putVarint64(out, pos, v >>> 0, 0xffffffff) : putVarint32(out, pos, v);
  }
  return pos;
}

/**
 * Finishes the write operation.
 * The result is a new `Buffer` the caller owns: later writes to this or any other writer never
 * change it. `finish()` does not reset the writer (as in protobuf.js): writing on continues
 * after the bytes it returned.
 * @param {boolean} [shared] Accepted for protobuf.js 8.x compatibility; the result is never
 * shared with the writer.
 * @returns {Buffer} Finished buffer
 */
RustWriter.prototype.finish = function finish() {
  if (this._out !== null) this._restore();
  const words = this._n - this._s;
  if (words === 0) return Buffer.alloc(0);
  const result = (words <= jsReplayMaxWords && this._refs === null) || !NATIVE ? finishJs(this) : finishNative(this);
  if (this._f < 0) this._release(result);
  return result;
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

/**
 * Bytes `finish()` would return now (protobuf.js 8.x `pos`: an open fork counts its one
 * placeholder byte).
 * @this {RustWriter}
 * @returns {number} Bytes
 */
function get_pos() {
  if (this._out !== null) return this._ol;
  return this._n === this._s ? 0 : replay(this, true);
}

Object.defineProperties(RustWriter.prototype, {
  /**
   * Bytes `finish()` would return now (protobuf.js 8.x `pos`: an open fork counts its one
   * placeholder byte).
   * @name RustWriter#pos
   * @type {number}
   * @readonly
   */
  pos: { configurable: true, enumerable: true, get: get_pos },
  /**
   * Same as {@link RustWriter#pos} (protobuf.js 8.x's deprecated alias).
   * @name RustWriter#len
   * @type {number}
   * @readonly
   */
  len: { configurable: true, enumerable: true, get: get_pos },
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

/**
 * For tests: sets the largest tape (in words) replayed in JS, so one call sequence can be run
 * through either replay. 0 sends every tape to the native replay.
 * @param {number} words Words
 * @returns {number} The previous value
 */
function setJsReplayMaxWords(words) {
  const previous = jsReplayMaxWords;
  jsReplayMaxWords = words;
  if (jsForks.length < words >>> 1) jsForks = new Int32Array(words >>> 1);
  return previous;
}

/**
 * Whether this process encodes with the native addon (`false`: the JS-only path, same bytes).
 * @type {boolean}
 */
RustWriter.native = NATIVE;

module.exports = { RustWriter, install, uninstall, _protocol: P, _testing: { setJsReplayMaxWords } };
