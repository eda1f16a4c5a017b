'use strict';

/**
 * Whether a contender runs a case slower in a process that ran another case first: how the bench
 * timed every case when all ran in one process (before bench/worker.js), each contender's
 * protobufjs copy and writer having seen every earlier case's inputs, as an app that encodes
 * several shapes of message does. Fresh processes, alternating: one times `case` alone, the other
 * after running `before` for 1.5 s; each reports the median of ~1 ms batches over 2 s.
 *
 *   node bench/probes/after-case.js <case> <before> [pairs] [contender,…]
 *
 * Default: 3 pairs; contenders pbjs8 and rust (bench/cases.js). Reflection cases only.
 */

const path = require('path');
const { execFileSync } = require('child_process');

const BEFORE_MS = 1500;
const WARM_MS = 1000;
const TIME_MS = 2000;

/**
 * Child: runs `before` (unless null), then times `id` for one contender; prints µs per op.
 * @param {string} id Case
 * @param {string|null} before Case run first
 * @param {string} key Contender
 * @returns {undefined}
 */
function child(id, before, key) {
  const { CASES, prepareCase } = require('../cases');
  const opOf = (caseId) => {
    const c = CASES.find((x) => x.id === caseId);
    if (!c || c.codegen === 'static') throw new Error(`unknown or static case ${caseId}`);
    return prepareCase(c, null, [key])[0].fn;
  };
  const run = (fn, ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end) fn();
  };
  if (before !== null) run(opOf(before), BEFORE_MS);
  const op = opOf(id);
  run(op, WARM_MS);
  const times = [];
  const end = Date.now() + TIME_MS;
  while (Date.now() < end) {
    const start = process.hrtime.bigint();
    let n = 0;
    do {
      op();
      n += 1;
    } while (process.hrtime.bigint() - start < 1000000n);
    times.push(Number(process.hrtime.bigint() - start) / n / 1000);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`${times[times.length >> 1]}\n`);
}

/**
 * Parent: alternates the two kinds of process per contender and reports medians.
 * @param {string} id Case
 * @param {string} before Case run first
 * @param {number} pairs Pairs
 * @param {string[]} keys Contenders
 * @returns {undefined}
 */
function parent(id, before, pairs, keys) {
  const measure = (key, first) => Number(execFileSync(process.execPath, [__filename, '--child', id, first || '-', key],
    { encoding: 'utf8' }));
  const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
  process.stdout.write(`${id} under Node ${process.versions.node}, alone and after ${before} (${pairs} pairs; µs per op, medians):\n`);
  for (const key of keys) {
    const alone = [];
    const after = [];
    for (let i = 0; i < pairs; ++i) {
      if (i % 2) {
        after.push(measure(key, before));
        alone.push(measure(key, null));
      } else {
        alone.push(measure(key, null));
        after.push(measure(key, before));
      }
    }
    const ratio = median(after.map((t, i) => t / alone[i]));
    process.stdout.write(`  ${key.padEnd(8)} alone ${median(alone).toFixed(1)}, after ${before} ${median(after).toFixed(1)} ` +
      `(${ratio.toFixed(2)}x the time)\n`);
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  child(argv[1], argv[2] === '-' ? null : argv[2], argv[3]);
} else if (argv.length < 2) {
  process.stderr.write(`usage: node ${path.relative(process.cwd(), __filename)} <case> <before> [pairs] [contender,…]\n`);
  process.exitCode = 2;
} else {
  parent(argv[0], argv[1], Number(argv[2] || 3), (argv[3] || 'pbjs8,rust').split(','));
}
