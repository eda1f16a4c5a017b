'use strict';

/**
 * The one benchmark wrapper: proves that every checked contender produces the reference's bytes
 * (the first contender's), then times them all, then checks the bytes again (a writer whose state
 * drifts over many ops fails here). Contenders that produce no bytes to check (the breakdown's
 * null writer and recording-only RustWriter) are timed alike. Each contender runs in a process of
 * its own (bench/worker.js), started before the first check and ended after the last.
 *
 * Every contender is warmed first (WARM_MS), one after the other. Timing is interleaved in rounds:
 * each round times every contender once, briefly (one benchmark.js benchmark in its process, the
 * others idle meanwhile), and a contender's result is its median over the rounds. The machines
 * this runs on change speed by tens of percent over minutes; timing each contender in one long
 * block turned that drift into ratios that moved by 2x between runs, while contenders timed side
 * by side in every round see the same machine.
 */

const { Worker } = require('./worker');
const { EVERYDAY } = require('./targets');

/** Rounds of timing per case (odd, for a median). */
const ROUNDS = 5;
/**
 * Rounds of the cases the geometric-mean targets rest on (bench/targets.js EVERYDAY). Over 5 rounds a
 * ratio of medians moved by up to a quarter from one run to the next: `node bench/probes/rounds.js`
 * at b3ab85e (Node 26) gave common 1.56, 1.23 and 1.67 over three blocks of 5 rounds, 1.63 over all
 * 15. A median over more rounds moves less.
 */
const TARGET_ROUNDS = 11;
/**
 * CPU milliseconds each contender runs its op before the first round. Without it the first rounds
 * timed code V8 had not optimized yet: under Node 26 RustWriter's compiled encoder of the tile took
 * 366 and 344 µs in rounds 1 and 2 and 316–322 µs from round 3 on, protobufjs 8.8.1 591 and 585 µs,
 * then 555–564 µs (each round's time per op, with WARM_MS at 0: the processes had run a single op).
 */
const WARM_MS = 1000;
/** Bytes of context shown around the first differing byte. */
const DIFF_CONTEXT = 8;

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
 * Runs every contender once and compares each checked one's bytes with the reference's.
 * @param {Worker[]} workers Reference first
 * @param {string} when 'before timing' or 'after timing'
 * @returns {Promise<{bytes: number, error: string|null}>} Reference length, and the first mismatch
 */
async function checkBytes(workers, when) {
  const outputs = [];
  for (const worker of workers) outputs.push({ name: worker.name, bytes: await worker.bytes() });
  const [reference, ...others] = outputs.filter((output) => output.bytes !== null);
  for (const other of others) {
    if (!reference.bytes.equals(other.bytes)) return { bytes: reference.bytes.length, error: `${when}: ${describeDiff(reference, other)}` };
  }
  return { bytes: reference.bytes.length, error: null };
}

/**
 * @param {string} id Case id
 * @returns {number} Rounds of timing for the case: TARGET_ROUNDS or ROUNDS
 */
function roundsOf(id) {
  return EVERYDAY.includes(id) ? TARGET_ROUNDS : ROUNDS;
}

/**
 * Checks the bytes, times every contender, checks the bytes again, each contender in its process.
 * @param {string} id Case id
 * @param {Array<{key: string, name: string, checked?: boolean}>} contenders Entries of bench/cases.js
 *   CONTENDERS, reference first
 * @param {function(Worker): Promise<*>} [extra] Run on each worker after timing (native calls)
 * @returns {Promise<{bytes: number, error: string|null, results: Array<{key: string, name: string, hz: number,
 *   rme: number, samples: number, best: number}>, extras: Object<string, *>}>} Results in contender order (none if
 *   the bytes differ), and what `extra` gave per key
 */
async function runCase(id, contenders, extra = null) {
  const count = roundsOf(id);
  const workers = contenders.map((contender) => new Worker(id, contender));
  try {
    // Built side by side: nothing is timed yet.
    await Promise.all(workers.map((worker) => worker.ready()));
    const before = await checkBytes(workers, 'before timing');
    if (before.error) return { ...before, results: [], extras: {} };
    for (const worker of workers) await worker.warm(WARM_MS);
    const rounds = workers.map(() => []);
    for (let round = 0; round < count; round++) {
      for (let i = 0; i < workers.length; i++) {
        try {
          rounds[i].push(await workers[i].time());
        } catch (err) {
          return { bytes: before.bytes, error: `while timing ${err.message}`, results: [], extras: {} };
        }
      }
    }
    const results = rounds.map((benches, i) => {
      const byHz = benches.slice().sort((a, b) => a.hz - b.hz);
      const median = byHz[byHz.length >> 1];
      // The middle ROUNDS rounds, whose spread is comparable from case to case (a case of more
      // rounds would otherwise show a wider one, from its extremes).
      const skip = (byHz.length - ROUNDS) >> 1;
      const [low, high] = [byHz[skip], byHz[byHz.length - 1 - skip]];
      return {
        key: workers[i].key,
        name: workers[i].name,
        hz: median.hz,
        // The larger of the median round's own error and the spread between the middle rounds.
        rme: Math.max(median.rme, (100 * (high.hz - low.hz)) / 2 / median.hz),
        samples: benches.reduce((sum, bench) => sum + bench.samples, 0),
        // The fastest round: this machine's noise comes in bursts that slow every process alike, so
        // the best rounds of two contenders compare them on the quiet machine (bench/cold.js).
        best: byHz[byHz.length - 1].hz,
      };
    });
    const after = await checkBytes(workers, 'after timing');
    const extras = {};
    if (!after.error && extra) for (const worker of workers) extras[worker.key] = await extra(worker);
    return { ...after, results: after.error ? [] : results, extras };
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
  }
}

module.exports = { runCase, roundsOf, ROUNDS, TARGET_ROUNDS, WARM_MS };
