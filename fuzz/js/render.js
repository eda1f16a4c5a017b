'use strict';

/**
 * A sequence as a standalone script: the same calls through RustWriter and through protobufjs
 * 8.8.1, each printing its transcript (every call, what it returned or threw, every writer's
 * `pos` after it, what user code ran), then the lines that differ. Run it from the repository
 * root (`node repro.js`, with `PROTOBUFJS_RUSTWRITER=js` for the JS paths).
 *
 * The script shows protobufjs's own behaviour: where README "Compatibility" lists a difference
 * (world.js models them), the transcripts differ there by design.
 */

const { LONG_METHODS, isDetached } = require('./values');
const { element } = require('../values');
const { prng } = require('../../tools/seeded');
const { canaryBytes } = require('./world');

/** Helpers every script carries (the data generators are values.js's own functions). */
const PRELUDE = `
${prng.toString()}
${element.toString()}
${isDetached.toString()}
const TYPED = { Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array };
const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'length').get;
const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
const toLong = (b) => { const u = BigInt.asUintN(64, b); return Long.fromBits(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0); };
/** n seeded elements (fuzz/js/values.js) */
function seeded(n, seed, dist) { const r = prng(seed); return Array.from({ length: n }, () => element(r, dist)); }
/** seeded bytes */
function data(n, seed) { const r = prng(seed); return Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256))); }
/** a typed array as fuzz/js/values.js makeTyped makes it */
function typed(type, values, o, lengthGetter) {
  const Type = TYPED[type], size = Type.BYTES_PER_ELEMENT, n = values.length, offset = (o.offset || 0) * size;
  const ab = o.buffer ? new ArrayBuffer(offset + n * size, { maxByteLength: 2 * (offset + n * size) + 64 }) : new ArrayBuffer(offset + n * size);
  const ta = o.buffer === 'tracking' ? new Type(ab, offset) : new Type(ab, offset, n);
  values.forEach((v, i) => { ta[i] = v; });
  for (const i of o.snan || []) if (i < n) { if (size === 4) new Uint32Array(ta.buffer, ta.byteOffset + 4 * i, 1)[0] = 0x7fa00000; else new Uint32Array(ta.buffer, ta.byteOffset + 8 * i, 2)[1] = 0x7ff40000; }
  if (o.detached) structuredClone(ab, { transfer: [ab] });
  if (lengthGetter) Object.defineProperty(ta, 'length', { configurable: true, get() { lengthGetter(); return typedLength.call(this); } });
  return ta;
}
/** fuzz/js/world.js mutate */
function mutate(list, how, by, seed) {
  for (const ta of list) {
    const ab = ta.buffer;
    if (isDetached(ab)) continue;
    if (how === 'detach') structuredClone(ab, { transfer: [ab] });
    else if (how === 'shrink' && ab.resizable) ab.resize(Math.max(0, ab.byteLength - by));
    else if (how === 'grow' && ab.resizable) ab.resize(Math.min(ab.maxByteLength, ab.byteLength + by));
    else if (how === 'write') {
      const r = prng(seed), n = typedLength.call(ta), big = ta instanceof BigInt64Array || ta instanceof BigUint64Array;
      for (let i = Math.floor(r() * n); i < n; i += 1 + Math.floor(r() * 8)) {
        const x = Math.floor(r() * 4294967296);
        ta[i] = big ? BigInt(x) << 20n : ta instanceof Float32Array || ta instanceof Float64Array ? x / 7 : x;
      }
    }
  }
}
`;

/**
 * @param {object} desc Sequence `{seed, steps}`
 * @param {object} info `kind`, `message`, `path`, `options` (the path's configuration), `env`
 * @returns {string} Script
 */
function render(desc, info) {
  const r = new Renderer(desc.seed);
  const body = desc.steps.filter(Boolean).map((s) => r.step(s)).join('\n');
  return `'use strict';
// npm run fuzz:js, path ${info.path}, sequence seed ${desc.seed}: ${info.kind}
// ${String(info.message).replace(/\n/g, ' ').slice(0, 400)}
// Run from the repository root: ${Object.entries(info.env).map(([k, v]) => `${k}=${v} `).join('')}node <this file>
// The reference: protobufjs 8.8.1 as the package never touched it, with the rules it learned (test/reference.js).
const protobuf = require(require('path').resolve('test', 'reference')).referenceCopy('8').pb;
const Long = require('long');
const { RustWriter, _testing } = require('protobufjs-rustwriter');
_testing.configure(${JSON.stringify(info.options)});
${PRELUDE}
function run(ref) {
  const create = ref ? () => new protobuf.BufferWriter() : () => RustWriter.create();
  const big64 = (s) => (ref ? toLong(BigInt(s)) : BigInt(s));
  const w = {};
  const arrays = {};
  const out = [];
  const log = (s) => out.push(\`  \${s}\`);
  const step = (label, fn) => {
    try {
      const got = fn();
      out.push(got === undefined ? label : \`\${label} = \${got}\`);
    } catch (err) {
      out.push(\`\${label} threw \${err && err.constructor && err.constructor.name}: \${err && err.message}\`);
    }
    out.push(\`  pos \${Object.entries(w).map(([k, x]) => { try { return \`\${k}=\${x.pos}\`; } catch (e) { return \`\${k} threw\`; } }).join(' ')}\`);
  };
  void big64; void arrays;
${body}
  for (const [k, x] of Object.entries(w)) step(\`\${k}.finish() at the end\`, () => hex(x.finish()));
  return out;
}

const [a, b] = [run(false), run(true)];
console.log('RustWriter:');
console.log(a.join('\\n'));
console.log('protobufjs 8.8.1:');
console.log(b.join('\\n'));
const k = a.findIndex((line, i) => line !== b[i]);
console.log(k < 0 && a.length === b.length ? 'same transcripts' : \`first difference, line \${k + 1}:\\n  RustWriter: \${a[k]}\\n  protobufjs: \${b[k]}\`);
`;
}

class Renderer {
  constructor(seed) {
    this.seed = seed;
  }

  /**
   * @param {object} s Step
   * @returns {string} Its statement
   */
  step(s) {
    if (s.op === 'create') return `  w.${s.w} = create();`;
    if (s.op === 'mutate') return `  step('mutate ${s.id}: ${s.how}', () => mutate(arrays.${s.id} || [], '${s.how}', ${s.by}, ${s.seed}));`;
    if (s.op === 'fill') return `  // fill ${s.w} to ${s.to}: made concrete only when the sequence runs`;
    const ctx = { self: s.w, long64: LONG_METHODS.has(s.op) };
    const x = `w.${s.w}`;
    if (s.op === 'finish') {
      const arg = s.args.length ? this.expr(s.args[0], ctx) : '';
      return `  step('${s.w}.finish(${arg})', () => hex(${x}.finish(${arg})));`;
    }
    if (s.op === 'finishInto') {
      const [extra, offset] = s.args;
      const call = offset === null ? 'finishInto(t)' : `finishInto(t, ${offset})`;
      return `  step('${s.w}.${call}', () => { const t = Buffer.alloc(${x}.pos + ${extra + (offset || 0)}, 0xee); ${x}.${call}; return hex(t); });`;
    }
    const args = (s.args || []).map((d) => this.expr(d, ctx));
    const label = `${s.w}.${s.op}(${(s.args || []).map((d) => this.label(d)).join(', ')})`;
    return `  step(${JSON.stringify(label)}, () => { ${x}.${s.op}(${args.join(', ')}); });`;
  }

  /** @returns {string} A short label for a description */
  label(d) {
    if (d === null || typeof d !== 'object') return String(d);
    if (d.id) return d.id;
    if (d.k === 'num') return String(d.v);
    if (d.k === 'str') return JSON.stringify(d.v.length > 12 ? `${d.v.slice(0, 12)}…` : d.v);
    if (d.k === 'arr') return `[${d.elems ? d.elems.length : d.n}]`;
    if (d.k === 'data') return `${d.form}[${d.n}]`;
    if (d.k === 'canary') return `canary(${d.of})`;
    return d.k;
  }

  /**
   * @param {object} d Description
   * @param {{self: string, long64: boolean}} ctx The writer whose call reads the value; 64-bit
   * @returns {string} A JS expression making the value
   */
  expr(d, ctx) {
    if (d === null || typeof d !== 'object') return JSON.stringify(d);
    const el = { ...ctx };
    switch (d.k) {
      case 'num': return typeof d.v === 'number' ? String(d.v) : d.v;
      case 'str': return JSON.stringify(d.v);
      case 'big': return ctx.long64 ? `big64(${JSON.stringify(d.v)})` : `${d.v}n`;
      case 'long': return `Long.fromBits(${d.low}, ${d.high}, ${d.unsigned})`;
      case 'lh': return `{ low: ${this.expr(d.low, { ...ctx, long64: false })}, high: ${this.expr(d.high, { ...ctx, long64: false })} }`;
      case 'lit': return d.v === 'Date' ? 'new Date(5)' : d.v === 'function' ? 'function f() {}' : d.v;
      case 'strobj': return `new String(${JSON.stringify(d.v)})`;
      case 'arr': {
        if (d.elems) return `[${d.elems.map((e) => this.expr(e, el)).join(', ')}]`;
        const base = `seeded(${d.n}, ${d.seed}, '${d.dist}')`;
        const mapped = d.dist === 'big' && ctx.long64 ? `${base}.map((b) => (ref ? toLong(b) : b))` : base;
        if (!d.put || !d.put.length) return mapped;
        return `((a) => { ${d.put.map(([i, e]) => `a[${i}] = ${this.expr(e, el)};`).join(' ')} return a; })(${mapped})`;
      }
      case 'arraylike':
        return `{ length: ${this.expr(d.length, ctx)}${d.elems.map((e, i) => `, ${i}: ${this.expr(e, el)}`).join('')} }`;
      case 'typed': {
        const values = d.values ? `[${d.values.map((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? `${v}n` : String(v))).join(', ')}]` : `seeded(${d.n}, ${d.seed}, '${d.dist}')`;
        const o = {};
        for (const key of ['buffer', 'offset', 'snan', 'detached']) if (d[key] !== undefined) o[key] = d[key];
        const getter = d.lengthAct ? `, () => { log('${d.id} length'); ${this.act(d.id, d.lengthAct, ctx)} }` : '';
        let made = `(arrays.${d.id} = [typed('${d.type}', ${values}, ${JSON.stringify(o)}${getter})])[0]`;
        if (ctx.long64 && d.type.startsWith('Big')) made = `((ta) => (ref ? Array.from({ length: typedLength.call(ta) }, (_, i) => toLong(ta[i])) : ta))(${made})`;
        return made;
      }
      case 'data': {
        const b = `data(${d.n}, ${d.seed})`;
        if (d.form === 'u8') return `new Uint8Array(${b})`;
        if (d.form === 'array') return `Array.from(${b})`;
        if (d.form === 'base64') return `${b}.toString('base64')`;
        return b;
      }
      case 'canary': {
        const of = d.of === '@this' ? ctx.self : d.of;
        return `Buffer.from('${canaryBytes(this.seed, of).toString('hex')}', 'hex') /* canary of ${of} */`;
      }
      case 'conv': {
        const ret = this.expr(d.ret, { ...ctx, long64: false });
        const body = (event) => `log('${d.id} ${event}'); ${this.act(d.id, d.act, ctx)} return ${ret};`;
        if (d.via === 'toPrimitive') return `{ [Symbol.toPrimitive](hint) { log('${d.id} toPrimitive ' + hint); ${this.act(d.id, d.act, ctx)} return ${ret}; } }`;
        if (d.via === 'toString') return `{ toString() { ${body('toString')} } }`;
        return `{ valueOf() { ${body('valueOf')} } }`;
      }
      case 'longlike': {
        const plain = { ...ctx, long64: false };
        return `{ get low() { log('${d.id} low'); ${this.act(d.id, d.lowAct, ctx)} return ${this.expr(d.low, plain)}; }, ` +
          `get high() { log('${d.id} high'); ${this.act(d.id, d.highAct, ctx)} return ${this.expr(d.high, plain)}; } }`;
      }
      case 'getters':
        return `((a) => { ${d.acts.map(([i, act]) => `{ const v = a[${i}]; Object.defineProperty(a, ${i}, { enumerable: true, get() { log('${d.id} get ${i}'); ${this.act(d.id, act, ctx)} return v; } }); }`).join(' ')} return a; })(${this.expr(d.base, ctx)})`;
      case 'proxy': {
        const acts = d.acts.map(([key, act]) => `if (k === '${key}') { ${this.act(d.id, act, ctx)} }`).join(' ');
        return `new Proxy(${this.expr(d.over, ctx)}, { get(t, k) { if (typeof k === 'string' && (k === 'length' || /^\\d+$/.test(k))) { log('${d.id} get ' + k); ${acts} } const v = Reflect.get(t, k, t); return typeof v === 'function' ? v.bind(t) : v; } })`;
      }
      default: return `undefined /* ${d.k} */`;
    }
  }

  /**
   * @param {string} id The value's id
   * @param {object} act Action
   * @param {{self: string}} ctx Context
   * @returns {string} Statements
   */
  act(id, act, ctx) {
    if (!act || act.a === 'none') return '';
    if (act.a === 'throw') return `throw new Error('hostile ${id}');`;
    const target = act.on === 'self' ? ctx.self : act.on === 'new' ? null : act.on;
    const x = target === null ? 'n' : `w.${target}`;
    const calls = act.calls.map(([op, ...args]) => {
      const inner = { self: target === null ? `${id}-new` : target, long64: LONG_METHODS.has(op) };
      let call;
      if (op === 'finish') call = `log('${id} ${act.on}.finish = ' + hex(${x}.finish()));`;
      else if (op === 'finishInto') call = `{ const t = Buffer.alloc(${x}.pos, 0xee); ${x}.finishInto(t); log('${id} ${act.on}.finishInto = ' + hex(t)); }`;
      else if (op === 'pos') call = `log('${id} ${act.on}.pos = ' + ${x}.pos);`;
      else call = `${x}.${op}(${args.map((a) => this.expr(a, inner)).join(', ')});`;
      return `try { ${call} } catch (e) { log('${id} ${act.on}.${op} threw ' + e.constructor.name); }`;
    }).join(' ');
    if (target === null) return `{ const n = create(); ${calls} log('${id} new = ' + hex(n.finish())); }`;
    return `if (${x}) { ${calls} }`;
  }
}

module.exports = { render };
