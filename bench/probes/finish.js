'use strict';

/**
 * What `finish()` costs on one case, apart from the encode: times each encode and each
 * `finish()` apart (a clock read around each, ~50 ns), and prints the median over rounds of the
 * µs per op of each.
 *
 *   node bench/probes/finish.js [tile|catalog|common] [rounds] [checkout]
 */

const path = require('path');
const protobuf = require('protobufjs');
const { prng } = require('../../tools/seeded');
const builders = require('../data-modelled');

const CASES = {
  common: { proto: 'common.proto', type: 'common.Common' },
  catalog: { proto: 'catalog.proto', type: 'catalog.Catalog' },
  tile: { proto: 'vector_tile.proto', type: 'vector_tile.Tile', decoded: true },
};
const [id = 'tile', rounds = '15', dir = path.join(__dirname, '..', '..')] = process.argv.slice(2);
const c = CASES[id];
const { RustWriter } = require(path.resolve(dir));
const T = new protobuf.Root().loadSync(path.join(__dirname, '..', 'fixtures', c.proto)).lookupType(c.type);
let m = builders[id](prng(42));
if (c.decoded) m = T.decode(T.encode(m).finish());

/**
 * Encodes `n` times, timing the encodes and the `finish()` calls apart.
 * @param {number} n Ops
 * @returns {{encode: number, finish: number}} µs per op of each
 */
function round(n) {
  let encode = 0n;
  let finish = 0n;
  for (let i = 0; i < n; ++i) {
    const t0 = process.hrtime.bigint();
    const w = T.encode(m, RustWriter.create());
    const t1 = process.hrtime.bigint();
    w.finish();
    finish += process.hrtime.bigint() - t1;
    encode += t1 - t0;
  }
  return { encode: Number(encode) / n / 1000, finish: Number(finish) / n / 1000 };
}
for (let i = 0; i < 2000; ++i) T.encode(m, RustWriter.create()).finish(); // warm up
const t = process.hrtime.bigint();
round(100);
const n = Math.max(100, Math.round(1e8 / (Number(process.hrtime.bigint() - t) / 100))); // ~0.1 s a round
round(n);
const rs = Array.from({ length: Number(rounds) }, () => round(n));
const median = (xs) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
const encode = median(rs.map((r) => r.encode));
const finish = median(rs.map((r) => r.finish));
process.stdout.write(`${id}: encode ${encode.toFixed(2)} µs, finish ${finish.toFixed(2)} µs ` +
  `(${(100 * finish / (encode + finish)).toFixed(1)}%; ${n} ops a round, median of ${rounds} rounds)\n`);
