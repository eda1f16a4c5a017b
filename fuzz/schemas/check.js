'use strict';

/**
 * The checker: encodes every message of a case (case.js) the way an app does after `install()`
 * (the subject) and with protobufjs's own generated encoder and writer (the reference), and
 * compares, per message and form:
 *
 * - the bytes, and for a result an app gets from `Type.encode(m).finish()` its prototype
 *   (`Buffer.prototype`, or the custom `util.Buffer`'s);
 * - the class of what either side throws (building the message, or encoding it), or that neither
 *   threw;
 * - the log of user code the encode ran: every getter read, Proxy trap and `valueOf` call, in
 *   order (the subject must read each property exactly as often and in the same order as
 *   protobufjs's generated encoder);
 * - that `encode(m, w)` returns `w`, and that the subject really wrote through a RustWriter.
 *
 * Forms: `encode` (subject `T.encode(m).finish()`), `delimited` (`T.encodeDelimited(m).finish()`),
 * `into` (a writer that already holds bytes and open forks, with `encode`, `encodeDelimited`,
 * a message as a field or a group of another, and a writer first returned by `T.encode(m)`), and
 * `after` (`encode` again once fields were added to and removed from set-up Types, and
 * `util.recursionLimit` and `util.Buffer` changed: case.js `after`).
 *
 * The reference is `T.encode(m, new refProtobuf.BufferWriter())` (`encodeDelimited` the same) on a
 * Root of the same schema built by a copy of the same protobufjs that the package never touched
 * (`refProtobuf`, test/reference.js): its own Types, generated encoders and writer, with the rules
 * it learned of where its writer differs from RustWriter by design (7.6.6's included). Nothing either
 * side caches is shared, and nothing of the subject's (its installed `Type#setup`, its compiled
 * encoders and what they hand other writers to) runs for the reference. Given an explicit writer,
 * protobufjs never calls `Writer.create`.
 *
 * Note for anyone timing this: V8 shares feedback between functions of identical source, and the
 * two copies generate identical encoders (docs/benchmark.md says how the benchmark keeps them apart).
 * It does not matter for correctness.
 */

const { buildRoot } = require('./schema');
const { messagesOf } = require('./case');
const { materialize, side, seededBytes, CustomBuffer, PASSED } = require('./values');
const { className } = require('../values');

/** Forms, in the order a case runs them. */
const FORMS = ['encode', 'delimited', 'serialize', 'into', 'after', 'reserialize'];
/** The serializer forms: `serializer(T)(m)` against `T.encode(T.fromObject(m))` (values.js `PASSED`). */
const SERIALIZE = new Set(['serialize', 'reserialize']);

/** Failure kinds. */
const KINDS = ['bytes', 'prototype', 'error', 'log', 'returned', 'harness', 'crash', 'hang'];

/**
 * Makes a case runner for this process.
 * @param {object} env `protobuf` (the protobufjs module, installed), `refProtobuf` (the reference
 * copy, test/reference.js), `RustWriter`, `version` (`7` or `8`), `path` (name), `fault` (self-test:
 * `byte` or `read`, or null), `serializer` and `serializerTier` (the package's, to run the serializer
 * forms; absent: not run)
 * @returns {function(object): object|null} Runs a case description; returns a failure or null. Its
 * `stats` property counts `messages`, `comparisons`, `bytes`; after a run, `runCase.nonEmpty` says
 * whether the case compared some non-empty bytes, `runCase.topReads` whether a message read a
 * top-level property through user code (a getter or a Proxy)
 */
function createRunner(env) {
  const { protobuf, RustWriter } = env;
  const refProtobuf = env.refProtobuf;
  if (!refProtobuf || refProtobuf === protobuf) throw new Error('fuzz:schemas: the reference must be a copy of its own (test/reference.js)');
  const RefWriter = refProtobuf.BufferWriter;
  const copies = [protobuf, refProtobuf];
  runCase.stats = { messages: 0, comparisons: 0, threw: 0, bytes: 0, compiledSerialized: 0 };
  env.stats = runCase.stats;
  return runCase;

  /**
   * @param {object} desc Case
   * @returns {object|null} The first failure, or null
   */
  function runCase(desc) {
    runCase.nonEmpty = false;
    runCase.topReads = false;
    const saved = { Buffer: copies.map((p) => p.util.Buffer), limits: copies.map((p) => p.util.recursionLimit) };
    /** Sets `util.recursionLimit` of both copies (null: back to what it was). */
    const setLimit = (limit) => copies.forEach((p, k) => {
      p.util.recursionLimit = limit === null ? saved.limits[k] : limit;
    });
    let roots;
    try {
      roots = { sub: buildRoot(protobuf, desc.schema), ref: buildRoot(refProtobuf, desc.schema) };
    } catch (err) {
      return fail(desc, 'harness', null, 'schema', `protobufjs ${env.version} rejected the schema: ${err && err.stack}`);
    }
    try {
      setBuffer(desc.options.customBuffer);
      setLimit(desc.options.recursionLimit);
      const faulty = { byte: env.fault === 'byte', read: env.fault === 'read' };
      for (let i = 0; i < desc.messages.length; i++) {
        runCase.stats.messages++;
        for (const form of ['encode', 'delimited', ...(env.serializer ? ['serialize'] : [])]) {
          const f = compare(desc, roots, form, i, null, faulty);
          if (f !== null) return f;
        }
      }
      for (let j = 0; j < desc.intos.length; j++) {
        const f = compare(desc, roots, 'into', null, j, faulty);
        if (f !== null) return f;
      }
      if (desc.after) {
        mutate(roots.sub, desc.after, protobuf);
        mutate(roots.ref, desc.after, refProtobuf);
        setBuffer(desc.after.customBuffer);
        setLimit(desc.after.recursionLimit);
        for (let i = 0; i < desc.messages.length; i++) {
          for (const form of ['after', ...(env.serializer ? ['reserialize'] : [])]) {
            const f = compare(desc, roots, form, i, null, faulty);
            if (f !== null) return f;
          }
        }
      }
      return null;
    } catch (err) {
      return fail(desc, 'harness', null, null, `the harness threw: ${err && err.stack}`);
    } finally {
      copies.forEach((p, k) => {
        if (p.util.Buffer !== saved.Buffer[k]) {
          p.util.Buffer = saved.Buffer[k];
          p.configure();
        }
      });
      setLimit(null);
    }
  }

  /**
   * Sets `util.Buffer` of every protobufjs copy in play (and `configure()`s it) if it changes.
   * @param {boolean} custom CustomBuffer, or Node's Buffer
   * @returns {undefined}
   */
  function setBuffer(custom) {
    for (const p of copies) {
      const wanted = custom ? CustomBuffer : Buffer;
      if (p.util.Buffer !== wanted) {
        p.util.Buffer = wanted;
        p.configure();
      }
    }
  }

  /**
   * Runs one form on both sides and compares.
   * @param {object} desc Case
   * @param {{sub: object, ref: object}} roots Roots
   * @param {string} form `encode`, `delimited`, `into` or `after`
   * @param {number|null} i Message (encode, delimited, after)
   * @param {number|null} j Into run
   * @param {{byte: boolean, read: boolean}} faulty Self-test faults still to inject
   * @returns {object|null} Failure
   */
  function compare(desc, roots, form, i, j, faulty) {
    runCase.stats.comparisons++;
    const ref = run(desc, roots.ref, true, form, i, j, null);
    const sub = run(desc, roots.sub, false, form, i, j, faulty.read ? 'read' : null);
    if (ref.log.some((line) => /^get m\.[^.[{]+$/.test(line))) runCase.topReads = true;
    if (faulty.byte && sub.hex !== undefined && sub.hex.length > 0) {
      faulty.byte = false; // self-test: as if the subject had written one wrong byte
      sub.hex = (parseInt(sub.hex.slice(0, 2), 16) ^ 0x40).toString(16).padStart(2, '0') + sub.hex.slice(2);
    }
    const at = { message: i, into: j };
    const outputs = { sub: describe(sub), ref: describe(ref) };
    if (sub.harness) return fail(desc, 'harness', at, form, sub.harness, { outputs });
    if (ref.harness) return fail(desc, 'harness', at, form, ref.harness, { outputs });
    if (SERIALIZE.has(form)) {
      // One call against two: the class of what either throws, and the message where fromObject threw
      // (what the encoder throws depends on the writer: RustWriter's, 8.8.1's BufferWriter's).
      if (sub.threw !== ref.threw || (ref.phase === 'fromObject' && sub.message !== ref.message)) {
        return fail(desc, 'error', at, form, `subject ${outcome(sub)}, protobufjs ${outcome(ref)}`, { outputs });
      }
    } else if (sub.threw !== ref.threw || sub.phase !== ref.phase) {
      return fail(desc, 'error', at, form, `subject ${outcome(sub)}, protobufjs ${outcome(ref)}`, { outputs });
    }
    const logs = { sub: sub.log.slice(0, 300), ref: ref.log.slice(0, 300) };
    // A serializer reads what fromObject passed through (a message instance's values) where it writes
    // it, protobufjs's encoder after converting everything: each in its own order (lib/serializers/code.js).
    // When a call throws, a serializer may have read values passed through that protobufjs's encoder,
    // which writes nothing before fromObject is done, never reached: those are compared only when
    // neither threw.
    const direct = (l) => l.filter((line) => !line.includes(PASSED));
    const streams = !SERIALIZE.has(form) ? [(l) => l] : ref.threw ? [direct] : [direct, passedReads];
    for (const stream of streams) {
      const subLog = stream(sub.log);
      const refLog = stream(ref.log);
      if (subLog.join('\n') !== refLog.join('\n')) {
        const k = firstDifference(subLog, refLog);
        return fail(desc, 'log', at, form, `user code ran differently, from entry ${k}: subject ${JSON.stringify(subLog.slice(k, k + 4))}, ` +
          `protobufjs ${JSON.stringify(refLog.slice(k, k + 4))} (${subLog.length} and ${refLog.length} entries)`, { outputs, logs });
      }
    }
    if (sub.threw) {
      runCase.stats.threw++;
      if (process.env.FUZZ_SCHEMAS_DEBUG_THROWS) process.stderr.write(`${desc.seed} ${form} ${sub.phase} ${sub.threw}: ${sub.message}\n`);
      return null;
    }
    if (sub.returned !== ref.returned) {
      return fail(desc, 'returned', at, form, `encode(m, w) returned ${sub.returned} in the subject, ${ref.returned} in protobufjs`, { outputs });
    }
    if (sub.hex !== ref.hex) {
      return fail(desc, 'bytes', at, form, `subject ${short(sub.hex)}, protobufjs ${short(ref.hex)}${diffAt(sub.hex, ref.hex)}`, { outputs });
    }
    if (form !== 'into' && sub.proto !== ref.proto) { // into: the subject's RustWriter.create() knows no util.Buffer
      return fail(desc, 'prototype', at, form, `the subject's result is a ${sub.proto}, protobufjs's a ${ref.proto}`, { outputs });
    }
    runCase.stats.bytes += sub.hex.length / 2;
    if (sub.hex.length > 0) runCase.nonEmpty = true;
    return null;
  }

  /**
   * Runs one form on one side.
   * @param {object} desc Case
   * @param {object} root This side's Root
   * @param {boolean} isRef Whether this is the reference
   * @param {string} form Form
   * @param {number|null} i Message
   * @param {number|null} j Into run
   * @param {string|null} fault `read`: read each top-level field once more before encoding
   * @returns {object} `phase` and `threw` (class) and `message` if it threw; else `hex`, `proto`,
   * `returned`; `log`; `harness` if the subject did not write through a RustWriter
   */
  function run(desc, root, isRef, form, i, j, fault) {
    if (SERIALIZE.has(form)) return serializeForm(env, desc, root, isRef, form, i);
    const out = { log: [] };
    const s = side(isRef, root, isRef ? refProtobuf : protobuf, (line) => out.log.push(line), GONE.get(root));
    const writer = () => (isRef ? new RefWriter() : RustWriter.create());
    const type = (k) => s.type(desc.messages[k].type);
    const ids = form === 'into' ? messagesOf(desc.intos[j].ops) : [i];
    const msgs = {};
    out.phase = 'build';
    try {
      for (const k of ids) {
        const value = form === 'after' ? valueAfter(desc, k) : desc.messages[k].value;
        msgs[k] = materialize(value, s, form === 'into' ? `m${k}` : 'm', false);
      }
    } catch (err) {
      out.threw = className(err);
      out.message = err && err.message;
      return out;
    }
    out.phase = 'encode';
    /**
     * `T.encode` of message k, with the self-test's extra reads first.
     * @param {number} k Message
     * @param {object} [w] Writer
     * @returns {object} What encode returned
     */
    const encode = (k, w) => {
      if (fault === 'read') for (const field of type(k).fieldsArray) void msgs[k][field.name];
      if (isRef || w !== undefined) return type(k).encode(msgs[k], w === undefined ? writer() : w);
      return type(k).encode(msgs[k]);
    };
    try {
      let result;
      if (form === 'encode' || form === 'delimited' || form === 'after') {
        const w = isRef ? writer() : undefined;
        let got;
        if (form !== 'delimited') got = encode(i, w);
        else {
          if (fault === 'read') for (const field of type(i).fieldsArray) void msgs[i][field.name];
          got = isRef ? type(i).encodeDelimited(msgs[i], w) : type(i).encodeDelimited(msgs[i]);
        }
        if (isRef && got !== w) out.returned = 'another object';
        if (!isRef && !(got instanceof RustWriter)) {
          out.harness = `${form}: the subject wrote with a ${got && got.constructor && got.constructor.name}, not a RustWriter: install() did not take`;
        }
        if (isRef && got instanceof RustWriter) out.harness = `${form}: the reference wrote with a RustWriter`;
        result = got.finish();
      } else {
        result = runInto(desc.intos[j].ops, isRef, writer, type, msgs, encode, out);
        if (!isRef && out.started !== undefined && !(out.started instanceof RustWriter)) {
          out.harness = `into: T.encode(m) returned a ${out.started && out.started.constructor && out.started.constructor.name}, not a RustWriter`;
        }
        delete out.started;
      }
      out.hex = Buffer.from(result.buffer, result.byteOffset, result.length).toString('hex');
      out.proto = protoName(result);
      if (out.returned === undefined) out.returned = 'the writer';
    } catch (err) {
      out.threw = className(err);
      out.message = err && err.message;
    }
    return out;
  }
}

/**
 * The reads of values fromObject passed through, grouped by the value (its path up to `PASSED`), each
 * group in its order, the groups by path: a serializer writes (and reads) a Type's fields in
 * declaration order, protobufjs's encoder in field number order (lib/serializers/code.js).
 * @param {string[]} log A log
 * @returns {string[]} Its passed-through reads
 */
function passedReads(log) {
  const groups = new Map();
  for (const line of log) {
    const token = line.split(' ').find((t) => t.includes(PASSED));
    if (token === undefined) continue;
    const key = token.slice(0, token.indexOf(PASSED));
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(line);
  }
  return [...groups.keys()].sort().flatMap((key) => groups.get(key));
}

/**
 * Runs a serializer form on one side: the subject `serializer(T)(m)`, after one call on a copy of
 * `m` (with `promoteAfter` 2, the first call of a Type is protobufjs's own); the reference
 * `T.encode(T.fromObject(m), new BufferWriter()).finish()`. Both sides get the same values (no
 * BigInt turned into a string: fromObject converts it by `Long.fromValue`).
 * @param {object} desc Case
 * @param {object} root This side's Root
 * @param {boolean} isRef Whether this is the reference
 * @param {string} form `serialize` or `reserialize`
 * @param {number} i Message
 * @returns {object} As `run`'s (`phase`: `fromObject` or `encode` on the reference)
 */
function serializeForm(env, desc, root, isRef, form, i) {
  const { protobuf } = env;
  const RefWriter = (env.refProtobuf || protobuf).BufferWriter;
  const out = { log: [] };
  const value = form === 'reserialize' ? valueAfter(desc, i) : desc.messages[i].value;
  const s = { ...side(false, root, protobuf, (line) => out.log.push(line), GONE.get(root)), passedRef: isRef };
  const T = s.type(desc.messages[i].type);
  out.phase = 'build';
  // One call before, on each side alike (the first call after a schema change sets Types up again).
  try {
    const warm = materialize(value, { ...side(false, root, protobuf, () => {}, GONE.get(root)), passedRef: isRef }, 'm', false);
    if (isRef) T.encode(T.fromObject(warm), new RefWriter()).finish();
    else env.serializer(T)(warm);
  } catch {
    // the compared call must throw the same
  }
  let m;
  try {
    m = materialize(value, s, 'm', false);
  } catch (err) {
    out.threw = className(err);
    out.message = err && err.message;
    return out;
  }
  // protobufjs's fromObject makes `bytes` from base64 in `util.newBuffer`'s memory, which it may fill
  // only in part (a getter whose reads give other values): both sides get it zeroed.
  const newBuffer = protobuf.util.newBuffer;
  protobuf.util.newBuffer = function newBuffer_zeroed(size) {
    const buf = newBuffer.apply(this, arguments);
    if (typeof size === 'number' && buf && typeof buf.fill === 'function') buf.fill(0);
    return buf;
  };
  try {
    let result;
    if (isRef) {
      out.phase = 'fromObject';
      const message = T.fromObject(m);
      out.phase = 'encode';
      result = T.encode(message, new RefWriter()).finish();
    } else {
      out.phase = 'encode';
      result = env.serializer(T)(m);
      if (!(result instanceof Uint8Array)) out.harness = `serializer(T) returned ${result}`;
    }
    out.hex = Buffer.from(result.buffer, result.byteOffset, result.length).toString('hex');
    out.proto = protoName(result);
    out.returned = 'the writer';
    if (!isRef && env.serializerTier(T) === 'compiled') env.stats.compiledSerialized++;
  } catch (err) {
    out.threw = className(err);
    out.message = err && err.message;
  } finally {
    protobuf.util.newBuffer = newBuffer;
  }
  return out;
}

/** Per Root, the fields the second pass removed (`type id` → Field), so that messages may still set them. */
const GONE = new WeakMap();

/**
 * The second pass's schema changes, on one Root (check.js `after`; case.js describes them).
 * Standalone but for {@link GONE}: render.js copies it into repro scripts.
 * @param {object} root Root
 * @param {{add: object[], remove: object[]}} after Changes
 * @param {object} protobuf Its protobufjs
 * @returns {undefined}
 */
function mutate(root, after, protobuf) {
  const gone = new Map();
  for (const { type, field } of after.add) {
    const ref = field.kind === 'message' ? `.${field.type}` : field.type;
    root.lookupType(type).add(new protobuf.Field(field.name, field.id, ref, field.label === 'repeated' ? 'repeated' : undefined));
  }
  for (const { type, id } of after.remove) {
    const T = root.lookupType(type);
    const field = T.fieldsById[id];
    if (field === undefined) continue;
    gone.set(`${type} ${id}`, field);
    T.remove(field);
  }
  if (typeof GONE !== 'undefined') GONE.set(root, gone);
}

/**
 * Message k's value in the second pass: with the fields added to its type set.
 * @param {object} desc Case
 * @param {number} k Message
 * @returns {object} `msg` description
 */
function valueAfter(desc, k) {
  const value = desc.messages[k].value;
  const added = desc.after.add.filter((a) => a.type === value.type);
  if (value.k !== 'msg' || added.length === 0) return value;
  return { ...value, fields: [...value.fields, ...added.map((a) => [a.field.id, a.value, 'own'])] };
}

/**
 * Runs an `into` run's operations on one writer, closes the forks it left open, finishes.
 * @param {Array[]} ops Operations (case.js)
 * @param {boolean} isRef Side
 * @param {function(): object} writer A new writer of this side
 * @param {function(number): object} type Message k's Type
 * @param {object} msgs Messages by index
 * @param {function(number, object=): object} encode Encodes message k
 * @param {object} out Gets `returned` when an encode returned another object than its writer, and
 * `started`: the writer a `start` operation's encode returned
 * @returns {Uint8Array} Result
 */
function runInto(ops, isRef, writer, type, msgs, encode, out) {
  let w = null;
  let open = 0;
  const check = (got, expected) => {
    if (got !== expected && out.returned === undefined) out.returned = 'another object';
  };
  for (const op of ops) {
    if (op[0] === 'start') {
      // The writer an encode without one returns (the subject's is a RustWriter from Writer.create).
      w = isRef ? encode(op[1], writer()) : encode(op[1]);
      out.started = w;
      continue;
    }
    if (w === null) w = writer();
    switch (op[0]) {
      case 'bytes': w.uint32(((op[1] << 3) | 2) >>> 0).bytes(seededBytes(op[2], op[3])); break;
      case 'fork': w.uint32(((op[1] << 3) | 2) >>> 0).fork(); open++; break;
      case 'ldelim': if (open > 0) { w.ldelim(); open--; } break;
      case 'encode': check(encode(op[1], w), w); break;
      case 'delimited': check(type(op[1]).encodeDelimited(msgs[op[1]], w), w); break;
      case 'field': {
        const inner = w.uint32(((op[1] << 3) | 2) >>> 0).fork();
        const got = encode(op[2], inner);
        check(got, w);
        got.ldelim();
        break;
      }
      case 'group': {
        const got = encode(op[2], w.uint32(((op[1] << 3) | 3) >>> 0));
        check(got, w);
        got.uint32(((op[1] << 3) | 4) >>> 0);
        break;
      }
      default: throw new Error(`fuzz:schemas: unknown into operation ${op[0]}`);
    }
  }
  if (w === null) w = writer();
  for (; open > 0; open--) w.ldelim();
  return w.finish();
}

/**
 * @param {Uint8Array} result A result
 * @returns {string} The name of its prototype's constructor (`CustomBuffer` for the custom `util.Buffer`)
 */
function protoName(result) {
  const proto = Object.getPrototypeOf(result);
  return proto && proto.constructor ? proto.constructor.name : String(proto);
}

/**
 * A failure record.
 * @param {object} desc Case
 * @param {string} kind One of {@link KINDS}
 * @param {{message: number|null, into: number|null}|null} at Where
 * @param {string|null} form Form
 * @param {string} message What differs
 * @param {object} [more] `outputs`, `logs`
 * @returns {object} Failure
 */
function fail(desc, kind, at, form, message, more = {}) {
  return {
    kind, form, message, seed: desc.seed, at: at || { message: null, into: null }, desc, ...more,
  };
}

/**
 * @param {object} r A side's run
 * @returns {object} What it gave: hex (shortened), thrown class and message, log length
 */
function describe(r) {
  return {
    phase: r.phase, threw: r.threw || null, message: r.message || null,
    hex: r.hex === undefined ? null : short(r.hex, 2000), bytes: r.hex === undefined ? null : r.hex.length / 2,
    proto: r.proto || null, logLength: r.log.length,
  };
}

/**
 * @param {object} r A side's run
 * @returns {string} What happened, in words
 */
function outcome(r) {
  return r.threw ? `threw ${r.threw} while ${r.phase === 'build' ? 'building the message' : 'encoding'} (${String(r.message).slice(0, 200)})`
    : 'did not throw';
}

/**
 * @param {string[]} a Log
 * @param {string[]} b Log
 * @returns {number} The first index where they differ
 */
function firstDifference(a, b) {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

/**
 * @param {string} hex Hex
 * @param {number} [max] Digits
 * @returns {string} At most `max` digits of it
 */
function short(hex, max = 120) {
  return hex.length > max ? `${hex.slice(0, max)}… (${hex.length / 2} bytes)` : hex || '(empty)';
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
  return `; first difference at byte ${at >> 1}: subject ${around(a)}, protobufjs ${around(b)}`;
}

module.exports = { createRunner, runInto, mutate, valueAfter, KINDS, FORMS, SERIALIZE };
