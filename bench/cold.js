'use strict';

/**
 * First encode and memory of a real-workload case, in fresh processes as apps start: what a
 * serverless function, a CLI or a short job pays on every start, and what a long-running worker
 * holds. bench/index.js runs it after timing a case that lists `cold` contenders (bench/cases.js).
 *
 * The contenders are what an app runs, each a plain `node` process (bench/cold-child.js) under
 * Node's default flags, started from the repository's root:
 * - `pbjs8`, `pbjs7`: protobufjs 8.8.1 or 7.6.6 alone;
 * - `rust`, `rust7`: the same with the preload, `node -r protobufjs-rustwriter/register` (the package
 *   resolves itself from the repository's root), compiled encoders, as users run it; the preload
 *   recognises the `protobufjs7` alias by its package.json and installs into it too (checked in
 *   every child, below);
 * - `rust-api`: the preload with `PROTOBUFJS_RUSTWRITER_COMPILED=0`, the Writer-API path.
 * Each child requires protobufjs, loads the schema, reads the data file this module wrote to
 * target/bench/cold/<case>/ (the same work for every contender, timed apart), makes the input as an
 * app holds it (`T.decode` of bytes, `T.fromObject`, or the plain objects as parsed), then encodes
 * (a `grpc` case: requires @grpc/proto-loader, which brings its protobufjs, loads the schema with its
 * `fromJSON` and google-gax's options, and serializes the plain request with the method's
 * `requestSerialize`):
 * the time from the process's start to that first result, the first encode call alone, RSS right
 * after it, after STEADY_MS of encodes, and its peak (`maxRSS`). The first result is the figure
 * compared: it counts everything an app pays before it, the preload and protobufjs's `Type#setup`
 * included, which runs on a Type's first decode as well as its first encode (on decoded cases some
 * of the start-up falls in the decode); a Type is compiled only at its 16th encode (lib/encoders/
 * compile.js, "Tiers"), and the steady encodes after it are where the compiling happens. Its first result must hash to
 * protobufjs 8.8.1's bytes (made here by the main copy, as bench/cases.js makes the reference), and
 * its status must show the writer and encoders the contender stands for; a child that fails either
 * fails the case, as differing bytes do.
 *
 * Contenders alternate over ROUNDS rounds, the order rotating each round. This machine's noise
 * comes in bursts of 10–20 s that slow every process alike (seven runs of one contender took 6.4–6.9
 * or 10.7–12.5 ms, nothing between: ../shared/reference/performance-facts.md, section 7), so both
 * each contender's median and its best are reported, and every ratio and delta from both.
 */

const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { CONTENDERS, dataOf, protoFileOf } = require('./cases');

const ROOT = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'cold-child.js');
/** Where each case's spec, schema and data files go (under cargo's target/, which git ignores). */
const OUT_DIR = path.join(ROOT, 'target', 'bench', 'cold');
/** Rounds per case: each round starts every contender once. */
const ROUNDS = 10;
/** Encodes after the first, to read RSS as a process that keeps encoding holds it (ms of wall time). */
const STEADY_MS = 1000;
/** A child that has not reported by then is stuck. */
const CHILD_TIMEOUT_MS = 120000;
/** What each cold contender runs: its package, and the preload and environment it starts with. */
const COLD_CONTENDERS = {
  pbjs8: { pkg: 'protobufjs', preload: false },
  rust: { pkg: 'protobufjs', preload: true, compiled: true },
  'rust-api': { pkg: 'protobufjs', preload: true, compiled: false, env: { PROTOBUFJS_RUSTWRITER_COMPILED: '0' } },
  pbjs7: { pkg: 'protobufjs7', preload: false },
  rust7: { pkg: 'protobufjs7', preload: true, compiled: true },
};
/** Each contender's reference: protobufjs of the same major as it runs on, alone. */
const OWN = { rust: 'pbjs8', 'rust-api': 'pbjs8', rust7: 'pbjs7' };
/** The preload, as users name it. */
const PRELOAD = ['-r', 'protobufjs-rustwriter/register'];
/** Figures of a run: durations (ms) from the child's marks, and RSS (bytes). */
const FIGURES = {
  startup: (r) => r.marks.started,
  library: (r) => r.marks.library - r.marks.started,
  schema: (r) => r.marks.schema - r.marks.library,
  data: (r) => r.marks.data - r.marks.schema,
  input: (r) => r.marks.input - r.marks.data,
  firstEncode: (r) => r.marks.first - r.marks.input,
  firstResult: (r) => r.marks.first,
  rssFirst: (r) => r.rssFirst,
  rssSteady: (r) => r.rssSteady,
  rssPeak: (r) => r.rssPeak,
};
const MB = 2 ** 20;

/**
 * A plain input as JSON, `bytes` as markers bench/cold-child.js revives (Buffers stay Buffers).
 * @param {*} value Input
 * @returns {*} JSON-able value
 */
function jsonable(value) {
  if (Buffer.isBuffer(value)) return { $buffer: value.toString('base64') };
  if (value instanceof Uint8Array) return { $u8: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (Array.isArray(value)) return value.map(jsonable);
  if (value !== null && typeof value === 'object') {
    if (typeof value.toJSON === 'function') throw new Error(`cold: cannot write a ${value.constructor.name} as plain data`);
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, jsonable(v)]));
  }
  if (typeof value === 'bigint') throw new Error('cold: cannot write a BigInt as plain data');
  return value;
}

/**
 * Writes a case's spec, schema and data files, and computes the reference bytes.
 * @param {object} c Case of bench/cases.js (with `cold`)
 * @returns {{dir: string, bytes: number, sha256: string, spec: object}} Where they are, and the reference
 */
function prepare(c) {
  const dir = path.join(OUT_DIR, c.id);
  fs.mkdirSync(dir, { recursive: true });
  const { input, encoded, type } = dataOf(c);
  let schema;
  if (c.schema) {
    schema = { json: path.join(dir, 'schema.json') };
    fs.writeFileSync(schema.json, JSON.stringify(c.schema()));
  } else {
    schema = { proto: protoFileOf(c) };
  }
  const kind = encoded ? 'decoded' : c.fromObject ? 'fromObject' : 'plain';
  const file = path.join(dir, kind === 'decoded' ? 'data.bin' : 'data.json');
  fs.writeFileSync(file, encoded ? encoded : JSON.stringify(jsonable(input)));
  // A `grpc` case's input is the plain request its method's serializer takes (fromObject, then encode).
  const message = encoded ? type.decode(encoded) : c.fromObject || c.grpc ? type.fromObject(input) : input;
  const reference = type.encode(message).finish();
  const spec = {
    root: ROOT, type: c.type, schema, data: { kind, file }, steadyMs: STEADY_MS, ...(c.grpc && { grpc: c.grpc }),
  };
  return { dir, bytes: reference.length, sha256: crypto.createHash('sha256').update(reference).digest('hex'), spec };
}

/**
 * The environment of a child: this one's, less the package's own variables, plus the contender's.
 * @param {object} contender Entry of COLD_CONTENDERS
 * @returns {Object<string, string>} Environment
 */
function envOf(contender) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PROTOBUFJS_RUSTWRITER')));
  return { ...env, ...contender.env };
}

/**
 * What is wrong with what a child reports it ran, for a contender, or null.
 * @param {string} key Contender key
 * @param {object} report The child's report
 * @param {string} version protobufjs version the contender loads
 * @param {boolean} grpc Whether the case is a `grpc` one (its preload contenders must have compiled serializers)
 * @returns {string|null} Problem
 */
function checkRan(key, report, version, grpc) {
  const contender = COLD_CONTENDERS[key];
  const { ran, writer } = report;
  if (!contender.preload) {
    return ran.packageLoaded || writer === 'RustWriter' ? `protobufjs alone loaded this package (writer ${writer})` : null;
  }
  const copy = ran.copies.find((x) => x.version === version);
  if (!ran.preload || !ran.native) return `the preload ran ${ran.preload ? 'without the native addon' : 'not at all'}`;
  if (!copy || !copy.installed || writer !== 'RustWriter') return `the preload did not install into protobufjs ${version} (writer ${writer})`;
  if (copy.compiled !== contender.compiled) return `protobufjs ${version} has compiled encoders ${copy.compiled ? 'on' : 'off'}`;
  if (grpc && contender.compiled && !(copy.serializersCompiled > 0)) return `protobufjs ${version} compiled no serializer`;
  return null;
}

/**
 * Runs one child.
 * @param {string} key Contender key
 * @param {string} specFile Its spec file
 * @returns {object} The child's report
 */
function runChild(key, specFile) {
  const contender = COLD_CONTENDERS[key];
  const args = [...(contender.preload ? PRELOAD : []), CHILD, specFile];
  const out = spawnSync(process.execPath, args, {
    cwd: ROOT, env: envOf(contender), encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, maxBuffer: 1 << 20,
  });
  if (out.error) throw out.error;
  if (out.status !== 0) throw new Error(`${key}'s process exited ${out.status ?? out.signal}: ${out.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(out.stdout);
}

/**
 * Median and least of a list.
 * @param {number[]} values Values
 * @returns {{median: number, best: number}} Median and least (the best, for times and memory)
 */
function stats(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  return { median: sorted[sorted.length >> 1], best: sorted[0] };
}

/**
 * Per contender, each figure's median and best over its runs.
 * @param {object[]} runs Reports of one contender
 * @returns {Object<string, {median: number, best: number}>} By figure
 */
function summarize(runs) {
  return Object.fromEntries(Object.entries(FIGURES).map(([name, of]) => [name, stats(runs.map(of))]));
}

/**
 * Each contender's figures against its own protobufjs's: ratios of times and deltas of times (ms)
 * and RSS (MB), from the medians and from the bests.
 * @param {Object<string, object>} figures Summaries by contender key
 * @returns {Object<string, object>} By contender key: `over` (the reference's key), and per figure
 *   `{median, best}` (ratios for times, `firstResultDelta` in ms, RSS deltas in MB)
 */
function compare(figures) {
  const out = {};
  for (const [key, over] of Object.entries(OWN)) {
    if (!figures[key] || !figures[over]) continue;
    const [a, b] = [figures[key], figures[over]];
    const both = (f) => ({ median: f(a, b, 'median'), best: f(a, b, 'best') });
    out[key] = {
      over,
      firstResult: both((x, y, s) => x.firstResult[s] / y.firstResult[s]),
      firstResultDeltaMs: both((x, y, s) => x.firstResult[s] - y.firstResult[s]),
      firstEncode: both((x, y, s) => x.firstEncode[s] / y.firstEncode[s]),
      startupDeltaMs: both((x, y, s) => x.startup[s] - y.startup[s]),
      rssFirstMB: both((x, y, s) => (x.rssFirst[s] - y.rssFirst[s]) / MB),
      rssSteadyMB: both((x, y, s) => (x.rssSteady[s] - y.rssSteady[s]) / MB),
      rssPeakMB: both((x, y, s) => (x.rssPeak[s] - y.rssPeak[s]) / MB),
    };
  }
  return out;
}

/**
 * Measures a case's first encode and memory for its cold contenders.
 * @param {object} c Case of bench/cases.js (with `cold`)
 * @param {{rounds?: number, keys?: string[]|null}} [options] Rounds, and only these contenders
 * @returns {object} Cold record: rounds, steady period, reference, per contender its name, runs and
 *   figures, comparisons; or with `error` if a child's bytes or set-up were wrong
 */
function measureCold(c, { rounds = ROUNDS, keys = null } = {}) {
  const contenders = c.cold.filter((key) => !keys || keys.includes(key) || Object.values(OWN).includes(key));
  const prepared = prepare(c);
  const specs = {};
  for (const key of contenders) {
    specs[key] = path.join(prepared.dir, `spec-${key}.json`);
    fs.writeFileSync(specs[key], JSON.stringify({ ...prepared.spec, pkg: COLD_CONTENDERS[key].pkg }));
  }
  const versions = { protobufjs: require('protobufjs/package.json').version, protobufjs7: require('protobufjs7/package.json').version };
  const runs = Object.fromEntries(contenders.map((key) => [key, []]));
  const record = { rounds, steadyMs: STEADY_MS, bytes: prepared.bytes, contenders: {}, ratios: {} };
  for (let round = 0; round < rounds; ++round) {
    for (let i = 0; i < contenders.length; ++i) {
      const key = contenders[(round + i) % contenders.length];
      const report = runChild(key, specs[key]);
      if (report.sha256 !== prepared.sha256) {
        return { ...record, error: `${key}'s first result differs from protobufjs 8.8.1's (${report.bytes} bytes, reference ${prepared.bytes})` };
      }
      const problem = checkRan(key, report, versions[COLD_CONTENDERS[key].pkg], Boolean(c.grpc));
      if (problem) return { ...record, error: `${key}: ${problem}` };
      runs[key].push(report);
    }
  }
  const names = Object.fromEntries(CONTENDERS.map(({ key, name }) => [key, name]));
  const figures = Object.fromEntries(contenders.map((key) => [key, summarize(runs[key])]));
  for (const key of contenders) {
    record.contenders[key] = {
      name: `${names[key]}${COLD_CONTENDERS[key].preload ? ', preload' : ''}`, runs: runs[key].length, figures: figures[key],
    };
  }
  record.ratios = compare(figures);
  return record;
}

/**
 * A time in ms, to a tenth below 10 ms.
 * @param {number} ms Milliseconds
 * @returns {string} Text
 */
function ms(ms) {
  return Math.abs(ms) < 10 ? ms.toFixed(1) : String(Math.round(ms));
}

/**
 * A signed difference, as "+12" or "−3.5".
 * @param {number} value Difference
 * @param {function(number): string} show Formats the magnitude
 * @returns {string} Text
 */
function signed(value, show) {
  return `${value < 0 ? '−' : '+'}${show(Math.abs(value))}`;
}

/**
 * Console text of a case's cold record: per contender its median figures with bests in brackets,
 * then each RustWriter contender against its own protobufjs.
 * @param {object} cold Result of measureCold
 * @param {number} width Width of the name column
 * @returns {string} Text
 */
function coldText(cold, width) {
  if (cold.error) return `  FIRST ENCODE: ${cold.error}\n`;
  const mb = (bytes) => (bytes / MB).toFixed(1);
  const both = (f, show) => `${show(f.median)} [${show(f.best)}]`;
  const lines = Object.values(cold.contenders).map(({ name, figures: f }) => `    ${name.padEnd(width)} start → first result ` +
    `${both(f.firstResult, ms)} ms (first encode ${both(f.firstEncode, ms)} ms; before it: start-up ${ms(f.startup.median)}, ` +
    `protobufjs ${ms(f.library.median)}, schema ${ms(f.schema.median)}, data file ${ms(f.data.median)}, input ${ms(f.input.median)}); ` +
    `RSS MB after it ${both(f.rssFirst, mb)}, after ${cold.steadyMs / 1000} s ${both(f.rssSteady, mb)}, peak ${both(f.rssPeak, mb)}\n`);
  const ratio = (f) => `${f.median.toFixed(2)}x [${f.best.toFixed(2)}x]`;
  const delta = (f, show) => `${signed(f.median, show)} [${signed(f.best, show)}]`;
  const ratios = Object.entries(cold.ratios).map(([key, r]) => `  ${cold.contenders[key].name} vs ` +
    `${cold.contenders[r.over].name}: start → first result ${ratio(r.firstResult)}, ${delta(r.firstResultDeltaMs, ms)} ms; ` +
    `first encode call ${ratio(r.firstEncode)}; start-up ${delta(r.startupDeltaMs, ms)} ms; RSS MB after the first encode ` +
    `${delta(r.rssFirstMB, (x) => x.toFixed(1))}, after ${cold.steadyMs / 1000} s ${delta(r.rssSteadyMB, (x) => x.toFixed(1))}, ` +
    `peak ${delta(r.rssPeakMB, (x) => x.toFixed(1))}\n`);
  return `  First encode and memory, fresh processes (${cold.rounds} rounds; medians [bests]):\n${lines.join('')}${ratios.join('')}`;
}

module.exports = { measureCold, coldText, ROUNDS, STEADY_MS, COLD_CONTENDERS, OWN, jsonable };
