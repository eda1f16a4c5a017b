'use strict';

/**
 * Size limits, fast version: deep nesting and large values are either encoded correctly or
 * refused with a RangeError naming the limit, and the process survives. (Nothing recurses: open forks
 * are a linked list in the entry array, and fix-ups are spliced in one loop.)
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { RustWriter } = require('..');
const { PATHS, withPath, referenceWriter } = require('./helpers');

/** Writes `depth` nested length-delimited sections around a short payload. */
function nest(w, depth) {
  for (let i = 0; i < depth; i++) w.uint32(10).fork();
  w.string('leaf');
  for (let i = 0; i < depth; i++) w.ldelim();
  return w;
}

describe('size limits', function () {
  this.timeout(120000);

  it('encodes 100,000 nested forks like protobufjs, through every path', () => {
    const expected = Buffer.from(nest(referenceWriter(), 100000).finish());
    for (const [name, options] of PATHS) {
      withPath(options, () => {
        assert.ok(Buffer.from(nest(RustWriter.create(), 100000).finish()).equals(expected), name);
      });
    }
  });

  it('stays linear on deep nesting of long sections, root ldelims and open forks included, on every path', () => {
    // 3000 nested sections over 128 bytes: 3000 fix-ups spliced in one backward pass.
    const script = (w, open) => {
      for (let i = 0; i < 3000; i++) w.uint32(10).fork().uint32(8).uint32(i);
      w.bytes(Buffer.alloc(300, 7));
      for (let i = 0; i < 3000; i++) w.ldelim();
      w.ldelim().uint32(16).fork().string('x'.repeat(200)).ldelim().ldelim();
      if (open) w.fork().uint32(1).fork().string('y'.repeat(300));
      return Buffer.from(w.finish());
    };
    // protobufjs 8.8.1's bytes; with forks left open, its bytes with each open fork's placeholder
    // 0x00 (the reference's rule zeroOpenForkPlaceholders: README "Compatibility").
    const expected = script(referenceWriter(), false);
    const expectedOpen = script(referenceWriter(), true);
    for (const [name, options] of PATHS) {
      withPath(options, () => {
        assert.ok(script(RustWriter.create(), false).equals(expected), name);
        assert.ok(script(RustWriter.create(), true).equals(expectedOpen), `open forks, ${name}`);
      });
    }
    // Three one-byte fields or placeholders, then the string.
    assert.strictEqual(expectedOpen.length, expected.length + 3 + 2 + 300);
  });

  it('encodes a 64 MiB bytes field and a 4-million-element packed field', () => {
    const blob = Buffer.alloc(64 * 1024 * 1024, 0x5a);
    const out = RustWriter.create().uint32(10).bytes(blob).finish();
    assert.strictEqual(out.length, 1 + 4 + blob.length);
    assert.deepStrictEqual([...out.subarray(0, 5)], [10, 0x80, 0x80, 0x80, 0x20]);
    assert.ok(out.subarray(5).equals(blob));
    const values = Uint32Array.from({ length: 4e6 }, (_, i) => i * 2654435761);
    const packed = RustWriter.create().uint32(10).uint32s(values).finish();
    assert.ok(Buffer.from(packed).equals(Buffer.from(referenceWriter().uint32(10).uint32s(values).finish())));
  });

  it('passes the nesting and large-value tests on the JS-only path too', () => {
    // Without the addon, long packed fields are written by JS too.
    const mocha = path.join(__dirname, '..', 'node_modules', 'mocha', 'bin', 'mocha.js');
    const run = spawnSync(process.execPath, [mocha, '--no-config', '--timeout', '120000', __filename,
      '--grep', 'nested forks like|stays linear|64 MiB'], { encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER: 'js' } });
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /3 passing/);
  });

  it('refuses a message over 2 GiB - 1 with a RangeError naming the limit, and keeps working', () => {
    // Three references to one 1 GiB array (its pages never touched, so never resident) would
    // need 3 GiB of output: refused before anything that large is allocated or copied. (1 GiB:
    // 32-bit V8, armv7 and ia32, makes no typed array of 1.5 GiB.)
    const big = new Uint8Array(2 ** 30 - 1);
    const w = RustWriter.create();
    assert.throws(() => w.bytes(big).bytes(big).bytes(big).finish(), (err) => err instanceof RangeError &&
      /2147483647 bytes/.test(err.message));
    assert.strictEqual(Buffer.from(RustWriter.create().uint32(150).finish()).toString('hex'), '9601');
  });

  // test/long/leak.js: 1,000,000 encodes of ten shapes catch a leak of more than 42 bytes an encode on
  // average, so 1 KB in every encode of any one shape (102 bytes an encode on average) with a margin of 2.4.
  const LEAK = path.join(__dirname, 'long', 'leak.js');
  const ENCODES = '1000000';

  it('holds memory steady over 1,000,000 mixed encodes in one synchronous loop (test/long/leak.js)', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', LEAK, ENCODES], { encoding: 'utf8' });
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^1000000 encodes/m);
    assert.match(run.stdout, /^sensitivity: a leak of more than 42 bytes per encode on average, 419 per encode of one shape in ten$/m);
  });

  it('catches a planted leak of 1 KB in every encode of one shape in ten, in the JS heap, in ArrayBuffers and in RSS', function () {
    // The check's own test, the same on every platform: not repeated under an emulator (test:cross).
    if (process.env.RUSTWRITER_CROSS_TIMEOUT_FACTOR) this.skip();
    const run = spawnSync(process.execPath, ['--expose-gc', LEAK, ENCODES, '--plant-leak', '1024'], { encoding: 'utf8' });
    assert.notStrictEqual(run.status, 0, run.stdout);
    for (const key of ['heap', 'external', 'native']) assert.match(run.stderr, new RegExp(`${key} grew by [\\d.]+ MB over the second half`), key);
  });
});
