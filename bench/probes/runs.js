'use strict';

/**
 * `node bench/probes/runs.js`: where a packed varint field is cheaper to hand to the native
 * encoder than to write in JS, the number behind `settings.runMin` (lib/writer/settings.js).
 *
 * For field lengths from 16 to 16384 elements, from a plain array and from a `Uint32Array`, it
 * times `w.uint32(10).uint32s(values).finish()` with every field written by JS and with every
 * field handed to the native encoder (one call per finish), in alternation, and prints ns per
 * encode and per element and the ratio. Values are mixed 1- and 2-byte varints (like
 * vector-tile geometry). Then, for 4,000 fields of 12 elements from plain arrays (a vector tile's
 * shape), the CPU time per element of JS's own varint loop against merely copying the elements
 * into an `Int32Array`: the least that handing them to native code would cost, before any
 * encoding, entry or splicing (a bound for batching all short fields into the one native call).
 */

const { RustWriter, _testing } = require('../..');
const { prng } = require('../../tools/seeded');

const LENGTHS = [16, 32, 64, 128, 192, 256, 384, 512, 1024, 4096, 16384];
const ROUNDS = 5;

/**
 * Median ns per call of `fn`, over ROUNDS rounds of enough calls for ~30 ms each.
 * @param {Function} fn Work
 * @returns {number} ns
 */
function time(fn) {
  let n = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    if (Number(process.hrtime.bigint() - t) > 3e7) break;
    n *= 2;
  }
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t) / n);
  }
  return samples.sort((a, b) => a - b)[ROUNDS >> 1];
}

if (!RustWriter.native) throw new Error('bench/probes/runs.js needs the native addon');
const r = prng(7);
console.log('elements  source       JS ns   native ns   JS ns/el  native ns/el  native/JS');
for (const length of LENGTHS) {
  const plain = Array.from({ length }, () => (r() < 0.7 ? r.int(128) : 128 + r.int(16000)));
  for (const [name, values] of [['array', plain], ['Uint32Array', Uint32Array.from(plain)]]) {
    const encode = () => RustWriter.create().uint32(10).uint32s(values).finish();
    const js = () => { _testing.configure({ runMin: Infinity, runMinTyped: Infinity }); return time(encode); };
    const nat = () => { _testing.configure({ runMin: 1, runMinTyped: 1 }); return time(encode); };
    js(); nat(); // warm both paths up
    const tj = js();
    const tn = nat();
    console.log(`${String(length).padStart(8)}  ${name.padEnd(11)} ${tj.toFixed(0).padStart(7)} ${tn.toFixed(0).padStart(11)} ` +
      `${(tj / length).toFixed(2).padStart(10)} ${(tn / length).toFixed(2).padStart(13)} ${(tn / tj).toFixed(2).padStart(10)}`);
  }
}

/** JS's varint loop over `value`, as lib/writer/packed.js has it for short fields. */
function varints(buf, p, value) {
  for (let i = 0; i < value.length; ++i) {
    let v = value[i] >>> 0;
    if (v < 128) buf[p++] = v;
    else if (v < 16384) {
      buf[p] = v | 128;
      buf[p + 1] = v >>> 7;
      p += 2;
    } else {
      while (v > 127) buf[p++] = (v & 127) | 128, v >>>= 7;
      buf[p++] = v;
    }
  }
  return p;
}

/** Copies `value` into `stage` from `q`. */
function stage(to, q, value) {
  for (let i = 0; i < value.length; ++i) to[q + i] = value[i];
  return q + value.length;
}

const field = () => Array.from({ length: 12 }, () => (r() < 0.7 ? r.int(128) : 128 + r.int(16000)));
const fields = Array.from({ length: 4000 }, field);
const out = new Uint8Array(1 << 20);
const staged = new Int32Array(1 << 16);
/** CPU ns per element of `fn` over all fields, median of 5. */
function cpuPerElement(fn) {
  const samples = [];
  for (let round = 0; round < 6; round++) {
    const t = process.cpuUsage();
    for (let rep = 0; rep < 100; rep++) fn();
    const u = process.cpuUsage(t);
    if (round) samples.push(((u.user + u.system) * 1000) / 100 / (fields.length * 12));
  }
  return samples.sort((a, b) => a - b)[2];
}
const encodeAll = () => { let p = 0; for (const f of fields) p = varints(out, p + 1, f); };
const stageAll = () => { let q = 0; for (const f of fields) q = stage(staged, q, f); };
console.log(`\n12-element fields from plain arrays, CPU ns per element: JS varint loop ${cpuPerElement(encodeAll).toFixed(2)}, ` +
  `copy into an Int32Array ${cpuPerElement(stageAll).toFixed(2)}`);
