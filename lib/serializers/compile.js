'use strict';

/**
 * Serializers: `T.encode(T.fromObject(o)).finish()` in one pass, compiled per protobufjs Type for
 * RustWriter (lib/serializers/code.js makes each Type's source), as @grpc/proto-loader's
 * `createSerializer` runs it for every gRPC request and response, and without the message instances
 * fromObject makes.
 *
 * **Units.** Each Type has a unit: its function `ser(d, w, p, q, tag)`, a stub that compiles it at
 * its first use (so a nested Type is compiled when a message first reaches it), and what that code
 * was compiled from and checks at each message (`ready`): the Type's `fromObject` (the one
 * protobufjs's `setup` generated, `standardFrom`, seen by lib/integration/encoders.js's hook on
 * `setup`), its encoders' `encode` (lib/encoders/compile.js `ownsEncode`) and, for protobufjs 7,
 * its constructor. Where they are not what the code mirrors (a wrapper such as
 * `google.protobuf.Any`'s `fromObject`, a constructor the app registered, a Type set up before the
 * install, an `encode` the app replaced), the Type's messages are converted by its own `fromObject`
 * and written by its own `encode` (`slow`), as protobufjs does.
 *
 * **Tiers.** What `serializer(T)` returns (`handOut`) runs `T.encode(T.fromObject(o)).finish()` for
 * its first `settings.promoteAfter - 1` calls, then compiles its Type and runs its entry
 * (`entryFor`): a Type an app serializes rarely costs nothing to compile. Each generated function's source is unique
 * (lib/encoders/compile.js `sources`), as the encoders' are.
 */

const rt = require('../encoders/runtime');
const srt = require('./runtime');
const { generator } = require('./code');
const { ownsEncode, sources } = require('../encoders/compile');
const { RustWriter } = require('../writer/writer');
const settings = require('../writer/settings');

/**
 * Characters of field code over which a Type is not compiled (its messages take `slow`): V8
 * optimizes no function of more than 61,440 bytes of bytecode (`--max-optimized-bytecode-size`), and
 * generated code takes ~0.8 bytes of bytecode a character (lib/encoders/code.js `PART_MAX`); an
 * unoptimized serializer runs slower than protobufjs's own fromObject and a compiled encoder. Of the
 * 1,779 Types of the schemas measured (Firestore, Pub/Sub, Spanner, Temporal, protobuf's conformance
 * messages), three are over: Temporal's `HistoryEvent` (~91,500: 60 message fields, 55 of them
 * read after fields numbered 300 and up, each with the code that moves its bytes) and the
 * conformance `TestAllTypesProto2`/`TestAllTypesProto3` (~150,000); the next is ~28,000.
 */
const UNIT_MAX = 60000;

/** The unit of every Type a serializer compiler has, by Type, across copies. */
const unitsByType = new WeakMap();

/**
 * @param {object} type A Type
 * @returns {string|null} Why its messages are converted by its own `fromObject` and written by its
 * own `encode` (see "Units"), or null where they are not (or it has no unit)
 */
function whySlow(type) {
  const unit = unitsByType.get(type);
  return unit === undefined ? null : unit.why;
}

/**
 * @param {object} type A Type
 * @returns {'compiled'|'slow'|'cold'|null} Whether compiled code writes its messages now, or its
 * own fromObject and encode (`whySlow`), or neither yet; null for a Type without a unit
 */
function serializerTier(type) {
  const unit = unitsByType.get(type);
  if (unit === undefined) return null;
  if (unit.compiledFrom !== null && unit.compiledFrom === type.fromObject) return 'compiled';
  return unit.tried && unit.why !== null ? 'slow' : 'cold';
}

/**
 * The serializer compiler of one protobufjs copy.
 * @param {object} protobuf The protobufjs module
 * @param {import('../encoders/rules').Rules} encoderRules Its encoder's rules
 * @param {import('./rules').FromObjectRules} fromObjectRules Its fromObject's rules
 * @param {function(object, Error): undefined} failed Called when a Type's code fails to compile
 * @returns {object} The compiler
 */
function serializerCompiler(protobuf, encoderRules, fromObjectRules, failed) {
  const { util } = protobuf;
  const code = generator(protobuf, encoderRules, fromObjectRules);
  const live = fromObjectRules.ctor === 'live';
  /** The constructors protobufjs generated (`Type.generateConstructor`), and the map and repeated
   * fields each initializes (`this.f={}`, `this.f=[]`). */
  const generated = new WeakMap();
  /** The units of this copy (weakly), for `counts`. */
  const seen = new Set();

  /**
   * The unit of `type` (made, its function a stub, if it has none).
   * @param {object} type Type
   * @returns {object} Unit
   */
  function unitOf(type) {
    let unit = unitsByType.get(type);
    if (unit === undefined || unit.compiler !== self) {
      unit = {
        compiler: self, type, liveCtor: live,
        ser: null, compiledFrom: null, okEncode: null, C: null, D0: null, fields: null, moved: 0,
        standardFrom: null, setupCtor: null, why: 'not set up since the install', keptFields: null, keptFrom: null,
        rest: null, exotic: null, lower: null, other: null, calls: 0, entry: null, run: null, tried: false,
      };
      unit.ser = function ser_lazy(d, w, p, q, tag) {
        return compileUnit(unit) ? unit.ser(d, w, p, q, tag) : srt.slow(unit, d, w, p, q, tag);
      };
      unit.other = function ser_other(d, w, p, q, tag) {
        return compileUnit(unit) ? unit.ser(d, w, p, q, tag) : srt.slow(unit, d, w, p, q, tag);
      };
      resetLazy(unit);
      unitsByType.set(type, unit);
      seen.add(new WeakRef(unit));
    }
    return unit;
  }

  /**
   * A unit's functions compiled at their first use: its conversions after a writing error, and its
   * maps of keys in no object's order.
   * @param {object} unit Unit
   * @returns {undefined}
   */
  function resetLazy(unit) {
    unit.rest = function rest_lazy(d, q, k, i, ks) {
      compileMore(unit);
      return unit.rest(d, q, k, i, ks);
    };
    unit.exotic = function exotic_lazy(k, d, w, p, q, ks) {
      compileMore(unit);
      return unit.exotic(k, d, w, p, q, ks);
    };
    unit.lower = function lower_lazy(m, k, q) {
      compileMore(unit);
      return unit.lower(m, k, q);
    };
  }

  /**
   * Compiles a unit's `rest` and `exotic` for the fields it was compiled from.
   * @param {object} unit Unit
   * @returns {undefined}
   */
  function compileMore(unit) {
    const id = ++sources.next;
    const { source, units, constants } = code.restSource(unit.type, unitOf, id);
    const fns = new Function('rt', 'srt', 'util', 'unit', 'units', 'constants', source)(rt, srt, util, unit, units, constants);
    unit.rest = fns.rest;
    unit.exotic = fns.exotic;
    unit.lower = fns.lower;
  }

  /**
   * Whether `C` is a constructor protobufjs generated for `type`'s map and repeated fields as they
   * are now, whose prototype holds a plain value for each field (what the encoder reads where
   * fromObject set nothing), so that `new C` runs no code of the app's and a message fromObject makes
   * holds what the serializer assumes.
   * @param {Function} C Constructor
   * @param {object[]} fields The Type's fields
   * @returns {string|null} Why not, or null
   */
  function checkCtor(C, fields) {
    const made = typeof C === 'function' ? generated.get(C) : undefined;
    if (made === undefined) return 'its constructor is not one protobufjs generated (a class the app registered, or made before the install)';
    const maps = fields.filter((f) => f.map).map((f) => f.name).join('\n');
    const arrays = fields.filter((f) => f.repeated && !f.map).map((f) => f.name).join('\n');
    if (made.maps !== maps || made.arrays !== arrays) return 'its constructor was generated for other fields';
    const proto = C.prototype;
    for (const f of fields) {
      const d = proto !== null && typeof proto === 'object' ? Object.getOwnPropertyDescriptor(proto, f.name) : undefined;
      if (d === undefined || !('value' in d)) return `its constructor's prototype has no plain default for ${f.name}`;
    }
    return null;
  }

  /**
   * Compiles a unit for its Type's fields now, or says why not (`unit.why`).
   * @param {object} unit Unit
   * @returns {boolean} Whether its compiled code may write the Type's messages now
   */
  function compileUnit(unit) {
    const type = unit.type;
    // Not set up yet (or set up again since: protobufjs 8 drops `fromObject` when the constructor
    // changes): its `fromObject` is Type#fromObject, which sets it up first and calls what `setup`
    // made, as here.
    if (type.fromObject === protobuf.Type.prototype.fromObject) type.setup();
    const fromObject = type.fromObject;
    unit.tried = true;
    if (fromObject === unit.compiledFrom && unit.compiledFrom !== null) return srt.ready(unit);
    if (unit.standardFrom === null || fromObject !== unit.standardFrom) {
      if (unit.standardFrom !== null) unit.why = 'its fromObject is not the one protobufjs generated when it set it up';
      return false;
    }
    if (!ownsEncode(type)) {
      unit.why = 'its encode is not one the compiled encoders set';
      return false;
    }
    const fieldsArray = type.fieldsArray;
    if (unit.keptFields === fieldsArray && unit.keptFrom === fromObject) return false;
    const keep = (why) => {
      unit.why = why;
      unit.keptFields = fieldsArray;
      unit.keptFrom = fromObject;
      return false;
    };
    try {
      const fields = fieldsArray.map((f) => f.resolve());
      const C = live ? type.ctor : unit.setupCtor;
      const bad = checkCtor(C, fields);
      if (bad !== null) return keep(bad);
      const id = ++sources.next;
      const { source, size, units, constants, moved } = code.source(type, unitOf, id, C);
      if (size > UNIT_MAX) return keep(`its code would be ${size} characters, over ${UNIT_MAX}`);
      const ser = new Function('rt', 'srt', 'util', 'unit', 'units', 'constants', source)(rt, srt, util, unit, units, constants);
      unit.ser = ser;
      unit.compiledFrom = fromObject;
      unit.okEncode = type.encode;
      unit.C = C;
      unit.D0 = Object.create(C.prototype);
      unit.fields = fieldsArray;
      unit.moved = moved;
      unit.why = null;
      resetLazy(unit);
      return true;
    } catch (err) {
      failed(type, err);
      return keep(`its serializer failed to compile: ${err && err.message}`);
    }
  }

  /**
   * The function `serializer(type)` hands out: `(obj) => Buffer`, which calls the unit's `run`:
   * `type.encode(type.fromObject(obj)).finish()` until the Type is promoted (see "Tiers"), then its
   * compiled entry (`entryFor`). Made at once for every Type of a package definition by the
   * @grpc/proto-loader hook, so it costs a closure: nothing is generated before a Type is hot.
   * @param {object} unit Unit
   * @returns {function(*): Uint8Array} Serializer
   */
  function handOut(unit) {
    const type = unit.type;
    unit.run = function serialize_cold(obj) {
      if (++unit.calls >= settings.promoteAfter && compileUnit(unit)) {
        unit.run = entryFor(unit);
        return unit.run(obj);
      }
      return type.encode(type.fromObject(obj)).finish();
    };
    return function serialize(obj) {
      return unit.run(obj);
    };
  }

  /**
   * A unit's compiled entry: its code into a RustWriter of the copy's `Writer.create()`, or
   * `type.encode(type.fromObject(obj), w)` for a writer that is not one (the shadow check's).
   * @param {object} unit Unit, compiled
   * @returns {function(*): Uint8Array} Entry
   */
  function entryFor(unit) {
    const type = unit.type;
    const id = ++sources.next;
    const name = `serialize_${type.name.replace(/\W/g, '_')}_${id}`;
    const source = `'use strict';
const { hasRegion, beginHeld, positionOf, endHeld, mark, addedMark, abort } = rt;
const { unwrap } = srt;
return function ${name}(obj) {
  // ${type.fullName} (protobufjs-rustwriter serializer entry ${id})
  const w = protobuf.Writer.create();
  if (w.constructor !== RustWriter && !(w instanceof RustWriter && hasRegion(w))) {
    const type = unit.type;
    return type.encode(type.fromObject(obj), w).finish();
  }
  const at = beginHeld(w);
  const from = mark(w);
  const addedThen = addedMark(w);
  let p;
  try {
    p = unit.ser(obj, w, positionOf(w, at), 0, 0);
  } catch (err) {
    throw unwrap(abort(w, err, at, from, addedThen));
  }
  endHeld(w, p);
  return w.finish();
};`;
    return new Function('rt', 'srt', 'protobuf', 'RustWriter', 'unit', source)(rt, srt, protobuf, RustWriter, unit);
  }

  const self = {
    protobuf,
    unitOf,

    /**
     * Notes what protobufjs's `setup` made for `type` (called right after it): its `fromObject`,
     * unless a wrapper replaced it, and the constructor protobufjs 8's fromObject captured.
     * @param {object} type Type, just set up
     * @returns {undefined}
     */
    noteSetup(type) {
      const unit = unitOf(type);
      const wrapper = protobuf.wrappers ? protobuf.wrappers[type.fullName] : undefined;
      unit.standardFrom = wrapper ? null : type.fromObject;
      unit.setupCtor = live ? null : type.ctor;
      unit.why = wrapper ? `protobufjs applies a wrapper to its fromObject (${type.fullName})` : null;
    },

    /**
     * Notes a constructor protobufjs generated for `type` (lib/integration/serializers.js wraps
     * `Type.generateConstructor`).
     * @param {Function} C Constructor
     * @param {object} type Its Type
     * @returns {undefined}
     */
    noteConstructor(C, type) {
      const fields = type.fieldsArray;
      generated.set(C, {
        maps: fields.filter((f) => f.map).map((f) => f.name).join('\n'),
        arrays: fields.filter((f) => f.repeated && !f.map).map((f) => f.name).join('\n'),
      });
    },

    /**
     * @param {object} type Type
     * @returns {function(*): Uint8Array} Its serializer (one per Type)
     */
    serializerOf(type) {
      const unit = unitOf(type);
      if (unit.entry === null) unit.entry = handOut(unit);
      return unit.entry;
    },

    /**
     * @returns {{serializers: number, compiled: number, slow: string[], moved: number}} Of the Types
     * this copy's compiler has (and the app still holds): how many have a serializer handed out, how
     * many have compiled code, the full names of those whose messages take their own fromObject and
     * encode (with why), and the fields of the compiled ones whose bytes may move (declared before a
     * field of a lower number: lib/serializers/code.js `plan`)
     */
    counts() {
      const counts = { serializers: 0, compiled: 0, slow: [], moved: 0 };
      for (const ref of seen) {
        const unit = ref.deref();
        if (unit === undefined) {
          seen.delete(ref);
          continue;
        }
        if (unit.entry !== null) counts.serializers++;
        if (unit.compiledFrom !== null && unit.compiledFrom === unit.type.fromObject) {
          counts.compiled++;
          counts.moved += unit.moved;
        } else if (unit.tried && unit.why !== null) {
          counts.slow.push(`${unit.type.fullName.replace(/^\./, '')} (${unit.why})`);
        }
      }
      return counts;
    },
  };
  return self;
}

module.exports = { serializerCompiler, whySlow, serializerTier, UNIT_MAX };
