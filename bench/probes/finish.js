'use strict';

/**
 * What `finish()` costs on one case, apart from the encode: times each encode and each
 * `finish()` apart (a clock read around each, ~50 ns), and prints the median over rounds of the
 * µs per op of each, with the entries `finish()` found (what it had to splice).
 *
 *   node bench/probes/finish.js [case] [rounds] [checkout]
 *
 * The case is any reflection case of bench/cases.js (`common`, `tile`, `temporal`, `tile-real`,
 * `firestore`, ...), its message built as the bench builds it, in a protobufjs 8.8.1 Root with the
 * checkout's RustWriter installed (compiled encoders, promoted before timing).
 */

const path = require('path');
const { CASES, dataOf, rootOf } = require('../cases');

const [id = 'tile', rounds = '15', dir = path.join(__dirname, '..', '..')] = process.argv.slice(2);
const c = CASES.find((x) => x.id === id);
if (!c || c.codegen === 'static' || c.mode === 'stream') throw new Error(`${id}: not a reflection case of one message`);
const data = dataOf(c);
const copy = require('../copies').loadCopy('protobufjs');
const { RustWriter, install, _testing } = require(path.resolve(dir));
install(copy.pb);
const T = rootOf(c, copy.pb).resolveAll().lookupType(c.type);
let m = data.encoded ? T.decode(data.encoded) : data.input;
if (c.fromObject) m = T.fromObject(m);

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
const warm = Date.now() + 1000;
while (Date.now() < warm) T.encode(m, RustWriter.create()).finish();
const probe = T.encode(m, RustWriter.create());
const entries = probe._entryEnd / 4;
probe.finish();
const t = process.hrtime.bigint();
round(10);
const n = Math.max(10, Math.round(1e8 / (Number(process.hrtime.bigint() - t) / 10))); // ~0.1 s a round
round(n);
const rs = Array.from({ length: Number(rounds) }, () => round(n));
const median = (xs) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
const encode = median(rs.map((r) => r.encode));
const finish = median(rs.map((r) => r.finish));
process.stdout.write(`${id}: encode ${encode.toFixed(2)} µs, finish ${finish.toFixed(2)} µs ` +
  `(${(100 * finish / (encode + finish)).toFixed(1)}%; ${entries} entries; compiled: ${_testing.isCompiled(T.encode)}; ` +
  `${n} ops a round, median of ${rounds} rounds)\n`);
