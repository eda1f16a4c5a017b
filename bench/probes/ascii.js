'use strict';

/**
 * What writing a short ASCII string costs the compiled encoders, per length: their inline loop (one
 * `charCodeAt` and one store a unit, lib/encoders/compile.js `valueCode`) against one
 * `Buffer#utf8Write` with room for three bytes a unit, whose count equals the length exactly when
 * every unit was ASCII (any other unit takes two or three bytes), so that the loop's bytes are known
 * to be written. Each for flat strings (sequential, as `join`, `JSON.parse` and decoding make them)
 * and for slices of longer strings (what `slice` and `substring` return from 13 units on: a view of
 * the parent string): on Node 22–26 `utf8Write` is fast for sequential strings only.
 *
 *   node bench/probes/ascii.js [rounds]
 *
 * Prints ns per string for each length, the median of `rounds` (default 7) timings of 2^20 strings.
 */

const { Buffer } = require('buffer');

const ROUNDS = Number(process.argv[2] || 7);
const LENGTHS = [8, 12, 16, 20, 24, 28, 32, 39];
const STRINGS = 64;
const OPS = 1 << 20;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/**
 * `count` different ASCII strings of `length` units.
 * @param {number} length Units
 * @param {number} count Strings
 * @param {boolean} flat Sequential strings (a `JSON.parse` of each), else slices of longer ones
 * @returns {string[]} Strings
 */
function strings(length, count, flat) {
  return Array.from({ length: count }, (_, k) => {
    let s = `${k}`;
    for (let i = k; s.length <= length; ++i) s += ` ${WORDS[i % WORDS.length]}`;
    const slice = s.slice(0, length);
    return flat ? JSON.parse(JSON.stringify(slice)) : slice;
  });
}

/** The two ways, as source: the compiled encoders' loop, and one `utf8Write` with its count compared
 * with the length. Each returns the position after the string, or -1 at a unit that is not ASCII. */
const WAYS = {
  loop: `const n = v.length; let i = 0;
    for (; i < n; ++i) { const c = v.charCodeAt(i); if (c >= 128) break; buf[p + 1 + i] = c; }
    if (i !== n) return -1; buf[p] = n; return p + 1 + n;`,
  utf8Write: 'const n = v.length; if (buf.utf8Write(v, p + 1, 3 * n) !== n) return -1; buf[p] = n; return p + 1 + n;',
};

/**
 * A timing function of its own for one way, length and kind of string, which returns ns per string
 * over `list`: V8 shares type feedback between functions of one source (docs/benchmark.md,
 * "Timing"), and a loop that had seen slices would read flat strings differently.
 * @param {string} way Key of {@link WAYS}
 * @param {string} label Unique per function
 * @returns {function(string[]): number} Timer
 */
function timer(way, label) {
  return new Function('Buffer', 'OPS', 'STRINGS', `// ${label}
    const write = (buf, p, v) => { ${WAYS[way]} };
    return function time(list) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      let p = 0;
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < OPS; ++k) {
        p = write(buf, p, list[k & (STRINGS - 1)]);
        if (p > 60 * 1024) p = 0;
      }
      return Number(process.hrtime.bigint() - t0) / OPS;
    };`)(Buffer, OPS, STRINGS);
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

console.log(`Node ${process.versions.node}: ns per ASCII string, median of ${ROUNDS} rounds`);
console.log('        flat             sliced');
console.log('units   loop  utf8Write  loop  utf8Write');
const cell = (times, width) => median(times).toFixed(1).padStart(width);
for (const length of LENGTHS) {
  const row = [String(length).padStart(5)];
  for (const flat of [true, false]) {
    const list = strings(length, STRINGS, flat);
    const label = `${length} ${flat ? 'flat' : 'sliced'}`;
    const timeLoop = timer('loop', label);
    const timeCall = timer('utf8Write', label);
    const loopTimes = [];
    const callTimes = [];
    for (let r = 0; r < ROUNDS; ++r) {
      loopTimes.push(timeLoop(list));
      callTimes.push(timeCall(list));
    }
    row.push(cell(loopTimes, 6), cell(callTimes, 10));
  }
  console.log(row.join(' '));
}
