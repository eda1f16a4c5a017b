'use strict';

/**
 * Leak check: `node --expose-gc test/long/leak.js [encodes] [--plant-leak BYTES]` (default
 * 10,000,000 encodes) runs mixed encodes of ten shapes (every path: slab views, the large buffer,
 * references, nested, native packed runs; results kept briefly, writers abandoned unfinished now and
 * then) in one synchronous loop. Memory (after full GCs) is sampled after warm-up and at every
 * tenth of the run, three ways: the live JS heap (`heapUsed`), V8's external memory (every
 * ArrayBuffer), and the RSS outside V8's heap reservation (RSS − `heapTotal`: native memory, Rust's
 * blocks included). V8 grows its young generation under allocation pressure (`heapTotal` from ~8 to
 * ~37 MB here) and keeps those pages, which is sizing, not a leak, and what the live heap shows. It
 * fails if any of the three ever exceeds its level after warm-up by more than LIMIT_MB, or grows over
 * the second half of the run by more than TREND_MB: a plateau passes (its samples differ by up to
 * ~6 MB), a leak does not.
 *
 * Sensitivity: a leak of L bytes per encode grows memory by L × encodes / 2 over the second half, so
 * the run catches L > TREND_MB / (encodes / 2), and the script prints that figure. `npm test`
 * (test/limits.test.js) runs 1,000,000 encodes: 42 bytes per encode on average, so a leak of 1 KB in
 * every encode of any one of the ten shapes (102 bytes per encode on average, 49 MiB over the second
 * half) is caught with a margin of 2.4; `npm run test:long` runs 10 million (4 bytes per encode).
 * `--plant-leak BYTES` (for the test of the check itself) keeps BYTES of JS array (doubles) and BYTES
 * of `Buffer` alive for every encode of one shape in ten, which the check must catch in all three.
 */

const assert = require('assert');
const { RustWriter } = require('../..');

const args = process.argv.slice(2);
const plantAt = args.indexOf('--plant-leak');
/** Test-only: bytes kept alive, as a JS array of doubles and as a Buffer, per encode of one shape in ten. */
const PLANTED = plantAt >= 0 ? Number(args.splice(plantAt, 2)[1]) : 0;
const ENCODES = Number(args[0] || 1e7);
assert.ok(Number.isSafeInteger(ENCODES / 10) && ENCODES > 0, 'the number of encodes must be a positive multiple of 10');
assert.ok(Number.isSafeInteger(PLANTED) && PLANTED >= 0, '--plant-leak takes a number of bytes');
/** Growth allowed over the warmed-up level (V8's heap and the slabs settle during the first
 * million encodes: ~+35 MB RSS on Node 20, then flat). */
const LIMIT_MB = 50;
/** Growth allowed from the middle of the run to its end (samples of a plateau differ by ~5 MB). */
const TREND_MB = 20;
const WARM_UP = Math.min(200000, ENCODES / 10);

const blob = Buffer.alloc(8000, 3);
const packed = Uint32Array.from({ length: 2000 }, (_, i) => i * 2654435761);
const recent = new Array(64).fill(null);
/** What `--plant-leak` keeps alive. */
const planted = [];

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
    case 4:
      if (PLANTED > 0) planted.push(new Array(PLANTED >> 3).fill(i + 0.5), Buffer.alloc(PLANTED, i)); // 8-byte doubles
      return w.uint32(10).bytes(blob).uint32(16).uint32(i).finish();
    case 5: return w.uint32(10).uint32s(packed).finish();
    case 6: w.uint32(10).fork().string('abandoned'); return null; // never finished
    case 7: { const out = w.uint32(1).finish(); w.uint32(2).finish(); return out; }
    default: return w.uint32(8).sint64(-i).double(i / 3).bool(true).finish();
  }
}

/** @returns {{heap: number, external: number, native: number, rss: number}} Current memory in
 * MB, after two full GCs: V8 frees a collected ArrayBuffer's memory on a background thread after
 * the GC that found it dead, and the next GC waits for that. After one, `external` still held some
 * of the freed results (Node 24: samples 35 to 153 MB with a planted leak, whose second half then
 * grew by less than TREND_MB in one CI run); after two, it is exact (planted: +9.8 MB a tenth on
 * Node 20, 24 and 26; without: the same to 0.1 MB at every tenth). */
function memory() {
  if (global.gc) {
    global.gc();
    global.gc();
  }
  const { rss, external, heapUsed, heapTotal } = process.memoryUsage();
  const mb = (bytes) => bytes / 1048576;
  return { heap: mb(heapUsed), external: mb(external), native: mb(rss - heapTotal), rss: mb(rss) };
}

for (let i = 0; i < WARM_UP; i++) recent[i & 63] = encode(i);
const before = memory();
const samples = [];
const started = Date.now();
for (let i = 0; i < ENCODES; i++) {
  recent[i & 63] = encode(i);
  if ((i + 1) % (ENCODES / 10) === 0) samples.push(memory());
}
const seconds = (Date.now() - started) / 1000;
const mb = (values) => values.map((v) => v.toFixed(1)).join(' ');
process.stdout.write(`${ENCODES} encodes in ${seconds.toFixed(1)} s; after warm-up: live heap ${before.heap.toFixed(1)} MB, ` +
  `external ${before.external.toFixed(1)} MB, RSS outside V8's heap ${before.native.toFixed(1)} MB (RSS ${before.rss.toFixed(1)} MB); ` +
  `at each tenth: live heap ${mb(samples.map((m) => m.heap))} MB, external ${mb(samples.map((m) => m.external))} MB, ` +
  `RSS outside V8's heap ${mb(samples.map((m) => m.native))} MB (RSS ${mb(samples.map((m) => m.rss))} MB); ` +
  `limits +${LIMIT_MB} MB, +${TREND_MB} MB over the second half\n`);
const sensitivity = (TREND_MB * 1048576) / (ENCODES / 2);
process.stdout.write(`sensitivity: a leak of more than ${sensitivity.toFixed(0)} bytes per encode on average, ` +
  `${(10 * sensitivity).toFixed(0)} per encode of one shape in ten` +
  `${PLANTED ? `; planted: ${PLANTED} bytes of JS array and of Buffer per encode of one shape in ten` : ''}\n`);
const middle = samples[4];
const last = samples[9];
const failures = [];
for (const key of ['heap', 'external', 'native']) {
  const peak = Math.max(...samples.map((m) => m[key]));
  if (peak - before[key] >= LIMIT_MB) failures.push(`${key} grew by ${(peak - before[key]).toFixed(1)} MB after warm-up`);
  if (last[key] - middle[key] >= TREND_MB) failures.push(`${key} grew by ${(last[key] - middle[key]).toFixed(1)} MB over the second half`);
}
assert.deepStrictEqual(failures, [], failures.join('; '));
