'use strict';

/**
 * Encoders compiled for RustWriter, one per protobufjs Type, in place of the one protobufjs generates.
 *
 * protobufjs's generated encoder (its src/encoder.js) calls the Writer API for every field:
 * `w.uint32(tag).int32(m.x)`, `types[i].encode(m.sub, w.uint32(tag).fork(), q + 1).ldelim()`, each
 * call loading and storing the writer's position. A compiled encoder does what that code does, field
 * for field (the same presence checks, property reads in the same order, field order, conversions,
 * `$unknowns`, recursion limit), but writes the bytes itself, into the writer's region at a position
 * of its own, as a held write (lib/writer/region.js; what the generated code calls is
 * lib/encoders/runtime.js): varints and fixed-size values inline, short ASCII strings inline and
 * others through the writer's string writer, nested messages as sections with a one-byte length
 * placeholder, a small nested Type's fields inlined. What it does not write itself (`bytes`, long
 * packed fields, `$unknowns`) goes through the writer's own methods.
 *
 * It mirrors the encoder.js of the protobufjs copy it is installed into: protobufjs 8's (proto3
 * implicit presence skips default values, packed fields through `w.<type>s`, map keys through
 * `util.boolFromKey`/`util.longFromKey`, `$unknowns`) or protobufjs 7's (every optional field set is
 * written, packed fields element by element in a fork, map keys as they are). Given any writer that
 * is not a RustWriter (protobufjs's own, or one the shadow check samples), it calls protobufjs's
 * own generated encoder, so that writer sees exactly protobufjs's calls.
 */

const rt = require('./runtime');
const { RustWriter } = require('../writer/writer');
const settings = require('../writer/settings');
const { UTF8_LOOP_MAX } = require('../writer/bytes');
const { hasRegion } = require('../writer/region');

/** The most bytes a scalar's value takes. */
const MAX_BYTES = {
  double: 8, float: 4, int32: 10, uint32: 5, sint32: 5, fixed32: 4, sfixed32: 4,
  int64: 10, uint64: 10, sint64: 10, fixed64: 8, sfixed64: 8, bool: 1,
};
/** Scalars written as 64-bit values. */
const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/**
 * The one thing a writer other than RustWriter may add to be given whole messages rather than the
 * Writer API's calls (the shadow check's checked writers, lib/integration/verify.js): a method
 * under this symbol, which a compiled or cold encoder calls as
 * `w[ENCODE_MESSAGE](type, encode, generated, m, q)`: the message `m` of `type` at depth `q`, with
 * the encoder that writes it into a RustWriter (`encode(m, rustWriter, q)`) and protobufjs's
 * generated one for any other writer (`generated(m, writer, q)`).
 */
const ENCODE_MESSAGE = Symbol.for('protobufjs-rustwriter.encodeMessage');

/** Every compiled `encode` made (`isCompiled`). */
const compiledEncoders = new WeakSet();

/** Why a Type keeps protobufjs's encoder, by Type, while it does (`whyKept`). */
const keptTypes = new WeakMap();

/**
 * @param {*} encode A Type's `encode`
 * @returns {boolean} Whether it is a compiled encoder
 */
function isCompiled(encode) {
  return compiledEncoders.has(encode);
}

/**
 * @param {object} type A Type
 * @returns {string|null} Why its compiler keeps protobufjs's encoder for it (see "Tiers"), or null
 * where it does not (compiled, cold, or never seen)
 */
function whyKept(type) {
  const why = keptTypes.get(type);
  return why !== undefined && why.fields === type.fieldsArray ? why.text : null;
}

/**
 * Tiers. A Type starts on protobufjs's generated encoder, which writes through RustWriter's methods
 * (the Writer API path) and counts its encodes; at its `settings.promoteAfter`-th it is *promoted*:
 * compiled, and its `encode` becomes the compiled encoder. So a Type an app encodes rarely costs
 * nothing to compile and holds no code of its own: on Temporal's 1,061 types, compiling every Type a
 * message could reach, when it was first set up, made its first encode 2.3x protobufjs's and added
 * 40–80 MB (docs/benchmark.md, "What was tried and did not pay").
 *
 * Inlining: a Type's function writes a nested message with its Type's code in place (no call, no
 * reload of the region after it): 12–14% of the ~80-byte and vector-tile cases' time. It takes a
 * nested Type's code when that Type is compiled (or is encoded, while both are cold, at least once
 * every `INLINE_SHARE` encodes of the enclosing Type: it is then compiled with it), when its code is
 * `INLINE_MAX` characters or fewer, while the function's inlined code stays within `INLINE_TOTAL`
 * and the whole function within `FUNCTION_MAX`, and while the copy's encoders have inlined less than
 * `SCHEMA_INLINE_MAX` in all. A recursive Type is never inlined into itself.
 *
 * Size: V8 optimizes no function of more than 61,440 bytes of bytecode
 * (`--max-optimized-bytecode-size`), and generated code takes ~0.8 bytes of bytecode a character
 * (Temporal's HistoryEvent: 44,625 bytes for 55,166 characters, 66,526 for 83,132 with its nested
 * Types inlined, which then ran unoptimized: 0.6–0.8x protobufjs's speed). So a function stays
 * within `FUNCTION_MAX` characters once inlined code is added, and a Type whose own code is over
 * `UNIT_MAX` keeps protobufjs's encoder. Optimized, a function that large still lost: with
 * Temporal's HistoryEvent compiled on its own (55,655 characters, a branch for each of ~60 oneof
 * members), the bench's Temporal message ran at 0.73–0.87x the Writer-API path on Node 20–26
 * (`npm run bench:lines` at 74b2e05) and 0.80–0.84x in two runs on Node 20; with HistoryEvent on
 * protobufjs's encoder, 0.94–1.00x in two runs on Node 20 (`node bench/index.js --node 20 --no-alloc
 * --contenders pbjs8,rust,rust-api --cold none temporal`). Every Type of the bench's other schemas is
 * under 10,000 characters.
 *
 * Kept: a Type keeps protobufjs's encoder, for its fields as they are (`whyKept` says why), when its
 * own code is over `UNIT_MAX`, or when a nested Type that keeps it is encoded at least once every
 * `INLINE_SHARE` encodes of the Type: its compiled code would hand each such message over to
 * protobufjs's code and take the writer back after it (`via`), where protobufjs's code calls it
 * directly. With HistoryEvent kept, and its History and the poll response that holds it compiled,
 * the bench's Temporal message ran at 0.91–0.99x the Writer-API path on Node 20 and 26 (four runs
 * of the command above); kept up to the root, it runs that path's code.
 *
 * Retired: a cold Type encoded only inside other messages stops counting at its `RETIRE_AFTER`-th
 * encode: its `encode` becomes protobufjs's generated encoder itself. Its count only decides whether
 * it is compiled with a Type that holds it, and by then it is known to be hot. While Types count,
 * each nested message protobufjs's code writes goes through one counting function shared by all of
 * them: 7–11% of the Temporal message's CPU profile. A retired Type is still compiled and inlined
 * with a Type that holds it; encoded on its own later, it is not promoted.
 */
const INLINE_MAX = 8000;
const INLINE_TOTAL = 24000;
const FUNCTION_MAX = 48000;
const UNIT_MAX = 32000;
const SCHEMA_INLINE_MAX = 256 * 1024;
const INLINE_SHARE = 4;
const RETIRE_AFTER = 1024;

/**
 * Numbers each generated function's source, so that no two are the same: V8 shares type feedback
 * and compiled code between functions of identical source (docs/benchmark.md, "Timing"), which
 * would make the encoders of two Roots of one schema, or of two copies of this package in one
 * process (nested dependencies, a bundle beside node_modules), slow each other down. So the count is
 * process-wide: every copy of the package in a process (a worker thread is a process of its own
 * here) counts on the one object under this registered symbol on `globalThis`, `{ next: number }`.
 */
const SOURCES = Symbol.for('protobufjs-rustwriter.sources');
const sources = sourceCounter();

/**
 * The process's source counter, made by the first copy of the package that loads.
 * @returns {{next: number}} Counter
 */
function sourceCounter() {
  const shared = globalThis[SOURCES];
  if (shared !== null && typeof shared === 'object' && typeof shared.next === 'number') return shared;
  const own = { next: 0 };
  try {
    Object.defineProperty(globalThis, SOURCES, { value: own });
  } catch {
    // A global object that takes no new property: a start far from any other copy's.
    own.next = Math.floor(Math.random() * 2 ** 40);
  }
  return own;
}

/**
 * @param {number} tag A field's tag (`id << 3 | wire type`)
 * @returns {number[]} Its bytes as a varint
 */
function tagBytes(tag) {
  const bytes = [];
  let v = tag >>> 0;
  while (v > 127) {
    bytes.push((v & 127) | 128);
    v >>>= 7;
  }
  bytes.push(v);
  return bytes;
}

/**
 * The statements that write a tag at `p`, which has room for it.
 * @param {number} tag Tag
 * @returns {string} Code
 */
function writeTag(tag) {
  const bytes = tagBytes(tag);
  return bytes.map((b, i) => `buf[p${i ? ` + ${i}` : ''}] = ${b};`).join(' ') + ` p += ${bytes.length};`;
}

/**
 * The statement that makes room for `n` bytes at `p`.
 * @param {number|string} n Bytes (a number, or an expression)
 * @returns {string} Code
 */
function room(n) {
  return `if (p + ${n} > end) { p = growHeld(w, p, ${n}); ${RELOAD} }`;
}

/** The statement that reloads the region after a helper that may have moved it. */
const RELOAD = 'buf = heldBuffer(w); end = heldEnd(w); base = heldStart(w);';

/** The statements that write `x`, a uint32, as a varint at `p` (lib/writer/varint.js `putVarint32`,
 * spelled out: V8 inlines only so much into one function, and a compiled encoder that inlined its
 * nested messages' code would call it). */
const VARINT_LOOP = 'while (x > 127) { buf[p++] = (x & 127) | 128; x >>>= 7; } buf[p++] = x;';
/** The statements that write `hi:lo`, unsigned words, as a varint at `p` (`putVarint64`, spelled out: a
 * call would also box each word of 2^31 or more into a heap number). */
const VARINT64_LOOP = 'while (hi) { buf[p++] = (lo & 127) | 128; lo = ((lo >>> 7) | (hi << 25)) >>> 0; hi >>>= 7; } '
  + VARINT_LOOP.replace(/\bx\b/g, 'lo');

/**
 * @param {string[]} lines Lines of code
 * @returns {number} Their characters, newlines included
 */
function sizeOf(lines) {
  return lines.reduce((sum, line) => sum + line.length + 1, 0);
}

/**
 * The statements that run `use` with `lo` and `hi`, the two's-complement words of 64-bit value `v`:
 * lib/writer/long.js `longBits`, with its branch for objects (`Long`s, decoded messages' 64-bit
 * fields) spelled out, in its order of checks and reads. Spelled out, its `instanceof String` has
 * this field's feedback, where `longBits`'s own sees every 64-bit field's values (on the vector
 * tile's decoded feature ids `longBits` took 7% of the samples; spelled out, the tile took 0.97–0.99
 * of the time on Node 26 and the same on Node 20: docs/benchmark.md).
 * @param {string} v Expression of the value, evaluated at will (a local)
 * @param {string} use Statements that read and may change `lo` and `hi`, int32 words
 * @returns {string} Code
 */
function withWords(v, use) {
  return `{ let lo, hi; if (typeof ${v} === "object" && ${v} !== null) { `
    + `if (${v} instanceof String) { decimalBits(${v}); lo = BITS[0]; hi = BITS[1]; } `
    + `else if (${v}.low || ${v}.high) { lo = ${v}.low | 0; hi = ${v}.high | 0; } else { lo = 0; hi = 0; } } `
    + `else { longBits(${v}); lo = BITS[0]; hi = BITS[1]; } ${use} }`;
}

/**
 * The statements that write scalar `v` of `type` at `p`, which has room for it: the conversions of
 * RustWriter's methods (lib/writer/writer.js), which are protobuf.js's.
 * @param {string} type Scalar type (an enum is `int32`)
 * @param {string} v Expression of the value, evaluated once (a local)
 * @returns {string} Code
 */
function writeScalar(type, v) {
  switch (type) {
    case 'uint32': return `{ let x = ${v} >>> 0; ${VARINT_LOOP} }`;
    case 'int32': return `{ let x = ${v} | 0; if (x < 0) p = putNegativeInt32(buf, p, x); else { ${VARINT_LOOP} } }`;
    case 'sint32': return `{ let x = ((${v} << 1) ^ (${v} >> 31)) >>> 0; ${VARINT_LOOP} }`;
    case 'bool': return `buf[p++] = ${v} ? 1 : 0;`;
    case 'fixed32': case 'sfixed32': return `p = putFixed32(buf, p, ${v} >>> 0);`;
    case 'float': return `p = putFloat(buf, p, +${v});`;
    case 'double': return `p = putDouble(buf, p, ${v});`;
    case 'uint64': case 'int64': return withWords(v, `lo >>>= 0; hi >>>= 0; ${VARINT64_LOOP}`);
    case 'sint64': return withWords(v, 'p = putZigzag64(buf, p, lo, hi);');
    case 'fixed64': case 'sfixed64': return withWords(v, 'p = putFixed32(buf, p, lo); p = putFixed32(buf, p, hi);');
    default: throw new Error(`protobufjs-rustwriter: no scalar writer for ${type}`);
  }
}

/**
 * The compiler for one protobufjs copy: one unit (a `write(m, w, p, q)` function) per Type, compiled
 * when the Type is promoted, or with a Type whose messages hold it (see "Tiers" above).
 * @param {object} protobuf The protobufjs module
 * @param {import('./rules').Rules} rules The rules of its version's encoder.js, which the encoders
 * mirror (lib/encoders/rules.js)
 * @param {function(object, Error): undefined} failed Called when a Type cannot be compiled (it then
 * keeps protobufjs's encoder)
 * @returns {{encoderFor: function(object, Function): Function}} The compiler
 */
function compiler(protobuf, rules, failed) {
  const { util, types: wire, Enum } = protobuf;
  /**
   * Units by Type:
   * - `type`; `write(m, w, p, q)`, which writes a message's fields at `p` (null until compiled);
   *   `fields`, the Type's `fieldsArray` it was compiled from; `version`, how many times it was
   *   compiled (code that inlined its fields checks it); `size`, the characters of its function's
   *   body (what inlining it would add, at most); `kept`, the `fieldsArray` for which the Type keeps
   *   protobufjs's encoder (its code was over `UNIT_MAX`, or its messages hand a nested Type that
   *   keeps it most of their work: see "Tiers" above), so that it is not generated again;
   *   `compiling`, whether it is being compiled;
   * - `cold`, the Type's counting `encode` (protobufjs's `fallback`), made when protobufjs sets the
   *   Type up; `calls`, the encodes it counted, and `roots`, those that were not of a nested message;
   * - `encode`, the Type's compiled `encode` once promoted, else null;
   * - `own`, the Type's `encode` while that is one of these two (or, retired, `fallback`) and `write`
   *   is current, else null:
   *   compiled code that writes a nested message of the Type calls `write` (or runs its code, inlined)
   *   only while the Type's `encode` is `own`, and otherwise calls the Type's `encode`, as
   *   protobufjs's generated code does (it is not set up yet, its fields changed, or the app replaced
   *   it).
   */
  const units = new WeakMap();
  /** Characters of inlined code the copy's encoders may still take. */
  let inlineLeft = SCHEMA_INLINE_MAX;

  /**
   * The unit of `type` (not compiled yet if it is new).
   * @param {object} type Type
   * @returns {object} Unit
   */
  function unitOf(type) {
    let unit = units.get(type);
    if (unit === undefined) {
      unit = {
        type, write: null, fields: null, kept: null, version: 0, size: 0, compiling: false,
        cold: null, fallback: null, calls: 0, roots: 0, encode: null, own: null,
      };
      units.set(type, unit);
    }
    return unit;
  }

  /**
   * @param {object} unit Unit
   * @returns {boolean} Whether it is compiled from its Type's fields as they are now
   */
  function isCurrent(unit) {
    return unit.write !== null && unit.fields === unit.type.fieldsArray;
  }

  /**
   * Compiles `unit`'s Type's fields into `unit.write`, unless its code would be too large to
   * optimize (`write` is then null).
   * @param {object} unit Unit
   * @returns {boolean} Whether it did
   */
  function compileUnit(unit) {
    const type = unit.type;
    const fieldsArray = type.fieldsArray; // initializes
    if (unit.kept === fieldsArray) return false;
    unit.compiling = true;
    try {
      let children = [];
      // First without inlining: its own size bounds what it may inline.
      let body = bodyCode(fieldsArray, children, { stack: [type], left: 0, calls: unit.calls });
      const own = sizeOf(body);
      const over = own > UNIT_MAX ? null : children.find((child) => handsOver(unit, child));
      if (own > UNIT_MAX || over !== undefined) {
        const text = own > UNIT_MAX
          ? `its code would be ${own} characters, over ${UNIT_MAX}`
          : `its messages hand ${over.type.fullName.replace(/^\./, '')}, which keeps protobufjs's encoder, most of their work`;
        keptTypes.set(type, { fields: fieldsArray, text });
        unit.write = null;
        unit.kept = fieldsArray;
        retire(unit);
        return false;
      }
      const left = Math.min(INLINE_TOTAL, FUNCTION_MAX - own);
      if (left > 0 && children.length > 0) {
        children = [];
        body = bodyCode(fieldsArray, children, { stack: [type], left, calls: unit.calls });
      }
      unit.fields = fieldsArray;
      unit.version += 1;
      unit.size = sizeOf(body);
      const id = ++sources.next;
      const name = `write_${type.name.replace(/\W/g, '_')}_${id}`;
      const source = `'use strict';
const { heldBuffer, heldEnd, heldStart, growHeld, mark, addedMark, fixup, closeSection, via, putString } = rt;
const { longPacked, shortVarints, SHORT, BULK_FLOATS_MIN, loops } = rt;
const { putVarint32, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble, BITS, longBits, decimalBits } = rt;
return function ${name}(m, w, p, q) {
  // ${type.fullName}: protobufjs ${rules.encoder} rules (protobufjs-rustwriter encoder ${id})
  if (q > util.recursionLimit) throw Error("max depth exceeded");
  let buf = heldBuffer(w);
  let end = heldEnd(w);
  let base = heldStart(w);
${body.map((line) => `  ${line}`).join('\n')}
  return p;
};`;
      unit.write = new Function('rt', 'util', 'units', source)(rt, util, children);
      return true;
    } finally {
      unit.compiling = false;
    }
  }

  /**
   * @param {object} unit A unit being compiled
   * @param {object} child The unit of a nested Type its fields hold
   * @returns {boolean} Whether the nested Type keeps protobufjs's encoder and was encoded, while both
   * were cold, at least once every `INLINE_SHARE` encodes of the enclosing Type (with every Type
   * compiled at once, `settings.promoteAfter` 0, nothing is counted: whenever it keeps it)
   */
  function handsOver(unit, child) {
    if (child === unit || child.kept !== child.type.fieldsArray) return false;
    return settings.promoteAfter === 0 || (child.calls > 0 && child.calls * INLINE_SHARE >= unit.calls);
  }

  /**
   * Sets `unit.own` from the Type's `encode` now.
   * @param {object} unit Unit
   * @returns {undefined}
   */
  function settle(unit) {
    const encode = unit.type.encode;
    const ours = encode === unit.cold || encode === unit.encode || encode === unit.fallback;
    unit.own = isCurrent(unit) && ours ? encode : null;
  }

  /**
   * Retires a cold Type: its `encode` becomes protobufjs's generated encoder itself, which counts
   * nothing (see "Tiers" above).
   * @param {object} unit The Type's unit
   * @returns {undefined}
   */
  function retire(unit) {
    if (unit.type.encode !== unit.cold) return; // the app's own, or set up again since
    unit.type.encode = unit.fallback;
    settle(unit);
  }

  /**
   * Promotes a cold Type: compiles it (if its unit is not current) and makes its compiled encoder
   * its `encode`. A Type that cannot be compiled keeps protobufjs's encoder, no longer counted.
   * @param {object} unit The Type's unit, its `encode` `cold`
   * @returns {boolean} Whether the Type's `encode` is its compiled encoder now
   */
  function promote(unit) {
    const type = unit.type;
    if (type.encode !== unit.cold) return false; // the app's own, or set up again since
    try {
      if (isCurrent(unit) || compileUnit(unit)) unit.encode = compiledEncoder(unit, unit.fallback);
      else type.encode = unit.fallback;
    } catch (err) {
      unit.write = null;
      type.encode = unit.fallback;
      failed(type, err);
    }
    if (type.encode === unit.cold) type.encode = unit.encode;
    settle(unit);
    return type.encode === unit.encode;
  }

  /**
   * Compiles the unit of a nested message's Type with the unit whose field holds it, where it is
   * worth it: always while promoting at once (`settings.promoteAfter` 0, the tests' setting), else
   * when it was encoded at least once every `INLINE_SHARE` encodes of the enclosing Type while
   * both were cold. Its Type's `encode` stays as it is: cold, it goes on counting where protobufjs's
   * generated code calls it.
   * @param {object} unit The nested Type's unit
   * @param {number} calls The enclosing Type's counted encodes
   * @returns {undefined}
   */
  function compileNested(unit, calls) {
    if (isCurrent(unit) || unit.compiling) return;
    if (settings.promoteAfter !== 0 && (unit.calls === 0 || unit.calls * INLINE_SHARE < calls)) return;
    recompile(unit);
  }

  /**
   * Compiles a unit that is not being compiled, and settles it; a unit that fails keeps no code.
   * @param {object} unit Unit
   * @returns {undefined}
   */
  function recompile(unit) {
    try {
      compileUnit(unit);
    } catch (err) {
      unit.write = null;
      failed(unit.type, err);
    }
    settle(unit);
  }

  /**
   * The `encode` of a cold Type: protobufjs's generated encoder, counting the Type's encodes. At
   * the `settings.promoteAfter`-th of a message that is not nested in another (a nested message's
   * Type is compiled with the Type that holds it), the Type is promoted, and that encode runs
   * compiled.
   * @param {object} unit The Type's unit
   * @param {Function} fallback protobufjs's generated encoder
   * @returns {Function} `encode(m, w, q)`
   */
  function coldEncoder(unit, fallback) {
    const encode_cold = function encode_cold(m, w, q) {
      ++unit.calls;
      if (!(q > 0)) {
        if (++unit.roots >= settings.promoteAfter && promote(unit)) return unit.encode(m, w, q);
      } else if (unit.roots === 0 && unit.calls >= RETIRE_AFTER) retire(unit);
      if (!w) w = protobuf.Writer.create();
      if (w.constructor !== RustWriter && typeof w[ENCODE_MESSAGE] === 'function' && !(w instanceof RustWriter && hasRegion(w))) {
        return w[ENCODE_MESSAGE](unit.type, fallback, fallback, m, q);
      }
      return fallback(m, w, q);
    };
    unit.cold = encode_cold;
    unit.fallback = fallback;
    return encode_cold;
  }

  /**
   * The statements that write a message's fields, as protobufjs's encoder.js writes them: the body of
   * a Type's function, or of its code inlined into another's.
   * @param {object[]} fieldsArray The Type's fields
   * @param {object[]} children The units the function's code refers to by index (appended to)
   * @param {{stack: object[], left: number, calls: number}} inlining The Types whose code this is
   * inside, how many characters of inlined code the function may still take, and the counted
   * encodes of the Type whose code this is
   * @returns {string[]} Lines
   */
  function bodyCode(fieldsArray, children, inlining) {
    const body = [];
    const fields = fieldsArray.slice().sort(util.compareFieldsById);
    for (const field of fields) body.push(...fieldCode(field.resolve(), children, inlining));
    if (rules.unknowns) {
      body.push('if (m.$unknowns != null && Object.hasOwnProperty.call(m, "$unknowns")) {',
        `  for (let i = 0; i < m.$unknowns.length; ++i) { p = via(w, p, w.raw, w, m.$unknowns[i]); ${RELOAD} }`,
        '}');
    }
    return body;
  }

  /**
   * The code of `type`'s fields to write a nested message `v` in place, at depth `q + 1`, while its
   * unit is the version compiled now (`units[i].version`); or null where it is not inlined: not
   * compiled, being compiled (recursion), on the stack, or over a budget.
   * @param {object} type The nested message's Type
   * @param {object} unit Its unit
   * @param {object[]} children The units the function's code refers to (appended to, if inlined)
   * @param {{stack: object[], left: number, calls: number}} inlining As for `bodyCode`
   * @returns {string[]|null} Lines
   */
  function inlineCode(type, unit, children, inlining) {
    if (inlining.left <= 0 || !isCurrent(unit) || unit.compiling || inlining.stack.includes(type)) return null;
    // Decided before generating anything: trying every nested Type of a deep schema would generate
    // code for every path through it (exponentially many). The unit's own body is the estimate: code
    // generated here inlines within a smaller budget, and its size is checked again below.
    const most = Math.min(INLINE_MAX, inlining.left, inlineLeft);
    if (unit.size > most) return null;
    const grown = children.slice();
    const within = { stack: [...inlining.stack, type], left: INLINE_MAX, calls: unit.calls };
    const body = bodyCode(unit.fields, grown, within);
    const size = sizeOf(body);
    if (size > most) return null;
    inlining.left -= size;
    inlineLeft -= size;
    children.push(...grown.slice(children.length));
    return [
      'const m_ = v, q_ = q + 1;',
      '{',
      '  const m = m_, q = q_;',
      '  if (q > util.recursionLimit) throw Error("max depth exceeded");',
      ...body.map((line) => `  ${line}`),
      '}',
    ];
  }

  /**
   * The statements that write one field, as protobufjs's encoder.js writes it.
   * @param {object} field Field, resolved
   * @param {object[]} children The units the function's code refers to by index (appended to)
   * @param {{stack: object[], left: number, calls: number}} inlining As for `bodyCode`
   * @returns {string[]} Lines
   */
  function fieldCode(field, children, inlining) {
    const isEnum = field.resolvedType instanceof Enum;
    const type = isEnum ? 'int32' : field.type;
    const wireType = wire.basic[type];
    const ref = `m${util.safeProp(field.name)}`;
    const name = JSON.stringify(field.name);
    let child = null;
    let inline = null;
    if (wireType === undefined) {
      const unit = unitOf(field.resolvedType);
      compileNested(unit, inlining.calls);
      child = `units[${children.push(unit) - 1}]`;
      const code = inlineCode(field.resolvedType, unit, children, inlining);
      if (code !== null) inline = { version: unit.version, code };
    }
    const tag = (field.id << 3 | (wireType === undefined ? (field.delimited ? 3 : 2) : wireType)) >>> 0;
    if (field.map) {
      const keyTag = 8 | wire.mapKey[field.keyType];
      let key = 'ks[i]';
      if (rules.mapKeys === 'fromKey' && field.keyType === 'bool') key = 'util.boolFromKey(ks[i])';
      else if (rules.mapKeys === 'fromKey' && LONG.has(field.keyType)) {
        // util.longFromKey returns a key as it is unless it is a hash of 8 characters: only those need
        // its two regular expressions.
        key = `(ks[i].length !== 8 ? ks[i] : util.longFromKey(ks[i], ${field.keyType === 'uint64' || field.keyType === 'fixed64'}))`;
      }
      const value = wireType === undefined
        ? messageCode(child, inline, `${ref}[ks[i]]`, (field.id << 3 | 2) >>> 0, 18, false)
        : valueCode(type, `${ref}[ks[i]]`, 16 | wireType);
      return [
        `if (${ref} != null && Object.hasOwnProperty.call(m, ${name})) {`,
        `  for (let ks = Object.keys(${ref}), i = 0; i < ks.length; ++i) {`,
        ...sectionCode((field.id << 3 | 2) >>> 0, [...valueCode(field.keyType, key, keyTag), ...value]).map((l) => `    ${l}`),
        '  }',
        '}',
      ];
    }
    if (field.repeated) {
      let body;
      if (wireType === undefined) {
        body = messageCode(child, inline, `${ref}[i]`, tag, null, field.delimited);
        body = [`for (let i = 0; i < ${ref}.length; ++i) {`, ...body.map((l) => `  ${l}`), '}'];
      } else if (field.packed && wire.packed[type] !== undefined) {
        const tag = (field.id << 3 | 2) >>> 0;
        body = rules.packed === 'methods'
          ? packedCode(type, ref, tag)
          : sectionCode(tag, [
            `for (let i = 0; i < ${ref}.length; ++i) {`,
            `  ${room(MAX_BYTES[type])} const v = ${ref}[i]; ${writeScalar(type, 'v')}`,
            '}',
          ]);
      } else {
        body = [
          `for (let i = 0; i < ${ref}.length; ++i) {`,
          ...valueCode(type, `${ref}[i]`, tag).map((l) => `  ${l}`),
          '}',
        ];
      }
      return [`if (${ref} != null && ${ref}.length) {`, ...body.map((l) => `  ${l}`), '}'];
    }
    const body = wireType === undefined
      ? messageCode(child, inline, ref, tag, null, field.delimited)
      : valueCode(type, ref, tag);
    const condition = presence(field, isEnum, type, ref, name);
    return condition === null ? body : [`if (${condition}) {`, ...body.map((l) => `  ${l}`), '}'];
  }

  /**
   * The presence check protobufjs's encoder.js makes before writing a singular field, or null
   * where it writes the field unconditionally (a required one).
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
   * The compiled `encode` of a unit: its `write` for RustWriters, protobufjs's own encoder for any
   * other writer.
   * @param {object} unit Unit, compiled
   * @param {Function} fallback protobufjs's generated encoder for its Type
   * @returns {Function} `encode(m, w, q)`
   */
  function compiledEncoder(unit, fallback) {
    const type = unit.type;
    const id = ++sources.next;
    const name = `encode_${type.name.replace(/\W/g, '_')}_${id}`;
    const source = `'use strict';
const { hasRegion, beginHeld, positionOf, endHeld, mark, addedMark, abort } = rt;
return function ${name}(m, w, q) {
  // ${type.fullName} (protobufjs-rustwriter encoder ${id})
  if (!w) w = Writer.create();
  if (q === undefined) q = 0;
  if (w.constructor !== RustWriter && !(w instanceof RustWriter && hasRegion(w))) {
    // protobufjs's writer, or one that takes whole messages (the shadow check's)
    return typeof w[WHOLE] === 'function' ? w[WHOLE](unit.type, ${name}, fallback, m, q) : fallback(m, w, q);
  }
  const at = beginHeld(w);
  const from = mark(w);
  const addedThen = addedMark(w);
  let p;
  try {
    p = unit.write(m, w, positionOf(w, at), q);
  } catch (err) {
    throw abort(w, err, at, from, addedThen);
  }
  endHeld(w, p);
  return w;
};`;
    const encode = new Function('rt', 'Writer', 'RustWriter', 'WHOLE', 'unit', 'fallback', source)(
      rt, protobuf.Writer, RustWriter, ENCODE_MESSAGE, unit, fallback);
    compiledEncoders.add(encode);
    return encode;
  }

  return {
    /**
     * The `encode` of `type` when protobufjs sets it up: a cold one (protobufjs's `fallback`,
     * counting), or its compiled encoder if it has been promoted before (its fields changed since,
     * or the app set it up again) or if every Type is promoted at once (`settings.promoteAfter` 0).
     * @param {object} type Type, set up
     * @param {Function} fallback protobufjs's generated encoder for it
     * @returns {Function} `encode(m, w, q)`
     */
    encoderFor(type, fallback) {
      const unit = unitOf(type);
      type.encode = coldEncoder(unit, fallback);
      // Compiled before (it was hot): compiled again now if its fields changed, so that the code that
      // calls it stays current.
      if (unit.write !== null && !isCurrent(unit) && !unit.compiling) recompile(unit);
      if (unit.encode !== null || settings.promoteAfter === 0) promote(unit);
      else settle(unit);
      return type.encode;
    },
  };
}

/**
 * The statements that write `value`, a scalar, string or bytes of `type`, with its tag.
 * @param {string} type Type
 * @param {string} value Expression of the value (evaluated once, after the tag is written, as
 * protobufjs's `w.uint32(tag).<type>(value)` evaluates it)
 * @param {number} tag Tag
 * @returns {string[]} Lines
 */
function valueCode(type, value, tag) {
  const tagLen = tagBytes(tag).length;
  if (type === 'string') {
    // An ASCII string of fewer than 40 units (most strings) inline: one byte a unit, after a length of
    // one byte; at its first other unit, `putString` writes the whole string again, from the start.
    return [`${room(tagLen)} ${writeTag(tag)}`,
      `{ const v = ${value}; let ascii = false;`,
      `  if (typeof v === 'string' && v.length < ${UTF8_LOOP_MAX}) {`,
      `    const n = v.length; ${room('1 + n')} let i = 0;`,
      '    for (; i < n; ++i) { const c = v.charCodeAt(i); if (c >= 128) break; buf[p + 1 + i] = c; }',
      '    if (i === n) { buf[p] = n; p += 1 + n; ascii = true; }',
      '  }',
      `  if (!ascii) { p = typeof v === 'string' ? putString(w, p, v, v.length) : via(w, p, w.string, w, v); ${RELOAD} } }`];
  }
  if (type === 'bytes') return [`${room(tagLen)} ${writeTag(tag)}`, `p = via(w, p, w.bytes, w, ${value}); ${RELOAD}`];
  return [`${room(tagLen + MAX_BYTES[type])} ${writeTag(tag)}`, `{ const v = ${value}; ${writeScalar(type, 'v')} }`];
}

/** The short paths of the packed methods (lib/writer/packed.js): element loop of lib/writer/loops.js
 * (null: spelled out here, `UINT32_ELEMENTS`), bound, bytes an element takes at most, and whether its
 * elements are varints (a one-byte length placeholder) or of that fixed size (the length known first).
 * 64-bit varints have none. */
const SHORT_PACKED = {
  uint32: [null, 'shortVarints()', 5, true],
  int32: ['loopInt32', 'shortVarints()', 10, true],
  sint32: ['loopSint32', 'shortVarints()', 5, true],
  fixed32: ['loopFixed32', 'SHORT', 4, false],
  sfixed32: ['loopFixed32', 'SHORT', 4, false],
  float: ['loopFloat', 'BULK_FLOATS_MIN', 4, false],
  double: ['loopDouble', 'BULK_FLOATS_MIN', 8, false],
  bool: ['loopBool', 'SHORT', 1, false],
};

/** lib/writer/loops.js `loopUint32` spelled out, its one- and two-byte paths first. */
const UINT32_ELEMENTS = 'for (let i = 0; i < n; ++i) { let x = a[i] >>> 0; '
  + 'if (x < 128) { buf[p++] = x; } else if (x < 16384) { buf[p] = x | 128; buf[p + 1] = x >>> 7; p += 2; } '
  + `else { ${VARINT_LOOP} } }`;

/**
 * The statements that write a packed field as protobufjs 8's `w.uint32(tag).<type>s(value)`: the
 * method's short path inline, the rest through its long path (`longPacked`, lib/writer/packed.js),
 * which reads nothing the inline part read.
 * @param {string} type Element type
 * @param {string} value Expression of the array (evaluated once, after the tag)
 * @param {number} tag Tag
 * @returns {string[]} Lines
 */
function packedCode(type, value, tag) {
  const head = [`${room(tagBytes(tag).length)} ${writeTag(tag)}`, `const a = ${value}; const n = a.length;`];
  const long = `p = via(w, p, longPacked.${type}s, undefined, w, a, n); ${RELOAD}`;
  const short = SHORT_PACKED[type];
  if (short === undefined) return [...head, long];
  const [loop, bound, size, varints] = short;
  const inline = varints
    ? [`${room(`1 + ${size} * n`)} const at = p - base; buf[p++] = 0; ${loop === null ? UINT32_ELEMENTS : `p = loops.${loop}(buf, p, a, 0, n);`}`,
      'const len = p - base - at - 1; if (len < 128) buf[base + at] = len; else fixup(w, at, len);']
    : [`${room(`5 + ${size} * n`)} p = putVarint32(buf, p, ${size} * n); p = loops.${loop}(buf, p, a, 0, n);`];
  return [...head, `if (n === n >>> 0 && n < ${bound}) {`, ...inline.map((l) => `  ${l}`), `} else { ${long} }`];
}

/**
 * The statements that write a message field: protobufjs's
 * `types[i].encode(value, w.uint32(tag).fork(), q + 1).ldelim()`, or for a group
 * `types[i].encode(value, w.uint32(startTag), q + 1).uint32(endTag)`.
 * @param {string} child The child unit's expression
 * @param {{version: number, code: string[]}|null} inline The child's code to write it in place, as
 * compiled from the unit's `version`, or null
 * @param {string} value Expression of the message (evaluated first, as protobufjs evaluates it)
 * @param {number} tag Tag (the start tag of a group)
 * @param {number|null} innerTag For a map value, its tag inside the entry (the outer `tag` is then the
 * entry's, written by the caller), else null
 * @param {boolean} group Whether a group
 * @returns {string[]} Lines
 */
function messageCode(child, inline, value, tag, innerTag, group) {
  // As protobufjs's `types[i].encode(...)`: the child Type's compiled code while its compiled encoder
  // is its \`encode\`; else its \`encode\` itself, which sets it up (the first time, or after a change
  // to its fields) or is the app's own.
  const own = `${child}.type.encode === ${child}.own`;
  const call = `p = ${own} ? ${child}.write(v, w, p, q + 1) : via(w, p, ${child}.type.encode, ${child}.type, v, w, q + 1); ${RELOAD}`;
  const write = inline === null
    ? [call]
    : [`if (${own} && ${child}.version === ${inline.version}) {`, ...inline.code.map((l) => `  ${l}`), `} else { ${call} }`];
  if (group) {
    const endTag = (tag & ~7 | 4) >>> 0;
    return [`{ const v = ${value}; ${room(tagBytes(tag).length)} ${writeTag(tag)}`,
      ...write.map((l) => `  ${l}`), `  ${room(tagBytes(endTag).length)} ${writeTag(endTag)} }`];
  }
  const t = innerTag === null ? tag : innerTag;
  return [`{ const v = ${value};`, ...sectionCode(t, write).map((l) => `  ${l}`), '}'];
}

/**
 * The statements that write a tag, then a length-delimited section around `body`: a one-byte
 * placeholder, filled when the section ends if its length fits and no entry was recorded inside,
 * else closed by an entry (lib/writer/entries.js `closeSection`).
 * @param {number} tag Tag
 * @param {string[]} body Lines that write the section's content
 * @returns {string[]} Lines
 */
function sectionCode(tag, body) {
  return [
    `${room(tagBytes(tag).length + 1)} ${writeTag(tag)}`,
    '{',
    '  const at = p - base; const from = mark(w); const addedThen = addedMark(w); buf[p++] = 0;',
    ...body.map((l) => `  ${l}`),
    '  const len = p - base - at - 1;',
    '  if (len < 128 && mark(w) === from) buf[base + at] = len; else closeSection(w, at, len, from, addedThen);',
    '}',
  ];
}

module.exports = { compiler, isCompiled, whyKept, ENCODE_MESSAGE };
