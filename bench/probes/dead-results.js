'use strict';

/**
 * When a case's dead results are freed, and what that costs: runs one bench case's op (bench/cases.js
 * prepareCase) for each contender in a fresh process of its own under `--trace-gc`, and prints, per
 * contender, the time per op and the minor page faults per op of each round, the young and full GCs
 * over the timed rounds, the results' bytes per young GC, and the process's peak RSS.
 *
 *   node bench/probes/dead-results.js [case] [contenders] [--trim] [--app KB] [--yield]
 *
 * Defaults: tile-real, pbjs8,rust. `--trim` runs both with glibc's `MALLOC_TRIM_THRESHOLD_` at
 * 64 MiB, so that freed memory stays with the process. `--app KB` has each op also leave KB of
 * short-lived objects behind, as an app's own work between encodes does (modelled: two-field
 * objects in an array, dropped at once; only the op is timed). `--yield` awaits `setImmediate` after
 * each op, as a server returns to its event loop between requests (Node runs some finalizers, those
 * of external buffers among them, only from there).
 *
 * What it shows (Node 20, 22, 24 and 26, at d129227; docs/benchmark.md "Large results and the GC"):
 * a result of half of `Buffer.poolSize` or more (4 KiB on Node 20 to 24.17, 32 KiB on Node 24.18+ and
 * 26) has an `ArrayBuffer` of its own, for protobufjs's writer and RustWriter alike, and its memory
 * is freed when V8 collects the object that holds it.
 * protobufjs's writer leaves hundreds of KB of objects per encode, so V8 runs a young GC every few
 * encodes and frees a few results at a time. RustWriter leaves almost none, so only V8's triggers
 * for memory outside its heap collect the results (a young GC per ~33–35 MB of them on Node 20 and
 * 22, full GCs on 24 and 26), hundreds at once: the process holds more memory, and glibc gives the
 * freed pages back to the kernel, so the next results fault them in again (on the real tile, up to
 * 26 faults an op in some rounds, protobufjs ~0; ~2 µs a fault). With `--trim` neither takes
 * faults. With `--app 64`, RustWriter's young GCs come every ~7 MB of results, and on Node 20 each
 * of its ops faults.
 */

const { spawnSync } = require('child_process');

const args = process.argv.slice(2);
const trim = args.includes('--trim');
const yieldEach = args.includes('--yield');
const appAt = args.indexOf('--app');
const appKB = appAt >= 0 ? Number(args[appAt + 1]) : 0;
const flagged = (a, i) => a === '--trim' || a === '--yield' || (appAt >= 0 && (i === appAt || i === appAt + 1));
/** Positional arguments: the case, the contenders (in a child: its one contender), and `--child`. */
const [id = 'tile-real', keys = 'pbjs8,rust', child] = args.filter((a, i) => !flagged(a, i));
const ROUNDS = 8;
const OPS = 1500;
const MARK = '--- timed';

/**
 * Leaves about `kb` KB of short-lived objects behind.
 * @param {number} kb KB
 * @returns {number} Objects made
 */
function appWork(kb) {
  const objects = [];
  for (let i = 0, n = (kb * 1024) / 32; i < n; ++i) objects.push({ a: i, b: -i });
  return objects.length;
}

/**
 * The child: times the op in rounds and reports them.
 * @returns {Promise<undefined>} When done
 */
async function timeRounds() {
  const { CASES, prepareCase } = require('../cases');
  const [op] = prepareCase(CASES.find((c) => c.id === id), null, [keys]);
  for (let i = 0; i < 300; ++i) op.fn();
  process.stdout.write(`${MARK}\n`);
  const rounds = [];
  let bytes = 0;
  for (let r = 0; r < ROUNDS; ++r) {
    const faults = process.resourceUsage().minorPageFault;
    let ns = 0n;
    for (let i = 0; i < OPS; ++i) {
      const t = process.hrtime.bigint();
      bytes += op.fn().length;
      ns += process.hrtime.bigint() - t;
      if (appKB > 0) appWork(appKB);
      if (yieldEach) await new Promise(setImmediate);
    }
    rounds.push({ us: Number(ns) / OPS / 1000, faults: (process.resourceUsage().minorPageFault - faults) / OPS });
  }
  process.stdout.write(`${JSON.stringify({ rounds, bytes, peak: process.resourceUsage().maxRSS * 1024 })}\n`);
}

if (child === '--child') {
  timeRounds();
} else {
  const env = trim ? { ...process.env, MALLOC_TRIM_THRESHOLD_: String(64 * 1024 * 1024) } : process.env;
  process.stdout.write(`${id}${trim ? ', MALLOC_TRIM_THRESHOLD_ 64 MiB' : ''}${appKB > 0 ? `, ${appKB} KB of app objects an op` : ''}` +
    `${yieldEach ? ', yielding after each op' : ''}, ` +
    `Node ${process.version}: ${ROUNDS} rounds of ${OPS} ops, µs per op / page faults per op\n`);
  for (const key of keys.split(',')) {
    const childArgs = [...process.execArgv, '--trace-gc', __filename, id, key, '--child',
      ...(appKB > 0 ? ['--app', String(appKB)] : []), ...(yieldEach ? ['--yield'] : [])];
    const out = spawnSync(process.execPath, childArgs, { encoding: 'utf8', env, maxBuffer: 1 << 28 });
    if (out.status !== 0) throw new Error(`${key}: ${out.stderr}`);
    const timed = out.stdout.slice(out.stdout.indexOf(`${MARK}\n`));
    const report = JSON.parse(timed.split('\n').find((line) => line.startsWith('{')));
    const young = (timed.match(/ ms: (Scavenge|Minor Mark-Sweep)/g) || []).length;
    const full = (timed.match(/ ms: (Incremental )?Mark-Compact/g) || []).length;
    const perYoung = young > 0 ? `${(report.bytes / young / 2 ** 20).toFixed(1)} MB of results per young GC` : 'no young GC';
    process.stdout.write(`  ${key.padEnd(8)} ${report.rounds.map((r) => `${r.us.toFixed(0)}/${r.faults.toFixed(1)}`).join(' ')}\n` +
      `           ${young} young and ${full} full GCs; ${perYoung}; peak RSS ${(report.peak / 2 ** 20).toFixed(0)} MB\n`);
  }
}
