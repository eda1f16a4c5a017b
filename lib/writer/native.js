'use strict';

/**
 * The native addon (lib/writer/addon.js finds it): the memory it shares, and the one call `finish()`
 * makes when a message has long packed varint fields (lib/writer/finish.js).
 *
 * The addon owns three blocks (rust/binding.rs): the control block, where JS describes the runs
 * and Rust answers their lengths; the value block, where JS copies the runs' elements; and the
 * output block, where Rust writes their payloads. All three are registered once, so the call
 * converts no argument and looks nothing up: it costs the bare N-API call plus the encoding.
 */

const PROTOCOL = require('../../protocol.json');
const { load, refused, whyNoAddon } = require('./addon');
const { FORCE, envVar } = require('../env');
const { lengthOf } = require('./typed');

/**
 * The native engine, or `null` for the JS-only path.
 * @returns {object|null} Engine
 */
function loadEngine() {
  if (force === 'js') return null;
  if (force !== undefined && force !== 'native' && force !== '') {
    throw new Error(`protobufjs-rustwriter: ${FORCE} must be "js" or "native", not ${JSON.stringify(force)}`);
  }
  const { binding, failures } = load();
  if (binding === null) {
    const platform = `${process.platform}-${process.arch}`;
    if (force === 'native') {
      throw new Error(`protobufjs-rustwriter: no native addon for ${platform} (${FORCE}=native): ${whyNoAddon(failures)}`,
        failures.length > 0 ? { cause: failures[0].err } : undefined);
    }
    const why = whyNoAddon(failures);
    // Where the runtime refused native code, its flag is the fix; elsewhere, the variable silences it.
    const silence = failures.some((f) => refused(f.err)) ? '' : ` Set ${FORCE}=js to choose the JS path without this warning.`;
    process.emitWarning(`no native addon for ${platform}, so RustWriter encodes in JavaScript (same bytes; long packed fields slower): ` +
      `${why}.${silence}`,
    { code: 'PROTOBUFJS_RUSTWRITER_NO_NATIVE', type: 'ProtobufjsRustwriterWarning' });
    return null;
  }
  const actual = binding.protocol();
  for (const name of new Set([...Object.keys(PROTOCOL), ...Object.keys(actual)])) {
    if (PROTOCOL[name] !== actual[name]) {
      throw new Error(`protobufjs-rustwriter: the native addon does not match this version of the package (${name}); reinstall it`);
    }
  }
  return binding.createEngine();
}

/**
 * The engine: undefined until the first long packed field (or `RustWriter.native`, `status()`) asks
 * for it, then the engine or null. Loading the addon and registering its blocks took ~5 ms and
 * 3 MB of a process's start (`node bench/probes/start.js`), which an app that never encodes a long
 * packed field need not pay. `PROTOBUFJS_RUSTWRITER=native` loads it at once, so that a missing
 * addon fails the start; `=js` never loads it.
 */
const force = envVar(FORCE);
let engine = force === 'js' ? null : undefined;
/** Views of the blocks (replaced when a block grows), once the engine is loaded. */
let control = null;
let values = null;
let output = null;

/**
 * Whether this process encodes long packed fields with the native addon: loads it on first call.
 * @returns {boolean} Whether it does
 */
function nativeAvailable() {
  if (engine === undefined) {
    engine = loadEngine();
    if (engine !== null) {
      control = new Uint32Array(engine.control.buffer, engine.control.byteOffset, PROTOCOL.CTL_WORDS);
      values = viewsOf(engine.values);
      output = engine.output;
    }
  }
  return engine !== null;
}

// `native` fails the start without an addon, and any other value than `js` is refused at once.
if (force !== undefined && force !== '' && force !== 'js') nativeAvailable();

/**
 * Same-type views of the value block, so that copying a run's elements in is a `memcpy`.
 * @param {Buffer} block The value block
 * @returns {{i32: Int32Array, u32: Uint32Array, i64: BigInt64Array, u64: BigUint64Array}} Views
 */
function viewsOf(block) {
  const { buffer, byteOffset, byteLength } = block;
  return {
    i32: new Int32Array(buffer, byteOffset, byteLength >>> 2),
    u32: new Uint32Array(buffer, byteOffset, byteLength >>> 2),
    i64: new BigInt64Array(buffer, byteOffset, byteLength >>> 3),
    u64: new BigUint64Array(buffer, byteOffset, byteLength >>> 3),
  };
}

/**
 * Whether runs of `kind` have 64-bit elements (two words of the value block each).
 * @param {number} kind `RUN_*`
 * @returns {boolean} Whether they have
 */
function is64(kind) {
  return kind >= PROTOCOL.RUN_UINT64;
}

/**
 * Encodes `count` runs with one call into the addon: run `i` is the elements of `sources[i]` (an
 * `Int32Array`, `Uint32Array`, `BigInt64Array` or `BigUint64Array`, all it holds) of
 * kind `kinds[i]` (`RUN_*`). JS copies the elements into the value block and describes each run
 * in the control block; Rust writes the payloads one after the other into the output block and
 * answers each one's length, which goes to `lengths[i]`.
 * @param {number} count Runs, at most `MAX_RUNS`
 * @param {ArrayBufferView[]} sources Elements of each run
 * @param {number[]} kinds Kind of each run
 * @param {Float64Array} lengths Receives each payload's length
 * @returns {Buffer} The output block: the payloads, in order, `lengths` summing to their end
 */
function encodeRuns(count, sources, kinds, lengths) {
  let words = 0;
  let bound = 0;
  for (let i = 0; i < count; ++i) {
    const n = lengthOf(sources[i]);
    if (is64(kinds[i])) {
      words = ((words + 1) & ~1) + 2 * n;
      bound += 10 * n;
    } else {
      words += n;
      bound += (kinds[i] === PROTOCOL.RUN_INT32 ? 10 : 5) * n;
    }
  }
  if (words > values.i32.length) values = viewsOf(engine.growValues(Math.max(words * 4, values.i32.length * 8)));
  if (bound > output.length) output = engine.growOutput(Math.max(bound, output.length * 2));
  words = 0;
  for (let i = 0, record = PROTOCOL.CTL_RECORDS; i < count; ++i, record += PROTOCOL.RUN_WORDS) {
    const src = sources[i];
    const kind = kinds[i];
    const n = lengthOf(src);
    if (is64(kind)) {
      words = (words + 1) & ~1;
      (src instanceof BigInt64Array ? values.i64 : values.u64).set(src, words >>> 1);
    } else {
      (src instanceof Uint32Array ? values.u32 : values.i32).set(src, words);
    }
    control[record + PROTOCOL.RUN_KIND] = kind;
    control[record + PROTOCOL.RUN_COUNT] = n;
    control[record + PROTOCOL.RUN_FIRST] = words;
    words += is64(kind) ? 2 * n : n;
  }
  control[PROTOCOL.CTL_RUNS] = count;
  try {
    engine.finish();
  } catch (err) {
    throw err.code === 'ERR_OUT_OF_RANGE' ? new RangeError(`protobufjs-rustwriter: ${err.message}`) : err;
  }
  for (let i = 0, record = PROTOCOL.CTL_RECORDS; i < count; ++i, record += PROTOCOL.RUN_WORDS) {
    lengths[i] = control[record + PROTOCOL.RUN_LEN];
  }
  return output;
}

/**
 * The native calls made so far in this module instance, as the addon counts them (for `measure`
 * and the benchmark; wraps at 2^32: subtract with `>>> 0`).
 * @returns {number} Calls, 0 without the addon
 */
function callsMade() {
  return control !== null ? control[PROTOCOL.CTL_CALLS] : 0;
}

module.exports = { nativeAvailable, encodeRuns, callsMade };
