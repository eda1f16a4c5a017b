'use strict';

/**
 * Whether the messages `measure` times fit their schema. `Type.fromObject` accepts any JSON: a
 * value of the wrong type becomes something else without a word (`"two"` for a uint32 becomes 0, and
 * proto3 then leaves the field out, so a message of wrong-typed values encodes to 2 bytes), and a bad
 * 64-bit string either becomes another number (`"12.5"` is 12) or throws an error that names no
 * field (`"1-2"`: "interior hyphen"). Timing such a message measures something other than the user's
 * message.
 *
 * Two checks, each naming the field:
 * - {@link jsonProblems}: the JSON as written, against the schema, with the forms protobufjs's
 *   `fromObject` reads exactly (proto3's JSON mapping: 64-bit integers and 32-bit ones as decimal
 *   strings, enum names, base64 `bytes`, "NaN" and "Infinity"), so that a valid message gives no
 *   false alarm (protobufjs's `Type.verify` of the JSON would reject 64-bit strings and enum names);
 * - {@link verifyProblem}: protobufjs's own `Type.verify` of the message object `fromObject` or
 *   `decode` made, in the copy being timed (protobufjs 7.x, unlike 8.x, rejects an enum number its
 *   enum does not define), with the field path it reports.
 */

/** Problems listed per message before the check stops. */
const MAX_PROBLEMS = 20;
/** Types whose `fromObject` protobufjs replaces (`wrappers.js`): their JSON has other rules. */
const WRAPPED = new Set(['.google.protobuf.Any']);
const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64']);
const UINT64 = new Set(['uint64', 'fixed64']);
const DECIMAL = /^-?\d+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * A JSON value, short, for a problem's text.
 * @param {*} value Value
 * @returns {string} Text
 */
function show(value) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) text = String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/**
 * Whether an integer (a number or a decimal string) lies in [lo, hi].
 * @param {number|string} value Integer
 * @param {bigint} lo Lowest
 * @param {bigint} hi Highest
 * @returns {boolean} In range
 */
function inRange(value, lo, hi) {
  const big = BigInt(value);
  return big >= lo && big <= hi;
}

/**
 * What is wrong with a scalar value of `type`, or null when `fromObject` reads it exactly.
 * @param {string} type Scalar type
 * @param {*} v Value (not null)
 * @returns {string|null} Problem
 */
function scalarProblem(type, v) {
  const integer = (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && DECIMAL.test(v));
  if (INT32.has(type) || UINT32.has(type)) {
    if (!integer) return `${show(v)} is not an integer (${type})`;
    const [lo, hi] = INT32.has(type) ? [-(2n ** 31n), 2n ** 31n - 1n] : [0n, 2n ** 32n - 1n];
    return inRange(v, lo, hi) ? null : `${show(v)} is out of range for ${type} (protobufjs wraps it)`;
  }
  if (INT64.has(type) || UINT64.has(type)) {
    if (v !== null && typeof v === 'object' && Number.isInteger(v.low) && Number.isInteger(v.high)) return null; // Long, {low, high}
    if (typeof v === 'bigint') return null;
    if (!integer) return `${show(v)} is not ${/^[iu]/.test(type) ? 'an' : 'a'} ${type} (an integer, or a decimal string for values past 2^53)`;
    const [lo, hi] = INT64.has(type) ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
    return inRange(v, lo, hi) ? null : `${show(v)} is out of range for ${type} (protobufjs wraps it)`;
  }
  switch (type) {
    case 'double': case 'float':
      if (typeof v === 'number') return null;
      if (typeof v === 'string' && (/^(NaN|-?Infinity)$/.test(v) || (v.trim() !== '' && !Number.isNaN(Number(v))))) return null;
      return `${show(v)} is not a number (${type})`;
    case 'bool':
      return typeof v === 'boolean' ? null : `${show(v)} is not a boolean (protobufjs makes it ${Boolean(v)})`;
    case 'string':
      return typeof v === 'string' ? null : `${show(v)} is not a string`;
    case 'bytes':
      if (typeof v === 'string') {
        return BASE64.test(v) || BASE64URL.test(v) ? null : `${show(v)} is not base64 (bytes)`;
      }
      if (ArrayBuffer.isView(v)) return null;
      if (Array.isArray(v) && v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return null;
      return `${show(v)} is not bytes (a base64 string, or an array of byte values)`;
    default:
      return null;
  }
}

/**
 * The problems of a JSON message of `type`: wrong-typed values, values out of range, enum names its
 * enum lacks, two members of one oneof, each with its field path (`items[0].price.units`). Fields the
 * schema lacks are not looked at (lib/measure/load.js reports them as errors).
 * @param {object} protobuf The protobufjs module the Type is from
 * @param {object} type Type
 * @param {object} json Message as JSON
 * @returns {Array<{field: string, problem: string}>} Problems, at most {@link MAX_PROBLEMS}
 */
function jsonProblems(protobuf, type, json) {
  const problems = [];
  const add = (field, problem) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field, problem });
  };

  /**
   * Checks one value of a field (an element, a map value, or the value of a singular field).
   * @param {object} field Field, resolved
   * @param {*} v Value, not null
   * @param {string} at Its path
   * @returns {undefined}
   */
  function value(field, v, at) {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) add(at, `${show(v)} is not a ${resolved.fullName.slice(1)} message (an object)`);
      else message(resolved, v, at);
    } else if (resolved instanceof protobuf.Enum) {
      const ok = (typeof v === 'string' && Object.prototype.hasOwnProperty.call(resolved.values, v)) || Number.isInteger(v);
      if (!ok) add(at, `${show(v)} is not a value of ${resolved.fullName.slice(1)}`);
    } else {
      const problem = scalarProblem(field.type, v);
      if (problem !== null) add(at, problem);
    }
  }

  /**
   * Checks a message object.
   * @param {object} t Type
   * @param {object} object Message
   * @param {string} at Its path ('' at the top)
   * @returns {undefined}
   */
  function message(t, object, at) {
    if (WRAPPED.has(t.fullName)) return;
    const prefix = at === '' ? '' : `${at}.`;
    for (const key of Object.keys(object)) {
      const field = t.fields[key];
      const v = object[key];
      if (field === undefined || v === null || v === undefined) continue;
      field.resolve();
      const where = `${prefix}${key}`;
      if (field.map) {
        if (typeof v !== 'object' || Array.isArray(v)) {
          add(where, `${show(v)} is not a map (an object)`);
          continue;
        }
        for (const k of Object.keys(v)) {
          const keyProblem = field.keyType === 'string' ? null
            : field.keyType === 'bool' ? (/^(true|false)$/.test(k) ? null : `key ${show(k)} is not "true" or "false"`)
              : scalarProblem(field.keyType, k) && `key ${show(k)} is not a ${field.keyType}`;
          if (keyProblem) add(`${where}[${show(k)}]`, keyProblem);
          if (v[k] !== null && v[k] !== undefined) value(field, v[k], `${where}[${show(k)}]`);
        }
      } else if (field.repeated) {
        if (!Array.isArray(v) && !ArrayBuffer.isView(v)) {
          add(where, `${show(v)} is not a list (an array)`);
          continue;
        }
        for (let i = 0; i < v.length; ++i) if (v[i] !== null && v[i] !== undefined) value(field, v[i], `${where}[${i}]`);
      } else {
        value(field, v, where);
      }
    }
    for (const oneof of t.oneofsArray || []) {
      const set = oneof.oneof.filter((name) => object[name] !== null && object[name] !== undefined);
      if (set.length > 1) add(`${prefix}${set.join(', ')}`, `${set.length} members of oneof ${oneof.name} are set (protobufjs encodes them all)`);
    }
  }

  message(type, json, '');
  return problems;
}

/**
 * protobufjs's own `Type.verify` of a message object, as the copy being timed reports it.
 * @param {object} type Type
 * @param {object} message Message object (from `fromObject` or `decode`)
 * @returns {string|null} Its problem, e.g. "items.quantity: integer expected", or null
 */
function verifyProblem(type, message) {
  try {
    const problem = type.verify(message);
    return problem ? String(problem) : null;
  } catch (err) {
    return `Type.verify threw ${err && err.message ? err.message : err}`;
  }
}

module.exports = { jsonProblems, verifyProblem, MAX_PROBLEMS };
