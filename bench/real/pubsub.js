'use strict';

/**
 * A real gRPC workload: a Pub/Sub publish as the Node.js client sends it.
 *
 * The schema is the client's own JSON descriptor, `@google-cloud/pubsub`'s build/protos/protos.json
 * (156 message types), which google-gax loads with @grpc/proto-loader's `fromJSON`. Version 5.3.1 is
 * the devDependency: the latest whose `engines` take Node 20 (6.x needs Node 22).
 *
 * The message: a `google.pubsub.v1.PublishRequest` of MESSAGES messages, as the client's publisher
 * batches them (build/src/publisher/message-queues.js `_publish`, each message through
 * `filterMessage`): the topic's full name, and per message its `data` (a Buffer: here an event as
 * JSON, 190 bytes, and up to 800 with a note, which two in five have), its `attributes` (four or five
 * string pairs, as apps tag events), and in one message of three an `orderingKey`.
 */

const fs = require('fs');
const path = require('path');
const { between, uuid, sentence, ascii } = require('./fill');

/** The message type of the case, and the method that sends it. */
const TYPE = 'google.pubsub.v1.PublishRequest';
const SERVICE = 'google.pubsub.v1.Publisher';
const METHOD = 'Publish';
/** The client's JSON descriptor. */
const SCHEMA_FILE = path.join(path.dirname(require.resolve('@google-cloud/pubsub/package.json')), 'build', 'protos', 'protos.json');
/** Messages per publish (the client's default batch holds at most 100 messages or 1 MB; apps raise it). */
const MESSAGES = 200;
const TOPIC = 'projects/acme-shop-prod/topics/order-events';
const EVENTS = ['order.created', 'order.paid', 'order.shipped', 'order.cancelled', 'payment.failed', 'stock.low'];
const REGIONS = ['europe-west1', 'us-central1', 'asia-northeast1'];

/**
 * One published message.
 * @param {Function} rnd prng (tools/seeded.js)
 * @param {number} i Index in the batch
 * @returns {object} google.pubsub.v1.PubsubMessage as the client hands it to gRPC
 */
function message(rnd, i) {
  const event = rnd.pick(EVENTS);
  const body = {
    id: uuid(rnd), type: event, at: new Date(Date.UTC(2026, 0, 1) + rnd.int(8.64e7)).toISOString(),
    order: { id: uuid(rnd), customer: uuid(rnd), total: between(rnd, 199, 99999) / 100, items: between(rnd, 1, 12) },
  };
  if (rnd() < 0.4) body.note = sentence(rnd, between(rnd, 10, rnd() < 0.9 ? 120 : 600), rnd() < 0.1);
  const out = {
    data: Buffer.from(JSON.stringify(body)),
    attributes: { eventType: event, source: `svc-${ascii(rnd, 6)}`, region: rnd.pick(REGIONS), schemaVersion: '3' },
  };
  if (rnd() < 0.3) out.attributes.traceparent = `00-${ascii(rnd, 32)}-${ascii(rnd, 16)}-01`;
  if (i % 3 === 0) out.orderingKey = body.order.customer;
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
 * The case's message: a publish of MESSAGES messages.
 * @param {Function} rnd prng
 * @returns {object} PublishRequest as the client hands it to gRPC's serializer
 */
function build(rnd) {
  return { topic: TOPIC, messages: Array.from({ length: MESSAGES }, (_, i) => message(rnd, i)) };
}

module.exports = { TYPE, SERVICE, METHOD, SCHEMA_FILE, MESSAGES, schema, build };
