'use strict';

/**
 * A call-bound app: a @grpc/grpc-js server and client in one process, unary calls over 127.0.0.1
 * (the server listens there only, on a port the OS picks), messages encoded by @grpc/proto-loader's
 * own protobufjs copy. The client keeps `CONCURRENCY` calls in flight; each asks for an order and the
 * server answers with one of a pool of realistic orders (bench/apps/data.js, 130–418 bytes encoded). Run by
 * bench/apps/run.js, one process per contender:
 *
 *   node [-r ./register.js] bench/apps/grpc.js <warm seconds> <seconds>
 *
 * After `warm seconds` of calls it counts the calls completed in `seconds` and prints one JSON line:
 * calls per second (and per second of CPU time the process used), a digest of the first responses
 * as decoded (every contender must get the same), and which writer proto-loader's protobufjs hands
 * out. It exits after at most 60 s whatever happens.
 */

const crypto = require('crypto');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { orders } = require('./data');

const CONCURRENCY = 16;
const POOL = 200;
const DIGEST_CALLS = 50;
const GIVE_UP_MS = 60000;

const [warmSeconds, seconds] = process.argv.slice(2).map(Number);
setTimeout(() => {
  process.stderr.write(`grpc.js: gave up after ${GIVE_UP_MS / 1000} s\n`);
  process.exit(1);
}, GIVE_UP_MS).unref();

// The copy proto-loader encodes with, resolved from its own directory, for the report.
const loaderProtobuf = require(require.resolve('protobufjs', { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] }));
const LOADER_PROTOBUF = path.dirname(require.resolve('protobufjs/package.json', { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] }));
const definition = protoLoader.loadSync(path.join(__dirname, 'apps.proto'), { longs: String });
const { Orders } = grpc.loadPackageDefinition(definition).apps;
const pool = orders(POOL, 2);

const server = new grpc.Server();
server.addService(Orders.service, {
  GetOrder(call, callback) {
    callback(null, pool[Number(call.request.orderId) % POOL]);
  },
});

server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  const client = new Orders(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const hash = crypto.createHash('sha256');
  let completed = 0;
  let counting = false;
  let stop = false;
  let requested = 0;

  /**
   * One worker: calls until told to stop.
   * @returns {Promise<void>} Settles when it stops
   */
  function worker() {
    return new Promise((resolve, reject) => {
      const callOnce = () => {
        if (stop) {
          resolve();
          return;
        }
        const id = requested++;
        client.GetOrder({ orderId: id, customerId: 'cust-bench' }, (error, order) => {
          if (error) {
            reject(error);
            return;
          }
          if (id < DIGEST_CALLS) hash.update(`${id}:${JSON.stringify(order)}\n`);
          if (counting) completed += 1;
          callOnce();
        });
      };
      callOnce();
    });
  }

  const workers = Array.from({ length: CONCURRENCY }, worker);
  let start;
  let cpu;
  setTimeout(() => {
    counting = true;
    start = process.hrtime.bigint();
    cpu = process.cpuUsage();
    setTimeout(() => {
      counting = false;
      const ns = Number(process.hrtime.bigint() - start);
      const used = process.cpuUsage(cpu);
      stop = true;
      Promise.all(workers).then(() => {
        const Order = loaderProtobuf.loadSync(path.join(__dirname, 'apps.proto')).lookupType('apps.Order');
        process.stdout.write(`${JSON.stringify({
          app: 'grpc',
          rate: completed / (ns / 1e9),
          cpuRate: completed / ((used.user + used.system) / 1e6),
          unit: 'calls/s',
          bytesPerMessage: Order.encode(Order.fromObject(pool[0])).finish().length,
          digest: hash.digest('hex'),
          writer: loaderProtobuf.Writer.create().constructor.name,
          // Whether proto-loader's protobufjs has compiled encoders (the serializers write without its Types' encode).
          compiled: require('protobufjs-rustwriter').status().copies.some((c) => c.path === LOADER_PROTOBUF && c.compiled),
          serializers: definition['apps.Orders'].GetOrder.responseSerialize.name === 'serialize_rustwriter',
        })}\n`);
        client.close();
        server.forceShutdown();
      }, (error) => {
        process.stderr.write(`grpc.js: a call failed: ${error.message}\n`);
        process.exit(1);
      });
    }, seconds * 1000);
  }, warmSeconds * 1000);
});
