'use strict';

/**
 * A/B of two checkouts of this package on one case: the way to tell whether a change made
 * RustWriter faster when the machine is too noisy for two separate bench runs to tell.
 *
 *   node bench/probes/ab.js <checkout A> <checkout B> [case] [pairs] [--api]
 *
 * Each measurement is a fresh process for one checkout (in one process, the package loaded
 * second ran 5–15% slower or faster than the first, whichever it was): it installs the checkout
 * into protobufjs (`install(protobuf)`: compiled encoders where the checkout has them; with
 * `--api`, `{ compiled: false }`, the Writer API path), builds the case's message with a Root of
 * the schema, warms up, then times ~1 s of `T.encode(m).finish()`. Processes
 * alternate A, B, B, A, … so that the machine's drifts hit both alike; the report is each side's
 * median time per op and the median of the per-pair ratios B/A with their quartiles. Cases: the
 * modelled ones of bench/data-modelled.js (common, catalog, tile) and bench/data.js's stream; and
 * `shapes-N`, 64 plain messages of one Type of eight fields, all present, in N key orders (rotations
 * of one order, so that from 2 shapes on a site finds most fields at a different offset in each
 * shape; past 4 it is megamorphic), and `oneof-8`, messages of one field each of the eight, as
 * oneof-like messages are: what a change does to code that sees many object shapes, which the
 * modelled cases do not show. Any other case of bench/cases.js (the real ones: `temporal`,
 * `temporal-decoded`, `tile-real`, `firestore`, ...) is prepared by each checkout's own
 * bench/cases.js for its contender `rust` (`rust-api` with `--api`), as `npm run bench` prepares it.
 */

const path = require('path');
const { execFileSync } = require('child_process');

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const CASES = {
  common: { proto: 'common.proto', type: 'common.Common', build: 'common' },
  catalog: { proto: 'catalog.proto', type: 'catalog.Catalog', build: 'catalog' },
  tile: { proto: 'vector_tile.proto', type: 'vector_tile.Tile', build: 'tile', decoded: true },
  stream: { proto: 'bench.proto', type: 'bench.Small', build: 'stream', stream: true },
  'shapes-1': { shapes: 1 },
  'shapes-2': { shapes: 2 },
  'shapes-4': { shapes: 4 },
  'shapes-8': { shapes: 8 },
  'oneof-8': { shapes: 8, oneof: true },
};
/** The shape cases' Type: strings and uint32s in turn. */
const SHAPE_KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const SHAPE_SCHEMA = {
  nested: {
    M: { fields: Object.fromEntries(SHAPE_KEYS.map((k, i) => [k, { type: i % 2 ? 'uint32' : 'string', id: i + 1 }])) },
  },
};
/** Messages of a shape case, cycled through. */
const SHAPE_MESSAGES = 64;

/**
 * The messages of a shape case, each field's value a string or a number by its type.
 * @param {number} shapes Key orders
 * @param {boolean} oneof One field a message (the `i % shapes`th) instead of all eight
 * @returns {object[]} Plain objects
 */
function shapeMessages(shapes, oneof) {
  const value = (k, i) => (SHAPE_KEYS.indexOf(k) % 2 ? i + 1 : `${k}-${i}`);
  return Array.from({ length: SHAPE_MESSAGES }, (_, i) => {
    const order = oneof
      ? [SHAPE_KEYS[i % shapes]]
      : SHAPE_KEYS.map((_k, j) => SHAPE_KEYS[(j + i % shapes) % SHAPE_KEYS.length]);
    return Object.fromEntries(order.map((k) => [k, value(k, i)]));
  });
}
const SEED = 42;
const WARM_MS = 600;
const TIME_MS = 1000;

/**
 * Child: times one checkout on one case and prints its median ns per op.
 * @param {string} dir Checkout
 * @param {string} id Case
 * @param {boolean} api Whether to time the Writer API path
 * @returns {undefined}
 */
function child(dir, id, api) {
  if (!CASES[id]) {
    const cases = require(path.resolve(dir, 'bench', 'cases'));
    const [contender] = cases.prepareCase(cases.CASES.find((c) => c.id === id), null, [api ? 'rust-api' : 'rust']);
    time(contender.fn);
    return;
  }
  const protobuf = require('protobufjs');
  const { prng } = require('../../tools/seeded');
  const c = CASES[id];
  const builders = { ...require('../data-modelled'), stream: require('../data').stream };
  const { install } = require(path.resolve(dir));
  install(protobuf, api ? { compiled: false } : undefined);
  if (c.shapes) {
    const T = protobuf.Root.fromJSON(SHAPE_SCHEMA).lookupType('M');
    const messages = shapeMessages(c.shapes, c.oneof === true);
    let next = 0;
    time(() => T.encode(messages[next++ & (SHAPE_MESSAGES - 1)]).finish());
    return;
  }
  const T = new protobuf.Root().loadSync(path.join(FIXTURES, c.proto)).lookupType(c.type);
  let m = builders[c.build](prng(SEED));
  if (c.decoded) m = T.decode(T.encode(m).finish());
  const op = c.stream
    ? () => {
      const w = protobuf.Writer.create();
      for (let i = 0; i < m.length; ++i) T.encodeDelimited(m[i], w);
      return w.finish();
    }
    : () => T.encode(m).finish();
  time(op);
}

/**
 * Child: warms `op` up, times ~1 s of it and prints its median ns.
 * @param {Function} op One op
 * @returns {undefined}
 */
function time(op) {
  const until = (ms, fn) => {
    const end = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < end) fn();
  };
  until(WARM_MS, op);
  const times = [];
  until(TIME_MS, () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20; ++i) op();
    times.push(Number(process.hrtime.bigint() - start) / 20);
  });
  times.sort((a, b) => a - b);
  process.stdout.write(`${times[times.length >> 1]}\n`);
}

/**
 * Parent: alternates child processes of both checkouts and reports.
 * @param {string} dirA Checkout A
 * @param {string} dirB Checkout B
 * @param {string} id Case
 * @param {number} pairs Pairs of measurements
 * @param {boolean} api Whether to time the Writer API path
 * @returns {undefined}
 */
function parent(dirA, dirB, id, pairs, api) {
  const args = (dir) => [__filename, '--child', dir, id, ...(api ? ['--api'] : [])];
  const run = (dir) => Number(execFileSync(process.execPath, args(dir), { encoding: 'utf8' }));
  const times = [[], []];
  const ratios = [];
  for (let k = 0; k < pairs; ++k) {
    const t = [0, 0];
    for (const side of k % 2 ? [1, 0] : [0, 1]) {
      t[side] = run(side ? dirB : dirA);
      times[side].push(t[side]);
    }
    ratios.push(t[1] / t[0]);
  }
  const sorted = (xs) => xs.slice().sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[xs.length >> 1];
  const fmt = (ns) => (ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
  for (const [side, dir] of [[0, dirA], [1, dirB]]) {
    process.stdout.write(`${side ? 'B' : 'A'} ${dir}: median ${fmt(median(times[side]))}, min ${fmt(Math.min(...times[side]))}\n`);
  }
  const r = sorted(ratios);
  process.stdout.write(`${id}: B/A time, median of ${pairs} pairs: ${median(ratios).toFixed(3)} ` +
    `(quartiles ${r[pairs >> 2].toFixed(3)}–${r[(3 * pairs) >> 2].toFixed(3)})\n`);
}

const argv = process.argv.slice(2);
const api = argv.includes('--api');
if (argv[0] === '--child') {
  child(argv[1], argv[2], api);
} else {
  const [dirA, dirB, id = 'tile', pairs = '8'] = argv.filter((arg) => arg !== '--api');
  const benchCases = require('../cases').CASES.filter((c) => c.codegen !== 'static').map((c) => c.id);
  if (!dirA || !dirB || !(CASES[id] || benchCases.includes(id))) {
    const ids = [...new Set([...Object.keys(CASES), ...benchCases])];
    process.stderr.write(`usage: node bench/probes/ab.js <checkout A> <checkout B> [${ids.join('|')}] [pairs] [--api]\n`);
    process.exitCode = 2;
  } else {
    parent(dirA, dirB, id, Number(pairs), api);
  }
}
