'use strict';

/**
 * The checker: runs one sequence step by step in RustWriter's world and in the reference world
 * (world.js) and compares, after every step:
 *
 * - the class of any exception (or that neither threw), and that every method returned its writer;
 * - the bytes of every `finish()` / `finishInto()`;
 * - `pos` (and `len`, which must equal it) of every writer alive;
 * - the log of user code run (every `valueOf`, getter, trap, and what its callback saw), which
 *   must be the same calls in the same order.
 *
 * After a call that throws in both worlds, the writer must be as protobufjs leaves it, or
 * unchanged by the call (it then never shows bytes it did not write); in the second case the
 * reference is rolled back to match, and the comparison goes on.
 *
 * Writers the reference world taints (world.js) are not compared; for them, and for all writers,
 * RustWriter must keep invariants: `pos` a non-negative integer equal to `len`, every result a
 * `Buffer` of `pos` bytes, no result holding another writer's canary bytes. At the end of the
 * sequence every result RustWriter returned must still have its hash from when it was returned,
 * and the module must still encode correctly (a health probe).
 */

const { World, keptByRef, convertedRun, canaryBytes } = require('./world');
const { className } = require('../values');
const { digest } = require('./results');

/** Failure kinds, in the order a step checks them. */
const KINDS = ['log', 'error', 'after-throw', 'bytes', 'pos', 'invariant', 'canary', 'result-changed', 'health', 'crash', 'harness'];

/**
 * Makes a sequence runner for this process's RustWriter.
 * @param {object} env `RustWriter`, `protobuf` (8.8.1's reference copy, test/reference.js), `thresholds`
 * (`native`, `runMinTyped`, `refMin`), `store` (a ResultStore or null), `fault` (self-test: `byte`,
 * `result` or null), `path` (name)
 * @returns {function(object): object|null} Runs a sequence description; returns a failure or null
 */
function createRunner(env) {
  const { RustWriter, protobuf } = env;
  const probes = [
    (w) => w.uint32(1),
    (w) => w.uint32(10).fork().raw(Buffer.alloc(200, 0x5a)).ldelim().uint32(16).int64(-1),
    (w) => w.uint32(10).uint32s(Uint32Array.from({ length: 300 }, (_, i) => i * 40503)).sint64(5),
    (w) => w.uint32(10).bytes(Buffer.alloc(5000, 3)).fork().string('probe').ldelim(),
  ];
  const expected = probes.map((p) => Buffer.from(p(new protobuf.BufferWriter()).finish()).toString('hex'));

  /**
   * The module still encodes correctly.
   * @returns {string|null} What went wrong
   */
  function health() {
    for (let i = 0; i < probes.length; i++) {
      try {
        const got = Buffer.from(probes[i](RustWriter.create()).finish()).toString('hex');
        if (got !== expected[i]) return `probe ${i} gave ${got.slice(0, 80)}, expected ${expected[i].slice(0, 80)}`;
      } catch (err) {
        return `probe ${i} threw ${className(err)}: ${err.message}`;
      }
    }
    return null;
  }

  runSequence.health = health;
  return runSequence;

  /**
   * Runs one sequence in both worlds, then the health probe; sets `runSequence.nonEmpty`
   * (whether RustWriter returned any bytes), `runSequence.writers` (writers the sequence created)
   * and `runSequence.tainted` (why each writer the reference tainted, and so left uncompared, was).
   * @param {{seed: number, steps: object[]}} desc Sequence
   * @returns {object|null} The first failure, or null
   */
  function runSequence(desc) {
    const state = new Sequence(desc, env);
    let failure = null;
    try {
      failure = state.run();
    } catch (err) {
      failure = state.fail(null, 'harness', `the harness threw: ${err && err.stack}`);
    }
    if (failure === null) {
      const problem = health();
      if (problem !== null) failure = state.fail(null, 'health', `after the sequence, ${problem}`);
    }
    runSequence.nonEmpty = state.results.some((r) => r.bytes.length > 0);
    runSequence.writers = state.R.created;
    runSequence.tainted = [...state.tainted.values()];
    return failure;
  }
}

/** One sequence being run: both worlds and what the comparison has learnt so far. */
class Sequence {
  constructor(desc, env) {
    this.desc = desc;
    this.env = env;
    this.seed = desc.seed;
    /** @type {Map<string, string>} writer → why it is no longer compared */
    this.tainted = new Map();
    /** RustWriter's results: `{bytes, digest, name}` */
    this.results = [];
    /** what the steps were once `fill` steps were made concrete */
    this.executed = [];
    this.invariant = null;
    this.faulted = false;
    const { protobuf, thresholds } = env;
    this.R = new World(false, { create: () => env.RustWriter.create(), protobuf, thresholds }, this);
    this.P = new World(true, { create: () => new protobuf.BufferWriter(), protobuf, thresholds }, this);
  }

  /**
   * A writer's state becomes undefined in protobufjs: stop comparing it.
   * @param {string} name Writer
   * @param {string} why Reason
   * @returns {undefined}
   */
  taint(name, why) {
    if (!this.tainted.has(name)) this.tainted.set(name, why);
  }

  /**
   * Keeps a RustWriter result with its hash; returns its hex (with the self-test's corrupted
   * byte, if asked).
   * @param {Uint8Array} bytes Result
   * @param {string} name Writer
   * @param {object} [step] The sequence step that returned it (not a callback)
   * @returns {string} Hex
   */
  keep(bytes, name, step) {
    if (!Buffer.isBuffer(bytes) && this.invariant === null) {
      this.invariant = `${name}.finish() returned a ${className(bytes)}, not a Buffer`;
    }
    const hash = digest(bytes);
    this.results.push({ bytes, digest: hash, name });
    if (this.env.store) this.env.store.add(bytes, hash, this.seed);
    let hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
    if (this.env.fault === 'byte' && !this.faulted && step !== undefined) {
      // Self-test: as if RustWriter had written one wrong byte (or one byte too many).
      this.faulted = true;
      hex = hex.length ? (parseInt(hex.slice(0, 2), 16) ^ 0x40).toString(16).padStart(2, '0') + hex.slice(2) : '00';
    }
    return hex;
  }

  /**
   * A failure record.
   * @param {number|null} index Step (null: after the last step)
   * @param {string} kind One of {@link KINDS}
   * @param {string} message What differs
   * @returns {object} Failure
   */
  fail(index, kind, message) {
    const steps = index === null
      ? this.executed.concat(this.desc.steps.slice(this.executed.length))
      : this.executed.slice(0, index + 1);
    const step = index === null ? null : this.executed[index];
    return {
      kind, message, seed: this.seed, path: this.env.path, step: index, op: step ? step.op : null,
      desc: { seed: this.seed, steps },
    };
  }

  /**
   * Runs every step, then the end-of-sequence checks.
   * @returns {object|null} Failure
   */
  run() {
    let before = { R: {}, P: {} };
    for (let i = 0; i < this.desc.steps.length; i++) {
      const step = this.concrete(this.desc.steps[i]);
      this.executed.push(step);
      if (step === null) continue;
      const failure = this.step(i, step, before);
      if (failure !== null) return failure;
      before = this.lastPositions;
    }
    if (this.env.fault === 'result' && this.results.length > 0) {
      const victim = this.results[this.results.length - 1].bytes;
      if (victim.length > 0) victim[victim.length - 1] ^= 1; // self-test: as if a later write hit it
    }
    for (const r of this.results) {
      if (digest(r.bytes) !== r.digest) {
        return this.fail(null, 'result-changed', `a result ${r.name}.finish() returned (${r.bytes.length} bytes) changed later in the sequence`);
      }
    }
    for (const r of this.results) {
      if (!this.tainted.has(r.name)) continue;
      const foreign = this.foreignCanary(r);
      if (foreign !== null) return this.fail(null, 'canary', `${r.name}'s result holds ${foreign}'s canary bytes, which were never written to it`);
    }
    return null;
  }

  /**
   * A `fill` step made concrete: `raw` bytes that bring the innermost open fork's content (or the
   * whole message) of the reference writer to `to` bytes; null when it is already longer.
   * @param {object} step Step
   * @returns {object|null} Step
   */
  concrete(step) {
    if (step.op !== 'fill') return step;
    const w = this.P.writers.get(step.w);
    if (w === undefined) return null;
    const states = w.states || [];
    const content = states.length ? w.pos - states[states.length - 1] - 1 : w.pos;
    const n = step.to - content;
    if (n <= 0) return null;
    return { op: 'raw', w: step.w, args: [{ k: 'data', n, seed: step.seed, form: 'buffer' }] };
  }

  /**
   * The name of a writer whose canary is in a result although it was never written to that
   * writer, or null.
   * @param {{bytes: Uint8Array, name: string}} r Result
   * @returns {string|null} Name
   */
  foreignCanary(r) {
    const own = this.R.wrote.get(r.name) || new Set();
    const hay = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length);
    const names = new Set(this.R.writers.keys());
    for (const step of this.executed) if (step && step.w) names.add(step.w);
    for (const name of names) {
      if (own.has(name)) continue;
      if (hay.indexOf(canaryBytes(this.seed, name)) >= 0) return name;
    }
    return null;
  }

  /**
   * Runs one step in both worlds and compares.
   * @param {number} i Index
   * @param {object} step Step
   * @param {{R: object, P: object}} before Positions after the previous step
   * @returns {object|null} Failure
   */
  step(i, step, before) {
    const { R, P } = this;
    if (step.op === 'create') {
      if (!R.writers.has(step.w)) {
        R.create(step.w);
        P.create(step.w);
      }
      return this.comparePositions(i, step, { pos: R.positions() }, { pos: P.positions() }, new Set());
    }
    if (step.op === 'mutate') {
      R.mutate(step);
      P.mutate(step);
      return this.comparePositions(i, step, { pos: R.positions() }, { pos: P.positions() }, new Set());
    }
    const name = step.w;
    if (!R.writers.has(name)) return null;
    const snap = P.snapshot(name);
    const taintedBefore = new Set(this.tainted.keys());
    const r = this.execute(R, name, step);
    const p = this.execute(P, name, step);
    const newly = new Set([...this.tainted.keys()].filter((n) => !taintedBefore.has(n)));
    const tainted = this.tainted.has(name);
    if (newly.size === 0 && r.log.join('\n') !== p.log.join('\n')) {
      const f = this.fail(i, 'log', `user code ran differently: RustWriter ${JSON.stringify(r.log).slice(0, 600)}, protobufjs ${JSON.stringify(p.log).slice(0, 600)}`);
      f.logs = { R: r.log.slice(0, 200), P: p.log.slice(0, 200) };
      return f;
    }
    if (!tainted) {
      if (r.threw !== p.threw) {
        const f = this.fail(i, 'error', `${name}.${step.op}() ${r.threw ? `threw ${r.threw}` : 'returned'} in RustWriter, ${p.threw ? `threw ${p.threw}` : 'returned'} in protobufjs${r.message ? ` (${r.message})` : ''}`);
        f.threw = { R: r.threw || null, P: p.threw || null };
        return f;
      }
      if (r.notThis !== p.notThis) return this.fail(i, 'error', `${name}.${step.op}() did not return its writer`);
      if (r.threw && r.pos[name] !== p.pos[name]) {
        if (r.pos[name] === before.R[name]) {
          P.restore(name, snap); // RustWriter left the writer as it was: as good as protobufjs
          p.pos = P.positions();
        } else {
          return this.fail(i, 'after-throw', `after ${name}.${step.op}() threw ${r.threw}, RustWriter's pos is ${r.pos[name]}: protobufjs leaves ${p.pos[name]}, unchanged would be ${before.R[name]}`);
        }
      }
    }
    if (r.hex !== undefined && !tainted && r.hex !== p.hex) {
      return this.fail(i, 'bytes', `${name}.${step.op}() gave ${short(r.hex)}, protobufjs ${short(p.hex)}${diffAt(r.hex, p.hex)}`);
    }
    if (r.hex !== undefined && this.invariant === null && typeof before.R[name] === 'number' && step.op === 'finish' && r.hex.length !== 2 * before.R[name]) {
      this.invariant = `${name}.finish() returned ${r.hex.length / 2} bytes where pos said ${before.R[name]}`;
    }
    if (!r.threw && !p.threw && !tainted && step.args && step.args[0]) {
      const kept = keptByRef(step.op, step.args[0], this.env.thresholds);
      if (kept !== null) {
        P.keepPending(name, kept, step.args[0], step.op, snap.pos);
        p.pos = P.positions(); // what RustWriter now keeps decides whether its pos throws
      } else if (convertedRun(step.op, step.args[0], this.env.thresholds, P.runCount(name))) {
        P.keepRun(name);
        p.pos = P.positions();
      }
    }
    return this.comparePositions(i, step, r, p, newly);
  }

  /**
   * Compares `pos` of every writer and checks RustWriter's invariants.
   * @returns {object|null} Failure
   */
  comparePositions(i, step, r, p) {
    this.lastPositions = { R: r.pos, P: p.pos };
    for (const [name, pos] of Object.entries(r.pos)) {
      // pos is a non-negative integer, or throws finish()'s Error exactly where the reference models
      // it throwing (anywhere, once the reference no longer follows the writer: tainted).
      const modelled = pos === p.pos[name] || (this.tainted.has(name) && pos === 'pos threw Error');
      if ((typeof pos !== 'number' || !(pos >= 0) || pos !== Math.floor(pos)) && !modelled) {
        return this.fail(i, 'invariant', `${name}.pos is ${pos} in RustWriter (protobufjs ${p.pos[name]})`);
      }
      if (!this.tainted.has(name) && pos !== p.pos[name]) {
        return this.fail(i, 'pos', `${name}.pos is ${pos} in RustWriter, ${p.pos[name]} in protobufjs`);
      }
    }
    if (this.invariant !== null) return this.fail(i, 'invariant', this.invariant);
    return null;
  }

  /**
   * Runs a step's call in one world.
   * @returns {object} `threw`, `message`, `notThis`, `hex`, `pos` (every writer), `log`
   */
  execute(world, name, step) {
    const start = world.log.length;
    const out = {};
    try {
      const got = world.invoke(name, step.op, step.args || [], step);
      if (got !== null) Object.assign(out, got);
    } catch (err) {
      out.threw = className(err);
      out.message = err && err.message;
    }
    out.pos = world.positions();
    out.log = world.log.slice(start);
    return out;
  }
}

/**
 * @param {string} hex Hex
 * @returns {string} At most 120 digits of it
 */
function short(hex) {
  return hex.length > 120 ? `${hex.slice(0, 120)}… (${hex.length / 2} bytes)` : hex || '(empty)';
}

/**
 * @param {string} a Hex
 * @param {string} b Hex
 * @returns {string} Where two hex strings first differ, with 8 bytes either side
 */
function diffAt(a, b) {
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  const at = (k >> 1) << 1;
  const around = (h) => `${at > 16 ? '…' : ''}${h.slice(Math.max(0, at - 16), at)}[${h.slice(at, at + 2)}]${h.slice(at + 2, at + 18)}`;
  return `; first difference at byte ${at >> 1}: RustWriter ${around(a)}, protobufjs ${around(b)}`;
}

module.exports = { createRunner, KINDS };
