'use strict';

/**
 * `npm run test:quick`: the edit-and-run tier, in well under 20 seconds. The mocha suite without
 * its slowest files (install.test.js: TypeScript, ES modules, workers and the JS-only path in
 * child processes; limits.test.js: hundreds of megabytes; schemas.test.js: pbjs-generated code;
 * measure.test.js: the command line, timed; fuzz-schemas.test.js: generated schemas in child processes;
 * bundle.test.js: apps bundled by esbuild and webpack),
 * with a tenth of the random sequences, results and control blocks. `npm test` runs everything.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const SLOW = new Set(['install.test.js', 'limits.test.js', 'schemas.test.js', 'measure.test.js', 'fuzz-schemas.test.js', 'bundle.test.js']);
const files = fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.js') && !SLOW.has(f)).map((f) => path.join('test', f));
const env = { DIFF_COUNT: '2000', RESULTS_COUNT: '10000', HOSTILE_COUNT: '2000', ...process.env };
const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const run = spawnSync(process.execPath, [mocha, '--no-config', '--timeout', '60000', ...files, ...process.argv.slice(2)],
  { cwd: ROOT, env, stdio: 'inherit' });
process.exitCode = run.status === null ? 1 : run.status;
