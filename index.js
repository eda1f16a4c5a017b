'use strict';

/**
 * protobufjs-rustwriter: a drop-in replacement for protobuf.js's `Writer`.
 *
 * The data path, one module each: lib/writer.js and lib/packed.js (protobuf.js's API, writing
 * wire bytes as calls arrive) → lib/tape.js (what is left for later: entries) and
 * lib/memory.js (where the bytes go) → lib/finish.js (splicing the entries in, with one call
 * to lib/native.js for long packed fields) → the result. lib/install.js hooks a protobufjs
 * instance's `Writer.create`; lib/register.js (the `register` preload) does it for every copy
 * the process loads; lib/status.js reports what is in use.
 */

const { RustWriter } = require('./lib/writer');
require('./lib/packed');
const { install, uninstall } = require('./lib/install');
const { status } = require('./lib/status');
const { NATIVE } = require('./lib/native');
const { P } = require('./lib/tape');
const settings = require('./lib/settings');
const memory = require('./lib/memory');

/**
 * Whether this process encodes long packed fields with the native addon (`false`: the JS-only
 * path, same bytes).
 * @type {boolean}
 */
RustWriter.native = NATIVE;

/**
 * For tests: moves the thresholds of lib/settings.js and the slab size, so one call sequence can
 * be run through every path. Returns the previous values.
 * @param {{runMin?: number, runMinTyped?: number, refMin?: number, slabBytes?: number}} options New values
 * @returns {{runMin: number, runMinTyped: number, refMin: number, slabBytes: number}} Previous values
 */
function configure(options) {
  const previous = { runMin: settings.runMin, runMinTyped: settings.runMinTyped, refMin: settings.refMin, slabBytes: memory.slabSize() };
  if (options.runMin !== undefined) settings.runMin = options.runMin;
  if (options.runMinTyped !== undefined) settings.runMinTyped = options.runMinTyped;
  if (options.refMin !== undefined) settings.refMin = options.refMin;
  if (options.slabBytes !== undefined) memory.setSlabBytes(options.slabBytes);
  return previous;
}

module.exports = { RustWriter, install, uninstall, status, _protocol: P, _testing: { configure } };
