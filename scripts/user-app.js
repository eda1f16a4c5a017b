'use strict';

/**
 * The user's app of the install tests (scripts/test-pack.js, scripts/test-registry.js): a schema,
 * and a program that encodes through `install()`, then through protobufjs's own writer, and prints
 * whether the addon is loaded and whether the two gave the same bytes.
 */

/** The user's schema. */
const SCHEMA = 'syntax = "proto3"; message M { uint64 id = 1; string name = 2; repeated sint32 d = 3; M child = 4; bytes blob = 5; }';

/** The user's program: prints `{"native": …, "same": …}`. */
const PROGRAM = `
const protobuf = require('protobufjs');
const { RustWriter, install, uninstall } = require('protobufjs-rustwriter');
const root = protobuf.parse(${JSON.stringify(SCHEMA)}).root;
const M = root.lookupType('M');
const messages = [
  { id: 1, name: 'x' },
  { id: '18446744073709551615', name: 'é'.repeat(50), d: [-1, 2, -3], child: { name: 'y'.repeat(300) }, blob: Buffer.alloc(70000, 7) },
  { d: Array.from({ length: 5000 }, (_, i) => i * 7919 - 20000000) },
];
install(protobuf);
const ours = messages.map((m) => Buffer.from(M.encode(M.fromObject(m)).finish()).toString('hex'));
uninstall(protobuf);
const theirs = messages.map((m) => Buffer.from(M.encode(M.fromObject(m)).finish()).toString('hex'));
console.log(JSON.stringify({ native: RustWriter.native, same: ours.join() === theirs.join() }));
`;

module.exports = { SCHEMA, PROGRAM };
