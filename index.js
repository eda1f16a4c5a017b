'use strict';

/**
 * protobufjs-rustwriter: a drop-in replacement for protobuf.js's `Writer`.
 *
 * The data path: lib/writer.js (the writer, with lib/bytes.js, lib/packed.js and
 * lib/entries.js: protobuf.js's API, writing wire bytes as calls arrive into memory from
 * lib/memory.js, and keeping entries for what it cannot write yet) → lib/finish.js (the result:
 * entries spliced in, with one call to lib/native.js for long packed fields). lib/install.js
 * hooks a protobufjs instance's `Writer.create`; lib/register.js (the `register` preload) does it
 * for every copy the process loads; lib/status.js reports what is in use, lib/verify.js checks
 * results against protobufjs's own writer.
 */

const { RustWriter } = require('./lib/writer');
const { install, uninstall } = require('./lib/install');
const { status } = require('./lib/status');
const settings = require('./lib/settings');

module.exports = {
  RustWriter, install, uninstall, status,
  // For the tests and the benchmark: the numbers shared with the native side, and the path switch.
  _protocol: require('./protocol.json'),
  _testing: { configure: settings.configure },
};
