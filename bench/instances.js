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
 * The encoders a second instance compiles (lib/encoders/compile.js) have sources of their own, as
 * those of any two copies of the package in one process: their numbering is process-wide.
 */

const path = require('path');

const ROOT = path.join(__dirname, '..');
/** Cached modules of the package that are not its own code (dependencies, the bench, the tests). */
const NOT_OWN = ['node_modules', 'bench', 'test'].map((dir) => path.join(ROOT, dir) + path.sep);

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
 * The package's exports from a fresh instance of its modules loaded under `env`, leaving the
 * main instance, `require.cache` and `process.env` as they were.
 * @param {Object<string, string>} env Environment variables the instance loads under
 * @returns {object} The fresh instance's exports (as `require('protobufjs-rustwriter')`)
 */
function loadInstance(env) {
  const entry = require.resolve('..');
  const main = require(entry);
  const saved = Object.fromEntries(Object.entries(require.cache).filter(([file]) => isOwnModule(file)));
  const savedEnv = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  for (const file of Object.keys(saved)) delete require.cache[file];
  setEnv(env);
  let instance;
  try {
    instance = require(entry);
  } finally {
    setEnv(savedEnv);
    for (const file of Object.keys(require.cache)) if (isOwnModule(file)) delete require.cache[file];
    Object.assign(require.cache, saved);
  }
  if (require(entry) !== main) throw new Error('the main instance of protobufjs-rustwriter was not restored');
  return instance;
}

module.exports = { loadInstance };
