'use strict';

/**
 * What a result `Buffer` costs to make, per way of making an 80-byte view of a 64 KiB slab, and
 * whether the way gives `Buffer.prototype` (so that the result deep-equals any other `Buffer`):
 *
 *   node bench/probes/results.js [millions of views, default 20]
 *
 * lib/writer/region.js makes results with `Buffer[Symbol.species]` (Node's own `FastBuffer`).
 */

const MILLIONS = Number(process.argv[2] || 20);
const COUNT = MILLIONS * 1e6;
const ROUNDS = 5;
const VIEW_BYTES = 80;

const slab = Buffer.allocUnsafeSlow(64 * 1024);
const arrayBuffer = slab.buffer;
const FastBuffer = Buffer[Symbol.species];
/** The way results were made before: a subclass whose prototype only inherits from Buffer's. */
class Subclass extends Uint8Array {}
Object.setPrototypeOf(Subclass.prototype, Buffer.prototype);

const WAYS = [
  ['new Uint8Array(ab, off, n) (no Buffer methods)', (off) => new Uint8Array(arrayBuffer, off, VIEW_BYTES)],
  ['new Buffer[Symbol.species](ab, off, n)', (off) => new FastBuffer(arrayBuffer, off, VIEW_BYTES)],
  ['new Subclass(ab, off, n), prototype chained to Buffer\'s', (off) => new Subclass(arrayBuffer, off, VIEW_BYTES)],
  ['Buffer.from(ab, off, n)', (off) => Buffer.from(arrayBuffer, off, VIEW_BYTES)],
  ['slab.subarray(off, off + n)', (off) => slab.subarray(off, off + VIEW_BYTES)],
  ['Object.setPrototypeOf(new Uint8Array(...), Buffer.prototype)', (off) => Object.setPrototypeOf(new Uint8Array(arrayBuffer, off, VIEW_BYTES), Buffer.prototype)],
];

let sink = 0;
for (const [name, make] of WAYS) {
  const times = [];
  for (let round = 0; round < ROUNDS; ++round) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < COUNT; ++i) sink += make((i & 511) * 8).length;
    times.push(Number(process.hrtime.bigint() - start) / COUNT);
  }
  times.sort((a, b) => a - b);
  const proto = Object.getPrototypeOf(make(0)) === Buffer.prototype;
  process.stdout.write(`${name.padEnd(64)} ${times[ROUNDS >> 1].toFixed(1).padStart(6)} ns  (min ${times[0].toFixed(1)})  ` +
    `Buffer.prototype: ${proto ? 'yes' : 'no'}\n`);
}
if (sink === 0) process.stdout.write('\n');
