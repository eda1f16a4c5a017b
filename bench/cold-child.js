'use strict';

/**
 * One fresh process of the first-encode and memory measurement (bench/cold.js starts it): does what
 * an app does from its start to its first encoded message, then encodes for a while, and prints one
 * line of JSON with the times and memory it saw.
 *
 *   node [-r protobufjs-rustwriter/register] bench/cold-child.js <spec.json>
 *
 * The spec (written by bench/cold.js) names the protobufjs package (`protobufjs` or `protobufjs7`),
 * the schema (a JSON descriptor for `Root.fromJSON`, or a .proto file), the Type, the data file
 * (JSON of the plain input, with `bytes` as `{"$u8": base64}` or `{"$buffer": base64}`; or the bytes
 * to decode) and how the app holds the input (`plain`, `fromObject`, `decoded`). In order, each step
 * marked with `performance.now()` (ms since the process's time origin, its start): the script starts
 * (after Node's bootstrap and the preload, if any); protobufjs is required; the schema is loaded;
 * the data file is read and parsed (the same work for every contender: reported apart); the input is
 * made (`T.decode` or `T.fromObject`, as an app would); the first `T.encode(m).finish()` returns.
 * RSS is read right after it, again after `steadyMs` of encodes, and the peak (`maxRSS`) last. A
 * `grpc` spec (`runGrpc`) loads @grpc/proto-loader and serializes with a method's `requestSerialize`.
 * Only then does the child hash its first result for the parent's byte check and report what
 * encoded it (the preload's `status()`), so that nothing of the check is timed. Nothing but Node's
 * builtins and protobufjs load before the first encode: this file requires nothing else.
 */

const started = performance.now();
const fs = require('fs');

/**
 * Revives the data file's `bytes` markers.
 * @param {string} key Key
 * @param {*} value Parsed value
 * @returns {*} Value, with markers as Uint8Arrays or Buffers
 */
function revive(key, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (typeof value.$u8 === 'string') return new Uint8Array(Buffer.from(value.$u8, 'base64'));
    if (typeof value.$buffer === 'string') return Buffer.from(value.$buffer, 'base64');
  }
  return value;
}

/**
 * The measurement.
 * @param {object} spec Parsed spec file
 * @returns {object} Report
 */
function run(spec) {
  if (spec.grpc) return runGrpc(spec);
  const marks = { started };
  const pb = require(spec.pkg);
  marks.library = performance.now();
  const root = spec.schema.json
    ? pb.Root.fromJSON(JSON.parse(fs.readFileSync(spec.schema.json, 'utf8')))
    : new pb.Root().loadSync(spec.schema.proto);
  const T = root.lookupType(spec.type);
  marks.schema = performance.now();
  const raw = fs.readFileSync(spec.data.file);
  const data = spec.data.kind === 'decoded' ? raw : JSON.parse(raw.toString('utf8'), revive);
  marks.data = performance.now();
  const m = spec.data.kind === 'decoded' ? T.decode(data) : spec.data.kind === 'fromObject' ? T.fromObject(data) : data;
  marks.input = performance.now();
  const first = T.encode(m).finish();
  marks.first = performance.now();
  const rssFirst = process.memoryUsage().rss;
  let steadyOps = 0;
  const until = performance.now() + spec.steadyMs;
  while (performance.now() < until) {
    T.encode(m).finish();
    steadyOps += 1;
  }
  const rssSteady = process.memoryUsage().rss;
  const rssPeak = process.resourceUsage().maxRSS * 1024;
  return { marks, rssFirst, rssSteady, rssPeak, steadyOps, first, pb };
}

/**
 * The measurement of a `grpc` case: @grpc/proto-loader (with its own protobufjs) loads the schema with
 * google-gax's options (bench/grpc.js `GAX_OPTIONS`), and the method's `requestSerialize` serializes
 * the plain request, as a Google Cloud client's first call does.
 * @param {object} spec Parsed spec file
 * @returns {object} Report, as `run`'s
 */
function runGrpc(spec) {
  const marks = { started };
  const loader = require('@grpc/proto-loader');
  marks.library = performance.now();
  const options = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };
  const definition = loader.fromJSON(JSON.parse(fs.readFileSync(spec.schema.json, 'utf8')), options);
  const serialize = definition[spec.grpc.service][spec.grpc.method].requestSerialize;
  marks.schema = performance.now();
  const m = JSON.parse(fs.readFileSync(spec.data.file).toString('utf8'), revive);
  marks.data = performance.now();
  marks.input = performance.now();
  const first = serialize(m);
  marks.first = performance.now();
  const rssFirst = process.memoryUsage().rss;
  let steadyOps = 0;
  const until = performance.now() + spec.steadyMs;
  while (performance.now() < until) {
    serialize(m);
    steadyOps += 1;
  }
  const rssSteady = process.memoryUsage().rss;
  const rssPeak = process.resourceUsage().maxRSS * 1024;
  const path = require('path');
  const pb = require(require.resolve('protobufjs', { paths: [path.dirname(require.resolve('@grpc/proto-loader/package.json'))] }));
  return { marks, rssFirst, rssSteady, rssPeak, steadyOps, first, pb };
}

/**
 * What encoded in this process: the preload's status if it ran, and whether the package was loaded at all.
 * @param {string} root The repository's directory
 * @returns {{preload: boolean, native: boolean|null, copies: object[]}} Facts
 */
function whatRan(root) {
  const register = require.cache[require.resolve(`${root}/register.js`)];
  if (!register) {
    const loaded = Object.keys(require.cache).some((file) => file.startsWith(`${root}/lib/`));
    return { preload: false, native: null, copies: [], packageLoaded: loaded };
  }
  const s = register.exports.status();
  return {
    preload: s.preload, native: s.native, packageLoaded: true,
    copies: s.copies.map(({ version, installed, compiled, serialized }) => ({
      version, installed, compiled: Boolean(compiled), serializersCompiled: serialized ? serialized.compiled : 0,
    })),
  };
}

if (require.main === module) {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const result = run(spec);
  const { createHash } = require('crypto');
  process.stdout.write(`${JSON.stringify({
    marks: result.marks,
    rssFirst: result.rssFirst,
    rssSteady: result.rssSteady,
    rssPeak: result.rssPeak,
    steadyOps: result.steadyOps,
    bytes: result.first.length,
    sha256: createHash('sha256').update(result.first).digest('hex'),
    writer: result.pb.Writer.create().constructor.name,
    ran: whatRan(spec.root),
  })}\n`);
}

module.exports = { revive };
