'use strict';

/**
 * `protobufjs-rustwriter measure`: the gain on the user's own messages, in each protobufjs copy
 * their app has. Lists the copies (lib/measure/copies.js), and for each one it times (every 7.x or
 * 8.x version the app has, once per version, or the one `--protobufjs` names) loads their schema three
 * times, once per contender (lib/measure/contenders.js): protobufjs's own writer, RustWriter through
 * the Writer API, RustWriter with compiled encoders. It checks the data against the schema
 * (lib/measure/check-data.js: warnings, the messages are still timed), checks that both RustWriter
 * ways give protobufjs's bytes for every message, times all contenders of all copies alternately
 * (lib/measure/time.js), and reports (lib/measure/report.js). Exit codes: 0 measured, 1 a byte
 * difference, 2 an input problem (lib/measure/args.js `MeasureError`), 3 a bug in measure itself.
 *
 * Test-only hook: `PROTOBUFJS_RUSTWRITER_TEST_FLIP_BYTE=<offset>` inverts byte `offset` of each of
 * RustWriter's outputs (both ways) in the check before timing, so that the tests can see a
 * difference reported (test/measure.test.js). Nothing else reads it.
 */

const path = require('path');
const { RustWriter } = require('../writer/writer');
const { callsMade } = require('../writer/native');
const { status } = require('../integration/status');
const { parseCommandLine, MeasureError, USAGE } = require('./args');
const { findProtobuf, readData, toMessages, oneLine } = require('./load');
const { findCopies, displayPath, realDir } = require('./copies');
const { loadContenders, keptOf, CONTENDERS } = require('./contenders');
const { jsonProblems, verifyProblem } = require('./check-data');
const { samples, SIZES, SEED } = require('./sample');
const { timeRows } = require('./time');
const { MAJORS, supportedVersion } = require('../encoders/rules');
const { formatText, toJson, warningText } = require('./report');

const FLIP_ENV = 'PROTOBUFJS_RUSTWRITER_TEST_FLIP_BYTE';
/** Up to this many messages get a row each; more are timed as one row (encoding each in turn). */
const MAX_ROWS = 10;
/** Differences, and warnings about the data, printed before "and N more". */
const DIFFS_SHOWN = 5;
const WARNINGS_SHOWN = 5;
/** Bytes of context shown either side of a difference. */
const DIFF_CONTEXT = 8;
/** Without a terminal, progress is printed every this fraction of the rounds. */
const PROGRESS_STEP = 0.25;

/** What one encode is, per contender: protobufjs's own (`Writer.create()` inside `encode`, as users
 * call it), and RustWriter (passed in, as `install()` would have `Writer.create()` return it) through
 * protobufjs's encoders and through compiled ones. */
const ENCODE = { own: 'T.encode(m).finish()', api: 'T.encode(m, W.create()).finish()', compiled: 'T.encode(m, W.create()).finish()' };
/** The RustWriter ways the byte check compares with protobufjs's own writer, and their names. */
const WAYS = [['compiled', 'compiled encoders'], ['api', 'Writer API']];

/**
 * A function that encodes `messages` `n` times with one contender, compiled per copy, row and
 * contender with a source of its own (`label`), so that no call site, and so no type feedback, is
 * shared between them.
 * @param {string} encode Expression encoding `m` with type `T` (and writer class `W`)
 * @param {object} T Type
 * @param {object[]} messages Messages of the row
 * @param {string} label Names the copy, row and contender
 * @returns {(n: number) => Uint8Array} Encoder, returning its last result
 */
function compileEncoder(encode, T, messages, label) {
  const body = messages.length === 1
    ? `const m = ms[0]; let r; for (let i = 0; i < n; ++i) r = ${encode}; return r;`
    : `let r; for (let i = 0; i < n; ++i) for (let j = 0; j < ms.length; ++j) { const m = ms[j]; r = ${encode}; } return r;`;
  return new Function('T', 'ms', 'W', `'use strict'; return function encodeRow(n) { // ${label}\n${body} };`)(T, messages, RustWriter);
}

/**
 * Where two encodings first differ, for a person.
 * @param {Buffer} expected protobufjs's bytes
 * @param {Buffer} actual RustWriter's
 * @returns {string} Text
 */
function describeDiff(expected, actual) {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at += 1;
  const around = (buf) => buf.subarray(Math.max(0, at - DIFF_CONTEXT), at + DIFF_CONTEXT).toString('hex');
  return `first difference at byte ${at} of ${expected.length} (protobufjs …${around(expected)}…, ` +
    `RustWriter …${around(actual)}…, ${actual.length} bytes)`;
}

/**
 * Encodes every message of a copy with protobufjs's writer and with both RustWriter ways, and
 * compares the bytes.
 * @param {{types: object, messages: object, compiled: boolean}} copy A timed copy
 * @param {number|null} flip Byte to invert in RustWriter's outputs (test hook), or null
 * @returns {Array<{bytes: number, identical: boolean, diff: string|null, nativeCalls: number,
 *   apiNativeCalls: number}>} Per message
 */
function check(copy, flip) {
  return copy.messages.own.map((own, i) => {
    let expected;
    try {
      expected = Buffer.from(copy.types.own.encode(own).finish());
    } catch (err) {
      throw new MeasureError(`protobufjs's own writer cannot encode message #${i + 1} (${oneLine(err)}): fix the data`);
    }
    const result = { bytes: expected.length, identical: true, diff: null, nativeCalls: 0, apiNativeCalls: 0 };
    for (const [way, name] of WAYS) {
      const before = callsMade();
      let actual;
      try {
        actual = Buffer.from(copy.types[way].encode(copy.messages[way][i], RustWriter.create()).finish());
      } catch (err) {
        result.identical = false;
        result.diff = result.diff || `${name}: RustWriter threw ${oneLine(err)} where protobufjs gave ${expected.length} bytes`;
        continue;
      }
      result[way === 'api' ? 'apiNativeCalls' : 'nativeCalls'] = (callsMade() - before) >>> 0;
      if (flip !== null && flip < actual.length) actual[flip] ^= 0xff;
      if (!expected.equals(actual)) {
        result.identical = false;
        result.diff = result.diff || `${name}: ${describeDiff(expected, actual)}`;
      }
    }
    return result;
  });
}

/**
 * The rows of a copy's report: one per message, or one for all when there are more than MAX_ROWS.
 * @param {Array<{bytes: number, identical: boolean, nativeCalls: number, apiNativeCalls: number}>} checked Per message
 * @param {boolean[]} fits Per message, whether it fits the schema
 * @returns {Array<{first: number, messages: number, bytes: number, identical: boolean, nativeCalls: number,
 *   apiNativeCalls: number, unfit: number}>} Rows
 */
function rowsOf(checked, fits) {
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
      apiNativeCalls: Math.round(mean((c) => c.apiNativeCalls) * 100) / 100,
      unfit: fits.slice(start, start + count).filter((fit) => !fit).length,
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
 * The copies to list and the ones to time: with `--protobufjs`, the one it names; else the app's
 * own, then @grpc/proto-loader's, then the others, each 7.x or 8.x version once (copies of one
 * version run the same code).
 * @param {string} cwd The app's directory
 * @param {string|undefined} option `--protobufjs`
 * @returns {{found: object, copies: object[]}} What lib/measure/copies.js found, and every copy, each
 *   with `timed` (whether to time it) and `note` (why not, or what else), the copy to report first
 *   first among the timed
 */
function planCopies(cwd, option) {
  const found = findCopies(cwd);
  const rank = (c) => (c.app ? 0 : c.grpc ? 1 : 2);
  const byPath = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const copies = found.copies.slice().sort((a, b) => rank(a) - rank(b) || byPath(a, b));
  for (const copy of copies) Object.assign(copy, { timed: false, note: null, named: false });
  if (option !== undefined) {
    const named = findProtobuf(cwd, option);
    const real = realDir(named.dir) || named.dir;
    let copy = copies.find((c) => c.real === real);
    if (copy === undefined) {
      copy = { version: named.version, path: named.dir, real, app: false, grpc: false, usedBy: [], note: null };
      copies.push(copy);
    }
    Object.assign(copy, { named: true, timed: true });
    for (const other of copies) if (other !== copy) other.note = 'not timed: --protobufjs names another copy';
  } else {
    if (copies.length === 0) throw new MeasureError(`cannot find protobufjs from ${cwd}: run it in your app's directory or pass --protobufjs <dir>`);
    const byVersion = new Map();
    for (const copy of copies) {
      if (!supportedVersion(copy.version)) copy.note = `not timed: RustWriter installs into protobufjs ${MAJORS.map((m) => `${m}.x`).join(' and ')} only`;
      else if (byVersion.has(copy.version)) copy.note = `not timed: the same version as ${displayPath(cwd, byVersion.get(copy.version).path)}`;
      else {
        copy.timed = true;
        byVersion.set(copy.version, copy);
      }
    }
    if (byVersion.size === 0) {
      throw new MeasureError(`no protobufjs 7.x or 8.x found from ${cwd} (found ${copies.map((c) => c.version).join(', ')}): ` +
        'RustWriter installs into 7.x and 8.x; pass --protobufjs <dir> to name a copy');
    }
  }
  const timed = copies.filter((c) => c.timed);
  return { found, copies: [...timed, ...copies.filter((c) => !c.timed)] };
}

/**
 * The warnings about the data of one copy's messages: the JSON checks (the same for every copy)
 * and that copy's own `Type.verify`.
 * @param {object} copy A loaded copy
 * @param {Array<Array<{field: string, problem: string}>>} problems Per message, from the JSON check
 * @param {Array<{file: string}>} inputs Inputs
 * @param {string} type Type name
 * @returns {Array<{type: string, message: number, file: string|null, field: string|null, problem: string,
 *   protobufjs: string|null}>} Warnings
 */
function dataWarnings(copy, problems, inputs, type) {
  const warnings = [];
  copy.messages.own.forEach((message, i) => {
    const file = inputs[i].file === '(samples)' ? null : path.basename(inputs[i].file);
    for (const p of problems[i] || []) {
      warnings.push({ type, message: i + 1, file, field: p.field, problem: p.problem, protobufjs: null });
    }
    const verified = verifyProblem(copy.types.own, message);
    if (verified !== null) {
      const m = /^([\w.[\]"]+): (.*)$/.exec(verified);
      const [field, problem] = m ? [m[1], m[2]] : [null, verified];
      warnings.push({ type, message: i + 1, file, field, problem, protobufjs: copy.version });
    }
  });
  return warnings;
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
  const { found, copies } = planCopies(io.cwd, args.protobufjs);
  const schema = path.resolve(io.cwd, args.schema);
  const options = { paths: args.paths.map((p) => path.resolve(io.cwd, p)), keepCase: args.keepCase };
  const timed = [];
  let inputs = null;
  let source = null;
  let problems = [];
  let type = null;
  for (const copy of copies.filter((c) => c.timed)) {
    const first = timed.length === 0;
    try {
      let protobuf;
      try {
        protobuf = require(copy.real);
      } catch (err) {
        throw new MeasureError(`protobufjs ${copy.version} at ${copy.real} does not load (${oneLine(err)}): reinstall it, or pass --protobufjs <dir>`);
      }
      const loaded = loadContenders(protobuf, `copy ${timed.length + 1}`, schema, options, args.type);
      if (first) {
        type = loaded.types.own.fullName.slice(1);
        if (args.data.length) {
          inputs = readData(protobuf, args.data.map((f) => path.resolve(io.cwd, f)), args.delimited);
          source = `${inputs.length} message${inputs.length === 1 ? '' : 's'} from ${args.data.join(', ')}`;
        } else {
          inputs = samples(loaded.types.own).map((json) => ({ file: '(samples)', json }));
          source = `no --data, so ${inputs.length} sample messages generated from the schema (seed ${SEED}: every field set, ` +
            `repeated fields and maps of ${SIZES.slice(0, -1).join(', ')} and ${SIZES[SIZES.length - 1]} elements)`;
        }
        problems = inputs.map(({ json }) => (json === undefined ? [] : jsonProblems(protobuf, loaded.types.own, json)));
      }
      const messages = {};
      for (const k of CONTENDERS) messages[k] = toMessages(protobuf, loaded.types[k], inputs, args, problems);
      const { types, compiled, whyNotCompiled } = loaded;
      Object.assign(copy, { protobuf, types, compiled, whyNotCompiled, messages });
      timed.push(copy);
    } catch (err) {
      if (first || !(err instanceof MeasureError)) throw err;
      Object.assign(copy, { timed: false, note: `not timed: ${err.message}` });
    }
  }

  const warnings = [];
  const seen = new Set();
  for (const copy of timed) {
    copy.warnings = dataWarnings(copy, problems, inputs, type);
    for (const w of copy.warnings) {
      const key = JSON.stringify([w.message, w.field, w.problem]);
      if (!seen.has(key)) {
        seen.add(key);
        warnings.push(w);
      }
    }
  }
  const flip = io.env[FLIP_ENV] === undefined ? null : Number(io.env[FLIP_ENV]);
  const report = {
    type, source, samples: args.data.length === 0, cwd: io.cwd, native: status().native,
    forcedJs: io.env.PROTOBUFJS_RUSTWRITER === 'js', found, copies, warnings, seconds: args.seconds,
  };
  for (const copy of timed) {
    copy.fits = inputs.map((_, i) => !copy.warnings.some((w) => w.message === i + 1));
    copy.checked = check(copy, flip);
    copy.kept = copy.compiled ? keptOf(copy.protobuf, copy.types.compiled) : [];
    copy.rows = rowsOf(copy.checked, copy.fits);
  }
  if (reportDifferences(report, 'before timing', args, io)) return 1;

  for (const w of warnings.slice(0, WARNINGS_SHOWN)) {
    io.stderr.write(`protobufjs-rustwriter: warning: ${warningText(w)}; its times may be meaningless (it is timed as protobufjs reads it)\n`);
  }
  if (warnings.length > WARNINGS_SHOWN) io.stderr.write(`protobufjs-rustwriter: warning: and ${warnings.length - WARNINGS_SHOWN} more problems in the data\n`);
  const what = timed.length === 1 ? `protobufjs ${timed[0].version}` : `${timed.length} protobufjs copies (${timed.map((c) => c.version).join(', ')})`;
  io.stderr.write(`protobufjs-rustwriter: ${type}: ${source}; timing ${what}: ${timed.length === 1 ? 'its' : 'each one\'s'} own writer, RustWriter through the Writer API ` +
    `and with compiled encoders, for ~${args.seconds} s\n`);
  const progress = progressOn(io.stderr);
  const jobs = [];
  timed.forEach((copy, c) => copy.rows.forEach((row, r) => {
    const range = (list) => list.slice(row.first - 1, row.first - 1 + row.messages);
    const contenders = copy.compiled ? CONTENDERS : CONTENDERS.filter((k) => k !== 'compiled');
    const fns = contenders.map((k) => compileEncoder(ENCODE[k], copy.types[k], range(copy.messages[k]), `copy ${c + 1}, row ${r + 1}, ${k}`));
    jobs.push({ row, contenders, timing: { messages: row.messages, fns } });
  }));
  const results = timeRows(jobs.map((job) => job.timing), args.seconds, progress.update);
  progress.end();
  jobs.forEach(({ row, contenders }, j) => {
    const t = results[j];
    const at = (k) => contenders.indexOf(k);
    row.ns = { own: t.ns[0], api: t.ns[at('api')], compiled: at('compiled') < 0 ? null : t.ns[at('compiled')] };
    row.apiSpeedup = t.speedups[at('api')];
    row.compiledSpeedup = at('compiled') < 0 ? null : t.speedups[at('compiled')];
    // What RustWriter gives an app (the preload, install()): compiled encoders where the copy has them.
    row.speedup = row.compiledSpeedup || row.apiSpeedup;
  });

  for (const copy of timed) copy.checked = check(copy, null);
  if (reportDifferences(report, 'after timing', args, io)) return 1;
  io.stdout.write(args.json ? `${JSON.stringify(toJson(report), null, 2)}\n` : formatText(report));
  return 0;
}

/**
 * Prints the messages whose bytes differ (stderr, and the JSON on stdout with `--json`).
 * @param {object} report Report, each timed copy with its `checked` messages
 * @param {string} when 'before timing' or 'after timing'
 * @param {{json: boolean}} args Options
 * @param {{stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream}} io Streams
 * @returns {boolean} Whether any differ
 */
function reportDifferences(report, when, args, io) {
  const differing = [];
  for (const copy of report.copies.filter((c) => c.timed)) {
    copy.checked.forEach((c, i) => {
      if (!c.identical) differing.push({ ...c, index: i, version: copy.version });
    });
  }
  if (differing.length === 0) return false;
  for (const c of differing.slice(0, DIFFS_SHOWN)) {
    io.stderr.write(`protobufjs-rustwriter: RustWriter's bytes differ from protobufjs's (${when}): protobufjs ${c.version}, ` +
      `${report.type} message #${c.index + 1}: ${c.diff}; this is a bug in RustWriter: please report it with the schema and message\n`);
  }
  if (differing.length > DIFFS_SHOWN) io.stderr.write(`protobufjs-rustwriter: and ${differing.length - DIFFS_SHOWN} more messages differ\n`);
  if (args.json) {
    for (const copy of report.copies.filter((c) => c.timed)) copy.rows = rowsOf(copy.checked, copy.fits);
    io.stdout.write(`${JSON.stringify(toJson(report), null, 2)}\n`);
  }
  return true;
}

module.exports = { main };
