'use strict';

/**
 * Runs one bench case's op for one contender in a tight loop, for `perf record`:
 *
 *   perf record -g node --perf-basic-prof bench/probes/case.js strings rust 5
 *
 * Arguments: case id, contender key (pbjs8, pbjs7, rust, rust-api, rust-js, check1, check100, rust7,
 * record, null; bench/cases.js), seconds (default 5).
 */

const { CASES, prepareCase } = require('../cases');

const [id = 'small', key = 'rust', seconds = '5'] = process.argv.slice(2);
const c = CASES.find((x) => x.id === id);
if (!c) throw new Error(`unknown case ${id}`);
if (c.codegen === 'static') throw new Error('the static case needs bench/static.js; probe a reflection case');
const [contender] = prepareCase(c, null, [key]);
if (!contender) throw new Error(`unknown contender ${key}`);
const deadline = Date.now() + Number(seconds) * 1000;
let ops = 0;
while (Date.now() < deadline) {
  for (let i = 0; i < 100; ++i) contender.fn();
  ops += 100;
}
process.stdout.write(`${id} ${key}: ${((Number(seconds) * 1e9) / ops).toFixed(0)} ns/op\n`);
