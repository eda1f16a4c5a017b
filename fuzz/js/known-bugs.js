'use strict';

/**
 * KNOWN BUGS: failures of RustWriter that `npm run fuzz:js` finds on this branch's lib/, each
 * with the bug number (issue 18) or `new-N` for those the fuzzer found beyond it, a
 * predicate that recognises its failures, and its minimal sequence (`repro`, from the shrinker).
 *
 * The entries are tried in order, those that look at the failing step itself before those that
 * look for a cause anywhere earlier in the sequence.
 *
 * A failure this list recognises is reported as "KNOWN BUG", never as passing: test/fuzz-js.test.js
 * marks its run pending and prints the count. Each entry's `repro` must still fail on its
 * `paths`, or the test fails and asks for the entry to go: empty this list as the fixes land.
 */

/** The methods that read an array's elements after reserving room. */
const ELEMENTWISE = new Set(['bytes', 'raw', 'uint32s', 'int32s', 'sint32s', 'uint64s', 'int64s', 'sint64s', 'bools',
  'fixed32s', 'sfixed32s', 'fixed64s', 'sfixed64s', 'floats', 'doubles']);
const WRITES = new Set(['uint32', 'int32', 'sint32', 'uint64', 'int64', 'sint64', 'bool', 'fixed32', 'sfixed32', 'fixed64',
  'sfixed64', 'float', 'double', 'bytes', 'string', 'raw', 'uint32s', 'int32s', 'sint32s', 'uint64s', 'int64s', 'sint64s',
  'bools', 'fixed32s', 'sfixed32s', 'fixed64s', 'sfixed64s', 'floats', 'doubles', 'fork', 'reset', 'ldelim']);
const ENCODES_64 = new Set(['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64', 'uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s']);
const ENCODES_FLOAT = new Set(['float', 'double', 'floats', 'doubles']);

/**
 * Every action inside a value description, with what reads the value it belongs to.
 * @param {object} d Description
 * @param {string} phase `arg` for the method's argument, `element` inside it
 * @param {Array<{act: object, phase: string, holder: object}>} out Found so far
 * @returns {Array<{act: object, phase: string, holder: object}>} `out`
 */
function actsIn(d, phase = 'arg', out = []) {
  if (d === null || typeof d !== 'object') return out;
  const inner = 'element';
  switch (d.k) {
    case 'conv': out.push({ act: d.act, phase, holder: d }); break;
    case 'longlike': out.push({ act: d.lowAct, phase, holder: d }, { act: d.highAct, phase, holder: d }); actsIn(d.low, phase, out); break;
    case 'lh': actsIn(d.low, phase, out); actsIn(d.high, phase, out); break;
    case 'arr': for (const e of d.elems || (d.put || []).map((p) => p[1])) actsIn(e, inner, out); break;
    case 'arraylike': for (const e of d.elems) actsIn(e, inner, out); break;
    case 'getters': for (const [, act] of d.acts) out.push({ act, phase: inner, holder: d }); actsIn(d.base, phase, out); break;
    case 'proxy': for (const [key, act] of d.acts) out.push({ act, phase: key === 'length' ? 'length' : inner, holder: d }); actsIn(d.over, phase, out); break;
    case 'typed': if (d.lengthAct) out.push({ act: d.lengthAct, phase: 'length', holder: d }); break;
    default:
  }
  return out;
}

/** The steps of a failure up to the one that failed. */
const stepsOf = (f) => (f.desc ? f.desc.steps.filter(Boolean).slice(0, f.step === null ? undefined : f.step + 1) : []);
/** The step that failed. */
const failingStep = (f) => (f.desc && f.step !== null ? f.desc.steps[f.step] : null);
/** An action's calls on a writer: `self`, or the writer `w` by name. */
const callsOn = (act, w) => (act && act.a === 'do' && (act.on === 'self' || act.on === w) ? act.calls.map((c) => c[0]) : []);

/**
 * Whether `step` is an element-wise call one of whose elements' callbacks finishes or changes
 * the writer making that call.
 * @param {object} step Step
 * @returns {boolean} Whether it is
 */
function reentersItself(step) {
  if (!step || !ELEMENTWISE.has(step.op) || !step.args) return false;
  return actsIn(step.args[0]).some(({ act, phase }) => phase === 'element' &&
    callsOn(act, step.w).some((op) => op === 'finish' || op === 'finishInto' || WRITES.has(op)));
}

/**
 * Whether `step` is an element-wise call one of whose elements' callbacks reads `pos` of the
 * writer making that call.
 * @param {object} step Step
 * @returns {boolean} Whether it is
 */
function readsOwnPos(step) {
  if (!step || !ELEMENTWISE.has(step.op) || !step.args) return false;
  return actsIn(step.args[0]).some(({ act, phase }) => phase === 'element' && callsOn(act, step.w).includes('pos'));
}

/**
 * Whether a step encodes, inside a callback, with the scratch state the step itself is using:
 * a Long-like whose getter encodes 64-bit values (or measures or finishes a writer, which reads
 * 64-bit elements), or float elements whose conversion encodes floats.
 * @param {object} step Step
 * @returns {boolean} Whether it does
 */
function reusesScratch(step) {
  if (!step || !step.args) return false;
  return actsIn(step.args[0]).some(({ act, holder }) => {
    const ops = act && act.a === 'do' ? act.calls.map((c) => c[0]) : [];
    if (holder.k === 'longlike') return ops.some((op) => ENCODES_64.has(op) || op === 'pos' || op === 'finish' || op === 'finishInto');
    return (step.op === 'floats' || step.op === 'doubles') && ops.some((op) => ENCODES_FLOAT.has(op));
  });
}

/** The typed arrays RustWriter takes as they are, per method (lib/packed.js's `instanceof` tests). */
const SPECIAL = {
  bytes: ['Uint8Array'], uint32s: ['Int32Array', 'Uint32Array'], int32s: ['Int32Array', 'Uint32Array'], sint32s: ['Int32Array', 'Uint32Array'],
  fixed32s: ['Int32Array', 'Uint32Array'], sfixed32s: ['Int32Array', 'Uint32Array'], floats: ['Float32Array'], doubles: ['Float64Array'],
};
for (const m of ['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s']) SPECIAL[m] = ['BigInt64Array', 'BigUint64Array'];

/**
 * Whether `step` gives a packed method (or `bytes`) a Proxy of a typed array of the type it
 * takes as it is.
 * @param {object} step Step
 * @returns {boolean} Whether it does
 */
function proxiesTyped(step) {
  const d = step && step.args && step.args[0];
  return Boolean(d && d.k === 'proxy' && d.over.k === 'typed' && SPECIAL[step.op] && SPECIAL[step.op].includes(d.over.type));
}

/**
 * Whether `step` gives `floats` a Float32Array (or a Proxy of one) holding a signalling NaN.
 * @param {object} step Step
 * @returns {boolean} Whether it does
 */
function signallingNaN(step) {
  const d = step && step.op === 'floats' && step.args && step.args[0];
  const t = d && d.k === 'proxy' ? d.over : d;
  return Boolean(t && t.k === 'typed' && t.type === 'Float32Array' && t.snan && t.snan.length);
}

/** Whether RustWriter's log shows a callback's finish() throwing where protobufjs's does not, or
 * the other way round (`throws`: which side throws). */
const callbackFinish = (f, throws) => Boolean(f.logs) && f.logs[throws].some((e) => /\.finish(Into)? threw Error$/.test(e)) &&
  !f.logs[throws === 'R' ? 'P' : 'R'].some((e) => /\.finish(Into)? threw Error$/.test(e));

/**
 * Whether `step` is an element-wise call one of whose elements throws.
 * @param {object} step Step
 * @returns {boolean} Whether it is
 */
function throwsInElements(step) {
  return Boolean(step && ELEMENTWISE.has(step.op) && step.args) &&
    actsIn(step.args[0]).some(({ act, phase }) => phase === 'element' && act && act.a === 'throw');
}

/** Whether a step, or a callback in it, resets a writer. */
const resets = (s) => s.op === 'reset' || (s.args || []).some((d) => actsIn(d).some(({ act }) => callsOn(act, s.w).includes('reset') || (act && act.a === 'do' && act.calls.some((c) => c[0] === 'reset'))));

const KNOWN_BUGS = [
  {
    bug: '1',
    title: 'a packed method, bytes() or raw() that throws part-way keeps the room it reserved (stale bytes in the output)',
    match: (f) => (f.kind === 'after-throw' && ELEMENTWISE.has(f.op)) || (f.kind === 'canary' && stepsOf(f).some(throwsInElements)),
    repro: { path: 'native', desc: {"seed": 7, "steps": [{"op": "create", "w": "w0"}, {"op": "bytes", "w": "w0", "args": [{"k": "arraylike", "length": {"k": "num", "v": 2}, "elems": [{"k": "conv", "id": "v2", "via": "valueOf", "ret": {"k": "num", "v": 0}, "act": {"a": "throw"}}]}]}]} },
  },
  {
    bug: '4-length',
    title: "a typed array's own length getter or a Proxy's length is read more often than protobufjs reads it (at the call, and at pos/finish() when kept by reference)",
    match: (f) => f.kind === 'log' && Boolean(f.lengthReads) && f.lengthReads.R !== f.lengthReads.P,
    repro: { path: 'native', desc: {"seed": 2, "steps": [{"op": "create", "w": "w1"}, {"op": "bytes", "w": "w1", "args": [{"k": "typed", "id": "v2", "type": "Uint8Array", "lengthAct": {"a": "none"}, "values": [0]}]}]} },
  },
  {
    bug: '2-pos',
    title: 'a callback that reads pos of the writer whose packed/bytes/raw call is reading its elements sees the room reserved (protobufjs: the position before the call)',
    match: (f) => f.kind === 'log' && readsOwnPos(failingStep(f)),
    repro: { path: 'native', desc: {"seed": 82, "steps": [{"op": "create", "w": "w0"}, {"op": "sfixed32s", "w": "w0", "args": [{"k": "arr", "n": 34, "seed": 716114773, "dist": "small", "put": [[33, {"k": "conv", "id": "v5", "via": "valueOf", "ret": {"k": "num", "v": 0}, "act": {"a": "do", "on": "self", "calls": [["pos"]]}}]]}]}]} },
  },
  {
    bug: '4-sint32s',
    title: 'sint32s() of a plain array on the native path reads each element once (protobufjs twice)',
    match: (f) => f.kind === 'log' && f.op === 'sint32s' && f.path.startsWith('native') && f.logs && f.logs.R.length < f.logs.P.length,
    repro: { path: 'native-entries', desc: {"seed": 93, "steps": [{"op": "create", "w": "w1"}, {"op": "sint32s", "w": "w1", "args": [{"k": "arr", "elems": [{"k": "conv", "id": "v3", "via": "valueOf", "ret": {"k": "num", "v": 0}, "act": {"a": "none"}}]}]}]} },
  },
  {
    bug: 'new-detached-fixed64s',
    title: 'fixed64s()/sfixed64s() of a detached BigInt64Array/BigUint64Array throw a TypeError (protobufjs writes an empty field)',
    match: (f) => f.kind === 'error' && (f.op === 'fixed64s' || f.op === 'sfixed64s') && f.threw && f.threw.R === 'TypeError' && f.threw.P === null,
    repro: { path: 'native', desc: {"seed": 350, "steps": [{"op": "create", "w": "w0"}, {"op": "fixed64s", "w": "w0", "args": [{"k": "typed", "id": "v1", "type": "BigUint64Array", "detached": true, "values": []}]}]} },
  },
  {
    bug: '4-detached-pos',
    title: 'after an array kept by reference is detached or resized, pos is wrong or throws before finish()',
    match: (f) => (f.kind === 'pos' || f.kind === 'invariant') && f.op === 'mutate',
    repro: { path: 'native-entries', desc: {"seed": 212, "steps": [{"op": "create", "w": "w0"}, {"op": "uint64s", "w": "w0", "args": [{"k": "typed", "id": "v3", "type": "BigInt64Array", "buffer": "tracking", "values": ["0"]}]}, {"op": "mutate", "id": "v3", "how": "shrink", "by": 1, "seed": 1442153095}]} },
  },
  {
    bug: '4-reset-detached',
    title: 'a kept array dropped by reset() still makes finish() throw when it is detached later',
    match: (f) => ((f.kind === 'error' && (f.op === 'finish' || f.op === 'finishInto') && f.threw && f.threw.R === 'Error' && f.threw.P === null) ||
      (f.kind === 'log' && callbackFinish(f, 'R'))) && stepsOf(f).some(resets) && stepsOf(f).some((s) => s.op === 'mutate'),
    repro: { path: 'native', desc: {"seed": 3846, "steps": [{"op": "create", "w": "w1"}, {"op": "fork", "w": "w1"}, {"op": "sint64s", "w": "w1", "args": [{"k": "typed", "id": "v2", "type": "BigUint64Array", "n": 128, "seed": 372636949, "dist": "big", "buffer": "tracking"}]}, {"op": "reset", "w": "w1"}, {"op": "mutate", "id": "v2", "how": "grow", "by": 4096, "seed": 1851578206}, {"op": "fork", "w": "w1"}, {"op": "finish", "w": "w1", "args": []}]} },
  },
  {
    bug: '4-grown',
    title: 'a length-tracking view given to fixed32s/floats/doubles/fixed64s and then grown does not make finish() throw',
    match: (f) => ((f.kind === 'error' && (f.op === 'finish' || f.op === 'finishInto') && f.threw && f.threw.R === null && f.threw.P === 'Error') ||
      (f.kind === 'log' && callbackFinish(f, 'P'))) && stepsOf(f).some((s) => s.op === 'mutate' && s.how === 'grow'),
    repro: { path: 'native', desc: {"seed": 0, "steps": [{"op": "create", "w": "w0"}, {"op": "doubles", "w": "w0", "args": [{"k": "typed", "id": "v1", "type": "Float64Array", "n": 2048, "seed": 1, "dist": "float", "buffer": "tracking"}]}, {"op": "mutate", "id": "v1", "how": "grow", "by": 64, "seed": 1}, {"op": "finish", "w": "w0", "args": []}]} },
  },
  {
    bug: '4-snan',
    title: 'a Float32Array holding a signalling NaN is copied bit for bit (protobufjs writes the quiet NaN)',
    match: (f) => (f.kind === 'bytes' || f.kind === 'log') && stepsOf(f).some(signallingNaN),
    repro: { path: 'native', desc: {"seed": 470, "steps": [{"op": "create", "w": "w0"}, {"op": "floats", "w": "w0", "args": [{"k": "typed", "id": "v4", "type": "Float32Array", "n": 627, "seed": 531159862, "dist": "float", "snan": [527]}]}, {"op": "finish", "w": "w0", "args": []}]} },
  },
  {
    bug: 'new-proxy',
    title: "a Proxy of a typed array passes RustWriter's instanceof tests: it is kept by reference and read through its traps at pos and finish() (user code runs there, even recursively), or its buffer is copied without the traps",
    match: (f) => f.kind !== 'after-throw' && stepsOf(f).some(proxiesTyped),
    repro: { path: 'native', desc: {"seed": 289, "steps": [{"op": "create", "w": "w0"}, {"op": "int64s", "w": "w0", "args": [{"k": "proxy", "id": "v2", "over": {"k": "typed", "id": "v1", "type": "BigUint64Array", "n": 128, "seed": 977056181, "dist": "big"}, "acts": []}]}]} },
  },
  {
    bug: '3',
    title: 'shared scratch clobbered by re-entrancy: a Long-like getter or a float element that encodes with any writer (or measures or finishes one with 64-bit fields)',
    match: (f) => (f.kind === 'pos' || f.kind === 'bytes' || f.kind === 'log') && stepsOf(f).some(reusesScratch),
    repro: { path: 'native', desc: {"seed": 142, "steps": [{"op": "create", "w": "w0"}, {"op": "uint64", "w": "w0", "args": [{"k": "longlike", "id": "v2", "low": {"k": "num", "v": 189701887}, "high": {"k": "num", "v": 0}, "lowAct": {"a": "none"}, "highAct": {"a": "do", "on": "new", "calls": [["sint64", {"k": "num", "v": 0}]]}}]}]} },
  },
  {
    bug: '2',
    title: "a callback that finishes or writes to the writer whose packed/bytes/raw call is reading its elements breaks it (negative pos, changed results, others' bytes)",
    match: (f) => f.kind !== 'after-throw' && stepsOf(f).some(reentersItself),
    repro: { path: 'native', desc: {"seed": 20, "steps": [{"op": "create", "w": "w0"}, {"op": "fixed32s", "w": "w0", "args": [{"k": "arr", "n": 37, "seed": 1992015764, "dist": "small", "put": [[36, {"k": "conv", "id": "v1", "via": "valueOf", "ret": {"k": "num", "v": 0}, "act": {"a": "do", "on": "w0", "calls": [["finish"]]}}]]}]}]} },
  },
];

/**
 * @param {object} failure Failure record (check.js)
 * @returns {object|null} The known bug it is, or null
 */
function classify(failure) {
  for (const bug of KNOWN_BUGS) if (bug.match(failure)) return bug;
  return null;
}

module.exports = { KNOWN_BUGS, classify };
