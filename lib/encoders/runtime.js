'use strict';

/**
 * What compiled encoders (lib/encoders/compile.js) call: the writer's byte helpers, and the steps of
 * an encode that writes into a RustWriter's region with a position of its own.
 *
 * An encode holds its writer from start to end (lib/writer/region.js, "Holding"), since reading the
 * message runs user code (getters, `valueOf`, Proxies) that could reach the writer or create another
 * one: the region stays the encode's. It writes at a local position `p`, into `buf` up to `end`
 * (`-1 - w._end` while held), asks `more` for room when a field could pass `end`, and hands the
 * writer back with `end`. A field the encode does not write itself (`bytes`, a non-string `string`,
 * a packed field, `$unknowns`) goes through the writer's own method (`viaWriter`), which keeps
 * protobuf.js's semantics and the native path for long packed fields. A nested message is a
 * section: a one-byte length placeholder, filled when the section is closed if its length fits and
 * no entry was recorded inside, else closed by an entry (lib/writer/entries.js).
 *
 * An encode that throws leaves the writer as it was before the encode (`abort`): position and
 * entries rolled back.
 */

const region = require('../writer/region');
const entries = require('../writer/entries');
const { BITS, longBits, decimalBits } = require('../writer/long');
const { longPacked, shortVarints, SHORT, BULK_FLOATS_MIN } = require('../writer/packed');
const loops = require('../writer/loops');
const {
  putVarint32, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble, putUtf8,
} = require('../writer/varint');

const { hold, release, released, growHeld: more, lend, takeBack } = region;

/** Strings shorter than this are encoded by a JS loop (WTF-8 for lone surrogates), as lib/writer/bytes.js
 * `string` does; from 40 units on by `Buffer#utf8Write` (U+FFFD), as protobuf.js does. */
const UTF8_LOOP_MAX = 40;
/** Strings of fewer units than this get a one-byte length placeholder (lib/writer/bytes.js). */
const STRING_SHORT_MAX = 128;

/**
 * Starts an encode into `w`: holds it where it stands.
 * @param {RustWriter} w Writer, not held
 * @returns {number} Offset of its write position from its region's start, where `abort` returns
 */
function begin(w) {
  const at = w._pos - w._start;
  hold(w, at);
  return at;
}

/**
 * Ends an encode: the writer's bytes end at `p`.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Position after the encode's bytes
 * @returns {undefined}
 */
function end(w, p) {
  release(w);
  w._pos = p;
}

/**
 * Ends an encode that threw: the writer is as it was before it.
 * @param {RustWriter} w Writer, held by the encode
 * @param {*} err What was thrown
 * @param {number} at `begin`'s offset
 * @param {number} from Entry words before the encode
 * @param {number} addedThen `_addedBytes` before the encode
 * @returns {*} `err`, to throw
 */
function abort(w, err, at, from, addedThen) {
  released(w, err);
  w._pos = w._start + at;
  entries.truncate(w, from, addedThen);
  return err;
}

/**
 * Writes one field's value through the writer's own method: `w[method](value)` at `p`.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Where the encode's bytes end
 * @param {string} method Writer method
 * @param {*} value Its argument
 * @returns {number} Where they end now (`w._buf` may have changed)
 */
function viaWriter(w, p, method, value) {
  lend(w, p);
  try {
    w[method](value);
  } catch (err) {
    takeBack(w);
    throw err;
  }
  return takeBack(w);
}

/**
 * Writes a nested message through its Type's own `encode` (not set up yet, its fields changed, or
 * replaced by the app), as protobufjs's generated encoder calls it.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Where the encode's bytes end
 * @param {object} type The nested Type
 * @param {object} m The nested message
 * @param {number} q Its depth
 * @returns {number} Where the bytes end now (`w._buf` may have changed)
 */
function viaEncode(w, p, type, m, q) {
  lend(w, p);
  try {
    type.encode(m, w, q);
  } catch (err) {
    takeBack(w);
    throw err;
  }
  return takeBack(w);
}

/**
 * Writes a packed field (its length and elements) through the writer's method past its short path
 * (lib/writer/packed.js `longPacked`), given the `length` the encode read, as the method reads it once.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Where the encode's bytes end
 * @param {string} method Packed method
 * @param {ArrayLike<*>} value Elements
 * @param {*} n Their `length`
 * @returns {number} Where they end now (`w._buf` may have changed)
 */
function viaPacked(w, p, method, value, n) {
  lend(w, p);
  try {
    longPacked[method](w, value, n);
  } catch (err) {
    takeBack(w);
    throw err;
  }
  return takeBack(w);
}

/**
 * Writes a string's length and UTF-8 at `p`, as lib/writer/bytes.js `string` does for a string.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Position
 * @param {string} value String
 * @returns {number} Position after it (`w._buf` may have changed)
 */
function putString(w, p, value) {
  const n = value.length;
  if (n < STRING_SHORT_MAX) {
    p = more(w, p, 3 * n + 2);
    const buf = w._buf;
    if (n === 0) {
      buf[p] = 0;
      return p + 1;
    }
    const to = n < UTF8_LOOP_MAX ? putUtf8(value, buf, p + 1) : p + 1 + buf.utf8Write(value, p + 1);
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
  p = more(w, p, len + 5);
  const buf = w._buf;
  p = putVarint32(buf, p, len);
  buf.utf8Write(value, p, len);
  return p + len;
}

/**
 * Closes a section whose placeholder at offset `at` could not be filled: its `len` bytes need more
 * than one, or entries were recorded inside.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} at Offset of the placeholder from the region's start
 * @param {number} len Bytes written after it
 * @param {number} from Entry words when it was opened
 * @param {number} addedThen `_addedBytes` when it was opened
 * @returns {undefined}
 */
function closeSection(w, at, len, from, addedThen) {
  if (w._entryEnd === from) entries.fixup(w, at, len);
  else entries.fixupBefore(w, at, len, from, addedThen);
}

module.exports = {
  begin, end, abort, more, viaWriter, viaPacked, viaEncode, putString, closeSection,
  shortVarints, SHORT, BULK_FLOATS_MIN, loops, UTF8_LOOP_MAX,
  BITS, longBits, decimalBits, putVarint32, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble,
};
