'use strict';

/**
 * The one benchmark wrapper: proves that every checked contender produces the reference's bytes
 * (the first contender's), then times them all in this process, then checks the bytes again (a
 * writer whose state drifts over many ops fails here). Contenders that produce no bytes to check
 * (the breakdown's null writer and recording-only RustWriter) are timed alike.
 *
 * Timing is interleaved in rounds: each round times every contender once, briefly (one
 * benchmark.js suite), and a contender's result is its median over the rounds. The machines this
 * runs on change speed by tens of percent over minutes; timing each contender in one long block
 * turned that drift into ratios that moved by 2x between runs, while contenders timed side by
 * side in every round see the same machine.
 *
 * Every benchmark starts after a full GC, so that no contender pays for collecting garbage an
 * earlier one left (promoted to the old generation, which a later major GC would charge to
 * whoever runs then); the garbage a contender makes while it is timed is its own cost. The
 * process runs with Node's default flags: `gc()` comes from a new context (below), not from
 * `--expose-gc`.
 */

const Benchmark = require('benchmark');
const v8 = require('v8');
const vm = require('vm');

/**
 * benchmark.js options per contender and round. maxTime is the sampling time (s) after which
 * benchmark.js stops once minSamples are in; each benchmark also spends ~0.4 s compiling and
 * calibrating its loop (measured on 2 cores), so a benchmark takes ~0.8 s (bench/progress.js
 * estimates a run from that). 94 benchmarks × ROUNDS, plus the allocation child processes (~5 s a
 * case), keep `npm run bench` near 8 minutes on 2 idle cores. (Before the breakdown contenders
 * there were 36 benchmarks with 0.6 s of sampling: 3 minutes.)
 */
const BENCH_OPTIONS = { minSamples: 5, maxTime: 0.4 };
/** Rounds of timing per case (odd, for a median). */
const ROUNDS = 5;
/** Bytes of context shown around the first differing byte. */
const DIFF_CONTEXT = 8;

/**
 * V8's full GC. Setting --expose-gc at run time makes V8 install `gc` in contexts created
 * afterwards only, so the benchmarked code's own context stays as under default flags.
 */
const collectGarbage = typeof globalThis.gc === 'function' ? globalThis.gc : exposeGc();

/**
 * `gc` of a new context, after setting --expose-gc.
 * @returns {Function} gc
 */
function exposeGc() {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/**
 * Where two outputs first differ, for a failure message.
 * @param {{name: string, bytes: Buffer}} reference Reference contender and its bytes
 * @param {{name: string, bytes: Buffer}} other Other contender and its bytes
 * @returns {string} Description
 */
function describeDiff(reference, other) {
  const [expected, actual] = [reference.bytes, other.bytes];
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at += 1;
  const around = (buf) => buf.subarray(Math.max(0, at - DIFF_CONTEXT), at + DIFF_CONTEXT).toString('hex');
  return `${other.name} gives ${actual.length} bytes, ${reference.name} ${expected.length}; first difference at ` +
    `byte ${at} (${reference.name} …${around(expected)}…, ${other.name} …${around(actual)}…)`;
}

/**
 * Runs every checked contender once and compares its bytes with the reference's.
 * @param {Array<{name: string, checked: boolean, fn: () => Uint8Array}>} contenders Reference first
 * @param {string} when 'before timing' or 'after timing'
 * @returns {{bytes: number, error: string|null}} Reference length, and the first mismatch
 */
function checkBytes(contenders, when) {
  const [first, ...others] = contenders.filter((c) => c.checked);
  const reference = { name: first.name, bytes: Buffer.from(first.fn()) };
  for (const { name, fn } of others) {
    const other = { name, bytes: Buffer.from(fn()) };
    if (!reference.bytes.equals(other.bytes)) return { bytes: reference.bytes.length, error: `${when}: ${describeDiff(reference, other)}` };
  }
  return { bytes: reference.bytes.length, error: null };
}

/**
 * Checks the bytes, times every contender, checks the bytes again.
 * @param {string} name Case name
 * @param {Array<{key: string, name: string, checked: boolean, fn: () => *}>} contenders Reference first
 * @returns {{bytes: number, error: string|null, results: Array<{key: string, name: string, hz: number,
 *   rme: number, samples: number}>}} Results in contender order (none if the bytes differ)
 */
function runCase(name, contenders) {
  const before = checkBytes(contenders, 'before timing');
  if (before.error) return { ...before, results: [] };
  const rounds = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const suite = new Benchmark.Suite(name);
    for (const { name: who, fn } of contenders) {
      suite.add(who, fn, { ...BENCH_OPTIONS, onStart: () => collectGarbage() });
    }
    suite.run({ async: false });
    const thrown = Array.from(suite).find((bench) => bench.error);
    if (thrown) return { bytes: before.bytes, error: `while timing ${thrown.name}: ${thrown.error}`, results: [] };
    Array.from(suite).forEach((bench, i) => rounds[i].push(bench));
  }
  const results = rounds.map((benches, i) => {
    const byHz = benches.slice().sort((a, b) => a.hz - b.hz);
    const median = byHz[byHz.length >> 1];
    return {
      key: contenders[i].key,
      name: contenders[i].name,
      hz: median.hz,
      // The larger of the median round's own error and the spread between rounds.
      rme: Math.max(median.stats.rme, (100 * (byHz[byHz.length - 1].hz - byHz[0].hz)) / 2 / median.hz),
      samples: benches.reduce((sum, bench) => sum + bench.stats.sample.length, 0),
    };
  });
  const after = checkBytes(contenders, 'after timing');
  return { ...after, results: after.error ? [] : results };
}

module.exports = { runCase, BENCH_OPTIONS, ROUNDS };
