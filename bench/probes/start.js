'use strict';

/**
 * What the preload costs a process's start: fresh processes that load protobufjs and parse a small
 * schema, without and with `-r protobufjs-rustwriter/register`, alternating, and the same with the
 * native addon loaded at once (`RustWriter.native` read at the start, as an app that checks it or
 * encodes a long packed field soon after would). Prints the median and best time from the process's
 * start to the schema parsed, and RSS there.
 *
 *   node bench/probes/start.js [pairs]
 *
 * Default: 15 pairs. The addon is loaded on first need (lib/writer/native.js): this is where that
 * shows.
 */

const { execFileSync } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const PAIRS = Number(process.argv[2] || 15);
const CHILD = `
const protobuf = require('protobufjs');
if (process.env.START_NATIVE) require(${JSON.stringify(ROOT)}).RustWriter.native;
protobuf.parse('syntax = "proto3"; message M { int32 a = 1; string s = 2; }');
console.log(JSON.stringify({ ms: performance.now(), rss: process.memoryUsage().rss / 2 ** 20 }));
`;

const WAYS = {
  'protobufjs alone': { args: [], env: {} },
  'with the preload': { args: ['-r', path.join(ROOT, 'register.js')], env: {} },
  'with the preload and the addon loaded': { args: ['-r', path.join(ROOT, 'register.js')], env: { START_NATIVE: '1' } },
};

/**
 * One fresh process of a way.
 * @param {{args: string[], env: object}} way Way
 * @returns {{ms: number, rss: number}} Its figures
 */
function run(way) {
  const out = execFileSync(process.execPath, [...way.args, '-e', CHILD], { cwd: ROOT, env: { ...process.env, ...way.env }, encoding: 'utf8' });
  return JSON.parse(out);
}

const results = Object.fromEntries(Object.keys(WAYS).map((name) => [name, []]));
for (let i = 0; i < PAIRS; ++i) {
  const names = Object.keys(WAYS);
  for (const name of i % 2 ? names.reverse() : names) results[name].push(run(WAYS[name]));
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
for (const [name, runs] of Object.entries(results)) {
  const ms = runs.map((r) => r.ms);
  process.stdout.write(`${name.padEnd(40)} start to schema: median ${median(ms).toFixed(1)} ms, best ${Math.min(...ms).toFixed(1)} ms; ` +
    `RSS ${median(runs.map((r) => r.rss)).toFixed(1)} MiB\n`);
}
