'use strict';

/**
 * The Google Cloud real-workload case: a Firestore commit as the Node.js client sends it.
 *
 * The schema is the client's own JSON descriptor, `@google-cloud/firestore`'s
 * build/protos/v1.json (151 message types: Firestore's v1 API and the Google types it uses), which
 * the client `require`s and google-gax loads with protobufjs 7.x's `Root.fromJSON`. Version 8.7.1
 * is the devDependency: the latest whose `engines` take Node 20 (9.x needs Node 22), and its
 * v1.json is the same API. The package brings google-gax and its dependencies (42 packages in this
 * tree); `google-proto-files`, the alternative with Firestore's .proto files, is 70 MB in 8,060 files.
 *
 * The message: a `google.firestore.v1.CommitRequest` of WRITES writes in a transaction, shaped as
 * the client's serializer (its build/src/serializer.js `encodeValue`) makes them from app data:
 * order documents whose fields use every Value kind a document can hold (null as `'NULL_VALUE'`,
 * booleans, integers as numbers and, from BigInts, as decimal strings, doubles, timestamps as
 * `{seconds, nanos}` numbers, strings, bytes as Buffers, references, geo points, arrays, maps, maps
 * nested in maps and in arrays); updates with field masks and preconditions, field transforms of
 * every kind (server time, increment, maximum, minimum, array union and removal), transform-only
 * writes and deletes. gRPC's serializer (`@grpc/proto-loader`, which google-gax uses) encodes a
 * request as `T.encode(T.fromObject(request)).finish()`: bench/cases.js gives each contender its
 * own Type's `fromObject` of these plain objects (message instances, int64 as `Long`s).
 */

const fs = require('fs');
const path = require('path');
const { between, uuid, sentence, ascii, randomBytes, EPOCH_SECONDS } = require('./fill');

/** The message type of the case. */
const TYPE = 'google.firestore.v1.CommitRequest';
/** The client's JSON descriptor. */
const SCHEMA_FILE = path.join(path.dirname(require.resolve('@google-cloud/firestore/package.json')), 'build', 'protos', 'v1.json');
/** Writes per commit (a Firestore batch takes at most 500). */
const WRITES = 120;
const DATABASE = 'projects/acme-shop-prod/databases/(default)';
const DOCUMENTS = `${DATABASE}/documents`;
const STATUSES = ['pending', 'paid', 'packed', 'shipped', 'delivered', 'refunded'];
const CITIES = [['Lyon', 45.764, 4.8357], ['Osaka', 34.6937, 135.5023], ['Austin', 30.2672, -97.7431], ['Porto', 41.1579, -8.6291]];

/**
 * The Value of a JS value, as the client's serializer writes it.
 * @param {*} value App value: null, boolean, number, BigInt, string, Date, Buffer, `{ref}`, `{geo}`,
 *   array or plain object
 * @returns {object} google.firestore.v1.Value as a plain object
 */
function encodeValue(value) {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'boolean') return { booleanValue: value };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { integerValue: value } : { doubleValue: value };
  if (typeof value === 'bigint') return { integerValue: value.toString() };
  if (typeof value === 'string') return { stringValue: value };
  if (value instanceof Date) {
    const ms = value.getTime();
    return { timestampValue: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 } };
  }
  if (Buffer.isBuffer(value)) return { bytesValue: value };
  if (value.ref) return { referenceValue: value.ref };
  if (value.geo) return { geoPointValue: { latitude: value.geo[0], longitude: value.geo[1] } };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(encodeValue) } };
  return { mapValue: { fields: encodeFields(value) } };
}

/**
 * The fields map of a Document or MapValue.
 * @param {object} object App object
 * @returns {Object<string, object>} Values by field name
 */
function encodeFields(object) {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, encodeValue(value)]));
}

/**
 * A Timestamp of the last weeks as the client writes it.
 * @param {Function} rnd prng
 * @returns {Date} Date
 */
function recent(rnd) {
  return new Date((EPOCH_SECONDS - rnd.int(3e6)) * 1000 + rnd.int(1000));
}

/**
 * An order document's data as an app holds it.
 * @param {Function} rnd prng
 * @returns {object} App object
 */
function order(rnd) {
  const [city, lat, lng] = rnd.pick(CITIES);
  const items = Array.from({ length: between(rnd, 1, 4) }, () => ({
    sku: `SKU-${ascii(rnd, 8)}`, quantity: between(rnd, 1, 5), price: (between(rnd, 199, 19999) + 0.99) / 100,
    giftWrapped: rnd() < 0.2,
  }));
  const data = {
    status: rnd.pick(STATUSES),
    customer: { ref: `${DOCUMENTS}/customers/${uuid(rnd)}` },
    total: items.reduce((sum, item) => sum + item.quantity * item.price, 0),
    itemCount: items.length,
    paid: rnd() < 0.7,
    createdAt: recent(rnd),
    cancelledAt: null,
    items,
    tags: Array.from({ length: between(rnd, 0, 3) }, () => rnd.pick(['express', 'gift', 'b2b', 'promo', 'fragile'])),
    shipping: {
      name: sentence(rnd, between(rnd, 8, 20), rnd() < 0.1),
      address: { street: `${between(rnd, 1, 250)} ${sentence(rnd, 10, false)}`, city, postalCode: String(between(rnd, 10000, 99999)) },
      location: { geo: [lat + (rnd() - 0.5) / 10, lng + (rnd() - 0.5) / 10] },
      window: { from: recent(rnd), hours: between(rnd, 1, 8) },
    },
  };
  if (rnd() < 0.3) data.note = sentence(rnd, between(rnd, 30, 200), rnd() < 0.2);
  if (rnd() < 0.25) data.signature = Buffer.from(randomBytes(rnd, between(rnd, 16, 64)));
  if (rnd() < 0.2) data.loyaltyPoints = BigInt(Number.MAX_SAFE_INTEGER) + BigInt(rnd.int(1e6));
  return data;
}

/**
 * A field transform of one of the kinds, on a field of an order.
 * @param {Function} rnd prng
 * @param {number} kind 0 to 5: server time, increment, maximum, minimum, array union, array removal
 * @returns {object} google.firestore.v1.DocumentTransform.FieldTransform
 */
function fieldTransform(rnd, kind) {
  switch (kind) {
    case 0: return { fieldPath: 'updatedAt', setToServerValue: 'REQUEST_TIME' };
    case 1: return { fieldPath: 'itemCount', increment: encodeValue(between(rnd, 1, 3)) };
    case 2: return { fieldPath: 'shipping.window.hours', maximum: encodeValue(between(rnd, 1, 8)) };
    case 3: return { fieldPath: 'total', minimum: encodeValue((between(rnd, 100, 9999) + 0.5) / 100) };
    case 4: return { fieldPath: 'tags', appendMissingElements: encodeValue([rnd.pick(['express', 'gift']), 'audited']).arrayValue };
    default: return { fieldPath: 'tags', removeAllFromArray: encodeValue(['promo']).arrayValue };
  }
}

/**
 * A precondition, sometimes.
 * @param {Function} rnd prng
 * @returns {object|undefined} google.firestore.v1.Precondition
 */
function precondition(rnd) {
  const pick = rnd();
  if (pick < 0.2) return { exists: true };
  if (pick < 0.35) return { updateTime: encodeValue(recent(rnd)).timestampValue };
  return undefined;
}

/**
 * One write: an update (a set, or an update of some fields under a mask), a transform of an existing
 * document, or a delete.
 * @param {Function} rnd prng
 * @param {number} i Index of the write (every transform kind comes early)
 * @returns {object} google.firestore.v1.Write
 */
function write(rnd, i) {
  const name = `${DOCUMENTS}/orders/${uuid(rnd)}`;
  const pick = i < 6 ? 0.8 : rnd();
  if (pick < 0.65) {
    const data = order(rnd);
    const out = { update: { name, fields: encodeFields(data) } };
    if (rnd() < 0.4) out.updateMask = { fieldPaths: [...Object.keys(data).slice(0, between(rnd, 2, 6)), 'shipping.address.city'] };
    if (rnd() < 0.4) out.updateTransforms = [fieldTransform(rnd, 0), fieldTransform(rnd, 1 + rnd.int(5))];
    const pre = precondition(rnd);
    if (pre) out.currentDocument = pre;
    return out;
  }
  if (pick < 0.85) {
    const fieldTransforms = Array.from({ length: between(rnd, 1, 3) }, (_, k) => fieldTransform(rnd, (i + k) % 6));
    return {
      transform: { document: name, fieldTransforms },
      currentDocument: { exists: true },
    };
  }
  const out = { delete: name };
  const pre = precondition(rnd);
  if (pre) out.currentDocument = pre;
  return out;
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
 * The case's message: a commit of WRITES writes in a transaction.
 * @param {Function} rnd prng (tools/seeded.js)
 * @returns {object} CommitRequest as the client hands it to gRPC's serializer
 */
function build(rnd) {
  return {
    database: DATABASE,
    writes: Array.from({ length: WRITES }, (_, i) => write(rnd, i)),
    transaction: Buffer.from(randomBytes(rnd, 32)),
  };
}

module.exports = { TYPE, SCHEMA_FILE, WRITES, schema, build };
