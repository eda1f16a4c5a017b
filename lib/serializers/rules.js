'use strict';

/**
 * How protobufjs's generated `fromObject` (its src/converter.js `converter.fromObject`, with
 * src/type.js `setup`) turns a plain object into a message, in each version the serializers mirror
 * (lib/serializers/code.js), in one table; and which copies follow which (`fromObjectRulesOf`).
 *
 * Unlike the encoders (lib/encoders/rules.js), a copy is told by its version, not by what its module
 * has: converter.js changed in most releases of 7.x and 8.x (git log -- src/converter.js), often in
 * ways no export shows (a default case of an enum switch, the message of an error). So a copy whose
 * version is not listed here, or unknown (bundled), keeps `T.encode(T.fromObject(o)).finish()`.
 */

/**
 * @typedef {object} FromObjectRules
 * @property {string} converter The protobufjs version whose converter.js these are (`7.6`, `8.8`)
 * @property {'live'|'captured'} ctor Which constructor `d instanceof C` tests and `new C` makes: the
 * Type's `ctor` read at each call (`this.ctor`, 7.x), or the one `setup` captured (`C`, 8.x)
 * @property {boolean} emptyFirst Whether a Type without fields returns `new C` before the object and
 * depth checks (7.x), or after them (8.x)
 * @property {string} depthMessage The message of the Error thrown past `util.recursionLimit`
 * @property {'passthrough'|'integers'} enums Unknown enum values: 7.x keeps any number (and, in a
 * repeated field, turns anything else into the enum's default by falling through to its case);
 * 8.x keeps a number that is an int32 (`(d|0)===d`), unless the enum is CLOSED, and drops
 * anything else, also from repeated fields (`m.f[m.f.length]=`)
 * @property {'push'|'sized'} arrays A repeated field's array: `m.f=[]`, elements assigned by index
 * (7.x: unassigned ones are holes, trailing ones not there at all); or `m.f=Array(d.f.length)`,
 * enums excepted (8.x: unassigned ones are holes up to that length)
 * @property {boolean} implicitDefaults Whether a field without presence (proto3 singular, edition
 * IMPLICIT) is left unset when its value is its type's default, before converting it (8.x)
 */

/**
 * The two converters the serializers mirror: 7.6.6's (converter.js and type.js are the same files
 * from 7.6.3 on) and 8.8.1's (converter.js the same since 8.7.2, type.js's `setup` too).
 * @type {{v7: FromObjectRules, v8: FromObjectRules}}
 */
const RULES = {
  v7: {
    converter: '7.6', ctor: 'live', emptyFirst: true, depthMessage: 'maximum nesting depth exceeded',
    enums: 'passthrough', arrays: 'push', implicitDefaults: false,
  },
  v8: {
    converter: '8.8', ctor: 'captured', emptyFirst: false, depthMessage: 'max depth exceeded',
    enums: 'integers', arrays: 'sized', implicitDefaults: true,
  },
};

/** The versions whose converter.js and type.js were read for each rule set (their git blobs compared). */
const VERSIONS = {
  v7: ['7.6.3', '7.6.4', '7.6.5', '7.6.6'],
  v8: ['8.7.2', '8.8.0', '8.8.1'],
};

/**
 * The fromObject rules a protobufjs copy follows.
 * @param {string|null} version Its version, if known
 * @returns {{rules: FromObjectRules|null, why: string|null}} The rules, or null and why not
 */
function fromObjectRulesOf(version) {
  for (const key of Object.keys(VERSIONS)) {
    if (VERSIONS[key].includes(version)) return { rules: RULES[key], why: null };
  }
  const listed = `${VERSIONS.v7[0]} to ${VERSIONS.v7[VERSIONS.v7.length - 1]}, ${VERSIONS.v8[0]} to ${VERSIONS.v8[VERSIONS.v8.length - 1]}`;
  return {
    rules: null,
    why: version === null
      ? `its version is unknown (bundled), and fromObject differs from release to release (the serializers mirror ${listed})`
      : `protobufjs ${version}'s fromObject is not one the serializers mirror (${listed})`,
  };
}

module.exports = { RULES, VERSIONS, fromObjectRulesOf };
