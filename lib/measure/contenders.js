'use strict';

/**
 * The three ways one protobufjs copy can encode the user's messages, each with a Root of its own:
 * protobufjs's generated encoders with its own writer (`own`), the same encoders calling RustWriter
 * through the Writer API (`api`: `install(protobuf, { compiled: false })`, or
 * `PROTOBUFJS_RUSTWRITER_COMPILED=0`), and encoders compiled for RustWriter (`compiled`: what
 * `install()` and the preload give an app once its Types are hot). The compiled contender's Types
 * are compiled as they are set up (`promoteAfter` 0), rather than at their 16th encode, so that the
 * byte check before the timing covers the code that is timed.
 *
 * V8 shares type feedback and compiled code between functions of identical source
 * (docs/benchmark.md, "Timing"), and protobufjs generates the same source for a Type in every Root:
 * the `own` and `api` encoders would be one function, seeing two writer classes, slower for both.
 * So while a contender's Root is set up, the copy's `util.codegen` starts every function it
 * generates with a comment naming the contender, which makes each Root's sources its own.
 */

const { install, uninstall } = require('../integration/install');
const { rulesOf } = require('../encoders/rules');
const { isCompiled, whyKept } = require('../encoders/compile');
const settings = require('../writer/settings');
const { loadSchema, lookupType } = require('./load');

/** The contenders, in the order they are timed and reported. */
const CONTENDERS = ['own', 'api', 'compiled'];

/**
 * `codegen` that starts each generated function with `/* label *\/`.
 * @param {Function} codegen A protobufjs copy's `util.codegen`
 * @param {string} label Comment text (no `%`, no `*\/`)
 * @returns {Function} The labelling codegen
 */
function labelled(codegen, label) {
  const comment = `/* ${label} */`;
  const wrapped = function codegen_labelled() {
    return codegen.apply(this, arguments)(comment);
  };
  Object.defineProperty(wrapped, 'verbose', {
    get: () => codegen.verbose,
    set: (value) => {
      codegen.verbose = value;
    },
  });
  return wrapped;
}

/**
 * Every message Type `type`'s encoding reaches (itself, its fields' message types, theirs...).
 * @param {object} protobuf protobufjs module
 * @param {object} type Type
 * @returns {object[]} Types
 */
function reachable(protobuf, type) {
  const seen = new Set([type]);
  const queue = [type];
  while (queue.length) {
    for (const field of queue.shift().fieldsArray) {
      const resolved = field.resolve().resolvedType;
      if (resolved instanceof protobuf.Type && !seen.has(resolved)) {
        seen.add(resolved);
        queue.push(resolved);
      }
    }
  }
  return [...seen];
}

/**
 * Loads the schema once per contender into `protobuf`, each Root's code generated with a label of
 * its own, and sets up every Type the measured one reaches (the compiled contender's under
 * `install(protobuf, { compiled: true })`, which is undone before returning, as is any install the
 * preload made: this process times protobufjs's own writer).
 * @param {object} protobuf protobufjs module
 * @param {string} label Names the copy in the generated sources
 * @param {string} schema Schema file (absolute)
 * @param {{paths: string[], keepCase: boolean}} options For {@link loadSchema}
 * @param {string|undefined} typeName `--type`
 * @returns {{types: {own: object, api: object, compiled: object}, compiled: boolean, whyNotCompiled: string|null}}
 *   Each contender's Type, whether the compiled contender's Type really got a compiled encoder, and
 *   if not, why, where the copy's encoder is not one the compiler mirrors (else its warning says)
 */
function loadContenders(protobuf, label, schema, options, typeName) {
  uninstall(protobuf);
  const codegen = protobuf.util.codegen;
  const types = {};
  for (const contender of CONTENDERS) {
    protobuf.util.codegen = labelled(codegen, `protobufjs-rustwriter measure: ${label}, ${contender}`);
    const tiers = contender === 'compiled' ? settings.configure({ promoteAfter: 0 }) : null;
    try {
      if (contender === 'compiled') install(protobuf, { compiled: true });
      const type = lookupType(protobuf, loadSchema(protobuf, schema, options), typeName, schema);
      for (const t of reachable(protobuf, type)) t.setup();
      types[contender] = type;
    } finally {
      if (contender === 'compiled') uninstall(protobuf);
      if (tiers !== null) settings.configure(tiers);
      protobuf.util.codegen = codegen;
    }
  }
  const compiled = isCompiled(types.compiled.encode);
  const why = compiled ? null : whyKept(types.compiled) || rulesOf(protobuf, null).why;
  return { types, compiled, whyNotCompiled: why };
}

/**
 * The Types a compiled contender's messages reach that keep protobufjs's encoder (lib/encoders/compile.js,
 * "Kept"), once its messages have been encoded (a nested Type is compiled, or kept, at its first
 * message).
 * @param {object} protobuf protobufjs module
 * @param {object} type The compiled contender's Type
 * @returns {Array<{type: string, why: string}>} Full names and why, in the order the Types are reached
 */
function keptOf(protobuf, type) {
  return reachable(protobuf, type)
    .filter((t) => whyKept(t) !== null)
    .map((t) => ({ type: t.fullName.replace(/^\./, ''), why: whyKept(t) }));
}

module.exports = { loadContenders, keptOf, CONTENDERS };
