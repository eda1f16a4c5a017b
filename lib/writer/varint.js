'use strict';

/**
 * Varint and fixed-width helpers over byte arrays: the JS twins of `rust/varint.rs`. Each
 * `put*` writes at `buf[pos]` and returns the position after what it wrote; the caller has made
 * room (10 bytes for a 64-bit varint, 5 for a 32-bit one).
 */

/** Scratch for float stores: one slot, viewed as bytes (every Node platform is little-endian). */
const F32 = new Float32Array(1);
const F32_BYTES = new Uint8Array(F32.buffer);
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);
/**
 * Stores a NaN into `F64` with its bits as they are. V8 14 (Node 26) quiets a signalling NaN in
 * Maglev-compiled code that stores it into a Float64Array or DataView (the interpreter, Sparkplug,
 * TurboFan and earlier V8s keep its bits), so the same `double()` call would write different bytes
 * as its code tiers up. The `fill` builtin stores the bits as they are, on every tier
 * (`node bench/probes/nan.js`).
 */
const fillF64 = Float64Array.prototype.fill.bind(F64);

/**
 * Bytes of `value` as a varint.
 * @param {number} value Unsigned 32-bit value
 * @returns {number} 1 to 5
 */
function varint32Len(value) {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/**
 * Bytes of the 64-bit value `hi:lo` as a varint.
 * @param {number} lo Low 32 bits (unsigned)
 * @param {number} hi High 32 bits (unsigned)
 * @returns {number} 1 to 10
 */
function varint64Len(lo, hi) {
  return hi === 0 ? varint32Len(lo) : Math.ceil((64 - Math.clz32(hi)) / 7);
}

/**
 * Writes `value` as a varint.
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} value Unsigned 32-bit value
 * @returns {number} Position after it
 */
function putVarint32(buf, pos, value) {
  while (value > 127) {
    buf[pos++] = (value & 127) | 128;
    value >>>= 7;
  }
  buf[pos++] = value;
  return pos;
}

/**
 * Writes the 64-bit value `hi:lo` as a varint.
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} lo Low 32 bits (unsigned)
 * @param {number} hi High 32 bits (unsigned)
 * @returns {number} Position after it
 */
function putVarint64(buf, pos, lo, hi) {
  while (hi) {
    buf[pos++] = (lo & 127) | 128;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  while (lo > 127) {
    buf[pos++] = (lo & 127) | 128;
    lo >>>= 7;
  }
  buf[pos++] = lo;
  return pos;
}

/**
 * Writes the 64-bit value `hi:lo` zig-zag encoded, as a varint (`sint64`).
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} lo Low 32 bits
 * @param {number} hi High 32 bits
 * @returns {number} Position after it
 */
function putZigzag64(buf, pos, lo, hi) {
  const sign = hi >> 31;
  return putVarint64(buf, pos, ((lo << 1) ^ sign) >>> 0, (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0);
}

/**
 * Writes a negative int32 as protobuf does: sign-extended to 64 bits, always 10 bytes.
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} value Negative int32
 * @returns {number} Position after it
 */
function putNegativeInt32(buf, pos, value) {
  buf[pos] = (value & 127) | 128;
  buf[pos + 1] = ((value >>> 7) & 127) | 128;
  buf[pos + 2] = ((value >>> 14) & 127) | 128;
  buf[pos + 3] = ((value >>> 21) & 127) | 128;
  buf[pos + 4] = (value >>> 28) | 0xf0; // the top 4 bits, then ones of the sign extension
  buf[pos + 5] = 0xff;
  buf[pos + 6] = 0xff;
  buf[pos + 7] = 0xff;
  buf[pos + 8] = 0xff;
  buf[pos + 9] = 1;
  return pos + 10;
}

/**
 * Writes `value` as 4 little-endian bytes.
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} value 32-bit value
 * @returns {number} Position after it
 */
function putFixed32(buf, pos, value) {
  buf[pos] = value;
  buf[pos + 1] = value >>> 8;
  buf[pos + 2] = value >>> 16;
  buf[pos + 3] = value >>> 24;
  return pos + 4;
}

/**
 * Writes `value` as a little-endian IEEE 754 single (rounded as a `Float32Array` store does).
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} value Number
 * @returns {number} Position after it
 */
function putFloat(buf, pos, value) {
  F32[0] = value;
  buf[pos] = F32_BYTES[0];
  buf[pos + 1] = F32_BYTES[1];
  buf[pos + 2] = F32_BYTES[2];
  buf[pos + 3] = F32_BYTES[3];
  return pos + 4;
}

/**
 * Writes `value` as a little-endian IEEE 754 double.
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} value Number
 * @returns {number} Position after it
 */
function putDouble(buf, pos, value) {
  const number = +value;
  if (number === number) F64[0] = number;
  else fillF64(number);
  buf[pos] = F64_BYTES[0];
  buf[pos + 1] = F64_BYTES[1];
  buf[pos + 2] = F64_BYTES[2];
  buf[pos + 3] = F64_BYTES[3];
  buf[pos + 4] = F64_BYTES[4];
  buf[pos + 5] = F64_BYTES[5];
  buf[pos + 6] = F64_BYTES[6];
  buf[pos + 7] = F64_BYTES[7];
  return pos + 8;
}

/**
 * Sets the quiet bit of every signalling NaN among `count` little-endian IEEE 754 singles at
 * `buf[pos]`: what converting them to a JS number and back does, as protobuf.js does for each
 * element, where RustWriter copies a `Float32Array`'s bytes.
 * @param {Uint8Array} buf Bytes
 * @param {number} pos Byte index of the first
 * @param {number} count Singles
 * @returns {undefined}
 */
function quietNaNs(buf, pos, count) {
  for (let p = pos + 2, end = pos + 4 * count; p < end; p += 4) {
    // Exponent all ones, quiet bit (the mantissa's top bit) clear, mantissa not zero.
    if ((buf[p + 1] & 0x7f) === 0x7f && (buf[p] & 0xc0) === 0x80 && ((buf[p] & 0x3f) | buf[p - 1] | buf[p - 2]) !== 0) {
      buf[p] |= 0x40;
    }
  }
}

/**
 * protobuf.js's `utf8.write`: UTF-8, with lone surrogates as 3-byte (WTF-8) sequences, as
 * protobuf.js's `BufferWriter` writes strings of fewer than 40 UTF-16 units.
 * @param {string} string Source
 * @param {Uint8Array} buf Destination, with room for 3 bytes per unit
 * @param {number} pos Byte index
 * @returns {number} Position after it
 */
function putUtf8(string, buf, pos) {
  // ASCII first: one compare and one store a unit, ~35% faster than the general loop on a
  // 27-unit ASCII string (Node 20); the first other unit continues in the general loop.
  const n = string.length;
  let i = 0;
  for (; i < n; ++i) {
    const c = string.charCodeAt(i);
    if (c >= 128) break;
    buf[pos + i] = c;
  }
  return i === n ? pos + n : putUtf8From(string, buf, pos + i, i);
}

/**
 * {@link putUtf8} from unit `i` on.
 * @param {string} string Source
 * @param {Uint8Array} buf Destination
 * @param {number} pos Byte index
 * @param {number} i First unit to encode
 * @returns {number} Position after it
 */
function putUtf8From(string, buf, pos, i) {
  for (; i < string.length; ++i) {
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
  return pos;
}

module.exports = {
  varint32Len, varint64Len, putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble,
  quietNaNs, putUtf8,
};
