'use strict';

/**
 * What the operations every protobufjs encoder makes cost on this Node line, compiled encoders and
 * protobufjs's own alike: a presence check's `hasOwnProperty` (against the `!= null` test alone, and
 * `Object.hasOwn`), `util.types.isProxy` (what telling a plain object from a Proxy would cost), and
 * the enumeration of a map object with a few int32 keys, some negative (catalog's maps): `Object.keys`
 * as protobufjs does it, and its alternatives; and a `copyWithin` of a nested message's bytes one byte
 * to the right, as a length that outgrows its one-byte placeholder costs both (protobufjs 8.8.1's
 * `ldelim()`, RustWriter's `finish()`).
 *
 *   node bench/probes/shared-ops.js [rounds]
 *
 * Each operation runs in a loop over 1,000 objects, warm; the report is the median over `rounds`
 * (default 5) of its time per object, minus nothing: the `!= null` row is the loop's own floor.
 */

const { isProxy } = require('util').types;

const OBJECTS = 1000;
const WARM_LOOPS = 300;
const TIMED_LOOPS = 3000;
/** Catalog's map keys: int32s, a few negative (named properties), the rest holey elements. */
const MAP_KEYS = [3, 17, -5, 9, 30, 1, -12, 22];

/** Bytes of a catalog product, which its length's one-byte placeholder cannot hold. */
const PRODUCT_BYTES = 160;

/** A message class as protobufjs's `decode` and `fromObject` make them: defaults on the prototype. */
function Decoded() {}
Decoded.prototype.id = 0;
Decoded.prototype.type = 0;

const plain = Array.from({ length: OBJECTS }, (_, i) => ({ id: i + 1, type: i % 3, name: 'x', other: 5 }));
const decoded = Array.from({ length: OBJECTS }, (_, i) => {
  const m = new Decoded();
  m.id = i + 1;
  if (i % 3) m.type = 2;
  return m;
});
/** Where each product starts in one buffer: the "objects" of the copyWithin op. */
const products = Array.from({ length: OBJECTS }, (_, i) => i * (PRODUCT_BYTES + 8));
const productBytes = Buffer.alloc(OBJECTS * (PRODUCT_BYTES + 8));
const maps = Array.from({ length: OBJECTS }, (_, i) => {
  const m = {};
  for (let j = 0; j <= i % 4; j++) m[MAP_KEYS[(i + j) % MAP_KEYS.length]] = j * 7 - 3;
  return m;
});

/* eslint-disable eqeqeq -- `!= null` is the encoders' own test */
const OPS = {
  'presence: != null alone (the floor)': [plain, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) if (a[i].id != null) s += 1;
    return s;
  }],
  'presence: != null && hasOwnProperty, plain object': [plain, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) if (a[i].id != null && Object.hasOwnProperty.call(a[i], 'id')) s += 1;
    return s;
  }],
  'presence: != null && hasOwnProperty, decoded object': [decoded, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) if (a[i].id != null && Object.hasOwnProperty.call(a[i], 'id')) s += 1;
    return s;
  }],
  'presence: != null && Object.hasOwn, plain object': [plain, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) if (a[i].id != null && Object.hasOwn(a[i], 'id')) s += 1;
    return s;
  }],
  'util.types.isProxy, plain object': [plain, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) if (!isProxy(a[i])) s += 1;
    return s;
  }],
  'map of 1-4 int32 keys: Object.keys': [maps, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) for (let ks = Object.keys(a[i]), k = 0; k < ks.length; ++k) s += ks[k] | 0;
    return s;
  }],
  'map of 1-4 int32 keys: for-in': [maps, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) for (const k in a[i]) s += k | 0;
    return s;
  }],
  'map of 1-4 int32 keys: Object.getOwnPropertyNames': [maps, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      for (let ks = Object.getOwnPropertyNames(a[i]), k = 0; k < ks.length; ++k) s += ks[k] | 0;
    }
    return s;
  }],
  [`copyWithin of ${PRODUCT_BYTES} bytes, one byte to the right`]: [products, (a) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      productBytes.copyWithin(a[i] + 1, a[i], a[i] + PRODUCT_BYTES);
      s += productBytes[a[i]];
    }
    return s;
  }],
};
/* eslint-enable eqeqeq */

/**
 * @param {object[]} objects What the op loops over
 * @param {function(object[]): number} op The op
 * @returns {number} Nanoseconds per object, one timing
 */
function time(objects, op) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < TIMED_LOOPS; i++) sink += op(objects);
  const ns = Number(process.hrtime.bigint() - start) / TIMED_LOOPS / objects.length;
  if (sink === -1) process.stdout.write('');
  return ns;
}

/**
 * Times every op and prints the medians.
 * @param {number} rounds Rounds
 * @returns {undefined}
 */
function main(rounds) {
  const times = Object.fromEntries(Object.keys(OPS).map((name) => [name, []]));
  for (const [objects, op] of Object.values(OPS)) for (let i = 0; i < WARM_LOOPS; i++) op(objects);
  for (let round = 0; round < rounds; round++) {
    for (const [name, [objects, op]] of Object.entries(OPS)) times[name].push(time(objects, op));
  }
  process.stdout.write(`Node ${process.versions.node}, ns per object, median of ${rounds} rounds\n`);
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    process.stdout.write(`${list[list.length >> 1].toFixed(1).padStart(7)}  ${name}\n`);
  }
}

main(Number(process.argv[2] || 5));
