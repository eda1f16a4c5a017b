'use strict';

/**
 * `node bench/probe-runs.js`: where a packed varint field is cheaper to hand to the native
 * encoder than to write in JS, the number behind `settings.runMin` (lib/settings.js).
 *
 * For field lengths from 16 to 16384 elements, from a plain array and from a `Uint32Array`, it
 * times `w.uint32(10).uint32s(values).finish()` with every field written by JS and with every
 * field handed to the native encoder (one call per finish), in alternation, and prints ns per
 * encode and per element and the ratio. Values are mixed 1- and 2-byte varints (like
 * vector-tile geometry).
 */

const { RustWriter, _testing } = require('..');
const { prng } = require('../test/helpers');

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

if (!RustWriter.native) throw new Error('probe-runs needs the native addon');
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
