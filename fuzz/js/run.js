'use strict';

/**
 * `npm run fuzz:js`: adversarial fuzzing of RustWriter from the JS side, against protobufjs
 * 8.8.1's writer (see check.js for what is compared, world.js for the reference's model of
 * README "Compatibility", generate.js for what the sequences contain).
 *
 *   npm run fuzz:js                       10,000 sequences on each of the four paths
 *   npm run fuzz:js -- --long             1,000,000 on each path
 *   npm run fuzz:js -- --count N --paths native,js --seed S --jobs J
 *   npm run fuzz:js -- --long --minutes M   start no batch after M minutes (the report says so)
 *   npm run fuzz:js -- --shrink-known     also shrink one failure of each known bug
 *   npm run fuzz:js -- --show 4-snan      print a known bug's minimal sequence as a script
 *
 * Sequences run in batches in child processes (batch.js), `--jobs` at a time (2), so a crash
 * (a signal, an abort, running out of memory) or a hang (no output for `--stall` seconds, 120)
 * is caught; the batch is then run again with each seed traced to find the sequence. Every
 * failure is classified against known-bugs.js; each new kind of failure is shrunk (shrink.js) to
 * a minimal call list, checked again in a fresh process and printed as a runnable script
 * (render.js), also written to `target/fuzz-js/`. The exit code is 0 only if nothing failed.
 */

const fs = require('fs');
const path = require('path');
const { runBatch, withJsonFile, runTasks } = require('../batches');
const { PATHS, PATH_NAMES } = require('../paths');
const { classify, KNOWN_BUGS } = require('./known-bugs');
const { render } = require('./render');
const { shrink } = require('./shrink');

const BATCH = path.join(__dirname, 'batch.js');
const OUT = path.join(__dirname, '..', '..', 'target', 'fuzz-js');

/**
 * Runs one batch process of batch.js on a path to its end (fuzz/batches.js).
 * @param {string} pathName Path
 * @param {string[]} argv Its arguments
 * @param {object} options See {@link runBatch}
 * @returns {Promise<object>} See {@link runBatch}
 */
function child(pathName, argv, options) {
  return runBatch(BATCH, ['--path', pathName, ...argv], PATHS[pathName].env, options);
}

/**
 * Runs a child with `value` in a temporary JSON file, passed after `flag`.
 * @param {string} pathName Path
 * @param {string} flag `--replay` or `--shrink`
 * @param {*} value Value
 * @param {string[]} more More arguments
 * @param {object} options See {@link runBatch}
 * @returns {Promise<object>} See {@link runBatch}
 */
function childWith(pathName, flag, value, more, options) {
  return withJsonFile('fuzz-js', value, (file) => child(pathName, [flag, file, ...more], options));
}

/**
 * Runs the fuzzer.
 * @param {object} o Options: `paths` (names), `count` (sequences per path), `seed` (the first),
 * `jobs`, `batch` (sequences per child), `stall` (seconds), `shrink` (whether to shrink new
 * failures), `shrinkSeconds`, `shrinkKnown` (also shrink the first failure of each known bug),
 * `fault`/`faultSeed` (self-tests, passed to each batch), `minutes` (start no batch after), `log`
 * (progress lines), `write` (whether to write repro scripts to target/fuzz-js)
 * @returns {Promise<object>} Report: `paths` (per path: sequences, ms, rate, maxRSS, `clean`:
 * the first sequences of each batch that passed and returned some bytes, `writers` (created by the
 * sequences) and `tainted` (by reason, how many of them the reference tainted: {@link taintedLine}),
 * `longestSilence` (ms: the longest time a batch that ended went without output, which a `stall`
 * must stay well above)),
 * `failing` (how many sequences failed), `known` (per known bug: count, seeds), `fresh` (the
 * other failures grouped by kind and method, each with the first one's shrunk repro), `unstarted`
 * (sequences left when `minutes` were up)
 */
async function fuzz(o) {
  const options = {
    paths: PATH_NAMES, count: 10000, seed: 1, jobs: 2, batch: 10000, stall: 120, shrink: true, shrinkSeconds: 30,
    log: (line) => process.stderr.write(`${line}\n`), write: true, ...o,
  };
  const stats = Object.fromEntries(options.paths.map((p) => [p, {
    sequences: 0, ms: 0, maxRSS: 0, clean: [], writers: 0, tainted: {}, longestSilence: 0,
  }]));
  /** Adds a batch's count of writers, and of writers tainted by reason, to its path's. */
  const addWriters = (st, m) => {
    st.writers += m.writers || 0;
    for (const [why, n] of Object.entries(m.tainted || {})) st.tainted[why] = (st.tainted[why] || 0) + n;
  };
  let failing = 0;
  const known = {};
  const fresh = new Map();
  /** Counts a known bug's failure on a path. */
  const countKnown = (bugId, p, seed, f) => {
    const bug = KNOWN_BUGS.find((b) => b.bug === bugId);
    const k = known[bugId] || (known[bugId] = { title: bug.title, count: 0, seeds: [], paths: {} });
    k.count++;
    k.paths[p] = (k.paths[p] || 0) + 1;
    failing++;
    if (k.seeds.length < 5) k.seeds.push(`${p}:${seed}`);
    if (f && !k.first) k.first = f;
  };
  /** Records a failure: a known bug's, or a new one grouped by kind and method. */
  const addFailure = (f) => {
    const bug = classify(f);
    if (bug !== null) {
      countKnown(bug.bug, f.path, f.seed, f);
      return;
    }
    failing++;
    const key = `${f.kind} ${f.op}`;
    if (!fresh.has(key)) {
      fresh.set(key, { kind: f.kind, op: f.op, count: 0, seeds: [], first: f, paths: {} });
      options.log(`fuzz:js: new failure, ${key} at ${f.path}:${f.seed} (the report at the end shrinks it)`);
    }
    const g = fresh.get(key);
    g.count++;
    g.paths[f.path] = (g.paths[f.path] || 0) + 1;
    if (g.seeds.length < 5) g.seeds.push(`${f.path}:${f.seed}`);
  };
  // Batches alternate between the paths, so that a run stopped by `minutes` has run each path alike.
  const tasks = [];
  for (let s = 0; s < options.count; s += options.batch) {
    for (const p of options.paths) {
      tasks.push({ path: p, seed: options.seed + s, count: Math.min(options.batch, options.count - s) });
    }
  }
  const deadline = options.minutes === undefined ? Infinity : Date.now() + options.minutes * 60000;
  const started = Date.now();
  let lastLog = 0;
  const progress = () => {
    if (Date.now() - lastLog < 10000) return;
    lastLog = Date.now();
    const done = Object.entries(stats).map(([p, s]) => `${p} ${s.sequences}`).join(', ');
    options.log(`fuzz:js ${((Date.now() - started) / 1000).toFixed(0)} s: ${done} of ${options.count} each; ${failing} failing`);
  };

  async function runTask(task) {
    const st = stats[task.path];
    const extra = [];
    if (options.fault) extra.push('--fault', options.fault, '--fault-seed', String(options.faultSeed));
    if (options.shrinkKnown) extra.push('--full-known');
    let done = 0;
    const t0 = Date.now();
    const result = await child(task.path, ['--seed', String(task.seed), '--count', String(task.count), ...extra], {
      stall: options.stall,
      onLine(m) {
        if (m.type === 'failure') addFailure(m.failure);
        if (m.type === 'known') countKnown(m.bug, m.path, m.seed, null);
        if (m.type === 'progress') {
          st.sequences += m.done - done;
          done = m.done;
          progress();
        }
      },
    });
    st.ms += Date.now() - t0;
    const end = result.messages.find((m) => m.type === 'done');
    const stopped = result.messages.find((m) => m.type === 'stopped');
    if (end) {
      st.longestSilence = Math.max(st.longestSilence, result.longestSilence);
      st.sequences += end.count - done;
      st.maxRSS = Math.max(st.maxRSS, end.maxRSS);
      st.clean.push(...end.clean);
      addWriters(st, end);
    } else if (stopped) {
      st.sequences += stopped.next - task.seed - done;
      addWriters(st, stopped);
      options.log(`fuzz:js ${task.path}: batch stopped after seed ${stopped.next - 1}: ${stopped.why}; going on in a fresh process`);
      if (stopped.next < task.seed + task.count) {
        tasks.push({ path: task.path, seed: stopped.next, count: task.seed + task.count - stopped.next });
      }
    } else {
      const culprit = await findCulprit(task, done, result, extra);
      addFailure(culprit);
      st.sequences += culprit.seed + 1 - task.seed - done;
      if (culprit.seed + 1 < task.seed + task.count) {
        tasks.push({ path: task.path, seed: culprit.seed + 1, count: task.seed + task.count - culprit.seed - 1 });
      }
    }
  }

  /**
   * A batch died or hung: run it again from its last progress report with each seed traced.
   * @returns {Promise<object>} A `crash` or `hang` failure
   */
  async function findCulprit(task, done, first, extra) {
    const how = first.hung ? 'hang' : 'crash';
    const describe = (r) => (r.hung ? `no output for ${options.stall} s` : `exit code ${r.code}, signal ${r.signal}`);
    const from = task.seed + done;
    const count = Math.min(100, task.count - done);
    const again = await child(task.path, ['--seed', String(from), '--count', String(count), '--trace', ...extra], { stall: options.stall });
    const traced = [...again.stderr.matchAll(/^seed (\d+)$/gm)].map((m) => Number(m[1]));
    const seed = traced.length ? traced[traced.length - 1] : from;
    const alone = await child(task.path, ['--seed', String(seed), '--count', '1', ...extra], { stall: options.stall });
    const reproduces = !alone.messages.some((m) => m.type === 'done');
    return {
      kind: how, seed, path: task.path, step: null, op: null,
      message: `the batch process died (${describe(first)}) in sequence ${seed}` +
        (reproduces ? `; alone it does too (${describe(alone)})` : `; alone it does not: it needs the sequences of this batch before it (from seed ${task.seed})`),
      alone: reproduces, stderr: first.stderr.slice(-2000),
    };
  }

  const timeUp = (left) => options.log(`fuzz:js: ${options.minutes} minutes are up; ${left} sequences not started`);
  const unstarted = await runTasks(tasks, options.jobs, deadline, runTask, timeUp);
  const ms = Date.now() - started;

  for (const g of fresh.values()) {
    await investigate(g, options);
    if (g.consequence) failing -= g.count;
    else if (options.shrink) await shrinkGroup(g, options);
  }
  if (options.shrinkKnown) {
    for (const k of Object.values(known)) {
      if (k.first) await shrinkGroup(Object.assign(k, { kind: k.first.kind }), options);
    }
  }
  return {
    ms,
    paths: Object.fromEntries(Object.entries(stats).map(([p, s]) => [p, {
      sequences: s.sequences,
      ms: s.ms,
      rate: s.sequences / (s.ms / 1000),
      maxRSS: s.maxRSS,
      clean: s.clean.sort((a, b) => a - b),
      writers: s.writers,
      tainted: s.tainted,
      longestSilence: s.longestSilence,
    }])),
    failing, known, fresh: [...fresh.values()], unstarted,
  };
}

/**
 * How sequence `seed` fared in a child's run.
 * @param {object[]} messages The child's messages
 * @param {number} seed Sequence
 * @returns {object|null} `{kind}` (or the known bug's `{bug}`), or null if it passed
 */
function outcome(messages, seed) {
  for (const m of messages) {
    if (m.type === 'failure' && m.failure.seed === seed && m.failure.kind !== 'result-changed') return m.failure;
    if (m.type === 'known' && m.seed === seed) return { kind: 'known', bug: m.bug };
  }
  return null;
}

/**
 * Before shrinking: does the group's first failure happen in a fresh process? If not, does it
 * after the sequences that failed before it in its process? (Then it follows from those: their
 * failures are reported themselves, and the group is marked `consequence`.) A result found
 * changed by the reservoir check is traced to the sequence that changed it.
 * @param {object} g Group
 * @param {object} options Options
 * @returns {Promise<undefined>} Done
 */
async function investigate(g, options) {
  const f = g.first;
  if (f.kind === 'result-changed' && !f.desc) {
    const watched = await child(f.path, ['--seed', String(f.seed), '--count', String(f.found - f.seed + 1), '--watch', String(f.seed)], { stall: options.stall });
    const change = watched.messages.find((m) => m.type === 'failure' && m.failure.kind === 'result-changed');
    if (!change) {
      g.note = `a result of sequence ${f.seed} changed by sequence ${f.found}, but not when sequences ${f.seed}…${f.found} run again alone`;
      return;
    }
    const culprit = change.failure.found;
    const its = outcome(watched.messages, culprit);
    if (its !== null) g.consequence = `a result of sequence ${f.seed} is changed by sequence ${culprit}, which fails itself (${its.bug ? `known bug ${its.bug}` : its.kind})`;
    else g.note = `a result of sequence ${f.seed} is changed by sequence ${culprit}, which passes: run seeds ${f.seed},${culprit} with --watch ${f.seed}`;
    return;
  }
  if (f.kind === 'crash' || f.kind === 'hang' || !f.desc) return;
  const alone = await child(f.path, ['--seeds', String(f.seed)], { stall: options.stall });
  const mine = outcome(alone.messages, f.seed);
  if (mine !== null && mine.kind === f.kind) return;
  if (!f.after || f.after.length === 0) {
    g.note = 'it does not fail again in a fresh process';
    return;
  }
  const after = await child(f.path, ['--seeds', [...f.after, f.seed].join(',')], { stall: options.stall });
  const then = outcome(after.messages, f.seed);
  if (then !== null && then.kind === f.kind) {
    const bugs = [...new Set(f.after.map((s) => outcome(after.messages, s)).filter(Boolean).map((o) => (o.bug ? `known bug ${o.bug}` : o.kind)))];
    g.consequence = `it fails only after the sequences that failed before it in its process (${bugs.join(', ')}), not alone`;
  } else {
    g.note = 'it fails neither alone nor after the sequences that failed before it: it needs the passing sequences of its batch too';
  }
}

/**
 * Shrinks a group's first failure, checks the result in a fresh process, renders it.
 * @param {object} g Group (gets `shrunk`, `verified`, `script`, `file`)
 * @param {object} options Options
 * @returns {Promise<undefined>} Done
 */
async function shrinkGroup(g, options) {
  const f = g.first;
  let shrunk;
  if (f.kind === 'crash' || f.kind === 'hang') {
    if (!f.alone) return;
    const described = await child(f.path, ['--describe', String(f.seed)], { stall: 30 });
    const desc = described.messages[0].desc;
    const dies = async (candidate) => {
      const r = await childWith(f.path, '--replay', candidate, [], { stall: Math.min(options.stall, 20) });
      return r.messages.some((m) => m.type === 'replayed') ? null : { kind: f.kind, op: null };
    };
    shrunk = await shrink({ ...f, desc }, dies, { seconds: options.shrinkSeconds * 2, tries: 150 });
  } else if (!f.desc) {
    g.note = 'no single sequence to shrink: found by the check of the kept results';
    return;
  } else {
    const r = await childWith(f.path, '--shrink', f, ['--seconds', String(options.shrinkSeconds)], { stall: options.shrinkSeconds + 60 });
    const m = r.messages.find((x) => x.type === 'shrunk');
    if (!m) {
      g.note = `shrinking hung or died (${r.hung ? 'hung' : `exit ${r.code} ${r.signal}`}): unshrunk`;
      shrunk = { desc: f.desc, failure: f, tries: 0, original: f.desc ? f.desc.steps.length : 0 };
    } else shrunk = m;
    const again = await childWith(f.path, '--replay', shrunk.desc, [], { stall: 60 });
    const replayed = again.messages.find((x) => x.type === 'replayed');
    g.verified = Boolean(replayed && replayed.failure && replayed.failure.kind === f.kind);
  }
  g.shrunk = shrunk;
  g.script = render(shrunk.desc, {
    path: f.path,
    kind: shrunk.failure.kind,
    message: shrunk.failure.message,
    env: PATHS[f.path].env,
    options: PATHS[f.path].options,
  });
  if (options.write) {
    fs.mkdirSync(OUT, { recursive: true });
    g.file = path.join(OUT, `${f.path}-${f.seed}-${f.kind}.js`);
    fs.writeFileSync(g.file, g.script);
  }
}

/**
 * @param {object} report From {@link fuzz}
 * @returns {string} The report as text
 */
function format(report) {
  const lines = [];
  for (const [p, s] of Object.entries(report.paths)) {
    if (s.sequences === 0) {
      lines.push(`${p}: no sequence run`);
      continue;
    }
    lines.push(`${p}: ${s.sequences.toLocaleString('en')} sequences in ${(s.ms / 1000).toFixed(1)} s of child time, ` +
      `${Math.round(s.rate).toLocaleString('en')} sequences/s a process, peak RSS of a process ${(s.maxRSS / 2 ** 20).toFixed(0)} MiB; ` +
      taintedLine(s));
  }
  lines.push(`${report.failing} failing sequences; ${(report.ms / 1000).toFixed(1)} s in all`);
  if (report.unstarted > 0) lines.push(`NOT RUN: ${report.unstarted.toLocaleString('en')} sequences (--minutes was up)`);
  for (const [bug, k] of Object.entries(report.known)) {
    lines.push(`KNOWN BUG ${bug} (${k.title}): ${k.count} sequences, e.g. ${k.seeds.join(' ')}`);
    if (k.shrunk) lines.push(`  minimal sequence (${k.first.path}, ${k.shrunk.failure.kind}): ${JSON.stringify(k.shrunk.desc)}`);
  }
  for (const g of report.fresh.filter((x) => x.consequence)) {
    lines.push(`FOLLOWS EARLIER FAILURES: ${g.kind}${g.op ? ` at ${g.op}()` : ''}: ${g.count} sequences, e.g. ${g.seeds.join(' ')}: ${g.consequence}`);
  }
  for (const g of report.fresh.filter((x) => !x.consequence)) {
    lines.push('', `NEW FAILURE: ${g.kind}${g.op ? ` at ${g.op}()` : ''}: ${g.count} sequences, e.g. ${g.seeds.join(' ')}`);
    lines.push(`  ${g.first.message.slice(0, 500)}`);
    if (g.note) lines.push(`  ${g.note}`);
    if (g.shrunk) {
      lines.push(`  shrunk from ${g.shrunk.original} to ${g.shrunk.desc.steps.length} steps (${g.shrunk.tries} tries)` +
        `${g.verified === undefined ? '' : g.verified ? ', fails again in a fresh process' : ', DOES NOT fail again in a fresh process'}` +
        `${g.file ? `; script: ${path.relative(process.cwd(), g.file)}` : ''}`);
      lines.push(`  ${g.shrunk.failure.message.slice(0, 500)}`);
      lines.push(`  minimal sequence: ${JSON.stringify(g.shrunk.desc)}`);
      lines.push(g.script.split('\n').map((l) => `    ${l}`).join('\n'));
    }
  }
  return lines.join('\n');
}

/**
 * How many writers a path's sequences created and how many of them the reference tainted, and so
 * left uncompared after the taint (check.js still checks their invariants), by reason.
 * @param {{writers: number, tainted: Object<string, number>}} s A path's figures
 * @returns {string} Text
 */
function taintedLine(s) {
  // Reasons by kind: the methods they name (world.js `taint`) become `…`.
  const kinds = {};
  for (const [why, n] of Object.entries(s.tainted)) {
    const kind = why.replace(/\b\w+\(\)/g, '…()');
    kinds[kind] = (kinds[kind] || 0) + n;
  }
  const reasons = Object.entries(kinds).sort((a, b) => b[1] - a[1]);
  const count = reasons.reduce((sum, [, n]) => sum + n, 0);
  const pct = s.writers > 0 ? ` (${(100 * count / s.writers).toFixed(1)}%)` : '';
  return `${count.toLocaleString('en')} of ${s.writers.toLocaleString('en')} writers tainted${pct}, not compared after the taint` +
    `${reasons.length ? `: ${reasons.map(([why, n]) => `${n} × ${why}`).join('; ')}` : ''}`;
}

/**
 * @param {string[]} argv Command-line arguments
 * @returns {object} Options for {@link fuzz}
 */
function parse(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i];
    if (a === '--long') o.count = 1000000;
    else if (a === '--count') o.count = Number(value());
    else if (a === '--paths') o.paths = value().split(',');
    else if (a === '--seed') o.seed = Number(value());
    else if (a === '--jobs') o.jobs = Number(value());
    else if (a === '--minutes') o.minutes = Number(value());
    else if (a === '--batch') o.batch = Number(value());
    else if (a === '--stall') o.stall = Number(value());
    else if (a === '--no-shrink') o.shrink = false;
    else if (a === '--shrink-seconds') o.shrinkSeconds = Number(value());
    else if (a === '--shrink-known') o.shrinkKnown = true;
    else if (a === '--show') o.show = value();
    else throw new Error(`fuzz:js: unknown option ${a} (see fuzz/js/run.js)`);
  }
  for (const p of o.paths || []) if (!PATHS[p]) throw new Error(`fuzz:js: unknown path ${p}; paths: ${PATH_NAMES.join(', ')}`);
  return o;
}

/**
 * The runnable script of a known bug's minimal sequence.
 * @param {string} id Known bug id
 * @returns {string} Script
 */
function showKnown(id) {
  const bug = KNOWN_BUGS.find((b) => b.bug === id);
  if (!bug) throw new Error(`fuzz:js: no known bug ${id}; known: ${KNOWN_BUGS.map((b) => b.bug).join(', ')}`);
  const p = bug.repro.path;
  return render(bug.repro.desc, { path: p, kind: `known bug ${id}`, message: bug.title, env: PATHS[p].env, options: PATHS[p].options });
}

if (require.main === module) {
  const options = parse(process.argv.slice(2));
  if (options.show) {
    console.log(showKnown(options.show));
  } else {
    fuzz(options).then((report) => {
      console.log(format(report));
      process.exitCode = report.failing === 0 ? 0 : 1;
    });
  }
}

module.exports = { fuzz, format, taintedLine };
