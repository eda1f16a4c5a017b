'use strict';

/**
 * How protobufjs's generated encoder (its src/encoder.js) writes a message, in each major version
 * this package installs into: the rules the compiled encoders mirror (lib/encoders/compile.js), in
 * one table, from which every other module takes the versions it supports (`MAJORS`, `rulesOf`).
 */

/**
 * @typedef {object} Rules
 * @property {number} major The major version
 * @property {'whenSet'|'skipDefaults'} presence Which singular fields are written: every optional
 * one that is set (`m.f != null` and own), or that too but a proto3 field without explicit presence
 * only when it is not its type's default (`0`, `""`, `false`, an empty `bytes`, ±0 by `Object.is`)
 * @property {'elements'|'methods'} packed A packed field as its elements one by one inside a fork,
 * or through the writer's packed methods (`w.uint32s(a)`)
 * @property {'asIs'|'fromKey'} mapKeys A map's keys written as `Object.keys` gives them, or a
 * `bool` or 64-bit key converted back by `util.boolFromKey` / `util.longFromKey`
 * @property {boolean} unknowns Whether `$unknowns` (the bytes a decode did not know) are written back
 */

/** @type {Object<number, Rules>} */
const RULES = {
  7: { major: 7, presence: 'whenSet', packed: 'elements', mapKeys: 'asIs', unknowns: false },
  8: { major: 8, presence: 'skipDefaults', packed: 'methods', mapKeys: 'fromKey', unknowns: true },
};

/** The major versions of protobufjs this package installs into, oldest first. */
const MAJORS = Object.keys(RULES).map(Number);

/**
 * @param {string|null} version A protobufjs copy's version (`8.8.1`), or null if unknown
 * @returns {Rules|null} The rules its generated encoders follow, or null for a version this package
 * does not install into
 */
function rulesOf(version) {
  const major = version === null ? NaN : Number(String(version).split('.')[0]);
  return Object.prototype.hasOwnProperty.call(RULES, major) ? RULES[major] : null;
}

module.exports = { MAJORS, rulesOf };
