'use strict';

/**
 * The sampled shadow check (`PROTOBUFJS_RUSTWRITER_VERIFY=<fraction>`, or `install(protobuf,
 * { verify })`): a fraction of the writers a protobufjs copy's `Writer.create()` hands out also
 * write every call into that copy's own writer, and `finish()` compares the two results. The
 * caller always gets RustWriter's result; a difference is never thrown: it is counted in
 * `status().verify` and reported once per message type with a warning naming the first
 * differing offset.
 *
 * A checked writer converts each value twice, once per writer: a `valueOf` or getter with side
 * effects runs twice for it (never for the writers not sampled).
 */

const { VERIFY, envVar } = require('../env');
const methods = require('../writer/methods');
const { ENCODE_MESSAGE } = require('../encoders/compile');

/** The methods whose BigInt values protobufjs writes as 0 and RustWriter encodes (README,
 * Compatibility): the reference writer gets the equal `{low, high}` instead. */
const SCALAR_64 = new Set(methods.SCALAR_64);
const PACKED_64 = new Set(methods.PACKED_64);
/** Frames kept to name the message type a writer was created for: the encoder that called
 * `Writer.create`, and its caller (for `encodeDelimited`, whose own frame names no type). Each
 * frame more costs time: the capture is most of what a checked writer costs. */
const SITE_FRAMES = 2;
/** Distinct message types reported with a warning; later ones are only counted. */
const MAX_REPORTS = 20;

/** What the checks found, for `status().verify`. */
const counts = { writers: 0, checked: 0, differing: 0, skipped: 0, reports: [] };
/** Message types already reported. */
const reported = new Set();

/**
 * The fraction given by `value`, which must be a number (or numeric string) from 0 to 1.
 * @param {*} value Fraction
 * @param {string} source Where it came from, for the error
 * @returns {number} Fraction
 */
function fractionOf(value, source) {
  const fraction = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof fraction !== 'number' || !(fraction >= 0 && fraction <= 1)) {
    throw new TypeError(`protobufjs-rustwriter: ${source} must be a fraction from 0 to 1 (e.g. 0.01), not ${JSON.stringify(value)}`);
  }
  return fraction;
}

/**
 * The fraction of writers to check when `install()` is given none: `PROTOBUFJS_RUSTWRITER_VERIFY`,
 * or 0.
 * @returns {number} Fraction
 */
function defaultFraction() {
  const value = envVar(VERIFY);
  return value === undefined || value === '' ? 0 : fractionOf(value, VERIFY);
}

/**
 * `value` as protobufjs's writer should get it for `method`: BigInts as the equal `{low, high}`,
 * so that a known difference is not reported.
 * @param {string} method Method
 * @param {*} value Argument
 * @returns {*} Argument for the reference writer
 */
function referenceValue(method, value) {
  if (SCALAR_64.has(method)) return typeof value === 'bigint' ? longOf(value) : value;
  if (!PACKED_64.has(method) || value === null || typeof value !== 'object') return value;
  if (value instanceof BigInt64Array || value instanceof BigUint64Array) return Array.from(value, longOf);
  if (Array.isArray(value) && value.some((v) => typeof v === 'bigint')) return value.map((v) => (typeof v === 'bigint' ? longOf(v) : v));
  return value;
}

/**
 * @param {bigint} value Value
 * @returns {{low: number, high: number}} Its two's-complement 64 bits
 */
function longOf(value) {
  const bits = BigInt.asUintN(64, value);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0 };
}

/**
 * `Error.prepareStackTrace` that keeps V8's call sites as they are.
 * @param {Error} _error The error
 * @param {NodeJS.CallSite[]} callSites Call sites
 * @returns {NodeJS.CallSite[]} Them
 */
function callSitesOf(_error, callSites) {
  return callSites;
}

/**
 * Where a checked writer is being created: the stack above `below` (at most
 * {@link SITE_FRAMES} frames), captured but not formatted, which costs a few microseconds (the
 * cost of a checked writer is mostly this). It names the message type where no encoder of this
 * package did (`_type`): protobufjs's own encoders (`{ compiled: false }`), static code. V8 hides
 * `this` from the first strict-mode frame on, so the first frame must be `Writer.create`'s caller:
 * protobufjs's reflection encoder, sloppy-mode code whose `this` is its `Type`.
 * @param {Function} below The function whose caller is the first frame
 * @returns {{stack?: *}} The capture, for {@link typeOf}
 */
function captureSite(below) {
  const site = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = SITE_FRAMES;
  Error.captureStackTrace(site, below);
  Error.stackTraceLimit = limit;
  return site;
}

/**
 * The message type a checked writer was created for: the full name of the reflected type whose
 * encoder created it, else (static code, `encodeDelimited`) the first place outside this package
 * and protobufjs's own files, as `file:line`. V8 formats a captured stack when it is first read,
 * with the `Error.prepareStackTrace` of that moment: here, one that keeps the call sites.
 * @param {{stack?: *}} site From {@link captureSite}
 * @returns {string} Name
 */
function typeOf(site) {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = callSitesOf;
  let sites;
  try {
    sites = site.stack;
  } finally {
    Error.prepareStackTrace = prepare;
  }
  if (!Array.isArray(sites)) return '(unknown)';
  for (const callSite of sites) {
    const self = callSite.getThis();
    if (self !== null && typeof self === 'object' && typeof self.fullName === 'string' && typeof self.encode === 'function') {
      return self.fullName.replace(/^\./, '');
    }
  }
  for (const callSite of sites) {
    const file = callSite.getFileName() || '';
    if (file === __filename || /[\\/]protobufjs[\\/]src[\\/]/.test(file)) continue;
    return `the message encoded at ${file}:${callSite.getLineNumber()}`;
  }
  return '(unknown)';
}

/**
 * Compares RustWriter's result with protobufjs's; counts and reports a difference.
 * @param {Uint8Array} ours RustWriter's result
 * @param {Uint8Array} theirs protobufjs's result
 * @param {{_type: string|null, _site: {stack?: *}}} writer The checked writer: its message type, if an
 * encoder of this package named it, and where it was created
 * @param {string} version protobufjs's version
 * @returns {undefined}
 */
function compare(ours, theirs, writer, version) {
  ++counts.checked;
  if (ours.length === theirs.length && Buffer.compare(ours, theirs) === 0) return;
  ++counts.differing;
  let offset = 0;
  while (offset < ours.length && offset < theirs.length && ours[offset] === theirs[offset]) ++offset;
  const type = writer._type !== null ? writer._type : typeOf(writer._site);
  if (reported.has(type) || reported.size >= MAX_REPORTS) return;
  reported.add(type);
  counts.reports.push({ type, offset, length: ours.length, expectedLength: theirs.length });
  const byte = (bytes) => (offset < bytes.length ? `0x${bytes[offset].toString(16).padStart(2, '0')}` : 'end');
  process.emitWarning(`RustWriter's bytes for ${type} differ from protobufjs ${version}'s at offset ${offset} ` +
    `(${byte(ours)} vs ${byte(theirs)}; ${ours.length} vs ${theirs.length} bytes). The caller got RustWriter's bytes. ` +
    'Please report it with the message if you can; status().verify counts every difference.',
  { code: 'PROTOBUFJS_RUSTWRITER_VERIFY', type: 'ProtobufjsRustwriterWarning' });
}

/**
 * Whether protobufjs's writer `w` has a fork open (8.x: `states` lists their length bytes; 7.x:
 * a linked list, or null).
 * @param {object} w protobufjs's writer
 * @returns {boolean} Whether it has
 */
function forkOpen(w) {
  return Array.isArray(w.states) ? w.states.length > 0 : Boolean(w.states);
}

/**
 * The class of checked writers: each holds a writer of `Base` (which the caller's calls write
 * and whose result the caller gets) and one of protobufjs (which gets the same calls), and
 * compares their results at `finish()`. It does not extend `Base`, so that RustWriter's methods
 * only ever see RustWriters (a checked writer among them would make every property access in
 * them polymorphic); its prototype chain ends in `Base`'s, so that `instanceof` holds.
 * @param {Function} Base RustWriter, or the subclass for a custom `util.Buffer`
 * @param {function(): object} reference A new writer of the protobufjs copy
 * @param {string} version The copy's version
 * @returns {{create: function(Function): object}} How to make one
 */
function checkedClass(Base, reference, version) {
  /**
   * A writer that writes through a `Base` and protobufjs's writer, and compares them.
   * @param {{stack?: *}} site Where it was created
   * @constructor
   */
  function CheckedWriter(site) {
    /** @type {RustWriter} whose result the caller gets */
    this._ours = new Base();
    /** @type {object|null} protobufjs's writer, or null once it cannot follow */
    this._shadow = reference();
    /** where this writer was created, which names its message type unless an encoder did */
    this._site = site;
    /** @type {string|null} its first message's type, named by the encoder that gave it */
    this._type = null;
    ++counts.writers;
  }
  CheckedWriter.prototype = Object.create(Base.prototype);
  CheckedWriter.prototype.constructor = CheckedWriter;
  // Named as the writer it stands in for (`util.inspect` shows RustWriter), while its constructor
  // stays its own: compiled encoders tell a checked writer from a RustWriter by it.
  Object.defineProperty(CheckedWriter, 'name', { value: Base.name });

  /**
   * Stops shadowing: the two writers can no longer be compared (one threw, or protobufjs's
   * lacks a method).
   * @returns {undefined}
   */
  CheckedWriter.prototype._lose = function _lose() {
    this._shadow = null;
    ++counts.skipped;
  };

  /**
   * Finishes; protobufjs's result of the same calls must be the same.
   * @returns {Buffer} RustWriter's result
   */
  CheckedWriter.prototype.finish = function finish_checked() {
    const ours = this._ours.finish();
    const shadow = this._shadow;
    if (shadow === null) return ours;
    if (forkOpen(shadow)) {
      // protobufjs leaves the length bytes of open forks uninitialized: nothing to compare.
      ++counts.skipped;
      return ours;
    }
    let theirs;
    try {
      theirs = shadow.finish();
    } catch {
      this._lose();
      return ours;
    }
    compare(ours, theirs, this, version);
    return ours;
  };

  /**
   * Finishes into `buf` through {@link CheckedWriter#finish}.
   * @param {Uint8Array} buf Target
   * @param {number} [offset=0] Offset
   * @returns {Uint8Array} `buf`
   */
  CheckedWriter.prototype.finishInto = function finishInto_checked(buf, offset) {
    buf.set(this.finish(), offset === undefined ? 0 : offset);
    return buf;
  };

  const pos = {
    configurable: true,
    enumerable: true,
    get: function get_pos() {
      return this._ours.pos;
    },
  };
  Object.defineProperties(CheckedWriter.prototype, { pos, len: pos });

  /**
   * A view of a checked writer's protobufjs writer alone, with the checked writer's conversions:
   * what protobufjs's generated encoder writes into while a compiled encoder writes RustWriter's.
   * @param {CheckedWriter} checked The checked writer
   * @constructor
   */
  function ShadowOnly(checked) {
    this._checked = checked;
  }
  for (const name of methods.WRITE_METHODS) {
    ShadowOnly.prototype[name] = function (value) {
      const shadow = this._checked._shadow;
      if (shadow !== null) {
        try {
          shadow[name](referenceValue(name, value));
        } catch {
          this._checked._lose();
        }
      }
      return this;
    };
  }

  /**
   * Encodes `m` with the package's encoder into RustWriter's writer and with protobufjs's generated
   * encoder into protobufjs's, so that the check covers the compiled encoders (lib/encoders/compile.js
   * `ENCODE_MESSAGE`: every compiled or cold encoder calls it for a checked writer), and names the
   * message type of the writer's first message. User code the message runs runs twice, once per encoder.
   * @param {object} type The message's Type
   * @param {function(object, RustWriter, number): RustWriter} compiled The package's encoder
   * @param {object} m Message
   * @param {number} q Depth
   * @returns {CheckedWriter} `this`
   */
  CheckedWriter.prototype[ENCODE_MESSAGE] = function encode_checked(type, compiled, generated, m, q) {
    if (this._type === null) this._type = type.fullName.replace(/^\./, '');
    try {
      compiled(m, this._ours, q);
    } catch (err) {
      if (this._shadow !== null) this._lose();
      throw err;
    }
    if (this._shadow !== null) {
      try {
        generated(m, new ShadowOnly(this), q);
      } catch {
        this._lose();
      }
    }
    return this;
  };

  for (const name of methods.WRITE_METHODS) {
    const method = function (value) {
      try {
        this._ours[name](value);
      } catch (err) {
        if (this._shadow !== null) this._lose();
        throw err;
      }
      const shadow = this._shadow;
      if (shadow !== null) {
        try {
          shadow[name](referenceValue(name, value));
        } catch {
          this._lose();
        }
      }
      return this;
    };
    Object.defineProperty(method, 'name', { value: `checked_${name}` });
    CheckedWriter.prototype[name] = method;
  }

  return {
    /**
     * A new checked writer, created by whoever called `below`.
     * @param {Function} below The `Writer.create` that creates it
     * @returns {CheckedWriter} Writer
     */
    create(below) {
      return new CheckedWriter(captureSite(below));
    },
  };
}

/** State of the sampler's generator (xorshift32): cheaper than `Math.random()` per writer. */
let seed = (Date.now() ^ process.pid) | 1;

/**
 * A `Writer.create` that hands out checked writers for `fraction` of its calls (at random, so that
 * no periodic pattern of messages escapes the check), and `create()`'s writers otherwise.
 * @param {number} fraction From 0 (exclusive) to 1
 * @param {function(): object} create The unchecked `Writer.create`
 * @param {Function} Base Its writers' class
 * @param {object} protobuf The protobufjs copy, whose own writer is the reference
 * @param {string|null} version Its version
 * @returns {function(): object} `Writer.create`
 */
function sampledCreate(fraction, create, Base, protobuf, version) {
  const reference = protobuf.util && protobuf.util.Buffer && protobuf.BufferWriter
    ? () => new protobuf.BufferWriter()
    : () => new protobuf.Writer();
  const checked = checkedClass(Base, reference, version || '(unknown version)');
  if (fraction >= 1) {
    return function create_checked() {
      return checked.create(create_checked);
    };
  }
  const threshold = Math.round(fraction * 2 ** 32);
  return function create_sampled() {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0 < threshold ? checked.create(create_sampled) : create();
  };
}

/**
 * What the checks found so far.
 * @returns {{writers: number, checked: number, differing: number, skipped: number,
 *   reports: Array<{type: string, offset: number, length: number, expectedLength: number}>}} Counts
 */
function verifyStatus() {
  return { ...counts, reports: counts.reports.map((report) => ({ ...report })) };
}

module.exports = { fractionOf, defaultFraction, sampledCreate, verifyStatus };
