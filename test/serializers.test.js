'use strict';

/**
 * Compiled serializers (lib/serializers/), differential: `serializer(T)(o)` of a copy with
 * `install()` against `T.encode(T.fromObject(o)).finish()` of an untouched copy of the same
 * protobufjs version (loaded by its own path, bench/copies.js), on real schemas (Firestore, Pub/Sub,
 * Spanner, Temporal, protobuf's json_format and editions test protos) and on hostile inputs: the
 * same bytes, or the same error class and message; the same reads of the plain object by user code;
 * and a call that throws leaves another writer in the middle of a message as it was.
 */

const assert = require('assert');
const path = require('path');
const { serializer, install, RustWriter, _testing } = require('..');
const { loadCopy } = require('../bench/copies');
const { Filler } = require('../bench/real/fill');
const { prng } = require('../tools/seeded');
const firestore = require('../bench/real/firestore');
const pubsub = require('../bench/real/pubsub');
const spanner = require('../bench/real/spanner');
const temporal = require('../bench/real/temporal');
const { protoLoaderFor, GAX_OPTIONS } = require('../bench/grpc');
const { spawnSync } = require('child_process');

const VERSIONS = [
  { name: '8.8.1', pkg: 'protobufjs' },
  { name: '7.6.6', pkg: 'protobufjs7' },
];
const GOOGLE_PROTOS = path.join(__dirname, '..', 'node_modules', 'google-gax', 'build', 'protos');

/**
 * A copy of each version to serialize with (installed) and one to compare with (untouched).
 * @returns {Array<{name: string, sub: object, ref: object}>} Copies by version
 */
function copies() {
  return VERSIONS.map((v) => ({
    ...v, sub: loadCopy(v.pkg, (pb) => install(pb, { verify: 0 })).pb, ref: loadCopy(v.pkg).pb,
  }));
}

/**
 * What a call does: its bytes (hex), or the class and message of what it threw.
 * @param {function(): Uint8Array} fn The call
 * @returns {string} Outcome
 */
function outcome(fn) {
  try {
    return Buffer.from(fn()).toString('hex');
  } catch (err) {
    return `threw ${err && err.constructor ? err.constructor.name : typeof err}: ${err && err.message}`;
  }
}

/**
 * Compares one input, made afresh for each side (`make(log)`, which may log user code's reads).
 * @param {object} subT The installed copy's Type
 * @param {object} refT The untouched copy's Type
 * @param {function(function(string): undefined): *} make Input maker
 * @param {string} what Name for messages
 * @returns {undefined}
 */
function same(subT, refT, make, what) {
  const subLog = [];
  const refLog = [];
  const sub = outcome(() => serializer(subT)(make((line) => subLog.push(line))));
  const ref = outcome(() => {
    const m = refT.fromObject(make((line) => refLog.push(line)));
    return refT.encode(m).finish();
  });
  assert.strictEqual(sub, ref, `${what}: serializer ${sub.slice(0, 200)}, protobufjs ${ref.slice(0, 200)}`);
  assert.deepStrictEqual(subLog, refLog, `${what}: the reads differ`);
}

/**
 * Runs `fn` with each copy's `util.newBuffer` zeroing what it gives: fromObject makes `bytes` from
 * base64 in that memory, which it may fill only in part (a getter whose reads give other values), as
 * fuzz/schemas/check.js does.
 * @param {object[]} pbs protobufjs copies
 * @param {function(): undefined} fn What to run
 * @returns {undefined}
 */
function zeroedBuffers(pbs, fn) {
  const saved = pbs.map((pb) => pb.util.newBuffer);
  pbs.forEach((pb, i) => {
    pb.util.newBuffer = function newBuffer_zeroed(size) {
      const buf = saved[i].apply(this, arguments);
      if (typeof size === 'number' && buf && typeof buf.fill === 'function') buf.fill(0);
      return buf;
    };
  });
  try {
    fn();
  } finally {
    pbs.forEach((pb, i) => { pb.util.newBuffer = saved[i]; });
  }
}

/**
 * Every Type of a Root, by full name.
 * @param {object} root Root, resolved
 * @param {object} pb Its protobufjs
 * @returns {object[]} Types
 */
function typesOf(root, pb) {
  const out = [];
  const visit = (ns) => {
    for (const n of ns.nestedArray) {
      if (n instanceof pb.Type) out.push(n);
      if (n.nestedArray) visit(n);
    }
  };
  visit(root);
  return out;
}

describe('compiled serializers (serializer(T)(o) against T.encode(T.fromObject(o)))', function () {
  this.timeout(300000);
  let previous;
  let versions;
  before(() => {
    previous = _testing.configure({ promoteAfter: 0 });
    versions = copies();
  });
  after(() => _testing.configure(previous));

  describe('on real schemas, every Type, in the JSON forms toObject gives (enums as names, longs as strings, bytes as base64)', () => {
    const SCHEMAS = [
      { name: 'Firestore', json: () => firestore.schema() },
      { name: 'Pub/Sub', json: () => pubsub.schema() },
      { name: 'Spanner', json: () => spanner.schema() },
      { name: 'Temporal', json: () => temporal.schema(), only: '8.8.1' },
      { name: 'protobuf json_format.proto (proto2)', proto: 'google/protobuf/util/json_format.proto' },
      { name: 'protobuf sample_messages_edition.proto (edition 2024)', proto: 'google/protobuf/sample_messages_edition.proto', only: '8.8.1' },
    ];
    for (const schema of SCHEMAS) {
      for (const { name } of VERSIONS) {
        if (schema.only && schema.only !== name) continue;
        it(`${schema.name}, protobufjs ${name}`, () => {
          const v = versions.find((x) => x.name === name);
          const load = (pb) => {
            if (schema.json) return pb.Root.fromJSON(structuredClone(schema.json())).resolveAll();
            const root = new pb.Root();
            root.resolvePath = (origin, target) => path.join(GOOGLE_PROTOS, target);
            return root.loadSync(schema.proto).resolveAll();
          };
          const subRoot = load(v.sub);
          const refRoot = load(v.ref);
          let compared = 0;
          const rnd = prng(47);
          for (const refT of typesOf(refRoot, v.ref)) {
            const subT = subRoot.lookupType(refT.fullName);
            for (let k = 0; k < 3; ++k) {
              const value = new Filler(rnd, { depth: 3 }).message(refT);
              let json;
              try {
                const options = { enums: String, longs: String, bytes: String, oneofs: k === 1, defaults: k === 2 };
                json = refT.toObject(refT.fromObject(value), options);
              } catch {
                continue; // a value the filler makes that fromObject rejects: nothing to compare as JSON
              }
              same(subT, refT, () => structuredClone(json), `${refT.fullName} #${k}`);
              same(subT, refT, () => value, `${refT.fullName} #${k} as filled`);
              compared += 2;
            }
          }
          assert.ok(compared > 30, `only ${compared} messages compared`);
        });
      }
    }
  });

  describe('on hostile inputs', () => {
    const SCHEMA = `
      syntax = "proto3";
      package h;
      enum E { E_ZERO = 0; E_ONE = 1; E_BIG = 1000; }
      message Inner { int32 a = 1; string b = 2; repeated Inner kids = 3; }
      message H {
        int32 i32 = 1; uint32 u32 = 2; sint32 s32 = 3; fixed32 f32 = 4; sfixed32 sf32 = 5;
        int64 i64 = 6; uint64 u64 = 7; sint64 s64 = 8; fixed64 f64 = 9; sfixed64 sf64 = 10;
        bool b = 11; string s = 12; bytes by = 13; double d = 14; float f = 15; E e = 16;
        Inner inner = 17;
        repeated int32 ri32 = 18; repeated string rs = 19; repeated bytes rby = 20; repeated E re = 21;
        repeated Inner rinner = 22; repeated int64 ri64 = 23;
        map<string, int32> mi = 24; map<int64, string> ml = 25; map<bool, Inner> mb = 26; map<string, bytes> mby = 27;
        map<uint32, E> me = 28;
        oneof o { string os = 30; Inner oi = 31; int64 ol = 32; }
        optional int32 opt = 33;
      }
      message Unordered {
        string late = 9; Inner first = 1; int64 mid = 5; oneof v { Inner x = 7; string y = 3; bytes z = 2; }
        repeated Inner many = 4;
      }
      message Empty {}
      message Deep { Deep next = 1; Empty e = 2; }`;
    const VALUES = [
      undefined, null, 0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 32, 2 ** 53 + 2, 1e300, -1e300,
      '', '0', '12', '-3', '1e3', '0x10', 'abc', ' 7 ', '9223372036854775807', '18446744073709551616', '-9223372036854775809',
      'AQID', 'AQI=', 'AQ', '@@@', 'E_ONE', 'E_BIG', 'nope', true, false, {}, [], [1, 2], { low: 5, high: 1 },
      { low: -1, high: -1 }, { a: 1 }, [null], [undefined, 1], ['x', 5], [{ a: 1 }, null], Symbol('s'), 10n,
      Buffer.from([1, 2, 3]), new Uint8Array([4, 5]), { length: 2, 0: 7, 1: 8 }, { __proto__: null, a: 2 },
      { k: null }, { k: 'x', '1': 'y', __proto__x: 1 }, { true: { a: 1 }, false: null }, new Date(0),
    ];
    const FIELDS = ['i32', 'u32', 's32', 'f32', 'sf32', 'i64', 'u64', 's64', 'f64', 'sf64', 'b', 's', 'by', 'd', 'f', 'e',
      'inner', 'ri32', 'rs', 'rby', 're', 'rinner', 'ri64', 'mi', 'ml', 'mb', 'mby', 'me', 'os', 'oi', 'ol', 'opt'];

    for (const { name } of VERSIONS) {
      it(`every field given every odd value, alone and beside others, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subH = v.sub.parse(SCHEMA).root.lookupType('h.H');
        const refH = v.ref.parse(SCHEMA).root.lookupType('h.H');
        let compared = 0;
        for (const field of FIELDS) {
          for (let k = 0; k < VALUES.length; ++k) {
            same(subH, refH, () => ({ [field]: VALUES[k] }), `${field} = value #${k}`);
            same(subH, refH, () => ({ i32: 5, s: 'x', [field]: VALUES[k], rs: ['a'], inner: { a: 2 }, unknownKey: 7 }), `${field} #${k} with others`);
            compared += 2;
          }
        }
        assert.ok(compared > 1000);
      });

      it(`every field given every odd value without util.Long (64-bit values as numbers), protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subH = v.sub.parse(SCHEMA).root.lookupType('h.H');
        const refH = v.ref.parse(SCHEMA).root.lookupType('h.H');
        const longs = [v.sub.util.Long, v.ref.util.Long];
        v.sub.util.Long = null;
        v.ref.util.Long = null;
        try {
          for (const field of ['i64', 'u64', 's64', 'f64', 'sf64', 'ri64', 'ml', 'ol']) {
            VALUES.forEach((value, k) => same(subH, refH, () => ({ [field]: value, s: 'x' }), `${field} = value #${k}`));
          }
        } finally {
          [v.sub.util.Long, v.ref.util.Long] = longs;
        }
      });

      it(`getters and Proxies read as fromObject reads them, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subH = v.sub.parse(SCHEMA).root.lookupType('h.H');
        const refH = v.ref.parse(SCHEMA).root.lookupType('h.H');
        const logged = (log, target, label) => new Proxy(target, {
          get(t, key, receiver) {
            log(`get ${label}.${String(key)}`);
            return Reflect.get(t, key, receiver);
          },
          has(t, key) {
            log(`has ${label}.${String(key)}`);
            return Reflect.has(t, key);
          },
          ownKeys(t) {
            log(`keys ${label}`);
            return Reflect.ownKeys(t);
          },
          getOwnPropertyDescriptor(t, key) {
            log(`own ${label}.${String(key)}`);
            return Reflect.getOwnPropertyDescriptor(t, key);
          },
          getPrototypeOf(t) {
            log(`proto ${label}`);
            return Reflect.getPrototypeOf(t);
          },
        });
        const getters = (log, values) => {
          const o = {};
          for (const [key, seq] of Object.entries(values)) {
            let n = 0;
            Object.defineProperty(o, key, {
              enumerable: true,
              get() {
                log(`get ${key} #${n}`);
                return seq[n++ % seq.length];
              },
            });
          }
          return o;
        };
        const inputs = [
          (log) => logged(log, { i32: 1, s: 'a', i64: '5', by: 'AQID', e: 'E_ONE', inner: { a: 1 } }, 'm'),
          (log) => logged(log, { mi: logged(log, { a: 1, 2: 3, b: null }, 'm.mi'), rs: logged(log, ['x', 'y'], 'm.rs') }, 'm'),
          (log) => ({ inner: logged(log, { a: 7, kids: [logged(log, { b: 'z' }, 'k0')] }, 'm.inner') }),
          // A getter giving another value at each read: fromObject reads a field several times.
          (log) => getters(log, { i32: [0, 5], e: ['E_ONE', 0], by: [new Uint8Array(0), 'AQ=='], d: [0, 2.5], i64: [{ low: 0, high: 0 }, 7] }),
          (log) => getters(log, { s: ['', 'x'], b: [false, true], u64: ['0', '9'], inner: [{ a: 1 }, null], os: ['o', 'p'] }),
          // fromObject keeps a getter's third read of an unknown enum value: a BigInt, which the encoder rejects.
          (log) => getters(log, { e: [10n, -7], i32: [1, 2], rs: [['a'], ['b', 'c']] }),
          (log) => logged(log, [{ a: 1 }], 'arr'), // an array where the object goes
        ];
        zeroedBuffers([v.sub, v.ref], () => inputs.forEach((make, k) => same(subH, refH, make, `input ${k}`)));
      });

      it(`fields read out of number order, moved before those with higher numbers, with entries on either side, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subU = v.sub.parse(SCHEMA).root.lookupType('h.Unordered');
        const refU = v.ref.parse(SCHEMA).root.lookupType('h.Unordered');
        const big = (n) => 'x'.repeat(n);
        const kids = (n, len) => Array.from({ length: n }, (_, i) => ({ a: i, b: big(len) }));
        const inputs = [
          { late: 'a', first: { a: 1 }, mid: 5, x: { a: 2 }, y: 'b', z: 'AQID', many: [{ a: 3 }] },
          { late: big(200), first: { b: big(300) }, z: Buffer.alloc(5000, 1), y: big(5000) },
          { late: big(5000), x: { kids: kids(30, 200) }, y: 'b', many: kids(3, 5000) },
          { x: { kids: kids(10, 500) }, z: Buffer.alloc(8000, 2), first: { kids: kids(20, 300) } },
          { late: 'q', x: { b: big(6000) }, z: 'AQ==', mid: '123', many: [{ b: big(4100) }, { a: 1 }] },
          { many: [{ a: 1 }, 5] }, // a writing error where...
          { late: 'a', many: [{}, 'x'], y: 'q' }, // ... and a conversion error after it
        ];
        inputs.forEach((input, k) => same(subU, refU, () => structuredClone(input), `input ${k}`));
      });

      it(`recursion and empty messages, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subD = v.sub.parse(SCHEMA).root.lookupType('h.Deep');
        const refD = v.ref.parse(SCHEMA).root.lookupType('h.Deep');
        const chain = (n, leaf) => (n === 0 ? leaf : { next: chain(n - 1, leaf) });
        for (const n of [1, 5, 98, 99, 100, 101, 102]) {
          same(subD, refD, () => chain(n, {}), `depth ${n}`);
          same(subD, refD, () => chain(n, { e: {} }), `depth ${n} with an empty message`);
          same(subD, refD, () => chain(n, { e: 5 }), `depth ${n} with an empty message given a number`);
        }
      });

      it(`prototype pollution reads as fromObject reads it, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subH = v.sub.parse(SCHEMA).root.lookupType('h.H');
        const refH = v.ref.parse(SCHEMA).root.lookupType('h.H');
        Object.prototype.s = 'polluted';
        Object.prototype.i64 = '77';
        try {
          same(subH, refH, () => ({ i32: 1 }), 'polluted');
          const json = '{"__proto__": {"b": true}, "mi": {"__proto__": 5, "a": 1}, "mby": {"__proto__": "AQ=="}}';
          same(subH, refH, () => JSON.parse(json), '__proto__ keys');
        } finally {
          delete Object.prototype.s;
          delete Object.prototype.i64;
        }
      });

      it(`a call that throws leaves a writer in the middle of a message as it was, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const subH = v.sub.parse(SCHEMA).root.lookupType('h.H');
        const refH = v.ref.parse(SCHEMA).root.lookupType('h.H');
        const run = (pb, T, serialize) => {
          const w = pb.Writer.create();
          w.uint32(10).fork().string('before');
          // a writing error (a hole in a repeated bytes field) after fields written, then a conversion error
          assert.throws(() => serialize({ s: 'x'.repeat(300), rinner: [{ a: 1 }], rby: [5, 'AQ=='] }));
          assert.throws(() => serialize({ s: 'y', inner: { a: 1 }, rinner: 5 }));
          w.string('after').ldelim();
          return Buffer.from(T.encode(T.fromObject({ s: 'z' }), w).finish()).toString('hex');
        };
        assert.ok(subH.setup() && v.sub.Writer.create() instanceof RustWriter);
        const plain = (o) => refH.encode(refH.fromObject(o)).finish();
        assert.strictEqual(run(v.sub, subH, serializer(subH)), run(v.ref, refH, plain));
      });
    }
  });

  describe('the @grpc/proto-loader hook', () => {
    const PROTO = path.join(__dirname, 'fixtures', 'orders-service.proto');
    const REQUEST = {
      customer: 'c-1', lines: [{ sku: 'a', quantity: 2, priceCents: '1999' }, { sku: 'b', quantity: 1, priceCents: 5 }],
      labels: { channel: 'web', '7': 'x' }, token: 'AQID', card: '4242', voucher: { sku: 'v' }, status: 'PAID',
    };
    const RECEIPT = { id: 'r-1', totalCents: '4003', status: 1 };

    for (const { name, pkg } of VERSIONS) {
      it(`hands out compiled serializers from each entry point, proto-loader's own from an unhooked copy, protobufjs ${name}`, async () => {
        const subCopy = loadCopy(pkg, (pb) => install(pb, { verify: 0 }));
        const refCopy = loadCopy(pkg);
        const sub = protoLoaderFor(subCopy, () => install(subCopy.pb, { verify: 0 }));
        const ref = protoLoaderFor(refCopy);
        const descriptorSet = (loader, copy) => {
          const root = copy.pb.loadSync(PROTO).resolveAll();
          const descriptor = copy.run(() => require(`${pkg}/ext/descriptor`));
          return { buffer: descriptor.FileDescriptorSet.encode(root.toDescriptor('proto3')).finish(), object: root.toDescriptor('proto3') };
        };
        const entryPoints = {
          fromJSON: (loader, copy) => loader.fromJSON(copy.pb.loadSync(PROTO).toJSON(), { ...GAX_OPTIONS }),
          loadSync: (loader) => loader.loadSync(PROTO, { ...GAX_OPTIONS }),
          load: (loader) => loader.load(PROTO, { ...GAX_OPTIONS }),
          loadFileDescriptorSetFromBuffer: (loader, copy) =>
            loader.loadFileDescriptorSetFromBuffer(descriptorSet(loader, copy).buffer, { ...GAX_OPTIONS }),
          loadFileDescriptorSetFromObject: (loader, copy) =>
            loader.loadFileDescriptorSetFromObject(descriptorSet(loader, copy).object, { ...GAX_OPTIONS }),
        };
        for (const [entry, make] of Object.entries(entryPoints)) {
          const subDef = await make(sub, subCopy);
          const refDef = await make(ref, refCopy);
          const subPlace = subDef['orders.Orders'].Place;
          const refPlace = refDef['orders.Orders'].Place;
          assert.strictEqual(subPlace.requestSerialize.name, 'serialize_rustwriter', `${entry}: not the hook's serializer`);
          assert.strictEqual(refPlace.requestSerialize.name, 'serialize', `${entry}: the reference was hooked`);
          for (let k = 0; k < 3; ++k) { // cold, then compiled
            const hex = (fn, o) => outcome(() => fn(structuredClone(o)));
            assert.strictEqual(hex(subPlace.requestSerialize, REQUEST), hex(refPlace.requestSerialize, REQUEST), `${entry}: request`);
            assert.strictEqual(hex(subPlace.responseSerialize, RECEIPT), hex(refPlace.responseSerialize, RECEIPT), `${entry}: response`);
            const line = REQUEST.lines[0];
            assert.strictEqual(hex(subDef['orders.Line'].serialize, line), hex(refDef['orders.Line'].serialize, line));
            // proto-loader's own check and error for an array, and fromObject's errors.
            for (const odd of [[REQUEST], { lines: 5 }]) {
              assert.strictEqual(hex(subPlace.requestSerialize, odd), hex(refPlace.requestSerialize, odd));
            }
          }
          // Deserializers stay proto-loader's (protobufjs 7's descriptors make a map a repeated field: no bytes).
          const bytes = refPlace.responseSerialize(RECEIPT);
          assert.deepStrictEqual(subPlace.responseDeserialize(bytes), refPlace.responseDeserialize(bytes));
        }
      });
    }

    /**
     * Runs a script with the preload, from the repository's root.
     * @param {object} env More environment
     * @returns {object} What the script printed (JSON)
     */
    function preloaded(env) {
      const script = `
        const loader = require('@grpc/proto-loader');
        const def = loader.loadSync(${JSON.stringify(PROTO)}, { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true });
        const place = def['orders.Orders'].Place;
        const out = [];
        for (let i = 0; i < 20; ++i) out.push(Buffer.from(place.requestSerialize(${JSON.stringify(REQUEST)})).toString('hex'));
        const { status } = require('protobufjs-rustwriter');
        const s = status();
        console.log(JSON.stringify({ name: place.requestSerialize.name, out: [...new Set(out)], loaders: s.protoLoaders, copies: s.copies }));`;
      const run = spawnSync(process.execPath, ['-r', './register.js', '-e', script], {
        cwd: path.join(__dirname, '..'), encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env },
      });
      assert.strictEqual(run.status, 0, run.stderr);
      return JSON.parse(run.stdout.trim().split('\n').pop());
    }

    it('under the preload, hooks the proto-loader copy as it loads; PROTOBUFJS_RUSTWRITER_SERIALIZERS=0 leaves it alone', () => {
      const on = preloaded({});
      const off = preloaded({ PROTOBUFJS_RUSTWRITER_SERIALIZERS: '0' });
      assert.strictEqual(on.name, 'serialize_rustwriter');
      assert.strictEqual(off.name, 'serialize');
      assert.strictEqual(on.out.length, 1);
      assert.deepStrictEqual(on.out, off.out);
      assert.deepStrictEqual(on.loaders.map((l) => [l.hooked, l.definitions, l.methods]), [[true, 1, 2]]);
      assert.deepStrictEqual(off.loaders.map((l) => [l.hooked, l.why]), [[false, 'PROTOBUFJS_RUSTWRITER_SERIALIZERS=0']]);
      const copy = on.copies.find((c) => c.serializers);
      assert.ok(copy && copy.serialized.compiled >= 2, JSON.stringify(on.copies));
    });
  });

  describe('tiers and what keeps protobufjs\'s own fromObject and encode', () => {
    for (const { name } of VERSIONS) {
      it(`a Type is compiled at its promoteAfter-th call, a nested one at its first message, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const root = v.sub.parse('syntax = "proto3"; message A { B b = 1; string s = 2; } message B { int32 x = 1; }').root;
        const A = root.lookupType('A');
        const B = root.lookupType('B');
        const saved = _testing.configure({ promoteAfter: 3 });
        try {
          const s = serializer(A);
          assert.strictEqual(serializer(A), s, 'one serializer per Type');
          s({ s: 'x' });
          s({ s: 'x' });
          assert.strictEqual(_testing.serializerTier(A), 'cold');
          s({ s: 'x' });
          assert.strictEqual(_testing.serializerTier(A), 'compiled');
          assert.notStrictEqual(_testing.serializerTier(B), 'compiled', 'B is compiled at its first message, which sets it up');
          s({ b: { x: 1 } });
          assert.strictEqual(_testing.serializerTier(B), 'compiled');
        } finally {
          _testing.configure(saved);
        }
      });

      it(`google.protobuf.Any (a wrapper), an app's encode or constructor: their own fromObject and encode, protobufjs ${name}`, () => {
        const v = versions.find((x) => x.name === name);
        const any = 'syntax = "proto3"; package google.protobuf; message Any { string type_url = 1; bytes value = 2; }';
        const schema = 'syntax = "proto3"; message P { google.protobuf.Any any = 1; C c = 2; K k = 3; } message C { int32 x = 1; } message K { string y = 1; }';
        const load = (pb) => {
          const root = new pb.Root();
          pb.parse(any, root);
          pb.parse(schema, root);
          return root.resolveAll();
        };
        const subRoot = load(v.sub);
        const refRoot = load(v.ref);
        // An app's encode for C, a registered constructor for K.
        for (const root of [subRoot, refRoot]) {
          const C = root.lookupType('C');
          C.setup();
          const own = C.encode;
          C.encode = function encode_app(m, w, q) {
            return own.call(this, { x: (m.x | 0) + 1 }, w, q);
          };
          // A constructor that sets a field: fromObject's `new C` runs it.
          root.lookupType('K').ctor = function KMessage(p) {
            if (p) Object.assign(this, p);
            if (!this.y) this.y = 'default';
          };
        }
        const P = [subRoot.lookupType('P'), refRoot.lookupType('P')];
        const input = { any: { '@type': 'type.googleapis.com/C', x: 5 }, c: { x: 1 }, k: {} };
        same(P[0], P[1], () => structuredClone(input), 'Any, C and K');
        for (const t of ['google.protobuf.Any', 'C', 'K']) assert.notStrictEqual(_testing.whySlow(subRoot.lookupType(t)), null, t);
      });
    }
  });
});
