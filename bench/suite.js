'use strict';

/**
 * The one benchmark wrapper: proves that contenders sharing a `same` key produce identical bytes,
 * then times them all interleaved in one benchmark.js suite and reports ops/s and the ratio to
 * the first (the reference).
 */

const assert = require('assert');
const Benchmark = require('benchmark');

/**
 * @param {string} name Case name
 * @param {Array<{name: string, same: string, fn: () => Uint8Array}>} contenders The first is the
 *   reference; those with the same `same` key must produce the same bytes
 * @returns {{name: string, results: Array<{name: string, hz: number, rme: number, ratio: number}>}}
 */
function runCase(name, contenders) {
  const reference = Buffer.from(contenders[0].fn());
  const firstOfGroup = new Map();
  for (const { name: who, same, fn } of contenders) {
    const bytes = Buffer.from(fn());
    if (!firstOfGroup.has(same)) firstOfGroup.set(same, { who, bytes });
    const first = firstOfGroup.get(same);
    assert.ok(first.bytes.equals(bytes), `${name}: ${who} must produce the same bytes as ${first.who}`);
  }
  const suite = new Benchmark.Suite(name);
  for (const { name: who, fn } of contenders) suite.add(who, fn, { minSamples: 20 });
  suite.run({ async: false });
  const hz = Array.from(suite, (bench) => bench.hz);
  const results = Array.from(suite, (bench, i) => ({
    name: contenders[i].name,
    hz: bench.hz,
    rme: bench.stats.rme,
    ratio: bench.hz / hz[0],
  }));
  process.stdout.write(`\n${name} (${reference.length} bytes)\n`);
  for (const r of results) {
    process.stdout.write(`  ${r.name.padEnd(28)} ${Math.round(r.hz).toLocaleString('en-US').padStart(12)} ops/s ` +
      `±${r.rme.toFixed(1).padStart(4)}%  ${r.ratio.toFixed(2)}x\n`);
  }
  return { name, bytes: reference.length, results };
}

module.exports = { runCase };
