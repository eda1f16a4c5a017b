'use strict';

/**
 * 64-bit inputs: protobuf.js's `LongBits.from` coercions (same in 7.x and 8.x), plus BigInt as
 * an extension. The result goes to {@link BITS} rather than an object, so that a 64-bit write
 * allocates nothing.
 */

const Long = require('long');

/** One 64-bit scratch slot: a BigInt view, and its low and high words. Typed-array slots hold
 * any int32 without allocating, where a module variable boxes every value outside the
 * small-integer range. */
const BIG = new BigInt64Array(1);
const BITS = new Int32Array(BIG.buffer);

/**
 * Sets {@link BITS} to the two's-complement 64 bits of `value`: numbers truncated toward zero
 * and taken mod 2^64 (NaN and ±Infinity give 0), decimal strings through `Long.fromString`,
 * `Long`s and `{low, high}` objects by their words, BigInts mod 2^64, anything else 0. Runs
 * before anything is written, since reading `low`/`high` can run user code.
 * @param {Long|number|string|bigint|{low: number, high: number}} value Value
 * @returns {undefined}
 */
function longBits(value) {
  if (typeof value === 'number') {
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
    // BigInt per operation).
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

module.exports = { BITS, longBits };
