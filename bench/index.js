'use strict';

/**
 * `npm run bench`: RustWriter against protobufjs 8.8.1's and 7.6.6's writers on message shapes
 * users have, each encode through protobufjs's reflection code, interleaved in one process.
 * Ratios are against protobufjs 8.8.1 measured in the same run. protobufjs 7.6.6's reflection code
 * writes a few fields 8.8.1 skips (proto3 `false`), so bytes are compared within one codegen.
 */

const os = require('os');
const protobuf = require('protobufjs');
const protobuf7 = require('protobufjs7');
const { RustWriter } = require('..');
const { runCase } = require('./suite');
const { prng } = require('../test/helpers');

const SCHEMA = `
syntax = "proto3";
package bench;
message Tiny { uint32 id = 1; string name = 2; }
enum Kind { KIND_UNKNOWN = 0; KIND_A = 1; KIND_B = 2; }
message Leaf { string label = 1; int32 count = 2; Kind kind = 3; bool flag = 4; }
message Branch { string title = 1; uint32 id = 2; repeated Leaf leaves = 3; sint32 delta = 4; }
message Common { string name = 1; Branch branch = 2; repeated string tags = 3; uint64 stamp = 4; double score = 5; }
message Packed { repeated uint32 values = 1; repeated sint32 deltas = 2; repeated double points = 3; }
`;

function roots() {
  return [protobuf, protobuf7].map((pb) => pb.parse(SCHEMA, { keepCase: true }).root);
}

function samples() {
  const r = prng(42);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
  const tiny = { id: 123456, name: 'user-42' };
  const common = {
    name: 'common-message',
    branch: {
      title: 'branch',
      id: 77,
      delta: -12,
      leaves: [0, 1, 2].map((i) => ({ label: r.pick(words), count: r.int(1000) - 500, kind: 1 + (i % 2), flag: !!(i % 2) })),
    },
    tags: ['x', 'yy', 'zzz'],
    stamp: 1700000000123,
    score: 0.75,
  };
  const packed = {
    values: Array.from({ length: 1000 }, () => r.int(2 ** r.int(32))),
    deltas: Array.from({ length: 1000 }, () => r.int(20000) - 10000),
    points: Array.from({ length: 200 }, () => r() * 1000),
  };
  return { Tiny: tiny, Common: common, Packed: packed };
}

function main() {
  const [root8, root7] = roots();
  const results = [];
  for (const [typeName, object] of Object.entries(samples())) {
    const T8 = root8.lookupType(`bench.${typeName}`);
    const T7 = root7.lookupType(`bench.${typeName}`);
    const m8 = T8.fromObject(object);
    const m7 = T7.fromObject(object);
    results.push(runCase(typeName, [
      { name: 'protobufjs 8.8.1', same: '8', fn: () => T8.encode(m8).finish() },
      { name: 'protobufjs 7.6.6', same: '7', fn: () => T7.encode(m7).finish() },
      { name: 'RustWriter, 8.8.1 codegen', same: '8', fn: () => T8.encode(m8, RustWriter.create()).finish() },
      { name: 'RustWriter, 7.6.6 codegen', same: '7', fn: () => T7.encode(m7, RustWriter.create()).finish() },
    ]));
  }
  process.stdout.write(`\n${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}\n`);
  return results;
}

module.exports = { main };

if (require.main === module) main();
