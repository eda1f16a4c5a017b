'use strict';

/**
 * The cases and contenders of `npm run bench`.
 *
 * A case is a message (or a list of messages, for `stream`) of a schema in bench/fixtures/, built
 * from seeded data (bench/data.js, bench/data-modelled.js), and a way to encode it. Each contender
 * encodes it through its own copy of the generated code: a Root parsed for that case and contender
 * alone (reflection), or its own static module (bench/static.js), so each generated encoder only
 * ever sees one writer class and one kind of input, as in a real process; encoders shared between
 * writers or inputs would turn polymorphic and slow every contender down. What stays shared is
 * each library's writer, as in any process that encodes more than one message type.
 */

const assert = require('assert');
const path = require('path');
const protobuf = require('protobufjs');
const protobuf7 = require('protobufjs7');
const { RustWriter, install } = require('..');
const { loadInstance } = require('./instances');
const { prng } = require('../test/helpers');
const data = require('./data');
const modelled = require('./data-modelled');
const { NullWriter } = require('./null-writer');

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
 * RustWriter of a separate instance of the package loaded under `env` (bench/instances.js),
 * checked to be that instance's own class and to use the addon exactly when `native` says; the
 * main instance must come out of the load as it went in.
 * @param {Object<string, string>} env Environment of the instance
 * @param {boolean} native Whether the instance must use the native addon
 * @returns {Function} The instance's RustWriter
 */
function instanceWriter(env, native) {
  const wasNative = RustWriter.native;
  const { RustWriter: Writer } = loadInstance(env);
  const setting = Object.entries(env).map(([name, value]) => `${name}=${value}`).join(' ');
  if (Writer === RustWriter) throw new Error(`${setting} gave the main instance's RustWriter, not a separate one`);
  if (Writer.native !== native) throw new Error(`RustWriter under ${setting} has native === ${Writer.native}, not ${native}`);
  if (require('..').RustWriter !== RustWriter || RustWriter.native !== wasNative) {
    throw new Error(`loading RustWriter under ${setting} changed the main instance`);
  }
  return Writer;
}

/**
 * The `Writer` whose `create` is what `install(protobuf, { verify: fraction })` gives protobufjs
 * 8.8.1 (lib/integration/verify.js): RustWriters, `fraction` of them shadowed by protobufjs 8.8.1's own
 * writer. It is installed into a stand-in for the module (its `Writer`, with protobufjs 8.8.1's
 * `BufferWriter` and `util`), so that protobufjs 8.8.1's own contender keeps its writer.
 * @param {number} fraction Fraction of writers checked
 * @returns {{create: function(): object}} Writer
 */
function checkedWriter(fraction) {
  const Writer = function Writer() {};
  Writer.create = () => new protobuf.BufferWriter();
  install({ Writer, BufferWriter: protobuf.BufferWriter, util: protobuf.util }, { verify: fraction });
  return Writer;
}

/**
 * The contenders, in the order each round times them. `op` is what one op does (OP_SOURCES);
 * `checked` contenders must produce the reference's bytes (the first one's, protobufjs 8.8.1's);
 * `breakdown` contenders (a writer that writes nothing, RustWriter without `finish()`) produce no
 * bytes to check and only feed the breakdown of where the time goes; `pbjs7Codegen` is timed only
 * on the cases that ask for it (RustWriter driven by protobufjs 7.6.6's generated code); `env`
 * marks a writer of a separate instance of the package loaded under those variables
 * (instanceWriter). Every contender that is neither `breakdown` nor `pbjs7Codegen` gets a column
 * of its own in the speed and allocation tables; a ratio between two contenders goes in
 * COMPARISONS.
 */
const CONTENDERS = [
  { key: 'pbjs8', name: `protobufjs ${VERSION_8}`, pkg: 'protobufjs', pb: protobuf, writer: protobuf.Writer, op: 'own', checked: true },
  { key: 'pbjs7', name: `protobufjs ${VERSION_7}`, pkg: 'protobufjs7', pb: protobuf7, writer: protobuf7.Writer, op: 'own', checked: true },
  { key: 'rust', name: `RustWriter (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf, writer: RustWriter, op: 'passed', checked: true },
  {
    key: 'rust-js', name: `RustWriter, JS only (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf,
    writer: instanceWriter(JS_ONLY_ENV, false), env: JS_ONLY_ENV, op: 'passed', checked: true,
  },
  {
    key: 'check1', name: `RustWriter, 1% shadow-checked (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf,
    writer: checkedWriter(0.01), op: 'passed', checked: true,
  },
  {
    key: 'check100', name: `RustWriter, all shadow-checked (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf,
    writer: checkedWriter(1), op: 'passed', checked: true,
  },
  {
    key: 'rust7', name: `RustWriter (${VERSION_7} codegen)`, pkg: 'protobufjs7', pb: protobuf7, writer: RustWriter, op: 'passed',
    checked: true, pbjs7Codegen: true,
  },
  {
    key: 'record', name: `RustWriter without finish() (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf, writer: RustWriter,
    op: 'record', breakdown: true,
  },
  { key: 'null', name: `null writer (${VERSION_8} codegen)`, pkg: 'protobufjs', pb: protobuf, writer: NullWriter, op: 'passed', breakdown: true },
];

/**
 * Ratios between two contenders that each case reports beside RustWriter's ratios over
 * protobufjs: `of`'s ops/s over `over`'s, under `label`, wherever a case timed both.
 */
const COMPARISONS = [
  { key: 'nativeAdds', label: 'native addon adds', of: 'rust', over: 'rust-js' },
  { key: 'check1', label: 'speed with 1% shadow-checked', of: 'check1', over: 'rust' },
  { key: 'check100', label: 'speed with all shadow-checked', of: 'check100', over: 'rust' },
];

/**
 * What one benchmark op does, per mode and contender `op`. `T` is the message type, `m` the input,
 * `Writer` the contender's writer class. protobufjs's own writer is left to the encoder
 * (`Writer.create()` inside `encode`), as users call it; other writers are passed in. `record`
 * stops before `finish()` and returns the writer.
 */
const STREAM_RECORD = 'const w = Writer.create(); for (let i = 0; i < m.length; ++i) T.encodeDelimited(m[i], w); return w;';
const STREAM_SOURCE = STREAM_RECORD.replace('return w;', 'return w.finish();');
const OP_SOURCES = {
  single: {
    own: 'return T.encode(m).finish();',
    passed: 'return T.encode(m, Writer.create()).finish();',
    record: 'return T.encode(m, Writer.create());',
  },
  stream: { own: STREAM_SOURCE, passed: STREAM_SOURCE, record: STREAM_RECORD },
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
 * The cases, in run order. `group` lets a command line select all variants of a case at once;
 * `proto` is the schema (default bench.proto); `rustInput` maps the input to what RustWriter gets
 * (BigInts for `int64-bigint`, where the protobufjs writers, which cannot take BigInt, get the
 * equal `Long`s); `decoded` gives each contender the input as its own `Type.decode` leaves it;
 * `pbjs7Codegen` adds RustWriter driven by protobufjs 7.6.6's generated code, which writes packed
 * fields one element at a time (`fork()`, one `uint32(v)` per element, `ldelim()`).
 */
const CASES = [
  {
    id: 'common', group: 'common', title: 'common ~80 B nested', type: 'common.Common', proto: 'common.proto',
    build: modelled.common, pbjs7Codegen: true,
  },
  {
    id: 'catalog', group: 'catalog', title: 'catalog ~16 KB, int32 maps', type: 'catalog.Catalog', proto: 'catalog.proto',
    build: modelled.catalog,
  },
  {
    id: 'tile', group: 'tile', title: 'vector tile ~125 KB, decoded', type: 'vector_tile.Tile', proto: 'vector_tile.proto',
    build: modelled.tile, decoded: true, pbjs7Codegen: true,
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
    pbjs7Codegen: true,
  },
  {
    id: 'packed-typed', group: 'packed', title: 'packed ×4×10k, typed arrays', type: 'bench.Packed',
    build: (r) => data.packed(r, true),
  },
  { id: 'bytes', group: 'bytes', title: 'bytes-heavy 10×64 KB', type: 'bench.Blobs', build: data.blobs },
  { id: 'large', group: 'large', title: 'large nested ~1 MB', type: 'bench.Large', build: data.large, verify: assertLengthsCross },
  {
    id: 'stream', group: 'stream', title: `stream ×${data.STREAM_LENGTH} delimited`, type: 'bench.Small', build: data.stream,
    mode: 'stream', messagesPerOp: data.STREAM_LENGTH, pbjs7Codegen: true,
  },
  { id: 'static', group: 'static', title: 'small nested, pbjs static code', type: 'bench.Small', build: data.small, codegen: 'static' },
];

/**
 * One benchmark op as a fresh function. Compiled per (case, contender) so that no call site, and
 * so no type feedback, is shared between benchmarks.
 * @param {string} source Function body
 * @param {object} T Message type (reflected Type or static class)
 * @param {*} m Input
 * @param {Function} Writer The contender's writer class
 * @returns {() => Uint8Array} The op
 */
function compileOp(source, T, m, Writer) {
  return new Function('T', 'm', 'Writer', `'use strict'; return function encodeOp() { ${source} };`)(T, m, Writer);
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
 * The message type a contender encodes a case with.
 * @param {object} c Case
 * @param {object} contender Contender
 * @param {Object<string, object>|null} statics Static modules per contender key
 * @returns {object} Type or static class
 */
function typeFor(c, contender, statics) {
  if (c.codegen === 'static') return c.type.split('.').reduce((ns, name) => ns[name], statics[contender.key]);
  return new contender.pb.Root().loadSync(protoFileOf(c)).lookupType(c.type);
}

/**
 * The contenders a case times.
 * @param {object} c Case
 * @returns {object[]} Entries of CONTENDERS, in order
 */
function contendersOf(c) {
  return CONTENDERS.filter((contender) => !contender.pbjs7Codegen || c.pbjs7Codegen);
}

/**
 * The contenders of one case, with their ops, ready for bench/suite.js.
 * @param {object} c Case
 * @param {Object<string, object>|null} statics Static modules per contender key (static case only)
 * @param {string[]} [keys] Only these contenders (default: all of the case's)
 * @returns {Array<{key: string, name: string, checked: boolean, fn: () => *}>} Contenders, reference first
 */
function prepareCase(c, statics, keys) {
  const input = c.build(prng(SEED));
  if (c.verify) c.verify(new protobuf.Root().loadSync(PROTO_FILE), input);
  // Encoded once by protobufjs 8.8.1; each contender then decodes these bytes with its own type.
  const encoded = c.decoded
    ? new protobuf.Root().loadSync(protoFileOf(c)).lookupType(c.type).encode(input).finish()
    : null;
  const sources = OP_SOURCES[c.mode || 'single'];
  const chosen = contendersOf(c).filter((contender) => !keys || keys.includes(contender.key));
  return chosen.map((contender) => {
    const T = typeFor(c, contender, statics);
    let m = encoded ? T.decode(encoded) : input;
    // Every writer but protobufjs's own takes the case's RustWriter input (BigInts for int64-bigint).
    if (contender.op !== 'own' && c.rustInput) m = c.rustInput(m);
    const fn = compileOp(sources[contender.op], T, m, contender.writer);
    return { key: contender.key, name: contender.name, checked: Boolean(contender.checked), fn };
  });
}

module.exports = { CASES, CONTENDERS, COMPARISONS, PROTO_FILE, contendersOf, prepareCase };
