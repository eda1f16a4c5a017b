'use strict';

/**
 * Live values from message.js's descriptions, once per side: the subject's and the reference's
 * objects are equivalent but separate, and each logs into its own list the reads user code sees
 * (getters, Proxy traps, `valueOf`). The reference's differs only where README "Compatibility"
 * says protobufjs differs: protobufjs writes 0 for a BigInt given to a 64-bit field, RustWriter
 * encodes it, so the reference gets the same 64 bits as a signed decimal string, which protobufjs
 * encodes exactly (`Long.fromString`). Not the equal `Long`: protobufjs 8's implicit-presence check
 * (`typeof m.f === "object" ? m.f.low || m.f.high : m.f !== 0`) reads the field once or twice more
 * for an object than for a BigInt, and the read logs would differ; a string reads as a BigInt does.
 *
 * The helpers marked standalone use nothing of this module's scope but their arguments and
 * globals (`Buffer`, `Long`): render.js copies their source into each repro script.
 */

const Long = require('long');
const { numValue, element } = require('../values');
const { prng } = require('../../tools/seeded');

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
/** In the paths of what a `create` message holds: values fromObject passes through as they are. */
const PASSED = '§';

/** A `Buffer` subclass: the custom `util.Buffer` of a case, and a `bytes` form. */
class CustomBuffer extends Buffer {
  /**
   * As protobufjs's BufferWriter calls it (unbound): a Buffer of this class.
   * @param {number} size Bytes
   * @returns {CustomBuffer} Buffer
   */
  static allocUnsafe(size) {
    return Object.setPrototypeOf(Buffer.allocUnsafe(size), CustomBuffer.prototype);
  }

  /**
   * @param {...*} args As `Buffer.from`
   * @returns {CustomBuffer} Buffer
   */
  static from(...args) {
    return Object.setPrototypeOf(Buffer.from(...args), CustomBuffer.prototype);
  }

  /**
   * @param {...*} args As `Buffer.alloc`
   * @returns {CustomBuffer} Buffer
   */
  static alloc(...args) {
    return Object.setPrototypeOf(Buffer.alloc(...args), CustomBuffer.prototype);
  }
}

/**
 * Standalone. What the reference gets for a BigInt given to a 64-bit field.
 * @param {bigint} b Value
 * @returns {string} Its value mod 2^64 as a signed decimal string
 */
function refBig(b) {
  return String(BigInt.asIntN(64, b));
}

/**
 * Standalone. `n` UTF-16 units of seeded text.
 * @param {number} n Units
 * @param {number} seed Seed
 * @param {string} mix `ascii`, `latin` (2-byte UTF-8), `bmp` (3-byte), `astral` (pairs), `lone`
 * (ASCII with lone surrogates), `mixed`
 * @returns {string} Text
 */
function seededText(n, seed, mix) {
  const r = prng(seed);
  let s = '';
  while (s.length < n) {
    const kind = mix === 'mixed' ? ['ascii', 'latin', 'bmp', 'astral', 'lone'][Math.floor(r() * 5)] : mix;
    const x = r();
    if (kind === 'latin') s += String.fromCharCode(0x80 + Math.floor(x * 0x780));
    else if (kind === 'bmp') s += String.fromCharCode(0xe000 + Math.floor(x * 0x1000));
    else if (kind === 'astral' && s.length + 2 <= n) s += String.fromCodePoint(0x10000 + Math.floor(x * 0xfffff));
    else if (kind === 'lone' && x < 0.15) s += String.fromCharCode(x < 0.075 ? 0xd800 + Math.floor(r() * 0x400) : 0xdc00 + Math.floor(r() * 0x400));
    else s += String.fromCharCode(0x20 + Math.floor(r() * 0x5f));
  }
  return s;
}

/**
 * Standalone. `n` seeded bytes.
 * @param {number} n Bytes
 * @param {number} seed Seed
 * @returns {Buffer} Bytes
 */
function seededBytes(n, seed) {
  const r = prng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

/**
 * Standalone. `n` seeded elements (fuzz/js/values.js `element`).
 * @param {number} n Elements
 * @param {number} seed Seed
 * @param {string} dist Distribution
 * @returns {Array<number|bigint>} Elements
 */
function seededElements(n, seed, dist) {
  const r = prng(seed);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = element(r, dist);
  return out;
}

/**
 * Standalone. A Proxy over a message or map object that logs every property read, `in`, own
 * property lookup (`Object.hasOwnProperty.call`) and key listing (`Object.keys`).
 * @param {object} target Object
 * @param {string} path Its path in the message
 * @param {function(string): undefined} log Log
 * @returns {object} Proxy
 */
function loggingObject(target, path, log) {
  const name = (k) => (typeof k === 'string' ? k : String(k));
  return new Proxy(target, {
    get(t, k, receiver) {
      log(`get ${path}.${name(k)}`);
      return Reflect.get(t, k, receiver);
    },
    has(t, k) {
      log(`has ${path}.${name(k)}`);
      return Reflect.has(t, k);
    },
    getOwnPropertyDescriptor(t, k) {
      log(`own ${path}.${name(k)}`);
      return Reflect.getOwnPropertyDescriptor(t, k);
    },
    ownKeys(t) {
      log(`keys ${path}`);
      return Reflect.ownKeys(t);
    },
  });
}

/**
 * Standalone. A Proxy over an array that logs reads of its `length` and elements.
 * @param {Array} target Array
 * @param {string} path Its path in the message
 * @param {function(string): undefined} log Log
 * @returns {Array} Proxy
 */
function loggingArray(target, path, log) {
  return new Proxy(target, {
    get(t, k, receiver) {
      if (typeof k === 'string') log(`get ${path}.${k}`);
      return Reflect.get(t, k, receiver);
    },
  });
}

/**
 * Standalone. Sets one property as `how` says: `own` (a data property), `nonenum` (own, not
 * enumerable), `getter` (an own accessor that logs each read and returns `values` in turn),
 * `inherited` (a data property of `proto`), `protoGetter` (a logging accessor on `proto`).
 * @param {object} obj Object
 * @param {object} proto Its prototype (for `inherited`, `protoGetter`)
 * @param {string} key Property
 * @param {Array} values The value (one), or the values a getter returns read after read
 * @param {string} how How
 * @param {string} path The object's path (for the log)
 * @param {function(string): undefined} log Log
 * @returns {undefined}
 */
function setProperty(obj, proto, key, values, how, path, log) {
  if (how === 'getter' || how === 'protoGetter') {
    let reads = 0;
    Object.defineProperty(how === 'getter' ? obj : proto, key, {
      enumerable: true,
      configurable: true,
      get() {
        log(`get ${path}.${key}`);
        return values[reads++ % values.length];
      },
    });
  } else if (how === 'nonenum') {
    Object.defineProperty(obj, key, { value: values[0], enumerable: false, writable: true, configurable: true });
  } else if (how === 'inherited') {
    Object.defineProperty(proto, key, { value: values[0], enumerable: true, writable: true, configurable: true });
  } else {
    Object.defineProperty(obj, key, { value: values[0], enumerable: true, writable: true, configurable: true });
  }
}

/**
 * Standalone. Bytes in one of the forms `bytes` fields take.
 * @param {Buffer} b Bytes
 * @param {string} form `buffer`, `u8`, `array`, `base64`, `custom`, `view`, `int8`
 * @param {Function} Custom A Buffer subclass (for `custom`)
 * @returns {*} Value
 */
function bytesForm(b, form, Custom) {
  switch (form) {
    case 'u8': return new Uint8Array(b);
    case 'array': return Array.from(b);
    case 'base64': return b.toString('base64');
    case 'custom': return Custom.from(b);
    case 'view': {
      const ab = new ArrayBuffer(b.length + 7);
      new Uint8Array(ab).fill(0xee);
      const v = new Uint8Array(ab, 3, b.length);
      v.set(b);
      return v;
    }
    case 'int8': return new Int8Array(new Uint8Array(b).buffer);
    default: return Buffer.from(b);
  }
}

/**
 * Standalone. A BigInt for a field: for the reference's side in a 64-bit field, {@link refBig}'s string.
 * @param {object} s Side
 * @param {string} v Decimal
 * @param {boolean} long64 Whether the field is 64-bit
 * @returns {bigint|string} Value
 */
function big(s, v, long64) {
  return s.ref && long64 ? refBig(BigInt(v)) : BigInt(v);
}

/**
 * Standalone. A `{low, high}` whose getters log their reads.
 * @param {object} s Side
 * @param {string} path Path
 * @param {*} low Low
 * @param {*} high High
 * @returns {object} Object
 */
function longLike(s, path, low, high) {
  const o = {};
  setProperty(o, null, 'low', [low], 'getter', path, s.log);
  setProperty(o, null, 'high', [high], 'getter', path, s.log);
  return o;
}

/**
 * Standalone. An object whose `valueOf` (or `toString`) logs its call.
 * @param {object} s Side
 * @param {string} path Path
 * @param {string} via `valueOf` or `toString`
 * @param {*} ret What it returns
 * @returns {object} Object
 */
function conv(s, path, via, ret) {
  if (via === 'toString') return { toString() { s.log(`${path} toString`); return String(ret); } };
  return { valueOf() { s.log(`${path} valueOf`); return ret; } };
}

/**
 * Standalone. A repeated field's array.
 * @param {object} s Side
 * @param {string} path Path
 * @param {Array<function(object, string): *>} elems Element makers (side, path)
 * @param {{holes?: number[], getters?: boolean, proxy?: boolean, like?: boolean}} o `holes`: deleted
 * indices; `getters`: elements as logging getters; `proxy`: a logging Proxy; `like`: a plain object
 * with a `length`
 * @returns {*} Array
 */
function array(s, path, elems, o) {
  const a = elems.map((e, i) => e(s, `${path}[${i}]`));
  for (const i of o.holes || []) delete a[i];
  if (o.getters) for (let i = 0; i < a.length; i++) if (i in a) setProperty(a, null, String(i), [a[i]], 'getter', path, s.log);
  if (o.like) return Object.assign({ length: a.length }, a);
  return o.proxy ? loggingArray(a, path, s.log) : a;
}

/**
 * Standalone. A long plain array of seeded elements.
 * @param {object} s Side
 * @param {number} n Elements
 * @param {number} seed Seed
 * @param {string} dist Distribution
 * @param {boolean} long64 Whether the field is 64-bit
 * @returns {Array} Array
 */
function seeded(s, n, seed, dist, long64) {
  const a = seededElements(n, seed, dist);
  if (s.ref && long64) for (let i = 0; i < a.length; i++) if (typeof a[i] === 'bigint') a[i] = refBig(a[i]);
  return a;
}

/**
 * Standalone. A typed array of seeded elements (for the reference, a BigInt one in a 64-bit
 * field becomes an array of {@link refBig} strings).
 * @param {object} s Side
 * @param {string} type Typed array name
 * @param {number} n Elements
 * @param {number} seed Seed
 * @param {string} dist Distribution
 * @param {boolean} long64 Whether the field is 64-bit
 * @returns {ArrayBufferView|Array} Typed array
 */
function typed(s, type, n, seed, dist, long64) {
  const Type = globalThis[type];
  const values = seededElements(n, seed, dist);
  const bigs = type.startsWith('Big');
  const fit = (v) => (bigs ? BigInt[type === 'BigUint64Array' ? 'asUintN' : 'asIntN'](64, v) : v);
  if (s.ref && long64 && bigs) return values.map((v) => refBig(fit(v)));
  const ta = new Type(n);
  for (let i = 0; i < n; i++) ta[i] = fit(values[i]);
  return ta;
}

/**
 * Standalone. A map field's object.
 * @param {object} s Side
 * @param {string} path Path
 * @param {string} mode `plain`, `nullproto`, `proxy` (logging)
 * @param {Array<[string, function(object, string): *]>} entries Keys and value makers
 * @returns {object} Object
 */
function map(s, path, mode, entries) {
  const target = mode === 'nullproto' ? Object.create(null) : {};
  for (const [key, make] of entries) {
    Object.defineProperty(target, key, { value: make(s, `${path}{${key}}`), enumerable: true, writable: true, configurable: true });
  }
  return mode === 'proxy' ? loggingObject(target, path, s.log) : target;
}

/**
 * Standalone. A message object of type `typeName`, made as `mode` says: `plain`, `nullproto`,
 * `create` (`Type.create` of the plain object), `fromObject`, `proxy` (a logging Proxy over the
 * plain object), `decoded` (the plain object encoded with protobufjs's own writer, with the
 * reference's values on both sides, and decoded again).
 * @param {object} s Side: `ref`, `log`, `type(name)`, `protobuf`
 * @param {string} path Path
 * @param {string} typeName Full name
 * @param {string} mode Mode
 * @param {Array<[string, string, Function|Function[]]>} entries Field name, how it is set
 * ({@link setProperty}), value maker (side, path), or makers of the values a getter returns in turn
 * @param {Array<function(object, string): *>|null} unknowns Makers of `$unknowns` elements
 * @param {string} [unknownsHow] `inherited`: `$unknowns` on the prototype
 * @returns {object} Message
 */
function object(s, path, typeName, mode, entries, unknowns, unknownsHow) {
  const T = s.type(typeName);
  if (mode === 'decoded') {
    const source = object({ ...s, ref: true, log: () => {} }, path, typeName, 'plain', entries, null);
    return T.decode(T.encode(source, new s.protobuf.BufferWriter()).finish());
  }
  const nullproto = mode === 'nullproto';
  const proto = nullproto ? Object.create(null) : {};
  const inheriting = entries.some(([, how]) => how === 'inherited' || how === 'protoGetter') || unknownsHow === 'inherited';
  const obj = inheriting ? Object.create(proto) : nullproto ? proto : {};
  for (const [name, how, make] of entries) {
    const values = Array.isArray(make) ? make.map((m) => m(s, `${path}.${name}`)) : [make(s, `${path}.${name}`)];
    setProperty(obj, proto, name, values, how, path, s.log);
  }
  let m = obj;
  if (mode === 'create') m = T.create(obj);
  else if (mode === 'fromObject') m = T.fromObject(obj);
  if (unknowns) {
    Object.defineProperty(unknownsHow === 'inherited' ? proto : m, '$unknowns', {
      value: unknowns.map((u) => u(s, path)), enumerable: false, writable: true, configurable: true,
    });
  }
  return mode === 'proxy' ? loggingObject(m, path, s.log) : m;
}

/** What `lit` descriptions stand for (made fresh each time), and their source. */
const LITERALS = {
  'null': [() => null, 'null'],
  'undefined': [() => undefined, 'undefined'],
  'true': [() => true, 'true'],
  'false': [() => false, 'false'],
  'symbol': [() => Symbol('s'), "Symbol('s')"],
  'object': [() => ({}), '{}'],
  'array': [() => [5], '[5]'],
  'map': [() => new Map([[1, 2]]), 'new Map([[1, 2]])'],
};

/** Per Root, its Types by full name (`lookupType` walks the namespace each time). */
const TYPES = new WeakMap();

/**
 * A side for {@link materialize}.
 * @param {boolean} ref Whether it is the reference's
 * @param {object} root Its Root
 * @param {object} protobuf Its protobufjs
 * @param {function(string): undefined} log Its log
 * @param {Map<string, object>} [gone] Fields removed from the Root (`type id` → Field), which
 * messages may still set
 * @returns {object} Side
 */
function side(ref, root, protobuf, log, gone) {
  let types = TYPES.get(root);
  if (types === undefined) TYPES.set(root, types = new Map());
  const type = (name) => {
    let T = types.get(name);
    if (T === undefined) types.set(name, T = root.lookupType(name));
    return T;
  };
  return { ref, log, type, protobuf, gone: gone || new Map() };
}

/**
 * The live value of a description on one side.
 * @param {object} d Description (message.js)
 * @param {object} s Side ({@link side})
 * @param {string} path Its path in the message (for the log)
 * @param {boolean} long64 Whether it goes to a 64-bit field
 * @returns {*} Value
 */
function materialize(d, s, path, long64) {
  switch (d.k) {
    case 'num': return numValue(d);
    case 'str': return d.v;
    case 'text': return seededText(d.n, d.seed, d.mix);
    case 'big': return big(s, d.v, long64);
    case 'long': return Long.fromBits(d.low, d.high, d.unsigned);
    case 'lh': {
      const low = materialize(d.low, s, path, false);
      const high = materialize(d.high, s, path, false);
      return d.log ? longLike(s, path, low, high) : { low, high };
    }
    case 'lit': return LITERALS[d.v][0]();
    case 'conv': return conv(s, path, d.via, materialize(d.ret, s, path, false));
    case 'bytes': return bytesForm(d.hex !== undefined ? Buffer.from(d.hex, 'hex') : seededBytes(d.n, d.seed), d.form, CustomBuffer);
    case 'arr': return array(s, path, d.elems.map((e) => (s2, p) => materialize(e, s2, p, long64)), d);
    case 'seeded': return seeded(s, d.n, d.seed, d.dist, long64);
    case 'typed': return typed(s, d.type, d.n, d.seed, d.dist, long64);
    case 'map': return map(s, path, d.mode, d.entries.map(([key, e]) => [key, (s2, p) => materialize(e, s2, p, long64)]));
    case 'vol': return materialize(d.seq[0], s, path, long64);
    case 'msg': {
      const T = s.type(d.type);
      const entries = d.fields.map(([id, vd, how]) => {
        const field = T.fieldsById[id] || s.gone.get(`${d.type} ${id}`);
        if (field === undefined) throw new Error(`fuzz:schemas: ${d.type} has no field ${id}`);
        const wide = LONG_TYPES.has(field.type);
        const make = (e) => (s2, p) => materialize(e, s2, p, wide);
        return [field.name, how, vd.k === 'vol' && how === 'getter' ? vd.seq.map(make) : make(vd)];
      });
      const unknowns = d.unknowns ? d.unknowns.map((u) => (s2, p) => materialize(u, s2, p, false)) : null;
      if (d.mode !== 'create') return object(s, path, d.type, d.mode, entries, unknowns, d.unknownsHow);
      // What fromObject passes through reaches the writer as it is: on a serializer form's reference
      // side, as the reference's writer takes it (BigInts as strings).
      return object(s.passedRef ? { ...s, ref: true } : s, `${path}${PASSED}`, d.type, d.mode, entries, unknowns, d.unknownsHow);
    }
    default: throw new Error(`fuzz:schemas: unknown value description ${JSON.stringify(d)}`);
  }
}

module.exports = {
  materialize, side, refBig, seededText, seededBytes, seededElements, loggingObject, loggingArray, setProperty,
  bytesForm, big, longLike, conv, array, seeded, typed, map, object, CustomBuffer, LITERALS, LONG_TYPES, PASSED,
};
