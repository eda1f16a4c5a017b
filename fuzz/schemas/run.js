'use strict';

/**
 * `npm run fuzz:schemas`: a differential fuzzer over generated schemas and messages. Each case
 * (case.js, from its seed) is a random schema (schema.js: proto2, proto3 or edition 2023, parsed
 * from `.proto` text or built with the reflection API) and random messages for it (message.js:
 * every JS form protobufjs's generated encoder accepts, getters and Proxies that log their reads);
 * check.js encodes each message as an app does after `install()` (with the encoders it compiles
 * per Type, or with `PROTOBUFJS_RUSTWRITER_COMPILED=0` protobufjs's own writing through
 * RustWriter) and with protobufjs's own generated encoder and writer, and compares bytes, error
 * classes and the logs of reads.
 *
 *   npm run fuzz:schemas                         150 cases (about 1,100 messages) per version and path
 *   npm run fuzz:schemas -- --long               12,500 cases per version and path: 100,000 cases
 *   npm run fuzz:schemas -- --count N --seed S --versions 7,8 --paths native,js --jobs J
 *   npm run fuzz:schemas -- --long --minutes M   start no batch after M minutes (the report says so)
 *   npm run fuzz:schemas -- --no-rules           the reference without the rules it learned
 *
 * Versions: protobufjs 8.8.1 (`protobufjs`) and 7.6.6 (`protobufjs7`). The reference is a copy of
 * the same version that the package never touched (test/reference.js): its own generated encoders
 * writing into its own writer, 7.6.6's included. Where that writer differs from RustWriter by design
 * (README "Compatibility": RustWriter behaves as protobufjs 8's writer does), the reference has
 * learned it as a named rule (test/reference.js `RULES`: for 7.6.6, that it converts `float`/`double`
 * values and reads `bytes` at `finish()`, counts `len` from the innermost fork, and throws for a
 * non-string given to `string()`). `--no-rules` runs the reference without them, to show what each
 * stands for.
 * Paths (fuzz/paths.js): the addon and the JS-only path (`PROTOBUFJS_RUSTWRITER=js`), each with
 * the shipped thresholds and with every packed field and `bytes` value through entries.
 *
 * Cases run in batches in child processes (batch.js), `--jobs` at a time (2), so a crash or a hang
 * (no output for `--stall` seconds, 120) is caught; a batch reports each case done, so the case
 * is the next one, which is then run alone. A failure that is a known bug (known-bugs.js) is
 * counted by its id. Each new kind of failure (version, kind, form) is run again alone in a fresh
 * process, shrunk (shrink.js), checked again in a fresh process and printed as a runnable script
 * (render.js), also written to `target/fuzz-schemas/`. The exit code is 0 only if nothing failed.
 */

const fs = require('fs');
const path = require('path');
const { runBatch, withJsonFile, runTasks } = require('../batches');
const { PATHS, PATH_NAMES } = require('../paths');
const { render } = require('./render');
const { KNOWN_BUGS } = require('./known-bugs');

const BATCH = path.join(__dirname, 'batch.js');
const OUT = path.join(__dirname, '..', '..', 'target', 'fuzz-schemas');
const VERSIONS = ['8', '7'];
/** Cases per version and path of a plain run (and of `npm test`'s short run, test/fuzz-schemas.test.js). */
const COUNT = 150;

/**
 * Runs one batch process of batch.js on a version and path to its end (fuzz/batches.js).
 * @param {{version: string, path: string}} where Version and path
 * @param {string[]} argv Its arguments
 * @param {{stall: number, rules?: boolean, onLine?: function(object): undefined}} options As
 * {@link runBatch}'s, and whether the reference has its rules
 * @returns {Promise<object>} See {@link runBatch}
 */
function child(where, argv, options) {
  const extra = options.rules === false ? ['--no-rules'] : [];
  return runBatch(BATCH, ['--version', where.version, '--path', where.path, ...extra, ...argv], PATHS[where.path].env, options);
}

/**
 * Runs a child with `value` in a temporary JSON file, passed after `flag`.
 * @param {{version: string, path: string}} where Version and path
 * @param {string} flag `--replay` or `--shrink`
 * @param {*} value Value
 * @param {string[]} more More arguments
 * @param {object} options See {@link child}
 * @returns {Promise<object>} See {@link runBatch}
 */
function childWith(where, flag, value, more, options) {
  return withJsonFile('fuzz-schemas', value, (file) => child(where, [flag, file, ...more], options));
}

/**
 * Runs the fuzzer.
 * @param {object} o Options: `versions` (`7`, `8`), `paths` (names), `count` (cases per version and
 * path), `seed` (the first), `jobs`, `batch` (cases per child), `stall` (seconds), `shrink`,
 * `shrinkSeconds`, `rules` (false: the reference without its rules), `fault`/`faultSeed`
 * (self-tests, passed to each batch), `minutes` (start no batch after), `log` (progress lines),
 * `write` (whether to write repro scripts to target/fuzz-schemas)
 * @returns {Promise<object>} Report: `runs` (per `version path`: cases, messages, comparisons,
 * threw, bytes, ms, cpuMs, maxRSS, nativeCalls (of RustWriter's addon: its subject's long packed
 * fields), `compiled` (whether the subject's Types had compiled encoders), `compileWarning` (a
 * Type whose encoder did not compile keeps protobufjs's), `clean` (the first cases of each batch that passed with
 * non-empty bytes), `reads` (those whose messages read top-level fields through user code), `longestSilence`
 * (ms: the longest time a batch that ended went without output, which a `stall` must stay well above)),
 * `failing` (how many cases failed), `fresh` (failures grouped by version, kind and form, each with
 * the first one's shrunk repro), `known` (per known bug of known-bugs.js: count, seeds, versions,
 * paths), `unstarted` (cases left when `minutes` were up), `ms`
 */
async function fuzz(o) {
  const options = {
    versions: VERSIONS, paths: PATH_NAMES, count: COUNT, seed: 1, jobs: 2, batch: 500, stall: 120, shrink: true,
    shrinkSeconds: 30, rules: true, log: (line) => process.stderr.write(`${line}\n`), write: true, ...o,
  };
  const runs = {};
  for (const version of options.versions) {
    for (const p of options.paths) {
      runs[`${version} ${p}`] = {
        version, path: p, cases: 0, messages: 0, comparisons: 0, threw: 0, bytes: 0, ms: 0, cpuMs: 0, maxRSS: 0,
        nativeCalls: 0, compiled: null, compileWarning: null, clean: [], reads: [], longestSilence: 0,
      };
    }
  }
  let failing = 0;
  const fresh = new Map();
  const known = {};
  /** Counts a known bug's failure (batch.js classifies them). */
  const addKnown = (m) => {
    failing++;
    const bug = KNOWN_BUGS.find((b) => b.bug === m.bug);
    const k = known[m.bug] || (known[m.bug] = { title: bug ? bug.title : '?', count: 0, seeds: [], versions: {}, paths: {} });
    k.count++;
    k.versions[m.version] = (k.versions[m.version] || 0) + 1;
    k.paths[m.path] = (k.paths[m.path] || 0) + 1;
    if (k.seeds.length < 5) k.seeds.push(`${m.version}:${m.path}:${m.seed} (${m.kind} in ${m.form})`);
  };
  /** Records a failure, grouped by version, kind and form. */
  const addFailure = (f) => {
    failing++;
    const key = `${f.version} ${f.kind} ${f.form}`;
    if (!fresh.has(key)) {
      fresh.set(key, { version: f.version, kind: f.kind, form: f.form, count: 0, seeds: [], first: f, paths: {} });
      options.log(`fuzz:schemas: new failure, protobufjs ${f.version} ${f.kind} in ${f.form} at ${f.path}:${f.seed} (the report at the end shrinks it)`);
    }
    const g = fresh.get(key);
    g.count++;
    g.paths[f.path] = (g.paths[f.path] || 0) + 1;
    if (g.seeds.length < 5) g.seeds.push(`${f.version}:${f.path}:${f.seed}`);
  };
  // Batches alternate between versions and paths, so that a run stopped by `minutes` has run each alike.
  const tasks = [];
  for (let s = 0; s < options.count; s += options.batch) {
    for (const r of Object.values(runs)) {
      const count = Math.min(options.batch, options.count - s);
      tasks.push({ version: r.version, path: r.path, seed: options.seed + s, count });
    }
  }
  const deadline = options.minutes === undefined ? Infinity : Date.now() + options.minutes * 60000;
  const started = Date.now();
  let lastLog = 0;
  const progress = () => {
    if (Date.now() - lastLog < 10000) return;
    lastLog = Date.now();
    const cases = Object.values(runs).reduce((sum, r) => sum + r.cases, 0);
    const messages = Object.values(runs).reduce((sum, r) => sum + r.messages, 0);
    options.log(`fuzz:schemas ${((Date.now() - started) / 1000).toFixed(0)} s: ${cases} of ${options.count * Object.keys(runs).length} cases, ${messages} messages; ${failing} failing`);
  };
  const extra = [];
  if (options.fault) extra.push('--fault', options.fault);
  if (options.faultSeed !== undefined) extra.push('--fault-seed', String(options.faultSeed));

  /**
   * Runs one batch; on a crash or a hang, finds the case and queues the rest.
   * @param {object} task `version`, `path`, `seed`, `count`
   * @returns {Promise<undefined>} Done
   */
  async function runTask(task) {
    const r = runs[`${task.version} ${task.path}`];
    let done = 0;
    let doneMessages = 0;
    const t0 = Date.now();
    const result = await child(task, ['--seed', String(task.seed), '--count', String(task.count), ...extra], {
      stall: options.stall, rules: options.rules,
      onLine(m) {
        if (m.type === 'failure') addFailure(m.failure);
        if (m.type === 'known') addKnown(m);
        if (m.type === 'progress') {
          r.cases += m.done - done;
          r.messages += m.messages - doneMessages;
          done = m.done;
          doneMessages = m.messages;
          progress();
        }
      },
    });
    r.ms += Date.now() - t0;
    const end = result.messages.find((m) => m.type === 'done');
    if (end) {
      r.longestSilence = Math.max(r.longestSilence, result.longestSilence);
      r.cases += end.count - done;
      r.messages += end.messages - doneMessages;
      r.comparisons += end.comparisons;
      r.threw += end.threw;
      r.bytes += end.bytes;
      r.cpuMs += end.cpuMs;
      r.maxRSS = Math.max(r.maxRSS, end.maxRSS);
      r.nativeCalls += end.nativeCalls;
      r.compiled = end.compiled;
      if (end.compileWarning && !r.compileWarning) r.compileWarning = end.compileWarning;
      r.clean.push(...end.clean);
      r.reads.push(...end.reads);
    } else {
      const culprit = await findCulprit(task, done, result);
      addFailure(culprit);
      r.cases += culprit.seed + 1 - task.seed - done;
      if (culprit.seed + 1 < task.seed + task.count) {
        tasks.push({ ...task, seed: culprit.seed + 1, count: task.seed + task.count - culprit.seed - 1 });
      }
    }
  }

  /**
   * A batch died or hung in the case after the last it reported done: run that case alone.
   * @param {object} task Task
   * @param {number} done Cases it reported done
   * @param {object} first Its result
   * @returns {Promise<object>} A `crash` or `hang` failure
   */
  async function findCulprit(task, done, first) {
    const how = first.hung ? 'hang' : 'crash';
    const describe = (res) => (res.hung ? `no output for ${options.stall} s` : `exit code ${res.code}, signal ${res.signal}`);
    const seed = task.seed + Math.min(done, task.count - 1);
    if (done >= task.count) {
      return {
        kind: how, form: null, seed, version: task.version, path: task.path, at: { message: null, into: null },
        alone: false, message: `the batch process died (${describe(first)}) after its last case`, stderr: first.stderr.slice(-2000),
      };
    }
    const alone = await child(task, ['--seed', String(seed), '--count', '1', ...extra], { stall: options.stall, rules: options.rules });
    const reproduces = !alone.messages.some((m) => m.type === 'done');
    return {
      kind: how, form: null, seed, version: task.version, path: task.path, at: { message: null, into: null },
      message: `the batch process died (${describe(first)}) in case ${seed}` +
        (reproduces ? `; alone it does too (${describe(alone)})` : `; alone it does not: it needs the cases of this batch before it (from seed ${task.seed})`),
      alone: reproduces, stderr: first.stderr.slice(-2000),
    };
  }

  const timeUp = (left) => options.log(`fuzz:schemas: ${options.minutes} minutes are up; ${left} cases not started`);
  const unstarted = await runTasks(tasks, options.jobs, deadline, runTask, timeUp);
  const ms = Date.now() - started;
  for (const g of fresh.values()) await investigate(g, options);
  for (const r of Object.values(runs)) {
    r.clean.sort((a, b) => a - b);
    r.reads.sort((a, b) => a - b);
  }
  return { ms, runs, failing, fresh: [...fresh.values()], known, unstarted };
}

/**
 * Runs a group's first failure again alone in a fresh process, shrinks it there, checks the
 * shrunk case in another fresh process, renders it (and writes it to target/fuzz-schemas/).
 * @param {object} g Group (gets `note`, `shrunk`, `verified`, `script`, `file`)
 * @param {object} options Options
 * @returns {Promise<undefined>} Done
 */
async function investigate(g, options) {
  const f = g.first;
  const where = { version: f.version, path: f.path };
  const opts = { stall: options.stall, rules: options.rules };
  // Self-tests: the fault applies to every case the children run, so that the shrinker has a failure to keep.
  const fault = ['byte', 'read', 'stale'].includes(options.fault) ? ['--fault', options.fault] : [];
  let desc = f.desc;
  let shrunkFailure = f;
  if (f.kind === 'crash' || f.kind === 'hang') {
    const described = await child(where, ['--describe', String(f.seed)], { ...opts, stall: 30 });
    desc = described.messages[0].desc;
  } else {
    const alone = await child(where, ['--seeds', String(f.seed), ...fault, '--fault-seed', String(f.seed)], opts);
    if (!alone.messages.some((m) => m.type === 'failure' && m.failure.kind === f.kind)) {
      g.note = 'it does not fail again alone in a fresh process: it needs the cases of its batch before it';
    }
    if (options.shrink) {
      const r = await childWith(where, '--shrink', f, ['--seconds', String(options.shrinkSeconds), ...fault], { ...opts, stall: options.shrinkSeconds + 60 });
      const m = r.messages.find((x) => x.type === 'shrunk');
      if (m) {
        g.shrunk = m;
        desc = m.desc;
        shrunkFailure = m.failure;
        const again = await childWith(where, '--replay', desc, fault, opts);
        const replayed = again.messages.find((x) => x.type === 'replayed');
        g.verified = Boolean(replayed && replayed.failure && replayed.failure.kind === f.kind);
      } else {
        g.note = `shrinking hung or died (${r.hung ? 'hung' : `exit ${r.code} ${r.signal}`}): unshrunk`;
      }
    }
  }
  g.script = render(desc, {
    version: f.version, path: f.path, env: PATHS[f.path].env, options: PATHS[f.path].options,
    rules: options.rules, kind: f.kind, form: shrunkFailure.form, at: shrunkFailure.at,
    message: shrunkFailure.message, outputs: shrunkFailure.outputs,
  });
  if (options.write) {
    fs.mkdirSync(OUT, { recursive: true });
    g.file = path.join(OUT, `${f.version}-${f.path}-${f.seed}-${f.kind}${f.form ? `-${f.form}` : ''}.js`);
    fs.writeFileSync(g.file, g.script);
  }
}

/**
 * @param {object} report From {@link fuzz}
 * @returns {string} The report as text
 */
function format(report) {
  const lines = [];
  const version = (v) => (v === '8' ? '8.8.1' : '7.6.6');
  for (const r of Object.values(report.runs)) {
    lines.push(`protobufjs ${version(r.version)}, ${r.path}: ${r.cases.toLocaleString('en')} cases, ` +
      `${r.messages.toLocaleString('en')} messages (${r.comparisons.toLocaleString('en')} comparisons, ${r.threw.toLocaleString('en')} of them a thrown error on both sides, ` +
      `${(r.bytes / 2 ** 20).toFixed(1)} MiB compared, ${r.nativeCalls.toLocaleString('en')} native calls) in ${(r.ms / 1000).toFixed(1)} s of child time, ` +
      `${Math.round(r.messages / (r.cpuMs / 1000 || 1)).toLocaleString('en')} messages per CPU second, peak RSS ${(r.maxRSS / 2 ** 20).toFixed(0)} MiB; ` +
      `${r.compiled ? 'compiled encoders' : "protobufjs's generated encoders"} on the subject's side`);
    if (r.compileWarning) lines.push(`  a Type kept protobufjs's encoder: ${r.compileWarning}`);
  }
  lines.push(`${report.failing} failing cases; ${(report.ms / 1000).toFixed(1)} s in all`);
  if (report.unstarted > 0) lines.push(`NOT RUN: ${report.unstarted.toLocaleString('en')} cases (--minutes was up)`);
  for (const [bug, k] of Object.entries(report.known)) {
    lines.push(`KNOWN BUG ${bug} (fuzz/schemas/known-bugs.js: ${k.title}): ${k.count} cases, e.g. ${k.seeds.join(', ')}`);
  }
  for (const g of report.fresh) {
    lines.push('', `FAILURE: protobufjs ${version(g.version)}, ${g.kind}${g.form ? ` in ${g.form}` : ''}: ${g.count} cases, e.g. ${g.seeds.join(' ')}`);
    lines.push(`  ${g.first.message.slice(0, 600)}`);
    if (g.note) lines.push(`  ${g.note}`);
    if (g.first.stderr) lines.push(`  its stderr ends: ${g.first.stderr.trim().slice(-1500).replace(/\n/g, '\n    ')}`);
    if (g.shrunk) {
      const o = g.shrunk.original;
      const s = g.shrunk.size;
      lines.push(`  shrunk from ${o.messages} messages (${o.nodes} values) and ${o.types} types (${o.fields} fields) to ` +
        `${s.messages} (${s.nodes}) and ${s.types} (${s.fields}) in ${g.shrunk.tries} tries` +
        `${g.verified === undefined ? '' : g.verified ? ', fails again in a fresh process' : ', DOES NOT fail again in a fresh process'}`);
      lines.push(`  ${g.shrunk.failure.message.slice(0, 600)}`);
    }
    if (g.file) lines.push(`  script: ${path.relative(process.cwd(), g.file)}`);
    if (g.script && g.script.length < 20000) lines.push(g.script.split('\n').map((l) => `    ${l}`).join('\n'));
  }
  return lines.join('\n');
}

/**
 * @param {string[]} argv Command-line arguments
 * @returns {object} Options for {@link fuzz}
 */
function parse(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`fuzz:schemas: ${a} needs a value`);
      return argv[++i];
    };
    if (a === '--long') o.count = 12500;
    else if (a === '--count') o.count = Number(value());
    else if (a === '--versions') o.versions = value().split(',');
    else if (a === '--paths') o.paths = value().split(',');
    else if (a === '--seed') o.seed = Number(value());
    else if (a === '--jobs') o.jobs = Number(value());
    else if (a === '--minutes') o.minutes = Number(value());
    else if (a === '--batch') o.batch = Number(value());
    else if (a === '--stall') o.stall = Number(value());
    else if (a === '--no-shrink') o.shrink = false;
    else if (a === '--shrink-seconds') o.shrinkSeconds = Number(value());
    else if (a === '--no-rules') o.rules = false;
    else throw new Error(`fuzz:schemas: unknown option ${a} (see fuzz/schemas/run.js)`);
  }
  for (const v of o.versions || []) if (!VERSIONS.includes(v)) throw new Error(`fuzz:schemas: unknown version ${v}; versions: 7, 8`);
  for (const p of o.paths || []) if (!PATHS[p]) throw new Error(`fuzz:schemas: unknown path ${p}; paths: ${PATH_NAMES.join(', ')}`);
  for (const key of ['count', 'seed', 'jobs', 'minutes', 'batch', 'stall', 'shrinkSeconds']) {
    if (o[key] !== undefined && !(o[key] >= 0)) throw new Error(`fuzz:schemas: --${key} wants a number`);
  }
  return o;
}

if (require.main === module) {
  fuzz(parse(process.argv.slice(2))).then((report) => {
    console.log(format(report));
    process.exitCode = report.failing === 0 ? 0 : 1;
  });
}

module.exports = { fuzz, format, parse, COUNT };
