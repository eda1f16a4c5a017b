'use strict';

/**
 * 64-bit inputs without the `long` package: decimal strings must give exactly what
 * `Long.fromString` gives (protobufjs's default, and what RustWriter used before), quirks and
 * errors included, whether or not the protobufjs instance has `util.Long`.
 */

const assert = require('assert');
const Long = require('long');
const { RustWriter, install, uninstall, _testing } = require('..');
const { runBoth } = require('./helpers');
const { referenceCopy, referenceWriter } = require('./reference');
const { prng } = require('../tools/seeded');

const METHODS = ['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64'];

/** Strings `Long.fromString` treats specially (signs, blanks, partial digits, overflow), and more of the same kinds. */
const TABLE = ['0', '5', '-5', '+5', ' 12', '12abc', '1.5', '1e3', '0x10', 'abc', '1_000', '18446744073709551615',
  '18446744073709551616', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
  '-9223372036854775809', '99999999999999999999999999', '123456789', '12345678', '-123456789012', '--5', '+', '   ',
  '\t\n7', '\u00a0 5', '\ufeff9', 'NaN', 'Infinity', '-Infinity', '+Infinity', '12345678 9', '1234567a89',
  '1'.repeat(100), `-${'9'.repeat(40)}`, '0000000000000000000001', '+1234567890123', '1234567+123', '123456789e5',
  '', '-', ' -1', '--', '5-', '1-2'];

/**
 * What `Long.fromString(s)` gives: its low and high words, or its error's class and message.
 * @param {*} s Input
 * @returns {string} Outcome
 */
function expected(s) {
  try {
    const l = Long.fromString(s);
    return `${l.low | 0},${l.high | 0}`;
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
}

/**
 * What RustWriter's `sfixed64(s)` writes, as the same words, or its error.
 * @param {*} s Input
 * @returns {string} Outcome
 */
function ours(s) {
  try {
    const b = RustWriter.create().sfixed64(s).finish();
    return `${b.readInt32LE(0)},${b.readInt32LE(4)}`;
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
}

/**
 * A random string of characters parseInt and Long.fromString treat differently.
 * @param {object} r PRNG
 * @returns {string} String
 */
function randomDecimal(r) {
  const alphabet = ['0', '1', '5', '9', '9', '9', '-', '+', ' ', '.', 'e', 'x', '_', '\t', '\u00a0', 'a'];
  const length = r.pick([0, 1, 2, 7, 8, 9, 15, 16, 17, 19, 20, 21, 24, 25, 40, r.int(60)]);
  let s = r() < 0.5 ? '-' : '';
  while (s.length < length) s += r() < 0.85 ? String(r.int(10)) : r.pick(alphabet);
  return s;
}

describe('64-bit values from decimal strings, without the long package', () => {
  it('parses each listed string, and its String object, exactly as Long.fromString, errors included', () => {
    for (const s of TABLE) {
      assert.strictEqual(ours(s), expected(s), JSON.stringify(s));
      assert.strictEqual(ours(new String(s)), expected(new String(s)), `new String(${JSON.stringify(s)})`);
    }
    assert.strictEqual(ours(''), 'Error: empty string');
    assert.strictEqual(ours('-'), 'Error: empty string');
    assert.strictEqual(ours(' -1'), 'Error: interior hyphen');
  });

  it('parses 20,000 random strings as Long.fromString, and writes protobufjs\'s bytes with each 64-bit method', () => {
    const r = prng(0x10e6);
    const outcomes = new Set();
    for (let i = 0; i < 20000; i++) {
      const s = randomDecimal(r);
      assert.strictEqual(ours(s), expected(s), JSON.stringify(s));
      if (i % 10 === 0) {
        const method = r.pick(METHODS);
        const { actual, expected: theirs } = runBoth([['uint32', 8], [method, s], [`${method}s`, [s, '1', s]], ['finish']]);
        assert.deepStrictEqual(actual, theirs, `${method}(${JSON.stringify(s)})`);
        const last = theirs[theirs.length - 1];
        outcomes.add(last.startsWith('finish ') ? 'bytes' : last.replace(/^\w+ /, ''));
      }
    }
    // Both kinds of outcome were compared: bytes, and Long.fromString's Error.
    assert.deepStrictEqual([...outcomes].sort(), ['bytes', 'threw Error']);
  });

  for (const [version, name] of [['8.8.1', 'protobufjs'], ['7.6.6', 'protobufjs7']]) {
    it(`gives the same bytes on protobufjs ${version} with util.Long set to null, where protobufjs uses parseInt`, () => {
      const protobuf = require(name);
      const SCHEMA = 'syntax = "proto3"; message M { int64 a = 1; uint64 b = 2; sint64 c = 3; fixed64 d = 4; repeated int64 e = 5; }';
      const messages = [
        { a: '-5', b: '18446744073709551615', c: '-9223372036854775808', d: '12abc', e: ['1', '+5', ' 12', '9007199254740993'] },
        { a: 5, b: Long.fromString('123456789012345678', true), c: { low: -1, high: 0x7fffffff }, d: 2 ** 60, e: [] },
      ];
      // The expected bytes: the reference copy's (test/reference.js), with util.Long.
      const R = referenceCopy(version).pb.parse(SCHEMA).root.lookupType('M');
      const withLong = messages.map((m) => Buffer.from(R.encode(m, referenceWriter(version)).finish()).toString('hex'));
      const previous = protobuf.util.Long;
      install(protobuf);
      try {
        // protobufjs's encoder through RustWriter (a Type never promoted), and compiled code.
        for (const [tier, promoteAfter] of [['cold', Infinity], ['compiled', 0]]) {
          const configured = _testing.configure({ promoteAfter });
          try {
            const M = protobuf.parse(SCHEMA).root.lookupType('M'); // set up while installed
            const hex = (m) => Buffer.from(M.encode(m).finish()).toString('hex');
            assert.deepStrictEqual(messages.map(hex), withLong, tier);
            protobuf.util.Long = null;
            protobuf.configure();
            assert.deepStrictEqual(messages.map(hex), withLong, `${tier}, util.Long null`);
            assert.strictEqual(_testing.isCompiled(M.encode), tier === 'compiled', tier);
          } finally {
            protobuf.util.Long = previous;
            protobuf.configure();
            _testing.configure(configured);
          }
        }
      } finally {
        uninstall(protobuf);
      }
      // protobufjs itself, without Long, loses the digits past 2^53 (documented in the README).
      const ref = referenceCopy(version).pb;
      const refLong = ref.util.Long;
      ref.util.Long = null;
      ref.configure();
      try {
        assert.notStrictEqual(Buffer.from(R.encode(messages[0], referenceWriter(version)).finish()).toString('hex'), withLong[0]);
      } finally {
        ref.util.Long = refLong;
        ref.configure();
      }
    });
  }
});
