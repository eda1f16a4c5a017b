'use strict';

/**
 * `npm run test:runtimes`: the examples (examples/: reflection under the preload, pbjs static code
 * with `install()`, gRPC over 127.0.0.1 under the preload), each checking its bytes against
 * protobufjs's own writer, run by Bun and by Deno (the latest of each, fetched from the npm registry
 * on first use: scripts/runtimes.js), with the command lines docs/usage.md "Runtimes" gives; Deno's
 * status line with and without `--allow-env`; and worker threads under each preload, Node's too
 * (test/fixtures/workers/main.js).
 *
 * They run in a temporary app laid out as an install leaves one: `node_modules/protobufjs-rustwriter`
 * is this checkout (linked), the other packages this checkout's `node_modules`, and a package.json
 * of `"type": "commonjs"`, as a CommonJS app has for Deno. Each run must exit 0 and report the path
 * it should take (`RustWriter.native`); the run without Deno's `--allow-ffi` must take the JS path
 * with the one warning that names the flag.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const runtimes = require('./runtimes');

const ROOT = path.join(__dirname, '..');
/** Per run; the gRPC example loads a lot of code. */
const TIMEOUT_MS = 120000;
/** Per run at a terminal, which only the preload example makes (about a second). */
const TTY_TIMEOUT_MS = 30000;
const PRELOAD_DENO = './node_modules/protobufjs-rustwriter/register.mjs';

/**
 * The temporary app: examples/ copied, node_modules linked.
 * @returns {string} Its directory
 */
function makeApp() {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-runtimes-'));
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'commonjs' }));
  fs.cpSync(path.join(ROOT, 'examples'), path.join(app, 'examples'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'workers'), path.join(app, 'workers'), { recursive: true });
  const modules = path.join(app, 'node_modules');
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '.bin' || entry === '.package-lock.json') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry), 'dir');
  }
  fs.symlinkSync(ROOT, path.join(modules, 'protobufjs-rustwriter'), 'dir');
  return app;
}

const bun = runtimes.bun();
const deno = runtimes.deno();
/** This process's Node, for the worker runs' reference. */
const node = { name: `Node ${process.versions.node}`, bin: process.execPath };
/** Each run: the runtime, its arguments, the path it must report, and the warning it must print. */
const RUNS = [
  { runtime: bun, args: ['--preload', 'protobufjs-rustwriter/register', 'examples/preload/app.js'] },
  { runtime: bun, args: ['examples/preload/app.js'], bunfig: 'preload = ["protobufjs-rustwriter/register"]\n' },
  { runtime: bun, args: ['examples/static/app.js'] },
  { runtime: bun, args: ['--preload', 'protobufjs-rustwriter/register', 'examples/grpc/app.js'] },
  { runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--preload', PRELOAD_DENO, 'examples/preload/app.js'] },
  { runtime: deno, args: ['run', '--allow-read', '--allow-ffi', 'examples/static/app.js'] },
  // @grpc/grpc-js itself reads environment variables and opens sockets.
  { runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--allow-env', '--allow-net=127.0.0.1', '--preload', PRELOAD_DENO, 'examples/grpc/app.js'] },
  {
    runtime: deno, args: ['run', '--allow-read', 'examples/static/app.js'], native: false,
    warning: /no native addon for linux-x64, so RustWriter encodes in JavaScript .*: Deno did not allow native code: run deno with --allow-ffi/,
  },
  // The package's variables need --allow-env under Deno (docs/usage.md "Environment variables"): with it
  // the status line is printed, without it the variable counts as unset.
  {
    runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--allow-env', '--preload', PRELOAD_DENO, 'examples/preload/app.js'],
    env: { PROTOBUFJS_RUSTWRITER_STATUS: '1' }, stderr: /^protobufjs-rustwriter: native addon, preload on, 1 protobufjs copy seen$/m,
  },
  {
    runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--preload', PRELOAD_DENO, 'examples/preload/app.js'],
    env: { PROTOBUFJS_RUSTWRITER_STATUS: '1' }, noStderr: /protobufjs-rustwriter: native addon/,
  },
  // At a terminal, Deno asks for each permission not granted, and waits: the package asks for none
  // (no variable read, no process report) beyond the flags docs/usage.md gives.
  {
    runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--preload', PRELOAD_DENO, 'examples/preload/app.js'],
    env: { PROTOBUFJS_RUSTWRITER_STATUS: '1' }, tty: true, noStderr: /Deno requests/,
  },
  // Worker threads: the main thread and a worker whose file has the one line docs/usage.md "Worker
  // threads" gives encode through RustWriter; the run says whether the preload alone reached a worker.
  { runtime: node, args: ['-r', 'protobufjs-rustwriter/register', 'workers/main.js'] },
  { runtime: bun, args: ['--preload', 'protobufjs-rustwriter/register', 'workers/main.js'] },
  { runtime: bun, args: ['workers/main.js'], bunfig: 'preload = ["protobufjs-rustwriter/register"]\n' },
  { runtime: deno, args: ['run', '--allow-read', '--allow-ffi', '--preload', PRELOAD_DENO, 'workers/main.js'] },
];

const app = makeApp();
const failed = [];
try {
  for (const { runtime, args, bunfig, native = true, warning, env = {}, stderr, noStderr, tty = false } of RUNS) {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v} `).join('');
    const command = `${vars}${path.basename(runtime.bin)} ${args.join(' ')}${bunfig ? ` (bunfig.toml: ${bunfig.trim()})` : ''}`;
    process.stdout.write(`\n$ ${command}   # ${runtime.name}\n`);
    const bunfigFile = path.join(app, 'bunfig.toml');
    if (bunfig) fs.writeFileSync(bunfigFile, bunfig);
    const started = Date.now();
    // `tty`: under util-linux's script(1), whose pseudo-terminal gets both outputs (so stderr is
    // looked for in stdout too); a prompt waits for an answer that never comes, so the run is cut
    // short (TTY_TIMEOUT_MS) and fails.
    const [file, argv] = tty ? ['script', ['-qec', [runtime.bin, ...args].map((a) => `'${a}'`).join(' '), '/dev/null']] : [runtime.bin, args];
    const run = spawnSync(file, argv, {
      cwd: app, encoding: 'utf8', timeout: tty ? TTY_TIMEOUT_MS : TIMEOUT_MS, input: '', env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...env },
    });
    if (tty) run.stderr += run.stdout;
    fs.rmSync(bunfigFile, { force: true });
    process.stdout.write(run.stdout);
    process.stderr.write(run.stderr);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const problems = [];
    if (run.error || run.status !== 0) problems.push(run.error ? run.error.message : `exit ${run.status ?? run.signal}`);
    if (!run.stdout.includes(`RustWriter.native = ${native}`)) problems.push(`it did not report RustWriter.native = ${native}`);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
    if (warning ? warnings.length !== 1 || !warning.test(warnings[0]) : warnings.length !== 0) {
      problems.push(warning ? `not the one warning ${warning}` : 'a warning');
    }
    if (stderr && !stderr.test(run.stderr)) problems.push(`its stderr lacks ${stderr}`);
    if (noStderr && noStderr.test(run.stderr)) problems.push(`its stderr has ${noStderr}`);
    if (problems.length > 0) failed.push(`${command} on ${runtime.name}: ${problems.join('; ')}, after ${seconds} s`);
    else process.stdout.write(`(passed in ${seconds} s)\n`);
  }
} finally {
  fs.rmSync(app, { recursive: true, force: true });
}
if (failed.length > 0) {
  process.stderr.write(`\ntest:runtimes failed:\n${failed.map((f) => `  ${f}\n`).join('')}`);
  process.exitCode = 1;
} else {
  process.stdout.write(`\ntest:runtimes: all ${RUNS.length} runs passed on ${bun.name} and ${deno.name}\n`);
}
