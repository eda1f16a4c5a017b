'use strict';

/**
 * Returned buffers never change: every result of many random encodes is kept with a hash taken
 * when it was returned, and all are checked at the end, after slabs, the large buffer, the entry
 * array and the native blocks were reused many times, after results were transferred or detached
 * by the caller, and with `finish(true)` and `finishInto` in the mix.
 */

const assert = require('assert');
const crypto = require('crypto');
const { Worker } = require('worker_threads');
const protobuf = require('protobufjs');
const { RustWriter } = require('..');
const { prng } = require('../tools/seeded');

/** Messages per run (the fast version; `RESULTS_COUNT=1000000` for a long run). */
const COUNT = Number(process.env.RESULTS_COUNT || 100000);

/** Bytes of a large message: past the quarter slab (the large buffer) and past what Node pools
 * (`Buffer.poolSize >>> 1`: 4 KiB on Node 20, 22 and 24 before 24.18, 32 KiB from Node 24.18 on), so
 * that its result has memory of its own, which a caller can transfer. */
const LARGE = Math.max(17000, Buffer.poolSize >>> 1);

const hash = (bytes) => crypto.createHash('sha1').update(bytes).digest('hex');

/**
 * Encodes one random message: small and medium (views of the slab), nested (spliced in place, or
 * with forks left open), large (copied out of the large buffer), with a referenced blob, or with
 * a long packed field (the native encoder).
 * @param {function} r Seeded generator
 * @returns {RustWriter} The writer, not finished
 */
function randomMessage(r) {
  const w = RustWriter.create();
  const kind = r.int(100);
  if (kind < 40) return w.uint32(8).uint32(r.int(1e6)).uint32(18).string('n'.repeat(r.int(20)));
  if (kind < 75) {
    for (let i = 0; i < 10 + r.int(20); i++) w.uint32(10).string(`field ${i} ${r.int(1e9)}`).uint32(16).sint32(r.int(2000) - 1000);
    return w;
  }
  if (kind < 90) {
    for (let depth = 0; depth < 1 + r.int(6); depth++) w.uint32(10).fork().uint32(8).int64(r.int(2 ** 31) - 2 ** 30);
    w.string('x'.repeat(r.int(300)));
    return w.ldelim().ldelim();
  }
  if (kind < 95) return w.uint32(10).string('L'.repeat(LARGE + r.int(5000)));
  if (kind < 98) return w.uint32(10).bytes(Buffer.alloc(4096 + r.int(20000), r.int(256))).uint32(16).uint32(1);
  return w.uint32(10).uint32s(Uint32Array.from({ length: 500 + r.int(3000) }, () => r.int(2 ** 32)));
}

describe('results returned by finish()', function () {
  this.timeout(300000);

  it(`never change: ${COUNT} random messages, each checked against its hash at return`, () => {
    const r = prng(0xbeef);
    const kept = [];
    const moved = [];
    for (let i = 0; i < COUNT; i++) {
      const w = randomMessage(r);
      const how = r.int(20);
      let out;
      if (how === 0) {
        out = w.finish(true);
      } else if (how === 1) {
        const target = Buffer.alloc(w.pos + 3, 0xcc);
        w.finishInto(target, 3);
        out = target.subarray(3);
      } else {
        out = w.finish();
      }
      const digest = hash(out);
      if (how === 2) {
        // The caller moves the result's memory elsewhere: allowed for a result of its own,
        // refused (DataCloneError) for one carved from a shared slab or pool.
        const [offset, length] = [out.byteOffset, out.length];
        try {
          const copy = structuredClone(out.buffer, { transfer: [out.buffer] });
          moved.push([new Uint8Array(copy, offset, length), digest]);
          continue;
        } catch (err) {
          assert.strictEqual(err.name, 'DataCloneError');
        }
      }
      if (how === 3) w.uint32(1).finish(); // writing on after finish() must not touch `out`
      kept.push([out, digest]);
    }
    let changed = 0;
    for (const [out, digest] of kept) if (hash(out) !== digest) changed++;
    assert.strictEqual(changed, 0, `${changed} of ${kept.length} results changed after later encodes`);
    for (const [bytes, digest] of moved) assert.strictEqual(hash(bytes), digest, 'a transferred result kept its bytes');
    assert.ok(moved.length > 0, 'some large results were transferred');
  });

  it('stay unchanged when posted to a worker with a transfer list, and after shared memory grows', async () => {
    // The worker answers each message with the hash of the bytes it received.
    const worker = new Worker(`
      const { parentPort } = require('worker_threads');
      const crypto = require('crypto');
      parentPort.on('message', ({ id, bytes }) => parentPort.postMessage({
        id, digest: crypto.createHash('sha1').update(bytes).digest('hex') }));`, { eval: true });
    const replies = new Map();
    worker.on('message', ({ id, digest }) => replies.get(id)(digest));
    const received = (id) => new Promise((resolve) => replies.set(id, resolve));
    try {
      /** One message of each result path: JS pool, slab, own Buffer, reference, finish(true), finishInto. */
      const paths = [
        (w) => w.uint32(8).uint32(150).finish(),
        (w) => { for (let i = 0; i < 40; i++) w.uint32(10).string(`medium ${i}`); return w.finish(); },
        (w) => w.uint32(10).string('L'.repeat(30000)).finish(),
        (w) => w.uint32(10).bytes(Buffer.alloc(9000, 7)).uint32(16).uint32(3).finish(),
        (w) => w.uint32(10).string('owned').finish(true),
        (w) => { const target = Buffer.alloc(w.uint32(10).string('into').pos + 2); w.finishInto(target, 2); return target.subarray(2); },
      ];
      const expected = paths.map((encode) => hash(encode(new protobuf.BufferWriter())));
      const kept = [];
      let transferred = 0;
      for (let round = 0; round < 50; round++) {
        for (let p = 0; p < paths.length; p++) {
          const out = paths[p](RustWriter.create());
          assert.strictEqual(hash(out), expected[p], `path ${p} round ${round}`);
          const id = round * paths.length + p;
          const reply = received(id);
          try {
            worker.postMessage({ id, bytes: out }, [out.buffer]);
          } catch (err) {
            // A result carved from shared memory is marked untransferable: Node 21+ throws,
            // Node 20 copies it instead. Either way it stays the caller's, unchanged.
            assert.strictEqual(err.name, 'DataCloneError');
            worker.postMessage({ id, bytes: out });
          }
          assert.strictEqual(await reply, expected[p], `the worker got path ${p}'s bytes`);
          if (out.buffer.byteLength === 0) transferred++;
          else kept.push([out, expected[p]]);
        }
      }
      assert.ok(transferred > 0, 'results with memory of their own were transferred');
      // Move the shared memory on: writers holding their regions start new slabs, large
      // messages reuse the large buffer, and many results renew the slabs.
      const holders = [];
      for (let i = 0; i < 200; i++) holders.push(RustWriter.create().uint32(10).string('held '.repeat(50 + i)));
      for (let i = 0; i < 20; i++) {
        const w = RustWriter.create();
        for (let k = 0; k < 20000 + i * 1000; k++) w.uint32(8).uint32(k);
        w.finish();
      }
      for (let i = 0; i < 5000; i++) paths[1](RustWriter.create());
      for (const [i, w] of holders.entries()) {
        assert.ok(Buffer.from(w.finish()).equals(Buffer.from(new protobuf.BufferWriter().uint32(10).string('held '.repeat(50 + i)).finish())));
      }
      let changed = 0;
      for (const [out, digest] of kept) if (hash(out) !== digest) changed++;
      assert.strictEqual(changed, 0, `${changed} of ${kept.length} kept results changed`);
    } finally {
      await worker.terminate();
    }
  });
});
