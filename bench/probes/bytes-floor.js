'use strict';

/**
 * The `bytes` case (10 blobs of 64 KB) against its floor: one result `Buffer` of the message's
 * size and one copy of each blob into it, which every writer must do. Times protobufjs 8.8.1,
 * protobufjs 7.6.6, RustWriter and the floor in one process, round after round, and prints each
 * one's median and fastest µs per op.
 *
 *   node bench/probes/bytes-floor.js [rounds]
 */

const { CASES, prepareCase } = require('../cases');
const { blobs } = require('../data');
const { prng } = require('../../tools/seeded');

const rounds = Number(process.argv[2] || 15);
const c = CASES.find((x) => x.id === 'bytes');
const ops = Object.fromEntries(prepareCase(c, null, ['pbjs8', 'pbjs7', 'rust']).map((x) => [x.key, x.fn]));
const input = blobs(prng(42)).blobs;
const size = input.reduce((n, b) => n + 4 + b.length, 0); // tag and 3-byte length, then the blob
ops.floor = () => {
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  for (const b of input) {
    out[p] = 10;
    out.set(b, p + 4);
    p += 4 + b.length;
  }
  return out;
};

/**
 * @param {function(): *} op The op
 * @param {number} n Times
 * @returns {number} µs per op
 */
function time(op, n) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; ++i) op();
  return Number(process.hrtime.bigint() - t) / n / 1000;
}

const keys = Object.keys(ops);
for (const k of keys) time(ops[k], 300);
const times = Object.fromEntries(keys.map((k) => [k, []]));
for (let r = 0; r < rounds; ++r) for (const k of keys) times[k].push(time(ops[k], 200));
for (const k of keys) {
  const t = times[k].sort((a, b) => a - b);
  process.stdout.write(`${k.padEnd(6)} median ${t[t.length >> 1].toFixed(1)} µs, fastest ${t[0].toFixed(1)} µs\n`);
}
