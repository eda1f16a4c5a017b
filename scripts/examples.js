'use strict';

/**
 * `npm run examples` (run by .ci/run after `npm test`): runs each example under examples/ as its
 * own process, as its README says to, from the repository root (where `protobufjs-rustwriter`
 * resolves to this package through its self-reference), and fails if any exits non-zero or
 * overruns its time. Each example checks its bytes against protobufjs's own writer.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
/** Per example run; pbjs and loading gRPC take about a second each on an idle machine. */
const TIMEOUT_MS = 120000;

/** Each run: the example directory, and the node arguments its README gives (`readme: false`: a check, not in
 * the README). */
const RUNS = [
  { example: 'preload', args: ['-r', 'protobufjs-rustwriter/register', 'examples/preload/app.js'] },
  { example: 'static', args: ['examples/static/generate.js', '--check'], readme: false },
  { example: 'static', args: ['examples/static/app.js'] },
  { example: 'grpc', args: ['-r', 'protobufjs-rustwriter/register', 'examples/grpc/app.js'] },
  { example: 'grpc', args: ['-r', 'protobufjs-rustwriter/register', 'examples/grpc/firestore.js'] },
];

/**
 * @param {string} example Example directory name
 * @param {string} command Command line
 * @returns {boolean} Whether the example's README.md has `command` on a line of its own
 */
function readmeGives(example, command) {
  // Without carriage returns, in case git checked the file out with CRLF line ends.
  const text = fs.readFileSync(path.join(ROOT, 'examples', example, 'README.md'), 'utf8').replace(/\r\n/g, '\n');
  return text.includes(`\n${command}\n`);
}

const failed = [];
for (const { example, args, readme = true } of RUNS) {
  const command = `node ${args.join(' ')}`;
  if (readme && !readmeGives(example, command)) {
    failed.push(`${command}: not the command examples/${example}/README.md gives`);
    continue;
  }
  process.stdout.write(`\n$ ${command}\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit', timeout: TIMEOUT_MS });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.error || run.status !== 0) failed.push(`${command}: ${run.error ? run.error.message : `exit ${run.status ?? run.signal}`} after ${seconds} s`);
  else process.stdout.write(`(${example}: passed in ${seconds} s)\n`);
}
if (failed.length) {
  process.stderr.write(`\nexamples failed:\n${failed.map((f) => `  ${f}\n`).join('')}`);
  process.exit(1);
}
process.stdout.write(`\nexamples: all ${RUNS.length} runs passed\n`);
