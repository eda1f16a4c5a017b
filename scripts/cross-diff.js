'use strict';

/**
 * `node scripts/cross-diff.js [count]`: a differential run for the emulated runs of
 * scripts/test-cross.js (and any machine): encodes real schemas' messages with `install(protobuf)`,
 * as an app does (its Types set up after the install, at the shipped settings, so each runs
 * protobufjs's encoder through RustWriter until it is promoted, then compiled code), and with
 * protobufjs 8.8.1's reference copy (test/reference.js: a copy the package never touched, its own
 * encoders and writer), and fails unless every byte is the same, each Type ran compiled code by the
 * end (test/compiled.js) and the native addon was used (`RustWriter.native`), so a silent JS
 * fallback cannot pass.
 * - google/protobuf's descriptor.proto, api.proto and type.proto, each encoded as the
 *   FileDescriptorSet protobufjs makes of it (protobufjs/ext/descriptor): real, deep messages,
 *   each encoded until its Type is promoted;
 * - `count` (default 3000) seeded random messages of a schema with every field kind: scalars at
 *   their edges, packed and unpacked repeats, maps, oneofs, nesting, strings and bytes from empty
 *   to over 16 KiB (the native paths for long results and large bytes).
 */

const assert = require('assert');
const path = require('path');
const protobuf = require('protobufjs');
const { RustWriter, install, _testing } = require('..');
const { referenceCopy } = require('../test/reference');
const { observeTier } = require('../test/compiled');

const reference = referenceCopy('8');
const COUNT = Number(process.argv[2] || 3000);

const SCHEMA = `
syntax = "proto3";
package cross;
enum Kind { ZERO = 0; ONE = 1; NEG = -1; }
message Leaf { string s = 1; sint64 z = 2; bytes b = 3; }
message All {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; fixed64 f64 = 8; sfixed32 sf32 = 9; sfixed64 sf64 = 10; bool flag = 11;
  float fl = 12; double db = 13; string str = 14; bytes raw = 15; Kind kind = 16;
  repeated int32 p_i32 = 17; repeated uint64 p_u64 = 18; repeated sint32 p_s32 = 19;
  repeated sint64 p_s64 = 20; repeated fixed32 p_f32 = 21; repeated double p_db = 22;
  repeated bool p_flag = 23; repeated int64 u_i64 = 24 [packed = false];
  repeated string strs = 25; repeated Leaf leaves = 26; map<string, Leaf> by_name = 27;
  map<int64, string> by_id = 28; Leaf leaf = 29; All child = 30;
  oneof pick { string o_str = 31; uint64 o_u64 = 32; Leaf o_leaf = 33; }
}
`;

/** Seeded xorshift, so a failure reproduces. */
let state = 0x9e3779b9;
function rand() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 2 ** 32;
}
const int = (n) => Math.floor(rand() * n);
const pick = (values) => values[int(values.length)];

const I32 = [0, 1, -1, 127, 128, -128, 2 ** 31 - 1, -(2 ** 31), 300, -300];
const U64 = ['0', '1', '127', '128', '16383', '16384', '4294967295', '4294967296', '9223372036854775807', '18446744073709551615'];
const S64 = ['0', '-1', '1', '-9223372036854775808', '9223372036854775807', '-4294967296', '123456789012'];
const text = () => pick(['', 'a', 'é', '漢字', '\ud83d\ude00', 'x'.repeat(int(200)), 'é'.repeat(int(3000)), 'y'.repeat(17000 * (rand() < 0.02))]);
const blob = () => Buffer.alloc(pick([0, 1, 31, 200, 4096, 5000, 20000 * (rand() < 0.1)]), int(256));
const many = (make, max) => Array.from({ length: int(max) }, make);
const leaf = () => ({ s: text(), z: pick(S64), b: blob() });

function message(depth) {
  const m = {};
  if (rand() < 0.7) {
    Object.assign(m, { i32: pick(I32), i64: pick(S64), u32: pick(I32) >>> 0, u64: pick(U64) });
    Object.assign(m, { s32: pick(I32), s64: pick(S64) });
  }
  if (rand() < 0.5) {
    Object.assign(m, { f32: pick(I32) >>> 0, f64: pick(U64), sf32: pick(I32), sf64: pick(S64), flag: rand() < 0.5 });
  }
  if (rand() < 0.5) {
    m.fl = pick([0, -0, 1.5, -2.25, 3.4e38, NaN, Infinity]);
    m.db = pick([0, -0, Math.PI, 1e300, -Infinity, NaN]);
  }
  if (rand() < 0.6) Object.assign(m, { str: text(), raw: blob(), kind: pick([0, 1, -1]) });
  if (rand() < 0.5) {
    Object.assign(m, {
      p_i32: many(() => pick(I32), 300), p_u64: many(() => pick(U64), 100), p_s32: many(() => pick(I32), 100),
      p_s64: many(() => pick(S64), 50), p_f32: many(() => int(2 ** 32), 50), p_db: many(() => rand() * 1e6, 50),
      p_flag: many(() => rand() < 0.5, 50), u_i64: many(() => pick(S64), 20),
    });
  }
  if (rand() < 0.4) Object.assign(m, { strs: many(text, 8), leaves: many(leaf, 6) });
  if (rand() < 0.3) m.by_name = Object.fromEntries(many(() => [`k${int(1000)}`, leaf()], 6));
  if (rand() < 0.3) m.by_id = Object.fromEntries(many(() => [pick(S64), text()], 6));
  if (rand() < 0.4) m.leaf = leaf();
  if (depth < 4 && rand() < 0.3) m.child = message(depth + 1);
  const oneof = int(4);
  if (oneof === 1) m.o_str = text();
  else if (oneof === 2) m.o_u64 = pick(U64);
  else if (oneof === 3) m.o_leaf = leaf();
  return m;
}

/**
 * Encodes each message with the installed copy's Type (RustWriter) and with the reference's.
 * @param {object} T Type of the installed copy, set up after the install
 * @param {object} R The same Type of the reference copy
 * @param {object[]} ours Messages for `T` (plain objects or its instances)
 * @param {object[]} theirs The same messages for `R`
 * @returns {number} Bytes compared
 */
function compare(T, R, ours, theirs) {
  let bytes = 0;
  for (let i = 0; i < ours.length; i++) {
    const w = T.encode(ours[i]);
    assert.ok(w instanceof RustWriter, `${T.fullName}: the installed encode used a ${w && w.constructor.name}`);
    const a = w.finish();
    const b = R.encode(theirs[i]).finish();
    if (Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0) {
      assert.fail(`${T.fullName} message ${i}: ${a.length} bytes from RustWriter, ${b.length} from protobufjs`);
    }
    bytes += b.length;
  }
  return bytes;
}

/**
 * Fails unless the Type's messages run compiled code now (test/compiled.js: the test hook and the
 * code that read the fields agree), with the reference's bytes.
 * @param {object} T Type of the installed copy
 * @param {object} R The reference's
 * @param {object} m A message for `T`
 * @param {object} r The same for `R`
 * @returns {undefined}
 */
function assertCompiled(T, R, m, r) {
  const { tier, bytes } = observeTier(T, m);
  assert.strictEqual(tier, 'compiled', `${T.fullName} still runs protobufjs's encoder`);
  assert.ok(bytes.equals(Buffer.from(R.encode(r).finish())), `${T.fullName}: the observed encode differs`);
}

/**
 * The FileDescriptorSet of one of google/protobuf's files, made by a copy's protobufjs/ext/descriptor.
 * @param {object} pb The copy
 * @param {string} file File name
 * @returns {object} Message
 */
function descriptorSet(pb, file) {
  const google = path.dirname(require.resolve('protobufjs/google/protobuf/descriptor.proto'));
  const root = new pb.Root();
  root.resolvePath = (origin, target) => (target.startsWith('google/protobuf/') ? path.join(google, path.basename(target)) : target);
  root.loadSync(path.join(google, file), { keepCase: true }).resolveAll();
  return root.toDescriptor('proto3');
}

function main() {
  assert.strictEqual(RustWriter.native, true, `the native addon did not load on ${process.platform}-${process.arch}`);
  // Installed before any Type of the copy is set up, as the preload does.
  install(protobuf);
  const { promoteAfter } = _testing.configure({}); // the shipped setting, unchanged
  let bytes = 0;
  let messages = 0;
  const { FileDescriptorSet } = require('protobufjs/ext/descriptor');
  const { FileDescriptorSet: RefSet } = reference.require('protobufjs/ext/descriptor');
  const files = ['descriptor.proto', 'api.proto', 'type.proto'];
  const ours = files.map((file) => descriptorSet(protobuf, file));
  const theirs = files.map((file) => descriptorSet(reference.pb, file));
  for (let round = 0; round <= promoteAfter / files.length; round++) {
    bytes += compare(FileDescriptorSet, RefSet, ours, theirs);
    messages += files.length;
  }
  assertCompiled(FileDescriptorSet, RefSet, ours[0], theirs[0]);
  const All = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('cross.All');
  const RefAll = reference.pb.parse(SCHEMA, { keepCase: true }).root.lookupType('cross.All');
  let last = null;
  for (let done = 0; done < COUNT; done += 500) {
    const batch = Array.from({ length: Math.min(500, COUNT - done) }, () => message(0));
    const [mine, refs] = [All, RefAll].map((T) => batch.map((m) => T.fromObject(m)));
    bytes += compare(All, RefAll, mine, refs);
    messages += batch.length;
    last = batch[batch.length - 1];
  }
  if (COUNT >= promoteAfter) assertCompiled(All, RefAll, All.fromObject(last), RefAll.fromObject(last));
  process.stdout.write(`cross-diff on ${process.platform}-${process.arch} (Node ${process.version}, addon loaded): ` +
    `${messages} messages, ${bytes} bytes, identical to protobufjs ${reference.version}'s reference copy; ` +
    'protobufjs\'s encoders through RustWriter, then compiled code\n');
}

main();
