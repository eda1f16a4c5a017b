'use strict';

/**
 * Loaded with `mocha --require` by scripts/test-cross.js for the emulated mocha run:
 * - fails before any test unless the native addon loaded, so a suite that passed on the JS
 *   fallback cannot pass as a run of the addon;
 * - with RUSTWRITER_CROSS_TIMEOUT_FACTOR=N, multiplies every timeout by N: mocha's (each test's
 *   and hook's, including a `this.timeout(ms)` in the suite) and the `timeout` option of the
 *   suite's child processes (child_process.execFile and friends). Under qemu a child such as pbjs
 *   takes ~10 s of the suite's 15 s limit on an idle machine, and more on a busy one. Nothing
 *   else of the suite changes.
 */

const childProcess = require('child_process');
const util = require('util');
const { RustWriter } = require('..');

if (RustWriter.native !== true) {
  throw new Error(`the native addon did not load on ${process.platform}-${process.arch}: refusing to run the suite on the JS path`);
}
process.stdout.write(`cross-native: the addon is loaded on ${process.platform}-${process.arch}, Node ${process.version}\n`);

const factor = Number(process.env.RUSTWRITER_CROSS_TIMEOUT_FACTOR || 1);
if (factor > 1) {
  // Context#timeout and suites' timeouts all end in Runnable#timeout (a suite's value is copied
  // into each test and hook through it), so each timeout is scaled exactly once.
  const { Runnable } = require('mocha');
  const timeout = Runnable.prototype.timeout;
  Runnable.prototype.timeout = function scaledTimeout(ms) {
    if (!arguments.length) return timeout.call(this);
    return timeout.call(this, typeof ms === 'number' && ms > 0 ? ms * factor : ms);
  };
  const isOptions = (a) => a !== null && typeof a === 'object' && !Array.isArray(a);
  const scale = (args) => args.map((a) => (isOptions(a) && a.timeout > 0 ? { ...a, timeout: a.timeout * factor } : a));
  for (const name of ['exec', 'execFile', 'execFileSync', 'execSync', 'spawn', 'spawnSync']) {
    const original = childProcess[name];
    childProcess[name] = function scaledTimeout(...args) {
      return original.apply(this, scale(args));
    };
  }
  // util.promisify(execFile) resolves to { stdout, stderr } through execFile's custom promisify.
  for (const name of ['exec', 'execFile']) {
    const wrapped = childProcess[name];
    wrapped[util.promisify.custom] = (...args) => new Promise((resolve, reject) => {
      wrapped(...args, (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stdout, stderr }));
        else resolve({ stdout, stderr });
      });
    });
  }
}
