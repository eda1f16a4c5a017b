'use strict';

/**
 * The element loops of the packed methods (lib/writer/packed.js): each writes the elements
 * `value[i]` … `value[stop - 1]` into `buf` from position `p`, converted as protobuf.js converts
 * them, and returns the position after the last. The caller has made room for them (at most 10
 * bytes an element for varints, the fixed size otherwise) and holds the writer, so a conversion
 * that throws or re-enters leaves nothing half-written behind.
 */

const { BITS, longBits } = require('./long');
const { putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble } = require('./varint');

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
    p = putVarint32(buf, p, ((value[i] << 1) ^ (value[i] >> 31)) >>> 0);
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

module.exports = {
  loopUint32, loopInt32, loopSint32, loopUint64, loopSint64, loopFixed32, loopFloat, loopDouble, loopFixed64, loopBool,
};
