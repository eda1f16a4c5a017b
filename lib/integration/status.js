'use strict';

/**
 * `status()`: what is in use. With `PROTOBUFJS_RUSTWRITER_STATUS=1`, printed once to stderr
 * when the process exits, when every protobufjs copy the process loaded has been seen, by a process
 * that saw at least one.
 */

const { copies } = require('./install');
const { protoLoaders } = require('./proto-loader');
const { nativeAvailable } = require('../writer/native');
const { verifyStatus } = require('./verify');
const { STATUS, envVar } = require('../env');

/** Set by lib/integration/register.js when the preload has hooked module loading. */
const flags = { preload: false };

/**
 * What is in use: whether the addon is loaded (else the JS path), whether the preload ran, each
 * protobufjs copy seen, with whether its `Writer.create` returns RustWriters now and the fraction
 * of them shadowed by protobufjs's own writer, how many of its Types (those the app still holds) run
 * compiled code, are cold (not hot yet) or keep protobufjs's encoder (lib/encoders/compile.js,
 * "Tiers"), whether it has compiled serializers and how many it handed out and compiled
 * (lib/serializers/compile.js), what the shadow checks found (lib/integration/verify.js), and each
 * @grpc/proto-loader copy seen, with whether its package definitions hand out compiled serializers
 * (lib/integration/proto-loader.js).
 * @returns {{native: boolean, preload: boolean,
 *   copies: Array<{version: string|null, path: string|null, installed: boolean, compiled: boolean,
 *     whyNotCompiled: string|null, verify: number, types: {compiled: number, cold: number, kept: string[]},
 *     serializers: boolean, whyNoSerializers: string|null,
 *     serialized: {serializers: number, compiled: number, slow: string[], moved: number}}>,
 *   verify: {writers: number, checked: number, differing: number, skipped: number, reports: object[]},
 *   protoLoaders: Array<{version: string|null, path: string, hooked: boolean, why: string|null,
 *     definitions: number, methods: number, missed: number}>}} Status
 */
function status() {
  return {
    native: nativeAvailable(), preload: flags.preload, copies: copies(), verify: verifyStatus(),
    protoLoaders: protoLoaders(),
  };
}

/**
 * {@link status} as lines for a person.
 * @param {ReturnType<typeof status>} s Status
 * @returns {string} Text, one line per fact
 */
function formatStatus(s) {
  const loaders = s.protoLoaders.length > 0
    ? `, ${s.protoLoaders.length} @grpc/proto-loader ${s.protoLoaders.length === 1 ? 'copy' : 'copies'}` : '';
  const lines = [`protobufjs-rustwriter: ${s.native ? 'native addon' : 'JS path (no addon)'}, preload ${s.preload ? 'on' : 'off'}, ${s.copies.length} protobufjs ${s.copies.length === 1 ? 'copy' : 'copies'}${loaders} seen`];
  for (const c of s.copies) {
    const { types } = c;
    const tiers = `${types.compiled} compiled, ${types.cold} cold` +
      (types.kept.length > 0 ? `, ${types.kept.length} kept (${types.kept.join(', ')})` : '');
    const serialized = c.serialized;
    const slow = serialized.slow.length > 0 ? `, ${serialized.slow.length} by their own fromObject (${serialized.slow.join(', ')})` : '';
    const how = [
      c.compiled ? `compiled encoders (Types: ${tiers})` : null,
      c.whyNotCompiled !== null ? `compiled encoders off: ${c.whyNotCompiled}` : null,
      // Serializers where some were handed out (an app that serializes no plain objects sees no change).
      c.serializers && serialized.serializers > 0
        ? `compiled serializers (${serialized.serializers} handed out, Types compiled: ${serialized.compiled}${slow})` : null,
      c.whyNoSerializers !== null && /option|=0/.test(c.whyNoSerializers) ? `compiled serializers off: ${c.whyNoSerializers}` : null,
      c.verify > 0 ? `${c.verify * 100}% checked against protobufjs's writer` : null,
    ];
    const writer = c.installed ? ['RustWriter', ...how.filter(Boolean)].join(', ') : 'protobufjs\'s own writer';
    // A copy without a package.json to read is one bundled into a file (or loaded from one).
    const where = c.path !== null ? ` at ${c.path}` : ' (no package.json: bundled)';
    lines.push(`protobufjs-rustwriter:   protobufjs ${c.version || '(version unknown)'}${where}: ${writer}`);
  }
  for (const l of s.protoLoaders) {
    const how = l.hooked
      ? `compiled serializers in ${l.definitions} package ${l.definitions === 1 ? 'definition' : 'definitions'} (${l.methods} methods)` +
        (l.missed > 0 ? `, ${l.missed} left as they were` : '')
      : `its own serializers: ${l.why}`;
    lines.push(`protobufjs-rustwriter:   @grpc/proto-loader ${l.version || '(version unknown)'} at ${l.path}: ${how}`);
  }
  const v = s.verify;
  if (v.writers > 0) {
    lines.push(`protobufjs-rustwriter: shadow check: ${v.checked} results compared, ${v.differing} differed, ${v.skipped} not comparable`);
  }
  return lines.join('\n') + '\n';
}

if (envVar(STATUS) === '1') {
  // Only a process that loaded protobufjs reports: with the variable and the preload in
  // NODE_OPTIONS, `npm start`'s own process would otherwise print "0 copies seen" beside the app's.
  process.once('exit', () => {
    const s = status();
    if (s.copies.length > 0) process.stderr.write(formatStatus(s));
  });
}

module.exports = { status, formatStatus, flags };
