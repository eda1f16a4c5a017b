'use strict';

/**
 * Runs one call script against two writers and compares what they produce.
 *
 * A script is a list of steps `[method, ...args]`; the special steps `['finish']` and `['pos']`
 * record the writer's output or position. Both writers run until the script ends or a step
 * throws; the transcripts (outputs, positions, and the class of a thrown error) must match.
 */

const Long = require('long');
const protobuf = require('protobufjs');
const { RustWriter, _testing } = require('..');

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

/** The 64-bit packed methods, where RustWriter encodes BigInt elements. */
const PACKED_64 = new Set(['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s']);

/**
 * What the reference writer gets for an argument of `method`: the equal `Long`s for BigInt
 * arrays given to a 64-bit packed method (protobufjs writes 0 for a BigInt; RustWriter encodes
 * it, see README "Compatibility").
 * @param {string} method Method
 * @param {*} arg Argument
 * @returns {*} Argument for protobufjs
 */
function referenceArg(method, arg) {
  if (!PACKED_64.has(method) || !(arg instanceof BigInt64Array || arg instanceof BigUint64Array)) return arg;
  return Array.from(arg, (b) => {
    const u = BigInt.asUintN(64, b);
    return Long.fromBits(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0);
  });
}

/** protobufjs 8.8.1's writer, never installed-over: the reference. */
function referenceWriter() {
  return new protobuf.BufferWriter();
}

function transcript(writer, script, mapArg = (method, arg) => arg) {
  const out = [];
  for (const [method, ...raw] of script) {
    const args = raw.map((arg) => mapArg(method, arg));
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

/** Transcripts of `script` through RustWriter and through protobufjs 8.8.1. */
function runBoth(script) {
  return { actual: runOurs(script), expected: transcript(referenceWriter(), script, referenceArg) };
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
 * The fields of a proto3 message whose compiled code is too large for one function
 * (lib/encoders/code.js `PART_MAX`): its Type's function calls functions of parts of its fields.
 */
const PARTS_FIELDS = Array.from({ length: 400 }, (_, i) => `int64 f${i} = ${i + 1};`).join(' ');

module.exports = { runBoth, runOurs, bothHex, referenceWriter, PATHS, withPath, PARTS_FIELDS };
