'use strict';

/**
 * `npm run fuzz:js`, short: seeded hostile call sequences through RustWriter and protobufjs
 * 8.8.1 on the four paths (fuzz/paths.js), each in child processes, then the checker's own
 * tests: a corrupted byte, a kept result changed within its sequence or later, a crash and a
 * hang must each be caught with the sequence's seed, and every entry of fuzz/js/known-bugs.js
 * must still fail as it says.
 *
 * A path on which only known bugs fail is reported pending, never passing, with what failed:
 * empty fuzz/js/known-bugs.js as the fixes land. `FUZZ_JS_COUNT` sets the sequences per path.
 */

const assert = require('assert');
const { fuzz, format, taintedLine } = require('../fuzz/js/run');
const { KNOWN_BUGS } = require('../fuzz/js/known-bugs');
const { PATH_NAMES } = require('../fuzz/paths');
const { stallOver } = require('../fuzz/batches');

const COUNT = Number(process.env.FUZZ_JS_COUNT || 1500);
/** Child processes at a time: the machines this runs on have two cores. */
const JOBS = 2;
/**
 * The most writers the reference model may taint (stop comparing, fuzz/js/world.js) on a path: a
 * change that tainted many more would hide differences behind the taint. About 2.5–3% today.
 */
const MAX_TAINTED = 0.1;
const quiet = { log: () => {}, write: false, jobs: JOBS, stall: 60 };

/**
 * Runs one sequence description in a child process on its path (fuzz/js/batch.js --replay).
 * @param {{path: string, desc: object}} repro Path and sequence
 * @returns {object} The batch's last message (`failure` when it failed)
 */
function replay(repro) {
  const { spawnSync } = require('child_process');
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const { PATHS } = require('../fuzz/paths');
  const file = path.join(os.tmpdir(), `fuzz-js-replay-${process.pid}-${repro.desc.seed}.json`);
  fs.writeFileSync(file, JSON.stringify(repro.desc));
  try {
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'fuzz', 'js', 'batch.js'), '--path', repro.path, '--replay', file], {
      env: { ...process.env, ...PATHS[repro.path].env }, encoding: 'utf8',
    });
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } finally {
    fs.unlinkSync(file);
  }
}

describe('npm run fuzz:js (short run)', function () {
  this.timeout(240000);
  let report;

  before(async () => {
    report = await fuzz({ ...quiet, count: COUNT, batch: COUNT, shrinkSeconds: 10 });
  });

  for (const name of PATH_NAMES) {
    it(`finds nothing but known bugs in ${COUNT} hostile sequences on the ${name} path, and says how many writers it left uncompared`, function () {
      const p = report.paths[name];
      assert.strictEqual(p.sequences, COUNT, `ran ${p.sequences} of ${COUNT} sequences`);
      console.log(`      ${name}: ${taintedLine(p)}`);
      const tainted = Object.values(p.tainted).reduce((sum, n) => sum + n, 0);
      assert.ok(p.writers >= COUNT && tainted <= MAX_TAINTED * p.writers, taintedLine(p));
      const fresh = report.fresh.filter((g) => !g.consequence && g.paths[name]);
      assert.deepStrictEqual(fresh.map((g) => `${g.kind} ${g.op}`), [], `new failures:\n${format(report)}`);
      const known = Object.entries(report.known).filter(([, k]) => k.paths[name]);
      if (known.length > 0) {
        console.log(`      ${name}: KNOWN BUGS (fuzz/js/known-bugs.js), so not passing: ` +
          `${known.map(([bug, k]) => `${bug} × ${k.paths[name]}`).join(', ')}`);
        this.skip();
      }
    });
  }
});

describe('the fuzz:js checker', function () {
  this.timeout(120000);
  /** Sequences that pass on the native path and return bytes, from the first 100 (faults need them). */
  let clean;
  /** The longest silence (ms) of a healthy batch just before the hang test, which sizes its stall. */
  let silence;

  before(async () => {
    const r = await fuzz({ ...quiet, paths: ['native'], count: 100, shrink: false });
    clean = r.paths.native.clean;
    silence = r.paths.native.longestSilence;
    assert.ok(clean.length >= 2, 'two of the first 100 sequences pass');
  });

  /** Runs one clean sequence (and the next clean one) with a fault injected in the harness. */
  const faulted = (fault, seed, extra = {}) => fuzz({ ...quiet, paths: ['native'], seed, count: extra.count || 1, shrink: false, fault, faultSeed: seed, ...extra });

  it('catches one corrupted byte of a result, with the seed', async () => {
    const r = await faulted('byte', clean[0]);
    assert.deepStrictEqual(r.fresh.map((g) => [g.kind, g.seeds[0]]), [['bytes', `native:${clean[0]}`]]);
  });

  it('catches a kept result changed within its sequence', async () => {
    const r = await faulted('result', clean[0]);
    assert.deepStrictEqual(r.fresh.map((g) => [g.kind, g.seeds[0]]), [['result-changed', `native:${clean[0]}`]]);
  });

  it('catches a result of an earlier sequence changed later, in the check of kept results', async () => {
    const r = await faulted('result-late', clean[1], { seed: clean[0], count: clean[1] - clean[0] + 1, batch: 100 });
    const changed = r.fresh.filter((g) => g.kind === 'result-changed');
    assert.strictEqual(changed.length, 1, format(r));
    assert.ok(changed[0].first.found === clean[1], format(r));
  });

  it('catches a crash of a batch process and names the sequence', async () => {
    const r = await faulted('crash', clean[0] + 2, { seed: clean[0], count: 5 });
    const crash = r.fresh.find((g) => g.kind === 'crash');
    assert.ok(crash, format(r));
    assert.strictEqual(crash.first.seed, clean[0] + 2);
    assert.match(crash.first.message, /signal SIGABRT/);
    assert.strictEqual(r.paths.native.sequences, 5, 'the sequences after the crash ran in a new process');
  });

  it('catches a hang of a batch process and names the sequence, with a stall well above a healthy batch\'s silences', async () => {
    // Five times the longest silence of the healthy batch above (its first 100 sequences in a cold process), so
    // that it grows with the machine's load and under qemu (test:cross), where one sequence can take seconds.
    const stall = stallOver(silence);
    console.log(`      stall ${stall} s; the longest silence of a healthy batch before it ${(silence / 1000).toFixed(2)} s`);
    const r = await faulted('hang', clean[0] + 1, { seed: clean[0], count: 3, stall });
    const hang = r.fresh.find((g) => g.kind === 'hang');
    assert.ok(hang, format(r));
    assert.strictEqual(hang.first.seed, clean[0] + 1);
  });

  it('knows no bug that no longer fails: each entry of fuzz/js/known-bugs.js still reproduces', () => {
    const { classify } = require('../fuzz/js/known-bugs');
    const stale = [];
    for (const bug of KNOWN_BUGS) {
      assert.ok(bug.repro, `known bug ${bug.bug} has a repro`);
      const message = replay(bug.repro);
      const found = message.failure && classify(message.failure);
      if (!found || found.bug !== bug.bug) stale.push(`${bug.bug} (now: ${message.failure ? `${message.failure.kind}, ${found ? `known bug ${found.bug}` : 'unknown'}` : 'passes'})`);
    }
    assert.deepStrictEqual(stale, [], 'these known bugs no longer fail as listed: remove or update their entries in fuzz/js/known-bugs.js');
  });

  it('models where a converted packed field begins after its length getter forked: reset() drops it (world.js keepRun)', () => {
    // Found by the long run on Node 26 (native-entries:905192), a fault of the reference model, not of
    // RustWriter: the model took the field to begin where the call did, before the getter's fork, so it
    // still counted the field after reset() popped that fork and expected pos to throw for a detached array.
    const steps = [
      { op: 'create', w: 'w0' },
      { op: 'doubles', w: 'w0', args: [{ k: 'typed', id: 'v5', type: 'Float64Array', values: new Array(16).fill(0) }] },
      { op: 'sint32s', w: 'w0', args: [{ k: 'proxy', id: 'v7', over: { k: 'arr', elems: [{ k: 'num', v: 0 }] },
        acts: [['length', { a: 'do', on: 'self', calls: [['uint32', { k: 'num', v: 0 }], ['fork']] }]] }] },
      { op: 'mutate', id: 'v5', how: 'detach', by: 4096, seed: 272562958 },
      { op: 'reset', w: 'w0' },
    ];
    const message = replay({ path: 'native-entries', desc: { seed: 905192, steps } });
    assert.strictEqual(message.failure, null, JSON.stringify(message.failure));
  });

  it('passes the minimal sequence of every bug it found and that was fixed (fuzz/js/fixed-bugs.js)', () => {
    const { FIXED_BUGS } = require('../fuzz/js/fixed-bugs');
    assert.ok(FIXED_BUGS.length > 0);
    const failing = FIXED_BUGS.map((bug) => [bug.bug, replay(bug.repro)]).filter(([, message]) => message.failure)
      .map(([bug, message]) => `${bug}: ${message.failure.kind}: ${message.failure.message}`);
    assert.deepStrictEqual(failing, []);
  });
});
