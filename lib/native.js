'use strict';

/**
 * The native addon: loading it, the memory it shares, and the one call `finish()` makes when a
 * message has long packed varint fields (lib/finish.js).
 *
 * The addon owns three blocks (rust/binding.rs): the control block, where JS describes the runs
 * and Rust answers their lengths; the value block, where JS copies the runs' elements; and the
 * output block, where Rust writes their payloads. All three are registered once, so the call
 * converts no argument and looks nothing up: it costs the bare N-API call plus the encoding.
 */

const { P } = require('./tape');

/** Environment variable that forces a path: `js` (never load the addon) or `native` (fail when
 * it cannot be loaded). Unset: the addon when it loads, else JS with one warning. */
const FORCE_ENV = 'PROTOBUFJS_RUSTWRITER';
/** The platforms with a prebuilt addon package (package.json `napi.targets`). */
const PREBUILT = ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc'];

/**
 * @returns {string} The C library of this Linux process: `gnu` (glibc) or `musl`
 */
function libc() {
  const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null;
  return report && report.header && report.header.glibcVersionRuntime ? 'gnu' : 'musl';
}

/**
 * Why no addon loaded, and what to do: no prebuilt addon for this platform; its package not
 * installed (optional dependencies skipped, or missing from the registry the app installs from);
 * or installed but failing to load.
 * @param {string} platform `process.platform-process.arch`
 * @param {Error} err What loading it threw
 * @returns {string} One sentence
 */
function whyNoAddon(platform, err) {
  const packages = PREBUILT.filter((name) => name.startsWith(`${platform}-`) && (process.platform !== 'linux' || name.endsWith(libc())))
    .map((name) => `protobufjs-rustwriter-${name}`);
  if (packages.length === 0) {
    return `no prebuilt addon exists for it (prebuilt: ${PREBUILT.join(', ')}); npm install in a git clone of protobufjs-rustwriter ` +
      'builds one with a Rust toolchain (cargo)';
  }
  const installed = packages.filter((name) => {
    try {
      require.resolve(`${name}/package.json`);
      return true;
    } catch {
      return false;
    }
  });
  if (installed.length > 0) return `${installed.join(' and ')} is installed but did not load (${err.message.split('\n')[0]})`;
  return `its package, ${packages.join(' or ')}, is not installed (an optional dependency: npm skips it with --omit=optional, ` +
    'or when the registry the app installs from lacks it); install it, or reinstall with optional dependencies';
}

/**
 * The native engine, or `null` for the JS-only path.
 * @returns {object|null} Engine
 */
function loadEngine() {
  const force = process.env[FORCE_ENV];
  if (force === 'js') return null;
  if (force !== undefined && force !== 'native' && force !== '') {
    throw new Error(`protobufjs-rustwriter: ${FORCE_ENV} must be "js" or "native", not ${JSON.stringify(force)}`);
  }
  let binding;
  try {
    binding = require('../binding.js');
  } catch (err) {
    const platform = `${process.platform}-${process.arch}`;
    if (force === 'native') {
      throw new Error(`protobufjs-rustwriter: no native addon for ${platform} (${FORCE_ENV}=native): ${err.message}`, { cause: err });
    }
    process.emitWarning(`no native addon for ${platform}, so RustWriter encodes in JavaScript (same bytes; long packed fields slower): ` +
      `${whyNoAddon(platform, err)}. Set ${FORCE_ENV}=js to choose the JS path without this warning.`,
    { code: 'PROTOBUFJS_RUSTWRITER_NO_NATIVE', type: 'ProtobufjsRustwriterWarning' });
    return null;
  }
  const actual = binding.protocol();
  for (const name of new Set([...Object.keys(P), ...Object.keys(actual)])) {
    if (P[name] !== actual[name]) {
      throw new Error(`protobufjs-rustwriter: the native addon does not match this version of the package (${name}); reinstall it`);
    }
  }
  return binding.createEngine();
}

const engine = loadEngine();
/** Whether the native addon is in use. */
const NATIVE = engine !== null;

/** Counters for the benchmark's breakdown: `calls` native calls made so far. */
const stats = { calls: 0 };

/** Views of the blocks (replaced when a block grows). */
const ctl = NATIVE ? new Uint32Array(engine.control.buffer, engine.control.byteOffset, P.CTL_WORDS) : null;
let values = NATIVE ? viewsOf(engine.values) : null;
let output = NATIVE ? engine.output : null;

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
 * The value block's views, with room for `words` 32-bit words.
 * @param {number} words Words needed
 * @returns {{i32: Int32Array, u32: Uint32Array, i64: BigInt64Array, u64: BigUint64Array}} Views
 */
function valueBlock(words) {
  if (words > values.i32.length) values = viewsOf(engine.growValues(Math.max(words * 4, values.i32.length * 8)));
  return values;
}

/**
 * The output block, with room for `bytes` bytes.
 * @param {number} bytes Bytes needed
 * @returns {Buffer} Block
 */
function outputBlock(bytes) {
  if (bytes > output.length) output = engine.growOutput(Math.max(bytes, output.length * 2));
  return output;
}

/**
 * Encodes the `runs` runs described in the control block; their lengths are then in it.
 * @param {number} runs Runs
 * @returns {undefined}
 */
function encodeRuns(runs) {
  ctl[P.CTL_RUNS] = runs;
  ++stats.calls;
  try {
    engine.finish();
  } catch (err) {
    throw err.code === 'ERR_OUT_OF_RANGE' ? new RangeError(`protobufjs-rustwriter: ${err.message}`) : err;
  }
}

module.exports = { NATIVE, engine, stats, ctl, valueBlock, outputBlock, encodeRuns };
