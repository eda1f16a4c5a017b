'use strict';

/**
 * A separate module instance of this package, loaded under its own environment variables: how
 * the bench times RustWriter's JS-only path (`PROTOBUFJS_RUSTWRITER=js`) in the same process as
 * the native one. The package reads its switches once, when its modules load (lib/writer/native.js), so
 * a second instance needs its modules loaded afresh: their entries leave `require.cache`, the
 * variables are set, the package is required, and then both the cache and the environment are
 * put back as they were, so every later `require('..')` still returns the main instance.
 *
 * The compiled addon (`*.node`) stays in the cache: Node loads a shared library once per process,
 * and an instance that uses the addon creates its own engine from it (`createEngine()`), with its
 * own registered memory.
 *
 * The encoders a second instance compiles (lib/encoders/compile.js) would repeat the first one's
 * sources: each instance numbers them from 1 in a comment, and V8 shares type feedback and compiled
 * code between `new Function`s of identical source (docs/benchmark.md, "Timing"), so the two
 * instances' encoders of one Type would be one function, polymorphic in both instances' RustWriter
 * classes. The instance is loaded with that numbering starting at `serialFrom` instead (the one
 * line that sets it is rewritten as the module loads; the files are untouched).
 */

const Module = require('module');
const path = require('path');

const ROOT = path.join(__dirname, '..');
/** Cached modules of the package that are not its own code (dependencies, the bench, the tests). */
const NOT_OWN = ['node_modules', 'bench', 'test'].map((dir) => path.join(ROOT, dir) + path.sep);
/** The module that numbers compiled encoders, and the line that starts the numbering. */
const COMPILE_JS = path.join(ROOT, 'lib', 'encoders', 'compile.js');
const SERIAL_LINE = 'let serial = 0;';

/**
 * Whether a `require.cache` key is one of the package's own JS modules.
 * @param {string} file Resolved file name
 * @returns {boolean} Own module
 */
function isOwnModule(file) {
  return file.startsWith(ROOT + path.sep) && !NOT_OWN.some((dir) => file.startsWith(dir)) && !file.endsWith('.node');
}

/**
 * Sets or deletes environment variables.
 * @param {Object<string, string|undefined>} env Values (undefined: delete)
 * @returns {undefined}
 */
function setEnv(env) {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/**
 * Runs `fn` with lib/encoders/compile.js's numbering starting at `serialFrom` for modules loaded
 * meanwhile.
 * @param {number|null} serialFrom First number minus one, or null to leave it
 * @param {function(): *} fn What to run
 * @returns {*} What `fn` returns
 */
function withSerialFrom(serialFrom, fn) {
  if (serialFrom === null) return fn();
  const compile = Module.prototype._compile;
  let rewritten = false;
  Module.prototype._compile = function _compile(content, filename, ...rest) {
    if (filename === COMPILE_JS) {
      if (content.split(SERIAL_LINE).length !== 2) {
        throw new Error(`bench/instances.js: ${path.relative(ROOT, COMPILE_JS)} no longer has one \`${SERIAL_LINE}\`; ` +
          'update how the bench keeps two instances\' encoder sources apart');
      }
      content = content.replace(SERIAL_LINE, `let serial = ${serialFrom};`);
      rewritten = true;
    }
    return compile.call(this, content, filename, ...rest);
  };
  try {
    const result = fn();
    if (!rewritten) throw new Error(`bench/instances.js: ${path.relative(ROOT, COMPILE_JS)} did not load`);
    return result;
  } finally {
    Module.prototype._compile = compile;
  }
}

/**
 * The package's exports from a fresh instance of its modules loaded under `env`, leaving the
 * main instance, `require.cache` and `process.env` as they were.
 * @param {Object<string, string>} env Environment variables the instance loads under
 * @param {number|null} [serialFrom] Where the instance's numbering of compiled encoders starts
 *   (null: at 0, as the main instance's)
 * @returns {object} The fresh instance's exports (as `require('protobufjs-rustwriter')`)
 */
function loadInstance(env, serialFrom = null) {
  const entry = require.resolve('..');
  const main = require(entry);
  const saved = Object.fromEntries(Object.entries(require.cache).filter(([file]) => isOwnModule(file)));
  const savedEnv = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  for (const file of Object.keys(saved)) delete require.cache[file];
  setEnv(env);
  let instance;
  try {
    instance = withSerialFrom(serialFrom, () => require(entry));
  } finally {
    setEnv(savedEnv);
    for (const file of Object.keys(require.cache)) if (isOwnModule(file)) delete require.cache[file];
    Object.assign(require.cache, saved);
  }
  if (require(entry) !== main) throw new Error('the main instance of protobufjs-rustwriter was not restored');
  return instance;
}

module.exports = { loadInstance };
