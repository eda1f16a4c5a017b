'use strict';

/**
 * What both fuzzers (fuzz/js/, fuzz/schemas/) describe and compare alike: numbers in a description
 * (as JSON keeps them: -0, NaN and the infinities as strings), seeded typed-array elements, and the
 * class of what a call threw. The functions here, like tools/seeded.js's `prng`, use nothing from
 * outside them: the fuzzers print their sources into the reproduction scripts they write.
 */

/**
 * @param {number} v Number
 * @returns {object} Its description
 */
function num(v) {
  if (Object.is(v, -0)) return { k: 'num', v: '-0' };
  return { k: 'num', v: Number.isFinite(v) ? v : String(v) };
}

/**
 * @param {object} d A `num` description
 * @returns {number} Its number
 */
function numValue(d) {
  if (typeof d.v === 'number') return d.v;
  return d.v === '-0' ? -0 : Number(d.v);
}

/**
 * Element `i` of seeded typed-array data.
 * @param {function(): number} r Seeded generator (tools/seeded.js `prng`)
 * @param {string} dist `small` (0..127), `word` (any 32 bits), `edge` (varint length edges),
 * `float` (with NaN, -0, ±Infinity, tiny and huge values), `big` (64-bit BigInts)
 * @returns {number|bigint} Element
 */
function element(r, dist) {
  const x = r();
  switch (dist) {
    case 'small': return Math.floor(x * 128);
    case 'word': return Math.floor(x * 4294967296) - 2147483648;
    case 'edge': {
      const k = 1 + Math.floor(x * 5);
      return 2 ** (7 * k) - (r() < 0.5 ? 1 : 0) - (r() < 0.3 ? 2 ** 31 : 0);
    }
    case 'float': {
      const y = r();
      if (y < 0.05) return NaN;
      if (y < 0.1) return -0;
      if (y < 0.13) return r() < 0.5 ? Infinity : -Infinity;
      if (y < 0.2) return (r() - 0.5) * 1e-40;
      return (r() - 0.5) * 2 ** Math.floor(r() * 80);
    }
    default:
      return BigInt.asIntN(64, (BigInt(Math.floor(x * 4294967296)) << 32n) | BigInt(Math.floor(r() * 4294967296)));
  }
}

/**
 * @param {*} err Anything thrown
 * @returns {string} Its class name
 */
function className(err) {
  if (err === null || typeof err !== 'object') return `non-object ${typeof err}`;
  return err.constructor && err.constructor.name ? err.constructor.name : 'object';
}

module.exports = { num, numValue, element, className };
