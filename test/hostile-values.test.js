'use strict';

/**
 * Regressions: the bugs that adversarial fuzzing from the JS side (`npm run fuzz:js`) found, one
 * test each, named after what it was. Values that run user code in the middle of a write: a
 * `valueOf` or getter that throws, writes to the writer converting it, or encodes with another
 * writer; typed arrays detached, resized or with an own `length`. Each compares with protobufjs
 * 8.8.1's writer given the same calls, where protobufjs's result is defined.
 */

const assert = require('assert');
const crypto = require('crypto');
const protobuf = require('protobufjs');
const { RustWriter, _testing } = require('..');
const { referenceWriter, withPath, shippedSettings } = require('./helpers');

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const hash = (bytes) => crypto.createHash('sha1').update(bytes).digest('hex');

/** A value whose conversion throws. */
const throwing = () => ({ valueOf() { throw new Error('no number here'); } });

/**
 * Runs `calls(w, create)` on a writer of each kind (`create` makes another of the same kind)
 * and returns, per writer, the class of what it threw, then `pos` and the bytes of `finish()`.
 * @param {function(object, function(): object): *} calls The calls
 * @returns {{ours: string, theirs: string}} Transcripts
 */
function both(calls) {
  const run = (create) => {
    const w = create();
    let thrown = 'nothing';
    try {
      calls(w, create);
    } catch (err) {
      thrown = err.constructor.name;
    }
    return `threw ${thrown}, pos ${w.pos}, finish ${hex(w.finish())}`;
  };
  return { ours: run(RustWriter.create), theirs: run(referenceWriter) };
}

/** The paths that matter here: shipped thresholds, and everything through entries. */
const PATHS = [
  ['with the shipped thresholds', {}],
  ['with every packed field and bytes through entries', { runMin: 1, runMinTyped: 1, refMin: 1 }],
];

describe('values that run user code in the middle of a write', function () {
  for (const [pathName, options] of PATHS) {
    describe(pathName, function () {
      const it$ = (title, fn) => it(title, () => withPath(options, fn));

      it$('stale bytes after a packed call threw part-way: the writer is left as protobufjs leaves it', () => {
        for (const method of ['uint32s', 'int32s', 'sint32s', 'uint64s', 'sint64s', 'fixed32s', 'floats', 'doubles', 'fixed64s']) {
          for (const length of [2, 20, 3000]) {
            const values = Array.from({ length }, (_, i) => i * 37);
            values[length - 1] = throwing();
            const { ours, theirs } = both((w) => {
              w.uint32(8).uint32(1);
              w[method](values);
            });
            assert.strictEqual(ours, theirs, `${method} of ${length}`);
          }
        }
      });

      it$('stale bytes after bools, bytes or raw threw part-way on an element getter', () => {
        const getterThrows = [1, 0, 1];
        Object.defineProperty(getterThrows, 2, { get() { throw new Error('no element'); } });
        for (const method of ['bools', 'bytes', 'raw']) {
          const { ours, theirs } = both((w) => w.uint32(8).uint32(1)[method](getterThrows));
          assert.strictEqual(ours, theirs, method);
        }
        const { ours, theirs } = both((w) => w.uint32(8).uint32(1).bytes([1, 2, throwing()]));
        assert.strictEqual(ours, theirs);
        assert.strictEqual(ours, 'threw Error, pos 3, finish 080103');
      });

      it$('a conversion that writes to, resets or finishes its own writer cannot corrupt it, a result or the module', () => {
        const kept = [];
        const misuses = [(w) => w.uint32(5), (w) => w.finish(), (w) => w.reset(), (w) => w.fork(), (w) => w.ldelim(),
          (w) => w.string('re-entered')];
        for (const misuse of misuses) {
          for (const method of ['uint32s', 'sint32s', 'fixed32s', 'bools', 'bytes', 'raw', 'doubles']) {
            for (const length of [3, 40, 3000]) {
              // The misuse throws inside the conversion, so the call ends as if a conversion
              // threw: the writer goes on as protobufjs's does after one.
              const calls = (w, element) => {
                w.uint32(10).string('before');
                kept.push(w.finish());
                kept.push(hash(kept[kept.length - 1]));
                const values = Array.from({ length }, (_, i) => i & 127);
                values[length >> 1] = element(w);
                if (method === 'bools') Object.defineProperty(values, length >> 1, { get() { return element(w).valueOf(); } });
                w.uint32(18);
                return values;
              };
              const ours = RustWriter.create();
              const values = calls(ours, (w) => ({ valueOf() { misuse(w); return 1; } }));
              assert.throws(() => ours[method](values), /cannot be used by a valueOf, toString or getter that one of its own calls is converting/);
              const theirs = referenceWriter();
              const reference = calls(theirs, () => throwing());
              assert.throws(() => theirs[method](reference));
              assert.strictEqual(hex(ours.uint32(24).uint32(7).finish()), hex(theirs.uint32(24).uint32(7).finish()), `${method} of ${length}`);
            }
          }
        }
        for (let i = 0; i < kept.length; i += 2) assert.strictEqual(hash(kept[i]), kept[i + 1]);
        assert.strictEqual(hex(RustWriter.create().uint32(1).finish()), '01');
      });

      it$('a re-entrant scalar call converts its argument first: one protobufjs rejects gets protobufjs\'s error', () => {
        // Found by fuzz:js's long run (seed 24696): `uint64(undefined)` from inside a conversion of
        // the same writer throws protobufjs's TypeError; a valid argument gets the refusal.
        const attempts = [
          [(w) => w.uint64(undefined), TypeError], [(w) => w.sint64(null), TypeError], [(w) => w.int32(1n), TypeError],
          [(w) => w.uint64(5), Error], [(w) => w.double('1.5'), Error],
        ];
        for (const [attempt, errorClass] of attempts) {
          const w = RustWriter.create().uint32(8);
          let thrown = null;
          const values = [1, { valueOf() { try { attempt(w); } catch (err) { thrown = err; } return 2; } }];
          w.fixed32s(values);
          assert.strictEqual(thrown && thrown.constructor, errorClass, String(attempt));
          assert.strictEqual(hex(w.finish()), hex(referenceWriter().uint32(8).fixed32s([1, 2]).finish()));
        }
      });

      it$('a conversion that writes a long packed field to its own writer is refused before it converts an element', () => {
        // Found by fuzz:js once its callbacks also wrote packed fields to their own writer: a
        // field long enough for the native encoder converted its elements, then recorded its
        // run into the held writer, whose finish() later threw a RangeError.
        for (const method of ['uint32s', 'int32s', 'sint32s']) {
          const w = RustWriter.create().uint32(8);
          const converted = [];
          const long = Array.from({ length: 3000 }, (_, i) => i);
          long[0] = { valueOf() { converted.push(0); return 0; } };
          let thrown = null;
          w.fixed32s([1, { valueOf() { try { w[method](long); } catch (err) { thrown = err; } return 2; } }]);
          assert.match(String(thrown), /cannot be used by a valueOf, toString or getter that one of its own calls is converting/, method);
          assert.deepStrictEqual(converted, [], method);
          assert.strictEqual(hex(w.finish()), hex(referenceWriter().uint32(8).fixed32s([1, 2]).finish()), method);
        }
      });

      it$('a conversion that encodes with another writer leaves both writers\' bytes and every result intact', () => {
        for (const method of ['uint32s', 'int32s', 'sint32s', 'fixed32s', 'floats', 'doubles', 'bytes', 'raw']) {
          for (const length of [3, 40, 3000]) {
            const inner = [];
            const { ours, theirs } = both((w, create) => {
              const values = Array.from({ length }, (_, i) => i & 127);
              values[length >> 1] = {
                valueOf() {
                  const out = create().uint32(10).string('x'.repeat(200)).uint32(16).uint32s([1, 2, 3]).finish();
                  inner.push([out, hash(out)]);
                  return 9;
                },
              };
              w.uint32(8).uint32(1)[method](values);
              w.uint32(16).string('after');
            });
            assert.strictEqual(ours, theirs, `${method} of ${length}`);
            for (const [out, digest] of inner) assert.strictEqual(hash(out), digest);
          }
        }
      });
    });
  }

  it('scratch clobbered by re-entrancy: a Long-like whose high getter encodes a 64-bit value', () => {
    const longLike = (create) => ({ low: 5, get high() { create().uint64(0x12345678).finish(); return 0; } });
    const { ours, theirs } = both((w, create) => w.uint64(longLike(create)));
    assert.strictEqual(ours, theirs);
    assert.strictEqual(ours, 'threw nothing, pos 1, finish 05');
    const element = (create) => ({ low: 7, get high() { create().sint64(-3).fixed64(9).finish(); return 1; } });
    const packed = both((w, create) => w.uint64s([element(create), 3]));
    assert.strictEqual(packed.ours, packed.theirs);
  });

  it('scratch clobbered by re-entrancy: floats and doubles of 16+ plain elements whose valueOf encodes floats', () => {
    for (const method of ['floats', 'doubles']) {
      const { ours, theirs } = both((w, create) => {
        const values = Array.from({ length: 40 }, (_, i) => i / 3);
        values[7] = { valueOf() { create()[method](Array.from({ length: 30 }, (_, i) => -i)).finish(); return 0.5; } };
        w[method](values);
      });
      assert.strictEqual(ours, theirs, method);
    }
  });

  it('a signalling NaN in a Float32Array is written quiet, as protobufjs writes it', () => {
    for (const length of [3, 20, 2000]) {
      const bits = new Uint32Array(length).fill(0x3f800000);
      bits[1] = 0x7fa00000;
      bits[length - 1] = 0xffa00001;
      const floats = new Float32Array(bits.buffer);
      for (const options of [{}, { refMin: 1 }]) {
        withPath(options, () => {
          const { ours, theirs } = both((w) => w.uint32(10).floats(floats));
          assert.strictEqual(ours, theirs, `${length} floats`);
        });
      }
    }
  });

  it('sint32s of 2,048+ plain elements reads each element twice, as protobufjs does', () => {
    const reads = { ours: 0, theirs: 0 };
    const make = (counter) => {
      const values = Array.from({ length: 3000 }, (_, i) => i - 1500);
      Object.defineProperty(values, 5, { get() { ++reads[counter]; return -7; } });
      return values;
    };
    const ours = hex(RustWriter.create().sint32s(make('ours')).finish());
    const theirs = hex(referenceWriter().sint32s(make('theirs')).finish());
    assert.strictEqual(ours, theirs);
    assert.deepStrictEqual(reads, { ours: 2, theirs: 2 });
  });

  it('an own length getter on a typed array runs once, at the call, and never in finish()', () => {
    for (const [method, Type, count] of [['uint32s', Int32Array, 300], ['bytes', Uint8Array, 5000], ['doubles', Float64Array, 900],
      ['fixed64s', BigInt64Array, 600], ['sint64s', BigInt64Array, 300]]) {
      const array = new Type(count);
      let calls = 0;
      Object.defineProperty(array, 'length', { get() { ++calls; return count; } });
      const w = RustWriter.create().uint32(10)[method](array);
      assert.strictEqual(calls, 1, `${method}: at the call`);
      w.finish();
      assert.strictEqual(calls, 1, `${method}: in finish()`);
    }
  });

  it('pos after an array kept by reference was detached: the clear error finish() gives, not a wrong number', () => {
    for (const [method, Type] of [['uint32s', Int32Array], ['sint64s', BigInt64Array]]) {
      const array = new Type(200).fill(method === 'sint64s' ? 300n : 300);
      const w = RustWriter.create().uint32(10)[method](array);
      const expected = referenceWriter().uint32(10)[method](method === 'sint64s' ? Array.from(array, Number) : array).pos;
      assert.strictEqual(w.pos, expected);
      structuredClone(array.buffer, { transfer: [array.buffer] });
      assert.throws(() => w.pos, /detached or resized before finish\(\)/);
      assert.throws(() => w.finish(), /detached or resized before finish\(\)/);
    }
  });

  it('a bytes array dropped by reset() no longer makes finish() throw when it is detached', () => {
    const blob = new Uint8Array(6000).fill(3);
    const w = RustWriter.create().uint32(8).uint32(1).fork().uint32(18).bytes(blob).reset();
    structuredClone(blob.buffer, { transfer: [blob.buffer] });
    assert.strictEqual(hex(w.uint32(16).uint32(2).finish()), '08011002');
  });

  it('a length-tracking view given to a fixed-size method and then grown makes finish() throw', function () {
    if (typeof ArrayBuffer.prototype.resize !== 'function') this.skip(); // resizable buffers: Node 20+
    for (const [method, Type] of [['fixed32s', Uint32Array], ['floats', Float32Array], ['doubles', Float64Array], ['fixed64s', BigUint64Array]]) {
      const buffer = new ArrayBuffer(8192, { maxByteLength: 16384 });
      const view = new Type(buffer);
      const w = RustWriter.create().uint32(10)[method](view);
      buffer.resize(16384);
      assert.throws(() => w.finish(), /detached or resized before finish\(\)/, method);
    }
  });

  it('leaves the shipped configuration, as a fresh instance of the package has it (no test above leaks its path)', () => {
    assert.deepStrictEqual(_testing.configure({}), shippedSettings());
    assert.ok(protobuf.Writer.create() instanceof protobuf.BufferWriter);
  });
});
