'use strict';

/**
 * Serializers in a protobufjs copy (lib/serializers/): what `serializer(Type)` hands out, and what
 * the @grpc/proto-loader hook (lib/integration/proto-loader.js) puts in package definitions. A copy
 * has them while it has compiled encoders (lib/integration/encoders.js, whose hook on `Type#setup`
 * tells them what `setup` made, `noteSetup`), unless they are turned off
 * (`PROTOBUFJS_RUSTWRITER_SERIALIZERS=0`, `install(protobuf, { serializers: false })`), and only if
 * its `fromObject` is one they mirror (lib/serializers/rules.js); anywhere else `serializer(Type)`
 * returns `(obj) => Type.encode(Type.fromObject(obj)).finish()`.
 */

const { serializerCompiler } = require('../serializers/compile');
const { fromObjectRulesOf } = require('../serializers/rules');
const { rulesOf } = require('../encoders/rules');

/** Marks the wrapped `Type.generateConstructor`, and holds the one it wraps. */
const GENERATE = Symbol.for('protobufjs-rustwriter.generateConstructor');

/** Each copy's serializer compiler, by its module object and by its `Type` class. */
const byModule = new WeakMap();
const byTypeClass = new WeakMap();
/** Whether each copy's serializers are on, by its module object (absent: off). */
const on = new WeakMap();

/**
 * Warns, once a process, that a Type's serializer failed to compile.
 * @param {object} type Type
 * @param {Error} err Why
 * @returns {undefined}
 */
function warnOnce(type, err) {
  if (warned) return;
  warned = true;
  process.emitWarning(`${type.fullName} (and any other such Type) is serialized by its own fromObject and encode, since ` +
    `its compiled serializer failed: ${err && err.message}; please report it`,
  { code: 'PROTOBUFJS_RUSTWRITER_SERIALIZER', type: 'ProtobufjsRustwriterWarning' });
}
let warned = false;

/**
 * The serializer compiler of a copy, made on first use (its compiled encoders must be on).
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version
 * @returns {{compiler: object|null, why: string|null}} Compiler, or null and why not
 */
function compilerOf(protobuf, version) {
  const known = byModule.get(protobuf);
  if (known !== undefined) return known;
  const { rules: encoderRules, why: noEncoder } = rulesOf(protobuf, version);
  const { rules: fromObjectRules, why: noFromObject } = fromObjectRulesOf(version);
  const made = encoderRules === null || fromObjectRules === null
    ? { compiler: null, why: noEncoder || noFromObject }
    : { compiler: serializerCompiler(protobuf, encoderRules, fromObjectRules, warnOnce), why: null };
  byModule.set(protobuf, made);
  if (made.compiler !== null && typeof protobuf.Type === 'function') byTypeClass.set(protobuf.Type, made.compiler);
  if (made.compiler !== null) hookConstructors(protobuf, made.compiler);
  return made;
}

/**
 * Wraps the copy's `Type.generateConstructor`, so that its compiler knows which constructors
 * protobufjs generated (and for which fields).
 * @param {object} protobuf The protobufjs module
 * @param {object} compiler Its serializer compiler
 * @returns {undefined}
 */
function hookConstructors(protobuf, compiler) {
  const Type = protobuf.Type;
  const generate = Type.generateConstructor;
  if (typeof generate !== 'function' || Object.prototype.hasOwnProperty.call(generate, GENERATE)) return;
  const generateConstructor_rustwriter = function generateConstructor_rustwriter(mtype) {
    const gen = generate.apply(this, arguments);
    if (typeof gen !== 'function') return gen;
    // protobufjs's ctor getter calls the codegen with no argument: that call returns the constructor.
    // A Proxy, so that the codegen's own properties (its source, for pbjs) stay as they are.
    return new Proxy(gen, {
      apply(target, self, args) {
        const made = Reflect.apply(target, self, args);
        if (args.length === 0 && typeof made === 'function' && made !== target) compiler.noteConstructor(made, mtype);
        return made;
      },
    });
  };
  Object.defineProperty(generateConstructor_rustwriter, GENERATE, { value: generate });
  Type.generateConstructor = generateConstructor_rustwriter;
}

/**
 * Turns a copy's serializers on (they need its compiled encoders) or off.
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version
 * @param {boolean} wanted Whether they should be on
 * @returns {string|null} Null if they are on, else why not
 */
function applySerializers(protobuf, version, wanted) {
  if (!wanted) {
    on.delete(protobuf);
    return null;
  }
  const { why } = compilerOf(protobuf, version);
  if (why !== null) {
    on.delete(protobuf);
    return why;
  }
  on.set(protobuf, true);
  return null;
}

/**
 * Called by lib/integration/encoders.js's hook right after protobufjs set up `type`.
 * @param {object} protobuf The protobufjs module
 * @param {string|null} version Its version
 * @param {object} type Type
 * @returns {undefined}
 */
function noteSetup(protobuf, version, type) {
  const { compiler } = compilerOf(protobuf, version);
  if (compiler !== null) compiler.noteSetup(type);
}

/**
 * @param {object} protobuf The protobufjs module
 * @returns {boolean} Whether its serializers are on
 */
function serializersOn(protobuf) {
  return on.has(protobuf);
}

/** Plain serializers handed out for Types without a compiler, one per Type. */
const plain = new WeakMap();

/**
 * `serializer(Type)`: `(obj) => Buffer`, the same result as `Type.encode(Type.fromObject(obj))
 * .finish()`, compiled once the Type is hot where its copy has serializers.
 * @param {object} type A reflected Type (or a pbjs static class: then protobufjs's own calls)
 * @returns {function(*): Uint8Array} Serializer
 */
function serializer(type) {
  if (type === null || (typeof type !== 'object' && typeof type !== 'function')
    || typeof type.encode !== 'function' || typeof type.fromObject !== 'function') {
    throw new TypeError('protobufjs-rustwriter: serializer() expects a protobufjs Type (with encode and fromObject)');
  }
  const compiler = byTypeClass.get(type.constructor);
  if (compiler !== undefined && on.has(compilerModule(compiler))) return compiler.serializerOf(type);
  let fn = plain.get(type);
  if (fn === undefined) {
    fn = function serialize_plain(obj) {
      return type.encode(type.fromObject(obj)).finish();
    };
    plain.set(type, fn);
  }
  return fn;
}

/**
 * @param {object} compiler A serializer compiler
 * @returns {object|undefined} Its copy's module object
 */
function compilerModule(compiler) {
  return compiler.protobuf;
}

/**
 * @param {object} protobuf The protobufjs module
 * @returns {{serializers: number, compiled: number, slow: string[], moved: number}} Its
 * serializers' counts (lib/serializers/compile.js), all 0 without a compiler
 */
function serializerCounts(protobuf) {
  const known = byModule.get(protobuf);
  return known === undefined || known.compiler === null
    ? { serializers: 0, compiled: 0, slow: [], moved: 0 }
    : known.compiler.counts();
}

module.exports = { applySerializers, noteSetup, serializersOn, serializer, serializerCounts };
