'use strict';

/**
 * The source of a compiled encoder: one function per protobufjs Type, `write(m, w, p, q, tag)`,
 * which writes a message's fields into a held writer from position `p` and returns the position
 * after them. It does what protobufjs's generated encoder (its src/encoder.js) does, field for field,
 * in the same shape: a field is protobufjs's presence check, then one call of a helper of
 * lib/encoders/runtime.js that writes its tag and value, where protobufjs's code makes its
 * `w.uint32(tag).<type>(value)` calls. The same checks, property reads in the same order and number
 * (a getter sees what it sees under protobufjs), field order, conversions, `$unknowns` and
 * recursion limit; about the same size (a wide Type's function is within 1.3x protobufjs's encoder
 * for it: `node bench/probes/code-size.js`). A small Type (`settings.inlineMax`) spells its scalars
 * and strings out (lib/encoders/inline.js) and writes small nested Types in place, larger code that
 * measured faster there.
 *
 * A nested message is written by its own Type's function, called with the field's tag: that
 * function opens the section itself, and first checks that its Type's `encode` is still the
 * compiler's (else it calls that `encode`, as protobufjs's code calls `types[i].encode`). So a
 * Type's function holds no code of another Type: a parent compiled once calls whatever its nested
 * Types' functions are now, and a function stays about as large as protobufjs's encoder for the same
 * Type. V8 inlines a small nested Type's function where it is called.
 *
 * A Type with many fields is written in parts (`PART_MAX`): V8 optimizes no function of more than
 * 61,440 bytes of bytecode (`--max-optimized-bytecode-size`), and generated code takes ~0.8 bytes of
 * bytecode a character.
 */

const settings = require('../writer/settings');
const inlined = require('./inline');

const { LOCALS, RELOAD, SPELLED, valueCode, packedCode, room, writeTag } = inlined;
/** What generated code calls, from runtime.js: by every function, and by the spelled-out statements
 * of lib/encoders/inline.js too. */
const HELPERS = ['heldStart', 'mark', 'addedMark', 'openWide', 'closeWide', 'nestedVia', 'group', 'via', 'unknowns', 'packed',
  'uint32', 'int32', 'sint32', 'bool', 'fixed32', 'float', 'double', 'uint64', 'sint64', 'fixed64', 'string', 'bytes'];
const INLINE_HELPERS = [...new Set([...HELPERS, ...inlined.HELPERS])];

/**
 * The body of a small Type's function (its fields spelled out, the region's buffer in locals): as a
 * nested message, its section closed in place where it is short (runtime.js `closeWide` otherwise).
 * @param {string[]} calls Its fields' statements
 * @returns {string[]} Lines
 */
function inlineFrame(calls) {
  return [
    `  ${LOCALS}`,
    '  const nested = tag !== 0;',
    '  let at = 0, width = 0, from = 0, added = 0;',
    '  if (nested) {',
    '    if (unit.type.encode !== unit.own) return nestedVia(unit.type, m, w, p, q, tag);',
    `    width = unit.width; p = openWide(w, p, tag, width); ${RELOAD}`,
    '    at = p - width - heldStart(w); from = mark(w); added = addedMark(w); ++q;',
    '  }',
    '  if (q > util.recursionLimit) throw Error("max depth exceeded");',
    ...indent(calls),
    '  if (nested) {',
    '    const len = p - heldStart(w) - at - 1;',
    '    if (width === 1 && len < 128 && mark(w) === from) buf[heldStart(w) + at] = len;',
    '    else p = closeWide(w, p, at, width, from, added, unit);',
    '  }',
    '  return p;',
  ];
}

/**
 * Nested Types' code a small Type's function writes in place (`inlined`): each nested Type's fields
 * while they are at most `INLINE_CHILD_MAX` characters, at most `INLINE_TOTAL` characters in all, and
 * at most `SCHEMA_INLINE_MAX` in all of a copy's functions (the bound of what a wide schema's code
 * grows by it); a field takes at least `FIELD_MIN` characters. In place, a nested message costs no
 * call and no reload of the locals after it: against 3,000 and 8,000, the budgets took the tile
 * 0.94x the time, the ~80-byte message 0.98x, the catalog 0.97x, the stream 0.95x (`node
 * bench/probes/ab.js`, 12 pairs), and Temporal's message, Firestore's and TestAllTypesProto3 the same.
 */
const INLINE_CHILD_MAX = 8000;
const INLINE_TOTAL = 24000;
const FIELD_MIN = 60;
const SCHEMA_INLINE_MAX = 256 * 1024;

/** Characters of field code in one function: ~30,000 bytes of bytecode, half V8's limit. */
const PART_MAX = 36000;

/** The runtime helper that writes a scalar, string or bytes value of each type. */
const WRITER_OF = {
  double: 'double', float: 'float', int32: 'int32', uint32: 'uint32', sint32: 'sint32', fixed32: 'fixed32',
  sfixed32: 'fixed32', int64: 'uint64', uint64: 'uint64', sint64: 'sint64', fixed64: 'fixed64', sfixed64: 'fixed64',
  bool: 'bool', string: 'string', bytes: 'bytes',
};
/** Scalars written as 64-bit values. */
const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/**
 * @param {string[]} lines Lines of code
 * @returns {number} Their characters, newlines included
 */
function sizeOf(lines) {
  return lines.reduce((sum, line) => sum + line.length + 1, 0);
}

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
 * @param {import('./rules').Rules} rules The rules of its encoder.js
 * @returns {{source: Function}} Generator: `source(type, unitOf, units, id)`
 */
function generator(protobuf, rules) {
  const { util, types: wire, Enum } = protobuf;
  /** Characters of nested Types' code the copy's functions may still write in place. */
  let schemaInlineLeft = SCHEMA_INLINE_MAX;

  /**
   * The presence check protobufjs's encoder.js makes before writing a singular field, or null where
   * it writes the field unconditionally (a required one).
   * @param {object} field Field
   * @param {boolean} isEnum Whether its type is an enum
   * @param {string} type Its scalar type (`int32` for an enum), or message type name
   * @param {string} ref Its property expression
   * @param {string} name Its name as a JS string literal
   * @returns {string|null} Condition
   */
  function presence(field, isEnum, type, ref, name) {
    const set = `${ref} != null && Object.hasOwnProperty.call(m, ${name})`;
    if (rules.presence === 'whenSet') return field.optional ? set : null;
    if (field.required) return null;
    if (field.hasPresence || !(isEnum || wire.basic[type] !== undefined)) return set;
    if (isEnum) return `${set} && ${ref} !== ${JSON.stringify(field.typeDefault)}`;
    switch (type) {
      case 'bool': return `${set} && ${ref} !== false`;
      case 'string': return `${set} && ${ref} !== ""`;
      case 'bytes': return `${set} && ${ref}.length`;
      case 'double': case 'float': return `${set} && !Object.is(${ref}, 0)`;
      default:
        return LONG.has(type)
          ? `${set} && (typeof ${ref} === "object" ? ${ref}.low || ${ref}.high : ${ref} !== 0)`
          : `${set} && ${ref} !== 0`;
    }
  }

  /**
   * The statements of a nested Type's fields, to write its messages in place in the function being
   * generated, or null where they are not (see `INLINE_CHILD_MAX`): it is the function's own Type or
   * one inlined around this code (a recursive Type), or over the budget.
   * @param {object} nested The nested message's Type
   * @param {Scope} scope The function's scope
   * @param {object[]} stack As for `fieldsCode`
   * @returns {string[]|null} Lines
   */
  function inlined(nested, scope, stack) {
    const most = Math.min(INLINE_CHILD_MAX, scope.inlineLeft);
    if (stack.includes(nested) || nested.fieldsArray.length * FIELD_MIN > most) return null;
    // Decided on the nested Type's own code before generating it with the code it inlines in turn,
    // which then takes what is left: trying every nested Type of a deep schema would generate code
    // for every path through it.
    const own = ownSize(nested, scope);
    if (own > most) return null;
    const left = scope.inlineLeft;
    scope.inlineLeft = most - own;
    const body = fieldsCode(nested.fieldsArray, scope, [...stack, nested]).flat();
    scope.inlineLeft = left - sizeOf(body);
    return body;
  }

  /** The characters of a Type's fields' code written in place without nested Types' code, by Type,
   * while its fields are those (`inlined`'s estimate). */
  const ownSizes = new WeakMap();

  /**
   * @param {object} type A Type
   * @param {Scope} scope A function's scope (its units are appended to, as by any code generated in it)
   * @returns {number} The characters of `type`'s fields' code written in place, without nested Types' code
   */
  function ownSize(type, scope) {
    const known = ownSizes.get(type);
    if (known !== undefined && known.fields === type.fieldsArray) return known.size;
    const left = scope.inlineLeft;
    const refs = scope.save();
    scope.inlineLeft = 0;
    const size = sizeOf(fieldsCode(type.fieldsArray, scope, [type]).flat());
    scope.inlineLeft = left;
    scope.restore(refs);
    ownSizes.set(type, { fields: type.fieldsArray, size });
    return size;
  }

  /**
   * The statements that write a message's fields, as protobufjs's encoder.js writes them.
   * @param {object[]} fieldsArray The Type's fields
   * @param {Scope} scope What the function's code refers to, and how it is written
   * @param {object[]} stack The Types whose fields this code writes (the function's, and those whose
   * code is inlined around this code)
   * @returns {string[][]} The statements of each field (and of `$unknowns`), in order
   */
  function fieldsCode(fieldsArray, scope, stack) {
    const { inline } = scope;
    /** A helper's call; in place, the locals reloaded after it. */
    const call = (statement) => (inline ? `{ ${statement} ${RELOAD} }` : statement);
    /** A scalar's or string's tag and value. */
    const value = (type, ref, tag) => (inline && SPELLED.has(type)
      ? valueCode(type, ref, tag)
      : call(`p = ${WRITER_OF[type]}(w, p, ${tag}, ${ref});`));
    /** protobufjs's `types[i].encode(value, w.uint32(tag).fork(), q + 1).ldelim()`, or for a group
     * `types[i].encode(value, w.uint32(tag), q + 1).uint32(endTag)`. */
    const message = (nested, ref, tag, isGroup) => {
      const unit = scope.child(nested);
      if (isGroup) return call(`p = group(${unit}, ${ref}, w, p, q, ${tag});`);
      const body = inline ? inlined(nested, scope, stack) : null;
      if (body === null) return call(`p = ${unit}.write(${ref}, w, p, q, ${tag});`);
      return [
        `{ const v = ${ref};`,
        `  if (${unit}.type.encode === ${unit}.own && ${unit}.fields === ${scope.constant(nested.fieldsArray)}) {`,
        `    const width = ${unit}.width; ${room(`5 + width`)} ${writeTag(tag)}`,
        '    const at = p - heldStart(w), from = mark(w), added = addedMark(w); p += width;',
        '    { const m = v, q_ = q + 1; { const q = q_;',
        '      if (q > util.recursionLimit) throw Error("max depth exceeded");',
        ...indent(body, '      '),
        '    } }',
        '    const len = p - heldStart(w) - at - 1;',
        `    if (width === 1 && len < 128 && mark(w) === from) buf[heldStart(w) + at] = len; else { p = closeWide(w, p, at, width, from, added, ${unit}); ${RELOAD} }`,
        `  } else { p = ${unit}.write(v, w, p, q, ${tag}); ${RELOAD} }`,
        '}',
      ].join('\n');
    };
    /** A section around `body` (a map entry, or a packed field in protobufjs 7's encoder), which
     * learns its placeholder's width as a nested message's does (runtime.js `closeWide`). */
    const section = (tag, body) => {
      const site = scope.constant({ width: 1 });
      if (inline) {
        // Spelled out, as a nested message's section written in place: the catalog's map entries took
        // 0.92x the time (Node 26, `ab.js`).
        return [
          `const width = ${site}.width; ${room('5 + width')} ${writeTag(tag)}`,
          'const at = p - heldStart(w), from = mark(w), added = addedMark(w); p += width;',
          ...body,
          'const len = p - heldStart(w) - at - 1;',
          `if (width === 1 && len < 128 && mark(w) === from) buf[heldStart(w) + at] = len; else { p = closeWide(w, p, at, width, from, added, ${site}); ${RELOAD} }`,
        ];
      }
      return [
        `const width = ${site}.width; p = openWide(w, p, ${tag}, width);`,
        'const at = p - width - heldStart(w), from = mark(w), added = addedMark(w);',
        ...body,
        `p = closeWide(w, p, at, width, from, added, ${site});`,
      ];
    };

    const statements = fieldsArray.slice().sort(util.compareFieldsById).map((f) => {
      const field = f.resolve();
      const isEnum = field.resolvedType instanceof Enum;
      const type = isEnum ? 'int32' : field.type;
      const wireType = wire.basic[type];
      const ref = `m${util.safeProp(field.name)}`;
      const name = JSON.stringify(field.name);
      const nested = wireType === undefined ? field.resolvedType : null;
      const tag = (field.id << 3 | (wireType === undefined ? (field.delimited ? 3 : 2) : wireType)) >>> 0;
      if (field.map) {
        let key = 'ks[i]';
        if (rules.mapKeys === 'fromKey' && field.keyType === 'bool') key = 'util.boolFromKey(ks[i])';
        else if (rules.mapKeys === 'fromKey' && LONG.has(field.keyType)) {
          // util.longFromKey returns a key as it is unless it is a hash of 8 characters: only those need
          // its two regular expressions.
          key = `(ks[i].length !== 8 ? ks[i] : util.longFromKey(ks[i], ${field.keyType === 'uint64' || field.keyType === 'fixed64'}))`;
        }
        const entry = section((field.id << 3 | 2) >>> 0, [
          value(field.keyType, key, 8 | wire.mapKey[field.keyType]),
          nested !== null ? message(nested, `${ref}[ks[i]]`, 18, false) : value(type, `${ref}[ks[i]]`, 16 | wireType),
        ]);
        return [
          `if (${ref} != null && Object.hasOwnProperty.call(m, ${name})) {`,
          `  for (let ks = Object.keys(${ref}), i = 0; i < ks.length; ++i) {`,
          ...indent(entry, '    '),
          '  }',
          '}',
        ];
      }
      if (field.repeated) {
        let body;
        if (nested !== null) {
          body = [`for (let i = 0; i < ${ref}.length; ++i) ${message(nested, `${ref}[i]`, tag, field.delimited)}`];
        } else if (field.packed && wire.packed[type] !== undefined) {
          const packedTag = (field.id << 3 | 2) >>> 0;
          body = rules.packed === 'methods'
            ? (inline ? packedCode(type, ref, packedTag) : [`p = packed.${type}(w, p, ${packedTag}, ${ref});`])
            : section(packedTag, [`for (let i = 0; i < ${ref}.length; ++i) ${value(type, `${ref}[i]`, 0)}`]);
        } else {
          body = [`for (let i = 0; i < ${ref}.length; ++i) ${value(type, `${ref}[i]`, tag)}`];
        }
        return [`if (${ref} != null && ${ref}.length) {`, ...indent(body), '}'];
      }
      const write = nested !== null ? message(nested, ref, tag, field.delimited) : value(type, ref, tag);
      const condition = presence(field, isEnum, type, ref, name);
      return condition === null ? [write] : [`if (${condition}) ${write}`];
    });
    if (rules.unknowns) {
      statements.push([`if (m.$unknowns != null && Object.hasOwnProperty.call(m, "$unknowns")) ${call('p = unknowns(m, w, p);')}`]);
    }
    return statements;
  }

  /**
   * Statements in parts of at most `PART_MAX` characters.
   * @param {string[][]} statements Each field's statements
   * @returns {string[][]} Parts, each a list of lines
   */
  function partsOf(statements) {
    const parts = [[]];
    let size = 0;
    for (const lines of statements) {
      const n = sizeOf(lines);
      if (size > 0 && size + n > PART_MAX) {
        parts.push([]);
        size = 0;
      }
      parts[parts.length - 1].push(...lines);
      size += n;
    }
    return parts;
  }

  return {
    /**
     * The source of a Type's function, for `new Function('rt', 'util', 'unit', 'units', 'constants',
     * source)`, which returns it: `write(m, w, p, q, tag)` writes message `m` at depth `q` (of the
     * enclosing message, if `tag` is not 0) from `p`; with a `tag`, as a nested message (its tag, then
     * a section), after checking that its Type's `encode` is the compiler's (`unit.own`).
     * @param {object} type Type
     * @param {function(object): object} unitOf The unit of a nested Type
     * @param {object[]} units The units the function refers to (filled)
     * @param {number} id The function's number (unique in the process)
     * @returns {{source: string, size: number, constants: object[]}} Source, the characters of its
     * field code, and the constants it refers to (nested Types' fields as inlined, sections' widths)
     */
    source(type, unitOf, units, id) {
      const unitLocals = new Map();
      const constants = [];
      /**
       * @typedef {object} Scope What a function's code refers to (its units and constants, as
       * locals: `child`, `constant`, and `save`/`restore` around code only measured), how it writes
       * scalars and strings (`inline`: in place, else by calls), and how many characters of nested
       * Types' code it may still inline (`inlineLeft`).
       * @type {Scope}
       */
      const scope = {
        inline: settings.inlineMax > 0,
        inlineLeft: 0,
        child(nested) {
          const unit = unitOf(nested);
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
          return `C${k}`;
        },
        /** @returns {number[]} How many units and constants the code refers to so far */
        save: () => [units.length, constants.length],
        /** Forgets the units and constants referred to since `save` (code generated only to be measured). */
        restore([unitCount, constantCount]) {
          for (const unit of units.splice(unitCount)) unitLocals.delete(unit);
          constants.length = constantCount;
        },
      };
      const generate = () => {
        units.length = 0;
        unitLocals.clear();
        constants.length = 0;
        const statements = fieldsCode(type.fieldsArray, scope, [type]);
        return [statements, statements.reduce((sum, lines) => sum + sizeOf(lines), 0)];
      };
      // First without nested Types' code: its size decides whether scalars are written in place, and
      // how much nested code it may take.
      let [statements, size] = generate();
      if (scope.inline && size > settings.inlineMax) {
        scope.inline = false;
        [statements, size] = generate();
      } else if (scope.inline && units.length > 0 && schemaInlineLeft > 0) {
        const allowed = Math.min(INLINE_TOTAL, schemaInlineLeft);
        scope.inlineLeft = allowed;
        [statements, size] = generate();
        schemaInlineLeft -= allowed - scope.inlineLeft;
      }
      const inline = scope.inline;
      // A small Type's code (within settings.inlineMax) is always one part.
      const parts = inline ? [statements.flat()] : partsOf(statements);
      const name = type.name.replace(/\W/g, '_');
      const calls = parts.length === 1 ? parts[0] : parts.map((_part, k) => `p = part${k}(m, w, p, q);`);
      const frame = inline ? inlineFrame(calls) : [
        '  let at = 0, width = 0, from = 0, added = 0;',
        '  if (tag !== 0) {',
        '    if (unit.type.encode !== unit.own) return nestedVia(unit.type, m, w, p, q, tag);',
        '    width = unit.width;',
        '    p = openWide(w, p, tag, width); at = p - width - heldStart(w); from = mark(w); added = addedMark(w); ++q;',
        '  }',
        '  if (q > util.recursionLimit) throw Error("max depth exceeded");',
        ...indent(calls),
        '  return tag === 0 ? p : closeWide(w, p, at, width, from, added, unit);',
      ];
      const partFunctions = parts.length === 1 ? [] : parts.flatMap((part, k) => [
        `function part${k}(m, w, p, q) {`, ...indent(part), '  return p;', '}',
      ]);
      const body = [...partFunctions, ...frame].join('\n');
      const lines = [
        '\'use strict\';',
        `const { ${(inline ? INLINE_HELPERS : HELPERS).filter((helper) => new RegExp(`\\b${helper}\\b`).test(body)).join(', ')} } = rt;`,
        units.length > 0 ? `const [${units.map((_u, i) => `U${i}`).join(', ')}] = units;` : '',
        constants.length > 0 ? `const [${constants.map((_c, i) => `C${i}`).join(', ')}] = constants;` : '',
        ...partFunctions,
        `return function write_${name}_${id}(m, w, p, q, tag) {`,
        `  // ${type.fullName}: protobufjs ${rules.encoder} rules (protobufjs-rustwriter encoder ${id})`,
        ...frame,
        '};',
      ];
      return { source: lines.join('\n'), size, constants };
    },
  };
}

module.exports = { generator, sizeOf, PART_MAX };
