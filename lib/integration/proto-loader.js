'use strict';

/**
 * Compiled serializers in @grpc/proto-loader (what @grpc/grpc-js services and clients, and
 * google-gax with every Google Cloud client, load their protos with): the package definitions each
 * copy hands out get, for every method, `requestSerialize` and `responseSerialize` (and in 0.8, each
 * message definition's `serialize`) from `serializer(Type)` (lib/integration/serializers.js), behind
 * proto-loader's own check for arrays and its error. Deserializers stay proto-loader's.
 *
 * proto-loader makes a serializer as `createSerializer(cls)`, a closure over the Type, in
 * build/src/index.js's `createPackageDefinition(root, options)`, which all five entry points end in
 * (`load`, `loadSync`, `fromJSON`, `loadFileDescriptorSetFromBuffer` and `...FromObject`, the same
 * in 0.7.0 to 0.8.1) and which is not exported. So the hook wraps the entry points and finds the
 * Root each one builds: `load` and `loadSync` get it from build/src/util.js's
 * `loadProtosWithOptions(Sync)` (wrapped on that module's exports, which index.js calls through),
 * the others from `Root#resolveAll` of proto-loader's protobufjs copy, which `createPackageDefinition`
 * calls first, noted only while such a call runs. The Root is the one whose Services, Types and
 * Enums, named as proto-loader names them, are exactly the definition's keys; each method's Types
 * are then its `resolvedRequestType` and `resolvedResponseType`, the Types proto-loader's closures
 * hold.
 */

const fs = require('fs');
const path = require('path');
const { serializer, serializersOn } = require('./serializers');
const { SERIALIZERS, envVar } = require('../env');

/** Marks a hooked proto-loader module (its exports object), and a wrapped `resolveAll`. */
const HOOKED = Symbol.for('protobufjs-rustwriter.protoLoader');
/** The versions whose build/src/index.js and util.js the hook was written against. */
const VERSIONS = /^0\.(?:7\.(?:\d|1[0-5])|8\.[01])$/;
/** The entry points that return package definitions synchronously. */
const SYNC = ['loadSync', 'fromJSON', 'loadFileDescriptorSetFromBuffer', 'loadFileDescriptorSetFromObject'];
/** The main module file of a proto-loader copy. */
const ENTRY = /[\\/]@grpc[\\/]proto-loader[\\/]build[\\/]src[\\/]index\.js$/;

/** Every proto-loader copy seen, by its exports object, in the order seen. */
const LOADERS = new Map();

/**
 * While an entry point of a hooked copy runs synchronously, the Roots it resolves:
 * `{ current: { roots } | null }`, one per process (every copy of this package shares it through a
 * registered symbol), so that a `Root#resolveAll` wrapped by one copy notes Roots for another's.
 */
const CAPTURE = Symbol.for('protobufjs-rustwriter.protoLoaderCapture');
const capture = sharedCapture();

/**
 * @returns {{current: {roots: object[]}|null}} The process's capture slot
 */
function sharedCapture() {
  const shared = globalThis[CAPTURE];
  if (shared !== null && typeof shared === 'object' && 'current' in shared) return shared;
  const own = { current: null };
  try {
    Object.defineProperty(globalThis, CAPTURE, { value: own });
  } catch {
    // a global object that takes no new property: this copy's own slot
  }
  return own;
}

/**
 * The package directory of a proto-loader copy and its version.
 * @param {string} filename Its build/src/index.js
 * @returns {{dir: string, version: string|null}} Directory and version
 */
function packageOf(filename) {
  const dir = path.resolve(path.dirname(filename), '..', '..');
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return { dir, version: pkg.name === '@grpc/proto-loader' ? String(pkg.version) : null };
  } catch {
    return { dir, version: null };
  }
}

/**
 * The exports of a module required already, by file (proto-loader's index.js required it before it
 * finished; under Bun, whose hook runs before a module is marked loaded, not `loaded` yet).
 * @param {string} file Module file
 * @returns {*} Its exports, or undefined
 */
function loaded(file) {
  const cached = require.cache[file];
  return cached ? cached.exports : undefined;
}

/**
 * The modules a proto-loader copy's build/src/index.js required: its build/src/util.js and its
 * protobufjs (the module object its `require("protobufjs")` returned), from the module's children,
 * else as its directory resolves them.
 * @param {object|undefined} module Its module
 * @param {string} dir Its package directory
 * @returns {{util: object|undefined, Protobuf: object|undefined}} Their exports
 */
function dependencies(module, dir) {
  const children = module && Array.isArray(module.children) ? module.children : [];
  const utilChild = children.find((c) => /[\\/]build[\\/]src[\\/]util\.js$/.test(c.filename));
  const protobufChild = children.find((c) => c.exports && typeof c.exports.Root === 'function' && typeof c.exports.Type === 'function');
  let util = utilChild && utilChild.exports;
  let Protobuf = protobufChild && protobufChild.exports;
  try {
    if (!util) util = loaded(require.resolve(path.join(dir, 'build', 'src', 'util.js')));
    if (!Protobuf) Protobuf = loaded(require.resolve('protobufjs', { paths: [dir] }));
  } catch {
    // not found: the caller says so
  }
  return { util, Protobuf };
}

/**
 * Hooks the proto-loader copy whose build/src/index.js is `filename`, once: its entry points hand
 * out compiled serializers from now on. Off under `PROTOBUFJS_RUSTWRITER_SERIALIZERS=0`.
 * @param {object} exports Its exports
 * @param {string} filename Its file
 * @param {object} [module] Its module (else found in `require.cache`)
 * @returns {undefined}
 */
function hookProtoLoader(exports, filename, module) {
  if (exports === null || typeof exports !== 'object' || LOADERS.has(exports)) return;
  // Not run to its end yet (met in the module cache while it loads protobufjs): hooked when it has.
  if (![...SYNC, 'load'].some((name) => typeof exports[name] === 'function')) return;
  const { dir, version } = packageOf(filename);
  const copy = { version, path: dir, hooked: false, why: null, definitions: 0, methods: 0, missed: 0 };
  LOADERS.set(exports, copy);
  if (envVar(SERIALIZERS) === '0') {
    copy.why = `${SERIALIZERS}=0`;
    return;
  }
  if (Object.prototype.hasOwnProperty.call(exports, HOOKED)) {
    copy.why = 'hooked by another copy of protobufjs-rustwriter in the process';
    return;
  }
  if (version === null || !VERSIONS.test(version)) {
    copy.why = `@grpc/proto-loader ${version || '(version unknown)'} is not a version the hook knows (0.7.0 to 0.8.1)`;
    return;
  }
  // Its build/src/util.js and protobufjs, found at the first call of an entry point: under Bun, the
  // hook runs before the module's own requires are listed.
  let deps = null;
  const ready = () => {
    if (deps !== null) return deps;
    const { util, Protobuf } = dependencies(module || require.cache[filename], dir);
    if (!util || typeof util.loadProtosWithOptions !== 'function' || typeof util.loadProtosWithOptionsSync !== 'function'
      || !Protobuf || typeof Protobuf.Root !== 'function' || typeof Protobuf.Root.prototype.resolveAll !== 'function') {
      copy.hooked = false;
      copy.why = 'its build/src/util.js or protobufjs is not as the hook expects';
      deps = false;
      return deps;
    }
    wrapResolveAll(Protobuf.Root);
    for (const name of ['loadProtosWithOptions', 'loadProtosWithOptionsSync']) {
      const original = util[name];
      const async = name === 'loadProtosWithOptions';
      util[name] = function loadProtos_rustwriter() {
        const ctx = capture.current;
        const result = original.apply(this, arguments);
        if (ctx === null) return result;
        if (!async) {
          ctx.roots.push(result);
          return result;
        }
        return result.then((root) => {
          ctx.roots.push(root);
          return root;
        });
      };
    }
    deps = { Protobuf };
    return deps;
  };
  for (const name of [...SYNC, 'load']) {
    const original = exports[name];
    if (typeof original !== 'function') continue;
    exports[name] = function protoLoader_rustwriter() {
      const found = ready();
      if (found === false) return original.apply(this, arguments);
      const saved = capture.current;
      const ctx = { roots: [] };
      capture.current = ctx;
      let result;
      try {
        result = original.apply(this, arguments);
      } finally {
        capture.current = saved;
      }
      if (name !== 'load') return patch(result, ctx.roots, found.Protobuf, copy);
      return result.then((definition) => patch(definition, ctx.roots, found.Protobuf, copy));
    };
  }
  Object.defineProperty(exports, HOOKED, { value: true });
  copy.hooked = true;
}

/**
 * Wraps `Root#resolveAll` of proto-loader's protobufjs copy, once, to note the Roots an entry point
 * resolves (and nothing else).
 * @param {Function} Root The copy's Root class
 * @returns {undefined}
 */
function wrapResolveAll(Root) {
  const original = Root.prototype.resolveAll;
  if (Object.prototype.hasOwnProperty.call(original, HOOKED)) return;
  const resolveAll_rustwriter = function resolveAll_rustwriter() {
    if (capture.current !== null) capture.current.roots.push(this);
    return original.apply(this, arguments);
  };
  Object.defineProperty(resolveAll_rustwriter, HOOKED, { value: original });
  Root.prototype.resolveAll = resolveAll_rustwriter;
}

/**
 * The Services, Types and Enums of a Root by the names proto-loader gives them (its
 * `getAllHandledReflectionObjects`).
 * @param {object} root Root
 * @param {object} Protobuf proto-loader's protobufjs
 * @returns {Map<string, object>} Objects by name
 */
function handled(root, Protobuf) {
  const out = new Map();
  const visit = (obj, parentName) => {
    const name = parentName === '' ? obj.name : `${parentName}.${obj.name}`;
    if (obj instanceof Protobuf.Service || obj instanceof Protobuf.Type || obj instanceof Protobuf.Enum) {
      out.set(name, obj);
    } else if ((obj instanceof Protobuf.Namespace || obj instanceof Protobuf.Root) && obj.nested !== undefined) {
      for (const key of Object.keys(obj.nested)) visit(obj.nested[key], name);
    }
  };
  visit(root, '');
  return out;
}

/**
 * proto-loader's serializer for `type`, compiled: its check for arrays and its error, then
 * `serializer(type)`.
 * @param {object} type Type
 * @returns {function(*): Buffer} Serializer
 */
function grpcSerializer(type) {
  const serialize = serializer(type);
  return function serialize_rustwriter(arg) {
    if (Array.isArray(arg)) {
      throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    }
    return serialize(arg);
  };
}

/**
 * Puts compiled serializers into a package definition, where its Types' copy has them.
 * @param {object} definition What the entry point returned
 * @param {object[]} roots The Roots it resolved
 * @param {object} Protobuf proto-loader's protobufjs
 * @param {object} copy The proto-loader copy's record
 * @returns {object} `definition`
 */
function patch(definition, roots, Protobuf, copy) {
  if (definition === null || typeof definition !== 'object') return definition;
  const keys = Object.keys(definition);
  let objects = null;
  for (let r = roots.length - 1; r >= 0 && objects === null; --r) {
    const named = handled(roots[r], Protobuf);
    if (named.size === keys.length && keys.every((key) => named.has(key))) objects = named;
  }
  if (objects === null || !serializersOn(Protobuf)) {
    copy.missed++;
    return definition;
  }
  copy.definitions++;
  for (const key of keys) {
    const obj = objects.get(key);
    const def = definition[key];
    if (obj instanceof Protobuf.Service) {
      for (const method of obj.methodsArray) {
        const m = def[method.name];
        if (m === null || typeof m !== 'object' || typeof m.requestSerialize !== 'function') continue;
        const request = method.resolvedRequestType;
        const response = method.resolvedResponseType;
        m.requestSerialize = grpcSerializer(request);
        m.responseSerialize = grpcSerializer(response);
        if (m.requestType && typeof m.requestType.serialize === 'function') m.requestType.serialize = m.requestSerialize;
        if (m.responseType && typeof m.responseType.serialize === 'function') m.responseType.serialize = m.responseSerialize;
        copy.methods++;
      }
    } else if (obj instanceof Protobuf.Type && def !== null && typeof def === 'object' && typeof def.serialize === 'function') {
      def.serialize = grpcSerializer(obj);
    }
  }
  return definition;
}

/**
 * Hooks the proto-loader copies already loaded (the preload's start, and `install()`).
 * @returns {undefined}
 */
function hookLoadedProtoLoaders() {
  for (const id of Object.keys(require.cache)) {
    const cached = require.cache[id];
    if (cached && cached.loaded && ENTRY.test(cached.filename)) {
      hookProtoLoader(cached.exports, cached.filename, cached);
    }
  }
}

/**
 * @returns {Array<{version: string|null, path: string, hooked: boolean, why: string|null,
 *   definitions: number, methods: number, missed: number}>} Each proto-loader copy seen: whether it
 * is hooked (and why not), the package definitions that got compiled serializers, their methods,
 * and the definitions that did not (no Root found, or the Types' copy without serializers)
 */
function protoLoaders() {
  return [...LOADERS.values()].map((c) => ({ ...c }));
}

module.exports = { hookProtoLoader, hookLoadedProtoLoaders, protoLoaders, ENTRY, VERSIONS };
