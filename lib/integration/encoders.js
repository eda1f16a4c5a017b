'use strict';

/**
 * Compiled encoders in a protobufjs copy (lib/encoders/compile.js): each Type's `encode`, made by
 * protobufjs's `Type#setup` the first time the Type encodes or decodes, is replaced by the
 * compiler's, which counts the Type's encodes on protobufjs's own encoder and is compiled for
 * RustWriter once the Type is hot (the compiled one calls protobufjs's own for any other writer).
 * Types set up before the install keep protobufjs's encoder (which writes through RustWriter all the
 * same). Only the copies whose rules the compiler knows get them (lib/encoders/rules.js `rulesOf`);
 * pbjs static code has no Type and keeps its own functions.
 */

const { compiler } = require('../encoders/compile');
const { rulesOf } = require('../encoders/rules');
const { noteSetup } = require('./serializers');

/** Marks the `setup` that compiles, and holds the one it wraps. */
const SETUP = Symbol.for('protobufjs-rustwriter.setup');

/** Each copy's compiler, once one of its Types has been set up, by its module object. */
const compilers = new WeakMap();

/**
 * Warns, once a process, that a Type keeps protobufjs's encoder.
 * @param {object} type Type
 * @param {Error} err Why
 * @returns {undefined}
 */
function warnOnce(type, err) {
  if (warned) return;
  warned = true;
  process.emitWarning(`${type.fullName} (and any other such Type) keeps protobufjs's generated encoder, which writes through ` +
    `RustWriter, since its compiled encoder failed: ${err && err.message}; please report it`,
  { code: 'PROTOBUFJS_RUSTWRITER_COMPILE', type: 'ProtobufjsRustwriterWarning' });
}
let warned = false;

/**
 * Makes every Type of `protobuf` set up from now on encode with a compiled encoder.
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version, if known
 * @returns {string|null} Null if its Types get compiled encoders, else why not: no `Type` in this
 * build (or not yet, as while `protobufjs/minimal` loads), or encoder rules the compiler does not
 * know (`rulesOf`)
 */
function installEncoders(protobuf, version) {
  const Type = protobuf.Type;
  if (typeof Type !== 'function' || typeof Type.prototype.setup !== 'function') {
    return 'no reflection (protobufjs/minimal)';
  }
  const { rules, why } = rulesOf(protobuf, version);
  if (rules === null) return why;
  const setup = Type.prototype.setup;
  if (Object.prototype.hasOwnProperty.call(setup, SETUP)) return null;
  let compile = null; // made on first use, when the copy has finished loading
  const setup_rustwriter = function setup_rustwriter() {
    const result = setup.apply(this, arguments);
    // A Type the compiler cannot handle keeps protobufjs's encoder, which writes through RustWriter:
    // the app goes on, with the same bytes.
    if (compile === null) {
      compile = compiler(protobuf, rules, warnOnce);
      compilers.set(protobuf, compile);
    }
    this.encode = compile.encoderFor(this, this.encode);
    // What setup made, for the serializers (lib/integration/serializers.js).
    noteSetup(protobuf, version, this);
    return result;
  };
  Object.defineProperty(setup_rustwriter, SETUP, { value: setup });
  Type.prototype.setup = setup_rustwriter;
  return null;
}

/**
 * Undoes {@link installEncoders} for Types set up from now on (those set up before keep their
 * compiled encoders, which call protobufjs's own once `Writer.create` is protobufjs's again).
 * @param {object} protobuf The protobufjs module
 * @returns {undefined}
 */
function uninstallEncoders(protobuf) {
  const Type = protobuf.Type;
  const setup = typeof Type === 'function' ? Type.prototype.setup : undefined;
  if (typeof setup === 'function' && Object.prototype.hasOwnProperty.call(setup, SETUP)) Type.prototype.setup = setup[SETUP];
}

/**
 * @param {object} protobuf The protobufjs module
 * @returns {boolean} Whether its Types get compiled encoders now
 */
function encodersInstalled(protobuf) {
  const Type = protobuf.Type;
  return typeof Type === 'function' && Object.prototype.hasOwnProperty.call(Type.prototype.setup, SETUP);
}

/**
 * @param {object} protobuf The protobufjs module
 * @returns {{compiled: number, cold: number, kept: string[]}} How many of its Types (those its app
 * still holds) are compiled, cold or kept (lib/encoders/compile.js, "Tiers"), and the kept ones' full
 * names; all 0 before any was set up with compiled encoders installed
 */
function encoderCounts(protobuf) {
  const compile = compilers.get(protobuf);
  return compile === undefined ? { compiled: 0, cold: 0, kept: [] } : compile.counts();
}

module.exports = { installEncoders, uninstallEncoders, encodersInstalled, encoderCounts };
