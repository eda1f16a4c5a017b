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
 * package.json naming the copy. Bun has no `Module.prototype.load`: there the hook is
 * `Module._extensions['.js']`, which it calls for each CommonJS file (see `hook`).
 *
 * The same hook sees each @grpc/proto-loader copy's build/src/index.js, whose package definitions
 * then hand out compiled serializers (lib/integration/proto-loader.js).
 *
 * Node's `module.registerHooks()` does not replace this hook: its `load` hook hands over a file's
 * source before it runs, never the module object it makes (docs/design.md, "The preload").
 */

const Module = require('module');
const { install, noteCopy } = require('./install');
const { status, flags } = require('./status');
const { supportedVersion } = require('../encoders/rules');
const protoLoader = require('./proto-loader');

const HOOKED = Symbol.for('protobufjs-rustwriter.register');

/** Files that produce a protobufjs module object (src/index-light.js completes the one
 * src/index-minimal.js made with reflection, `Type` among it, so it is seen twice). */
const ENTRY = /[\\/](?:src[\\/]index-(?:minimal|light)|dist[\\/](?:light[\\/]|minimal[\\/])?protobuf(?:\.min)?)\.js$/;

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
  // The versions whose writer RustWriter reproduces the bytes of (lib/encoders/rules.js `MAJORS`).
  if (copy.version !== null && supportedVersion(copy.version)) install(exports);
}

/**
 * Wraps `holder[name]`, a function that loads one module file, so that each protobufjs entry file
 * it loads is considered once it has run. The wrapper carries `HOOKED`, so that a second copy of
 * this package in the process does not hook again.
 * @param {object} holder `Module.prototype` or `Module._extensions`
 * @param {string} name `load` or `.js`
 * @param {function(object, Array): {filename: string, module: object}} loaded The file loaded and
 * its module, from the call's `this` and arguments
 * @returns {undefined}
 */
function wrap(holder, name, loaded) {
  const original = holder[name];
  const hooked = function load_rustwriter() {
    const result = original.apply(this, arguments);
    const { filename, module } = loaded(this, arguments);
    if (ENTRY.test(filename)) consider(filename, module.exports);
    else if (protoLoader.ENTRY.test(filename)) protoLoader.hookProtoLoader(module.exports, filename, module);
    return result;
  };
  Object.defineProperty(hooked, HOOKED, { value: true });
  holder[name] = hooked;
}

/**
 * Hooks module loading, once a process: `Module.prototype.load(filename)` where the runtime has it
 * (Node, Deno), else `Module._extensions['.js'](module, filename)` (Bun, which runs every CommonJS
 * file, `import`ed ones too, through it). Each runs once per module file, never for a cached
 * `require`. Where neither exists, one warning names `install()`.
 * @returns {boolean} Whether the hook is in place (now or by an earlier call)
 */
function hook() {
  const extensions = Module._extensions;
  if (typeof Module.prototype.load === 'function') {
    if (Object.prototype.hasOwnProperty.call(Module.prototype.load, HOOKED)) return true;
    wrap(Module.prototype, 'load', (module, args) => ({ filename: args[0], module }));
  } else if (extensions !== null && typeof extensions === 'object' && typeof extensions['.js'] === 'function') {
    if (Object.prototype.hasOwnProperty.call(extensions['.js'], HOOKED)) return true;
    wrap(extensions, '.js', (_, args) => ({ filename: args[1], module: args[0] }));
  } else {
    process.emitWarning('this runtime has no module loading hook the preload can use (Module.prototype.load or ' +
      'Module._extensions), so it installs only into the protobufjs copies already loaded; call install(protobuf) ' +
      'on each copy your code loads', { code: 'PROTOBUFJS_RUSTWRITER_NO_HOOK', type: 'ProtobufjsRustwriterWarning' });
    return false;
  }
  return true;
}

flags.preload = hook();
// Copies loaded before the preload ran (it was required late, or by code loaded earlier).
for (const id of Object.keys(require.cache)) {
  const cached = require.cache[id];
  if (cached && cached.loaded && ENTRY.test(cached.filename)) consider(cached.filename, cached.exports);
}
protoLoader.hookLoadedProtoLoaders();

module.exports = { status };
