'use strict';

/**
 * RustWriter: protobuf.js's `Writer` API (8.x, which 7.x generated code also uses), writing the
 * wire bytes of each call as it arrives, into a region of memory lib/memory.js hands out. What
 * cannot be written yet becomes an entry (lib/entries.js): a fork's length that does not fit its
 * one-byte placeholder, a large `bytes` value kept by reference, a long packed varint field for
 * the native encoder. `finish()` (lib/finish.js) splices those in, or, when there are none,
 * returns a view of the bytes already written.
 *
 * The class is this module and the methods of three others: lib/entries.js's (which own the
 * entry fields), lib/bytes.js's (`bytes`, `raw`, `string`) and lib/packed.js's (the packed
 * methods); the last two have no fields of their own. Only this module changes the region fields
 * (`_buf`, `_start`, `_pos`, `_end`, `_region`): the other modules read them and ask
 * through the methods marked as theirs (`_room`, `_advance`, `_hold`, `_place`, `_sealWith`…).
 *
 * A conversion may run user code (`valueOf`, `toString`, getters, Proxies), even code that writes
 * to this writer or encodes with another one. Scalar methods convert their argument before they
 * touch the writer, as protobuf.js does. Methods that convert elements as they write them (the
 * packed methods, `bytes` and `raw` of array-likes, `string` of a non-string) *hold* the writer
 * meanwhile (`_hold`): the room they write into stays theirs, so other writers keep out of it; a
 * call on this writer from inside the conversion throws (protobuf.js would interleave the two
 * and corrupt both); and if the conversion throws, the writer is left as protobuf.js leaves it,
 * never with bytes it did not write.
 */

const memory = require('./memory');
const { NATIVE } = require('./native');
const { AT, entryMethods } = require('./entries');
const { bytesMethods } = require('./bytes');
const { packedMethods } = require('./packed');
const { BITS, longBits } = require('./long');
const { finish, measure } = require('./finish');
const { varint32Len, putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble } = require('./varint');

const EMPTY = Buffer.alloc(0);

/**
 * Constructs a new writer.
 * @classdesc Wire format writer with the API and bytes of protobuf.js's `BufferWriter` (8.x):
 * it writes bytes as they arrive and hands only long packed varint fields to native code.
 * @constructor
 */
function RustWriter() {
  // The region (this module's).
  /** @type {Buffer} where this writer's bytes are */
  this._buf = EMPTY;
  /** first byte of this writer's region in `_buf` */
  this._start = 0;
  /** next byte to write */
  this._pos = 0;
  /** end of the room this writer may write into without `_grow`; while it is held (`_hold`),
   * `-1 - end`: negative, so that any write goes to `_grow`, which refuses it */
  this._end = 0;
  /** where `_buf` comes from: lib/memory.js `SLAB`, `LARGE`, `PRIVATE` or `SEALED` */
  this._region = 0;
  // The entries: lib/entries.js's fields, documented and set up (empty) there.
  this._entries = memory.NO_ENTRIES;
  this._clearEntries();
  // lib/memory.js places the writer in the slab (`_place`) and lends it the shared entry array.
  this._entries = memory.claim(this);
}

/**
 * Whether this process encodes long packed fields with the native addon (`false`: the JS-only
 * path, same bytes).
 * @type {boolean}
 */
RustWriter.native = NATIVE;

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

// The rest of the class: its entries, strings and bytes, and packed fields.
Object.assign(RustWriter.prototype, entryMethods, bytesMethods, packedMethods);

/**
 * Places this writer's bytes (for lib/memory.js): `buf[start .. pos]` is what it wrote, and it
 * may write up to `end`.
 * @param {Buffer} buf Memory
 * @param {number} start First byte of the region
 * @param {number} pos Next byte to write
 * @param {number} end End of the room
 * @param {number} region Where `buf` comes from
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._place = function _place(buf, start, pos, end, region) {
  this._buf = buf;
  this._start = start;
  this._pos = pos;
  this._end = end;
  this._region = region;
};

/**
 * Gives up the room after its bytes (for lib/memory.js, when another writer takes the slab's
 * free tail): it moves on its next write. A held writer, whose call is writing into its room
 * meanwhile, keeps the whole room: the slab's tail is left to it.
 * @returns {number} Where its bytes, or its room, end
 * @private
 */
RustWriter.prototype._evicted = function _evicted() {
  if (this._end < 0) return -1 - this._end;
  this._end = this._pos;
  return this._pos;
};

/**
 * Keeps the large buffer it writes in as its own (for lib/memory.js, when another writer takes
 * the module's large buffer).
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._keepLarge = function _keepLarge() {
  this._region = memory.PRIVATE;
};

/**
 * Makes `result` this writer's whole content (for lib/finish.js): no entries left, its memory
 * handed back. Writing on moves it first, so the result never changes.
 * @param {Buffer} result What `finish()` returns
 * @param {number} slabEnd Where `result` ends in the slab if it is a view of this writer's
 * region there, else -1
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._sealWith = function _sealWith(result, slabEnd) {
  memory.release(this, slabEnd);
  this._place(result, 0, result.length, 0, memory.SEALED);
  this._dropEntries();
};

/**
 * Moves this writer to memory with room for `n` more bytes.
 * @param {number} n Bytes
 * @returns {number} The new write position
 * @private
 */
RustWriter.prototype._grow = function _grow(n) {
  this._checkFree();
  return memory.grow(this, n);
};

/**
 * The write position, with room for `n` bytes after it.
 * @param {number} n Bytes
 * @returns {number} Position
 * @private
 */
RustWriter.prototype._room = function _room(n) {
  const p = this._pos;
  return p + n > this._end ? this._grow(n) : p;
};

/**
 * Sets the write position after bytes written into the room.
 * @param {number} p Position
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._advance = function _advance(p) {
  this._pos = p;
  return this;
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
 * Holds this writer while a call converts elements, which may run user code that could reach
 * this writer: its `_end` turns negative, so that any write goes to `_grow`, which refuses it, as
 * `ldelim`, `reset` and `finish` do (a hold of a held writer too). Meanwhile `_pos` stands at
 * `at`, where protobuf.js's writer stands while it converts (what `pos` reports, and where the
 * writer stays if the conversion throws); the call writes at positions of its own, in the room it
 * took before the hold, which stays this writer's even if another writer evicts it meanwhile
 * (`_evicted`). The call then releases the writer and advances it past what it wrote.
 * @param {number} at Offset from the region's start of protobuf.js's position meanwhile
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._hold = function _hold(at) {
  this._checkFree();
  this._pos = this._start + at;
  this._end = -1 - this._end;
};

/**
 * Ends a hold: the room comes back.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._release = function _release() {
  this._end = -1 - this._end;
};

/**
 * Throws if a call is being made from inside a conversion of one of this writer's own calls.
 * @returns {undefined}
 * @private
 */
RustWriter.prototype._checkFree = function _checkFree() {
  if (this._end < 0) heldError();
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
 * Writes the first `count` elements of a typed array by reference, after their length: their
 * `bytes` bytes are copied once, into the result, by `finish()`, which throws if the array no
 * longer holds the elements it holds now (detached, or resized).
 * @param {ArrayBufferView} array Typed array whose bytes are the wire bytes
 * @param {number} count Elements to write, at most `lengthOf(array)`
 * @param {number} bytes Their byte length
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._reference = function _reference(array, count, bytes) {
  const at = this._room(5); // may move the writer: read _buf after it
  const p = putVarint32(this._buf, at, bytes);
  this._pos = p;
  this._ref(p - this._start, array, count, bytes);
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
  this._pushFork(p - this._start);
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
  if (this._fork >= 0) {
    this._pos = this._start + this._dropFork();
  } else {
    this._pos = this._start;
    this._clearEntries();
  }
  return this;
};

/**
 * Closes the innermost fork, prefixing its content with its length. With no fork open, prefixes
 * everything written so far with its length (as protobuf.js does for older generated code).
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.ldelim = function ldelim() {
  this._checkFree();
  if (this._fork < 0) return this._prefixAll();
  const at = this._start + this._entries[this._fork + AT];
  const len = this._popFork(this._pos - at - 1);
  if (len >= 0) this._buf[at] = len;
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
  if (len < 128) this._buf[this._start + at] = len;
  else this._fixup(at, len);
  return this;
};

/**
 * `ldelim()` with no fork open: prefixes everything with its length.
 * @returns {RustWriter} `this`
 * @private
 */
RustWriter.prototype._prefixAll = function _prefixAll() {
  const bytes = this._pos - this._start;
  if (this._entryEnd !== 0) {
    this._prefixEntries(bytes);
    return this;
  }
  const v = varint32Len(bytes);
  const p = this._room(v);
  const buf = this._buf;
  const start = this._start;
  buf.copyWithin(start + v, start, p);
  putVarint32(buf, start, bytes);
  this._pos = p + v;
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
  const bytes = this._pos - this._start;
  return this._runCount === 0 ? bytes + this._addedBytes : measure(this, bytes);
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
