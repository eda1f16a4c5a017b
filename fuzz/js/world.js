'use strict';

/**
 * A world runs one sequence's calls on writers of one kind: RustWriter's world, or the
 * reference world (the `BufferWriter` of protobufjs 8.8.1's reference copy, test/reference.js), which
 * also models the differences README "Compatibility with protobufjs" lists, so that the two must
 * then agree exactly. The reference copy itself has learned those of them that are its writer's,
 * each a named rule in test/reference.js: a BigInt to a 64-bit method (`bigIntAs64Bits`; values.js
 * also hands the reference the equal `Long`), the placeholder bytes of forks open at `finish()`
 * (`zeroOpenForkPlaceholders`), a signalling NaN's bits (`keepNaNBits`), and where a packed field
 * began (`noteFieldStarts`, which changes no byte: {@link World#keepRun} reads it). The world models
 * the rest:
 *
 * - `finish(true)`: protobufjs returns a view of its buffer; its bytes are read at once, so the
 *   aliasing never shows;
 * - a packed fixed-size method given an object whose `length` is no array length (test/misuse.test.js
 *   `brokenLength`): protobufjs breaks its writer, RustWriter throws a RangeError and changes
 *   nothing; the reference throws the RangeError without calling protobufjs; the same for
 *   `bytes`/`raw` of an array-like claiming 2 GiB or more (the size limit; protobufjs throws at
 *   that call or the next);
 * - not a listed difference but a protobufjs bug: a packed varint method given a `length` that is
 *   negative or not a number reserves no room, and with a full buffer writes its length byte past the end
 *   (finish() then returns an uninitialized byte there); the reference gets the room first;
 * - arrays RustWriter keeps by reference (`keptByRef`) and reads at `finish()`: the reference
 *   tracks where their bytes are; when one is changed in place after the call, it writes the new
 *   bytes there, as protobufjs would have written them; while one is detached or resized (its
 *   length differs from the call's), its writer's `finish()` throws an `Error`, until that array
 *   is dropped (by `reset()`, or by a `finish()` that returns);
 * - error messages differ, so only classes are compared.
 *
 * Hostile callbacks run in the world of the object that calls them; `self` is whichever writer's
 * method is reading the value (the top of {@link World#stack}), `new` a fresh writer of the world's
 * kind. Every callback and everything it sees is logged; the logs of the two worlds must match.
 *
 * - a callback that writes to, resets, forks, closes or finishes the writer whose packed method,
 *   `bytes` or `raw` is converting its elements (RustWriter *holds* that writer: see
 *   lib/writer/region.js): protobufjs interleaves the two and corrupts both, RustWriter throws an `Error`
 *   from the callback's call; the reference throws that `Error` instead of calling protobufjs,
 *   whose writer then goes on as RustWriter's does (`HOLDING`);
 * - `pos`, when RustWriter must measure (a varint field it keeps by reference is live) and an
 *   array it keeps was detached or resized: RustWriter throws `finish()`'s `Error`;
 *
 * Where protobufjs's own state becomes undefined, the writer is *tainted* (the reference world
 * decides): a callback changes a writer (a write, `fork`, `ldelim`, `reset`) while protobufjs is
 * inside that writer's method between reserving room and converting the values, and RustWriter
 * does not hold it (the argument of `float`, `double`, `fixed32`, which RustWriter converts before
 * it touches the writer), where protobufjs writes through a stale position. Also, the reference
 * cannot follow a varint field kept by reference whose elements change in place. A tainted writer
 * is no longer compared; its RustWriter results are still checked for invariants (check.js).
 */

const { materialize, LONG_METHODS, HostileError, typedLength, toLong, plainLength, isDetached } = require('./values');
const { prng } = require('../../tools/seeded');
const { className } = require('../values');

/** Methods that change a writer. */
const MUTATING = new Set(['uint32', 'int32', 'sint32', 'uint64', 'int64', 'sint64', 'bool', 'fixed32', 'sfixed32',
  'fixed64', 'sfixed64', 'float', 'double', 'bytes', 'string', 'raw', 'uint32s', 'int32s', 'sint32s', 'uint64s',
  'int64s', 'sint64s', 'bools', 'fixed32s', 'sfixed32s', 'fixed64s', 'sfixed64s', 'floats', 'doubles', 'fork',
  'reset', 'ldelim']);
/** Scalar methods for which protobufjs 8.8.1 reserves room before converting the argument. */
const CONVERTS_LATE = new Set(['float', 'double', 'fixed32', 'sfixed32']);
/** Methods that hold their writer while they convert its elements (lib/writer/region.js, "Holding"): a
 * call on that writer from a callback then throws an `Error`, and `pos` reads protobufjs's. */
const HOLDING = new Set(['bytes', 'raw', 'uint32s', 'int32s', 'sint32s', 'uint64s', 'int64s', 'sint64s', 'bools',
  'fixed32s', 'sfixed32s', 'fixed64s', 'sfixed64s', 'floats', 'doubles']);
/** What a held writer refuses. */
const REFUSED_WHEN_HELD = new Set([...MUTATING, 'finish', 'finishInto']);
/** Methods of one scalar value, which RustWriter converts before it touches the writer. */
const SCALAR = new Set(['uint32', 'int32', 'sint32', 'uint64', 'int64', 'sint64', 'bool', 'fixed32', 'sfixed32',
  'fixed64', 'sfixed64', 'float', 'double']);

/**
 * The reference's model of RustWriter refusing a call on a writer that one of its own calls holds.
 * @param {string} op Method
 * @returns {Error} What RustWriter throws
 */
function heldError(op) {
  return new Error(`modelled: RustWriter refuses ${op}() from inside a conversion of the same writer`);
}
/** Methods that read an array-like's `length` a second time, inside the hold (protobufjs's `set`). */
const SECOND_LENGTH = new Set(['bytes', 'raw']);
/** Packed varint methods. */
const VARINT_PACKED = new Set(['uint32s', 'int32s', 'sint32s', 'uint64s', 'int64s', 'sint64s']);
/** Packed fixed-size methods (README "Compatibility": odd lengths). */
const FIXED_PACKED = new Set(['fixed32s', 'sfixed32s', 'fixed64s', 'sfixed64s', 'floats', 'doubles', 'bools']);

/**
 * RustWriter's fast-path bounds (lib/writer/packed.js `SHORT`, `BULK_FLOATS_MIN`): below them a packed
 * field is written at the call whatever the thresholds. They only matter when the tests move
 * `refMin` below 4 KiB.
 */
const SHORT = 128;
const BULK_FLOATS_MIN = 16;

/**
 * Whether protobufjs 8.8.1 breaks its writer on a packed call with this `length` (as
 * test/misuse.test.js `brokenLength`): RustWriter throws a RangeError instead.
 * @param {string} method Method
 * @param {*} n The `length`
 * @returns {boolean} Whether it does
 */
function brokenLength(method, n) {
  return FIXED_PACKED.has(method) && typeof n !== 'bigint' &&
    (n * 1 !== (n * 1) >>> 0 || (method === 'bools' && typeof n !== 'number'));
}

/**
 * How RustWriter keeps a typed-array argument by reference, per README "Compatibility" (the rows
 * on `bytes` and on packed methods given typed arrays), or null when it reads it at the call.
 * @param {string} method Method
 * @param {object} d The argument's description
 * @param {{native: boolean, runMinTyped: number, refMin: number}} t Path thresholds
 * @returns {{kind: string, len: number, bytes: number}|null} `kind`: `bytes` or `fixed` (the
 * array's bytes, or protobufjs's encoding of its elements, stand at the end of the call's
 * bytes) or `varint`
 */
function keptByRef(method, d, t) {
  if (d.k !== 'typed' || d.detached) return null;
  const n = d.values ? d.values.length : d.n;
  const type = d.type;
  const int32 = type === 'Int32Array' || type === 'Uint32Array';
  const big = type === 'BigInt64Array' || type === 'BigUint64Array';
  switch (method) {
    case 'bytes': return type === 'Uint8Array' && n >= t.refMin ? { kind: 'bytes', len: n, bytes: n } : null;
    case 'uint32s': case 'int32s': case 'sint32s':
      return t.native && int32 && n >= t.runMinTyped ? { kind: 'varint', len: n, bytes: 0 } : null;
    case 'uint64s': case 'int64s': case 'sint64s':
      return t.native && big && n >= t.runMinTyped ? { kind: 'varint', len: n, bytes: 0 } : null;
    case 'fixed32s': case 'sfixed32s':
      return int32 && n >= SHORT && 4 * n >= t.refMin ? { kind: 'fixed', len: n, bytes: 4 * n } : null;
    case 'floats':
      return type === 'Float32Array' && n >= BULK_FLOATS_MIN && 4 * n >= t.refMin ? { kind: 'fixed', len: n, bytes: 4 * n } : null;
    case 'doubles':
      return type === 'Float64Array' && n >= BULK_FLOATS_MIN && 8 * n >= t.refMin ? { kind: 'fixed', len: n, bytes: 8 * n } : null;
    case 'fixed64s': case 'sfixed64s':
      return big && 8 * n >= t.refMin ? { kind: 'fixed', len: n, bytes: 8 * n } : null;
    default: return null;
  }
}

/** RustWriter's cap on RUN entries per message (protocol.json `MAX_RUNS`): past it, JS writes them. */
const MAX_RUNS = require('../../protocol.json').MAX_RUNS;

/**
 * Whether RustWriter hands a packed varint field converted from something other than a typed
 * array it keeps (a plain array, an array-like, a Proxy) to the native encoder as a RUN entry
 * (lib/writer/packed.js `varints32`): its `pos` then measures, so it throws when a kept array changed.
 * @param {string} method Method
 * @param {object} d The argument's description
 * @param {{native: boolean, runMin: number, runMinTyped: number}} t Path thresholds
 * @param {number} runs RUN entries the writer holds
 * @returns {boolean} Whether it does
 */
function convertedRun(method, d, t, runs) {
  if (!t.native || runs >= MAX_RUNS || !['uint32s', 'int32s', 'sint32s'].includes(method) || !d) return false;
  if (d.k === 'typed' && !d.detached && (d.type === 'Int32Array' || d.type === 'Uint32Array')) return false; // kept, or short
  const n = plainLength(d);
  const count = n === n >>> 0 ? n : n * 1 > 0 ? Math.ceil(n * 1) : 0;
  return count >= Math.min(SHORT, t.runMinTyped) && count >= t.runMin;
}

/**
 * A 32-bit hash of a string (FNV-1a), for canaries.
 * @param {string} s String
 * @returns {number} Hash
 */
function hash32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The 8 marker bytes of writer `name` in the sequence of `seed`.
 * @param {number} seed Sequence seed
 * @param {string} name Writer name
 * @returns {Buffer} Bytes
 */
function canaryBytes(seed, name) {
  const r = prng(hash32(`${seed}:${name}`));
  const b = Buffer.allocUnsafe(8);
  for (let i = 0; i < 8; i++) b[i] = Math.floor(r() * 256);
  b[0] = 0xc7; // never a small varint: a canary cannot start inside ordinary small data
  return b;
}

class World {
  /**
   * @param {boolean} ref Whether this is the reference world
   * @param {object} env `create()` (a writer of this world's kind), `protobuf` (for the
   * reference's encodings), `thresholds`
   * @param {object} seq Shared sequence state (check.js): `seed`, `taint(name, why)`,
   * `tainted`, `keep(buf, label)`
   */
  constructor(ref, env, seq) {
    this.ref = ref;
    this.env = env;
    this.seq = seq;
    /** @type {Map<string, object>} live writers by name */
    this.writers = new Map();
    /** active writer calls, innermost last: `{name, op, unsafe}` */
    this.stack = [];
    /** @type {string[]} what user code ran and saw */
    this.log = [];
    /** @type {Map<string, ArrayBufferView[]>} typed arrays by description id */
    this.arrays = new Map();
    /** reference only: per writer, the arrays RustWriter keeps by reference */
    this.pending = new Map();
    /** RustWriter only: per writer, the names whose canaries were written to it */
    this.wrote = new Map();
    /** ids of values whose callback is running */
    this.active = new Set();
    /** writers created in this world so far (a callback's `new` writers included) */
    this.created = 0;
  }

  /**
   * @param {string} name Writer name
   * @returns {Buffer} Its canary
   */
  canary(name) {
    return canaryBytes(this.seq.seed, name);
  }

  /**
   * @param {string} name Writer name
   * @returns {object} A new writer of this world's kind, under `name`
   */
  create(name) {
    const w = this.env.create();
    this.created++;
    this.writers.set(name, w);
    this.pending.set(name, []);
    this.wrote.set(name, new Set());
    return w;
  }

  /**
   * Keeps a typed array under its description id, for `mutate` steps.
   * @param {string} id Id
   * @param {ArrayBufferView} ta Typed array
   * @returns {undefined}
   */
  registerArray(id, ta) {
    if (!this.arrays.has(id)) this.arrays.set(id, []);
    this.arrays.get(id).push(ta);
  }

  /**
   * A hostile callback ran: logs it, notes that the method reading the value has begun
   * converting (protobufjs has reserved room by then, see CONVERTS_LATE), and acts.
   * @param {string} id The value's id
   * @param {string} event What ran
   * @param {object|null} act What it does
   * @param {string} phase `arg`, `element` or `length` (what read the value)
   * @returns {undefined}
   */
  fire(id, event, act, phase) {
    if (this.active.has(id)) {
      // The value's own callback made it run again (protobufjs never does; RustWriter may, when
      // it reads a kept value at pos or finish()): logged, but not acted on, so that no callback
      // recurses without end.
      this.log.push(`${id} ${event} again, inside its own callback`);
      return;
    }
    this.log.push(`${id} ${event}`);
    const frame = this.stack[this.stack.length - 1];
    if (frame !== undefined && phase === 'length' && SECOND_LENGTH.has(frame.op) && ++frame.lengthReads === 2) frame.held = true;
    if (frame !== undefined && phase === 'element' && HOLDING.has(frame.op)) frame.held = true;
    else if (frame !== undefined && phase === 'arg' && CONVERTS_LATE.has(frame.op)) frame.unsafe = true;
    if (!act || act.a === 'none') return;
    this.active.add(id);
    try {
      this.runAct(id, act);
    } finally {
      this.active.delete(id);
    }
  }

  /**
   * Runs a callback's action: `throw`, or `do` (calls on `self`, a named writer or a `new` one,
   * which is then finished; each result and error is logged).
   * @param {string} id The value's id
   * @param {object} act Action
   * @returns {undefined}
   */
  runAct(id, act) {
    if (act.a === 'throw') throw new HostileError(`hostile ${id}`);
    if (act.a !== 'do') return;
    let name = act.on;
    if (act.on === 'self') {
      const frame = this.stack[this.stack.length - 1];
      if (frame === undefined) return;
      name = frame.name;
    } else if (act.on === 'new') {
      name = `${id}+new`;
      this.create(name);
    }
    for (const [op, ...args] of act.calls) {
      let seen;
      try {
        const out = this.invoke(name, op, args);
        if (out !== null && out.hex !== undefined) seen = `= ${out.hex}`;
        if (out !== null && out.pos !== undefined) seen = `= ${out.pos}`;
      } catch (err) {
        if (err instanceof HostileError) throw err;
        seen = `threw ${className(err)}`;
      }
      // What a tainted writer does is not compared (check.js checks its invariants).
      if (this.seq.tainted.has(name)) seen = '(tainted)';
      if (seen !== undefined) this.log.push(`${id} ${act.on}.${op} ${seen}`);
    }
    if (act.on === 'new') {
      try {
        this.log.push(`${id} new = ${this.invoke(name, 'finish', []).hex}`);
      } catch (err) {
        this.log.push(`${id} new.finish threw ${className(err)}`);
      }
      this.writers.delete(name);
    }
  }

  /**
   * Calls `op` on writer `name` with the values of `argDescs`.
   * @param {string} name Writer name
   * @param {string} op Method, or `finish`, `finishInto`, `pos`
   * @param {object[]} argDescs Argument descriptions
   * @param {object} [step] The step, when called by the sequence itself (not a callback)
   * @returns {object|null} `{hex}` for a finish, `{pos}`, `{notThis}` when a method did not
   * return its writer, `{}`; null when there is no such writer
   */
  invoke(name, op, argDescs, step) {
    const w = this.writers.get(name);
    if (w === undefined) return null;
    const refused = this.ref && REFUSED_WHEN_HELD.has(op) && this.stack.some((f) => f.name === name && f.held);
    if (refused && !SCALAR.has(op)) throw heldError(op);
    if (this.ref && MUTATING.has(op)) {
      for (const f of this.stack) {
        if (f.name === name && f.unsafe) this.seq.taint(name, `a callback's ${op}() re-entered ${f.op}() on the same writer`);
      }
    }
    argDescs = argDescs.map((d) => (d && d.k === 'canary' && d.of === '@this' ? { k: 'canary', of: name } : d));
    const ctx = { long64: LONG_METHODS.has(op), phase: 'arg' };
    const args = op === 'finishInto' ? [] : argDescs.map((d) => materialize(d, this, ctx));
    if (!this.ref && (op === 'raw' || op === 'bytes') && argDescs[0] && argDescs[0].k === 'canary') this.wrote.get(name).add(argDescs[0].of);
    const before = this.ref ? this.snapshot(name) : null;
    const frame = { name, op, unsafe: false, held: false, lengthReads: 0 };
    this.stack.push(frame);
    let out;
    try {
      if (refused) {
        // A scalar method converts its argument before it needs room, where RustWriter refuses:
        // the conversion runs (on a writer of the reference's kind that is then dropped), and
        // an argument protobufjs rejects gets protobufjs's error, not the refusal.
        this.env.create()[op](...args);
        throw heldError(op);
      }
      out = this.call(name, w, op, args, argDescs, step);
    } finally {
      this.stack.pop();
    }
    if (this.ref) {
      this.track(name, w, op, argDescs, before);
      // A callback's packed call that RustWriter makes a RUN entry of (a sequence step's is noted
      // by check.js once both worlds returned; a callback's must return alike, or the logs differ).
      const { thresholds } = this.env;
      const run = step === undefined && convertedRun(op, argDescs[0], thresholds, this.runCount(name));
      if (run) this.keepRun(name);
    }
    return out;
  }

  /**
   * The call itself.
   * @returns {object} See {@link World#invoke}
   */
  call(name, w, op, args, argDescs, step) {
    switch (op) {
      case 'finish': {
        this.modelFinish(name);
        return { hex: this.resultHex(name, w, w.finish(...args), 0, step) };
      }
      case 'finishInto': {
        this.modelFinish(name);
        const [extra, offset] = argDescs;
        const before = w.pos;
        const target = Buffer.alloc(before + extra + (offset || 0), 0xee);
        const returned = offset === null ? w.finishInto(target) : w.finishInto(target, offset);
        if (returned !== target) return { hex: 'finishInto did not return its target' };
        return { hex: this.resultHex(name, w, target, offset || 0, step) };
      }
      case 'pos':
        this.modelPos(name);
        return { pos: w.pos };
      default: {
        if (this.ref && argDescs[0]) {
          const n = plainLength(argDescs[0]);
          if (FIXED_PACKED.has(op) && brokenLength(op, n)) throw new RangeError('modelled: RustWriter refuses a packed length that is no array length');
          if ((op === 'bytes' || op === 'raw') && n >>> 0 >= 2 ** 31) throw new RangeError('modelled: RustWriter refuses 2 GiB or more at the call');
          // protobufjs 8.8.1 reserves `n * 5 + 5` bytes for a packed varint field: nothing when
          // `length` is negative or not a number, so with a full buffer its length byte lands
          // past the end and finish() returns an uninitialized byte in its place. Room first
          // (capacity only, no byte or position changes), so the reference writes what it means to.
          if (VARINT_PACKED.has(op)) w._reserve(16);
        }
        return w[op](...args) === w ? {} : { notThis: true };
      }
    }
  }

  /**
   * The reference's model of `finish()` on a writer holding a kept array that was detached or
   * resized: RustWriter throws an `Error`.
   * @param {string} name Writer name
   * @returns {undefined}
   */
  modelFinish(name) {
    const resized = (p) => p.id !== undefined && typedLength.call(this.arrays.get(p.id)[0]) !== p.len;
    if (this.ref && this.pending.get(name).some(resized)) {
      throw new Error('modelled: an array kept by reference was detached or resized before finish()');
    }
  }

  /**
   * The reference's model of `pos` when RustWriter must measure (it keeps a varint field by
   * reference) and an array it keeps was detached or resized: RustWriter throws `finish()`'s
   * `Error`.
   * @param {string} name Writer name
   * @returns {undefined}
   */
  modelPos(name) {
    const pending = this.ref ? this.pending.get(name) : [];
    if (pending.some((p) => p.kind === 'varint' || p.kind === 'run')) this.modelFinish(name);
  }

  /**
   * A finished result as hex (the reference's placeholders of open forks are 0x00 by its rule
   * `zeroOpenForkPlaceholders`); RustWriter's kept with its hash (check.js) and checked to be a
   * `Buffer`.
   * @param {string} name Writer name
   * @param {object} w Writer
   * @param {Uint8Array} out Result (or a `finishInto` target)
   * @param {number} offset Where the message starts in `out`
   * @param {object} [step] The sequence step, if not a callback's
   * @returns {string} Hex
   */
  resultHex(name, w, out, offset, step) {
    if (this.ref) return Buffer.from(out).toString('hex');
    return this.seq.keep(out, name, step);
  }

  /**
   * Reference only: the state a throwing call may be rolled back to.
   * @param {string} name Writer name
   * @returns {object} Snapshot
   */
  snapshot(name) {
    const w = this.writers.get(name);
    return {
      pos: w.pos,
      states: w.states ? w.states.slice() : null,
      pending: this.pending.get(name).map((p) => ({ ...p })),
    };
  }

  /**
   * Reference only: puts writer `name` back as `snapshot` saw it (RustWriter left it unchanged by
   * a call that threw, where protobufjs had written a length prefix: check.js accepts either).
   * @param {string} name Writer name
   * @param {object} snap Snapshot
   * @returns {undefined}
   */
  restore(name, snap) {
    const w = this.writers.get(name);
    w.pos = snap.pos;
    w.states = snap.states;
    w.view = null;
    this.pending.set(name, snap.pending);
  }

  /**
   * Reference only: follows where the bytes of kept arrays are after a call, and drops those
   * RustWriter no longer holds.
   * @returns {undefined}
   */
  track(name, w, op, argDescs, before) {
    const pending = this.pending.get(name);
    if (pending === undefined || pending.length === 0) return;
    if (op === 'ldelim') {
      const delta = w.pos - before.pos;
      const states = before.states || [];
      const from = states.length ? states[states.length - 1] : -1;
      // Bytes after the fork's position move by the prefix it gets: a kept array's bytes may,
      // where the call itself began before it (a length getter that forks).
      for (const p of pending) {
        if (p.start > from) p.start += delta;
        if (p.offset > from) p.offset += delta;
      }
    } else if (op === 'reset') {
      // What lies before the position reset() went back to stays. A kept array of `bytes` or a
      // fixed-size field is judged by where its bytes are, since a length getter may have reset
      // the writer after its call began; a varint field (no bytes of its own in RustWriter's
      // buffer, `offset` is its end) by `start`, where the field begins (keepPending).
      const first = (p) => (p.kind === 'bytes' || p.kind === 'fixed' ? p.offset : p.start);
      this.pending.set(name, pending.filter((p) => first(p) < w.pos));
    } else if ((op === 'finish' || op === 'finishInto') && !(w.states && w.states.length)) {
      this.pending.set(name, []); // RustWriter's result is its whole content now
    }
  }

  /**
   * Reference only: after a sequence step's call returned in both worlds, notes an array
   * RustWriter keeps by reference.
   * @param {string} name Writer name
   * @param {object} kept From {@link keptByRef}
   * @param {object} d The array's description
   * @param {string} op Method
   * @param {number} start Position before the call
   * @returns {undefined}
   */
  keepPending(name, kept, d, op, start) {
    const w = this.writers.get(name);
    const ta = this.arrays.get(d.id)[0];
    // A varint field's RUN entry is where the field begins: where its call began, unless a
    // length getter reset the writer meanwhile, so counted back from its end.
    if (kept.kind === 'varint') start = w.pos - this.varintFieldLength(op, ta);
    this.pending.get(name).push({
      id: d.id, op, kind: kept.kind, len: kept.len, start, offset: w.pos - kept.bytes, elements: Array.from(ta),
    });
  }

  /**
   * Reference only: after a packed call returned in both worlds, notes a RUN entry RustWriter made
   * of a converted packed field ({@link convertedRun}). The entry begins where the field does: at
   * its length prefix, after whatever a length getter wrote, forked or reset first, so not
   * necessarily where the call began (noteFieldStarts).
   * @param {string} name Writer name
   * @returns {undefined}
   */
  keepRun(name) {
    const start = this.writers.get(name).fieldStart;
    this.pending.get(name).push({ kind: 'run', start, offset: start });
  }

  /**
   * RUN entries writer `name` holds in RustWriter, as the reference follows them.
   * @param {string} name Writer name
   * @returns {number} Count
   */
  runCount(name) {
    return this.pending.get(name).filter((p) => p.kind === 'varint' || p.kind === 'run').length;
  }

  /**
   * A `mutate` step: changes the typed array `id` (`detach`, `shrink` or `grow` its resizable
   * buffer, or `write` new elements in place), then, in the reference, applies what RustWriter
   * must do for each writer that keeps it.
   * @param {object} step `{id, how, seed}`
   * @returns {undefined}
   */
  mutate(step) {
    for (const ta of this.arrays.get(step.id) || []) {
      const ab = ta.buffer;
      if (isDetached(ab)) continue;
      if (step.how === 'detach') structuredClone(ab, { transfer: [ab] });
      else if (step.how === 'shrink' && ab.resizable) ab.resize(Math.max(0, ab.byteLength - step.by));
      else if (step.how === 'grow' && ab.resizable) ab.resize(Math.min(ab.maxByteLength, ab.byteLength + step.by));
      else if (step.how === 'write') {
        const r = prng(step.seed);
        const n = typedLength.call(ta);
        const big = ta instanceof BigInt64Array || ta instanceof BigUint64Array;
        for (let i = Math.floor(r() * n); i < n; i += 1 + Math.floor(r() * 8)) {
          const x = Math.floor(r() * 4294967296);
          ta[i] = big ? BigInt(x) << 20n : ta instanceof Float32Array || ta instanceof Float64Array ? x / 7 : x;
        }
      }
    }
    if (!this.ref) return;
    for (const [name, pending] of this.pending) {
      for (const p of pending) {
        if (p.id !== step.id) continue;
        const ta = this.arrays.get(p.id)[0];
        // A detached or resized array makes finish() throw while its length differs (modelFinish);
        // one of its length again is read as it is then.
        if (typedLength.call(ta) !== p.len) continue;
        const now = Array.from(ta);
        if (now.every((v, i) => Object.is(v, p.elements[i]))) continue;
        if (p.kind === 'varint') this.seq.taint(name, 'the elements of a varint field kept by reference changed (not modelled)');
        else this.writers.get(name).buf.set(this.encoding(p.op, ta, p.kind), p.offset);
      }
    }
  }

  /**
   * The bytes protobufjs writes for a packed varint field of the elements of `ta`, its length
   * prefix included (read through a fresh view: an own `length` getter is not run).
   * @param {string} op Method
   * @param {ArrayBufferView} ta Typed array
   * @returns {number} Bytes
   */
  varintFieldLength(op, ta) {
    const n = typedLength.call(ta);
    const elements = ta instanceof BigInt64Array || ta instanceof BigUint64Array
      ? Array.from({ length: n }, (_, i) => toLong(ta[i]))
      : new ta.constructor(ta.buffer, ta.byteOffset, n);
    return new this.env.protobuf.BufferWriter()[op](elements).finish().length;
  }

  /**
   * What protobufjs writes for the elements of `ta` (without the length prefix).
   * @param {string} op Method
   * @param {ArrayBufferView} ta Typed array
   * @param {string} kind `bytes` or `fixed`
   * @returns {Uint8Array} Bytes
   */
  encoding(op, ta, kind) {
    if (kind === 'bytes') return new Uint8Array(ta.buffer, ta.byteOffset, typedLength.call(ta)).slice();
    const big = ta instanceof BigInt64Array || ta instanceof BigUint64Array;
    // A fresh view, not a JS array: storing a NaN into an array quiets it (V8 canonicalises NaNs
    // in double arrays), which protobufjs reading the typed array does not.
    const elements = big
      ? Array.from({ length: typedLength.call(ta) }, (_, i) => toLong(ta[i]))
      : new ta.constructor(ta.buffer, ta.byteOffset, typedLength.call(ta));
    const out = new this.env.protobuf.BufferWriter()[op](elements).finish();
    const bytes = elements.length * (op === 'fixed32s' || op === 'sfixed32s' || op === 'floats' ? 4 : 8);
    return out.subarray(out.length - bytes);
  }

  /**
   * `pos` of every writer: a number when `len` agrees, else a description.
   * @returns {Object<string, number|string>} By name
   */
  positions() {
    const out = {};
    for (const [name, w] of this.writers) {
      try {
        this.modelPos(name);
        const pos = w.pos;
        const len = w.len;
        out[name] = pos === len ? pos : `pos ${pos} but len ${len}`;
      } catch (err) {
        out[name] = `pos threw ${className(err)}`;
      }
    }
    return out;
  }
}

module.exports = { convertedRun, World, keptByRef, brokenLength, canaryBytes, MUTATING, FIXED_PACKED };
