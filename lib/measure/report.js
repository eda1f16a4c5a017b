'use strict';

/**
 * What `protobufjs-rustwriter measure` prints: the report for a person (a table and one verdict),
 * or one JSON object.
 */

const { ROUNDS } = require('./time');

/** Speed-ups within this distance of 1 (5%) are "level" when the rounds cannot tell the writers apart. */
const LEVEL = 0.05;

/**
 * A duration for the table: ns, µs or ms with three significant digits.
 * @param {number} ns Nanoseconds
 * @returns {string} Text
 */
function duration(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e4) return `${(ns / 1e3).toPrecision(3)} µs`;
  return `${Math.round(ns)} ns`;
}

/**
 * A median with its spread: half the interquartile range, in percent of the median.
 * @param {{median: number, q1: number, q3: number}} s Summary
 * @returns {string} Text
 */
function withSpread(s) {
  return `${duration(s.median)} ±${((50 * (s.q3 - s.q1)) / s.median).toFixed(0)}%`;
}

/**
 * A speed-up as text.
 * @param {number} x protobufjs's time over RustWriter's
 * @returns {string} e.g. "1.42x"
 */
function times(x) {
  return `${x.toFixed(x >= 10 ? 1 : 2)}x`;
}

/**
 * Where a row's speed-up stands: `faster` or `slower` when the middle half of its rounds'
 * ratios is on one side of 1, else `noise`.
 * @param {{median: number, q1: number, q3: number}} speedup Speed-up summary
 * @returns {'faster'|'slower'|'noise'} Class
 */
function classify(speedup) {
  if (speedup.q1 > 1) return 'faster';
  if (speedup.q3 < 1) return 'slower';
  return 'noise';
}

/**
 * A range of speed-ups as text: "1.4x" or "1.2–2.8x".
 * @param {number[]} values Speed-ups
 * @returns {string} Text
 */
function range(values) {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return times(lo) === times(hi) ? times(lo) : `${times(lo).slice(0, -1)}–${times(hi)}`;
}

/**
 * What the native addon did, for the verdict's parenthesis.
 * @param {object} report Report
 * @returns {string} Text
 */
function nativeNote(report) {
  if (!report.native) return `JS path: the native addon is not loaded${report.forcedJs ? ', PROTOBUFJS_RUSTWRITER=js' : ''}`;
  const using = report.rows.filter((row) => row.nativeCalls > 0).length;
  if (using === 0) return 'native addon loaded; no packed field long enough to use it';
  return `native addon loaded and used for long packed fields${using < report.rows.length ? ` in ${using} of ${report.rows.length} rows` : ''}`;
}

/**
 * The one plain-words conclusion.
 * @param {object} report Report (timed)
 * @returns {string} Sentence
 */
function verdict(report) {
  const own = `protobufjs ${report.version}'s own writer`;
  const what = report.rows.length === 1 && report.rows[0].messages === 1 ? 'this message' : 'these messages';
  const groups = { faster: [], slower: [], noise: [] };
  for (const row of report.rows) groups[classify(row.speedup)].push(row.speedup.median);
  const note = nativeNote(report);
  if (groups.faster.length === report.rows.length) return `RustWriter encodes ${what} ${range(groups.faster)} faster than ${own} (${note}).`;
  if (groups.slower.length === report.rows.length) {
    return `RustWriter is slower than ${own} on ${what} (${range(groups.slower)} of its speed; ${note}): keep protobufjs's writer for ${what === 'this message' ? 'it' : 'them'}.`;
  }
  if (groups.noise.length === report.rows.length) {
    if (groups.noise.every((x) => Math.abs(x - 1) < LEVEL)) {
      return `RustWriter and ${own} are level on ${what} (${range(groups.noise)}; ${note}): expect no gain.`;
    }
    const spread = range([...report.rows.map((row) => row.speedup.q1), ...report.rows.map((row) => row.speedup.q3)]);
    return `The rounds varied too much to tell RustWriter from ${own} on ${what}: ${range(groups.noise)} in the median round, ` +
      `${spread} over the middle half of the rounds (${note}); run it again on a quieter machine or with a longer --time.`;
  }
  const parts = [];
  if (groups.faster.length) parts.push(`faster on ${groups.faster.length} (${range(groups.faster)})`);
  if (groups.slower.length) parts.push(`slower on ${groups.slower.length} (${range(groups.slower)})`);
  if (groups.noise.length) parts.push(`within noise on ${groups.noise.length}`);
  const unit = report.rows.every((row) => row.messages === 1) ? 'messages' : 'rows';
  return `Against ${own}, RustWriter is ${parts.join(', ')} of the ${report.rows.length} ${unit} (${note}).`;
}

/**
 * A row's label: its message number, or the range it covers.
 * @param {{first: number, messages: number}} row Row
 * @returns {string} e.g. "#3" or "#1–500 (avg)"
 */
function label(row) {
  return row.messages === 1 ? `#${row.first}` : `#${row.first}–${row.first + row.messages - 1} (avg)`;
}

/**
 * Lays out rows of cells in columns, the first left-aligned and the others right-aligned.
 * @param {string[][]} cells Rows of cells, the header first
 * @returns {string} Lines
 */
function table(cells) {
  const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
  return cells.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ').trimEnd()).join('\n');
}

/**
 * The report for a person.
 * @param {object} report Report (timed)
 * @returns {string} Text
 */
function formatText(report) {
  const header = [['message', 'bytes', `protobufjs ${report.version}`, 'RustWriter', 'speed-up', 'native calls']];
  const body = report.rows.map((row) => [
    label(row), String(row.bytes), withSpread(row.ns[0]), withSpread(row.ns[1]), times(row.speedup.median),
    String(row.nativeCalls),
  ]);
  const several = report.rows.some((row) => row.messages > 1);
  return [
    `${report.type}: ${report.source}`,
    `protobufjs ${report.version} from ${report.protobufjsDir}; RustWriter ${report.native ? 'with the native addon' : 'on its JS path (no native addon)'}`,
    '',
    table([...header, ...body]),
    '',
    `Time per encode (\`Type.encode(m).finish()\`${several ? ', averaged over the messages of a row' : ''}): median of ${ROUNDS} ` +
      'alternating rounds, ± half the interquartile range; speed-up: median of the rounds\' ratios; native calls per encode.',
    verdict(report),
    '',
  ].join('\n');
}

/**
 * The `--json` object.
 * @param {object} report Report (timed or not: a byte difference leaves the times null)
 * @returns {object} JSON
 */
function toJson(report) {
  const round = (x) => Math.round(x * 10) / 10;
  return {
    protobufjs: report.version,
    native: report.native,
    samples: report.samples,
    results: report.rows.map((row) => ({
      type: report.type,
      bytes: row.bytes,
      identical: row.identical,
      protobufjs_ns: row.ns ? round(row.ns[0].median) : null,
      rustwriter_ns: row.ns ? round(row.ns[1].median) : null,
      speedup: row.speedup ? Math.round(row.speedup.median * 1000) / 1000 : null,
      message: row.first,
      messages: row.messages,
      native_calls: row.nativeCalls,
      protobufjs_ns_iqr: row.ns ? [round(row.ns[0].q1), round(row.ns[0].q3)] : null,
      rustwriter_ns_iqr: row.ns ? [round(row.ns[1].q1), round(row.ns[1].q3)] : null,
    })),
    verdict: report.rows.every((row) => row.ns) ? verdict(report) : null,
  };
}

module.exports = { formatText, toJson, verdict };
