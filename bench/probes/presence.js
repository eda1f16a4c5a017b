'use strict';

/**
 * What the presence check of one singular field costs, and what a cheaper check that gives the same
 * answer would: protobufjs's `m.f != null && Object.hasOwnProperty.call(m, "f")` (the compiled
 * encoders make the same call; it is a call into a V8 builtin that compiled code does not fold)
 * against checks that prove the property own without that call, for a message `m` that is not a
 * Proxy (`util.types.isProxy`, once a message) and whose prototype is `Object.prototype`, that
 * object lacking `f` (so `f in m` can only find an own `f`):
 *
 * - `none`: `m.f != null` alone, the floor (not a check of own-ness);
 * - `gpo`: `Object.getPrototypeOf(m) === OP && !("f" in OP) && "f" in m` after the read, for every
 *   field (exact: the prototype is read when the field is);
 * - `protoLoad`: the same with `m.__proto__` for the prototype (an own property named `__proto__`
 *   would be read instead, so it is exact only for objects without one).
 *
 * Each over plain objects of 1, 2, 4 and 8 shapes (the same keys in rotated orders: a site that sees
 * more than 4 maps is megamorphic) and over instances of a protobufjs message class (decoded
 * messages: fields the wire left out are inherited defaults, so the check falls back to the call).
 * Four fields present in each object; the sum keeps the reads alive.
 *
 *   node bench/probes/presence.js [rounds]
 *
 * Prints ns per message (four checks), the median of `rounds` (default 5) timings.
 */

const { isProxy } = require('util').types;
const protobuf = require('protobufjs');

const ROUNDS = Number(process.argv[2] || 5);
const OPS = 1 << 21;
const OBJECTS = 64;
const KEYS = ['count', 'ratio', 'x', 'y', 'a', 'b', 'c', 'd'];
const CHECKED = ['count', 'ratio', 'x', 'y'];
const OP = Object.getPrototypeOf({});

/**
 * Plain objects of `shapes` property orders.
 * @param {number} shapes Orders
 * @returns {object[]} Objects
 */
function plain(shapes) {
  return Array.from({ length: OBJECTS }, (_, i) => {
    const o = {};
    const order = KEYS.slice();
    for (let j = 0; j < i % shapes; ++j) order.push(order.shift());
    for (const k of order) o[k] = i + 1;
    return o;
  });
}

/**
 * Decoded messages of a Type with the same fields.
 * @returns {object[]} Instances of the Type's class
 */
function decoded() {
  const fields = Object.fromEntries(KEYS.map((k, i) => [k, { type: 'uint32', id: i + 1 }]));
  const T = protobuf.Root.fromJSON({ nested: { M: { fields } } }).lookupType('M');
  return plain(1).map((o) => T.decode(T.encode(o).finish()));
}

/** Each check's statements for one message `m`, adding its present fields to `s`. */
const CHECKS = {
  hop: (f) => `if (m.${f} != null && Object.hasOwnProperty.call(m, "${f}") && m.${f} !== 0) s += m.${f};`,
  none: (f) => `if (m.${f} != null && m.${f} !== 0) s += m.${f};`,
  gpo: (f) => `if (m.${f} != null && (ordinary && Object.getPrototypeOf(m) === OP && !("${f}" in OP) && "${f}" in m ` +
    `|| Object.hasOwnProperty.call(m, "${f}")) && m.${f} !== 0) s += m.${f};`,
  protoLoad: (f) => `if (m.${f} != null && (ordinary && m.__proto__ === OP && !("${f}" in OP) && "${f}" in m ` +
    `|| Object.hasOwnProperty.call(m, "${f}")) && m.${f} !== 0) s += m.${f};`,
};

/**
 * ns per message of one check over `objects`, in a function of its own (a unique source: V8 shares
 * feedback between functions of identical source).
 * @param {string} kind Check
 * @param {string} label Objects' label
 * @param {object[]} objects Messages
 * @returns {number} Median ns
 */
function time(kind, label, objects) {
  const setup = kind === 'gpo' || kind === 'protoLoad' ? 'const ordinary = !isProxy(m);\n' : '';
  const body = setup + CHECKED.map(CHECKS[kind]).join('\n');
  const run = new Function('objects', 'ops', 'isProxy', 'OP', `// ${kind}, ${label}
    let s = 0;
    for (let k = 0; k < ops; ++k) { const m = objects[k & ${OBJECTS - 1}];\n${body}\n}
    return s;`);
  run(objects, 10000, isProxy, OP);
  const times = [];
  for (let r = 0; r < ROUNDS; ++r) {
    const t0 = process.hrtime.bigint();
    run(objects, OPS, isProxy, OP);
    times.push(Number(process.hrtime.bigint() - t0) / OPS);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

const SETS = [
  ['plain, 1 shape', plain(1)], ['plain, 2 shapes', plain(2)], ['plain, 4 shapes', plain(4)],
  ['plain, 8 shapes', plain(8)], ['decoded', decoded()],
];
console.log(`Node ${process.versions.node}: ns per message of four present fields, median of ${ROUNDS} rounds`);
console.log(['objects'.padEnd(16), ...Object.keys(CHECKS).map((k) => k.padStart(10))].join(''));
for (const [label, objects] of SETS) {
  const row = Object.keys(CHECKS).map((kind) => time(kind, label, objects).toFixed(1).padStart(10));
  console.log([label.padEnd(16), ...row].join(''));
}
