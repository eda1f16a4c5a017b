'use strict';

/**
 * The scalar and string helpers of lib/encoders/runtime.js spelled out, for the functions of small
 * Types (`settings.inlineMax`): there a field's bytes are written in place, with the region's buffer
 * and end in locals (`buf`, `end`), where a call of a helper would load them again and make room on
 * its own. V8 inlines only so much into one function (~920 bytes of bytecode), so calls of helpers
 * are not inlined where a message has more than a few fields; spelled out, the ~80-byte message took
 * 0.86x the time it took with one call a field, the vector tile 0.85x, its short packed fields
 * spelled out too (`node bench/probes/ab.js`); 64-bit values spelled out too, the tile took 0.975x
 * again (its decoded features' ids are `Long`s). A string's ASCII loop is a small function V8
 * inlines (`ascii`): spelled out, no faster. `bytes` stays a call: its helper does more than the
 * call costs. Each statement here does exactly what its helper does, in the same order; the
 * differential tests run both forms (test/helpers.js PATHS, fuzz/paths.js).
 */

const { UTF8_LOOP_MAX } = require('../writer/bytes');

/** The most bytes a scalar's value takes. */
const MAX_BYTES = {
  double: 8, float: 4, int32: 10, uint32: 5, sint32: 5, fixed32: 4, sfixed32: 4, bool: 1,
  int64: 10, uint64: 10, sint64: 10, fixed64: 8, sfixed64: 8,
};

/** The types whose helper `valueCode` spells out (`bytes` stays a call of its helper). */
const SPELLED = new Set([...Object.keys(MAX_BYTES), 'string']);

/** The locals the spelled-out statements use, and the statement that reloads them after a call
 * that may have moved the region. */
const LOCALS = 'let buf = heldBuffer(w), end = heldEnd(w);';
const RELOAD = 'buf = heldBuffer(w); end = heldEnd(w);';

/**
 * @param {number} tag A field's tag (`id << 3 | wire type`), or 0 for none
 * @returns {number[]} Its bytes as a varint
 */
function tagBytes(tag) {
  const bytes = [];
  let v = tag >>> 0;
  if (v === 0) return bytes;
  while (v > 127) {
    bytes.push((v & 127) | 128);
    v >>>= 7;
  }
  bytes.push(v);
  return bytes;
}

/**
 * The statements that write a tag at `p`, which has room for it.
 * @param {number} tag Tag, or 0 for none
 * @returns {string} Code
 */
function writeTag(tag) {
  const bytes = tagBytes(tag);
  if (bytes.length === 0) return '';
  return bytes.map((b, i) => `buf[p${i ? ` + ${i}` : ''}] = ${b};`).join(' ') + ` p += ${bytes.length};`;
}

/**
 * The statement that makes room for `n` bytes at `p`.
 * @param {number|string} n Bytes (a number, or an expression)
 * @returns {string} Code
 */
function room(n) {
  return `if (p + ${n} > end) { p = growHeld(w, p, ${n}); ${RELOAD} }`;
}

/** The statements that write `x`, a uint32, as a varint at `p` (lib/writer/varint.js `putVarint32`). */
const VARINT_LOOP = 'while (x > 127) { buf[p++] = (x & 127) | 128; x >>>= 7; } buf[p++] = x;';
/** The statements that write `hi:lo`, unsigned words, as a varint at `p` (`putVarint64`: a call
 * would also box each word of 2^31 or more into a heap number). */
const VARINT64_LOOP = 'while (hi) { buf[p++] = (lo & 127) | 128; lo = ((lo >>> 7) | (hi << 25)) >>> 0; hi >>>= 7; } '
  + VARINT_LOOP.replace(/\bx\b/g, 'lo');

/**
 * The statements that run `use` with `lo` and `hi`, the two's-complement words of 64-bit value `v`:
 * runtime.js `words`. Spelled out, its `instanceof String` has this field's feedback, where the
 * helper's sees every 64-bit field's values (on the vector tile's decoded feature ids a shared
 * `longBits` took 7% of the samples).
 * @param {string} v Expression of the value, evaluated at will (a local)
 * @param {string} use Statements that read and may change `lo` and `hi`, int32 words
 * @returns {string} Code
 */
function withWords(v, use) {
  return `{ let lo, hi; if (typeof ${v} === "object" && ${v} !== null) { `
    + `if (${v} instanceof String) { decimalBits(${v}); lo = BITS[0]; hi = BITS[1]; } `
    + `else if (${v}.low || ${v}.high) { lo = ${v}.low | 0; hi = ${v}.high | 0; } else { lo = 0; hi = 0; } } `
    + `else { longBits(${v}); lo = BITS[0]; hi = BITS[1]; } ${use} }`;
}

/**
 * The statements that write scalar `v` of `type` at `p`, which has room for it.
 * @param {string} type Scalar type (an enum is `int32`)
 * @param {string} v Expression of the value, evaluated once (a local)
 * @returns {string} Code
 */
function writeScalar(type, v) {
  switch (type) {
    case 'uint32': return `{ let x = ${v} >>> 0; ${VARINT_LOOP} }`;
    case 'int32': return `{ let x = ${v} | 0; if (x < 0) p = putNegativeInt32(buf, p, x); else { ${VARINT_LOOP} } }`;
    case 'sint32': return `{ let x = ((${v} << 1) ^ (${v} >> 31)) >>> 0; ${VARINT_LOOP} }`;
    case 'bool': return `buf[p++] = ${v} ? 1 : 0;`;
    case 'fixed32': case 'sfixed32': return `p = putFixed32(buf, p, ${v} >>> 0);`;
    case 'float': return `p = putFloat(buf, p, +${v});`;
    case 'double': return `p = putDouble(buf, p, ${v});`;
    case 'uint64': case 'int64': return withWords(v, `lo >>>= 0; hi >>>= 0; ${VARINT64_LOOP}`);
    case 'sint64': return withWords(v, 'p = putZigzag64(buf, p, lo, hi);');
    case 'fixed64': case 'sfixed64': return withWords(v, 'p = putFixed32(buf, p, lo); p = putFixed32(buf, p, hi);');
    default: throw new Error(`protobufjs-rustwriter: no scalar writer for ${type}`);
  }
}

/**
 * The statements that write `value`, a scalar or a string of `type`, with its tag: runtime.js's
 * helper of that type spelled out (a string's ASCII path, which `ascii` takes, V8 inlining it; other
 * strings through the helper).
 * @param {string} type Type (not `bytes`)
 * @param {string} value Expression of the value (evaluated once, after the tag is written, as
 * protobufjs's `w.uint32(tag).<type>(value)` evaluates it)
 * @param {number} tag Tag, or 0 for none
 * @returns {string} Code
 */
function valueCode(type, value, tag) {
  const tagLen = tagBytes(tag).length;
  if (type === 'string') {
    // Room for the longest string `ascii` writes: a one-byte length and 39 units.
    return `{ ${room(tagLen + UTF8_LOOP_MAX)} ${writeTag(tag)} const v = ${value}; const e = ascii(buf, p, v); `
      + `if (e >= 0) p = e; else { p = string(w, p, 0, v); ${RELOAD} } }`;
  }
  return `{ ${room(tagLen + MAX_BYTES[type])} ${writeTag(tag)} const v = ${value}; ${writeScalar(type, 'v')} }`;
}

/** The short paths of the packed methods (lib/writer/packed.js), as runtime.js `packed` calls them:
 * element loop of lib/writer/loops.js (null: spelled out here, `UINT32_ELEMENTS`), bound, bytes an
 * element takes at most, and whether its elements are varints (a one-byte length placeholder) or of
 * that fixed size (the length known first). 64-bit elements have none. */
const SHORT_PACKED = {
  uint32: [null, 'shortVarints()', 5, true],
  int32: ['loopInt32', 'shortVarints()', 10, true],
  sint32: ['loopSint32', 'shortVarints()', 5, true],
  fixed32: ['loopFixed32', 'SHORT', 4, false],
  sfixed32: ['loopFixed32', 'SHORT', 4, false],
  float: ['loopFloat', 'BULK_FLOATS_MIN', 4, false],
  double: ['loopDouble', 'BULK_FLOATS_MIN', 8, false],
  bool: ['loopBool', 'SHORT', 1, false],
};

/** runtime.js `packedVarints`'s loop for `uint32s`, its one- and two-byte paths first. */
const UINT32_ELEMENTS = 'for (let i = 0; i < n; ++i) { let x = a[i] >>> 0; '
  + 'if (x < 128) { buf[p++] = x; } else if (x < 16384) { buf[p] = x | 128; buf[p + 1] = x >>> 7; p += 2; } '
  + `else { ${VARINT_LOOP} } }`;

/**
 * The statements that write a packed field as protobufjs 8's `w.uint32(tag).<type>s(value)`:
 * runtime.js `packed`, spelled out.
 * @param {string} type Element type
 * @param {string} value Expression of the array (evaluated once, after the tag)
 * @param {number} tag Tag
 * @returns {string[]} Lines
 */
function packedCode(type, value, tag) {
  const head = `${room(6)} ${writeTag(tag)} const a = ${value}; const n = a.length;`;
  const long = `p = via(w, p, longPacked.${type}s, undefined, w, a, n); ${RELOAD}`;
  const short = SHORT_PACKED[type];
  if (short === undefined) return [`{ ${head} ${long} }`];
  const [loop, bound, size, varints] = short;
  const inline = varints
    ? [`${room(`1 + ${size} * n`)} const at = p - heldStart(w); buf[p++] = 0; ${loop === null ? UINT32_ELEMENTS : `p = loops.${loop}(buf, p, a, 0, n);`}`,
      `const len = p - heldStart(w) - at - 1; if (len < 128) buf[heldStart(w) + at] = len; else { p = widen(w, p, at, len); ${RELOAD} }`]
    : [`${room(`5 + ${size} * n`)} p = putVarint32(buf, p, ${size} * n); p = loops.${loop}(buf, p, a, 0, n);`];
  return [`{ ${head}`, `  if (n === n >>> 0 && n < ${bound}) {`, ...inline.map((l) => `    ${l}`), `  } else { ${long} }`, '}'];
}

/** What the statements here call, from runtime.js. */
const HELPERS = ['BITS', 'longBits', 'decimalBits', 'putZigzag64', 'heldBuffer', 'heldEnd', 'heldStart', 'growHeld', 'widen', 'via', 'ascii', 'putVarint32',
  'putNegativeInt32', 'putFixed32', 'putFloat', 'putDouble', 'longPacked', 'shortVarints', 'SHORT', 'BULK_FLOATS_MIN', 'loops'];

module.exports = { LOCALS, RELOAD, HELPERS, SPELLED, valueCode, packedCode, room, writeTag };
