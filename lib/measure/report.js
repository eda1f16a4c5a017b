'use strict';

/**
 * What `protobufjs-rustwriter measure` prints: the report for a person (a table and one verdict),
 * or one JSON object.
 */

const { ROUNDS } = require('./time');
const { displayPath } = require('./copies');

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
 * The one plain-words conclusion for one copy, on the speed-up an app gets (`row.speedup`: compiled
 * encoders where the copy has them), then the Writer API's, then a word on messages that do not fit
 * the schema.
 * @param {{version: string, native: boolean, forcedJs: boolean, compiled?: boolean, rows: object[]}} report
 *   A copy's report (timed)
 * @returns {string} Sentence
 */
function verdict(report) {
  const own = `protobufjs ${report.version}'s own writer`;
  const what = report.rows.length === 1 && report.rows[0].messages === 1 ? 'this message' : 'these messages';
  const who = report.compiled ? 'RustWriter with compiled encoders' : 'RustWriter';
  const groups = { faster: [], slower: [], noise: [] };
  for (const row of report.rows) groups[classify(row.speedup)].push(row.speedup.median);
  const note = nativeNote(report);
  let text;
  if (groups.faster.length === report.rows.length) text = `${who} encodes ${what} ${range(groups.faster)} faster than ${own} (${note}).`;
  else if (groups.slower.length === report.rows.length) {
    text = `${who} is slower than ${own} on ${what} (${range(groups.slower)} of its speed; ${note}): keep protobufjs's writer for ${what === 'this message' ? 'it' : 'them'}.`;
  } else if (groups.noise.length === report.rows.length) {
    if (groups.noise.every((x) => Math.abs(x - 1) < LEVEL)) {
      text = `${who} and ${own} are level on ${what} (${range(groups.noise)}; ${note}): expect no gain.`;
    } else {
      const spread = range([...report.rows.map((row) => row.speedup.q1), ...report.rows.map((row) => row.speedup.q3)]);
      text = `The rounds varied too much to tell ${who} from ${own} on ${what}: ${range(groups.noise)} in the median round, ` +
        `${spread} over the middle half of the rounds (${note}); run it again on a quieter machine or with a longer --time.`;
    }
  } else {
    const parts = [];
    if (groups.faster.length) parts.push(`faster on ${groups.faster.length} (${range(groups.faster)})`);
    if (groups.slower.length) parts.push(`slower on ${groups.slower.length} (${range(groups.slower)})`);
    if (groups.noise.length) parts.push(`within noise on ${groups.noise.length}`);
    const unit = report.rows.every((row) => row.messages === 1) ? 'messages' : 'rows';
    text = `Against ${own}, ${who} is ${parts.join(', ')} of the ${report.rows.length} ${unit} (${note}).`;
  }
  if (report.compiled && report.rows.every((row) => row.apiSpeedup)) {
    text += ` Through the Writer API (compiled: false): ${range(report.rows.map((row) => row.apiSpeedup.median))}.`;
  }
  const unfit = report.rows.reduce((sum, row) => sum + (row.unfit || 0), 0);
  if (unfit > 0) {
    const messages = report.rows.reduce((sum, row) => sum + row.messages, 0);
    text += ` ${unfit} of the ${messages} messages ${unfit === 1 ? 'does' : 'do'} not fit the schema: ` +
      `${unfit === 1 ? 'its' : 'their'} times may be meaningless.`;
  }
  return text;
}

/**
 * A row's label: its message number, or the range it covers; `*` when a message does not fit the schema.
 * @param {{first: number, messages: number, unfit?: number}} row Row
 * @returns {string} e.g. "#3" or "#1–500 (avg)"
 */
function label(row) {
  const text = row.messages === 1 ? `#${row.first}` : `#${row.first}–${row.first + row.messages - 1} (avg)`;
  return row.unfit ? `${text} *` : text;
}

/**
 * Lays out rows of cells in columns, the first left-aligned and the others right-aligned.
 * @param {string[][]} cells Rows of cells, the header first
 * @param {number} [left] Columns aligned left (default 1)
 * @returns {string} Lines
 */
function table(cells, left = 1) {
  const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
  return cells.map((row) => row.map((cell, c) => (c < left ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ').trimEnd()).join('\n');
}

/**
 * What a copy is to the app, for a person.
 * @param {object} report Report
 * @param {object} copy Copy
 * @returns {string} e.g. "your app's require('protobufjs'); used by @grpc/proto-loader"
 */
function roleOf(report, copy) {
  const roles = [];
  if (copy.app) roles.push('your app\'s require(\'protobufjs\')');
  if (copy.grpc) roles.push(`@grpc/proto-loader ${report.found.grpc.version} encodes your gRPC messages with it`);
  const users = copy.usedBy.filter((name) => !(copy.grpc && name === '@grpc/proto-loader'));
  if (users.length) roles.push(`used by ${users.slice(0, 3).join(', ')}${users.length > 3 ? ` and ${users.length - 3} more` : ''}`);
  if (copy.named) roles.push('named by --protobufjs');
  return roles.join('; ') || 'no package found that uses it';
}

/**
 * The list of copies, as `status()` lists them, with what each is to the app and whether it was timed.
 * @param {object} report Report
 * @returns {string[]} Lines
 */
function copyLines(report) {
  const { copies, found } = report;
  const lines = [`${copies.length} protobufjs ${copies.length === 1 ? 'copy' : 'copies'} found from ${report.cwd}${found.truncated ? ' (the search stopped early)' : ''}:`];
  const cells = copies.map((copy) => ['', copy.version, displayPath(report.cwd, copy.path), roleOf(report, copy),
    copy.timed ? 'timed' : copy.note]);
  lines.push(...table(cells, 5).split('\n').map((line) => line.trimEnd()));
  if (found.grpc !== null && found.grpc.protobufjs === null) {
    lines.push(`  @grpc/proto-loader ${found.grpc.version} is there, but no protobufjs is found from it`);
  }
  if (found.app === null) lines.push('  your app\'s own require(\'protobufjs\') finds none');
  return lines;
}

/**
 * The report for a person.
 * @param {object} report Report (timed)
 * @returns {string} Text
 */
function formatText(report) {
  const timed = report.copies.filter((c) => c.timed);
  const lines = [
    `${report.type}: ${report.source}`,
    `RustWriter ${report.native ? 'with the native addon' : 'on its JS path (no native addon)'}; ${copyLines(report).join('\n')}`,
    '',
    `Time per encode (\`Type.encode(m).finish()\`${timed.some((c) => c.rows.some((row) => row.messages > 1)) ? ', averaged over the messages of a row' : ''}): ` +
      `median of ${ROUNDS} alternating rounds of all copies and ways, ± half the interquartile range; speed-up: median of the rounds' ratios ` +
      'to protobufjs\'s own writer. "Writer API": protobufjs\'s generated encoders calling RustWriter (install(protobuf, { compiled: false }), ' +
      'PROTOBUFJS_RUSTWRITER_COMPILED=0); "compiled": encoders compiled for RustWriter, what the preload and install() give. ' +
      'Native calls per encode, compiled.',
  ];
  if (report.warnings.length) {
    lines.push('', `* ${report.warnings.length} problem${report.warnings.length === 1 ? '' : 's'} in the data (its times may be meaningless: ` +
      'each message is timed as protobufjs reads it):');
    for (const w of report.warnings.slice(0, 10)) lines.push(`  ${warningText(w)}`);
    if (report.warnings.length > 10) lines.push(`  and ${report.warnings.length - 10} more`);
  }
  for (const copy of timed) {
    const header = ['message', 'bytes', `protobufjs ${copy.version}`, 'Writer API', 'speed-up', 'compiled', 'speed-up', 'native calls'];
    const body = copy.rows.map((row) => [
      label(row), String(row.bytes), withSpread(row.ns.own), withSpread(row.ns.api), times(row.apiSpeedup.median),
      row.ns.compiled ? withSpread(row.ns.compiled) : 'n/a', row.compiledSpeedup ? times(row.compiledSpeedup.median) : 'n/a',
      String(row.nativeCalls),
    ]);
    lines.push('', `protobufjs ${copy.version} at ${displayPath(report.cwd, copy.path)} (${roleOf(report, copy)}):`, table([header, ...body]));
    if (!copy.compiled) {
      lines.push(`(no compiled encoder for this type in this copy: ${copy.whyNotCompiled || 'see the warning above'}; the app gets the ` +
        'Writer API\'s times)');
    }
    for (const kept of copy.kept || []) {
      lines.push(`(${kept.type}, which its messages hold, keeps protobufjs's encoder: ${kept.why}; its messages are written through the ` +
        'Writer API)');
    }
    lines.push(verdict(copyVerdictInput(report, copy)));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A warning about the data, as one line.
 * @param {{type: string, message: number, file: string|null, field: string|null, problem: string,
 *   protobufjs: string|null}} w Warning
 * @returns {string} Text
 */
function warningText(w) {
  const where = `${w.type} message #${w.message}${w.file ? ` (${w.file})` : ''}`;
  const what = `${w.field ? `${w.field}: ` : ''}${w.problem}`;
  return w.protobufjs === null
    ? `${where} does not fit the schema: ${what}`
    : `protobufjs ${w.protobufjs}'s ${w.type}.verify rejects ${where}: ${what}`;
}

/**
 * What {@link verdict} needs of a copy.
 * @param {object} report Report
 * @param {object} copy A timed copy
 * @returns {object} Verdict input
 */
function copyVerdictInput(report, copy) {
  const { native, forcedJs } = report;
  return { version: copy.version, native, forcedJs, compiled: copy.compiled, rows: copy.rows };
}

/**
 * A copy's rows for `--json`.
 * @param {string} type Type name
 * @param {object[]} rows Rows (timed or not: a byte difference leaves the times null)
 * @param {boolean} compiled Whether the copy has compiled encoders for the type
 * @returns {object[]} Results
 */
function resultsJson(type, rows, compiled) {
  const round = (x) => Math.round(x * 10) / 10;
  const ratio = (s) => (s ? Math.round(s.median * 1000) / 1000 : null);
  const iqr = (s) => (s ? [round(s.q1), round(s.q3)] : null);
  return rows.map((row) => {
    const ns = row.ns || {};
    const rust = ns.compiled || ns.api;
    return {
      type,
      bytes: row.bytes,
      identical: row.identical,
      protobufjs_ns: ns.own ? round(ns.own.median) : null,
      rustwriter_ns: rust ? round(rust.median) : null,
      speedup: ratio(row.speedup),
      message: row.first,
      messages: row.messages,
      native_calls: row.nativeCalls,
      protobufjs_ns_iqr: iqr(ns.own),
      rustwriter_ns_iqr: iqr(rust),
      compiled,
      writer_api_ns: ns.api ? round(ns.api.median) : null,
      writer_api_speedup: ratio(row.apiSpeedup),
      writer_api_ns_iqr: iqr(ns.api),
      writer_api_native_calls: row.apiNativeCalls,
      fits_schema: !row.unfit,
    };
  });
}

/**
 * The `--json` object.
 * @param {object} report Report (timed or not: a byte difference leaves the times null)
 * @returns {object} JSON
 */
function toJson(report) {
  const timed = report.copies.filter((c) => c.timed);
  const first = timed[0];
  const done = (copy) => copy.rows.every((row) => row.ns);
  const { grpc } = report.found;
  return {
    protobufjs: first.version,
    native: report.native,
    samples: report.samples,
    results: resultsJson(report.type, first.rows, first.compiled),
    verdict: done(first) ? verdict(copyVerdictInput(report, first)) : null,
    protobufjs_path: first.real,
    copies: report.copies.map((copy) => ({
      version: copy.version,
      path: copy.real,
      app: copy.app,
      grpc: copy.grpc,
      used_by: copy.usedBy,
      timed: copy.timed,
      note: copy.timed ? null : copy.note,
      results: copy.timed ? resultsJson(report.type, copy.rows, copy.compiled) : null,
      kept: copy.timed ? copy.kept : null,
      verdict: copy.timed && done(copy) ? verdict(copyVerdictInput(report, copy)) : null,
    })),
    app_protobufjs: report.found.app,
    grpc: grpc === null ? null : { proto_loader: grpc.version, path: grpc.path, protobufjs: grpc.protobufjs },
    warnings: report.warnings.map((w) => ({
      type: w.type, message: w.message, file: w.file, field: w.field, problem: w.problem, protobufjs: w.protobufjs,
    })),
    seconds: report.seconds,
  };
}

module.exports = { formatText, toJson, verdict, warningText };
