'use strict';

/**
 * `npm run test:long`: the long versions of the guarantees whose fast versions are in `npm test`
 * (docs/compatibility.md "Guarantees"), one after another, each in its own process; stops at the first failure.
 * About 3 minutes and 5 GB of memory on a 2-core machine. The long fuzz run is separate:
 * `npm run fuzz -- --asan --runs 10000000`.
 *
 *   node test/long/run.js [name ...]    names: limits, limits-js, leak, results, lsan
 *
 * `lsan` (the Rust tests under LeakSanitizer) needs a nightly toolchain, so it runs only when
 * named: `npm run test:long -- lsan`.
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
  'lsan': {
    // The Node-free core's tests (lib, prost equivalence, fuzz corpus) with LeakSanitizer; the
    // explicit target keeps the sanitizer off build scripts and proc macros. Own target dir, so
    // the ordinary build is not rebuilt afterwards.
    command: 'cargo',
    args: ['+nightly', 'test', '--no-default-features', '--target', 'x86_64-unknown-linux-gnu', '--target-dir', 'target/lsan'],
    env: { RUSTFLAGS: '-Zsanitizer=leak', RUSTDOCFLAGS: '-Zsanitizer=leak' },
    optional: true,
  },
};

const names = process.argv.length > 2
  ? process.argv.slice(2)
  : Object.keys(RUNS).filter((name) => !RUNS[name].optional);
for (const name of names) {
  const run = RUNS[name];
  if (!run) {
    process.stderr.write(`unknown run ${name}; runs: ${Object.keys(RUNS).join(', ')}\n`);
    process.exit(2);
  }
  const command = run.command || process.execPath;
  process.stdout.write(`\n== ${name}: ${run.command || 'node'} ${run.args.join(' ')} ${JSON.stringify(run.env || {})}\n`);
  const started = Date.now();
  const child = spawnSync(command, run.args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...run.env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (child.status !== 0) {
    process.stderr.write(`== ${name} FAILED after ${seconds} s (status ${child.status}, signal ${child.signal})\n`);
    process.exit(1);
  }
  process.stdout.write(`== ${name} passed in ${seconds} s\n`);
}
