'use strict';

/**
 * Timing for `protobufjs-rustwriter measure`: a few encode functions per row (protobufjs's writer,
 * then RustWriter's ways), timed alternately in rounds, so that all see the same machine; the
 * machines this runs on change speed by tens of percent over minutes (bench/suite.js has the same
 * reasoning). The order of a row's functions changes from round to round (rotated, and reversed every
 * other cycle: with three functions, each of the six orders in turn), and each speed-up is the median
 * of the rounds' own ratios.
 *
 * Unlike bench/suite.js, no slice starts with a forced full GC: slices here are tens of
 * milliseconds, not seconds, and the slice after a full GC ran 1.5–2.5x slower than the same
 * encode in a plain loop (common.proto's sample #1, ~500 ns an encode in a loop: 1,000–1,400 ns
 * with a GC before each 45 ms slice, 510–630 ns without; a full GC also resets the young
 * generation's size, which allocation then has to grow again). The
 * encoders keep nothing, so what a slice leaves for the other writer's GC is young garbage, which
 * a scavenge drops without visiting.
 */

/** Rounds of timing: a multiple of 6, so that with two or three functions a row every order comes
 * up equally often. */
const ROUNDS = 24;
/** Share of the time spent warming up (the JIT compiling both writers' code) before the rounds. */
const WARM_SHARE = 0.1;
/** A calibration run doubles its encodes until it takes this long (ns). */
const CALIBRATE_NS = 5e6;

/**
 * Nanoseconds `fn(n)` takes.
 * @param {(n: number) => *} fn Encodes its row `n` times
 * @param {number} n Times
 * @returns {number} ns
 */
function timeOnce(fn, n) {
  const start = process.hrtime.bigint();
  fn(n);
  return Number(process.hrtime.bigint() - start);
}

/**
 * Runs `fn` with a doubling count until a run takes {@link CALIBRATE_NS}, then for `warmNs`.
 * @param {(n: number) => *} fn Encodes its row `n` times
 * @param {number} warmNs Warm-up time (ns)
 * @returns {number} ns per call of the row: the fastest run's (the others may have been compiling
 *   or preempted)
 */
function warmUp(fn, warmNs) {
  let n = 1;
  let ns = timeOnce(fn, n);
  while (ns < CALIBRATE_NS) {
    n *= 2;
    ns = timeOnce(fn, n);
  }
  let best = ns;
  for (let spent = ns; spent < warmNs; spent += ns) {
    ns = timeOnce(fn, n);
    best = Math.min(best, ns);
  }
  return best / n;
}

/**
 * The `q` quantile of sorted numbers (linear interpolation).
 * @param {number[]} sorted Ascending
 * @param {number} q In [0, 1]
 * @returns {number} Quantile
 */
function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/**
 * Median and interquartile range of a sample.
 * @param {number[]} values Sample
 * @returns {{median: number, q1: number, q3: number}} Summary
 */
function summarize(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), q1: quantile(sorted, 0.25), q3: quantile(sorted, 0.75) };
}

/**
 * The order in which a round times `k` functions: rotated by the round, reversed every other cycle.
 * @param {number} k Functions
 * @param {number} round Round
 * @returns {number[]} Indices
 */
function orderOf(k, round) {
  const order = Array.from({ length: k }, (_, i) => (i + round) % k);
  return Math.floor(round / k) % 2 ? order.reverse() : order;
}

/**
 * Times every row's encode functions alternately for about `seconds`.
 * @param {Array<{fns: Array<(n: number) => *>, messages: number}>} rows Per row: protobufjs's encode
 *   function, then those to compare with it (each encodes the row's `messages` messages `n` times)
 * @param {number} seconds Time budget, for all rows
 * @param {(done: number, leftSeconds: number) => void} progress Called after each slice
 * @returns {Array<{ns: Array<{median: number, q1: number, q3: number}>, speedups: Array<{median: number,
 *   q1: number, q3: number}|null>}>} Per row: ns per encoded message for each function, and each
 *   function's speed-up over the first (its time over theirs, per round; null for the first)
 */
function timeRows(rows, seconds, progress) {
  const budget = seconds * 1e9;
  const slices = rows.reduce((sum, row) => sum + row.fns.length, 0);
  const perCall = rows.map((row) => row.fns.map((fn) => warmUp(fn, (budget * WARM_SHARE) / slices)));
  const sliceNs = (budget * (1 - WARM_SHARE)) / (ROUNDS * slices);
  const counts = perCall.map((list) => list.map((ns) => Math.max(1, Math.round(sliceNs / ns))));
  const samples = rows.map((row) => row.fns.map(() => []));
  const started = Date.now();
  let done = 0;
  for (let round = 0; round < ROUNDS; ++round) {
    rows.forEach((row, r) => {
      for (const w of orderOf(row.fns.length, round)) {
        const ns = timeOnce(row.fns[w], counts[r][w]);
        samples[r][w].push(ns / (counts[r][w] * row.messages));
        // Keep the next slice near its share of the time when the machine's speed changes.
        counts[r][w] = Math.max(1, Math.round((sliceNs * counts[r][w]) / ns));
        done += 1;
        const fraction = done / (ROUNDS * slices);
        progress(fraction, ((Date.now() - started) / 1000) * (1 / fraction - 1));
      }
    });
  }
  return samples.map((list) => ({
    ns: list.map(summarize),
    speedups: list.map((times, w) => (w === 0 ? null : summarize(list[0].map((ns, i) => ns / times[i])))),
  }));
}

module.exports = { timeRows, orderOf, ROUNDS };
