'use strict';

/**
 * Every hold is released (lib/writer/region.js, "Holding"): a call that converts elements holds its
 * writer, and a writer left held would refuse every later call. For every converting method, on
 * every path it takes (short and chunked JS loops, the native run's conversion, bulk float
 * conversion, `bytes`/`raw` of an array-like, `string` of a non-string), a conversion that throws at
 * the first, a middle and the last element must leave the writer free, with protobuf.js's bytes and
 * position; the same calls that do not throw must release it too. And every hold in lib/writer/ has
 * the one shape that makes this so.
 */

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { RustWriter } = require('..');
const { referenceWriter, PATHS, withPath } = require('./helpers');

/** A conversion that throws. */
class Refused extends Error {}

/**
 * `count` small numbers, reading element `bad` throwing (none if -1), as a plain array (`plain`) or an
 * array-like object (which no typed-array `set` takes). The read itself throws, so every method
 * meets it, whatever it converts its elements with (`bools` takes their truthiness, the 64-bit ones
 * read a `Long`'s fields).
 * @param {number} count Elements
 * @param {number} bad Index of the throwing one, or -1
 * @param {boolean} plain Whether a plain array
 * @returns {ArrayLike<number>} Elements
 */
function elements(count, bad, plain) {
  const list = Array.from({ length: count }, (_, i) => i % 200);
  const out = plain ? list : Object.assign({ length: count }, list);
  if (bad >= 0) {
    Object.defineProperty(out, bad, { get() { throw new Refused(`element ${bad}`); } });
  }
  return out;
}

/** The converting methods, each with the sizes that take its paths (see lib/writer/packed.js). */
const CASES = [
  ...['uint32s', 'int32s', 'sint32s'].flatMap((method) => [
    [method, 5], [method, 300], [method, 17000], [method, 2100],
  ]),
  ...['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s'].flatMap((method) => [[method, 5], [method, 17000]]),
  ...['fixed32s', 'sfixed32s', 'floats', 'doubles', 'bools'].flatMap((method) => [
    [method, 5], [method, 20], [method, 300], [method, 17000],
  ]),
  ['bytes', 5], ['bytes', 5000], ['raw', 5], ['raw', 70000],
];

/**
 * Runs `method` with `arg` on a writer of `create`'s that holds a few bytes already, then writes
 * on; returns what an app can observe.
 * @param {function(): object} create Writer factory
 * @param {string} method Method
 * @param {*} arg Argument
 * @returns {{threw: string|null, pos: number, bytes: string}} The error class, `pos` after the call,
 * and the bytes of the writer written on and finished
 */
function observe(create, method, arg) {
  const w = create().uint32(8).uint32(150);
  let threw = null;
  try {
    w[method](arg);
  } catch (err) {
    threw = err.constructor.name;
  }
  const pos = w.pos;
  w.uint32(16).string('after').fork().uint32(1).ldelim();
  return { threw, pos, bytes: Buffer.from(w.finish()).toString('hex') };
}

describe('holds: a converting call always releases its writer', function () {
  this.timeout(120000);

  for (const [name, options] of PATHS) {
    it(`${name}: on every path of every converting method, whether an element throws or not`, () => {
      withPath(options, () => {
        for (const [method, count] of CASES) {
          for (const plain of [true, false]) {
            for (const bad of [-1, 0, count >> 1, count - 1]) {
              const arg = elements(count, bad, plain);
              const ours = observe(RustWriter.create, method, arg);
              const theirs = observe(referenceWriter, method, arg);
              const what = `${method} of ${count} ${plain ? 'array' : 'array-like'} elements, element ${bad} throwing`;
              assert.strictEqual(ours.threw, bad < 0 ? null : 'Refused', what);
              assert.deepStrictEqual(ours, theirs, what);
            }
          }
        }
        const string = { length: 3, charCodeAt: (i) => { if (i === 1) throw new Refused('unit 1'); return 97; } };
        assert.deepStrictEqual(observe(RustWriter.create, 'string', string), observe(referenceWriter, 'string', string));
      });
    });
  }

  it('has one shape for every hold in lib/writer/: hold, try, throw released(...) in the catch, release', () => {
    const dir = path.join(__dirname, '..', 'lib', 'writer');
    let holds = 0;
    for (const file of fs.readdirSync(dir).filter((f) => f !== 'region.js')) {
      const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const call = /^(\s*)hold\((\w+), /.exec(line);
        if (call === null) return;
        holds += 1;
        const [, indent, w] = call;
        const where = `${file}:${i + 1}`;
        assert.strictEqual(lines[i + 1], `${indent}try {`, `${where}: the hold is followed by try`);
        const close = lines.indexOf(`${indent}} catch (err) {`, i);
        assert.ok(close > i, `${where}: its try has a catch (err)`);
        assert.strictEqual(lines[close + 1], `${indent}  throw released(${w}, err);`, `${where}: the catch rethrows released(${w}, err)`);
        assert.strictEqual(lines[close + 2], `${indent}}`, `${where}: and does nothing else`);
        assert.strictEqual(lines[close + 3], `${indent}release(${w});`, `${where}: release(${w}) follows the try`);
        assert.ok(!lines.slice(i + 2, close).some((l) => /\b(return|break|continue)\b/.test(l)), `${where}: no way out of the try but its end or a throw`);
      });
    }
    assert.ok(holds >= 10, `found the holds (${holds})`);
  });
});
