'use strict';

/**
 * One child process of `npm run fuzz:js`: runs sequences on one path (paths.js) and writes one
 * JSON object a line to stdout for the parent (run.js). Modes:
 *
 *   node fuzz/js/batch.js --path P --seed S --count N     sequences S … S+N-1
 *   node fuzz/js/batch.js --path P --replay FILE           one sequence description (JSON)
 *   node fuzz/js/batch.js --path P --shrink FILE           shrink a failure record (JSON)
 *
 * Options: `--seeds a,b,…` (a list instead of a range), `--store N` results kept in the reservoir
 * (50,000), `--check-every N` sequences between reservoir checks (5,000), `--watch S` (keep only
 * sequence S's results and check them after every sequence: which one changes them), `--trace`
 * (each seed to stderr before it runs, to find the sequence a crash happened in), `--full-known`
 * (report the first failure of each known bug in full, to shrink it),
 * `--fault byte|result|result-late|crash|hang --fault-seed S` (self-tests: in sequence S, corrupt
 * one byte of one result before it is compared, corrupt one kept result, corrupt a kept result of
 * an earlier sequence, abort, or loop for ever).
 *
 * The path's environment (`PROTOBUFJS_RUSTWRITER`) is set by the parent; the configuration is
 * applied here with `_testing.configure`.
 */

const fs = require('fs');
const path = require('path');
const { PATHS } = require('../paths');
const { parseArgs, send } = require('../batches');

const args = parseArgs(process.argv.slice(2), { store: 50000, checkEvery: 5000 });
const route = PATHS[args.path];
if (!route) throw new Error(`fuzz:js: unknown path ${args.path}`);

const { RustWriter, _testing } = require('../..');
const { createRunner } = require('./check');
const { generate } = require('./generate');
const { ResultStore } = require('./results');
const { classify } = require('./known-bugs');
const { prng } = require('../../tools/seeded');
const { referenceCopy } = require('../../test/reference');

if (RustWriter.native !== (route.env.PROTOBUFJS_RUSTWRITER === 'native')) {
  throw new Error(`fuzz:js: path ${args.path} wants the addon ${route.env.PROTOBUFJS_RUSTWRITER === 'native' ? 'loaded' : 'not loaded'}`);
}
_testing.configure(route.options);
/** The reference: protobufjs 8.8.1 as the package never touched it, with the rules it learned (test/reference.js). */
const protobuf = referenceCopy('8').pb;
const settings = _testing.configure({});
const thresholds = {
  native: RustWriter.native,
  runMin: settings.runMin,
  runMinTyped: settings.runMinTyped,
  refMin: settings.refMin,
};

/**
 * A runner for this path.
 * @param {ResultStore|null} store Reservoir
 * @param {string|null} fault Self-test fault
 * @returns {function(object): object|null} See check.js
 */
function runner(store, fault) {
  return createRunner({ RustWriter, protobuf, thresholds, store, fault, path: args.path });
}

/**
 * A runner on a fresh instance of the module: lib/ and index.js loaded again (the addon itself
 * stays loaded; each instance creates its own native engine), with this path's configuration.
 * @returns {function(object): object|null} See check.js
 */
function freshRunner() {
  const root = path.dirname(require.resolve('../..'));
  for (const file of Object.keys(require.cache)) {
    if (file === path.join(root, 'index.js') || file.startsWith(path.join(root, 'lib') + path.sep)) delete require.cache[file];
  }
  const fresh = require('../..');
  fresh._testing.configure(PATHS[args.path].options);
  return createRunner({
    RustWriter: fresh.RustWriter, protobuf, thresholds, store: null, fault: null, path: args.path,
  });
}

if (args.replay) {
  const desc = JSON.parse(fs.readFileSync(args.replay, 'utf8'));
  send({ type: 'replayed', failure: runner(null, null)(desc) });
} else if (args.shrink) {
  const { shrink } = require('./shrink');
  const failure = JSON.parse(fs.readFileSync(args.shrink, 'utf8'));
  // Each candidate runs on a fresh copy of the module, so no candidate inherits the state an
  // earlier one left (the failures being shrunk may well corrupt it).
  const bugOf = (f) => { const b = classify(f); return b && b.bug; };
  shrink(failure, (desc) => freshRunner()(desc), { seconds: args.seconds || 30, classify: bugOf }).then((shrunk) => send({ type: 'shrunk', ...shrunk }));
} else if (args.describe !== undefined) {
  send({ type: 'described', desc: generate(args.describe) });
} else {
  runBatch();
}

/**
 * Runs sequences `--seed` … `--seed + --count - 1` (or the list `--seeds a,b,…`), reporting each
 * failure (a known bug's only by its id), progress every 100 sequences, and a summary.
 */
function runBatch() {
  const seeds = args.seeds !== undefined
    ? String(args.seeds).split(',').map(Number)
    : Array.from({ length: args.count }, (_, k) => args.seed + k);
  const store = new ResultStore(args.store, prng(seeds[0] ^ 0x5eed));
  if (args.watch !== undefined) store.only = args.watch; // keep only this sequence's results
  const checkEvery = args.watch !== undefined ? 1 : args.checkEvery;
  send({ type: 'ready' }); // loaded: from now on, silence means a hang (run.js)
  const started = Date.now();
  /** seeds of the sequences that failed in this process so far */
  const failed = [];
  /** the first sequences that passed and returned some bytes (for the self-tests) */
  const clean = [];
  /** known bugs already reported in full (`--full-known`) */
  const firstOf = new Set();
  /** writers the sequences created, and why those the reference tainted (so left uncompared) were, with counts */
  let writers = 0;
  const tainted = {};
  const run = runner(store, null);
  const faulty = args.fault === 'byte' || args.fault === 'result' ? runner(store, args.fault) : null;
  let checked = seeds[0];
  /** Checks the reservoir after sequence `seed`. */
  const checkStore = (seed) => {
    const changed = store.check();
    if (changed.length > 0) {
      send({
        type: 'failure',
        failure: {
          kind: 'result-changed', seed: changed[0].seed, path: args.path, step: null, op: null, found: seed,
          message: `${changed.length} kept results changed between the checks after sequences ${checked - 1} and ${seed}; the first was returned by sequence ${changed[0].seed}`,
        },
      });
    }
    checked = seed + 1;
  };
  for (let k = 0; k < seeds.length; k++) {
    const seed = seeds[k];
    if (args.trace) fs.writeSync(2, `seed ${seed}\n`);
    const faulted = args.fault !== undefined && seed === args.faultSeed;
    if (faulted && args.fault === 'crash') process.abort();
    if (faulted && args.fault === 'hang') for (;;);
    const r = faulted && faulty !== null ? faulty : run;
    const failure = r(generate(seed));
    writers += r.writers;
    for (const why of r.tainted) tainted[why] = (tainted[why] || 0) + 1;
    if (faulted && args.fault === 'result-late') {
      // self-test: an earlier result changes
      const victim = store.kept.find((e) => e.seed !== seed && e.bytes.length > 0);
      if (victim) victim.bytes[0] ^= 1;
    }
    if (failure !== null) {
      store.forget(seed);
      const bug = classify(failure);
      failure.after = failed.slice(-50);
      const first = bug !== null && args.fullKnown && !firstOf.has(bug.bug);
      if (bug !== null) firstOf.add(bug.bug);
      send(bug === null || first ? { type: 'failure', failure } : { type: 'known', bug: bug.bug, seed, path: args.path });
      failed.push(seed);
      const broken = failure.kind === 'health' ? failure.message : run.health();
      if (broken !== null || failed.length >= (args.maxFailures || 10000)) {
        checkStore(seed);
        send({
          type: 'stopped', next: seed + 1, why: broken !== null ? `the module is broken (${broken})` : `${failed.length} failures`,
          writers, tainted,
        });
        return;
      }
    } else if (run.nonEmpty && clean.length < 10) clean.push(seed);
    if ((k + 1) % checkEvery === 0 || k + 1 === seeds.length) checkStore(seed);
    if ((k + 1) % 100 === 0) send({ type: 'progress', done: k + 1 });
  }
  send({
    type: 'done', count: seeds.length, ms: Date.now() - started, maxRSS: process.resourceUsage().maxRSS * 1024, failures: failed.length, clean,
    writers, tainted,
  });
}
