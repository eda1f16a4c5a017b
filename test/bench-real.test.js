'use strict';

/**
 * The real-workload cases of the bench (bench/real/, bench/cases.js group `real`) give every
 * contender the same bytes to produce: their data never holds a value protobufjs 7.6.6 and 8.8.1
 * encode differently, the Temporal message spans every history event kind, and the data file the
 * first-encode processes read (bench/cold.js) gives back the same message. Not a timing: the bench
 * times them.
 */

const assert = require('assert');
const protobuf = require('protobufjs');
const protobuf7 = require('protobufjs7');
const { CASES, dataOf, rootOf } = require('../bench/cases');
const { jsonable } = require('../bench/cold');
const { revive } = require('../bench/cold-child');
const { Filler } = require('../bench/real/fill');
const temporal = require('../bench/real/temporal');
const { prng } = require('../tools/seeded');

const REAL = CASES.filter((c) => c.group === 'real');

/**
 * A case's input as a contender of protobufjs `pb` holds it, and its encoding.
 * @param {object} c Case
 * @param {object} pb protobufjs module
 * @param {{input: *, encoded: Uint8Array|null}} data Result of dataOf
 * @returns {Buffer} Bytes
 */
function encodeWith(c, pb, data) {
  const T = rootOf(c, pb).resolveAll().lookupType(c.type);
  const m = data.encoded ? T.decode(data.encoded) : c.fromObject ? T.fromObject(data.input) : data.input;
  return Buffer.from(T.encode(m).finish());
}

describe('bench: real-workload cases', function () {
  this.timeout(60000);

  for (const c of REAL) {
    it(`${c.id}: protobufjs 8.8.1 and 7.6.6 encode its input to the same bytes`, () => {
      const data = dataOf(c);
      assert.ok(encodeWith(c, protobuf, data).equals(encodeWith(c, protobuf7, data)));
    });
  }

  it('plain inputs survive the first-encode data file (JSON with bytes markers)', () => {
    for (const c of REAL.filter((x) => !x.decoded)) {
      const data = dataOf(c);
      const read = JSON.parse(JSON.stringify(jsonable(data.input)), revive);
      assert.ok(encodeWith(c, protobuf, data).equals(encodeWith(c, protobuf, { input: read, encoded: null })), c.id);
    }
  });

  it('the Temporal history holds every HistoryEvent attributes kind', () => {
    const { input, type } = dataOf(REAL.find((c) => c.id === 'temporal'));
    const members = type.root.lookupType('temporal.api.history.v1.HistoryEvent').oneofs.attributes.fieldsArray.map((f) => f.name);
    const seen = new Set(input.history.events.flatMap((e) => Object.keys(e)));
    assert.deepStrictEqual(members.filter((m) => !seen.has(m)), []);
    assert.strictEqual(input.history.events.length, temporal.HISTORY_EVENTS);
  });

  it('the filler sets no field to its default, and is the same from the same seed', () => {
    const root = protobuf.Root.fromJSON(temporal.schema()).resolveAll();
    const types = [];
    const visit = (ns) => ns.nestedArray.forEach((x) => {
      if (x instanceof protobuf.Type) types.push(x);
      if (x.nestedArray) visit(x);
    });
    visit(root);
    const fill = (seed) => types.filter((_, i) => i % 7 === 0).map((T) => new Filler(prng(seed)).message(T));
    const [a, b] = [fill(3), fill(3)];
    assert.deepStrictEqual(a, b);
    const isDefault = (v) => v === 0 || v === '' || v === false || (v instanceof Uint8Array && v.length === 0);
    const check = (value) => {
      if (isDefault(value)) throw new Error('a default value');
      if (value && typeof value === 'object' && !(value instanceof Uint8Array)) Object.values(value).forEach(check);
    };
    a.forEach(check);
  });
});
