'use strict';

/**
 * A call-bound app whose requests are large: a @grpc/grpc-js server speaking Firestore's service
 * (from the client's own descriptor, `@google-cloud/firestore`'s build/protos/v1.json, loaded by
 * @grpc/proto-loader's `fromJSON` with google-gax's options, as the client loads it) and a client of
 * it in one process, unary `Commit` calls over 127.0.0.1 (a port the OS picks), CONCURRENCY in
 * flight, each a commit of WRITES writes as the Firestore client builds them (bench/real/firestore.js).
 * Run by bench/apps/run.js, one process per contender:
 *
 *   node [-r ./register.js] bench/apps/firestore.js <warm seconds> <seconds>
 *
 * After `warm seconds` of calls it counts the calls completed in `seconds` and prints one JSON line:
 * calls per second (and per second of CPU time), the share of the process's CPU time spent in the
 * serializers (proto-loader's `requestSerialize` and `responseSerialize`, timed around each call: the
 * serializer's share of a call), a digest of the first responses, and what serialized. It exits after
 * at most 60 s whatever happens.
 */

const crypto = require('crypto');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const firestore = require('../real/firestore');
const { prng } = require('../../tools/seeded');

const CONCURRENCY = 4;
const WRITES = 20;
const POOL = 20;
const DIGEST_CALLS = 20;
const GIVE_UP_MS = 60000;

const [warmSeconds, seconds] = process.argv.slice(2).map(Number);
setTimeout(() => {
  process.stderr.write(`firestore.js: gave up after ${GIVE_UP_MS / 1000} s\n`);
  process.exit(1);
}, GIVE_UP_MS).unref();

const loaderProtobuf = require(require.resolve('protobufjs', { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] }));
const GAX_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };
const definition = protoLoader.fromJSON(firestore.schema(), GAX_OPTIONS);
const commit = definition['google.firestore.v1.Firestore'].Commit;
const hooked = commit.requestSerialize.name === 'serialize_rustwriter';
// The serializers' time, around each call of them.
let serializing = 0n;
const timed = (serialize) => function serialize_timed(value) {
  const started = process.hrtime.bigint();
  try {
    return serialize(value);
  } finally {
    serializing += process.hrtime.bigint() - started;
  }
};
const service = {
  Commit: {
    ...commit, requestSerialize: timed(commit.requestSerialize), responseSerialize: timed(commit.responseSerialize),
  },
};
const Client = grpc.makeGenericClientConstructor(service, 'Firestore');
const requests = Array.from({ length: POOL }, (_, i) => {
  const request = firestore.build(prng(1000 + i));
  return { ...request, writes: request.writes.slice(0, WRITES) };
});
const now = { seconds: '1764000000', nanos: 0 };

/**
 * @returns {boolean} Whether proto-loader's protobufjs has compiled encoders (asked once the calls are
 * timed: the process of protobufjs alone loads this package only then)
 */
function compiledEncoders() {
  const dir = path.dirname(require.resolve('protobufjs/package.json', { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] }));
  return require('protobufjs-rustwriter').status().copies.some((c) => c.path === dir && c.compiled);
}

const server = new grpc.Server();
server.addService(service, {
  Commit(call, callback) {
    callback(null, { writeResults: call.request.writes.map(() => ({ updateTime: now })), commitTime: now });
  },
});

server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.enable_http_proxy': 0 });
  const hash = crypto.createHash('sha256');
  let completed = 0;
  let counting = false;
  let stop = false;
  let requested = 0;
  const worker = () => new Promise((resolve, reject) => {
    const callOnce = () => {
      if (stop) {
        resolve();
        return;
      }
      const id = requested++;
      client.Commit(requests[id % POOL], (error, response) => {
        if (error) {
          reject(error);
          return;
        }
        if (id < DIGEST_CALLS) hash.update(`${id}:${JSON.stringify(response)}\n`);
        if (counting) completed += 1;
        callOnce();
      });
    };
    callOnce();
  });
  const workers = Array.from({ length: CONCURRENCY }, worker);
  setTimeout(() => {
    counting = true;
    serializing = 0n;
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    setTimeout(() => {
      counting = false;
      const ns = Number(process.hrtime.bigint() - start);
      const used = process.cpuUsage(cpu);
      const cpuNs = (used.user + used.system) * 1000;
      const serializeShare = Number(serializing) / cpuNs;
      stop = true;
      Promise.all(workers).then(() => {
        process.stdout.write(`${JSON.stringify({
          app: 'firestore',
          rate: completed / (ns / 1e9),
          cpuRate: completed / (cpuNs / 1e9),
          unit: 'calls/s',
          serializeShare,
          bytesPerMessage: commit.requestSerialize(requests[0]).length,
          digest: hash.digest('hex'),
          writer: loaderProtobuf.Writer.create().constructor.name,
          compiled: compiledEncoders(),
          serializers: hooked,
        })}\n`);
        client.close();
        server.forceShutdown();
      }, (error) => {
        process.stderr.write(`firestore.js: a call failed: ${error.message}\n`);
        process.exit(1);
      });
    }, seconds * 1000);
  }, warmSeconds * 1000);
});
