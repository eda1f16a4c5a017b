'use strict';

/**
 * What a 64-bit varint of a `Long`'s words costs the compiled encoders: their two loops
 * (lib/encoders/compile.js `withWords`: seven bits a step while the high word is non-zero, then
 * while the low word is over 127) against a spelling without a loop: one and two bytes first, then
 * the length from `Math.clz32`, the first five bytes stored (the other five only past 35 bits) and
 * the last byte's high bit cleared. Both make the same bytes (checked first). Values: the vector
 * tile's feature ids (bench/data-modelled.js: 1 to 12e9, nearly all five bytes, two in three with
 * a high word), ids below 1,000 (one or two bytes) and values of every bit length up to 63.
 *
 *   node bench/probes/varint64.js [rounds]
 *
 * Prints ns per value for each way and kind of value, the median of `rounds` (default 7) timings
 * of 3,400 values (the tile's features) written 2,000 times.
 */

const Long = require('long');
const { prng } = require('../../tools/seeded');

const ROUNDS = Number(process.argv[2] || 7);
const COUNT = 3400;
const REPEAT = 2000;

/** Kinds of values: each makes one `Long` from the prng. */
const KINDS = {
  'tile ids': (r) => Long.fromNumber(1 + Math.floor(r() * 12e9), true),
  'ids below 1,000': (r) => Long.fromNumber(1 + Math.floor(r() * 999), true),
  'bit lengths 0-63': (r) => Long.fromNumber(Math.floor(2 ** (r() * 63)), true),
};

/** The ways, as source: each writes the varint of `lo`, `hi` (uint32 words) at `p`, and ends with
 * `p` past it. */
const WAYS = {
  loops: `lo >>>= 0; hi >>>= 0;
      while (hi) { buf[p++] = (lo & 127) | 128; lo = ((lo >>> 7) | (hi << 25)) >>> 0; hi >>>= 7; }
      while (lo > 127) { buf[p++] = (lo & 127) | 128; lo >>>= 7; }
      buf[p++] = lo;`,
  'length first': `if (hi === 0 && lo >>> 0 < 128) { buf[p++] = lo; }
      else if (hi === 0 && lo >>> 0 < 16384) { buf[p] = lo | 128; buf[p + 1] = lo >>> 7; p += 2; } else {
        const n = LENGTH[hi !== 0 ? 64 - Math.clz32(hi) : 32 - Math.clz32(lo)];
        buf[p] = lo | 128; buf[p + 1] = (lo >>> 7) | 128; buf[p + 2] = (lo >>> 14) | 128; buf[p + 3] = (lo >>> 21) | 128;
        buf[p + 4] = (lo >>> 28) | (hi << 4) | 128;
        if (n > 5) { buf[p + 5] = (hi >>> 3) | 128; buf[p + 6] = (hi >>> 10) | 128; buf[p + 7] = (hi >>> 17) | 128; buf[p + 8] = (hi >>> 24) | 128; buf[p + 9] = hi >>> 31; }
        buf[p + n - 1] &= 127;
        p += n;
      }`,
};

/** Bytes of a varint of so many significant bits. */
const LENGTH = Uint8Array.from({ length: 65 }, (_, bits) => Math.max(1, Math.ceil(bits / 7)));

/**
 * A function of its own for one way and kind (V8 shares feedback between functions of one source:
 * docs/benchmark.md, "Timing"): writes every value's varint into `buf`, reading its words as the
 * compiled encoders read a `Long`'s, and returns the position after the last.
 * @param {string} way Key of {@link WAYS}
 * @param {string} label Unique per function
 * @returns {function(Uint8Array, Long[]): number} Writer
 */
function writer(way, label) {
  return new Function('LENGTH', `// ${label}
    return function (buf, values) {
      let p = 0;
      for (let i = 0; i < values.length; ++i) {
        const v = values[i];
        let lo, hi;
        if (v.low || v.high) { lo = v.low | 0; hi = v.high | 0; } else { lo = 0; hi = 0; }
        ${WAYS[way]}
      }
      return p;
    };`)(LENGTH);
}

/**
 * @param {number[]} xs Numbers
 * @returns {number} Their median
 */
function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Times each way on each kind of value, and checks their bytes.
 * @returns {undefined}
 */
function main() {
  console.log(`${process.version}: ns per 64-bit varint, median of ${ROUNDS} rounds of ${COUNT} values x ${REPEAT}`);
  const buf = new Uint8Array(COUNT * 10);
  for (const [kind, make] of Object.entries(KINDS)) {
    const r = prng(64);
    const values = Array.from({ length: COUNT }, () => make(r));
    const writers = Object.keys(WAYS).map((way) => [way, writer(way, `${way}, ${kind}`)]);
    let expected = null;
    for (const [way, write] of writers) {
      const bytes = Buffer.from(buf.subarray(0, write(buf, values)));
      if (expected === null) expected = bytes;
      else if (!bytes.equals(expected)) throw new Error(`${way} wrote other bytes than ${writers[0][0]} for ${kind}`);
    }
    const times = new Map(writers.map(([way]) => [way, []]));
    for (let round = 0; round < ROUNDS; ++round) {
      for (const [way, write] of writers) {
        const t = process.hrtime.bigint();
        for (let k = 0; k < REPEAT; ++k) write(buf, values);
        times.get(way).push(Number(process.hrtime.bigint() - t) / (REPEAT * COUNT));
      }
    }
    console.log(`${kind.padEnd(18)} ${writers.map(([way]) => `${way} ${median(times.get(way)).toFixed(2)}`).join('   ')}`);
  }
}

main();
