'use strict';

/**
 * `node bench/probes/nan.js [calls]`: the bytes RustWriter and protobufjs 8.8.1 write for a
 * signalling NaN (`7ff4000000000001`, little-endian `010000000000f47f`) through `double()` and
 * `doubles()`, call after call, as V8 tiers their code up. Prints each new combination with the
 * call that first showed it.
 *
 * On Node 26 (V8 14), protobufjs's bytes turn to the quieted `…fc7f` once its code reaches Maglev,
 * and RustWriter's did too until lib/writer/varint.js stored NaNs through `Float64Array.prototype.fill`;
 * on Node 20 to 24 both keep `…f47f` at every tier. A plain array cannot hold a signalling NaN
 * (V8 quiets it when it stores it there), so the inputs are a Float64Array, a Proxy over one and a
 * number read from one.
 */

const protobuf = require('protobufjs');
const { RustWriter } = require('../..');

const calls = Number(process.argv[2] || 20000);
const cell = new Float64Array(1);
new Uint32Array(cell.buffer).set([0x00000001, 0x7ff40000]);
const holder = { value: cell[0] };
const proxy = new Proxy(cell, { get: (target, key) => Reflect.get(target, key, target) });
const inputs = [['a Float64Array', cell], ['a Proxy over it', proxy]];

console.log(`Node ${process.version} (V8 ${process.versions.v8}), ${calls} calls`);
const seen = new Set();
for (let i = 0; i < calls; i++) {
  for (const [name, array] of inputs) {
    const row = [
      `doubles(${name}): RustWriter ${RustWriter.create().doubles(array).finish().toString('hex').slice(2)}`,
      `protobufjs ${new protobuf.BufferWriter().doubles(array).finish().toString('hex').slice(2)}`,
      `double(a number): RustWriter ${RustWriter.create().double(holder.value).finish().toString('hex')}`,
      `protobufjs ${new protobuf.BufferWriter().double(holder.value).finish().toString('hex')}`,
    ].join(', ');
    if (!seen.has(row)) {
      seen.add(row);
      console.log(`call ${i}: ${row}`);
    }
  }
}
