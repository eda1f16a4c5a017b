'use strict';

/**
 * The seeded generator of call sequences. A sequence is `{seed, steps}`; a step is one of
 *
 * - `{op: 'create', w}`: a writer named `w` (`w0`, `w1`, `w2`) comes alive (two or three
 *   writers interleave in many sequences);
 * - `{op: <method>, w, args}`: a call on writer `w`, every method of protobuf.js 8.x's Writer
 *   API (aliases included), `finish` (`args` `[]` or `[true]`) and `finishInto` (`args`
 *   `[extra room, offset or null]`), with argument descriptions (values.js);
 * - `{op: 'fill', w, to, seed}`: `raw` bytes that bring the innermost open fork's content to
 *   `to` bytes, made concrete when the step runs (lengths crossing 127/128 and 16383/16384);
 * - `{op: 'mutate', id, how, by, seed}`: a typed array given earlier is detached, its resizable
 *   buffer shrunk or grown by `by` bytes, or elements written in place.
 *
 * Nothing is closed for the writer: forks stay open at `finish()`, writers are finished twice and
 * written after `finish()`, `ldelim()` and `reset()` come with no fork open. Every writer is
 * finished at the end.
 */

const { prng } = require('../../tools/seeded');
const { num } = require('../values');

const SCALAR_32 = ['uint32', 'int32', 'sint32', 'fixed32', 'sfixed32', 'float', 'double'];
const SCALAR_64 = ['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64'];
const PACKED_32 = ['uint32s', 'int32s', 'sint32s', 'fixed32s', 'sfixed32s'];
const PACKED_64 = ['uint64s', 'int64s', 'sint64s', 'fixed64s', 'sfixed64s'];
const PACKED_FLOAT = ['floats', 'doubles'];

/** Varint length edges: 2^(7k) - 1, 2^(7k), and their negatives. */
const EDGES = [];
for (let k = 1; k <= 9; k++) EDGES.push(2 ** (7 * k) - 1, 2 ** (7 * k), -(2 ** (7 * k)));

const ODD_NUMBERS = [
  0, -0, -1, 1.9, -1.5, -0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 1e20, -1e20, NaN, Infinity, -Infinity, 2 ** 53,
];
const ODD_STRINGS = ['300', ' 12 ', '0x10', '1e3', 'abc', ''];
const ODD_LITERALS = ['null', 'undefined', 'true', 'false', '[7]', '{}'];
const DECIMALS = ['18446744073709551615', '9223372036854775807', '-9223372036854775808', '-5', '+5', ' 12', '12abc', '1.5', 'abc'];
/** Characters strings are made of: ASCII, 2-, 3- and 4-byte UTF-8, lone surrogates, NUL. */
const ALPHABET = ['a', 'z', ' ', 'é', 'ß', '€', '\u07ff', '\u0800', '\uD83D\uDE00', '\uD800', '\uDC00', '\0', '\uffff'];
/** Odd `length`s for array-likes (test/misuse.test.js's, small). */
const ODD_LENGTHS = [num(-1), num(1.5), { k: 'str', v: '2' }, { k: 'str', v: 'x' }, { k: 'lit', v: 'null' }, num(NaN), num(3.7), { k: 'lit', v: 'true' }, num(-0)];

class Generator {
  /**
   * @param {number} seed Seed
   */
  constructor(seed) {
    this.r = prng(seed);
    this.ids = 0;
    this.writers = ['w0'];
    /** ids of typed arrays given so far, for `mutate` */
    this.typed = [];
  }

  /** @returns {string} A fresh value id */
  id() {
    return `v${++this.ids}`;
  }

  /** @returns {boolean} With probability p */
  chance(p) {
    return this.r() < p;
  }

  /** @returns {object[]} The steps of a sequence */
  steps() {
    const { r } = this;
    const steps = [{ op: 'create', w: 'w0' }];
    let cur = 'w0';
    const n = this.chance(0.1) ? 30 + r.int(40) : 1 + r.int(24);
    for (let i = 0; i < n; i++) {
      if (this.writers.length < 3 && this.chance(0.06)) {
        const name = `w${this.writers.length}`;
        this.writers.push(name);
        steps.push({ op: 'create', w: name });
        cur = name;
        continue;
      }
      if (this.chance(0.25)) cur = r.pick(this.writers);
      steps.push(...this.step(cur));
    }
    for (const w of this.writers) steps.push(this.finish(w));
    return steps;
  }

  /**
   * @param {string} w Writer
   * @returns {object[]} One step, or a short block of them
   */
  step(w) {
    const { r } = this;
    const roll = r();
    if (roll < 0.3) return [this.scalar(w)];
    if (roll < 0.46) return [this.packed(w)];
    if (roll < 0.55) return [{ op: r.pick(['bytes', 'raw']), w, args: [this.bytesValue()] }];
    if (roll < 0.61) return [{ op: 'string', w, args: [this.stringValue()] }];
    if (roll < 0.69) return [{ op: 'fork', w }];
    if (roll < 0.76) return [{ op: 'ldelim', w }];
    if (roll < 0.78) return [{ op: 'reset', w }];
    if (roll < 0.84) return [this.finish(w)];
    if (roll < 0.88) {
      const block = [];
      if (this.chance(0.7)) block.push({ op: 'fork', w });
      block.push({ op: 'fill', w, to: r.pick([126, 127, 128, 129, 16382, 16383, 16384, 16385]), seed: r.int(2 ** 31) });
      if (this.chance(0.3)) block.push(this.scalar(w));
      if (this.chance(0.7)) block.push({ op: 'ldelim', w });
      return block;
    }
    if (roll < 0.92 && this.typed.length > 0) {
      return [{ op: 'mutate', id: r.pick(this.typed), how: r.pick(['detach', 'shrink', 'grow', 'write']), by: r.pick([1, 4, 8, 64, 4096]), seed: r.int(2 ** 31) }];
    }
    if (roll < 0.94) return [{ op: 'raw', w, args: [{ k: 'canary', of: '@this' }] }];
    return [this.scalar(w)];
  }

  /** @returns {object} A `finish`, `finish(true)` or `finishInto` step */
  finish(w) {
    const roll = this.r();
    if (roll < 0.7) return { op: 'finish', w, args: [] };
    if (roll < 0.85) return { op: 'finish', w, args: [{ k: 'lit', v: 'true' }] };
    return { op: 'finishInto', w, args: [this.r.int(3), this.r.pick([null, 0, 1, 3])] };
  }

  /** @returns {object} A scalar method call */
  scalar(w) {
    const { r } = this;
    const roll = r();
    if (roll < 0.45) {
      const op = r.pick(SCALAR_32);
      return { op, w, args: [this.chance(0.2) ? this.conv(this.number32()) : this.number32()] };
    }
    if (roll < 0.85) {
      const op = r.pick(SCALAR_64);
      let v = this.number64();
      if (this.chance(0.2)) v = this.chance(0.75) ? this.longlike() : this.conv(this.number32());
      return { op, w, args: [v] };
    }
    return { op: 'bool', w, args: [this.chance(0.1) ? this.conv(num(1)) : this.boolish()] };
  }

  /** @returns {object} A number-ish description for 32-bit methods */
  number32() {
    const { r } = this;
    switch (r.int(7)) {
      case 0: case 1: return num(r.int(128));
      case 2: return num(r.int(2 ** 32) - 2 ** 31);
      case 3: return num(r.pick(EDGES));
      case 4: return num(r.pick(ODD_NUMBERS));
      case 5: return this.chance(0.5) ? { k: 'str', v: r.pick(ODD_STRINGS) } : { k: 'lit', v: r.pick(ODD_LITERALS) };
      default: return num((r() - 0.5) * 2 ** r.int(40));
    }
  }

  /** @returns {object} A description for 64-bit methods */
  number64() {
    const { r } = this;
    switch (r.int(7)) {
      case 0: return this.number32();
      case 1: return { k: 'str', v: this.chance(0.8) ? r.pick(DECIMALS) : String(r.int(2 ** 31) * r.int(2 ** 31)) };
      case 2: return { k: 'long', low: r.int(2 ** 32) | 0, high: r.int(2 ** 32) | 0, unsigned: this.chance(0.5) };
      case 3: return { k: 'lh', low: num(r.int(2 ** 32) - 2 ** 31), high: num(r.pick([0, 1, -1, r.int(2 ** 32)])) };
      case 4: return { k: 'big', v: String(BigInt.asIntN(64, BigInt(r.int(2 ** 32)) * BigInt(r.int(2 ** 32)) - BigInt(r.int(2 ** 31)))) };
      case 5: return num(r.pick([2 ** 63, -(2 ** 63), 2 ** 64, -(2 ** 64) - 4096, 0, -1]));
      default: return num((r() - 0.5) * 2 ** r.int(70));
    }
  }

  /** @returns {object} A boolish description */
  boolish() {
    const { r } = this;
    return r.pick([{ k: 'lit', v: 'true' }, { k: 'lit', v: 'false' }, num(0), num(1), { k: 'str', v: '' }, { k: 'str', v: 'false' },
      { k: 'lit', v: 'null' }, { k: 'lit', v: '{}' }, num(NaN), num(-1)]);
  }

  /** @returns {object} A float description */
  float() {
    const { r } = this;
    return this.chance(0.3)
      ? this.number32()
      : num(r.pick([0, -0, 1.5, -2.25, 3.4028235e38, 1e39, 1e-46, NaN, Infinity, (r() - 0.5) * 1e6]));
  }

  /**
   * @param {object} ret What it converts to
   * @returns {object} An object that converts through valueOf, toString or Symbol.toPrimitive, acting first
   */
  conv(ret) {
    return { k: 'conv', id: this.id(), via: this.r.pick(['valueOf', 'valueOf', 'toString', 'toPrimitive']), ret, act: this.act() };
  }

  /** @returns {object} A Long-like object whose `low`/`high` getters act */
  longlike() {
    const { r } = this;
    const noAct = { a: 'none' };
    const which = r.int(3);
    return {
      k: 'longlike', id: this.id(),
      low: this.chance(0.9) ? num(r.int(2 ** 32) - 2 ** 31) : this.conv(num(r.int(1000))),
      high: num(r.pick([0, 0, 1, -1, r.int(2 ** 32) - 2 ** 31])),
      lowAct: which !== 1 ? this.act() : noAct,
      highAct: which !== 0 ? this.act() : noAct,
    };
  }

  /**
   * What a callback does: nothing, throw, or calls on the writer reading it (`self`), another
   * live writer, or a new one that it then finishes.
   * @returns {object} Action
   */
  act() {
    const { r } = this;
    const roll = r();
    if (roll < 0.25) return { a: 'none' };
    if (roll < 0.45) return { a: 'throw' };
    if (roll < 0.65) {
      const choices = [['finish'], ['uint32', num(r.int(300))], ['fork'], ['ldelim'], ['reset'], ['raw', { k: 'canary', of: '@this' }],
        ['string', { k: 'str', v: 'é'.repeat(r.int(70)) }], ['uint64', this.number64()], ['pos'], ['finishInto', 0, null],
        ['uint32s', { k: 'arr', n: r.int(200), seed: r.int(2 ** 31), dist: 'word', put: [] }],
        ['doubles', { k: 'arr', n: r.int(40), seed: r.int(2 ** 31), dist: 'float', put: [] }]];
      return { a: 'do', on: 'self', calls: Array.from({ length: 1 + r.int(2) }, () => r.pick(choices)) };
    }
    if (roll < 0.85) {
      const long = () => ({ k: 'arr', n: 16 + r.int(40), seed: r.int(2 ** 31), dist: 'float', put: [] });
      const choices = [['uint64', this.number64()], ['sint64', this.number64()], ['fixed64', this.number64()], ['float', this.float()],
        ['double', this.float()], ['floats', long()], ['doubles', long()], ['int32', num(-1)], ['string', { k: 'str', v: 'n'.repeat(r.int(50)) }],
        ['uint32s', { k: 'arr', n: r.int(200), seed: r.int(2 ** 31), dist: 'word', put: [] }], ['raw', { k: 'canary', of: '@this' }], ['fork'], ['ldelim']];
      return { a: 'do', on: 'new', calls: Array.from({ length: 1 + r.int(3) }, () => r.pick(choices)) };
    }
    const other = r.pick(['w0', 'w1', 'w2']);
    const choices = [['raw', { k: 'canary', of: '@this' }], ['uint32', num(r.int(2 ** 32))], ['finish'], ['fork'], ['ldelim'], ['pos'],
      ['bytes', { k: 'data', n: r.pick([1, 130, 5000]), seed: r.int(2 ** 31), form: 'buffer' }]];
    return { a: 'do', on: other, calls: Array.from({ length: 1 + r.int(3) }, () => r.pick(choices)) };
  }

  /** @returns {number} An element count, mostly small, sometimes across the paths' thresholds */
  count() {
    const { r } = this;
    const roll = r();
    if (roll < 0.7) return r.pick([0, 1, 2, 3, 5, 8, 15, 16, 17, 31, 40]);
    if (roll < 0.93) return r.pick([100, 127, 128, 129, 200, 255, 256, 512, 1023, 1024, 1025]);
    if (roll < 0.99) return r.pick([2047, 2048, 2049, 3000]);
    return r.pick([4096, 16384, 16385]);
  }

  /** @returns {object} A packed method call */
  packed(w) {
    const { r } = this;
    const roll = r();
    let op;
    let dist;
    let element;
    let types;
    if (roll < 0.45) {
      op = r.pick(PACKED_32);
      dist = r.pick(['small', 'small', 'word', 'edge']);
      element = () => this.number32();
      types = op.startsWith('fixed') || op.startsWith('sfixed') ? ['Int32Array', 'Uint32Array', 'Int32Array', 'Float64Array'] : ['Int32Array', 'Uint32Array', 'Float64Array', 'Float32Array', 'Uint8Array', 'Int16Array'];
    } else if (roll < 0.7) {
      op = r.pick(PACKED_64);
      dist = 'big';
      element = () => this.number64();
      types = ['BigInt64Array', 'BigUint64Array'];
    } else if (roll < 0.9) {
      op = r.pick(PACKED_FLOAT);
      dist = 'float';
      element = () => this.float();
      types = op === 'floats' ? ['Float32Array', 'Float32Array', 'Float64Array', 'Int32Array'] : ['Float64Array', 'Float64Array', 'Float32Array', 'Uint32Array'];
    } else {
      op = 'bools';
      dist = 'small';
      element = () => this.boolish();
      types = ['Uint8Array', 'Int32Array'];
    }
    return { op, w, args: [this.arrayValue(op, dist, element, types)] };
  }

  /**
   * An array argument for a packed method: plain (generated, with some hostile elements),
   * with element getters, a Proxy, a typed array, or an array-like with an odd length.
   * @returns {object} Description
   */
  arrayValue(op, dist, element, types) {
    const { r } = this;
    const n = this.count();
    const roll = r();
    const plainDist = dist === 'big' ? r.pick(['small', 'word']) : dist;
    if (roll < 0.4) {
      const put = [];
      if (n > 0 && this.chance(0.35)) {
        for (let k = 1 + r.int(3); k > 0; k--) {
          const hostile = op.endsWith('64s') && this.chance(0.5) ? this.longlike() : this.conv(dist === 'float' ? this.float() : this.number32());
          put.push([r.int(n), hostile]);
        }
      } else if (n > 0 && this.chance(0.4)) {
        for (let k = 1 + r.int(4); k > 0; k--) put.push([r.int(n), element()]);
      }
      if (op.endsWith('64s') && n > 0 && this.chance(0.2)) put.push([r.int(n), { k: 'big', v: String(-r.int(2 ** 31)) }]);
      return { k: 'arr', n, seed: r.int(2 ** 31), dist: plainDist, put };
    }
    if (roll < 0.5 && n > 0) {
      const acts = [];
      for (let k = 1 + r.int(2); k > 0; k--) acts.push([r.int(n), this.act()]);
      return { k: 'getters', id: this.id(), base: { k: 'arr', n, seed: r.int(2 ** 31), dist: plainDist, put: [] }, acts };
    }
    if (roll < 0.58) {
      const over = this.chance(0.6) ? { k: 'arr', n, seed: r.int(2 ** 31), dist: plainDist, put: [] } : this.typedValue(r.pick(types), n, dist);
      const acts = [];
      if (this.chance(0.4)) acts.push(['length', this.act()]);
      if (n > 0) acts.push([String(r.int(n)), this.act()]);
      return { k: 'proxy', id: this.id(), over, acts };
    }
    if (roll < 0.95) return this.typedValue(r.pick(types), n, dist);
    const len = r.pick(ODD_LENGTHS);
    return { k: 'arraylike', length: len, elems: Array.from({ length: r.int(4) }, element) };
  }

  /**
   * @returns {object} A typed array description (registered for `mutate` steps)
   */
  typedValue(type, n, dist) {
    const { r } = this;
    const id = this.id();
    this.typed.push(id);
    const d = { k: 'typed', id, type, n, seed: r.int(2 ** 31), dist: type.startsWith('Big') ? 'big' : dist === 'big' ? 'word' : dist };
    const roll = r();
    if (roll < 0.15) d.buffer = 'resizable';
    else if (roll < 0.3) d.buffer = 'tracking';
    if (this.chance(0.15)) d.offset = 1 + r.int(3);
    if (this.chance(0.1)) d.lengthAct = this.act();
    if (type.startsWith('Float') && this.chance(0.3) && n > 0) d.snan = [r.int(n), r.int(n)];
    if (this.chance(0.03)) d.detached = true;
    return d;
  }

  /** @returns {object} An argument for `bytes` or `raw` */
  bytesValue() {
    const { r } = this;
    const roll = r();
    const n = this.chance(0.85) ? r.pick([0, 1, 3, 10, 127, 128, 129, r.int(300)])
      : this.chance(0.8) ? r.pick([4095, 4096, 4097, 8192])
      : r.pick([16383, 16384, 16385]);
    if (roll < 0.45) return { k: 'data', n, seed: r.int(2 ** 31), form: r.pick(['buffer', 'u8', 'array', 'base64']) };
    if (roll < 0.7) return this.typedValue('Uint8Array', n, 'word');
    if (roll < 0.75) return this.typedValue(r.pick(['Uint16Array', 'Int8Array', 'Float64Array', 'BigInt64Array']), Math.min(n, 300), 'word');
    if (roll < 0.87) {
      const small = Math.min(n, 300);
      if (small === 0) return { k: 'canary', of: '@this' };
      const acts = [[r.int(small), this.act()]];
      if (this.chance(0.5)) return { k: 'getters', id: this.id(), base: { k: 'arr', n: small, seed: r.int(2 ** 31), dist: 'word', put: [] }, acts };
      if (this.chance(0.3)) acts.push(['length', this.act()]);
      return { k: 'proxy', id: this.id(), over: { k: 'arr', n: small, seed: r.int(2 ** 31), dist: 'word', put: [] }, acts: acts.map(([k, a]) => [String(k), a]) };
    }
    if (roll < 0.92) return { k: 'canary', of: '@this' };
    if (roll < 0.96) return { k: 'str', v: r.pick(['AAEC', 'AAE=', '_-8', 'not base64!', '', '////', 'YQ']) };
    return { k: 'arraylike', length: r.pick([num(2), num(1.5), { k: 'str', v: '3' }, num(-1)]), elems: [num(1), this.conv(num(2))] };
  }

  /** @returns {object} A string: lone surrogates, and lengths around 40 units and 128 / 16384 UTF-8 bytes */
  stringValue() {
    const { r } = this;
    const roll = r();
    let s = '';
    if (roll < 0.6) {
      const units = r.pick([0, 1, 5, 38, 39, 40, 41, 42, 63, 64, 65, 126, 127, 128, 129, r.int(300)]);
      while (s.length < units) s += this.chance(0.7) ? 'a' : r.pick(ALPHABET);
      s = s.slice(0, units);
    } else {
      const bytes = r.pick([126, 127, 128, 129, 130, 16383, 16384, 16385]);
      let have = 0;
      while (bytes - have >= 4) {
        const c = r.pick(['a', 'é', '€', '\uD83D\uDE00', '\uD800']);
        s += c;
        have += Buffer.byteLength(c);
      }
      s += 'a'.repeat(bytes - have);
    }
    if (this.chance(0.05)) return { k: 'strobj', v: s };
    if (this.chance(0.02)) return this.number32();
    return { k: 'str', v: s };
  }
}

/**
 * @param {number} seed Seed
 * @returns {{seed: number, steps: object[]}} The sequence of that seed
 */
function generate(seed) {
  return { seed, steps: new Generator(seed).steps() };
}

module.exports = { generate };
