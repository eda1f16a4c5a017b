'use strict';

/**
 * The writer's methods stay optimized for the inputs generated code really sends: map keys as the
 * numeric strings `Object.keys` returns (to `int32`, `uint32`, `sint32`, `int64`…), `Long`s and
 * numbers beyond int32 to 64-bit methods, booleans to int methods, short packed arrays. A child
 * process warms the writer up with all of them mixed, then runs them again under
 * `--trace-deopt`: no function of lib/writer/ may be deoptimized after the warm-up (an earlier version
 * deoptimized `int32()` ~500 times a second on map keys). The child compiles on its main thread
 * (`--no-concurrent-recompilation`), so that the warm-up ends with the optimized code in place however
 * busy the machine is (test/tiers.test.js saw background compilation arrive too late under load).
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

/** Names of the writer's functions (every one is named, so profiles and deopt traces read well). */
const WRITER = path.join(__dirname, '..', 'lib', 'writer');
const NAMES = new Set(fs.readdirSync(WRITER).flatMap((file) =>
  [...fs.readFileSync(path.join(WRITER, file), 'utf8').matchAll(/function ([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1])));

/**
 * The deoptimizations of the writer's functions after the child's warm-up mark.
 * @param {string} [extra] Code the child runs after the mark
 * @returns {string[]} Trace lines
 */
function deoptsAfterWarmUp(extra = '') {
  const run = spawnSync(process.execPath, ['--trace-deopt', '--no-concurrent-recompilation', '-e', CHILD + extra], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.strictEqual(run.status, 0, run.stderr);
  const [, after] = run.stdout.split('--- warm ---');
  assert.ok(after !== undefined, 'the child ran to its warm-up mark');
  return after.split('\n').filter((line) => {
    const m = /deoptimizing .*?<JSFunction ([\w$]+)/.exec(line);
    return m !== null && NAMES.has(m[1]);
  });
}

const CHILD = `
const Long = require('long');
const { RustWriter } = require(${JSON.stringify(path.join(__dirname, '..'))});
const keys = Object.keys({ 1: 0, 17: 0, 300: 0, '-5': 0, 70000: 0 });
const longs = [Long.fromBits(5, 7), Long.fromNumber(-3), 2 ** 40, -(2 ** 33), 12, '18446744073709551615'];
const packed = [[1, 2, 300], [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18], new Uint32Array([1, 2, 3])];
function encode(i) {
  const w = RustWriter.create();
  for (const key of keys) w.uint32(8).int32(key).uint32(16).uint32(key).sint32(key).int64(key);
  for (const v of longs) w.uint32(24).int64(v).uint64(v).sint64(v).fixed64(v);
  w.uint32(32).int32(true).uint32(false).bool(i & 1).int32(2 ** 31 + i).uint32(2 ** 32 + i).int32(-i);
  w.uint32(42).fork().string('name ' + i).double(i / 3).float(i).ldelim();
  for (const p of packed) w.uint32(50).uint32s(p).uint32(58).sint32s(p).uint32(66).int32s(p);
  w.uint32(74).bools([true, false, 1]).uint32(82).doubles([1.5, i]).uint32(90).bytes(Buffer.from([i & 255, 1]));
  return w.finish();
}
for (let i = 0; i < 30000; i++) encode(i);
console.log('--- warm ---');
for (let i = 0; i < 30000; i++) encode(i);
`;

describe('optimized code for the inputs generated code sends', function () {
  this.timeout(120000);

  it('deoptimizes no writer function once warm, with string map keys, Longs, big numbers and booleans', () => {
    const deopts = deoptsAfterWarmUp();
    assert.deepStrictEqual(deopts, [], deopts.slice(0, 5).join('\n'));
  });

  it('would see a deoptimization: an input never seen in the warm-up shows up in the trace', () => {
    const odd = 'for (let i = 0; i < 3; i++) RustWriter.create().int32({ valueOf() { return 7; } }).uint32s({ length: 2, 0: 1, 1: 2 }).finish();';
    assert.ok(deoptsAfterWarmUp(odd).length > 0, 'the trace is read correctly');
  });
});
