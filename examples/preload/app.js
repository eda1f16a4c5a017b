'use strict';

/**
 * An app that encodes with protobufjs as usual (reflection: a .proto loaded at run time), run
 * under the preload, which makes every `Type.encode` write through RustWriter:
 *
 *   node -r protobufjs-rustwriter/register examples/preload/app.js
 *
 * It prints `status()`, then encodes a few orders and checks each one's bytes against
 * protobufjs's own writer (a `protobuf.BufferWriter` passed to `encode`). Exits with 1 if the
 * preload is not on or any bytes differ.
 */

const path = require('path');
const protobuf = require('protobufjs');
const { RustWriter, status } = require('protobufjs-rustwriter');

const Order = protobuf.loadSync(path.join(__dirname, 'orders.proto')).lookupType('shop.Order');

const orders = [
  { id: 1, customer: 'Ada', lines: [{ sku: 'A-1', quantity: 2 }], status: 'PLACED', cardToken: 'tok_4242' },
  {
    id: '18446744073709551615',
    customer: 'Zoë 🚀 '.repeat(12),
    lines: Array.from({ length: 40 }, (_, i) => ({ sku: `SKU-${i}`, quantity: i + 1, discountCents: -i * 25 })),
    tags: { gift: 'yes', channel: 'web', note: 'leave at the door, '.repeat(10) },
    status: 'SHIPPED',
    voucher: Buffer.from('VOUCHER-2026'),
    balanceCents: -123456789012,
    total: 1234.5,
  },
  { id: 3, customer: 'Grace', viewedProductIds: Array.from({ length: 3000 }, (_, i) => (i * 7919) % 1000003) },
];

const s = status();
console.log(JSON.stringify(s, null, 2));
if (!s.preload || !(protobuf.Writer.create() instanceof RustWriter)) {
  console.error('the preload is not on: run node -r protobufjs-rustwriter/register examples/preload/app.js');
  process.exit(1);
}

let differences = 0;
for (const object of orders) {
  const order = Order.fromObject(object);
  const ours = Order.encode(order).finish();
  const theirs = Order.encode(order, new protobuf.BufferWriter()).finish();
  const same = Buffer.compare(ours, theirs) === 0;
  if (!same) differences++;
  console.log(`order ${object.id}: ${ours.length} bytes, ${same ? 'identical to' : 'DIFFERENT from'} protobufjs's writer (${theirs.length} bytes)`);
}
console.log(differences ? `${differences} of ${orders.length} orders differ` : `all ${orders.length} orders identical; RustWriter.native = ${RustWriter.native}`);
process.exitCode = differences ? 1 : 0;
