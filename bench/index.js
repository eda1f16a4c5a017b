'use strict';

/**
 * `npm run bench [-- case ...]`: RustWriter against protobufjs 8.8.1's and 7.6.6's writers on
 * the cases of bench/cases.js. Per case: byte check and ops/s of every contender, timed in this
 * process under Node's default flags (bench/suite.js); where the time goes (protobufjs 8.8.1, a
 * null writer, RustWriter recording only and in full, native calls per op); bytes allocated per
 * op, measured in a child process with the flags that needs (bench/alloc.js). Then the targets of
 * issue 11 (bench/targets.js).
 *
 * A full run writes bench/results/latest.json and renders the SVG and the README tables from it
 * (bench/render.js). A run of some cases (`npm run bench -- tiny stream`, or BENCH_CASES="tiny
 * stream"; ids or groups of bench/cases.js) writes bench/results/subset.json and renders nothing,
 * so the README only ever shows a full run. Exits 1 if some case's bytes differ; a missed
 * target is only reported.
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CASES, CONTENDERS, PROTO_FILE, selectCases, contendersOf, prepareCase } = require('./cases');
const { runCase, BENCH_OPTIONS, ROUNDS } = require('./suite');
const { measureInChild, ALLOC_FLAGS } = require('./alloc');
const { loadStaticModules } = require('./static');
const { evaluateTargets } = require('./targets');
const format = require('./format');
const render = require('./render');

const ROOT = path.join(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const FULL_RESULTS = path.join(RESULTS_DIR, 'latest.json');
const SUBSET_RESULTS = path.join(RESULTS_DIR, 'subset.json');
/** Width of the contender-name column of the console report (the longest name). */
const NAME_WIDTH = 41;
/** A timing whose relative margin of error (%) exceeds this is called out as noisy. */
const NOISY_RME = 10;
/**
 * Ops over which native calls are counted: enough to average calls made once per many encodes
 * (a result slab running out), few enough to take well under a second on the 1 MB case.
 */
const NATIVE_CALL_OPS = 100;
/** The writer's internal module whose `stats.calls` counts native calls (issue 11). */
const NATIVE_MODULE = '../lib/native';

const NAMES = Object.fromEntries(CONTENDERS.map(({ key, name }) => [key, name]));

/**
 * Case names from the command line, else from BENCH_CASES (space- or comma-separated).
 * @param {string[]} argv Command-line arguments
 * @returns {string[]} Names (empty: all cases)
 */
function requestedCases(argv) {
  if (argv.length) return argv;
  return (process.env.BENCH_CASES || '').split(/[\s,]+/).filter(Boolean);
}

/**
 * RustWriter's ops/s over each protobufjs writer's, and over the faster of the two; and
 * RustWriter driven by protobufjs 7.6.6's code over protobufjs 7.6.6, where it was timed.
 * @param {Object<string, {hz: number}>} contenders Timed contenders by key
 * @returns {{pbjs8: number, pbjs7: number, faster: number, rust7VsPbjs7?: number}} Ratios
 */
function ratiosOf(contenders) {
  const { rust, pbjs8, pbjs7, rust7 } = contenders;
  const ratios = { pbjs8: rust.hz / pbjs8.hz, pbjs7: rust.hz / pbjs7.hz, faster: rust.hz / Math.max(pbjs8.hz, pbjs7.hz) };
  if (rust7) ratios.rust7VsPbjs7 = rust7.hz / pbjs7.hz;
  return ratios;
}

/**
 * Native calls per op of RustWriter's op, counted outside any timing by the writer's own counter
 * (`stats.calls` of lib/native.js), read only if the loaded writer uses that module.
 * @param {() => *} fn RustWriter's op
 * @returns {number|null} Calls per op, null where the writer has no such counter
 */
function nativeCallsPerOp(fn) {
  let file;
  try {
    file = require.resolve(NATIVE_MODULE);
  } catch {
    return null;
  }
  const stats = require.cache[file] && require.cache[file].exports.stats;
  if (!stats || typeof stats.calls !== 'number') return null;
  const before = stats.calls;
  for (let i = 0; i < NATIVE_CALL_OPS; ++i) fn();
  return (stats.calls - before) / NATIVE_CALL_OPS;
}

/**
 * Where the time of an encode goes, from one run's timings.
 * @param {Object<string, {hz: number}>} contenders Timed contenders by key
 * @param {number|null} nativeCalls Native calls per op
 * @returns {{nsPerOp: {pbjs8: number, null: number, record: number, rust: number}, nativeCallsPerOp: number|null}}
 */
function breakdownOf(contenders, nativeCalls) {
  const ns = (key) => 1e9 / contenders[key].hz;
  return { nsPerOp: { pbjs8: ns('pbjs8'), null: ns('null'), record: ns('record'), rust: ns('rust') }, nativeCallsPerOp: nativeCalls };
}

/**
 * Console text of one allocation measurement.
 * @param {object} alloc Result of measureAllocation
 * @returns {string} Text
 */
function allocText(alloc) {
  if (alloc.error) return `alloc: ${alloc.error}`;
  return `alloc ${format.byteSize(alloc.total)}/op (heap ${format.byteSize(alloc.heap)}, external ` +
    `${format.byteSize(alloc.external)}; ${format.byteSize(alloc.beyondResult)} beyond the result)` +
    `${alloc.noisy ? ` noisy: windows spread ${(alloc.spread * 100).toFixed(0)}%` : ''}`;
}

/**
 * Console text of a case's breakdown.
 * @param {object} breakdown Result of breakdownOf
 * @returns {string} Text
 */
function breakdownText({ nsPerOp, nativeCallsPerOp: calls }) {
  const time = (key) => format.timePerOp(1e9 / nsPerOp[key]);
  const share = (key) => `${time(key)} (${Math.round((100 * nsPerOp[key]) / nsPerOp.pbjs8)}%)`;
  return `  time per op: ${NAMES.pbjs8} ${time('pbjs8')}; null writer ${share('null')}; RustWriter recording only ` +
    `${share('record')}, in full ${share('rust')}; native calls per op ${calls === null ? 'n/a' : calls.toFixed(2)}\n`;
}

/**
 * Benchmarks one case: bytes, ops/s, breakdown, allocation.
 * @param {object} c Case of bench/cases.js
 * @param {Object<string, object>|null} statics Static modules per contender key
 * @returns {Promise<object>} Case record of the results file
 */
async function benchCase(c, statics) {
  const contenders = prepareCase(c, statics);
  const timed = runCase(c.title, contenders);
  const record = { id: c.id, group: c.group, title: c.title, bytes: timed.bytes, messagesPerOp: c.messagesPerOp || 1 };
  process.stdout.write(`\n${c.title}: ${timed.bytes.toLocaleString('en-US')} bytes per op` +
    `${record.messagesPerOp > 1 ? ` (${record.messagesPerOp} messages)` : ''}\n`);
  if (timed.error) {
    process.stdout.write(`  BYTES DIFFER ${timed.error}\n`);
    return { ...record, error: timed.error };
  }
  const nativeCalls = nativeCallsPerOp(contenders.find((x) => x.key === 'rust').fn);
  const checked = contenders.filter((x) => x.checked).map((x) => x.key);
  const allocs = await measureInChild(c.id, checked);
  record.contenders = {};
  for (const result of timed.results) {
    const alloc = allocs[result.key];
    record.contenders[result.key] = { name: result.name, hz: result.hz, rme: result.rme, samples: result.samples, ...(alloc && { alloc }) };
    process.stdout.write(`  ${result.name.padEnd(NAME_WIDTH)} ${format.opsPerSecond(result.hz).padStart(11)} ops/s ` +
      `±${result.rme.toFixed(1).padStart(4)}% (${result.samples} runs)${alloc ? `  ${allocText(alloc)}` : ''}\n`);
  }
  record.ratios = ratiosOf(record.contenders);
  record.breakdown = breakdownOf(record.contenders, nativeCalls);
  process.stdout.write(`  RustWriter: ${format.ratio(record.ratios.pbjs8)} vs ${NAMES.pbjs8}, ` +
    `${format.ratio(record.ratios.pbjs7)} vs ${NAMES.pbjs7}, ${format.ratio(record.ratios.faster)} vs the faster` +
    `${record.ratios.rust7VsPbjs7 ? `; ${NAMES.rust7}: ${format.ratio(record.ratios.rust7VsPbjs7)} vs ${NAMES.pbjs7}` : ''}\n`);
  process.stdout.write(breakdownText(record.breakdown));
  return record;
}

/**
 * Sentences on how noisy the run was, for the console and the README.
 * @param {object[]} records Case records
 * @param {number} loadAverage One-minute load average when the run started
 * @returns {string[]} Notes (none for a quiet run)
 */
function noiseNotes(records, loadAverage) {
  const measured = records.flatMap((r) => (r.error ? [] : Object.values(r.contenders)));
  const allocs = measured.filter((m) => m.alloc).map((m) => m.alloc);
  const noisyTimings = measured.filter((m) => m.rme > NOISY_RME).length;
  const noisyAllocs = allocs.filter((a) => a.error || a.noisy).length;
  const notes = [];
  if (noisyTimings) {
    notes.push(`${noisyTimings} of ${measured.length} timings have a margin of error above ±${NOISY_RME}% ` +
      `(load average ${loadAverage.toFixed(1)} on ${os.cpus().length} cores at the start): their ratios are rough.`);
  }
  if (noisyAllocs) {
    notes.push(`${noisyAllocs} of ${allocs.length} allocation measurements spread more than 10% between windows ` +
      '(pooled allocations such as slabs) or failed, marked ~ or n/a.');
  }
  return notes;
}

/**
 * The commit and whether the working tree differs from it, or null outside git.
 * @returns {{commit: string, dirty: boolean}|null} Git state
 */
function gitState() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit: git('rev-parse', 'HEAD').trim(), dirty: git('status', '--porcelain').trim() !== '' };
  } catch {
    return null;
  }
}

/**
 * Version of an installed package.
 * @param {string} name Package name
 * @returns {string} Version
 */
function versionOf(name) {
  return require(`${name}/package.json`).version;
}

/**
 * Runs the requested cases and writes the results file.
 * @param {string[]} argv Command-line arguments
 * @returns {Promise<undefined>}
 */
async function main(argv) {
  const started = Date.now();
  const [loadAverage] = os.loadavg();
  const cases = selectCases(requestedCases(argv));
  const staticCase = cases.find((c) => c.codegen === 'static');
  const statics = staticCase ? await loadStaticModules(PROTO_FILE, contendersOf(staticCase)) : null;
  const records = [];
  for (const c of cases) records.push(await benchCase(c, statics));

  const targets = evaluateTargets(records, CASES.length, NAMES);
  process.stdout.write('\nTargets (this run):\n');
  for (const t of targets) {
    const value = t.value === null ? '' : `${format.ratio(t.value)} (target ${format.ratio(t.threshold)})`;
    process.stdout.write(`  ${t.status.padEnd(5)} ${t.label}: ${value}\n`);
  }
  const notes = noiseNotes(records, loadAverage);
  for (const note of notes) process.stdout.write(`Note: ${note}\n`);

  const full = cases.length === CASES.length;
  const run = {
    date: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0].model,
      cores: os.cpus().length,
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      loadAverageAtStart: loadAverage,
    },
    node: process.version,
    packages: {
      'protobufjs-rustwriter': require('../package.json').version,
      protobufjs: versionOf('protobufjs'),
      protobufjs7: versionOf('protobufjs7'),
      'protobufjs-cli': versionOf('protobufjs-cli'),
      benchmark: versionOf('benchmark'),
    },
    git: gitState(),
    contenders: CONTENDERS.map(({ key, name, checked, breakdown, pbjs7Codegen }) =>
      ({ key, name, checked: Boolean(checked), breakdown: Boolean(breakdown), pbjs7Codegen: Boolean(pbjs7Codegen) })),
    options: {
      benchmark: BENCH_OPTIONS,
      rounds: ROUNDS,
      nodeFlags: process.execArgv,
      allocationNodeFlags: ALLOC_FLAGS,
      cases: cases.map((c) => c.id),
    },
    runtimeSeconds: (Date.now() - started) / 1000,
    cases: records,
    targets,
    notes,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = full ? FULL_RESULTS : SUBSET_RESULTS;
  fs.writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  process.stdout.write(`\n${format.machineLine(run)}, ${format.commitLine(run)}; ` +
    `${format.duration(run.runtimeSeconds)}; results in ${path.relative(ROOT, file)}\n`);
  if (full) render.main();
  if (records.some((r) => r.error)) process.exitCode = 1;
}

module.exports = { main };

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exitCode = 1;
  });
}
