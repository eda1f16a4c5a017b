'use strict';

/**
 * Long leak check: `node --expose-gc test/long/leak.js [encodes]` (default 10,000,000) runs
 * mixed encodes (every replay path: JS pool, slab, scratch + writeInto, references, nested,
 * packed; results kept briefly, writers abandoned unfinished now and then) in one synchronous
 * loop, and fails if RSS or external memory after the run exceeds the level after warm-up by
 * more than LIMIT_MB. test/limits.test.js runs a short version; `npm run test:long` the long one.
 */

const assert = require('assert');
const { RustWriter } = require('../..');

const ENCODES = Number(process.argv[2] || 1e7);
/** Growth allowed over the warmed-up level. */
const LIMIT_MB = 50;
const WARM_UP = Math.min(200000, ENCODES / 10);

const blob = Buffer.alloc(8000, 3);
const packed = Uint32Array.from({ length: 2000 }, (_, i) => i * 2654435761);
const recent = new Array(64).fill(null);

/**
 * Encodes message `i`, a different shape by its last digit.
 * @param {number} i Index
 * @returns {Buffer|null} Result
 */
function encode(i) {
  const w = RustWriter.create();
  switch (i % 10) {
    case 0: return w.uint32(8).uint32(i).uint32(18).string('tiny').finish();
    case 1: for (let k = 0; k < 20; k++) w.uint32(10).string(`field ${k}`).uint32(16).int32(-k); return w.finish();
    case 2: return w.uint32(10).fork().uint32(8).uint64(i).fork().string('nested').ldelim().ldelim().finish();
    case 3: return w.uint32(10).string('L'.repeat(20000)).finish();
    case 4: return w.uint32(10).bytes(blob).uint32(16).uint32(i).finish();
    case 5: return w.uint32(10).uint32s(packed).finish();
    case 6: w.uint32(10).fork().string('abandoned'); return null; // never finished
    case 7: { const out = w.uint32(1).finish(); w.uint32(2).finish(); return out; }
    default: return w.uint32(8).sint64(-i).double(i / 3).bool(true).finish();
  }
}

/** @returns {{rss: number, external: number}} Current memory in MB, after a full GC */
function memory() {
  if (global.gc) global.gc();
  const { rss, external } = process.memoryUsage();
  return { rss: rss / 1048576, external: external / 1048576 };
}

for (let i = 0; i < WARM_UP; i++) recent[i & 63] = encode(i);
const before = memory();
const started = Date.now();
for (let i = 0; i < ENCODES; i++) recent[i & 63] = encode(i);
const after = memory();
const line = (m) => `RSS ${m.rss.toFixed(1)} MB, external ${m.external.toFixed(1)} MB`;
process.stdout.write(`${ENCODES} encodes in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
  `after warm-up: ${line(before)}; after: ${line(after)}; limit +${LIMIT_MB} MB\n`);
assert.ok(after.rss - before.rss < LIMIT_MB, `RSS grew by ${(after.rss - before.rss).toFixed(1)} MB`);
assert.ok(after.external - before.external < LIMIT_MB, `external memory grew by ${(after.external - before.external).toFixed(1)} MB`);
