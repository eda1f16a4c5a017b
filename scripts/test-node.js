'use strict';

/**
 * `npm run test:node [-- --lines 22,26] [-- <mocha arguments>]`: the mocha suite (fuzz:js's short
 * run included: test/fuzz-js.test.js) under the latest release of each supported Node line, fetched
 * from the npm registry on first use (scripts/runtimes.js). `npm test` runs it under the machine's
 * own Node. Each line runs in turn, with its `node` first on the PATH so that the child processes the
 * tests start run on it too; a table at the end says how each went. Exits non-zero if any failed.
 */

const { spawnSync } = require('child_process');
const path = require('path');
const { NODE_LINES, node } = require('./runtimes');

const ROOT = path.join(__dirname, '..');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const args = process.argv.slice(2);
let lines = NODE_LINES;
const at = args.indexOf('--lines');
if (at >= 0) {
  lines = args[at + 1].split(',');
  args.splice(at, 2);
}

const results = [];
for (const line of lines) {
  const { name, bin } = node(line);
  process.stdout.write(`\n=== mocha on ${name}\n`);
  const started = Date.now();
  const run = spawnSync(bin, [MOCHA, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH}` },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  results.push({ name, ok: run.status === 0, how: run.error ? run.error.message : `exit ${run.status ?? run.signal}`, seconds });
}

process.stdout.write('\ntest:node:\n');
for (const r of results) process.stdout.write(`  ${r.name}: ${r.ok ? 'passed' : `FAILED (${r.how})`} in ${r.seconds} s\n`);
if (results.some((r) => !r.ok)) process.exitCode = 1;
