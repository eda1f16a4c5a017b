'use strict';

/**
 * `npm run test:long`: the long versions of the guarantees whose fast versions are in `npm test`
 * (README "Guarantees"), one after another, each in its own process; stops at the first failure.
 * About 20 minutes and 7 GB of memory on a 2-core machine. The long fuzz run is separate:
 * `npm run fuzz -- --runs 10000000`.
 *
 *   node test/long/run.js [name ...]    names: limits, limits-js, leak, results
 */

const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const RUNS = {
  'limits': { args: ['--max-old-space-size=8192', 'test/long/limits.js'] },
  'limits-js': { args: ['--max-old-space-size=8192', 'test/long/limits.js'], env: { PROTOBUFJS_RUSTWRITER: 'js' } },
  'leak': { args: ['--expose-gc', 'test/long/leak.js', '10000000'] },
  'results': {
    args: [MOCHA, '--no-config', '--timeout', '0', 'test/results.test.js'],
    env: { RESULTS_COUNT: '1000000' },
  },
};

const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(RUNS);
for (const name of names) {
  const run = RUNS[name];
  if (!run) {
    process.stderr.write(`unknown run ${name}; runs: ${Object.keys(RUNS).join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n== ${name}: node ${run.args.join(' ')} ${JSON.stringify(run.env || {})}\n`);
  const started = Date.now();
  const child = spawnSync(process.execPath, run.args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...run.env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (child.status !== 0) {
    process.stderr.write(`== ${name} FAILED after ${seconds} s (status ${child.status}, signal ${child.signal})\n`);
    process.exit(1);
  }
  process.stdout.write(`== ${name} passed in ${seconds} s\n`);
}
