'use strict';

/**
 * Where in the generated code a contender's time goes, line by line: runs one bench case's op for
 * one contender (bench/cases.js prepareCase) under V8's sampling profiler, then prints the functions
 * matching a pattern (default: the compiled encoders, `write_`) with their share of the samples and
 * their hottest source lines. `perf` names only whole functions, and a compiled encoder with its
 * nested Types inlined is one function; the profiler's position ticks name lines, and the inspector
 * gives back the source of a `new Function` by its script id.
 *
 *   node bench/probes/hot-lines.js [case] [contender] [seconds] [pattern] [lines]
 *
 * Defaults: catalog, rust, 4 s, `^write_`, 12 lines a function. Sampling every 100 µs slows the op
 * by ~20%, alike for every line.
 */

const inspector = require('inspector');
const { CASES, prepareCase } = require('../cases');

const [id = 'catalog', key = 'rust', seconds = '4', pattern = '^write_', shown = '12'] = process.argv.slice(2);
const SAMPLING_US = 100;
/** Characters of a source line printed. */
const LINE_WIDTH = 150;

/**
 * Posts an inspector command.
 * @param {inspector.Session} session Session
 * @param {string} method Method
 * @param {object} [params] Parameters
 * @returns {Promise<object>} Result
 */
function post(session, method, params = {}) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * Profiles the op and prints the report.
 * @returns {Promise<undefined>}
 */
async function main() {
  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown case ${id}`);
  if (c.codegen === 'static') throw new Error('the static case needs bench/static.js; probe a reflection case');
  const [contender] = prepareCase(c, null, [key]);
  if (!contender) throw new Error(`unknown contender ${key}`);
  const session = new inspector.Session();
  session.connect();
  await post(session, 'Debugger.enable');
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: SAMPLING_US });
  // Warm first: the profile is of optimized code, as the bench times it.
  const run = (ms) => {
    const until = Date.now() + ms;
    while (Date.now() < until) for (let i = 0; i < 10; ++i) contender.fn();
  };
  run(1000);
  await post(session, 'Profiler.start');
  run(Number(seconds) * 1000);
  const { profile } = await post(session, 'Profiler.stop');

  const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
  const matching = new RegExp(pattern);
  const functions = new Map();
  for (const node of profile.nodes) {
    const { functionName, scriptId } = node.callFrame;
    if (!matching.test(functionName)) continue;
    const name = `${functionName} (script ${scriptId})`;
    const entry = functions.get(name) || { scriptId, hits: 0, lines: new Map() };
    entry.hits += node.hitCount;
    for (const { line, ticks } of node.positionTicks || []) entry.lines.set(line, (entry.lines.get(line) || 0) + ticks);
    functions.set(name, entry);
  }
  const share = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
  process.stdout.write(`${id}, ${contender.name}: ${total} samples; functions matching /${pattern}/, share of all samples\n`);
  for (const [name, { scriptId, hits, lines }] of [...functions].sort((a, b) => b[1].hits - a[1].hits)) {
    process.stdout.write(`\n${share(hits)} ${name}\n`);
    // V8's own entries ("(garbage collector)", "(program)", "(idle)") have no script.
    if (scriptId === '0') continue;
    const { scriptSource } = await post(session, 'Debugger.getScriptSource', { scriptId });
    const source = scriptSource.split('\n');
    for (const [line, ticks] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, Number(shown))) {
      process.stdout.write(`  ${share(ticks)} line ${String(line).padStart(4)}: ${(source[line - 1] || '').trim().slice(0, LINE_WIDTH)}\n`);
    }
  }
  session.disconnect();
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
