'use strict';

/**
 * A Google Cloud client's gRPC path under the preload: `@google-cloud/firestore` commits a batch of
 * writes to a stand-in Firestore server on 127.0.0.1 (a @grpc/grpc-js server with Firestore's own
 * descriptor, as the emulator speaks it), in one process:
 *
 *   node -r protobufjs-rustwriter/register examples/grpc/firestore.js
 *
 * The client serializes through google-gax and its @grpc/proto-loader, with its own protobufjs copy
 * (7.x): the preload hooks proto-loader, so each CommitRequest is written by a compiled serializer.
 * The server takes each request's bytes as they came over the wire, checks them against plain
 * protobufjs (the request decoded and encoded again by protobufjs's generated encoder into its own
 * writer: the same bytes, and the writes the app made), and answers. The status shows the serializers
 * compiled in the client's protobufjs. Exits with 1 on a difference, a failed commit, or after 60 s.
 */

const assert = require('assert');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { Firestore, Timestamp } = require('@google-cloud/firestore');
const { status } = require('protobufjs-rustwriter');

const TIMEOUT_MS = 60000;
const COMMITS = 20;
setTimeout(() => {
  console.error(`gave up after ${TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TIMEOUT_MS).unref();

const V1 = path.join(path.dirname(require.resolve('@google-cloud/firestore/package.json')), 'build', 'protos', 'v1.json');
// Plain protobufjs of the client's copy (the one google-gax's proto-loader uses), for the check.
const gaxLoader = path.dirname(require.resolve('@grpc/proto-loader', { paths: [path.dirname(require.resolve('google-gax'))] }));
const protobufPath = require.resolve('protobufjs', { paths: [gaxLoader] });
const protobuf = require(protobufPath);
const CommitRequest = protobuf.Root.fromJSON(require(V1)).lookupType('google.firestore.v1.CommitRequest');

// The server: Firestore's service from its descriptor; Commit takes the request's bytes as they came.
const GAX_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };
const definition = protoLoader.fromJSON(require(V1), GAX_OPTIONS);
const commit = definition['google.firestore.v1.Firestore'].Commit;
const received = [];
const server = new grpc.Server();
server.addService({ Commit: { ...commit, requestDeserialize: (bytes) => bytes } }, {
  Commit(call, callback) {
    received.push(call.request);
    const request = CommitRequest.decode(call.request);
    const now = { seconds: String(Math.floor(Date.now() / 1000)), nanos: 0 };
    callback(null, { writeResults: request.writes.map(() => ({ updateTime: now })), commitTime: now });
  },
});

async function main() {
  const port = await new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  // The client talks to 127.0.0.1 only, as to the emulator: no credentials, no proxy, and no probe
  // of a cloud's metadata server (google-auth-library's, for its universe domain).
  process.env.FIRESTORE_EMULATOR_HOST = `127.0.0.1:${port}`;
  process.env.no_grpc_proxy = '127.0.0.1';
  process.env.METADATA_SERVER_DETECTION = 'none';
  const db = new Firestore({ projectId: 'acme-shop' });
  // A set of five orders (every kind of value a document holds) and an update, twenty times.
  for (let c = 0; c < COMMITS; ++c) {
    const batch = db.batch();
    for (let k = 0; k < 5; ++k) {
      batch.set(db.collection('orders').doc(`o-${c}-${k}`), {
        status: ['placed', 'paid', 'shipped'][k % 3], total: 19.99 + k, items: [{ sku: 'HAM-16', quantity: k + 1 }],
        paid: k % 2 === 0, placedAt: Timestamp.fromMillis(Date.UTC(2026, 0, 1) + c * 1000), note: k === 0 ? 'café ☕' : null,
        loyaltyPoints: 9007199254740993n, tags: ['gift', 'express'].slice(0, k % 3),
      });
    }
    batch.update(db.collection('orders').doc(`o-${c}-0`), { status: 'packed' });
    await batch.commit();
  }
  await db.terminate();
  await new Promise((resolve, reject) => server.tryShutdown((error) => (error ? reject(error) : resolve())));

  assert.strictEqual(received.length, COMMITS, 'every commit reached the server');
  let differences = 0;
  for (const bytes of received) {
    const again = CommitRequest.encode(CommitRequest.decode(bytes), new protobuf.BufferWriter()).finish();
    if (Buffer.compare(bytes, again) !== 0) differences++;
  }
  const first = CommitRequest.decode(received[0]);
  assert.deepStrictEqual(first.writes.map((w) => (w.update ? w.update.name.split('/').pop() : 'transform')).slice(0, 5),
    ['o-0-0', 'o-0-1', 'o-0-2', 'o-0-3', 'o-0-4']);
  assert.strictEqual(first.writes[0].update.fields.note.stringValue, 'café ☕');
  assert.strictEqual(String(first.writes[0].update.fields.loyaltyPoints.integerValue), '9007199254740993');

  const s = status();
  const copy = s.copies.find((c) => c.path !== null && protobufPath.startsWith(c.path + path.sep));
  const loaders = s.protoLoaders.filter((l) => l.hooked);
  if (!copy || loaders.length === 0) {
    console.error('google-gax\'s @grpc/proto-loader was not hooked: run node -r protobufjs-rustwriter/register examples/grpc/firestore.js');
    process.exit(1);
  }
  console.log(`@grpc/proto-loader copies hooked: ${loaders.map((l) => `${l.version} (${l.definitions} package definitions)`).join(', ')}; ` +
    `the client's protobufjs ${copy.version}: ${copy.serialized.serializers} serializers handed out, ${copy.serialized.compiled} Types compiled`);
  assert.ok(copy.serialized.compiled > 0, 'the client serialized its commits with compiled serializers');
  console.log(differences
    ? `${differences} of ${received.length} commits differ from plain protobufjs's bytes`
    : `all ${received.length} commits as plain protobufjs writes them`);
  process.exitCode = differences ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
