'use strict';

/**
 * An encode-bound app: a producer that encodes batches of events (bench/apps/data.js, ~400–700
 * bytes each) with protobufjs reflection code and appends each batch as a length-delimited stream to
 * a file (as a log shipper or a message-queue producer does). It runs as it would in production:
 * `node producer.js` alone, or under the preload (`node -r protobufjs-rustwriter/register`). Run by
 * bench/apps/run.js, one process per contender:
 *
 *   node [-r ./register.js] bench/apps/producer.js <warm seconds> <seconds>
 *
 * After `warm seconds` of the same work, it counts the messages encoded and written in `seconds`,
 * and prints one JSON line: the rate (per second, and per second of CPU time the process used), a
 * digest of the first batches' bytes (every contender must write the same), and which writer
 * protobufjs's `Writer.create()` returns.
 */

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const protobuf = require('protobufjs');
const { events } = require('./data');

const BATCH = 100;
const POOL = 1000;
const DIGEST_BATCHES = 10;
/** The file is truncated whenever it reaches this size, so that a run never fills the disk. */
const FILE_MAX = 64 * 1024 * 1024;

const [warmSeconds, seconds] = process.argv.slice(2).map(Number);
const Event = protobuf.loadSync(path.join(__dirname, 'apps.proto')).lookupType('apps.Event');
const pool = events(POOL, 1);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-producer-'));
const fd = fs.openSync(path.join(dir, 'events.bin'), 'w');
let next = 0;
let position = 0;

/**
 * Encodes one batch as a delimited stream and appends it to the file.
 * @returns {Uint8Array} The batch's bytes
 */
function produceBatch() {
  const w = protobuf.Writer.create();
  for (let i = 0; i < BATCH; ++i) {
    Event.encodeDelimited(pool[next], w);
    next = next + 1 === POOL ? 0 : next + 1;
  }
  const bytes = w.finish();
  if (position + bytes.length > FILE_MAX) {
    fs.ftruncateSync(fd, 0);
    position = 0;
  }
  position += fs.writeSync(fd, bytes, 0, bytes.length, position);
  return bytes;
}

/**
 * Produces batches for `s` seconds.
 * @param {number} s Seconds
 * @returns {{messages: number, ns: number, cpuNs: number, bytes: number}} Messages produced, time taken,
 *   CPU time the process used meanwhile (every thread), bytes written
 */
function runFor(s) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(s * 1e9));
  let batches = 0;
  let bytes = 0;
  let now = start;
  while (now < end) {
    bytes += produceBatch().length;
    batches += 1;
    now = process.hrtime.bigint();
  }
  const used = process.cpuUsage(cpu);
  return { messages: batches * BATCH, ns: Number(now - start), cpuNs: (used.user + used.system) * 1000, bytes };
}

try {
  const hash = crypto.createHash('sha256');
  for (let i = 0; i < DIGEST_BATCHES; ++i) hash.update(produceBatch());
  runFor(warmSeconds);
  const { messages, ns, cpuNs, bytes } = runFor(seconds);
  process.stdout.write(`${JSON.stringify({
    app: 'producer',
    rate: messages / (ns / 1e9),
    cpuRate: messages / (cpuNs / 1e9),
    unit: 'messages/s',
    bytesPerMessage: bytes / messages,
    digest: hash.digest('hex'),
    writer: protobuf.Writer.create().constructor.name,
    compiled: require('protobufjs-rustwriter')._testing.isCompiled(Event.encode),
  })}\n`);
} finally {
  fs.closeSync(fd);
  fs.rmSync(dir, { recursive: true, force: true });
}
