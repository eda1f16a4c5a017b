'use strict';

/**
 * What `finish()` returns is a `Buffer` an app's tests cannot tell from protobufjs's: on every path
 * a result takes (a view of the slab, spliced in place, copied out of the large buffer or a
 * private one, with a native run, an open fork, written again after `finish()`, through
 * `Type.encode` after `install()`), it has `Buffer.prototype` and `Buffer` as its constructor,
 * deep-equals a `Buffer` of the same bytes both ways (`assert.deepStrictEqual`,
 * `util.isDeepStrictEqual`), prints and serialises the same, and is pooled or not as protobufjs's
 * is on the Node that runs the test: a view of shared memory where `Buffer.allocUnsafe` hands out a
 * view of Node's pool (below `Buffer.poolSize >>> 1`: 4 KiB on Node 20, 22 and 24 before 24.18,
 * 32 KiB from Node 24.18 on), else an `ArrayBuffer` of its own; and a transfer list does to it what
 * it does to protobufjs's result (moves it, copies it, or throws: Node 20 copies pooled memory,
 * later lines throw a `DataCloneError`). The whole file runs again without the addon.
 */

const assert = require('assert');
const path = require('path');
const util = require('util');
const { spawnSync } = require('child_process');
const { MessageChannel } = require('worker_threads');
const protobuf = require('protobufjs');
const { RustWriter, install, uninstall } = require('..');
const { referenceWriter } = require('./helpers');

/**
 * Each path a result can take: a name and the calls that lead there, run on a fresh writer. Some
 * need a second writer alive, so each gets a `other()` to create one.
 */
const PATHS = [
  ['an empty writer', (w) => w],
  ['a small message, a view of the slab', (w) => w.uint32(8).uint32(1).uint32(18).string('hello')],
  ['a fork longer than 127 bytes, spliced in place in the slab', (w) => w.uint32(10).fork().string('x'.repeat(200)).ldelim()],
  ['a message of 4 KiB written in the slab, copied into memory of its own', (w) => w.uint32(10).string('y'.repeat(5000))],
  ['a bytes field kept by reference', (w) => w.uint32(10).bytes(Buffer.alloc(6000, 7)).uint32(16).uint32(1)],
  ['a message over 16 KiB, copied out of the large buffer', (w) => w.uint32(10).string('L'.repeat(20000)).uint32(16).uint32(2)],
  ['a long packed field from an Int32Array', (w) => w.uint32(10).int32s(Int32Array.from({ length: 300 }, (_, i) => i * 99 - 500))],
  ['a long packed field from a plain array', (w) => w.uint32(10).uint32s(Array.from({ length: 3000 }, (_, i) => i * 7919))],
  ['a fork still open', (w) => w.uint32(8).uint32(1).fork().uint32(16).uint32(2)],
  ['a writer written again after finish()', (w) => { w.uint32(8).uint32(1).finish(); return w.uint32(16).uint32(2); }],
  ['a writer reset after finish()', (w) => { w.uint32(8).uint32(1).finish(); return w.reset().uint32(16).uint32(3); }],
  ['a writer another writer evicted from the slab', (w, other) => {
    w.uint32(8).uint32(1);
    other().uint32(8).uint32(5);
    return w.uint32(16).uint32(2);
  }],
  ['an evicted writer that grows into a private buffer', (w, other) => {
    w.uint32(8).uint32(1);
    other().uint32(8).uint32(5);
    return w.uint32(18).string('p'.repeat(3000));
  }],
  ['an evicted writer that grows past 4 KiB', (w, other) => {
    w.uint32(8).uint32(1);
    other().uint32(8).uint32(5);
    return w.uint32(18).string('q'.repeat(9000));
  }],
];

/**
 * Runs `write` on a new writer of `create`'s and returns what `finish()` returned. protobufjs
 * leaves the length byte of a fork still open uninitialized, where RustWriter writes 0 (README,
 * Compatibility): its writer's `states` lists those bytes, which are set to 0 here.
 * @param {function(): object} create Writer factory
 * @param {function(object, function(): object): object} write Calls
 * @param {boolean} [shared] The argument to `finish()`
 * @returns {Buffer} Result
 */
function resultOf(create, write, shared) {
  const w = write(create(), create);
  if (!(w instanceof RustWriter) && Array.isArray(w.states)) for (const at of w.states) w.buf[at] = 0;
  return w.finish(shared);
}

/**
 * What a transfer list does to `result`'s memory on this Node: `moved` (detached here), `copied`,
 * or the name of the error `postMessage` throws.
 * @param {Buffer} result A result, spent by this check
 * @returns {string} Outcome
 */
function transferOutcome(result) {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(result, [result.buffer]);
    return result.buffer.byteLength === 0 && result.length > 0 ? 'moved' : 'copied';
  } catch (err) {
    return err.name;
  } finally {
    port1.close();
    port2.close();
  }
}

/**
 * Whether `buf` is all of an `ArrayBuffer` of its own, rather than a view of shared memory.
 * @param {Uint8Array} buf Bytes
 * @returns {boolean} Whether it is
 */
function ownsItsMemory(buf) {
  return buf.byteOffset === 0 && buf.buffer.byteLength === buf.length;
}

/**
 * Asserts what an app's test suite could observe of a result: everything protobufjs's result of
 * the same calls shows, and deep equality with a `Buffer` made from its bytes.
 * @param {Buffer} ours RustWriter's result
 * @param {Buffer} theirs protobufjs's result
 * @returns {undefined}
 */
function assertIndistinguishable(ours, theirs) {
  const fresh = Buffer.from(theirs.toString('hex'), 'hex');
  assert.strictEqual(Object.getPrototypeOf(ours), Object.getPrototypeOf(theirs));
  assert.strictEqual(Object.getPrototypeOf(ours), Buffer.prototype);
  assert.strictEqual(ours.constructor, Buffer);
  assert.ok(ours instanceof Buffer && ours instanceof Uint8Array && Buffer.isBuffer(ours));
  assert.deepStrictEqual(ours, theirs);
  assert.deepStrictEqual(theirs, ours);
  assert.deepStrictEqual(ours, fresh);
  assert.deepStrictEqual({ payload: ours }, { payload: fresh });
  assert.ok(util.isDeepStrictEqual(ours, fresh) && util.isDeepStrictEqual(fresh, ours));
  assert.ok(ours.equals(fresh));
  assert.strictEqual(util.inspect(ours), util.inspect(theirs));
  assert.strictEqual(JSON.stringify(ours), JSON.stringify(theirs));
  assert.deepStrictEqual(Reflect.ownKeys(ours), Reflect.ownKeys(theirs));
  assert.strictEqual(Object.getPrototypeOf(ours.subarray(0)), Buffer.prototype);
  assert.strictEqual(Object.getPrototypeOf(ours.slice(0)), Buffer.prototype);
  assert.strictEqual(ours.byteLength, theirs.byteLength);
  // A view of shared memory exactly where protobufjs's result and Buffer.allocUnsafe's are one, on
  // this Node (below 4 KiB on Node 20, 22 and 24 before 24.18, below 32 KiB from Node 24.18 on).
  assert.strictEqual(ownsItsMemory(ours), ownsItsMemory(theirs), 'pooled exactly when protobufjs\'s result is');
  assert.strictEqual(ownsItsMemory(ours), ownsItsMemory(Buffer.allocUnsafe(ours.length)), 'pooled as Buffer.allocUnsafe is');
}

describe('results of finish() are Buffers no app can tell from protobufjs\'s', function () {
  this.timeout(60000);

  for (const [name, write] of PATHS) {
    it(`on the path of ${name}`, () => {
      const ours = resultOf(RustWriter.create, write);
      const theirs = resultOf(referenceWriter, write);
      assertIndistinguishable(ours, theirs);
      assert.strictEqual(
        transferOutcome(resultOf(RustWriter.create, write)), transferOutcome(resultOf(referenceWriter, write)),
        'a transfer list does to the result\'s memory what it does to protobufjs\'s');
    });
  }

  it('with finish(true), which protobufjs answers with a view of its own buffer', () => {
    for (const [, write] of PATHS) {
      const ours = resultOf(RustWriter.create, write, true);
      assert.strictEqual(Object.getPrototypeOf(ours), Buffer.prototype);
      assert.deepStrictEqual(ours, Buffer.from(resultOf(referenceWriter, write)));
    }
  });

  it('through Type.encode and encodeDelimited after install(), as an app\'s test would assert', () => {
    const root = protobuf.parse(`syntax = "proto3";
      message Order { uint32 id = 1; string item = 2; repeated sint32 counts = 3; Order parent = 9; bool paid = 10; }`).root;
    const Order = root.lookupType('Order');
    const order = { id: 1, item: 'book', counts: [1, -2, 3], parent: { id: 7, paid: true }, paid: true };
    const expected = Order.encode(order).finish();
    const expectedDelimited = Order.encodeDelimited(order).finish();
    install(protobuf);
    try {
      assert.ok(protobuf.Writer.create() instanceof RustWriter);
      assert.deepStrictEqual(Order.encode(order).finish(), Buffer.from(expected.toString('hex'), 'hex'));
      assert.deepStrictEqual(Order.encodeDelimited(order).finish(), expectedDelimited);
      assert.deepStrictEqual(Order.encode({ id: 1, paid: true }).finish(), Buffer.from('08015001', 'hex'));
      assert.deepStrictEqual(Order.decode(Order.encode(order).finish()), Order.decode(expected));
    } finally {
      uninstall(protobuf);
    }
  });

  it('runs every check above without the addon too', function () {
    if (process.env.PROTOBUFJS_RUSTWRITER === 'js') this.skip(); // this run is that run
    const mocha = path.join(__dirname, '..', 'node_modules', 'mocha', 'bin', 'mocha.js');
    const run = spawnSync(process.execPath, [mocha, '--no-config', '--timeout', '60000', __filename],
      { encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER: 'js' } });
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`${PATHS.length + 2} passing`));
  });
});
