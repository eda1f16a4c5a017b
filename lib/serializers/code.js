'use strict';

/**
 * The source of a serializer: one function per protobufjs Type, `ser(d, w, p, q, tag)`, which does
 * what `types[i].encode(types[i].fromObject(d, q), ...)` does in protobufjs, in one pass and without
 * making a message: it reads the plain object `d` as the copy's generated `fromObject` reads it (its
 * src/converter.js, lib/serializers/rules.js: the same property reads in the same order and number,
 * the same conversions and checks, the same errors), and writes each converted value as the copy's
 * encoder would write it from the message fromObject would have made (lib/encoders/rules.js: its
 * presence checks, on the converted value and on what that message would hold), with the helpers
 * of lib/encoders/runtime.js, into the held writer `w` from position `p`. `q` is the message's
 * depth; with a `tag`, it is a field of the enclosing message (its tag, then a section).
 *
 * fromObject reads a Type's fields in declaration order (`fieldsArray`), the encoder writes them by
 * field number. Where the two orders differ (`plan`), a field read after fields with higher numbers
 * is written after their bytes, then moved before them (lib/serializers/runtime.js `place`), with
 * whatever entries it holds, or theirs; only where both would hold some is it written by a writer of
 * its own first (`scratch`). A oneof declared out of number order (`google.firestore.v1.Value`) has
 * one member set, and nothing moves.
 *
 * A value fromObject passes through as it is (a message instance, a `bytes` array or Buffer) is read
 * by the encoder's rules where its field is written: the same reads as protobufjs's, but before
 * fromObject would read the next fields, where protobufjs reads it after all of them; only a getter
 * or Proxy on such a value whose reads change what is read later could tell.
 *
 * Each function's conversions of what follows a writing error (lib/serializers/runtime.js
 * "Errors") are generated apart (`restSource`), compiled at the first such error.
 */

const { sizeOf } = require('../encoders/code');

/** The helper of lib/encoders/runtime.js that writes a scalar, string or bytes value of each type. */
const WRITER_OF = {
  double: 'double', float: 'float', int32: 'int32', uint32: 'uint32', sint32: 'sint32', fixed32: 'fixed32',
  sfixed32: 'fixed32', int64: 'uint64', uint64: 'uint64', sint64: 'sint64', fixed64: 'fixed64', sfixed64: 'fixed64',
  bool: 'bool', string: 'string', bytes: 'bytes',
};
/** Scalars written as 64-bit values. */
const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
/** What generated functions take from lib/encoders/runtime.js. */
const RT = ['open', 'heldStart', 'mark', 'addedMark', 'packed', ...new Set(Object.values(WRITER_OF))];
/** And from lib/serializers/runtime.js. */
const SRT = ['Deferred', 'deferred', 'instance', 'ready', 'arrayLength', 'trailing', 'element', 'canonical', 'repeated',
  'packedElements', 'packedMethod', 'entry', 'messageEntry', 'close', 'place', 'scratch', 'unscratch'];

/**
 * @param {string[]} lines Lines
 * @param {string} [by] Indentation
 * @returns {string[]} The lines indented
 */
function indent(lines, by = '  ') {
  return lines.map((line) => by + line);
}

/**
 * The code generator of one protobufjs copy.
 * @param {object} protobuf The protobufjs module
 * @param {import('../encoders/rules').Rules} enc The rules of its encoder.js
 * @param {import('./rules').FromObjectRules} obj The rules of its converter.js
 * @returns {{source: Function, restSource: Function, plan: Function}} Generator
 */
function generator(protobuf, enc, obj) {
  const { util, types: wire, Enum, Type } = protobuf;
  const v8 = obj.arrays === 'sized';

  /**
   * @param {object} type A Type
   * @returns {{fields: object[], before: number[][], movable: Set<number>}} Its fields in declaration
   * order (resolved); for each position, the positions of the fields declared before it with a higher
   * number (by number), whose bytes its own go before; and the positions that are in some such list
   */
  function plan(type) {
    const fields = type.fieldsArray.map((f) => f.resolve());
    const before = fields.map((f, j) => fields.map((g, k) => k).filter((k) => k < j && fields[k].id > f.id)
      .sort((k1, k2) => fields[k1].id - fields[k2].id));
    const movable = new Set(before.flat());
    return { fields, before, movable };
  }

  /**
   * What a field's code needs: its kind, names and tags.
   * @param {object} field Field, resolved
   * @param {Scope} scope The function's scope
   * @returns {object} Facts
   */
  function facts(field, scope) {
    const isEnum = field.resolvedType instanceof Enum;
    const message = field.resolvedType instanceof Type ? field.resolvedType : null;
    const type = isEnum ? 'int32' : field.type;
    const wireType = wire.basic[type];
    const group = message !== null && field.delimited && !field.map;
    const tag = (field.id << 3 | (message !== null ? (group ? 3 : 2) : wireType)) >>> 0;
    return {
      field, isEnum, message, type, wireType, group, tag,
      end: group ? (field.id << 3 | 4) >>> 0 : 0,
      D: `d${util.safeProp(field.name)}`,
      prop: util.safeProp(field.name),
      name: JSON.stringify(field.name),
      unit: message !== null ? scope.child(message) : null,
      objectExpected: JSON.stringify(`${field.fullName}: object expected`),
      arrayExpected: JSON.stringify(`${field.fullName}: array expected`),
    };
  }

  /**
   * converter.js `genValuePartial_fromObject` for a value that is not a message: the statements that
   * convert `src` and, where fromObject assigns, run `assign(expression)`.
   * @param {object} f Facts
   * @param {string} src Expression read each time it appears, as fromObject's `d%s`
   * @param {function(string): string} assign The statement assigning a converted value
   * @returns {string} Code
   */
  function convertValue(f, src, assign) {
    const field = f.field;
    if (f.isEnum) {
      const values = field.resolvedType.values;
      const keys = Object.keys(values);
      const caseOf = (k) => ` case ${JSON.stringify(k)}: case ${String(Math.floor(values[k]))}: ${assign(JSON.stringify(values[k]))} break;`;
      let code = `switch (${src}) {`;
      if (obj.enums === 'integers') {
        for (const k of keys) code += caseOf(k);
        code += ' default:';
        if (field.resolvedType._features.enum_type !== 'CLOSED') {
          code += ` if (typeof ${src} === "number" && (${src} | 0) === ${src}) { ${assign(src)} }`;
        }
      } else {
        let defaultEmitted = false;
        for (const k of keys) {
          if (values[k] === field.typeDefault && !defaultEmitted) {
            // 7.x: unknown numbers pass; anything else falls through to the default's case in an array
            code += ` default: if (typeof (${src}) === "number") { ${assign(src)} break; }${field.repeated ? '' : ' break;'}`;
            defaultEmitted = true;
          }
          code += caseOf(k);
        }
      }
      return `${code} }`;
    }
    const unsigned = field.type === 'uint64' || field.type === 'fixed64';
    switch (field.type) {
      case 'double': case 'float': return assign(`Number(${src})`);
      case 'uint32': case 'fixed32': return assign(`${src} >>> 0`);
      case 'int32': case 'sint32': case 'sfixed32': return assign(`${src} | 0`);
      case 'uint64': case 'fixed64': case 'int64': case 'sint64': case 'sfixed64':
        return `if (util.Long) { ${assign(`util.Long.fromValue(${src}, ${unsigned})`)} } `
          + `else if (typeof ${src} === "string") { ${assign(`parseInt(${src}, 10)`)} } `
          + `else if (typeof ${src} === "number") { ${assign(src)} } `
          + `else if (typeof ${src} === "object") { ${assign(`new util.LongBits(${src}.low >>> 0, ${src}.high >>> 0).toNumber(${unsigned ? 'true' : ''})`)} }`;
      case 'bytes':
        return `if (typeof ${src} === "string") { let b; util.base64.decode(${src}, b = util.newBuffer(util.base64.length(${src})), 0); ${assign('b')} } `
          + `else if (${src}.length >= 0) { ${assign(src)} }`;
      case 'string': return assign(`String(${src})`);
      case 'bool': return assign(`Boolean(${src})`);
      default: throw new Error(`protobufjs-rustwriter: no conversion for ${field.type} (${field.fullName})`);
    }
  }

  /**
   * The checks converter.js makes around a singular field's conversion: `d.f != null` (not for an
   * enum), and in protobufjs 8 a field without presence left unset at its type's default.
   * @param {object} f Facts
   * @param {string} body The conversion
   * @param {Scope} scope Scope
   * @returns {string} Code
   */
  function singularChecks(f, body, scope) {
    const { field, D } = f;
    const implicit = obj.implicitDefaults && !field.hasPresence && !field.repeated && !field.map
      && (f.isEnum || wire.basic[field.type] !== undefined);
    let code = body;
    if (implicit) {
      let check;
      if (f.isEnum) {
        const td = JSON.stringify(field.typeDefault);
        check = `${D} !== ${td} && (typeof ${D} !== "string" || ${scope.constant(field.resolvedType)}.values[${D}] !== ${td})`;
      } else if (field.type === 'string') check = `typeof ${D} !== "string" || ${D}.length`;
      else if (field.type === 'bytes') check = `${D}.length`;
      else if (field.type === 'bool') check = D;
      else if (field.type === 'double' || field.type === 'float') check = `!Object.is(Number(${D}), 0)`;
      else if (LONG.has(field.type)) check = `typeof ${D} === "object" ? ${D}.low || ${D}.high : Number(${D}) !== 0`;
      else check = `Number(${D}) !== 0`;
      code = `if (${check}) { ${code} }`;
    }
    return f.isEnum ? code : `if (${D} != null) { ${code} }`;
  }

  /**
   * The encoder's presence check of a singular scalar or enum field on the value fromObject set
   * (`h`, set: `s`), or null where it writes the field whatever it holds (a required one).
   * @param {object} f Facts
   * @param {string} h Value
   * @param {string} s Whether fromObject set it
   * @returns {string|null} Condition
   */
  function presence(f, h, s) {
    const { field, type } = f;
    if (enc.presence === 'whenSet') return field.optional ? `${s} && ${h} != null` : null;
    if (field.required) return null;
    const set = `${s} && ${h} != null`;
    if (field.hasPresence) return set;
    if (f.isEnum) return `${set} && ${h} !== ${JSON.stringify(field.typeDefault)}`;
    switch (type) {
      case 'bool': return `${set} && ${h} !== false`;
      case 'string': return `${set} && ${h} !== ""`;
      case 'bytes': return set; // `&& h.length`, an encoder's read: bytesIfLength
      case 'double': case 'float': return `${set} && !Object.is(${h}, 0)`;
      default:
        return LONG.has(type) ? `${set} && (typeof ${h} === "object" ? ${h}.low || ${h}.high : ${h} !== 0)` : `${set} && ${h} !== 0`;
    }
  }

  /**
   * The statement writing a scalar value with its tag: `w.uint32(tag).<type>(value)`.
   * @param {object} f Facts
   * @param {string} value Expression
   * @param {number} tag Tag
   * @param {boolean} [implicitBytes] A `bytes` field under protobufjs 8's check of its length
   * @returns {string} Code
   */
  function writeScalar(f, value, tag, implicitBytes) {
    if (f.type === 'bytes') return `p = srt.${implicitBytes ? 'bytesIfLength' : 'bytes'}(w, p, ${tag}, ${value});`;
    const write = `p = ${WRITER_OF[f.type]}(w, p, ${tag}, ${value});`;
    return rawValue(f) ? `try { ${write} } catch (err) { throw deferred(err); }` : write;
  }

  /**
   * Whether fromObject may give a field whatever its last read returned (an enum's unknown number,
   * a 64-bit number without `util.Long`: `m.f=d.f`, a read of its own, which a getter may answer
   * with anything, a BigInt too), which the encoder may then reject: writing it is guarded (an error
   * of writing, deferred).
   * @param {object} f Facts
   * @returns {boolean} Whether
   */
  function rawValue(f) {
    return f.isEnum || LONG.has(f.type);
  }

  /**
   * The encoder's writing of a singular scalar or enum field from what fromObject set.
   * @param {object} f Facts
   * @param {string} h Value
   * @param {string} s Whether set
   * @param {function(string[]): string[]} [wrap] Around the writing (`fused`)
   * @returns {string[]} Lines
   */
  function emitSingular(f, h, s, wrap = (lines) => lines) {
    const cond = presence(f, h, s);
    if (cond === null) return ['{', ...indent(wrap([writeScalar(f, `(${s} ? ${h} : unit.D0${f.prop})`, f.tag)])), '}'];
    const implicitBytes = f.type === 'bytes' && enc.presence !== 'whenSet' && !f.field.hasPresence;
    return [`if (${cond}) {`, ...indent(wrap([writeScalar(f, h, f.tag, implicitBytes)])), '}'];
  }

  /**
   * The encoder's writing of a repeated scalar or enum field from the array fromObject built.
   * @param {object} f Facts
   * @param {string} a The array (not null)
   * @returns {string} Code
   */
  function emitArray(f, a) {
    const packedTag = (f.field.id << 3 | 2) >>> 0;
    if (f.field.packed && wire.packed[f.type] !== undefined) {
      return enc.packed === 'methods'
        ? `if (${a}.length) p = packedMethod(w, p, packed.${f.type}, ${packedTag}, ${a});`
        : `if (${a}.length) p = packedElements(w, p, ${WRITER_OF[f.type]}, ${packedTag}, ${a});`;
    }
    const write = f.type === 'bytes' ? 'srt.bytes' : WRITER_OF[f.type];
    return `if (${a}.length) p = repeated(w, p, ${write}, ${f.tag}, ${a});`;
  }

  /**
   * A map key as the encoder writes it, from `Object.keys` of fromObject's map object.
   * @param {object} field Field
   * @param {string} k Key expression
   * @returns {string} Expression
   */
  function mapKey(field, k) {
    if (enc.mapKeys !== 'fromKey') return k;
    if (field.keyType === 'bool') return `util.boolFromKey(${k})`;
    if (LONG.has(field.keyType)) return `util.longFromKey(${k}, ${field.keyType === 'uint64' || field.keyType === 'fixed64'})`;
    return k;
  }

  /**
   * The encoder's writing of a map field from the object fromObject built (`m`: its message
   * values are messages, written by their Types' `encode`).
   * @param {object} f Facts
   * @param {string} m The map object
   * @returns {string[]} Lines
   */
  function emitMap(f, m) {
    const { field } = f;
    const keyTag = 8 | wire.mapKey[field.keyType];
    const entryTag = (field.id << 3 | 2) >>> 0;
    const key = mapKey(field, 'key');
    const value = f.message !== null
      ? `p = messageEntry(w, p, ${entryTag}, ${WRITER_OF[field.keyType]}, ${keyTag}, ${key}, ${f.unit}, ${m}[key], q + 1);`
      : `p = entry(w, p, ${entryTag}, ${WRITER_OF[field.keyType]}, ${keyTag}, ${key}, ${f.type === 'bytes' ? 'srt.bytes' : WRITER_OF[f.type]}, ${16 | f.wireType}, ${m}[key]);`;
    return [`for (let keys = Object.keys(${m}), j = 0; j < keys.length; ++j) { const key = keys[j]; ${value} }`];
  }

  /**
   * The encoder's writing of a field from `m`, an object holding what fromObject assigned (its own
   * properties; messages made by their Types' own `fromObject`).
   * @param {object} f Facts
   * @param {string} m The object
   * @returns {string[]} Lines
   */
  function emitFrom(f, m) {
    const { field } = f;
    const v = `${m}${f.prop}`;
    const own = `Object.prototype.hasOwnProperty.call(${m}, ${f.name})`;
    if (field.map) return [`if (${v}) {`, ...indent(emitMap(f, v)), '}'];
    if (field.repeated && f.message !== null) {
      return [`if (${v}) for (let j = 0; j < ${v}.length; ++j) p = element(${f.unit}, ${v}[j], w, p, q + 1, ${f.tag}, ${f.end});`];
    }
    if (field.repeated) return [`if (${v}) { ${emitArray(f, v)} }`];
    if (f.message !== null) {
      return field.required && !field.optional
        ? [`p = element(${f.unit}, ${own} ? ${v} : unit.D0${f.prop}, w, p, q + 1, ${f.tag}, ${f.end});`]
        : [`if (${own}) p = element(${f.unit}, ${v}, w, p, q + 1, ${f.tag}, ${f.end});`];
    }
    return emitSingular(f, v, own);
  }

  /**
   * converter.js's statements for one field, converting into `target` (what fromObject assigns as
   * `m%s`), messages by their Type's own `fromObject`; `set` runs where fromObject assigns the field
   * (its array or map object made, or its value converted).
   * @param {object} f Facts
   * @param {string} target The field's place (`m.name`, or a local)
   * @param {string} set A statement, or ''
   * @param {Scope} scope Scope
   * @returns {string[]} Lines
   */
  function convertInto(f, target, set, scope) {
    const { field, D } = f;
    const message = (src, assign) => `if (!util.isObject(${src})) throw TypeError(${f.objectExpected}); `
      + assign(`${f.unit}.type.fromObject(${src}, q + 1)`);
    if (field.map) {
      const value = (x) => `${target}[ks[i]] = ${x};`;
      return [
        `if (${D}) {`,
        `  if (!util.isObject(${D})) throw TypeError(${f.objectExpected});`,
        `  ${target} = {};${set ? ` ${set}` : ''}`,
        `  for (ks = Object.keys(${D}), i = 0; i < ks.length; ++i) {`,
        `    if (ks[i] === "__proto__") util.makeProp(${target}, ks[i]);`,
        `    ${f.message !== null ? message(`${D}[ks[i]]`, value) : convertValue(f, `${D}[ks[i]]`, value)}`,
        '  }',
        '  i = -1; ks = null;',
        '}',
      ];
    }
    if (field.repeated) {
      const push = f.isEnum && v8;
      const value = push ? (x) => `${target}[${target}.length] = ${x};` : (x) => `${target}[i] = ${x};`;
      return [
        `if (${D}) {`,
        `  if (!Array.isArray(${D})) throw TypeError(${f.arrayExpected});`,
        `  ${target} = ${v8 && !f.isEnum ? `Array(${D}.length)` : '[]'};${set ? ` ${set}` : ''}`,
        `  for (i = 0; i < ${D}.length; ++i) { ${f.message !== null ? message(`${D}[i]`, value) : convertValue(f, `${D}[i]`, value)} }`,
        '  i = -1;',
        '}',
      ];
    }
    const assign = (x) => `${target} = ${x};${set ? ` ${set}` : ''}`;
    if (f.message !== null) return [`if (${D} != null) { ${message(D, assign)} }`];
    return [singularChecks(f, convertValue(f, D, assign), scope)];
  }

  /**
   * The rest of a repeated or map field's conversion after element `i`, into nothing.
   * @param {object} f Facts
   * @returns {string[]} Lines
   */
  function continueField(f) {
    const { field, D } = f;
    const drop = () => '';
    const message = (src) => `if (!util.isObject(${src})) throw TypeError(${f.objectExpected}); ${f.unit}.type.fromObject(${src}, q + 1);`;
    if (field.map) {
      const src = `${D}[ks[i]]`;
      return [`for (i = i + 1; i < ks.length; ++i) { ${f.message !== null ? message(src) : convertValue(f, src, drop)} }`];
    }
    const src = `${D}[i]`;
    return [`for (i = i + 1; i < ${D}.length; ++i) { ${f.message !== null ? message(src) : convertValue(f, src, drop)} }`];
  }

  /**
   * A nested message written by its Type's serializer where fromObject converts it.
   * @param {object} f Facts
   * @param {string} src The plain object expression
   * @returns {string} Code
   */
  function nested(f, src) {
    if (!f.group) return `p = ${f.unit}.ser(${src}, w, p, q + 1, ${f.tag});`;
    return `p = uint32(w, p, 0, ${f.tag}); p = ${f.unit}.ser(${src}, w, p, q + 1, 0); p = uint32(w, p, 0, ${f.end});`;
  }

  /**
   * A field converted and written where fromObject converts it (its bytes' place in field number
   * order is then). `wrap(lines)` surrounds what writes its bytes, past fromObject's checks of it
   * (so that a field not set costs nothing more): where its bytes may have to move (`source`).
   * @param {object} f Facts
   * @param {Scope} scope Scope
   * @param {function(string[]): string[]} [wrap] Around the writing
   * @returns {string[]} Lines
   */
  function fused(f, scope, wrap = (lines) => lines) {
    const { field, D } = f;
    if (field.map) {
      const keyTag = 8 | wire.mapKey[field.keyType];
      const entryTag = (field.id << 3 | 2) >>> 0;
      const key = mapKey(field, 'ks[i]');
      const writeKey = WRITER_OF[field.keyType];
      let body;
      if (f.message !== null) {
        body = [
          `if (!util.isObject(${D}[ks[i]])) throw TypeError(${f.objectExpected});`,
          `p = open(w, p, ${entryTag}); const at = p - 1 - heldStart(w), from = mark(w), added = addedMark(w);`,
          `p = ${writeKey}(w, p, ${keyTag}, ${key}); p = ${f.unit}.ser(${D}[ks[i]], w, p, q + 1, 18);`,
          'p = close(w, p, at, from, added);',
        ];
      } else {
        // The entry spelled out: entry()'s calls through its arguments see every map's types.
        const writeValue = f.type === 'bytes' ? 'srt.bytes' : WRITER_OF[f.type];
        const value = `p = ${writeValue}(w, p, ${16 | f.wireType}, h);`;
        body = [
          `let h, s = false; ${convertValue(f, `${D}[ks[i]]`, (x) => `h = ${x}; s = true;`)}`,
          'if (s || ks[i] === "__proto__") {',
          `  p = open(w, p, ${entryTag}); const at = p - 1 - heldStart(w), from = mark(w), added = addedMark(w);`,
          `  p = ${writeKey}(w, p, ${keyTag}, ${key}); ${rawValue(f) ? `try { ${value} } catch (err) { throw deferred(err); }` : value}`,
          '  p = close(w, p, at, from, added);',
          '}',
        ];
      }
      return [
        `if (${D}) {`,
        `  if (!util.isObject(${D})) throw TypeError(${f.objectExpected});`,
        `  ks = Object.keys(${D});`,
        ...indent(wrap([
          `if (!canonical(ks)) { p = unit.exotic(${scope.position}, d, w, p, q, ks); }`,
          'else {',
          '  for (i = 0; i < ks.length; ++i) {',
          ...indent(body, '    '),
          '  }',
          '}',
        ])),
        '  i = -1; ks = null;',
        '}',
      ];
    }
    if (field.repeated && f.message !== null) {
      const lines = [
        `if (${D}) {`,
        `  if (!Array.isArray(${D})) throw TypeError(${f.arrayExpected});`,
      ];
      if (v8) lines.push(`  const n = ${D}.length, length = arrayLength(n);`);
      const loop = [
        `for (i = 0; i < ${D}.length; ++i) {`,
        `  if (!util.isObject(${D}[i])) throw TypeError(${f.objectExpected});`,
        `  ${nested(f, `${D}[i]`)}`,
        '}',
        'const done = i; i = -1;',
      ];
      if (v8) loop.push(`if (done < length) p = trailing(${f.unit}, n, done, w, p, q + 1, ${f.tag}, ${f.end});`);
      lines.push(...indent(wrap(loop)), '}');
      return lines;
    }
    if (field.repeated) {
      const push = f.isEnum && v8;
      const value = push ? (x) => `a[a.length] = ${x};` : (x) => `a[i] = ${x};`;
      return [
        `if (${D}) {`,
        `  if (!Array.isArray(${D})) throw TypeError(${f.arrayExpected});`,
        `  const a = ${v8 && !f.isEnum ? `Array(${D}.length)` : '[]'};`,
        `  for (i = 0; i < ${D}.length; ++i) { ${convertValue(f, `${D}[i]`, value)} }`,
        '  i = -1;',
        ...indent(wrap([emitArray(f, 'a')])),
        '}',
      ];
    }
    if (f.message !== null) {
      const lines = [`if (${D} != null) {`, `  if (!util.isObject(${D})) throw TypeError(${f.objectExpected});`,
        ...indent(wrap([nested(f, D)])), '}'];
      if (field.required && !field.optional) {
        lines[lines.length - 1] = '} else {';
        lines.push(...indent(wrap([`p = element(${f.unit}, unit.D0${f.prop}, w, p, q + 1, ${f.tag}, ${f.end});`])), '}');
      }
      return lines;
    }
    return [
      `{ let h, s = false; ${singularChecks(f, convertValue(f, D, (x) => `h = ${x}; s = true;`), scope)}`,
      ...indent(emitSingular(f, 'h', 's', wrap)),
      '}',
    ];
  }

  /**
   * Whether a field's code can throw a deferred writing error (lib/serializers/runtime.js): any but
   * a singular scalar that is not `bytes` or 64-bit (`rawValue`).
   * @param {object} field Field
   * @returns {boolean} Whether
   */
  function mayDefer(field) {
    return field.map || field.repeated || field.resolvedType instanceof Type || field.type === 'bytes'
      || field.resolvedType instanceof Enum || LONG.has(field.type);
  }

  /**
   * @typedef {object} Scope What a function's code refers to: `child(type)` the local of a nested
   * Type's serializer unit, `constant(value)` the local of a value, and the position of the field
   * being generated. `unit.D0` is the object whose properties are the Type's defaults (its
   * constructor's prototype's: what the encoder reads of a field fromObject did not set).
   */

  /**
   * @param {function(object): object} unitOf The serializer unit of a Type
   * @returns {{scope: Scope, units: object[], constants: Array, header: function(): string[]}} A scope
   */
  function newScope(unitOf) {
    const units = [];
    const constants = [];
    const unitLocals = new Map();
    const scope = {
      position: -1,
      child(type) {
        const unit = unitOf(type);
        let local = unitLocals.get(unit);
        if (local === undefined) {
          local = `U${units.push(unit) - 1}`;
          unitLocals.set(unit, local);
        }
        return local;
      },
      constant(value) {
        let k = constants.indexOf(value);
        if (k < 0) k = constants.push(value) - 1;
        return `K${k}`;
      },
    };
    const header = () => [
      '\'use strict\';',
      `const { ${RT.join(', ')} } = rt;`,
      `const { ${SRT.join(', ')} } = srt;`,
      units.length > 0 ? `const [${units.map((_u, i) => `U${i}`).join(', ')}] = units;` : '',
      constants.length > 0 ? `const [${constants.map((_c, i) => `K${i}`).join(', ')}] = constants;` : '',
    ];
    return { scope, units, constants, header };
  }

  return {
    plan,

    /**
     * The source of a Type's function, for `new Function('rt', 'srt', 'util', 'unit', 'units',
     * 'constants', source)`, which returns it.
     * @param {object} type Type
     * @param {function(object): object} unitOf The serializer unit of a nested Type
     * @param {number} id The function's number (unique in the process)
     * @param {Function} C The constructor fromObject tests and makes (protobufjs 8's captured one)
     * @returns {{source: string, size: number, units: object[], constants: Array, moved: number}}
     * Source, the characters of its field code, what it refers to, and how many fields may move
     */
    source(type, unitOf, id, C) {
      const { scope, units, constants, header } = newScope(unitOf);
      const { fields, before, movable } = plan(type);
      const all = fields.map((field) => facts(field, scope));
      const defer = fields.some(mayDefer);
      const loops = fields.some((f) => f.map || f.repeated);
      const body = [];
      all.forEach((f, j) => {
        scope.position = j;
        if (defer && mayDefer(f.field)) body.push(`k = ${j};`);
        const later = before[j];
        if (later.length === 0 && !movable.has(j)) {
          body.push(...fused(f, scope));
          return;
        }
        const own = movable.has(j);
        // Around the writing only, so that a field not set costs nothing more. Where its bytes start,
        // and which written field with a higher number is first in the bytes (mv_: apart from the
        // field code's names).
        const wrap = (code) => {
          const lines = ['const mv_a = p - heldStart(w), mv_ea = mark(w);'];
          if (later.length > 0) {
            lines.push(`let mv_x = -1, mv_ex = 0; ${later.map((k) => `if (mv_x < 0 && st${k} >= 0) { mv_x = st${k}; mv_ex = en${k}; }`).join(' ')}`,
              // place() moves one side's entries: where those fields hold some, this one is written apart.
              'let mv_main = null, mv_pm = 0; if (mv_x >= 0 && mv_ex !== mv_ea) { const s = scratch(); mv_main = w; mv_pm = p; w = s.w; p = s.p; }');
          }
          lines.push(...code);
          if (later.length > 0) lines.push('if (mv_main !== null) { p = unscratch(w, p, mv_main, mv_pm); w = mv_main; }');
          const moved = [
            'place(w, mv_x, mv_ex, mv_a, mv_ea, p); const mv_n = p - heldStart(w) - mv_a, mv_e = mark(w) - mv_ea;',
            ...later.map((k) => `if (st${k} >= 0) { st${k} += mv_n; en${k} += mv_e; }`),
            ...(own ? [`st${j} = mv_x; en${j} = mv_ex;`] : []),
          ];
          if (later.length > 0) {
            lines.push('if (p - heldStart(w) > mv_a) {', '  if (mv_x >= 0) {', ...indent(moved, '    '), `  }${own ? ` else { st${j} = mv_a; en${j} = mv_ea; }` : ''}`, '}');
          } else {
            lines.push(`if (p - heldStart(w) > mv_a) { st${j} = mv_a; en${j} = mv_ea; }`);
          }
          return ['{', ...indent(lines), '}'];
        };
        body.push(...fused(f, scope, wrap));
      });
      const name = type.name.replace(/\W/g, '_');
      const fullName = JSON.stringify(`${type.fullName}: object expected`);
      const ctor = obj.ctor === 'live' ? 'C' : scope.constant(C);
      const emptySection = 'if (tag !== 0) { p = open(w, p, tag); p = close(w, p, p - 1 - heldStart(w), mark(w), addedMark(w)); } return p;';
      const preamble = [
        ...(obj.ctor === 'live' ? ['const C = unit.type.ctor;'] : []),
        `if ((unit.type.fromObject !== unit.compiledFrom || unit.type.encode !== unit.okEncode${obj.ctor === 'live' ? ' || C !== unit.C' : ''}) && !ready(unit)) return unit.other(d, w, p, q, tag);`,
        `if (d instanceof ${ctor}) return instance(unit, d, w, p, q, tag);`,
      ];
      // protobufjs 7's fromObject makes an empty message before checking the depth; its encoder checks it.
      if (fields.length === 0 && obj.emptyFirst) preamble.push('if (q > util.recursionLimit) throw new Deferred(Error("max depth exceeded"));', emptySection);
      preamble.push(
        `if (!util.isObject(d)) throw TypeError(${fullName});`,
        `if (q > util.recursionLimit) throw Error(${JSON.stringify(obj.depthMessage)});`,
      );
      if (fields.length === 0 && !obj.emptyFirst) preamble.push(emptySection);
      const locals = [];
      if (loops || defer) locals.push('let i = -1, ks = null;');
      if (defer) locals.push('let k = -1;');
      if (movable.size > 0) locals.push(`let ${[...movable].sort((x, y) => x - y).map((j) => `st${j} = -1, en${j} = 0`).join(', ')};`);
      const lines = [
        ...header(),
        `return function ser_${name}_${id}(d, w, p, q, tag) {`,
        `  // ${type.fullName}: protobufjs ${obj.converter} fromObject, ${enc.encoder} encoder (protobufjs-rustwriter serializer ${id})`,
        ...indent(preamble),
        '  let at = 0, from = 0, added = 0;',
        '  if (tag !== 0) { p = open(w, p, tag); at = p - 1 - heldStart(w); from = mark(w); added = addedMark(w); }',
        ...indent(locals),
        ...(defer ? [
          '  try {',
          ...indent(body, '    '),
          '  } catch (err) {',
          // The first error writing would meet in field number order: this one, unless a field read
          // after it with a lower number would meet one.
          `    if (err instanceof Deferred) { const m = unit.rest(d, q, k, i, ks);${movable.size > 0 ? ' const e = unit.lower(m, k, q); if (e !== null) throw new Deferred(e);' : ''} }`,
          '    throw err;',
          '  }',
        ] : indent(body)),
        '  return tag === 0 ? p : close(w, p, at, from, added);',
        '};',
      ];
      return { source: lines.join('\n'), size: sizeOf(body), units, constants, moved: movable.size };
    },

    /**
     * The source of a Type's conversions after a writing error, and of its maps whose keys are not in
     * the order of an object's (`canonical`): for `new Function('rt', 'srt', 'util', 'unit', 'units',
     * 'constants', source)`, which returns `{ rest(d, q, k, i, ks), exotic(k, d, w, p, q, ks),
     * lower(m, k, q) }`.
     * `rest` runs what fromObject converts after field `k` (of its elements, those after `i`, if `i`
     * is not -1), making no message but by the nested Types' own `fromObject`, into an object it
     * returns; `lower(m, k, q)` writes what `rest` returned of the fields read after field `k` with
     * a lower number, in a writer of its own, and returns the first error (or null); `exotic`
     * converts map field `k` (its keys `ks` read) into an object as fromObject does and writes its
     * entries.
     * @param {object} type Type
     * @param {function(object): object} unitOf The serializer unit of a nested Type
     * @param {number} id The functions' number
     * @returns {{source: string, units: object[], constants: Array}} Source, and what it refers to
     */
    restSource(type, unitOf, id) {
      const { scope, units, constants, header } = newScope(unitOf);
      const { fields, before } = plan(type);
      const all = fields.map((field) => facts(field, scope));
      const rest = [];
      const exotic = [];
      const lower = [];
      all.forEach((f, j) => {
        scope.position = j;
        rest.push(`if (k < ${j}) {`, ...indent(convertInto(f, `m${f.prop}`, '', scope)), '}');
        if (f.field.map || f.field.repeated) rest.push(`else if (k === ${j} && i >= 0) {`, ...indent(continueField(f)), '}');
        if (f.field.map) {
          const convert = convertInto(f, `m${f.prop}`, '', scope).map((line) => line.replace(`ks = Object.keys(${f.D}), `, ''));
          exotic.push(`case ${j}: {`, '  const m = {}; let i = -1;',
            ...indent(convert.slice(2, -2)), // the object and the loop, with `ks` as read
            ...indent(emitMap(f, `m${f.prop}`)), '  return p;', '}');
        }
        // The fields read after this one with a lower number, in number order.
        const after = all.map((g, k) => k).filter((k) => before[k].includes(j))
          .sort((k1, k2) => fields[k1].id - fields[k2].id);
        if (after.length > 0) {
          lower.push(`case ${j}: {`, '  const s = scratch(); w = s.w; p = s.p;',
            ...indent(after.flatMap((k) => emitFrom(all[k], 'm'))), '  break;', '}');
        }
      });
      const name = type.name.replace(/\W/g, '_');
      const source = [
        ...header(),
        'const { unwrap } = srt;',
        `// ${type.fullName}: protobufjs ${obj.converter} fromObject, ${enc.encoder} encoder (protobufjs-rustwriter serializer ${id}, rest)`,
        'return {',
        `  rest: function rest_${name}_${id}(d, q, k, i, ks) {`,
        '    const m = {};',
        ...indent(rest, '    '),
        '    return m;',
        '  },',
        `  exotic: function exotic_${name}_${id}(k, d, w, p, q, ks) {`,
        '    switch (k) {',
        ...indent(exotic, '      '),
        '      default: throw new Error("protobufjs-rustwriter: no map field at " + k);',
        '    }',
        '  },',
        `  lower: function lower_${name}_${id}(m, k, q) {`,
        '    let w = null, p = 0;',
        '    try {',
        '      switch (k) {',
        ...indent(lower, '        '),
        '        default:',
        '      }',
        '    } catch (err) {',
        '      return unwrap(err);',
        '    }',
        '    return null;',
        '  },',
        '};',
      ].join('\n');
      return { source, units, constants };
    },
  };
}

module.exports = { generator, WRITER_OF };
