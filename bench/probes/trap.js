'use strict';

/**
 * Whether contenders slow each other down in one process, through shared generated code (the timing
 * trap of docs/benchmark.md, "Timing") or otherwise: each contender's op timed alone in a process
 * (as `npm run bench` times it, bench/worker.js), beside all the other contenders of the case as the
 * bench had them before it gave each a process of its own, and beside them with the sources
 * left shared as the bench had them before (`BENCH_SHARED_SOURCES=1`: protobufjs's codegen
 * untagged, the ops untagged, the native RustWriter contenders on the main instance of the
 * package, the JS-only instance's encoders numbered as the main instance's).
 *
 *   node bench/probes/trap.js [case] [pairs] [--node <major>] [--keys pbjs8,rust,rust-api,null]
 *     [--modes alone,beside,shared]
 *
 * Each measurement is a fresh process (bench/cases.js prepareCase): "alone" prepares only the
 * contender timed; "beside" and "shared" prepare every contender of the case and run each op for
 * WARM_MS of CPU time, twice round-robin (as the bench's rounds do, so that every contender's
 * feedback is in before any timing), then time the contenders named, their batches interleaved.
 * A timing is the median of ~1 ms batches over TIME_MS of CPU time per contender. The modes
 * alternate their order from pair to pair, so that the machine's drifts hit all alike; the report
 * is, per contender, each mode's median time per op and the medians of the per-pair ratios
 * beside/alone and shared/alone (1.00: no interference).
 * `--node` runs the children under the latest release of that Node line (scripts/runtimes.js);
 * `--modes alone` gives each contender's time per op in a process of its own, a rough check of the
 * bench's ratios where benchmark.js's wall-clock timings drown in a loaded machine's noise.
 * Reflection cases only.
 */

const path = require('path');
const { execFileSync } = require('child_process');

const WARM_MS = 300;
const WARM_ROUNDS = 2;
const TIME_MS = 1000;
/** Ops per timed batch: at least this many, and enough for ~1 ms. */
const MIN_BATCH = 5;
const DEFAULT_KEYS = ['pbjs8', 'rust', 'rust-api', 'null'];
const MODES = ['alone', 'beside', 'shared'];

/**
 * Runs `fn` until this process has used `ms` of CPU time: on a loaded machine a wall-clock budget
 * would warm some children far less than others.
 * @param {number} ms Milliseconds of CPU time
 * @param {function(): *} fn What to run
 * @returns {undefined}
 */
function until(ms, fn) {
  const used = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const end = used() + ms;
  while (used() < end) for (let i = 0; i < 10; ++i) fn();
}

/**
 * Median time per op of each op, in ns: batches of about 1 ms, one op's after another's in turn,
 * for TIME_MS of CPU time per op, so that a machine whose speed drifts (a loaded one) slows all
 * alike.
 * @param {Array<function(): *>} fns Ops, warm
 * @returns {number[]} ns per op of each
 */
function timeOps(fns) {
  const batches = fns.map((fn) => {
    const start = process.hrtime.bigint();
    fn();
    return Math.max(MIN_BATCH, Math.ceil(1e6 / Math.max(Number(process.hrtime.bigint() - start), 1)));
  });
  const times = fns.map(() => []);
  until(TIME_MS * fns.length, () => {
    fns.forEach((fn, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batches[k]; ++i) fn();
      times[k].push(Number(process.hrtime.bigint() - t0) / batches[k]);
    });
  });
  return times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
}

/**
 * Child: prepares a case (only `keys` when alone, else every contender), warms, times `keys`, and
 * prints `{key: ns per op}` as JSON.
 * @param {string} mode One of MODES
 * @param {string} id Case id
 * @param {string[]} keys Contenders to time
 * @returns {undefined}
 */
function child(mode, id, keys) {
  const { CASES, prepareCase } = require('../cases');
  const c = CASES.find((x) => x.id === id);
  const prepared = prepareCase(c, null, mode === 'alone' ? keys : null);
  for (let round = 0; round < WARM_ROUNDS; ++round) for (const { fn } of prepared) until(WARM_MS, fn);
  const ns = timeOps(keys.map((key) => prepared.find((x) => x.key === key).fn));
  process.stdout.write(`${JSON.stringify(Object.fromEntries(keys.map((key, i) => [key, ns[i]])))}\n`);
}

/**
 * Median of a list.
 * @param {number[]} xs Values
 * @returns {number} Median
 */
function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Parent: alternates the modes' children and reports.
 * @param {string} id Case id
 * @param {number} pairs Measurements of each mode
 * @param {string} bin Node binary of the children
 * @param {string[]} keys Contenders to time
 * @param {string[]} modes Modes to run (of MODES)
 * @returns {undefined}
 */
function parent(id, pairs, bin, keys, modes) {
  const run = (mode, timed) => JSON.parse(execFileSync(bin, [__filename, '--child', mode, id, timed.join(',')], {
    encoding: 'utf8', env: { ...process.env, BENCH_SHARED_SOURCES: mode === 'shared' ? '1' : '0' }, maxBuffer: 1 << 20,
  }));
  const times = Object.fromEntries(MODES.map((mode) => [mode, Object.fromEntries(keys.map((key) => [key, []]))]));
  for (let k = 0; k < pairs; ++k) {
    const order = k % 2 ? modes.slice().reverse() : modes;
    for (const mode of order) {
      const results = mode === 'alone' ? Object.assign({}, ...keys.map((key) => run(mode, [key]))) : run(mode, keys);
      for (const key of keys) times[mode][key].push(results[key]);
      process.stderr.write(`trap: ${id} pair ${k + 1}/${pairs} ${mode}: ${keys.map((key) => `${key} ${results[key].toFixed(0)} ns`).join(', ')}\n`);
    }
  }
  const fmt = (ns) => (ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
  const ratio = (mode, key) => median(times[mode][key].map((t, i) => t / times.alone[key][i])).toFixed(2);
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const labels = { alone: 'alone', beside: 'beside the others', shared: 'beside them with shared sources' };
  const withAlone = modes.includes('alone');
  process.stdout.write(`${id} under Node ${version}, ${pairs} pairs; time per op, medians` +
    `${withAlone ? ' (ratio: median of the per-pair ratios to alone; 1.00 = no interference)' : ''}:\n`);
  for (const key of keys) {
    const cells = modes.map((mode) => `${labels[mode]} ${fmt(median(times[mode][key]))}` +
      `${withAlone && mode !== 'alone' ? ` (${ratio(mode, key)})` : ''}`);
    process.stdout.write(`  ${key.padEnd(9)} ${cells.join(', ')}\n`);
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  child(argv[1], argv[2], argv[3].split(','));
} else {
  const positional = [];
  let bin = process.execPath;
  let keys = DEFAULT_KEYS;
  let modes = MODES;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--node') bin = require('../../scripts/runtimes').node(argv[++i]).bin;
    else if (argv[i] === '--keys') keys = argv[++i].split(',');
    else if (argv[i] === '--modes') modes = argv[++i].split(',');
    else positional.push(argv[i]);
  }
  const [id = 'common', pairs = '3'] = positional;
  const { CASES, CONTENDERS } = require('../cases');
  const c = CASES.find((x) => x.id === id);
  const unknown = keys.filter((key) => !CONTENDERS.some((x) => x.key === key));
  if (!c || c.codegen === 'static' || unknown.length || !modes.length || modes.some((mode) => !MODES.includes(mode))) {
    process.stderr.write('usage: node bench/probes/trap.js [case (reflection)] [pairs] [--node <major>] [--keys k,…] ' +
      `[--modes ${MODES.join(',')}]` +
      `${unknown.length ? ` (unknown contender ${unknown.join(', ')})` : ''}\n`);
    process.exitCode = 2;
  } else {
    parent(id, Number(pairs), path.resolve(bin), keys, modes);
  }
}
