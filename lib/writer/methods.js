'use strict';

/**
 * The methods of protobuf.js 8.x's Writer API that change what `finish()` returns, which
 * RustWriter has: the one list of them. The shadow check (lib/integration/verify.js) forwards each
 * to protobufjs's own writer, the benchmark's null writer (bench/null-writer.js) stubs each, and
 * test/install.test.js checks that RustWriter's prototype and index.d.ts have each.
 */

/** One value each: scalars, then `bytes`, `raw` and `string`. */
const VALUE_METHODS = [
  'uint32', 'int32', 'sint32', 'uint64', 'int64', 'sint64', 'bool', 'fixed32', 'sfixed32', 'fixed64', 'sfixed64',
  'float', 'double', 'bytes', 'raw', 'string',
];
/** Packed repeated fields, each writing its own length prefix. */
const PACKED_METHODS = [
  'uint32s', 'int32s', 'sint32s', 'uint64s', 'int64s', 'sint64s', 'bools', 'fixed32s', 'sfixed32s', 'fixed64s',
  'sfixed64s', 'floats', 'doubles',
];
/** Length-delimited sections. */
const FORK_METHODS = ['fork', 'ldelim', 'reset'];
/** All of them. */
const WRITE_METHODS = [...VALUE_METHODS, ...PACKED_METHODS, ...FORK_METHODS];
/** The methods given 64-bit values, where RustWriter encodes a BigInt that protobufjs writes as 0
 * (README, "Compatibility"). */
const SCALAR_64 = ['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64'];
const PACKED_64 = ['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s'];

module.exports = { VALUE_METHODS, PACKED_METHODS, FORK_METHODS, WRITE_METHODS, SCALAR_64, PACKED_64 };
