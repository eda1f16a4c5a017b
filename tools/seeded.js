'use strict';

/**
 * The seeded generator that the tests, the benchmark, its probes and the fuzzers share: the same seed
 * gives the same data on every machine and Node line. It loads nothing, so that a process that must
 * not load protobufjs or this package (bench/apps/'s "protobufjs alone") can use it too.
 */

/**
 * A generator of numbers in [0, 1) from `seed` (mulberry32), with `int(n)`, an integer in [0, n),
 * and `pick(list)`, one of its elements.
 * @param {number} seed Seed (taken as an unsigned 32-bit integer)
 * @returns {{(): number, int: (n: number) => number, pick: (list: Array) => *}} Generator
 */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

module.exports = { prng };
