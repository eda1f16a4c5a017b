'use strict';

/**
 * A case as a standalone script: the schema (`.proto` text, or the reflection calls that build
 * it), each message as JS (the helpers that make getters, Proxies and seeded data are values.js's
 * own functions, copied in), and the failing form run once as an app runs it after `install()`
 * (the subject) and once with protobufjs's own encoder and writer (the reference), each printing
 * its bytes, what it threw and the reads user code saw, then the first difference. Run it from the
 * repository root (`node repro.js`, with `PROTOBUFJS_RUSTWRITER=js` for the JS paths).
 */

const values = require('./values');
const { numValue, element } = require('../values');
const { prng } = require('../../tools/seeded');
const { runInto, mutate, valueAfter, SERIALIZE } = require('./check');
const { toProto, buildReflect, buildRoot } = require('./schema');
const { messagesOf } = require('./case');

/** Helpers a script may call, by name, with their source. */
const HELPERS = {
  prng, element, runInto, mutate, messagesOf,
  ...Object.fromEntries(['refBig', 'seededText', 'seededBytes', 'seededElements', 'loggingObject', 'loggingArray',
    'setProperty', 'bytesForm', 'big', 'longLike', 'conv', 'array', 'seeded', 'typed', 'map', 'object']
    .map((name) => [name, values[name]])),
};

/**
 * @param {object} desc Case (usually shrunk)
 * @param {object} info `version` (`7`, `8`), `path`, `env`, `options` (the path's configuration),
 * `rules` (false: the reference without its rules), `kind`, `form`, `at`, `message`, `outputs` (recorded)
 * @returns {string} Script
 */
function render(desc, info) {
  const protobuf = require(info.version === '8' ? 'protobufjs' : 'protobufjs7');
  const root = buildRoot(protobuf, desc.schema);
  const added = new Map(desc.after ? desc.after.add.map((a) => [`${a.type} ${a.field.id}`, a.field]) : []);
  const r = new Renderer(root, added);
  const maker = (name, value, type) => `function ${name}(s, p) { // ${type}\n  return ${r.expr(value, false, '  ')};\n}`;
  let makers = desc.messages.map((m, k) => maker(`message${k}`, m.value, m.type)).join('\n\n');
  const schema = desc.schema.build === 'parse'
    ? `const PROTO = ${template(toProto(desc.schema))};\n\n/** The schema's Root, as the fuzzer builds it. */\nfunction makeRoot(pb) {\n  const root = pb.parse(PROTO, new pb.Root(), { keepCase: ${desc.schema.keepCase} }).root;\n${desc.schema.resolveAll ? '  root.resolveAll();\n' : ''}  return root;\n}`
    : `// Built with protobufjs's reflection API (its field names are not all .proto identifiers); as .proto-like text:\n${toProto(desc.schema).trim().split('\n').map((l) => `//   ${l}`).join('\n')}\nconst SCHEMA = ${JSON.stringify(desc.schema)};\n${buildReflect.toString()}\n\n/** The schema's Root, as the fuzzer builds it. */\nfunction makeRoot(pb) {\n  const root = buildReflect(pb, SCHEMA);\n${desc.schema.resolveAll ? '  root.resolveAll();\n' : ''}  return root;\n}`;
  const form = info.form || 'encode';
  const index = info.at && info.at.message !== null && info.at.message !== undefined ? info.at.message : 0;
  const j = info.at && info.at.into !== null && info.at.into !== undefined ? info.at.into : 0;
  const seconds = desc.messages.map((m, k) => {
    if (!desc.after) return null;
    const value = valueAfter(desc, k);
    if (value === m.value) return null;
    makers += `\n\n/** Message ${k} in the second pass, with the fields added to its type. */\n${maker(`messageAfter${k}`, value, m.type)}`;
    return `messageAfter${k}`;
  });
  const list = desc.messages.map((m, k) => `  ['${m.type}', message${k}${seconds[k] ? `, ${seconds[k]}` : ''}],`).join('\n');
  const steps = stepsTo(desc, form, form === 'into' ? j : index);
  const body = `${schema}\n\n${makers}\n\n/** Each message: its type, how it is made, and how in the second pass if that differs. */\nconst MESSAGES = [\n${list}\n];\n` +
    (desc.intos.length && steps.some(([f]) => f === 'into') ? `/** The operations of the into runs (fuzz/schemas/case.js). */\nconst INTOS = ${JSON.stringify(desc.intos.map((x) => x.ops))};\n` : '') +
    (desc.after && steps.some(([f]) => f === 'mutate') ? `/** The second pass's schema changes. */\nconst AFTER = ${JSON.stringify({ add: desc.after.add.map((x) => ({ type: x.type, field: x.field })), remove: desc.after.remove })};\n` : '') +
    `/**\n * What the fuzzer ran on each side, in its order, up to the comparison that failed (the last):\n * only the last one's output and reads are printed.\n */\nconst STEPS = ${JSON.stringify(steps)};\n` +
    `\n${runner(desc)}`;
  const used = helpersUsed(body);
  const pathOptions = JSON.stringify(info.options || {});
  const recorded = info.outputs
    ? `// Recorded: subject ${outputText(info.outputs.sub)}\n//           protobufjs ${outputText(info.outputs.ref)}\n` : '';
  return `'use strict';
// npm run fuzz:schemas: protobufjs ${info.version === '8' ? '8.8.1' : '7.6.6'}, path ${info.path}, case seed ${desc.seed}, ${form === 'into' ? 'an into run' : `message ${index}`}, form ${form}: ${info.kind}
// ${String(info.message).replace(/\n/g, ' ').slice(0, 600)}
${recorded}// Run from the repository root: ${Object.entries(info.env || {}).map(([k, v]) => `${k}=${v} `).join('')}node <this file>
const protobuf = require('${info.version === '8' ? 'protobufjs' : 'protobufjs7'}');
// The reference: a copy of the same protobufjs the package never touched, ${info.rules === false ? 'WITHOUT the rules it learned' : 'with the rules it learned'} (test/reference.js).
const refProtobuf = require(require('path').resolve('test', 'reference')).referenceCopy('${info.version}'${info.rules === false ? ', { rules: false }' : ''}).pb;
const Long = require('long');
const { RustWriter, install, serializer, _testing } = require('protobufjs-rustwriter');

_testing.configure(${pathOptions});
install(protobuf); // the subject: Type.encode(m) as an app runs it
${used.includes('bytesForm') || desc.options.customBuffer || (desc.after && desc.after.customBuffer) ? `\n${values.CustomBuffer.toString()}\n` : ''}
${used.map((name) => HELPERS[name].toString()).join('\n\n')}

${body}
const [a, b] = [run(false), run(true)];
console.log('subject (install(), RustWriter):', a.out);
console.log('  reads:', JSON.stringify(a.log));
console.log('reference (protobufjs\\'s encoder and writer):', b.out);
console.log('  reads:', JSON.stringify(b.log));
const k = a.log.findIndex((line, i) => line !== b.log[i]);
console.log(a.out === b.out && a.log.length === b.log.length && k < 0 ? 'same' : a.out !== b.out ? 'the outputs differ' : \`the reads differ from entry \${k < 0 ? Math.min(a.log.length, b.log.length) : k}\`);
`;
}

/**
 * The steps check.js runs for a case, up to and including the one that failed: `encode` and
 * `delimited` of each message, each `into` run, then (with a second pass) `mutate` and `after` of
 * each message; for a failing serializer form, `serialize` (and `reserialize`) after each message's.
 * @param {object} desc Case
 * @param {string} form The failing form
 * @param {number} at Its message (or `into` run)
 * @returns {Array<Array<string|number>>} Steps
 */
function stepsTo(desc, form, at) {
  const steps = [];
  for (let k = 0; k < desc.messages.length; k++) {
    steps.push(['encode', k]);
    if (form === 'encode' && k === at) return steps;
    steps.push(['delimited', k]);
    if (form === 'delimited' && k === at) return steps;
    if (!SERIALIZE.has(form)) continue;
    steps.push(['serialize', k]);
    if (form === 'serialize' && k === at) return steps;
  }
  for (let k = 0; k < desc.intos.length; k++) {
    steps.push(['into', k]);
    if (form === 'into' && k === at) return steps;
  }
  if (desc.after) {
    steps.push(['mutate']);
    for (let k = 0; k < desc.messages.length; k++) {
      steps.push(['after', k]);
      if (form === 'after' && k === at) return steps;
      if (!SERIALIZE.has(form)) continue;
      steps.push(['reserialize', k]);
      if (form === 'reserialize' && k === at) return steps;
    }
  }
  return steps;
}

/**
 * The script's `run(ref)`: one side's run of the steps.
 * @param {object} desc Case
 * @returns {string} Source
 */
function runner(desc) {
  const setup = ['const limit = protobuf.util.recursionLimit;'];
  const restore = ['setLimit(limit);'];
  const buffer = (custom) => `for (const p of new Set([protobuf, refProtobuf])) { p.util.Buffer = ${custom ? 'CustomBuffer' : 'Buffer'}; p.configure(); }`;
  if (desc.options.customBuffer) setup.push(buffer(true));
  if (desc.options.recursionLimit !== null) setup.push(`setLimit(${desc.options.recursionLimit});`);
  if (desc.options.customBuffer || (desc.after && desc.after.customBuffer)) restore.push(buffer(false));
  const changes = [];
  if (desc.after) {
    if (desc.after.customBuffer !== desc.options.customBuffer) changes.push(buffer(desc.after.customBuffer));
    if (desc.after.recursionLimit !== desc.options.recursionLimit) {
      changes.push(`setLimit(${desc.after.recursionLimit === null ? 'limit' : desc.after.recursionLimit});`);
    }
  }
  return `/**
 * One side: a Root of its own, the steps, and what the last one gave.
 * @param {boolean} ref Whether this is the reference (protobufjs's encoder and writer)
 * @returns {{out: string, log: string[]}} What the last step gave, and the reads user code saw in it
 */
function run(ref) {
  const pb = ref ? refProtobuf : protobuf;
  const root = makeRoot(pb);
  const log = [];
  const s = { ref, log: (line) => log.push(line), type: (name) => root.lookupType(name), protobuf: pb };
  const setLimit = (n) => { for (const p of [protobuf, refProtobuf]) p.util.recursionLimit = n; };
  const writer = () => (ref ? new refProtobuf.BufferWriter() : RustWriter.create());
  const type = (k) => s.type(MESSAGES[k][0]);
  ${setup.join('\n  ')}
  try {
    let out = null;
    STEPS.forEach(([form, k], n) => {
      const last = n === STEPS.length - 1;
      log.length = 0;
      let phase = 'building the message';
      try {
        if (form === 'mutate') {
          // the second pass's changes, on this side's Root${changes.length ? ', and its options' : ''}
          mutate(root, AFTER, pb);${changes.map((c) => `\n          ${c}`).join('')}
          return;
        }
        const msgs = {};
        const ids = form === 'into' ? messagesOf(INTOS[k]) : [k];
        const second = form === 'after' || form === 'reserialize';
        const make = (i, side) => (second && MESSAGES[i][2] ? MESSAGES[i][2] : MESSAGES[i][1])(side, form === 'into' ? \`m\${i}\` : 'm');
        const serializing = form === 'serialize' || form === 'reserialize';
        if (serializing) {
          // One call before, on each side alike (fuzz/schemas/check.js serializeForm).
          try {
            const warm = make(k, { ...s, ref: false, passedRef: ref, log: () => {} });
            if (ref) type(k).encode(type(k).fromObject(warm), writer()).finish();
            else serializer(type(k))(warm);
          } catch {
            // the compared call throws the same
          }
        }
        for (const i of ids) msgs[i] = make(i, serializing ? { ...s, ref: false, passedRef: ref } : s);
        phase = 'encoding';
        let result;
        if (serializing) {
          // fromObject may fill a base64 value's memory in part: zeroed on both sides (check.js).
          const newBuffer = protobuf.util.newBuffer;
          protobuf.util.newBuffer = (size) => { const b = newBuffer(size); if (typeof size === 'number') b.fill(0); return b; };
          try {
            result = ref ? type(k).encode(type(k).fromObject(msgs[k]), writer()).finish() : serializer(type(k))(msgs[k]);
          } finally {
            protobuf.util.newBuffer = newBuffer;
          }
        } else if (form === 'into') {
          const encode = (i, w) => (ref || w !== undefined ? type(i).encode(msgs[i], w === undefined ? writer() : w) : type(i).encode(msgs[i]));
          result = runInto(INTOS[k], ref, writer, type, msgs, encode, {});
        } else {
          const call = form === 'delimited' ? 'encodeDelimited' : 'encode';
          result = (ref ? type(k)[call](msgs[k], writer()) : type(k)[call](msgs[k])).finish();
        }
        if (last) out = \`\${Buffer.from(result.buffer, result.byteOffset, result.length).toString('hex') || '(empty)'} (\${result.length} bytes, a \${Object.getPrototypeOf(result).constructor.name})\`;
      } catch (err) {
        if (last) out = \`threw \${err && err.constructor && err.constructor.name} while \${phase}: \${err && err.message}\`;
      }
    });
    return { out, log };
  } finally {
    ${restore.join('\n    ')}
  }
}
`;
}

/**
 * @param {object} o A recorded output (check.js `describe`)
 * @returns {string} It in one line
 */
function outputText(o) {
  if (o.threw) return `threw ${o.threw} while ${o.phase === 'build' ? 'building' : 'encoding'}: ${String(o.message).slice(0, 200)}`;
  return `${o.hex === '' ? '(empty)' : o.hex} (${o.bytes} bytes, ${o.logLength} reads)`;
}

/**
 * @param {string} text Text
 * @returns {string} A template literal of it
 */
function template(text) {
  return `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;
}

/**
 * The helpers a body calls, with those they call, in a stable order.
 * @param {string} body Source
 * @returns {string[]} Names
 */
function helpersUsed(body) {
  const used = new Set();
  let text = body;
  for (let grew = true; grew;) {
    grew = false;
    for (const name of Object.keys(HELPERS)) {
      if (!used.has(name) && new RegExp(`\\b${name}\\(`).test(text)) {
        used.add(name);
        text += HELPERS[name].toString();
        grew = true;
      }
    }
  }
  return Object.keys(HELPERS).filter((name) => used.has(name));
}

/** Turns value descriptions into JS expressions that make them (values.js `materialize`, written out). */
class Renderer {
  /**
   * @param {object} root A Root of the schema (for field names)
   * @param {Map<string, object>} added Fields the second pass adds (`type id` → field description)
   */
  constructor(root, added) {
    this.root = root;
    this.added = added;
  }

  /**
   * @param {object} d Description
   * @param {boolean} long64 Whether it goes to a 64-bit field
   * @param {string} indent Indentation of the line it starts on
   * @returns {string} Expression, in the scope of `s` (side) and `p` (its path)
   */
  expr(d, long64, indent) {
    const thunk = (e, wide) => {
      const x = this.expr(e, wide, `${indent}  `);
      return `(s, p) => ${x.startsWith('{') ? `(${x})` : x}`;
    };
    switch (d.k) {
      case 'num': {
        const v = numValue(d);
        return Object.is(v, -0) ? '-0' : String(v);
      }
      case 'str': return JSON.stringify(d.v);
      case 'text': return d.n <= 48 ? JSON.stringify(values.seededText(d.n, d.seed, d.mix)) : `seededText(${d.n}, ${d.seed}, '${d.mix}')`;
      case 'big': return `big(s, '${d.v}', ${long64})`;
      case 'long': return `Long.fromBits(${d.low}, ${d.high}, ${d.unsigned})`;
      case 'lh': {
        const low = this.expr(d.low, false, indent);
        const high = this.expr(d.high, false, indent);
        return d.log ? `longLike(s, p, ${low}, ${high})` : `{ low: ${low}, high: ${high} }`;
      }
      case 'lit': return values.LITERALS[d.v][1];
      case 'conv': return `conv(s, p, '${d.via}', ${this.expr(d.ret, false, indent)})`;
      case 'bytes': {
        const hex = d.hex !== undefined ? d.hex : d.n <= 64 ? values.seededBytes(d.n, d.seed).toString('hex') : null;
        return `bytesForm(${hex !== null ? `Buffer.from('${hex}', 'hex')` : `seededBytes(${d.n}, ${d.seed})`}, '${d.form}', CustomBuffer)`;
      }
      case 'arr': {
        const flags = {};
        for (const key of ['holes', 'getters', 'proxy', 'like']) if (d[key]) flags[key] = d[key];
        const elems = d.elems.map((e) => thunk(e, long64));
        const list = elems.join(', ').length < 80 ? `[${elems.join(', ')}]` : `[\n${elems.map((e) => `${indent}  ${e},`).join('\n')}\n${indent}]`;
        return `array(s, p, ${list}, ${JSON.stringify(flags).replace(/"(\w+)":/g, '$1: ')})`;
      }
      case 'seeded': return `seeded(s, ${d.n}, ${d.seed}, '${d.dist}', ${long64})`;
      case 'typed': return `typed(s, '${d.type}', ${d.n}, ${d.seed}, '${d.dist}', ${long64})`;
      case 'map': {
        if (d.entries.length === 0) return `map(s, p, '${d.mode}', [])`;
        const entries = d.entries.map(([key, e]) => `${indent}  [${JSON.stringify(key)}, ${thunk(e, long64)}],`);
        return `map(s, p, '${d.mode}', [\n${entries.join('\n')}\n${indent}])`;
      }
      case 'vol': return this.expr(d.seq[0], long64, indent);
      case 'msg': {
        const T = this.root.lookupType(d.type);
        const entries = d.fields.map(([id, vd, how]) => {
          const field = T.fieldsById[id] || this.added.get(`${d.type} ${id}`);
          const name = field ? field.name : `?${id}`;
          const wide = field ? values.LONG_TYPES.has(field.type) : false;
          const make = vd.k === 'vol' && how === 'getter' ? `[${vd.seq.map((e) => thunk(e, wide)).join(', ')}]` : thunk(vd, wide);
          return `${indent}  [${JSON.stringify(name)}, '${how}', ${make}],`;
        });
        const unknowns = d.unknowns ? `[${d.unknowns.map((u) => thunk(u, false)).join(', ')}]` : 'null';
        const list = entries.length ? `[\n${entries.join('\n')}\n${indent}]` : '[]';
        return `object(s, p, '${d.type}', '${d.mode}', ${list}, ${unknowns}${d.unknownsHow ? `, '${d.unknownsHow}'` : ''})`;
      }
      default: return `undefined /* ${d.k} */`;
    }
  }
}

module.exports = { render };
