'use strict';

/**
 * Static code from pbjs (metrics.js, generated from metrics.proto by generate.js), switched to
 * RustWriter with `install(protobuf)` on the protobufjs copy the generated code requires:
 *
 *   node examples/static/app.js
 *
 * It encodes a few batches through RustWriter, then `uninstall`s and encodes them again through
 * protobufjs's own writer, and exits with 1 if any bytes differ.
 */

const protobuf = require('protobufjs/minimal');
const { RustWriter, install, uninstall, status } = require('protobufjs-rustwriter');
const { metrics } = require('./metrics');

/** A series of `n` samples every 10 s, with a few labels. */
function series(name, n, labels) {
  const values = Array.from({ length: n }, (_, i) => Math.round(1000 * Math.sin(i / 20)) / 10);
  return {
    name,
    labels,
    startTimeUnixNano: '1767225600000000000',
    intervalMs: 10000,
    deltas: values.map((v, i) => Math.round(10 * (v - (i ? values[i - 1] : 0)))),
    values,
    count: n,
  };
}

const batches = [
  { source: 'edge-1', series: [series('cpu.load', 6, { host: 'edge-1' })] },
  { source: 'edge-2', series: [series('mem.used', 60, { host: 'edge-2', region: 'eu-west' }), series('disk.io', 90, { host: 'edge-2', dev: 'nvme0n1' })] },
  { source: 'collector', series: [series('requests', 8640, { service: 'checkout', 'status.class': '2xx' })] },
].map((object) => metrics.Batch.fromObject(object));

install(protobuf); // every encode of code bound to this protobufjs copy now writes through RustWriter
console.log(JSON.stringify(status(), null, 2));
if (!(protobuf.Writer.create() instanceof RustWriter)) throw new Error('install() did not take');
const ours = batches.map((batch) => metrics.Batch.encode(batch).finish());

uninstall(protobuf); // back to protobufjs's own writer
const theirs = batches.map((batch) => metrics.Batch.encode(batch).finish());

let differences = 0;
batches.forEach((batch, i) => {
  const same = Buffer.compare(ours[i], theirs[i]) === 0;
  if (!same) differences++;
  console.log(`batch ${batch.source}: ${ours[i].length} bytes, ${same ? 'identical to' : 'DIFFERENT from'} protobufjs's writer (${theirs[i].length} bytes)`);
});
console.log(differences ? `${differences} of ${batches.length} batches differ` : `all ${batches.length} batches identical; RustWriter.native = ${RustWriter.native}`);
process.exitCode = differences ? 1 : 0;
