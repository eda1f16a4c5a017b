'use strict';

/**
 * RustWriter: protobuf.js's `Writer` API (8.x, which 7.x generated code also uses), writing the
 * wire bytes of each call as it arrives, into its region of memory (lib/writer/region.js). What
 * cannot be written yet becomes an entry (lib/writer/entries.js): a fork's length that does not fit
 * its one-byte placeholder, a large `bytes` value kept by reference, a long packed varint field for
 * the native encoder. `finish()` (lib/writer/finish.js) splices those in, or, when there are none,
 * returns a view of the bytes already written.
 *
 * The class is this module's scalar methods, `fork`/`ldelim`/`reset`/`finish`/`pos`, and the
 * methods of lib/writer/bytes.js (`bytes`, `raw`, `string`) and lib/writer/packed.js (the packed
 * methods). The writer's fields are declared in its constructor below, each with the one module
 * that changes it: the region fields lib/writer/region.js (the methods advance `_pos` within the
 * room it gives), the entry fields lib/writer/entries.js (declared by its `init`).
 *
 * A conversion may run user code (`valueOf`, `toString`, getters, Proxies), even code that writes
 * to this writer or encodes with another one. Scalar methods convert their argument before they
 * touch the writer, as protobuf.js does. Methods that convert elements as they write them (the
 * packed methods, `bytes` and `raw` of array-likes, `string` of a non-string) *hold* the writer
 * meanwhile (lib/writer/region.js): the room they write into stays theirs, so other writers keep
 * out of it; a call on this writer from inside the conversion throws (protobuf.js would interleave
 * the two and corrupt both); and if the conversion throws, the writer is left as protobuf.js leaves
 * it, never with bytes it did not write.
 */

const region = require('./region');
const entries = require('./entries');
const { nativeAvailable } = require('./native');
const { bytesMethods } = require('./bytes');
const { packedMethods } = require('./packed');
const { BITS, longBits } = require('./long');
const { finish, measure } = require('./finish');
const { varint32Len, putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble } = require('./varint');

const { grow, checkFree } = region;
const EMPTY = Buffer.alloc(0);

/**
 * Constructs a new writer.
 * @classdesc Wire format writer with the API and bytes of protobuf.js's `BufferWriter` (8.x):
 * it writes bytes as they arrive and hands only long packed varint fields to native code.
 * @constructor
 */
function RustWriter() {
  // Where its bytes are: lib/writer/region.js's fields (documented there).
  /** @type {Buffer} the memory its region is in */
  this._buf = EMPTY;
  /** first byte of its region in `_buf` */
  this._start = 0;
  /** next byte to write */
  this._pos = 0;
  /** end of its room; while it is held, `-1 - end` */
  this._end = 0;
  /** where `_buf` comes from */
  this._region = 0;
  // What it cannot write yet: lib/writer/entries.js's fields (declared and documented there).
  entries.init(this);
  region.claim(this);
}

/**
 * Whether this process encodes long packed fields with the native addon (`false`: the JS-only
 * path, same bytes). Reading it loads the addon if nothing has yet.
 * @name RustWriter.native
 * @type {boolean}
 * @readonly
 */
Object.defineProperty(RustWriter, 'native', { configurable: true, enumerable: true, get: nativeAvailable });

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

// The rest of the class: strings and bytes, and packed fields.
Object.assign(RustWriter.prototype, bytesMethods, packedMethods);

/**
 * Writes an unsigned 32 bit value as a varint.
 * @param {number} value Value to write
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.uint32 = function write_uint32(value) {
  value >>>= 0;
  let p = this._pos;
  if (p + 5 > this._end) p = grow(this, 5);
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
  if (p + 10 > this._end) p = grow(this, 10);
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
  if (p + 1 > this._end) p = grow(this, 1);
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
  if (p + 4 > this._end) p = grow(this, 4);
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
  if (p + 4 > this._end) p = grow(this, 4);
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
  if (p + 8 > this._end) p = grow(this, 8);
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
  if (p + 10 > this._end) p = grow(this, 10);
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
  if (p + 10 > this._end) p = grow(this, 10);
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
  if (p + 8 > this._end) p = grow(this, 8);
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
 * Forks this writer's state: what follows up to the matching `ldelim()` becomes a
 * length-delimited section. Reserves one byte for its length.
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.fork = function fork() {
  let p = this._pos;
  if (p + 1 > this._end) p = grow(this, 1);
  entries.pushFork(this, p - this._start);
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
  checkFree(this);
  if (this._fork >= 0) {
    this._pos = this._start + entries.dropFork(this);
  } else {
    this._pos = this._start;
    entries.clear(this);
  }
  return this;
};

/**
 * Closes the innermost fork, prefixing its content with its length. With no fork open, prefixes
 * everything written so far with its length (as protobuf.js does for older generated code).
 * @returns {RustWriter} `this`
 */
RustWriter.prototype.ldelim = function ldelim() {
  checkFree(this);
  if (this._fork < 0) return prefixAll(this);
  const at = this._start + this._entries[this._fork + entries.AT];
  const len = entries.popFork(this, this._pos - at - 1);
  if (len >= 0) this._buf[at] = len;
  return this;
};

/**
 * `ldelim()` with no fork open: prefixes everything with its length.
 * @param {RustWriter} w Writer
 * @returns {RustWriter} `w`
 */
function prefixAll(w) {
  const bytes = w._pos - w._start;
  if (w._entryEnd !== 0) {
    entries.prefixEntries(w, bytes);
    return w;
  }
  const v = varint32Len(bytes);
  const p = region.room(w, v);
  const buf = w._buf;
  const start = w._start;
  buf.copyWithin(start + v, start, p);
  putVarint32(buf, start, bytes);
  w._pos = p + v;
  return w;
}

/**
 * Finishes the write operation. The writer keeps its content: it can be finished again, or
 * written on (its content is then the returned buffer, which it never changes).
 * @param {boolean} [shared] Accepted for protobuf.js 8.x compatibility; the result is never
 * shared with the writer.
 * @returns {Buffer} Finished buffer
 */
RustWriter.prototype.finish = function finish_rust() {
  checkFree(this);
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
  checkFree(this);
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

// Its name as users see it (`util.inspect`, `constructor.name`) even where a bundler renamed the
// function to keep names apart in one scope (esbuild makes it RustWriter2).
Object.defineProperty(RustWriter, 'name', { value: 'RustWriter' });

module.exports = { RustWriter };
