'use strict';

/**
 * Whether one contender's speed drifts within a process: runs one bench case's op (bench/cases.js
 * prepareCase) in consecutive slices of wall time, warm, and prints each slice's wall and CPU time
 * per op. Where the host counts only the time a process runs as its CPU time, slices far slower than
 * the rest while CPU time keeps pace with wall time are the process working harder (a GC, code
 * deoptimized and compiled again), not waiting for a core. On a VM whose host takes the core away
 * unseen, that time counts as the process's CPU time too, and the two cannot be told apart this way
 * (docs/benchmark.md, "Where the ratios sit").
 *
 *   node bench/probes/slices.js [case] [contender] [slices] [ms]
 *
 * Defaults: catalog, rust, 40 slices of 250 ms, after 1 s of warm-up. Contenders as in
 * bench/probes/case.js.
 */

const { CASES, prepareCase } = require('../cases');

const [id = 'catalog', key = 'rust', slices = '40', ms = '250'] = process.argv.slice(2);
const WARM_MS = 1000;
/** Ops between two reads of the clock. */
const BATCH = 10;

const c = CASES.find((x) => x.id === id);
if (!c) throw new Error(`unknown case ${id}`);
if (c.codegen === 'static') throw new Error('the static case needs bench/static.js; probe a reflection case');
const [contender] = prepareCase(c, null, [key]);
if (!contender) throw new Error(`unknown contender ${key}`);

/**
 * Runs the op for `wallMs` of wall time.
 * @param {number} wallMs Milliseconds
 * @returns {{ops: number, wallNs: number, cpuNs: number}} Ops run, wall and CPU time they took
 */
function slice(wallMs) {
  const start = process.hrtime.bigint();
  const until = start + BigInt(wallMs * 1e6);
  const cpu = process.cpuUsage();
  let ops = 0;
  while (process.hrtime.bigint() < until) {
    for (let i = 0; i < BATCH; ++i) contender.fn();
    ops += BATCH;
  }
  const used = process.cpuUsage(cpu);
  return { ops, wallNs: Number(process.hrtime.bigint() - start), cpuNs: (used.user + used.system) * 1000 };
}

slice(WARM_MS);
const times = [];
for (let i = 0; i < Number(slices); i++) {
  const { ops, wallNs, cpuNs } = slice(Number(ms));
  times.push(`${(wallNs / ops / 1000).toFixed(0)}/${(cpuNs / ops / 1000).toFixed(0)}`);
}
process.stdout.write(`${id}, ${contender.name}, Node ${process.versions.node}: µs per op, wall/CPU, each slice of ${ms} ms\n`);
process.stdout.write(`${times.join(' ')}\n`);
