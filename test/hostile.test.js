'use strict';

/**
 * The native entry points called directly with malformed input: random control blocks, unknown
 * run kinds, runs outside the value block, more runs than allowed, an output block too small,
 * wrong argument types, calls out of order, detached blocks. Each must end in a JS exception with
 * a clear message (or a correct result), never a crash, and the engine must keep working.
 */

const assert = require('assert');
const protobuf = require('protobufjs');
const { prng } = require('../tools/seeded');
const P = require('../protocol.json');

const native = require('..').RustWriter.native;
/** Random control blocks per run (the fast version; a failure prints the seed to replay). */
const RANDOM_CONTROLS = Number(process.env.HOSTILE_COUNT || 20000);
const KINDS = Object.entries(P).filter(([name]) => /^RUN_[A-Z]+\d+$/.test(name)).map(([, value]) => value);

describe('the native entry points given hostile input', function () {
  this.timeout(120000);
  before(function () {
    if (!native) this.skip(); // the JS-only path: no native entry points to call
  });
  const binding = native ? require('../lib/writer/addon').load().binding : null;
  let engine;
  let ctl;
  let values;

  beforeEach(() => {
    engine = binding.createEngine();
    ctl = new Uint32Array(engine.control.buffer, engine.control.byteOffset, P.CTL_WORDS);
    values = new Uint32Array(engine.values.buffer, engine.values.byteOffset, engine.values.length >>> 2);
  });

  /** Sets run `i` of the control block. */
  function setRun(i, kind, count, first) {
    const record = P.CTL_RECORDS + i * P.RUN_WORDS;
    ctl[record + P.RUN_KIND] = kind;
    ctl[record + P.RUN_COUNT] = count;
    ctl[record + P.RUN_FIRST] = first;
  }

  /** Calls finish() with `runs` runs; returns the total or the error thrown. */
  function finish(runs) {
    ctl[P.CTL_RUNS] = runs;
    try {
      engine.finish();
      return ctl[P.CTL_TOTAL];
    } catch (err) {
      return err;
    }
  }

  /** Asserts that the engine still encodes a valid run correctly. */
  function assertStillWorks() {
    values.set([300, 1, 0xffffffff], 0);
    setRun(0, P.RUN_UINT32, 3, 0);
    assert.strictEqual(finish(1), 8);
    assert.strictEqual(ctl[P.CTL_RECORDS + P.RUN_LEN], 8);
    assert.deepStrictEqual([...engine.output.subarray(0, 8)], [0xac, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f]);
  }

  it(`rejects or encodes ${RANDOM_CONTROLS} random control blocks, never crashing`, () => {
    const words = values.length;
    const pick = (r) => r.pick([0, 1, 2, words - 1, words, words + 1, 2 ** 31, 2 ** 32 - 1, r.int(words),
      r.int(2 ** 32)]);
    let errors = 0;
    for (let seed = 1; seed <= RANDOM_CONTROLS; seed++) {
      const r = prng(seed);
      const runs = r.pick([0, 1, 2, 5, r.int(P.MAX_RUNS + 2), 2 ** 32 - 1]);
      for (let i = 0; i < Math.min(runs, P.MAX_RUNS); i++) {
        const kind = r() < 0.9 ? r.pick(KINDS) : r.int(10);
        setRun(i, kind, r() < 0.5 ? r.int(64) : pick(r), r() < 0.5 ? r.int(64) : pick(r));
      }
      for (let i = 0; i < 64; i++) values[r.int(256)] = r.int(2 ** 32);
      const result = finish(runs);
      if (result instanceof Error) {
        assert.match(result.message, /invalid control block|output block too small|message too large/, `seed ${seed}`);
        assert.strictEqual(result.code, result instanceof RangeError ? 'ERR_OUT_OF_RANGE' : 'ERR_PROTOBUF_RUSTWRITER');
        assert.strictEqual(ctl[P.CTL_TOTAL], 0, `seed ${seed}`);
        errors++;
      } else {
        assert.ok(result <= engine.output.length, `seed ${seed}`);
      }
    }
    assert.ok(errors > RANDOM_CONTROLS / 10 && errors < RANDOM_CONTROLS, `${errors} errors`);
    assertStillWorks();
  });

  it('encodes every run kind as protobufjs does', () => {
    const elements = [0, 1, 127, 128, 300, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 16384, 2097151];
    const big = new BigUint64Array(engine.values.buffer, engine.values.byteOffset, 64);
    const longs = [0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 35n + 7n];
    values.set(elements, 0);
    big.set(longs, 8);
    setRun(0, P.RUN_UINT32, elements.length, 0);
    setRun(1, P.RUN_INT32, elements.length, 0);
    setRun(2, P.RUN_SINT32, elements.length, 0);
    setRun(3, P.RUN_UINT64, longs.length, 16);
    setRun(4, P.RUN_SINT64, longs.length, 16);
    const total = finish(5);
    assert.strictEqual(typeof total, 'number', String(total));
    const asLongs = longs.map((b) => protobuf.util.Long.fromString(b.toString(), true));
    const writers = [
      (w) => w.uint32s(elements), (w) => w.int32s(elements), (w) => w.sint32s(elements),
      (w) => w.uint64s(asLongs), (w) => w.sint64s(asLongs),
    ];
    let at = 0;
    for (let i = 0; i < writers.length; i++) {
      const expected = Buffer.from(writers[i](new protobuf.BufferWriter()).finish());
      const payload = expected.subarray(expected.length - ctl[P.CTL_RECORDS + i * P.RUN_WORDS + P.RUN_LEN]);
      assert.ok(engine.output.subarray(at, at + payload.length).equals(payload), `run ${i}`);
      at += payload.length;
    }
    assert.strictEqual(at, total);
  });

  it('refuses each kind of malformed control block with a clear message', () => {
    setRun(0, 0, 1, 0);
    assert.match(finish(1).message, /run 0 has unknown kind 0/);
    setRun(0, P.RUN_UINT32, 10, values.length - 5);
    assert.match(finish(1).message, /run 0 \(10 elements from word \d+\) lies outside the value block/);
    setRun(0, P.RUN_UINT64, 1, 1);
    assert.match(finish(1).message, /outside the value block/, 'a 64-bit run on an odd word');
    setRun(0, P.RUN_UINT32, 2 ** 32 - 1, 2 ** 32 - 1);
    assert.match(finish(1).message, /outside the value block/, 'no overflow of first + count');
    assert.match(finish(P.MAX_RUNS + 1).message, new RegExp(`${P.MAX_RUNS + 1} runs, at most ${P.MAX_RUNS}`));
    values.fill(0xffffffff);
    const perRun = Math.floor(values.length / 4);
    for (let i = 0; i < 4; i++) setRun(i, P.RUN_INT32, perRun, i * perRun); // 10 bytes each
    assert.match(finish(4).message, /output block too small: run \d needs \d+ bytes/);
    assertStillWorks();
  });

  it('grows its blocks only for sane sizes, and keeps working after any argument', () => {
    for (const bad of [undefined, null, -1, NaN, Infinity, 2 ** 40, '5', {}, 5n, Symbol('x')]) {
      assert.throws(() => engine.growValues(bad), /byte count/, String(bad));
      assert.throws(() => engine.growOutput(bad), /byte count/, String(bad));
    }
    const grown = engine.growValues(1 << 20);
    assert.ok(grown.length >= 1 << 20);
    values = new Uint32Array(grown.buffer, grown.byteOffset, grown.length >>> 2);
    const output = engine.growOutput(1 << 20);
    values.fill(1, 0, 200000);
    setRun(0, P.RUN_UINT32, 200000, 0);
    assert.strictEqual(finish(1), 200000);
    assert.ok(output.subarray(0, 200000).every((b) => b === 1));
    ctl[P.CTL_RUNS] = 0;
    assert.strictEqual(engine.finish.call(null, 1, 2, 3), undefined, 'finish() ignores arguments and receivers');
  });

  it('survives its blocks being detached by JS: Rust keeps its memory alive', () => {
    for (const block of [engine.control, engine.values, engine.output]) {
      try {
        structuredClone(block.buffer, { transfer: [block.buffer] });
      } catch (err) {
        assert.strictEqual(err.name, 'DataCloneError');
      }
    }
    ctl[P.CTL_RUNS] = 0; // a write into a detached view does nothing
    engine.finish(); // reads the (still allocated) blocks: stale but valid memory
    const fresh = binding.createEngine();
    assert.strictEqual(fresh.finish(), undefined);
  });
});
