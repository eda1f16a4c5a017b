'use strict';

/**
 * Preloaded (`node -r`) into the pbjs process that generates protobufjs 7.6.6 static code: makes
 * `protobufjs` and `protobufjs/...` resolve to the protobufjs7 package (npm:protobufjs@7.6.6), so
 * pbjs builds its encoders with 7.6.6's codegen. NODE_PATH or a symlink would not do: the CLI's
 * own lookup finds node_modules/protobufjs (8.8.1) first.
 */

const Module = require('module');
const path = require('path');

const PROTOBUFJS7_DIR = path.dirname(require.resolve('protobufjs7/package.json'));
const resolveFilename = Module._resolveFilename;

/**
 * Node's resolver, with `protobufjs` and `protobufjs/...` requests redirected to protobufjs7.
 * @param {string} request Module request
 * @param {...*} rest Node's other arguments (parent, isMain, options)
 * @returns {string} Resolved file name
 */
Module._resolveFilename = function resolveToProtobufjs7(request, ...rest) {
  const target = request === 'protobufjs' || request.startsWith('protobufjs/')
    ? path.join(PROTOBUFJS7_DIR, request.slice('protobufjs'.length))
    : request;
  return resolveFilename.call(this, target, ...rest);
};
