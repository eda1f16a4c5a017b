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
 * - `intos`: `{ ops }`, each op one of `['start', k]` (the writer `T.encode(m_k)` returns, without
 *   a writer given), `['bytes', field, n, seed]`, `['fork', field]`, `['ldelim']`,
 *   `['encode', k]` (`T.encode(m_k, w)`), `['delimited', k]` (`T.encodeDelimited(m_k, w)`),
 *   `['field', field, k]` (`T.encode(m_k, w.uint32(tag).fork()).ldelim()`: a message as a field of
 *   another) and `['group', field, k]` (the same as a group: start tag, message, end tag). Forks
 *   left open are closed before `finish()`.
 */

const { prng } = require('../../test/helpers');
const { generateSchema } = require('./schema');
const { generateMessages } = require('./message');

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
  return { seed, schema, options, messages, intos };
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
