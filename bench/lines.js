'use strict';

/**
 * `npm run bench:lines [-- [--update] [--lines 20,22,24,26]]`: the per-line summary. For each
 * supported Node line in turn, the latest release of the line (from the npm registry, cached in
 * target/cross/ by scripts/runtimes.js) runs a shorter bench, bench/index.js on the target cases
 * only (bench/targets.js EVERYDAY, which holds protobuf.js's own three) with the contenders the
 * targets compare, without the allocation measurement: ARGS below. From each run it takes the
 * figures the targets are about: the geometric means of RustWriter vs protobufjs 8.8.1 over
 * protobuf.js's own three cases and over the everyday cases, the least of the everyday cases, the
 * same means of RustWriter in protobufjs 7.6.6 vs protobufjs 7.6.6, and of the Writer API path.
 *
 * It also runs two real workloads (bench/real/): the wide Temporal case, with its first encode and
 * memory in fresh processes, and the real vector tile; from them, the wide case's ratios (RustWriter
 * and its Writer-API path vs protobufjs 8.8.1), first result and peak RSS, and the real tile's ratio.
 *
 * Prints them, and writes them to target/bench/lines.json (each line's full results beside it, in
 * target/bench/lines/). With `--update`, and only for all four lines, also to
 * bench/results/lines.json, rendered into docs/benchmark.md (bench/render.js). Takes
 * about 3.7 minutes a line on 2 idle cores for the everyday cases, and about 2 more for the real ones.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { node } = require('../scripts/runtimes');
const { CONTENDERS } = require('./cases');
const {
  geometricMean, ratioRange, targetRow, OWN_THREE, EVERYDAY, GEOMEAN_VS_8, EVERYDAY_VS_8, LEAST_VS_8, GEOMEAN_VS_7,
  REAL_VS_8, REAL_VS_API, FIRST_RESULT_WIDE, PEAK_RSS_MB,
} = require('./targets');
const { TARGET_ROUNDS } = require('./suite');
const format = require('./format');
const render = require('./render');

const ROOT = path.join(__dirname, '..');
/** The Node lines of `engines`, oldest first. */
const LINES = ['20', '22', '24', '26'];
/** The contenders the targets compare: RustWriter and protobufjs in 8.8.1 and 7.6.6, and the Writer API path. */
const LINE_CONTENDERS = ['pbjs8', 'pbjs7', 'rust', 'rust7', 'rust-api'];
/**
 * The real workloads of the per-line summary: the wide case (Temporal's schema, plain objects),
 * steady and with its first encode and memory in fresh processes, and the real vector tile, steady
 * only (its first encode adds ~1 minute a line; the full run measures it), as it runs and with both
 * contenders under glibc's raised trim threshold (`tile-real-trim`, the figure its target is on).
 */
const WIDE = 'temporal';
const REAL_TILE = 'tile-real';
const REAL_TILE_TRIM = 'tile-real-trim';
const REAL = [WIDE, REAL_TILE, REAL_TILE_TRIM];
/** bench/index.js's command line for one line. */
const ARGS = ['--no-alloc', '--contenders', LINE_CONTENDERS.join(','), '--cold', WIDE, ...EVERYDAY, ...REAL];
/** Where bench/index.js leaves each run's results, and where this script keeps them. */
const LAST_RUN = path.join(ROOT, 'target', 'bench', 'last-run.json');
const OUT_DIR = path.join(ROOT, 'target', 'bench', 'lines');
const OUT = path.join(ROOT, 'target', 'bench', 'lines.json');
/** A timing whose relative margin of error (%) exceeds this counts as noisy (as in bench/index.js). */
const NOISY_RME = 10;

/**
 * A geometric mean of `of` over `over` across cases, with its range and its status against `threshold`.
 * @param {object[]} cases Case records, each timed with both
 * @param {string} of Contender key of the numerator
 * @param {string} over Contender key of the denominator
 * @param {number|null} threshold Target (null: none)
 * @returns {{value: number, range: number[], status: string|null}} Figure
 */
function geomean(cases, of, over, threshold) {
  const value = geometricMean(cases.map((c) => c.contenders[of].hz / c.contenders[over].hz));
  const ranges = cases.map((c) => ratioRange(c.contenders[of], c.contenders[over]));
  const range = [geometricMean(ranges.map((r) => r[0])), geometricMean(ranges.map((r) => r[1]))];
  return { value, range, status: threshold === null ? null : targetRow({ threshold, value, range }).status };
}

/**
 * The summary of one line's run.
 * @param {string} line Node major version
 * @param {object} run Its bench/index.js results
 * @returns {object} Entry of lines.json
 */
function summarize(line, run) {
  const byId = new Map(run.cases.map((c) => [c.id, c]));
  const failed = EVERYDAY.filter((id) => !byId.has(id) || byId.get(id).error);
  if (failed.length) throw new Error(`Node ${run.node}: ${failed.join(', ')} not timed (bytes differ, or the run failed)`);
  const pick = (ids) => ids.map((id) => byId.get(id));
  const least = pick(EVERYDAY).map((c) => {
    const { rust, pbjs8 } = c.contenders;
    const value = rust.hz / pbjs8.hz;
    const range = ratioRange(rust, pbjs8);
    return { id: c.id, value, range, status: targetRow({ threshold: LEAST_VS_8, value, range }).status };
  }).reduce((a, b) => (b.value < a.value ? b : a));
  const timings = run.cases.flatMap((c) => (c.error ? [] : Object.values(c.contenders)));
  return {
    line,
    node: run.node,
    loadAverageAtStart: run.machine.loadAverageAtStart,
    runtimeSeconds: run.runtimeSeconds,
    timings: timings.length,
    noisyTimings: timings.filter((t) => t.rme > NOISY_RME).length,
    cases: Object.fromEntries(pick(EVERYDAY).map((c) => [c.id, {
      rust8: c.contenders.rust.hz / c.contenders.pbjs8.hz,
      rust7: c.contenders.rust7.hz / c.contenders.pbjs7.hz,
      api8: c.contenders['rust-api'].hz / c.contenders.pbjs8.hz,
    }])),
    summary: {
      own8: geomean(pick(OWN_THREE), 'rust', 'pbjs8', GEOMEAN_VS_8),
      everyday8: geomean(pick(EVERYDAY), 'rust', 'pbjs8', EVERYDAY_VS_8),
      least8: least,
      own7: geomean(pick(OWN_THREE), 'rust7', 'pbjs7', GEOMEAN_VS_7),
      everyday7: geomean(pick(EVERYDAY), 'rust7', 'pbjs7', GEOMEAN_VS_7),
      api8: geomean(pick(EVERYDAY), 'rust-api', 'pbjs8', null),
    },
    real: realSummary(byId),
  };
}

/**
 * The real workloads' figures of one line's run: the wide case's steady ratios, first result and peak
 * RSS against protobufjs 8.8.1, and the real tile's ratio, each with its status against its target
 * (null where the run has not measured it).
 * @param {Map<string, object>} byId Case records by id
 * @returns {{wide: object|null, tile: object|null, tileTrim: object|null}} Figures
 */
function realSummary(byId) {
  const steady = (c, of, threshold) => {
    const [a, b] = [c.contenders[of], c.contenders.pbjs8];
    const value = a.hz / b.hz;
    const range = ratioRange(a, b);
    const status = threshold === null ? null : targetRow({ threshold, value, range }).status;
    return { value, best: a.best / b.best, range, status };
  };
  const coldFigure = (f, threshold) => ({
    median: f.median, best: f.best,
    status: targetRow({
      threshold, atMost: true, value: f.median, range: [Math.min(f.median, f.best), Math.max(f.median, f.best)],
    }).status,
  });
  const timed = (id) => (byId.has(id) && !byId.get(id).error ? byId.get(id) : null);
  const wide = timed(WIDE);
  const tile = timed(REAL_TILE);
  const trimmed = timed(REAL_TILE_TRIM);
  const cold = wide && wide.cold && !wide.cold.error && wide.cold.ratios.rust;
  // The wide case against its Writer-API path: that path's ratio to protobufjs 8.8.1 times the target over it.
  const vsApi = (c) => {
    const [a, b] = [c.contenders.rust, c.contenders['rust-api']];
    const value = a.hz / b.hz;
    const range = ratioRange(a, b);
    const { status } = targetRow({ threshold: REAL_VS_API[WIDE], value, range });
    return { value, best: a.best / b.best, range, status };
  };
  return {
    wide: wide && {
      id: WIDE,
      rust8: steady(wide, 'rust', REAL_VS_8[WIDE]),
      api8: steady(wide, 'rust-api', null),
      rustApi: vsApi(wide),
      firstResult: cold ? coldFigure(cold.firstResult, FIRST_RESULT_WIDE) : null,
      firstEncode: cold ? { median: cold.firstEncode.median, best: cold.firstEncode.best } : null,
      rssPeakMB: cold ? coldFigure(cold.rssPeakMB, PEAK_RSS_MB) : null,
    },
    tile: tile && { id: REAL_TILE, rust8: steady(tile, 'rust', null) },
    tileTrim: trimmed && { id: REAL_TILE_TRIM, rust8: steady(trimmed, 'rust', REAL_VS_8[REAL_TILE_TRIM]) },
  };
}

/**
 * Runs the bench of one line and summarizes it.
 * @param {string} line Node major version
 * @returns {object} Entry of lines.json, and `run`, the full results
 */
function runLine(line) {
  const runtime = node(line);
  process.stderr.write(`\nbench:lines: ${runtime.name}: node bench/index.js ${ARGS.join(' ')}\n`);
  fs.rmSync(LAST_RUN, { force: true });
  const out = spawnSync(runtime.bin, [path.join(__dirname, 'index.js'), ...ARGS], { stdio: 'inherit', cwd: ROOT });
  if (out.error) throw out.error;
  if (out.status !== 0 || !fs.existsSync(LAST_RUN)) throw new Error(`the bench under ${runtime.name} exited with ${out.status}`);
  const run = JSON.parse(fs.readFileSync(LAST_RUN, 'utf8'));
  if (run.node !== `v${runtime.version}`) throw new Error(`the bench ran under Node ${run.node}, not ${runtime.version}`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.copyFileSync(LAST_RUN, path.join(OUT_DIR, `node${line}.json`));
  return { ...summarize(line, run), run };
}

/**
 * The summary as console text.
 * @param {object[]} lines Entries of lines.json
 * @returns {string} Text
 */
function summaryText(lines) {
  const mark = (g) => `${format.ratio(g.value)}${g.status === null ? '' : g.status === 'met' ? ' met' : g.status === 'noise'
    ? ' missed within noise' : ' missed'}`;
  const rows = lines.map((l) => `  Node ${l.node.replace(/^v/, '').padEnd(8)} vs protobufjs 8.8.1: own three ${mark(l.summary.own8)}, ` +
    `everyday ${mark(l.summary.everyday8)}, least ${mark(l.summary.least8)} (${l.summary.least8.id}); in 7.6.6 vs 7.6.6: own three ` +
    `${mark(l.summary.own7)}, everyday ${mark(l.summary.everyday7)}; Writer API path vs 8.8.1: ${mark(l.summary.api8)}\n`);
  const real = lines.map((l) => `  Node ${l.node.replace(/^v/, '').padEnd(8)} ${realText(l.real)}\n`);
  return `\nPer Node line (geometric means over ${OWN_THREE.join(', ')} and over ${EVERYDAY.join(', ')}; targets ` +
    `${format.ratio(GEOMEAN_VS_8)} and ${format.ratio(EVERYDAY_VS_8)}, none below ${format.ratio(LEAST_VS_8)}; ` +
    `${format.ratio(GEOMEAN_VS_7)} in 7.6.6):\n${rows.join('')}` +
    `\nReal workloads per Node line (vs protobufjs 8.8.1; fastest rounds and best processes in brackets; targets: wide case ` +
    `${format.ratio(REAL_VS_8[WIDE])}, ${format.ratio(REAL_VS_API[WIDE])} its Writer-API path, first result at most ` +
    `${format.ratio(FIRST_RESULT_WIDE)}, peak RSS at most +${PEAK_RSS_MB} MB; real tile with glibc's trim threshold raised ` +
    `${format.ratio(REAL_VS_8[REAL_TILE_TRIM])}):\n${real.join('')}`;
}

/**
 * One line's real-workload figures as console text.
 * @param {{wide: object|null, tile: object|null, tileTrim: object|null}} real Result of realSummary
 * @returns {string} Text
 */
function realText({ wide, tile, tileTrim }) {
  const verdict = (status) => (status === null ? '' : status === 'met' ? ' met' : status === 'noise' ? ' missed within noise' : ' missed');
  const steady = (f) => `${format.ratio(f.value)} [${format.ratio(f.best)}]${verdict(f.status)}`;
  const parts = [];
  if (wide) {
    parts.push(`${wide.id} ${steady(wide.rust8)}, Writer API ${steady(wide.api8)}, over it ${steady(wide.rustApi)}`);
    if (wide.firstResult) {
      parts.push(`first result ${format.ratio(wide.firstResult.median)} [${format.ratio(wide.firstResult.best)}]${verdict(wide.firstResult.status)} ` +
        `(first encode call ${format.ratio(wide.firstEncode.median)}), peak RSS ${wide.rssPeakMB.median >= 0 ? '+' : ''}` +
        `${wide.rssPeakMB.median.toFixed(1)} MB${verdict(wide.rssPeakMB.status)}`);
    }
  }
  if (tile) parts.push(`${tile.id} ${steady(tile.rust8)}`);
  if (tileTrim) parts.push(`${tileTrim.id} ${steady(tileTrim.rust8)}`);
  return parts.length ? parts.join('; ') : 'not measured';
}

/**
 * The command line.
 * @param {string[]} argv Arguments
 * @returns {number} Exit code
 */
function main(argv) {
  let update = false;
  let lines = LINES;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--update') update = true;
    else if (argv[i] === '--lines' && i + 1 < argv.length) lines = argv[++i].split(',').filter(Boolean);
    else if (argv[i] === '--help' || argv[i] === '-h') {
      process.stdout.write('Usage: npm run bench:lines [-- [--update] [--lines 20,22,24,26]]\n\nFor each Node line, ' +
        `its latest release runs node bench/index.js ${ARGS.join(' ')}; the summary goes to\n` +
        `${path.relative(ROOT, OUT)}, and with --update (all four lines only) to bench/results/lines.json and\n` +
        'docs/benchmark.md.\n');
      return 0;
    } else if (argv[i] !== '--') {
      process.stderr.write(`bench:lines: unknown argument ${argv[i]} (see --help)\n`);
      return 2;
    }
  }
  const unknown = lines.filter((line) => !LINES.includes(line));
  if (unknown.length) {
    process.stderr.write(`bench:lines: unknown line ${unknown.join(', ')} (lines: ${LINES.join(', ')})\n`);
    return 2;
  }
  if (update && lines.length !== LINES.length) {
    process.stderr.write(`bench:lines: --update renders every line (${LINES.join(', ')}); drop --lines\n`);
    return 2;
  }
  const started = Date.now();
  const done = lines.map(runLine);
  const first = done[0].run;
  const names = Object.fromEntries(CONTENDERS.map(({ key, name }) => [key, name]));
  const summary = {
    date: new Date().toISOString(),
    machine: { cpu: first.machine.cpu, cores: first.machine.cores, os: first.machine.os },
    git: first.git,
    args: ARGS,
    rounds: TARGET_ROUNDS, // of its everyday cases (its real ones have bench/suite.js ROUNDS)
    runtimeSeconds: (Date.now() - started) / 1000,
    names: Object.fromEntries(LINE_CONTENDERS.map((key) => [key, names[key]])),
    targets: {
      ownThree: OWN_THREE, everyday: EVERYDAY, geomean8: GEOMEAN_VS_8, everyday8: EVERYDAY_VS_8, least8: LEAST_VS_8,
      geomean7: GEOMEAN_VS_7, wide8: REAL_VS_8[WIDE], wideApi: REAL_VS_API[WIDE], tile8: REAL_VS_8[REAL_TILE_TRIM],
      firstResult: FIRST_RESULT_WIDE, peakRssMB: PEAK_RSS_MB,
    },
    lines: done.map((entry) => Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'run'))),
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(summaryText(summary.lines));
  process.stdout.write(`\n${format.duration(summary.runtimeSeconds)} on ${os.cpus().length} cores; summary in ${path.relative(ROOT, OUT)}\n`);
  if (update) {
    fs.writeFileSync(render.LINES, `${JSON.stringify(summary, null, 2)}\n`);
    render.main({ latest: false, lines: true });
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { main, summarize, realSummary, ARGS, LINES };
