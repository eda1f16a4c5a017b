'use strict';

/**
 * The sampled shadow check (lib/integration/verify.js): `PROTOBUFJS_RUSTWRITER_VERIFY=<fraction>` or
 * `install(protobuf, { verify })`. Each case runs in a child process, since the check counts and
 * warns process-wide.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..');

/** Set-up every script shares: protobufjs 8.8.1, a schema of two types, and a corruption hook. */
const PRELUDE = `
const protobuf = require('protobufjs');
const { RustWriter, install, status } = require(${JSON.stringify(ROOT)});
const root = protobuf.parse(\`syntax = "proto3"; package shop;
  message Order { uint64 id = 1; string item = 2; repeated sint32 counts = 3; Order parent = 4; bytes note = 5; }
  message Receipt { string text = 1; fixed64 total = 2; }\`).root;
const Order = root.lookupType('shop.Order');
const Receipt = root.lookupType('shop.Receipt');
const orders = Array.from({ length: 200 }, (_, i) => ({ id: i * 1e9, item: 'item ' + 'x'.repeat(i % 150), counts: [i, -i, 3],
  parent: i % 3 ? { id: i, item: 'p' } : null, note: Buffer.alloc(i % 5000, i) }));
/** Makes every RustWriter result wrong in its last byte, as a broken writer would be. */
function corrupt() {
  const finish = RustWriter.prototype.finish;
  RustWriter.prototype.finish = function finish_corrupted() {
    const out = Buffer.from(finish.call(this));
    if (out.length) out[out.length - 1] ^= 1;
    return out;
  };
}
const warnings = [];
process.on('warning', (w) => warnings.push({ code: w.code, message: w.message }));
const report = (extra) => setImmediate(() => console.log(JSON.stringify({ verify: status().verify, copies: status().copies, warnings, ...extra })));
`;

/**
 * Runs `script` after {@link PRELUDE} in a child process and parses the JSON it prints.
 * @param {string} script Script
 * @param {Object<string, string>} [env] Environment additions
 * @returns {object} What it printed
 */
function run(script, env = {}) {
  const child = spawnSync(process.execPath, ['-e', PRELUDE + script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  assert.strictEqual(child.status, 0, child.stdout + child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

describe('the sampled shadow check (PROTOBUFJS_RUSTWRITER_VERIFY)', function () {
  this.timeout(60000);

  it('compares every result at 1 and finds no difference in RustWriter as shipped', () => {
    const out = run(`
      install(protobuf);
      for (const o of orders) { Order.encode(o).finish(); Order.encodeDelimited(o).finish(); }
      for (let i = 0; i < 50; i++) Receipt.encode({ text: 'r' + i, total: BigInt(i) * 10n ** 15n }).finish();
      report();
    `, { PROTOBUFJS_RUSTWRITER_VERIFY: '1' });
    assert.strictEqual(out.verify.checked, 450);
    assert.strictEqual(out.verify.differing, 0);
    assert.deepStrictEqual(out.warnings, []);
    assert.strictEqual(out.copies[0].verify, 1);
  });

  it('catches a deliberately corrupted writer: the caller gets RustWriter\'s bytes, one warning per message type', () => {
    const out = run(`
      install(protobuf, { verify: 1 });
      corrupt();
      let returnedOurs = 0;
      for (const o of orders.slice(0, 20)) {
        const bytes = Order.encode(o).finish();
        const expected = Order.encode(o, new protobuf.BufferWriter()).finish();
        if (bytes[bytes.length - 1] === (expected[expected.length - 1] ^ 1)) ++returnedOurs;
      }
      for (let i = 0; i < 5; i++) Receipt.encode({ text: 'r' + i }).finish();
      report({ returnedOurs });
    `);
    assert.strictEqual(out.returnedOurs, 20);
    assert.strictEqual(out.verify.checked, 25);
    assert.strictEqual(out.verify.differing, 25);
    assert.deepStrictEqual(out.verify.reports.map((r) => r.type), ['shop.Order', 'shop.Receipt']);
    assert.strictEqual(out.warnings.length, 2);
    assert.ok(out.warnings.every((w) => w.code === 'PROTOBUFJS_RUSTWRITER_VERIFY'));
    assert.match(out.warnings[0].message, /for shop\.Order differ from protobufjs 8\.8\.1's at offset \d+/);
    assert.strictEqual(out.verify.reports[1].offset, out.verify.reports[1].length - 1);
  });

  it('names the type the encoders were given, and else the place of encode (encodeDelimited without them)', () => {
    const named = run(`
      install(protobuf, { verify: 1 });
      corrupt();
      Order.encodeDelimited(orders[1]).finish();
      report();
    `);
    assert.deepStrictEqual(named.verify.reports.map((r) => r.type), ['shop.Order']);
    const placed = run(`
      install(protobuf, { verify: 1, compiled: false });
      corrupt();
      Order.encodeDelimited(orders[1]).finish();
      report();
    `);
    assert.strictEqual(placed.verify.reports.length, 1);
    assert.match(placed.verify.reports[0].type, /^the message encoded at \[eval\]:\d+$/);
  });

  it('checks about the fraction asked for, at random', () => {
    const out = run(`
      install(protobuf, { verify: 0.25 });
      for (let i = 0; i < 4000; i++) Order.encode(orders[i % 200]).finish();
      report();
    `);
    // 4000 writers at 0.25: 1000 expected, σ ≈ 27; ±6σ.
    assert.ok(out.verify.checked > 840 && out.verify.checked < 1160, String(out.verify.checked));
    assert.strictEqual(out.verify.differing, 0);
  });

  it('skips, without a false report, what cannot be compared: open forks, a method protobufjs 7 lacks', () => {
    const out = run(`
      const protobuf7 = require('protobufjs7');
      install(protobuf, { verify: 1 });
      install(protobuf7, { verify: 1 });
      const open = protobuf.Writer.create().uint32(8).uint32(1).fork().uint32(16).uint32(2).finish();
      const packed = protobuf7.Writer.create().uint32(10).uint32s([1, 2, 300]).finish();
      report({ open: open.toString('hex'), packed: packed.toString('hex') });
    `);
    assert.strictEqual(out.open, '0801001002');
    assert.strictEqual(out.packed, '0a040102ac02');
    assert.strictEqual(out.verify.skipped, 2);
    assert.strictEqual(out.verify.differing, 0);
    assert.deepStrictEqual(out.warnings, []);
  });

  it('passes through what RustWriter throws, and results of a custom util.Buffer', () => {
    const out = run(`
      class Custom extends Buffer {}
      Custom.allocUnsafe = (n) => Object.setPrototypeOf(Buffer.allocUnsafe(n), Custom.prototype);
      protobuf.util.Buffer = Custom;
      protobuf.configure();
      install(protobuf, { verify: 1 });
      const custom = Order.encode(orders[3]).finish() instanceof Custom;
      let thrown = null;
      try { protobuf.Writer.create().uint64(null); } catch (err) { thrown = err.constructor.name; }
      report({ custom, thrown });
    `);
    assert.strictEqual(out.custom, true);
    assert.strictEqual(out.thrown, 'TypeError');
    assert.strictEqual(out.verify.differing, 0);
  });

  it('refuses a fraction that is not one, naming where it came from', () => {
    const bad = spawnSync(process.execPath, ['-e', "require('protobufjs-rustwriter').install(require('protobufjs'))"],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER_VERIFY: 'often' } });
    assert.notStrictEqual(bad.status, 0);
    assert.match(bad.stderr, /TypeError: protobufjs-rustwriter: PROTOBUFJS_RUSTWRITER_VERIFY must be a fraction from 0 to 1/);
    const out = run(`
      let message = null;
      try { install(protobuf, { verify: 2 }); } catch (err) { message = err.message; }
      report({ message });
    `);
    assert.match(out.message, /install\(\) option verify must be a fraction from 0 to 1 \(e\.g\. 0\.01\), not 2/);
  });
});
