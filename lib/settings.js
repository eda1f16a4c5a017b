'use strict';

/**
 * The thresholds that decide what JS writes itself and what it hands to `finish()`. One object,
 * so the tests can move them (index.js `_testing.configure`) and run the same call sequences
 * through every path; the shipped values and the measurements behind them are here.
 */

const { NATIVE } = require('./native');

const settings = {
  /**
   * Packed varint fields (`uint32s`, `int32s`, `sint32s`, and `uint64s`/`sint64s` of BigInt
   * arrays) of at least this many elements go to the native encoder; shorter ones are written
   * by JS. Set from `node bench/probe-runs.js` (see its header for the measurement).
   */
  runMin: NATIVE ? 256 : Infinity,
  /**
   * `bytes` values (and packed fixed-size typed arrays) of at least this many bytes are kept by
   * reference and copied once, into the result, by `finish()`; smaller ones are copied in at
   * once.
   */
  refMin: 4096,
};

module.exports = settings;
