'use strict';

/**
 * The preload (`node -r protobufjs-rustwriter/register`, `--import`, `NODE_OPTIONS`): installs
 * into every protobufjs 7.x and 8.x copy the process loads, and into those already loaded.
 *
 * Every entry point of protobufjs (`protobufjs`, `/light`, `/minimal`, a resolved path, an ES
 * `import`, which Node runs through the CommonJS loader) loads its `src/index-minimal.js`, which
 * builds the module object with `Writer` and ends with `configure()`; the prebuilt bundles are
 * `dist/**\/protobuf[.min].js`. So the hook looks at each module *file* as it finishes loading
 * (`Module.prototype.load`, once per file, never for a cached `require`), tests its path
 * against one regular expression, and only for those files reads the exports and the
 * package.json naming the copy.
 */

const Module = require('module');
const { install, noteCopy } = require('./install');
const { status, flags } = require('./status');

const HOOKED = Symbol.for('protobufjs-rustwriter.register');

/** Files that produce a protobufjs module object. */
const ENTRY = /[\\/](?:src[\\/]index-minimal|dist[\\/](?:light[\\/]|minimal[\\/])?protobuf(?:\.min)?)\.js$/;
/** Versions the preload installs into: those RustWriter reproduces the bytes of. */
const SUPPORTED = /^[78]\./;

/**
 * Installs into the protobufjs copy `exports` loaded from `filename`, if it is one and of a
 * supported version; remembers it either way.
 * @param {string} filename Module file
 * @param {*} exports Its exports
 * @returns {undefined}
 */
function consider(filename, exports) {
  if (exports === null || typeof exports !== 'object' && typeof exports !== 'function') return;
  const Writer = exports.Writer;
  if (typeof Writer !== 'function' || typeof Writer.create !== 'function') return;
  const copy = noteCopy(exports, filename);
  if (copy.version !== null && SUPPORTED.test(copy.version)) install(exports);
}

if (!Object.prototype.hasOwnProperty.call(Module.prototype.load, HOOKED)) {
  const load = Module.prototype.load;
  const load_rustwriter = function load_rustwriter(filename) {
    const result = load.apply(this, arguments);
    if (ENTRY.test(filename)) consider(filename, this.exports);
    return result;
  };
  Object.defineProperty(load_rustwriter, HOOKED, { value: true });
  Module.prototype.load = load_rustwriter;
  flags.preload = true;

  // Copies loaded before the preload ran (it was required late, or by code loaded earlier).
  for (const id of Object.keys(require.cache)) {
    const cached = require.cache[id];
    if (cached && cached.loaded && ENTRY.test(cached.filename)) consider(cached.filename, cached.exports);
  }
}

module.exports = { status };
