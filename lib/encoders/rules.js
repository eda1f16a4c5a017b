'use strict';

/**
 * How protobufjs's generated encoder (its src/encoder.js) writes a message, in each version the
 * compiled encoders mirror (lib/encoders/compile.js), in one table; which copy follows which
 * (`rulesOf`, from the module object itself, since a bundled copy has no package.json); and the major
 * versions RustWriter installs into at all (`MAJORS`), which every other module takes from here.
 */

/**
 * @typedef {object} Rules
 * @property {string} encoder The protobufjs version whose encoder.js these are (`7.6`, `8.8`)
 * @property {'whenSet'|'skipDefaults'} presence Which singular fields are written: every optional
 * one that is set (`m.f != null` and own), or that too but a proto3 field without explicit presence
 * only when it is not its type's default (`0`, `""`, `false`, an empty `bytes`, ±0 by `Object.is`)
 * @property {'elements'|'methods'} packed A packed field as its elements one by one inside a fork,
 * or through the writer's packed methods (`w.uint32s(a)`)
 * @property {'asIs'|'fromKey'} mapKeys A map's keys written as `Object.keys` gives them, or a
 * `bool` or 64-bit key converted back by `util.boolFromKey` / `util.longFromKey`
 * @property {boolean} unknowns Whether `$unknowns` (the bytes a decode did not know) are written back
 */

/**
 * The two generated encoders the compiler mirrors: 7.6.6's (the same bytes as 7.5.0's and 8.0.x's,
 * which lack only its nesting limit) and 8.8.1's (the same file since 8.7.0).
 * @type {{v7: Rules, v8: Rules}}
 */
const RULES = {
  v7: { encoder: '7.6', presence: 'whenSet', packed: 'elements', mapKeys: 'asIs', unknowns: false },
  v8: { encoder: '8.8', presence: 'skipDefaults', packed: 'methods', mapKeys: 'fromKey', unknowns: true },
};

/** The major versions of protobufjs RustWriter installs into (its writer; compiled encoders where
 * `rulesOf` finds rules), oldest first. */
const MAJORS = [7, 8];

/**
 * @param {string} version A protobufjs copy's version (`8.8.1`)
 * @returns {boolean} Whether it is of a major version RustWriter installs into
 */
function supportedVersion(version) {
  return MAJORS.includes(Number(String(version).split('.')[0]));
}

/**
 * The encoder rules a protobufjs copy follows, told by its module object; its version, where known,
 * only rules out majors other than `MAJORS`. Each encoder is known by what it calls:
 * - 8.7 and later: the packed writer methods (`Writer#uint32s`, added in 8.7.0) and the map key
 *   helpers (`util.boolFromKey`, 8.2.0);
 * - 7.5 to 7.6 and 8.0.x: neither, and fields that say whether they are `delimited` (7.5.0).
 * Any other copy keeps protobufjs's encoders (which write through RustWriter all the same): 7.0
 * to 7.4 write groups by another test, and 8.2 to 8.6 write proto3 fields at their defaults unlike
 * 8.7, or map keys unlike 7.x.
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version, if known
 * @returns {{rules: Rules|null, why: string|null}} The rules, or null and why not
 */
function rulesOf(protobuf, version) {
  if (version !== null && !supportedVersion(version)) {
    return { rules: null, why: `protobufjs ${version} is not ${MAJORS.map((m) => `${m}.x`).join(' or ')}, whose encoders the compiler knows` };
  }
  const { Writer, Field, util } = protobuf;
  const packedMethods = typeof Writer === 'function' && typeof Writer.prototype.uint32s === 'function';
  const mapKeyHelpers = util !== null && typeof util === 'object' && typeof util.boolFromKey === 'function';
  if (packedMethods && mapKeyHelpers) return { rules: RULES.v8, why: null };
  if (!packedMethods && !mapKeyHelpers && typeof Field === 'function' && 'delimited' in Field.prototype) {
    return { rules: RULES.v7, why: null };
  }
  const which = version !== null ? `protobufjs ${version}` : 'this protobufjs';
  return {
    rules: null,
    why: `${which} has an encoder the compiler does not mirror (it mirrors 7.5 to 7.6, 8.0 and 8.7 or later)`,
  };
}

module.exports = { MAJORS, supportedVersion, rulesOf };
