'use strict';

/**
 * The thresholds that decide what JS writes itself and what it hands to `finish()`. One object,
 * so the tests can move them (index.js `_testing.configure`) and run the same call sequences
 * through every path; the shipped values and the measurements behind them are here.
 */

const { NATIVE } = require('./native');

const settings = {
  /**
   * Packed varint fields (`uint32s`, `int32s`, `sint32s`) given as plain arrays go to the native
   * encoder from this many elements; shorter ones are written by JS. A plain array must first be
   * converted into an `Int32Array` (~1 ns an element plus an allocation), so JS's own loop
   * (~3.3 ns an element) wins up to about a thousand: `node bench/probe-runs.js` (2-core Xeon,
   * Node 20, mixed 1- and 2-byte values) measured native/JS 1.09 at 1,024 elements and 0.87 at
   * 4,096.
   */
  runMin: NATIVE ? 2048 : Infinity,
  /**
   * The same for `Int32Array`/`Uint32Array` fields (and BigInt arrays for `uint64s`/`sint64s`),
   * which are copied into native memory with a `memcpy`: native/JS 0.83 at 128 elements, 1.15 at
   * 64 (`node bench/probe-runs.js`).
   */
  runMinTyped: NATIVE ? 128 : Infinity,
  /**
   * `bytes` values (and packed fixed-size typed arrays) of at least this many bytes are kept by
   * reference and copied once, into the result, by `finish()`; smaller ones are copied in at
   * once.
   */
  refMin: 4096,
};

module.exports = settings;
