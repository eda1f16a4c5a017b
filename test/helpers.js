'use strict';

/**
 * Runs one call script against two writers and compares what they produce.
 *
 * A script is a list of steps `[method, ...args]`; the special steps `['finish']` and `['pos']`
 * record the writer's output or position. Both writers run until the script ends or a step
 * throws; the transcripts (outputs, positions, and the class of a thrown error) must match.
 */

const path = require('path');
const { RustWriter, _testing } = require('..');
const { referenceWriter: newReferenceWriter } = require('./reference');

/**
 * The paths a message can take through RustWriter, as `_testing.configure` options: the shipped
 * thresholds; every packed varint field through the native encoder (only with the addon); every
 * byte written by JS with nothing kept by reference; and tiny slabs with everything kept by
 * reference, so that messages move to the large and private buffers and are assembled out of
 * place. Tests that run a workload through each use {@link withPath}.
 */
const PATHS = [
  ['with the shipped thresholds', {}],
  ...(RustWriter.native ? [['with every packed varint field encoded natively', { runMin: 1, runMinTyped: 1 }]] : []),
  ['with every byte written by JS', { runMin: Infinity, runMinTyped: Infinity, refMin: Infinity }],
  // ... and the compiled encoders' calls of a helper a field rather than the statements spelled out in place.
  ['with 512-byte slabs, every array kept by reference and compiled fields as calls', { refMin: 1, slabBytes: 512, inlineMax: 0 }],
];

/**
 * Runs `fn` with RustWriter configured as `options`, then restores the configuration.
 * @param {object} options `_testing.configure` options
 * @param {Function} fn Workload
 * @returns {*} What `fn` returns
 */
function withPath(options, fn) {
  const previous = _testing.configure(options);
  try {
    return fn();
  } finally {
    _testing.configure(previous);
  }
}

/**
 * A writer of protobufjs 8.8.1 as the package never touched it: the reference copy's own
 * `BufferWriter` (test/reference.js), with the rules it learned of where RustWriter differs by
 * design (a BigInt to a 64-bit method, the placeholders of open forks).
 * @returns {object} Writer
 */
function referenceWriter() {
  return newReferenceWriter('8');
}

/**
 * What a writer does with a script.
 * @param {object} writer Writer
 * @param {Array[]} script Steps
 * @returns {string[]} Transcript
 */
function transcript(writer, script) {
  const out = [];
  for (const [method, ...args] of script) {
    try {
      if (method === 'finish') out.push(`finish ${Buffer.from(writer.finish()).toString('hex')}`);
      else if (method === 'pos') out.push(`pos ${writer.pos} len ${writer.len}`);
      else if (writer[method](...args) !== writer) out.push(`${method} did not return the writer`);
    } catch (err) {
      out.push(`${method} threw ${err && err.constructor && err.constructor.name}`);
      return out;
    }
  }
  return out;
}

/** Transcripts of `script` through RustWriter and through protobufjs 8.8.1 (the reference). */
function runBoth(script) {
  return { actual: runOurs(script), expected: transcript(referenceWriter(), script) };
}

/** The transcript of `script` through RustWriter alone. */
function runOurs(script) {
  return transcript(RustWriter.create(), script);
}

/** Bytes (hex) a writer callback produces through RustWriter and through protobufjs. */
function bothHex(write) {
  return {
    actual: Buffer.from(write(RustWriter.create()).finish()).toString('hex'),
    expected: Buffer.from(write(referenceWriter()).finish()).toString('hex'),
  };
}

/**
 * The package's settings as it ships them (`_testing.configure({})` of a fresh instance of it, whose
 * lib/ and index.js are loaded again and then dropped): what every test that moves them must have put
 * back.
 * @returns {object} Settings
 */
function shippedSettings() {
  const lib = path.join(__dirname, '..', 'lib') + path.sep;
  const index = require.resolve('..');
  const ownFiles = () => Object.keys(require.cache).filter((file) => file.startsWith(lib) || file === index);
  const saved = ownFiles().map((file) => [file, require.cache[file]]);
  for (const [file] of saved) delete require.cache[file];
  try {
    return require('..')._testing.configure({});
  } finally {
    for (const file of ownFiles()) delete require.cache[file];
    for (const [file, entry] of saved) require.cache[file] = entry;
  }
}

/**
 * The fields of a proto3 message whose compiled code is too large for one function
 * (lib/encoders/code.js `PART_MAX`): its Type's function calls functions of parts of its fields.
 */
const PARTS_FIELDS = Array.from({ length: 400 }, (_, i) => `int64 f${i} = ${i + 1};`).join(' ');

module.exports = { runBoth, runOurs, bothHex, referenceWriter, PATHS, withPath, PARTS_FIELDS, shippedSettings };
