'use strict';

/**
 * The bytes a call writes do not depend on how far V8 has optimized the writer's code. A child
 * process runs the same calls tens of thousands of times, so that each function passes through
 * every tier V8 has (interpreter, Sparkplug, Maglev, TurboFan), and every output is compared with
 * the bytes of its first, cold run. The child compiles on its main thread
 * (`--no-concurrent-recompilation`), so that each tier's code is in place while the calls run: with
 * compilation in the background, a busy machine (three busy loops on two cores) finished the calls
 * before Maglev's code arrived in 5 of 10 child processes, and the check saw fewer tiers than it names.
 *
 * The case that needs it: a signalling NaN given to `double()` or `doubles()`. V8 14 (Node 26)
 * quiets it (sets the quiet bit) in Maglev-compiled code that stores it into a Float64Array, where
 * the other tiers, and every tier of earlier V8s, keep its bits (`node bench/probes/nan.js`).
 * RustWriter once wrote `… fc 7f` for `… f4 7f` once its code reached Maglev.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');

/**
 * Runs `body` in a child process after a prelude that defines `sNaN` (a signalling NaN with a
 * payload, read from a Float64Array), `RustWriter` and `check(name, bytesOf, expected)`, which
 * calls `bytesOf()` 30,000 times and prints the first output that differs from `expected`, or, without
 * it, from the first output.
 * @param {string} body Code
 * @returns {string[]} The differences the child printed
 */
function differencesAcrossTiers(body) {
  const child = `
const { RustWriter } = require(${JSON.stringify(path.join(__dirname, '..'))});
const cell = new Float64Array(1);
new Uint32Array(cell.buffer).set([0x00000001, 0x7ff40000]); // exponent all ones, quiet bit clear
const sNaN = cell[0];
function check(name, bytesOf, expected) {
  const cold = bytesOf();
  if (expected !== undefined && cold !== expected) {
    console.log(name + ': the first call wrote ' + cold + ', not ' + expected);
    return;
  }
  for (let i = 1; i < 30000; i++) {
    const hot = bytesOf();
    if (hot !== cold) {
      console.log(name + ': call ' + i + ' wrote ' + hot + ', the first call ' + cold);
      return;
    }
  }
}
${body}`;
  const run = spawnSync(process.execPath, ['--no-concurrent-recompilation', '-e', child], { encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.stderr);
  return run.stdout.split('\n').filter(Boolean);
}

describe('bytes that do not depend on the tier of the writer\'s code', function () {
  this.timeout(120000);

  it('writes a signalling NaN\'s bits as they are at every tier, through double() and doubles()', () => {
    const differences = differencesAcrossTiers(`
// As generated code may see one: a Proxy whose get trap reads the Float64Array itself.
const proxy = new Proxy(cell, { get: (target, key) => Reflect.get(target, key, target) });
const holder = { value: sNaN };
const hex = (w) => w.finish().toString('hex');
const bits = '010000000000f47f'; // the input's, little-endian
check('double(a number)', () => hex(RustWriter.create().double(holder.value)), bits);
check('double(an element of a Float64Array)', () => hex(RustWriter.create().double(cell[0])), bits);
check('doubles(a Proxy over a Float64Array)', () => hex(RustWriter.create().doubles(proxy)), '08' + bits);
check('doubles(an array-like)', () => hex(RustWriter.create().doubles({ 0: holder.value, 1: 1.5, length: 2 })),
  '10' + bits + '000000000000f83f');
`);
    assert.deepStrictEqual(differences, []);
  });

  it('would see a difference: a plain Float64Array store is compared the same way', function () {
    // The control: the same check over the store RustWriter avoids. It shows a difference exactly
    // on the V8s whose optimizing tiers quiet signalling NaNs.
    const differences = differencesAcrossTiers(`
const scratch = new Float64Array(1);
const bytes = new Uint8Array(scratch.buffer);
const holder = { value: sNaN };
check('a Float64Array store', () => { scratch[0] = holder.value; return Buffer.from(bytes).toString('hex'); });
`);
    if (differences.length === 0) this.skip(); // this V8 keeps the bits at every tier: nothing to see
    assert.match(differences[0], /^a Float64Array store: call \d+ wrote [0-9a-f]{16}, the first call 010000000000f47f$/);
  });
});
