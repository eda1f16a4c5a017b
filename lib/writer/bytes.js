'use strict';

/**
 * protobuf.js's methods that write a length and then bytes (`bytes`, `string`), and `raw`:
 * RustWriter's (lib/writer/writer.js puts them on its prototype). They write into the room
 * `room(w, n)` gives (lib/writer/region.js) and advance `_pos`; large `bytes` are kept by
 * reference (`reference`) and copied once, into the result, by `finish()`.
 */

const { room, roomAt, hold, release, released, checkFree } = require('./region');
const entries = require('./entries');
const settings = require('./settings');
const { typedName, isTypedArray, lengthOf, viewOf } = require('./typed');
const { putVarint32, putUtf8 } = require('./varint');

/** Strings shorter than this are encoded by a JS loop, as protobuf.js's `BufferWriter` does
 * (WTF-8 for lone surrogates); from 40 units on it calls `Buffer#utf8Write` (U+FFFD), as
 * protobuf.js does. Both the split and the bytes are protobuf.js's. */
const UTF8_LOOP_MAX = 40;
/** Strings of fewer units than this are written at the position after a one-byte length and
 * moved by one byte in the rare case that their UTF-8 takes 128 bytes or more (protobuf.js
 * 8.x's own strategy); longer ones are measured first. */
const STRING_SHORT_MAX = 128;

/**
 * Writes `len` elements of `value` as bytes (ToUint8, like `Uint8Array#set`) at the write
 * position, which has room for them. A typed array is copied with `set` (no user code runs);
 * other array-likes (and a typed array whose own `length` claims more than it holds) are
 * converted element by element, up to `len` (so a `length` getter cannot make the copy overrun),
 * with the writer held.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<number>} value Source
 * @param {number} len Elements to copy
 * @param {number} undoTo Offset from the region's start where the writer stays if a conversion
 * throws
 * @returns {RustWriter} `w`
 */
function copyBytes(w, value, len, undoTo) {
  const at = w._pos;
  const buf = w._buf;
  if (isTypedArray(value) && lengthOf(value) >= len) {
    buf.set(lengthOf(value) === len ? value : viewOf(value, len), at);
  } else {
    hold(w, undoTo);
    try {
      // protobuf.js copies with `set`, which reads `length` a second time: so does this (a
      // getter sees both reads), but it copies only the `len` bytes it made room for.
      void value.length;
      for (let i = 0; i < len; ++i) buf[at + i] = value[i];
    } catch (err) {
      throw released(w, err);
    }
    release(w);
  }
  w._pos = at + len;
  return w;
}

/**
 * Writes the first `count` elements of a typed array by reference, after their length: their
 * `bytes` bytes are copied once, into the result, by `finish()`, which throws if the array no
 * longer holds the elements it holds now (detached, or resized).
 * @param {RustWriter} w Writer
 * @param {ArrayBufferView} array Typed array whose bytes are the wire bytes
 * @param {number} count Elements to write, at most `lengthOf(array)`
 * @param {number} bytes Their byte length
 * @returns {RustWriter} `w`
 */
function reference(w, array, count, bytes) {
  const at = room(w, 5); // may move the writer: read _buf after it
  const p = putVarint32(w._buf, at, bytes);
  w._pos = p;
  entries.ref(w, p - w._start, array, count, bytes);
  return w;
}

/**
 * Writes a sequence of bytes.
 * @this {RustWriter}
 * @param {Uint8Array|string} value Buffer or base64 encoded string to write
 * @returns {RustWriter} `this`
 */
function write_bytes(value) {
  if (typeof value === 'string' || value instanceof String) value = Buffer.from(value, 'base64');
  const len = value.length >>> 0;
  if (len >= settings.refMin && typedName(value) === 'Uint8Array' && lengthOf(value) >= len) return reference(this, value, len, len);
  const at = room(this, len + 5); // may move the writer: read _buf after it
  this._pos = putVarint32(this._buf, at, len);
  // As protobuf.js's: if converting an element throws, the length prefix stays.
  return len ? copyBytes(this, value, len, this._pos - this._start) : this;
}

/**
 * Writes raw bytes without a tag or length prefix.
 * @this {RustWriter}
 * @param {Uint8Array} value Raw bytes
 * @returns {RustWriter} `this`
 */
function write_raw(value) {
  const len = value.length >>> 0;
  if (!len) return this;
  const before = this._pos - this._start;
  room(this, len);
  return copyBytes(this, value, len, before);
}

/**
 * Writes a string's length and UTF-8 at `p`, as protobuf.js's `BufferWriter` writes them: the
 * string writer of both RustWriter's `string()` and the compiled encoders' held writes (which pass
 * only strings).
 * @param {RustWriter} w Writer: held, or not held and `p` its `_pos`
 * @param {number} p Where the length goes
 * @param {string|ArrayLike<number>} value A string (or, from `string()`, anything with a length)
 * @param {number} n `value.length`, read once by the caller
 * @returns {number} Position after it (`w._buf` may have changed)
 */
function putString(w, p, value, n) {
  if (n < STRING_SHORT_MAX) {
    p = roomAt(w, p, 3 * n + 2);
    const buf = w._buf;
    let to;
    if (n >= UTF8_LOOP_MAX) {
      to = p + 1 + buf.utf8Write(value, p + 1);
    } else if (typeof value === 'string') {
      to = putUtf8(value, buf, p + 1);
    } else {
      // Not a string (only `string()` passes one) but something with a length, read as protobuf.js
      // reads it: with `charCodeAt`, which may run user code, so with the writer held.
      hold(w, p - w._start);
      try {
        to = putUtf8(value, buf, p + 1);
      } catch (err) {
        throw released(w, err);
      }
      release(w);
    }
    const len = to - p - 1;
    if (len < 128) {
      buf[p] = len;
      return to;
    }
    buf.copyWithin(p + 2, p + 1, to);
    buf[p] = (len & 127) | 128;
    buf[p + 1] = len >>> 7;
    return to + 1;
  }
  const len = Buffer.byteLength(value);
  p = roomAt(w, p, len + 5);
  const buf = w._buf;
  p = putVarint32(buf, p, len);
  buf.utf8Write(value, p, len);
  return p + len;
}

/**
 * Writes a string.
 * @this {RustWriter}
 * @param {string} value Value to write
 * @returns {RustWriter} `this`
 */
function write_string(value) {
  const n = value.length;
  if (!n) return this.bool(0);
  checkFree(this);
  this._pos = putString(this, this._pos, value, n);
  return this;
}

/** RustWriter's methods for strings and bytes. */
const bytesMethods = { bytes: write_bytes, raw: write_raw, string: write_string };

module.exports = { bytesMethods, reference, putString, UTF8_LOOP_MAX };

