'use strict';

/**
 * The compiled encoders (lib/encoders/): installed into every Type with `install()`, off with
 * `{ compiled: false }` or `PROTOBUFJS_RUSTWRITER_COMPILED=0`; protobufjs's bytes on both rule sets
 * (7.x and 8.x) for every kind of field, into a fresh writer or one already written; what a writer
 * is after an encode that throws, re-enters it, or encodes with another writer; the recursion limit;
 * a schema changed after its first encode; the tiers (a Type compiled once it is hot, a nested Type
 * with the Type that holds it, protobufjs's bytes at every step). `npm run fuzz:schemas` compares
 * them with protobufjs over generated schemas and messages.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const Long = require('long');
const temporal = require('../bench/real/temporal');
const { RustWriter, install, uninstall, status, _testing } = require('..');
const { PATHS, withPath, PARTS_FIELDS } = require('./helpers');
const { referenceCopy, referenceWriter } = require('./reference');
const { observeTier, probeOf } = require('./compiled');

/** A 64-bit map key as protobufjs 8's `util.longToHash` makes it: 8 characters, which `util.longFromKey` decodes. */
const HASH = String.fromCharCode(5, 0, 0, 0, 1, 0, 0, 0);

/** The copies the tests install into (the subjects), and the major version of each. */
const COPIES = [['protobufjs 8.8.1', require('protobufjs'), '8'], ['protobufjs 7.6.6', require('protobufjs7'), '7']];
const MAJOR = new Map(COPIES.map(([, pb, major]) => [pb, major]));

/**
 * @param {object} protobuf A subject copy
 * @returns {object} The reference copy of its version: protobufjs as the package never touched it (test/reference.js)
 */
const refOf = (protobuf) => referenceCopy(MAJOR.get(protobuf)).pb;

/**
 * @param {object} protobuf A subject copy
 * @returns {object} A writer of its version's reference copy, with the rules it learned
 */
const refWriter = (protobuf) => referenceWriter(MAJOR.get(protobuf));

const PROTO3 = `syntax = "proto3";
package t;
enum Kind { ZERO = 0; ONE = 1; NEG = -3; }
message Leaf { int32 a = 1; string s = 2; bytes b = 3; }
message Node {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; fixed64 f64 = 8; sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;
  bool b = 13; string s = 14; bytes by = 15; Kind kind = 16; Leaf leaf = 17; optional int32 opt = 18;
  repeated int32 ri = 19; repeated sint64 rs64 = 20; repeated double rd = 21; repeated bool rb = 22;
  repeated int32 unpacked = 23 [packed = false]; repeated string rstr = 24; repeated Leaf leaves = 25;
  repeated Kind kinds = 26; repeated bytes rby = 27;
  map<string, Leaf> byName = 28; map<int64, string> byId = 29; map<bool, int32> flags = 30;
  map<uint32, double> u32m = 31; map<sint64, Kind> s64m = 32; map<fixed64, bytes> f64m = 33;
  oneof pick { string ps = 34; Leaf pl = 35; }
  Node child = 36; uint32 big = 536870911;
}`;

const PROTO2 = `syntax = "proto2";
package t2;
message Item { required int32 id = 1; optional string name = 2 [default = "n"]; optional group G = 3 { optional int32 x = 4; } }
message Box { repeated Item items = 1; optional Item first = 2; repeated int32 ns = 3 [packed = true]; repeated int32 loose = 4; }`;

/**
 * A message of every kind of field, with values in the forms protobufjs takes.
 * @returns {object} Plain object for `Node`
 */
function everything() {
  return {
    i32: -5, i64: '-9223372036854775808', u32: 4294967295, u64: Long.fromString('18446744073709551615', true),
    s32: -2147483648, s64: { low: 1, high: -1 }, f32: 7, f64: 2 ** 40, sf32: -7, sf64: -(2 ** 40), fl: 1.5, db: -0.1,
    b: true, s: 'é\u{1F680}x'.repeat(20), by: Buffer.from([1, 2, 3]), kind: -3, leaf: { a: 1, s: 'leaf', b: 'AQID' },
    opt: 0, ri: [1, -1, 300, 2 ** 31], rs64: [-1, 1, '3'], rd: [NaN, -0, Infinity], rb: [true, false, 1],
    unpacked: [5, 6], rstr: ['', 'a', 'x'.repeat(200)], leaves: [{ a: 1 }, { s: 'y'.repeat(300) }, {}],
    kinds: [0, 1, -3], rby: [Buffer.alloc(0), Buffer.alloc(5000, 9)],
    byName: { a: { a: 1 }, b: { s: 'b'.repeat(130) } }, byId: { 1: 'one', '-5': 'minus five', 12345678: 'eight digits', [HASH]: 'a Long as a key' }, flags: { true: 1, false: 2 },
    u32m: { 7: 0.5 }, s64m: { '-1': 1 }, f64m: { 12: Buffer.from('z') },
    pl: { a: 9 }, child: { i32: 1, child: { s: 'deep', leaves: Array.from({ length: 40 }, (_, i) => ({ a: i, s: 'l'.repeat(i) })) } },
    big: 1,
  };
}

/**
 * Roots of `source`: one of the subject copy `protobuf` (installed into: compiled encoders), and one of
 * its version's reference copy (protobufjs's own encoders and writer, which the package never touched).
 * @param {object} protobuf The subject copy
 * @param {string} source Schema
 * @returns {{ours: object, theirs: object}} Roots
 */
function roots(protobuf, source) {
  return { ours: protobuf.parse(source).root, theirs: refOf(protobuf).parse(source).root };
}

/**
 * protobufjs's bytes for `m`: the reference copy's generated encoder with its own writer.
 * @param {object} protobuf The subject copy (whose version's reference `T` is of)
 * @param {object} T Type of the reference copy
 * @param {object} m Message
 * @returns {string} Hex
 */
function reference(protobuf, T, m) {
  return Buffer.from(T.encode(m, refWriter(protobuf)).finish()).toString('hex');
}

describe('compiled encoders', function () {
  this.timeout(120000);

  for (const [name, protobuf] of COPIES) {
    describe(name, () => {
      // Every Type compiled at once, as after promotion (the tiers are tested below).
      let configured;
      before(() => {
        configured = _testing.configure({ promoteAfter: 0 });
        install(protobuf);
      });
      after(() => {
        uninstall(protobuf);
        _testing.configure(configured);
      });

      it('are what Type.encode is once a Type is set up, and status() says so', () => {
        const T = protobuf.parse('syntax = "proto3"; message M { int32 a = 1; }').root.lookupType('M');
        T.encode({ a: 1 });
        assert.match(T.encode.name, /^encode_M_\d+$/);
        assert.strictEqual(status().copies.find((c) => c.version === (name.endsWith('8.8.1') ? '8.8.1' : '7.6.6')).compiled, true);
      });

      for (const [pathName, options] of PATHS) {
        it(`write protobufjs's bytes for every kind of field, proto3 and proto2, ${pathName}, running compiled code`, () => withPath(options, () => {
          const { ours, theirs } = roots(protobuf, PROTO3);
          const m = everything();
          const N = ours.lookupType('t.Node');
          const R = theirs.lookupType('t.Node');
          assert.strictEqual(Buffer.from(N.encode(m).finish()).toString('hex'), reference(protobuf, R, m));
          const observed = observeTier(N, m);
          assert.strictEqual(observed.tier, 'compiled');
          assert.strictEqual(observed.bytes.toString('hex'), reference(protobuf, R, m));
          const fromObject = N.fromObject(m);
          assert.strictEqual(Buffer.from(N.encode(fromObject).finish()).toString('hex'), reference(protobuf, R, R.fromObject(m)));
          assert.strictEqual(Buffer.from(N.encode({}).finish()).toString('hex'), reference(protobuf, R, {}));
          const two = roots(protobuf, PROTO2);
          const box = { items: [{ id: 1, name: 'a', g: { x: 5 } }, { id: -2 }], first: { id: 3, g: {} }, ns: [1, 2, 3], loose: [4] };
          assert.strictEqual(Buffer.from(two.ours.lookupType('t2.Box').encode(box).finish()).toString('hex'),
            reference(protobuf, two.theirs.lookupType('t2.Box'), box));
          assert.strictEqual(observeTier(two.ours.lookupType('t2.Box'), box).tier, 'compiled');
        }));
      }

      it('hand a writer that is not a RustWriter to protobufjs\'s own generated encoder: the reference\'s calls and bytes', () => {
        // The contract of the compiled encoders for the writers they do not write into themselves
        // (protobufjs's own, or one the shadow check samples): the calls protobufjs's code makes.
        const recording = (w, log) => {
          const proxy = new Proxy(w, {
            get(target, key) {
              const value = target[key];
              if (typeof value !== 'function' || typeof key !== 'string') return value;
              return (...args) => {
                log.push(key);
                const out = value.apply(target, args);
                return out === target ? proxy : out;
              };
            },
          });
          return proxy;
        };
        const { ours, theirs } = roots(protobuf, PROTO3);
        const N = ours.lookupType('t.Node');
        const R = theirs.lookupType('t.Node');
        const m = everything();
        N.encode(m).finish(); // compiled (promoteAfter 0)
        assert.ok(_testing.isCompiled(N.encode));
        const logs = { ours: [], theirs: [] };
        const got = N.encode(m, recording(new protobuf.BufferWriter(), logs.ours)).finish();
        const expected = R.encode(m, recording(refWriter(protobuf), logs.theirs)).finish();
        assert.deepStrictEqual(logs.ours, logs.theirs);
        assert.ok(logs.ours.length > 50, `${logs.ours.length} calls`);
        assert.strictEqual(Buffer.from(got).toString('hex'), Buffer.from(expected).toString('hex'));
      });

      it('write into a writer already written, with a fork open, and with encodeDelimited, as protobufjs does', () => {
        const { ours, theirs } = roots(protobuf, PROTO3);
        const m = { i32: 1, leaf: { s: 'x'.repeat(200) }, byName: { k: { a: 2 } } };
        const write = (T, w) => {
          w.uint32(8).uint32(1).uint32(18).fork().string('before');
          T.encode(m, w);
          T.encodeDelimited(m, w);
          w.ldelim();
          T.encode(m, w.uint32(26).fork()).ldelim();
          return Buffer.from(w.finish()).toString('hex');
        };
        assert.strictEqual(write(ours.lookupType('t.Node'), RustWriter.create()), write(theirs.lookupType('t.Node'), refWriter(protobuf)));
        assert.strictEqual(Buffer.from(ours.lookupType('t.Node').encodeDelimited(m).finish()).toString('hex'),
          Buffer.from(theirs.lookupType('t.Node').encodeDelimited(m, refWriter(protobuf)).finish()).toString('hex'));
      });

      it('leave the writer as it was when reading the message throws', () => {
        const { ours } = roots(protobuf, PROTO3);
        const N = ours.lookupType('t.Node');
        const w = RustWriter.create().uint32(8).uint32(7);
        const m = { i32: 5, leaf: { a: 1, s: 'y'.repeat(300) }, rby: [Buffer.alloc(5000)], get rstr() { throw new RangeError('no'); } };
        assert.throws(() => N.encode(m, w), RangeError);
        assert.strictEqual(w.pos, 2);
        assert.strictEqual(Buffer.from(w.uint32(16).uint32(1).finish()).toString('hex'), '08071001');
      });

      it('refuse a getter that writes to the writer being encoded into, and the writer goes on', () => {
        const { ours } = roots(protobuf, PROTO3);
        const N = ours.lookupType('t.Node');
        const w = RustWriter.create();
        const m = { get i32() { w.uint32(1); return 1; } };
        assert.throws(() => N.encode(m, w), /cannot be used by a valueOf, toString or getter/);
        assert.strictEqual(Buffer.from(N.encode({ i32: 2 }, w).finish()).toString('hex'), '0802');
      });

      it('let a getter encode another message with a writer of its own', () => {
        const { ours, theirs } = roots(protobuf, PROTO3);
        const inner = { s: 'inner'.repeat(30) };
        const make = (T) => ({ i32: 1, get by() { return T.lookupTypeOrEnum('t.Leaf').encode(inner).finish(); }, s: 'after' });
        const R = theirs.lookupType('t.Node');
        const expected = Buffer.from(R.encode({ i32: 1, by: R.lookupTypeOrEnum('t.Leaf').encode(inner, refWriter(protobuf)).finish(), s: 'after' },
          refWriter(protobuf)).finish()).toString('hex');
        const N = ours.lookupType('t.Node');
        for (let i = 0; i < 3; i++) assert.strictEqual(Buffer.from(N.encode(make(N)).finish()).toString('hex'), expected);
      });

      it('tell own fields from inherited ones as hasOwnProperty does, for plain objects and Proxies alike', () => {
        // Each case holds a field that protobufjs's hasOwnProperty check skips: code that took a plain
        // object's properties as its own unless Object.prototype has them (docs/benchmark.md, not kept)
        // fails here unless it reads the prototype per field and leaves Proxies to hasOwnProperty.
        const { ours, theirs } = roots(protobuf, PROTO3);
        const both = (make) => [ours, theirs].map((root) => {
          const log = [];
          const m = make(log);
          const T = root.lookupType('t.Node');
          const w = root === ours ? RustWriter.create() : refWriter(protobuf);
          return { hex: Buffer.from(T.encode(m, w).finish()).toString('hex'), log };
        });
        const cases = {
          'a field on Object.prototype': () => ({ i32: 1 }),
          'a prototype changed by a getter': () => ({ get i32() { Object.setPrototypeOf(this, { u32: 7, s: 'inherited' }); return 1; } }),
          'no prototype': () => Object.assign(Object.create(null), { i32: 1, u32: 2 }),
          'a Proxy of a plain object': (log) => new Proxy({ i32: 1, s: 'own' }, {
            get: (target, key, receiver) => { log.push(`get ${String(key)}`); return Reflect.get(target, key, receiver); },
            getOwnPropertyDescriptor: (target, key) => { log.push(`own ${String(key)}`); return Reflect.getOwnPropertyDescriptor(target, key); },
            getPrototypeOf: (target) => { log.push('prototype'); return Reflect.getPrototypeOf(target); },
          }),
        };
        Object.prototype.u64 = 5;
        try {
          for (const [title, make] of Object.entries(cases)) {
            const [got, expected] = both(make);
            assert.deepStrictEqual(got, expected, title);
          }
        } finally {
          delete Object.prototype.u64;
        }
        assert.deepStrictEqual(both(cases['a Proxy of a plain object'])[0].log.filter((l) => l === 'prototype'), []);
      });

      it('read 64-bit values as protobufjs\'s LongBits.from does: String objects, Proxies, getters, in its order', () => {
        // The encoders spell out LongBits.from's checks for objects (lib/encoders/compile.js
        // `withWords`); each value below takes one of its branches, and the logs show every read.
        const { ours, theirs } = roots(protobuf, PROTO3);
        const logged = (log, target) => new Proxy(target, {
          get: (t, key, receiver) => { log.push(`get ${String(key)}`); return Reflect.get(t, key, receiver); },
          getPrototypeOf: (t) => { log.push('prototype'); return Reflect.getPrototypeOf(t); },
        });
        const words = (log, low, high) => ({
          get low() { log.push('low'); return { valueOf: () => { log.push('low valueOf'); return low; } }; },
          get high() { log.push('high'); return high; },
        });
        const values = {
          'a String object': () => new String('-9007199254740993'),
          'a String object of one chunk': () => new String('12'),
          'a Proxy of a Long': (log) => logged(log, Long.fromBits(-1, 0x7fffffff)),
          'getters with a valueOf': (log) => words(log, -7, 3),
          'words that are both zero': (log) => words(log, 0, 0),
          'a Long of zero': () => Long.ZERO,
          null: () => null,
        };
        for (const [title, make] of Object.entries(values)) {
          for (const field of ['i64', 'u64', 's64', 'f64', 'sf64']) {
            const [got, expected] = [ours, theirs].map((root) => {
              const log = [];
              const T = root.lookupType('t.Node');
              const w = root === ours ? RustWriter.create() : refWriter(protobuf);
              try {
                return { hex: Buffer.from(T.encode({ [field]: make(log) }, w).finish()).toString('hex'), log };
              } catch (err) {
                return { threw: err.constructor.name, log };
              }
            });
            assert.deepStrictEqual(got, expected, `${title} in ${field}`);
          }
        }
        // A Proxy of a String object: the same result (where it is read, a TypeError: String.prototype
        // .toString rejects a Proxy), but `Long.fromString` reads its `length` and `indexOf` before,
        // where RustWriter converts it to a string first (lib/writer/long.js `decimalBits`): the logs differ.
        for (const field of ['i64', 'u64', 's64', 'f64', 'sf64']) {
          const [got, expected] = [ours, theirs].map((root) => {
            const w = root === ours ? RustWriter.create() : refWriter(protobuf);
            try {
              return Buffer.from(root.lookupType('t.Node').encode({ [field]: logged([], new String('5')) }, w).finish()).toString('hex');
            } catch (err) {
              return err.constructor.name;
            }
          });
          assert.strictEqual(got, expected, `a Proxy of a String object in ${field}`);
        }
      });

      it('set nested Types up, and call their encode where the app replaced it, as protobufjs\'s encoder does', () => {
        const { ours, theirs } = roots(protobuf, PROTO3);
        const setUp = (root) => {
          root.lookupType('t.Node').encode({ leaf: { a: 1 } });
          return Object.prototype.hasOwnProperty.call(root.lookupType('t.Leaf'), 'encode');
        };
        assert.strictEqual(setUp(ours), true);
        assert.strictEqual(setUp(ours), setUp(theirs));
        const calls = [];
        for (const root of [ours, theirs]) {
          const Leaf = root.lookupType('t.Leaf');
          const own = Leaf.encode;
          Leaf.encode = function appEncode(m, w, q) {
            calls.push(root === ours ? 'ours' : 'theirs');
            return own.call(this, m, w, q);
          };
        }
        const m = { leaf: { a: 2 }, leaves: [{ a: 3 }] };
        assert.strictEqual(Buffer.from(ours.lookupType('t.Node').encode(m).finish()).toString('hex'),
          reference(protobuf, theirs.lookupType('t.Node'), m));
        assert.deepStrictEqual(calls, ['ours', 'ours', 'theirs', 'theirs']);
      });

      it('throw protobufjs\'s error past its recursion limit', () => {
        const { ours, theirs } = roots(protobuf, PROTO3);
        let m = {};
        for (let i = 0; i < protobuf.util.recursionLimit + 5; i++) m = { child: m };
        const errorOf = (fn) => { try { fn(); return null; } catch (err) { return `${err.constructor.name}: ${err.message}`; } };
        assert.strictEqual(errorOf(() => ours.lookupType('t.Node').encode(m)),
          errorOf(() => theirs.lookupType('t.Node').encode(m, refWriter(protobuf))));
        assert.notStrictEqual(errorOf(() => ours.lookupType('t.Node').encode(m)), null);
      });

      it('follow a field added after the Type first encoded', () => {
        const { ours, theirs } = roots(protobuf, PROTO3);
        const N = ours.lookupType('t.Leaf');
        const R = theirs.lookupType('t.Leaf');
        assert.strictEqual(Buffer.from(N.encode({ a: 1 }).finish()).toString('hex'), reference(protobuf, R, { a: 1 }));
        N.add(new protobuf.Field('extra', 9, 'string'));
        R.add(new (refOf(protobuf).Field)('extra', 9, 'string'));
        assert.strictEqual(Buffer.from(N.encode({ a: 1, extra: 'new' }).finish()).toString('hex'), reference(protobuf, R, { a: 1, extra: 'new' }));
        const P = ours.lookupType('t.Node');
        assert.strictEqual(Buffer.from(P.encode({ leaf: { extra: 'nested' } }).finish()).toString('hex'),
          reference(protobuf, theirs.lookupType('t.Node'), { leaf: { extra: 'nested' } }));
        // A nested Type changed after its enclosing one was set up: protobufjs's enclosing encoder sets
        // it up again by calling its encode, which also renews its fromObject; so does a compiled one.
        // The second encode checks what the enclosing code does once the nested Type is set up again:
        // Node's function wrote Leaf's fields in place (inlined), as they were when it was compiled.
        N.add(new protobuf.Field('later', 10, 'int32'));
        R.add(new (refOf(protobuf).Field)('later', 10, 'int32'));
        for (let i = 0; i < 2; i++) {
          assert.strictEqual(Buffer.from(P.encode({ leaf: { later: 3 } }).finish()).toString('hex'),
            reference(protobuf, theirs.lookupType('t.Node'), { leaf: { later: 3 } }));
        }
        assert.deepStrictEqual(N.fromObject({ later: 4 }).later, R.fromObject({ later: 4 }).later);
        assert.strictEqual(N.fromObject({ later: 4 }).later, 4);
      });

      it('compile a deep schema with work in proportion to its fields, and write protobufjs\'s bytes', () => {
        // Six layers of six Types, each with a field of every Type of the next layer: 6^5 paths from the
        // top. Deciding to inline a nested Type by generating its code first generated code for every
        // path (some 62,000 fields generated for 252); each field is now generated a few times at most.
        let source = 'syntax = "proto3"; package d;';
        for (let layer = 0; layer < 6; layer++) {
          for (let k = 0; k < 6; k++) {
            source += ` message T${layer}_${k} { int32 a = 1; string s = 2;`;
            if (layer < 5) for (let j = 0; j < 6; j++) source += ` T${layer + 1}_${j} f${j} = ${j + 3};`;
            source += ' }';
          }
        }
        const { ours, theirs } = roots(protobuf, source);
        const fields = ours.lookup('d').nestedArray.reduce((sum, t) => sum + t.fieldsArray.length, 0);
        const { resolve } = protobuf.Field.prototype;
        let generated = 0;
        protobuf.Field.prototype.resolve = function countedResolve() {
          generated += 1;
          return resolve.call(this);
        };
        const m = { a: 1, f2: { s: 'x', f5: { a: -2, f0: { f1: { f3: { s: 'deep', f4: { a: 7 } } } } } } };
        let bytes;
        try {
          bytes = Buffer.from(ours.lookupType('d.T0_0').encode(m).finish()).toString('hex');
        } finally {
          protobuf.Field.prototype.resolve = resolve;
        }
        assert.ok(generated <= 10 * fields, `${generated} fields generated for ${fields}`);
        assert.strictEqual(bytes, reference(protobuf, theirs.lookupType('d.T0_0'), m));
      });
    });
  }

  describe('tiers', () => {
    /**
     * The function that reads a property: a compiled encoder's (`write_<Type>_<n>`, the Type whose
     * function holds the code, inlined or not) or protobufjs's generated encoder (any other name).
     * @returns {string} Its name
     */
    function reader() {
      const capture = {};
      const prepare = Error.prepareStackTrace;
      Error.prepareStackTrace = (_err, sites) => sites;
      Error.captureStackTrace(capture, reader);
      const sites = capture.stack;
      Error.prepareStackTrace = prepare;
      return String(sites[1].getFunctionName());
    }
    /**
     * A message whose field `a` records who reads it first.
     * @param {string[]} log Where the reader goes
     * @param {number} a Its value
     * @returns {object} Plain object
     */
    const logged = (log, a) => {
      let read = false;
      return {
        get a() {
          if (!read) log.push(reader());
          read = true;
          return a;
        },
      };
    };
    const compiled = (name) => /^write_/.test(name);

    for (const [name, protobuf] of COPIES) {
      describe(name, () => {
        let configured;
        before(() => {
          configured = _testing.configure({ promoteAfter: 4 });
          install(protobuf);
        });
        after(() => {
          uninstall(protobuf);
          _testing.configure(configured);
        });

        it('encode with protobufjs\'s encoder through RustWriter until a Type\'s promoteAfter-th message, then compiled', () => {
          const source = 'syntax = "proto3"; message M { int32 a = 1; string s = 2; }';
          const T = protobuf.parse(source).root.lookupType('M');
          const R = refOf(protobuf).parse(source).root.lookupType('M');
          const seen = [];
          for (let i = 0; i < 6; i++) {
            const log = [];
            const m = Object.assign(logged(log, i + 1), { s: 'x'.repeat(i) });
            const w = T.encode(m);
            assert.ok(w instanceof RustWriter);
            assert.strictEqual(Buffer.from(w.finish()).toString('hex'), reference(protobuf, R, m));
            seen.push(compiled(log[0]) ? 'compiled' : 'protobufjs');
          }
          assert.deepStrictEqual(seen, ['protobufjs', 'protobufjs', 'protobufjs', 'compiled', 'compiled', 'compiled']);
          assert.match(T.encode.name, /^encode_M_\d+$/);
        });

        it('compile each nested Type when compiled code first writes one of its messages, and count nothing on that path', () => {
          const source = `syntax = "proto3";
            message Outer { Often often = 1; Rare rare = 2; repeated Many many = 3; }
            message Often { int32 a = 1; } message Rare { int32 a = 1; } message Many { int32 a = 1; }`;
          const root = protobuf.parse(source).root;
          const ref = refOf(protobuf).parse(source).root;
          const readers = { often: [], rare: [], many: [] };
          const calls = [];
          for (let i = 0; i < 16; i++) {
            const log = { often: [], rare: [], many: [] };
            const m = { often: logged(log.often, i + 1), many: [logged(log.many, 1), logged(log.many, 2)] };
            if (i % 8 === 1 || i % 8 === 7) m.rare = logged(log.rare, i + 1);
            assert.strictEqual(Buffer.from(root.lookupType('Outer').encode(m).finish()).toString('hex'),
              reference(protobuf, ref.lookupType('Outer'), m));
            for (const key of Object.keys(readers)) readers[key].push(...log[key].map((r) => (compiled(r) ? 'compiled' : 'protobufjs')));
            calls.push(root.lookupType('Often').encode.name);
          }
          // Outer is promoted at its fourth message; from then on every nested Type its messages hold is
          // compiled at its first message there, Rare too, which only two messages of eight hold. None of
          // the three, never encoded alone, is promoted itself: its encode stays the cold one, which the
          // compiled code does not call.
          assert.deepStrictEqual(readers.often, [...Array(3).fill('protobufjs'), ...Array(13).fill('compiled')]);
          assert.deepStrictEqual(readers.many, [...Array(6).fill('protobufjs'), ...Array(26).fill('compiled')]);
          assert.deepStrictEqual(readers.rare, ['protobufjs', 'compiled', 'compiled', 'compiled']);
          for (const nested of ['Often', 'Rare', 'Many']) {
            assert.strictEqual(root.lookupType(nested).encode.name, 'encode_cold', nested);
            assert.strictEqual(_testing.tierOf(root.lookupType(nested)), 'compiled', nested);
          }
          assert.strictEqual(_testing.tierOf(root.lookupType('Outer')), 'compiled');
          assert.ok(_testing.isCompiled(root.lookupType('Outer').encode));
        });

        it('write protobufjs\'s bytes for every kind of field at every step of the tiers', () => {
          for (const after of [1, 2, 3, 5]) {
            _testing.configure({ promoteAfter: after });
            const { ours, theirs } = roots(protobuf, PROTO3);
            const two = roots(protobuf, PROTO2);
            const box = { items: [{ id: 1, name: 'a', g: { x: 5 } }, { id: -2 }], first: { id: 3, g: {} }, ns: [1, 2, 3], loose: [4] };
            for (let i = 0; i < 6; i++) {
              const m = i % 3 === 2 ? { child: everything(), leaves: [{ a: i }] } : everything();
              assert.strictEqual(Buffer.from(ours.lookupType('t.Node').encode(m).finish()).toString('hex'),
                reference(protobuf, theirs.lookupType('t.Node'), m), `promoted after ${after}, message ${i}`);
              assert.strictEqual(Buffer.from(ours.lookupType('t.Leaf').encode(m.leaf || {}).finish()).toString('hex'),
                reference(protobuf, theirs.lookupType('t.Leaf'), m.leaf || {}), `Leaf alone, promoted after ${after}, message ${i}`);
              assert.strictEqual(Buffer.from(two.ours.lookupType('t2.Box').encodeDelimited(box).finish()).toString('hex'),
                Buffer.from(two.theirs.lookupType('t2.Box').encodeDelimited(box, refWriter(protobuf)).finish()).toString('hex'));
            }
          }
          _testing.configure({ promoteAfter: 4 });
        });

        it('compile a Type too large for one function in parts, and write protobufjs\'s bytes', () => {
          const source = `syntax = "proto3"; message Wide { ${PARTS_FIELDS} }`;
          const T = protobuf.parse(source).root.lookupType('Wide');
          const R = refOf(protobuf).parse(source).root.lookupType('Wide');
          const m = { f0: 1, f200: '-2', f399: -1 };
          for (let i = 0; i < 6; i++) assert.strictEqual(Buffer.from(T.encode(m).finish()).toString('hex'), reference(protobuf, R, m));
          assert.ok(_testing.isCompiled(T.encode), T.encode.name);
          assert.strictEqual(_testing.tierOf(T), 'compiled');
        });

        it('keep protobufjs\'s encoder for a Type whose code would be over unitMax, and write its messages with it from compiled code', () => {
          const source = `syntax = "proto3"; message Top { Huge huge = 1; int32 n = 2; } message Huge { ${PARTS_FIELDS} }`;
          const ours = protobuf.parse(source).root;
          const ref = refOf(protobuf).parse(source).root;
          const m = (i) => ({ huge: { f0: i, f399: -i }, n: i });
          // Shipped, a Type of several thousand fields; here, one of 400.
          assert.strictEqual(_testing.configure({}).unitMax, 1000000);
          withPath({ unitMax: 20000 }, () => {
            for (let i = 0; i < 8; i++) {
              assert.strictEqual(Buffer.from(ours.lookupType('Top').encode(m(i)).finish()).toString('hex'),
                reference(protobuf, ref.lookupType('Top'), m(i)), `message ${i}`);
            }
          });
          const type = (name) => ours.lookupType(name);
          assert.match(_testing.whyKept(type('Huge')), /^its code would be \d+ characters, over \d+$/);
          assert.strictEqual(_testing.tierOf(type('Huge')), 'kept');
          assert.ok(!/^encode_/.test(type('Huge').encode.name), type('Huge').encode.name);
          // Top is compiled all the same, and hands each Huge to protobufjs's encoder, which writes through RustWriter.
          assert.ok(_testing.isCompiled(type('Top').encode));
          assert.strictEqual(_testing.whyKept(type('Top')), null);
          assert.strictEqual(type('Huge').encode(m(1).huge) instanceof RustWriter, true);
        });

        it('stop counting a Type encoded only in other messages after its 1,024th, and still inline it', () => {
          const source = 'syntax = "proto3"; message Outer { repeated Inner inner = 1; } message Inner { int32 a = 1; }';
          const ours = protobuf.parse(source).root;
          const ref = refOf(protobuf).parse(source).root;
          const Outer = ours.lookupType('Outer');
          const Inner = ours.lookupType('Inner');
          const m = { inner: Array.from({ length: 400 }, (_, i) => ({ a: i })) };
          const expected = reference(protobuf, ref.lookupType('Outer'), m);
          for (let i = 0; i < 2; i++) assert.strictEqual(Buffer.from(Outer.encode(m).finish()).toString('hex'), expected);
          assert.strictEqual(Inner.encode.name, 'encode_cold'); // 800 so far
          assert.strictEqual(Buffer.from(Outer.encode(m).finish()).toString('hex'), expected);
          assert.ok(!/^encode_/.test(Inner.encode.name), Inner.encode.name);
          assert.ok(!_testing.isCompiled(Outer.encode));
          const log = [];
          const logging = { inner: [logged(log, 1), logged(log, 2)] };
          assert.strictEqual(Buffer.from(Outer.encode(logging).finish()).toString('hex'), reference(protobuf, ref.lookupType('Outer'), logging));
          assert.ok(_testing.isCompiled(Outer.encode));
          // Outer was promoted at its fourth message: Inner's fields are read by Outer's compiled code.
          assert.ok(log.every(compiled), log.join());
        });

        it('run real schemas at every tier: cold, compiled, nested (test/fixtures), Temporal\'s HistoryEvent, and kept', () => {
          // The tiers (lib/encoders/compile.js "Tiers"), seen through the public hooks and test/compiled.js
          // (which code read the fields).
          const FIXTURE = path.join(__dirname, 'fixtures', 'nested.proto');
          const message = () => ({ middle: { title: 'm', inner: { id: 5, leaf: { name: 'leaf', delta: -3 } } }, strStr: { k: 'v' } });
          const tiers = {};
          const step = (promoteAfter, fn) => {
            _testing.configure({ promoteAfter });
            const ours = protobuf.loadSync(FIXTURE).resolveAll();
            const theirs = refOf(protobuf).loadSync(FIXTURE).resolveAll();
            return fn(ours.lookupType('rw.nested.Outer'), theirs.lookupType('rw.nested.Outer'), ours);
          };
          try {
            for (const [tier, promoteAfter] of [['cold', Infinity], ['compiled', 0]]) {
              step(promoteAfter, (Outer, R) => {
                const { tier: seen, bytes } = observeTier(Outer, message());
                assert.strictEqual(bytes.toString('hex'), reference(protobuf, R, message()), tier);
                tiers[tier] = seen;
              });
            }
            // Nested: Middle, in every message of Outer, is compiled at Outer's fourth, the first written by
            // compiled code; its own encode (never called alone) stays cold, its fields read by compiled code.
            step(4, (Outer, R, ours) => {
              const Middle = ours.lookupType('rw.nested.Outer.Middle');
              for (let i = 0; i < 4; i++) {
                const reads = [];
                const m = message();
                m.middle = probeOf(m.middle, reads);
                assert.strictEqual(Buffer.from(Outer.encode(m).finish()).toString('hex'), reference(protobuf, R, message()), `message ${i}`);
                tiers.nested = `${reads[0]}, Middle.encode ${_testing.isCompiled(Middle.encode) ? 'compiled' : 'cold'}, ${_testing.tierOf(Middle)}`;
              }
              assert.ok(_testing.isCompiled(Outer.encode));
            });
            // Temporal's HistoryEvent (its ~70 fields kept it on protobufjs's encoder before the compact
            // code), compiled; and kept, where its code is over a unitMax lowered to below it.
            const schema = temporal.schema();
            const name = 'temporal.api.history.v1.HistoryEvent';
            const event = { eventId: 7, eventType: 2, taskId: 9, timerFiredEventAttributes: { timerId: 't', startedEventId: 3 } };
            for (const [tier, unitMax] of [['wide', undefined], ['kept', 4000]]) {
              withPath({ promoteAfter: 0, unitMax }, () => {
                const T = protobuf.Root.fromJSON(schema).resolveAll().lookupType(name);
                const R = refOf(protobuf).Root.fromJSON(schema).resolveAll().lookupType(name);
                const seen = observeTier(T, event);
                assert.strictEqual(seen.bytes.toString('hex'), reference(protobuf, R, event), tier);
                tiers[tier] = `${seen.tier}, ${_testing.tierOf(T)}`;
                if (tier === 'kept') assert.match(String(_testing.whyKept(T)), /^its code would be \d+ characters, over 4000$/);
              });
            }
          } finally {
            _testing.configure({ promoteAfter: 4 });
          }
          assert.deepStrictEqual(tiers, {
            cold: 'protobufjs', compiled: 'compiled', nested: 'compiled, Middle.encode cold, compiled', wide: 'compiled, compiled',
            kept: 'protobufjs, kept',
          });
        });
      });
    }
  });

  it('number their sources on one counter per process, which a second copy of this package shares', () => {
    // V8 shares feedback between functions of identical source: two copies of the package in one
    // process (nested dependencies) must never compile the same one.
    const lib = path.join(__dirname, '..', 'lib') + path.sep;
    const index = require.resolve('..');
    const ownFiles = () => Object.keys(require.cache).filter((file) => file.startsWith(lib) || file === index);
    const saved = ownFiles().map((file) => [file, require.cache[file]]);
    for (const [file] of saved) delete require.cache[file];
    let second;
    try {
      second = require('..');
    } finally {
      for (const file of ownFiles()) delete require.cache[file];
      for (const [file, entry] of saved) require.cache[file] = entry;
    }
    assert.notStrictEqual(second.RustWriter, RustWriter);
    const ids = [];
    const compileWith = (instance, protobuf) => {
      const previous = instance._testing.configure({ promoteAfter: 0 });
      instance.install(protobuf);
      try {
        const T = protobuf.parse('syntax = "proto3"; message Same { int32 a = 1; }').root.lookupType('Same');
        T.encode({ a: 1 }).finish();
        ids.push(Number(/^encode_Same_(\d+)$/.exec(T.encode.name)[1]));
      } finally {
        instance.uninstall(protobuf);
        instance._testing.configure(previous);
      }
    };
    compileWith({ install, uninstall, _testing }, require('protobufjs'));
    compileWith(second, require('protobufjs7'));
    compileWith({ install, uninstall, _testing }, require('protobufjs'));
    assert.ok(ids[0] < ids[1] && ids[1] < ids[2], `the three compilations numbered ${ids.join(', ')}`);
  });

  it('are off with install(protobuf, { compiled: false }) and with PROTOBUFJS_RUSTWRITER_COMPILED=0', () => {
    const protobuf = require('protobufjs');
    install(protobuf, { compiled: false });
    try {
      const T = protobuf.parse('syntax = "proto3"; message Off { int32 a = 1; }').root.lookupType('Off');
      T.encode({ a: 1 });
      assert.doesNotMatch(T.encode.name, /^encode_/);
      assert.ok(protobuf.Writer.create() instanceof RustWriter);
    } finally {
      uninstall(protobuf);
    }
    const run = spawnSync(process.execPath, ['-r', 'protobufjs-rustwriter/register', '-e', `
      const protobuf = require('protobufjs');
      const T = protobuf.parse('syntax = "proto3"; message M { int32 a = 1; }').root.lookupType('M');
      T.encode({ a: 1 });
      console.log(JSON.stringify({ name: T.encode.name, compiled: require('protobufjs-rustwriter').status().copies[0].compiled }));
    `], { cwd: path.join(__dirname, '..'), encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER_COMPILED: '0' } });
    assert.strictEqual(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.strictEqual(out.compiled, false);
    assert.doesNotMatch(out.name, /^encode_/);
  });

  it('reach the native encoder for long packed fields, one call a finish()', function () {
    if (!RustWriter.native) this.skip(); // no addon: the JS path writes them
    const protobuf = require('protobufjs');
    install(protobuf);
    try {
      const SCHEMA = 'syntax = "proto3"; message P { repeated uint32 a = 1; repeated sint32 b = 2; P more = 3; }';
      const T = protobuf.parse(SCHEMA).root.lookupType('P');
      const values = Uint32Array.from({ length: 5000 }, (_, i) => i * 7919);
      const before = _testing.nativeCalls();
      const out = T.encode({ a: values, b: Array.from(values, (v) => -v), more: { a: values } }).finish();
      assert.strictEqual(_testing.nativeCalls() - before, 1);
      const R = refOf(protobuf).parse(SCHEMA).root.lookupType('P');
      assert.strictEqual(Buffer.from(out).toString('hex'),
        reference(protobuf, R, { a: [...values], b: Array.from(values, (v) => -v), more: { a: [...values] } }));
    } finally {
      uninstall(protobuf);
    }
  });
});
