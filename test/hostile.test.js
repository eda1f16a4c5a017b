'use strict';

/**
 * The native entry points called directly with malformed input: random and truncated tapes,
 * unknown opcodes, regions outside the tape, lengths past the end, a tape that claims a 4 GB
 * output, wrong argument types, calls out of order. Each must end in a JS exception with a clear
 * message (or a correct result), never a crash, and the engine must keep working afterwards.
 */

const assert = require('assert');
const { prng } = require('./helpers');
const P = require('../protocol.json');

const native = require('..').RustWriter.native;
/** Random tapes per run (the fast version; a failure prints the seed to replay). */
const RANDOM_TAPES = Number(process.env.HOSTILE_COUNT || 20000);

describe('the native entry points given hostile input', function () {
  this.timeout(120000);
  if (!native) return;
  const binding = require('../binding.js');
  let engine;
  let ctl;
  let tape;
  let words;

  beforeEach(() => {
    engine = binding.createEngine();
    ctl = new Int32Array(engine.control.buffer, engine.control.byteOffset, P.CTL_WORDS);
    tape = Buffer.from(engine.tape(4096, true));
    words = new Int32Array(tape.buffer, tape.byteOffset, tape.length >>> 2);
  });

  /** Replays words [start, end) of the current tape; returns its length or the error thrown. */
  function finish(start, end, refs = 0) {
    ctl[P.CTL_START] = start;
    ctl[P.CTL_END] = end;
    ctl[P.CTL_REFS] = refs;
    try {
      return engine.finish();
    } catch (err) {
      return err;
    }
  }

  /** Asserts that the engine still encodes a valid tape correctly. */
  function assertStillWorks() {
    words.set([P.UINT32, 300, P.FORK, 0, P.UINT32, 1, P.LDELIM, 0], 0);
    const len = finish(0, 8);
    assert.strictEqual(len, 4);
    const slab = engine.slab();
    assert.deepStrictEqual([...new Uint8Array(slab, ctl[P.CTL_OFFSET], len)], [0xac, 0x02, 0x01, 0x01]);
  }

  it(`rejects or encodes ${RANDOM_TAPES} random tapes, never crashing`, () => {
    const opcodes = Object.entries(P).filter(([name]) => !/^(CTL_|MAX_)/.test(name)).map(([, value]) => value);
    let errors = 0;
    for (let seed = 1; seed <= RANDOM_TAPES; seed++) {
      const r = prng(seed);
      const n = 2 + r.int(64);
      for (let i = 0; i < n; i++) {
        // Mostly plausible records with hostile operands, sometimes plain garbage.
        const roll = r();
        if (roll < 0.4) words[i] = r.pick(opcodes);
        else if (roll < 0.6) words[i] = r.pick([0, 1, 2, 7, 8, 9, 0x7fffffff, -1, -8, 1 << 30]);
        else words[i] = (r() * 2 ** 32) | 0;
      }
      const result = finish(0, n, r.int(3));
      if (result instanceof Error) {
        errors++;
        assert.match(result.message, /invalid tape|too large|references|result slab|overlaps|message too large|more references/,
          `seed ${seed}: unexpected message ${result.message}`);
      } else {
        assert.ok(Number.isInteger(result) && result >= 0, `seed ${seed}: ${result}`);
      }
    }
    assert.ok(errors > RANDOM_TAPES / 4, `most random tapes are invalid (${errors})`);
    assertStillWorks();
  });

  it('rejects regions outside the tape, reversed or negative', () => {
    const total = words.length;
    for (const [start, end] of [[0, total + 1], [10, 5], [-1, 4], [0, -2], [total + 2, total + 4], [0x7fffffff, 0x7fffffff]]) {
      const result = finish(start, end);
      assert.ok(result instanceof Error, `${start}..${end}`);
      assert.match(result.message, /invalid tape region/);
    }
    assertStillWorks();
  });

  it('rejects lengths and counts that run past the end of the tape', () => {
    for (const op of [P.BYTES, P.RAW, P.PACKED_UINT32, P.PACKED_INT32, P.PACKED_FIXED32, P.PACKED_UINT64, P.PACKED_FIXED64]) {
      for (const count of [9, 1000, 0x3fffffff, -1]) {
        words.set([P.UINT32, 1, op, count, 0, 0], 0);
        const result = finish(0, 6);
        assert.ok(result instanceof Error, `op ${op} count ${count}`);
        assert.match(result.message, /invalid tape: record at word 2 is truncated/);
      }
    }
    words.set([P.UINT64, 0, 5], 0); // a 64-bit record cut short
    assert.match(finish(0, 3).message, /truncated/);
    assertStillWorks();
  });

  it('answers a tape that claims a 4 GB output with a RangeError-coded error, allocating nothing', () => {
    // A reference record needs no payload: 4 words claim up to 4 GiB.
    words.set([P.BYTES_REF, -1, 0, 0, P.BYTES_REF, 0x7ffffff0, 1, 0, P.BYTES_REF, 0x7ffffff0, 2, 0], 0);
    for (const end of [4, 12]) {
      const result = finish(0, end, 3);
      assert.ok(result instanceof Error);
      assert.strictEqual(result.code, 'ERR_OUT_OF_RANGE');
      assert.match(result.message, /message too large/);
    }
    assertStillWorks();
  });

  it('rejects wrong argument types and calls out of order', () => {
    assert.throws(() => engine.finishTape(42), /invalid argument/);
    assert.throws(() => engine.finishTape('tape'), /invalid argument/);
    assert.throws(() => engine.finishTape({ length: 8 }), /invalid argument/);
    assert.throws(() => engine.finishTape(engine.control), /overlaps the engine's own memory/);
    assert.throws(() => engine.measureTape(null), /invalid argument/);
    assert.throws(() => engine.writeInto(Buffer.alloc(4)), /different tape than it measured/);
    assert.throws(() => engine.writeInto('x'), /invalid argument/);
    assert.throws(() => engine.tape('big', true), /invalid argument/);
    assert.throws(() => engine.tape(8, 'yes'), /invalid argument/);
    assert.throws(() => engine.slab(), /no slab to take/);
    // A large result, then writeInto with the wrong length, then with the right one.
    words.set([P.BYTES_REF, 20000, 0, 0], 0);
    assert.strictEqual(finish(0, 4, 1), 20003);
    assert.strictEqual(ctl[P.CTL_OFFSET], -1);
    assert.throws(() => engine.writeInto(Buffer.alloc(100)), /different tape than it measured/);
    assert.strictEqual(finish(0, 4, 1), 20003);
    const out = Buffer.alloc(20003, 0xee);
    engine.writeInto(out);
    assert.deepStrictEqual([...out.subarray(0, 3)], [0xa0, 0x9c, 0x01]);
    assert.strictEqual(ctl[P.CTL_REFS], 1);
    assert.deepStrictEqual([ctl[P.CTL_HOLES], ctl[P.CTL_HOLES + 1]], [0, 3]);
    assert.throws(() => engine.writeInto(out), /different tape than it measured/, 'only once');
    assertStillWorks();
    assert.throws(() => engine.slab(), /no slab to take/, 'the slab is handed out once');
  });

  it('never writes into a detached result slab', () => {
    words.set([P.UINT32, 300], 0);
    assert.strictEqual(finish(0, 2), 2);
    const slab = engine.slab();
    structuredClone(slab, { transfer: [slab] });
    assert.strictEqual(slab.byteLength, 0);
    words.set([P.UINT32, 7], 0);
    const result = finish(0, 2);
    assert.ok(result instanceof Error);
    assert.match(result.message, /result slab was detached/);
    engine.retireSlab();
    assertStillWorks();
  });
});
