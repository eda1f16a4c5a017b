'use strict';

/**
 * The paths `npm run fuzz:js` and `npm run fuzz:schemas` drive every sequence and message through:
 * with the addon and without it (`PROTOBUFJS_RUSTWRITER=js`, chosen when the module loads, hence a
 * child process per path), each with the shipped thresholds and with the thresholds moved so that
 * every packed field and every `bytes` value goes through entries (as the differential test's paths
 * do), in 512-byte slabs so that messages also move to the large and private buffers. For the
 * compiled encoders (fuzz:schemas), the first two compile every Type as it is set up, and the
 * entries paths promote a Type at its second message, so that a case's messages run through the
 * tiers: protobufjs's encoder, then compiled code, nested Types compiled at their first message
 * written by compiled code.
 */

/** `_testing.configure` options that send everything through entries (and compiled fields through
 * calls of lib/encoders/runtime.js's helpers, where the other paths spell small Types' fields out). */
const ENTRIES = { runMin: 1, runMinTyped: 1, refMin: 1, slabBytes: 512, promoteAfter: 2, inlineMax: 0 };
/** Options that compile every Type at once. */
const COMPILED = { promoteAfter: 0 };

/** name → `{ env, options }`: the environment of the child process and the configuration. */
const PATHS = {
  'native': { env: { PROTOBUFJS_RUSTWRITER: 'native' }, options: COMPILED },
  'native-entries': { env: { PROTOBUFJS_RUSTWRITER: 'native' }, options: ENTRIES },
  'js': { env: { PROTOBUFJS_RUSTWRITER: 'js' }, options: COMPILED },
  'js-entries': { env: { PROTOBUFJS_RUSTWRITER: 'js' }, options: ENTRIES },
};

const PATH_NAMES = Object.keys(PATHS);

module.exports = { PATHS, PATH_NAMES };
