'use strict';

/**
 * protobufjs-rustwriter: a drop-in replacement for protobuf.js's `Writer`. lib/ holds three
 * products (docs/design.md has the map):
 *
 * - lib/writer/: `RustWriter`, protobuf.js's Writer API writing wire bytes as calls arrive, with
 *   the native addon for long packed fields;
 * - lib/integration/: `install()`, the `register` preload, `status()` and the shadow check, which
 *   put RustWriter into an app's protobufjs copies;
 * - lib/measure/: the `npx protobufjs-rustwriter measure` command.
 */

const { RustWriter } = require('./lib/writer/writer');
const { install, uninstall } = require('./lib/integration/install');
const { serializer } = require('./lib/integration/serializers');
const { status } = require('./lib/integration/status');
const settings = require('./lib/writer/settings');
const { callsMade } = require('./lib/writer/native');
const { isCompiled, tierOf, whyKept } = require('./lib/encoders/compile');
const { whySlow, serializerTier } = require('./lib/serializers/compile');

module.exports = {
  RustWriter, install, uninstall, status, serializer,
  // For the tests and the benchmark: the numbers shared with the native side, the path switch, the
  // native calls made so far, whether a Type's `encode` is a compiled encoder, and why a Type keeps
  // protobufjs's encoder; why a Type's serializer keeps its own fromObject and encode, and its tier.
  _protocol: require('./protocol.json'),
  _testing: {
    configure: settings.configure, nativeCalls: callsMade, isCompiled, tierOf, whyKept, whySlow, serializerTier,
  },
};
