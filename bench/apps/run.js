'use strict';

/**
 * Where a whole app gains: bench/apps/producer.js (encode-bound: batches of events encoded as a
 * delimited stream and appended to a file), bench/apps/grpc.js (call-bound: @grpc/grpc-js unary
 * calls over 127.0.0.1, both ends in one process) and bench/apps/firestore.js (the same with Firestore
 * commits as requests, ~10 KB, and the serializers' share of the process's CPU time), each run as a
 * fresh process per contender:
 *
 * - `alone`: protobufjs's own writer (`node app.js`);
 * - `compiled`: the preload, as an app turns it on (`node -r register.js app.js`): RustWriter with
 *   compiled encoders;
 * - `serializers-off` (the gRPC apps): the preload with `PROTOBUFJS_RUSTWRITER_SERIALIZERS=0`:
 *   proto-loader's own serializers, `encode(fromObject(o))` with compiled encoders;
 * - `api`: the preload with `PROTOBUFJS_RUSTWRITER_COMPILED=0`: protobufjs's generated encoders
 *   calling RustWriter through the Writer API.
 *
 *   node bench/apps/run.js [--apps producer,grpc,firestore] [--rounds 6] [--warm 2] [--seconds 4]
 *
 * Each round runs every contender once, in an order that changes from round to round (all six orders
 * in turn), so that a machine whose speed drifts hits each alike; a contender's ratio in a round is its
 * rate over `alone`'s in the same round. Two rates: per second of wall-clock time (what an app on a
 * machine of its own sees), and per second of CPU time the process used (every thread: on a machine
 * shared with other work, what a process gets of the cores changes from run to run, and this rate
 * changes less). Printed: how it measured (Node, CPU, load average before and after), then per app and
 * contender each rate's median and spread (min–max over the rounds) and the median ratio with its
 * spread. Each process checks that its writer is the one its contender should
 * have, and every contender's output digest must be the same (bytes for the producer, decoded responses
 * for gRPC). The full results go to target/bench/apps-last-run.json. Exit 1 on any failed check.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');

const ROOT = path.join(__dirname, '..', '..');
const REGISTER = path.join(ROOT, 'register.js');
const APPS = {
  producer: { file: 'producer.js', what: 'encode-bound: a producer encoding batches of 100 events (~650 B each) as a delimited stream, appended to a file' },
  grpc: {
    file: 'grpc.js', what: 'call-bound: @grpc/grpc-js unary calls over 127.0.0.1, 16 in flight, server and client in one process, ~270 B responses',
    contenders: ['alone', 'compiled', 'serializers-off', 'api'],
  },
  firestore: {
    file: 'firestore.js', contenders: ['alone', 'compiled', 'serializers-off', 'api'],
    what: 'call-bound, large requests: Firestore Commit calls over 127.0.0.1, 4 in flight, server and client in one process, commits of 20 writes (~10 KB)',
  },
};
const CONTENDERS = {
  alone: { label: 'protobufjs alone', args: [], env: {}, writer: 'BufferWriter', compiled: false, serializers: false },
  compiled: { label: 'preload, compiled encoders', args: ['-r', REGISTER], env: {}, writer: 'RustWriter', compiled: true, serializers: true },
  'serializers-off': {
    label: 'preload, serializers off', args: ['-r', REGISTER], env: { PROTOBUFJS_RUSTWRITER_SERIALIZERS: '0' }, writer: 'RustWriter',
    compiled: true, serializers: false,
  },
  api: {
    label: 'preload, Writer API', args: ['-r', REGISTER], env: { PROTOBUFJS_RUSTWRITER_COMPILED: '0' }, writer: 'RustWriter',
    compiled: false, serializers: false,
  },
};
/** The contenders of an app that names none. */
const ORDER = ['alone', 'compiled', 'api'];

/**
 * The order of an app's contenders in a round: rotated, and reversed every other cycle.
 * @param {string[]} keys The app's contenders
 * @param {number} round Round
 * @returns {string[]} Contenders
 */
function orderOf(keys, round) {
  const order = keys.map((_, i) => keys[(i + round) % keys.length]);
  return Math.floor(round / keys.length) % 2 ? order.reverse() : order;
}

/**
 * Runs one app in one contender's process.
 * @param {string} app App id
 * @param {string} contender Contender id
 * @param {{warm: number, seconds: number}} options Timing
 * @returns {object} The app's JSON line
 */
function runOnce(app, contender, { warm, seconds }) {
  const c = CONTENDERS[contender];
  const env = { ...process.env, NODE_OPTIONS: '', PROTOBUFJS_RUSTWRITER_COMPILED: '', PROTOBUFJS_RUSTWRITER_SERIALIZERS: '', ...c.env };
  delete env.PROTOBUFJS_RUSTWRITER;
  const args = [...c.args, path.join(__dirname, APPS[app].file), String(warm), String(seconds)];
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT, env, encoding: 'utf8', timeout: (warm + seconds + 60) * 1000,
  });
  if (result.status !== 0) throw new Error(`${app} (${c.label}) failed: ${result.error ? result.error.message : result.stderr}`);
  const out = JSON.parse(result.stdout.trim().split('\n').pop());
  // An app that serializes no plain objects (the producer) reports no serializers.
  const serializers = out.serializers === undefined ? false : out.serializers;
  const expected = out.serializers === undefined ? false : c.serializers;
  if (out.writer !== c.writer || out.compiled !== c.compiled || serializers !== expected) {
    throw new Error(`${app} (${c.label}) ran with ${out.writer}${out.compiled ? ', compiled encoders' : ''}${serializers ? ', compiled serializers' : ''}, ` +
      `not ${c.writer}${c.compiled ? ', compiled encoders' : ''}${expected ? ', compiled serializers' : ''}`);
  }
  return out;
}

/**
 * Median and range of numbers.
 * @param {number[]} values Values
 * @returns {{median: number, min: number, max: number}} Summary
 */
function summarize(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/**
 * Lays out rows of cells, the first column left-aligned.
 * @param {string[][]} rows Rows, the header first
 * @returns {string} Lines
 */
function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ')).join('\n');
}

/**
 * Runs the comparison and prints it.
 * @returns {number} Exit code
 */
function main() {
  const { values } = parseArgs({
    options: {
      apps: { type: 'string', default: 'producer,grpc,firestore' },
      rounds: { type: 'string', default: '6' },
      warm: { type: 'string', default: '2' },
      seconds: { type: 'string', default: '4' },
    },
  });
  const apps = values.apps.split(',');
  for (const app of apps) if (!APPS[app]) throw new Error(`unknown app ${app}: one of ${Object.keys(APPS).join(', ')}`);
  const options = { rounds: Number(values.rounds), warm: Number(values.warm), seconds: Number(values.seconds) };
  const cpus = os.cpus();
  const machine = `${cpus.length} × ${cpus[0] ? cpus[0].model.trim() : 'unknown CPU'}, ${os.type()} ${os.release()} ${os.arch()}`;
  const loadBefore = os.loadavg()[0];
  process.stdout.write(`bench/apps on Node ${process.version}, ${machine}; load average ${loadBefore.toFixed(1)} at the start.\n` +
    `Each app runs as a fresh process per contender, ${options.rounds} rounds, the contenders' order changing every round; ` +
    `each process works ${options.warm} s unmeasured, then ${options.seconds} s measured.\n`);
  const results = {};
  for (const app of apps) {
    const keys = APPS[app].contenders || ORDER;
    const rates = Object.fromEntries(keys.map((c) => [c, []]));
    const cpuRates = Object.fromEntries(keys.map((c) => [c, []]));
    const shares = Object.fromEntries(keys.map((c) => [c, []]));
    const digests = new Set();
    let last = null;
    for (let round = 0; round < options.rounds; ++round) {
      for (const contender of orderOf(keys, round)) {
        last = runOnce(app, contender, options);
        rates[contender].push(last.rate);
        cpuRates[contender].push(last.cpuRate);
        if (last.serializeShare !== undefined) shares[contender].push(last.serializeShare);
        digests.add(last.digest);
      }
      process.stderr.write(`bench/apps: ${app}, round ${round + 1} of ${options.rounds} done\n`);
    }
    if (digests.size !== 1) throw new Error(`${app}: the contenders' outputs differ (${[...digests].join(', ')})`);
    const ratios = (of, c) => of[c].map((rate, i) => rate / of.alone[i]);
    const others = keys.filter((c) => c !== 'alone');
    results[app] = {
      unit: last.unit, bytesPerMessage: last.bytesPerMessage, rates, cpuRates,
      ratios: Object.fromEntries(others.map((c) => [c, ratios(rates, c)])),
      cpuRatios: Object.fromEntries(others.map((c) => [c, ratios(cpuRates, c)])),
      ...(last.serializeShare !== undefined && { serializeShares: shares }),
    };
    const fmt = (x) => Math.round(x).toLocaleString('en-US');
    const unit = last.unit.replace('/s', '');
    const share = last.serializeShare !== undefined;
    const rows = [['contender', `${last.unit} (median)`, 'min–max', 'vs alone', 'min–max', `${unit} per CPU-s`, 'vs alone', 'min–max',
      ...(share ? ['serializers\' share of CPU'] : [])]];
    for (const c of keys) {
      const cells = [CONTENDERS[c].label];
      for (const of of [rates, cpuRates]) {
        const s = summarize(of[c]);
        const r = c === 'alone' ? null : summarize(ratios(of, c));
        cells.push(fmt(s.median));
        if (of === rates) cells.push(`${fmt(s.min)}–${fmt(s.max)}`);
        cells.push(r ? `${r.median.toFixed(2)}x` : '', r ? `${r.min.toFixed(2)}–${r.max.toFixed(2)}x` : '');
      }
      if (share) cells.push(`${(summarize(shares[c]).median * 100).toFixed(0)}%`);
      rows.push(cells);
    }
    process.stdout.write(`\n${app} (${APPS[app].what}):\n${table(rows)}\n`);
  }
  const loadAfter = os.loadavg()[0];
  process.stdout.write(`\nLoad average ${loadAfter.toFixed(1)} at the end (${cpus.length} cores): ` +
    `${Math.max(loadBefore, loadAfter) > cpus.length / 2 ? 'a busy machine, read the spreads' : 'a quiet machine'}.\n`);
  const out = path.join(ROOT, 'target', 'bench', 'apps-last-run.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify({ node: process.version, machine, loadBefore, loadAfter, options, results }, null, 2)}\n`);
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`bench/apps: ${err.message}\n`);
  process.exitCode = 1;
}
