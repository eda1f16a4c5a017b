'use strict';

/**
 * Probe behind `jsReplayMaxWords` in index.js: the cost of `finish()` for tapes of a growing
 * number of records, replayed in JS and natively, interleaved in one benchmark.js run. Each
 * encode is a fresh writer with `records` small fields, like the scalar part of a message.
 *
 *   node bench/probe-replay.js [records...]
 */

const Benchmark = require('benchmark');
const { RustWriter, _testing } = require('..');

const RECORDS = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [2, 8, 16, 24, 32, 48];

/**
 * Writes `records` records (a tag, a value, a short string every fourth) through a new writer.
 * @param {number} records Records (tags count as records)
 * @returns {RustWriter} Writer
 */
function record(records) {
  const w = RustWriter.create();
  for (let i = 0; i < records; i += 2) {
    if ((i & 7) === 6) w.uint32(((i + 1) << 3) | 2).string('abcdefg');
    else w.uint32((i + 1) << 3).uint32(i * 37);
  }
  return w;
}

for (const records of RECORDS) {
  const probe = record(records);
  const words = probe._n - probe._s;
  const suite = new Benchmark.Suite();
  suite.add(`${records} records (${words} words), JS replay`, () => record(records).finish(),
    { onStart: () => _testing.setJsReplayMaxWords(1 << 16) });
  suite.add(`${records} records (${words} words), native replay`, () => record(records).finish(),
    { onStart: () => _testing.setJsReplayMaxWords(0) });
  suite.on('cycle', (event) => {
    process.stdout.write(`${String(event.target).padEnd(70)} ${(1e9 / event.target.hz).toFixed(0)} ns\n`);
  });
  suite.run();
}
