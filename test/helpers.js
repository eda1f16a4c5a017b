'use strict';

/**
 * Runs one call script against two writers and compares what they produce.
 *
 * A script is a list of steps `[method, ...args]`; the special steps `['finish']` and `['pos']`
 * record the writer's output or position. Both writers run until the script ends or a step
 * throws; the transcripts (outputs, positions, and the class of a thrown error) must match.
 */

const protobuf = require('protobufjs');
const { RustWriter } = require('..');

/** protobufjs 8.8.1's writer, never installed-over: the reference. */
function referenceWriter() {
  return new protobuf.BufferWriter();
}

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

/** Transcripts of `script` through RustWriter and through protobufjs 8.8.1. */
function runBoth(script) {
  return { actual: transcript(RustWriter.create(), script), expected: transcript(referenceWriter(), script) };
}

/** Bytes (hex) a writer callback produces through RustWriter and through protobufjs. */
function bothHex(write) {
  return {
    actual: Buffer.from(write(RustWriter.create()).finish()).toString('hex'),
    expected: Buffer.from(write(referenceWriter()).finish()).toString('hex'),
  };
}

/** Small deterministic PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

module.exports = { runBoth, bothHex, referenceWriter, prng };
