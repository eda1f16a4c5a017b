'use strict';

/**
 * `npm run bench [-- case ...]`: RustWriter against protobufjs 8.8.1's and 7.6.6's writers on
 * the cases of bench/cases.js, in one process. Per case: byte check, ops/s (bench/suite.js),
 * bytes allocated per op (bench/alloc.js); then the targets of issue 3 (bench/targets.js).
 *
 * A full run writes bench/results/latest.json and renders the SVG and the README table from it
 * (bench/render.js). A run of some cases (`npm run bench -- tiny stream`, or BENCH_CASES="tiny
 * stream"; ids or groups of bench/cases.js) writes bench/results/subset.json and renders nothing,
 * so the README only ever shows a full run. Exits 1 if some case's bytes differ; a missed
 * target is only reported.
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CASES, CONTENDERS, PROTO_FILE, selectCases, prepareCase } = require('./cases');
const { runCase, BENCH_OPTIONS } = require('./suite');
const { measureAllocation, assertSetUp } = require('./alloc');
const { loadStaticModules } = require('./static');
const { evaluateTargets } = require('./targets');
const format = require('./format');
const render = require('./render');

const ROOT = path.join(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const FULL_RESULTS = path.join(RESULTS_DIR, 'latest.json');
const SUBSET_RESULTS = path.join(RESULTS_DIR, 'subset.json');
/** Width of the contender-name column of the console report. */
const NAME_WIDTH = 28;
/** A timing whose relative margin of error (%) exceeds this is called out as noisy. */
const NOISY_RME = 10;

const [PBJS8, PBJS7, RUST] = CONTENDERS;

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
 * RustWriter's ops/s over each protobufjs writer's, and over the faster of the two.
 * @param {Object<string, {hz: number}>} contenders Timed contenders by key
 * @returns {{pbjs8: number, pbjs7: number, faster: number}} Ratios
 */
function ratiosOf(contenders) {
  const rust = contenders[RUST.key].hz;
  const [hz8, hz7] = [contenders[PBJS8.key].hz, contenders[PBJS7.key].hz];
  return { pbjs8: rust / hz8, pbjs7: rust / hz7, faster: rust / Math.max(hz8, hz7) };
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
 * Benchmarks one case: bytes, ops/s, allocation.
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
  record.contenders = {};
  for (const [i, result] of timed.results.entries()) {
    const alloc = await measureAllocation(contenders[i].fn, timed.bytes);
    record.contenders[result.key] = { name: result.name, hz: result.hz, rme: result.rme, samples: result.samples, alloc };
    process.stdout.write(`  ${result.name.padEnd(NAME_WIDTH)} ${format.opsPerSecond(result.hz).padStart(11)} ops/s ` +
      `±${result.rme.toFixed(1).padStart(4)}% (${result.samples} runs)  ${allocText(alloc)}\n`);
  }
  record.ratios = ratiosOf(record.contenders);
  process.stdout.write(`  RustWriter: ${format.ratio(record.ratios.pbjs8)} vs ${PBJS8.name}, ` +
    `${format.ratio(record.ratios.pbjs7)} vs ${PBJS7.name}, ${format.ratio(record.ratios.faster)} vs the faster\n`);
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
  const noisyTimings = measured.filter((m) => m.rme > NOISY_RME).length;
  const noisyAllocs = measured.filter((m) => m.alloc.error || m.alloc.noisy).length;
  const notes = [];
  if (noisyTimings) {
    notes.push(`${noisyTimings} of ${measured.length} timings have a margin of error above ±${NOISY_RME}% ` +
      `(load average ${loadAverage.toFixed(1)} on ${os.cpus().length} cores at the start): their ratios are rough.`);
  }
  if (noisyAllocs) {
    notes.push(`${noisyAllocs} of ${measured.length} allocation measurements spread more than 10% between windows ` +
      '(pooled allocations such as slabs), marked ~.');
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
  assertSetUp();
  const statics = cases.some((c) => c.codegen === 'static') ? await loadStaticModules(PROTO_FILE, CONTENDERS) : null;
  const records = [];
  for (const c of cases) records.push(await benchCase(c, statics));

  const targets = evaluateTargets(records, CASES.length, { pbjs8: PBJS8.name, pbjs7: PBJS7.name });
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
    contenders: CONTENDERS.map(({ key, name }) => ({ key, name })),
    options: { benchmark: BENCH_OPTIONS, nodeFlags: process.execArgv, cases: cases.map((c) => c.id) },
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
