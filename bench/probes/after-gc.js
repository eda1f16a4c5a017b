'use strict';

/**
 * What a full GC does to the time of the ops after it: warms one case's op up for one contender
 * (bench/cases.js prepareCase) for 3 s, then starts a full GC in one of two ways and times the next
 * 12 windows of 20 ops each, in a child process per way:
 *
 * - `forced`: `gc()` (from a new context after `v8.setFlagsFromString('--expose-gc')`), as
 *   bench/worker.js did before every benchmark until this probe;
 * - `natural`: 3 million small objects kept, then dropped, and 0.3 s of short-lived garbage, so that
 *   V8 runs its own (incremental) mark-compacts.
 *
 *   node bench/probes/after-gc.js [case] [contender] [--node <major>]
 *
 * `--node` runs the children under the latest release of that Node line (scripts/runtimes.js).
 *
 * Seen (2 cores, at the commit that added it): on Temporal's message under Node 26, RustWriter's
 * compiled encoder took ~10 ms an op in the 20 ops after `gc()`, and recovered to its ~5 ms over
 * ~2 s (~300 ops), with nothing deoptimized (`--trace-deopt`), no code flushed (`--trace-flush-code`)
 * and no GC in those windows (`--trace-gc`), and the same with `--no-turbofan`, `--no-maglev`,
 * `--no-compact`, `--no-memory-reducer` or `--no-allocation-site-pretenuring`; after V8's own
 * mark-compacts (one freeing 460 MB), none of it: ~5 ms from the first window. protobufjs 8.8.1's
 * encoder took ~1.4x in the first window after either kind of GC and was back by the second, as was
 * RustWriter's Writer-API path after `gc()`; under Node 20 none of them slowed for longer. Which
 * state the forced GC resets is not known.
 */

const { execFileSync } = require('child_process');

const args = process.argv.slice(2);
const nodeAt = args.indexOf('--node');
const bin = nodeAt >= 0 ? require('../../scripts/runtimes').node(args[nodeAt + 1]).bin : process.execPath;
const positional = args.filter((a, i) => nodeAt < 0 || (i !== nodeAt && i !== nodeAt + 1));
const [id = 'temporal', key = 'rust', way] = positional;

/** Ops per window, and windows timed after the GC. */
const WINDOW = 20;
const WINDOWS = 12;

if (way === 'forced' || way === 'natural') {
  const { CASES, prepareCase } = require('../cases');
  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown case ${id}`);
  const [{ fn }] = prepareCase(c, null, [key]);
  const warmUntil = Date.now() + 3000;
  while (Date.now() < warmUntil) fn();
  if (way === 'forced') {
    require('v8').setFlagsFromString('--expose-gc');
    require('vm').runInNewContext('gc')();
  } else {
    let kept = [];
    for (let i = 0; i < 3e6; ++i) kept.push({ i, a: [i] });
    kept = null;
    const until = Date.now() + 300;
    while (Date.now() < until) {
      const garbage = [];
      for (let i = 0; i < 1e5; ++i) garbage.push({ i });
    }
  }
  const windows = [];
  for (let r = 0; r < WINDOWS; ++r) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < WINDOW; ++i) fn();
    windows.push(Number(process.hrtime.bigint() - t) / WINDOW / 1000);
  }
  process.stdout.write(windows.map((us) => us.toFixed(0)).join(' '));
} else {
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  process.stdout.write(`${id}, ${key}, Node ${version}: µs per op in ${WINDOWS} windows of ${WINDOW} ops after a full GC\n`);
  for (const w of ['forced', 'natural']) {
    const out = execFileSync(bin, [__filename, id, key, w], { encoding: 'utf8', maxBuffer: 1 << 24 });
    process.stdout.write(`  ${w.padEnd(8)} ${out}\n`);
  }
}
