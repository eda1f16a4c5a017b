'use strict';

/**
 * One child process of `npm run fuzz:schemas`: runs cases (case.js) on one protobufjs version and
 * one path (fuzz/paths.js) and writes one JSON object a line to stdout for the parent
 * (run.js): each failure, or only the id of a known bug's (known-bugs.js). Modes:
 *
 *   node fuzz/schemas/batch.js --version V --path P --seed S --count N   cases S … S+N-1
 *   node fuzz/schemas/batch.js --version V --path P --seeds a,b,…        a list of cases
 *   node fuzz/schemas/batch.js --version V --path P --replay FILE        one case description (JSON)
 *   node fuzz/schemas/batch.js --version V --path P --shrink FILE        shrink a failure record (JSON)
 *
 * Options: `--no-rules` (the reference copy without the rules it learned, test/reference.js: to see
 * what each stands for), `--trace` (each seed to stderr before it runs),
 * `--fault byte|read|crash|hang --fault-seed S` (self-tests: in case S,
 * corrupt one byte of the subject's first non-empty result, read each top-level field of each
 * subject message once more before encoding it, abort, or loop for ever), `--fault stale` (in every
 * case, the subject's encoders are the first protobufjs generated for each Type, kept across the
 * schema changes of the second pass: a compiled encoder that misses them), `--seconds` (shrink budget).
 *
 * The path's environment (`PROTOBUFJS_RUSTWRITER`) is set by the parent; its configuration is
 * applied here with `_testing.configure`, and `install()` into the version's protobufjs.
 */

const fs = require('fs');
const { PATHS } = require('../paths');
const { parseArgs, send } = require('../batches');

const args = parseArgs(process.argv.slice(2));
const route = PATHS[args.path];
if (!route) throw new Error(`fuzz:schemas: unknown path ${args.path}`);
const version = String(args.version);
if (version !== '7' && version !== '8') throw new Error(`fuzz:schemas: unknown protobufjs version ${version} (7 or 8)`);

const protobuf = require(version === '8' ? 'protobufjs' : 'protobufjs7');
const { RustWriter, install, status, serializer, _testing } = require('../..');
const { createRunner } = require('./check');
const { generateCase } = require('./case');
const { classify } = require('./known-bugs');
const { referenceCopy } = require('../../test/reference');

if (RustWriter.native !== (route.env.PROTOBUFJS_RUSTWRITER === 'native')) {
  throw new Error(`fuzz:schemas: path ${args.path} wants the addon ${route.env.PROTOBUFJS_RUSTWRITER === 'native' ? 'loaded' : 'not loaded'}`);
}
_testing.configure(route.options);
install(protobuf);
/** A Type whose compiled encoder failed keeps protobufjs's (and install() warns, once a process). */
let compileWarning = null;
process.on('warning', (w) => {
  if (w.code === 'PROTOBUFJS_RUSTWRITER_COMPILE' && compileWarning === null) compileWarning = w.message;
});
if (args.fault === 'stale') staleEncoders();

/**
 * Self-test `--fault stale`: after `Type#setup`, the encoder for a RustWriter (or no writer) is the
 * one protobufjs generated from the Type's fields at its first setup, even after `Type#add` or
 * `Type#remove` changed them; any other writer gets the Type's current encoder (the contract of the
 * compiled encoders, check.js). Only the subject sees the stale code: an encoder compiled once and
 * never again, as an installed encoder that missed a schema change would be.
 * @returns {undefined}
 */
function staleEncoders() {
  const first = new WeakMap();
  const setup = protobuf.Type.prototype.setup;
  protobuf.Type.prototype.setup = function setup_stale() {
    const type = setup.apply(this, arguments);
    const current = this.encode;
    if (!first.has(this)) {
      // protobufjs's code for today's fields, made as Type#setup makes it
      const types = this.fieldsArray.map((f) => f.resolve().resolvedType);
      first.set(this, protobuf.encoder(this)({ Writer: protobuf.Writer, types, util: protobuf.util }));
    }
    const stale = first.get(this);
    this.encode = function encode_stale(m, w, q) {
      return w && !(w instanceof RustWriter) ? current(m, w, q) : stale(m, w, q);
    };
    return type;
  };
}

/**
 * The reference: a copy of the same protobufjs the package never touched (test/reference.js), its
 * own generated encoders writing into its own writer, with the rules it learned of where that writer
 * differs from RustWriter by design.
 */
const refProtobuf = referenceCopy(version, { rules: !args.noRules }).pb;

/**
 * @param {string|null} fault Self-test fault (`byte`, `read`) or null
 * @returns {function(object): object|null} A case runner for this version and path (check.js)
 */
function runner(fault) {
  return createRunner({
    protobuf, refProtobuf, RustWriter, version, path: args.path, fault,
    serializer, serializerTier: _testing.serializerTier,
  });
}

/**
 * Adds where a failure happened to its record.
 * @param {object} failure Failure
 * @returns {object} The same
 */
function locate(failure) {
  failure.version = version;
  failure.path = args.path;
  failure.rules = !args.noRules;
  return failure;
}

/** In `--replay` and `--shrink`, a self-test fault applies to every case (the test of the shrinker). */
const everywhere = args.fault === 'byte' || args.fault === 'read' ? args.fault : null;

/**
 * The known bug (known-bugs.js) a failure is, found by running variants of its case on a runner
 * of their own.
 * @param {object} failure Failure
 * @returns {object|null} Known bug
 */
function knownBug(failure) {
  const rerun = runner(everywhere);
  return classify(failure, (desc) => rerun(desc));
}

if (args.replay) {
  const desc = JSON.parse(fs.readFileSync(args.replay, 'utf8'));
  const failure = runner(everywhere)(desc);
  const bug = failure && knownBug(failure);
  send({ type: 'replayed', failure: failure && locate(failure), known: bug ? bug.bug : null });
} else if (args.shrink) {
  const { shrink } = require('./shrink');
  const failure = JSON.parse(fs.readFileSync(args.shrink, 'utf8'));
  const run = runner(everywhere);
  const shrunk = shrink(failure, (desc) => run(desc), { seconds: args.seconds || 30 });
  locate(shrunk.failure);
  send({ type: 'shrunk', ...shrunk });
} else if (args.describe !== undefined) {
  send({ type: 'described', desc: generateCase(args.describe) });
} else {
  runBatch();
}

/**
 * @param {{user: number, system: number}} usage `process.cpuUsage` difference
 * @returns {number} Milliseconds
 */
function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

/**
 * Runs cases `--seed` … `--seed + --count - 1` (or `--seeds a,b,…`), reporting each failure,
 * progress after every case (so the parent knows which case a crash or a hang happened in), and a
 * summary.
 */
function runBatch() {
  const seeds = args.seeds !== undefined
    ? String(args.seeds).split(',').map(Number)
    : Array.from({ length: args.count }, (_, k) => args.seed + k);
  send({ type: 'ready' }); // loaded: from now on, silence means a hang (run.js)
  const started = Date.now();
  const cpu = process.cpuUsage();
  const run = runner(null);
  const faulty = args.fault === 'byte' || args.fault === 'read' ? runner(args.fault) : null;
  /** the first cases that passed with non-empty bytes, and those that read top-level fields through user code */
  const clean = [];
  const reads = [];
  let failures = 0;
  let done = 0;
  for (const seed of seeds) {
    if (args.trace) fs.writeSync(2, `seed ${seed}\n`);
    const faulted = args.fault !== undefined && seed === args.faultSeed;
    if (faulted && args.fault === 'crash') process.abort();
    if (faulted && args.fault === 'hang') for (;;);
    const r = faulted && faulty !== null ? faulty : run;
    const failure = r(generateCase(seed));
    if (r !== run) for (const key of Object.keys(run.stats)) run.stats[key] += r.stats[key];
    if (failure !== null) {
      failures++;
      const bug = knownBug(failure);
      if (bug !== null) {
        send({ type: 'known', bug: bug.bug, seed, version, path: args.path, kind: failure.kind, form: failure.form });
      } else {
        send({ type: 'failure', failure: locate(failure) });
      }
    } else {
      if (r.nonEmpty && clean.length < 10) clean.push(seed);
      if (r.topReads && reads.length < 10) reads.push(seed);
    }
    if (faulty !== null) faulty.stats = { messages: 0, comparisons: 0, threw: 0, bytes: 0, compiledSerialized: 0 };
    done++;
    send({ type: 'progress', done, messages: run.stats.messages });
  }
  send({
    type: 'done', count: seeds.length, ...run.stats, ms: Date.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)),
    maxRSS: process.resourceUsage().maxRSS * 1024, failures, clean, reads,
    nativeCalls: _testing.nativeCalls(), // that long packed fields reached the addon
    // whether the version's Types encode with compiled encoders (install() with `compiled`)
    compiled: status().copies.some((c) => c.installed && c.compiled && c.version && c.version.startsWith(`${version}.`)),
    compileWarning,
  });
}
