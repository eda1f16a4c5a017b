'use strict';

/**
 * Whether a Type's messages run compiled code, seen two ways that must agree: the package's test hook
 * (`_testing.isCompiled(Type.encode)`), and which code read the message's fields, a function that
 * protobufjs's codegen made (its generated encoder: the Type is on protobufjs's encoder, cold or kept)
 * or not (compiled code). The second way knows nothing of the package: only that protobufjs generates
 * its encoders with `new Function` in its codegen module (src/util/codegen.js in 8.x,
 * `@protobufjs/codegen` in 7.x), which V8 names as the eval origin of their frames.
 *
 * `observeTier` encodes a probe of the message, whose own fields are getters over the message's,
 * so the encode it observes counts as one of the Type's (its promotion may happen in it: the hook is
 * read after it, and agrees with what ran).
 */

const { _testing } = require('..');

/** The eval origin of a function protobufjs's codegen made. */
const CODEGEN = /\bat Codegen \(.*[\\/](?:protobufjs[^\\/]*[\\/]src[\\/]util[\\/]codegen|@protobufjs[\\/]codegen[\\/]index)\.js/;

/**
 * @returns {boolean} Whether the function that called the getter calling this was made by protobufjs's codegen
 */
function readByCodegen() {
  const capture = {};
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_err, sites) => sites;
  try {
    Error.captureStackTrace(capture, readByCodegen);
    const sites = capture.stack;
    const reader = sites[1]; // [0] the getter
    return Boolean(reader && reader.isEval() && CODEGEN.test(String(reader.getEvalOrigin())));
  } finally {
    Error.prepareStackTrace = prepare;
  }
}

/**
 * A probe of `message`: an object of its prototype whose own properties are getters returning the
 * message's, each noting which code read it.
 * @param {object} message Message (a plain object or an instance)
 * @param {string[]} reads Gets `protobufjs` or `compiled` per read
 * @returns {object} Probe
 */
function probeOf(message, reads) {
  const probe = Object.create(Object.getPrototypeOf(message));
  for (const key of Object.keys(message)) {
    Object.defineProperty(probe, key, {
      enumerable: true,
      configurable: true,
      get() {
        reads.push(readByCodegen() ? 'protobufjs' : 'compiled');
        return message[key];
      },
    });
  }
  return probe;
}

/**
 * Encodes a probe of `message` with `T.encode` and says which code read its fields, checked
 * against the test hook.
 * @param {object} T Type (of a protobufjs copy the package is installed into)
 * @param {object} message Message with at least one own field set
 * @param {{isCompiled?: function(Function): boolean}} [options] The hook (a test may plant a wrong one)
 * @returns {{tier: string, bytes: Buffer}} `compiled` or `protobufjs`, and the bytes written
 */
function observeTier(T, message, options = {}) {
  const isCompiled = options.isCompiled || _testing.isCompiled;
  const reads = [];
  const bytes = Buffer.from(T.encode(probeOf(message, reads)).finish());
  if (reads.length === 0) throw new Error(`observeTier: ${T.fullName}'s encoder read no field of the message`);
  const seen = new Set(reads);
  if (seen.size > 1) throw new Error(`observeTier: ${T.fullName}'s fields were read by both protobufjs's code and other code`);
  const tier = reads[0];
  const hook = isCompiled(T.encode);
  if (hook !== (tier === 'compiled')) {
    throw new Error(`${T.fullName}: isCompiled(Type.encode) is ${hook}, but ${tier === 'compiled'
      ? 'code other than protobufjs\'s generated encoder' : 'protobufjs\'s generated encoder'} read its message's fields`);
  }
  return { tier, bytes };
}

module.exports = { observeTier, probeOf, readByCodegen };
