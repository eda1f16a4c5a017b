'use strict';

/**
 * A/B of two checkouts of this package on one case, in one process, interleaved: the way to tell
 * whether a change made RustWriter faster when the machine is too noisy for two separate bench
 * runs to tell.
 *
 *   node bench/probe-ab.js <checkout A> <checkout B> [case] [rounds]
 *
 * Each checkout is required as a package (its own module instance: its own slab and native
 * engine) and gets its own Root of the case's schema, so each generated encoder sees one writer
 * class. Rounds alternate A and B (each round: as many ops as take ~50 ms); the report is each
 * side's median and minimum time per op and the median of the per-round ratios B/A. Cases: the
 * modelled ones of bench/data-modelled.js (common, catalog, tile) and bench/data.js's stream.
 */

const path = require('path');
const protobuf = require('protobufjs');
const { prng } = require('../test/helpers');
const modelled = require('./data-modelled');
const data = require('./data');

const FIXTURES = path.join(__dirname, 'fixtures');
const CASES = {
  common: { proto: 'common.proto', type: 'common.Common', build: modelled.common },
  catalog: { proto: 'catalog.proto', type: 'catalog.Catalog', build: modelled.catalog },
  tile: { proto: 'vector_tile.proto', type: 'vector_tile.Tile', build: modelled.tile, decoded: true },
  stream: { proto: 'bench.proto', type: 'bench.Small', build: (r) => data.stream(r), stream: true },
};
const SEED = 42;
const ROUND_MS = 50;

const [dirA, dirB, id = 'tile', roundsArg = '40'] = process.argv.slice(2);
if (!dirA || !dirB || !CASES[id]) {
  process.stderr.write(`usage: node bench/probe-ab.js <checkout A> <checkout B> [${Object.keys(CASES).join('|')}] [rounds]\n`);
  process.exit(2);
}
const c = CASES[id];

/**
 * The op of one checkout: encode the case's message through its own Root with its RustWriter.
 * @param {string} dir Checkout
 * @returns {function(): Uint8Array} Op
 */
function opOf(dir) {
  const { RustWriter } = require(path.resolve(dir));
  const T = new protobuf.Root().loadSync(path.join(FIXTURES, c.proto)).lookupType(c.type);
  let m = c.build(prng(SEED));
  if (c.decoded) m = T.decode(T.encode(m).finish());
  if (c.stream) {
    return () => {
      const w = RustWriter.create();
      for (let i = 0; i < m.length; ++i) T.encodeDelimited(m[i], w);
      return w.finish();
    };
  }
  return () => T.encode(m, RustWriter.create()).finish();
}

const ops = [opOf(dirA), opOf(dirB)];
if (Buffer.compare(ops[0](), ops[1]()) !== 0) throw new Error('the two checkouts give different bytes');
// Warm up, and size a round.
let n = 1;
for (;;) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; ++i) { ops[0](); ops[1](); }
  if (Number(process.hrtime.bigint() - start) / 1e6 > 2 * ROUND_MS) break;
  n *= 2;
}
const times = [[], []];
const ratios = [];
for (let round = 0; round < Number(roundsArg); ++round) {
  const t = [0, 0];
  for (const side of round % 2 ? [1, 0] : [0, 1]) {
    const op = ops[side];
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; ++i) op();
    t[side] = Number(process.hrtime.bigint() - start) / n;
    times[side].push(t[side]);
  }
  ratios.push(t[1] / t[0]);
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const fmt = (ns) => (ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
for (const [side, dir] of [[0, dirA], [1, dirB]]) {
  process.stdout.write(`${side ? 'B' : 'A'} ${dir}: median ${fmt(median(times[side]))}, min ${fmt(Math.min(...times[side]))}\n`);
}
process.stdout.write(`${id}: B/A time, median of ${ratios.length} rounds: ${median(ratios).toFixed(3)}` +
  ` (quartiles ${ratios.slice().sort((a, b) => a - b)[ratios.length >> 2].toFixed(3)}–` +
  `${ratios.slice().sort((a, b) => a - b)[(3 * ratios.length) >> 2].toFixed(3)})\n`);
