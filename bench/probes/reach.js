'use strict';

/**
 * Which tier every Type a real message reaches is in once warm (lib/encoders/compile.js "Tiers"):
 * encodes one bench case's message 20 times at the shipped settings (its root Type is promoted at its
 * 16th encode, nested Types at their first message written by compiled code), walks the message for
 * the Types its fields hold, and counts them by `_testing.tierOf`, in protobufjs 8.8.1 and 7.6.6;
 * then prints each copy's `status().copies[].types` (the Types it has set up, by tier).
 *
 *   node bench/probes/reach.js [case,...]
 *
 * Cases: any reflection case of bench/cases.js (default `temporal,firestore,conformance`). Seen at the
 * commit that added it: every Type reached compiled, none kept (Temporal's message 123 Types,
 * HistoryEvent among them; Firestore's commit 12; TestAllTypesProto3 19), on both copies.
 */

const { CASES, dataOf, rootOf } = require('../cases');
const { loadCopy } = require('../copies');
const { install, status, _testing } = require('../..');

const ids = (process.argv[2] || 'temporal,firestore,conformance').split(',');

/**
 * The Types a message's fields hold, its own Type included.
 * @param {object} type Type
 * @param {object} message Message
 * @param {Set<object>} into Types seen
 * @returns {Set<object>} `into`
 */
function typesReached(type, message, into = new Set()) {
  if (message === null || typeof message !== 'object') return into;
  into.add(type);
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === null || value === undefined || !field.resolvedType || !field.resolvedType.fieldsArray) continue;
    const values = field.map ? Object.values(value) : field.repeated ? value : [value];
    for (const v of values) typesReached(field.resolvedType, v, into);
  }
  return into;
}

for (const pkg of ['protobufjs', 'protobufjs7']) {
  const copy = loadCopy(pkg);
  install(copy.pb);
  for (const id of ids) {
    const c = CASES.find((x) => x.id === id);
    if (!c || c.codegen === 'static' || c.mode === 'stream' || !c.type) throw new Error(`${id}: not a reflection case of one message`);
    const data = dataOf(c);
    const T = rootOf(c, copy.pb).resolveAll().lookupType(c.type);
    let m = data.encoded ? T.decode(data.encoded) : data.input;
    if (c.fromObject) m = T.fromObject(m);
    for (let i = 0; i < 20; ++i) T.encode(m).finish();
    const tiers = {};
    const reached = typesReached(T, m);
    for (const type of reached) {
      const tier = _testing.tierOf(type);
      tiers[tier] = (tiers[tier] || 0) + 1;
    }
    process.stdout.write(`${copy.version} ${id}: ${reached.size} Types reached, by tier ${JSON.stringify(tiers)}\n`);
  }
}
// install() into a copy loaded by path records no version or path: the copies in the order installed.
status().copies.forEach((c, i) => process.stdout.write(`status, copy ${i + 1}: ${JSON.stringify(c.types)}\n`));
