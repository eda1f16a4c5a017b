'use strict';

/**
 * One fuzz case from its seed: a schema (schema.js), messages for it (message.js), `into` runs
 * that write several of them into one writer, and the case's options. Deterministic: the same seed
 * gives the same case on every protobufjs version and path (each applies its own semantics).
 *
 * A case is `{ seed, schema, options, messages, intos }`:
 * - `options`: `customBuffer` (the case runs with `protobuf.util.Buffer` set to a Buffer subclass,
 *   and `protobuf.configure()`), `recursionLimit` (`protobuf.util.recursionLimit` for the case, or
 *   null: protobufjs's 100);
 * - `messages`: `{ type, value }` (full type name, `msg` description);
 * - `after` (or null): a second pass, after every message was encoded once (so every Type was set
 *   up, and an installed encoder compiled): fields `add`ed (`{ type, field, value }`: a scalar or
 *   message field by the reflection API, the value top-level messages of that type then carry)
 *   and `remove`d (`{ type, id }`) on both Roots (protobufjs drops the Type's generated encoder;
 *   another Type's encoder that nests it must see the change), `util.recursionLimit` changed,
 *   `customBuffer` switched; then every message is encoded again (form `after`);
 * - `intos`: `{ ops }`, each op one of `['start', k]` (the writer `T.encode(m_k)` returns, without
 *   a writer given), `['bytes', field, n, seed]`, `['fork', field]`, `['ldelim']`,
 *   `['encode', k]` (`T.encode(m_k, w)`), `['delimited', k]` (`T.encodeDelimited(m_k, w)`),
 *   `['field', field, k]` (`T.encode(m_k, w.uint32(tag).fork()).ldelim()`: a message as a field of
 *   another) and `['group', field, k]` (the same as a group: start tag, message, end tag). Forks
 *   left open are closed before `finish()`.
 */

const { prng } = require('../../tools/seeded');
const { generateSchema, SCALARS, pick } = require('./schema');
const { generateMessages, Gen } = require('./message');

/**
 * @param {number} seed Seed
 * @returns {object} Case
 */
function generateCase(seed) {
  const rng = prng(seed);
  const schema = generateSchema(rng);
  const count = 3 + rng.int(10);
  const messages = generateMessages(rng, schema, count);
  const options = {
    customBuffer: rng() < 0.06,
    recursionLimit: rng() < 0.08 ? rng.int(5) : null,
  };
  const intos = [];
  const nInto = rng() < 0.5 ? 1 + rng.int(2) : 0;
  for (let j = 0; j < nInto; j++) intos.push({ ops: intoOps(rng, count) });
  const after = rng() < 0.2 ? makeAfter(rng, schema, options) : null;
  return { seed, schema, options, messages, intos, after };
}

/**
 * @param {function(): number} rng Generator
 * @param {object} schema Schema
 * @param {object} options The case's options (the second pass changes them)
 * @returns {object} A second pass: fields added and removed, options changed
 */
function makeAfter(rng, schema, options) {
  const types = schema.types.filter((t) => !t.group);
  const after = { add: [], remove: [], recursionLimit: options.recursionLimit, customBuffer: options.customBuffer };
  const n = 1 + rng.int(2);
  for (let k = 0; k < n; k++) {
    const t = pick(rng, types);
    if (rng() < 0.6) {
      const added = after.add.filter((a) => a.type === t.name).map((a) => a.field.id);
      const extended = (schema.extensions || []).filter((e) => e.target === t.name).map((e) => e.field.id);
      const ids = new Set([...t.fields.map((f) => f.id), ...added, ...extended]);
      let id;
      do id = 1 + rng.int(rng() < 0.7 ? 40 : 536870911); while (ids.has(id) || (id >= 19000 && id <= 19999));
      const message = rng() < 0.3;
      const field = {
        id, name: `added_${id}`, kind: message ? 'message' : 'scalar',
        type: message ? pick(rng, types).name : pick(rng, SCALARS), label: rng() < 0.3 ? 'repeated' : '',
      };
      const g = new Gen(rng, schema, { maxDepth: 1, budget: 10 });
      // Plain (JSON-like) values only: the value joins every message of the type in the second pass,
      // those made by fromObject or decoded too, which take nothing else (a BigInt64Array there is
      // rejected by fromObject on the subject's side, while the reference gets decimal strings).
      const value = g.field(field, 0, { plain: true }, false) || { k: 'lit', v: 'null' };
      after.add.push({ type: t.name, field, value });
    } else {
      const removed = (f) => after.remove.some((r) => r.type === t.name && r.id === f.id);
      const removable = t.fields.filter((f) => !f.oneof && !removed(f));
      if (removable.length > 0) after.remove.push({ type: t.name, id: pick(rng, removable).id });
    }
  }
  if (rng() < 0.3) after.recursionLimit = rng() < 0.5 ? null : rng.int(4);
  if (rng() < 0.1) after.customBuffer = !options.customBuffer;
  return after;
}

/**
 * @param {function(): number} rng Generator
 * @param {number} count Messages in the case
 * @returns {Array[]} Operations of one `into` run
 */
function intoOps(rng, count) {
  const ops = [];
  if (rng() < 0.3) ops.push(['start', rng.int(count)]);
  const n = 1 + rng.int(6);
  const field = () => (rng() < 0.8 ? 1 + rng.int(15) : 1 + rng.int(536870911));
  for (let k = 0; k < n; k++) {
    const x = rng();
    if (x < 0.15) ops.push(['bytes', field(), rng() < 0.8 ? rng.int(10) : 120 + rng.int(20), rng.int(2 ** 31)]);
    else if (x < 0.3) ops.push(['fork', field()]);
    else if (x < 0.38) ops.push(['ldelim']);
    else if (x < 0.6) ops.push(['encode', rng.int(count)]);
    else if (x < 0.75) ops.push(['delimited', rng.int(count)]);
    else if (x < 0.92) ops.push(['field', field(), rng.int(count)]);
    else ops.push(['group', field(), rng.int(count)]);
  }
  return ops;
}

/**
 * @param {Array[]} ops Operations
 * @returns {number[]} The messages they encode
 */
function messagesOf(ops) {
  const out = new Set();
  for (const op of ops) if (['start', 'encode', 'delimited', 'field', 'group'].includes(op[0])) out.add(op[op.length - 1]);
  return [...out];
}

module.exports = { generateCase, messagesOf };
