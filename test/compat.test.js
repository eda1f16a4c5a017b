'use strict';

/**
 * protobuf.js's own tests that touch the writer, mirrored with RustWriter installed into
 * `Writer.create` (their suites are in protobuf.js's repository, not in the npm package, so
 * they are re-stated here): `tests/node/override-mistake.js` (frozen base prototypes),
 * `tests/comp_bytes.js` (a custom `util.Buffer`), `tests/api_reader-writer-reuse.js`
 * (delimited messages into one writer) and the writer cases of `tests/api_writer_resize.js`
 * (length prefixes on both sides of 127/128 and 16383/16384, nested forks, strings, growth),
 * each on protobufjs 8.8.1 and 7.6.6, comparing bytes with protobufjs's own writer.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { RustWriter, install, uninstall, status } = require('..');

const ROOT = path.join(__dirname, '..');
const VERSIONS = [['8.8.1', 'protobufjs'], ['7.6.6', 'protobufjs7']];

/** A `Buffer` subclass whose instances are marked, as in protobuf.js's tests/comp_bytes.js. */
class CustomBuffer extends Buffer {
  static mark(b) {
    b.custom = true;
    return b;
  }

  static from(...args) {
    return CustomBuffer.mark(Buffer.from(...args));
  }

  static alloc(...args) {
    return CustomBuffer.mark(Buffer.alloc(...args));
  }

  static allocUnsafe(...args) {
    return CustomBuffer.mark(Buffer.allocUnsafe(...args));
  }

  static allocUnsafeSlow(...args) {
    return CustomBuffer.mark(Buffer.allocUnsafeSlow(...args));
  }

  slice(...args) {
    return CustomBuffer.mark(super.slice(...args));
  }
}

/**
 * @param {Uint8Array} bytes Bytes
 * @returns {string} Them in hex
 */
function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

/**
 * Encodes `messages` with `Type` through protobufjs's writer and through RustWriter.
 * @param {object} protobuf protobufjs instance (not installed)
 * @param {Function} encode `(w) => w` writing into a writer from `Writer.create()`
 * @returns {{theirs: string, ours: string, writer: object}} Both results in hex, and RustWriter's writer
 */
function both(protobuf, encode) {
  const theirs = encode(protobuf.Writer.create()).finish();
  install(protobuf);
  try {
    const writer = protobuf.Writer.create();
    return { theirs: hex(theirs), ours: hex(encode(writer).finish()), writer };
  } finally {
    uninstall(protobuf);
  }
}

/**
 * Runs `node -e script` in the package's directory.
 * @param {string} script Script
 * @param {string[]} [args] Node options before `-e`
 * @returns {{status: number, stdout: string, stderr: string}} Result
 */
function node(script, args = []) {
  const run = spawnSync(process.execPath, [...args, '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Encodes a message of every kind of field through `protobuf` and prints the bytes as hex. */
const ENCODE = `
const root = protobuf.Root.fromJSON({ nested: {
  Inner: { fields: { s: { type: 'string', id: 1 } } },
  Example: { fields: {
    value: { type: 'string', id: 1 }, n: { type: 'int64', id: 2 }, u: { type: 'uint64', id: 3 },
    p: { rule: 'repeated', type: 'uint32', id: 4 }, b: { type: 'bytes', id: 5 },
    inner: { type: 'Inner', id: 6 }, d: { rule: 'repeated', type: 'double', id: 7 },
  } },
} });
const Example = root.lookupType('Example');
const message = { value: 'ok', n: '-9223372036854775807', u: { low: -1, high: 7 }, p: Array.from({ length: 3000 }, (_, i) => i * 977),
  b: Buffer.from('bytes'), inner: { s: 'é'.repeat(100) }, d: [0.5, -1e300] };
const bytes = Example.encode(message).finish();
const decoded = Example.decode(bytes);
if (decoded.value !== 'ok' || decoded.p.length !== 3000) throw Error('unexpected decode result');
if (String(Example) !== 'Type .Example') throw Error('unexpected type string');
const err = protobuf.util.ProtocolError('missing', { instance: decoded });
if (err.name !== 'ProtocolError' || err.instance !== decoded) throw Error('unexpected protocol error');
console.log(JSON.stringify({ writer: protobuf.Writer.create().constructor.name, hex: Buffer.from(bytes).toString('hex') }));
`;

/** What tests/node/override-mistake.js runs first. */
const FREEZE = "'use strict'; Object.freeze(Object.prototype); Object.freeze(Function.prototype);";

describe('protobuf.js\'s own writer tests, with RustWriter in Writer.create', function () {
  this.timeout(60000);

  describe('tests/node/override-mistake.js: frozen Object.prototype and Function.prototype', () => {
    let expected;
    before(() => {
      const run = node(`const protobuf = require('protobufjs'); ${ENCODE}`);
      assert.strictEqual(run.status, 0, run.stderr);
      expected = JSON.parse(run.stdout).hex;
    });

    it('loads the package after the freeze, installs, encodes and gives protobufjs\'s bytes', () => {
      const run = node(`${FREEZE}
const protobuf = require('protobufjs');
require(process.cwd()).install(protobuf);
${ENCODE}`);
      assert.strictEqual(run.status, 0, run.stderr);
      assert.deepStrictEqual(JSON.parse(run.stdout), { writer: 'RustWriter', hex: expected });
    });

    it('does the same through the preload, loaded after the freeze', () => {
      const freeze = path.join(ROOT, 'test', 'fixtures', 'freeze.js');
      const run = node(`const protobuf = require('protobufjs'); ${ENCODE}`, ['-r', freeze, '-r', './register.js']);
      assert.strictEqual(run.status, 0, run.stderr);
      assert.deepStrictEqual(JSON.parse(run.stdout), { writer: 'RustWriter', hex: expected });
    });

    it('does not load the `long` package', () => {
      const run = node(`${FREEZE} require(process.cwd());
console.log(Object.keys(require.cache).filter((f) => /[\\\\/]long[\\\\/]/.test(f)).length);`);
      assert.strictEqual(run.status, 0, run.stderr);
      assert.strictEqual(run.stdout.trim(), '0');
    });
  });

  for (const [version, name] of VERSIONS) {
    describe(`protobufjs ${version}`, () => {
      const protobuf = require(name);

      it('tests/comp_bytes.js: finishes into instances of a custom util.Buffer, with the same bytes', () => {
        const root = protobuf.Root.fromJSON({ nested: { test: { nested: { Test: { fields: { data: { type: 'bytes', id: 1 } } } } } } });
        const Test = root.lookup('test.Test');
        const original = protobuf.util.Buffer;
        const plain = Test.encode({ data: Buffer.from('some-data') }).finish();
        // Installed before and after the switch: configure() re-reads util.Buffer either way.
        for (const installFirst of [true, false]) {
          if (installFirst) install(protobuf);
          protobuf.util.Buffer = CustomBuffer;
          protobuf.configure();
          try {
            if (!installFirst) install(protobuf);
            const writer = protobuf.Writer.create();
            assert.ok(writer instanceof RustWriter);
            const buffer = Test.encode({ data: Buffer.from('some-data') }, writer).finish();
            assert.ok(buffer.custom, 'should encode the message with a custom buffer');
            assert.strictEqual(hex(buffer), hex(plain));
            assert.ok(Test.decode(buffer).data.custom, 'should decode `data` into a custom buffer');
            assert.ok(Test.encodeDelimited({ data: Buffer.alloc(300) }).finish().custom);
            assert.ok(protobuf.Writer.create().constructor.alloc(3).custom);
          } finally {
            protobuf.util.Buffer = original;
            protobuf.configure();
          }
          // Back to Node's Buffer: plain RustWriters again, whose results are views, not copies.
          const writer = protobuf.Writer.create();
          assert.strictEqual(writer.constructor, RustWriter);
          const again = Test.encode({ data: Buffer.from('some-data') }, writer).finish();
          assert.ok(!again.custom);
          assert.ok(Buffer.isBuffer(again));
          uninstall(protobuf);
        }
      });

      it('tests/api_reader-writer-reuse.js: writes two delimited messages into one writer', () => {
        const root = protobuf.parse('message A { required uint32 a = 1; } message B { required string b = 1; }').root;
        const A = root.lookupType('A');
        const B = root.lookupType('B');
        const { theirs, ours } = both(protobuf, (writer) => {
          A.encodeDelimited({ a: 1 }, writer);
          B.encodeDelimited({ b: 'a' }, writer);
          return writer;
        });
        assert.strictEqual(ours, '02080103' + '0a0161');
        assert.strictEqual(ours, theirs);
        const reader = protobuf.Reader.create(Buffer.from(ours, 'hex'));
        assert.deepStrictEqual(A.toObject(A.decodeDelimited(reader)), { a: 1 });
        assert.deepStrictEqual(B.toObject(B.decodeDelimited(reader)), { b: 'a' });
        assert.strictEqual(reader.pos, reader.len);
      });

      it('tests/api_writer_resize.js: length prefixes, nested forks, strings and growth', () => {
        const pattern = (n, f) => Array.from({ length: n }, (_, i) => f(i) & 255);
        const raw = (w, bytes) => (protobuf.Writer.prototype.raw ? w.raw(bytes) : w.bytes(bytes));
        for (const n of [0, 1, 127, 128, 200, 16383, 16384, 20000]) {
          const { theirs, ours } = both(protobuf, (w) => raw(w.uint32(10).fork(), pattern(n, (i) => i)).ldelim());
          assert.strictEqual(ours, theirs, `n=${n}`);
        }
        const minimal = both(protobuf, (w) => raw(w.uint32(10).fork(), new Array(128).fill(0)).ldelim());
        assert.strictEqual(minimal.ours.slice(0, 6), protobuf.Writer.prototype.raw ? '0a8001' : '0a8201');
        const inner = (w) => raw(w.uint32(10).fork().uint32(18).fork(), pattern(200, (i) => i * 7)).ldelim();
        const nested = both(protobuf, (w) => raw(inner(w), pattern(50, (i) => i * 3)).ldelim());
        assert.strictEqual(nested.ours, nested.theirs);
        for (const s of ['', 'abc', 'ä'.repeat(63), 'ä'.repeat(64), '€'.repeat(50), '😀'.repeat(32), 'x'.repeat(127),
          'x'.repeat(128), 'y'.repeat(5000), '🎉mixed-ä-€-text'.repeat(20), 'ä'.repeat(60), 'ä'.repeat(300)]) {
          const { theirs, ours } = both(protobuf, (w) => w.string(s));
          assert.strictEqual(ours, theirs, `${s.length} units`);
          assert.strictEqual(protobuf.Reader.create(Buffer.from(ours, 'hex')).string(), s);
        }
        const growth = both(protobuf, (w) => {
          for (let i = 0; i < 5000; i++) w.uint32(i);
          return w;
        });
        assert.strictEqual(growth.ours, growth.theirs);
        const root = protobuf.Root.fromJSON({ nested: {
          Inner: { fields: { data: { type: 'bytes', id: 1 } } },
          Outer: { fields: { inner: { type: 'Inner', id: 1 }, tail: { type: 'bytes', id: 2 } } },
        } });
        const Outer = root.lookupType('Outer');
        const message = {
          inner: { data: new Uint8Array(pattern(300, (i) => i * 5)) }, tail: new Uint8Array(pattern(200, (i) => i * 9)),
        };
        const roundtrip = both(protobuf, (w) => Outer.encode(message, w));
        assert.strictEqual(roundtrip.ours, roundtrip.theirs);
      });

      it('gives writers whose constructor makes a new writer with no arguments, as the suites use it', () => {
        install(protobuf);
        try {
          const W = protobuf.Writer.create().constructor;
          assert.deepStrictEqual([...new W().uint32(300).finish()], [0xac, 0x02]);
        } finally {
          uninstall(protobuf);
        }
      });
    });
  }

  it('lists in status() each copy install() was given, with its version, path and state', () => {
    const p8 = require('protobufjs');
    const p7 = require('protobufjs7');
    install(p8);
    install(p7, { verify: 0.5, compiled: false });
    try {
      const copies = status().copies;
      // Each copy as listed, with its Types by tier apart: other tests in this process set Types up too.
      // Each copy as listed, with its Types by tier and its serializers' counts apart: other tests in
      // this process set Types up and call serializers too.
      const of = (dir) => {
        const { types, serialized, ...copy } = copies.find((c) => c.path === dir);
        const counted = Number.isInteger(types.compiled) && Number.isInteger(types.cold) && Array.isArray(types.kept);
        assert.ok(counted, JSON.stringify(types));
        assert.deepStrictEqual(Object.keys(serialized), ['serializers', 'compiled', 'slow', 'moved']);
        return copy;
      };
      assert.deepStrictEqual(of(path.join(ROOT, 'node_modules', 'protobufjs')), {
        version: '8.8.1', path: path.join(ROOT, 'node_modules', 'protobufjs'), installed: true, compiled: true, whyNotCompiled: null, verify: 0,
        serializers: true, whyNoSerializers: null,
      });
      assert.deepStrictEqual(of(path.join(ROOT, 'node_modules', 'protobufjs7')), {
        version: '7.6.6', path: path.join(ROOT, 'node_modules', 'protobufjs7'), installed: true, compiled: false, whyNotCompiled: 'install() option compiled: false', verify: 0.5,
        serializers: false, whyNoSerializers: 'they need compiled encoders',
      });
      uninstall(p7);
      const { types, serialized, ...uninstalled } = status().copies.find((c) => c.version === '7.6.6');
      assert.deepStrictEqual(uninstalled, {
        version: '7.6.6', path: path.join(ROOT, 'node_modules', 'protobufjs7'), installed: false, compiled: false, whyNotCompiled: null, verify: 0,
        serializers: false, whyNoSerializers: null,
      });
      assert.deepStrictEqual(Object.keys(types), ['compiled', 'cold', 'kept']);
      assert.deepStrictEqual(Object.keys(serialized), ['serializers', 'compiled', 'slow', 'moved']);
    } finally {
      uninstall(p8);
      uninstall(p7);
    }
  });
});
