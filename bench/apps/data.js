'use strict';

/**
 * Seeded, realistic messages for bench/apps/ (plain objects, as an app builds them): events for the
 * producer, orders for the gRPC server. Nothing here loads protobufjs or this package (nor does
 * tools/seeded.js), so that the "protobufjs alone" process loads neither.
 */

const { prng } = require('../../tools/seeded');

const WORDS = ['checkout', 'search', 'login', 'cart', 'payment', 'shipping', 'profile', 'review', 'wishlist', 'refund'];
const UNITS = ['ms', 'bytes', 'count', 'percent'];
const COUNTRIES = ['DE', 'FR', 'US', 'JP', 'BR', 'IN', 'SE', 'ES'];
const NAMES = ['Ana Müller', 'Jean Dupont', 'Sam Lee', 'Yuki Tanaka', 'João Silva', 'Priya Rao', 'Åsa Berg', 'Lucía Gómez'];

/**
 * A hex id of `n` characters.
 * @param {Function} r Generator
 * @param {number} n Length
 * @returns {string} Id
 */
function hexId(r, n) {
  let s = '';
  for (let i = 0; i < n; ++i) s += '0123456789abcdef'[r.int(16)];
  return s;
}

/**
 * Events as a producer builds them (~400–700 bytes encoded): ids, a timestamp, attributes, a few
 * measurements, a user, a small payload.
 * @param {number} count How many
 * @param {number} seed Seed
 * @returns {object[]} Events
 */
function events(count, seed) {
  const r = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const attributes = {};
    for (let k = 0, n = 3 + r.int(6); k < n; ++k) attributes[`attr.${r.pick(WORDS)}.${k}`] = `${r.pick(WORDS)}-${r.int(10000)}`;
    return {
      id: `${hexId(r, 8)}-${hexId(r, 4)}-${hexId(r, 4)}-${hexId(r, 4)}-${hexId(r, 12)}`,
      timestampMs: 1767225600000 + i * 37 + r.int(1000),
      source: `service-${r.pick(WORDS)}`,
      type: `${r.pick(WORDS)}.${r.pick(WORDS)}`,
      attributes,
      measurements: Array.from({ length: 2 + r.int(8) }, () => ({ name: `${r.pick(WORDS)}_latency`, value: r() * 1000, unit: r.pick(UNITS) })),
      user: { id: 1e9 + r.int(1e9), name: r.pick(NAMES), email: `user${r.int(100000)}@example.com`, country: r.pick(COUNTRIES) },
      payload: Buffer.from(Array.from({ length: 64 + r.int(192) }, () => r.int(256))),
      severity: 1 + r.int(4),
    };
  });
}

/**
 * Orders as a gRPC server returns them (130–418 bytes encoded, ~270 on average), field names as
 * @grpc/proto-loader's default `keepCase: false` expects them.
 * @param {number} count How many
 * @param {number} seed Seed
 * @returns {object[]} Orders
 */
function orders(count, seed) {
  const r = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const items = Array.from({ length: 1 + r.int(8) }, () => ({
      sku: `SKU-${10000 + r.int(90000)}`, name: `${r.pick(WORDS)} ${r.pick(WORDS)} set`, quantity: 1 + r.int(5), priceCents: 99 + r.int(50000),
    }));
    return {
      id: 5000000 + i,
      customerId: `cust-${hexId(r, 12)}`,
      items,
      totalCents: items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0),
      currency: 'EUR',
      status: r.pick(['OPEN', 'PAID', 'SHIPPED']),
      createdMs: 1767225600000 + r.int(1e9),
      shipTo: { name: r.pick(NAMES), street: `${1 + r.int(200)} ${r.pick(WORDS)} street`, city: 'Berlin', postcode: String(10000 + r.int(89999)), country: r.pick(COUNTRIES) },
    };
  });
}

module.exports = { events, orders };
