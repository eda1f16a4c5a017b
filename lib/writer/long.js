'use strict';

/**
 * 64-bit inputs: protobuf.js's `LongBits.from` coercions (same in 7.x and 8.x), plus BigInt as
 * an extension. The result goes to {@link BITS} rather than an object, so that a 64-bit write
 * allocates nothing.
 *
 * No dependency: `Long`s and `{low, high}` objects are read by shape, and decimal strings are
 * parsed here, exactly as the `long` package's `Long.fromString` parses them (protobufjs's
 * default). The `long` package's UMD build cannot even load once `Object.prototype` is frozen.
 */

/** One 64-bit scratch slot: a BigInt view, and its low and high words. Typed-array slots hold
 * any int32 without allocating, where a module variable boxes every value outside the
 * small-integer range. */
const BIG = new BigInt64Array(1);
const BITS = new Int32Array(BIG.buffer);

/** `Long.fromString` reads 8 characters at a time, each chunk through `parseInt`. */
const CHUNK = 8;
/** 10^k as BigInt, k = 0…8: the weight of a chunk of k characters. */
const POWERS = Array.from({ length: CHUNK + 1 }, (_, k) => 10n ** BigInt(k));

/**
 * Sets {@link BITS} from the number `value` (an integer or not): truncated toward zero, taken
 * mod 2^64, two's complement if negative; NaN and ±Infinity give 0.
 * @param {number} value Value
 * @returns {undefined}
 */
function numberBits(value) {
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
}

/**
 * Sets {@link BITS} from a decimal string, with `Long.fromString(text)`'s result, quirks
 * included: an empty string throws `Error('empty string')`; a `-` anywhere but first throws
 * `Error('interior hyphen')`; each leading `-` negates the rest; the rest is read in chunks
 * of 8 characters, each through `parseInt(chunk, 10)` (so leading blanks and a `+` are skipped,
 * reading stops at the first non-digit of a chunk, a chunk with no digits counts as 0: `"12abc"`
 * is 12, `"1.5"` is 1, `"0x10"` is 0), chunk by chunk as `result * 10^size + chunk`, mod 2^64.
 * @param {string|String} text Decimal string
 * @returns {undefined}
 */
function decimalBits(text) {
  let s = String(text);
  let negative = false;
  for (;;) {
    if (s.length === 0) throw Error('empty string');
    const hyphen = s.indexOf('-');
    if (hyphen > 0) throw Error('interior hyphen');
    if (hyphen < 0) break;
    negative = !negative;
    s = s.substring(1);
  }
  if (s.length <= CHUNK) {
    // One chunk: parseInt's value (at most 99,999,999) is the result, with no BigInt.
    const value = parseInt(s, 10);
    numberBits(value === value ? (negative ? -value : value) : 0);
    return;
  }
  let result = 0n;
  for (let i = 0; i < s.length; i += CHUNK) {
    const size = Math.min(CHUNK, s.length - i);
    const value = parseInt(s.substring(i, i + size), 10);
    // Taken mod 2^64 at every chunk, so that a long string costs linear time.
    result = BigInt.asUintN(64, result * POWERS[size] + (value === value ? BigInt(value) : 0n));
  }
  BIG[0] = negative ? -result : result;
}

/**
 * Sets {@link BITS} to the two's-complement 64 bits of `value`: numbers truncated toward zero
 * and taken mod 2^64 (NaN and ±Infinity give 0), decimal strings as `Long.fromString` reads
 * them (whether or not the protobufjs instance has `util.Long`), `Long`s and `{low, high}`
 * objects by their words, BigInts mod 2^64, anything else 0. Runs before anything is written,
 * since reading `low`/`high` can run user code. The compiled encoders spell its branch for
 * objects out per field (lib/encoders/compile.js `withWords`): a change here goes there too.
 * @param {Long|number|string|bigint|{low: number, high: number}} value Value
 * @returns {undefined}
 */
function longBits(value) {
  if (typeof value === 'number') {
    numberBits(value);
  } else if (typeof value === 'bigint') {
    // A BigInt64Array store wraps mod 2^64 without allocating (BigInt arithmetic allocates a
    // BigInt per operation).
    BIG[0] = value;
  } else if (typeof value === 'string' || value instanceof String) {
    decimalBits(value);
  } else if (value.low || value.high) {
    // Both read and converted before either is stored, in protobuf.js's order: a getter or
    // valueOf may itself write a 64-bit value, through BITS.
    const low = value.low >>> 0;
    const high = value.high >>> 0;
    BITS[0] = low;
    BITS[1] = high;
  } else {
    BITS[0] = 0;
    BITS[1] = 0;
  }
}

module.exports = { BITS, longBits, decimalBits };
