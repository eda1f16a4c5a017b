'use strict';

/**
 * Random messages for a generated schema (schema.js), as descriptions: plain JSON data, drawn
 * from a seeded generator, turned into live values by values.js once per side, so that the
 * subject and the reference get equivalent but separate objects, each logging into its own list
 * the reads user code sees.
 *
 * A value description is `{ k: kind, ... }`:
 * - scalars: `num` (fuzz/js/values.js `num`: a number, or `'NaN'`, `'Infinity'`, `'-Infinity'`,
 *   `'-0'`), `str` (a string), `text` (`n` UTF-16 units drawn from `seed` with the character mix
 *   `mix`, lone surrogates included), `big` (a BigInt, decimal), `long` (`low`, `high`,
 *   `unsigned`: a `Long`), `lh` (a plain `{low, high}` of two descriptions; `log`: its getters log
 *   their reads), `lit` (`null`, `undefined`, `true`, `false`, `symbol`, `object`, `array`,
 *   `map`), `conv` (an object whose `valueOf`/`toString` logs its call, then returns `ret`),
 *   `bytes` (`n` seeded bytes, or `hex`, in the `form` `buffer`, `u8`, `array`, `base64`,
 *   `custom` (an instance of a Buffer subclass), `view` (a Uint8Array at an offset of a larger
 *   buffer) or `int8`);
 * - containers: `arr` (`elems`, with `holes`, `getters` (element getters that log), `proxy` (a
 *   logging Proxy), `like` (a plain object with a `length`)), `seeded` (`n` elements of fuzz/js
 *   `element` distribution `dist`), `typed` (a typed array `type` of `n` seeded elements),
 *   `map` (`entries` `[key, description]`; `mode` `plain`, `nullproto` or `proxy`);
 * - `msg`: `type` (full name), `fields` `[fieldId, description, how]` (`how`: `own`, `getter` (an
 *   own accessor that logs each read), `inherited` (on the prototype), `protoGetter` (an
 *   accessor on the prototype), `nonenum` (own, not enumerable)), `unknowns` (bytes
 *   descriptions for `$unknowns`, own and not enumerable as protobufjs's decoder makes it, or
 *   `unknownsHow` `inherited`), `mode` (`plain`, `nullproto` (no prototype), `create`
 *   (`Type.create`), `fromObject`, `proxy` (a Proxy that logs `get`, `has`,
 *   `getOwnPropertyDescriptor` and `ownKeys`), `decoded` (encoded by protobufjs and decoded
 *   again: a real decoded instance, Longs, Buffer views and `$unknowns` as the decoder keeps
 *   them));
 * - `vol`: `seq` of descriptions a getter returns in turn, read after read (elsewhere the first).
 *
 * Field ids, not names, key the fields: names are the Root's (camel-cased or not, as it parsed).
 */

const { num } = require('../values');
const { SCALARS, LONG_TYPES, PACKABLE, pick } = require('./schema');

const INT32_NUMS = [0, 1, -1, 2, 127, 128, 300, 16383, 16384, 2147483647, -2147483648, 2147483648, 4294967295,
  4294967296, -4294967297, 1.5, -1.5, 0.9999, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e-7, -0.5, 0x7f, 255];
const SPECIALS = ['-0', 'NaN', 'Infinity', '-Infinity'];
const INT_STRINGS = ['12', '-3', '0x10', '1e3', 'abc', '', ' 7 ', '4294967296', '-0', '1.9', '0b11'];
const LONG_STRINGS = ['0', '-1', '1', '9223372036854775807', '-9223372036854775808', '18446744073709551615',
  '18446744073709551616', '123456789012345678901234', '9007199254740993', 'abc', '12ab', '+5', '-0', '0x20',
  '4294967296', '-4294967297'];
const BIGS = ['0', '1', '-1', '127', '128', '18446744073709551615', '18446744073709551616', '-9223372036854775809',
  '9223372036854775807', '340282366920938463463374607431768211457', '-18446744073709551616', '4294967296'];
const FLOATS = [0, 1, -1, 1.5, -2.25, 0.1, 1e-320, 3.4028235e38, 3.5e38, 1e-46, 2 ** 53 + 1, -1e300, 123456.789,
  16777217, 5e-324];
const FLOAT_STRINGS = ['1.5', 'abc', '', '-0', '1e400', ' 2 '];
const BASE64 = ['', 'AQID', 'AQI=', 'AQI', 'AQ==', 'A', '@@@', 'aGVsbG8gd29ybGQ=', 'ab-_', '////', 'AQID\n'];
/** Map keys by key type, as the strings `Object.keys` gives the encoder. */
const KEYS = {
  int: ['0', '1', '-1', '127', '128', '2147483647', '-2147483648', '4294967296', '1.5', 'abc', '', '-0', '007'],
  uint: ['0', '1', '4294967295', '4294967296', '-1', '300', '1e3', 'x'],
  long: ['0', '-1', '1', '9223372036854775807', '-9223372036854775808', '18446744073709551615',
    '18446744073709551616', '12345678', '\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0080', 'abcdefgh', 'abc',
    '9007199254740993'],
  bool: ['true', 'false', '1', '0', '', 'x', 'TRUE'],
  string: ['', 'a', 'key', 'é', '\ud800', 'x'.repeat(130), '0', '__key', 'constructor'],
};

/**
 * A type's facts the generator needs.
 * @param {object} schema Schema
 * @returns {{types: Map<string, object>, enums: Map<string, object>}} By full name
 */
function indexSchema(schema) {
  return {
    types: new Map(schema.types.map((t) => [t.name, t])),
    enums: new Map(schema.enums.map((e) => [e.name, e])),
  };
}

/**
 * Whether a field has implicit presence (proto3 without `optional`, 2023 IMPLICIT): the values
 * protobufjs 8 skips (0, '', false, empty bytes) are then drawn more often.
 * @param {object} schema Schema
 * @param {object} f Field
 * @returns {boolean} Whether
 */
function implicit(schema, f) {
  if (f.kind === 'message' || f.kind === 'group' || f.kind === 'map' || f.label === 'repeated' || f.oneof) return false;
  if (schema.syntax === 'proto3') return f.label === '';
  if (schema.syntax === '2023') {
    return f.presence === 'IMPLICIT' || (f.presence === undefined && schema.fileFeatures !== null &&
      schema.fileFeatures.presence === 'IMPLICIT');
  }
  return false;
}

/** Generator state for one message tree. */
class Gen {
  /**
   * @param {function(): number} rng Generator
   * @param {object} schema Schema
   * @param {object} o `maxDepth`, `budget` (nodes), `deep` (a depth to reach along message fields)
   */
  constructor(rng, schema, o) {
    this.rng = rng;
    this.schema = schema;
    this.idx = indexSchema(schema);
    this.maxDepth = o.maxDepth;
    this.budget = o.budget;
    this.deep = o.deep || 0;
  }

  /**
   * @param {number} p Probability
   * @returns {boolean} True with probability `p`
   */
  chance(p) {
    return this.rng() < p;
  }

  /**
   * A message of `typeName`.
   * @param {string} typeName Full name
   * @param {number} depth Nesting
   * @param {{plain: boolean}} ctx `plain`: only what `fromObject` and protobufjs's encoder (for
   * `decoded`) take: JSON-like values, no logging objects
   * @returns {object} `msg` description
   */
  message(typeName, depth, ctx) {
    const type = this.idx.types.get(typeName);
    this.budget--;
    const x = this.rng();
    let mode = 'plain';
    if (!ctx.plain) {
      if (x < 0.1) mode = 'create';
      else if (x < 0.16) mode = 'fromObject';
      else if (x < 0.21) mode = 'proxy';
      else if (x < 0.25) mode = 'nullproto';
      else if (x < 0.29) mode = 'decoded';
    }
    const inner = { plain: ctx.plain || mode === 'fromObject' || mode === 'decoded' };
    const d = { k: 'msg', type: typeName, mode, fields: [] };
    // A type's own fields, then the extensions of it (messages set them under their full names).
    const extensions = (this.schema.extensions || []).filter((e) => e.target === typeName);
    const fields = type.fields.concat(extensions.map((e) => e.field));
    const fillers = fields.filter((f) => (f.type === 'bytes' || f.type === 'string') && f.kind === 'scalar');
    if (depth > 0 && fillers.length > 0 && this.chance(0.06)) {
      // One string or bytes field whose length makes this message exactly 127, 128, 16383 or 16384
      // bytes long: the length prefix of the field holding it is then at a varint boundary.
      const f = pick(this.rng, fillers);
      const total = pick(this.rng, [127, 128, 16383, 16384]);
      const tag = varint(f.id * 8 + 2).length;
      let n = total - tag - 1;
      while (n > 0 && tag + varint(n).length + n > total) n--;
      const value = f.type === 'string' ? { k: 'text', n, seed: this.rng.int(2 ** 31), mix: 'ascii' } : { k: 'bytes', form: 'buffer', n, seed: this.rng.int(2 ** 31) };
      d.fields.push([f.id, f.label === 'repeated' ? { k: 'arr', elems: [value] } : value, 'own']);
      return d;
    }
    const deepField = depth < this.deep
      ? pick(this.rng, fields.filter((f) => f.kind === 'message' || f.kind === 'group' || (f.kind === 'map' && f.valueKind === 'message')) || [])
      : undefined;
    const howMix = !inner.plain && this.chance(0.3);
    for (const f of fields) {
      const oneofTaken = f.oneof && d.fields.some(([id]) => fields.find((g) => g.id === id).oneof === f.oneof);
      let p = f === deepField ? 1 : f.label === 'required' || f.presence === 'LEGACY_REQUIRED' ? 0.97 : 0.55;
      if (oneofTaken) p = 0.1; // usually one member of a oneof; sometimes two (the encoder writes both)
      if (!this.chance(p)) {
        if (!inner.plain && this.chance(0.05)) d.fields.push([f.id, { k: 'lit', v: this.chance(0.5) ? 'null' : 'undefined' }, 'own']);
        continue;
      }
      const value = this.field(f, depth, inner, f === deepField);
      if (value === null) continue;
      let how = 'own';
      if (howMix) how = pick(this.rng, ['own', 'own', 'getter', 'getter', 'inherited', 'protoGetter', 'nonenum']);
      if (how === 'getter' && this.chance(0.15)) {
        d.fields.push([f.id, { k: 'vol', seq: [value, this.field(f, depth, inner, false) || value] }, how]);
      } else {
        d.fields.push([f.id, value, how]);
      }
    }
    if (this.chance(0.12)) {
      d.unknowns = Array.from({ length: 1 + this.rng.int(3) }, () => this.unknown(type));
      if (!inner.plain && this.chance(0.15)) d.unknownsHow = 'inherited';
    }
    if (mode === 'fromObject' || mode === 'decoded') delete d.unknowns; // fromObject drops them; decode keeps its own
    if (mode === 'decoded') d.fields = d.fields.filter(([, v]) => v.k !== 'lit' || v.v !== 'null');
    return d;
  }

  /**
   * Bytes of an unknown field: a tag of a number the type does not use, and a value of its wire type.
   * @param {object} type Type
   * @returns {object} `bytes` description
   */
  unknown(type) {
    let id;
    const extensions = (this.schema.extensions || []).filter((e) => e.target === type.name);
    const taken = (n) => type.fields.some((f) => f.id === n) || extensions.some((e) => e.field.id === n) ||
      (n >= 19000 && n <= 19999);
    do id = 1 + this.rng.int(this.chance(0.5) ? 30 : 536870911); while (taken(id));
    const wire = pick(this.rng, [0, 1, 2, 5]);
    const bytes = varint((id * 8 + wire));
    if (wire === 0) bytes.push(...varint(this.rng.int(2 ** 31) * (this.chance(0.5) ? 1 : 300)));
    else if (wire === 1) for (let i = 0; i < 8; i++) bytes.push(this.rng.int(256));
    else if (wire === 5) for (let i = 0; i < 4; i++) bytes.push(this.rng.int(256));
    else {
      const n = this.chance(0.9) ? this.rng.int(20) : 130;
      bytes.push(...varint(n));
      for (let i = 0; i < n; i++) bytes.push(this.rng.int(256));
    }
    return { k: 'bytes', form: pick(this.rng, ['buffer', 'view', 'u8']), hex: Buffer.from(bytes).toString('hex') };
  }

  /**
   * The value of one field (repeated, map or singular).
   * @param {object} f Field
   * @param {number} depth Nesting of its message
   * @param {{plain: boolean}} ctx Context
   * @param {boolean} deep Whether this field carries the deep chain
   * @returns {object|null} Description, or null to leave it unset
   */
  field(f, depth, ctx, deep) {
    const nested = f.kind === 'message' || f.kind === 'group' || (f.kind === 'map' && f.valueKind === 'message');
    if (nested && !deep && (depth >= this.maxDepth || this.budget <= 0)) return null;
    if (f.kind === 'map') return this.map(f, depth, ctx, deep);
    if (f.label === 'repeated') return this.repeated(f, depth, ctx, deep);
    return this.single(f.kind, f.type, depth, ctx, { implicit: implicit(this.schema, f), deep });
  }

  /**
   * A map field's object.
   * @returns {object} `map` description
   */
  map(f, depth, ctx, deep) {
    const n = deep ? 1 : this.chance(0.1) ? 0 : 1 + this.rng.int(this.chance(0.1) ? 40 : 4);
    const kinds = f.keyType === 'bool' ? 'bool' : f.keyType === 'string' ? 'string'
      : LONG_TYPES.has(f.keyType) ? 'long' : f.keyType.startsWith('u') || f.keyType === 'fixed32' ? 'uint' : 'int';
    const entries = [];
    const seen = new Set();
    for (let i = 0; i < n; i++) {
      let key = this.chance(0.6) ? pick(this.rng, KEYS[kinds]) : String(this.rng.int(1000) - (kinds === 'uint' ? 0 : 500));
      if (kinds === 'bool' && this.chance(0.6)) key = pick(this.rng, ['true', 'false']);
      if (kinds === 'string' && this.chance(0.5)) key = `k${this.rng.int(100)}`;
      if (ctx.plain && (key === '__key' || key === 'constructor')) continue;
      if (seen.has(key)) continue;
      seen.add(key);
      const kind = f.valueKind === 'enum' ? 'enum' : f.valueKind === 'message' ? 'message' : 'scalar';
      entries.push([key, this.single(kind, f.type, depth, ctx, { implicit: false, deep, inMap: true })]);
    }
    const mode = ctx.plain ? 'plain' : pick(this.rng, ['plain', 'plain', 'plain', 'plain', 'nullproto', 'proxy']);
    return { k: 'map', entries, mode };
  }

  /**
   * A repeated field's array: plain, seeded (long), typed, with holes, logging.
   * @returns {object} Description
   */
  repeated(f, depth, ctx, deep) {
    const numeric = f.kind === 'enum' || PACKABLE.has(f.type);
    const x = this.rng();
    if (!deep && numeric && x < 0.06) {
      const n = this.chance(0.5) ? 2048 + this.rng.int(1200) : 100 + this.rng.int(200);
      return { k: 'seeded', n, seed: this.rng.int(2 ** 31), dist: seededDist(this.rng, f) };
    }
    if (!deep && numeric && !ctx.plain && x < 0.16) {
      const type = typedFor(this.rng, f);
      const n = this.chance(0.5) ? 128 + this.rng.int(600) : this.rng.int(20);
      return { k: 'typed', type, n, seed: this.rng.int(2 ** 31), dist: typedDist(type) };
    }
    const n = deep ? 1 : this.chance(0.1) ? 0 : 1 + this.rng.int(this.chance(0.15) ? 30 : 4);
    const elems = [];
    for (let i = 0; i < n; i++) {
      if (this.budget <= 0 && (f.kind === 'message' || f.kind === 'group')) break;
      elems.push(this.single(f.kind, f.type, depth, ctx, { implicit: false, deep: deep && i === 0, element: true }));
    }
    const d = { k: 'arr', elems };
    if (!ctx.plain) {
      const y = this.rng();
      if (y < 0.05 && n > 1) d.holes = [this.rng.int(n)];
      else if (y < 0.12) d.getters = true;
      else if (y < 0.18) d.proxy = true;
      else if (y < 0.2) d.like = true;
    }
    return d;
  }

  /**
   * A singular value of a scalar, enum or message type.
   * @param {string} kind `scalar`, `enum`, `message` or `group`
   * @param {string} type Type
   * @param {number} depth Nesting of the message holding it
   * @param {{plain: boolean}} ctx Context
   * @param {{implicit: boolean, deep: boolean, element?: boolean, inMap?: boolean}} o Options
   * @returns {object} Description
   */
  single(kind, type, depth, ctx, o) {
    if (kind === 'message' || kind === 'group') {
      if (!ctx.plain && this.chance(0.02)) return { k: 'lit', v: pick(this.rng, ['null', 'object', 'array', 'true']) };
      return this.message(type, depth + 1, ctx);
    }
    if (kind === 'enum') return this.enumValue(type, ctx, o);
    return this.scalar(type, ctx, o);
  }

  /**
   * @returns {object} An enum value: a listed number, an unlisted one, a name, an odd value
   */
  enumValue(type, ctx, o) {
    const e = this.idx.enums.get(type);
    const x = this.rng();
    if (o.implicit && x < 0.25) return num(e.values[0][1]);
    if (x < 0.7) return num(pick(this.rng, e.values)[1]);
    if (x < 0.8) return num(pick(this.rng, [99, -99, 2147483647, 1.5, 2 ** 32]));
    if (x < 0.9) return { k: 'str', v: pick(this.rng, e.values)[0] };
    return this.odd(ctx, 'int32');
  }

  /**
   * A value for a scalar type, in every form protobufjs's encoder takes, its defaults more often
   * where presence is implicit.
   * @param {string} type Scalar type
   * @param {{plain: boolean}} ctx Context
   * @param {{implicit: boolean}} o Options
   * @returns {object} Description
   */
  scalar(type, ctx, o) {
    const rng = this.rng;
    if (o.implicit && this.chance(0.25)) return defaultForm(rng, type, ctx);
    if (this.chance(ctx.plain ? 0.005 : 0.03)) return this.odd(ctx, type);
    switch (type) {
      case 'double': case 'float': {
        const x = rng();
        if (x < 0.6) return num(pick(rng, FLOATS) * (rng() < 0.3 ? -1 : 1));
        if (x < 0.8) return num(pick(rng, SPECIALS));
        if (x < 0.9) return { k: 'str', v: pick(rng, FLOAT_STRINGS) };
        return num((rng() - 0.5) * 2 ** rng.int(200));
      }
      case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64': {
        const x = rng();
        if (x < 0.3) return num(pick(rng, INT32_NUMS.concat([2 ** 53 + 2, 2 ** 63, 2 ** 64, -(2 ** 63), 1e300])));
        if (x < 0.45) return { k: 'str', v: rng() < 0.02 ? '' : pick(rng, LONG_STRINGS) };
        if (x < 0.65) {
          return {
            k: 'long', low: rng.int(2 ** 32) | 0, high: pick(rng, [0, -1, 1, 0x7fffffff, -0x80000000, rng.int(2 ** 32) | 0]),
            unsigned: rng() < 0.5,
          };
        }
        if (x < 0.75) {
          const part = () => num(rng() < 0.8 ? rng.int(2 ** 32) | 0 : pick(rng, [1.5, -1, 2 ** 32 + 1]));
          return { k: 'lh', low: part(), high: part(), log: !ctx.plain && rng() < 0.5 };
        }
        if (x < 0.95) {
          if (rng() < 0.5) return { k: 'big', v: pick(rng, BIGS) };
          const b = (BigInt(rng.int(2 ** 32)) << 32n) | BigInt(rng.int(2 ** 32));
          return { k: 'big', v: String(rng() < 0.5 ? -b : b) };
        }
        return num(pick(rng, SPECIALS));
      }
      case 'bool': {
        const x = rng();
        if (x < 0.7) return { k: 'lit', v: rng() < 0.5 ? 'true' : 'false' };
        if (x < 0.85) return num(pick(rng, [0, 1, 2, -1, 0.5]));
        if (x < 0.95) return { k: 'str', v: pick(rng, ['', 'false', 'x', '0']) };
        return num(pick(rng, SPECIALS));
      }
      case 'string': return this.text(ctx);
      case 'bytes': return this.bytes(ctx);
      default: {
        // int32, uint32, sint32, fixed32, sfixed32
        const x = rng();
        if (x < 0.55) return num(rng() < 0.5 ? rng.int(300) - 50 : rng.int(2 ** 32) - 2 ** 31);
        if (x < 0.8) return num(pick(rng, INT32_NUMS) * (rng() < 0.3 ? -1 : 1));
        if (x < 0.87) return num(pick(rng, SPECIALS));
        if (x < 0.95) return { k: 'str', v: pick(rng, INT_STRINGS) };
        return { k: 'lit', v: rng() < 0.5 ? 'true' : 'false' };
      }
    }
  }

  /**
   * A value of an unusual kind for any scalar type: null, undefined, a Symbol, a BigInt where no
   * 64-bit value goes, objects, an object that converts (and logs it).
   * @param {{plain: boolean}} ctx Context
   * @param {string} type Scalar type (for what stays valid under `plain`)
   * @returns {object} Description
   */
  odd(ctx, type) {
    if (ctx.plain) return { k: 'lit', v: 'null' };
    const x = this.rng();
    if (x < 0.2) return { k: 'lit', v: pick(this.rng, ['null', 'undefined']) };
    if (x < 0.35) return { k: 'conv', via: this.chance(0.7) ? 'valueOf' : 'toString', ret: num(pick(this.rng, [5, -1, 300, 1.5])) };
    if (x < 0.45) return { k: 'lit', v: pick(this.rng, ['object', 'array', 'map']) };
    if (x < 0.55 && !LONG_TYPES.has(type)) return { k: 'big', v: pick(this.rng, ['0', '5', '-1']) };
    if (x < 0.6) return { k: 'lit', v: 'symbol' };
    if (x < 0.8) return { k: 'long', low: 5, high: this.chance(0.5) ? 0 : 1, unsigned: false };
    return { k: 'str', v: pick(this.rng, ['5', '', 'x']) };
  }

  /**
   * @param {{plain: boolean}} ctx Context
   * @returns {object} A string: short literals, or seeded text around 40 units, 128 bytes, 16 KiB
   */
  text(ctx) {
    const rng = this.rng;
    const x = rng();
    if (x < 0.35) return { k: 'str', v: pick(rng, ['', 'a', 'hello', 'é', '€', '😀', '\ud800', '\udc00', 'a\ud83d', '\u0000', 'x'.repeat(39)]) };
    let n;
    if (x < 0.6) n = 36 + rng.int(10);
    else if (x < 0.85) n = 40 + rng.int(100);
    else if (x < 0.98) n = 120 + rng.int(20);
    else n = 16370 + rng.int(30);
    if (!ctx.plain && rng() < 0.02) return { k: 'bytes', form: 'buffer', n: 5, seed: 1 }; // a Buffer to a string field
    return { k: 'text', n, seed: rng.int(2 ** 31), mix: pick(rng, ['ascii', 'latin', 'bmp', 'astral', 'lone', 'mixed']) };
  }

  /**
   * @param {{plain: boolean}} ctx Context
   * @returns {object} Bytes in one of the forms the encoder takes
   */
  bytes(ctx) {
    const rng = this.rng;
    const x = rng();
    if (x < 0.12) return { k: 'str', v: pick(rng, BASE64) };
    let n;
    const y = rng();
    if (y < 0.6) n = rng.int(10);
    else if (y < 0.94) n = 120 + rng.int(20);
    else if (y < 0.97) n = 16370 + rng.int(30);
    else n = 4090 + rng.int(12);
    const forms = ctx.plain ? ['buffer', 'u8', 'array', 'base64'] : ['buffer', 'buffer', 'u8', 'array', 'base64', 'custom', 'view', 'int8'];
    return { k: 'bytes', form: pick(rng, forms), n, seed: rng.int(2 ** 31) };
  }
}

/**
 * The forms of a scalar type's default (what protobufjs 8 skips under implicit presence, and a few
 * it does not: `'0'`, a zero Long, `-0` for floating point).
 * @param {function(): number} rng Generator
 * @param {string} type Scalar type
 * @param {{plain: boolean}} ctx Context
 * @returns {object} Description
 */
function defaultForm(rng, type, ctx) {
  switch (type) {
    case 'bool': return pick(rng, [{ k: 'lit', v: 'false' }, num(0)]);
    case 'string': return pick(rng, [{ k: 'str', v: '' }, { k: 'str', v: '0' }]);
    case 'bytes': return pick(rng, [{ k: 'str', v: '' }, { k: 'bytes', form: ctx.plain ? 'buffer' : 'u8', n: 0, seed: 0 }, { k: 'bytes', form: 'array', n: 0, seed: 0 }]);
    case 'double': case 'float': return num(pick(rng, [0, -0, 0]));
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64':
      return pick(rng, [num(0), num(-0), { k: 'long', low: 0, high: 0, unsigned: rng() < 0.5 }, { k: 'lh', low: num(0), high: num(0) },
        { k: 'str', v: '0' }, { k: 'big', v: pick(rng, ['0', '18446744073709551616']) }]);
    default: return num(pick(rng, [0, 0, -0]));
  }
}

/**
 * The distribution of a long seeded plain array's elements (fuzz/js/values.js `element`).
 * @param {function(): number} rng Generator
 * @param {object} f Field
 * @returns {string} Distribution
 */
function seededDist(rng, f) {
  if (f.type === 'double' || f.type === 'float') return 'float';
  if (LONG_TYPES.has(f.type)) return pick(rng, ['big', 'word', 'edge', 'small']);
  return pick(rng, ['small', 'word', 'edge']);
}

/**
 * The typed array a repeated numeric field is given: mostly its own kind, sometimes another.
 * @param {function(): number} rng Generator
 * @param {object} f Field
 * @returns {string} Typed array name
 */
function typedFor(rng, f) {
  const t = f.kind === 'enum' ? 'int32' : f.type;
  if (rng() < 0.2) return pick(rng, ['Int8Array', 'Uint8Array', 'Int16Array', 'Float64Array', 'Int32Array', 'Uint32Array']);
  switch (t) {
    case 'double': return pick(rng, ['Float64Array', 'Float32Array']);
    case 'float': return pick(rng, ['Float32Array', 'Float64Array']);
    case 'uint32': case 'fixed32': return pick(rng, ['Uint32Array', 'Uint32Array', 'Int32Array']);
    case 'int64': case 'sint64': case 'sfixed64': return pick(rng, ['BigInt64Array', 'BigInt64Array', 'Int32Array']);
    case 'uint64': case 'fixed64': return pick(rng, ['BigUint64Array', 'BigInt64Array', 'Uint32Array']);
    case 'bool': return pick(rng, ['Uint8Array', 'Int32Array']);
    default: return pick(rng, ['Int32Array', 'Int32Array', 'Uint32Array']);
  }
}

/**
 * @param {string} type Typed array name
 * @returns {string} The element distribution that fits it
 */
function typedDist(type) {
  if (type.startsWith('Big')) return 'big';
  if (type.startsWith('Float')) return 'float';
  if (type === 'Int32Array' || type === 'Uint32Array') return 'edge';
  return 'small';
}

/**
 * @param {number} n A non-negative integer below 2^53
 * @returns {number[]} Its varint bytes
 */
function varint(n) {
  const out = [];
  while (n >= 128) {
    out.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * The messages of one case: `count` messages of random types of the schema.
 * @param {function(): number} rng Generator
 * @param {object} schema Schema
 * @param {number} count Messages
 * @returns {Array<{type: string, value: object}>} Messages
 */
function generateMessages(rng, schema, count) {
  const top = schema.types.filter((t) => !t.group);
  const out = [];
  for (let i = 0; i < count; i++) {
    const type = pick(rng, top).name;
    // Now and then a chain of nested messages deeper than a small util.recursionLimit (case.js), or
    // than protobufjs's own 100, where the schema's message fields allow it.
    const x = rng();
    const deep = x < 0.05 ? 3 + rng.int(5) : x < 0.06 ? 99 + rng.int(5) : 0;
    const g = new Gen(rng, schema, { maxDepth: rng.int(4), budget: rng() < 0.1 ? 400 : 60, deep });
    out.push({ type, value: g.message(type, 0, { plain: false }) });
  }
  return out;
}

module.exports = { generateMessages, indexSchema, implicit, varint, Gen, SCALARS };
