'use strict';

/**
 * RustWriter: protobuf.js's `Writer` API (8.x, which 7.x generated code also uses), writing the
 * wire bytes of each call as it arrives (lib/memory.js says where). What cannot be written yet
 * becomes an entry (lib/tape.js): a fork's length that does not fit its one-byte placeholder,
 * a large `bytes` value kept by reference, a long packed varint field for the native encoder.
 * `finish()` (lib/finish.js) splices those in, or, when there are none, returns a view of the
 * bytes already written.
 *
 * A conversion may run user code (`valueOf`, `toString`, getters, Proxies), even code that writes
 * to this writer or encodes with another one. Scalar methods convert their argument before they
 * touch the writer, as protobuf.js does. Methods that convert elements as they write them (the
 * packed methods, `bytes` and `raw` of array-likes) *hold* the writer meanwhile (`_hold`): the
 * room they write into is reserved, so other writers keep out of it; a call on this writer
 * from inside the conversion throws (protobuf.js would interleave the two and corrupt both);
 * and if the conversion throws, the writer is left as protobuf.js leaves it (`_undo`), never
 * with bytes it did not write.
 */

const { ENTRY_WORDS, OPEN, FIXUP, PREFIX, REF, RUN } = require('./tape');
const memory = require('./memory');
const settings = require('./settings');
const { BITS, longBits } = require('./long');
const { finish, measure } = require('./finish');
const { typedName, isTypedArray, lengthOf, viewOf } = require('./typed');
const { varint32Len, putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble, putUtf8 } = require('./varint');

/** Strings shorter than this are encoded by a JS loop, as protobuf.js's `BufferWriter` does
 * (WTF-8 for lone surrogates); from 40 units on it calls `Buffer#utf8Write` (U+FFFD), as
 * protobuf.js does. Both the split and the bytes are protobuf.js's. */
const UTF8_LOOP_MAX = 40;
/** Strings of fewer units than this are written at the position after a one-byte length and
 * moved by one byte in the rare case that their UTF-8 takes 128 bytes or more (protobuf.js
 * 8.x's own strategy); longer ones are measured first. */
const STRING_SHORT_MAX = 128;

const EMPTY = Buffer.alloc(0);
/** `_end` while the writer is held: no room, so that any write goes to `_grow`, which refuses it. */
const HELD_END = -1;


/**
 * Constructs a new writer.
 * @classdesc Wire format writer with the API and bytes of protobuf.js's `BufferWriter` (8.x):
 * it writes bytes as they arrive and hands only long packed varint fields to native code.
 * @constructor
 */
function RustWriter() {
  /** @type {Buffer} where this writer's bytes are */
  this._buf = EMPTY;
  /** first byte of this writer's region in `_buf` */
  this._start = 0;
  /** next byte to write */
  this._pos = 0;
  /** end of the room this writer may write into without `_grow` */
  this._end = 0;
  /** where `_buf` comes from (lib/memory.js) */
  this._home = 0;
  /** @type {Int32Array} entries (lib/tape.js), `_ne` words of it used */
  this._e = memory.NO_ENTRIES;
  this._ne = 0;
  /** entry index of the innermost open fork, or -1 */
  this._f = -1;
  /** bytes the entries add to the message, as far as known (all of them when `_runs` is 0) */
  this._extra = 0;
  /** RUN entries, and the entry index of the last one (-1 if none) */
  this._runs = 0;
  this._lastRun = -1;
  /** @type {Array|null} what REF and RUN entries refer to: `[array, count, its length then, …]` */
  this._refs = null;
  /** while a call converts elements (`_hold`): the `_end` to restore; else -1 */
  this._held = -1;
  memory.claim(this);
}

/**
 * Creates a new writer.
 * @returns {RustWriter} A new writer
 */
RustWriter.create = function create() {
  return new RustWriter();
};

/**
 * Allocates a buffer of the specified size (protobuf.js's static, for code that calls it).
 * @param {number} size Buffer size
 * @returns {Buffer} Buffer
 */
RustWriter.alloc = function alloc(size) {
  return Buffer.allocUnsafe(size);
};

/**
 * Moves this writer to memory with room for `n` more bytes.
 * @param {number} n Bytes
 * @returns {number} The new write position
 * @private
 */
RustWriter.prototype._grow = function _grow(n) {
  if (this._held >= 0) heldError();
  return memory.grow(this, n);
};

/**
 * Throws for a call made on a writer from inside a conversion of one of its own calls.
 * @returns {never} Throws
 */
function heldError() {
  throw new Error('protobufjs-rustwriter: a writer cannot be used by a valueOf, toString or getter that one of its own calls ' +
    'is converting (the writes would interleave)');
}

/**
 * Holds this writer while a call converts elements, which may run user code: `_pos` moves to
 * `mark`, the end of the room the call writes into, so that the room is reserved; `_end` makes
 * any write go to `_grow`, which refuses it, as `ldelim`, `reset` and `finish` do.
 * @param {number} mark End of the reserved room
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._hold = function _hold(mark) {
  this._pos = mark;
  this._held = this._end;
  this._end = HELD_END;
};

/**
 * Ends a hold. If another writer evicted this one from the slab meanwhile, `_end` is no longer
 * {@link HELD_END} and stays as the eviction left it.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._release = function _release() {
  if (this._end === HELD_END) this._end = this._held;
  this._held = -1;
};

/**
 * Ends a hold whose conversion threw: the write position goes back to `offset` bytes from the
 * region's start, where protobuf.js's writer leaves it, so nothing written during the call is
 * ever returned.
 * @param {number} offset Offset from the region's start
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._undo = function _undo(offset) {
  this._release();
  this._pos = this._start + offset;
};

/**
 * Throws if a call is being made from inside a conversion of one of this writer's own calls.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._checkFree = function _checkFree() {
  if (this._held >= 0) heldError();
};

/**
 * Appends an entry.
 * @param {number} at Byte offset from the region's start
 * @param {number} kind Kind
 * @param {number} a First operand
 * @param {number} b Second operand
 * @returns {number} Its entry index
 * @private
 */
RustWriter.prototype._entry = function _entry(at, kind, a, b) {
  const e = this._ne;
  let E = this._e;
  if (e + ENTRY_WORDS > E.length) E = memory.growEntries(this, ENTRY_WORDS);
  E[e] = at;
  E[e + 1] = kind;
  E[e + 2] = a;
  E[e + 3] = b;
  this._ne = e + ENTRY_WORDS;
  return e;
};

/**
 * Writes an unsigned 32 bit value as a varint.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint32 = function write_uint32(value) {
  value >>>= 0;
  let p = this._pos;
  if (p + 5 > this._end) p = this._grow(5);
  const buf = this._buf;
  while (value > 127) {
    buf[p++] = (value & 127) | 128;
    value >>>= 7;
  }
  buf[p] = value;
  this._pos = p + 1;
  return this;
};

/**
 * Writes a signed 32 bit value as a varint (negative values take 10 bytes).
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.int32 = function write_int32(value) {
  value |= 0;
  let p = this._pos;
  if (p + 10 > this._end) p = this._grow(10);
  this._pos = value < 0 ? putNegativeInt32(this._buf, p, value) : putVarint32(this._buf, p, value);
  return this;
};

/**
 * Writes a 32 bit value as a varint, zig-zag encoded.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sint32 = function write_sint32(value) {
  // protobuf.js converts `value` twice here; so does this, for the same calls to valueOf.
  return this.uint32(((value << 1) ^ (value >> 31)) >>> 0);
};

/**
 * Writes a boolish value as a varint.
 * @param {boolean} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bool = function write_bool(value) {
  let p = this._pos;
  if (p + 1 > this._end) p = this._grow(1);
  this._buf[p] = value ? 1 : 0;
  this._pos = p + 1;
  return this;
};

/**
 * Writes an unsigned 32 bit value as fixed 32 bits.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed32 = function write_fixed32(value) {
  value >>>= 0;
  let p = this._pos;
  if (p + 4 > this._end) p = this._grow(4);
  this._pos = putFixed32(this._buf, p, value);
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
  value = +value;
  let p = this._pos;
  if (p + 4 > this._end) p = this._grow(4);
  this._pos = putFloat(this._buf, p, value);
  return this;
};

/**
 * Writes a double (64 bit float).
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.double = function write_double(value) {
  value = +value;
  let p = this._pos;
  if (p + 8 > this._end) p = this._grow(8);
  this._pos = putDouble(this._buf, p, value);
  return this;
};

/**
 * Writes an unsigned 64 bit value as a varint.
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint64 = function write_uint64(value) {
  longBits(value);
  let p = this._pos;
  if (p + 10 > this._end) p = this._grow(10);
  this._pos = putVarint64(this._buf, p, BITS[0] >>> 0, BITS[1] >>> 0);
  return this;
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
  longBits(value);
  let p = this._pos;
  if (p + 10 > this._end) p = this._grow(10);
  this._pos = putZigzag64(this._buf, p, BITS[0], BITS[1]);
  return this;
};

/**
 * Writes an unsigned 64 bit value as fixed 64 bits.
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fixed64 = function write_fixed64(value) {
  longBits(value);
  let p = this._pos;
  if (p + 8 > this._end) p = this._grow(8);
  const buf = this._buf;
  putFixed32(buf, p, BITS[0]);
  this._pos = putFixed32(buf, p + 4, BITS[1]);
  return this;
};

/**
 * Writes a signed 64 bit value as fixed 64 bits.
 * @function
 * @param {Long|number|string|bigint} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.sfixed64 = RustWriter.prototype.fixed64;

/**
 * Writes `len` elements of `value` as bytes (ToUint8, like `Uint8Array#set`) at the write
 * position, which has room for them. A typed array is copied with `set` (no user code runs);
 * other array-likes (and a typed array whose own `length` claims more than it holds) are
 * converted element by element, up to `len` (so a `length` getter cannot make the copy overrun),
 * with the writer held.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number>} value Source
 * @param {number} len Elements to copy
 * @param {number} undoTo Offset from the region's start to go back to if a conversion throws
 * @returns {RustWriter} `w`
 */
function copyBytes(w, value, len, undoTo) {
  const at = w._pos;
  const buf = w._buf;
  if (isTypedArray(value) && lengthOf(value) >= len) {
    buf.set(lengthOf(value) === len ? value : viewOf(value, len), at);
  } else {
    w._hold(at + len);
    try {
      for (let i = 0; i < len; ++i) buf[at + i] = value[i];
    } catch (err) {
      w._undo(undoTo);
      throw err;
    }
    w._release();
  }
  w._pos = at + len;
  return w;
}

/**
 * Writes a sequence of bytes.
 * @param {Uint8Array|string} value Buffer or base64 encoded string to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.bytes = function write_bytes(value) {
  if (typeof value === 'string' || value instanceof String) value = Buffer.from(value, 'base64');
  const len = value.length >>> 0;
  if (len >= settings.refMin && typedName(value) === 'Uint8Array' && lengthOf(value) >= len) return this._reference(value, len, len);
  let p = this._pos;
  if (p + len + 5 > this._end) p = this._grow(len + 5);
  this._pos = putVarint32(this._buf, p, len);
  // As protobuf.js's: if converting an element throws, the length prefix stays.
  return len ? copyBytes(this, value, len, this._pos - this._start) : this;
};

/**
 * Writes raw bytes without a tag or length prefix.
 * @param {Uint8Array} value Raw bytes
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.raw = function write_raw(value) {
  const len = value.length >>> 0;
  if (!len) return this;
  const before = this._pos - this._start;
  if (this._pos + len > this._end) this._grow(len);
  return copyBytes(this, value, len, before);
};

/**
 * Writes the first `count` elements of a typed array by reference: their `byteLength` bytes are
 * copied once, into the result, by `finish()`, which throws if the array no longer holds the
 * elements it held now (detached, or resized).
 * @param {ArrayBufferView} array Typed array whose bytes are the wire bytes
 * @param {number} count Elements to write, at most `lengthOf(array)`
 * @param {number} byteLength Their bytes
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._reference = function _reference(array, count, byteLength) {
  let p = this._pos;
  if (p + 5 > this._end) p = this._grow(5);
  p = putVarint32(this._buf, p, byteLength);
  this._pos = p;
  const r = this._keep(array, count);
  this._entry(p - this._start, REF, r, byteLength);
  this._extra += byteLength;
  return this;
};

/**
 * Keeps `array` until `finish()`, for a REF or RUN entry.
 * @param {ArrayLike<*>} array Elements
 * @param {number} count Elements to write
 * @returns {number} Its index in `_refs`
 * @private
 */
RustWriter.prototype._keep = function _keep(array, count) {
  if (this._refs === null) this._refs = [];
  const r = this._refs.length;
  this._refs.push(array, count, lengthOf(array));
  return r;
};

/**
 * Writes a string.
 * @param {string} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.string = function write_string(value) {
  const n = value.length;
  if (!n) return this.bool(0);
  if (n < STRING_SHORT_MAX) {
    const need = 3 * n + 2;
    let p = this._pos;
    if (p + need > this._end) p = this._grow(need);
    const buf = this._buf;
    let end;
    if (n >= UTF8_LOOP_MAX) {
      end = p + 1 + buf.utf8Write(value, p + 1);
    } else if (typeof value === 'string') {
      end = putUtf8(value, buf, p + 1);
    } else {
      // Not a string but something with a length, read as protobuf.js reads it: with
      // `charCodeAt`, which may run user code, so with the writer held.
      this._hold(p + need);
      try {
        end = putUtf8(value, buf, p + 1);
      } catch (err) {
        this._undo(p - this._start);
        throw err;
      }
      this._release();
    }
    const len = end - p - 1;
    if (len < 128) {
      buf[p] = len;
      this._pos = end;
    } else {
      buf.copyWithin(p + 2, p + 1, end);
      buf[p] = (len & 127) | 128;
      buf[p + 1] = len >>> 7;
      this._pos = end + 1;
    }
    return this;
  }
  const len = Buffer.byteLength(value);
  const need = len + 5;
  let p = this._pos;
  if (p + need > this._end) p = this._grow(need);
  const buf = this._buf;
  p = putVarint32(buf, p, len);
  buf.utf8Write(value, p, len);
  this._pos = p + len;
  return this;
};

/**
 * Forks this writer's state: what follows up to the matching `ldelim()` becomes a
 * length-delimited section. Reserves one byte for its length.
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fork = function fork() {
  let p = this._pos;
  if (p + 1 > this._end) p = this._grow(1);
  const e = this._ne;
  let E = this._e;
  if (e + ENTRY_WORDS > E.length) E = memory.growEntries(this, ENTRY_WORDS);
  E[e] = p - this._start;
  E[e + 1] = OPEN;
  E[e + 2] = this._f;
  E[e + 3] = this._extra;
  this._f = e;
  this._ne = e + ENTRY_WORDS;
  this._buf[p] = 0;
  this._pos = p + 1;
  return this;
};

/**
 * Resets this instance to the last state: drops what was written since the last `fork()`, or
 * everything if no fork is open.
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.reset = function reset() {
  this._checkFree();
  const f = this._f;
  if (f >= 0) {
    const E = this._e;
    this._pos = this._start + E[f];
    this._f = E[f + 2];
    this._extra = E[f + 3];
    this._ne = f;
    if (this._lastRun > f) this._countRuns();
  } else {
    this._pos = this._start;
    this._ne = 0;
    this._extra = 0;
    this._runs = 0;
    this._lastRun = -1;
    this._refs = null;
  }
  return this;
};

/**
 * Recounts the RUN entries after some were dropped.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._countRuns = function _countRuns() {
  const E = this._e;
  this._runs = 0;
  this._lastRun = -1;
  for (let e = 0; e < this._ne; e += ENTRY_WORDS) {
    if (E[e + 1] === RUN) {
      ++this._runs;
      this._lastRun = e;
    }
  }
};

/**
 * Closes the innermost fork, prefixing its content with its length. With no fork open, prefixes
 * everything written so far with its length (as protobuf.js does for older generated code).
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.ldelim = function ldelim() {
  if (this._held >= 0) heldError();
  const f = this._f;
  if (f < 0) return this._prefixAll();
  const E = this._e;
  this._f = E[f + 2];
  const at = E[f];
  const raw = this._pos - this._start - at - 1;
  if (this._lastRun < f) {
    // The content's length is known: its bytes plus what the entries inside add.
    const len = raw + this._extra - E[f + 3];
    if (len < 128 && this._ne === f + ENTRY_WORDS) {
      // The usual case: short, with no entry inside. Fill the placeholder, drop the entry.
      this._buf[this._start + at] = len;
      this._ne = f;
      return this;
    }
    this._extra += varint32Len(len) - 1;
  }
  E[f + 1] = FIXUP;
  E[f + 2] = raw;
  E[f + 3] = this._ne;
  return this;
};

/**
 * Closes the one-byte length placeholder at offset `at` (written before the bytes up to
 * `_pos`, which contain no entry): fills it, or records a FIXUP.
 * @param {number} at Offset of the placeholder from the region's start
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._delimit = function _delimit(at) {
  const len = this._pos - this._start - at - 1;
  if (len < 128) {
    this._buf[this._start + at] = len;
    return this;
  }
  this._entry(at, FIXUP, len, this._ne + ENTRY_WORDS);
  this._extra += varint32Len(len) - 1;
  return this;
};

/**
 * `ldelim()` with no fork open: prefixes everything with its length.
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._prefixAll = function _prefixAll() {
  const raw = this._pos - this._start;
  if (this._ne === 0) {
    const v = varint32Len(raw);
    let p = this._pos;
    if (p + v > this._end) p = this._grow(v);
    const buf = this._buf;
    const s = this._start;
    buf.copyWithin(s + v, s, p);
    putVarint32(buf, s, raw);
    this._pos = p + v;
    return this;
  }
  // Entries exist: insert a PREFIX entry before them rather than move them.
  let E = this._e;
  const ne = this._ne;
  if (ne + ENTRY_WORDS > E.length) E = memory.growEntries(this, ENTRY_WORDS);
  E.copyWithin(ENTRY_WORDS, 0, ne);
  for (let e = ENTRY_WORDS; e <= ne; e += ENTRY_WORDS) {
    const kind = E[e + 1];
    if (kind === FIXUP || kind === PREFIX) E[e + 3] += ENTRY_WORDS;
  }
  E[0] = 0;
  E[1] = PREFIX;
  E[2] = raw;
  E[3] = ne + ENTRY_WORDS;
  this._ne = ne + ENTRY_WORDS;
  if (this._lastRun >= 0) this._lastRun += ENTRY_WORDS;
  else this._extra += varint32Len(raw + this._extra);
  return this;
};

/**
 * Finishes the write operation. The writer keeps its content: it can be finished again, or
 * written on (its content is then the returned buffer, which it never changes).
 * @param {boolean} [shared] Accepted for protobuf.js 8.x compatibility; the result is never
 * shared with the writer.
 * @returns {Buffer} Finished buffer
 */
RustWriter.prototype.finish = function finish_rust() {
  this._checkFree();
  return finish(this);
};

/**
 * Finishes the write operation, writing into the provided buffer.
 * @template {Uint8Array} T
 * @param {T} buf Target buffer, with room for {@link RustWriter#pos} bytes after `offset`
 * @param {number} [offset=0] Offset to start writing at
 * @returns {T} The provided buffer
 */
RustWriter.prototype.finishInto = function finishInto(buf, offset) {
  this._checkFree();
  buf.set(finish(this), offset === undefined ? 0 : offset);
  return buf;
};

/**
 * Bytes `finish()` would return now (protobuf.js 8.x `pos`: an open fork counts its one
 * placeholder byte).
 * @this {RustWriter}
 * @returns {number} Bytes
 */
function get_pos() {
  return this._runs === 0 ? this._pos - this._start + this._extra : measure(this);
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

module.exports = { RustWriter };
