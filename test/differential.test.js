'use strict';

/**
 * Seeded random call sequences over every method, with ordinary and odd inputs, nesting, reset,
 * intermediate finish() and pos, run through RustWriter and protobufjs 8.8.1: the transcripts
 * must be identical. Replay one failure with DIFF_SEED=<seed> DIFF_COUNT=1.
 */

const assert = require('assert');
const Long = require('long');
const { runBoth, PATHS, withPath } = require('./helpers');
const { prng } = require('../tools/seeded');

const COUNT = Number(process.env.DIFF_COUNT || 20000);
const FIRST_SEED = Number(process.env.DIFF_SEED || 0x5eed);

const EDGES = [];
for (let k = 1; k <= 9; k++) EDGES.push(2 ** (7 * k) - 1, 2 ** (7 * k), -(2 ** (7 * k)));

function number32(r) {
  switch (r.int(6)) {
    case 0: return r.int(128);
    case 1: return r.int(2 ** 32) - 2 ** 31;
    case 2: return r.pick(EDGES);
    case 3: return r.pick([0, -0, -1, 1.9, -1.5, -0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 1e20, -1e20, NaN, Infinity,
      -Infinity, 2 ** 53]);
    case 4: return r.pick(['300', ' 12 ', '0x10', '1e3', 'abc', '', null, undefined, true, false, [7], {}]);
    default: return (r() - 0.5) * 2 ** r.int(40);
  }
}

function number64(r) {
  switch (r.int(6)) {
    case 0: return number32(r);
    case 1: return r.pick(['18446744073709551615', '9223372036854775807', '-9223372036854775808', '-5', '+5', ' 12',
      '12abc', '1.5', 'abc', String(r.int(2 ** 31) * r.int(2 ** 31))]);
    case 2: return Long.fromBits(r.int(2 ** 32), r.int(2 ** 32), r() < 0.5);
    case 3: return { low: r.int(2 ** 32) - 2 ** 31, high: r.pick([0, 1, -1, r.int(2 ** 32)]) };
    case 4: return r.pick([2 ** 63, -(2 ** 63), 2 ** 64, -(2 ** 64) - 4096, Long.MAX_VALUE, Long.MIN_VALUE, Long.ZERO]);
    default: return (r() - 0.5) * 2 ** r.int(70);
  }
}

function string(r) {
  const alphabet = ['a', 'z', ' ', 'é', '€', '\uD83D\uDE00', '\uD800', '\uDC00', '\0', '\u07ff', '\u0800'];
  const length = r.pick([0, 1, 5, 38, 39, 40, 41, 127, 128, 129, r.int(300)]);
  let s = '';
  while (s.length < length) s += r() < 0.8 ? 'a' : r.pick(alphabet);
  return s;
}

function bytes(r) {
  const length = r.pick([0, 1, 3, 127, 128, r.int(200), r() < 0.05 ? 16384 + r.int(3) - 1 : 10]);
  const data = Buffer.alloc(length);
  for (let i = 0; i < length; i++) data[i] = r.int(256);
  switch (r.int(5)) {
    case 0: return Array.from(data);
    case 1: return data.toString('base64');
    case 2: return new Uint8Array(data);
    default: return data;
  }
}

function array(r, element) {
  const length = r.pick([0, 1, 2, 3, 17, r.int(100), r() < 0.02 ? 3000 : 5]);
  const values = Array.from({ length }, () => element(r));
  if (element === number32 && r() < 0.4) {
    const Typed = r.pick([Int32Array, Uint32Array, Float64Array, Float32Array, Uint8Array, Int16Array]);
    return Typed.from(values.map((v) => Number(v) || 0));
  }
  if (element === number64 && r() < 0.2) {
    const Typed = r.pick([BigInt64Array, BigUint64Array]);
    const big = () => BigInt.asIntN(64, BigInt(r.int(2 ** 32)) * BigInt(r.int(2 ** 32)) - BigInt(r.int(2 ** 31)));
    return Typed.from(values, big);
  }
  return values;
}

const SCALARS = {
  uint32: number32, int32: number32, sint32: number32, fixed32: number32, sfixed32: number32, float: number32,
  double: number32, bool: (r) => r.pick([true, false, 0, 1, '', 'false', null, {}, NaN, -1]),
  uint64: number64, int64: number64, sint64: number64, fixed64: number64, sfixed64: number64,
  string, bytes, raw: bytes,
};
const PACKED = {
  uint32s: number32, int32s: number32, sint32s: number32, fixed32s: number32, sfixed32s: number32,
  floats: number32, doubles: number32, bools: SCALARS.bool,
  uint64s: number64, int64s: number64, sint64s: number64, fixed64s: number64, sfixed64s: number64,
};
const SCALAR_NAMES = Object.keys(SCALARS);
const PACKED_NAMES = Object.keys(PACKED);

/** A call script; forks are closed before each finish (protobufjs leaves open-fork bytes uninitialized). */
function script(r) {
  const steps = [];
  let depth = 0;
  const length = 1 + r.int(40);
  for (let i = 0; i < length; i++) {
    const roll = r();
    if (roll < 0.5) {
      const method = r.pick(SCALAR_NAMES);
      steps.push([method, SCALARS[method](r)]);
    } else if (roll < 0.6) {
      const method = r.pick(PACKED_NAMES);
      steps.push([method, array(r, PACKED[method])]);
    } else if (roll < 0.75) {
      steps.push(['fork']);
      depth++;
    } else if (roll < 0.88) {
      steps.push(['ldelim']);
      depth = Math.max(0, depth - 1);
    } else if (roll < 0.92) {
      steps.push(['reset']);
      depth = Math.max(0, depth - 1);
    } else if (roll < 0.96) {
      steps.push(['pos']);
    } else {
      while (depth > 0) {
        steps.push(['ldelim']);
        depth--;
      }
      steps.push(['finish']);
    }
  }
  while (depth > 0) {
    steps.push(['ldelim']);
    depth--;
  }
  steps.push(['pos'], ['finish']);
  return steps;
}

function describeScript(steps) {
  return steps.map(([method, arg]) => {
    if (arg === undefined) return method;
    let shown;
    if (typeof arg === 'bigint') shown = `${arg}n`;
    else if (Long.isLong(arg)) shown = `Long(${arg.toString()})`;
    else if (ArrayBuffer.isView(arg)) shown = `${arg.constructor.name}[${arg.length}]`;
    else shown = JSON.stringify(arg);
    return `${method}(${shown === undefined ? String(arg) : shown.slice(0, 80)})`;
  }).join('.');
}

describe('random call sequences through RustWriter and protobufjs 8.8.1', () => {
  for (const [name, options] of PATHS) {
    it(`give identical bytes, positions and errors for ${COUNT} seeded sequences ${name}`, function () {
      this.timeout(300000);
      withPath(options, () => {
        for (let i = 0; i < COUNT; i++) {
          const seed = FIRST_SEED + i;
          const steps = script(prng(seed));
          const { actual, expected } = runBoth(steps);
          assert.deepStrictEqual(actual, expected,
            `sequence with seed ${seed} differs (replay: DIFF_SEED=${seed} DIFF_COUNT=1): ${describeScript(steps)}`);
        }
      });
    });
  }
});
