'use strict';

/**
 * `protobufjs-rustwriter measure`: the gain on the user's own messages. Loads their schema with
 * their protobufjs copy twice (one Root per writer, so that each Root's generated encoders only
 * ever see one writer class, as in bench/cases.js), checks that RustWriter gives protobufjs's
 * bytes for every message, times both writers alternately (lib/measure/time.js), and reports
 * (lib/measure/report.js). Exit codes: 0 measured, 1 a byte difference, 2 an input problem
 * (lib/measure-args.js `MeasureError`), 3 a bug in measure itself.
 *
 * Test-only hook: `PROTOBUFJS_RUSTWRITER_TEST_FLIP_BYTE=<offset>` inverts byte `offset` of each of
 * RustWriter's outputs in the check before timing, so that the tests can see a difference
 * reported (test/measure.test.js). Nothing else reads it.
 */

const path = require('path');
const { RustWriter } = require('../writer/writer');
const { callsMade } = require('../writer/native');
const { uninstall } = require('../integration/install');
const { status } = require('../integration/status');
const { parseCommandLine, MeasureError, USAGE } = require('./args');
const { findProtobuf, loadSchema, lookupType, readData, toMessages, oneLine } = require('./load');
const { samples, SIZES, SEED } = require('./sample');
const { timeRows } = require('./time');
const { formatText, toJson } = require('./report');

const FLIP_ENV = 'PROTOBUFJS_RUSTWRITER_TEST_FLIP_BYTE';
/** Up to this many messages get a row each; more are timed as one row (encoding each in turn). */
const MAX_ROWS = 10;
/** Differences printed before "and N more". */
const DIFFS_SHOWN = 5;
/** Bytes of context shown either side of a difference. */
const DIFF_CONTEXT = 8;
/** Without a terminal, progress is printed every this fraction of the rounds. */
const PROGRESS_STEP = 0.25;

/** What one encode is, per writer: protobufjs's own (`Writer.create()` inside `encode`, as users
 * call it) and RustWriter (passed in, as `install()` would have `Writer.create()` return it). */
const ENCODE = ['T.encode(m).finish()', 'T.encode(m, W.create()).finish()'];

/**
 * A function that encodes `messages` `n` times with one writer, compiled per row and writer so
 * that no call site, and so no type feedback, is shared between them.
 * @param {string} encode Expression encoding `m` with type `T` (and writer class `W`)
 * @param {object} T Type
 * @param {object[]} messages Messages of the row
 * @returns {(n: number) => Uint8Array} Encoder, returning its last result
 */
function compileEncoder(encode, T, messages) {
  const body = messages.length === 1
    ? `const m = ms[0]; let r; for (let i = 0; i < n; ++i) r = ${encode}; return r;`
    : `let r; for (let i = 0; i < n; ++i) for (let j = 0; j < ms.length; ++j) { const m = ms[j]; r = ${encode}; } return r;`;
  return new Function('T', 'ms', 'W', `'use strict'; return function encodeRow(n) { ${body} };`)(T, messages, RustWriter);
}

/**
 * Encodes every message with both writers and compares the bytes.
 * @param {object[]} types protobufjs's Type and RustWriter's Type
 * @param {object[][]} messages Each writer's messages
 * @param {number|null} flip Byte to invert in RustWriter's outputs (test hook), or null
 * @returns {Array<{bytes: number, identical: boolean, diff: string|null, nativeCalls: number}>} Per message
 */
function check(types, messages, flip) {
  return messages[0].map((own, i) => {
    let expected;
    try {
      expected = Buffer.from(types[0].encode(own).finish());
    } catch (err) {
      throw new MeasureError(`protobufjs's own writer cannot encode message #${i + 1} (${oneLine(err)}): fix the data`);
    }
    const before = callsMade();
    let actual;
    try {
      actual = Buffer.from(types[1].encode(messages[1][i], RustWriter.create()).finish());
    } catch (err) {
      return { bytes: expected.length, identical: false, diff: `RustWriter threw ${oneLine(err)} where protobufjs gave ${expected.length} bytes`, nativeCalls: 0 };
    }
    const calls = (callsMade() - before) >>> 0;
    if (flip !== null && flip < actual.length) actual[flip] ^= 0xff;
    if (expected.equals(actual)) return { bytes: expected.length, identical: true, diff: null, nativeCalls: calls };
    let at = 0;
    while (at < expected.length && at < actual.length && expected[at] === actual[at]) at += 1;
    const around = (buf) => buf.subarray(Math.max(0, at - DIFF_CONTEXT), at + DIFF_CONTEXT).toString('hex');
    const diff = `first difference at byte ${at} of ${expected.length} (protobufjs …${around(expected)}…, ` +
      `RustWriter …${around(actual)}…, ${actual.length} bytes)`;
    return { bytes: expected.length, identical: false, diff, nativeCalls: calls };
  });
}

/**
 * The rows of the report: one per message, or one for all when there are more than MAX_ROWS.
 * @param {Array<{bytes: number, identical: boolean, nativeCalls: number}>} checked Per message
 * @returns {Array<{first: number, messages: number, bytes: number, identical: boolean, nativeCalls: number}>} Rows
 */
function rowsOf(checked) {
  const groups = checked.length <= MAX_ROWS ? checked.map((c, i) => [i, 1]) : [[0, checked.length]];
  return groups.map(([start, count]) => {
    const part = checked.slice(start, start + count);
    const mean = (f) => part.reduce((sum, c) => sum + f(c), 0) / count;
    return {
      first: start + 1,
      messages: count,
      bytes: Math.round(mean((c) => c.bytes)),
      identical: part.every((c) => c.identical),
      nativeCalls: Math.round(mean((c) => c.nativeCalls) * 100) / 100,
    };
  });
}

/**
 * Prints progress on stderr: one updated line on a terminal, else a line every PROGRESS_STEP.
 * @param {NodeJS.WriteStream} stderr Stream
 * @returns {{update: (done: number, left: number) => void, end: () => void}} Progress
 */
function progressOn(stderr) {
  let next = PROGRESS_STEP;
  let shown = '';
  return {
    update(done, left) {
      const text = `protobufjs-rustwriter: measuring, ${Math.floor(done * 100)}%, ~${Math.ceil(left)} s left`;
      if (stderr.isTTY) {
        if (text !== shown) stderr.write(`\r${text}\u001b[K`);
        shown = text;
      } else if (done >= next - 1e-9) {
        stderr.write(`${text}\n`);
        while (next <= done + 1e-9) next += PROGRESS_STEP;
      }
    },
    end() {
      if (stderr.isTTY) stderr.write('\r\u001b[K');
    },
  };
}

/**
 * Runs the command.
 * @param {string[]} argv Arguments after the program name
 * @param {{cwd: string, env: object, stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream}} io Where it runs
 * @returns {number} Exit code
 */
function main(argv, io) {
  try {
    return measure(argv, io);
  } catch (err) {
    if (err instanceof MeasureError) {
      io.stderr.write(`protobufjs-rustwriter: ${err.message}\n`);
      return 2;
    }
    io.stderr.write(`protobufjs-rustwriter: unexpected error, a bug in measure (please report it): ${err && err.stack ? err.stack : err}\n`);
    return 3;
  }
}

/**
 * {@link main} without its error handling.
 * @param {string[]} argv Arguments
 * @param {{cwd: string, env: object, stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream}} io Where it runs
 * @returns {number} Exit code
 */
function measure(argv, io) {
  const args = parseCommandLine(argv);
  if (args.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const { protobuf, version, dir } = findProtobuf(io.cwd, args.protobufjs);
  // This process must time protobufjs's own writer: undo the preload if NODE_OPTIONS ran it.
  uninstall(protobuf);
  const schema = path.resolve(io.cwd, args.schema);
  const options = { paths: args.paths.map((p) => path.resolve(io.cwd, p)), keepCase: args.keepCase };
  const types = [0, 1].map(() => lookupType(protobuf, loadSchema(protobuf, schema, options), args.type, schema));
  const type = types[0].fullName.slice(1);
  let inputs;
  let source;
  if (args.data.length) {
    inputs = readData(protobuf, args.data.map((f) => path.resolve(io.cwd, f)), args.delimited);
    source = `${inputs.length} message${inputs.length === 1 ? '' : 's'} from ${args.data.join(', ')}`;
  } else {
    inputs = samples(types[0]).map((json) => ({ file: '(samples)', json }));
    source = `no --data, so ${inputs.length} sample messages generated from the schema (seed ${SEED}: every field set, ` +
      `repeated fields and maps of ${SIZES.slice(0, -1).join(', ')} and ${SIZES[SIZES.length - 1]} elements)`;
  }
  const messages = types.map((T) => toMessages(protobuf, T, inputs, args));
  const flip = io.env[FLIP_ENV] === undefined ? null : Number(io.env[FLIP_ENV]);
  const report = {
    type, version, protobufjsDir: dir, source, samples: args.data.length === 0,
    native: status().native, forcedJs: io.env.PROTOBUFJS_RUSTWRITER === 'js', rows: [],
  };

  const checked = check(types, messages, flip);
  report.rows = rowsOf(checked);
  if (reportDifferences(report, checked, args, io, 'before timing')) return 1;

  io.stderr.write(`protobufjs-rustwriter: ${type}: ${source}; timing protobufjs and RustWriter for ~${args.seconds} s\n`);
  const progress = progressOn(io.stderr);
  const rows = report.rows.map((row) => {
    const range = (list) => list.slice(row.first - 1, row.first - 1 + row.messages);
    return { messages: row.messages, fns: [0, 1].map((w) => compileEncoder(ENCODE[w], types[w], range(messages[w]))) };
  });
  const timed = timeRows(rows, args.seconds, progress.update);
  progress.end();
  timed.forEach((t, i) => Object.assign(report.rows[i], t));

  const after = check(types, messages, null);
  if (reportDifferences({ ...report, rows: rowsOf(after) }, after, args, io, 'after timing')) return 1;
  io.stdout.write(args.json ? `${JSON.stringify(toJson(report), null, 2)}\n` : formatText(report));
  return 0;
}

/**
 * Prints the messages whose bytes differ (stderr, and the JSON on stdout with `--json`).
 * @param {object} report Report
 * @param {Array<{identical: boolean, diff: string|null}>} checked Per message
 * @param {{json: boolean}} args Options
 * @param {{stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream}} io Streams
 * @param {string} when 'before timing' or 'after timing'
 * @returns {boolean} Whether any differ
 */
function reportDifferences(report, checked, args, io, when) {
  const differing = checked.map((c, i) => ({ ...c, index: i })).filter((c) => !c.identical);
  if (differing.length === 0) return false;
  for (const c of differing.slice(0, DIFFS_SHOWN)) {
    io.stderr.write(`protobufjs-rustwriter: RustWriter's bytes differ from protobufjs's (${when}): ${report.type} message #${c.index + 1}: ` +
      `${c.diff}; this is a bug in RustWriter: please report it with the schema and message\n`);
  }
  if (differing.length > DIFFS_SHOWN) io.stderr.write(`protobufjs-rustwriter: and ${differing.length - DIFFS_SHOWN} more messages differ\n`);
  if (args.json) io.stdout.write(`${JSON.stringify(toJson(report), null, 2)}\n`);
  return true;
}

module.exports = { main };
