'use strict';

/**
 * `npm run fuzz:schemas`, short: seeded random schemas and messages (fuzz/schemas/) encoded after
 * `install()` and by a reference copy of the same protobufjs the package never touched (its own
 * encoders and writer, with the rules of test/reference.js), on protobufjs 8.8.1 and 7.6.6 and on
 * the four paths of fuzz/paths.js, each in child processes; then the checker's own tests: a
 * corrupted subject byte, a subject that reads a getter once too often, encoders that miss a
 * schema change, a crashed and a hung batch must each be caught with the case's seed, and a
 * failure must shrink to a runnable script.
 * The cases per version and path are the fuzzer's default (150); `FUZZ_SCHEMAS_COUNT` sets them.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { fuzz, format, COUNT: DEFAULT_COUNT } = require('../fuzz/schemas/run');
const { stallOver } = require('../fuzz/batches');
const { KNOWN_BUGS } = require('../fuzz/schemas/known-bugs');
const { FIXED_BUGS } = require('../fuzz/schemas/fixed-bugs');
const { PATH_NAMES, PATHS } = require('../fuzz/paths');

/** Cases per version and path: the fuzzer's own default (`npm run fuzz:schemas`), unless set. */
const COUNT = Number(process.env.FUZZ_SCHEMAS_COUNT || DEFAULT_COUNT);
/** Child processes at a time: the machines this runs on have two cores. */
const JOBS = 2;
const quiet = { log: () => {}, write: false, jobs: JOBS, stall: 60, shrink: false };
const VERSIONS = [['8', '8.8.1'], ['7', '7.6.6']];

/**
 * Runs one case description in a child process (fuzz/schemas/batch.js --replay).
 * @param {{version: string, path: string, desc: object}} repro Version, path and case
 * @returns {object} The batch's last message (`replayed`: `failure`, `known`)
 */
function replay(repro) {
  const dir = path.join(__dirname, '..', 'target', 'fuzz-schemas');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `replay-${process.pid}-${repro.desc.seed}.json`);
  fs.writeFileSync(file, JSON.stringify(repro.desc));
  try {
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'fuzz', 'schemas', 'batch.js'), '--version', repro.version,
      '--path', repro.path, '--replay', file], { env: { ...process.env, ...PATHS[repro.path].env }, encoding: 'utf8' });
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } finally {
    fs.unlinkSync(file);
  }
}

describe('npm run fuzz:schemas (short run)', function () {
  this.timeout(240000);
  let report;

  before(async () => {
    report = await fuzz({ ...quiet, count: COUNT, batch: COUNT, shrink: true, shrinkSeconds: 10 });
  });

  for (const [version, name] of VERSIONS) {
    it(`finds no difference from protobufjs ${name}'s reference copy (its own encoders and writer; a BigInt reaches it as a decimal string of the same 64 bits) in ${COUNT} cases a path (bytes, errors, reads), on ${PATH_NAMES.join(', ')}`, function () {
      for (const p of PATH_NAMES) {
        const r = report.runs[`${version} ${p}`];
        assert.strictEqual(r.cases, COUNT, `${p}: ran ${r.cases} of ${COUNT} cases`);
        assert.ok(r.messages >= 3 * COUNT, `${p}: ${r.messages} messages`);
      }
      const failures = report.fresh.filter((g) => g.version === version);
      assert.deepStrictEqual(failures.map((g) => `${g.kind} ${g.form}`), [], `failures:\n${format(report)}`);
      const known = Object.entries(report.known).filter(([, k]) => k.versions[version]);
      if (known.length > 0) {
        console.log(`      protobufjs ${name}: KNOWN BUGS (fuzz/schemas/known-bugs.js), so not passing: ` +
          `${known.map(([bug, k]) => `${bug} × ${k.versions[version]}`).join(', ')}`);
        this.skip();
      }
    });
  }

  it('encodes the subject\'s messages with the compiled encoders install() gives every Type', function () {
    if (process.env.PROTOBUFJS_RUSTWRITER_COMPILED === '0') this.skip();
    for (const r of Object.values(report.runs)) {
      assert.ok(r.compiled, `${r.version} ${r.path}: protobufjs's own generated encoders`);
      assert.strictEqual(r.compileWarning, null, `${r.version} ${r.path}: ${r.compileWarning}`);
    }
  });

  it('sends long packed fields of protobufjs 8 to the addon on the native paths', function () {
    if (!require('..').RustWriter.native) this.skip();
    assert.ok(report.runs['8 native'].nativeCalls > 0, format(report));
    assert.ok(report.runs['8 native-entries'].nativeCalls > report.runs['8 native'].nativeCalls, format(report));
    assert.strictEqual(report.runs['8 js'].nativeCalls, 0);
  });
});

describe('the fuzz:schemas checker', function () {
  this.timeout(120000);
  /** Cases that pass with non-empty bytes; cases that read top-level fields through getters or Proxies. */
  let clean;
  let reads;
  /** The longest silence (ms) of a healthy batch just before the hang test, which sizes its stall. */
  let silence;

  before(async () => {
    const r = await fuzz({ ...quiet, versions: ['8'], paths: ['native'], count: 20 });
    clean = r.runs['8 native'].clean;
    reads = r.runs['8 native'].reads;
    silence = r.runs['8 native'].longestSilence;
    assert.ok(clean.length >= 2 && reads.length >= 1, format(r));
  });

  /** Runs cases with a fault injected in the harness, on protobufjs 8 and the native path. */
  const faulted = (fault, seed, extra = {}) => fuzz({
    ...quiet, versions: ['8'], paths: ['native'], seed, count: 1, fault, faultSeed: seed, ...extra,
  });

  it('catches one corrupted byte of the subject\'s result, with the seed, and shrinks it to a script that runs', async () => {
    const r = await faulted('byte', clean[0], { shrink: true, shrinkSeconds: 10 });
    assert.deepStrictEqual(r.fresh.map((g) => [g.kind, g.seeds[0]]), [['bytes', `8:native:${clean[0]}`]], format(r));
    const g = r.fresh[0];
    assert.ok(g.verified, format(r));
    assert.strictEqual(g.shrunk.size.messages, 1, format(r));
    assert.ok(g.shrunk.size.nodes <= 3, format(r));
    // The fault is in the harness: the script itself finds the two sides the same.
    // In the repository, where the script's require('protobufjs') and require('protobufjs-rustwriter') resolve.
    const dir = path.join(__dirname, '..', 'target', 'fuzz-schemas');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `self-test-${process.pid}.js`);
    fs.writeFileSync(file, g.script);
    try {
      const run = spawnSync(process.execPath, [file], { cwd: path.join(__dirname, '..'), env: { ...process.env, ...PATHS.native.env }, encoding: 'utf8' });
      assert.strictEqual(run.status, 0, run.stderr);
      assert.match(run.stdout, /^same$/m, run.stdout);
    } finally {
      fs.unlinkSync(file);
    }
  });

  it('catches a subject that reads a getter once more than protobufjs\'s encoder, with the seed', async () => {
    const r = await faulted('read', reads[0]);
    assert.deepStrictEqual(r.fresh.map((g) => [g.kind, g.seeds[0]]), [['log', `8:native:${reads[0]}`]], format(r));
    assert.match(r.fresh[0].first.message, /user code ran differently/);
  });

  it('catches encoders that miss a schema change (code for a Type\'s first fields kept after Type#add, #remove), and shrinks one', async () => {
    const r = await fuzz({ ...quiet, versions: ['8'], paths: ['native'], count: 40, fault: 'stale', shrink: true, shrinkSeconds: 5 });
    assert.ok(r.failing > 0, format(r));
    assert.deepStrictEqual([...new Set(r.fresh.map((g) => g.form))], ['after'], format(r));
    const g = r.fresh[0];
    assert.ok(g.verified && g.shrunk.size.messages === 1 && g.shrunk.size.types <= 3, format(r));
  });

  it('gives fields added in the second pass only values that every message form takes (fromObject, decoded)', () => {
    // A typed array, a Proxy or a logging getter there reached fromObject on the subject's side only (the
    // reference gets 64-bit values as decimal strings), which read as a difference in the long run.
    const { generateCase } = require('../fuzz/schemas/case');
    const unplain = (d) => d !== null && typeof d === 'object' && (d.k === 'typed' || d.k === 'vol' ||
      (d.k === 'msg' && d.mode !== 'plain') || Object.values(d).some(unplain));
    const seen = [];
    for (let seed = 400001; seed < 402001; ++seed) {
      const desc = generateCase(seed);
      if (!desc.after) continue;
      for (const a of desc.after.add) {
        seen.push(seed);
        assert.ok(!unplain(a.value), `case ${seed}: ${JSON.stringify(a.value)}`);
      }
    }
    assert.ok(seen.length > 100, `only ${seen.length} added fields seen`);
  });

  it('replays every bug it found and that is fixed (fuzz/schemas/fixed-bugs.js): each passes', () => {
    const failing = [];
    for (const bug of FIXED_BUGS) {
      const message = replay(bug.repro);
      if (message.failure) failing.push(`${bug.bug}: ${message.failure.kind} in ${message.failure.form}`);
    }
    assert.ok(FIXED_BUGS.length > 0);
    assert.deepStrictEqual(failing, []);
  });

  it('knows no bug that no longer fails: each entry of fuzz/schemas/known-bugs.js still reproduces', function () {
    if (process.env.PROTOBUFJS_RUSTWRITER_COMPILED === '0') this.skip(); // they are the compiled encoders'
    const stale = [];
    for (const bug of KNOWN_BUGS) {
      const message = replay(bug.repro);
      if (message.known !== bug.bug) stale.push(`${bug.bug} (now: ${message.failure ? `${message.failure.kind} in ${message.failure.form}, ${message.known || 'unknown'}` : 'passes'})`);
    }
    assert.deepStrictEqual(stale, [], 'these known bugs no longer fail as listed: remove or update their entries in fuzz/schemas/known-bugs.js');
  });

  it('catches a crash of a batch process and names the case', async () => {
    const r = await faulted('crash', clean[0] + 2, { seed: clean[0], count: 5 });
    const crash = r.fresh.find((g) => g.kind === 'crash');
    assert.ok(crash, format(r));
    assert.strictEqual(crash.first.seed, clean[0] + 2);
    assert.match(crash.first.message, /signal SIGABRT/);
    assert.strictEqual(r.runs['8 native'].cases, 5, 'the cases after the crash ran in a new process');
  });

  it('catches a hang of a batch process and names the case, with a stall well above a healthy batch\'s silences', async () => {
    // Five times the longest silence of the healthy batch above, so that it grows with the machine's load.
    const stall = stallOver(silence);
    console.log(`      stall ${stall} s; the longest silence of a healthy batch before it ${(silence / 1000).toFixed(2)} s`);
    const r = await faulted('hang', clean[0] + 1, { seed: clean[0], count: 3, stall });
    const hang = r.fresh.find((g) => g.kind === 'hang');
    assert.ok(hang, format(r));
    assert.strictEqual(hang.first.seed, clean[0] + 1);
    assert.strictEqual(r.runs['8 native'].cases, 3, 'the case after the hang ran in a new process');
  });
});
