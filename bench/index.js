'use strict';

/**
 * `npm run bench [-- [options] case ...]`: RustWriter as an app gets it (installed into protobufjs
 * 8.8.1, compiled encoders, `T.encode(m).finish()`) against protobufjs 8.8.1's own writer and
 * code, RustWriter installed into protobufjs 7.6.6 against protobufjs 7.6.6, and beside them the
 * Writer API path, the JS-only path and the shadow checks, on the cases of bench/cases.js; each
 * contender in a protobufjs copy of its own (bench/copies.js). Per case: byte check and ops/s of
 * every contender, each in a process of its own under Node's default flags, in interleaved rounds
 * (bench/suite.js, bench/worker.js); where the time goes (protobufjs 8.8.1, a null writer,
 * RustWriter without `finish()` and in full, the Writer API path, native calls per op); bytes
 * allocated per op, measured in a child process with the flags that needs (bench/alloc.js). Then
 * the targets (bench/targets.js) and a summary of which misses are noise. `--help` lists cases,
 * contenders and options (bench/options.js); `--node <major>` runs the same command line under the
 * latest release of that Node line.
 *
 * Results go to stdout, progress to stderr (bench/progress.js). A run writes nothing git tracks:
 * its JSON goes to target/bench/last-run.json. Only `--update` (`npm run bench:update`, which runs
 * under Node 26, the Active LTS), and only on a full run, also writes bench/results/latest.json and
 * renders the SVG and the generated tables from it (bench/render.js), so the README only ever shows a
 * full run. Exits 1 if some case's bytes differ (in the timing or in a first-encode process), 2 on an
 * unknown option or case; a missed target is only reported.
 */

const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { RustWriter } = require('..');
const { CASES, CONTENDERS, COMPARISONS, contendersOf } = require('./cases');
const { runCase, roundsOf, ROUNDS, TARGET_ROUNDS } = require('./suite');
const { BENCH_OPTIONS } = require('./worker');
const { measureInChild, ALLOC_FLAGS } = require('./alloc');
const { measureCold, coldText, STEADY_MS: COLD_STEADY_MS } = require('./cold');
const { evaluateTargets } = require('./targets');
const { parseOptions, helpText, UsageError, USAGE_EXIT } = require('./options');
const { Progress, budgetOf } = require('./progress');
const format = require('./format');
const render = require('./render');

const ROOT = path.join(__dirname, '..');
/** Every run's results: under cargo's target/, which git ignores. */
const LAST_RUN = path.join(ROOT, 'target', 'bench', 'last-run.json');
/** Width of the contender-name column of the console report (the longest name). */
const NAME_WIDTH = Math.max(...CONTENDERS.map((c) => c.name.length));
/** A timing whose relative margin of error (%) exceeds this is called out as noisy. */
const NOISY_RME = 10;
/**
 * Ops over which native calls are counted: enough to average calls made once per many encodes
 * (a result slab running out), few enough to take well under a second on the 1 MB case.
 */
const NATIVE_CALL_OPS = 100;

const NAMES = Object.fromEntries(CONTENDERS.map(({ key, name }) => [key, name]));

/**
 * The ratios of a case, each where the case timed its contenders: RustWriter in protobufjs 8.8.1
 * over protobufjs 8.8.1 (`pbjs8`); RustWriter in protobufjs 7.6.6 over protobufjs 7.6.6 (`pbjs7`),
 * each protobufjs under its own reflection code; RustWriter in 8.8.1 over the faster protobufjs
 * (`faster`); and each of COMPARISONS.
 * @param {Object<string, {hz: number}>} contenders Timed contenders by key
 * @returns {{pbjs8?: number, pbjs7?: number, faster?: number}} Ratios (and COMPARISONS' keys)
 */
function ratiosOf(contenders) {
  const { rust, pbjs8, pbjs7, rust7 } = contenders;
  const ratios = {};
  if (rust && pbjs8) ratios.pbjs8 = rust.hz / pbjs8.hz;
  if (rust7 && pbjs7) ratios.pbjs7 = rust7.hz / pbjs7.hz;
  if (rust && pbjs8 && pbjs7) ratios.faster = rust.hz / Math.max(pbjs8.hz, pbjs7.hz);
  for (const { key, of, over } of COMPARISONS) {
    if (contenders[of] && contenders[over]) ratios[key] = contenders[of].hz / contenders[over].hz;
  }
  return ratios;
}

/**
 * The ratios of a case from each contender's fastest round (the real-workload cases' report shows
 * them beside the medians': bench/suite.js).
 * @param {Object<string, {best: number}>} contenders Timed contenders by key
 * @returns {Object<string, number>} Ratios, as ratiosOf's
 */
function bestRatiosOf(contenders) {
  return ratiosOf(Object.fromEntries(Object.entries(contenders).map(([key, c]) => [key, { hz: c.best }])));
}

/** The contenders of the breakdown of where the time goes, in its order; the first is the reference. */
const BREAKDOWN_KEYS = ['pbjs8', 'null', 'record', 'rust', 'rust-api'];

/**
 * Where the time of an encode goes, from one run's timings: the time per op of each of
 * BREAKDOWN_KEYS the case timed, or null without protobufjs 8.8.1 and RustWriter.
 * @param {Object<string, {hz: number}>} contenders Timed contenders by key
 * @param {number|null} nativeCalls Native calls per op
 * @returns {{nsPerOp: Object<string, number>, nativeCallsPerOp: number|null}|null} Breakdown
 */
function breakdownOf(contenders, nativeCalls) {
  if (!contenders.pbjs8 || !contenders.rust) return null;
  const timed = BREAKDOWN_KEYS.filter((key) => contenders[key]);
  const nsPerOp = Object.fromEntries(timed.map((key) => [key, 1e9 / contenders[key].hz]));
  return { nsPerOp, nativeCallsPerOp: nativeCalls };
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
  const share = (key) => `${NAMES[key]} ${time(key)} (${Math.round((100 * nsPerOp[key]) / nsPerOp.pbjs8)}%)`;
  const shares = Object.keys(nsPerOp).filter((key) => key !== 'pbjs8').map(share);
  return `  time per op: ${NAMES.pbjs8} ${time('pbjs8')}; ${shares.join('; ')}; native calls per op ` +
    `${calls === null ? 'n/a' : calls.toFixed(2)}\n`;
}

/**
 * Console text of a case's ratios.
 * @param {object} ratios Result of ratiosOf
 * @returns {string} Text
 */
function ratiosText(ratios) {
  const main = [
    ['pbjs8', `${NAMES.rust} vs ${NAMES.pbjs8}`], ['pbjs7', `${NAMES.rust7} vs ${NAMES.pbjs7}`],
    ['faster', `${NAMES.rust} vs the faster protobufjs`],
  ].filter(([key]) => ratios[key] !== undefined).map(([key, label]) => `  ${label}: ${format.ratio(ratios[key])}\n`);
  const compared = COMPARISONS.filter(({ key }) => ratios[key] !== undefined)
    .map(({ key, label, of, over }) => `  ${label}: ${format.ratio(ratios[key])} (${NAMES[of]} ÷ ${NAMES[over]})\n`);
  return `${main.join('')}${compared.join('')}`;
}

/**
 * Console text of a real-workload case's ratios of the fastest rounds.
 * @param {object} ratios Result of bestRatiosOf
 * @returns {string} Text
 */
function bestRatiosText(ratios) {
  const shown = [['pbjs8', `${NAMES.rust} vs ${NAMES.pbjs8}`], ['api', `Writer API vs ${NAMES.pbjs8}`],
    ['pbjs7', `${NAMES.rust7} vs ${NAMES.pbjs7}`], ['faster', `${NAMES.rust} vs the faster protobufjs`]]
    .filter(([key]) => ratios[key] !== undefined).map(([key, label]) => `${label} ${format.ratio(ratios[key])}`);
  return shown.length ? `  fastest rounds: ${shown.join('; ')}\n` : '';
}

/**
 * Whether a case's first encode and memory are measured on this run.
 * @param {object} c Case
 * @param {{cold: string[]|null, coldRounds: number}} options Parsed command line
 * @returns {boolean} Measured
 */
function coldOf(c, options) {
  return Boolean(c.cold) && options.coldRounds > 0 && (options.cold === null || options.cold.includes(c.id));
}

/**
 * Benchmarks one case: bytes, ops/s, breakdown, allocation, and for real-workload cases first
 * encode and memory in fresh processes (bench/cold.js).
 * @param {object} c Case of bench/cases.js
 * @param {{contenders: string[]|null, alloc: boolean, cold: string[]|null, coldRounds: number}} options
 *   Contenders to time (null: all), whether to measure allocation, and the first-encode measurement's
 *   cases (null: all that have one) and rounds
 * @returns {Promise<object>} Case record of the results file
 */
async function benchCase(c, options) {
  const contenders = contendersOf(c, options.contenders);
  // Native calls per op of RustWriter's op, counted outside any timing by the addon itself.
  const countCalls = (worker) => (worker.key === 'rust' ? worker.nativeCalls(NATIVE_CALL_OPS) : null);
  const timed = await runCase(c.id, contenders, countCalls);
  const record = {
    id: c.id, group: c.group, title: c.title, bytes: timed.bytes, messagesPerOp: c.messagesPerOp || 1,
    ...(c.wide && { wide: true }),
  };
  process.stdout.write(`\n${c.title}: ${timed.bytes.toLocaleString('en-US')} bytes per op` +
    `${record.messagesPerOp > 1 ? ` (${record.messagesPerOp} messages)` : ''}\n`);
  if (timed.error) {
    process.stdout.write(`  BYTES DIFFER ${timed.error}\n`);
    return { ...record, error: timed.error };
  }
  const nativeCalls = timed.extras.rust ?? null;
  const checked = contenders.filter((x) => x.checked).map((x) => x.key);
  const allocs = options.alloc ? await measureInChild(c.id, checked) : {};
  record.contenders = {};
  for (const result of timed.results) {
    const alloc = allocs[result.key];
    record.contenders[result.key] = {
      name: result.name, hz: result.hz, rme: result.rme, samples: result.samples, best: result.best,
      ...(alloc && { alloc }),
    };
    process.stdout.write(`  ${result.name.padEnd(NAME_WIDTH)} ${format.opsPerSecond(result.hz).padStart(11)} ops/s ` +
      `±${result.rme.toFixed(1).padStart(4)}% (${result.samples} runs)${alloc ? `  ${allocText(alloc)}` : ''}\n`);
  }
  record.ratios = ratiosOf(record.contenders);
  record.bestRatios = bestRatiosOf(record.contenders);
  record.breakdown = breakdownOf(record.contenders, nativeCalls);
  process.stdout.write(ratiosText(record.ratios));
  if (c.group === 'real') process.stdout.write(bestRatiosText(record.bestRatios));
  if (record.breakdown) process.stdout.write(breakdownText(record.breakdown));
  if (coldOf(c, options)) {
    record.cold = measureCold(c, { rounds: options.coldRounds, keys: options.contenders });
    process.stdout.write(coldText(record.cold, NAME_WIDTH + ', preload'.length));
  }
  return record;
}

/**
 * How noisy the run was: the load when it started, and the timings and allocation measurements
 * whose margins are wide.
 * @param {object[]} records Case records
 * @param {number} loadAverage One-minute load average when the run started
 * @returns {{loadAverageAtStart: number, cores: number, timings: number, noisyTimings: number,
 *   allocations: number, noisyAllocations: number, notes: string[]}} Noise, and sentences on it for the README
 */
function noiseOf(records, loadAverage) {
  const measured = records.flatMap((r) => (r.error ? [] : Object.values(r.contenders)));
  const allocs = measured.filter((m) => m.alloc).map((m) => m.alloc);
  const noise = {
    loadAverageAtStart: loadAverage,
    cores: os.cpus().length,
    timings: measured.length,
    noisyTimings: measured.filter((m) => m.rme > NOISY_RME).length,
    allocations: allocs.length,
    noisyAllocations: allocs.filter((a) => a.error || a.noisy).length,
    notes: [],
  };
  if (noise.noisyTimings) {
    noise.notes.push(`${noise.noisyTimings} of ${noise.timings} timings have a margin of error above ±${NOISY_RME}% ` +
      `(load average ${loadAverage.toFixed(1)} on ${noise.cores} cores at the start): their ratios are rough.`);
  }
  if (noise.noisyAllocations) {
    noise.notes.push(`${noise.noisyAllocations} of ${noise.allocations} allocation measurements spread more than 10% between ` +
      'windows (pooled allocations such as slabs) or failed, marked ~ or n/a.');
  }
  return noise;
}

/**
 * The targets in plain words: one line each, then which misses are noise and which are real.
 * @param {{targets: object[], skipped: string[]}} evaluated Result of evaluateTargets
 * @param {object} noise Result of noiseOf
 * @returns {string} Text
 */
function targetsText({ targets, skipped }, noise) {
  const lines = targets.map((t) => `  ${t.what}: needed ${format.needed(t)}, measured ${format.measured(t)}: ${t.verdict}\n`);
  const by = (status) => targets.filter((t) => t.status === status).map((t) => t.short);
  const [met, inNoise, missed] = ['met', 'noise', 'missed'].map(by);
  const summary = [`Summary: ${met.length} of ${targets.length} targets met.`];
  if (inNoise.length) summary.push(`Missed within noise (the margins reach the target; another run may meet them): ${inNoise.join('; ')}.`);
  if (missed.length) summary.push(`Missed for real (the whole margin falls short): ${missed.join('; ')}.`);
  if (skipped.length) summary.push(`Not evaluated on this run: ${skipped.join('; ')}.`);
  summary.push(`Noise of this run: load average ${noise.loadAverageAtStart.toFixed(1)} on ${noise.cores} cores at the start; ` +
    `${noise.noisyTimings} of ${noise.timings} timings have margins above ±${NOISY_RME}%; ${noise.noisyAllocations} of ` +
    `${noise.allocations} allocation measurements spread more than 10% or failed.`);
  if (noise.noisyTimings > noise.timings / 2) {
    summary.push(`Most timings are noisy, so most ranges are wide: for verdicts that tell, rerun when the machine is idle ` +
      `(load average well below ${noise.cores}).`);
  }
  return `\nTargets (ops/s over ops/s, both from this run; in parentheses the range the ` +
    `two timings' margins allow):\n${lines.join('')}\n${summary.join('\n')}\n`;
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
 * Writes a JSON file, creating its directory.
 * @param {string} file Path
 * @param {object} value Value
 * @returns {undefined}
 */
function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Runs the cases of a command line, reports them and writes the results file.
 * @param {{update: boolean, alloc: boolean, contenders: string[]|null, cases: object[]}} options Parsed command line
 * @returns {Promise<undefined>}
 */
async function run(options) {
  const started = Date.now();
  const [loadAverage] = os.loadavg();
  const { cases } = options;
  const progress = new Progress(cases.map((c) => ({
    id: c.id,
    budget: budgetOf(c, contendersOf(c, options.contenders), roundsOf(c.id), options.alloc,
      coldOf(c, options) ? options.coldRounds : 0),
  })));
  progress.start(`Benchmarking ${cases.length} of ${CASES.length} cases, ${ROUNDS} rounds each (${TARGET_ROUNDS} for the ` +
    `everyday cases), under Node ${process.versions.node}, load average ${loadAverage.toFixed(1)} on ${os.cpus().length} cores`);
  // The commit measured: read before timing, so that a commit made meanwhile is not credited with it.
  const git = gitState();
  const records = [];
  for (const c of cases) {
    const contenders = contendersOf(c, options.contenders);
    progress.caseStart(`(${c.title}): checking bytes, timing ${contenders.length} writers × ${roundsOf(c.id)} rounds` +
      `${options.alloc ? ', measuring allocation' : ''}${coldOf(c, options) ? `, first encode × ${options.coldRounds} rounds` : ''}`);
    records.push(await benchCase(c, options));
    progress.caseEnd();
  }

  const evaluated = evaluateTargets(records, NAMES);
  const noise = noiseOf(records, loadAverage);
  process.stdout.write(targetsText(evaluated, noise));

  const results = {
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
    git,
    contenders: contendersOf(null, options.contenders).map(({ key, name, pkg, install, checked, breakdown, env }) =>
      ({
        key, name, protobufjs: versionOf(pkg), install: install || null, checked: Boolean(checked),
        breakdown: Boolean(breakdown),
        ...(env && { env }),
      })),
    comparisons: COMPARISONS,
    options: {
      benchmark: BENCH_OPTIONS,
      rounds: ROUNDS,
      everydayRounds: TARGET_ROUNDS,
      nodeFlags: process.execArgv,
      allocationNodeFlags: ALLOC_FLAGS,
      cases: cases.map((c) => c.id),
      contenders: options.contenders,
      alloc: options.alloc,
      cold: cases.filter((c) => coldOf(c, options)).map((c) => c.id),
      coldRounds: options.coldRounds,
      coldSteadyMs: COLD_STEADY_MS,
    },
    runtimeSeconds: (Date.now() - started) / 1000,
    cases: records,
    targets: evaluated.targets,
    targetsSkipped: evaluated.skipped,
    noise,
    notes: noise.notes,
  };
  writeJson(LAST_RUN, results);
  process.stdout.write(`\n${format.machineLine(results)}, ${format.commitLine(results)}; ` +
    `${format.duration(results.runtimeSeconds)}; results in ${path.relative(ROOT, LAST_RUN)}\n`);
  if (options.update) {
    writeJson(render.RESULTS, results);
    render.main();
  }
  if (records.some((r) => r.error || (r.cold && r.cold.error))) process.exitCode = 1;
}

/**
 * Runs this command line again under the latest release of another Node line (scripts/runtimes.js:
 * fetched from the npm registry on first use), without its `--node`.
 * @param {string} line Node major version
 * @param {string[]} argv Command-line arguments
 * @returns {number} The run's exit code
 */
function underNode(line, argv) {
  const { node } = require('../scripts/runtimes');
  const runtime = node(line);
  const args = [];
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--node') i += 1;
    else if (!argv[i].startsWith('--node=')) args.push(argv[i]);
  }
  process.stderr.write(`bench: running under ${runtime.name} (${path.relative(ROOT, runtime.bin)})\n`);
  const out = spawnSync(runtime.bin, [__filename, ...args], { stdio: 'inherit', cwd: ROOT });
  if (out.error) throw out.error;
  return out.status === null ? 1 : out.status;
}

/**
 * The command line: `--help`, a run, or a one-line error.
 * @param {string[]} argv Command-line arguments
 * @returns {Promise<undefined>}
 */
async function main(argv) {
  let options;
  try {
    options = parseOptions(argv, process.env);
    if (options.update && !options.full) {
      throw new UsageError(`--update renders the README from a full run only; this command line runs ${options.cases.length} ` +
        `of ${CASES.length} cases${options.contenders ? `, ${options.contenders.length} of ${CONTENDERS.length} contenders` : ''}` +
        `${options.alloc ? '' : ', no allocation'} (drop the case names, BENCH_CASES, --contenders and --no-alloc)`);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\n`);
    process.exitCode = USAGE_EXIT;
    return;
  }
  if (options.help) {
    process.stdout.write(helpText({
      lastRun: path.relative(ROOT, LAST_RUN), results: path.relative(ROOT, render.RESULTS),
    }));
    return;
  }
  if (options.node !== null && options.node !== process.versions.node.split('.')[0]) {
    process.exitCode = underNode(options.node, argv);
    return;
  }
  if (!RustWriter.native) {
    process.stderr.write('bench: RustWriter is not using the native addon here (PROTOBUFJS_RUSTWRITER=js, or no addon ' +
      'built: npm run build), so the RustWriter contenders would time the JS-only path twice\n');
    process.exitCode = 1;
    return;
  }
  await run(options);
}

module.exports = { main };

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exitCode = 1;
  });
}
