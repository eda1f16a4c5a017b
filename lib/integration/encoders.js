'use strict';

/**
 * Compiled encoders in a protobufjs copy (lib/encoders/compile.js): each Type's `encode`, made by
 * protobufjs's `Type#setup` the first time the Type encodes or decodes, is replaced by one compiled
 * for RustWriter, which calls protobufjs's own for any other writer. Types set up before the
 * install keep protobufjs's encoder (which writes through RustWriter all the same). Only the copies
 * whose rules the compiler knows get them (`rulesOf`); pbjs static code has no Type and keeps its
 * own functions.
 */

const { compiler } = require('../encoders/compile');

/** Marks the `setup` that compiles, and holds the one it wraps. */
const SETUP = Symbol.for('protobufjs-rustwriter.setup');

/**
 * The encoder rules a protobufjs copy follows, told by its module object, since a bundled copy has
 * no package.json to read a version from; its version, where known, only rules out majors other
 * than 7 and 8. The compiler mirrors two generated encoders (src/encoder.js): 8.8.1's (rules 8,
 * the same file since 8.7.0) and 7.6.6's (rules 7, which gives the same bytes as 7.5.0's and
 * 8.0.x's: those lack only its nesting limit). Each is known by what its encoder calls:
 * - 8.7 and later: the packed writer methods (`Writer#uint32s`, added in 8.7.0) and the map key
 *   helpers (`util.boolFromKey`, 8.2.0);
 * - 7.5 to 7.6 and 8.0.x: neither, and fields that say whether they are `delimited` (7.5.0).
 * Any other copy keeps protobufjs's encoders (which write through RustWriter all the same): 7.0
 * to 7.4 write groups by another test, and 8.2 to 8.6 write proto3 fields at their defaults
 * unlike 8.7, or map keys unlike 7.x.
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version, if known
 * @returns {{rules: number|null, why: string|null}} The rules (7 or 8), or null and why not
 */
function rulesOf(protobuf, version) {
  const major = version === null ? null : Number(version.split('.')[0]);
  if (major !== null && major !== 7 && major !== 8) {
    return { rules: null, why: `protobufjs ${version} is not 7.x or 8.x, whose encoders the compiler knows` };
  }
  const { Writer, Field, util } = protobuf;
  const packedMethods = typeof Writer.prototype.uint32s === 'function';
  const mapKeyHelpers = util !== null && typeof util === 'object' && typeof util.boolFromKey === 'function';
  if (packedMethods && mapKeyHelpers) return { rules: 8, why: null };
  if (!packedMethods && !mapKeyHelpers && typeof Field === 'function' && 'delimited' in Field.prototype) return { rules: 7, why: null };
  const which = version !== null ? `protobufjs ${version}` : 'this protobufjs';
  return {
    rules: null,
    why: `${which} has an encoder the compiler does not mirror (it mirrors 7.5 to 7.6, 8.0 and 8.7 or later)`,
  };
}

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
    if (compile === null) compile = compiler(protobuf, rules);
    try {
      this.encode = compile.encoderFor(this, this.encode);
    } catch (err) {
      // A schema the compiler does not handle keeps protobufjs's encoder, which writes through
      // RustWriter: the app goes on, with the same bytes.
      warnOnce(this, err);
    }
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

module.exports = { rulesOf, installEncoders, uninstallEncoders, encodersInstalled };
