'use strict';

/**
 * The `grpc` group's serializers: @grpc/proto-loader's, from `fromJSON` of a real client's
 * descriptor with google-gax's options, each on a contender's own protobufjs copy (bench/copies.js):
 * the op is a method's `requestSerialize(request)`, `cls.encode(cls.fromObject(request)).finish()` in
 * proto-loader's `createSerializer`, or under RustWriter the compiled serializer the hook put there
 * (lib/integration/proto-loader.js).
 *
 * proto-loader requires `protobufjs` (and `protobufjs/ext/descriptor`) from its own directory, where
 * npm put 7.6.6 (proto-loader 0.8.1 depends on ^7.5.5). So each contender loads proto-loader afresh,
 * its `build/src` files out of `require.cache` as bench/copies.js takes a protobufjs copy out, with
 * those two requests resolved to the contender's package (`protobufjs` 8.8.1 or `protobufjs7` 7.6.6)
 * while its copy's modules are in the cache: proto-loader then builds its Roots and serializers
 * with the contender's copy, as it would with its own. An app under the preload has its proto-loader
 * hooked as the module loads; a contender with RustWriter calls `install()` again once proto-loader
 * is loaded, which hooks the proto-loader copies already loaded, as an app that installs late does.
 */

const Module = require('module');
const path = require('path');
const { withEntries, packageDir } = require('./copies');

/** google-gax's options for `fromJSON` (its build/src/grpc.js `GrpcClient.defaultOptions`, less `includeDirs`). */
const GAX_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };

/** The package directory of @grpc/proto-loader, with a trailing separator. */
const LOADER_DIR = path.dirname(require.resolve('@grpc/proto-loader/package.json')) + path.sep;

/**
 * A fresh @grpc/proto-loader whose `protobufjs` is the copy's.
 * @param {{pkg: string, run: function(function(): *): *}} copy A contender's copy (bench/copies.js)
 * @param {function(object): *} [loaded] Run while the fresh proto-loader is in `require.cache` (the
 *   contender's `install()`, which hooks it)
 * @returns {object} Its exports
 */
function protoLoaderFor(copy, loaded) {
  const target = packageDir(copy.pkg);
  const resolve = Module._resolveFilename;
  return copy.run(() => withEntries(LOADER_DIR, {}, () => {
    Module._resolveFilename = function resolve_copy(request, parent, ...rest) {
      const fromLoader = parent && typeof parent.filename === 'string' && parent.filename.startsWith(LOADER_DIR);
      if (fromLoader && (request === 'protobufjs' || request.startsWith('protobufjs/'))) {
        return resolve.call(this, target + request.slice('protobufjs'.length).replace(/^\//, ''), parent, ...rest);
      }
      return resolve.call(this, request, parent, ...rest);
    };
    let loader;
    try {
      loader = require(LOADER_DIR);
    } finally {
      Module._resolveFilename = resolve;
    }
    if (loaded) loaded(loader);
    return loader;
  }));
}

/**
 * A method's `requestSerialize` from proto-loader's `fromJSON` of a case's descriptor.
 * @param {object} loader proto-loader's exports
 * @param {object} descriptor JSON descriptor (a copy: protobufjs may keep parts of it)
 * @param {{service: string, method: string}} grpc The method
 * @returns {function(object): Buffer} Serializer
 */
function requestSerializer(loader, descriptor, grpc) {
  const definition = loader.fromJSON(descriptor, { ...GAX_OPTIONS });
  const method = definition[grpc.service] && definition[grpc.service][grpc.method];
  if (!method) throw new Error(`bench/grpc: no method ${grpc.service}/${grpc.method} in the package definition`);
  return method.requestSerialize;
}

module.exports = { protoLoaderFor, requestSerializer, GAX_OPTIONS };
