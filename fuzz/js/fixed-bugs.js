'use strict';

/**
 * FIXED BUGS: the failures `npm run fuzz:js` found in RustWriter, each by the bug number
 * (`new-…` for those it found beyond them), with what it was and its minimal sequence (`repro`, from
 * the shrinker, as it failed then). All are fixed; test/fuzz-js.test.js replays each sequence on
 * its path, and it must pass. test/hostile-values.test.js has a regression test for each, named
 * after it.
 */

const FIXED_BUGS = [
  {
    bug: '1',
    title: 'a packed method, bytes() or raw() that throws part-way keeps the room it reserved (stale bytes in the output)',
    repro: { 'path': 'native', 'desc': { 'seed': 7, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'bytes', 'w': 'w0', 'args': [{ 'k': 'arraylike', 'length': { 'k': 'num', 'v': 2 }, 'elems': [{ 'k': 'conv', 'id': 'v2', 'via': 'valueOf', 'ret': { 'k': 'num', 'v': 0 }, 'act': { 'a': 'throw' } }] }] }] } },
  },
  {
    bug: '4-length',
    title: "a typed array's own length getter or a Proxy's length is read more often than protobufjs reads it (at the call, and at pos/finish() when kept by reference)",
    repro: { 'path': 'native', 'desc': { 'seed': 2, 'steps': [{ 'op': 'create', 'w': 'w1' }, { 'op': 'bytes', 'w': 'w1', 'args': [{ 'k': 'typed', 'id': 'v2', 'type': 'Uint8Array', 'lengthAct': { 'a': 'none' }, 'values': [0] }] }] } },
  },
  {
    bug: '2-pos',
    title: 'a callback that reads pos of the writer whose packed/bytes/raw call is reading its elements sees the room reserved (protobufjs: the position before the call)',
    repro: { 'path': 'native', 'desc': { 'seed': 82, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'sfixed32s', 'w': 'w0', 'args': [{ 'k': 'arr', 'n': 34, 'seed': 716114773, 'dist': 'small', 'put': [[33, { 'k': 'conv', 'id': 'v5', 'via': 'valueOf', 'ret': { 'k': 'num', 'v': 0 }, 'act': { 'a': 'do', 'on': 'self', 'calls': [['pos']] } }]] }] }] } },
  },
  {
    bug: '4-sint32s',
    title: 'sint32s() of a plain array on the native path reads each element once (protobufjs twice)',
    repro: { 'path': 'native-entries', 'desc': { 'seed': 93, 'steps': [{ 'op': 'create', 'w': 'w1' }, { 'op': 'sint32s', 'w': 'w1', 'args': [{ 'k': 'arr', 'elems': [{ 'k': 'conv', 'id': 'v3', 'via': 'valueOf', 'ret': { 'k': 'num', 'v': 0 }, 'act': { 'a': 'none' } }] }] }] } },
  },
  {
    bug: 'new-detached-fixed64s',
    title: 'fixed64s()/sfixed64s() of a detached BigInt64Array/BigUint64Array throw a TypeError (protobufjs writes an empty field)',
    repro: { 'path': 'native', 'desc': { 'seed': 350, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'fixed64s', 'w': 'w0', 'args': [{ 'k': 'typed', 'id': 'v1', 'type': 'BigUint64Array', 'detached': true, 'values': [] }] }] } },
  },
  {
    bug: '4-detached-pos',
    title: 'after an array kept by reference is detached or resized, pos is wrong or throws before finish()',
    repro: { 'path': 'native-entries', 'desc': { 'seed': 212, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'uint64s', 'w': 'w0', 'args': [{ 'k': 'typed', 'id': 'v3', 'type': 'BigInt64Array', 'buffer': 'tracking', 'values': ['0'] }] }, { 'op': 'mutate', 'id': 'v3', 'how': 'shrink', 'by': 1, 'seed': 1442153095 }] } },
  },
  {
    bug: '4-reset-detached',
    title: 'a kept array dropped by reset() still makes finish() throw when it is detached later',
    repro: { 'path': 'native', 'desc': { 'seed': 3846, 'steps': [{ 'op': 'create', 'w': 'w1' }, { 'op': 'fork', 'w': 'w1' }, { 'op': 'sint64s', 'w': 'w1', 'args': [{ 'k': 'typed', 'id': 'v2', 'type': 'BigUint64Array', 'n': 128, 'seed': 372636949, 'dist': 'big', 'buffer': 'tracking' }] }, { 'op': 'reset', 'w': 'w1' }, { 'op': 'mutate', 'id': 'v2', 'how': 'grow', 'by': 4096, 'seed': 1851578206 }, { 'op': 'fork', 'w': 'w1' }, { 'op': 'finish', 'w': 'w1', 'args': [] }] } },
  },
  {
    bug: '4-grown',
    title: 'a length-tracking view given to fixed32s/floats/doubles/fixed64s and then grown does not make finish() throw',
    repro: { 'path': 'native', 'desc': { 'seed': 0, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'doubles', 'w': 'w0', 'args': [{ 'k': 'typed', 'id': 'v1', 'type': 'Float64Array', 'n': 2048, 'seed': 1, 'dist': 'float', 'buffer': 'tracking' }] }, { 'op': 'mutate', 'id': 'v1', 'how': 'grow', 'by': 64, 'seed': 1 }, { 'op': 'finish', 'w': 'w0', 'args': [] }] } },
  },
  {
    bug: '4-snan',
    title: 'a Float32Array holding a signalling NaN is copied bit for bit (protobufjs writes the quiet NaN)',
    repro: { 'path': 'native', 'desc': { 'seed': 470, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'floats', 'w': 'w0', 'args': [{ 'k': 'typed', 'id': 'v4', 'type': 'Float32Array', 'n': 627, 'seed': 531159862, 'dist': 'float', 'snan': [527] }] }, { 'op': 'finish', 'w': 'w0', 'args': [] }] } },
  },
  {
    bug: 'new-proxy',
    title: "a Proxy of a typed array passes RustWriter's instanceof tests: it is kept by reference and read through its traps at pos and finish() (user code runs there, even recursively), or its buffer is copied without the traps",
    repro: { 'path': 'native', 'desc': { 'seed': 289, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'int64s', 'w': 'w0', 'args': [{ 'k': 'proxy', 'id': 'v2', 'over': { 'k': 'typed', 'id': 'v1', 'type': 'BigUint64Array', 'n': 128, 'seed': 977056181, 'dist': 'big' }, 'acts': [] }] }] } },
  },
  {
    bug: '3',
    title: 'shared scratch clobbered by re-entrancy: a Long-like getter or a float element that encodes with any writer (or measures or finishes one with 64-bit fields)',
    repro: { 'path': 'native', 'desc': { 'seed': 142, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'uint64', 'w': 'w0', 'args': [{ 'k': 'longlike', 'id': 'v2', 'low': { 'k': 'num', 'v': 189701887 }, 'high': { 'k': 'num', 'v': 0 }, 'lowAct': { 'a': 'none' }, 'highAct': { 'a': 'do', 'on': 'new', 'calls': [['sint64', { 'k': 'num', 'v': 0 }]] } }] }] } },
  },
  {
    bug: '2',
    title: "a callback that finishes or writes to the writer whose packed/bytes/raw call is reading its elements breaks it (negative pos, changed results, others' bytes)",
    repro: { 'path': 'native', 'desc': { 'seed': 20, 'steps': [{ 'op': 'create', 'w': 'w0' }, { 'op': 'fixed32s', 'w': 'w0', 'args': [{ 'k': 'arr', 'n': 37, 'seed': 1992015764, 'dist': 'small', 'put': [[36, { 'k': 'conv', 'id': 'v1', 'via': 'valueOf', 'ret': { 'k': 'num', 'v': 0 }, 'act': { 'a': 'do', 'on': 'w0', 'calls': [['finish']] } }]] }] }] } },
  },
  {
    bug: 'new-held-run',
    title: 'a callback that writes a long packed varint field (one the native encoder takes) to the writer whose call is converting it is not refused: it converts its elements, then records its run into the held writer (later finish() throws a RangeError)',
    repro: { 'path': 'native-entries', 'desc': { 'seed': 53, 'steps': [{ 'op': 'create', 'w': 'w1' }, { 'op': 'fixed64s', 'w': 'w1', 'args': [{ 'k': 'proxy', 'id': 'v11', 'over': { 'k': 'arr', 'elems': [{ 'k': 'num', 'v': 0 }] }, 'acts': [['0', { 'a': 'do', 'on': 'self', 'calls': [['uint32s', { 'k': 'arr', 'elems': [{ 'k': 'num', 'v': 0 }] }]] }]] }] }] } },
  },
];

module.exports = { FIXED_BUGS };
