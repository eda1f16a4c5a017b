'use strict';

/**
 * `npm test`: the mocha suite, then `cargo test` of the Node-free Rust core. The Rust tests run
 * even when mocha fails (a JS failure must not hide a Rust one), and the command fails if either
 * did. Arguments go to mocha.
 */

const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const steps = [
  ['mocha', process.execPath, [MOCHA, ...process.argv.slice(2)]],
  ['cargo test', process.platform === 'win32' ? 'cargo.exe' : 'cargo', ['test', '--no-default-features']],
];
const failed = [];
for (const [name, command, args] of steps) {
  const run = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (run.error || run.status !== 0) failed.push(`${name} (${run.error ? run.error.message : `exit ${run.status ?? run.signal}`})`);
}
if (failed.length > 0) {
  process.stderr.write(`\nnpm test: ${failed.join(' and ')} failed\n`);
  process.exitCode = 1;
}
