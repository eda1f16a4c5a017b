'use strict';

/** The command line of bench/index.js: its options, and the `--help` text. */

const { CASES, CONTENDERS, COMPARISONS, contendersOf } = require('./cases');
const { budgetOf } = require('./progress');
const { ROUNDS } = require('./suite');
const format = require('./format');

/** Exit code of a command line that names an unknown option or case. */
const USAGE_EXIT = 2;

/** A command-line mistake: reported in one line, exit USAGE_EXIT. */
class UsageError extends Error {}

/**
 * Parses the command line; the cases come from the arguments, else from BENCH_CASES.
 * @param {string[]} argv Arguments after the script
 * @param {Object<string, string|undefined>} env Environment
 * @returns {{help: boolean, update: boolean, cases: object[], full: boolean}} Options; `cases` in run order
 */
function parseOptions(argv, env) {
  const options = { help: false, update: false };
  const names = [];
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') options.help = true;
    else if (arg === '--update') options.update = true;
    else if (arg === '--') continue;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (see --help)`);
    else names.push(arg);
  }
  if (!names.length) names.push(...(env.BENCH_CASES || '').split(/[\s,]+/).filter(Boolean));
  const known = new Set(CASES.flatMap((c) => [c.id, c.group]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new UsageError(`unknown case ${unknown.join(', ')} (cases: ${[...known].join(', ')})`);
  const cases = names.length ? CASES.filter((c) => names.includes(c.id) || names.includes(c.group)) : CASES;
  return { ...options, cases, full: cases.length === CASES.length };
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
  const fullRun = CASES.reduce((sum, c) => sum + budgetOf(c, contendersOf(c), ROUNDS), 0);
  const cases = columns([['id', 'group', 'message'], ...CASES.map((c) => [c.id, c.group, c.title])]);
  const contenders = columns(CONTENDERS.map((c) => [c.key, c.name, c.breakdown ? 'breakdown only, every case' : c.pbjs7Codegen
    ? `on ${CASES.filter((x) => x.pbjs7Codegen).map((x) => x.id).join(', ')}` : 'every case']));
  return `Usage: npm run bench [-- [options] [case ...]]
       node bench/index.js [options] [case ...]

Times RustWriter against protobufjs's own writers, case by case, after checking that every writer
gives the same bytes. Prints to the console only; the results, as JSON, go to ${files.lastRun}
(not tracked by git). A full run takes about ${format.duration(fullRun)} on 2 idle cores; progress and an
estimate of the time left go to stderr.

Cases (an id or a group; none: all of them, in this order):
${cases}

Contenders (key, name, where; each case times its contenders in interleaved rounds):
${contenders}
Ratios (ops/s over ops/s) per case: rust vs each protobufjs and vs the faster of the two;
${COMPARISONS.map((c) => `${c.label} (${c.of} ÷ ${c.over})`).join('; ')}.
Targets: what rust should reach in ratios and bytes allocated; each is reported met, missed within
noise (the margins of the two timings reach the target) or missed.

Options:
  -h, --help   this text
  --update     after a full run (all cases), also write ${files.results}, its SVG chart and
               README.md's benchmark tables; refused for a run of some cases.
               (npm run bench:update does the same.)

Environment:
  BENCH_CASES             cases to run when none are given as arguments (space- or comma-separated)
  PROTOBUFJS_RUSTWRITER   leave unset (or "native"): the RustWriter contenders need the native addon;
                          the JS-only contender sets "js" for its own instance of the package

Exit status: 0 done (a missed target is reported, not an error); 1 some case's bytes differ, or the
run failed; 2 an unknown option or case.
`;
}

module.exports = { parseOptions, helpText, UsageError, USAGE_EXIT };
