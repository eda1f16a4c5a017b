'use strict';

/**
 * Random protobuf schemas, as descriptions (plain JSON data, drawn from a seeded generator), and
 * the two ways a description becomes a protobufjs Root: `.proto` text for `protobuf.parse`
 * ({@link toProto}), or calls to protobufjs's reflection API ({@link buildReflect}), which also
 * allows field names no `.proto` can spell.
 *
 * A schema is `{ syntax, build, keepCase, resolveAll, fileFeatures, enums, types, extensions }`:
 * - `syntax`: `proto2`, `proto3` or `2023` (`edition = "2023"`; protobufjs 8.8.1 resolves its
 *   features; 7.6.6 parses it and applies what it applies: the reference is its own encoder);
 * - `build`: `parse` or `reflect` (reflection types are proto2 in both versions: explicit presence);
 * - `keepCase`: parse option (else protobufjs camel-cases field names); `resolveAll`: whether
 *   `root.resolveAll()` runs before the first encode (as `protobuf.load` does; 7.6.6 without it
 *   leaves packed and group encodings unresolved, which is its own behaviour, fuzzed as well);
 * - `fileFeatures` (2023): file-wide `field_presence` and `repeated_field_encoding`;
 * - `enums`: `{ name, values: [[name, number]], alias, closed }`, all in package `fz`;
 * - `types`: `{ name, parent, group, fields, oneofs }`: full names (`fz.T0`, `fz.T0.N1`), a nested
 *   type's `parent`, `group` for the body of a proto2 group field (declared inline by it);
 * - `extensions` (proto2, parsed): `{ target, scope, field }`, a field of type `target` declared in
 *   an `extend` block at file scope (`scope` null) or inside type `scope`.
 *
 * A field is `{ id, name, kind, type, keyType, label, packed, dflt, presence, expanded,
 * delimited, oneof, valueKind, proto3Optional }`: `kind` `scalar`, `enum`, `message`, `group`
 * (proto2 group) or `map` (`valueKind` `scalar`, `enum` or `message`);
 * `type` a scalar name or a full type/enum name (the map's value type for maps); `label`
 * `required`, `optional`, `repeated` or `''` (proto3 implicit presence, map, oneof member,
 * 2023's unlabelled); `packed` an explicit `[packed=…]`; `dflt` an explicit `[default=…]`
 * (`{ v }`, the value as JSON, enums by name); for 2023 `presence` (`EXPLICIT`, `IMPLICIT`,
 * `LEGACY_REQUIRED`), `expanded` (`repeated_field_encoding = EXPANDED`), `delimited`
 * (`message_encoding = DELIMITED`); `oneof` its oneof's name; `proto3Optional` for proto3's
 * `optional`.
 */

const PKG = 'fz';

const SCALARS = ['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64',
  'sfixed32', 'sfixed64', 'bool', 'string', 'bytes'];
const KEY_TYPES = ['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32',
  'sfixed64', 'bool', 'string'];
const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
/** Types a packed encoding applies to (protobufjs `types.packed`, plus enums). */
const PACKABLE = new Set(SCALARS.filter((t) => t !== 'string' && t !== 'bytes'));

/** JS reserved words protobufjs's `util.safeProp` quotes (a `.proto` may use them as field names). */
const RESERVED = ['default', 'in', 'new', 'delete', 'class', 'function', 'var', 'return', 'this', 'typeof', 'void',
  'with', 'yield', 'enum', 'let', 'static', 'null', 'true', 'false', 'do', 'if', 'for', 'switch', 'case', 'package',
  'instanceof', 'arguments', 'eval', 'import', 'export'];
/** Field names only the reflection API can give: safeProp quotes them (`m["a-b"]`). */
const ODD_NAMES = ['a-b', 'with space', 'quote"d', 'back\\slash', 'ünï', 'dollar$', '_', 'tab\tx', 'dot·mid',
  'emoji😀', 'new line\n'];

/**
 * A generated schema.
 * @param {function(): number} rng Seeded generator (tools/seeded.js `prng`)
 * @param {object} [o] `syntax`, `build` to force them
 * @returns {object} Schema description
 */
function generateSchema(rng, o = {}) {
  const syntax = o.syntax || pick(rng, ['proto2', 'proto2', 'proto3', 'proto3', 'proto3', '2023', '2023']);
  const build = o.build || (syntax === 'proto2' && rng() < 0.3 ? 'reflect' : 'parse');
  const schema = {
    syntax, build,
    keepCase: build === 'parse' && rng() < 0.5,
    resolveAll: rng() < 0.6,
    fileFeatures: null,
    enums: [],
    types: [],
    extensions: [],
  };
  if (syntax === '2023' && rng() < 0.4) {
    schema.fileFeatures = {
      presence: rng() < 0.6 ? 'IMPLICIT' : 'EXPLICIT',
      expanded: rng() < 0.3,
    };
  }
  const nEnums = rng.int(4);
  const open = schema.fileFeatures !== null && schema.fileFeatures.presence === 'IMPLICIT';
  for (let e = 0; e < nEnums; e++) schema.enums.push(makeEnum(rng, `E${e}`, syntax, open));
  const nTypes = 1 + rng.int(rng() < 0.2 ? 8 : 4);
  for (let t = 0; t < nTypes; t++) {
    const nested = t > 0 && rng() < 0.25;
    const parent = nested ? schema.types[rng.int(schema.types.length)].name : null;
    schema.types.push({ name: parent ? `${parent}.N${t}` : `${PKG}.T${t}`, parent, group: false, fields: [], oneofs: [] });
  }
  // Fields last: any type may refer to any other, itself included (recursion).
  for (const type of schema.types.slice()) fillType(rng, schema, type);
  if (syntax === 'proto2' && build === 'parse' && rng() < 0.35) addExtensions(rng, schema);
  return schema;
}

/**
 * proto2 extensions: fields declared by `extend` (at file scope or inside another message) that
 * protobufjs adds to the extended type under their full name (`.fz.ext_0_100`, `.fz.T1.ext_1_7`),
 * which `util.safeProp` must quote; the extended type declares their numbers with `extensions`.
 * @param {function(): number} rng Generator
 * @param {object} schema Schema (gets `extensions`: `{ target, scope, field }`)
 * @returns {undefined}
 */
function addExtensions(rng, schema) {
  const messages = schema.types.filter((t) => !t.group);
  const n = 1 + rng.int(3);
  for (let k = 0; k < n; k++) {
    const target = pick(rng, messages);
    const extended = schema.extensions.filter((e) => e.target === target.name).map((e) => e.field.id);
    const ids = new Set([...target.fields.map((f) => f.id), ...extended]);
    const id = fieldId(rng, ids);
    const x = rng();
    const kind = x < 0.65 || (x < 0.8 && !schema.enums.length) ? 'scalar' : x < 0.8 ? 'enum' : 'message';
    const type = kind === 'scalar' ? pick(rng, SCALARS) : kind === 'enum' ? pick(rng, schema.enums).name : pick(rng, messages).name;
    const field = { id, name: `ext_${k}_${id}`, kind, type, label: rng() < 0.3 ? 'repeated' : 'optional' };
    if (field.label === 'repeated' && kind !== 'message' && PACKABLE.has(type) && rng() < 0.5) field.packed = rng() < 0.6;
    schema.extensions.push({ target: target.name, scope: rng() < 0.3 ? pick(rng, messages).name : null, field });
  }
}

/**
 * @param {function(): number} rng Generator
 * @param {string} name Short name
 * @param {string} syntax Syntax
 * @param {boolean} open Whether it must be open (2023 with implicit presence file-wide)
 * @returns {object} Enum description: values with negatives, extremes and (with `alias`) aliases
 */
function makeEnum(rng, name, syntax, open) {
  const closed = syntax === '2023' ? !open && rng() < 0.3 : syntax === 'proto2';
  // proto3 and open enums start at 0; proto2 ones may start anywhere.
  const first = syntax === 'proto2' && rng() < 0.4 ? pick(rng, [-1, 1, -2147483648, 5]) : 0;
  const values = [[`${name}_V0`, first]];
  const alias = rng() < 0.3;
  const n = 1 + rng.int(5);
  for (let i = 1; i <= n; i++) {
    const v = alias && rng() < 0.3 ? pick(rng, values)[1]
      : pick(rng, [1, 2, 3, -1, -7, 127, 128, 2147483647, -2147483648, 300, rng.int(100000) - 50000]);
    if (!alias && values.some((x) => x[1] === v)) continue;
    values.push([`${name}_V${i}`, v]);
  }
  return { name: `${PKG}.${name}`, values, alias: new Set(values.map((x) => x[1])).size < values.length, closed };
}

/**
 * Adds fields (and oneofs, and the group bodies it declares) to a type.
 * @param {function(): number} rng Generator
 * @param {object} schema Schema (gets group types)
 * @param {object} type Type
 * @returns {undefined}
 */
function fillType(rng, schema, type) {
  const n = rng() < 0.1 ? 0 : 1 + rng.int(rng() < 0.3 ? 14 : 6);
  const ids = new Set();
  const names = new Set();
  for (let i = 0; i < n; i++) {
    const field = makeField(rng, schema, type, ids, names, type.group);
    if (field !== null) type.fields.push(field);
  }
  // Oneofs over some of the singular, unlabelled-or-optional, non-map fields (not in a group's
  // body: protobufjs's parser takes neither oneofs there nor, in 7.x, maps).
  if (!type.group && rng() < 0.4) {
    const candidates = type.fields.filter((f) => f.kind !== 'map' && f.kind !== 'group' && f.label !== 'repeated' &&
      f.label !== 'required' && f.presence !== 'LEGACY_REQUIRED' && f.presence !== 'IMPLICIT' && !f.delimited &&
      f.dflt === undefined && !f.proto3Optional);
    const k = Math.min(candidates.length, 1 + rng.int(3));
    if (k > 0) {
      const name = `choice${type.oneofs.length}`;
      const members = shuffle(rng, candidates).slice(0, k);
      for (const f of members) {
        f.oneof = name;
        f.label = '';
        delete f.presence;
      }
      type.oneofs.push({ name, ids: members.map((f) => f.id) });
    }
  }
  // Declaration order is not field-number order.
  type.fields = shuffle(rng, type.fields);
}

/**
 * A field number: small, around the varint length edges of the tag, or up to 2^29 − 1, never in
 * 19000–19999 (reserved by protobuf).
 * @param {function(): number} rng Generator
 * @param {Set<number>} ids Used
 * @returns {number} Id
 */
function fieldId(rng, ids) {
  for (;;) {
    const x = rng();
    let id;
    if (x < 0.55) id = 1 + rng.int(15);
    else if (x < 0.7) id = 16 + rng.int(100);
    else if (x < 0.9) id = pick(rng, [15, 16, 2047, 2048, 262143, 262144, 33554431, 33554432, 536870911, 536870910]);
    else id = 1 + rng.int(536870911);
    if (id >= 19000 && id <= 19999) continue;
    if (!ids.has(id)) {
      ids.add(id);
      return id;
    }
  }
}

/**
 * A field name: identifiers, reserved words, snake_case (camel-cased unless `keepCase`), and for
 * reflection-built schemas names with characters no identifier has.
 * @param {function(): number} rng Generator
 * @param {object} schema Schema
 * @param {number} id Field number (makes names unique)
 * @param {Set<string>} names Used (raw and camel-cased)
 * @returns {string} Name
 */
function fieldName(rng, schema, id, names) {
  for (let tries = 0; ; tries++) {
    const x = rng();
    let name;
    if (x < 0.15 && tries < 3) name = pick(rng, RESERVED);
    else if (x < 0.25 && schema.build === 'reflect' && tries < 3) name = pick(rng, ODD_NAMES);
    else if (x < 0.5) name = `${pick(rng, ['value', 'the_field', 'x', 'some_long_name', 'a_b_c', 'item'])}_${id}`;
    else name = `f${id}${pick(rng, ['', '', 'x', '_y', 'Z'])}`;
    const camel = name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
    if (!names.has(name) && !names.has(camel) && !names.has(name.toLowerCase())) {
      names.add(name);
      names.add(camel);
      names.add(name.toLowerCase());
      return name;
    }
  }
}

/**
 * One field of `type`, valid for the schema's syntax.
 * @param {function(): number} rng Generator
 * @param {object} schema Schema
 * @param {object} type Type
 * @param {Set<number>} ids Used numbers
 * @param {Set<string>} names Used names
 * @param {boolean} inGroup Whether `type` is a group's body (no nested groups there)
 * @returns {object|null} Field
 */
function makeField(rng, schema, type, ids, names, inGroup) {
  const { syntax } = schema;
  const id = fieldId(rng, ids);
  const messages = schema.types.filter((t) => !t.group);
  const x = rng();
  let kind;
  if (x < 0.5) kind = 'scalar';
  else if (x < 0.6) kind = schema.enums.length ? 'enum' : 'scalar';
  else if (x < 0.78) kind = 'message';
  else if (x < 0.92) kind = inGroup ? 'message' : 'map';
  else kind = syntax === 'proto2' && !inGroup && schema.build === 'parse' ? 'group' : 'message';
  const field = { id, name: null, kind, type: null, label: '' };
  if (kind === 'scalar') field.type = pick(rng, SCALARS);
  else if (kind === 'enum') field.type = pick(rng, schema.enums).name;
  else if (kind === 'message') field.type = pick(rng, messages).name;
  else if (kind === 'map') {
    field.keyType = pick(rng, KEY_TYPES);
    const v = rng();
    field.valueKind = v < 0.6 ? 'scalar' : v < 0.75 && schema.enums.length ? 'enum' : 'message';
    field.type = field.valueKind === 'scalar' ? pick(rng, SCALARS)
      : field.valueKind === 'enum' ? pick(rng, schema.enums).name : pick(rng, messages).name;
  }
  if (kind === 'group') {
    const groupName = `Grp${id}`;
    field.name = `grp${id}`;
    field.type = `${type.name}.${groupName}`;
    field.label = rng() < 0.5 ? 'repeated' : 'optional';
    const body = { name: field.type, parent: type.name, group: true, fields: [], oneofs: [] };
    schema.types.push(body);
    fillType(rng, schema, body);
    names.add(field.name);
    return field;
  }
  field.name = fieldName(rng, schema, id, names);
  if (kind === 'map') return field;
  const repeated = rng() < 0.3;
  if (syntax === 'proto2') {
    field.label = repeated ? 'repeated' : kind === 'message' || rng() < 0.85 ? 'optional' : 'required';
  } else if (syntax === 'proto3') {
    field.label = repeated ? 'repeated' : kind !== 'message' && rng() < 0.3 ? 'optional' : '';
    if (field.label === 'optional') field.proto3Optional = true;
  } else {
    field.label = repeated ? 'repeated' : '';
    if (!repeated) {
      const p = rng();
      if (kind === 'message') {
        if (p < 0.3) field.delimited = true;
      } else if (p < 0.15) field.presence = 'LEGACY_REQUIRED';
      else if (p < 0.4 && !(kind === 'enum' && schema.enums.find((e) => e.name === field.type).closed)) {
        field.presence = 'IMPLICIT';
      } else if (p < 0.6) field.presence = 'EXPLICIT';
    } else if (kind === 'message' && rng() < 0.3) field.delimited = true;
  }
  if (repeated && (kind === 'enum' || PACKABLE.has(field.type))) {
    const p = rng();
    if (syntax === '2023') {
      if (p < 0.3) field.expanded = true;
      else if (p < 0.4) field.expanded = false;
    } else if (p < 0.35) field.packed = true;
    else if (p < 0.6) field.packed = false;
  }
  const explicit = syntax === 'proto2' ? field.label === 'optional' || field.label === 'required'
    : syntax === '2023' && !repeated && field.presence !== 'IMPLICIT' &&
      !(schema.fileFeatures && schema.fileFeatures.presence === 'IMPLICIT' && field.presence === undefined);
  if (explicit && kind !== 'message' && rng() < 0.3) field.dflt = defaultFor(rng, schema, field);
  return field;
}

/**
 * An explicit default for a field (proto2, 2023 explicit presence).
 * @param {function(): number} rng Generator
 * @param {object} schema Schema
 * @param {object} field Field
 * @returns {{v: *}} Value as JSON (`inf`, `-inf`, `nan` for floats as strings; enums by name)
 */
function defaultFor(rng, schema, field) {
  if (field.kind === 'enum') return { v: pick(rng, schema.enums.find((e) => e.name === field.type).values)[0] };
  switch (field.type) {
    case 'bool': return { v: rng() < 0.5 };
    case 'string': return { v: pick(rng, ['x', 'héllo', 'tab\there', 'quote"s', '']) };
    case 'bytes': return { v: pick(rng, ['ab', '', 'xyz']) };
    case 'double': case 'float': return { v: pick(rng, [1.5, -2, 0, 'inf', '-inf', 'nan', 1e10]) };
    case 'int32': case 'sint32': case 'sfixed32': return { v: pick(rng, [-1, 7, 2147483647, -2147483648]) };
    case 'uint32': case 'fixed32': return { v: pick(rng, [1, 4294967295]) };
    case 'uint64': case 'fixed64': return { v: pick(rng, [3, 9007199254740991]) };
    default: return { v: pick(rng, [-5, 9007199254740991, -9007199254740991]) };
  }
}

/**
 * @param {function(): number} rng Generator
 * @param {Array} list List
 * @returns {*} One element
 */
function pick(rng, list) {
  return list[Math.floor(rng() * list.length)];
}

/**
 * @param {function(): number} rng Generator
 * @param {Array} list List
 * @returns {Array} A shuffled copy
 */
function shuffle(rng, list) {
  const out = list.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The schema as `.proto` text (build `parse`), every type reference fully qualified.
 * @param {object} schema Schema
 * @returns {string} Text
 */
function toProto(schema) {
  const lines = [];
  lines.push(schema.syntax === '2023' ? 'edition = "2023";' : `syntax = "${schema.syntax}";`);
  lines.push(`package ${PKG};`);
  if (schema.fileFeatures) {
    lines.push(`option features.field_presence = ${schema.fileFeatures.presence};`);
    if (schema.fileFeatures.expanded) lines.push('option features.repeated_field_encoding = EXPANDED;');
  }
  for (const e of schema.enums) lines.push(...enumText(schema, e, ''));
  for (const t of schema.types) if (t.parent === null) lines.push(...typeText(schema, t, ''));
  lines.push(...extendText(schema, null, ''));
  return `${lines.join('\n')}\n`;
}

/**
 * @param {object} schema Schema
 * @param {object} e Enum
 * @param {string} indent Indentation
 * @returns {string[]} Lines
 */
function enumText(schema, e, indent) {
  const lines = [`${indent}enum ${short(e.name)} {`];
  if (e.alias) lines.push(`${indent}  option allow_alias = true;`);
  if (schema.syntax === '2023') lines.push(`${indent}  option features.enum_type = ${e.closed ? 'CLOSED' : 'OPEN'};`);
  for (const [name, v] of e.values) lines.push(`${indent}  ${name} = ${v};`);
  lines.push(`${indent}}`);
  return lines;
}

/**
 * @param {object} schema Schema
 * @param {object} t Type (not a group body)
 * @param {string} indent Indentation
 * @returns {string[]} Lines
 */
function typeText(schema, t, indent) {
  const lines = [`${indent}message ${short(t.name)} {`];
  lines.push(...bodyText(schema, t, `${indent}  `));
  lines.push(`${indent}}`);
  return lines;
}

/**
 * The inside of a message or group: fields, oneofs, nested types.
 * @param {object} schema Schema
 * @param {object} t Type
 * @param {string} indent Indentation
 * @returns {string[]} Lines
 */
function bodyText(schema, t, indent) {
  const lines = [];
  const done = new Set();
  for (const f of t.fields) {
    if (f.oneof) {
      if (done.has(f.oneof)) continue;
      done.add(f.oneof);
      lines.push(`${indent}oneof ${f.oneof} {`);
      for (const m of t.fields.filter((x) => x.oneof === f.oneof)) lines.push(...fieldText(schema, m, `${indent}  `));
      lines.push(`${indent}}`);
    } else {
      lines.push(...fieldText(schema, f, indent));
    }
  }
  for (const n of schema.types) if (n.parent === t.name && !n.group) lines.push(...typeText(schema, n, indent));
  const ranges = (schema.extensions || []).filter((e) => e.target === t.name).map((e) => e.field.id);
  if (ranges.length) lines.push(`${indent}extensions ${ranges.join(', ')};`);
  lines.push(...extendText(schema, t.name, indent));
  return lines;
}

/**
 * The `extend` blocks declared in a scope.
 * @param {object} schema Schema
 * @param {string|null} scope Type declaring them, or null for the file
 * @param {string} indent Indentation
 * @returns {string[]} Lines
 */
function extendText(schema, scope, indent) {
  const lines = [];
  for (const e of (schema.extensions || []).filter((x) => x.scope === scope)) {
    lines.push(`${indent}extend .${e.target} {`, ...fieldText(schema, e.field, `${indent}  `), `${indent}}`);
  }
  return lines;
}

/**
 * @param {object} schema Schema
 * @param {object} f Field
 * @param {string} indent Indentation
 * @returns {string[]} Lines
 */
function fieldText(schema, f, indent) {
  if (f.kind === 'group') {
    const body = schema.types.find((t) => t.name === f.type);
    return [`${indent}${f.label} group ${short(f.type)} = ${f.id} {`, ...bodyText(schema, body, `${indent}  `), `${indent}}`];
  }
  const ref = (name) => (SCALARS.includes(name) ? name : `.${name}`);
  const options = [];
  if (f.packed !== undefined) options.push(`packed = ${f.packed}`);
  if (f.dflt !== undefined) options.push(`default = ${defaultText(schema, f)}`);
  if (f.presence) options.push(`features.field_presence = ${f.presence}`);
  if (f.expanded !== undefined) options.push(`features.repeated_field_encoding = ${f.expanded ? 'EXPANDED' : 'PACKED'}`);
  if (f.delimited) options.push('features.message_encoding = DELIMITED');
  const opts = options.length ? ` [${options.join(', ')}]` : '';
  const type = f.kind === 'map' ? `map<${f.keyType}, ${ref(f.type)}>` : ref(f.type);
  return [`${indent}${f.label ? `${f.label} ` : ''}${type} ${f.name} = ${f.id}${opts};`];
}

/**
 * @param {object} schema Schema
 * @param {object} f Field with `dflt`
 * @returns {string} The default as `.proto` text
 */
function defaultText(schema, f) {
  const v = f.dflt.v;
  if (f.kind === 'enum' || typeof v === 'boolean') return String(v);
  if (f.type === 'string' || f.type === 'bytes') return JSON.stringify(v);
  return String(v);
}

/**
 * @param {string} full Full name
 * @returns {string} The last part
 */
function short(full) {
  return full.slice(full.lastIndexOf('.') + 1);
}

/**
 * Builds the schema with protobufjs's reflection API (Type, Field, MapField, OneOf, Enum), as
 * code does that never sees a `.proto`. Standalone: the repro scripts carry its source.
 * @param {object} protobuf The protobufjs module
 * @param {object} schema Schema (build `reflect`: proto2 semantics, no groups)
 * @returns {object} Root
 */
function buildReflect(protobuf, schema) {
  const root = new protobuf.Root();
  const pkg = root.define('fz');
  const made = new Map();
  const shortName = (full) => full.slice(full.lastIndexOf('.') + 1);
  for (const e of schema.enums) {
    const en = new protobuf.Enum(shortName(e.name), {}, e.alias ? { allow_alias: true } : undefined);
    for (const [name, v] of e.values) en.add(name, v);
    pkg.add(en);
  }
  for (const t of schema.types) {
    const type = new protobuf.Type(shortName(t.name));
    made.set(t.name, type);
    (t.parent === null ? pkg : made.get(t.parent)).add(type);
  }
  for (const t of schema.types) {
    const type = made.get(t.name);
    const ref = (name) => (name.includes('.') ? `.${name}` : name);
    for (const f of t.fields) {
      const options = {};
      if (f.packed !== undefined) options.packed = f.packed;
      if (f.dflt !== undefined) options.default = f.dflt.v;
      const opts = Object.keys(options).length ? options : undefined;
      const field = f.kind === 'map'
        ? new protobuf.MapField(f.name, f.id, f.keyType, ref(f.type), opts)
        : new protobuf.Field(f.name, f.id, ref(f.type), f.label === 'repeated' || f.label === 'required' ? f.label : 'optional', undefined, opts);
      type.add(field);
    }
    for (const o of t.oneofs) {
      type.add(new protobuf.OneOf(o.name, t.fields.filter((f) => o.ids.includes(f.id)).map((f) => f.name)));
    }
  }
  return root;
}

/**
 * A fresh Root for the schema, built as the schema says.
 * @param {object} protobuf The protobufjs module
 * @param {object} schema Schema
 * @returns {object} Root
 */
function buildRoot(protobuf, schema) {
  const root = schema.build === 'reflect'
    ? buildReflect(protobuf, schema)
    : protobuf.parse(toProto(schema), new protobuf.Root(), { keepCase: schema.keepCase }).root;
  if (schema.resolveAll) root.resolveAll();
  return root;
}

module.exports = {
  generateSchema, toProto, buildReflect, buildRoot, SCALARS, KEY_TYPES, LONG_TYPES, PACKABLE, PKG, pick, shuffle,
};
