'use strict';

/**
 * `protobufjs-rustwriter measure`, run as users run it: the bin as a child process, with a short
 * `--time`. The schema is test/fixtures/measure/shop.proto (its import money.proto is found only
 * through --path); binary data, the JSON schema and apps with several protobufjs copies (symbolic
 * links to this package's protobufjs 8, protobufjs7 and @grpc/proto-loader, whose own protobufjs
 * is 7.x) are made in a temporary directory. Run in the package's own directory, measure finds three
 * copies there: protobufjs 8 (the package's require('protobufjs')), @grpc/proto-loader's 7.x and the
 * protobufjs7 alias of the same version.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const protobuf = require('protobufjs');
const { RustWriter } = require('..');
const { samples, SIZES } = require('../lib/measure/sample');
const { verdict } = require('../lib/measure/report');
const { PARTS_FIELDS } = require('./helpers');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'protobufjs-rustwriter.js');
const FIXTURES = path.join(__dirname, 'fixtures', 'measure');
const SHOP = path.join(FIXTURES, 'shop.proto');
const INCLUDE = path.join(FIXTURES, 'include');
const ORDER = path.join(FIXTURES, 'order.json');
const ORDERS = path.join(FIXTURES, 'orders.json');
const PROTOBUFJS7 = path.join(ROOT, 'node_modules', 'protobufjs7');
const PROTOBUFJS8 = path.join(ROOT, 'node_modules', 'protobufjs');
const PROTO_LOADER = path.join(ROOT, 'node_modules', '@grpc', 'proto-loader');
const VERSION_7 = require('protobufjs7/package.json').version;
const VERSION_8 = require('protobufjs/package.json').version;
/** Seconds of timing per run: enough for every round to run, short enough for the suite. */
const TIME = '0.2';
/** The keys `--json` results have, in order. */
const RESULT_KEYS = [
  'type', 'bytes', 'identical', 'protobufjs_ns', 'rustwriter_ns', 'speedup', 'message', 'messages', 'native_calls',
  'protobufjs_ns_iqr', 'rustwriter_ns_iqr',
  'compiled', 'writer_api_ns', 'writer_api_speedup', 'writer_api_ns_iqr', 'writer_api_native_calls', 'fits_schema',
];
/** The keys of a `--json` report, in order (the first five as before compiled encoders). */
const REPORT_KEYS = [
  'protobufjs', 'native', 'samples', 'results', 'verdict',
  'protobufjs_path', 'copies', 'app_protobufjs', 'grpc', 'warnings', 'seconds',
];

/**
 * Makes a directory of links: `links` maps paths inside `dir` to targets, and `manifests` maps
 * package directories inside `dir` to the package.json written there.
 * @param {string} dir App directory
 * @param {Object<string, string>} links Link path (relative) to target
 * @param {Object<string, object>} [manifests] Package directory (relative) to manifest
 * @returns {string} `dir`
 */
function makeApp(dir, links, manifests = {}) {
  for (const [at, manifest] of Object.entries(manifests)) {
    fs.mkdirSync(path.join(dir, at), { recursive: true });
    fs.writeFileSync(path.join(dir, at, 'package.json'), JSON.stringify(manifest));
  }
  for (const [at, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, at)), { recursive: true });
    fs.symlinkSync(target, path.join(dir, at), 'junction');
  }
  return dir;
}

/**
 * Runs the bin.
 * @param {string[]} args Arguments
 * @param {{cwd?: string, env?: object}} [options] Directory (default the package root) and extra environment
 * @returns {{status: number, stdout: string, stderr: string}} Result
 */
function run(args, { cwd = ROOT, env = {} } = {}) {
  const base = { ...process.env };
  delete base.PROTOBUFJS_RUSTWRITER;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...base, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs `measure <schema> --type shop.Order ... --json` and returns its JSON, asserting exit 0.
 * @param {string[]} args Arguments after the schema and type
 * @param {object} [options] As for {@link run}
 * @returns {object} JSON report
 */
function measureJson(args, options) {
  const result = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--time', TIME, '--json', ...args], options);
  assert.strictEqual(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

/** A Root of shop.proto for the tests' own encoding. */
function shopRoot() {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    if (!origin) return target;
    return path.join(fs.existsSync(path.join(FIXTURES, target)) ? FIXTURES : INCLUDE, target);
  };
  return root.loadSync(SHOP);
}

/**
 * Asserts the shape of a `--json` report whose messages all encoded to the same bytes.
 * @param {object} report JSON
 * @param {number[]} sizes Expected encoded size of each row
 * @returns {undefined}
 */
function assertTimed(report, sizes) {
  assert.deepStrictEqual(Object.keys(report), REPORT_KEYS);
  assert.deepStrictEqual(report.results.map((r) => r.bytes), sizes);
  for (const r of report.results) {
    assert.deepStrictEqual(Object.keys(r), RESULT_KEYS);
    assert.strictEqual(r.type, 'shop.Order');
    assert.strictEqual(r.identical, true);
    assert.strictEqual(r.compiled, true);
    assert.strictEqual(r.fits_schema, true);
    for (const key of ['protobufjs_ns', 'rustwriter_ns', 'speedup', 'writer_api_ns', 'writer_api_speedup']) assert.ok(r[key] > 0, `${key} ${r[key]}`);
    assert.ok(r.protobufjs_ns_iqr[0] <= r.protobufjs_ns && r.protobufjs_ns <= r.protobufjs_ns_iqr[1]);
    assert.ok(r.writer_api_ns_iqr[0] <= r.writer_api_ns && r.writer_api_ns <= r.writer_api_ns_iqr[1]);
  }
  assert.match(report.verdict, /RustWriter with compiled encoders .*Through the Writer API \(compiled: false\): /);
  assert.deepStrictEqual(report.warnings, []);
  const timed = report.copies.filter((c) => c.timed);
  assert.strictEqual(timed[0].path, report.protobufjs_path);
  assert.deepStrictEqual(timed[0].results, report.results);
  for (const copy of timed) {
    assert.deepStrictEqual(copy.results.map((r) => r.bytes), sizes, `protobufjs ${copy.version}`);
    const ok = copy.results.every((r) => r.identical && r.speedup > 0 && r.writer_api_speedup > 0);
    assert.ok(ok, JSON.stringify(copy.results));
  }
}

describe('protobufjs-rustwriter measure', function () {
  let tmp;
  let encoded;

  before(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-measure-'));
    const Order = shopRoot().lookupType('shop.Order');
    const orders = JSON.parse(fs.readFileSync(ORDERS, 'utf8')).map((o) => Order.fromObject(o));
    encoded = orders.map((m) => Order.encode(m).finish());
    fs.writeFileSync(path.join(tmp, 'one.bin'), encoded[1]);
    const stream = protobuf.Writer.create();
    for (let i = 0; i < 4; ++i) for (const m of orders) Order.encodeDelimited(m, stream);
    fs.writeFileSync(path.join(tmp, 'stream.bin'), stream.finish());
    fs.writeFileSync(path.join(tmp, 'truncated.bin'), Buffer.concat([Buffer.from(stream.finish()), Buffer.from([0x40, 1, 2])]));
    fs.writeFileSync(path.join(tmp, 'shop.json'), JSON.stringify(shopRoot().toJSON()));
    const readings = Array.from({ length: 5000 }, (_, i) => (i % 7) * (i % 2 ? -300 : 300));
    fs.writeFileSync(path.join(tmp, 'long.json'), JSON.stringify({ id: '7', readings }));
    fs.writeFileSync(path.join(tmp, 'snake.json'), JSON.stringify({ id: '7', customer_name: 'Eve' }));
    fs.writeFileSync(path.join(tmp, 'broken.proto'), 'syntax = "proto3"; message A { int32 x = ; }');
    fs.writeFileSync(path.join(tmp, 'garbage.bin'), Buffer.from([0x0f, 0xff, 0xff]));
    const app = path.join(tmp, 'app-with-7');
    fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    fs.symlinkSync(PROTOBUFJS7, path.join(app, 'node_modules', 'protobufjs'), 'junction');
    fs.mkdirSync(path.join(tmp, 'empty-app'));
    // A wrong-typed value: fromObject makes "two" 0, which proto3 leaves out (the item encodes to 0 bytes).
    fs.writeFileSync(path.join(tmp, 'wrong.json'), JSON.stringify([
      { id: '7', customerName: 'Eve' },
      { id: '8', items: [{ sku: 'A', quantity: 'two' }], status: 7 },
    ]));
    fs.writeFileSync(path.join(tmp, 'bad-int64.json'), JSON.stringify({ id: '7', total: { units: '1-2' } }));
    // protobufjs 8 for the app, 7 for a dependency of it (as OpenTelemetry's exporters have it)
    const twoCopies = {
      'node_modules/protobufjs': PROTOBUFJS8,
      'node_modules/exporter/node_modules/protobufjs': PROTOBUFJS7,
    };
    const manifests = {
      '.': { name: 'app', dependencies: { protobufjs: '*', exporter: '*' } },
      'node_modules/exporter': { name: 'exporter', version: '1.0.0', dependencies: { protobufjs: '7' } },
    };
    makeApp(path.join(tmp, 'two-copies'), twoCopies, manifests);
    // The same with @grpc/proto-loader, whose protobufjs 7.x is a third copy, of the exporter's version.
    makeApp(path.join(tmp, 'grpc-app'), { ...twoCopies, 'node_modules/@grpc/proto-loader': PROTO_LOADER }, manifests);
    // Only @grpc/proto-loader's copy: the app's own require('protobufjs') finds none.
    makeApp(path.join(tmp, 'grpc-only'), { 'node_modules/@grpc/proto-loader': PROTO_LOADER });
  });

  after(function () {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('prints a table and a one-sentence verdict for a .proto schema and one JSON message, progress on stderr', function () {
    const result = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDER, '--time', TIME]);
    assert.strictEqual(result.status, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^shop\.Order: 1 message from .*order\.json$/);
    // The repository's own copies: protobufjs, protobufjs7 and @grpc/proto-loader's at least (the
    // devDependencies may bring more, e.g. otlp-transformer's), one line each, then a blank line.
    const [, count] = /^RustWriter with .*; (\d+) protobufjs copies found from /.exec(lines[1]) || [];
    assert.ok(Number(count) >= 3, lines[1]);
    const copies = lines.slice(2, 2 + Number(count));
    assert.strictEqual(lines[2 + Number(count)], '', result.stdout);
    const escaped = (v) => v.replace(/\./g, '\\.');
    const listed = (re) => assert.strictEqual(copies.filter((line) => re.test(line)).length, 1, `${re} in\n${copies.join('\n')}`);
    listed(new RegExp(`^ +${escaped(VERSION_8)} +node_modules/protobufjs +your app's require\\('protobufjs'\\).* timed$`));
    listed(new RegExp(`^ +${escaped(VERSION_7)} +node_modules/@grpc/proto-loader/node_modules/protobufjs +` +
      '@grpc/proto-loader [\\d.]+ encodes your gRPC messages with it +timed$'));
    listed(new RegExp(`^ +${escaped(VERSION_7)} +node_modules/protobufjs7 +used by the app \\(as protobufjs7\\) +` +
      'not timed: the same version as node_modules/@grpc/proto-loader/node_modules/protobufjs$'));
    // Emulated (test:cross) or slow machines print µs or ms where a fast one prints ns.
    const time = String.raw`\d+(\.\d+)? (ns|µs|ms) ±\d+%`;
    const header = /^message +bytes +protobufjs (\S+) +Writer API +speed-up +compiled +speed-up +native calls$/;
    const headers = lines.filter((line) => header.test(line)).map((line) => header.exec(line)[1]);
    assert.deepStrictEqual(headers, [VERSION_8, VERSION_7]);
    // A speed-up has two decimals below 10x and one from 10x up (report.js `times`), which a loaded
    // machine reaches when protobufjs's own writer's rounds are slowed.
    const speedup = String.raw`(\d\.\d\d|\d\d+\.\d)x`;
    const row = new RegExp(String.raw`^#1 +\d+ +${time} +${time} +${speedup} +${time} +${speedup} +0$`);
    assert.strictEqual(lines.filter((line) => row.test(line)).length, 2, result.stdout);
    assert.strictEqual(lines.filter((line) => /^(RustWriter|Against|The rounds) .*\.$/.test(line)).length, 2, result.stdout);
    assert.match(lines[lines.length - 1], /^(RustWriter|Against|The rounds) .*\.$/);
    assert.match(result.stderr, /measuring, 100%/);
    assert.doesNotMatch(result.stdout, /measuring/);
  });

  it('reads a JSON schema (root.toJSON()) and a JSON array, one row per message', function () {
    const report = measureJson(['--data', ORDERS], {});
    assertTimed(report, encoded.map((b) => b.length));
    const viaJson = run(['measure', path.join(tmp, 'shop.json'), '--type', 'shop.Order', '--data', ORDERS, '--time', TIME, '--json']);
    assert.strictEqual(viaJson.status, 0, viaJson.stderr);
    assertTimed(JSON.parse(viaJson.stdout), encoded.map((b) => b.length));
  });

  it('decodes one binary message, and a --delimited stream of 12 as one averaged row', function () {
    assertTimed(measureJson(['--data', path.join(tmp, 'one.bin')]), [encoded[1].length]);
    const stream = measureJson(['--data', path.join(tmp, 'stream.bin'), '--delimited']);
    const mean = Math.round(encoded.reduce((sum, b) => sum + b.length, 0) / encoded.length);
    assertTimed(stream, [mean]);
    assert.strictEqual(stream.results[0].messages, 12);
  });

  it('measures a type named with --type even when it is a bundled google.protobuf one (a FileDescriptorSet)', function () {
    const descriptor = path.join(path.dirname(require.resolve('protobufjs/package.json')), 'google', 'protobuf', 'descriptor.proto');
    const result = run(['measure', descriptor, '--type', 'google.protobuf.FileDescriptorSet', '--time', TIME, '--json']);
    assert.strictEqual(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.ok(report.results.length > 0 && report.results.every((r) => r.type === 'google.protobuf.FileDescriptorSet'), result.stdout);
    assert.ok(report.results.every((r) => r.identical), result.stdout);
  });

  it('takes a type\'s name alone where only one type of the schema has it, and says which names clash', function () {
    const result = run(['measure', SHOP, '--type', 'Order', '--path', INCLUDE, '--time', TIME, '--json']);
    assert.strictEqual(result.status, 0, result.stderr);
    assert.ok(JSON.parse(result.stdout).results.every((r) => r.type === 'shop.Order'), result.stdout);
    const { lookupType } = require('../lib/measure/load');
    const protobuf = require('protobufjs');
    const root = protobuf.parse('syntax = "proto3"; package a; message Point { int32 x = 1; } message Box { message Point { int32 y = 1; } }').root;
    assert.strictEqual(lookupType(protobuf, root, 'a.Point', 'two.proto').fullName, '.a.Point');
    assert.strictEqual(lookupType(protobuf, root, 'Box.Point', 'two.proto').fullName, '.a.Box.Point');
    assert.throws(() => lookupType(protobuf, root, 'Point', 'two.proto'),
      /^Error: "Point" names 2 types in two\.proto: pass --type with one of their full names, a\.Point, a\.Box\.Point$/);
  });

  it('generates sample messages without --data, and says so', function () {
    const result = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--time', TIME, '--json']);
    assert.strictEqual(result.status, 0, result.stderr);
    assert.match(result.stderr, /^protobufjs-rustwriter: shop\.Order: no --data, so 3 sample messages generated from the schema/);
    const report = JSON.parse(result.stdout);
    assert.strictEqual(report.samples, true);
    assert.strictEqual(report.results.length, SIZES.length);
  });

  it('names a Type the messages hold that keeps protobufjs\'s encoder, and says why', function () {
    const schema = path.join(tmp, 'wide.proto');
    fs.writeFileSync(schema, `syntax = "proto3"; message Top { Big big = 1; int32 n = 2; } message Big { ${PARTS_FIELDS} }`);
    fs.writeFileSync(path.join(tmp, 'wide.json'), JSON.stringify({ big: { f0: 1, f399: -1 }, n: 3 }));
    const args = ['measure', schema, '--type', 'Top', '--data', path.join(tmp, 'wide.json'), '--time', TIME, '--protobufjs', PROTOBUFJS8];
    const env = { NODE_OPTIONS: `-r ${path.join(__dirname, 'fixtures', 'measure', 'unit-max.js')}` };
    const result = run(args, { env });
    assert.strictEqual(result.status, 0, result.stderr);
    assert.match(result.stdout, /\(Big, which its messages hold, keeps protobufjs's encoder: its code would be \d+ characters, over 20000; its messages are written through the Writer API\)/);
    const json = JSON.parse(run([...args, '--json'], { env }).stdout);
    assert.deepStrictEqual(json.copies[0].kept.map((k) => k.type), ['Big']);
    assert.strictEqual(json.results[0].compiled, true);
    // As shipped, Big is compiled like Top.
    assert.deepStrictEqual(JSON.parse(run([...args, '--json']).stdout).copies[0].kept, []);
  });

  it('uses protobufjs 7 when --protobufjs names it, or when the app in the current directory resolves it', function () {
    assert.strictEqual(measureJson(['--data', ORDER, '--protobufjs', PROTOBUFJS7]).protobufjs, VERSION_7);
    const fromApp = measureJson(['--data', ORDER], { cwd: path.join(tmp, 'app-with-7') });
    assert.strictEqual(fromApp.protobufjs, VERSION_7);
    assert.strictEqual(fromApp.results[0].identical, true);
  });

  it('counts native calls for a long packed field, and runs on the JS path with PROTOBUFJS_RUSTWRITER=js', function () {
    const data = ['--data', path.join(tmp, 'long.json')];
    const native = measureJson(data);
    assert.strictEqual(native.native, RustWriter.native);
    assert.strictEqual(native.results[0].native_calls, RustWriter.native ? 1 : 0);
    if (RustWriter.native) assert.match(native.verdict, /native addon loaded and used for long packed fields/);
    const js = measureJson(data, { env: { PROTOBUFJS_RUSTWRITER: 'js' } });
    assert.strictEqual(js.native, false);
    assert.strictEqual(js.results[0].native_calls, 0);
    assert.match(js.verdict, /JS path: the native addon is not loaded, PROTOBUFJS_RUSTWRITER=js\)/);
  });

  it('exits 1 naming the message and the first differing byte when the bytes differ', function () {
    const env = { PROTOBUFJS_RUSTWRITER_TEST_FLIP_BYTE: '5' };
    const one = ['--protobufjs', PROTOBUFJS8];
    const result = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDERS, '--time', TIME, ...one], { env });
    assert.strictEqual(result.status, 1, result.stderr);
    assert.strictEqual(result.stdout, '');
    const lines = result.stderr.trimEnd().split('\n');
    assert.strictEqual(lines.length, 3);
    assert.match(lines[0], new RegExp(String.raw`RustWriter's bytes differ from protobufjs's \(before timing\): protobufjs ${VERSION_8.replace(/\./g, '\\.')}, ` +
      String.raw`shop\.Order message #1: compiled encoders: first difference at byte 5 of \d+`));
    // Every timed copy is checked: here protobufjs 8 and @grpc/proto-loader's 7.x, 3 messages each.
    const both = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDERS, '--time', TIME], { env });
    assert.strictEqual(both.status, 1, both.stderr);
    assert.match(both.stderr, new RegExp(`protobufjs ${VERSION_7.replace(/\./g, '\\.')}, shop\\.Order message #2: compiled encoders: `));
    assert.match(both.stderr, /\nprotobufjs-rustwriter: and 1 more messages differ\n$/);
    const json = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDERS, '--json', ...one], { env });
    assert.strictEqual(json.status, 1);
    const report = JSON.parse(json.stdout);
    assert.deepStrictEqual(report.results.map((r) => [r.identical, r.protobufjs_ns, r.speedup, r.writer_api_ns]),
      [[false, null, null, null], [false, null, null, null], [false, null, null, null]]);
  });

  it('lists an app\'s two protobufjs copies with their versions and paths, and times each', function () {
    const dir = path.join(tmp, 'two-copies');
    const report = measureJson(['--data', ORDERS], { cwd: dir });
    assertTimed(report, encoded.map((b) => b.length));
    assert.strictEqual(report.protobufjs, VERSION_8);
    assert.strictEqual(report.protobufjs_path, fs.realpathSync(PROTOBUFJS8));
    assert.strictEqual(report.app_protobufjs, fs.realpathSync(PROTOBUFJS8));
    assert.strictEqual(report.grpc, null);
    assert.deepStrictEqual(report.copies.map((c) => [c.version, c.app, c.grpc, c.used_by, c.timed, c.note]), [
      [VERSION_8, true, false, [], true, null],
      [VERSION_7, false, false, ['exporter'], true, null],
    ]);
    assert.strictEqual(report.copies[1].path, fs.realpathSync(PROTOBUFJS7));
    assert.match(report.copies[1].verdict, new RegExp(`protobufjs ${VERSION_7.replace(/\./g, '\\.')}'s own writer`));
    const text = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDER, '--time', TIME], { cwd: dir });
    assert.strictEqual(text.status, 0, text.stderr);
    assert.match(text.stdout, /\n +8\.8\.1 +node_modules\/protobufjs +your app's require\('protobufjs'\) +timed\n/);
    assert.match(text.stdout, /\n +7\.6\.6 +node_modules\/exporter\/node_modules\/protobufjs +used by exporter +timed\n/);
    assert.match(text.stdout, /\nprotobufjs 7\.6\.6 at node_modules\/exporter\/node_modules\/protobufjs \(used by exporter\):\n/);
    assert.match(text.stderr, /timing 2 protobufjs copies \(8\.8\.1, 7\.6\.6\)/);
  });

  it('times only the copy --protobufjs names, and lists the others', function () {
    const dir = path.join(tmp, 'two-copies');
    const report = measureJson(['--data', ORDER, '--protobufjs', 'node_modules/exporter/node_modules/protobufjs'], { cwd: dir });
    assert.strictEqual(report.protobufjs, VERSION_7);
    assert.deepStrictEqual(report.copies.map((c) => [c.version, c.timed, c.note]), [
      [VERSION_7, true, null],
      [VERSION_8, false, 'not timed: --protobufjs names another copy'],
    ]);
    assert.strictEqual(report.copies[1].results, null);
  });

  it('says which copy @grpc/proto-loader encodes with, and times one copy per version', function () {
    const dir = path.join(tmp, 'grpc-app');
    const loaderCopy = fs.realpathSync(path.join(PROTO_LOADER, 'node_modules', 'protobufjs'));
    const report = measureJson(['--data', ORDER], { cwd: dir });
    assert.deepStrictEqual(report.grpc, {
      proto_loader: require('@grpc/proto-loader/package.json').version, path: fs.realpathSync(PROTO_LOADER), protobufjs: loaderCopy,
    });
    assert.deepStrictEqual(report.copies.map((c) => [c.version, c.app, c.grpc, c.timed]), [
      [VERSION_8, true, false, true], [VERSION_7, false, true, true], [VERSION_7, false, false, false],
    ]);
    assert.strictEqual(report.copies[1].path, loaderCopy);
    assert.deepStrictEqual(report.copies[1].used_by, ['@grpc/proto-loader']);
    assert.match(report.copies[2].note, /^not timed: the same version as node_modules\/@grpc\/proto-loader\/node_modules\/protobufjs$/);
    const text = run(['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', ORDER, '--time', TIME], { cwd: dir });
    assert.strictEqual(text.status, 0, text.stderr);
    assert.match(text.stdout, /node_modules\/@grpc\/proto-loader\/node_modules\/protobufjs +@grpc\/proto-loader [\d.]+ encodes your gRPC messages with it +timed\n/);
    // An app whose own require('protobufjs') finds nothing is measured on proto-loader's copy.
    const only = measureJson(['--data', ORDER], { cwd: path.join(tmp, 'grpc-only') });
    assert.strictEqual(only.protobufjs, VERSION_7);
    assert.strictEqual(only.app_protobufjs, null);
    assert.strictEqual(only.copies.length, 1);
    assert.strictEqual(only.copies[0].grpc, true);
  });

  it('warns about values that do not fit the schema, naming the message and the field, and still times them', function () {
    const dir = path.join(tmp, 'two-copies');
    const args = ['measure', SHOP, '--type', 'shop.Order', '--path', INCLUDE, '--data', path.join(tmp, 'wrong.json'), '--time', TIME];
    const result = run(args, { cwd: dir });
    assert.strictEqual(result.status, 0, result.stderr);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('warning:'));
    assert.deepStrictEqual(warnings, [
      'protobufjs-rustwriter: warning: shop.Order message #2 (wrong.json) does not fit the schema: items[0].quantity: "two" is not an integer ' +
        '(uint32); its times may be meaningless (it is timed as protobufjs reads it)',
      // protobufjs 7's enums are closed: its own Type.verify rejects a number Status does not define.
      `protobufjs-rustwriter: warning: protobufjs ${VERSION_7}'s shop.Order.verify rejects shop.Order message #2 (wrong.json): ` +
        'status: enum value expected; its times may be meaningless (it is timed as protobufjs reads it)',
    ]);
    assert.match(result.stdout, /\n#2 \* +\d+ /);
    assert.match(result.stdout, /\n\* 2 problems in the data/);
    assert.match(result.stdout, /1 of the 2 messages does not fit the schema: its times may be meaningless\./);
    const report = JSON.parse(run([...args, '--json'], { cwd: dir }).stdout);
    assert.deepStrictEqual(report.warnings, [
      { type: 'shop.Order', message: 2, file: 'wrong.json', field: 'items[0].quantity', problem: '"two" is not an integer (uint32)', protobufjs: null },
      { type: 'shop.Order', message: 2, file: 'wrong.json', field: 'status', problem: 'enum value expected', protobufjs: VERSION_7 },
    ]);
    const fits = report.copies.map((c) => c.results.map((r) => r.fits_schema));
    assert.deepStrictEqual(fits, [[true, false], [true, false]]);
    assert.ok(report.results.every((r) => r.identical && r.speedup > 0));
  });

  it('prints its usage for --help', function () {
    const result = run(['measure', '--help']);
    assert.strictEqual(result.status, 0);
    assert.match(result.stdout, /^usage: protobufjs-rustwriter measure <schema\.proto\|schema\.json> --type <full\.Name>/);
  });

  describe('exits 2 with one line naming the fix', function () {
    const shop = ['measure', SHOP, '--path', INCLUDE];
    const CASES = [
      ['without a command', () => [[]], /no command: run protobufjs-rustwriter measure/],
      ['for an unknown command', () => [['frob']], /unknown command "frob"/],
      ['for an unknown option', () => [[...shop, '--bogus']], /unknown option --bogus: see protobufjs-rustwriter --help/],
      ['for a bad --time', () => [[...shop, '--type', 'shop.Order', '--time', '0']], /--time 0: give a number of seconds above 0/],
      ['without --type, listing the types', () => [shop], /needs --type <full\.Name>.*: one of shop\.Order, shop\.Item, shop\.Card, money\.Amount$/],
      ['for an unknown type', () => [[...shop, '--type', 'shop.Nope']], /no message type "shop\.Nope" in shop\.proto: pass --type/],
      ['for an enum', () => [[...shop, '--type', 'Status']], /shop\.Order\.Status is an enum, not a message type: pass --type with a message type, one of shop\.Order, /],
      ['for a missing schema', () => [['measure', path.join(tmp, 'nope.proto'), '--type', 'a.B']], /cannot read the schema .*nope\.proto: no such file/],
      ['for a schema that does not parse', () => [['measure', path.join(tmp, 'broken.proto'), '--type', 'A']], /broken\.proto does not parse: illegal id.*: fix the schema/],
      ['for an import not found', () => [['measure', SHOP, '--type', 'shop.Order']], /shop\.proto imports a file that is not found .*money\.proto.*: pass --path <dir>/],
      ['for a JSON file that is no schema', () => [['measure', ORDER, '--type', 'shop.Order']], /order\.json defines no message type/],
      ['for missing data', () => [[...shop, '--type', 'shop.Order', '--data', path.join(tmp, 'nope.json')]], /cannot read the data .*nope\.json: no such file/],
      ['for data that does not decode', () => [[...shop, '--type', 'shop.Order', '--data', path.join(tmp, 'garbage.bin')]], /garbage\.bin does not decode as shop\.Order .*--delimited/],
      [
        'for a truncated stream', () => [[...shop, '--type', 'shop.Order', '--delimited', '--data', path.join(tmp, 'truncated.bin')]],
        /truncated\.bin is not a length-delimited stream \(message 13: /,
      ],
      [
        'for a JSON field name the schema spells otherwise', () => [[...shop, '--type', 'shop.Order', '--data', path.join(tmp, 'snake.json')]],
        /"customer_name" \(at message 1\) is not a field of shop\.Order: .*names it "customerName": pass --keep-case/,
      ],
      [
        'for a 64-bit value protobufjs cannot read, naming the field', () => [[...shop, '--type', 'shop.Order', '--data', path.join(tmp, 'bad-int64.json')]],
        /bad-int64\.json: message 1: total\.units: "1-2" is not an int64 \(an integer, or a decimal string .*\) \(interior hyphen\): fix the data$/,
      ],
      ['without protobufjs in the app', () => [[...shop, '--type', 'shop.Order'], { cwd: path.join(tmp, 'empty-app') }], /cannot find protobufjs from .*empty-app: run it in your app's directory or pass --protobufjs <dir>$/],
      ['for a --protobufjs without it', () => [[...shop, '--type', 'shop.Order', '--protobufjs', path.join(tmp, 'empty-app')]], /no protobufjs at .*empty-app: pass --protobufjs/],
    ];
    for (const [title, argsOf, expected] of CASES) {
      it(title, function () {
        const [args, options] = argsOf();
        const result = run(args, options);
        assert.strictEqual(result.status, 2, result.stderr);
        assert.strictEqual(result.stdout, '');
        assert.match(result.stderr, /^protobufjs-rustwriter: [^\n]+\n$/);
        assert.match(result.stderr.trimEnd(), expected);
      });
    }
  });
});

describe('measure verdict', function () {
  const row = (median, q1, q3, nativeCalls = 0) => ({ messages: 1, nativeCalls, speedup: { median, q1, q3 } });
  const CASES = [
    ['faster, with the speed-up', [row(1.4, 1.2, 1.6)], true, /^RustWriter encodes this message 1\.40x faster than protobufjs 8\.8\.1's own writer \(native addon loaded; no packed/],
    ['faster over several messages, with the range', [row(1.4, 1.2, 1.6), row(2.8, 2.5, 3)], true, /^RustWriter encodes these messages 1\.40–2\.80x faster/],
    ['slower, and to keep protobufjs\'s writer', [row(0.8, 0.7, 0.9)], true, /^RustWriter is slower than .* \(0\.80x of its speed; .*\): keep protobufjs's writer for it\.$/],
    ['level, when the rounds straddle 1 close to it', [row(1.01, 0.97, 1.04)], true, /^RustWriter and .* are level on this message \(1\.01x; .*\): expect no gain\.$/],
    ['too noisy to tell, when the rounds straddle 1 far from it', [row(1.53, 0.92, 2.1)], true, /^The rounds varied too much .* 1\.53x in the median round, 0\.92–2\.10x .*longer --time\.$/],
    ['how many messages were faster, slower and level', [row(1.4, 1.2, 1.6), row(0.8, 0.7, 0.9), row(1.02, 0.9, 1.1)], true, /RustWriter is faster on 1 \(1\.40x\), slower on 1 \(0\.80x\), within noise on 1 of the 3 messages/],
    ['how many rows used the addon', [row(3, 2.5, 3.5, 1), row(1.4, 1.2, 1.6)], true, /\(native addon loaded and used for long packed fields in 1 of 2 rows\)\.$/],
    ['that the addon is not loaded', [row(1.4, 1.2, 1.6)], false, /\(JS path: the native addon is not loaded\)\.$/],
  ];
  for (const [title, rows, native, expected] of CASES) {
    it(`says ${title}`, function () {
      assert.match(verdict({ version: '8.8.1', native, forcedJs: false, rows }), expected);
    });
  }

  it('names compiled encoders, then gives the Writer API\'s speed-ups and the messages that do not fit the schema', function () {
    const api = (median) => ({ median, q1: median - 0.1, q3: median + 0.1 });
    const rows = [
      { ...row(2.4, 2.2, 2.6), apiSpeedup: api(1.2), unfit: 0 },
      { ...row(2.8, 2.5, 3), apiSpeedup: api(1.4), unfit: 1 },
    ];
    assert.strictEqual(verdict({ version: '8.8.1', native: true, forcedJs: false, compiled: true, rows }),
      'RustWriter with compiled encoders encodes these messages 2.40–2.80x faster than protobufjs 8.8.1\'s own writer ' +
      '(native addon loaded; no packed field long enough to use it). Through the Writer API (compiled: false): 1.20–1.40x. ' +
      '1 of the 2 messages does not fit the schema: its times may be meaningless.');
  });
});

describe('measure sample messages', function () {
  const scalars = new protobuf.Root().loadSync(path.join(__dirname, 'fixtures', 'scalars.proto'));
  const nested = new protobuf.Root().loadSync(path.join(__dirname, 'fixtures', 'nested.proto'));

  it('are the same for the same seed and differ for another', function () {
    const Singular = scalars.lookupType('rw.scalars.Singular');
    assert.deepStrictEqual(samples(Singular, 7), samples(Singular, 7));
    assert.notDeepStrictEqual(samples(Singular, 7), samples(Singular, 8));
  });

  it('set every field to a value that is encoded, and one member of each oneof', function () {
    for (const name of ['rw.scalars.Singular', 'rw.scalars.Packed', 'rw.scalars.Unpacked']) {
      const T = scalars.lookupType(name);
      for (const object of samples(T)) {
        const decoded = T.toObject(T.decode(T.encode(T.fromObject(object)).finish()), { longs: String, bytes: String });
        const members = new Set(T.oneofsArray.flatMap((o) => o.fieldsArray.map((f) => f.name)));
        for (const field of T.fieldsArray.filter((f) => !members.has(f.name))) {
          assert.ok(field.name in decoded, `${name}.${field.name} is not encoded`);
        }
        for (const oneof of T.oneofsArray) {
          assert.strictEqual(oneof.fieldsArray.filter((f) => f.name in object).length, 1, `${name}.${oneof.name}`);
        }
      }
    }
  });

  it('give every repeated field and map each of the sizes, nested messages included', function () {
    const Outer = nested.lookupType('rw.nested.Outer');
    samples(Outer).forEach((object, i) => {
      assert.strictEqual(Object.keys(object.strStr).length, SIZES[i]);
      assert.strictEqual(Object.keys(object.boolInner).length, Math.min(2, SIZES[i]));
      assert.ok(object.middle && object.middle.inner && object.middle.inner.leaf, 'nested messages are set');
    });
  });
});
