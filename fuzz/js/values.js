'use strict';

/**
 * Values as descriptions: plain JSON data, drawn from a seeded generator, turned into live values
 * by {@link materialize} once per world, so that RustWriter's run and protobufjs's run get
 * equivalent but separate objects (a hostile object's callback acts in the world that made it).
 *
 * A description is `{ k: kind, ... }`:
 * - ordinary: `num` (`v` a number, or `'NaN'`, `'Infinity'`, `'-Infinity'`, `'-0'`), `str`, `big`
 *   (decimal), `long` (`low`, `high`, `unsigned`: a `Long`), `lh` (a plain `{low, high}` of two
 *   descriptions), `lit` (`null`, `undefined`, `true`, `false`, `{}`, `[7]`, a `Date`, a function),
 *   `strobj` (a `String` object), `arr` (a plain array of descriptions), `arraylike` (an object
 *   with an odd `length`), `typed` (a typed array; see {@link makeTyped}), `data` (bytes for
 *   `bytes`/`raw`: a Buffer, Uint8Array, plain array or base64 string), `canary` (a writer's
 *   8 marker bytes);
 * - hostile, each with an `id` and an action (`act`, see world.js `runAct`): `conv` (an object
 *   whose `valueOf`, `toString` or `Symbol.toPrimitive` acts, then returns `ret`), `longlike`
 *   (`low`/`high` getters that act), `getters` (an array with element getters that act),
 *   `proxy` (a Proxy over an array or typed array whose `get` trap acts on chosen keys).
 */

const Long = require('long');
const { prng } = require('../../tools/seeded');
const { num, numValue, element } = require('../values');

const TYPED = {
  Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array,
  BigInt64Array, BigUint64Array,
};

/** The intrinsic `length` of a typed array: never an own `length` getter a value defines. */
const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'length').get;

/**
 * Whether an ArrayBuffer was detached (Node 20 has no `ArrayBuffer.prototype.detached`).
 * @param {ArrayBuffer} ab Buffer
 * @returns {boolean} Whether it was
 */
function isDetached(ab) {
  try {
    new Uint8Array(ab, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/** Methods whose 64-bit inputs RustWriter takes as BigInt (protobufjs writes 0 for a BigInt;
 * README "Compatibility": the reference gets the equal `Long`). */
const LONG_METHODS = new Set(['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64',
  'uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s']);

/** The thrown class of hostile callbacks, so an exception is recognisably the caller's own. */
class HostileError extends Error {}

/**
 * The `Long` equal to a BigInt taken mod 2^64.
 * @param {bigint} b Value
 * @returns {Long} Long
 */
function toLong(b) {
  const u = BigInt.asUintN(64, b);
  return Long.fromBits(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0, false);
}

/**
 * The elements of a `typed` description (inline `values`, or `n` seeded ones).
 * @param {object} d Description
 * @returns {Array<number|bigint>} Elements
 */
function typedValues(d) {
  if (d.values) return d.values.map((v) => (typeof v === 'string' ? BigInt(v) : numValue(num(v))));
  const r = prng(d.seed);
  const out = new Array(d.n);
  for (let i = 0; i < d.n; i++) out[i] = element(r, d.dist);
  return out;
}

/**
 * Bytes of a `data` or `canary` description.
 * @param {object} d Description
 * @param {object} world World (for canaries)
 * @returns {Buffer} Bytes
 */
function dataBytes(d, world) {
  if (d.k === 'canary') return Buffer.from(world.canary(d.of));
  const r = prng(d.seed);
  const b = Buffer.allocUnsafe(d.n);
  for (let i = 0; i < d.n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

/**
 * A typed array from a `typed` description: `type`, elements (`values` or `n`/`seed`/`dist`),
 * `buffer` (`plain`, `resizable`: a fixed-length view of a resizable ArrayBuffer, `tracking`: a
 * length-tracking one), `offset` (bytes before it in its buffer), `snan` (elements given a
 * signalling NaN's bits), `detached` (its buffer transferred away before the call), `lengthAct`
 * (an own `length` getter that acts, then answers the true length), `id` (to mutate it later).
 * @param {object} d Description
 * @param {object} world World
 * @returns {ArrayBufferView} Typed array
 */
function makeTyped(d, world) {
  const Type = TYPED[d.type];
  const values = typedValues(d);
  const n = values.length;
  const size = Type.BYTES_PER_ELEMENT;
  const offset = (d.offset || 0) * size;
  let ta;
  if (d.buffer === 'resizable' || d.buffer === 'tracking') {
    const ab = new ArrayBuffer(offset + n * size, { maxByteLength: 2 * (offset + n * size) + 64 });
    ta = d.buffer === 'tracking' ? new Type(ab, offset) : new Type(ab, offset, n);
  } else {
    ta = new Type(new ArrayBuffer(offset + n * size), offset, n);
  }
  for (let i = 0; i < n; i++) ta[i] = values[i];
  if (d.snan) {
    for (const i of d.snan) {
      if (i >= n) continue;
      if (size === 4) new Uint32Array(ta.buffer, ta.byteOffset + 4 * i, 1)[0] = 0x7fa00000;
      else new Uint32Array(ta.buffer, ta.byteOffset + 8 * i, 2)[1] = 0x7ff40000;
    }
  }
  if (d.id !== undefined) world.registerArray(d.id, ta);
  if (d.detached) structuredClone(ta.buffer, { transfer: [ta.buffer] });
  if (d.lengthAct) {
    Object.defineProperty(ta, 'length', {
      configurable: true,
      get() {
        world.fire(d.id, 'length', d.lengthAct, 'length');
        return typedLength.call(this);
      },
    });
  }
  return ta;
}

/**
 * An array-like of `n` elements from a typed array, for the reference when RustWriter takes the
 * BigInts of a 64-bit packed method: `Long`s, with the same `length` getter if it has one.
 * @param {ArrayBufferView} ta BigInt typed array
 * @param {object} d Its description
 * @param {object} world World
 * @returns {ArrayLike<Long>} Elements
 */
function longsOf(ta, d, world) {
  const longs = Array.from({ length: typedLength.call(ta) }, (_, i) => toLong(ta[i]));
  if (!d.lengthAct) return longs;
  const like = Object.assign({}, longs);
  Object.defineProperty(like, 'length', {
    get() {
      world.fire(d.id, 'length', d.lengthAct, 'length');
      return longs.length;
    },
  });
  return like;
}

/** What `lit` descriptions stand for (made fresh each time). */
const LITERALS = {
  'null': () => null,
  'undefined': () => undefined,
  'true': () => true,
  'false': () => false,
  '{}': () => ({}),
  '[7]': () => [7],
  'Date': () => new Date(5),
  'function': () => function f() {},
};

/**
 * The live value of a description in `world`.
 * @param {object} d Description
 * @param {object} world World (`ref`: whether it is protobufjs's; `fire`, `registerArray`)
 * @param {{long64: boolean, phase: string}} ctx Whether the value goes to a 64-bit method, and
 * what reads it: `arg` (the method's argument) or `element` (an element of it)
 * @returns {*} Value
 */
function materialize(d, world, ctx) {
  const elem = ctx.phase === 'element' ? ctx : { long64: ctx.long64, phase: 'element' };
  switch (d.k) {
    case 'num': return numValue(d);
    case 'str': return d.v;
    case 'big': {
      const b = BigInt(d.v);
      return world.ref && ctx.long64 ? toLong(b) : b;
    }
    case 'long': return Long.fromBits(d.low, d.high, d.unsigned);
    case 'lh': {
      const plain = { long64: false, phase: ctx.phase };
      return { low: materialize(d.low, world, plain), high: materialize(d.high, world, plain) };
    }
    case 'lit': return LITERALS[d.v]();
    case 'strobj': return new String(d.v);
    case 'arr': return makeArray(d, world, elem);
    case 'arraylike': {
      const o = { length: materialize(d.length, world, ctx) };
      d.elems.forEach((e, i) => { o[i] = materialize(e, world, elem); });
      return o;
    }
    case 'typed': {
      const ta = makeTyped(d, world);
      if (world.ref && ctx.long64 && (ta instanceof BigInt64Array || ta instanceof BigUint64Array)) {
        return longsOf(ta, d, world);
      }
      return ta;
    }
    case 'data': {
      const b = dataBytes(d, world);
      if (d.form === 'u8') return new Uint8Array(b);
      if (d.form === 'array') return Array.from(b);
      if (d.form === 'base64') return b.toString('base64');
      return b;
    }
    case 'canary': return dataBytes(d, world);
    case 'conv': return makeConv(d, world, ctx);
    case 'longlike': {
      const o = {};
      for (const key of ['low', 'high']) {
        Object.defineProperty(o, key, {
          enumerable: true,
          get() {
            world.fire(d.id, key, d[`${key}Act`], ctx.phase);
            return materialize(d[key], world, { long64: false, phase: ctx.phase });
          },
        });
      }
      return o;
    }
    case 'getters': {
      const a = makeArray(d.base, world, elem);
      for (const [i, act] of d.acts) {
        const value = a[i];
        Object.defineProperty(a, i, {
          enumerable: true,
          get() {
            world.fire(d.id, `get ${i}`, act, 'element');
            return value;
          },
        });
      }
      return a;
    }
    case 'proxy': {
      const target = materialize(d.over, world, ctx);
      const acts = new Map(d.acts);
      return new Proxy(target, {
        get(t, key) {
          if (typeof key === 'string' && (key === 'length' || /^\d+$/.test(key))) {
            world.fire(d.id, `get ${key}`, acts.get(key) || null, key === 'length' ? 'length' : 'element');
          }
          const v = Reflect.get(t, key, t);
          return typeof v === 'function' ? v.bind(t) : v;
        },
      });
    }
    default: throw new Error(`fuzz:js: unknown value description ${JSON.stringify(d)}`);
  }
}

/**
 * A plain array: `elems` (descriptions), or `n` seeded elements of `dist` (as typed-array data)
 * with descriptions `put` at some indices.
 * @param {object} d `arr` description
 * @param {object} world World
 * @param {object} ctx Context of the elements
 * @returns {Array} Array
 */
function makeArray(d, world, ctx) {
  if (d.elems) return d.elems.map((e) => materialize(e, world, ctx));
  const a = typedValues(d);
  if (d.dist === 'big' && world.ref && ctx.long64) for (let i = 0; i < a.length; i++) a[i] = toLong(a[i]);
  for (const [i, e] of d.put || []) a[i] = materialize(e, world, ctx);
  return a;
}

/**
 * An object that converts through `d.via` (`valueOf`, `toString` or `toPrimitive`), acting first.
 * @param {object} d `conv` description
 * @param {object} world World
 * @param {object} ctx Context (see {@link materialize})
 * @returns {object} Object
 */
function makeConv(d, world, ctx) {
  const convert = (event) => {
    world.fire(d.id, event, d.act, ctx.phase);
    return materialize(d.ret, world, { long64: false, phase: ctx.phase });
  };
  if (d.via === 'toPrimitive') return { [Symbol.toPrimitive](hint) { return convert(`toPrimitive ${hint}`); } };
  if (d.via === 'toString') return { toString() { return convert('toString'); } };
  return { valueOf() { return convert('valueOf'); } };
}

/**
 * The `length` a description has as a method's argument, without running user code (for the
 * odd-length rule of README "Compatibility").
 * @param {object} d Description
 * @returns {*} Length value, or `undefined`
 */
function plainLength(d) {
  if (d.k === 'arraylike') return materialize(d.length, { ref: false }, { long64: false, phase: 'arg' });
  if (d.k === 'arr') return d.elems ? d.elems.length : d.n;
  if (d.k === 'getters') return plainLength(d.base);
  if (d.k === 'typed') return d.detached ? 0 : (d.values ? d.values.length : d.n);
  if (d.k === 'proxy') return plainLength(d.over);
  return undefined;
}

module.exports = {
  TYPED, LONG_METHODS, HostileError, typedLength, isDetached, toLong, typedValues,
  dataBytes, materialize, plainLength,
};
