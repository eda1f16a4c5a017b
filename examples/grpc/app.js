'use strict';

/**
 * A gRPC server and client (@grpc/grpc-js with @grpc/proto-loader) in one process, run under
 * the preload:
 *
 *   node -r protobufjs-rustwriter/register examples/grpc/app.js
 *
 * @grpc/proto-loader encodes with its own protobufjs copy (7.x); the preload installs RustWriter
 * into it, and hooks proto-loader, whose package definitions then serialize each request and response
 * with a compiled serializer (`encode(fromObject(value))` in one pass), so every message either side
 * sends is written by RustWriter. The server listens on 127.0.0.1, on a port the OS picks; the client
 * makes unary calls (one for an item that does not exist) and one server-streaming call, then both
 * shut down. Every message sent is also encoded by plain protobufjs (its fromObject, its generated
 * encoder and its own writer) and the bytes compared; the status shows proto-loader hooked and the
 * serializers compiled. Exits with 1 on a difference, a failed call, or after 30 s.
 */

const assert = require('assert');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { RustWriter, status } = require('protobufjs-rustwriter');

const PROTO = path.join(__dirname, 'inventory.proto');
const TIMEOUT_MS = 30000;
const CALL_DEADLINE_MS = 10000;

setTimeout(() => {
  console.error(`gave up after ${TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TIMEOUT_MS).unref();

// The protobufjs copy @grpc/proto-loader encodes with: resolved from its own directory.
const protobufPath = require.resolve('protobufjs', { paths: [path.dirname(require.resolve('@grpc/proto-loader'))] });
const protobuf = require(protobufPath);

const definition = protoLoader.loadSync(PROTO, { longs: String });

const s = status();
const copies = s.copies.map(({ version, path: dir, installed, compiled, serializers }) => ({
  version, path: dir, installed, compiled, serializers,
}));
console.log(JSON.stringify({ ...s, copies }, null, 2));
const loaderCopy = s.copies.find((copy) => copy.path !== null && protobufPath.startsWith(copy.path + path.sep));
if (!loaderCopy || !loaderCopy.installed || !(protobuf.Writer.create() instanceof RustWriter)) {
  console.error(`RustWriter is not installed into @grpc/proto-loader's protobufjs (${protobufPath}): ` +
    'run node -r protobufjs-rustwriter/register examples/grpc/app.js');
  process.exit(1);
}

const requestSerialize = definition['inventory.Inventory'].GetItem.requestSerialize;
if (requestSerialize.name !== 'serialize_rustwriter') {
  console.error('@grpc/proto-loader hands out its own serializers: run node -r protobufjs-rustwriter/register examples/grpc/app.js');
  process.exit(1);
}

// Each serializer proto-loader handed out (compiled, writing with RustWriter) is compared with plain
// protobufjs encoding the same value: its fromObject and generated encoder, into its own writer,
// through the same schema loaded into the same protobufjs copy.
let compared = 0;
let differences = 0;
const service = definition['inventory.Inventory'];
for (const method of protobuf.loadSync(PROTO).lookupService('inventory.Inventory').resolveAll().methodsArray) {
  service[method.name].requestSerialize = comparing(method.resolvedRequestType, service[method.name].requestSerialize);
  const handler = service[method.name];
  handler.responseSerialize = comparing(method.resolvedResponseType, handler.responseSerialize);
}

/**
 * @param {protobuf.Type} Type Message type
 * @param {(value: object) => Buffer} serialize proto-loader's serializer
 * @returns {(value: object) => Buffer} The same serializer, comparing its bytes with protobufjs's writer's
 */
function comparing(Type, serialize) {
  return function serialize_compared(value) {
    const ours = serialize(value);
    const theirs = Type.encode(Type.fromObject(value), new protobuf.BufferWriter()).finish();
    compared++;
    if (Buffer.compare(ours, theirs) !== 0) {
      differences++;
      console.error(`${Type.name}: RustWriter wrote ${ours.length} bytes, protobufjs's writer ${theirs.length}, not the same`);
    }
    return ours;
  };
}

const TEN_YEARS = Array.from({ length: 3650 }, (_, day) => (day * 37) % 250);
const CATALOG = [
  { sku: 'HAM-16', name: 'Claw hammer, 16 oz', category: 'tools', priceCents: '1999', attributes: { weight: '450 g' }, dailySales: [3, 0, 7] },
  { sku: 'SAW-20', name: 'Panel saw 20″', category: 'tools', priceCents: '2450', attributes: { teeth: '7 TPI', handle: 'beech' }, dailySales: TEN_YEARS },
  { sku: 'MUG-01', name: 'Mug “Grüße” ☕', category: 'kitchen', priceCents: '899', attributes: {}, dailySales: [] },
  { sku: 'DRL-18', name: 'Cordless drill 18 V', category: 'tools', priceCents: '12900', attributes: { battery: '2 × 2.0 Ah' }, dailySales: [1, 1, 2, 3, 5, 8] },
];

const { Inventory } = grpc.loadPackageDefinition(definition).inventory;
const server = new grpc.Server();
server.addService(Inventory.service, {
  GetItem(call, callback) {
    const item = CATALOG.find((i) => i.sku === call.request.sku);
    if (item) callback(null, item);
    else callback({ code: grpc.status.NOT_FOUND, details: `no item ${call.request.sku}` });
  },
  ListItems(call) {
    for (const item of CATALOG) if (item.category === call.request.category) call.write(item);
    call.end();
  },
});

async function main() {
  const port = await new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  console.log(`server listening on 127.0.0.1:${port}`);
  // No proxy, whatever the environment says: this example talks to 127.0.0.1 only.
  const client = new Inventory(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.enable_http_proxy': 0 });
  const deadline = () => ({ deadline: Date.now() + CALL_DEADLINE_MS });
  const getItem = (sku) => new Promise((resolve, reject) => {
    client.GetItem({ sku }, deadline(), (error, item) => (error ? reject(error) : resolve(item)));
  });

  // Twenty calls, so that the serializers of both messages are compiled (at the 16th).
  for (const sku of [...Array(10).fill('HAM-16'), ...Array(9).fill('DRL-18'), 'SAW-20']) {
    const item = await getItem(sku);
    const expected = CATALOG.find((i) => i.sku === sku);
    assert.deepStrictEqual([item.name, item.priceCents, item.dailySales],
      [expected.name, expected.priceCents, expected.dailySales]);
  }
  console.log('GetItem: 20 items');
  await assert.rejects(getItem('NOPE-00'), (error) => error.code === grpc.status.NOT_FOUND);
  console.log('GetItem NOPE-00: NOT_FOUND');

  const tools = await new Promise((resolve, reject) => {
    const items = [];
    client.ListItems({ category: 'tools' }, deadline())
      .on('data', (item) => items.push(item))
      .on('error', reject)
      .on('end', () => resolve(items));
  });
  assert.deepStrictEqual(tools.map((i) => i.sku), CATALOG.filter((i) => i.category === 'tools').map((i) => i.sku));
  console.log(`ListItems tools: ${tools.map((i) => i.sku).join(', ')}`);

  client.close();
  await new Promise((resolve, reject) => server.tryShutdown((error) => (error ? reject(error) : resolve())));

  // Sent: 21 GetItem requests and 20 items, 1 ListItems request and the streamed items.
  const sent = 21 + 20 + 1 + tools.length;
  assert.strictEqual(compared, sent, 'every message sent went through a compared serializer');
  const after = status();
  const loader = after.protoLoaders.find((l) => l.hooked);
  const copy = after.copies.find((c) => c.path !== null && protobufPath.startsWith(c.path + path.sep));
  console.log(`@grpc/proto-loader ${loader ? `${loader.version}: compiled serializers in ${loader.definitions} package definition(s), ${loader.methods} methods` : 'not hooked'}; ` +
    `protobufjs ${copy.version}: ${copy.serialized.serializers} serializers handed out, ${copy.serialized.compiled} Types compiled`);
  assert.ok(loader && copy.serialized.compiled >= 2, 'the serializers were compiled');
  console.log(differences
    ? `${differences} of ${compared} messages differ`
    : `all ${compared} messages sent identical to plain protobufjs's; RustWriter.native = ${RustWriter.native}`);
  process.exitCode = differences ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
