'use strict';

/**
 * `install(protobuf)`: makes a protobufjs instance's `Writer.create` return RustWriters and its
 * Types encode with compiled encoders (lib/integration/encoders.js), and remembers every protobufjs
 * copy it has seen for `status()`.
 */

const fs = require('fs');
const path = require('path');
const { RustWriter } = require('../writer/writer');
const { fractionOf, defaultFraction, sampledCreate } = require('./verify');
const { installEncoders, uninstallEncoders, encodersInstalled, encoderCounts } = require('./encoders');
const { applySerializers, serializersOn, serializerCounts } = require('./serializers');
const { hookLoadedProtoLoaders } = require('./proto-loader');
const { COMPILED, SERIALIZERS, envVar } = require('../env');

const INSTALLED = Symbol.for('protobufjs-rustwriter.installed');

/**
 * `Writer.create` while installed, for an instance whose `util.Buffer` is Node's `Buffer`.
 * @returns {RustWriter} A new writer
 */
function create_rust() {
  return new RustWriter();
}

/** Per `util.Buffer` class other than Node's: `{ Writer, create }`, made once. */
const CUSTOM = new WeakMap();
/** The same for Node's `Buffer`. */
const RUST = { Writer: RustWriter, create: create_rust };

/**
 * The writer class and `Writer.create` for a protobufjs instance: RustWriter when its
 * `util.Buffer` is Node's `Buffer` (or absent: a `Buffer` is a `Uint8Array`), else a subclass
 * whose writers finish into an instance of that class, allocated as protobufjs's `BufferWriter`
 * allocates it. Only such instances pay for the copy.
 * @param {object} protobuf The protobufjs module
 * @returns {{Writer: Function, create: function(): RustWriter}} Class and factory
 */
function writerFor(protobuf) {
  const Custom = protobuf.util && protobuf.util.Buffer;
  if (typeof Custom !== 'function' || Custom === Buffer) return RUST;
  let custom = CUSTOM.get(Custom);
  if (custom === undefined) {
    const alloc = typeof Custom.allocUnsafe === 'function'
      ? (size) => Custom.allocUnsafe(size)
      : (size) => new Custom(size);
    /** RustWriter whose results are instances of the instance's `util.Buffer`. */
    class CustomBufferWriter extends RustWriter {
      /**
       * Finishes into a buffer from `util.Buffer.allocUnsafe`, as protobufjs's BufferWriter does.
       * @returns {Buffer} Finished buffer, an instance of `util.Buffer`
       */
      finish() {
        const bytes = super.finish();
        const out = alloc(bytes.length);
        out.set(bytes);
        return out;
      }
    }
    Object.defineProperty(CustomBufferWriter, 'alloc', { value: alloc, writable: true, configurable: true });
    const create = function create_custom() {
      return new CustomBufferWriter();
    };
    custom = { Writer: CustomBufferWriter, create };
    CUSTOM.set(Custom, custom);
  }
  return custom;
}

/**
 * The `Writer.create` for a protobufjs instance: {@link writerFor}'s, or, when `verify` is above
 * 0, one that shadows that fraction of its writers with the instance's own writer (lib/integration/verify.js).
 * @param {object} protobuf The protobufjs module
 * @param {number} verify Fraction of writers to check
 * @param {string|null} version The instance's version
 * @returns {Function} `Writer.create`
 */
function createFor(protobuf, verify, version) {
  const { Writer, create } = writerFor(protobuf);
  return verify > 0 ? sampledCreate(verify, create, Writer, protobuf, version) : create;
}

/** Every protobufjs copy seen, by its `Writer`: `{ version, path }` (null where unknown). */
const COPIES = new Map();
/** The module object of each, by its `Writer`. */
const MODULES = new Map();

/**
 * The nearest `package.json` named `protobufjs` at or above `filename`'s directory.
 * @param {string} filename A file of the copy
 * @returns {{version: string|null, path: string|null}} Its version and package directory
 */
function packageOf(filename) {
  for (let dir = path.dirname(filename); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (pkg.name === 'protobufjs') return { version: String(pkg.version), path: dir };
    } catch {
      // no package.json here, or not JSON: keep walking up
    }
    if (path.dirname(dir) === dir) return { version: null, path: null };
  }
}

/**
 * Remembers a protobufjs copy for `status()`. `filename` is a module file of it; without one,
 * the module cache is searched for a module whose exports are `protobuf`.
 * @param {object} protobuf The protobufjs module
 * @param {string} [filename] A file of the copy
 * @returns {{version: string|null, path: string|null, whyNotCompiled: string|null}} What is known of
 * the copy, and why its Types keep protobufjs's encoders, if they do
 */
function noteCopy(protobuf, filename) {
  const Writer = protobuf.Writer;
  let copy = COPIES.get(Writer);
  if (copy !== undefined && (copy.path !== null || copy.version !== null)) return copy;
  if (filename === undefined) {
    for (const id of Object.keys(require.cache)) {
      const cached = require.cache[id];
      if (cached && cached.exports === protobuf) {
        filename = cached.filename;
        break;
      }
    }
  }
  copy = filename === undefined ? { version: null, path: null } : packageOf(filename);
  copy.whyNotCompiled = null;
  copy.whyNoSerializers = null;
  COPIES.set(Writer, copy);
  MODULES.set(Writer, protobuf);
  return copy;
}

/**
 * Makes every `Type.encode` / `encodeDelimited` of this protobufjs instance (reflection and
 * static generated code, protobufjs 7.x and 8.x) write through {@link RustWriter}, and its Types
 * (reflection) encode with encoders compiled for RustWriter, unless `compiled` is false.
 * Idempotent (a second call only applies its options, and compiles encoders if the first found no
 * `Type` yet); survives `protobuf.configure()`, which also re-reads `util.Buffer`: results are
 * instances of the instance's `util.Buffer`, as protobufjs's own are.
 * @param {object} protobuf The protobufjs module (`protobufjs`, `/light` or `/minimal`)
 * @param {{verify?: number, compiled?: boolean, serializers?: boolean, protobufjsVersion?: string}} [options]
 * `verify`: the fraction (0 to 1) of writers whose every call also goes to protobufjs's own writer,
 * compared at `finish()` (lib/integration/verify.js); default `PROTOBUFJS_RUSTWRITER_VERIFY`, else 0.
 * `compiled`: whether Types get compiled encoders; default true, unless
 * `PROTOBUFJS_RUSTWRITER_COMPILED=0`. `serializers`: whether `serializer(Type)` and the
 * @grpc/proto-loader copies using this protobufjs copy compile `encode(fromObject(o))` in one pass
 * (lib/integration/serializers.js; they need compiled encoders); default true, unless
 * `PROTOBUFJS_RUSTWRITER_SERIALIZERS=0`. `protobufjsVersion`: the copy's version, for a copy whose
 * package.json cannot be found (bundled into one file): `status()` reports it, and compiled
 * encoders stay off unless it is 7.x or 8.x
 * @returns {object} `protobuf`
 */
function install(protobuf, options) {
  const Writer = protobuf && protobuf.Writer;
  if (typeof Writer !== 'function' || typeof Writer.create !== 'function') {
    throw new TypeError('protobufjs-rustwriter: install() expects the protobufjs module (with a Writer)');
  }
  const given = options !== undefined && options !== null ? options : {};
  const verify = given.verify !== undefined ? fractionOf(given.verify, 'install() option verify') : null;
  for (const option of ['compiled', 'serializers']) {
    if (given[option] !== undefined && typeof given[option] !== 'boolean') {
      throw new TypeError(`protobufjs-rustwriter: install() option ${option} must be a boolean, not ${JSON.stringify(given[option])}`);
    }
  }
  const stated = given.protobufjsVersion;
  if (stated !== undefined && (typeof stated !== 'string' || !/^\d+\.\d+\.\d+/.test(stated))) {
    throw new TypeError('protobufjs-rustwriter: install() option protobufjsVersion must be a version such as "8.8.1" ' +
      `(require('protobufjs/package.json').version), not ${JSON.stringify(stated)}`);
  }
  const copy = noteCopy(protobuf);
  if (stated !== undefined && copy.path === null) copy.version = stated;
  if (Object.prototype.hasOwnProperty.call(Writer, INSTALLED)) {
    const state = Writer[INSTALLED];
    if (verify !== null && verify !== state.verify && Writer.create === state.ours) {
      state.verify = verify;
      state.ours = createFor(protobuf, verify, copy.version);
      Writer.create = state.ours;
    }
    if (given.compiled !== undefined) {
      state.compiled = given.compiled;
      state.compiledBy = 'option';
    }
    if (given.serializers !== undefined) {
      state.serializers = given.serializers;
      state.serializersBy = 'option';
    }
    applyEncoders(protobuf, state, copy);
    hookLoadedProtoLoaders();
    return protobuf;
  }
  const state = {
    create: Writer.create,
    configure: Writer._configure,
    verify: verify === null ? defaultFraction() : verify,
    compiled: given.compiled !== undefined ? given.compiled : envVar(COMPILED) !== '0',
    /** Whether `compiled` came from the option or the environment, for `status()`. */
    compiledBy: given.compiled !== undefined ? 'option' : 'environment',
    serializers: given.serializers !== undefined ? given.serializers : envVar(SERIALIZERS) !== '0',
    serializersBy: given.serializers !== undefined ? 'option' : 'environment',
    ours: null,
  };
  state.ours = createFor(protobuf, state.verify, copy.version);
  Object.defineProperty(Writer, INSTALLED, { value: state, configurable: true });
  Writer.create = state.ours;
  if (typeof state.configure === 'function') {
    // protobuf.configure() resets Writer.create through Writer._configure: re-apply after it,
    // for the util.Buffer it may have been called for.
    Writer._configure = function _configure() {
      const result = state.configure.apply(this, arguments);
      state.ours = createFor(protobuf, state.verify, copy.version);
      Writer.create = state.ours;
      return result;
    };
  }
  applyEncoders(protobuf, state, copy);
  hookLoadedProtoLoaders();
  return protobuf;
}

/**
 * Compiled encoders, and the serializers that need them, on or off in `protobuf`, as its install
 * state says.
 * @param {object} protobuf The protobufjs module
 * @param {{compiled: boolean, compiledBy: string, serializers: boolean, serializersBy: string}} state
 * Its install state
 * @param {{version: string|null, whyNotCompiled: string|null, whyNoSerializers: string|null}} copy
 * What is known of the copy (its `whyNotCompiled` and `whyNoSerializers` are set here)
 * @returns {undefined}
 */
function applyEncoders(protobuf, state, copy) {
  if (state.compiled) {
    copy.whyNotCompiled = installEncoders(protobuf, copy.version);
  } else {
    uninstallEncoders(protobuf);
    copy.whyNotCompiled = state.compiledBy === 'option' ? 'install() option compiled: false' : `${COMPILED}=0`;
  }
  if (!state.serializers) {
    applySerializers(protobuf, copy.version, false);
    copy.whyNoSerializers = state.serializersBy === 'option' ? 'install() option serializers: false' : `${SERIALIZERS}=0`;
  } else if (copy.whyNotCompiled !== null) {
    applySerializers(protobuf, copy.version, false);
    copy.whyNoSerializers = 'they need compiled encoders';
  } else {
    copy.whyNoSerializers = applySerializers(protobuf, copy.version, true);
  }
}

/**
 * Undoes {@link install}: `Writer.create` and `Writer._configure` are protobufjs's own again.
 * @param {object} protobuf The protobufjs module passed to `install`
 * @returns {object} `protobuf`
 */
function uninstall(protobuf) {
  const Writer = protobuf && protobuf.Writer;
  const state = Writer && Object.prototype.hasOwnProperty.call(Writer, INSTALLED) ? Writer[INSTALLED] : null;
  if (state === null) return protobuf;
  if (typeof state.configure === 'function') Writer._configure = state.configure;
  uninstallEncoders(protobuf);
  applySerializers(protobuf, null, false);
  // create() may have been reset by configure() while installed: protobufjs's first create()
  // sets itself up again.
  Writer.create = state.create;
  delete Writer[INSTALLED];
  return protobuf;
}

/**
 * Whether `Writer.create` currently returns RustWriters, whether its Types get compiled encoders,
 * and the fraction of writers checked.
 * @param {Function} Writer A protobufjs copy's `Writer`
 * @returns {{installed: boolean, compiled: boolean, verify: number}} State
 */
function stateOf(Writer) {
  const state = Object.prototype.hasOwnProperty.call(Writer, INSTALLED) ? Writer[INSTALLED] : null;
  const installed = state !== null && Writer.create === state.ours;
  const compiled = installed && encodersInstalled(MODULES.get(Writer));
  return { installed, compiled, verify: installed ? state.verify : 0 };
}

/**
 * Each protobufjs copy seen (by `install()` or by the preload), in the order seen.
 * @returns {Array<{version: string|null, path: string|null, installed: boolean, compiled: boolean,
 *   whyNotCompiled: string|null, verify: number, serializers: boolean, whyNoSerializers: string|null,
 *   serialized: object}>} Copies
 */
function copies() {
  const list = [];
  for (const [Writer, copy] of COPIES) {
    const state = stateOf(Writer);
    // Why only while installed and off: a copy the preload left alone (6.x) says so by `installed`.
    const whyNotCompiled = state.installed && !state.compiled ? copy.whyNotCompiled : null;
    const { installed, compiled, verify } = state;
    const protobuf = MODULES.get(Writer);
    const types = encoderCounts(protobuf);
    const serializers = installed && serializersOn(protobuf);
    const whyNoSerializers = state.installed && !serializers ? copy.whyNoSerializers : null;
    list.push({
      version: copy.version, path: copy.path, installed, compiled, whyNotCompiled, verify, types,
      serializers, whyNoSerializers, serialized: serializerCounts(protobuf),
    });
  }
  return list;
}

module.exports = { install, uninstall, noteCopy, copies };
