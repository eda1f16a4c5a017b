'use strict';

/**
 * Encoders compiled for RustWriter, one per protobufjs Type, in place of the one protobufjs generates.
 *
 * protobufjs's generated encoder (its src/encoder.js) calls the Writer API for every field:
 * `w.uint32(tag).int32(m.x)`, `types[i].encode(m.sub, w.uint32(tag).fork(), q + 1).ldelim()`, each
 * call loading and storing the writer's position. A compiled encoder does what that code does, field
 * for field, but writes the bytes itself, into the writer's region at a position of its own, as a
 * held write (lib/writer/region.js): each Type's function (lib/encoders/code.js makes its source)
 * calls the helpers of lib/encoders/runtime.js, and calls the function of a nested message's Type.
 * What it does not write itself (`bytes`, long packed fields, `$unknowns`) goes through the writer's
 * own methods.
 *
 * It mirrors the encoder.js of the protobufjs copy it is installed into (lib/encoders/rules.js).
 * Given any writer that is not a RustWriter (protobufjs's own, or one the shadow check samples), it
 * calls protobufjs's own generated encoder, so that writer sees exactly protobufjs's calls.
 */

const rt = require('./runtime');
const { generator } = require('./code');
const { RustWriter } = require('../writer/writer');
const settings = require('../writer/settings');
const { hasRegion } = require('../writer/region');

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

/** The unit of every Type a compiler has set up, by Type, across copies (`tierOf`, `whyKept`). */
const unitsByType = new WeakMap();

/**
 * @param {*} encode A Type's `encode`
 * @returns {boolean} Whether it is a compiled encoder (the Type was promoted)
 */
function isCompiled(encode) {
  return compiledEncoders.has(encode);
}

/**
 * Tiers. A Type starts *cold*: its `encode` is protobufjs's generated encoder, which writes through
 * RustWriter's methods (the Writer API path) and counts the encodes of messages that are not nested
 * in another. At its `settings.promoteAfter`-th it is *promoted*: its function is compiled, and its
 * `encode` becomes the compiled encoder. So a Type an app encodes rarely costs nothing to compile
 * and holds no code of its own: on Temporal's 1,061 types, compiling every Type a message could
 * reach when it was first set up made its first encode 2.3x protobufjs's and added 40–80 MB
 * (docs/benchmark.md, "What was tried and did not pay").
 *
 * A nested Type is compiled when compiled code first writes one of its messages: its function is a
 * stub until then (`lazy`). So every Type a promoted Type's messages reach runs compiled code, and
 * no other. Its `encode` stays as it was (cold, counting only where protobufjs's generated code, of
 * a Type not promoted yet, calls it): no counting function is on the path of compiled code.
 *
 * Retired: a cold Type encoded only inside other messages, by protobufjs's generated code, stops
 * counting at its `RETIRE_AFTER`-th encode: its `encode` becomes protobufjs's generated encoder
 * itself. That is the case of a Type nested in one that is never promoted (set up before the
 * install, or kept).
 *
 * Kept: a Type whose fields' code would be over `settings.unitMax` characters (thousands of fields),
 * or whose function failed to compile, keeps protobufjs's generated encoder (`whyKept` says why);
 * compiled code writes its messages by calling that encoder.
 */
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
 * @param {object} type A Type
 * @returns {boolean} Whether its `encode` is one its compiler set (cold, compiled, or protobufjs's
 * generated encoder it was retired to or kept on), and so writes what protobufjs's encoder.js writes
 * (lib/serializers/ write such a Type's messages themselves, and call any other `encode`)
 */
function ownsEncode(type) {
  const unit = unitsByType.get(type);
  if (unit === undefined) return false;
  const encode = type.encode;
  return encode !== null && (encode === unit.cold || encode === unit.encode || encode === unit.fallback);
}

/**
 * @param {object} type A Type
 * @returns {'compiled'|'cold'|'kept'|'retired'|null} Its tier: its fields compiled (its messages run
 * compiled code, whether its `encode` was promoted or it is nested in one that was), cold, kept on
 * protobufjs's encoder, or retired; null for a Type no compiler has set up
 */
function tierOf(type) {
  const unit = unitsByType.get(type);
  if (unit === undefined) return null;
  if (unit.kept !== null && unit.kept === type.fieldsArray) return 'kept';
  if (unit.fields !== null && unit.fields === type.fieldsArray) return 'compiled';
  return type.encode === unit.fallback && unit.fallback !== null ? 'retired' : 'cold';
}

/**
 * @param {object} type A Type
 * @returns {string|null} Why its compiler keeps protobufjs's encoder for it (see "Tiers"), or null
 * where it does not
 */
function whyKept(type) {
  const unit = unitsByType.get(type);
  return unit !== undefined && unit.kept !== null && unit.kept === type.fieldsArray ? unit.why : null;
}

/**
 * The compiler for one protobufjs copy: one unit (a `write(m, w, p, q, tag)` function) per Type.
 * @param {object} protobuf The protobufjs module
 * @param {import('./rules').Rules} rules The rules of its version's encoder.js, which the encoders
 * mirror (lib/encoders/rules.js)
 * @param {function(object, Error): undefined} failed Called when a Type cannot be compiled (it then
 * keeps protobufjs's encoder)
 * @returns {{encoderFor: function(object, Function): Function, counts: function(): object}} The compiler
 */
function compiler(protobuf, rules, failed) {
  const { util } = protobuf;
  const code = generator(protobuf, rules);
  /**
   * The units of the Types this copy's compiler has seen (weakly: a Root the app drops goes), for
   * `counts`; the references to units gone are dropped whenever the set has doubled since.
   */
  const seen = new Set();
  let pruneAt = 1024;

  /**
   * Drops the references to units gone.
   * @returns {undefined}
   */
  function prune() {
    for (const ref of seen) if (ref.deref() === undefined) seen.delete(ref);
    pruneAt = Math.max(1024, 2 * seen.size);
  }

  /**
   * The unit of `type` (new, and its function a stub, if it has none):
   * - `type`; `write(m, w, p, q, tag)`, its function (`lazy` until compiled, compiled code once
   *   `fields` is its Type's `fieldsArray`, or `keptWrite` while `kept` is); `fields`, the
   *   `fieldsArray` it was compiled from; `kept`, the `fieldsArray` for which it keeps protobufjs's
   *   encoder, and `why`; `width`, the bytes its last nested message's length took, which the
   *   next one's section reserves (runtime.js `openWide`);
   * - `cold`, the Type's counting `encode`, and `fallback`, protobufjs's generated encoder, both
   *   made when protobufjs sets the Type up; `calls`, the encodes the cold one counted, and `roots`,
   *   those that were not of a nested message;
   * - `encode`, the Type's compiled `encode` once promoted, else null;
   * - `own`, the Type's `encode` while that is one of the three, else null: compiled code writes a
   *   message of the Type with `write` only while its `encode` is `own`, and otherwise calls its
   *   `encode`, as protobufjs's generated code does (it is not set up yet, its fields changed, or
   *   the app replaced it).
   * @param {object} type Type
   * @returns {object} Unit
   */
  function unitOf(type) {
    let unit = unitsByType.get(type);
    if (unit === undefined || unit.compiler !== self) {
      unit = {
        compiler: self, type, write: null, fields: null, kept: null, why: null, width: 1,
        cold: null, fallback: null, calls: 0, roots: 0, encode: null, own: null,
      };
      unit.write = lazy(unit);
      unitsByType.set(type, unit);
      seen.add(new WeakRef(unit));
      if (seen.size >= pruneAt) prune();
    }
    return unit;
  }

  /**
   * A unit's function before it is compiled: compiles it, then writes.
   * @param {object} unit Unit
   * @returns {Function} `write(m, w, p, q, tag)`
   */
  function lazy(unit) {
    return function write_lazy(m, w, p, q, tag) {
      compileUnit(unit);
      return unit.write(m, w, p, q, tag);
    };
  }

  /**
   * A kept unit's function: its Type's `encode` (protobufjs's generated encoder) writes it.
   * @param {object} unit Unit
   * @returns {Function} `write(m, w, p, q, tag)`
   */
  function keptWrite(unit) {
    const type = unit.type;
    return function write_kept(m, w, p, q, tag) {
      return tag !== 0 ? rt.nestedVia(type, m, w, p, q, tag) : rt.via(w, p, type.encode, type, m, w, q);
    };
  }

  /**
   * Compiles `unit`'s Type's fields into `unit.write`, or keeps protobufjs's encoder for them.
   * @param {object} unit Unit
   * @returns {boolean} Whether it compiled
   */
  function compileUnit(unit) {
    const type = unit.type;
    const fieldsArray = type.fieldsArray; // initializes
    if (unit.fields === fieldsArray) return true;
    if (unit.kept === fieldsArray) return false;
    try {
      const units = [];
      const id = ++sources.next;
      const { source, size, constants } = code.source(type, unitOf, units, id);
      if (size > settings.unitMax) {
        keep(unit, fieldsArray, `its code would be ${size} characters, over ${settings.unitMax}`);
        return false;
      }
      unit.write = new Function('rt', 'util', 'unit', 'units', 'constants', source)(rt, util, unit, units, constants);
      unit.fields = fieldsArray;
      return true;
    } catch (err) {
      keep(unit, fieldsArray, `its compiled encoder failed: ${err && err.message}`);
      failed(type, err);
      return false;
    }
  }

  /**
   * Keeps protobufjs's encoder for `unit`'s Type while its fields are `fieldsArray`.
   * @param {object} unit Unit
   * @param {object[]} fieldsArray Its Type's fields
   * @param {string} why Why
   * @returns {undefined}
   */
  function keep(unit, fieldsArray, why) {
    unit.kept = fieldsArray;
    unit.why = why;
    unit.fields = null;
    unit.write = keptWrite(unit);
    retire(unit);
  }

  /**
   * Sets `unit.own` from the Type's `encode` now.
   * @param {object} unit Unit
   * @returns {undefined}
   */
  function settle(unit) {
    const encode = unit.type.encode;
    const ours = encode === unit.cold || encode === unit.encode || encode === unit.fallback;
    unit.own = ours ? encode : null;
  }

  /**
   * Retires a cold Type: its `encode` becomes protobufjs's generated encoder itself, which counts
   * nothing (see "Tiers" above).
   * @param {object} unit The Type's unit
   * @returns {undefined}
   */
  function retire(unit) {
    if (unit.type.encode !== unit.cold || unit.cold === null) return; // the app's own, or set up again since
    unit.type.encode = unit.fallback;
    settle(unit);
  }

  /**
   * Promotes a cold Type: compiles it and makes its compiled encoder its `encode`. A Type kept on
   * protobufjs's encoder stops counting.
   * @param {object} unit The Type's unit, its `encode` `cold`
   * @returns {boolean} Whether the Type's `encode` is its compiled encoder now
   */
  function promote(unit) {
    const type = unit.type;
    if (type.encode !== unit.cold) return false; // the app's own, or set up again since
    if (!compileUnit(unit)) return false;
    if (unit.encode === null) unit.encode = compiledEncoder(unit);
    type.encode = unit.encode;
    settle(unit);
    return true;
  }

  /**
   * The `encode` of a cold Type: protobufjs's generated encoder, counting the Type's encodes. At
   * the `settings.promoteAfter`-th of a message that is not nested in another, the Type is
   * promoted, and that encode runs compiled.
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
   * The compiled `encode` of a unit: its `write` for RustWriters, protobufjs's own encoder for any
   * other writer.
   * @param {object} unit Unit, compiled
   * @returns {Function} `encode(m, w, q)`
   */
  function compiledEncoder(unit) {
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
    return typeof w[WHOLE] === 'function' ? w[WHOLE](unit.type, ${name}, unit.fallback, m, q) : unit.fallback(m, w, q);
  }
  const at = beginHeld(w);
  const from = mark(w);
  const addedThen = addedMark(w);
  let p;
  try {
    p = unit.write(m, w, positionOf(w, at), q, 0);
  } catch (err) {
    throw abort(w, err, at, from, addedThen);
  }
  endHeld(w, p);
  return w;
};`;
    const encode = new Function('rt', 'Writer', 'RustWriter', 'WHOLE', 'unit', source)(
      rt, protobuf.Writer, RustWriter, ENCODE_MESSAGE, unit);
    compiledEncoders.add(encode);
    return encode;
  }

  const self = {
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
      // Compiled before from other fields: compiled again when next written.
      if (unit.fields !== null && unit.fields !== type.fieldsArray) {
        unit.fields = null;
        unit.write = lazy(unit);
      }
      if (unit.encode !== null || settings.promoteAfter === 0) promote(unit);
      settle(unit);
      return type.encode;
    },

    /**
     * @returns {{compiled: number, cold: number, kept: string[]}} How many of the Types this copy's
     * compiler has seen (and the app still holds) are in each tier (`tierOf`; a retired Type is
     * counted as cold), and the full names of the kept ones
     */
    counts() {
      const counts = { compiled: 0, cold: 0, kept: [] };
      prune();
      for (const ref of seen) {
        const unit = ref.deref();
        if (unit === undefined) continue;
        const tier = tierOf(unit.type);
        if (tier === 'kept') counts.kept.push(unit.type.fullName.replace(/^\./, ''));
        else if (tier === 'compiled') counts.compiled++;
        else counts.cold++;
      }
      return counts;
    },
  };
  return self;
}

module.exports = { compiler, isCompiled, tierOf, whyKept, ownsEncode, sources, ENCODE_MESSAGE };
