'use strict';

/**
 * Module instances of protobufjs of the bench's own, one per contender: `install()` acts on a whole
 * protobufjs copy (its `Writer.create`, its `Type.prototype.setup`), so contenders that need
 * different installs (none, compiled encoders, the Writer API path, a shadow check, another
 * instance of this package) each need a copy of their own, as bench/instances.js does for this
 * package: the copy's entries leave `require.cache`, the package is required afresh, and then the
 * cache is put back as it was, so every later `require('protobufjs')` still returns the main copy
 * (which only builds and checks the bench's data).
 *
 * Each copy's `util.codegen` is wrapped so that every function it generates starts with a comment
 * naming the case and contender it was generated for (`tagFor`). V8 shares type feedback and
 * compiled code between functions of identical source made by `new Function` (at least from Node
 * 26 on: docs/benchmark.md, "Timing"), and protobufjs generates the same source for a Type in any
 * Root: untagged, the encoders of every contender's Root of a case (and of every case of one
 * schema) would be one function, polymorphic in the writers and inputs of all of them.
 * `BENCH_SHARED_SOURCES=1` leaves sources untagged (and bench/cases.js then puts the native
 * RustWriter contenders on one instance of the package), to reproduce that (bench/probes/trap.js).
 */

const path = require('path');

/** Whether generated sources stay untagged (only bench/probes/trap.js sets it, to show the trap). */
const SHARED_SOURCES = process.env.BENCH_SHARED_SOURCES === '1';

/**
 * A package's directory, with a trailing separator.
 * @param {string} pkg Package name (`protobufjs` or `protobufjs7`)
 * @returns {string} Directory
 */
function packageDir(pkg) {
  return path.dirname(require.resolve(`${pkg}/package.json`)) + path.sep;
}

/**
 * Removes the cache entries of the modules under `dir` and returns them.
 * @param {string} dir Directory, with a trailing separator
 * @returns {Object<string, object>} Entries by file name
 */
function takeEntries(dir) {
  const taken = {};
  for (const file of Object.keys(require.cache)) {
    if (file.startsWith(dir)) {
      taken[file] = require.cache[file];
      delete require.cache[file];
    }
  }
  return taken;
}

/**
 * Runs `fn` with `entries` in `require.cache` in place of the cached modules under `dir`, then puts
 * the cache back; modules `fn` loaded under `dir` join `entries`.
 * @param {string} dir Directory, with a trailing separator
 * @param {Object<string, object>} entries Cache entries of a copy (added to)
 * @param {function(): *} fn What to run
 * @returns {*} What `fn` returns
 */
function withEntries(dir, entries, fn) {
  const saved = takeEntries(dir);
  Object.assign(require.cache, entries);
  try {
    return fn();
  } finally {
    Object.assign(entries, takeEntries(dir));
    Object.assign(require.cache, saved);
  }
}

/**
 * The comment that makes a generated function's source unique to a case and contender.
 * @param {string} caseId Case id
 * @param {string} key Contender key
 * @returns {string} Comment (no `%`, which codegen formats)
 */
function tagFor(caseId, key) {
  return `// bench: case ${caseId}, contender ${key}`;
}

/**
 * A fresh module instance of protobufjs, its codegen tagged (`copy.tag` is the comment what it
 * generates starts with, none while null).
 * @param {string} pkg Package name (`protobufjs` or `protobufjs7`)
 * @param {function(object): *} [setup] Run on the fresh module while its files are in
 *   `require.cache` (where `install()` looks its version up), e.g. to install RustWriter
 * @returns {{pb: object, pkg: string, version: string, tag: string|null, require: function(string): *,
 *   run: function(function(): *): *}} The copy: the module, `require(file)` of a file that requires
 *   protobufjs by absolute path (pbjs static code), bound to this copy, and `run(fn)`, which runs `fn`
 *   with this copy's modules in `require.cache` (bench/grpc.js loads @grpc/proto-loader so)
 */
function loadCopy(pkg, setup) {
  const dir = packageDir(pkg);
  const main = require.cache[require.resolve(pkg)];
  const entries = {};
  const copy = { pb: null, pkg, version: require(`${pkg}/package.json`).version, tag: null };
  withEntries(dir, entries, () => {
    copy.pb = require(pkg);
    if (!SHARED_SOURCES) tagCodegen(copy);
    if (setup) setup(copy.pb);
  });
  if (main && copy.pb === main.exports) throw new Error(`${pkg} was not loaded afresh`);
  if (main && require(pkg) !== main.exports) throw new Error(`the main ${pkg} was not restored`);
  copy.require = (file) => withEntries(dir, entries, () => require(file));
  copy.run = (fn) => withEntries(dir, entries, fn);
  return copy;
}

/**
 * Wraps a copy's `util.codegen` so that each function it generates starts with `copy.tag`.
 * @param {{pb: object, tag: string|null}} copy The copy
 * @returns {undefined}
 */
function tagCodegen(copy) {
  const { util } = copy.pb;
  const codegen = util.codegen;
  /**
   * protobufjs's codegen, the function's body starting with the copy's tag.
   * @param {string[]|string} [params] Parameter names (or the name)
   * @param {string} [name] Function name
   * @returns {Function} protobufjs's Codegen appender
   */
  const tagged = function codegen_tagged(params, name) {
    const gen = codegen(params, name);
    return copy.tag === null ? gen : gen(copy.tag);
  };
  util.codegen = tagged;
}

/**
 * Calls `setup()` on every Type of a Root (protobufjs does it on a Type's first encode or decode),
 * so that all of a contender's code is generated while its tag is set, before any timing.
 * @param {object} copy The copy whose Root it is
 * @param {object} root A Root, resolved
 * @returns {number} Types set up
 */
function setUpAll(copy, root) {
  let count = 0;
  const visit = (ns) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof copy.pb.Type) {
        nested.setup();
        count += 1;
      }
      if (nested.nestedArray) visit(nested);
    }
  };
  visit(root.resolveAll());
  return count;
}

module.exports = { loadCopy, setUpAll, tagFor, withEntries, packageDir, SHARED_SOURCES };
