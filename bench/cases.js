'use strict';

/**
 * The cases and contenders of `npm run bench`.
 *
 * A case is a message (or a list of messages, for `stream`) of a schema in bench/fixtures/, built
 * from seeded data (bench/data.js, bench/data-modelled.js), and a way to encode it; the `real`
 * group's schemas and data come from real packages (bench/real/). Each contender is what an app
 * would run: a protobufjs copy of its own (bench/copies.js), with RustWriter installed into it as
 * the contender says or not at all, and `T.encode(m).finish()` as users call it. Each contender
 * encodes a case through a Root of its own, parsed for that case and contender alone (reflection;
 * for the real schemas, from a copy of their JSON descriptor), or its own static module
 * (bench/static.js), and every function generated for it (protobufjs's codegen, the compiled
 * encoders, the op) has a source of its own, so that no generated encoder is shared between
 * contenders or cases: an encoder shared between writers or inputs turns polymorphic and slows
 * every contender down (docs/benchmark.md, "Timing"). What stays shared is each library's own
 * code, as in any process that encodes more than one message type.
 */

const assert = require('assert');
const path = require('path');
const protobuf = require('protobufjs');
const { RustWriter, install } = require('..');
const { loadInstance } = require('./instances');
const { loadCopy, setUpAll, tagFor, SHARED_SOURCES } = require('./copies');
const { prng } = require('../tools/seeded');
const data = require('./data');
const modelled = require('./data-modelled');
const { NullWriter } = require('./null-writer');
const temporal = require('./real/temporal');
const firestore = require('./real/firestore');
const pubsub = require('./real/pubsub');
const spanner = require('./real/spanner');
const realTile = require('./real/tile');
const conformance = require('./real/conformance');
const { protoLoaderFor, requestSerializer } = require('./grpc');

const FIXTURES = path.join(__dirname, 'fixtures');
/** The schema of every case that names no other (and of the `static` case's generated code). */
const PROTO_FILE = path.join(FIXTURES, 'bench.proto');
/** One seed for every case: each case's data depends only on its own builder. */
const SEED = 42;

const VERSION_8 = require('protobufjs/package.json').version;
const VERSION_7 = require('protobufjs7/package.json').version;

/** The environment under which the JS-only contender's instance of the package loads. */
const JS_ONLY_ENV = { PROTOBUFJS_RUSTWRITER: 'js' };
/**
 * RustWriter and `install` of a separate instance of the package loaded under `env`
 * (bench/instances.js), checked to be that instance's own and to use the addon exactly when `native`
 * says; the main instance must come out of the load as it went in.
 * @param {Object<string, string>} env Environment of the instance
 * @param {boolean} native Whether the instance must use the native addon
 * @returns {{RustWriter: Function, install: Function, _testing: object}} The instance's exports
 */
function instanceOf(env, native) {
  const wasNative = RustWriter.native;
  const instance = loadInstance(env);
  const setting = Object.entries(env).map(([name, value]) => `${name}=${value}`).join(' ') || 'the environment as it is';
  if (instance.RustWriter === RustWriter) throw new Error(`${setting} gave the main instance's RustWriter, not a separate one`);
  if (instance.RustWriter.native !== native) {
    throw new Error(`RustWriter under ${setting} has native === ${instance.RustWriter.native}, not ${native}`);
  }
  if (require('..').RustWriter !== RustWriter || RustWriter.native !== wasNative) {
    throw new Error(`loading RustWriter under ${setting} changed the main instance`);
  }
  return instance;
}

/**
 * The contenders, in the order each round times them. Each gets its own copy of protobufjs `pkg`
 * (made on first use, bench/copies.js) with RustWriter installed into it with `install`'s options
 * (none: protobufjs as it comes): by the main instance of this package for `rust`, by an instance of
 * its own for every other (bench/instances.js; with `env`, loaded under those variables: the
 * JS-only path), so that each runs the package's code as an app with its one install does: shared,
 * the package's helpers and RustWriter's methods would see every contender's writer classes and
 * paths (the Writer API path, the shadow checks' writer subclass, protobufjs 7's rules).
 * `op` is what one op does (OP_SOURCES); `writer` is a writer class passed to `encode` instead (the
 * null writer);
 * `rustInput` contenders get the input RustWriter takes (BigInts for int64-bigint); `checked`
 * contenders must produce the reference's bytes (the first one's, protobufjs 8.8.1's);
 * `breakdown` contenders (a writer that writes nothing, RustWriter without `finish()`) produce no
 * bytes to check and only feed the breakdown of where the time goes. Every contender that is not
 * `breakdown` gets a column of its own in the speed and allocation tables; a ratio between two
 * contenders goes in COMPARISONS.
 */
const CONTENDERS = [
  { key: 'pbjs8', name: `protobufjs ${VERSION_8}`, pkg: 'protobufjs', op: 'own', checked: true },
  { key: 'pbjs7', name: `protobufjs ${VERSION_7}`, pkg: 'protobufjs7', op: 'own', checked: true },
  {
    key: 'rust', name: `RustWriter (${VERSION_8})`, pkg: 'protobufjs', install: { compiled: true, verify: 0 }, op: 'own',
    rustInput: true, checked: true,
  },
  {
    key: 'rust-api', name: `RustWriter, Writer API (${VERSION_8})`, pkg: 'protobufjs', install: { compiled: false, verify: 0 },
    op: 'own', rustInput: true, checked: true,
  },
  {
    key: 'rust-js', name: `RustWriter, JS only (${VERSION_8})`, pkg: 'protobufjs', install: { compiled: true, verify: 0 },
    env: JS_ONLY_ENV, op: 'own', rustInput: true, checked: true,
  },
  {
    key: 'check1', name: `RustWriter, 1% shadow-checked (${VERSION_8})`, pkg: 'protobufjs',
    install: { compiled: true, verify: 0.01 }, op: 'own', rustInput: true, checked: true,
  },
  {
    key: 'check100', name: `RustWriter, all shadow-checked (${VERSION_8})`, pkg: 'protobufjs',
    install: { compiled: true, verify: 1 }, op: 'own', rustInput: true, checked: true,
  },
  {
    key: 'rust7', name: `RustWriter (${VERSION_7})`, pkg: 'protobufjs7', install: { compiled: true, verify: 0 }, op: 'own',
    rustInput: true, checked: true,
  },
  {
    key: 'rust-enc', name: `RustWriter, serializers off (${VERSION_8})`, pkg: 'protobufjs',
    install: { compiled: true, verify: 0, serializers: false }, op: 'own', rustInput: true, checked: true, grpcOnly: true,
  },
  {
    key: 'rust7-enc', name: `RustWriter, serializers off (${VERSION_7})`, pkg: 'protobufjs7',
    install: { compiled: true, verify: 0, serializers: false }, op: 'own', rustInput: true, checked: true, grpcOnly: true,
  },
  {
    key: 'record', name: `RustWriter without finish() (${VERSION_8})`, pkg: 'protobufjs', install: { compiled: true, verify: 0 },
    op: 'record', rustInput: true, breakdown: true,
  },
  { key: 'null', name: `null writer (${VERSION_8} codegen)`, pkg: 'protobufjs', writer: NullWriter, op: 'passed', rustInput: true,
    breakdown: true },
];

/**
 * Ratios between two contenders that each case reports beside RustWriter's ratios over
 * protobufjs: `of`'s ops/s over `over`'s, under `label`, wherever a case timed both.
 */
const COMPARISONS = [
  { key: 'api', label: 'Writer API vs protobufjs 8.8.1', of: 'rust-api', over: 'pbjs8' },
  { key: 'serializersAdd', label: 'compiled serializers add (8.8.1)', of: 'rust', over: 'rust-enc' },
  { key: 'serializersAdd7', label: 'compiled serializers add (7.6.6)', of: 'rust7', over: 'rust7-enc' },
  { key: 'jsOnly', label: 'JS only vs protobufjs 8.8.1', of: 'rust-js', over: 'pbjs8' },
  { key: 'compiledAdds', label: 'compiled encoders add', of: 'rust', over: 'rust-api' },
  { key: 'nativeAdds', label: 'native addon adds', of: 'rust', over: 'rust-js' },
  { key: 'check1', label: 'speed with 1% shadow-checked', of: 'check1', over: 'rust' },
  { key: 'check100', label: 'speed with all shadow-checked', of: 'check100', over: 'rust' },
];

/** Each contender's protobufjs copy and writer class, by key, made on first use. */
const SETUPS = new Map();

/**
 * A contender's protobufjs copy, with RustWriter installed as it says, and the RustWriter class its
 * encodes must write with (null: protobufjs's own writer, or the null writer).
 * @param {object} contender Entry of CONTENDERS
 * @returns {{copy: object, Rust: Function|null, compiled: boolean, testing: object}} Its setup:
 *   `testing` is the `_testing` of the instance of this package it runs on (its native calls)
 */
function setupOf(contender) {
  let setup = SETUPS.get(contender.key);
  if (setup !== undefined) return setup;
  const own = contender.install && contender.key !== 'rust' && !(SHARED_SOURCES && !contender.env);
  const instance = own ? instanceOf(contender.env || {}, !contender.env && RustWriter.native)
    : { RustWriter, install, _testing: require('..')._testing, status: require('..').status };
  const options = contender.install;
  const copy = loadCopy(contender.pkg, options ? (pb) => instance.install(pb, options) : null);
  if (options && !(copy.pb.Writer.create() instanceof instance.RustWriter)) {
    throw new Error(`${contender.name}: install() did not make ${contender.pkg}'s Writer.create return RustWriters`);
  }
  setup = {
    copy, Rust: options ? instance.RustWriter : null, compiled: Boolean(options && options.compiled),
    testing: instance._testing, install: instance.install, status: instance.status,
  };
  SETUPS.set(contender.key, setup);
  return setup;
}

/**
 * What one benchmark op does, per mode and contender `op`. `T` is the message type, `m` the input,
 * `Writer` the contender's copy's `Writer` (or the writer class passed in). `own` leaves the writer
 * to the encoder (`Writer.create()` inside `encode`), as users call it; `passed` passes one in;
 * `record` stops before `finish()` and returns the writer.
 */
const STREAM_RECORD = 'const w = Writer.create(); for (let i = 0; i < m.length; ++i) T.encodeDelimited(m[i], w); return w;';
const STREAM_SOURCE = STREAM_RECORD.replace('return w;', 'return w.finish();');
const OP_SOURCES = {
  single: {
    own: 'return T.encode(m).finish();',
    passed: 'return T.encode(m, Writer.create()).finish();',
    record: 'return T.encode(m);',
  },
  stream: { own: STREAM_SOURCE, passed: STREAM_SOURCE, record: STREAM_RECORD },
  // `T` is the method's `requestSerialize` (bench/grpc.js).
  grpc: { own: 'return T(m);' },
};

/** Shortest and longest encoded lengths the large case must have on both sides of. */
const ONE_BYTE_LENGTH_MAX = 127;
const TWO_BYTE_LENGTH_MAX = 16383;

/**
 * Asserts that the large message's items have lengths on both sides of 127 and its chunks on
 * both sides of 16383 (one- vs two-byte and two- vs three-byte length prefixes).
 * @param {protobuf.Root} root A protobufjs 8.8.1 Root of bench.proto
 * @param {object} message bench.Large
 * @returns {undefined}
 */
function assertLengthsCross(root, message) {
  const Chunk = root.lookupType('bench.Chunk');
  const Item = root.lookupType('bench.Item');
  const chunks = message.sections.flatMap((s) => s.chunks);
  const items = chunks.flatMap((c) => c.items);
  const straddles = (lengths, max) => lengths.some((n) => n <= max) && lengths.some((n) => n > max);
  assert.ok(straddles(items.map((i) => Item.encode(i).len), ONE_BYTE_LENGTH_MAX), 'item lengths must cross 127');
  assert.ok(straddles(chunks.map((c) => Chunk.encode(c).len), TWO_BYTE_LENGTH_MAX), 'chunk lengths must cross 16383');
}

/**
 * The contenders of a real-workload case's first-encode and memory measurement (bench/cold.js), in
 * fresh processes as apps start: protobufjs 8.8.1 alone, with the preload (compiled encoders), with
 * the preload on the Writer-API path; on cases whose apps may run protobufjs 7.x, protobufjs 7.6.6
 * alone and with the preload too. Temporal's package requires protobufjs 8.x: no app runs its schema
 * on 7.6.6, so its cases start 8.8.1 only.
 */
const COLD_8 = ['pbjs8', 'rust', 'rust-api'];
const COLD_ALL = [...COLD_8, 'pbjs7', 'rust7'];
/**
 * The contenders of the `grpc` group: proto-loader's serializer on protobufjs alone, with RustWriter
 * and compiled serializers, and with RustWriter but serializers off (compiled encoders only: what
 * the preload did before them), on each version.
 */
const GRPC_CONTENDERS = ['pbjs8', 'pbjs7', 'rust', 'rust7', 'rust-enc', 'rust7-enc'];
/**
 * The first-call and memory contenders of the `grpc` group: an app's @grpc/proto-loader on its own
 * protobufjs (7.6.6), alone and under the preload (bench/cold.js).
 */
const COLD_GRPC = ['pbjs7', 'rust7'];

/**
 * The cases, in run order. `group` lets a command line select all variants of a case at once;
 * `proto` is the schema (default bench.proto), or `schema()` returns it as the JSON descriptor
 * `Root.fromJSON` takes (the real schemas of packages); `build(rnd, root)` makes the input from a prng and a resolved
 * Root of the schema in the main protobufjs; `rustInput` maps the input to what RustWriter gets
 * (BigInts for `int64-bigint`, where the protobufjs writers, which cannot take BigInt, get the
 * equal `Long`s); `decoded` gives each contender the input as its own `Type.decode` leaves it, of
 * the bytes `encoded()` returns (default: protobufjs 8.8.1's encoding of the built input);
 * `fromObject` gives each contender its own Type's `fromObject` of the input, as gRPC's serializer
 * does. The `real` group's cases (bench/real/) are schemas and data of real packages; `cold` lists
 * the contenders of their first-encode and memory measurement (bench/cold.js), `wide` marks those
 * the wide-schema targets apply to (bench/targets.js); `env` is the environment its contenders'
 * processes run under, beside this one's (bench/worker.js).
 */
const CASES = [
  {
    id: 'common', group: 'common', title: 'common ~80 B nested', type: 'common.Common', proto: 'common.proto',
    build: modelled.common,
  },
  {
    id: 'catalog', group: 'catalog', title: 'catalog ~16 KB, int32 maps', type: 'catalog.Catalog', proto: 'catalog.proto',
    build: modelled.catalog,
  },
  {
    id: 'tile', group: 'tile', title: 'vector tile ~125 KB, decoded', type: 'vector_tile.Tile', proto: 'vector_tile.proto',
    build: modelled.tile, decoded: true,
  },
  { id: 'tiny', group: 'tiny', title: 'tiny {uint32, string}', type: 'bench.Tiny', build: data.tiny },
  { id: 'small', group: 'small', title: 'small nested, reflection', type: 'bench.Small', build: data.small },
  { id: 'strings', group: 'strings', title: 'string-heavy', type: 'bench.Strings', build: data.strings },
  { id: 'int64-long', group: 'int64', title: '64-bit ×500, Long', type: 'bench.Longs', build: (r) => data.longs(r, 'long') },
  {
    id: 'int64-number', group: 'int64', title: '64-bit ×500, number', type: 'bench.Longs',
    build: (r) => data.longs(r, 'number'),
  },
  {
    id: 'int64-bigint', group: 'int64', title: '64-bit ×500, BigInt', type: 'bench.Longs',
    build: (r) => data.longs(r, 'long'), rustInput: data.toBigInts,
  },
  {
    id: 'packed-array', group: 'packed', title: 'packed ×4×10k, arrays', type: 'bench.Packed', build: (r) => data.packed(r, false),
  },
  {
    id: 'packed-typed', group: 'packed', title: 'packed ×4×10k, typed arrays', type: 'bench.Packed',
    build: (r) => data.packed(r, true),
  },
  { id: 'bytes', group: 'bytes', title: 'bytes-heavy 10×64 KB', type: 'bench.Blobs', build: data.blobs },
  { id: 'large', group: 'large', title: 'large nested ~1 MB', type: 'bench.Large', build: data.large, verify: assertLengthsCross },
  {
    id: 'stream', group: 'stream', title: `stream ×${data.STREAM_LENGTH} delimited`, type: 'bench.Small', build: data.stream,
    mode: 'stream', messagesPerOp: data.STREAM_LENGTH,
  },
  { id: 'static', group: 'static', title: 'small nested, pbjs static code', type: 'bench.Small', build: data.small, codegen: 'static' },
  {
    id: 'temporal', group: 'real', title: 'Temporal workflow task ~250 KB, 600 events', type: temporal.TYPE,
    schema: temporal.schema, build: temporal.build, wide: true, cold: COLD_8,
  },
  {
    id: 'temporal-decoded', group: 'real', title: 'Temporal workflow task, decoded', type: temporal.TYPE,
    schema: temporal.schema, build: temporal.build, decoded: true, wide: true, cold: COLD_8,
  },
  {
    id: 'tile-real', group: 'real', title: 'real vector tile ~108 KB, decoded', type: 'vector_tile.Tile', proto: 'vector_tile.proto',
    encoded: realTile.bytes, decoded: true, cold: COLD_ALL,
  },
  {
    // The same, both contenders with glibc's trim threshold raised: large results' freed pages stay in the
    // process rather than being returned and faulted in again (docs/benchmark.md, "Large results and the GC").
    id: 'tile-real-trim', group: 'real', title: 'real vector tile, glibc\'s trim threshold at 64 MiB', type: 'vector_tile.Tile',
    proto: 'vector_tile.proto', encoded: realTile.bytes, decoded: true, env: { MALLOC_TRIM_THRESHOLD_: String(64 * 1024 * 1024) },
  },
  {
    id: 'firestore', group: 'real', title: `Firestore commit, ${firestore.WRITES} writes, fromObject`, type: firestore.TYPE,
    schema: firestore.schema, build: firestore.build, fromObject: true, cold: COLD_ALL,
  },
  {
    id: 'conformance', group: 'real', title: 'protobuf\'s TestAllTypesProto3, every field set', type: conformance.TYPE,
    schema: conformance.schema, build: conformance.build, wide: true, cold: COLD_ALL,
  },
  {
    id: 'grpc-firestore', group: 'grpc', title: `Firestore commit, ${firestore.WRITES} writes, proto-loader`, type: firestore.TYPE,
    schema: firestore.schema, build: firestore.build, mode: 'grpc', contenders: GRPC_CONTENDERS, cold: COLD_GRPC,
    grpc: { service: 'google.firestore.v1.Firestore', method: 'Commit' },
  },
  {
    id: 'grpc-pubsub', group: 'grpc', title: `Pub/Sub publish, ${pubsub.MESSAGES} messages, proto-loader`, type: pubsub.TYPE,
    schema: pubsub.schema, build: pubsub.build, mode: 'grpc', contenders: GRPC_CONTENDERS, cold: COLD_GRPC,
    grpc: { service: pubsub.SERVICE, method: pubsub.METHOD },
  },
  {
    id: 'grpc-spanner', group: 'grpc', title: `Spanner commit, ${spanner.MUTATIONS} mutations, proto-loader`, type: spanner.TYPE,
    schema: spanner.schema, build: spanner.build, mode: 'grpc', contenders: GRPC_CONTENDERS, cold: COLD_GRPC,
    grpc: { service: spanner.SERVICE, method: spanner.METHOD },
  },
];

/**
 * One benchmark op as a fresh function, its source unique to the case and contender (`tag`), so
 * that no call site, and so no type feedback, is shared between benchmarks.
 * @param {string} source Function body
 * @param {string} tag A comment naming the case and contender (bench/copies.js tagFor)
 * @param {object} T Message type (reflected Type or static class)
 * @param {*} m Input
 * @param {Function} Writer The contender's writer class
 * @returns {() => Uint8Array} The op
 */
function compileOp(source, tag, T, m, Writer) {
  const body = SHARED_SOURCES ? source : `${tag}\n${source}`;
  return new Function('T', 'm', 'Writer', `'use strict'; return function encodeOp() { ${body} };`)(T, m, Writer);
}

/**
 * The schema file of a case.
 * @param {object} c Case
 * @returns {string} Path
 */
function protoFileOf(c) {
  return c.proto ? path.join(FIXTURES, c.proto) : PROTO_FILE;
}

/**
 * A new Root of a case's schema in a protobufjs copy, not yet resolved.
 * @param {object} c Case
 * @param {object} pb protobufjs module
 * @returns {object} Root
 */
function rootOf(c, pb) {
  // A copy of the descriptor each: a Root may keep (and protobufjs mutate) parts of what it was made from.
  return c.schema ? pb.Root.fromJSON(structuredClone(c.schema())) : new pb.Root().loadSync(protoFileOf(c));
}

/**
 * A case's data as the parent process and every contender build it: the input, and for decoded
 * cases the bytes each contender decodes.
 * @param {object} c Case (not static)
 * @returns {{input: *, encoded: Uint8Array|null, type: object}} Input (null for a case of given bytes),
 *   bytes to decode (null unless decoded), and the case's Type in a Root of the main protobufjs
 */
function dataOf(c) {
  const type = rootOf(c, protobuf).resolveAll().lookupType(c.type);
  const input = c.build ? c.build(prng(SEED), type.root) : null;
  if (c.verify) c.verify(new protobuf.Root().loadSync(PROTO_FILE), input);
  // Encoded once by protobufjs 8.8.1 (or given); each contender then decodes these bytes with its own type.
  const encoded = !c.decoded ? null : c.encoded ? c.encoded() : type.encode(input).finish();
  return { input, encoded, type };
}

/**
 * A contender's input: the case's own, or what its Type's `decode` or `fromObject` makes of it.
 * @param {object} c Case
 * @param {object} T The contender's Type
 * @param {{input: *, encoded: Uint8Array|null}} data Result of dataOf
 * @returns {*} Input
 */
function inputOf(c, T, { input, encoded }) {
  if (encoded) return T.decode(encoded);
  return c.fromObject ? T.fromObject(input) : input;
}

/**
 * The message type a contender encodes a case with: from its static module, or from a Root of its
 * own whose every Type is set up (its code generated) under the case's and contender's tag.
 * @param {object} c Case
 * @param {object} contender Contender
 * @param {Object<string, object>|null} statics Static modules per contender key
 * @returns {object} Type or static class
 */
function typeFor(c, contender, statics) {
  if (c.codegen === 'static') return c.type.split('.').reduce((ns, name) => ns[name], statics[contender.key]);
  const { copy } = setupOf(contender);
  if (c.mode === 'grpc') return grpcSerializerFor(c, contender);
  copy.tag = tagFor(c.id, contender.key);
  try {
    const root = rootOf(c, copy.pb);
    setUpAll(copy, root);
    return root.lookupType(c.type);
  } finally {
    copy.tag = null;
  }
}

/**
 * A `grpc` case's serializer for a contender: proto-loader's `requestSerialize` of the case's method,
 * from a proto-loader of the contender's own on its copy (bench/grpc.js), hooked by the contender's
 * `install()` where it has RustWriter.
 * @param {object} c Case
 * @param {object} contender Contender
 * @returns {function(object): Buffer} Serializer
 */
function grpcSerializerFor(c, contender) {
  const setup = setupOf(contender);
  const { copy } = setup;
  copy.tag = tagFor(c.id, contender.key);
  try {
    const loader = protoLoaderFor(copy, () => {
      if (contender.install) setup.install(copy.pb, contender.install);
    });
    return requestSerializer(loader, structuredClone(c.schema()), c.grpc);
  } finally {
    copy.tag = null;
  }
}

/**
 * Checks that a `grpc` case's contender serializes through what it stands for: proto-loader's own
 * serializer, or with RustWriter the hook's (compiled serializers, or with them off proto-loader's,
 * whose `encode` is compiled), writing with the right writer class.
 * @param {object} c Case
 * @param {object} contender Contender
 * @param {function(object): Buffer} S Serializer
 * @param {*} m Its input
 * @returns {undefined}
 */
function checkGrpcContender(c, contender, S, m) {
  const { copy, Rust, testing, status } = setupOf(contender);
  for (let i = testing.configure({}).promoteAfter; i >= 0; --i) S(m);
  const serializers = Boolean(contender.install && contender.install.serializers !== false);
  const hooked = S.name === 'serialize_rustwriter';
  if (hooked !== serializers) {
    throw new Error(`${contender.name} on ${c.id}: the serializer is ${S.name}, ${serializers ? 'not the hook\'s' : 'the hook\'s'}`);
  }
  const own = status().copies.find((x) => x.installed && x.version === copy.version);
  if (Rust !== null && (!own || !own.compiled || (serializers && own.serialized.compiled === 0))) {
    throw new Error(`${contender.name} on ${c.id}: no ${serializers ? 'compiled serializers' : 'compiled encoders'} in protobufjs ${copy.version}`);
  }
  const w = copy.pb.Writer.create();
  if ((Rust !== null) !== (w instanceof RustWriter || (Rust !== null && w instanceof Rust))) {
    throw new Error(`${contender.name} on ${c.id}: ${copy.pkg}'s Writer.create() gives a ${w.constructor.name}`);
  }
}

/**
 * Checks that a contender encodes through what it stands for: a compiled encoder or protobufjs's own
 * (reflection), and a writer of the class it must write with (RustWriter of the right instance, or
 * protobufjs's own).
 * @param {object} c Case
 * @param {object} contender Contender
 * @param {object} T Its message type
 * @param {*} m Its input
 * @returns {undefined}
 */
function checkContender(c, contender, T, m) {
  const { copy, Rust, compiled, testing } = setupOf(contender);
  if (c.codegen !== 'static') {
    // A Type is compiled at its `promoteAfter`-th message (lib/encoders/compile.js, "Tiers"): these
    // encodes are an app's first messages, before any timing.
    const message = c.mode === 'stream' ? m[0] : m;
    if (compiled) for (let i = testing.configure({}).promoteAfter; i > 0; --i) T.encode(message).finish();
    // Compiled by this contender's own package instance, not merely by one of them, unless its
    // compiler keeps protobufjs's encoder for the Type (lib/encoders/compile.js, "Tiers").
    const isCompiled = testing.isCompiled(T.encode) || (compiled && testing.whyKept(T) !== null);
    if (isCompiled !== compiled) {
      throw new Error(`${contender.name} on ${c.id}: ${T.fullName}.encode is ${T.encode.name}, ` +
        `${compiled ? 'not a compiled encoder' : 'a compiled encoder'}`);
    }
  }
  if (contender.writer) return;
  const w = T.encode(c.mode === 'stream' ? m[0] : m);
  const expected = Rust || copy.pb.Writer;
  const ok = w instanceof expected && (Rust !== null || !(w instanceof RustWriter));
  w.finish();
  if (!ok) throw new Error(`${contender.name} on ${c.id}: encode wrote with a ${w.constructor.name}, not a ${expected.name}`);
}

/**
 * The contenders a case times (all of them, or those named).
 * @param {object} c Case
 * @param {string[]|null} [keys] Only these contenders (null or absent: all)
 * @returns {object[]} Entries of CONTENDERS, in order
 */
function contendersOf(c, keys = null) {
  return CONTENDERS.filter((contender) => (!keys || keys.includes(contender.key))
    && (c === null || (c.contenders ? c.contenders.includes(contender.key) : !contender.grpcOnly)));
}

/**
 * The contenders of one case, with their ops: one per process in the bench (bench/worker.js), several in the
 * allocation child (bench/alloc.js) and the probes.
 * @param {object} c Case
 * @param {Object<string, object>|null} statics Static modules per contender key (static case only)
 * @param {string[]|null} [keys] Only these contenders (default: all of the case's)
 * @returns {Array<{key: string, name: string, checked: boolean, fn: () => *}>} Contenders, reference first
 */
function prepareCase(c, statics, keys = null) {
  const data = c.codegen === 'static' ? { input: c.build(prng(SEED)), encoded: null } : dataOf(c);
  const sources = OP_SOURCES[c.mode || 'single'];
  return contendersOf(c, keys).map((contender) => {
    const T = typeFor(c, contender, statics);
    let m = c.mode === 'grpc' ? data.input : inputOf(c, T, data);
    // RustWriter takes the case's RustWriter input (BigInts for int64-bigint), protobufjs's writers Longs.
    if (contender.rustInput && c.rustInput) m = c.rustInput(m);
    if (c.mode === 'grpc') checkGrpcContender(c, contender, T, m);
    else checkContender(c, contender, T, m);
    const Writer = contender.writer || setupOf(contender).copy.pb.Writer;
    const fn = compileOp(sources[contender.op], tagFor(c.id, contender.key), T, m, Writer);
    return { key: contender.key, name: contender.name, checked: Boolean(contender.checked), fn };
  });
}

module.exports = {
  CASES, CONTENDERS, COMPARISONS, PROTO_FILE, contendersOf, prepareCase, setupOf, dataOf, rootOf, protoFileOf, SEED,
};
