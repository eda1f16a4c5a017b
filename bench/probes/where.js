'use strict';

/**
 * Where an encode's time goes, by kind of work: runs one bench case's op for one contender
 * (bench/cases.js prepareCase) under V8's sampling profiler and sums the samples' own time by the
 * function they are in, grouped:
 *
 * - `generated code`: the encoders' own code (protobufjs's generated encoders, the compiled ones,
 *   inlined nested Types): presence checks, property reads, loops, and the bytes a compiled encoder
 *   writes inline;
 * - `tier 0`: the cold encoders' counting wrapper (lib/encoders/compile.js, "Tiers");
 * - `strings`, `bytes`, `64-bit values`, `other scalars`, `packed fields`: the writers' methods and
 *   helpers for them (RustWriter's or protobufjs's);
 * - `lengths`: forks, `ldelim()`, sections and their entries;
 * - `finish()`: splicing lengths in, allocating and copying the result;
 * - `GC`, and `other` (the op itself, the profiler, what matched nothing).
 *
 *   node bench/probes/where.js [case] [contender] [seconds]
 *
 * Defaults: temporal, rust, 4 s. Sampling every 100 µs slows the op by ~20%, alike for every kind.
 * On the wide case (`temporal`) it shows how much of RustWriter's time is in code no writer can take:
 * the generated code's checks and reads over hundreds of shapes.
 */

const inspector = require('inspector');
const { CASES, prepareCase } = require('../cases');

const [id = 'temporal', key = 'rust', seconds = '4'] = process.argv.slice(2);
const SAMPLING_US = 100;

/** Kinds of work, first match wins: a pattern over `function file`. */
const KINDS = [
  ['GC', /^\(garbage collector\)/],
  ['tier 0', /^encode_cold /],
  ['finish()', /^(finish\w*|sealAs\w*|sealAssembled|seal|assemble|resolve|allocResult|viewOf|createUnsafe\w*|FastBuffer|encodeRuns|checkKept) |^move finish\.js|^move region\.js|^place /],
  ['lengths', /^(fork|ldelim|reset|pushFork|popFork|closeSection|fixup|fixupBefore|delimit|entry|growEntries|mark|addedMark|prefix\w*) /],
  ['strings', /^(write_string\w*|putString|putUtf8|utf8Write|utf8_write|byteLength\w*|writeStringBuffer|write_string_buffer) /],
  ['bytes', /^(write_bytes\w*|copyBytes|reference|write_raw|writeBytes\w*|bytesOf) /],
  ['64-bit values', /^(write_u?int64|write_sint64|write_s?fixed64|longBits|decimalBits|LongBits\w*|putVarint64|putZigzag64|from|fromString|fromNumber) /],
  ['packed fields', /^(loop\w+|long\w+s|varints\w*|writeVarints|\w+s_packed|write_\w+s) /],
  ['other scalars', /^(write_\w+|put\w+|writeVarint\w*|writeFixed\w*|writeFloat\w*|writeDouble\w*|_reserve|grow|room|roomAt|growHeld|move|via|lend|takeBack) /],
  ['generated code', /^(write_\w+|encode_\w+|\w+\$encode|encodeOp|anonymous)? /],
];

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
 * @param {{functionName: string, url: string}} frame A profile node's call frame
 * @returns {string} Its kind of work
 */
function kindOf(frame) {
  const file = frame.url.split(/[\\/]/).pop();
  const label = `${frame.functionName} ${file}`;
  if (frame.url === '' && /^(write_|encode_)/.test(frame.functionName)) return 'generated code';
  // protobufjs's generated encoders have no name and no file of their own
  if (frame.functionName === '' && file === '') return 'generated code';
  for (const [kind, pattern] of KINDS) if (pattern.test(label)) return kind;
  return 'other';
}

/**
 * Profiles the op and prints the report.
 * @returns {Promise<undefined>}
 */
async function main() {
  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown case ${id}`);
  if (c.codegen === 'static') throw new Error('the static case needs bench/static.js; profile a reflection case');
  const [contender] = prepareCase(c, null, [key]);
  if (!contender) throw new Error(`unknown contender ${key}`);
  const warmUntil = Date.now() + 1500;
  while (Date.now() < warmUntil) contender.fn();
  const session = new inspector.Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: SAMPLING_US });
  await post(session, 'Profiler.start');
  const deadline = Date.now() + Number(seconds) * 1000;
  let ops = 0;
  while (Date.now() < deadline) {
    contender.fn();
    ops += 1;
  }
  const { profile } = await post(session, 'Profiler.stop');
  session.disconnect();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map();
  let total = 0;
  profile.samples.forEach((nodeId, i) => {
    const frame = byId.get(nodeId).callFrame;
    // the profiler's own work (the inspector's `dispatch`), and no JS at all
    if (frame.functionName === '(idle)' || frame.functionName === '(program)' || frame.functionName === 'dispatch') return;
    const dt = profile.timeDeltas[i];
    const kind = kindOf(frame);
    time.set(kind, (time.get(kind) || 0) + dt);
    total += dt;
  });
  process.stdout.write(`${id}, ${contender.name}: ${((Number(seconds) * 1e6) / ops).toFixed(1)} µs an op (profiled), ` +
    `${ops} ops\n`);
  for (const [kind, us] of [...time].sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`  ${kind.padEnd(16)} ${((100 * us) / total).toFixed(1).padStart(5)}%\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
