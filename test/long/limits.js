'use strict';

/**
 * Size limits, long version (test/limits.test.js is the fast one): a 1 GiB `bytes` field,
 * 100-million-element packed fields (a JS array and a typed array), 1,000,000 nested forks, and a
 * real 2.2 GB message refused with a RangeError naming the limit, after which encoding goes on.
 * (protobufjs itself needs most of the time: its writer is quadratic in nesting depth.)
 * Messages go through protobufjs 8.8.1's and 7.6.6's generated encoders with a RustWriter passed
 * to `Type.encode`; the expected bytes are protobufjs 8.8.1's own. Needs about 5 GB of memory.
 *
 *   node --max-old-space-size=8192 test/long/limits.js
 *
 * `PROTOBUFJS_RUSTWRITER=js` runs it on the JS-only path; `npm run test:long` runs both.
 */

const assert = require('assert');
const protobuf = require('protobufjs');
const protobuf7 = require('protobufjs7');
const { RustWriter } = require('../..');

const PROTO = `syntax = "proto3";
message Big {
  bytes blob = 1;
  repeated uint32 values = 2;
  repeated bytes blobs = 3;
}`;
// resolveAll() first: 7.6.6 otherwise encodes proto3's packed-by-default fields unpacked.
const Big8 = protobuf.parse(PROTO).root.resolveAll().lookupType('Big');
const Big7 = protobuf7.parse(PROTO).root.resolveAll().lookupType('Big');

/**
 * Runs one check and prints its time.
 * @param {string} name What it checks
 * @param {function(): void} check Throws on failure
 */
function step(name, check) {
  const started = process.hrtime.bigint();
  check();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(`ok ${name} (${seconds.toFixed(1)} s, RSS ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB)\n`);
}

/**
 * Checks that RustWriter gives protobufjs 8.8.1's bytes for `message`, through 8.8.1's and
 * 7.6.6's encoders.
 * @param {object} message Plain object for `Big`
 */
function sameAsProtobufjs(message) {
  let expected = Big8.encode(message).finish();
  for (const Big of [Big8, Big7]) {
    const actual = Big.encode(message, RustWriter.create()).finish();
    assert.strictEqual(actual.length, expected.length, `length through protobufjs ${Big === Big8 ? 8 : 7}`);
    assert.ok(Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected),
      `bytes through protobufjs ${Big === Big8 ? 8 : 7}`);
  }
  expected = null;
}

const path = RustWriter.native ? 'native' : 'JS-only';
process.stdout.write(`size limits, long version, ${path} path\n`);

step('a 1 GiB bytes field', () => {
  const blob = Buffer.allocUnsafe(2 ** 30);
  for (let i = 0; i < blob.length; i += 4096) blob[i] = i >>> 12;
  sameAsProtobufjs({ blob });
});

step('a 100,000,000-element packed field from a JS array', () => {
  const values = new Array(1e8);
  for (let i = 0; i < values.length; i++) values[i] = (i * 2654435761) >>> 2; // small integers, 1 to 5 bytes
  sameAsProtobufjs({ values });
});

step('a 100,000,000-element packed field from a Uint32Array', () => {
  const values = new Uint32Array(1e8);
  for (let i = 0; i < values.length; i++) values[i] = i * 2654435761;
  sameAsProtobufjs({ values });
});

step('1,000,000 nested forks', () => {
  const nest = (w) => {
    for (let i = 0; i < 1e6; i++) w.uint32(10).fork();
    w.string('leaf');
    for (let i = 0; i < 1e6; i++) w.ldelim();
    return Buffer.from(w.finish());
  };
  assert.ok(nest(RustWriter.create()).equals(nest(new protobuf.BufferWriter())));
});

step('a real 2.2 GB message refused with a RangeError naming the limit; encoding goes on', () => {
  const blob = Buffer.alloc(1.1e9, 1);
  for (const Big of [Big8, Big7]) {
    assert.throws(() => Big.encode({ blobs: [blob, blob] }, RustWriter.create()).finish(),
      (err) => err instanceof RangeError && /2147483647 bytes/.test(err.message));
  }
  sameAsProtobufjs({ blob: blob.subarray(0, 1000), values: [1, 2, 3] });
});
