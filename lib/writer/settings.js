'use strict';

/**
 * The thresholds that decide what JS writes itself and what it hands to `finish()` (the native
 * encoder, or an entry kept by reference), and when a Type's encoder is compiled, with the
 * measurements behind their shipped values: one object, so that the tests can move them
 * (`configure`, exported as `_testing.configure`) and run the same call sequences and messages
 * through every path. Bounds no path depends on stay beside the code they
 * shape (lib/writer/packed.js `SHORT`, `CHUNK` and `BULK_FLOATS_MIN`; lib/writer/bytes.js's
 * string splits, which are protobuf.js's).
 */

const region = require('./region');

const settings = {
  /**
   * Packed varint fields (`uint32s`, `int32s`, `sint32s`) given as plain arrays go to the native
   * encoder from this many elements; shorter ones are written by JS. A plain array must first be
   * converted into an `Int32Array` (~1 ns an element plus an allocation), so JS's own loop
   * (~3.3 ns an element) wins up to about a thousand: `node bench/probes/runs.js` (2-core Xeon,
   * Node 20, mixed 1- and 2-byte values) measured native/JS 1.09 at 1,024 elements and 0.87 at
   * 4,096.
   */
  runMin: 2048,
  /**
   * The same for `Int32Array`/`Uint32Array` fields (and BigInt arrays for `uint64s`/`sint64s`),
   * which are copied into native memory with a `memcpy`: native/JS 0.83 at 128 elements, 1.15 at
   * 64 (`node bench/probes/runs.js`).
   */
  runMinTyped: 128,
  /**
   * `bytes` values (and packed fixed-size typed arrays) of at least this many bytes are kept by
   * reference and copied once, into the result, by `finish()`; smaller ones are copied in at
   * once.
   */
  refMin: 4096,
  /**
   * A reflected Type's encoder is compiled for RustWriter (lib/encoders/compile.js) at its this-many-th
   * encode; until then protobufjs's generated encoder writes it through RustWriter's methods. Types
   * an app encodes rarely are never compiled, which keeps a wide schema's start-up and memory
   * protobufjs's own; a Type that is hot reaches it within its first messages.
   */
  promoteAfter: 16,
  /**
   * A compiled encoder writes a Type's scalars and strings in place (lib/encoders/inline.js) while its
   * fields' code so written is at most this many characters, else by one call of a helper a field
   * (lib/encoders/runtime.js). 0: always by calls (the tests run both forms).
   */
  inlineMax: 12000,
  /**
   * A Type whose fields' compiled code would be over this many characters (several thousand fields)
   * keeps protobufjs's generated encoder (lib/encoders/compile.js, "Kept"): the bound of what one
   * Type may cost in compiling and memory. Every Type of the real schemas the package is measured on
   * is far below: the largest, protobuf's `TestAllTypesProto3`, is ~26,000.
   */
  unitMax: 1000000,
};

/**
 * For tests: moves the thresholds above and the slab size, so that one call sequence can be run
 * through every path. Returns the previous values.
 * @param {{runMin?: number, runMinTyped?: number, refMin?: number, slabBytes?: number, promoteAfter?: number,
 *   inlineMax?: number, unitMax?: number}} options New values
 * @returns {{runMin: number, runMinTyped: number, refMin: number, slabBytes: number, promoteAfter: number,
 *   inlineMax: number, unitMax: number}} Previous values
 */
function configure(options) {
  const previous = {
    runMin: settings.runMin, runMinTyped: settings.runMinTyped, refMin: settings.refMin, slabBytes: region.slabSize(),
    promoteAfter: settings.promoteAfter, inlineMax: settings.inlineMax, unitMax: settings.unitMax,
  };
  if (options.runMin !== undefined) settings.runMin = options.runMin;
  if (options.runMinTyped !== undefined) settings.runMinTyped = options.runMinTyped;
  if (options.refMin !== undefined) settings.refMin = options.refMin;
  if (options.slabBytes !== undefined) region.setSlabBytes(options.slabBytes);
  if (options.promoteAfter !== undefined) settings.promoteAfter = options.promoteAfter;
  if (options.inlineMax !== undefined) settings.inlineMax = options.inlineMax;
  if (options.unitMax !== undefined) settings.unitMax = options.unitMax;
  return previous;
}

Object.defineProperty(settings, 'configure', { value: configure });

module.exports = settings;
