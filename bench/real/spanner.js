'use strict';

/**
 * A real gRPC workload: a Spanner commit of a batch of mutations, as the Node.js client sends it.
 *
 * The schema is the client's own JSON descriptor, `@google-cloud/spanner`'s build/protos/protos.json
 * (362 message types), loaded with @grpc/proto-loader's `fromJSON` by google-gax. Version 8.4.0 is the
 * devDependency: the latest whose `engines` take Node 20 (9.x needs Node 22).
 *
 * The message: a `google.spanner.v1.CommitRequest` in a read-write transaction holding MUTATIONS
 * mutations (inserts, updates, insert-or-updates and deletes by key) of rows of an orders table, each
 * row's values made as the client's codec makes them (build/src/codec.js `encode`, then
 * common-grpc/service.js `encodeValue_`: `google.protobuf.Value`s, INT64 and NUMERIC as decimal
 * strings in `stringValue`, FLOAT64 in `numberValue`, BOOL in `boolValue`, TIMESTAMP as an ISO string,
 * BYTES as base64, NULL as `nullValue: 0`, ARRAY as a `listValue`), with a transaction tag.
 */

const fs = require('fs');
const path = require('path');
const { between, uuid, sentence, randomBytes } = require('./fill');

/** The message type of the case, and the method that sends it. */
const TYPE = 'google.spanner.v1.CommitRequest';
const SERVICE = 'google.spanner.v1.Spanner';
const METHOD = 'Commit';
/** The client's JSON descriptor. */
const SCHEMA_FILE = path.join(path.dirname(require.resolve('@google-cloud/spanner/package.json')), 'build', 'protos', 'protos.json');
/** Mutations per commit (Spanner takes up to 80,000 mutated cells a commit). */
const MUTATIONS = 100;
/** Rows per insert or update mutation. */
const ROWS = 5;
const SESSION = 'projects/acme-shop-prod/instances/orders/databases/orders-db/sessions/AHvMhs-7xSx4WrtYbgF3MGyJ8A';
const COLUMNS = ['OrderId', 'CustomerId', 'Status', 'Total', 'ItemCount', 'Paid', 'CreatedAt', 'Note', 'Tags', 'Signature'];
const STATUSES = ['pending', 'paid', 'packed', 'shipped', 'delivered', 'refunded'];

/**
 * A column value as the client's codec encodes it (a google.protobuf.Value).
 * @param {*} value App value
 * @returns {object} google.protobuf.Value as a plain object
 */
function encode(value) {
  if (value === null) return { nullValue: 0 };
  if (typeof value === 'bigint') return { stringValue: value.toString() };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (value instanceof Date) return { stringValue: value.toJSON() };
  if (Buffer.isBuffer(value)) return { stringValue: value.toString('base64') };
  return { listValue: { values: value.map(encode) } };
}

/**
 * An order row's values, in COLUMNS order.
 * @param {Function} rnd prng
 * @returns {object} google.protobuf.ListValue
 */
function row(rnd) {
  const created = new Date(Date.UTC(2026, 0, 1) + rnd.int(8.64e9));
  const note = rnd() < 0.4 ? sentence(rnd, between(rnd, 10, 160), rnd() < 0.1) : null;
  const values = [
    uuid(rnd), uuid(rnd), rnd.pick(STATUSES), BigInt(between(rnd, 199, 9999999)), BigInt(between(rnd, 1, 40)),
    rnd() < 0.7, created, note,
    Array.from({ length: between(rnd, 0, 3) }, () => rnd.pick(['express', 'gift', 'b2b', 'promo'])),
    rnd() < 0.2 ? Buffer.from(randomBytes(rnd, 32)) : null,
  ];
  return { values: values.map(encode) };
}

/**
 * One mutation.
 * @param {Function} rnd prng
 * @param {number} i Index (every kind comes early)
 * @returns {object} google.spanner.v1.Mutation
 */
function mutation(rnd, i) {
  const kind = i < 4 ? i : rnd.int(10) < 6 ? 0 : 1 + rnd.int(3);
  if (kind === 3) {
    return { delete: { table: 'Orders', keySet: { keys: Array.from({ length: between(rnd, 1, 4) }, () => ({ values: [encode(uuid(rnd))] })) } } };
  }
  const write = { table: 'Orders', columns: COLUMNS, values: Array.from({ length: between(rnd, 1, ROWS) }, () => row(rnd)) };
  return [{ insert: write }, { update: write }, { insertOrUpdate: write }][kind];
}

let cached = null;

/**
 * The schema as `Root.fromJSON` takes it: the client's descriptor, read once.
 * @returns {object} Descriptor
 */
function schema() {
  if (!cached) cached = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8'));
  return cached;
}

/**
 * The case's message: a commit of MUTATIONS mutations in a transaction.
 * @param {Function} rnd prng
 * @returns {object} CommitRequest as the client hands it to gRPC's serializer
 */
function build(rnd) {
  return {
    session: SESSION,
    transactionId: Buffer.from(randomBytes(rnd, 16)),
    mutations: Array.from({ length: MUTATIONS }, (_, i) => mutation(rnd, i)),
    requestOptions: { transactionTag: 'checkout-batch' },
  };
}

module.exports = { TYPE, SERVICE, METHOD, SCHEMA_FILE, MUTATIONS, schema, build };
