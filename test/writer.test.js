'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const v8 = require('v8');
const vm = require('vm');
const Long = require('long');
const protobuf = require('protobufjs');
const { RustWriter, _protocol } = require('..');
const { bothHex, runBoth, referenceWriter } = require('./helpers');

const hex = (w) => Buffer.from(w.finish()).toString('hex');

/** Values 2^(7k)-1 and 2^(7k): where varints grow by a byte. */
const VARINT_EDGES = [];
for (let k = 1; k <= 9; k++) VARINT_EDGES.push(2 ** (7 * k) - 1, 2 ** (7 * k));

const ODD_NUMBERS = [0, -0, 1, -1, 1.9, -1.5, -0.5, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, 2 ** 32 + 5,
  2 ** 53, 1e20, -1e20, NaN, Infinity, -Infinity, '300', ' 12 ', '0x10', '1e3', 'abc', '', null, undefined, true,
  [7], {}];

function assertSame(write, label) {
  const { actual, expected } = bothHex(write);
  assert.strictEqual(actual, expected, label);
}

describe('RustWriter against protobufjs 8.8.1, method by method', () => {
  for (const method of ['uint32', 'int32', 'sint32', 'fixed32', 'sfixed32', 'bool', 'float', 'double']) {
    it(`writes ${method} boundary and odd values with identical bytes`, () => {
      for (const v of [...VARINT_EDGES, ...VARINT_EDGES.map((x) => -x), ...ODD_NUMBERS]) {
        assertSame((w) => w[method](v), `${method}(${String(v)})`);
      }
    });
  }

  for (const method of ['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64']) {
    it(`writes ${method} numbers, strings, Longs and {low, high} with identical bytes`, () => {
      const values = [...VARINT_EDGES, ...VARINT_EDGES.map((x) => -x), 0, -0, 1.5, -1.5, NaN, Infinity, -Infinity,
        2 ** 64, 2 ** 63, -(2 ** 63), 1e20, -1e20, '18446744073709551615', '9223372036854775807',
        '9223372036854775808', '-9223372036854775808', '+5', ' 12', '12abc', '1e3', '1.5', '0x10', 'abc', '1_000',
        new String('42'), Long.MAX_VALUE, Long.MIN_VALUE, Long.fromNumber(-5), Long.UZERO, Long.fromString('300', true),
        { low: 5, high: 1 }, { low: -1, high: -1, unsigned: true }, { low: 0, high: 0 }, {}, true];
      for (const v of values) assertSame((w) => w[method](v), `${method}(${String(v)})`);
    });
  }

  it('throws where protobufjs throws, with the same error class', () => {
    const cases = [['uint64', null], ['uint64', undefined], ['int64', ''], ['int64', '-'], ['sint64', ' -1'],
      ['bytes', null], ['string', null], ['string', undefined], ['string', ['ab']], ['uint32', 5n], ['int32', 5n],
      ['fixed32', 5n], ['string', new String('a'.repeat(50))], ['uint32', Symbol('x')]];
    for (const [method, value] of cases) {
      const { actual, expected } = runBoth([[method, value], ['finish']]);
      assert.deepStrictEqual(actual, expected, `${method}(${String(value)})`);
      assert.match(expected[expected.length - 1], /threw/, `protobufjs throws for ${method}(${String(value)})`);
    }
  });

  it('encodes negative int32 as 10 bytes and wraps int32 like protobufjs 8.x', () => {
    assert.strictEqual(hex(RustWriter.create().int32(-1)), 'ffffffffffffffffff01');
    assert.strictEqual(hex(RustWriter.create().int32(2 ** 31)), '80808080f8ffffffff01');
    assert.strictEqual(hex(RustWriter.create().int32(-(2 ** 31) - 1)), 'ffffffff07');
    assert.strictEqual(hex(RustWriter.create().sint32(-(2 ** 31))), 'ffffffff0f');
    assert.strictEqual(hex(RustWriter.create().sint64('9223372036854775807')), 'feffffffffffffffff01');
  });

  it('writes bytes from buffers, arrays, base64 strings and non-array values with identical bytes', () => {
    const values = [Buffer.from([1, 2, 3]), new Uint8Array(0), [1, 2, 300, -1], new Uint16Array([258]),
      new Float64Array([1.5, 300]), 'AQID', 'AQ ID', '-_-_', '!!!!', '', new String('AQID'), new ArrayBuffer(4),
      new DataView(new ArrayBuffer(4)), 5, { length: 2, 0: 7, 1: 8 }, Buffer.alloc(127, 1), Buffer.alloc(128, 2),
      Buffer.alloc(16383, 3), Buffer.alloc(16384, 4)];
    for (const v of values) assertSame((w) => w.bytes(v), `bytes(${String(v).slice(0, 20)})`);
  });

  it('writes raw bytes without a prefix, and nothing for empty input', () => {
    for (const v of [[1, 2, 3], Buffer.from('abc'), [], new Uint8Array(0), 'AQID', [300, -1]]) {
      assertSame((w) => w.uint32(1).raw(v).uint32(2), `raw(${String(v)})`);
    }
    assert.strictEqual(hex(RustWriter.create().raw([])), '');
  });

  it('encodes strings of 39, 40, 41 and 127/128 UTF-16 units with lone surrogates as protobufjs does', () => {
    const pieces = ['\uD800', '\uDC00', '\uDC00\uD800', '\uD83D\uDE00', 'é', '€', 'a'];
    for (const piece of pieces) {
      for (const total of [1, 38, 39, 40, 41, 127, 128, 129, 300]) {
        for (const at of ['start', 'end']) {
          const fill = 'a'.repeat(Math.max(0, total - piece.length));
          const s = at === 'start' ? piece + fill : fill + piece;
          assertSame((w) => w.string(s), `string(${JSON.stringify(s.slice(0, 8))}…, length ${s.length})`);
        }
      }
    }
    assert.strictEqual(hex(RustWriter.create().string('\uD800' + 'a'.repeat(38))).slice(0, 8), '29eda080');
    assert.strictEqual(hex(RustWriter.create().string('\uD800' + 'a'.repeat(39))).slice(0, 8), '2aefbfbd');
  });

  it('writes empty and non-string values to string() as protobufjs 8.x does', () => {
    for (const v of ['', 123, new String('ab'), new String('')]) assertSame((w) => w.string(v), `string(${v})`);
  });

  it('writes every packed method for plain and typed arrays with identical bytes', () => {
    const numbers = [0, 1, 127, 128, 300, -1, -0.5, 2 ** 31, -(2 ** 31), 2 ** 32, 16383, 16384, 1.5, NaN, '7'];
    const sources = {
      plain: numbers,
      empty: [],
      Int32Array: new Int32Array(numbers.map(Number)),
      Uint32Array: new Uint32Array(numbers.map(Number)),
      Float64Array: new Float64Array(numbers.map(Number)),
      Float32Array: new Float32Array(numbers.map(Number)),
      Uint8Array: new Uint8Array([0, 1, 255]),
      long: Array.from({ length: 300 }, (_, i) => i * 977 - 1000),
    };
    const methods = ['uint32s', 'int32s', 'sint32s', 'fixed32s', 'sfixed32s', 'floats', 'doubles', 'bools',
      'uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s'];
    for (const method of methods) {
      for (const [name, source] of Object.entries(sources)) {
        assertSame((w) => w.uint32(10)[method](source).uint32(1), `${method}(${name})`);
      }
    }
    const longs = [Long.MAX_VALUE, '-5', { low: 1, high: 2 }, -1, 2 ** 60];
    for (const method of ['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s']) {
      assertSame((w) => w[method](longs), `${method}(mixed longs)`);
    }
    assert.strictEqual(hex(RustWriter.create().uint32s([1, 300, -1])), '0801ac02ffffffff0f');
    assert.strictEqual(hex(RustWriter.create().bools([true, 0, 'x'])), '03010001');
  });

  it('prefixes nested forks whose lengths cross 127/128 and 16383/16384 correctly', () => {
    for (const size of [0, 1, 125, 126, 127, 128, 129, 16381, 16382, 16383, 16384, 16385, 2097152]) {
      assertSame((w) => w.uint32(10).fork().uint32(18).fork().raw(Buffer.alloc(size, 5)).ldelim().uint32(1).ldelim(),
        `nested fork around ${size} bytes`);
    }
  });

  it('writes large Uint8Arrays, which it keeps by reference until finish(), as protobufjs does', () => {
    const blob = (len, seed) => Uint8Array.from({ length: len }, (_, i) => (i * 31 + seed) & 255);
    for (const len of [4095, 4096, 4097, 16384, 16385, 70000]) {
      assertSame((w) => w.uint32(10).bytes(blob(len, 1)).uint32(18).bytes(Buffer.from(blob(len, 2))), `bytes of ${len}`);
      // Nested, so the hole lies behind length prefixes of 1 to 3 bytes.
      assertSame((w) => w.uint32(10).fork().uint32(18).fork().bytes(blob(len, 3)).ldelim().uint32(7).ldelim(),
        `nested bytes of ${len}`);
    }
    // More references than a region may have: the rest are copied.
    assertSame((w) => { for (let i = 0; i < 40; i++) w.uint32(10).bytes(blob(5000 + i, i)); return w; }, '40 large values');
    // reset() drops a referenced value; finish() twice and writing after finish() keep working.
    assertSame((w) => w.uint32(1).fork().bytes(blob(9000, 4)).reset().bytes(blob(5000, 5)), 'reset after a reference');
    const { actual, expected } = runBoth([['bytes', blob(6000, 6)], ['finish'], ['uint32', 3], ['finish'], ['finish']]);
    assert.deepStrictEqual(actual, expected);
  });

  it('refuses to finish when an array kept by reference was resized, instead of writing garbage', function () {
    if (typeof ArrayBuffer.prototype.resize !== 'function') this.skip(); // resizable buffers: Node 20+
    const ab = new ArrayBuffer(8192, { maxByteLength: 8192 });
    new Uint8Array(ab).fill(7);
    const w = RustWriter.create().uint32(1).bytes(new Uint8Array(ab));
    ab.resize(100);
    assert.throws(() => w.finish(), /detached or resized before finish\(\)/);
    const packed = new ArrayBuffer(4096, { maxByteLength: 4096 });
    const p = RustWriter.create().uint32(1).doubles(new Float64Array(packed));
    packed.resize(8);
    assert.throws(() => p.finish(), /detached or resized before finish\(\)/);
    assert.strictEqual(hex(RustWriter.create().uint32(150)), '9601');
  });

  it('matches protobufjs for ldelim and reset with and without an open fork', () => {
    assert.strictEqual(hex(RustWriter.create().uint32(1).uint32(2).ldelim()), '020102');
    assert.strictEqual(hex(RustWriter.create().ldelim()), '00');
    assert.strictEqual(hex(RustWriter.create().uint32(1).fork().uint32(2).ldelim().ldelim()), '03010102');
    assert.strictEqual(hex(RustWriter.create().uint32(1).fork().uint32(2).reset().uint32(3)), '0103');
    assert.strictEqual(hex(RustWriter.create().uint32(1).reset().uint32(3)), '03');
    assert.strictEqual(
      hex(RustWriter.create().uint32(10).fork().uint32(18).fork().uint32(7).ldelim().uint32(5).ldelim()),
      '0a0412010705');
    const scripts = [
      [['ldelim'], ['ldelim'], ['finish']],
      [['uint32', 1], ['ldelim'], ['uint32', 2], ['ldelim'], ['finish']],
      [['fork'], ['fork'], ['uint32', 1], ['reset'], ['uint32', 2], ['ldelim'], ['ldelim'], ['ldelim'], ['finish']],
      [['uint32', 1], ['fork'], ['reset'], ['reset'], ['uint32', 2], ['finish']],
    ];
    for (const script of scripts) {
      const { actual, expected } = runBoth(script);
      assert.deepStrictEqual(actual, expected, JSON.stringify(script));
    }
  });

  it('reports pos and len as protobufjs 8.x does, counting open forks', () => {
    const script = [['pos'], ['uint32', 1], ['pos'], ['fork'], ['pos'], ['uint32', 300], ['pos'], ['fork'], ['pos'],
      ['ldelim'], ['pos'], ['ldelim'], ['pos'], ['ldelim'], ['pos']];
    const { actual, expected } = runBoth(script);
    assert.deepStrictEqual(actual, expected);
  });

  it('keeps writing after finish, and finish() twice gives the same bytes, as protobufjs does', () => {
    const { actual, expected } = runBoth([['uint32', 1], ['finish'], ['finish'], ['int64', -1], ['finish'],
      ['finish'], ['fork'], ['uint32', 2], ['ldelim'], ['finish']]);
    assert.deepStrictEqual(actual, expected);
  });
});

describe('RustWriter behaviour of its own', () => {
  it('writes a zero byte for each fork still open at finish (protobufjs leaves that byte uninitialized)', () => {
    assert.strictEqual(hex(RustWriter.create().uint32(1).fork().uint32(2)), '010002');
    assert.strictEqual(hex(RustWriter.create().fork().fork().uint32(2).ldelim()), '000102');
  });

  it('encodes BigInt 64-bit values like the equivalent Long (protobufjs writes 0 for BigInt)', () => {
    const values = [0n, 1n, -1n, 127n, 128n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n, 2n ** 64n,
      -(2n ** 64n) - 5n];
    for (const v of values) {
      const asLong = Long.fromString(BigInt.asIntN(64, v).toString());
      for (const method of ['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64']) {
        assert.strictEqual(hex(RustWriter.create()[method](v)), hex(referenceWriter()[method](asLong)), `${method}(${v}n)`);
      }
      assert.strictEqual(hex(RustWriter.create().sint64s([v, v])), hex(referenceWriter().sint64s([asLong, asLong])));
    }
  });

  it('returns Buffers the caller owns: later encodes, larger ones included, never change them', () => {
    const kept = [];
    for (let i = 0; i < 5000; i++) {
      const w = RustWriter.create().uint32(i).string('x'.repeat(i % 50));
      if (i % 997 === 0) w.bytes(Buffer.alloc(20000 + i, i & 255));
      const out = w.finish();
      kept.push([out, Buffer.from(out)]);
    }
    for (const [out, copy] of kept) {
      assert.ok(Buffer.isBuffer(out));
      assert.ok(out.equals(copy));
    }
  });

  it('never lets reused native memory change a result: large results collected, then many small ones kept', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    for (let round = 0; round < 3; round++) {
      // Large results (own blocks) and full slabs die, are collected, and their memory is pooled...
      for (let i = 0; i < 20; i++) RustWriter.create().bytes(Buffer.alloc(70000 + 1000 * i, i)).finish();
      for (let i = 0; i < 3000; i++) RustWriter.create().string('y'.repeat(250)).uint32(i).finish();
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 5)); // native finalizers run in between
      }
      // ...and is reused for slabs and results that must stay as they were returned.
      const kept = [];
      for (let i = 0; i < 4000; i++) {
        const out = RustWriter.create().string('z'.repeat(200 + (i % 30))).uint32(i).finish();
        kept.push([out, Buffer.from(out)]);
      }
      for (const [out, copy] of kept) assert.ok(out.equals(copy));
    }
  });

  it('gives each interleaved or nested writer its own bytes', () => {
    const a = RustWriter.create().uint32(1);
    const b = RustWriter.create().uint32(2);
    a.uint32(3);
    const inner = RustWriter.create().string('inner').finish();
    b.uint32(4);
    a.fork().uint32(5);
    b.fork().uint32(6).ldelim();
    a.ldelim();
    assert.strictEqual(hex(a), '01030105');
    assert.strictEqual(hex(b), '02040106');
    assert.strictEqual(inner.toString('hex'), '05696e6e6572');
  });

  it('stays correct when a value conversion runs another encode mid-write', () => {
    const sneaky = { valueOf: () => { RustWriter.create().uint32(99).fork().uint32(98).finish(); return 7; } };
    const w = RustWriter.create().uint32(1).uint32(sneaky).double(sneaky).uint32(2);
    assert.strictEqual(hex(w), '0107' + '0000000000001c40' + '02');
    const longish = { get low() { RustWriter.create().string('zz').finish(); return 5; }, high: 0 };
    assert.strictEqual(hex(RustWriter.create().uint64(longish).uint64s([longish, 1])), '05' + '020501');
  });

  it('keeps the next encode correct after an exception in the middle of one', () => {
    const w = RustWriter.create().uint32(1).fork();
    assert.throws(() => w.uint64(null), TypeError);
    assert.strictEqual(hex(RustWriter.create().uint32(150)), '9601');
    assert.strictEqual(hex(w.uint32(2).ldelim()), '010102');
  });

  it('keeps an evicted writer intact while many other encodes fill slabs and the large buffer', () => {
    // Each big encode outgrows a slab and moves to the large buffer, and the small ones fill
    // slabs, while `outer` (unfinished, evicted from its slab) and `done` (finished, then
    // continued) wait.
    const outer = RustWriter.create().uint32(1).fork().string('outer');
    const done = RustWriter.create().uint32(2);
    const first = Buffer.from(done.finish());
    const big = 'x'.repeat(15000);
    for (let i = 0; i < 40; i++) {
      const w = RustWriter.create();
      for (let j = 0; j < 4; j++) w.uint32(j).string(big);
      assert.strictEqual(w.finish().length, 4 * (1 + 2 + big.length));
    }
    outer.ldelim().uint32(3);
    done.uint32(4);
    assert.strictEqual(hex(outer), '0106056f7574657203');
    assert.strictEqual(first.toString('hex'), '02');
    assert.strictEqual(hex(done), '0204');
    assert.strictEqual(hex(done), '0204', 'finish() twice after continuing');
  });

  it('never writes over the bytes of an evicted writer', () => {
    // `a` and `c` are evicted from the slab by the next writers; sixty more unfinished writers
    // fill slabs; `a` then moves to a buffer of its own, and a large writer takes the large
    // buffer: `c`'s bytes in the first slab must survive all of it.
    const a = RustWriter.create().uint32(1).fork().string('a');
    const c = RustWriter.create().uint32(2).fork().string('c');
    const pending = [];
    for (let i = 0; i < 60; i++) pending.push(RustWriter.create().string('p'.repeat(5000)));
    a.uint32(3);
    const large = RustWriter.create().bytes(Array.from({ length: 70000 }, () => 0xbb)).finish();
    assert.strictEqual(large.length, 70003);
    assert.strictEqual(hex(c.ldelim()), '02020163');
    assert.strictEqual(hex(a.ldelim()), '0103016103');
    for (const w of pending) assert.strictEqual(w.finish().length, 2 + 5000);
  });

  it('reuses the large buffer for the next large message without mixing their bytes', () => {
    const blob = (fill) => Buffer.alloc(300000, fill);
    const a = RustWriter.create().bytes(blob(1));
    const outA = a.finish();
    const b = RustWriter.create().bytes(blob(2)).uint32(7);
    const outB = b.finish();
    a.uint32(9);
    const outA2 = a.finish();
    assert.ok(outA.equals(Buffer.concat([Buffer.from([0xe0, 0xa7, 0x12]), blob(1)])));
    assert.ok(outB.equals(Buffer.concat([Buffer.from([0xe0, 0xa7, 0x12]), blob(2), Buffer.from([7])])));
    assert.ok(outA2.equals(Buffer.concat([outA, Buffer.from([9])])));
  });

  it('continues a writer after a transfer of its returned Buffer was attempted, small and large', () => {
    for (const size of [10, 100000]) {
      const w = RustWriter.create().bytes(Buffer.alloc(size, 3));
      const out = w.finish();
      const copy = Buffer.from(out);
      try {
        structuredClone(out.buffer, { transfer: [out.buffer] });
      } catch (err) {
        assert.strictEqual(err.name, 'DataCloneError');
      }
      if (out.length === copy.length) {
        assert.ok(w.uint32(1).finish().equals(Buffer.concat([copy, Buffer.from([1])])), `size ${size}`);
      } else {
        assert.throws(() => w.uint32(1), /finish\(\) returned was detached/);
      }
    }
    assert.strictEqual(hex(RustWriter.create().uint32(150)), '9601');
  });

  it('writes into a caller buffer with finishInto, and throws RangeError when it does not fit', () => {
    const target = Buffer.alloc(6, 0xee);
    assert.strictEqual(RustWriter.create().uint32(300).finishInto(target, 2), target);
    assert.strictEqual(target.toString('hex'), 'eeeeac02eeee');
    assert.throws(() => RustWriter.create().uint32(300).finishInto(Buffer.alloc(1)), RangeError);
  });

  it('exposes protobufjs method aliases as the same functions', () => {
    const p = RustWriter.prototype;
    assert.strictEqual(p.int64, p.uint64);
    assert.strictEqual(p.sfixed32, p.fixed32);
    assert.strictEqual(p.sfixed64, p.fixed64);
    assert.strictEqual(p.int64s, p.uint64s);
    assert.strictEqual(p.sfixed32s, p.fixed32s);
    assert.strictEqual(p.sfixed64s, p.fixed64s);
    for (const name of Object.getOwnPropertyNames(protobuf.Writer.prototype)) {
      if (!name.startsWith('_')) assert.ok(name in p, `RustWriter has ${name}`);
    }
    assert.ok(RustWriter.create() instanceof RustWriter);
    assert.ok(Buffer.isBuffer(RustWriter.alloc(3)) && RustWriter.alloc(3).length === 3);
    assert.ok(Buffer.isBuffer(RustWriter.create().finish()) && RustWriter.create().finish().length === 0);
  });
});

describe('the protocol shared with the native side', () => {
  it('has a number for every name lib/writer/ uses, and lib/writer/ encodes every run kind', () => {
    const dir = path.join(__dirname, '..', 'lib', 'writer');
    const source = fs.readdirSync(dir).map((file) => fs.readFileSync(path.join(dir, file), 'utf8')).join('\n');
    const used = new Set([...source.matchAll(/\bPROTOCOL\.([A-Z][A-Z0-9_]*[A-Z0-9])\b/g)].map((m) => m[1]));
    for (const name of used) assert.strictEqual(typeof _protocol[name], 'number', `protocol.json defines ${name}`);
    const kinds = Object.keys(_protocol).filter((name) => name.startsWith('RUN_') && !/^RUN_(WORDS|KIND|COUNT|FIRST|LEN)$/.test(name));
    assert.strictEqual(kinds.length, 5);
    for (const name of kinds) assert.ok(used.has(name), `lib/writer/ uses ${name}`);
    const values = kinds.map((name) => _protocol[name]);
    assert.strictEqual(new Set(values).size, values.length, 'kind numbers are unique');
    assert.ok(!values.includes(0), 'zeroed memory is never a valid kind');
  });

  it('has in protocol.json exactly what the binding reports (so the JS-only path uses the same numbers)', function () {
    if (!RustWriter.native) this.skip(); // the JS-only path has no binding to compare with
    const { protocol } = require('../lib/writer/addon').load().binding;
    assert.deepStrictEqual({ ...protocol() }, require('../protocol.json'));
  });
});
